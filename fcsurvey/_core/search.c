/* Best-first search with exact canonical duplicate detection.

   Positions are stored as canonical keys (see encode()): a position and any
   reordering of its columns or cells share one key, and two different
   positions never do, so duplicate detection is exact.  The search uses
   every legal move (single cards, plus sequence moves), with safe autoplay
   applied after each one; when the open list runs dry every reachable
   position has been seen, which proves the deal unsolvable. */
#define _GNU_SOURCE          /* pread, pwrite, mkstemp, clock_gettime; on Linux, fallocate */
#define _FILE_OFFSET_BITS 64 /* the proof's spill file outgrows 2 GiB */
#include "search.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEY_WORDS_MAX 6
#define OPEN_ORDERS 2 /* see open_push() */
#define NO_PARENT 0xFFFFFFFFu
#define TIME_CHECK_EVERY 256
#define INITIAL_STATES 1024
#define INITIAL_BUCKETS 1024
#define SOLUTION_TOKEN_MAX 8
#define LAST_TRY_SHARE 8 /* the last eager try's share of max_states: 1/8 */
#define INTERLUDE_AFTER 100000 /* see eager_interlude() */
#define INTERLUDE_BUDGET 150000
#define INTERLUDE_SHARE 16 /* ... and at most this share of max_states: 1/16 */

static const char COLUMN_CHARS[] = "1234567890";
static const char CELL_CHARS[] = "abcdefgklm";
static const char SUIT_CHARS[] = "CDHS";

/* One column's part of a position's key (see encode()), kept so that a
   position's children, which change one or two columns, code only those
   again. */
typedef struct {
    uint64_t bits;  /* its fields, the first in the low bits: at most 34 bits */
    uint8_t n;      /* how many bits; 0 for an empty column */
    int8_t origin;  /* the dealt column it is anchored to, -1 if none */
    uint8_t bottom; /* its bottom card (unanchored columns are sorted by it) */
    uint8_t kept;   /* anchored: how many dealt cards it still has */
} column_code;

/* One column of an expanded position, read once so that a move that sends
   nothing home can be scored in a few steps: taking cards off the top
   leaves a prefix, whose terms are looked up, and putting a run on it (a
   run is built, so it adds no break, and its ranks fall, so its cards
   block only on cards already there) adds terms the run alone decides.
   column_shape() and column_buried() are the definitions; the profile
   gives the same numbers. */
typedef struct {
    uint8_t blocked[FCS_MAX_COL_LEN + 1]; /* blocked cards among the first j */
    uint8_t breaks[FCS_MAX_COL_LEN + 1];  /* breaks among the first j */
    uint8_t lowest[FCS_NUM_SUITS];        /* lowest rank of each suit, 14 if none */
    uint8_t needed_at[FCS_NUM_SUITS];     /* where the cards the foundations need next lie */
    int first_break, last_break, needed;
    int shape, buried;                    /* the whole column's terms */
} column_profile;

/* The fast phase keeps the positions it expanded last, with their columns
   coded and profiled, since their children are what it mostly takes next,
   to spare decoding and coding them again (1024 slots took 2.5% less time
   than 256 on 4-cell deals 1-8000), and profiling again the columns a move
   leaves as they were (5% less time alone, 3% in a Python process).  On the
   heap: at about 1.5 MB it is too big for a thread stack. */
#define RECENT_SLOTS 1024
typedef struct {
    uint32_t idx;
    fcs_pos pos;
    column_code codes[FCS_MAX_COLS];
    column_profile prof[FCS_MAX_COLS];
} recent_entry;

typedef struct {
    const fcs_rules *r;
    fcs_pos start;
    int8_t origin_of[FCS_CARDS + 1]; /* column whose dealt bottom card is c */
    /* Out-of-order pairs (a card on one it does not build on) among the
       first k cards of start column o: the only such pairs a position can
       hold (see proof_layer_of). */
    uint8_t disorder[FCS_MAX_COLS][FCS_MAX_COL_LEN + 1];
    int k_bits;                      /* bits for a dealt-prefix length */
    int chain_bits;                  /* bits per built card: which suit */
    int key_words;

    uint64_t *keys;
    uint32_t *parent;
    fcs_packed_move *move;
    uint16_t *depth;
    uint32_t n, alloc, max_states;

    uint64_t *table; /* (fingerprint << 32) | (index + 1); 0 = empty */
    uint64_t mask;

    recent_entry *recent; /* RECENT_SLOTS, for the fast phase */
    struct open_entry_s *entries; /* the open list (open_push) */
    uint32_t entries_n, entries_alloc, free_entry, open_n;
    struct open_order_s {
        uint32_t *bucket; /* top entry of each priority's stack */
        uint32_t buckets, lowest;
    } order[OPEN_ORDERS];
    int orders;     /* orders the running phase keeps: 1, or OPEN_ORDERS in the fast phase */
    unsigned turn;  /* which order the next pop takes from */

    int limit;
    uint64_t expanded;
    int home_mode;          /* autoplay rule of the running phase */
    const struct weights_s *w;
    uint64_t stored_before; /* positions stored by earlier phases */
    uint64_t proof_states;  /* positions the layered proof visited */
    uint64_t proof_room;    /* positions it may hold at once */
    const fcs_limits *lim;  /* for its checkpoint file */
} solver;

/* ---- canonical keys -------------------------------------------------- */

typedef struct {
    uint64_t *w;
    int pos;
} bits;

static inline void put_bits(bits *b, uint64_t v, int n)
{
    int word = b->pos >> 6, off = b->pos & 63;
    if (!n)
        return;
    b->w[word] |= v << off;
    if (off + n > 64)
        b->w[word + 1] |= v >> (64 - off);
    b->pos += n;
}

static inline unsigned get_bits(bits *b, int n)
{
    int word = b->pos >> 6, off = b->pos & 63;
    uint64_t v;
    if (!n)
        return 0;
    v = b->w[word] >> off;
    if (off + n > 64)
        v |= b->w[word + 1] << (64 - off);
    b->pos += n;
    return (unsigned)(v & ((1u << n) - 1));
}

/* The suit choices of col[from..to), first card in the low bits: a chain
   holds at most 12 cards, so at most 24 bits (chain_bits each). */
static inline uint64_t chain_value(const solver *s, const uint8_t *col, int from, int to)
{
    uint64_t v = 0;
    int j, shift = 0;
    if (s->r->build == BUILD_ALTERNATE) {
        for (j = from; j < to; j++, shift++)
            v |= (uint64_t)(CARD_SUIT(col[j]) >> 1) << shift;
    } else if (s->r->build == BUILD_ANY) {
        for (j = from; j < to; j++, shift += 2)
            v |= (uint64_t)CARD_SUIT(col[j]) << shift;
    }
    return v;
}

/* The card built on `below` whose suit choice is `choice`. */
static inline uint8_t chain_card(const solver *s, int below, unsigned choice)
{
    int rank = CARD_RANK(below) - 1, suit;
    if (s->r->build == BUILD_SUIT)
        suit = CARD_SUIT(below);
    else if (s->r->build == BUILD_ANY)
        suit = (int)choice;
    else if (SUIT_RED(CARD_SUIT(below)))
        suit = choice ? 3 : 0; /* black: clubs or spades */
    else
        suit = choice ? 2 : 1; /* red: diamonds or hearts */
    return CARD_MAKE(rank, suit);
}

/* How many leading cards a and b share, up to n: eight at a time on
   little-endian machines.  Both are column arrays of FCS_MAX_COL_LEN (a
   multiple of 8) and n is at most that, so every word read is inside them. */
static inline int common_prefix(const uint8_t *a, const uint8_t *b, int n)
{
    int k = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; k < n; k += 8) {
        uint64_t x, y;
        memcpy(&x, a + k, 8);
        memcpy(&y, b + k, 8);
        if (x != y) {
            k += __builtin_ctzll(x ^ y) >> 3;
            break;
        }
    }
    return k < n ? k : n;
#else
    while (k < n && a[k] == b[k])
        k++;
    return k;
#endif
}

/* Key layout.  Every card placed on a column builds on the card below it,
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
/* Where the key puts p's columns and cells (see canonical()). */
typedef struct {
    uint8_t order[FCS_MAX_COLS]; /* p's column in each canonical slot */
    uint8_t cells[FCS_MAX_CELLS];
    int columns, n_cells;
} layout;

/* A position's out-of-order pairs (a card on one it does not build on):
   how many its columns hold, and which, as how many each start column still
   holds in its dealt prefix (in start-column order, so the same for every
   reordering of the columns).  The layered proof orders positions by them
   (proof_layer_of). */
typedef struct {
    int count;
    uint64_t which;
} dealt_pairs;

/* Code the column of `len` cards `col` as encode() lays columns out. */
static inline void code_column(const solver *s, const uint8_t *col, int len, column_code *cc)
{
    int o;
    if (!len) {
        cc->n = 0;
        cc->origin = -1;
        return;
    }
    o = s->origin_of[col[0]];
    cc->origin = (int8_t)o;
    cc->bottom = col[0];
    if (o >= 0) {
        int k = common_prefix(col, s->start.col[o], len < s->start.len[o] ? len : s->start.len[o]);
        int head = s->k_bits + 4;
        cc->kept = (uint8_t)k;
        cc->bits = ((uint64_t)k | (uint64_t)(len - k) << s->k_bits) | chain_value(s, col, k, len) << head;
        cc->n = (uint8_t)(head + (len - k) * s->chain_bits);
    } else {
        cc->bits = (col[0] | (uint64_t)(len - 1) << 6) | chain_value(s, col, 1, len) << 10;
        cc->n = (uint8_t)(10 + (len - 1) * s->chain_bits);
    }
}

/* Code the columns of p that `changed` marks (bit i: column i). */
static inline void code_columns(const solver *s, const fcs_pos *p, unsigned changed, column_code *codes)
{
    for (; changed; changed &= changed - 1) {
        int i = __builtin_ctz(changed);
        code_column(s, p->col[i], p->len[i], &codes[i]);
    }
}

#define ALL_COLUMNS(r) ((1u << (r)->columns) - 1)
static const column_code EMPTY_CODE = {0, 0, -1, 0, 0};

/* Whether two codes stand for the same column: a code spells its cards out. */
static inline int same_code(const column_code *a, const column_code *b)
{
    return a->n == b->n && a->bits == b->bits && a->origin == b->origin;
}

/* Write the key of p, whose columns `codes` holds coded, and when `lay` is
   given the order it lists columns and cells in, and when `pairs` is given
   the out-of-order pairs p holds (they lie in the dealt prefixes the key
   names); returns the key's length in bits. */
static int encode_coded(const solver *s, const fcs_pos *p, const column_code *codes, uint64_t *key, layout *lay,
                        dealt_pairs *pairs)
{
    const fcs_rules *r = s->r;
    int anchored_col[FCS_MAX_COLS], others[FCS_MAX_COLS];
    uint8_t cells[FCS_MAX_CELLS];
    int n_others = 0, n_cells = 0, i, j, o;
    bits b;

    for (i = 0; i < KEY_WORDS_MAX; i++)
        key[i] = 0;
    b.w = key;
    b.pos = 0;
    for (o = 0; o < r->columns; o++)
        anchored_col[o] = -1;
    for (i = 0; i < r->columns; i++) {
        if (!codes[i].n)
            continue;
        if (codes[i].origin >= 0) {
            anchored_col[codes[i].origin] = i;
        } else {
            int c = codes[i].bottom;
            for (j = n_others; j > 0 && codes[others[j - 1]].bottom > c; j--)
                others[j] = others[j - 1];
            others[j] = i;
            n_others++;
        }
    }
    for (o = 0; o < r->columns; o++) {
        if (anchored_col[o] < 0)
            put_bits(&b, 0, s->k_bits);
        else
            put_bits(&b, codes[anchored_col[o]].bits, codes[anchored_col[o]].n);
    }
    put_bits(&b, (unsigned)n_others, 4);
    for (i = 0; i < n_others; i++)
        put_bits(&b, codes[others[i]].bits, codes[others[i]].n);
    for (i = 0; i < r->cells; i++) {
        int c = p->cell[i];
        if (!c)
            continue;
        for (j = n_cells; j > 0 && cells[j - 1] > c; j--)
            cells[j] = cells[j - 1];
        cells[j] = (uint8_t)c;
        n_cells++;
    }
    put_bits(&b, (unsigned)n_cells, 4);
    for (i = 0; i < n_cells; i++)
        put_bits(&b, cells[i], 6);
    if (lay) {
        lay->columns = 0;
        for (o = 0; o < r->columns; o++)
            if (anchored_col[o] >= 0)
                lay->order[lay->columns++] = (uint8_t)anchored_col[o];
        for (i = 0; i < n_others; i++)
            lay->order[lay->columns++] = (uint8_t)others[i];
        memcpy(lay->cells, cells, (size_t)n_cells);
        lay->n_cells = n_cells;
    }
    if (pairs) {
        pairs->count = 0;
        pairs->which = 0;
        for (o = 0; o < r->columns; o++) {
            int held = anchored_col[o] < 0 ? 0 : s->disorder[o][codes[anchored_col[o]].kept];
            pairs->count += held;
            pairs->which = pairs->which * (FCS_MAX_COL_LEN + 1) + (uint64_t)held;
        }
    }
    return b.pos;
}

/* encode_coded() for a position with nothing coded yet. */
static int encode(const solver *s, const fcs_pos *p, uint64_t *key, layout *lay, dealt_pairs *pairs)
{
    column_code codes[FCS_MAX_COLS];
    code_columns(s, p, ALL_COLUMNS(s->r), codes);
    return encode_coded(s, p, codes, key, lay, pairs);
}

/* The columns a move takes cards from or puts them on (bit i: column i). */
static inline unsigned move_columns(const fcs_move *m)
{
    return (m->src_kind == AT_COLUMN ? 1u << m->src : 0) | (m->dst_kind == AT_COLUMN ? 1u << m->dst : 0);
}

/* p in the column and cell order decode() would give, from encode()'s layout:
   moves named by index stay valid for the position whenever it is decoded. */
static void canonical(const fcs_pos *p, const layout *lay, fcs_pos *canon)
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

/* Lay the chain of built cards `choices` (chain_value()'s layout) on
   col[from - 1], up to col[to - 1]. */
