/* The layered proof (proof.h): its layers, its rounds, its sweeps, its threads. */
#include "proof.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "../clock.h"
#include "../solution.h"
#include "checkpoint.h"
#include "spill.h"
#include "thread.h"

/* Encode and pack p as child k, with the move `back` to its parent (0:
   none), fetching its bucket's header ahead when it belongs to this
   thread's shard. */
static void proof_key(proof_state *ps, const fcs_pos *p, const column_code *codes, fcs_packed_move back,
                      proof_child *k)
{
    uint64_t words[KEY_WORDS_MAX + 1];
    proof_layer *to;
    dealt_pairs pairs;
    k->len = (key_encode_coded(ps->kc, p, codes, words, NULL, &pairs) + 7) / 8;
    key_pack(words, k->len, k->packed);
    k->hash = key_hash_packed(k->packed, k->len);
    k->layer = proof_layer_of(ps->kc->r, &pairs, p);
    k->shard = proof_shard_of(k->hash, ps->team->n);
    k->back = back;
    ps->open += k->layer == ps->store.current; /* until it is looked up, by this thread or another */
    if (k->shard != ps->id)
        return;
    to = home_of(ps, k->layer);
    if (to->buckets)
        __builtin_prefetch(&to->buckets[layer_bucket_of(to, k->hash)]);
}

/* The proof reached a won position: the first thread to tell says in which
   round, for the trail to spell the win out from. */
static void proof_won(proof_state *ps)
{
    int none = 0;
    if (atomic_compare_exchange_strong(&ps->common->won, &none, 1))
        ps->common->won_round = ps->common->round;
}

/* The move from `child` back to p, which made it by m, when child is m's
   position itself (no card went home or came down, so autoplay moved none):
   the same cards back where they were, named as fcs_pack names a move (the
   card, and the card it goes on, a cell or an empty column), so it does not
   depend on the order of columns or cells, which keys forget.  Else 0. */
static fcs_packed_move back_move(const fcs_pos *p, const fcs_move *m, const fcs_pos *child)
{
    int card;
    if (m->src_kind == AT_FOUNDATION || m->dst_kind == AT_FOUNDATION || memcmp(p->found, child->found, sizeof(p->found)))
        return 0;
    card = fcs_moved_card(p, m);
    if (m->src_kind == AT_CELL)
        return PACK_MOVE(card, DEST_CELL, 0);
    if (p->len[m->src] > m->count)
        return PACK_MOVE(card, DEST_ON_CARD, p->col[m->src][p->len[m->src] - m->count - 1]);
    return PACK_MOVE(card, DEST_EMPTY_COLUMN, 0);
}

#ifdef FCS_PROOF_CHECK_BACK /* scripts/measure_proof.py --check-back: every move left out leads into the part */
static _Atomic uint64_t back_left_out, back_not_in_part;

/* Make and look up the child of p by m, a move proof_expand leaves out:
   it must be in this shard's part (checked on one thread, where the part
   is all in one shard). */
static void check_back(proof_state *ps, const fcs_pos *p, const column_code *codes, const fcs_move *m)
{
    fcs_pos child;
    column_code child_codes[FCS_MAX_COLS];
    proof_child kid;
    atomic_fetch_add(&back_left_out, 1);
    if (!make_child(ps->kc, HOME_SAFE, p, codes, m, &child, child_codes)) {
        atomic_fetch_add(&back_not_in_part, 1);
        return;
    }
    proof_key(ps, &child, child_codes, 0, &kid);
    ps->open -= kid.layer == ps->store.current; /* as its lookup, finding it, would */
    if (kid.layer != ps->store.current || !layer_has(&ps->store.part, kid.hash, kid.packed, kid.len))
        atomic_fetch_add(&back_not_in_part, 1);
}

__attribute__((destructor)) static void report_back(void)
{
    fprintf(stderr, "moves back left out: %llu; not in the part: %llu\n",
            (unsigned long long)atomic_load(&back_left_out), (unsigned long long)atomic_load(&back_not_in_part));
}
#endif

/* Expand the next unexpanded position of bucket b of the part into the
   batch; 0 when the proof must stop (a limit, or a win).

   The move back to the position that first made it is left out: that
   move's child is that position itself (the same cards back where they
   were, nothing autoplayed, and a key forgets the order of columns and
   cells), which is in this round's part, since it was expanded from it, so
   its lookup could only find it there.  The positions visited and expanded
   are the same; each expansion makes one child fewer. */
