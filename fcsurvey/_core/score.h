/* The heuristic that orders the searches (lower is better): a sum of
   per-column terms and a few global ones, so the greedy search can rescore a
   child by redoing only the columns a move touched.  Per column: cards lying
   above a lower card of their own suit (each must move off before that card
   goes home), cards not built on the card below, and being non-empty.
   Buried: cards above the next card each suit needs. */
#ifndef FCS_SCORE_H
#define FCS_SCORE_H

#include "position.h"
#include "tuning.h"

/* The weights of the terms: see WEIGHTS in tuning.h. */
typedef struct {
#define WEIGHT_FIELD(name, greedy, complete, beam) int name;
    WEIGHTS(WEIGHT_FIELD)
#undef WEIGHT_FIELD
} weights;

/* The weights in force, read by every search as it starts: the tuned ones of
   tuning.h unless set_weights (module.c) put others in place, which only
   experiments and the bands test do (FCSURVEY_WEIGHTS, fcsurvey/solver.py).
   No verdict depends on them, only how soon it comes. */
extern weights GREEDY_WEIGHTS;         /* the greedy tries', the interlude's and the last try's */
extern weights COMPLETE_WEIGHTS;       /* the complete search's */
extern const weights TUNED_GREEDY_WEIGHTS;   /* tuning.h's greedy weights */
extern const weights TUNED_COMPLETE_WEIGHTS; /* tuning.h's complete-search weights */
extern const weights BEAM_WEIGHTS;     /* --short's beam search's */

/* One column of an expanded position, read once so that a move that sends
   nothing home can be scored in a few steps: taking cards off the top
   leaves a prefix, whose terms are looked up, and putting a run on it (a
   run is built, so it adds no break, and its ranks fall, so its cards
   block only on cards already there) adds terms the run alone decides.
   score_column() and score_buried() are the definitions; the profile gives
   the same numbers. */
typedef struct {
    uint8_t blocked[FCS_MAX_COL_LEN + 1]; /* blocked cards among the first j */
    uint8_t breaks[FCS_MAX_COL_LEN + 1];  /* breaks among the first j */
    uint8_t lowest[FCS_NUM_SUITS];        /* lowest rank of each suit, 14 if none */
    uint8_t needed_at[FCS_NUM_SUITS];     /* where the cards the foundations need next lie */
    int first_break, last_break, needed;
    int shape, buried;                    /* the whole column's terms */
} column_profile;

/* A column's shape terms: blocked cards, breaks, being non-empty, and the
   cards above its first break. */
static inline int score_column(const fcs_rules *r, const weights *w, const uint8_t *col, int len)
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

/* The cards of a column above the cards the foundations need next. */
static inline int score_buried(const uint8_t *col, int len, const uint8_t *found)
{
    int j, buried = 0;
    for (j = 0; j < len - 1; j++)
        if (CARD_RANK(col[j]) == found[CARD_SUIT(col[j])] + 1)
            buried += len - 1 - j;
    return buried;
}

/* The score from the columns' terms and the global ones. */
static inline uint32_t score_combine(const fcs_rules *r, const weights *w, const fcs_pos *p, int shape, int buried,
                                     int used, int empty)
{
    int home = p->found[0] + p->found[1] + p->found[2] + p->found[3];
    if (used == r->cells && empty == 0)
        buried *= 2; /* no free space: digging out costs double */
    return (uint32_t)(w->not_home * (FCS_CARDS - home) + w->cell * used + w->cell_squared * used * used +
                      shape + w->buried * buried);
}

/* Cells in use. */
static inline int score_cells_used(const fcs_rules *r, const fcs_pos *p)
{
    return r->cells - fcs_empty_cells(r, p);
}

/* The score of a whole position. */
static inline uint32_t score_position(const fcs_rules *r, const weights *w, const fcs_pos *p)
{
    int shape = 0, buried = 0, i;
    for (i = 0; i < r->columns; i++) {
        shape += score_column(r, w, p->col[i], p->len[i]);
        buried += score_buried(p->col[i], p->len[i], p->found);
    }
    return score_combine(r, w, p, shape, buried, score_cells_used(r, p), fcs_empty_columns(r, p));
}

