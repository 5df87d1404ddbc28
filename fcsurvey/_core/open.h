/* The open list: a bucket queue.  Priorities are small integers (the
   heuristic plus a depth term: a few thousand at most), so each priority
   keeps a stack of entries, and a pop takes the newest entry of the lowest
   non-empty priority: the order of a heap keyed on (priority, newest
   first), at constant cost instead of a logarithm.  An entry stands for a
   stored position (move == NO_MOVE) or a child not yet stored, reached
   from stored position `state` by a physical move.

   The greedy tries keep their entries in two such orders at once and pop
   from each in turn: by score plus depth term, which keeps solutions
   short, and by score alone, which goes deep where the first goes wide
   and wins quickly on many deals the depth term holds back.  An entry taken
   through one order is marked TAKEN and freed when the other reaches it.
   The later greedy searches (the interlude and the last try), which go deep
   where the complete search goes wide, keep the first order alone. */
#ifndef FCS_OPEN_H
#define FCS_OPEN_H

#include "position.h"

#define OPEN_ORDERS 2
#define ORDER_DEPTH 0 /* score plus depth term */
#define ORDER_SCORE 1 /* score alone */

#define NO_ENTRY 0xFFFFFFFFu
#define NO_MOVE 0xFFFFFFFFu
#define TAKEN 0xFFFFFFFEu /* the move of an entry popped through another order */

typedef struct {
    uint32_t state;
    uint32_t move;
    uint32_t next[OPEN_ORDERS]; /* the entry below it on each order's stack; next[0]: the next free one */
} open_entry;

typedef struct {
    uint32_t *bucket; /* top entry of each priority's stack */
    uint32_t buckets, lowest;
} open_order;

typedef struct {
    open_entry *entries;
    uint32_t entries_n, entries_alloc, free_entry, n; /* n: entries not yet taken */
    open_order order[OPEN_ORDERS];
    int orders;    /* orders kept: 1 or OPEN_ORDERS */
    unsigned turn; /* which order the next pop takes from */
} fcs_open;

/* An empty open list keeping `orders` orders. */
void open_init(fcs_open *o, int orders);
/* Empty the open list, keeping its memory, to keep `orders` orders. */
void open_clear(fcs_open *o, int orders);
void open_free(fcs_open *o);
/* Push an entry with priority[k] in order k, for each order kept; 0 when
   out of memory. */
int open_push(fcs_open *o, const uint32_t *priority, uint32_t state, uint32_t move);
/* Only when o->n > 0: every order then holds an entry not yet taken. */
open_entry open_pop(fcs_open *o);

/* A physical move in an entry's move field. */
static inline uint32_t open_pack_move(const fcs_move *m)
{
    return (uint32_t)m->src_kind | ((uint32_t)m->src << 2) | ((uint32_t)m->dst_kind << 6) |
           ((uint32_t)m->dst << 8) | ((uint32_t)m->count << 12);
}

static inline void open_unpack_move(uint32_t v, fcs_move *m)
{
    m->src_kind = (uint8_t)(v & 3);
    m->src = (uint8_t)((v >> 2) & 15);
    m->dst_kind = (uint8_t)((v >> 6) & 3);
    m->dst = (uint8_t)((v >> 8) & 15);
    m->count = (uint8_t)((v >> 12) & 63);
}

#endif