static int proof_expand(proof_state *ps, uint64_t b)
{
    const fcs_rules *r = ps->kc->r;
    fcs_move moves[FCS_MAX_MOVES];
    uint64_t words[KEY_WORDS_MAX + 1];
    proof_bucket *bucket = &ps->store.part.buckets[b];
    bucket_at at = bucket_nth(bucket, bucket->done);
    const int len = bucket_len(bucket, &at) - PROOF_BACK_BYTES;
    fcs_packed_move skip;
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    int k, n;

    key_unpack(at.key, len, words);
    memcpy(&skip, at.key + len, sizeof(skip));
    bucket->done++; /* before any child can split this bucket */
    ps->expanded++;
    ps->open--;
    key_decode(ps->kc, words, &p, codes);
    n = fcs_legal_moves(r, &p, r->sequence != SEQ_UNLIMITED ? FCS_MOVES_SINGLE : 0, moves);
    for (k = 0; k < n; k++) {
        if (skip && fcs_pack(&p, &moves[k]) == skip) {
#ifdef FCS_PROOF_CHECK_BACK
            check_back(ps, &p, codes, &moves[k]);
#endif
            continue;
        }
        if (!make_child(ps->kc, HOME_SAFE, &p, codes, &moves[k], &child, child_codes))
            continue;
        if (fcs_is_won(&child)) {
            proof_won(ps);
            return 0;
        }
        proof_key(ps, &child, child_codes, back_move(&p, &moves[k], &child), &ps->kids[ps->n_kids++]);
    }
    return ps->n_kids < PROOF_BATCH || proof_flush(ps);
}

/* Every TIME_CHECK_EVERY positions expanded: whether the deadline passed
   or another thread stopped the proof. */
static int proof_should_stop(proof_state *ps)
{
    if (ps->expanded % TIME_CHECK_EVERY)
        return 0;
    if (ps->pl->deadline && fcs_now_s() > ps->pl->deadline) {
        ps->store.limit = FCS_LIMIT_TIME;
        return 1;
    }
    return team_stopped(ps->team);
}

/* Tell the others how this thread's round goes (round_small). */
static void proof_tell(proof_state *ps)
{
    atomic_store_explicit(&ps->told_size, ps->store.part.n, memory_order_relaxed);
    atomic_store_explicit(&ps->told_open, ps->open, memory_order_relaxed);
}

/* Work through this shard's part, bucket by bucket, expanding what each
   holds unexpanded, until a sweep finds nothing left and nothing came from
   the other threads: children landing in a bucket already swept wait for
   the next sweep.  0 when the proof must stop. */
static int proof_sweep_part(proof_state *ps)
{
    proof_layer *part = &ps->store.part;
    int swept = 0;
    while (!swept) {
        uint64_t b, received = ps->received;
        swept = 1;
        for (b = 0; b < part->n_buckets; b++)
            while (part->buckets[b].done < part->buckets[b].n) {
                swept = 0;
                if (proof_should_stop(ps) || !proof_expand(ps, b))
                    return 0;
                if (ps->team->n > 1)
                    proof_tell(ps);
            }
        if (!proof_flush(ps))
            return 0;
        if (ps->received != received)
            swept = 0;
        if (ps->team->n > 1)
            proof_tell(ps);
    }
    return 1;
}

/* Take the current layer's next entry out and into the part. */
static int proof_next_entry(proof_state *ps, uint64_t *from)
{
    proof_layer *l = &ps->store.layers[ps->store.current];
    proof_child *kid = &ps->kids[0];
    proof_bucket *b;
    bucket_at at;
    while (l->buckets[*from].n == 0) /* emptied buckets never refill */
        (*from)++;
    b = &l->buckets[*from];
    at = bucket_first(b);
    kid->len = bucket_len(b, &at);
    memcpy(kid->packed, at.key, (size_t)kid->len);
    trail_start(&ps->trail, kid->packed, kid->len, ps->common->round);
    kid->hash = key_hash_packed(kid->packed, kid->len);
    kid->layer = ps->store.current;
    kid->shard = ps->id;
    kid->back = 0;
    ps->open++;
    ps->n_kids = 1;
    return proof_flush(ps);
}

/* Whether to take another entry into the round (each thread's counts as
   it last told them): when the round is still small (the parts of all
   shards together hold fewer than PROOF_ROUND positions a thread, and
   fewer than a PROOF_ROUND_SHARE of the room) and settled (at most
   PROOF_ROUND_OPEN positions a thread of the parts under way are yet to be
   expanded or in flight: they are about done, so their union stays about
   as big as the biggest of them, as in one thread's parts). */
