/* Checkpoints of the layered proof.

   Some proofs take hours, longer than a process may live, so between parts
   (at most every checkpoint_every_s) the proof writes what it still has to
   do to its checkpoint file: its counts so far and every key waiting in the
   current layer or a higher one, in memory or on disk.  Those of the
   current layer are its entries not yet visited, once the keys on disk are
   sifted with the parts visited.  It writes `FILE.tmp` and renames it over
   FILE, so the file is always a whole checkpoint.  A solve given the same
   file and tag loads those keys and goes on with the lowest layer holding
   any: every lower layer was finished, and no move goes down a layer, so it
   visits exactly the positions the uninterrupted proof would.  A key
   written twice (its layer went to disk twice) is dropped on loading, as
   when a spilled layer comes back.  The file is raw, for this build only:
   the tag, from the caller, names the build as well as the rules and the
   start.  Layout: the header (the file's size, and the CRC-32 of all that
   follows the header and then of the header itself with that field 0, so
   that a file cut short or damaged on disk is not taken: a key lost or
   changed would leave positions unvisited), then per
   layer and shard (team.h) the layer's number (uint32), its key count
   (uint64) and its keys as spilled (length byte, then bytes), then
   CHECKPOINT_END.  A layer may so come more than once; loading puts each
   key in its shard of the proof that loads it, so a checkpoint saved by any
   number of threads is taken by any other number. */
#ifndef FCS_PROOF_CHECKPOINT_H
#define FCS_PROOF_CHECKPOINT_H

#include "../search.h"
#include "spill.h"

/* Whether `path` is a whole checkpoint with this tag (FCS_CHECKPOINT_TAG
   bytes) and its CRC: it reads the whole file. */
int checkpoint_matches(const char *path, const uint8_t *tag);
/* Write `counts` and every key of the shards' layers from `first` up to
   `path`; 0 if the file could not be written (the proof goes on without it). */
int checkpoint_save(const char *path, const uint8_t *tag, proof_store *const *shards, int n_shards, int first,
                    const fcs_counts *counts);
/* Load the checkpoint's keys into the shards' layers (each key into its
   shard, proof_shard_of) and its counts into *counts; *first is the lowest
   layer holding any.  0 when the proof must stop (a limit, or a file that
   is not what was written: the first shard's limit, or the limit of the
   shard that ran out of room, says which). */
int checkpoint_load(const char *path, const uint8_t *tag, proof_store *const *shards, int n_shards, int *first,
                    fcs_counts *counts);
/* Remove the checkpoint and any half-written one. */
void checkpoint_remove(const char *path);

#endif
