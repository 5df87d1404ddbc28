/* The canonical key codec: a position and any reordering of its columns or
   cells share one key, two different positions never do, and the position
   can be rebuilt from its key, so duplicate detection is exact.

   Key layout.  Every card placed on a column builds on the card below it,
   except cards still where they were dealt.  So a column whose bottom card
   was dealt at the bottom of column o is "anchored": k dealt cards of o
   (the longest common prefix) and a chain of built cards, each a rank lower
   than the one below, needing only a suit choice (1 bit for alternate
   colours, 0 for same suit, 2 for any suit).  Other columns give their bottom
   card and a chain.  For each dealt column o in order: k (0 = absent) and,
   if present, the chain length and choices; then the count of other columns
   sorted by bottom card, each with bottom card, chain length and choices;
   then the cells, sorted.  Foundations are whatever is missing.  Everything
   is determined by the position's content, never its column or cell order,
   and the position can be rebuilt from the key, so equal keys mean equal
   positions. */
#ifndef FCS_KEY_H
#define FCS_KEY_H

#include "position.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KEY_LITTLE_ENDIAN 1 /* a key's bytes are its words' bytes in order */
#else
#define KEY_LITTLE_ENDIAN 0
#endif
#define KEY_WORDS_MAX 6
#define KEY_BYTES_MAX (KEY_WORDS_MAX * 8)

/* What keys are relative to: the rules and the start position (its dealt
   columns anchor the others), and the bit widths they give. */
typedef struct {
    const fcs_rules *r;
    fcs_pos start;
    int8_t origin_of[FCS_CARDS + 1]; /* column whose dealt bottom card is c, -1 if none */
    /* Out-of-order pairs (a card on one it does not build on) among the
       first k cards of start column o: the only such pairs a position can
       hold (see proof_layer_of). */
    uint8_t disorder[FCS_MAX_COLS][FCS_MAX_COL_LEN + 1];
    /* What each start column's count of pairs held weighs in
       dealt_pairs.which: powers of FCS_MAX_COL_LEN + 1, the last column's 1. */
    uint64_t pairs_weight[FCS_MAX_COLS];
    /* The card built on card c whose suit choice is i (key.c: chain_card),
       for every choice a key can hold (two bits at most). */
    uint8_t built_on[FCS_CARDS + 1][4];
    /* The first k cards of start column o, one bit each (bit c: card c). */
    uint64_t dealt_cards[FCS_MAX_COLS][FCS_MAX_COL_LEN + 1];
    int k_bits;     /* bits for a dealt-prefix length */
    int chain_bits; /* bits per built card: which suit */
    int key_words;  /* 64-bit words per key */
} fcs_codec;

/* One column's part of a position's key, kept so that a position's
   children, which change one or two columns, code only those again. */
typedef struct {
    uint64_t bits;  /* its fields, the first in the low bits: at most 34 bits */
    uint8_t n;      /* how many bits; 0 for an empty column */
    int8_t origin;  /* the dealt column it is anchored to, -1 if none */
    uint8_t bottom; /* its bottom card (unanchored columns are sorted by it) */
    uint8_t kept;   /* anchored: how many dealt cards it still has */
} column_code;

/* Where the key puts a position's columns and cells (see key_canonical()). */
typedef struct {
    uint8_t order[FCS_MAX_COLS]; /* the position's column in each canonical slot */
    uint8_t cells[FCS_MAX_CELLS];
    int columns, n_cells;
} key_layout;

/* A position's out-of-order pairs (a card on one it does not build on):
   how many its columns hold, and which, as how many each start column still
   holds in its dealt prefix (in start-column order, so the same for every
   reordering of the columns).  The layered proof orders positions by them
   (proof_layer_of). */
typedef struct {
    int count;
    uint64_t which;
} dealt_pairs;

#define ALL_COLUMNS(r) ((1u << (r)->columns) - 1)
extern const column_code EMPTY_CODE;

/* Set up the codec for keys of positions reached from `start` under `r`
   (which must outlive it). */
void key_codec_init(fcs_codec *c, const fcs_rules *r, const fcs_pos *start);
/* Code the columns of p that `changed` marks (bit i: column i). */
void key_code_columns(const fcs_codec *c, const fcs_pos *p, unsigned changed, column_code *codes);
/* Write the key of p, whose columns `codes` holds coded (KEY_WORDS_MAX
   words), and when `lay` is given the order it lists columns and cells in,
   and when `pairs` is given the out-of-order pairs p holds (they lie in the
   dealt prefixes the key names); returns the key's length in bits. */
