/* How a child goes to the thread of its shard (thread.h): looked up by
   the thread that made it when it is its own, else through the ring to its
   owner (team.h), which looks it up when it takes in its mail. */
#include "thread.h"

#include <sched.h>

/* Look up (and add) a child of this shard.  A child that is one of the
   current layer's entries moves to the part: it is visited now.  Only a
   child new to the part can be one: one met again was taken out when first
   met. */
static int proof_insert(proof_state *ps, const proof_child *kid)
{
    proof_store *st = &ps->store;
    int added;
    if (kid->layer < st->current) { /* a finished layer is never visited again: its keys would be lost */
        st->limit = FCS_LIMIT_BROKEN;
        return 0;
    }
    if (!proof_add(st, home_of(ps, kid->layer), kid->hash, kid->packed, kid->len, (const uint8_t *)&kid->back,
                   &added))
        return 0;
    if (kid->layer != st->current) {
        if (added)
            trail_origin(&ps->trail, kid->hash, ps->common->round);
        return 1;
    }
    ps->open += added - 1; /* counted as open since it was made */
    if (added && layer_remove(&st->layers[st->current], kid->hash, kid->packed, kid->len))
        st->live--;
    return 1;
}

/* The lookups of children slots[from..to) (slot j at j & mask), each
   fetched from memory in three steps a stage apart, so the reads of about
   3 * PROOF_AHEAD children overlap instead of each lookup waiting for memory
   in turn: its bucket's header, then its index, then the key its
   fingerprint matches first; then the lookup.  A child of the current
   layer, new to the part, is looked for among its entries too: the same
   three fetches there.  A lookup may change buckets
   fetched ahead (a key added, a bucket split): a fetch is only a hint.  0
   when the proof must stop. */
static int proof_insert_run(proof_state *ps, const proof_child *slots, uint64_t mask, uint64_t from, uint64_t to)
{
    const uint64_t d = PROOF_AHEAD;
    /* the current layer's entries, where a child new to the part is taken out (none before the first) */
    const proof_layer *entries = ps->store.current >= 0 ? &ps->store.layers[ps->store.current] : NULL;
    uint64_t j;
    for (j = from; j < to + 3 * d; j++) {
        const proof_bucket *b;
        if (j < to) {
            const proof_child *kid = &slots[j & mask];
            const proof_layer *home = home_of(ps, kid->layer);
            if (home->buckets)
                __builtin_prefetch(&home->buckets[layer_bucket_of(home, kid->hash)]);
            if (entries && kid->layer == ps->store.current && entries->buckets)
                __builtin_prefetch(&entries->buckets[layer_bucket_of(entries, kid->hash)]);
        }
        if (j >= from + d && j - d < to) {
            const proof_child *kid = &slots[(j - d) & mask];
            if ((b = home_bucket(ps, kid)))
                bucket_prefetch(b);
            if (entries && kid->layer == ps->store.current && entries->buckets)
                bucket_prefetch(&entries->buckets[layer_bucket_of(entries, kid->hash)]);
        }
        if (j >= from + 2 * d && j - 2 * d < to) {
            const proof_child *kid = &slots[(j - 2 * d) & mask];
            if ((b = home_bucket(ps, kid)))
                bucket_prefetch_match(b, kid->hash, kid->len + home_of(ps, kid->layer)->tail);
            if (entries && kid->layer == ps->store.current && entries->buckets)
                bucket_prefetch_match(&entries->buckets[layer_bucket_of(entries, kid->hash)], kid->hash, kid->len);
        }
        if (j >= from + 3 * d && !proof_insert(ps, &slots[(j - 3 * d) & mask]))
            return 0;
    }
    return 1;
}

/* Show the other thread `to` what was written to its ring: counted in the
   team's work first, so the round cannot end while they wait. */
static void proof_show(proof_state *ps, int to)
{
    uint64_t n = ps->sent[to] - ps->shown[to];
    if (!n)
        return;
    atomic_fetch_add(&ps->team->work, (int64_t)n);
    atomic_store_explicit(&team_ring(ps->team, ps->id, to)->tail, ps->sent[to], memory_order_release);
    ps->shown[to] = ps->sent[to];
}

static void proof_show_all(proof_state *ps)
{
    int to;
    for (to = 0; to < ps->team->n; to++)
        if (to != ps->id)
            proof_show(ps, to);
}

/* Take in the children the other threads sent this one; 0 when the proof
   must stop. */
static int proof_receive(proof_state *ps)
{
    proof_team *t = ps->team;
    int from;
    for (from = 0; from < t->n; from++) {
        proof_ring *r = from == ps->id ? NULL : team_ring(t, from, ps->id);
        uint64_t tail = r ? atomic_load_explicit(&r->tail, memory_order_acquire) : 0;
        if (!r || tail == ps->taken[from])
            continue;
        if (!proof_insert_run(ps, r->slots, r->mask, ps->taken[from], tail))
            return 0;
        atomic_store_explicit(&r->head, tail, memory_order_release);
        atomic_fetch_sub(&t->work, (int64_t)(tail - ps->taken[from]));
        ps->received += tail - ps->taken[from];
        ps->taken[from] = tail;
    }
    return 1;
}

/* Whether another thread showed this one children it has not taken. */
int proof_mail(proof_state *ps)
{
    int from;
    for (from = 0; from < ps->team->n; from++)
        if (from != ps->id &&
            atomic_load_explicit(&team_ring(ps->team, from, ps->id)->tail, memory_order_acquire) != ps->taken[from])
            return 1;
    return 0;
}

/* Send a child to the thread of its shard.  While that ring is full, take
   in what this one was sent (so two threads sending each other never both
   wait); 0 when the proof must stop. */
static int proof_send(proof_state *ps, const proof_child *kid)
{
    int to = kid->shard;
    proof_ring *r = team_ring(ps->team, ps->id, to);
    while (ps->sent[to] - ps->freed[to] > r->mask) {
        ps->freed[to] = atomic_load_explicit(&r->head, memory_order_acquire);
        if (ps->sent[to] - ps->freed[to] <= r->mask)
            break;
        proof_show(ps, to);
        if (!proof_receive(ps) || team_stopped(ps->team))
            return 0;
        sched_yield();
    }
    r->slots[ps->sent[to] & r->mask] = *kid;
    if (++ps->sent[to] - ps->shown[to] >= PROOF_PUBLISH)
        proof_show(ps, to);
    return 1;
}

/* Look up (and add) the batch's children, sending those of other shards to
   their threads, then take in what they sent. */
int proof_flush(proof_state *ps)
{
    int k, mine = 0;
    for (k = 0; k < ps->n_kids; k++) {
        if (ps->kids[k].shard != ps->id) {
            if (!proof_send(ps, &ps->kids[k]))
                return 0;
            continue;
        }
        if (mine != k)
            ps->kids[mine] = ps->kids[k];
        mine++;
    }
    if (!proof_insert_run(ps, ps->kids, UINT64_MAX, 0, (uint64_t)mine))
        return 0;
    ps->n_kids = 0;
    if (ps->team->n == 1)
        return 1;
    proof_show_all(ps);
    return proof_receive(ps);
}
