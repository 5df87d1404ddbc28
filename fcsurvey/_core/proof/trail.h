/* The layered proof's trail: how it spells out a win it reaches, though it
   keeps no paths.

   A round (proof.c) visits the part of a layer its entries lead to, within
   the layer, and each child it makes in a higher layer is an entry there.
   So every position the proof visits lies in the part of some round, and a
   chain of rounds leads to it from the root: the root starts the first
   round, and each later round starts with an entry that a position of an
   earlier round (in a lower layer) made.  The trail writes down just
   enough to find that chain again: for each entry a round takes, its key
   and the round (a "start"); for each child that is new to a higher layer,
   32 bits of its hash and the round that made it (an "origin").  Neither
   file is read while the proof runs; each thread writes its own two, in
   order of rounds, so they are sequential, and they are unlinked when made.

   On a win, from the round that reached it back to the root, one round at
   a time: search that round's layer from its starts (every start of the
   round, on every thread), breadth first and with parent links, for a
   position with a won child (the last round) or with the next round's
   start as a child; the path found begins at one of the starts, whose
   origins name the earlier round to search next (a hash that only looks
   like the start's is found out by that search finding no such child, and
   the next origin is tried).  The origins are read once, backwards: each
   round looked for comes before the last.  Each search holds one round's
   part, which the proof held too, keys only as the proof holds them and
   at most the proof's room; with no parent links, it writes the positions
   it meets to a file level by level, and walks the levels back from the
   one it found the target on.  The paths joined, with the moves between
   them, are the solution.

   The trail is whole only for a proof that began at the root and wrote all
   it had to within its budget (PROOF_TRAIL records per position of room,
   all threads together) and without a disk failure.  A win without a
   whole trail (a resumed proof's trail misses what came before its
   checkpoint) is spelled out by a second proof from the root, which writes
   its trail without a budget and stops at its first win. */
#ifndef FCS_PROOF_TRAIL_H
#define FCS_PROOF_TRAIL_H

#include <stdatomic.h>

#include "../search.h"
#include "spill.h"

/* What the threads of a proof share of its trail. */
typedef struct {
    uint64_t budget;    /* records each thread may write; 0: the trail is off */
    _Atomic int broken; /* a thread went past its budget, or a file failed: the trail is not whole */
} trail_shared;

/* One thread's part of the trail: its two files. */
typedef struct {
    trail_shared *shared;
    file_writer origins, starts;
    uint64_t records;
} proof_trail;

/* Set up one thread's part (its files, when the trail is on); 0 when out of
   memory.  A file that cannot be made only breaks the trail. */
int trail_init(proof_trail *t, trail_shared *shared);
void trail_free(proof_trail *t);

/* A child new to a higher layer, with its key_hash_packed, made in `round`. */
void trail_origin(proof_trail *t, uint64_t hash, uint32_t round);
/* An entry `round` takes (its key packed to `len` bytes). */
void trail_start(proof_trail *t, const uint8_t *packed, int len, uint32_t round);

/* Whether the trail of the n threads is whole, once written out. */
int trail_whole(proof_trail *trails, int n);

/* Spell out the win of round `won_round` from the n threads' whole trail
   into res (FCS_SOLVED), each search holding at most `room` positions: 0,
   or the limit that stopped it.  What its searches visit and expand is
   counted in *counts as the layered proof's. */
int trail_spell(const fcs_codec *kc, proof_trail *trails, int n, uint32_t won_round, const fcs_pos *root,
                uint64_t room, double deadline, fcs_counts *counts, fcs_result *res);

#endif
