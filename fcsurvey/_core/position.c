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

/* Safe autoplay.  Let K be the cards that could ever lie above a card X of
   rank r: those that build on X, those that build on them, and so on.  When
   every card of K is home, sending X home loses nothing: delete from any win
   every move of X and of K's cards (with foundation return, their trips down
   and back too); every other card's sources, targets and foundation tops are
   as the win had them and the free space is no less, so the edited line wins
   and is no longer (docs/solver.md gives the argument in full).  With
   foundation return K is closed: opposite-colour r-1, same-colour r-2, ...
   (any suit: every rank below r).  Without it a home card never comes back,
   so the cards that build on X directly are enough.  Aces and twos are always
   safe: only aces could go on them, and an ace can always go home directly.
   With same-suit building only X's own predecessor builds on X, home already.

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

void fcs_run_lengths(const fcs_rules *r, const fcs_pos *p, uint8_t runs[FCS_MAX_COLS])
{
    int i;
    for (i = 0; i < r->columns; i++)
        runs[i] = (uint8_t)fcs_run_length(r, p, i);
}

int fcs_legal_moves(const fcs_rules *r, const fcs_pos *p, unsigned flags, fcs_move *out)
{
    uint8_t runs[FCS_MAX_COLS];
    int i;
    /* Moving single cards, and not skipping built runs, the moves read of a
       run only whether it has a card: its length then need not be found. */
    if ((flags & (FCS_MOVES_SINGLE | FCS_MOVES_SKIP_BUILT)) == FCS_MOVES_SINGLE)
        for (i = 0; i < r->columns; i++)
            runs[i] = p->len[i] != 0;
    else
        fcs_run_lengths(r, p, runs);
    return fcs_moves(r, p, flags, runs, out);
}

/* What the move generator reads of a position.  The column tops, lengths
   and cells are copied here first: stores into `out` (bytes) could alias
   the position, and would otherwise force the compiler to reload it after
   every move written. */
typedef struct {
    fcs_rules rules;
    unsigned flags;
    const uint8_t *runs;
    uint8_t top[FCS_MAX_COLS], rank[FCS_MAX_COLS], len[FCS_MAX_COLS], cell[FCS_MAX_CELLS], found[FCS_NUM_SUITS];
    unsigned with_rank[FCS_RANKS + 1]; /* columns whose top card has this rank */
    int cell0, col0;                   /* the first empty cell and column, -1 if none */
    int cap_full, cap_empty;           /* most cards a move carries onto a card, into an empty column */
    int skip_built, keep_empty;
} move_scan;

static inline void scan(const fcs_rules *r, const fcs_pos *p, unsigned flags, const uint8_t *runs, move_scan *ms)
{
    int i, empty_cells = 0, empty_columns = 0, single_only = (flags & FCS_MOVES_SINGLE) != 0;
    ms->rules = *r;
    ms->flags = flags;
    ms->runs = runs;
    ms->cell0 = ms->col0 = -1;
    memset(ms->with_rank, 0, sizeof(ms->with_rank));
    for (i = 0; i < r->cells; i++) {
        ms->cell[i] = p->cell[i];
        if (!ms->cell[i]) {
            empty_cells++;
            if (ms->cell0 < 0)
                ms->cell0 = i;
        }
    }
    for (i = 0; i < r->columns; i++) {
        ms->len[i] = p->len[i];
        ms->top[i] = ms->len[i] ? p->col[i][ms->len[i] - 1] : 0;
        ms->rank[i] = ms->top[i] ? (uint8_t)CARD_RANK(ms->top[i]) : 0;
        ms->with_rank[ms->rank[i]] |= 1u << i;
        if (!ms->len[i]) {
            empty_columns++;
            if (ms->col0 < 0)
                ms->col0 = i;
        }
    }
    memcpy(ms->found, p->found, sizeof(ms->found));
    ms->cap_full = single_only ? 1 : capacity(r, empty_cells, empty_columns, 0);
    /* only with an empty column */
    ms->cap_empty = single_only || ms->col0 < 0 ? 1 : capacity(r, empty_cells, empty_columns, 1);
    ms->skip_built = (flags & FCS_MOVES_SKIP_BUILT) != 0;
    ms->keep_empty = (flags & FCS_MOVES_KEEP_EMPTY) && ms->cell0 >= 0 && ms->cap_empty > 1;
}

/* Cells and column tops to the foundations, then cells to columns. */
static inline int moves_from_cells(const move_scan *ms, fcs_move *out, int n)
{
    int i, j;
    for (i = 0; i < ms->rules.cells; i++)
        if (ms->cell[i] && ms->found[CARD_SUIT(ms->cell[i])] + 1 == CARD_RANK(ms->cell[i]))
            out[n++] = make_move(AT_CELL, i, AT_FOUNDATION, CARD_SUIT(ms->cell[i]), 1);
    for (i = 0; i < ms->rules.columns; i++)
        if (ms->top[i] && ms->found[CARD_SUIT(ms->top[i])] + 1 == CARD_RANK(ms->top[i]) &&
            !(ms->skip_built && ms->runs[i] > 1))
            out[n++] = make_move(AT_COLUMN, i, AT_FOUNDATION, CARD_SUIT(ms->top[i]), 1);
    for (i = 0; i < ms->rules.cells; i++) {
        int c = ms->cell[i];
        unsigned reach;
        if (!c)
            continue;
        /* Only tops one rank above can take it (in column order). */
        for (reach = CARD_RANK(c) < FCS_RANKS ? ms->with_rank[CARD_RANK(c) + 1] : 0; reach; reach &= reach - 1) {
            j = __builtin_ctz(reach);
            if (fcs_can_build(&ms->rules, ms->top[j], c))
                out[n++] = make_move(AT_CELL, i, AT_COLUMN, j, 1);
        }
        if (ms->col0 >= 0 && accepts_empty(&ms->rules, c))
            out[n++] = make_move(AT_CELL, i, AT_COLUMN, ms->col0, 1);
    }
    return n;
}

