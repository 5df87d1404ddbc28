/* The beam search (shorten.h).  A level keeps its positions whole; a child
   is scored from its parent's column profiles, built only when it may send
   a card home, and built (again) when it is kept, which costs less than
   keeping every child whole.  Each kept position remembers its parent and
   move, level by level, for the line. */
#include <stdlib.h>

#include "clock.h"
#include "score.h"
#include "search.h"
#include "shorten.h"
#include "solution.h"
#include "tuning.h"

/* A child scored for the next level: its parent in this level and its move. */
typedef struct {
    uint32_t parent;
    uint32_t score;
    fcs_move move;
} beam_child;

/* The positions kept so far, by hash (open addressing; 0 is empty). */
typedef struct {
    uint64_t *slot;
    uint64_t mask;
    uint64_t n; /* hashes added: positions kept, less any two that share a hash */
} beam_seen;

/* Add h; 0 when it was there. */
static int seen_add(beam_seen *s, uint64_t h)
{
    uint64_t i = h & s->mask;
    h |= 1;
    while (s->slot[i]) {
        if (s->slot[i] == h)
            return 0;
        i = (i + 1) & s->mask;
    }
    s->slot[i] = h;
    s->n++;
    return 1;
}

/* What one beam search holds: two levels of positions, the children of the
   current one, and every level's parents and moves. */
typedef struct {
    const fcs_rules *r;
    const weights *w;
    int width, max_steps;
    fcs_pos *level, *next;
    int level_n;
    beam_child *kids;
    uint32_t *order; /* the children by score */
    size_t kids_n, kids_alloc;
    uint32_t *parent;       /* [step * width + k]: position k of level step+1 came from parent[...] ... */
    fcs_packed_move *moves; /* ... of level step by this move */
    beam_seen seen;
    uint32_t counts[BEAM_SCORES];
} beam;

/* The line to position k of level `steps`, then `last`. */
static fcs_packed_move *beam_line(const beam *b, int steps, uint32_t k, fcs_packed_move last)
{
    fcs_packed_move *line = malloc((size_t)(steps + 1) * sizeof(fcs_packed_move));
    int s;
    if (!line)
        return NULL;
    line[steps] = last;
    for (s = steps - 1; s >= 0; s--) {
        line[s] = b->moves[(size_t)s * b->width + k];
        k = b->parent[(size_t)s * b->width + k];
    }
    return line;
}

/* The terms of p that score its children without building most of them
   (score.h), and the runs above its columns' last breaks, which the move
   generator reads. */
static void beam_parent(const fcs_rules *r, const weights *w, const fcs_pos *p, column_profile *prof,
                        parent_terms *t, uint8_t *runs)
{
    int c;
    t->par = p;
    t->prof = prof;
    t->shape_sum = t->buried_sum = 0;
    for (c = 0; c < r->columns; c++) {
        score_profile(r, w, p->col[c], p->len[c], p->found, &prof[c]);
        t->shape_sum += prof[c].shape;
        t->buried_sum += prof[c].buried;
        runs[c] = (uint8_t)(p->len[c] - prof[c].last_break);
    }
    t->used = score_cells_used(r, p);
    t->empty = fcs_empty_columns(r, p);
    t->depth_cost = 0;
}

/* Score the children of the level; a won one ends the search (*won). */
static int beam_children(beam *b, int step, fcs_packed_move **won, int *steps)
{
    const fcs_rules *r = b->r;
    int k, i;
    b->kids_n = 0;
    memset(b->counts, 0, sizeof(b->counts));
    for (k = 0; k < b->level_n; k++) {
        fcs_move moves[FCS_MAX_MOVES];
        const fcs_pos *p = &b->level[k];
        column_profile prof[FCS_MAX_COLS];
        parent_terms t;
        uint8_t runs[FCS_MAX_COLS];
        int n;
        beam_parent(r, b->w, p, prof, &t, runs);
        n = fcs_moves(r, p, FCS_MOVES_GREEDY, runs, moves);
        if (b->kids_n + (size_t)n > b->kids_alloc) {
            size_t alloc = 2 * (b->kids_n + (size_t)n);
            beam_child *more = realloc(b->kids, alloc * sizeof(beam_child));
            uint32_t *order = more ? realloc(b->order, alloc * sizeof(uint32_t)) : NULL;
            if (more)
                b->kids = more;
            if (!order)
                return 0;
            b->order = order;
            b->kids_alloc = alloc;
        }
        for (i = 0; i < n; i++) {
            const fcs_move *m = &moves[i];
            uint32_t score;
            if (fcs_is_noop(p, m))
                continue;
            if (!reaches_home(p, m)) {
                score = score_unbuilt(r, b->w, &t, m);
            } else {
                fcs_pos child;
                unsigned touched = 0;
                int home;
                fcs_copy_pos(&child, p, r->columns);
                fcs_apply(&child, m);
                home = autoplay(r, &child, HOME_EAGER, NULL, NULL, NULL, &touched);
                if (fcs_is_won(&child)) {
                    *won = beam_line(b, step, (uint32_t)k, fcs_pack(p, m));
                    *steps = step + 1;
                    return 0;
                }
                score = score_built(r, b->w, &t, m, &child, home, touched);
            }
            if (score >= BEAM_SCORES)
                score = BEAM_SCORES - 1;
            b->counts[score]++;
            b->kids[b->kids_n++] = (beam_child){(uint32_t)k, score, *m};
        }
    }
    return b->kids_n > 0;
}

