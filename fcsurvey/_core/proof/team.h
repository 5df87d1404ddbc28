/* The threads of one layered proof: what they share, and how they meet.

   Every key set of the proof is split by hash into one shard per thread
   (proof_shard_of, spill.h); each thread alone reads and writes its shard
   (its proof_store: its share of the current layer's entries, of the part,
   of `seen`, of every higher layer and of the spill file).  A thread
   expands the positions of its own shard and sends each child that belongs
   to another shard to its owner through a ring, one per (from, to) pair of
   threads, with one writer and one reader and no lock; the owner looks it
   up and adds it.  A round (a part, or the union of several taken
   together) is over when every thread is idle and every ring is empty: the
   team counts its threads at work plus the children sent and not yet taken
   (`work`); a thread only goes idle with nothing left to send, and only
   something sent can wake one, so once `work` reaches 0 it stays there.
   Between rounds the threads meet (team_meet), and the last to arrive does
   what needs them all still: counting, and checkpoints. */
#ifndef FCS_PROOF_TEAM_H
#define FCS_PROOF_TEAM_H

#include <pthread.h>
#include <stdatomic.h>

#include "../key.h"
#include "../tuning.h"

/* A child waiting for its lookup, by the thread that made it or by its
   owner, with the move back to the position that made it (0: none), which
   the part keeps with it when it is new there (proof.c, proof_expand). */
typedef struct {
    uint64_t hash;
    int layer, len, shard;
    uint8_t packed[KEY_BYTES_MAX];
    fcs_packed_move back;
} proof_child;

/* Children from one thread to another, mask + 1 of them (a power of two)
   at most in flight: a thread's rings together hold about PROOF_RINGS, so
   one can go on a while when another is off its core.  The writer alone
   moves `tail` (what it published), the reader alone `head` (what it
   took); each on a cache line of its own. */
typedef struct {
    _Atomic uint64_t head;
    char apart[64 - sizeof(uint64_t)];
    _Atomic uint64_t tail;
    char apart_too[64 - sizeof(uint64_t)];
    proof_child *slots;
    uint64_t mask;
} proof_ring;

/* What every thread brings to a meeting, added up (or the least). */
typedef struct {
    uint64_t sum, least;
} team_totals;

typedef struct {
    int n;                /* threads */
    proof_ring *rings;    /* n * n, rings[from * n + to]; NULL with one thread */
    _Atomic int64_t work; /* threads at work in the round, plus children sent and not yet taken */
    _Atomic int stop;     /* the proof must stop: a limit, or a win */
    pthread_mutex_t lock; /* the rest is under it */
    pthread_cond_t met;
    int arrived;
    unsigned meeting;     /* meetings held so far */
    team_totals brought, result;
    int limit;            /* the first stop's limit (0: a win, which the trail spells out) */
} proof_team;

/* A team of n threads (1 to FCS_MAX_THREADS); 0 when out of memory
   (with t->n set, team_free must still undo what was made). */
int team_init(proof_team *t, int n);
void team_free(proof_team *t);

static inline proof_ring *team_ring(const proof_team *t, int from, int to)
{
    return &t->rings[from * t->n + to];
}

static inline int team_stopped(proof_team *t)
{
    return atomic_load_explicit(&t->stop, memory_order_acquire);
}

/* Stop the proof for every thread; the first stop's limit is the one kept. */
void team_stop(proof_team *t, int limit);

/* Wait for every thread to bring `sum` and `least`; the last to arrive calls
   last(arg, totals) while the others wait, then all go on with the totals
   in *out.  0 when the proof stops (before, or by `last` returning 0). */
int team_meet(proof_team *t, uint64_t sum, uint64_t least, int (*last)(void *, const team_totals *), void *arg,
              team_totals *out);

#endif
