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
    int width, max_steps;
    fcs_pos *level, *next;
    int level_n;
    beam_child *kids;
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

/* Score the children of the level; a won one ends the search (*won). */
static int beam_children(beam *b, int step, fcs_packed_move **won, int *steps)
{
    int k, i;
    b->kids_n = 0;
    memset(b->counts, 0, sizeof(b->counts));
    for (k = 0; k < b->level_n; k++) {
        fcs_move moves[FCS_MAX_MOVES];
        const fcs_pos *p = &b->level[k];
        int n = fcs_legal_moves(b->r, p, FCS_MOVES_GREEDY, moves);
        if (b->kids_n + (size_t)n > b->kids_alloc) {
            size_t alloc = 2 * (b->kids_n + (size_t)n);
            beam_child *more = realloc(b->kids, alloc * sizeof(beam_child));
            if (!more)
                return 0;
            b->kids = more;
            b->kids_alloc = alloc;
        }
        for (i = 0; i < n; i++) {
            fcs_pos child;
            uint32_t score;
            if (fcs_is_noop(p, &moves[i]))
                continue;
            fcs_copy_pos(&child, p, b->r->columns);
            fcs_apply(&child, &moves[i]);
            autoplay(b->r, &child, HOME_EAGER, NULL, NULL, NULL, NULL);
            if (fcs_is_won(&child)) {
                *won = beam_line(b, step, (uint32_t)k, fcs_pack(p, &moves[i]));
                *steps = step + 1;
                return 0;
            }
            score = score_position(b->r, &COMPLETE_WEIGHTS, &child);
            if (score >= BEAM_SCORES)
                score = BEAM_SCORES - 1;
            b->counts[score]++;
            b->kids[b->kids_n++] = (beam_child){(uint32_t)k, score, moves[i]};
        }
    }
    return b->kids_n > 0;
}

/* Keep the `width` best children, each position once, as the next level. */
static void beam_keep(beam *b, int step)
{
    uint32_t taken = 0, cut = 0, at_cut = 0;
    size_t i;
    int n = 0;
    while (cut < BEAM_SCORES - 1 && taken + b->counts[cut] < (uint32_t)b->width)
        taken += b->counts[cut++];
    at_cut = (uint32_t)b->width - taken; /* children scored `cut` it may take */
    for (i = 0; i < b->kids_n && n < b->width; i++) {
        const beam_child *c = &b->kids[i];
        fcs_pos *child = &b->next[n];
        if (c->score > cut || (c->score == cut && !at_cut))
            continue;
        fcs_copy_pos(child, &b->level[c->parent], b->r->columns);
        fcs_apply(child, &c->move);
        autoplay(b->r, child, HOME_EAGER, NULL, NULL, NULL, NULL);
        if (!seen_add(&b->seen, order_free_hash(b->r, child)))
            continue;
        if (c->score == cut)
            at_cut--;
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

fcs_packed_move *beam_search(const fcs_rules *r, const fcs_pos *start, int width, int max_steps, int *steps)
{
    beam b;
    fcs_packed_move *won = NULL;
    uint64_t slots = 1;
    int step;
    memset(&b, 0, sizeof(b));
    b.r = r;
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
    return won;
}

void fcs_short(const fcs_rules *r, const fcs_pos *start, fcs_result *res)
{
    fcs_result beamed;
    int steps = 0;
    fcs_packed_move *line;
    if (res->status != FCS_SOLVED)
        return;
    line = beam_search(r, start, SHORT_BEAM_WIDTH, res->moves, &steps);
    if (!line)
        return;
    steps = shorten_line(r, HOME_EAGER, start, line, steps, SHORT_SHORTCUT_DEPTH);
    memset(&beamed, 0, sizeof(beamed));
    if (solution_emit(r, start, HOME_EAGER, line, steps, &beamed)) {
        if (beamed.moves < res->moves) {
            free(res->solution);
            res->solution = beamed.solution;
            res->moves = beamed.moves;
            res->atomic_moves = beamed.atomic_moves;
        } else {
            free(beamed.solution);
        }
    }
    free(line);
}
