/* Rules primitives and move generation.  Python reference: engine.py. */
#include "position.h"

#include <string.h>

int fcs_run_length(const fcs_rules *r, const fcs_pos *p, int col)
{
    int n = p->len[col], k = 1;
    if (n == 0)
        return 0;
    while (k < n && fcs_can_build(r, p->col[col][n - k - 1], p->col[col][n - k]))
        k++;
    return k;
}

/* fcs_capacity from the counts of empty cells and columns. */
static inline int capacity(const fcs_rules *r, int empty_cells, int empty_columns, int dest_empty)
{
    int empties;
    if (r->sequence == SEQ_SINGLE)
        return 1;
    if (r->sequence == SEQ_UNLIMITED)
        return FCS_CARDS;
    empties = r->empty_fill == FILL_ANY ? empty_columns - (dest_empty ? 1 : 0) : 0;
    return (empty_cells + 1) << empties;
}

int fcs_capacity(const fcs_rules *r, const fcs_pos *p, int dest_empty)
{
    return capacity(r, fcs_empty_cells(r, p), fcs_empty_columns(r, p), dest_empty);
}

/* Safe autoplay.  A card X of rank r is only ever useful off the foundation
   as a place to park the rank r-1 cards that build on it.  If every such
   card is home and can never need to come back down, X is a pure obstacle
   and sending it home loses nothing (any solution stays a solution with X's
   moves deleted, so it is no longer).  Aces and twos are always safe: the
   only cards that could go on them are aces, and an ace can always go home
   directly instead.  With same-suit building the only card that builds on X
   is its own predecessor, already home.  Without foundation return home cards
   never come back; with it, a home card Y of rank r-1 would only come down to
   hold the rank r-2 cards that build on Y, so those must be home too.

   Alternate colours without foundation return have a second case: both
   opposite-colour foundations hold r-2 and the other same-colour one r-3.
   Then what can ever hang on X is at most an opposite-colour r-1 card and
   on that the other same-colour r-2 card (X's own suit's r-2 is home, and
   the opposite-colour r-3 cards that would go on that are home), and each
   of those is the next card of its foundation.  So in any win from the
   position before, every move that puts one of them on X, or on one
   already sent home this way, can send it home instead, and every later
   move of a card sent home is dropped: the win stays a win, no longer. */
int fcs_safe_home(const fcs_rules *r, const uint8_t found[FCS_NUM_SUITS], int card)
{
    int rank = CARD_RANK(card), suit = CARD_SUIT(card), t;
    int holders = FCS_RANKS, others = FCS_RANKS; /* lowest foundation of suits whose r-1 builds on it, of the rest */
    if (rank <= 2 || r->build == BUILD_SUIT)
        return 1;
    for (t = 0; t < FCS_NUM_SUITS; t++) {
        if (t == suit)
            continue;
        if (r->build == BUILD_ANY || SUIT_RED(t) != SUIT_RED(suit)) {
            if (found[t] < holders)
                holders = found[t];
        } else if (found[t] < others) {
            others = found[t];
        }
    }
    if (r->foundation_return)
        return holders >= rank - 1 && others >= rank - 2;
    return holders >= rank - 1 || (r->build == BUILD_ALTERNATE && holders >= rank - 2 && others >= rank - 3);
}

int fcs_is_won(const fcs_pos *p)
{
    return p->found[0] == FCS_RANKS && p->found[1] == FCS_RANKS && p->found[2] == FCS_RANKS &&
           p->found[3] == FCS_RANKS;
}

static int accepts_empty(const fcs_rules *r, int card)
{
    return r->empty_fill == FILL_ANY || (r->empty_fill == FILL_KINGS && CARD_RANK(card) == FCS_RANKS);
}

static int first_empty_cell(const fcs_rules *r, const fcs_pos *p)
{
    int i;
    for (i = 0; i < r->cells; i++)
        if (p->cell[i] == 0)
            return i;
    return -1;
}

static int first_empty_column(const fcs_rules *r, const fcs_pos *p)
{
    int i;
    for (i = 0; i < r->columns; i++)
        if (p->len[i] == 0)
            return i;
    return -1;
}

static inline fcs_move make_move(int sk, int s, int dk, int d, int count)
{
    fcs_move m = {(uint8_t)sk, (uint8_t)s, (uint8_t)dk, (uint8_t)d, (uint8_t)count};
    return m;
}

/* The position's column tops, lengths and cells are copied into locals
   first: stores into `out` (bytes) could alias the position, and would
   otherwise force the compiler to reload it after every move written. */
void fcs_run_lengths(const fcs_rules *r, const fcs_pos *p, uint8_t runs[FCS_MAX_COLS])
{
    int i;
    for (i = 0; i < r->columns; i++)
        runs[i] = (uint8_t)fcs_run_length(r, p, i);
}

int fcs_legal_moves(const fcs_rules *r, const fcs_pos *p, unsigned flags, fcs_move *out)
{
    uint8_t runs[FCS_MAX_COLS];
    fcs_run_lengths(r, p, runs);
    return fcs_moves(r, p, flags, runs, out);
}