static int round_small(proof_state *ps)
{
    const proof_common *common = ps->common;
    const int n = ps->team->n;
    uint64_t room = ps->store.room * (uint64_t)n, size = 0;
    int64_t open = 0;
    int i;
    proof_tell(ps);
    for (i = 0; i < n; i++) {
        size += atomic_load_explicit(&common->threads[i].told_size, memory_order_relaxed);
        open += atomic_load_explicit(&common->threads[i].told_open, memory_order_relaxed);
    }
    return open <= PROOF_ROUND_OPEN * n && size < PROOF_ROUND * (uint64_t)n && size < room / PROOF_ROUND_SHARE;
}

/* Nothing left to do but what the other threads may send: wait for it, or
   until the round is small and settled enough to take another entry (0),
   or for the round's end, when every thread is idle and nothing is in
   flight (1); -1 when the proof stops.  An idle thread becomes busy again
   only while the team's work is above 0 (mail counts in it until taken),
   so once it is 0 it stays 0. */
static int proof_idle(proof_state *ps)
{
    proof_team *t = ps->team;
    const proof_layer *entries = &ps->store.layers[ps->store.current];
    atomic_fetch_sub(&t->work, 1);
    for (;;) {
        int64_t work = atomic_load(&t->work);
        if (team_stopped(t))
            return -1;
        if (proof_mail(ps)) { /* what it was sent counts in work until taken: the round goes on */
            atomic_fetch_add(&t->work, 1);
            return 0;
        }
        if (!work)
            return 1;
        if (entries->n && round_small(ps) && atomic_compare_exchange_strong(&t->work, &work, work + 1))
            return 0;
        sched_yield();
    }
}

/* This shard's part of a round is over: count it, and let it go (into
   `seen` while this shard has keys of the layer on disk). */
static int proof_end_part(proof_state *ps)
{
    proof_store *st = &ps->store;
    int h = st->current;
    st->sweeping = 0;
    ps->open = 0;
    ps->states += st->part.n;
    ps->held = st->live; /* a part's end: nothing held goes before */
    ps->held_higher = st->live - st->part.n - st->seen.n - st->layers[h].n;
    if (!st->on_disk[h].n) {
        st->live -= st->part.n;
        layer_free(&st->part);
        return 1;
    }
    return proof_merge_part(st) && (st->seen.n <= st->room / PROOF_SEEN_SHARE || proof_sift_disk(st, h));
}

/* A round: visit the part this shard's next entry leads to, with the other
   threads, until all of them are idle, then let it go.  With several
   threads, the round's leader takes the first entry, and a thread with
   nothing left to do takes its next entry into the same round while the
   round is small and settled, so tiny parts cost no meeting each, and big
   ones are gathered about one at a time.  0 when the proof must stop. */
static int proof_round(proof_state *ps, int leader)
{
    proof_store *st = &ps->store;
    const proof_layer *entries = &st->layers[st->current];
    st->sweeping = 1;
    if (entries->n && (ps->id == leader || ps->team->n == 1) && !proof_next_entry(ps, &ps->from))
        return 0;
    for (;;) {
        int idle;
        if (!proof_sweep_part(ps))
            return 0;
        if (ps->team->n == 1)
            break;
        if (entries->n && round_small(ps)) {
            if (!proof_next_entry(ps, &ps->from))
                return 0;
            continue;
        }
        if ((idle = proof_idle(ps)) < 0)
            return 0;
        if (idle)
            break;
    }
    return proof_end_part(ps);
}

/* Fold what the threads counted into the proof's counts. */
static void proof_fold(proof_common *common)
{
    fcs_counts *counts = common->counts;
    int i;
    counts->expanded = 0;
    for (i = 0; i < common->team.n; i++) {
        proof_state *ps = &common->threads[i];
        counts->expanded += ps->expanded;
        counts->phase[FCS_LAYERED_PROOF].states += ps->states;
        common->visited += ps->states;
        ps->states = 0;
    }
}

/* Save a checkpoint.  What is left of the current layer is unvisited once
   the keys on disk are sifted with the parts visited.  1 when it was
   written, 0 when the disk would not take it (the proof goes on without),
   -1 when the proof must stop. */