static inline void lay_chain(const solver *s, uint8_t *col, int from, int to, unsigned choices)
{
    unsigned mask = (1u << s->chain_bits) - 1;
    int j;
    for (j = from; j < to; j++, choices >>= s->chain_bits)
        col[j] = chain_card(s, col[j - 1], choices & mask);
}

/* Rebuild the position a key names, in its canonical column and cell
   order, and code its columns as code_column() would: a key is its coded
   columns side by side, so they come with the reading. */
static void decode(const solver *s, const uint64_t *stored, fcs_pos *p, column_code *codes)
{
    const fcs_rules *r = s->r;
    uint64_t key[KEY_WORDS_MAX + 1] = {0};
    int out[FCS_NUM_SUITS] = {0};
    int i, j, o, slot = 0, n, head = s->k_bits + 4;
    bits b;

    memcpy(key, stored, sizeof(uint64_t) * (size_t)s->key_words);
    b.w = key;
    b.pos = 0;
    memset(p, 0, sizeof(*p));
    for (o = 0; o < r->columns; o++) {
        int k = (int)get_bits(&b, s->k_bits), built;
        unsigned choices;
        column_code *cc = &codes[slot];
        if (!k)
            continue;
        memcpy(p->col[slot], s->start.col[o], (size_t)k);
        built = (int)get_bits(&b, 4);
        choices = get_bits(&b, built * s->chain_bits);
        lay_chain(s, p->col[slot], k, k + built, choices);
        p->len[slot++] = (uint8_t)(k + built);
        cc->origin = (int8_t)o;
        cc->bottom = s->start.col[o][0];
        cc->kept = (uint8_t)k;
        cc->bits = ((uint64_t)k | (uint64_t)built << s->k_bits) | (uint64_t)choices << head;
        cc->n = (uint8_t)(head + built * s->chain_bits);
    }
    n = (int)get_bits(&b, 4);
    for (i = 0; i < n; i++) {
        int bottom = (int)get_bits(&b, 6), built = (int)get_bits(&b, 4);
        unsigned choices = get_bits(&b, built * s->chain_bits);
        column_code *cc = &codes[slot];
        p->col[slot][0] = (uint8_t)bottom;
        lay_chain(s, p->col[slot], 1, 1 + built, choices);
        p->len[slot++] = (uint8_t)(1 + built);
        cc->origin = -1;
        cc->bottom = (uint8_t)bottom;
        cc->kept = 0;
        cc->bits = ((uint64_t)bottom | (uint64_t)built << 6) | (uint64_t)choices << 10;
        cc->n = (uint8_t)(10 + built * s->chain_bits);
    }
    for (; slot < r->columns; slot++)
        codes[slot] = EMPTY_CODE;
    n = (int)get_bits(&b, 4);
    for (i = 0; i < n; i++)
        p->cell[i] = (uint8_t)get_bits(&b, 6);
    /* The foundations hold what is not out; counted without a branch per card. */
    for (i = 0; i < r->columns; i++)
        for (j = 0; j < p->len[i]; j++)
            out[CARD_SUIT(p->col[i][j])]++;
    for (i = 0; i < n; i++)
        out[CARD_SUIT(p->cell[i])]++;
    for (i = 0; i < FCS_NUM_SUITS; i++)
        p->found[i] = (uint8_t)(FCS_RANKS - out[i]);
}

static int bits_for(int max_value)
{
    int n = 0;
    while ((1 << n) <= max_value)
        n++;
    return n;
}

static int key_words_for(const fcs_rules *r, const fcs_pos *start, int *k_bits, int *chain_bits)
{
    int i, dealt_max = 0, total;
    for (i = 0; i < r->columns; i++)
        if (start->len[i] > dealt_max)
            dealt_max = start->len[i];
    *k_bits = bits_for(dealt_max);
    *chain_bits = r->build == BUILD_ALTERNATE ? 1 : r->build == BUILD_ANY ? 2 : 0;
    /* Every dealt column's k, then per non-empty column at most 10 bits (a
       chain length after k, or an other column's bottom card and length),
       two 4-bit counts, the cells, and at most one suit choice per card. */
    total = r->columns * (*k_bits + 10) + 8 + r->cells * 6 + FCS_CARDS * *chain_bits;
    return (total + 63) / 64;
}

/* ---- state store ------------------------------------------------------ */

/* A key's hash, over its bytes: the layered proof stores keys packed to
   their own length, the other phases as whole words (hash_key). */
