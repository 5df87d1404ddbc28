/* The layered proof.

   When the complete search runs out of room, a proof may still be in
   reach: it needs no parent links, no heuristic order and not even the
   positions already done with.  No move puts a card back on a card it was
   dealt on and does not build on, and with foundation return off none takes
   a card off a foundation, so positions fall into layers that never go down
   (proof_layer_of): each layer is worked through in full, then freed,
   before any higher one.  Each layer keeps only its keys, each packed to
   its own length, in buckets by hash (layer.h); the keys a bucket holds
   after its expanded ones are the queue.  Higher layers go to disk when the
   room runs out (spill.h).  Moves are single cards, which reach every
   position sequence moves limited by free space reach (those are
   shortcuts); unlimited sequence moves are not, so then they are all
   tried.  Autoplay is the safe rule, so a position it skips past is
   solvable exactly when the one it reaches is. */
#ifndef FCS_PROOF_H
#define FCS_PROOF_H

#include "../key.h"
#include "../search.h"
#include "../tuning.h"

/* What the proof may use. */
typedef struct {
    uint64_t room;         /* positions held at once */
    double deadline;       /* 0: none */
    const char *checkpoint; /* its checkpoint file, or NULL */
    const uint8_t *tag;    /* the checkpoint's tag */
    double checkpoint_every_s;
    int threads;           /* threads it runs on (1 to FCS_MAX_THREADS; fewer than 1: one) */
    const char *offer;     /* the threads it is offered (offer.h), or NULL; only with a checkpoint */
    double offer_every_s;
} proof_limits;

/* Visit every position reachable from root (or, when `resumed`, from the
   checkpoint); 1 when it did, which proves the deal unsolvable.  Else 0:
   on reaching a won position, with *limit 0 and the win spelled out in res
   (FCS_SOLVED, from its trail: trail.h), or on a limit (*limit says which:
   FCS_LIMIT_THREADS when it stopped, its checkpoint saved, to go on with
   the threads it is offered).  Counts what it visits and expands in
   *counts (its phase FCS_LAYERED_PROOF), and saves and loads them with its
   checkpoints.  The checkpoint file goes when it returns, but for
   FCS_LIMIT_THREADS. */
int layered_proof(const fcs_codec *kc, const proof_limits *pl, int resumed, const fcs_pos *root, fcs_counts *counts,
                  fcs_result *res, int *limit);

/* A position's layer: first how few out-of-order pairs its columns hold (a
   card on one it does not build on), then, with foundation return off, its
   cards home.  Such a pair exists only as dealt (in the start position),
   since every move onto a card builds, a card coming down from a foundation
   too (it lands on a card it builds on, in a cell or in an empty column);
   once its top card leaves, nothing can put it back.  So the pairs lie in
   the dealt prefixes of columns, which key_encode() finds anyway and counts
   them in, and they only go.  Cards home only grow with foundation return
   off; with it they can go down, so then the layer is the pairs alone.  No
   move lowers a position's layer, and each layer can be finished and freed
   before any higher one.  Ordering by the pairs first holds fewest
   positions at once.

   Within a layer, a move changes neither which pairs are held (none is
   broken, none can be made) nor, with foundation return off, how many cards
   of each suit are home (none goes, as the total stays).  So positions
   differing in either never reach each other within the layer, and the
   layer splits into PROOF_GROUPS groups by a hash of the two (of the pairs
   alone with foundation return), worked through one after the other: only
   the group under way must stay in memory, the others wait their turn, on
   disk if need be.  With foundation return a move within a layer cannot
   always be undone (a card autoplay sent home after it goes straight back
   if brought down), so a part (proof.c) need not be a whole connected piece
   and may be visited twice: time, not soundness. */
static inline int proof_layer_of(const fcs_rules *r, const dealt_pairs *pairs, const fcs_pos *p)
{
    uint64_t h = pairs->which;
    int i, home = 0;
    if (!r->foundation_return)
        for (i = 0; i < FCS_NUM_SUITS; i++) {
            h = h * (FCS_RANKS + 1) + p->found[i];
            home += p->found[i];
        }
    h *= 0x9E3779B97F4A7C15ull;
    return ((FCS_CARDS - 1 - pairs->count) * (FCS_CARDS + 1) + home) * PROOF_GROUPS +
           (int)((h >> 32) % PROOF_GROUPS);
}


#endif