static int save_now(proof_common *common)
{
    proof_store *shards[FCS_MAX_THREADS];
    fcs_counts counts;
    double began = fcs_now_s();
    int i, saved;
    for (i = 0; i < common->team.n; i++) {
        proof_store *st = shards[i] = &common->threads[i].store;
        if (st->seen.n && !proof_sift_disk(st, st->current)) {
            team_stop(&common->team, st->limit);
            return -1;
        }
    }
    counts = *common->counts;
    counts.phase[FCS_LAYERED_PROOF].time_s += began - common->started;
    saved = checkpoint_save(common->pl->checkpoint, common->pl->tag, shards, common->team.n, shards[0]->current,
                            &counts);
    common->saved = fcs_now_s();
    common->gap = common->pl->checkpoint_every_s > CHECKPOINT_SPACING * (common->saved - began)
                   ? common->pl->checkpoint_every_s : CHECKPOINT_SPACING * (common->saved - began);
    return saved;
}

/* Between rounds, when it is time: save a checkpoint.  A save waits at
   least CHECKPOINT_SPACING times as long as the last one took.  0 when the
   proof must stop. */
static int maybe_save(proof_common *common)
{
    if (!common->pl->checkpoint || fcs_now_s() - common->saved < common->gap)
        return 1;
    return save_now(common) >= 0;
}

/* Between rounds, when the threads offered (offer.h) are another number:
   save a checkpoint and stop, for the caller to go on with them.  0 when
   the proof stops; 1 when the checkpoint could not be written, and the
   proof goes on as it is, offered nothing more. */
static int take_offer(proof_common *common)
{
    int saved = save_now(common);
    if (saved > 0)
        team_stop(&common->team, FCS_LIMIT_THREADS);
    common->offer.path = NULL;
    return saved == 0;
}

/* Before a round, every thread waiting: each is at work, and the leader
   (totals->least, the first thread with entries left) is about to take
   one, whose part none can tell the size of yet. */
static int round_ready(void *arg, const team_totals *totals)
{
    proof_common *common = arg;
    int i;
    if (++common->round == UINT32_MAX) /* the trail's rounds would wrap */
        atomic_store(&common->trail.broken, 1);
    for (i = 0; i < common->team.n; i++) {
        proof_state *ps = &common->threads[i];
        atomic_store_explicit(&ps->told_size, 0, memory_order_relaxed);
        atomic_store_explicit(&ps->told_open, (uint64_t)i == totals->least ? INT64_MAX / 2 : 0, memory_order_relaxed);
    }
    atomic_store(&common->team.work, common->team.n);
    return 1;
}

/* Between rounds, every thread waiting: count what they visited, save a
   checkpoint when it is time, and make ready for the next round. */
static int round_over(void *arg, const team_totals *totals)
{
    proof_common *common = arg;
    uint64_t held = 0, higher = 0;
    int i;
    proof_fold(common);
    for (i = 0; i < common->team.n; i++) {
        held += common->threads[i].held;
        higher += common->threads[i].held_higher;
    }
    if (held > common->most) {
        common->most = held;
        common->most_higher = higher;
    }
    if (offer_differs(&common->offer, common->team.n) && !take_offer(common))
        return 0;
    return maybe_save(common) && round_ready(arg, totals);
}

/* Work through layer h's entries, a slice at a time, in rounds; 0 when the
   proof must stop.  The threads meet before each slice and each round, to
   agree on whether any thread has entries left. */
static int work_layer(proof_state *ps, int h)
{
    proof_store *st = &ps->store;
    uint64_t slice = st->room / 8 * PROOF_SLICE_EIGHTHS + 1; /* at least one, so each slice gets somewhere */
    team_totals left;
    st->current = h;
    while (team_meet(ps->team, st->layers[h].n + st->on_disk[h].n, UINT64_MAX, NULL, NULL, &left) && left.sum) {
        int (*between)(void *, const team_totals *) = round_ready;
        if (!proof_load_layer(st, h, slice))
            return 0;
        if (!st->on_disk[h].n)
            proof_forget_seen(st); /* no key is left to skip or sift with it */
        ps->from = 0;
        while (team_meet(ps->team, st->layers[h].n, st->layers[h].n ? (uint64_t)ps->id : UINT64_MAX, between,
                         ps->common, &left) && left.sum) {
            if (!proof_round(ps, (int)left.least))
                return 0;
            between = round_over;
        }
        if (team_stopped(ps->team))
            return 0;
        layer_free(&st->layers[h]);
    }
    return !team_stopped(ps->team);
}