/* Column i's run, or part of it, to other columns. */
static inline int moves_from_column(const move_scan *ms, const uint8_t *col, int i, fcs_move *out, int n)
{
    int run = ms->runs[i], most = run < ms->cap_full ? run : ms->cap_full, above, j, k;
    unsigned reach = 0;
    /* k cards must move for the run to land on a top k ranks above
       column i's, so only columns with such tops can take part of it
       (in column order, as a scan of every column would find them).
       Below the whole run, each card of the run is built on the next. */
    for (above = ms->skip_built ? ms->rank[i] + run : ms->rank[i] + 1;
         above <= ms->rank[i] + most && above <= FCS_RANKS; above++)
        reach |= ms->with_rank[above];
    for (; reach; reach &= reach - 1) {
        j = __builtin_ctz(reach);
        k = ms->rank[j] - ms->rank[i];
        if (fcs_can_build(&ms->rules, ms->top[j], col[ms->len[i] - k]))
            out[n++] = make_move(AT_COLUMN, i, AT_COLUMN, j, k);
    }
    if (ms->col0 >= 0) {
        most = run < ms->cap_empty ? run : ms->cap_empty;
        for (k = ms->keep_empty && ms->rank[i] != FCS_RANKS ? 2 : 1; k <= most; k++)
            if (accepts_empty(&ms->rules, col[ms->len[i] - k]))
                out[n++] = make_move(AT_COLUMN, i, AT_COLUMN, ms->col0, k);
    }
    return n;
}

/* Column tops to a cell. */
static inline int moves_to_cell(const move_scan *ms, fcs_move *out, int n)
{
    int i;
    for (i = 0; i < ms->rules.columns; i++) {
        unsigned reach = 0;
        if (!ms->top[i] || (ms->skip_built && ms->runs[i] > 1) ||
            ((ms->flags & FCS_MOVES_KEEP_KING) && ms->len[i] == 1 && ms->rank[i] == FCS_RANKS))
            continue;
        if ((ms->flags & FCS_MOVES_PREFER_COLUMN) && ms->rank[i] < FCS_RANKS)
            for (reach = ms->with_rank[ms->rank[i] + 1]; reach; reach &= reach - 1)
                if (fcs_can_build(&ms->rules, ms->top[__builtin_ctz(reach)], ms->top[i]))
                    break;
        if (!reach)
            out[n++] = make_move(AT_COLUMN, i, AT_CELL, ms->cell0, 1);
    }
    return n;
}

/* Back down from the foundations. */
static inline int moves_from_home(const move_scan *ms, fcs_move *out, int n)
{
    int s, j;
    for (s = 0; s < FCS_NUM_SUITS; s++) {
        int c;
        if (!ms->found[s])
            continue;
        c = CARD_MAKE(ms->found[s], s);
        for (j = 0; j < ms->rules.columns; j++)
            if (ms->top[j] && fcs_can_build(&ms->rules, ms->top[j], c))
                out[n++] = make_move(AT_FOUNDATION, s, AT_COLUMN, j, 1);
        if (ms->col0 >= 0 && accepts_empty(&ms->rules, c))
            out[n++] = make_move(AT_FOUNDATION, s, AT_COLUMN, ms->col0, 1);
        if (ms->cell0 >= 0)
            out[n++] = make_move(AT_FOUNDATION, s, AT_CELL, ms->cell0, 1);
    }
    return n;
}

int fcs_moves(const fcs_rules *r, const fcs_pos *p, unsigned flags, const uint8_t *runs, fcs_move *out)
{
    move_scan ms;
    int n, i;
    scan(r, p, flags, runs, &ms);
    n = moves_from_cells(&ms, out, 0);
    for (i = 0; i < r->columns; i++)
        if (ms.len[i])
            n = moves_from_column(&ms, p->col[i], i, out, n);
    if (ms.cell0 >= 0)
        n = moves_to_cell(&ms, out, n);
    if (ms.rules.foundation_return)
        n = moves_from_home(&ms, out, n);
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
    /* Most moves take a column's top card or a cell's (each card lies in
       one place, so looking there first finds what the full scan of the
       columns below would). */
    for (i = 0; i < r->columns && out->src_kind == 255; i++)
        if (p->len[i] && p->col[i][p->len[i] - 1] == card) {
            out->src_kind = AT_COLUMN;
            out->src = (uint8_t)i;
            out->count = 1;
        }
    for (i = 0; i < r->cells && out->src_kind == 255; i++)
        if (p->cell[i] == card) {
            out->src_kind = AT_CELL;
            out->src = (uint8_t)i;
            out->count = 1;
        }
    for (i = 0; i < r->columns && out->src_kind == 255; i++)
        for (j = 0; j < p->len[i] - 1; j++)
            if (p->col[i][j] == card) {
                out->src_kind = AT_COLUMN;
                out->src = (uint8_t)i;
                out->count = (uint8_t)(p->len[i] - j);
                break;
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
