/* The layered proof.

   When the complete search runs out of room, a proof may still be in
   reach: it needs no parent links, no heuristic order and, with foundation
   return off, not even the positions already done with.  No move then takes
   a card off a foundation or puts one back on a card it was dealt on and
   does not build on, so positions fall into layers that never go down
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

/* What the proof may use. */
typedef struct {
    uint64_t room;         /* positions held at once */
    double deadline;       /* 0: none */
    const char *checkpoint; /* its checkpoint file, or NULL */
    const uint8_t *tag;    /* the checkpoint's tag */
    double checkpoint_every_s;
} proof_limits;

/* Visit every position reachable from root (or, when `resumed`, from the
   checkpoint); 1 when it did, which proves the deal unsolvable.  0 on a
   limit (*limit says which) or on reaching a won position (*limit 0: a win
   it cannot spell out, as it keeps no paths).  Counts what it visits and
   expands in *counts (its phase FCS_LAYERED_PROOF), and saves and loads
   them with its checkpoints.  The checkpoint file goes when it returns. */
int layered_proof(const fcs_codec *kc, const proof_limits *pl, int resumed, const fcs_pos *root, fcs_counts *counts,
                  int *limit);

/* A position's layer, from the out-of-order pairs its key names. */
int proof_layer_of(const dealt_pairs *pairs, const fcs_pos *p);

#endif
