/* The canonical key codec (see key.h for the layout). */
#include "key.h"

const column_code EMPTY_CODE = {0, 0, -1, 0, 0};

typedef struct {
    uint64_t *w;
    int pos;
} bits;

static inline void put_bits(bits *b, uint64_t v, int n)
{
    int word = b->pos >> 6, off = b->pos & 63; /* n may be 0: nothing is put */
    b->w[word] |= v << off;
    if (off + n > 64)
        b->w[word + 1] |= v >> (64 - off);
    b->pos += n;
}

static inline unsigned get_bits(bits *b, int n)
{
    int word = b->pos >> 6, off = b->pos & 63; /* n may be 0: the mask keeps nothing */
    uint64_t v = b->w[word] >> off;
    if (off + n > 64)
        v |= b->w[word + 1] << (64 - off);
    b->pos += n;
    return (unsigned)(v & ((1u << n) - 1));
}

/* The suit choices of col[from..to), first card in the low bits: a chain
   holds at most 12 cards, so at most 24 bits (chain_bits each). */
static inline uint64_t chain_value(const fcs_codec *kc, const uint8_t *col, int from, int to)
{
    uint64_t v = 0;
    int j, shift = 0;
    if (kc->r->build == BUILD_ALTERNATE) {
        for (j = from; j < to; j++, shift++)
            v |= (uint64_t)(CARD_SUIT(col[j]) >> 1) << shift;
    } else if (kc->r->build == BUILD_ANY) {
        for (j = from; j < to; j++, shift += 2)
            v |= (uint64_t)CARD_SUIT(col[j]) << shift;
    }
    return v;
}