int fcs_moves(const fcs_rules *r, const fcs_pos *p, unsigned flags, const uint8_t *runs, fcs_move *out)
{
    const int single_only = (flags & FCS_MOVES_SINGLE) != 0, skip_built = (flags & FCS_MOVES_SKIP_BUILT) != 0;
    const int cells = r->cells, columns = r->columns;
    const fcs_rules rules = *r;
    uint8_t top[FCS_MAX_COLS], rank[FCS_MAX_COLS], len[FCS_MAX_COLS], cell[FCS_MAX_CELLS], found[FCS_NUM_SUITS];
    unsigned with_rank[FCS_RANKS + 1] = {0}; /* columns whose top card has this rank */
    int n = 0, i, j, s, cell0 = -1, col0 = -1, cap_full, cap_empty, empty_cells = 0, empty_columns = 0, keep_empty;

    for (i = 0; i < cells; i++) {
        cell[i] = p->cell[i];
        if (!cell[i]) {
            empty_cells++;
            if (cell0 < 0)
                cell0 = i;
        }
    }
    for (i = 0; i < columns; i++) {
        len[i] = p->len[i];
        top[i] = len[i] ? p->col[i][len[i] - 1] : 0;
        rank[i] = top[i] ? (uint8_t)CARD_RANK(top[i]) : 0;
        with_rank[rank[i]] |= 1u << i;
        if (!len[i]) {
            empty_columns++;
            if (col0 < 0)
                col0 = i;
        }
    }
    memcpy(found, p->found, sizeof(found));
    cap_full = single_only ? 1 : capacity(&rules, empty_cells, empty_columns, 0);
    /* only with an empty column */
    cap_empty = single_only || col0 < 0 ? 1 : capacity(&rules, empty_cells, empty_columns, 1);
    keep_empty = (flags & FCS_MOVES_KEEP_EMPTY) && cell0 >= 0 && cap_empty > 1;

    /* To the foundations. */
    for (i = 0; i < cells; i++)
        if (cell[i] && found[CARD_SUIT(cell[i])] + 1 == CARD_RANK(cell[i]))
            out[n++] = make_move(AT_CELL, i, AT_FOUNDATION, CARD_SUIT(cell[i]), 1);
    for (i = 0; i < columns; i++)
        if (top[i] && found[CARD_SUIT(top[i])] + 1 == CARD_RANK(top[i]) && !(skip_built && runs[i] > 1))
            out[n++] = make_move(AT_COLUMN, i, AT_FOUNDATION, CARD_SUIT(top[i]), 1);
    /* Cells to columns. */
    for (i = 0; i < cells; i++) {
        int c = cell[i];
        unsigned reach;
        if (!c)
            continue;
        /* Only tops one rank above can take it (in column order). */
        for (reach = CARD_RANK(c) < FCS_RANKS ? with_rank[CARD_RANK(c) + 1] : 0; reach; reach &= reach - 1) {
            j = __builtin_ctz(reach);
            if (fcs_can_build(&rules, top[j], c))
                out[n++] = make_move(AT_CELL, i, AT_COLUMN, j, 1);
        }
        if (col0 >= 0 && accepts_empty(&rules, c))
            out[n++] = make_move(AT_CELL, i, AT_COLUMN, col0, 1);
    }
    /* Columns to columns. */
    for (i = 0; i < columns; i++) {
        const uint8_t *col = p->col[i];
        int run, most, above;
        unsigned reach = 0;
        if (!len[i])
            continue;
        run = runs[i];
        most = run < cap_full ? run : cap_full;
        /* k cards must move for the run to land on a top k ranks above
           column i's, so only columns with such tops can take part of it
           (in column order, as a scan of every column would find them).
           Below the whole run, each card of the run is built on the next. */
        for (above = skip_built ? rank[i] + run : rank[i] + 1; above <= rank[i] + most && above <= FCS_RANKS;
             above++)
            reach |= with_rank[above];
        for (; reach; reach &= reach - 1) {
            int k;
            j = __builtin_ctz(reach);
            k = rank[j] - rank[i];
            if (fcs_can_build(&rules, top[j], col[len[i] - k]))
                out[n++] = make_move(AT_COLUMN, i, AT_COLUMN, j, k);
        }
        if (col0 >= 0) {
            int k;
            most = run < cap_empty ? run : cap_empty;
            for (k = keep_empty && rank[i] != FCS_RANKS ? 2 : 1; k <= most; k++)
                if (accepts_empty(&rules, col[len[i] - k]))
                    out[n++] = make_move(AT_COLUMN, i, AT_COLUMN, col0, k);
        }
    }
    /* Column tops to a cell. */
    if (cell0 >= 0)
        for (i = 0; i < columns; i++) {
            unsigned reach = 0;
            if (!top[i] || (skip_built && runs[i] > 1) ||
                ((flags & FCS_MOVES_KEEP_KING) && len[i] == 1 && rank[i] == FCS_RANKS))
                continue;
            if ((flags & FCS_MOVES_PREFER_COLUMN) && rank[i] < FCS_RANKS)
                for (reach = with_rank[rank[i] + 1]; reach; reach &= reach - 1)
                    if (fcs_can_build(&rules, top[__builtin_ctz(reach)], top[i]))
                        break;
            if (!reach)
                out[n++] = make_move(AT_COLUMN, i, AT_CELL, cell0, 1);
        }
    /* Back down from the foundations. */
    if (rules.foundation_return) {
        for (s = 0; s < FCS_NUM_SUITS; s++) {
            int c;
            if (!found[s])
                continue;
            c = CARD_MAKE(found[s], s);
            for (j = 0; j < columns; j++)
                if (top[j] && fcs_can_build(&rules, top[j], c))
                    out[n++] = make_move(AT_FOUNDATION, s, AT_COLUMN, j, 1);
            if (col0 >= 0 && accepts_empty(&rules, c))
                out[n++] = make_move(AT_FOUNDATION, s, AT_COLUMN, col0, 1);
            if (cell0 >= 0)
                out[n++] = make_move(AT_FOUNDATION, s, AT_CELL, cell0, 1);
        }
    }
    return n;
}

