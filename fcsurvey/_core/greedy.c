/* The greedy search: best-first where children are scored but stored only
   when taken from the open list, so a typical deal stores about as many
   positions as its solution is long.  Most children send nothing home and
   change only the two ends of their move, so they are scored from the
   parent's per-column terms without being built; the others are built,
   autoplayed, and rescored where they changed.

   It keeps the positions it expanded last, with their columns coded and
   profiled, since their children are what it mostly takes next, to spare
   decoding and coding them again, and profiling again the columns a move
   leaves as they were.  On the heap: at about 1.5 MB it is too big for a
   thread stack. */
#include <stdlib.h>

#include "phase.h"
#include "solution.h"
#include "tuning.h"

typedef struct {
    fcs_pos pos;
    column_code codes[FCS_MAX_COLS];
    column_profile prof[FCS_MAX_COLS];
} recent_entry;

/* The slots' positions apart from their contents, so that a search clears
   4 KB as it starts, not a word in each of 1024 entries of 1.5 KB. */
struct greedy_cache {
    uint32_t idx[RECENT_SLOTS]; /* the stored position each slot holds, or NO_PARENT */
    recent_entry slot[RECENT_SLOTS];
};

greedy_cache *greedy_cache_new(void)
{
    return malloc(sizeof(greedy_cache));
}

void greedy_cache_free(greedy_cache *cache)
{
    free(cache);
}

/* The parent of the entry the search takes next, and that entry's position. */
typedef struct {
    const fcs_pos *par;             /* the position `cached` stands for, canonical */
    const column_code *par_codes;   /* its columns coded */
    const column_profile *par_prof; /* and profiled, when it was expanded here */
    uint32_t cached;
    fcs_pos decoded, p;
    column_code decoded_codes[FCS_MAX_COLS], codes[FCS_MAX_COLS];
} greedy_view;

/* Build in g->p (its columns coded in g->codes) the position entry e stands
   for: the root, or the child of a stored position by e's move, taken from
   the cache when it is there. */
static inline void take_entry(const fcs_search *s, greedy_view *g, const fcs_pos *root, const open_entry *e,
                              fcs_move *m)
{
    const fcs_rules *r = s->codec->r;
    if (e->move == NO_MOVE) {
        g->par_prof = NULL;
        g->p = *root;
        autoplay(r, &g->p, s->home_mode, NULL, NULL, NULL, NULL);
        key_code_columns(s->codec, &g->p, ALL_COLUMNS(r), g->codes);
        return;
    }
    if (g->cached != e->state) {
        recent_entry *hit = &s->cache->slot[e->state % RECENT_SLOTS];
        if (s->cache->idx[e->state % RECENT_SLOTS] == e->state) {
            g->par = &hit->pos;
            g->par_codes = hit->codes;
            g->par_prof = hit->prof;
        } else {
            g->par_prof = NULL;
            key_decode(s->codec, store_key(s->store, e->state), &g->decoded, g->decoded_codes);
            g->par = &g->decoded;
            g->par_codes = g->decoded_codes;
        }
        g->cached = e->state;
    }
    open_unpack_move(e->move, m);
    make_child(s->codec, s->home_mode, g->par, g->par_codes, m, &g->p, g->codes); /* children are never no-ops */
}

/* Position idx (g->p, laid out by `lay`) is to be expanded: put it in the
   cache canonical, with its columns coded and profiled, make it the parent
   of the entries to come, and sum its terms.  Children's moves name columns
   and cells of the canonical layout, the one this position has whenever it
   is decoded again.  It may take the slot of the parent, which is no longer
   needed once the columns the move left alone (same code, same foundations)
   have their profiles copied from it. */
static inline void expand_into_cache(const fcs_search *s, greedy_view *g, uint32_t idx, const key_layout *lay,
                                     column_profile *prof, parent_terms *t, uint8_t *runs)
{
    const fcs_rules *r = s->codec->r;
    const weights *w = s->w;
    int same_found = g->par_prof && memcmp(g->par->found, g->p.found, sizeof(g->p.found)) == 0, c;
    recent_entry *slot = &s->cache->slot[idx % RECENT_SLOTS];
    key_canonical(&g->p, lay, &slot->pos);
    for (c = 0; c < r->columns; c++) {
        if (c >= lay->columns)
            score_profile(r, w, NULL, 0, g->p.found, &prof[c]);
        else if (same_found && key_same_code(&g->codes[lay->order[c]], &g->par_codes[lay->order[c]]))
            prof[c] = g->par_prof[lay->order[c]];
        else
            score_profile(r, w, slot->pos.col[c], slot->pos.len[c], g->p.found, &prof[c]);
    }
    for (c = 0; c < r->columns; c++)
        slot->codes[c] = c < lay->columns ? g->codes[lay->order[c]] : EMPTY_CODE;
    memcpy(slot->prof, prof, (size_t)r->columns * sizeof(column_profile));
    s->cache->idx[idx % RECENT_SLOTS] = idx;
    g->par = &slot->pos;
    g->par_codes = slot->codes;
    g->par_prof = slot->prof;
    g->cached = idx;
    t->par = &slot->pos;
    t->prof = prof;
    t->shape_sum = t->buried_sum = 0;
    for (c = 0; c < r->columns; c++) {
        t->shape_sum += prof[c].shape;
        t->buried_sum += prof[c].buried;
        runs[c] = (uint8_t)(t->par->len[c] - prof[c].last_break); /* the run above the last break */
    }
    t->used = score_cells_used(r, t->par);
    t->empty = fcs_empty_columns(r, t->par);
    t->depth_cost = (uint32_t)(w->depth * (s->store->depth[idx] + 1));
}

