/* What the searches are given: the codec, a store and an open list of
   their own, the weights, autoplay mode and move flags, and the counter of
   positions expanded they share with every other phase.  The greedy search
   (greedy.c) and the complete search (complete.c) work on it; solve.c runs
   them in turn. */
#ifndef FCS_PHASE_H
#define FCS_PHASE_H

#include "clock.h"
#include "key.h"
#include "open.h"
#include "score.h"
#include "search.h"
#include "store.h"

/* How a search ends: with a verdict or a limit (res and limit say which),
   without either (it gave up: the next phase goes on), or paused. */
enum { PHASE_DONE, PHASE_GAVE_UP, PHASE_PAUSED };

typedef struct greedy_cache greedy_cache;

typedef struct {
    const fcs_codec *codec;
    fcs_store *store;
    fcs_open *open;
    greedy_cache *cache; /* the greedy search's (greedy_cache_new) */
    const weights *w;
    int home_mode;      /* HOME_SAFE or HOME_EAGER */
    unsigned moves;     /* the move generator's flags (position.h) */
    double deadline;    /* 0: none */
    uint64_t *expanded; /* positions expanded, by every phase */
    int limit;          /* the limit that stopped it, 0 if none */
} fcs_search;

/* The greedy search's cache of the positions it expanded last; NULL when out
   of memory. */
greedy_cache *greedy_cache_new(void);
void greedy_cache_free(greedy_cache *cache);

/* Greedy best-first search from root, keeping `orders` orders of the open
   list, until it wins, reaches a limit, or stores `budget` positions
   (PHASE_GAVE_UP).  Running dry proves the deal unsolvable with safe
   autoplay; with eager autoplay it only gives up. */
int greedy_search(fcs_search *s, const fcs_pos *root, int orders, uint32_t budget, fcs_result *res);

/* Store root and open the complete search from it; 0 on a limit. */
int complete_start(fcs_search *s, const fcs_pos *root);
/* Work the open list complete_start() began; PHASE_PAUSED once `pause_at`
   positions are stored (0: never), to be called again later. */
int complete_search(fcs_search *s, uint32_t pause_at, fcs_result *res);

#endif
