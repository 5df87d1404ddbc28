/* The layered proof's stubborn sets (reduce.h). */
#include "reduce.h"

typedef uint64_t cardset; /* bit c: card c (1..52) */
#define BIT(c) ((cardset)1 << (c))
/* Every card of suit s (a card's number grows with its rank within a suit). */
#define SUIT_CARDS(s) (0x1111111111111ull << ((s) + 1))

/* What the reduction reads of a position, and the column set S under way. */
typedef struct {
    const fcs_pos *p;
    int columns, compat[FCS_NUM_SUITS]; /* suits that build on each suit, as a 4-bit mask */
    cardset column[FCS_MAX_COLS];       /* each column's cards */
    cardset below[FCS_CARDS + 1];       /* the cards under each card in its column */
    int8_t col_of[FCS_CARDS + 1];       /* each card's column, -1 off the columns */
    cardset cells, home;
    /* for the set S under way */
    unsigned in_s;
    cardset s_cards, s_tops, immobile, sealed, pins;
} reduce_scan;

static inline cardset lower_of(int c)
{
    return SUIT_CARDS(CARD_SUIT(c)) & (BIT(c) - 1);
}

/* The cards one rank up (parents) and down (children) that build with c. */
static inline cardset parents_of(const reduce_scan *rs, int c)
{
    int q = CARD_RANK(c);
    return q == FCS_RANKS ? 0 : (cardset)rs->compat[CARD_SUIT(c)] << (q * 4 + 1);
}

static inline cardset children_of(const reduce_scan *rs, int c)
{
    int q = CARD_RANK(c);
    return q == 1 ? 0 : (cardset)rs->compat[CARD_SUIT(c)] << ((q - 2) * 4 + 1);
}

static void scan(const fcs_rules *r, const fcs_pos *p, reduce_scan *rs)
{
    int i, d, s;
    rs->p = p;
    rs->columns = r->columns;
    for (s = 0; s < FCS_NUM_SUITS; s++)
        rs->compat[s] = r->build == BUILD_SUIT ? 1 << s : r->build == BUILD_ANY ? 0xF : SUIT_RED(s) ? 0x9 : 0x6;
    memset(rs->col_of, -1, sizeof(rs->col_of));
    rs->cells = rs->home = 0;
    for (i = 0; i < r->cells; i++)
        rs->cells |= BIT(p->cell[i]);
    for (s = 0; s < FCS_NUM_SUITS; s++)
        rs->home |= SUIT_CARDS(s) & ((BIT(CARD_MAKE(1, s)) << (4 * p->found[s])) - BIT(CARD_MAKE(1, s)));
    for (i = 0; i < r->columns; i++) {
        cardset under = 0;
        for (d = 0; d < p->len[i]; d++) {
            int c = p->col[i][d];
            rs->below[c] = under;
            rs->col_of[c] = (int8_t)i;
            under |= BIT(c);
        }
        rs->column[i] = under;
    }
}

/* The immobile cards of the columns outside S, the greatest set in which
   every card's parents are home, in a cell, in S or under one of the set,
   and a lower card of its suit is under one of the set, in S but not on
   top, or in the set; and the cards under them (sealed). */
static void find_immobile(reduce_scan *rs)
{
    cardset outside = 0, im, drop = 1;
    int i;
    for (i = 0; i < rs->columns; i++)
        if (!(rs->in_s >> i & 1))
            outside |= rs->column[i];
    for (im = outside; drop; im &= ~drop) {
        cardset zone, pins, left;
        rs->sealed = 0;
        for (i = 0; i < rs->columns; i++) {
            int d;
            if (rs->in_s >> i & 1)
                continue;
            for (d = rs->p->len[i] - 1; d >= 0; d--)
                if (im & BIT(rs->p->col[i][d])) {
                    rs->sealed |= rs->below[rs->p->col[i][d]];
                    break;
                }
        }
        zone = rs->home | rs->cells | rs->s_cards | rs->sealed;
        pins = (rs->s_cards & ~rs->s_tops) | im | rs->sealed;
        drop = 0;
        for (left = im; left; left &= left - 1) {
            int w = __builtin_ctzll(left);
            if ((parents_of(rs, w) & ~zone) || !(lower_of(w) & pins))
                drop |= BIT(w);
        }
    }
    rs->immobile = im;
}

/* The columns holding any of `cards`. */
static unsigned columns_of(const reduce_scan *rs, cardset cards)
{
    unsigned cols = 0;
    for (; cards; cards &= cards - 1) {
        int c = __builtin_ctzll(cards);
        if (rs->col_of[c] >= 0)
            cols |= 1u << rs->col_of[c];
    }
    return cols;
}