/* After a group, every thread waiting (totals.least is the next one):
   when it was its layer's last, trace what the layer held. */
static int layer_over(void *arg, const team_totals *totals)
{
    proof_common *common = arg;
    int h = common->threads[0].store.current;
    if ((uint64_t)(h / PROOF_GROUPS) == totals->least / PROOF_GROUPS)
        return 1;
#ifdef FCS_PROOF_TRACE /* scripts/measure_proof.py: what each layer held */
    if (common->visited) {
        uint64_t spilled = 0;
        int i;
        for (i = 0; i < common->team.n; i++)
            spilled += common->threads[i].store.spilled;
        fprintf(stderr, "layer %d/%d: %llu positions; most held at once: %llu (%llu in higher layers); "
                "visited so far: %llu; spilled so far: %llu\n", h / PROOF_GROUPS / (FCS_CARDS + 1),
                h / PROOF_GROUPS % (FCS_CARDS + 1), (unsigned long long)common->visited,
                (unsigned long long)common->most, (unsigned long long)common->most_higher,
                (unsigned long long)common->counts->phase[FCS_LAYERED_PROOF].states, (unsigned long long)spilled);
    }
#endif
    common->visited = common->most = common->most_higher = 0;
    return 1;
}

/* The lowest layer above h with keys in this shard, in memory or on disk. */
static int next_layer(const proof_store *st, int h)
{
    for (h++; h < PROOF_LAYERS && !st->layers[h].n && !st->on_disk[h].n; h++)
        ;
    return h;
}

/* One thread's proof, layer by layer from the first, the threads going on
   together with the lowest layer any of them holds keys of. */
static void *proof_thread(void *arg)
{
    proof_state *ps = arg;
    team_totals next;
    int h = ps->common->first;
    while (h < PROOF_LAYERS) {
        if (!work_layer(ps, h) ||
            !team_meet(ps->team, 0, (uint64_t)next_layer(&ps->store, h), layer_over, ps->common, &next)) {
            team_stop(ps->team, ps->store.limit); /* kept only if it is the first */
            break;
        }
        h = (int)next.least;
    }
    return NULL;
}

/* The layer to begin with: the root's, or the checkpoint's lowest; -1 when
   the proof must stop. */
static int proof_begin(proof_common *common, int resumed, const fcs_pos *root)
{
    proof_state *ps = &common->threads[0], *owner;
    column_code codes[FCS_MAX_COLS];
    proof_child kid;
    int h, i;
    if (resumed) {
        proof_store *shards[FCS_MAX_THREADS];
        for (i = 0; i < common->team.n; i++)
            shards[i] = &common->threads[i].store;
        if (!checkpoint_load(common->pl->checkpoint, common->pl->tag, shards, common->team.n, &h, common->counts))
            return -1;
        return h;
    }
    key_code_columns(ps->kc, root, ALL_COLUMNS(ps->kc->r), codes);
    proof_key(ps, root, codes, 0, &kid);
    owner = &common->threads[kid.shard];
    owner->kids[owner->n_kids++] = kid;
    return proof_flush(owner) ? kid.layer : -1;
}

/* Set up what the threads share and their threads' shards, each with its
   share of the room, and the trail, with `trail` records in all (0: none);
   0 when out of memory. */
static int proof_setup(proof_common *common, const fcs_codec *kc, const proof_limits *pl, uint64_t trail,
                       fcs_counts *counts)
{
    int i, n = pl->threads < 1 ? 1 : pl->threads > FCS_MAX_THREADS ? FCS_MAX_THREADS : pl->threads;
    memset(common, 0, sizeof(*common));
    common->pl = pl;
    common->counts = counts;
    common->started = common->saved = fcs_now_s();
    common->gap = pl->checkpoint_every_s;
    common->trail.budget = trail / (uint64_t)n;
    offer_init(&common->offer, pl->checkpoint ? pl->offer : NULL, pl->offer_every_s, common->started);
    /* aligned as its type asks (its counts for the others sit on a cache line of their own) */
    if (!(common->threads = aligned_alloc(_Alignof(proof_state), sizeof(proof_state) * (size_t)n)) ||
        !team_init(&common->team, n))
        return 0;
    memset(common->threads, 0, sizeof(proof_state) * (size_t)n);
    for (i = 0; i < n; i++) {
        proof_state *ps = &common->threads[i];
        ps->kc = kc;
        ps->pl = pl;
        ps->common = common;
        ps->team = &common->team;
        ps->id = i;
        ps->kids = malloc(sizeof(proof_child) * (PROOF_BATCH + FCS_MAX_MOVES));
        common->made++;
        if (!proof_store_init(&ps->store, pl->room / (uint64_t)n) || !ps->kids ||
            !trail_init(&ps->trail, &common->trail))
            return 0;
    }
    return 1;
}

