/* One thread of the layered proof (proof.c), and what they share; and
   the way a child goes to the thread of its shard (exchange.c). */
#ifndef FCS_PROOF_THREAD_H
#define FCS_PROOF_THREAD_H

#include "offer.h"
#include "proof.h"
#include "spill.h"
#include "team.h"
#include "trail.h"

struct proof_common;

/* One thread of the proof, with its shard of every key set (team.h).  The
   layer being worked through holds only its entries, the positions moves
   from lower layers reached; each is taken out in turn, and the part of the
   layer it leads to within the layer is gathered in the store's `part`,
   worked through, then freed, taking out the entries it meets on the way.
   With the usual empty-column rule such moves can all be undone, so the
   parts are the layer's connected pieces and each is visited once;
   otherwise a part may overlap one gathered before, visited twice.  With
   several threads a round gathers the parts of several entries at once
   (their union is as sound: it is closed under moves within the layer),
   each thread its shard of them.

   A layer's entries can outgrow the room.  Then they come back from disk a
   slice at a time (PROOF_SLICE_EIGHTHS of the room), and the store may send
   the slice's unvisited entries back.  An entry still on disk cannot be
   taken out when a part meets it, so while any are, each finished part goes
   into `seen`: a key in it is skipped when its slice is loaded, and before
   `seen` is freed (at PROOF_SEEN_SHARE of the room) the keys on disk are
   sifted with it: those visited are dropped.  So each part is still visited
   once, and only a part itself must fit in the room.  Each shard decides
   this for its own keys: a key of a part always lands in the same shard,
   whose disk and `seen` are the only ones that can hold it. */
typedef struct {
    const fcs_codec *kc;
    const proof_limits *pl;
    struct proof_common *common;
    proof_team *team;
    int id; /* this thread's, and its shard's, number */
    proof_store store;
    proof_child *kids; /* PROOF_BATCH + FCS_MAX_MOVES */
    proof_trail trail; /* its part of the trail (trail.h) */
    int n_kids;
    uint64_t from;     /* the bucket of the current layer where its next entry is looked for */
    uint64_t expanded; /* by this thread (thread 0: and by the solve before the proof) */
    uint64_t states;   /* visited in rounds not yet counted */
    uint64_t received; /* children taken from the other threads */
    uint64_t held, held_higher; /* at the last round's end, for FCS_PROOF_TRACE */
    int64_t open;      /* children of the current layer it made, less those looked up that were not new,
                          less positions expanded: what the round's parts have yet to expand, over all threads */
    /* What it last told the others of its round, for round_small, on a
       cache line of its own: its part's size, and `open`. */
    _Alignas(64) _Atomic uint64_t told_size;
    _Atomic int64_t told_open;
    char apart[64 - sizeof(uint64_t) - sizeof(int64_t)];
    /* By the other thread: children written to its ring, shown to it, and
       taken by it (as last seen); children taken from its ring to this one. */
    uint64_t sent[FCS_MAX_THREADS], shown[FCS_MAX_THREADS], freed[FCS_MAX_THREADS], taken[FCS_MAX_THREADS];
} proof_state;

/* The proof under way: its threads, and what they count together (between
   rounds, by the last thread to arrive, while the others wait). */
typedef struct proof_common {
    proof_team team;
    proof_state *threads; /* team.n */
    int made;             /* threads whose store was set up */
    const proof_limits *pl;
    fcs_counts *counts;
    int first;                  /* the layer the threads begin with */
    double started, saved, gap; /* when the proof began, last saved; how long until the next save */
    proof_offer offer;          /* the threads it is offered */
    uint64_t visited, most, most_higher; /* in the layer's groups so far, for FCS_PROOF_TRACE */
    trail_shared trail;
    uint32_t round;       /* the round under way, counted from 1 (the trail names rounds by it) */
    _Atomic int won;      /* a thread reached a won position ... */
    uint32_t won_round;   /* ... in this round */
} proof_common;

/* Where a child's layer is kept: the current one grows only as its part. */
static inline proof_layer *home_of(proof_state *ps, int layer)
{
    return layer == ps->store.current ? &ps->store.part : &ps->store.layers[layer];
}

/* The bucket of its home a child of this shard goes to, or NULL while its
   home has none. */
static inline const proof_bucket *home_bucket(proof_state *ps, const proof_child *kid)
{
    const proof_layer *to = home_of(ps, kid->layer);
    return to->buckets ? &to->buckets[layer_bucket_of(to, kid->hash)] : NULL;
}

/* Look up (and add) the batch's children, sending those of other shards to
   their threads, then take in what they sent; 0 when the proof must stop. */
int proof_flush(proof_state *ps);
/* Whether another thread showed this one children it has not taken. */
int proof_mail(proof_state *ps);

#endif