void fcs_apply(fcs_pos *p, const fcs_move *m)
{
    uint8_t moved[FCS_MAX_COL_LEN];
    int k, n = m->count;

    switch (m->src_kind) {
    case AT_COLUMN:
        p->len[m->src] = (uint8_t)(p->len[m->src] - n);
        memcpy(moved, &p->col[m->src][p->len[m->src]], (size_t)n);
        break;
    case AT_CELL:
        moved[0] = p->cell[m->src];
        p->cell[m->src] = 0;
        break;
    default:
        moved[0] = CARD_MAKE(p->found[m->src], m->src);
        p->found[m->src]--;
        break;
    }
    switch (m->dst_kind) {
    case AT_COLUMN:
        for (k = 0; k < n; k++)
            p->col[m->dst][p->len[m->dst]++] = moved[k];
        break;
    case AT_CELL:
        p->cell[m->dst] = moved[0];
        break;
    default:
        p->found[m->dst]++;
        break;
    }
}

int fcs_moved_card(const fcs_pos *p, const fcs_move *m)
{
    switch (m->src_kind) {
    case AT_COLUMN:
        return p->col[m->src][p->len[m->src] - m->count];
    case AT_CELL:
        return p->cell[m->src];
    default:
        return CARD_MAKE(p->found[m->src], m->src);
    }
}

fcs_packed_move fcs_pack(const fcs_pos *p, const fcs_move *m)
{
    int card = fcs_moved_card(p, m);
    switch (m->dst_kind) {
    case AT_FOUNDATION:
        return PACK_MOVE(card, DEST_FOUNDATION, 0);
    case AT_CELL:
        return PACK_MOVE(card, DEST_CELL, 0);
    default:
        if (p->len[m->dst])
            return PACK_MOVE(card, DEST_ON_CARD, p->col[m->dst][p->len[m->dst] - 1]);
        return PACK_MOVE(card, DEST_EMPTY_COLUMN, 0);
    }
}

int fcs_unpack(const fcs_rules *r, const fcs_pos *p, fcs_packed_move pm, fcs_move *out)
{
    int card = PACKED_CARD(pm), kind = PACKED_KIND(pm), dest = PACKED_DEST(pm), i, j;

    out->src_kind = 255;
    for (i = 0; i < r->columns && out->src_kind == 255; i++)
        for (j = 0; j < p->len[i]; j++)
            if (p->col[i][j] == card) {
                out->src_kind = AT_COLUMN;
                out->src = (uint8_t)i;
                out->count = (uint8_t)(p->len[i] - j);
                break;
            }
    for (i = 0; i < r->cells && out->src_kind == 255; i++)
        if (p->cell[i] == card) {
            out->src_kind = AT_CELL;
            out->src = (uint8_t)i;
            out->count = 1;
        }
    if (out->src_kind == 255) {
        if (p->found[CARD_SUIT(card)] != CARD_RANK(card))
            return 0;
        out->src_kind = AT_FOUNDATION;
        out->src = (uint8_t)CARD_SUIT(card);
        out->count = 1;
    }
    switch (kind) {
    case DEST_FOUNDATION:
        out->dst_kind = AT_FOUNDATION;
        out->dst = (uint8_t)CARD_SUIT(card);
        return 1;
    case DEST_CELL:
        out->dst_kind = AT_CELL;
        i = first_empty_cell(r, p);
        out->dst = (uint8_t)i;
        return i >= 0;
    case DEST_ON_CARD:
        out->dst_kind = AT_COLUMN;
        for (i = 0; i < r->columns; i++)
            if (p->len[i] && p->col[i][p->len[i] - 1] == dest) {
                out->dst = (uint8_t)i;
                return 1;
            }
        return 0;
    default:
        out->dst_kind = AT_COLUMN;
        i = first_empty_column(r, p);
        out->dst = (uint8_t)i;
        return i >= 0;
    }
}