/* The first limit a shard of a proof that did not begin ran into. */
static int begin_limit(const proof_common *common)
{
    int i;
    for (i = 0; i < common->made; i++)
        if (common->threads[i].store.limit)
            return common->threads[i].store.limit;
    return FCS_LIMIT_MEMORY;
}

/* Run the proof's threads: the caller's is the first. */
static void proof_threads(proof_common *common)
{
    pthread_t ids[FCS_MAX_THREADS];
    int i, made = 1;
    for (; made < common->team.n; made++)
        if (pthread_create(&ids[made], NULL, proof_thread, &common->threads[made]) != 0) {
            team_stop(&common->team, FCS_LIMIT_MEMORY);
            break;
        }
    proof_thread(&common->threads[0]);
    for (i = 1; i < made; i++)
        pthread_join(ids[i], NULL);
}

/* A win the trail could not spell out: it was not whole (see trail.h). */
#define TRAIL_NOT_WHOLE (-1)

/* One proof from the root (or the checkpoint), writing `trail` records of
   its trail at most (0: none).  1 when it proved the deal unsolvable; else
   0, with *limit 0 and the solution in res when it reached a win and spelled
   it out, TRAIL_NOT_WHOLE when it could not for want of a whole trail, or
   the limit that stopped it. */
static int proof_pass(const fcs_codec *kc, const proof_limits *pl, int resumed, uint64_t trail, const fcs_pos *root,
                      fcs_counts *counts, fcs_result *res, int *limit)
{
    proof_common common;
    int i, h = -1, proved = 0, won;

    if (!proof_setup(&common, kc, pl, resumed ? 0 : trail, counts)) {
        *limit = FCS_LIMIT_MEMORY;
    } else if ((h = proof_begin(&common, resumed, root)) < 0) {
        *limit = begin_limit(&common);
    } else {
        common.first = h;
        common.threads[0].expanded = counts->expanded;
        proof_threads(&common);
        proof_fold(&common);
        proved = !team_stopped(&common.team);
        *limit = proved ? 0 : common.team.limit;
    }
    won = !proved && atomic_load(&common.won);
    if (!proved && !won && !*limit) /* a stop with no limit named: the room, as the searches' */
        *limit = FCS_LIMIT_STATES;
    if (pl->checkpoint && (*limit != FCS_LIMIT_THREADS || won)) /* with the threads offered, it goes on from it */
        checkpoint_remove(pl->checkpoint);
    for (i = 0; i < common.made; i++) { /* the room goes to spelling a win out */
        proof_store_free(&common.threads[i].store);
        free(common.threads[i].kids);
    }
    if (won) {
        proof_trail trails[FCS_MAX_THREADS];
        for (i = 0; i < common.made; i++)
            trails[i] = common.threads[i].trail;
        *limit = !trail_whole(trails, common.made) ? TRAIL_NOT_WHOLE
                 : trail_spell(kc, trails, common.made, common.won_round, root, pl->room, pl->deadline,
                               counts, res);
    }
    for (i = 0; i < common.made; i++)
        trail_free(&common.threads[i].trail);
    free(common.threads);
    if (common.team.n)
        team_free(&common.team);
    return proved;
}

int layered_proof(const fcs_codec *kc, const proof_limits *pl, int resumed, const fcs_pos *root, fcs_counts *counts,
                  fcs_result *res, int *limit)
{
    proof_limits again = *pl;
    if (proof_pass(kc, pl, resumed, pl->room * PROOF_TRAIL, root, counts, res, limit))
        return 1;
    if (*limit != TRAIL_NOT_WHOLE)
        return 0;
    /* The deal is won: prove it again from the root, with the whole trail
       (no checkpoints: the first proof's went when it won). */
    again.checkpoint = NULL;
    again.offer = NULL;
    if (proof_pass(kc, &again, 0, UINT64_MAX, root, counts, res, limit) || *limit == TRAIL_NOT_WHOLE)
        *limit = FCS_LIMIT_DISK; /* its trail failed on disk (it cannot prove what the first proof found won) */
    return 0;
}