static inline uint64_t hash_packed(const uint8_t *key, int key_bytes)
{
    uint64_t h = 0x9E3779B97F4A7C15ull, w;
    int i;
    for (i = 0; i < key_bytes; i += 8) {
        if (key_bytes - i >= 8) {
            memcpy(&w, key + i, 8);
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

static inline uint64_t hash_key(const uint64_t *key, int words)
{
    return hash_packed((const uint8_t *)key, words * 8);
}

static int grow_store(solver *s)
{
    uint32_t alloc = s->alloc ? s->alloc * 2 : INITIAL_STATES;
    void *p;
    if (alloc > s->max_states)
        alloc = s->max_states;
    if ((p = realloc(s->keys, (size_t)alloc * (size_t)s->key_words * 8)) == NULL)
        return 0;
    s->keys = p;
    if ((p = realloc(s->parent, (size_t)alloc * sizeof(uint32_t))) == NULL)
        return 0;
    s->parent = p;
    if ((p = realloc(s->move, (size_t)alloc * sizeof(fcs_packed_move))) == NULL)
        return 0;
    s->move = p;
    if ((p = realloc(s->depth, (size_t)alloc * sizeof(uint16_t))) == NULL)
        return 0;
    s->depth = p;
    s->alloc = alloc;
    return 1;
}

static int grow_table(solver *s)
{
    uint64_t size = s->mask ? (s->mask + 1) * 2 : (uint64_t)INITIAL_STATES * 2, i;
    uint64_t *t = calloc(size, sizeof(uint64_t));
    if (!t)
        return 0;
    for (i = 0; s->table && i <= s->mask; i++) {
        uint64_t e = s->table[i], slot;
        if (!e)
            continue;
        slot = hash_key(&s->keys[((e & 0xFFFFFFFFu) - 1) * (uint64_t)s->key_words], s->key_words) &
               (size - 1);
        while (t[slot])
            slot = (slot + 1) & (size - 1);
        t[slot] = e;
    }
    free(s->table);
    s->table = t;
    s->mask = size - 1;
    return 1;
}

static inline int same_words(const uint64_t *a, const uint64_t *b, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* The stored key a table entry points to. */
static inline const uint64_t *entry_key(const solver *s, uint64_t e)
{
    return &s->keys[((e & 0xFFFFFFFFu) - 1) * (uint64_t)s->key_words];
}

/* Find `key`, whose hash_key() is h; if absent insert it.  Returns the
   index, sets *is_new; returns NO_PARENT when a limit stops the insertion
   (s->limit says which). */
static uint32_t find_or_add_hashed(solver *s, const uint64_t *key, uint64_t h, int *is_new)
{
    uint64_t slot = h & s->mask, fp = h >> 32, e;
    size_t bytes = (size_t)s->key_words * 8;
    while ((e = s->table[slot]) != 0) {
        if ((e >> 32) == fp && same_words(entry_key(s, e), key, s->key_words)) {
            *is_new = 0;
            return (uint32_t)(e & 0xFFFFFFFFu) - 1;
        }
        slot = (slot + 1) & s->mask;
    }
    if (s->n >= s->max_states) {
        s->limit = FCS_LIMIT_STATES;
        return NO_PARENT;
    }
    if (s->n == s->alloc && !grow_store(s)) {
        s->limit = FCS_LIMIT_MEMORY;
        return NO_PARENT;
    }
    memcpy(&s->keys[(uint64_t)s->n * s->key_words], key, bytes);
    s->table[slot] = (fp << 32) | (uint64_t)(s->n + 1);
    *is_new = 1;
    s->n++;
    if ((uint64_t)s->n * 2 > s->mask && !grow_table(s)) {
        s->limit = FCS_LIMIT_MEMORY;
        return NO_PARENT;
    }
    return s->n - 1;
}

static uint32_t find_or_add(solver *s, const uint64_t *key, int *is_new)
{
    return find_or_add_hashed(s, key, hash_key(key, s->key_words), is_new);
}

/* ---- open list -------------------------------------------------------- */

/* The open list is a bucket queue.  Priorities are small integers (the
   heuristic plus a depth term: a few thousand at most), so each priority
   keeps a stack of entries, and a pop takes the newest entry of the lowest
   non-empty priority: the order of a heap keyed on (priority, newest
   first), at constant cost instead of a logarithm.  An entry stands for a
   stored position (move == NO_MOVE) or a child not yet stored, reached
   from stored position `state` by a physical move.

   The fast phase keeps its entries in two such orders at once and pops
   from each in turn: by heuristic plus depth term, which keeps solutions
   short, and by heuristic alone, which goes deep where the first goes wide
   and wins quickly on many deals the depth term holds back (QUICK_TRIES
   gives what it saves).  An entry taken through one order is marked TAKEN
   and freed when the other reaches it.  The later greedy tries, which go
   deep where the complete phase goes wide, keep the first order alone: with
   both, they did not win 3-cell deal 28321 with room for a million
   positions, which they won with one (measured when the quick tries still
   left 28321 to them). */
#define OPEN_DEPTH_ORDER 0
#define OPEN_GREEDY_ORDER 1

typedef struct open_entry_s {
    uint32_t state;
    uint32_t move;
    uint32_t next[OPEN_ORDERS]; /* the entry below it on each order's stack; next[0]: the next free one */
} open_entry;

#define NO_ENTRY 0xFFFFFFFFu
#define NO_MOVE 0xFFFFFFFFu
#define TAKEN 0xFFFFFFFEu /* the move of an entry popped through another order */

static inline uint32_t pack_physical(const fcs_move *m)
{
    return (uint32_t)m->src_kind | ((uint32_t)m->src << 2) | ((uint32_t)m->dst_kind << 6) |
           ((uint32_t)m->dst << 8) | ((uint32_t)m->count << 12);
}

static inline void unpack_physical(uint32_t v, fcs_move *m)
{
    m->src_kind = (uint8_t)(v & 3);
    m->src = (uint8_t)((v >> 2) & 15);
    m->dst_kind = (uint8_t)((v >> 6) & 3);
    m->dst = (uint8_t)((v >> 8) & 15);
    m->count = (uint8_t)((v >> 12) & 63);
}

static int grow_buckets(struct open_order_s *o, uint32_t priority)
{
    uint32_t alloc = o->buckets ? o->buckets : INITIAL_BUCKETS, i;
    uint32_t *b;
    while (alloc <= priority)
        alloc *= 2;
    if ((b = realloc(o->bucket, (size_t)alloc * sizeof(uint32_t))) == NULL)
        return 0;
    for (i = o->buckets; i < alloc; i++)
        b[i] = NO_ENTRY;
    o->bucket = b;
    o->buckets = alloc;
    return 1;
}

/* Push an entry with priority[k] in order k, for each order the phase keeps. */
static int open_push(solver *s, const uint32_t *priority, uint32_t state, uint32_t move)
{
    uint32_t e;
    int k;
    for (k = 0; k < s->orders; k++)
        if (priority[k] >= s->order[k].buckets && !grow_buckets(&s->order[k], priority[k])) {
            s->limit = FCS_LIMIT_MEMORY;
            return 0;
        }
    if (s->free_entry != NO_ENTRY) {
        e = s->free_entry;
        s->free_entry = s->entries[e].next[0];
    } else {
        if (s->entries_n == s->entries_alloc) {
            uint32_t alloc = s->entries_alloc ? s->entries_alloc * 2 : INITIAL_STATES;
            open_entry *h = realloc(s->entries, (size_t)alloc * sizeof(open_entry));
            if (h == NULL) {
                s->limit = FCS_LIMIT_MEMORY;
                return 0;
            }
            s->entries = h;
            s->entries_alloc = alloc;
        }
        e = s->entries_n++;
    }
    s->entries[e].state = state;
    s->entries[e].move = move;
    for (k = 0; k < s->orders; k++) {
        struct open_order_s *o = &s->order[k];
        s->entries[e].next[k] = o->bucket[priority[k]];
        o->bucket[priority[k]] = e;
        if (!s->open_n || priority[k] < o->lowest)
            o->lowest = priority[k];
    }
    s->open_n++;
    return 1;
}

/* Only when s->open_n > 0: every order then holds an entry not yet taken. */
static open_entry open_pop(solver *s)
{
    int k = s->orders > 1 ? (int)(s->turn++ % (unsigned)s->orders) : 0;
    struct open_order_s *o = &s->order[k];
    for (;;) {
        uint32_t e;
        open_entry top;
        while (o->bucket[o->lowest] == NO_ENTRY)
            o->lowest++;
        e = o->bucket[o->lowest];
        top = s->entries[e];
        o->bucket[o->lowest] = top.next[k];
        if (top.move != TAKEN && s->orders > 1) {
            s->entries[e].move = TAKEN;
            s->open_n--;
            return top;
        }
        s->entries[e].next[0] = s->free_entry;
        s->free_entry = e;
        if (top.move != TAKEN) {
            s->open_n--;
            return top;
        }
    }
}

/* Empty the open list, keeping its memory. */
static void open_clear(solver *s)
{
    int k;
    for (k = 0; k < OPEN_ORDERS; k++) {
        struct open_order_s *o = &s->order[k];
        uint32_t i;
        for (i = 0; i < o->buckets; i++)
            o->bucket[i] = NO_ENTRY;
        o->lowest = 0;
    }
    s->entries_n = s->open_n = 0;
    s->free_entry = NO_ENTRY;
}

/* ---- heuristic -------------------------------------------------------- */

/* Heuristic weights (see heuristic() below).  Two sets: one fast on
   FreeCell (coordinate descent on positions stored plus expanded over deals
   1-8000; 13% fewer expansions on deals 8001-32000, which it never saw),
   which the fast phase uses, and one that orders the complete phase. */
typedef struct weights_s {
    int not_home;     /* each card not on a foundation */
    int blocked;      /* each card above a lower card of its suit */
    int broken;       /* each card not built on the card below */
    int not_well;     /* each card above a column's first such break */
    int column;       /* each non-empty column */
    int cell;         /* each occupied free cell ... */
    int cell_squared; /* ... and the square of their number */
    int buried;       /* each card above a card a foundation needs next */
    int depth;        /* each move made: favours short solutions */
} weights;

static const weights FAST_WEIGHTS = {1, 3, 4, 0, 7, 6, 1, 1, 3};
static const weights STEADY_WEIGHTS = {2, 3, 3, 1, 7, 6, 1, 3, 2};

/* The heuristic (lower is better) is a sum of per-column terms and a few
   global ones, so the fast phase can rescore a child by redoing only the
   columns a move touched.  Per column: cards lying above a lower card of
   their own suit (each must move off before that card goes home), cards not
   built on the card below, and being non-empty.  Buried: cards above the next
   card each suit needs. */
static inline int column_shape(const fcs_rules *r, const weights *w, const uint8_t *col, int len)
{
    uint8_t lowest[FCS_NUM_SUITS] = {14, 14, 14, 14};
    int blocked = 0, breaks = 0, first_break = 0, j;
    if (!len)
        return 0;
    for (j = 0; j < len; j++) {
        int c = col[j], su = CARD_SUIT(c), rk = CARD_RANK(c);
        if (lowest[su] < rk)
            blocked++;
        else
            lowest[su] = (uint8_t)rk;
        if (j && !fcs_can_build(r, col[j - 1], c)) {
            breaks++;
            if (!first_break)
                first_break = j;
        }
    }
    return w->blocked * blocked + w->broken * breaks + w->column +
           w->not_well * (first_break ? len - first_break : 0);
}

static inline int column_buried(const uint8_t *col, int len, const uint8_t *found)
{
    int j, buried = 0;
    for (j = 0; j < len - 1; j++)
        if (CARD_RANK(col[j]) == found[CARD_SUIT(col[j])] + 1)
            buried += len - 1 - j;
    return buried;
}

static inline int cells_used(const fcs_rules *r, const fcs_pos *p)
{
    int used = 0, i;
    for (i = 0; i < r->cells; i++)
        used += p->cell[i] != 0;
    return used;
}

static inline int columns_empty(const fcs_rules *r, const fcs_pos *p)
{
    int empty = 0, i;
    for (i = 0; i < r->columns; i++)
        empty += p->len[i] == 0;
    return empty;
}

static inline uint32_t combine(const fcs_rules *r, const weights *w, const fcs_pos *p, int shape,
                               int buried, int used, int empty)
{
    int home = p->found[0] + p->found[1] + p->found[2] + p->found[3];
    if (used == r->cells && empty == 0)
        buried *= 2; /* no free space: digging out costs double */
    return (uint32_t)(w->not_home * (FCS_CARDS - home) + w->cell * used + w->cell_squared * used * used +
                      shape + w->buried * buried);
}

static uint32_t heuristic(const solver *s, const fcs_pos *p)
{
    const fcs_rules *r = s->r;
    int shape = 0, buried = 0, i;
    for (i = 0; i < r->columns; i++) {
        shape += column_shape(r, s->w, p->col[i], p->len[i]);
        buried += column_buried(p->col[i], p->len[i], p->found);
    }
    return combine(r, s->w, p, shape, buried, cells_used(r, p), columns_empty(r, p));
}

/* *to = *from for a game of `columns` columns: rows past them are never
   read, and a struct copy of the whole (344 bytes) costs a string move. */
static inline void copy_pos(fcs_pos *to, const fcs_pos *from, int columns)
{
    memcpy(to->col, from->col, (size_t)columns * FCS_MAX_COL_LEN);
    memcpy(to->len, from->len, sizeof(fcs_pos) - offsetof(fcs_pos, len));
}

/* ---- autoplay and tokens ---------------------------------------------- */

static int loc_token(char *out, int kind, int index)
{
    if (kind == AT_COLUMN)
        out[0] = COLUMN_CHARS[index];
    else if (kind == AT_CELL)
        out[0] = CELL_CHARS[index];
    else
        out[0] = 'h';
    return 1;
}

/* Standard notation for one move (see notation.py). */
static int move_token(const fcs_pos *before, const fcs_move *m, char *out)
{
    int n = 0;
    if (m->src_kind == AT_FOUNDATION) {
        out[n++] = 'h';
        out[n++] = SUIT_CHARS[m->src];
    } else {
        n += loc_token(out + n, m->src_kind, m->src);
    }
    n += loc_token(out + n, m->dst_kind, m->dst);
    if (m->dst_kind == AT_COLUMN && m->src_kind == AT_COLUMN && m->count > 1 && before->len[m->dst] == 0) {
        static const char hex[] = "0123456789abcdef";
        out[n++] = 'v';
        if (m->count >= 16)
            out[n++] = hex[m->count >> 4];
        out[n++] = hex[m->count & 15];
    }
    return n;
}

static void append_token(char *out, int *len, const char *tok, int n)
{
    if (*len)
        out[(*len)++] = ' ';
    memcpy(out + *len, tok, (size_t)n);
    *len += n;
    out[*len] = 0;
}

/* Which playable cards autoplay sends home: only provably safe ones (the
   complete search and every proof), or, in the fast phase, which only has to
   find some solution, every playable card. */
enum { HOME_SAFE, HOME_EAGER };

/* The fast phase's tries, each with the positions it may store: first with
   every playable card going home (fewer positions, shorter solutions), then
   with safe autoplay only (some deals need a card kept back), then the
   first again with more room, if it ran out of it (4-cell deal 12795: won
   after 36,361 more, where the complete phase and its interlude took
   242,204).  Then the complete phase takes over.  All keep the open list in
   its two orders (open_push()).  The two orders and the first two tries,
   measured against one order and tries of 20,000 (the second with the
   complete phase's weights), in positions stored and time: 4-cell deals
   1-8000 -14% and -7%, 8001-16000 -15% and -12%; 3 cells, 1-1000: -8%,
   time unchanged; single-card moves, 4 cells, 1-2000: -40% and -39%.  A
   first try of 5,000 or 20,000 did worse on deals 1-16000.  The third try
   on top: 4 cells, 1-32000: -5% and -4%; 3 cells, 1-1000: -18% and -10%;
   1 cell, 1-40, most of them unsolvable: +4% and +4%; 2 cells, 1-100: +2%,
   time unchanged; 11982 proved with 133,181 positions instead of 91,643
   (120,619 with the eager move set of fcs_legal_moves_by_runs). */
static const struct {
    int home_mode;
    const weights *w;
    uint32_t budget;
    int more_room_for; /* the try this one repeats with more room, or -1 */
} QUICK_TRIES[] = {{HOME_EAGER, &FAST_WEIGHTS, 10000, -1},
                   {HOME_SAFE, &FAST_WEIGHTS, 20000, -1},
                   {HOME_EAGER, &FAST_WEIGHTS, 100000, 0}};
#define QUICK_TRY_COUNT ((int)(sizeof(QUICK_TRIES) / sizeof(QUICK_TRIES[0])))

static inline int goes_home(const fcs_rules *r, const fcs_pos *p, int c, int mode)
{
    if (p->found[CARD_SUIT(c)] + 1 != CARD_RANK(c))
        return 0;
    return mode == HOME_EAGER || fcs_safe_home(r, p->found, c);
}

/* Send cards home per `mode`; returns how many went, and marks the columns
   it took cards from in *touched (if given).  Only the next card of each
   suit can go, so it looks those up among the accessible cards. */
static int autoplay(const fcs_rules *r, fcs_pos *p, int mode, char *out, int *len, int *tokens,
                    unsigned *touched)
{
    uint64_t avail = 0;
    int i, sent = 0, progress = 1;
    for (i = 0; i < r->cells; i++)
        avail |= (uint64_t)1 << p->cell[i];
    for (i = 0; i < r->columns; i++)
        if (p->len[i])
            avail |= (uint64_t)1 << p->col[i][p->len[i] - 1];
    while (progress) {
        int suit;
        progress = 0;
        for (suit = 0; suit < FCS_NUM_SUITS; suit++) {
            int c, from_cell = -1, from_col = -1;
            char tok[2];
            if (p->found[suit] == FCS_RANKS)
                continue;
            c = CARD_MAKE(p->found[suit] + 1, suit);
            if (!(avail & ((uint64_t)1 << c)) || !goes_home(r, p, c, mode))
                continue;
            for (i = 0; i < r->cells && from_cell < 0; i++)
                if (p->cell[i] == c)
                    from_cell = i;
            for (i = 0; i < r->columns && from_cell < 0 && from_col < 0; i++)
                if (p->len[i] && p->col[i][p->len[i] - 1] == c)
                    from_col = i;
            if (from_cell >= 0) {
                p->cell[from_cell] = 0;
                tok[0] = CELL_CHARS[from_cell];
            } else {
                p->len[from_col]--;
                if (p->len[from_col])
                    avail |= (uint64_t)1 << p->col[from_col][p->len[from_col] - 1];
                if (touched)
                    *touched |= 1u << from_col;
                tok[0] = COLUMN_CHARS[from_col];
            }
            avail &= ~((uint64_t)1 << c);
            p->found[suit]++;
            if (out) {
                tok[1] = 'h';
                append_token(out, len, tok, 2);
                (*tokens)++;
            }
            sent++;
            progress = 1;
        }
    }
    return sent;
}

/* Whether `m`, made from a position autoplay has already run on, can let a
   card go home under either rule.  Nothing sent home can become safe unless
   the foundations change, so only a move to or from a foundation or the
   card a column move uncovers can start autoplay again. */
static inline int may_autoplay(const fcs_pos *child, const fcs_move *m)
{
    int len, c;
    if (m->dst_kind == AT_FOUNDATION || m->src_kind == AT_FOUNDATION)
        return 1;
    if (m->src_kind != AT_COLUMN || !(len = child->len[m->src]))
        return 0;
    c = child->col[m->src][len - 1];
    return child->found[CARD_SUIT(c)] + 1 == CARD_RANK(c);
}

void fcs_autoplay(const fcs_rules *r, fcs_pos *p, char *out, int *len, int *tokens)
{
    autoplay(r, p, HOME_SAFE, out, len, tokens, NULL);
}

/* Single-card moves one sequence move of n cards stands for, moving through
   the free cells and then halving through empty columns; moves beyond that
   capacity (unlimited sequence moves) count one per card. */
static int atomic_count(int n, int cells, int empties)
{
    int half;
    if (n <= cells + 1)
        return 2 * n - 1;
    if (empties <= 0)
        return n;
    half = (cells + 1) << (empties - 1);
    if (n - half > half)
        return n;
    return 2 * atomic_count(n - half, cells, empties - 1) + atomic_count(half, cells, empties - 1);
}

/* Replay the path of packed moves from the start on the real (physical)
   layout, writing every move and every autoplayed card as a token. */
static int emit_solution(solver *s, const fcs_packed_move *path, int steps, fcs_result *res)
{
    const fcs_rules *r = s->r;
    fcs_pos p = s->start;
    size_t cap = (size_t)(steps + FCS_CARDS * 2 + 8) * SOLUTION_TOKEN_MAX;
    char *out = malloc(cap), tok[SOLUTION_TOKEN_MAX];
    int len = 0, tokens = 0, atomic = 0, i;
    if (!out)
        return 0;
    out[0] = 0;
    autoplay(r, &p, s->home_mode, out, &len, &tokens, NULL);
    atomic += tokens;
    for (i = 0; i < steps; i++) {
        fcs_move m;
        int before = tokens, n;
        if (!fcs_unpack(r, &p, path[i], &m)) {
            free(out);
            return 0;
        }
        n = move_token(&p, &m, tok);
        if (m.count > 1) {
            int dest_empty = p.len[m.dst] == 0;
            int empties = r->empty_fill == FILL_ANY ? fcs_empty_columns(r, &p) - dest_empty : 0;
            atomic += atomic_count(m.count, fcs_empty_cells(r, &p), empties);
        } else {
            atomic++;
        }
        append_token(out, &len, tok, n);
        tokens++;
        fcs_apply(&p, &m);
        autoplay(r, &p, s->home_mode, out, &len, &tokens, NULL);
        atomic += tokens - before - 1;
    }
    if (!fcs_is_won(&p)) {
        free(out);
        return 0;
    }
    res->solution = out;
    res->moves = tokens;
    res->atomic_moves = atomic;
    return 1;
}

/* ---- the search -------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Collect the moves from the root to `last`, then `final_move` (if any). */
static void finish_solved(solver *s, uint32_t last, const fcs_packed_move *final_move, fcs_result *res)
{
    int steps = final_move ? 1 : 0, i;
    uint32_t v;
    fcs_packed_move *path;
    for (v = last; v != NO_PARENT && s->parent[v] != NO_PARENT; v = s->parent[v])
        steps++;
    path = malloc(sizeof(fcs_packed_move) * (size_t)(steps + 1));
    if (!path) {
        res->status = FCS_UNKNOWN;
        res->limit = FCS_LIMIT_MEMORY;
        return;
    }
    i = steps - 1;
    if (final_move)
        path[i--] = *final_move;
    for (v = last; v != NO_PARENT && s->parent[v] != NO_PARENT; v = s->parent[v])
        path[i--] = s->move[v];
    if (emit_solution(s, path, steps, res)) {
        res->status = FCS_SOLVED;
    } else {
        res->status = FCS_UNKNOWN;
        res->limit = FCS_LIMIT_MEMORY;
    }
    free(path);
}

static void reset_store(solver *s)
{
    s->n = 0;
    open_clear(s);
    memset(s->table, 0, (size_t)(s->mask + 1) * sizeof(uint64_t));
}

static void forget_store(solver *s);

static void release_store(solver *s)
{
    int k;
    free(s->keys);
    free(s->parent);
    free(s->move);
    free(s->depth);
    free(s->table);
    free(s->entries);
    for (k = 0; k < OPEN_ORDERS; k++)
        free(s->order[k].bucket);
    forget_store(s);
}

/* Drop s's store without freeing it: for a copy of a solver that is to get
   a store of its own (eager_interlude). */
static void forget_store(solver *s)
{
    s->keys = NULL;
    s->parent = NULL;
    s->move = NULL;
    s->depth = NULL;
    s->table = NULL;
    s->entries = NULL;
    memset(s->order, 0, sizeof(s->order));
    s->n = s->alloc = s->entries_n = s->entries_alloc = s->open_n = 0;
    s->free_entry = NO_ENTRY;
    s->mask = 0;
}

static void record(solver *s, uint32_t idx, uint32_t parent, const fcs_pos *before, const fcs_move *m)
{
    s->parent[idx] = parent;
    s->move[idx] = parent == NO_PARENT ? 0 : fcs_pack(before, m);
    s->depth[idx] = parent == NO_PARENT ? 0 : (uint16_t)(s->depth[parent] + 1);
}

static int is_noop(const fcs_pos *p, const fcs_move *m)
{
    /* A whole column into an empty one changes nothing but order. */
    return m->src_kind == AT_COLUMN && m->dst_kind == AT_COLUMN && p->len[m->dst] == 0 &&
           m->count == p->len[m->src];
}

enum { PHASE_DONE, PHASE_GAVE_UP, PHASE_PAUSED };

static inline void profile_column(const fcs_rules *r, const weights *w, const uint8_t *col, int len,
                                  const uint8_t *found, column_profile *cp)
{
    int j, blocked = 0, breaks = 0;
    memset(cp->lowest, FCS_RANKS + 1, sizeof(cp->lowest));
    cp->first_break = cp->last_break = cp->needed = cp->buried = 0;
    cp->blocked[0] = cp->breaks[0] = 0;
    for (j = 0; j < len; j++) {
        int c = col[j], su = CARD_SUIT(c), rk = CARD_RANK(c);
        if (cp->lowest[su] < rk)
            blocked++;
        else
            cp->lowest[su] = (uint8_t)rk;
        if (j && !fcs_can_build(r, col[j - 1], c)) {
            breaks++;
            if (!cp->first_break)
                cp->first_break = j;
            cp->last_break = j;
        }
        if (rk == found[su] + 1) {
            cp->needed_at[cp->needed++] = (uint8_t)j;
            cp->buried += len - 1 - j;
        }
        cp->blocked[j + 1] = (uint8_t)blocked;
        cp->breaks[j + 1] = (uint8_t)breaks;
    }
    cp->shape = len ? w->blocked * blocked + w->broken * breaks + w->column +
                          w->not_well * (cp->first_break ? len - cp->first_break : 0)
                    : 0;
}

/* The terms of the column's first m cards. */
static inline int prefix_shape(const weights *w, const column_profile *cp, int m)
{
    int first = cp->first_break < m ? cp->first_break : 0;
    if (!m)
        return 0;
    return w->blocked * cp->blocked[m] + w->broken * cp->breaks[m] + w->column +
           w->not_well * (first ? m - first : 0);
}

static inline int prefix_buried(const column_profile *cp, int m)
{
    int i, buried = 0;
    for (i = 0; i < cp->needed; i++)
        if (cp->needed_at[i] < m)
            buried += m - 1 - cp->needed_at[i];
    return buried;
}

/* The changes in the terms when the column of length len takes the k-card
   run `run` (bottom card first), which builds on its top when it has one. */
static inline void run_terms(const weights *w, const column_profile *cp, int len, const uint8_t *run, int k,
                             const uint8_t *found, int *shape, int *buried)
{
    int i, blocked = 0, needed = 0;
    if (!len) {
        *shape += w->column;
    } else {
        *shape += w->not_well * (cp->first_break ? k : 0);
        *buried += k * cp->needed;
    }
    for (i = 0; i < k; i++) {
        int c = run[i];
        blocked += cp->lowest[CARD_SUIT(c)] < CARD_RANK(c);
        if (CARD_RANK(c) == found[CARD_SUIT(c)] + 1)
            needed += k - 1 - i;
    }
    *shape += w->blocked * (len ? blocked : 0);
    *buried += needed;
}

/* Whether making m from p (autoplay done) sends a card home or may start
   autoplay: may_autoplay() read off the parent, so the child need not be
   built to find out. */
static inline int reaches_home(const fcs_pos *p, const fcs_move *m)
{
    int rest, c;
    if (m->dst_kind == AT_FOUNDATION || m->src_kind == AT_FOUNDATION)
        return 1;
    if (m->src_kind != AT_COLUMN || !(rest = p->len[m->src] - m->count))
        return 0;
    c = p->col[m->src][rest - 1];
    return p->found[CARD_SUIT(c)] + 1 == CARD_RANK(c);
}

/* The child of p by move m with autoplay by `mode` (HOME_SAFE for the
   complete phase and the layered proof), and its columns coded in `codes`
   from the parent's `parent_codes`: only the columns that changed are coded
   again.  0 when m only reorders columns (is_noop). */
static inline int coded_child(const solver *s, int mode, const fcs_pos *p, const column_code *parent_codes,
                              const fcs_move *m, fcs_pos *child, column_code *codes)
{
    const fcs_rules *r = s->r;
    unsigned changed = move_columns(m);
    if (is_noop(p, m))
        return 0;
    copy_pos(child, p, r->columns);
    fcs_apply(child, m);
    if (may_autoplay(child, m))
        autoplay(r, child, mode, NULL, NULL, NULL, &changed);
    memcpy(codes, parent_codes, (size_t)r->columns * sizeof(column_code));
    code_columns(s, child, changed, codes);
    return 1;
}

/* Fast phase: greedy best-first where children are scored but stored only
   when taken from the open list, so a typical deal stores about as many
   positions as its solution is long.  Gives up after `budget` positions.
   Most children send nothing home and change only the two ends of their
   move, so they are scored from the parent's per-column terms without being
   built; the others are built, autoplayed, and rescored where they changed.
   `orders`: how many of the open list's orders to keep (see open_push()). */
static int quick_search(solver *s, const fcs_pos *root, int orders, uint32_t budget, double deadline, fcs_result *res)
{
    const fcs_rules *r = s->r;
    const weights *w;
    fcs_move moves[FCS_MAX_MOVES];
    uint64_t key[KEY_WORDS_MAX + 1];
    fcs_pos decoded, p, child;
    const fcs_pos *par = NULL; /* the position `cached` stands for, canonical */
    const column_code *par_codes = NULL; /* its columns coded */
    const column_profile *par_prof = NULL; /* and profiled, when it was expanded here */
    column_code decoded_codes[FCS_MAX_COLS], codes[FCS_MAX_COLS];
    layout lay;
    static const uint32_t zero[OPEN_ORDERS] = {0};
    uint32_t cached = NO_PARENT, pops = 0, depth_cost, priority[OPEN_ORDERS];
    recent_entry *recent = s->recent;
    int i, n, c, is_new, shape_sum, buried_sum, parent_used, parent_empty, same_found;
    column_profile prof[FCS_MAX_COLS];
    uint8_t runs[FCS_MAX_COLS];

    for (i = 0; i < RECENT_SLOTS; i++)
        recent[i].idx = NO_PARENT;
    s->orders = orders;
    s->turn = 0;
    if (!open_push(s, zero, NO_PARENT, NO_MOVE))
        return PHASE_DONE;
    while (s->open_n) {
        open_entry e = open_pop(s);
        fcs_move m = {0, 0, 0, 0, 0};
        recent_entry *slot;
        uint32_t idx;
        if (deadline && (++pops % TIME_CHECK_EVERY) == 0 && now_s() > deadline) {
            s->limit = FCS_LIMIT_TIME;
            return PHASE_DONE;
        }
        if (e.move == NO_MOVE) {
            par_prof = NULL;
            p = *root;
            autoplay(r, &p, s->home_mode, NULL, NULL, NULL, NULL);
            code_columns(s, &p, ALL_COLUMNS(r), codes);
        } else {
            if (cached != e.state) {
                recent_entry *hit = &recent[e.state % RECENT_SLOTS];
                if (hit->idx == e.state) {
                    par = &hit->pos;
                    par_codes = hit->codes;
                    par_prof = hit->prof;
                } else {
                    par_prof = NULL;
                    decode(s, &s->keys[(uint64_t)e.state * s->key_words], &decoded, decoded_codes);
                    par = &decoded;
                    par_codes = decoded_codes;
                }
                cached = e.state;
            }
            unpack_physical(e.move, &m);
            coded_child(s, s->home_mode, par, par_codes, &m, &p, codes); /* children are never no-ops */
        }
        encode_coded(s, &p, codes, key, &lay, NULL);
        idx = find_or_add(s, key, &is_new);
        if (idx == NO_PARENT)
            return PHASE_DONE;
        if (!is_new) {
            if (e.move != NO_MOVE && s->depth[e.state] + 1 < s->depth[idx])
                record(s, idx, e.state, par, &m); /* shorter way in: see full_search */
            continue;
        }
        record(s, idx, e.move == NO_MOVE ? NO_PARENT : e.state, par, &m);
        if (s->n >= budget)
            return PHASE_GAVE_UP;
        /* Children's moves name columns and cells of the canonical layout, the
           one this position has whenever it is decoded again.  It may take
           the slot of the parent, which is no longer needed once the columns
           the move left alone (same code, same foundations) have their
           profiles copied from it. */
        same_found = par_prof && memcmp(par->found, p.found, sizeof(p.found)) == 0;
        slot = &recent[idx % RECENT_SLOTS];
        canonical(&p, &lay, &slot->pos);
        w = s->w;
        for (c = 0; c < r->columns; c++) {
            if (c >= lay.columns)
                profile_column(r, w, NULL, 0, p.found, &prof[c]);
            else if (same_found && same_code(&codes[lay.order[c]], &par_codes[lay.order[c]]))
                prof[c] = par_prof[lay.order[c]];
            else
                profile_column(r, w, slot->pos.col[c], slot->pos.len[c], p.found, &prof[c]);
        }
        for (c = 0; c < r->columns; c++)
            slot->codes[c] = c < lay.columns ? codes[lay.order[c]] : EMPTY_CODE;
        memcpy(slot->prof, prof, (size_t)r->columns * sizeof(column_profile));
        slot->idx = idx;
        par = &slot->pos;
        par_codes = slot->codes;
        par_prof = slot->prof;
        cached = idx;
        s->expanded++;
        shape_sum = buried_sum = 0;
        for (c = 0; c < r->columns; c++) {
            shape_sum += prof[c].shape;
            buried_sum += prof[c].buried;
            runs[c] = (uint8_t)(par->len[c] - prof[c].last_break); /* the run above the last break */
        }
        parent_used = cells_used(r, par);
        parent_empty = columns_empty(r, par);
        depth_cost = (uint32_t)(w->depth * (s->depth[idx] + 1));
        /* The eager try leaves out moves of a card built on the one below
           (fcs_legal_moves_by_runs); the later tries use them all. */
        n = fcs_legal_moves_by_runs(r, par, 0, s->home_mode == HOME_EAGER, runs, moves);
        for (i = 0; i < n; i++) {
            const fcs_move *m = &moves[i];
            unsigned touched = 0, t;
            int shape = shape_sum, buried = buried_sum, home, used, empty;
            if (is_noop(par, m))
                continue;
            if (!reaches_home(par, m)) {
                /* Only the move's ends change, and the foundations do not. */
                int src_col = m->src_kind == AT_COLUMN, dst_col = m->dst_kind == AT_COLUMN;
                used = parent_used + (m->dst_kind == AT_CELL) - (m->src_kind == AT_CELL);
                empty = parent_empty + (src_col && par->len[m->src] == m->count) - (dst_col && !par->len[m->dst]);
                if (src_col) {
                    const column_profile *cp = &prof[m->src];
                    int rest = par->len[m->src] - m->count;
                    shape += prefix_shape(w, cp, rest) - cp->shape;
                    buried += prefix_buried(cp, rest) - cp->buried;
                }
                if (dst_col)
                    run_terms(w, &prof[m->dst], par->len[m->dst],
                              src_col ? &par->col[m->src][par->len[m->src] - m->count] : &par->cell[m->src],
                              m->count, par->found, &shape, &buried);
                priority[OPEN_GREEDY_ORDER] = combine(r, w, par, shape, buried, used, empty);
                priority[OPEN_DEPTH_ORDER] = priority[OPEN_GREEDY_ORDER] + depth_cost;
                if (!open_push(s, priority, idx, pack_physical(m)))
                    return PHASE_DONE;
                continue;
            }
            copy_pos(&child, par, r->columns);
            fcs_apply(&child, m);
            home = autoplay(r, &child, s->home_mode, NULL, NULL, NULL, &touched);
            used = cells_used(r, &child);
            empty = columns_empty(r, &child);
            if (fcs_is_won(&child)) {
                fcs_packed_move last = fcs_pack(par, m);
                finish_solved(s, idx, &last, res);
                return PHASE_DONE;
            }
            if (m->src_kind == AT_COLUMN)
                touched |= 1u << m->src;
            if (m->dst_kind == AT_COLUMN)
                touched |= 1u << m->dst;
            if (m->dst_kind == AT_FOUNDATION || m->src_kind == AT_FOUNDATION)
                home = 1;
            for (t = touched; t; t &= t - 1) {
                int c = __builtin_ctz(t);
                shape += column_shape(r, w, child.col[c], child.len[c]) - prof[c].shape;
            }
            if (home) {
                buried = 0;
                for (c = 0; c < r->columns; c++)
                    buried += column_buried(child.col[c], child.len[c], child.found);
            } else {
                for (t = touched; t; t &= t - 1) {
                    int c = __builtin_ctz(t);
                    buried += column_buried(child.col[c], child.len[c], child.found) - prof[c].buried;
                }
            }
            priority[OPEN_GREEDY_ORDER] = combine(r, w, &child, shape, buried, used, empty);
            priority[OPEN_DEPTH_ORDER] = priority[OPEN_GREEDY_ORDER] + depth_cost;
            if (!open_push(s, priority, idx, pack_physical(m)))
                return PHASE_DONE;
        }
    }
    /* Every position reached: a proof, unless unsafe autoplay cut corners. */
    if (s->home_mode != HOME_SAFE)
        return PHASE_GAVE_UP;
    res->status = FCS_UNSOLVABLE;
    return PHASE_DONE;
}

/* Complete phase: every child is stored as it is generated (exact duplicate
   detection), and the open list is worked in heuristic order until a
   solution turns up or no position is left, which proves unsolvability. */
static int full_search_start(solver *s, const fcs_pos *root)
{
    static const uint32_t zero = 0;
    uint64_t key[KEY_WORDS_MAX + 1];
    int is_new;
    uint32_t idx;

    encode(s, root, key, NULL, NULL);
    idx = find_or_add(s, key, &is_new);
    if (idx == NO_PARENT)
        return 0;
    record(s, idx, NO_PARENT, NULL, NULL);
    s->orders = 1;
    return open_push(s, &zero, idx, NO_MOVE);
}

/* A child keyed and hashed ahead of its lookup. */
typedef struct {
    uint64_t key[KEY_WORDS_MAX + 1];
    uint64_t hash;
    int move; /* its move's index */
} keyed_child;

/* Look up (and add) the children of cur (p, its columns coded in `codes`),
   whose moves are `moves`, up to `n` of them, keyed in `kids`.  First fetch
   their table slots, then the keys the slots point to whose fingerprint
   matches, so that the reads overlap instead of each lookup waiting for
   memory in turn: most children are met before, and each such lookup reads
   a key from anywhere in the store.  A new child is built again for its
   score.  0 when a limit stopped it. */
static int add_children(solver *s, uint32_t cur, const fcs_pos *p, const column_code *codes,
                        const fcs_move *moves, const keyed_child *kids, int n)
{
    fcs_pos child;
    column_code child_codes[FCS_MAX_COLS];
    int k, is_new;
    for (k = 0; k < n; k++)
        __builtin_prefetch(&s->table[kids[k].hash & s->mask]);
    for (k = 0; k < n; k++) {
        uint64_t e = s->table[kids[k].hash & s->mask];
        if (e && (e >> 32) == (kids[k].hash >> 32))
            __builtin_prefetch(entry_key(s, e));
    }
    for (k = 0; k < n; k++) {
        const fcs_move *m = &moves[kids[k].move];
        uint32_t c = find_or_add_hashed(s, kids[k].key, kids[k].hash, &is_new);
        if (c == NO_PARENT)
            return 0;
        if (is_new) {
            uint32_t priority;
            coded_child(s, HOME_SAFE, p, codes, m, &child, child_codes);
            record(s, c, cur, p, m);
            priority = heuristic(s, &child) + (uint32_t)(s->w->depth * s->depth[c]);
            if (!open_push(s, &priority, c, NO_MOVE))
                return 0;
        } else if (s->depth[cur] + 1 < s->depth[c]) {
            /* A shorter way to a known position: keep it for the path.
               Depths only fall and a parent is always shallower than its
               child, so parent links can never form a cycle. */
            record(s, c, cur, p, m);
        }
    }
    return 1;
}

/* Work the open list full_search_start() began; PHASE_PAUSED once
   `pause_at` positions are stored (0: never), to be called again later. */
static int full_search(solver *s, double deadline, uint32_t pause_at, fcs_result *res)
{
    const fcs_rules *r = s->r;
    fcs_move moves[FCS_MAX_MOVES];
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    keyed_child *kids = malloc(sizeof(keyed_child) * FCS_MAX_MOVES);
    int i, n, n_kids, outcome = PHASE_DONE;

    if (!kids) {
        s->limit = FCS_LIMIT_MEMORY;
        return PHASE_DONE;
    }
    while (s->open_n) {
        uint32_t cur;
        if (pause_at && s->n >= pause_at) {
            outcome = PHASE_PAUSED;
            goto out;
        }
        cur = open_pop(s).state;
        if (deadline && (s->expanded % TIME_CHECK_EVERY) == 0 && now_s() > deadline) {
            s->limit = FCS_LIMIT_TIME;
            goto out;
        }
        s->expanded++;
        decode(s, &s->keys[(uint64_t)cur * s->key_words], &p, codes);
        n = fcs_legal_moves(r, &p, 0, moves);
        for (i = n_kids = 0; i < n; i++) {
            keyed_child *k;
            if (!coded_child(s, HOME_SAFE, &p, codes, &moves[i], &child, child_codes))
                continue;
            if (fcs_is_won(&child))
                break;
            k = &kids[n_kids++];
            encode_coded(s, &child, child_codes, k->key, NULL, NULL);
            k->hash = hash_key(k->key, s->key_words);
            k->move = i;
        }
        /* The children before a won one are added first, as they come before it. */
        if (!add_children(s, cur, &p, codes, moves, kids, n_kids))
            goto out;
        if (i < n) {
            fcs_packed_move last = fcs_pack(&p, &moves[i]);
            finish_solved(s, cur, &last, res);
            goto out;
        }
    }
    res->status = FCS_UNSOLVABLE;
out:
    free(kids);
    return outcome;
}

/* When the complete search has stored INTERLUDE_AFTER positions without a
   verdict, the eager greedy search gets one go of INTERLUDE_BUDGET positions
   (at most 1/INTERLUDE_SHARE of the room, as its store comes on top of the
   complete search's) in a store of its own, and the complete search then
   goes on where it stopped.  A win the complete search reaches only late is often near for
   the greedy one, which goes deep where the complete one goes wide, and a
   deal whose proof or win needs fewer than INTERLUDE_AFTER positions never
   pays for it.  PHASE_DONE when it won or the time ran out. */
static int eager_interlude(solver *s, const fcs_pos *root, double deadline, fcs_result *res)
{
    solver t = *s; /* same rules, start and limits */
    uint32_t budget = s->max_states / INTERLUDE_SHARE < INTERLUDE_BUDGET ? s->max_states / INTERLUDE_SHARE
                                                                         : INTERLUDE_BUDGET;
    int done;
    forget_store(&t);
    t.home_mode = HOME_EAGER;
    t.w = &FAST_WEIGHTS;
    t.limit = 0;
    done = grow_table(&t) && quick_search(&t, root, 1, budget, deadline, res) == PHASE_DONE &&
           (res->status == FCS_SOLVED || t.limit == FCS_LIMIT_TIME);
    if (t.limit == FCS_LIMIT_TIME)
        s->limit = FCS_LIMIT_TIME;
    s->stored_before += t.n;
    s->expanded = t.expanded;
    release_store(&t);
    return done ? PHASE_DONE : PHASE_GAVE_UP;
}

/* ---- layered proof ------------------------------------------------------

   When the complete phase runs out of room, a proof may still be in reach:
   it needs no parent links, no heuristic order and, with foundation return
   off, not even the positions already done with.  No move then takes a card
   off a foundation or puts one back on a card it was dealt on and does not
   build on, so positions fall into layers that never go down
   (proof_layer_of): each layer is worked through in full, then freed,
   before any higher one.  Each layer keeps only its keys, each packed to
   its own length, in buckets by hash; the keys a bucket holds after its
   expanded ones are the queue.  Higher layers go to disk when the room runs
   out (spill_layer).  Moves are single cards, which reach every
   position sequence moves limited by free space reach (those are
   shortcuts); unlimited sequence moves are not, so then they are all
   tried.  Autoplay is the safe rule, so a position it skips past is
   solvable exactly when the one it reaches is. */

/* Positions held at once, per max_states.  A position costs its key, packed
   to its own length (about 14 bytes for standard FreeCell with one cell,
   against the 22 a fixed size needs), 2 bytes in its bucket's index and its
   share of the bucket's slack and header: about 20 bytes (measured), against
   about 82 for a complete-search position. */
#ifndef PROOF_ROOM /* scripts/measure_proof.py builds with other values */
#define PROOF_ROOM 4
#endif
/* Keys per bucket, on average, before one is split: a lookup reads an
   index of about 48 bytes, and the keys whose fingerprint matches. */
#define BUCKET_LOAD 24
#define BUCKET_GRAIN 32 /* a bucket's bytes grow in steps of this */
#define FIRST_LEVEL 4   /* a layer starts with 2^FIRST_LEVEL buckets */

/* Keys are packed little-endian, so on such machines packing is a copy. */
static inline void pack_key(const uint64_t *words, int len, uint8_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, words, (size_t)len);
#else
    int i;
    for (i = 0; i < len; i++)
        out[i] = (uint8_t)(words[i >> 3] >> ((i & 7) * 8));
#endif
}

static inline void unpack_key(const uint8_t *in, int len, uint64_t *words)
{
    int i;
    for (i = 0; i < KEY_WORDS_MAX; i++)
        words[i] = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(words, in, (size_t)len);
    (void)i;
#else
    for (i = 0; i < len; i++)
        words[i >> 3] |= (uint64_t)in[i] << ((i & 7) * 8);
#endif
}

/* Whether two packed keys of `len` bytes are equal: the proof compares a key
   for every child it meets again, too often for a call to memcmp. */
static inline int same_key(const uint8_t *a, const uint8_t *b, int len)
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

/* A bucket: an index of (fingerprint, key length) slots, room for a
   multiple of SLOT_GRAIN of them, then the keys, both in order of arrival;
   the first `done` have been expanded.  A lookup reads the index and only
   the keys whose fingerprint matches. */
#define SLOT_GRAIN 8
#define BUCKET_MAX 0xFFFFu
typedef struct {
    uint8_t *data;
    uint32_t used; /* bytes of keys */
    uint16_t n, done;
} proof_bucket;

/* One layer's positions, in buckets by hash under linear
   hashing: buckets split one at a time as the layer grows, so no step
   needs twice the memory. */
typedef struct {
    proof_bucket *buckets;
    uint64_t n_buckets, n, split, alloc;
    int level; /* a hash's low `level` bits pick the bucket, one more if below split */
} proof_layer;

static inline uint64_t bucket_of(const proof_layer *l, uint64_t hash)
{
    uint64_t b = hash & (((uint64_t)1 << l->level) - 1);
    return b < l->split ? hash & (((uint64_t)1 << (l->level + 1)) - 1) : b;
}

static inline uint32_t index_bytes(uint32_t n)
{
    return (n + SLOT_GRAIN - 1) / SLOT_GRAIN * SLOT_GRAIN * 2;
}

static inline uint32_t bucket_bytes(uint32_t n, uint32_t used)
{
    return (index_bytes(n) + used + BUCKET_GRAIN - 1) / BUCKET_GRAIN * BUCKET_GRAIN;
}

/* Where the i-th key of bucket b starts. */
static inline const uint8_t *bucket_key(const proof_bucket *b, uint32_t i)
{
    const uint8_t *key = b->data + index_bytes(b->n);
    uint32_t j;
    for (j = 0; j < i; j++)
        key += b->data[2 * j + 1];
    return key;
}

static void free_layer(proof_layer *l)
{
    uint64_t i;
    for (i = 0; i < l->n_buckets; i++)
        free(l->buckets[i].data);
    free(l->buckets);
    memset(l, 0, sizeof(*l));
}

/* Append a key to bucket b; 0 when out of memory or the bucket is full. */
static int bucket_append(proof_bucket *b, uint8_t fp, const uint8_t *key, uint32_t len)
{
    uint32_t old_index = index_bytes(b->n), new_index = index_bytes(b->n + 1u);
    if (b->n == BUCKET_MAX)
        return 0;
    if (bucket_bytes(b->n + 1u, b->used + len) != bucket_bytes(b->n, b->used)) {
        uint8_t *data = realloc(b->data, bucket_bytes(b->n + 1u, b->used + len));
        if (!data)
            return 0;
        b->data = data;
    }
    if (new_index != old_index)
        memmove(b->data + new_index, b->data + old_index, b->used);
    b->data[2 * b->n] = fp;
    b->data[2 * b->n + 1] = (uint8_t)len;
    memcpy(b->data + new_index + b->used, key, len);
    b->used += len;
    b->n++;
    return 1;
}

/* Split bucket l->split into itself and its image one level up, by the next
   hash bit, keeping arrival order (and so which keys are expanded). */
static int split_bucket(proof_layer *l)
{
    uint64_t low = l->split, high = low + ((uint64_t)1 << l->level), bit = (uint64_t)1 << l->level;
    proof_bucket old = l->buckets[low], parts[2] = {{NULL, 0, 0, 0}, {NULL, 0, 0, 0}};
    const uint8_t *key = old.n ? old.data + index_bytes(old.n) : NULL;
    uint32_t i;
    if (l->n_buckets == l->alloc) {
        uint64_t alloc = l->alloc * 2;
        proof_bucket *buckets = realloc(l->buckets, sizeof(proof_bucket) * alloc);
        if (!buckets)
            return 0;
        l->buckets = buckets;
        l->alloc = alloc;
    }
    for (i = 0; i < old.n; i++) {
        uint32_t len = old.data[2 * i + 1];
        proof_bucket *to = &parts[(hash_packed(key, (int)len) & bit) != 0];
        if (i < old.done)
            to->done++;
        if (!bucket_append(to, old.data[2 * i], key, len)) {
            free(parts[0].data);
            free(parts[1].data);
            return 0;
        }
        key += len;
    }
    free(old.data);
    l->buckets[low] = parts[0];
    l->buckets[high] = parts[1];
    l->n_buckets++;
    if (++l->split == bit) {
        l->level++;
        l->split = 0;
    }
    return 1;
}

/* Take a key out of layer l, one never swept (its buckets' `done` is 0);
   0 when it is not there.  A bucket's memory shrinks with it, so an entry
   taken out of its layer frees its bytes. */
static int layer_remove(proof_layer *l, uint64_t hash, const uint8_t *packed, int len)
{
    uint8_t fp = (uint8_t)(hash >> 56);
    proof_bucket *b;
    uint8_t *keys;
    uint32_t i, at = 0, old_index, new_index;
    if (!l->buckets)
        return 0;
    b = &l->buckets[bucket_of(l, hash)];
    old_index = b->n ? index_bytes(b->n) : 0;
    keys = b->data + old_index;
    for (i = 0; i < b->n; at += b->data[2 * i + 1], i++)
        if (b->data[2 * i] == fp && b->data[2 * i + 1] == len && same_key(keys + at, packed, len))
            break;
    if (i == b->n)
        return 0;
    memmove(keys + at, keys + at + len, b->used - at - (uint32_t)len);
    memmove(b->data + 2 * i, b->data + 2 * i + 2, 2 * (b->n - i - 1u));
    b->used -= (uint32_t)len;
    new_index = index_bytes(b->n - 1u);
    if (new_index != old_index)
        memmove(b->data + new_index, keys, b->used);
    b->n--;
    l->n--;
    if (!b->n) {
        free(b->data);
        b->data = NULL;
    } else if (bucket_bytes(b->n, b->used) != bucket_bytes(b->n + 1u, b->used + (uint32_t)len)) {
        uint8_t *data = realloc(b->data, bucket_bytes(b->n, b->used));
        if (data) /* else the bucket keeps its larger block, which is harmless */
            b->data = data;
    }
    return 1;
}

/* A child waiting for its lookup. */
typedef struct {
    uint64_t hash;
    int layer, len;
    uint8_t packed[KEY_WORDS_MAX * 8];
} proof_child;

/* A position's layer: first how few out-of-order pairs its columns hold (a
   card on one it does not build on), then its cards home.  Neither can go
   back with foundation return off.  Such a pair exists only as dealt (in
   the start position), since every move onto a card builds; once its top
   card leaves, nothing can put it back.  So the pairs lie in the dealt
   prefixes of columns, which encode() finds anyway and counts them in.  No
   move lowers a position's layer, and each layer can be
   finished and freed before any higher one.  Ordering by the pairs first
   holds fewest positions at once: on 1-cell deal 27, 45,648 against
   120,821 by cards home alone and 68,992 by the sum of the two; on 1568,
   30 million against 95 million by cards home alone.

   Within a layer, a move changes neither which pairs are held (none is
   broken, none can be made) nor how many cards of each suit are home (none
   goes, as the total stays).  So positions differing in either never reach
   each other within the layer, and the layer splits into PROOF_GROUPS
   groups by a hash of the two, worked through one after the other: only
   the group under way must stay in memory, the others wait their turn, on
   disk if need be (make_room). */
#define PROOF_GROUPS 64
#define PROOF_LAYERS (FCS_CARDS * (FCS_CARDS + 1) * PROOF_GROUPS)
static int proof_layer_of(const dealt_pairs *pairs, const fcs_pos *p)
{
    uint64_t h = pairs->which;
    int i;
    for (i = 0; i < FCS_NUM_SUITS; i++)
        h = h * (FCS_RANKS + 1) + p->found[i];
    h *= 0x9E3779B97F4A7C15ull;
    return ((FCS_CARDS - 1 - pairs->count) * (FCS_CARDS + 1) + p->found[0] + p->found[1] + p->found[2] + p->found[3]) *
               PROOF_GROUPS + (int)((h >> 32) % PROOF_GROUPS);
}

/* Children gathered before their lookups, so each bucket can be fetched
   well ahead of its use: the layers are far bigger than any cache. */
#define PROOF_BATCH 1024

/* Where one spilled batch of a layer's keys lies in the spill file. */
typedef struct {
    uint64_t offset, bytes, keys;
} spill_segment;

typedef struct {
    spill_segment *segments;
    uint32_t n, alloc;
} spill_list;

/* The proof under way.  The layer being worked through holds only its
   entries, the positions moves from lower layers reached; each is taken out
   in turn, and the part of the layer it leads to within the layer is
   gathered in `part`, worked through, then freed, taking out the entries it
   meets on the way.  With the usual empty-column rule such moves can all be
   undone, so the parts are the layer's connected pieces and each is visited
   once; otherwise a part may overlap one gathered before, visited twice.
   Measured on 1-cell deal 1568: 11.6 million positions held at once,
   against 30 million holding each layer whole.

   A layer's entries can outgrow the room (2-cell deal 982: over 156
   million in one group).  Then they come back from disk a slice at a time
   (3/8 of the room), and make_room may send the slice's unvisited entries
   back.  An entry still on disk cannot be taken out when a part meets it,
   so while any are, each finished part goes into `seen`: a key in it is
   skipped when its slice is loaded, and before `seen` is freed (at a
   quarter of the room) the keys on disk are sifted with it (sift_disk):
   those visited are dropped.  So each part is still visited once, and only
   a part itself must fit in the room.
   Measured on 1-cell deal 1706: the proof visits 2,365,759 positions with
   room for 40,000 as with room for 200,000; without slices it ran out of
   room at 80,000. */
typedef struct {
    proof_layer *layers; /* by proof_layer_of */
    proof_layer part;
    proof_layer seen; /* parts visited, while the current layer has keys on disk */
    int current;
    int sweeping; /* a part is being gathered (so no keys are being read in: see make_room) */
    uint64_t live; /* positions held in memory, in all layers and the part */
    proof_child *kids;
    int n_kids;
    spill_list *on_disk; /* by proof_layer_of: what each layer has on disk */
    int spill_fd;        /* -1 until the first spill */
    uint64_t spill_end;  /* bytes written to it */
    uint64_t spilled;    /* keys written to it */
    uint64_t waiting;    /* keys in it not yet read back */
    uint8_t *out, *in;   /* SPILL_BUFFER bytes each */
} proof_run;

/* ---- spilling layers to disk ----------------------------------------------

   The layers above the current one only collect entries until their turn,
   and they are most of what a proof holds (1-cell deal 24966: 10.4 of the
   11.6 million held at the end of layer 42/5).  When the room runs out they
   go to a temporary file, highest first (they wait longest), until half the
   room is free; a layer's keys come back, duplicates dropped, when its turn
   comes (in slices, if they are many: see proof_run).  A key may be written
   more than once (it can arrive again after its layer went out, and sifting
   writes what it keeps again), so the file is bounded too: what waits in it may be
   PROOF_DISK times the room, in keys (on Linux the space of what was read
   back is given back at once; elsewhere the file keeps it until the proof
   ends, so it can grow past that).  The file is unlinked as soon as it is made,
   so it goes with the process, however that ends. */
#ifndef PROOF_DISK
#define PROOF_DISK 8
#endif
#define SPILL_BUFFER ((size_t)1 << 20)

static int spill_open(proof_run *run)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/fcsurvey-proof-XXXXXX", dir && *dir ? dir : "/tmp") >= (int)sizeof(path))
        return 0;
    run->spill_fd = mkstemp(path);
    if (run->spill_fd < 0)
        return 0;
    /* Closed on exec, so no other program keeps its space alive. */
    return unlink(path) == 0 && fcntl(run->spill_fd, F_SETFD, FD_CLOEXEC) == 0;
}

/* Write (or read) all of `bytes` at `offset`, whatever the system does in
   one call; 0 on failure. */
static int transfer(int fd, uint8_t *data, size_t bytes, uint64_t offset, int writing)
{
    while (bytes) {
        ssize_t done = writing ? pwrite(fd, data, bytes, (off_t)offset) : pread(fd, data, bytes, (off_t)offset);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return 0;
        data += done;
        bytes -= (size_t)done;
        offset += (uint64_t)done;
    }
    return 1;
}

/* A segment read back: give its disk space back where the system can. */
static void release_segment(proof_run *run, const spill_segment *segment)
{
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
    (void)fallocate(run->spill_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)segment->offset,
                    (off_t)segment->bytes);
#else
    (void)run;
    (void)segment;
#endif
}

/* Room for one more segment in list; 0 when out of memory. */
static int reserve_segment(spill_list *list)
{
    if (list->n == list->alloc) {
        uint32_t alloc = list->alloc ? list->alloc * 2 : 4;
        spill_segment *segments = realloc(list->segments, sizeof(spill_segment) * alloc);
        if (!segments)
            return 0;
        list->segments = segments;
        list->alloc = alloc;
    }
    return 1;
}

/* Write the `*used` bytes gathered in run->out at the file's end; 0 when
   the disk will not take them. */
static int spill_flush(proof_run *run, size_t *used)
{
    if (!transfer(run->spill_fd, run->out, *used, run->spill_end, 1))
        return 0;
    run->spill_end += *used;
    *used = 0;
    return 1;
}

/* Gather a key (its length, then its bytes) in run->out for the file's end. */
static int spill_put(proof_run *run, size_t *used, const uint8_t *key, uint8_t len)
{
    if (*used + 1 + len > SPILL_BUFFER && !spill_flush(run, used))
        return 0;
    run->out[(*used)++] = len;
    memcpy(run->out + *used, key, len);
    *used += len;
    return 1;
}

/* Write layer h's keys as one more segment of the file, and free the layer. */
static int spill_layer(solver *s, proof_run *run, int h)
{
    proof_layer *l = &run->layers[h];
    spill_list *list = &run->on_disk[h];
    uint64_t b, offset = run->spill_end;
    size_t used = 0;
    if (run->waiting + l->n > s->proof_room * PROOF_DISK) {
        s->limit = FCS_LIMIT_STATES; /* its share, like the room, comes from max_states */
        return 0;
    }
    if (!reserve_segment(list) || (run->spill_fd < 0 && !spill_open(run)))
        goto failed;
    for (b = 0; b < l->n_buckets; b++) {
        const proof_bucket *bucket = &l->buckets[b];
        const uint8_t *key = bucket->n ? bucket->data + index_bytes(bucket->n) : NULL;
        uint32_t i;
        for (i = 0; i < bucket->n; key += bucket->data[2 * i + 1], i++)
            if (!spill_put(run, &used, key, bucket->data[2 * i + 1]))
                goto failed;
    }
    if (!spill_flush(run, &used))
        goto failed;
    list->segments[list->n].offset = offset;
    list->segments[list->n].bytes = run->spill_end - offset;
    list->segments[list->n++].keys = l->n;
    run->spilled += l->n;
    run->waiting += l->n;
    run->live -= l->n;
    free_layer(l);
    return 1;
failed: /* the disk (or memory) would not take it */
    s->limit = FCS_LIMIT_DISK;
    return 0;
}

static int sift_disk(solver *s, proof_run *run, int h);

/* The parts visited go: nothing on disk needs sifting with them any more. */
static void forget_seen(proof_run *run)
{
    run->live -= run->seen.n;
    free_layer(&run->seen);
}

/* Out of room: send the higher layers to disk, highest first, until half
   the room is free.  If that is not enough while a part is under way, what
   it does not need goes too: the parts visited before it (sifting the
   current layer's keys on disk with them first), then the current layer's
   entries, a slice for later.  Only then: while keys are being read in
   (load_layer, checkpoint_load), run->in holds them and the current layer's
   disk list is being read, which sifting would change under them.  0
   (s->limit says why) when what is left, the
   part and the positions held for it, fills all but an eighth of the room
   by itself (less would mean a spill, with its scan of every layer, every
   few positions). */
static int make_room(solver *s, proof_run *run)
{
    int h;
    for (h = PROOF_LAYERS - 1; h > run->current && run->live > s->proof_room / 2; h--)
        if (run->layers[h].n && !spill_layer(s, run, h))
            return 0;
    if (run->live > s->proof_room - s->proof_room / 8 && run->sweeping) {
        if (run->seen.n && !sift_disk(s, run, run->current))
            return 0;
        if (run->live > s->proof_room / 2 && run->layers[run->current].n &&
            !spill_layer(s, run, run->current))
            return 0;
    }
    if (run->live > s->proof_room - s->proof_room / 8) {
        s->limit = FCS_LIMIT_STATES;
        return 0;
    }
    return 1;
}

/* Whether layer l holds the key (packed to `len` bytes, with its hash). */
static inline int layer_has(const proof_layer *l, uint64_t hash, const uint8_t *packed, int len)
{
    uint8_t fp = (uint8_t)(hash >> 56);
    const proof_bucket *b;
    const uint8_t *key;
    uint32_t i;
    if (!l->buckets)
        return 0;
    b = &l->buckets[bucket_of(l, hash)];
    for (i = 0, key = b->data + (b->n ? index_bytes(b->n) : 0); i < b->n; key += b->data[2 * i + 1], i++)
        if (b->data[2 * i] == fp && b->data[2 * i + 1] == len && same_key(key, packed, len))
            return 1;
    return 0;
}

/* Put a key into layer l without looking for it there (where parts can
   overlap, `seen` may get a key twice, which costs only memory); 0 when
   out of memory. */
static int layer_insert(solver *s, proof_layer *l, uint64_t hash, const uint8_t *packed, int len)
{
    proof_bucket *b;
    if (!l->buckets) {
        if (!(l->buckets = calloc((size_t)1 << FIRST_LEVEL, sizeof(proof_bucket)))) {
            s->limit = FCS_LIMIT_MEMORY;
            return 0;
        }
        l->alloc = l->n_buckets = (uint64_t)1 << FIRST_LEVEL;
        l->level = FIRST_LEVEL;
    }
    b = &l->buckets[bucket_of(l, hash)];
    if (!bucket_append(b, (uint8_t)(hash >> 56), packed, (uint32_t)len) ||
        (++l->n > l->n_buckets * BUCKET_LOAD && !split_bucket(l))) {
        s->limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    return 1;
}

/* Add a key to layer l unless there, saying in *added which; 0 when out of
   room or memory (s->limit says which). */
static int layer_add(solver *s, proof_run *run, proof_layer *l, uint64_t hash, const uint8_t *packed, int len,
                     int *added)
{
    *added = 0;
    if (layer_has(l, hash, packed, len))
        return 1;
    if (run->live >= s->proof_room && !make_room(s, run))
        return 0; /* which may have sent l itself to disk */
    if (!layer_insert(s, l, hash, packed, len))
        return 0;
    run->live++;
    *added = 1;
    return 1;
}

/* Move the part's keys into `seen`, freeing the part bucket by bucket as it
   goes, so the two together never hold more than the part did. */
static int merge_part(solver *s, proof_run *run)
{
    uint64_t b;
    for (b = 0; b < run->part.n_buckets; b++) {
        proof_bucket *bucket = &run->part.buckets[b];
        const uint8_t *key = bucket->n ? bucket->data + index_bytes(bucket->n) : NULL;
        uint32_t i;
        for (i = 0; i < bucket->n; key += bucket->data[2 * i + 1], i++)
            if (!layer_insert(s, &run->seen, hash_packed(key, bucket->data[2 * i + 1]), key,
                              bucket->data[2 * i + 1]))
                return 0;
        free(bucket->data);
        bucket->data = NULL;
        bucket->n = 0;
    }
    free_layer(&run->part);
    return 1;
}

/* Reads one spilled segment's keys in order, through run->in. */
typedef struct {
    uint64_t at, end; /* the file offsets of what comes next into the buffer, and of the segment's end */
    size_t have, pos; /* bytes in the buffer; where its next key starts */
} key_reader;

static key_reader segment_reader(const spill_segment *segment)
{
    key_reader rd = {segment->offset, segment->offset + segment->bytes, 0, 0};
    return rd;
}

/* The file offset of the reader's next key. */
static inline uint64_t reader_offset(const key_reader *rd)
{
    return rd->at - (rd->have - rd->pos);
}

/* The segment's next key, in *key (pointing into run->in) and *len: 1, or 0
   at its end, or -1 when the file fails or is not what was written (the
   proof must stop: s->limit says so). */
static int next_key(solver *s, proof_run *run, key_reader *rd, const uint8_t **key, uint8_t *len)
{
    if (rd->have - rd->pos < 1 + KEY_WORDS_MAX * 8 && rd->at < rd->end) {
        size_t more = SPILL_BUFFER - (rd->have - rd->pos);
        if (more > rd->end - rd->at)
            more = (size_t)(rd->end - rd->at);
        memmove(run->in, run->in + rd->pos, rd->have - rd->pos);
        rd->have -= rd->pos;
        rd->pos = 0;
        if (!transfer(run->spill_fd, run->in + rd->have, more, rd->at, 0)) {
            s->limit = FCS_LIMIT_DISK;
            return -1;
        }
        rd->have += more;
        rd->at += more;
    }
    if (rd->pos == rd->have)
        return 0;
    *len = run->in[rd->pos];
    if (!*len || *len > KEY_WORDS_MAX * 8 || rd->pos + 1u + *len > rd->have) {
        s->limit = FCS_LIMIT_DISK;
        return -1;
    }
    *key = run->in + rd->pos + 1;
    rd->pos += 1u + *len;
    return 1;
}

/* Layer h's first `used` bytes (and `keys` keys) on disk were read back: give
   their space back, and drop the segments they emptied. */
static void consume_disk(proof_run *run, int h, uint64_t used, uint64_t keys)
{
    spill_list *list = &run->on_disk[h];
    spill_segment *first = &list->segments[0], read = {first->offset, used, keys};
    release_segment(run, &read);
    run->waiting -= keys;
    first->offset += used;
    first->bytes -= used;
    first->keys -= keys;
    if (!first->bytes) {
        memmove(list->segments, list->segments + 1, sizeof(spill_segment) * --list->n);
        if (!list->n) {
            free(list->segments);
            memset(list, 0, sizeof(*list));
        }
    }
}

/* Bring layer h's keys back from disk, as its entries, when its turn comes:
   until it holds `slice` of them, and then the rest stays on disk, a slice
   for later (see proof_run).  Keys of parts already visited are skipped. */
static int load_layer(solver *s, proof_run *run, int h, uint64_t slice)
{
    while (run->on_disk[h].n && run->layers[h].n < slice) {
        key_reader rd = segment_reader(&run->on_disk[h].segments[0]);
        uint64_t start = rd.at, keys = 0;
        const uint8_t *key;
        uint8_t len;
        int got = 0, added;
        while (run->layers[h].n < slice && (got = next_key(s, run, &rd, &key, &len)) > 0) {
            uint64_t hash = hash_packed(key, len);
            keys++;
            if (!layer_has(&run->seen, hash, key, len) && !layer_add(s, run, &run->layers[h], hash, key, len, &added))
                return 0;
        }
        if (got < 0)
            return 0;
        consume_disk(run, h, reader_offset(&rd) - start, keys);
    }
    return 1;
}

/* Drop from layer h's keys on disk those already visited, in `seen`, which
   then goes: the survivors are written again, as one segment. */
static int sift_disk(solver *s, proof_run *run, int h)
{
    spill_list *list = &run->on_disk[h];
    spill_segment kept = {run->spill_end, 0, 0};
    size_t used = 0;
    while (list->n) {
        key_reader rd = segment_reader(&list->segments[0]);
        uint64_t keys = 0;
        const uint8_t *key;
        uint8_t len;
        int got;
        while ((got = next_key(s, run, &rd, &key, &len)) > 0) {
            keys++;
            if (layer_has(&run->seen, hash_packed(key, len), key, len))
                continue;
            if (!spill_put(run, &used, key, len)) {
                s->limit = FCS_LIMIT_DISK;
                return 0;
            }
            kept.keys++;
        }
        if (got < 0)
            return 0;
        consume_disk(run, h, list->segments[0].bytes, keys);
    }
    if (!spill_flush(run, &used)) {
        s->limit = FCS_LIMIT_DISK;
        return 0;
    }
    kept.bytes = run->spill_end - kept.offset;
    forget_seen(run);
    if (!kept.keys)
        return 1;
    if (!reserve_segment(list)) {
        s->limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    list->segments[list->n++] = kept;
    run->spilled += kept.keys;
    run->waiting += kept.keys;
    return 1;
}

/* ---- checkpoints ----------------------------------------------------------

   Some proofs take hours, longer than a process may live, so between parts
   (at most every checkpoint_every_s) the proof writes what it still has to
   do to its checkpoint file: its counts so far and every key waiting in the
   current layer or a higher one, in memory or on disk.  Those of the
   current layer are its entries not yet visited, once the keys on disk are
   sifted with the parts visited (one group of 2-cell deal 982 takes over an
   hour).  It writes `FILE.tmp` and renames it
   over FILE, so the file is always a whole checkpoint.  A solve given the
   same file and tag loads those keys and goes on with the lowest layer
   holding any: every lower layer was finished, and no move goes down a
   layer, so it visits exactly the positions the uninterrupted proof would.
   A key written twice (its layer went to disk twice) is dropped on loading,
   as when a spilled layer comes back.  The file is raw, for this build
   only: the tag, from the caller, names the build as well as the rules and
   the start.  Layout: the header, then per layer its number (uint32), its
   key count (uint64) and its keys as spilled (length byte, then bytes),
   then CHECKPOINT_END. */
#define CHECKPOINT_MAGIC "FCSPROOF"
/* A save, which can run to gigabytes, waits at least this many times as
   long as the last one took, so saving costs at most about 5% of the time. */
#define CHECKPOINT_SPACING 20
#define CHECKPOINT_END 0xFFFFFFFFu

typedef struct {
    char magic[8];
    uint8_t tag[FCS_CHECKPOINT_TAG];
    uint64_t bytes; /* the whole file's: a cut-off file is not taken */
    uint64_t stored_before, expanded, proof_states;
} checkpoint_header;

/* Buffered sequential file access through one SPILL_BUFFER. */
typedef struct {
    int fd;
    uint8_t *buf;
    size_t used, pos; /* bytes in buf; next to read */
    uint64_t at;      /* file offset of what buf holds next */
} checkpoint_io;

static int io_put(checkpoint_io *io, const void *data, size_t n)
{
    if (io->used + n > SPILL_BUFFER) {
        if (!transfer(io->fd, io->buf, io->used, io->at, 1))
            return 0;
        io->at += io->used;
        io->used = 0;
    }
    memcpy(io->buf + io->used, data, n);
    io->used += n;
    return 1;
}

static int io_get(checkpoint_io *io, void *data, size_t n, uint64_t end)
{
    if (io->used - io->pos < n) {
        size_t more = SPILL_BUFFER - (io->used - io->pos);
        memmove(io->buf, io->buf + io->pos, io->used - io->pos);
        io->used -= io->pos;
        io->pos = 0;
        if (more > end - io->at)
            more = (size_t)(end - io->at);
        if (!transfer(io->fd, io->buf + io->used, more, io->at, 0))
            return 0;
        io->at += more;
        io->used += more;
        if (io->used < n)
            return 0;
    }
    memcpy(data, io->buf + io->pos, n);
    io->pos += n;
    return 1;
}

/* The checkpoint's header, if the file is a whole one for this solve. */
static int checkpoint_header_of(const solver *s, int fd, checkpoint_header *h)
{
    off_t size = lseek(fd, 0, SEEK_END);
    return size >= (off_t)sizeof(*h) && transfer(fd, (uint8_t *)h, sizeof(*h), 0, 0) &&
           memcmp(h->magic, CHECKPOINT_MAGIC, 8) == 0 &&
           memcmp(h->tag, s->lim->checkpoint_tag, FCS_CHECKPOINT_TAG) == 0 && h->bytes == (uint64_t)size;
}

static int checkpoint_matches(const solver *s)
{
    checkpoint_header h;
    int fd, ok;
    if (!s->lim->checkpoint || (fd = open(s->lim->checkpoint, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    ok = checkpoint_header_of(s, fd, &h);
    close(fd);
    return ok;
}

#define CHECKPOINT_PATH_MAX 4096

/* The name a checkpoint is written under before it is renamed into place;
   0 when it would not fit in `tmp` (CHECKPOINT_PATH_MAX bytes). */
static int checkpoint_temp_name(const solver *s, char *tmp)
{
    return snprintf(tmp, CHECKPOINT_PATH_MAX, "%s.tmp", s->lim->checkpoint) < CHECKPOINT_PATH_MAX;
}

/* Write every key of layers from `first` up; 0 if the file could not be
   written (the proof goes on without it). */
static int checkpoint_save(solver *s, proof_run *run, int first)
{
    char tmp[CHECKPOINT_PATH_MAX];
    checkpoint_header h;
    checkpoint_io io = {-1, run->out, 0, 0, 0};
    uint32_t end = CHECKPOINT_END;
    int l, ok = 1;
    if (!checkpoint_temp_name(s, tmp) || (io.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        return 0;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, CHECKPOINT_MAGIC, 8);
    memcpy(h.tag, s->lim->checkpoint_tag, FCS_CHECKPOINT_TAG);
    h.stored_before = s->stored_before;
    h.expanded = s->expanded;
    h.proof_states = s->proof_states;
    ok = io_put(&io, &h, sizeof(h));
    for (l = first; ok && l < PROOF_LAYERS; l++) {
        const proof_layer *layer = &run->layers[l];
        const spill_list *list = &run->on_disk[l];
        uint64_t keys = layer->n, b;
        uint32_t k, number = (uint32_t)l;
        for (k = 0; k < list->n; k++)
            keys += list->segments[k].keys;
        if (!keys)
            continue;
        ok = io_put(&io, &number, sizeof(number)) && io_put(&io, &keys, sizeof(keys));
        for (b = 0; ok && b < layer->n_buckets; b++) {
            const proof_bucket *bucket = &layer->buckets[b];
            const uint8_t *key = bucket->n ? bucket->data + index_bytes(bucket->n) : NULL;
            uint32_t i;
            for (i = 0; ok && i < bucket->n; key += bucket->data[2 * i + 1], i++) {
                uint8_t len = bucket->data[2 * i + 1];
                ok = io_put(&io, &len, 1) && io_put(&io, key, len);
            }
        }
        for (k = 0; ok && k < list->n; k++) { /* spilled keys are already in this form */
            uint64_t at = list->segments[k].offset, left = list->segments[k].bytes;
            while (ok && left) {
                size_t n = left < SPILL_BUFFER ? (size_t)left : SPILL_BUFFER;
                ok = transfer(run->spill_fd, run->in, n, at, 0) && io_put(&io, run->in, n);
                at += n;
                left -= n;
            }
        }
    }
    ok = ok && io_put(&io, &end, sizeof(end)) && transfer(io.fd, io.buf, io.used, io.at, 1);
    h.bytes = io.at + io.used; /* the header goes last: until then the file is not taken */
    ok = ok && transfer(io.fd, (uint8_t *)&h, sizeof(h), 0, 1) && fsync(io.fd) == 0;
    ok = close(io.fd) == 0 && ok && rename(tmp, s->lim->checkpoint) == 0;
    if (!ok)
        unlink(tmp);
    return ok;
}

/* Load the checkpoint's keys into their layers and its counts into s;
   *first is the lowest layer holding any.  0 when the proof must stop (a
   limit, or a file that is not what was written: s->limit says which). */
static int checkpoint_load(solver *s, proof_run *run, int *first)
{
    checkpoint_header h;
    checkpoint_io io = {-1, run->in, 0, 0, sizeof(h)};
    uint32_t number;
    int ok;
    *first = PROOF_LAYERS;
    if ((io.fd = open(s->lim->checkpoint, O_RDONLY | O_CLOEXEC)) < 0 || !checkpoint_header_of(s, io.fd, &h)) {
        if (io.fd >= 0)
            close(io.fd);
        s->limit = FCS_LIMIT_DISK;
        return 0;
    }
    s->stored_before = h.stored_before;
    s->expanded = h.expanded;
    s->proof_states = h.proof_states;
    ok = io_get(&io, &number, sizeof(number), h.bytes);
    while (ok && number != CHECKPOINT_END) {
        uint64_t keys, k;
        ok = number < PROOF_LAYERS && io_get(&io, &keys, sizeof(keys), h.bytes);
        if (ok && (int)number < *first)
            *first = (int)number;
        for (k = 0; ok && k < keys; k++) {
            uint8_t len, key[KEY_WORDS_MAX * 8];
            int added;
            if (!io_get(&io, &len, 1, h.bytes) || !len || len > sizeof(key) || !io_get(&io, key, len, h.bytes)) {
                ok = 0;
            } else if (!layer_add(s, run, &run->layers[number], hash_packed(key, len), key, len, &added)) {
                close(io.fd);
                return 0; /* out of room: s->limit says so */
            }
        }
        ok = ok && io_get(&io, &number, sizeof(number), h.bytes);
    }
    close(io.fd);
    if (!ok)
        s->limit = FCS_LIMIT_DISK; /* not what was written */
    return ok;
}

/* A proof that returns, whatever its outcome, needs its checkpoint no more
   (nor a half-written one): only a process that dies leaves one. */
static void checkpoint_remove(const solver *s)
{
    char tmp[CHECKPOINT_PATH_MAX];
    unlink(s->lim->checkpoint);
    if (checkpoint_temp_name(s, tmp))
        unlink(tmp);
}

/* Where a child's layer is kept: the current one grows only as its part. */
static inline proof_layer *home_of(proof_run *run, int layer)
{
    return layer == run->current ? &run->part : &run->layers[layer];
}

/* Encode and pack p as child k, fetching its bucket's header ahead. */
static void proof_key(const solver *s, proof_run *run, const fcs_pos *p, const column_code *codes,
                      proof_child *k)
{
    uint64_t words[KEY_WORDS_MAX + 1];
    proof_layer *to;
    dealt_pairs pairs;
    k->len = (encode_coded(s, p, codes, words, NULL, &pairs) + 7) / 8;
    pack_key(words, k->len, k->packed);
    k->hash = hash_packed(k->packed, k->len);
    k->layer = proof_layer_of(&pairs, p);
    to = home_of(run, k->layer);
    if (to->buckets)
        __builtin_prefetch(&to->buckets[bucket_of(to, k->hash)]);
}

/* Look up (and add) the batch's children.  Their buckets' headers were
   fetched when they were made; fetching every bucket's index first lets
   those reads overlap instead of each lookup waiting for memory in turn
   (4% faster; fetching the matching keys too, in a second pass over the
   indexes, cost more than it saved).  A child that is one of the current
   layer's entries moves to the part: it is visited now.  Only a child new
   to the part can be one: one met again was taken out when first met. */
static int proof_flush(solver *s, proof_run *run)
{
    int k;
    for (k = 0; k < run->n_kids; k++) {
        const proof_layer *to = home_of(run, run->kids[k].layer);
        const proof_bucket *b = to->buckets ? &to->buckets[bucket_of(to, run->kids[k].hash)] : NULL;
        if (b && b->n)
            __builtin_prefetch(b->data);
    }
    for (k = 0; k < run->n_kids; k++) {
        const proof_child *kid = &run->kids[k];
        int added;
        if (!layer_add(s, run, home_of(run, kid->layer), kid->hash, kid->packed, kid->len, &added))
            return 0;
        if (added && kid->layer == run->current &&
            layer_remove(&run->layers[run->current], kid->hash, kid->packed, kid->len))
            run->live--;
    }
    run->n_kids = 0;
    return 1;
}

/* Expand the next unexpanded position of bucket b of the part into the
   batch; 0 when the proof must stop (a limit, or a win it cannot spell out). */
static int proof_expand(solver *s, proof_run *run, uint64_t b)
{
    const fcs_rules *r = s->r;
    fcs_move moves[FCS_MAX_MOVES];
    uint64_t words[KEY_WORDS_MAX + 1];
    proof_bucket *bucket = &run->part.buckets[b];
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    int k, n;

    unpack_key(bucket_key(bucket, bucket->done), bucket->data[2 * bucket->done + 1], words);
    bucket->done++; /* before any child can split this bucket */
    s->expanded++;
    decode(s, words, &p, codes);
    n = fcs_legal_moves(r, &p, r->sequence != SEQ_UNLIMITED, moves);
    for (k = 0; k < n; k++) {
        if (!coded_child(s, HOME_SAFE, &p, codes, &moves[k], &child, child_codes))
            continue;
        if (fcs_is_won(&child))
            return 0;
        proof_key(s, run, &child, child_codes, &run->kids[run->n_kids++]);
    }
    return run->n_kids < PROOF_BATCH || proof_flush(s, run);
}

/* Work through the part, bucket by bucket, expanding what each holds
   unexpanded, until a sweep finds nothing left: children landing in a
   bucket already swept wait for the next sweep.  0 when the proof must stop. */
static int proof_sweep_part(solver *s, proof_run *run, double deadline)
{
    int swept = 0;
    while (!swept) {
        uint64_t b;
        swept = 1;
        for (b = 0; b < run->part.n_buckets; b++)
            while (run->part.buckets[b].done < run->part.buckets[b].n) {
                swept = 0;
                if (deadline && (s->expanded % TIME_CHECK_EVERY) == 0 && now_s() > deadline) {
                    s->limit = FCS_LIMIT_TIME;
                    return 0;
                }
                if (!proof_expand(s, run, b))
                    return 0;
            }
        if (!proof_flush(s, run))
            return 0;
    }
    return 1;
}

/* Take the current layer's next entry out and into the (empty) part. */
static int proof_next_entry(solver *s, proof_run *run, uint64_t *from)
{
    proof_layer *l = &run->layers[run->current];
    proof_child *kid = &run->kids[0];
    proof_bucket *b;
    while (l->buckets[*from].n == 0) /* emptied buckets never refill */
        (*from)++;
    b = &l->buckets[*from];
    kid->len = b->data[1];
    memcpy(kid->packed, b->data + index_bytes(b->n), (size_t)kid->len);
    kid->hash = hash_packed(kid->packed, kid->len);
    kid->layer = run->current;
    run->n_kids = 1;
    return proof_flush(s, run);
}

/* Returns PHASE_DONE with res->status FCS_UNSOLVABLE when every reachable
   position is visited; PHASE_GAVE_UP on a limit or on reaching a won
   position (a win it cannot spell out: it keeps no paths). */
static int layered_proof(solver *s, const fcs_pos *root, double deadline, fcs_result *res)
{
    proof_run run;
    uint64_t visited = 0, most = 0, most_higher = 0; /* in the layer's groups so far */
    uint64_t slice;                                  /* a group's entries held at once, at most */
    int h, outcome = PHASE_GAVE_UP;
    double saved = now_s(), gap = s->lim->checkpoint_every_s; /* since the last save; until the next */

    memset(&run, 0, sizeof(run));
    run.spill_fd = -1;
    run.layers = calloc(PROOF_LAYERS, sizeof(proof_layer));
    run.on_disk = calloc(PROOF_LAYERS, sizeof(spill_list));
    run.kids = malloc(sizeof(proof_child) * (PROOF_BATCH + FCS_MAX_MOVES));
    run.out = malloc(SPILL_BUFFER);
    run.in = malloc(SPILL_BUFFER);
    s->proof_room = (uint64_t)s->max_states * PROOF_ROOM;
    slice = s->proof_room / 8 * 3 + 1; /* at least one, so each slice gets somewhere */
    if (!run.layers || !run.on_disk || !run.kids || !run.out || !run.in) {
        s->limit = FCS_LIMIT_MEMORY;
        goto out;
    }
    run.current = -1;
    if (res->resumed) {
        if (!checkpoint_load(s, &run, &h))
            goto out;
    } else {
        column_code codes[FCS_MAX_COLS];
        code_columns(s, root, ALL_COLUMNS(s->r), codes);
        proof_key(s, &run, root, codes, &run.kids[run.n_kids++]);
        h = run.kids[0].layer;
        if (!proof_flush(s, &run))
            goto out;
    }
    for (; h < PROOF_LAYERS; h++) {
        run.current = h;
        while (run.layers[h].n || run.on_disk[h].n) {
            uint64_t from = 0;
            if (!load_layer(s, &run, h, slice))
                goto out;
            if (!run.on_disk[h].n)
                forget_seen(&run); /* no key is left to skip or sift with it */
            while (run.layers[h].n) {
                run.sweeping = 1;
                if (!proof_next_entry(s, &run, &from) || !proof_sweep_part(s, &run, deadline))
                    goto out;
                run.sweeping = 0;
                visited += run.part.n;
                s->proof_states += run.part.n;
                if (run.live > most) { /* a part's end: nothing held goes before */
                    most = run.live;
                    most_higher = run.live - run.part.n - run.seen.n - run.layers[h].n;
                }
                if (!run.on_disk[h].n) {
                    run.live -= run.part.n;
                    free_layer(&run.part);
                } else if (!merge_part(s, &run) || (run.seen.n > s->proof_room / 4 && !sift_disk(s, &run, h))) {
                    goto out;
                }
                if (s->lim->checkpoint && now_s() - saved >= gap) {
                    double began = now_s();
                    /* Between parts: what is left of this layer is unvisited once the keys on
                       disk are sifted with the parts visited. */
                    if (run.seen.n && !sift_disk(s, &run, h))
                        goto out;
                    checkpoint_save(s, &run, h); /* if the disk will not take it, the proof goes on */
                    saved = now_s();
                    gap = s->lim->checkpoint_every_s > CHECKPOINT_SPACING * (saved - began)
                              ? s->lim->checkpoint_every_s : CHECKPOINT_SPACING * (saved - began);
                }
            }
            free_layer(&run.layers[h]);
        }
        if (h % PROOF_GROUPS == PROOF_GROUPS - 1) { /* the last group of its layer */
#ifdef FCS_PROOF_TRACE /* scripts/measure_proof.py: what each layer held */
            if (visited)
                fprintf(stderr, "layer %d/%d: %llu positions; most held at once: %llu (%llu in higher layers); "
                        "visited so far: %llu; spilled so far: %llu\n", h / PROOF_GROUPS / (FCS_CARDS + 1),
                        h / PROOF_GROUPS % (FCS_CARDS + 1), (unsigned long long)visited, (unsigned long long)most,
                        (unsigned long long)most_higher, (unsigned long long)s->proof_states,
                        (unsigned long long)run.spilled);
#endif
            visited = most = most_higher = 0;
        }
    }
    res->status = FCS_UNSOLVABLE;
    outcome = PHASE_DONE;
out:
    if (s->lim->checkpoint)
        checkpoint_remove(s);
    for (h = 0; run.layers && h < PROOF_LAYERS; h++)
        free_layer(&run.layers[h]);
    for (h = 0; run.on_disk && h < PROOF_LAYERS; h++)
        free(run.on_disk[h].segments);
    if (run.spill_fd >= 0)
        close(run.spill_fd);
    free_layer(&run.part);
    free_layer(&run.seen);
    free(run.layers);
    free(run.on_disk);
    free(run.kids);
    free(run.out);
    free(run.in);
    return outcome;
}

void fcs_solve(const fcs_rules *r, const fcs_pos *start, const fcs_limits *lim, fcs_result *res)
{
    solver s;
    fcs_pos root;
    double deadline = lim->timeout_s > 0 ? now_s() + lim->timeout_s : 0;
    unsigned phases = lim->phases ? lim->phases : FCS_PHASES_ALL;
    uint32_t budget[QUICK_TRY_COUNT];
    int i, out_of_room[QUICK_TRY_COUNT];

    memset(res, 0, sizeof(*res));
    memset(&s, 0, sizeof(s));
    s.free_entry = NO_ENTRY;
    s.r = r;
    s.lim = lim;
    s.start = *start;
    s.max_states = lim->max_states > 0xFFFFFFF0u ? 0xFFFFFFF0u : (uint32_t)lim->max_states;
    if (s.max_states < 1)
        s.max_states = 1;
    s.key_words = key_words_for(r, start, &s.k_bits, &s.chain_bits);
    memset(s.origin_of, -1, sizeof(s.origin_of));
    for (i = 0; i < r->columns; i++) {
        int k;
        if (start->len[i])
            s.origin_of[start->col[i][0]] = (int8_t)i;
        for (k = 2; k <= start->len[i]; k++)
            s.disorder[i][k] = (uint8_t)(s.disorder[i][k - 1] +
                                         !fcs_can_build(r, start->col[i][k - 2], start->col[i][k - 1]));
    }

    res->status = FCS_UNKNOWN;
    root = *start;
    fcs_autoplay(r, &root, NULL, NULL, NULL);
    if (fcs_is_won(&root)) {
        finish_solved(&s, NO_PARENT, NULL, res);
        goto done;
    }
    if (!r->foundation_return && (phases & FCS_PHASE_PROOF) && checkpoint_matches(&s)) {
        /* A proof under way: the searches before it ended undecided last
           time.  (The searches alone run again, so that they are counted.) */
        res->resumed = 1;
        s.limit = FCS_LIMIT_STATES;
        goto proof;
    }
    if (!(phases & FCS_PHASE_SEARCH)) {
        s.limit = FCS_LIMIT_STATES; /* the caller's searches ran out of room */
        goto proof;
    }
    s.recent = malloc(RECENT_SLOTS * sizeof(recent_entry));
    if (!s.recent || !grow_table(&s)) {
        s.limit = FCS_LIMIT_MEMORY;
        goto done;
    }
    for (i = 0; i < QUICK_TRY_COUNT; i++) {
        int again = QUICK_TRIES[i].more_room_for;
        budget[i] = s.max_states < QUICK_TRIES[i].budget ? s.max_states : QUICK_TRIES[i].budget;
        /* A repeat only goes on where the try it repeats ran out of room:
           one that ran out of positions would only do the same again. */
        if (again >= 0 && !(out_of_room[again] && budget[i] > budget[again])) {
            out_of_room[i] = 0;
            continue;
        }
        s.home_mode = QUICK_TRIES[i].home_mode;
        s.w = QUICK_TRIES[i].w;
        if (quick_search(&s, &root, OPEN_ORDERS, budget[i], deadline, res) == PHASE_DONE)
            goto done;
        out_of_room[i] = s.n >= budget[i];
        s.stored_before += s.n;
        reset_store(&s);
    }
    s.home_mode = HOME_SAFE;
    s.w = &STEADY_WEIGHTS;
    if (full_search_start(&s, &root) && full_search(&s, deadline, INTERLUDE_AFTER, res) == PHASE_PAUSED &&
        eager_interlude(&s, &root, deadline, res) == PHASE_GAVE_UP)
        full_search(&s, deadline, 0, res);
    if (res->status == FCS_UNKNOWN && s.limit == FCS_LIMIT_STATES) {
        /* The complete phase ran out of room: a proof is out of reach, but
           a win may not be.  The eager greedy search goes deep where the
           complete one goes wide (3 cells, single-card moves, deal 5260:
           won in 72,334 positions after a million did not do it), so it has
           one more go.  Its open
           list grows by about six entries a position, hence an eighth of
           the room, which keeps memory within what the limit allows. */
        s.stored_before += s.n;
        reset_store(&s);
        s.home_mode = HOME_EAGER;
        s.w = &FAST_WEIGHTS;
        s.limit = 0;
        if (quick_search(&s, &root, 1, s.max_states / LAST_TRY_SHARE + 1, deadline, res) == PHASE_GAVE_UP)
            s.limit = FCS_LIMIT_STATES;
    }
proof:
    if (res->status == FCS_UNKNOWN && s.limit == FCS_LIMIT_STATES && !r->foundation_return &&
        (phases & FCS_PHASE_PROOF)) {
        /* Still undecided: the stores go, and the layered proof gets the room. */
        s.stored_before += s.n;
        release_store(&s);
        s.limit = 0;
        if (layered_proof(&s, &root, deadline, res) == PHASE_GAVE_UP && !s.limit)
            s.limit = FCS_LIMIT_STATES; /* it reached a win it cannot spell out */
    }
done:
    if (res->status == FCS_UNKNOWN)
        res->limit = s.limit ? s.limit : FCS_LIMIT_MEMORY;
    res->states = s.stored_before + s.n + s.proof_states;
    res->expanded = s.expanded;
    release_store(&s);
    free(s.recent);
}
