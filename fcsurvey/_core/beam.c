/* The beam search (shorten.h).  A level keeps its positions whole; a child
   is built once to be scored and again if it is kept, which costs less than
   keeping every child whole.  Each kept position remembers its parent and
   move, level by level, for the line. */
#include <stdlib.h>

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

/* The score of `child`, made from p by m, `home` cards then going home from
   the columns `touched` marks: only the columns that changed are scored
   again (p's by column in shape[] and buried[]), and every column's buried
   term when a card went home. */
static uint32_t child_score(const fcs_rules *r, const weights *w, const fcs_pos *child, const fcs_move *m, int home, unsigned touched,
                            const int *shape, const int *buried, int shape_sum, int buried_sum)
{
    unsigned t;
    int c;
    touched |= fcs_move_columns(m);
    for (t = touched; t; t &= t - 1) {
        c = __builtin_ctz(t);
        shape_sum += score_column(r, w, child->col[c], child->len[c]) - shape[c];
    }
    if (home || m->dst_kind == AT_FOUNDATION || m->src_kind == AT_FOUNDATION) {
        buried_sum = 0;
        for (c = 0; c < r->columns; c++)
            buried_sum += score_buried(child->col[c], child->len[c], child->found);
    } else {
        for (t = touched; t; t &= t - 1) {
            c = __builtin_ctz(t);
            buried_sum += score_buried(child->col[c], child->len[c], child->found) - buried[c];
        }
    }
    return score_combine(r, w, child, shape_sum, buried_sum, score_cells_used(r, child),
                         fcs_empty_columns(r, child));
}

/* Score the children of the level; a won one ends the search (*won). */
static int beam_children(beam *b, int step, fcs_packed_move **won, int *steps)
{
    const fcs_rules *r = b->r;
    int k, i, c;
    b->kids_n = 0;
    memset(b->counts, 0, sizeof(b->counts));
    for (k = 0; k < b->level_n; k++) {
        fcs_move moves[FCS_MAX_MOVES];
        const fcs_pos *p = &b->level[k];
        int n = fcs_legal_moves(r, p, FCS_MOVES_GREEDY, moves);
        int shape[FCS_MAX_COLS], buried[FCS_MAX_COLS], shape_sum = 0, buried_sum = 0;
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
        for (c = 0; c < r->columns; c++) {
            shape_sum += shape[c] = score_column(r, b->w, p->col[c], p->len[c]);
            buried_sum += buried[c] = score_buried(p->col[c], p->len[c], p->found);
        }
        for (i = 0; i < n; i++) {
            fcs_pos child;
            unsigned touched = 0;
            uint32_t score;
            int home;
            if (fcs_is_noop(p, &moves[i]))
                continue;
            fcs_copy_pos(&child, p, r->columns);
            fcs_apply(&child, &moves[i]);
            home = may_autoplay(&child, &moves[i]) ? autoplay(r, &child, HOME_EAGER, NULL, NULL, NULL, &touched) : 0;
            if (fcs_is_won(&child)) {
                *won = beam_line(b, step, (uint32_t)k, fcs_pack(p, &moves[i]));
                *steps = step + 1;
                return 0;
            }
            score = child_score(r, b->w, &child, &moves[i], home, touched, shape, buried, shape_sum, buried_sum);
            if (score >= BEAM_SCORES)
                score = BEAM_SCORES - 1;
            b->counts[score]++;
            b->kids[b->kids_n++] = (beam_child){(uint32_t)k, score, moves[i]};
        }
    }
    return b->kids_n > 0;
}

/* Keep the `width` best children, each position once, as the next level:
   the children sorted by score (a counting sort: scores are small), taken
   in that order, ties in the order they came. */
static void beam_keep(beam *b, int step)
{
    uint32_t s, at = 0;
    size_t i;
    int n = 0;
    for (s = 0; s < BEAM_SCORES; s++) {
        uint32_t here = b->counts[s];
        b->counts[s] = at;
        at += here;
    }
    for (i = 0; i < b->kids_n; i++)
        b->order[b->counts[b->kids[i].score]++] = (uint32_t)i;
    for (i = 0; i < b->kids_n && n < b->width; i++) {
        const beam_child *c = &b->kids[b->order[i]];
        fcs_pos *child = &b->next[n];
        fcs_copy_pos(child, &b->level[c->parent], b->r->columns);
        fcs_apply(child, &c->move);
        autoplay(b->r, child, HOME_EAGER, NULL, NULL, NULL, NULL);
        if (!seen_add(&b->seen, order_free_hash(b->r, child)))
            continue;
        b->parent[(size_t)step * b->width + n] = c->parent;
        b->moves[(size_t)step * b->width + n] = fcs_pack(&b->level[c->parent], &c->move);
        n++;
    }
    {
        fcs_pos *t = b->level;
        b->level = b->next;
        b->next = t;
    }
    b->level_n = n;
}

fcs_packed_move *beam_search(const fcs_rules *r, const weights *w, const fcs_pos *start, int width, int max_steps,
                             int *steps)
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
                         fcs_result *out)
{
    int steps = 0, ok;
    fcs_packed_move *line = beam_search(r, w, start, SHORT_BEAM_WIDTH, max_steps, &steps);
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
    if (res->status != FCS_SOLVED || !beam_solution(r, &BEAM_WEIGHTS, start, res->moves, &beamed))
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