/* Keep the `width` best children, each position once, as the next level:
   the children sorted by score (a counting sort: scores are small), taken
   in that order, ties in the order they came.  They are built BEAM_BATCH at
   a time into the next free places, their slots in the table of positions
   seen fetched from memory together, and then looked up in order: a child
   seen before gives its place to the next one. */
static void beam_keep(beam *b, int step)
{
    uint32_t s, at = 0;
    size_t i = 0;
    int n = 0;
    for (s = 0; s < BEAM_SCORES; s++) {
        uint32_t here = b->counts[s];
        b->counts[s] = at;
        at += here;
    }
    for (i = 0; i < b->kids_n; i++)
        b->order[b->counts[b->kids[i].score]++] = (uint32_t)i;
    i = 0;
    while (i < b->kids_n && n < b->width) {
        uint64_t hash[BEAM_BATCH];
        const beam_child *from[BEAM_BATCH];
        int base = n, got = 0, j;
        for (; i < b->kids_n && got < BEAM_BATCH && base + got < b->width; i++, got++) {
            const beam_child *c = from[got] = &b->kids[b->order[i]];
            fcs_pos *child = &b->next[base + got];
            fcs_copy_pos(child, &b->level[c->parent], b->r->columns);
            fcs_apply(child, &c->move);
            autoplay(b->r, child, HOME_EAGER, NULL, NULL, NULL, NULL);
            hash[got] = order_free_hash(b->r, child);
            __builtin_prefetch(&b->seen.slot[hash[got] & b->seen.mask]);
        }
        for (j = 0; j < got; j++) {
            const beam_child *c = from[j];
            if (!seen_add(&b->seen, hash[j]))
                continue;
            if (n < base + j)
                fcs_copy_pos(&b->next[n], &b->next[base + j], b->r->columns);
            b->parent[(size_t)step * b->width + n] = c->parent;
            b->moves[(size_t)step * b->width + n] = fcs_pack(&b->level[c->parent], &c->move);
            n++;
        }
    }
    {
        fcs_pos *t = b->level;
        b->level = b->next;
        b->next = t;
    }
    b->level_n = n;
}

fcs_packed_move *beam_search(const fcs_rules *r, const weights *w, const fcs_pos *start, int width, int max_steps,
                             int *steps, uint64_t *kept)
{
    beam b;
    fcs_packed_move *won = NULL;
    uint64_t slots = 1;
    int step;
    memset(&b, 0, sizeof(b));
    b.r = r;
    b.w = w;
    b.width = width;
    b.max_steps = max_steps;
    while (slots < 2u * (uint64_t)width * (uint64_t)(max_steps + 1))
        slots <<= 1;
    b.seen.mask = slots - 1;
    b.seen.slot = calloc(slots, sizeof(uint64_t));
    b.level = malloc((size_t)width * sizeof(fcs_pos));
    b.next = malloc((size_t)width * sizeof(fcs_pos));
    b.parent = malloc((size_t)width * (size_t)max_steps * sizeof(uint32_t));
    b.moves = malloc((size_t)width * (size_t)max_steps * sizeof(fcs_packed_move));
    if (b.seen.slot && b.level && b.next && b.parent && b.moves) {
        b.level[0] = *start;
        autoplay(r, &b.level[0], HOME_EAGER, NULL, NULL, NULL, NULL);
        b.level_n = 1;
        seen_add(&b.seen, order_free_hash(r, &b.level[0]));
        if (fcs_is_won(&b.level[0])) {
            won = malloc(sizeof(fcs_packed_move));
            *steps = 0;
        }
        for (step = 0; !won && step < max_steps && beam_children(&b, step, &won, steps); step++)
            if (step + 1 < max_steps)
                beam_keep(&b, step);
            else
                break;
    }
    if (kept)
        *kept = b.seen.n;
    free(b.seen.slot);
    free(b.level);
    free(b.next);
    free(b.parent);
    free(b.moves);
    free(b.kids);
    free(b.order);
    return won;
}

/* The beam's line from start, shortened and written into `out`; 0 when the
   beam found none within max_steps. */
static int beam_solution(const fcs_rules *r, const weights *w, const fcs_pos *start, int max_steps,
                         fcs_result *out, uint64_t *kept)
{
    int steps = 0, ok;
    fcs_packed_move *line = beam_search(r, w, start, SHORT_BEAM_WIDTH, max_steps, &steps, kept);
    if (!line)
        return 0;
    steps = shorten_line(r, HOME_EAGER, start, line, steps, SHORT_SHORTCUT_DEPTH);
    memset(out, 0, sizeof(*out));
    ok = solution_emit(r, start, HOME_EAGER, line, steps, out);
    free(line);
    return ok;
}

void fcs_short(const fcs_rules *r, const fcs_pos *start, fcs_result *res)
{
    fcs_result beamed;
    /* A beam's line writes one token a level (eager autoplay leaves no move
       home to make) and one for each card not home at the start: it can be
       shorter only within this many levels. */
    int levels = res->moves - (FCS_CARDS - start->found[0] - start->found[1] - start->found[2] - start->found[3]);
    double t0;
    int found;
    if (res->status != FCS_SOLVED || levels < 1)
        return;
    t0 = fcs_now_s();
    found = beam_solution(r, &BEAM_WEIGHTS, start, levels, &beamed, &res->line[FCS_LINE_BEAM].states);
    res->line[FCS_LINE_BEAM].time_s = fcs_now_s() - t0;
    if (!found)
        return;
    if (beamed.moves < res->moves) {
        free(res->solution);
        res->solution = beamed.solution;
        res->moves = beamed.moves;
        res->atomic_moves = beamed.atomic_moves;
    } else {
        free(beamed.solution);
    }
}
