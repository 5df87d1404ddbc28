/* The threads a running layered proof is offered (docs/solver.md, "Threads").

   A survey's worker that runs a long proof while other workers sit idle
   offers it their cores: the caller names a file holding a number of
   threads, which the worker's pool rewrites (whole, by a rename) as
   workers come and go.  The proof reads it at its meetings between rounds,
   at most every `every` seconds, so it costs nothing per position.  When
   the file names another number of threads than the proof runs on, the
   proof saves a checkpoint and stops with the `threads` limit, and its
   caller resumes it at once on the number offered: the shards are the
   threads, so another number means other shards, and a checkpoint loads
   into any number of them. */
#ifndef FCS_PROOF_OFFER_H
#define FCS_PROOF_OFFER_H

typedef struct {
    const char *path; /* NULL: no offer */
    double every;     /* seconds between reads */
    double next;      /* when it is read next */
} proof_offer;

/* An offer read from `path` (NULL: none) every `every` seconds from `now`. */
void offer_init(proof_offer *o, const char *path, double every, double now);

/* When the offer is due: whether it names a number of threads (1 to
   FCS_MAX_THREADS) other than n.  A file that is missing or holds no such
   number offers nothing. */
int offer_differs(proof_offer *o, int n);

#endif