static inline void score_profile(const fcs_rules *r, const weights *w, const uint8_t *col, int len,
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

/* The shape terms of the column's first m cards. */
static inline int score_prefix_shape(const weights *w, const column_profile *cp, int m)
{
    int first = cp->first_break < m ? cp->first_break : 0;
    if (!m)
        return 0;
    return w->blocked * cp->blocked[m] + w->broken * cp->breaks[m] + w->column +
           w->not_well * (first ? m - first : 0);
}

/* The buried term of the column's first m cards. */
static inline int score_prefix_buried(const column_profile *cp, int m)
{
    int i, buried = 0;
    for (i = 0; i < cp->needed; i++)
        if (cp->needed_at[i] < m)
            buried += m - 1 - cp->needed_at[i];
    return buried;
}

/* The changes in the terms when the column of length len takes the k-card
   run `run` (bottom card first), which builds on its top when it has one. */
static inline void score_run(const weights *w, const column_profile *cp, int len, const uint8_t *run, int k,
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

/* The position being expanded and its terms, which score its children.  Kept
   apart from the rest of a search's view, whose parts go to calls, so that
   the compiler can keep these in registers across the calls of the
   children's loop (greedy.c, beam.c). */
typedef struct {
    const fcs_pos *par;
    const column_profile *prof;
    int shape_sum, buried_sum, used, empty;
    uint32_t depth_cost;
} parent_terms;

/* The score of the child of g->par by m, which sends nothing home: only the
   move's ends change, and the foundations do not. */
static inline uint32_t score_unbuilt(const fcs_rules *r, const weights *w, const parent_terms *g, const fcs_move *m)
{
    const fcs_pos *par = g->par;
    int src_col = m->src_kind == AT_COLUMN, dst_col = m->dst_kind == AT_COLUMN;
    int shape = g->shape_sum, buried = g->buried_sum;
    int used = g->used + (m->dst_kind == AT_CELL) - (m->src_kind == AT_CELL);
    int empty = g->empty + (src_col && par->len[m->src] == m->count) - (dst_col && !par->len[m->dst]);
    if (src_col) {
        const column_profile *cp = &g->prof[m->src];
        int rest = par->len[m->src] - m->count;
        shape += score_prefix_shape(w, cp, rest) - cp->shape;
        buried += score_prefix_buried(cp, rest) - cp->buried;
    }
    if (dst_col)
        score_run(w, &g->prof[m->dst], par->len[m->dst],
                  src_col ? &par->col[m->src][par->len[m->src] - m->count] : &par->cell[m->src], m->count,
                  par->found, &shape, &buried);
    return score_combine(r, w, par, shape, buried, used, empty);
}

/* The score of `child`, built from g->par by m and autoplayed, `home` cards
   having gone home from the columns `touched` marks: the columns that
   changed are scored again, and every column's buried term when a card
   went home. */
static inline uint32_t score_built(const fcs_rules *r, const weights *w, const parent_terms *g, const fcs_move *m,
                                   const fcs_pos *child, int home, unsigned touched)
{
    int shape = g->shape_sum, buried = g->buried_sum, c;
    unsigned t;
    touched |= fcs_move_columns(m);
    if (m->dst_kind == AT_FOUNDATION || m->src_kind == AT_FOUNDATION)
        home = 1;
    for (t = touched; t; t &= t - 1) {
        c = __builtin_ctz(t);
        shape += score_column(r, w, child->col[c], child->len[c]) - g->prof[c].shape;
    }
    if (home) {
        buried = 0;
        for (c = 0; c < r->columns; c++)
            buried += score_buried(child->col[c], child->len[c], child->found);
    } else {
        for (t = touched; t; t &= t - 1) {
            c = __builtin_ctz(t);
            buried += score_buried(child->col[c], child->len[c], child->found) - g->prof[c].buried;
        }
    }
    return score_combine(r, w, child, shape, buried, score_cells_used(r, child), fcs_empty_columns(r, child));
}

#endif
