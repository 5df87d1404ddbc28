/* The shortening pass over a won line (shorten.c), and the beam search that
   --short adds (beam.c): the searches find a line fast, not short, and many
   of its moves turn out needless once the whole line is known (a card
   parked in a cell on its way to a column it could have gone to straight
   away, or moved twice where once would do). */
#ifndef FCS_SHORTEN_H
#define FCS_SHORTEN_H

#include "position.h"
#include "score.h"

static inline uint64_t hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* A position's hash, the same whatever the order of its columns and cells
   (moves into an empty column or cell take the first one, so an edited line
   may lay the same position out in another order). */
static inline uint64_t order_free_hash(const fcs_rules *r, const fcs_pos *p)
{
    uint64_t h = hash_mix(((uint64_t)p->found[0] << 24) | ((uint64_t)p->found[1] << 16) |
                          ((uint64_t)p->found[2] << 8) | p->found[3]);
    int i, j;
    for (i = 0; i < r->cells; i++)
        if (p->cell[i])
            h += hash_mix(0x100u + p->cell[i]);
    for (i = 0; i < r->columns; i++) {
        uint64_t c = 0x9e3779b97f4a7c15ULL;
        if (!p->len[i])
            continue;
        for (j = 0; j < p->len[i]; j++)
            c = (c ^ p->col[i][j]) * 0x100000001b3ULL;
        h += hash_mix(c);
    }
    return h;
}

/* Shorten the line of `steps` packed moves that wins from `start` (as dealt:
   autoplay by `mode` runs first and after every move) in place; returns its
   new number of moves.  The line stays a legal, won line that writes fewer
   tokens, or is left as it was.  Besides the edits of single cards' moves,
   it looks for shortcuts (depth > 0): lines of at most `depth` moves (up to
   SHORTEN_DEPTH) from a position the line passes to one it passes later. */
int shorten_line(const fcs_rules *r, int mode, const fcs_pos *start, fcs_packed_move *path, int steps, int depth);

/* Beam search from `start` with eager autoplay: level by level, the `width`
   best children (by score with weights w) of the level before, each position
   once, until a child is won; every position of a level is as many moves
   from the start, so the first win is the shortest line the beam holds.
   Gives up past `max_steps` moves.  Returns the line's moves (malloc'd, its
   length in *steps), or NULL; *kept (when given) is the positions it kept. */
fcs_packed_move *beam_search(const fcs_rules *r, const weights *w, const fcs_pos *start, int width, int max_steps,
                             int *steps, uint64_t *kept);

#endif