/* What one round of closing S asks to add to it, given S's immobile cards;
   sets rs->pins (cards that stay on the table while T waits).  -1: S cannot
   be closed (a card of T could go home). */
static long closing_round(reduce_scan *rs)
{
    cardset ctrl = rs->s_tops | rs->cells, need = 0, left;
    unsigned add = 0;
    int i;
    for (left = ctrl; left; left &= left - 1) {
        int c = __builtin_ctzll(left);
        need |= parents_of(rs, c) | (rs->s_tops & BIT(c) ? children_of(rs, c) : 0);
    }
    add |= columns_of(rs, need & ~(rs->home | rs->cells | rs->s_cards | rs->sealed));
    for (i = 0; i < rs->columns; i++)
        if (!(rs->in_s >> i & 1) && !(rs->column[i] & rs->immobile))
            add |= 1u << i;
    rs->pins = (rs->s_cards & ~rs->s_tops) | rs->immobile | rs->sealed;
    for (left = ctrl; left; left &= left - 1) { /* lower cards first: a card of T that stays is a pin */
        int c = __builtin_ctzll(left);
        if (lower_of(c) & rs->pins) {
            rs->pins |= BIT(c);
        } else {
            unsigned more = columns_of(rs, lower_of(c) & ~rs->s_cards);
            if (!more)
                return -1;
            add |= more;
        }
    }
    return (long)(add & ~rs->in_s);
}

/* Close S from the seed columns; 0 when it takes every column or cannot be closed. */
static int close_set(reduce_scan *rs, unsigned seed)
{
    unsigned all = (1u << rs->columns) - 1;
    long add = 1;
    rs->in_s = seed;
    while (add) {
        int i;
        rs->s_cards = rs->s_tops = 0;
        for (i = 0; i < rs->columns; i++)
            if (rs->in_s >> i & 1) {
                rs->s_cards |= rs->column[i];
                rs->s_tops |= BIT(rs->p->col[i][rs->p->len[i] - 1]);
            }
        if (rs->in_s == all)
            return 0;
        find_immobile(rs);
        if ((add = closing_round(rs)) < 0)
            return 0;
        rs->in_s |= (unsigned)add;
    }
    return 1;
}

/* Whether move m is one of T's: it takes a top card of S or a cell card. */
static inline int in_t(const reduce_scan *rs, const fcs_move *m)
{
    return m->src_kind == AT_CELL || (m->src_kind == AT_COLUMN && (rs->in_s >> m->src & 1));
}

/* How many of the moves T keeps (each onto a top card of S, uncovering a
   card that cannot go home while T waits); -1 when one is not so. */
static int count_kept(const reduce_scan *rs, const fcs_move *moves, int n)
{
    int k, kept = 0;
    for (k = 0; k < n; k++) {
        const fcs_move *m = &moves[k];
        int into_s = m->dst_kind == AT_COLUMN && (rs->in_s >> m->dst & 1);
        if (!in_t(rs, m)) {
            if (into_s)
                return -1;
            continue;
        }
        if (!into_s || m->count != 1)
            return -1;
        if (m->src_kind == AT_COLUMN && rs->p->len[m->src] > 1 &&
            !(lower_of(rs->p->col[m->src][rs->p->len[m->src] - 2]) & rs->pins))
            return -1;
        kept++;
    }
    return kept;
}

int proof_reduce_applies(const fcs_rules *r)
{
    return !r->foundation_return && r->sequence != SEQ_UNLIMITED;
}

int proof_reduce(const fcs_rules *r, const fcs_pos *p, fcs_move *moves, int n)
{
    reduce_scan rs;
    unsigned best = 0;
    int seed, fewest = n, k, kept;
    if (fcs_empty_cells(r, p) || fcs_empty_columns(r, p))
        return n;
    scan(r, p, &rs);
    for (seed = r->cells ? -1 : 0; seed < r->columns; seed++) {
        int c;
        if (!close_set(&rs, seed < 0 ? 0 : 1u << seed))
            continue;
        c = count_kept(&rs, moves, n);
        if (c > 0 && c < fewest) {
            fewest = c;
            best = rs.in_s;
        }
    }
    if (fewest == n)
        return n;
    rs.in_s = best;
    for (k = kept = 0; k < n; k++)
        if (in_t(&rs, &moves[k]))
            moves[kept++] = moves[k];
    return kept;
}