/* Score the children of stored position idx (g->par) and push them; -1 when
   they are all pushed, else the search's outcome (a win or a limit). */
static inline int push_children(fcs_search *s, const parent_terms *g, uint32_t idx, const uint8_t *runs,
                                fcs_result *res)
{
    const fcs_rules *r = s->codec->r;
    const weights *w = s->w;
    const int mode = s->home_mode;
    fcs_open *open = s->open;
    fcs_move moves[FCS_MAX_MOVES];
    fcs_pos child;
    uint32_t priority[OPEN_ORDERS];
    int i, n = fcs_moves(r, g->par, s->moves, runs, moves);
    for (i = 0; i < n; i++) {
        const fcs_move *m = &moves[i];
        if (fcs_is_noop(g->par, m))
            continue;
        if (!reaches_home(g->par, m)) {
            priority[ORDER_SCORE] = score_unbuilt(r, w, g, m);
        } else {
            unsigned touched = 0;
            int home;
            fcs_copy_pos(&child, g->par, r->columns);
            fcs_apply(&child, m);
            home = autoplay(r, &child, mode, NULL, NULL, NULL, &touched);
            if (fcs_is_won(&child)) {
                fcs_packed_move last = fcs_pack(g->par, m);
                solution_from_store(s->codec, mode, s->store, idx, &last, res);
                return PHASE_DONE;
            }
            priority[ORDER_SCORE] = score_built(r, w, g, m, &child, home, touched);
        }
        priority[ORDER_DEPTH] = priority[ORDER_SCORE] + g->depth_cost;
        if (!open_push(open, priority, idx, open_pack_move(m))) {
            s->limit = FCS_LIMIT_MEMORY;
            return PHASE_DONE;
        }
    }
    return -1;
}

int greedy_search(fcs_search *s, const fcs_pos *root, int orders, uint32_t budget, fcs_result *res)
{
    static const uint32_t zero[OPEN_ORDERS] = {0};
    uint64_t key[KEY_WORDS_MAX + 1];
    greedy_view g;
    parent_terms terms;
    column_profile prof[FCS_MAX_COLS];
    key_layout lay;
    uint8_t runs[FCS_MAX_COLS];
    uint32_t pops = 0, i;
    int is_new, outcome;

    g.par = NULL;
    g.par_codes = NULL;
    g.par_prof = NULL;
    g.cached = NO_PARENT;
    for (i = 0; i < RECENT_SLOTS; i++)
        s->cache->idx[i] = NO_PARENT;
    open_clear(s->open, orders);
    if (!open_push(s->open, zero, NO_PARENT, NO_MOVE)) {
        s->limit = FCS_LIMIT_MEMORY;
        return PHASE_DONE;
    }
    while (s->open->n) {
        open_entry e = open_pop(s->open);
        fcs_move m = {0, 0, 0, 0, 0};
        uint32_t idx;
        if (s->deadline && (++pops % TIME_CHECK_EVERY) == 0 && fcs_now_s() > s->deadline) {
            s->limit = FCS_LIMIT_TIME;
            return PHASE_DONE;
        }
        take_entry(s, &g, root, &e, &m);
        key_encode_coded(s->codec, &g.p, g.codes, key, &lay, NULL);
        idx = store_find_or_add(s->store, key, &is_new);
        if (idx == NO_PARENT) {
            s->limit = s->store->limit;
            return PHASE_DONE;
        }
        if (!is_new) {
            if (e.move != NO_MOVE && s->store->depth[e.state] + 1 < s->store->depth[idx])
                store_record(s->store, idx, e.state, g.par, &m); /* shorter way in: see complete.c */
            continue;
        }
        store_record(s->store, idx, e.move == NO_MOVE ? NO_PARENT : e.state, g.par, &m);
        if (s->store->n >= budget)
            return PHASE_GAVE_UP;
        expand_into_cache(s, &g, idx, &lay, prof, &terms, runs);
        (*s->expanded)++;
        if ((outcome = push_children(s, &terms, idx, runs, res)) >= 0)
            return outcome;
    }
    /* Every position reached: a proof, unless eager autoplay or a narrowed move set
       (the greedy flags, position.h) cut corners. */
    if (s->home_mode != HOME_SAFE || s->moves != 0)
        return PHASE_GAVE_UP;
    res->status = FCS_UNSOLVABLE;
    return PHASE_DONE;
}