int key_encode_coded(const fcs_codec *c, const fcs_pos *p, const column_code *codes, uint64_t *key,
                     key_layout *lay, dealt_pairs *pairs);
/* key_encode_coded() for a position with nothing coded yet. */
int key_encode(const fcs_codec *c, const fcs_pos *p, uint64_t *key, key_layout *lay, dealt_pairs *pairs);
/* Rebuild the position a key (c->key_words words) names, in its canonical
   column and cell order, and code its columns as key_code_columns() would:
   a key is its coded columns side by side, so they come with the reading. */
void key_decode(const fcs_codec *c, const uint64_t *stored, fcs_pos *p, column_code *codes);

/* Whether two codes stand for the same column: a code spells its cards out. */
static inline int key_same_code(const column_code *a, const column_code *b)
{
    return a->n == b->n && a->bits == b->bits && a->origin == b->origin;
}

/* p in the column and cell order key_decode() would give, from
   key_encode()'s layout: moves named by index stay valid for the position
   whenever it is decoded. */
static inline void key_canonical(const fcs_pos *p, const key_layout *lay, fcs_pos *canon)
{
    int i;
    memset(canon->len, 0, sizeof(canon->len));
    memset(canon->cell, 0, sizeof(canon->cell));
    memcpy(canon->found, p->found, sizeof(canon->found));
    for (i = 0; i < lay->columns; i++) {
        canon->len[i] = p->len[lay->order[i]];
        /* Whole rows: a copy of fixed size is a few instructions. */
        memcpy(canon->col[i], p->col[lay->order[i]], FCS_MAX_COL_LEN);
    }
    memcpy(canon->cell, lay->cells, (size_t)lay->n_cells);
}

/* A key's hash, over its bytes: the layered proof stores keys packed to
   their own length, the other searches as whole words (key_hash). */
static inline uint64_t key_hash_packed(const uint8_t *key, int key_bytes)
{
    uint64_t h = 0x9E3779B97F4A7C15ull, w;
    int i;
    for (i = 0; i < key_bytes; i += 8) {
        if (key_bytes - i >= 8) {
            memcpy(&w, key + i, 8);
        } else if (KEY_LITTLE_ENDIAN && key_bytes >= 8) { /* the rest, from the last 8 bytes: one read */
            memcpy(&w, key + key_bytes - 8, 8);
            w >>= 8 * (8 - (key_bytes - i));
        } else {
            w = 0;
            memcpy(&w, key + i, (size_t)(key_bytes - i));
        }
        h ^= w;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

static inline uint64_t key_hash(const uint64_t *key, int words)
{
    return key_hash_packed((const uint8_t *)key, words * 8);
}

/* A key packed to `len` bytes, little-endian, so on such machines packing
   is a copy: of all KEY_BYTES_MAX bytes (a copy of fixed size is a few
   instructions), which `out` must have room for; past `len` they are the
   key's zero bits. */
static inline void key_pack(const uint64_t *words, int len, uint8_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, words, KEY_BYTES_MAX);
    (void)len;
#else
    int i;
    for (i = 0; i < len; i++)
        out[i] = (uint8_t)(words[i >> 3] >> ((i & 7) * 8));
#endif
}

/* A packed key back to KEY_WORDS_MAX words. */
static inline void key_unpack(const uint8_t *in, int len, uint64_t *words)
{
    int i;
    for (i = 0; i < KEY_WORDS_MAX; i++)
        words[i] = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len < 8) {
        memcpy(words, in, (size_t)len);
        return;
    }
    /* Whole words, then the rest from the last 8 bytes: reads of fixed
       size, none past the key. */
    for (i = 0; i + 8 <= len; i += 8)
        memcpy(&words[i >> 3], in + i, 8);
    if (len & 7) {
        uint64_t last;
        memcpy(&last, in + len - 8, 8);
        words[len >> 3] = last >> (8 * (8 - (len & 7)));
    }
#else
    for (i = 0; i < len; i++)
        words[i >> 3] |= (uint64_t)in[i] << ((i & 7) * 8);
#endif
}

/* Whether two packed keys of `len` bytes are equal: the proof compares a key
   for every child it meets again, too often for a call to memcmp. */
static inline int key_same_packed(const uint8_t *a, const uint8_t *b, int len)
{
    uint64_t x, y;
    int i;
    if (len < 8)
        return memcmp(a, b, (size_t)len) == 0;
    for (i = 0; i + 8 < len; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    memcpy(&x, a + len - 8, 8); /* the last 8 bytes, overlapping what went before */
    memcpy(&y, b + len - 8, 8);
    return x == y;
}

#endif