/* The card built on `below` whose suit choice is `choice`. */
static inline uint8_t chain_card(const fcs_codec *kc, int below, unsigned choice)
{
    int rank = CARD_RANK(below) - 1, suit;
    if (kc->r->build == BUILD_SUIT)
        suit = CARD_SUIT(below);
    else if (kc->r->build == BUILD_ANY)
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

/* Code the column of `len` cards `col` as key_encode() lays columns out. */
static inline void code_column(const fcs_codec *kc, const uint8_t *col, int len, column_code *cc)
{
    int o;
    if (!len) {
        cc->n = 0;
        cc->origin = -1;
        return;
    }
    o = kc->origin_of[col[0]];
    cc->origin = (int8_t)o;
    cc->bottom = col[0];
    if (o >= 0) {
        int k = common_prefix(col, kc->start.col[o], len < kc->start.len[o] ? len : kc->start.len[o]);
        int head = kc->k_bits + 4;
        cc->kept = (uint8_t)k;
        cc->bits = ((uint64_t)k | (uint64_t)(len - k) << kc->k_bits) | chain_value(kc, col, k, len) << head;
        cc->n = (uint8_t)(head + (len - k) * kc->chain_bits);
    } else {
        cc->bits = (col[0] | (uint64_t)(len - 1) << 6) | chain_value(kc, col, 1, len) << 10;
        cc->n = (uint8_t)(10 + (len - 1) * kc->chain_bits);
    }
}

void key_code_columns(const fcs_codec *kc, const fcs_pos *p, unsigned changed, column_code *codes)
{
    for (; changed; changed &= changed - 1) {
        int i = __builtin_ctz(changed);
        code_column(kc, p->col[i], p->len[i], &codes[i]);
    }
}


int key_encode_coded(const fcs_codec *kc, const fcs_pos *p, const column_code *codes, uint64_t *key, key_layout *lay,
                        dealt_pairs *pairs)
{
    const fcs_rules *r = kc->r;
    /* Anchored columns go by their origin, the others by their bottom card,
       the cells by their card: each set is a mask (bit: origin or card),
       read in order, so nothing is sorted. */
    uint8_t anchored_col[FCS_MAX_COLS], other_col[FCS_CARDS + 1];
    uint64_t others = 0, cells = 0, m;
    unsigned anchored = 0;
    int n_others = 0, n_cells = 0, i, o, last = -1, held_count = 0;
    uint64_t which = 0;
    bits b;

    for (i = 0; i < KEY_WORDS_MAX; i++)
        key[i] = 0;
    b.w = key;
    b.pos = 0;
    for (i = 0; i < r->columns; i++) {
        if (!codes[i].n)
            continue;
        if (codes[i].origin >= 0) {
            anchored |= 1u << codes[i].origin;
            anchored_col[codes[i].origin] = (uint8_t)i;
        } else {
            others |= (uint64_t)1 << codes[i].bottom;
            other_col[codes[i].bottom] = (uint8_t)i;
            n_others++;
        }
    }
    /* An absent dealt column is a k of 0: its bits stay 0. */
    for (m = anchored; m; m &= m - 1) {
        const column_code *cc;
        o = __builtin_ctzll(m);
        cc = &codes[anchored_col[o]];
        b.pos += (o - last - 1) * kc->k_bits;
        put_bits(&b, cc->bits, cc->n);
        last = o;
        if (pairs) {
            int held = kc->disorder[o][cc->kept];
            held_count += held;
            which += (uint64_t)held * kc->pairs_weight[o];
        }
    }
    b.pos += (r->columns - last - 1) * kc->k_bits;
    put_bits(&b, (unsigned)n_others, 4);
    for (m = others; m; m &= m - 1) {
        const column_code *cc = &codes[other_col[__builtin_ctzll(m)]];
        put_bits(&b, cc->bits, cc->n);
    }
    for (i = 0; i < r->cells; i++)
        if (p->cell[i]) {
            cells |= (uint64_t)1 << p->cell[i];
            n_cells++;
        }
    put_bits(&b, (unsigned)n_cells, 4);
    for (m = cells; m; m &= m - 1)
        put_bits(&b, (unsigned)__builtin_ctzll(m), 6);
    if (lay) {
        lay->columns = 0;
        for (m = anchored; m; m &= m - 1)
            lay->order[lay->columns++] = anchored_col[__builtin_ctzll(m)];
        for (m = others; m; m &= m - 1)
            lay->order[lay->columns++] = other_col[__builtin_ctzll(m)];
        lay->n_cells = 0;
        for (m = cells; m; m &= m - 1)
            lay->cells[lay->n_cells++] = (uint8_t)__builtin_ctzll(m);
    }
    if (pairs) {
        pairs->count = held_count;
        pairs->which = which;
    }
    return b.pos;
}

int key_encode(const fcs_codec *kc, const fcs_pos *p, uint64_t *key, key_layout *lay, dealt_pairs *pairs)
{
    column_code codes[FCS_MAX_COLS];
    key_code_columns(kc, p, ALL_COLUMNS(kc->r), codes);
    return key_encode_coded(kc, p, codes, key, lay, pairs);
}

/* Lay the chain of built cards `choices` (chain_value()'s layout) on
   col[from - 1], up to col[to - 1]; the cards it laid, one bit each (bit c:
   card c). */
static inline uint64_t lay_chain(const fcs_codec *kc, uint8_t *col, int from, int to, unsigned choices)
{
    unsigned mask = (1u << kc->chain_bits) - 1;
    uint64_t laid = 0;
    int j;
    for (j = from; j < to; j++, choices >>= kc->chain_bits) {
        col[j] = kc->built_on[col[j - 1]][choices & mask];
        laid |= (uint64_t)1 << col[j];
    }
    return laid;
}

/* The cards of suit 0, one bit each, from bit 0 for card 1: ranks 1 to 13,
   one a nibble. */
#define SUIT_CARDS 0x1111111111111ull

void key_decode(const fcs_codec *kc, const uint64_t *stored, fcs_pos *p, column_code *codes)
{
    const fcs_rules *r = kc->r;
    uint64_t key[KEY_WORDS_MAX + 1] = {0}, out = 0; /* the cards not home, one bit each */
    int i, o, slot = 0, n, head = kc->k_bits + 4;
    bits b;

    memcpy(key, stored, sizeof(uint64_t) * (size_t)kc->key_words);
    b.w = key;
    b.pos = 0;
    memset(p, 0, sizeof(*p));
    for (o = 0; o < r->columns; o++) {
        int k = (int)get_bits(&b, kc->k_bits), built;
        unsigned choices;
        column_code *cc = &codes[slot];
        if (!k)
            continue;
        memcpy(p->col[slot], kc->start.col[o], (size_t)k);
        out |= kc->dealt_cards[o][k];
        built = (int)get_bits(&b, 4);
        choices = get_bits(&b, built * kc->chain_bits);
        out |= lay_chain(kc, p->col[slot], k, k + built, choices);
        p->len[slot++] = (uint8_t)(k + built);
        cc->origin = (int8_t)o;
        cc->bottom = kc->start.col[o][0];
        cc->kept = (uint8_t)k;
        cc->bits = ((uint64_t)k | (uint64_t)built << kc->k_bits) | (uint64_t)choices << head;
        cc->n = (uint8_t)(head + built * kc->chain_bits);
    }
    n = (int)get_bits(&b, 4);
    for (i = 0; i < n; i++) {
        int bottom = (int)get_bits(&b, 6), built = (int)get_bits(&b, 4);
        unsigned choices = get_bits(&b, built * kc->chain_bits);
        column_code *cc = &codes[slot];
        p->col[slot][0] = (uint8_t)bottom;
        out |= (uint64_t)1 << bottom | lay_chain(kc, p->col[slot], 1, 1 + built, choices);
        p->len[slot++] = (uint8_t)(1 + built);
        cc->origin = -1;
        cc->bottom = (uint8_t)bottom;
        cc->kept = 0;
        cc->bits = ((uint64_t)bottom | (uint64_t)built << 6) | (uint64_t)choices << 10;
        cc->n = (uint8_t)(10 + built * kc->chain_bits);
    }
    for (; slot < r->columns; slot++)
        codes[slot] = EMPTY_CODE;
    n = (int)get_bits(&b, 4);
    for (i = 0; i < n; i++) {
        p->cell[i] = (uint8_t)get_bits(&b, 6);
        out |= (uint64_t)1 << p->cell[i];
    }
    /* The foundations hold what is not out: a suit's 13 bits, one a nibble,
       multiplied by a 1 in each nibble, sum up in the thirteenth (no nibble's
       sum passes 13, so none carries). */
    out >>= 1;
    for (i = 0; i < FCS_NUM_SUITS; i++)
        p->found[i] = (uint8_t)(FCS_RANKS - (int)((((out >> i) & SUIT_CARDS) * SUIT_CARDS >> 48) & 0xF));
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


void key_codec_init(fcs_codec *kc, const fcs_rules *r, const fcs_pos *start)
{
    uint64_t weight;
    int i, k;
    memset(kc, 0, sizeof(*kc));
    kc->r = r;
    kc->start = *start;
    kc->key_words = key_words_for(r, start, &kc->k_bits, &kc->chain_bits);
    for (i = r->columns - 1, weight = 1; i >= 0; i--, weight *= FCS_MAX_COL_LEN + 1)
        kc->pairs_weight[i] = weight;
    for (i = 1; i <= FCS_CARDS; i++)
        for (k = 0; k < 4; k++)
            kc->built_on[i][k] = CARD_RANK(i) > 1 ? chain_card(kc, i, (unsigned)k) : 0;
    memset(kc->origin_of, -1, sizeof(kc->origin_of));
    for (i = 0; i < r->columns; i++) {
        if (start->len[i])
            kc->origin_of[start->col[i][0]] = (int8_t)i;
        for (k = 1; k <= start->len[i]; k++)
            kc->dealt_cards[i][k] = kc->dealt_cards[i][k - 1] | (uint64_t)1 << start->col[i][k - 1];
        for (k = 2; k <= start->len[i]; k++)
            kc->disorder[i][k] = (uint8_t)(kc->disorder[i][k - 1] +
                                           !fcs_can_build(r, start->col[i][k - 2], start->col[i][k - 1]));
    }
}
