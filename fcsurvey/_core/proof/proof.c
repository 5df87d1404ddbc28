/* The layered proof (proof.h): its layers, its parts, its sweeps. */
#include "proof.h"

#include <stdio.h>
#include <stdlib.h>

#include "../clock.h"
#include "../solution.h"
#include "checkpoint.h"
#include "spill.h"

/* A child waiting for its lookup. */
typedef struct {
    uint64_t hash;
    int layer, len;
    uint8_t packed[KEY_BYTES_MAX];
} proof_child;

/* The proof under way.  The layer being worked through holds only its
   entries, the positions moves from lower layers reached; each is taken out
   in turn, and the part of the layer it leads to within the layer is
   gathered in the store's `part`, worked through, then freed, taking out
   the entries it meets on the way.  With the usual empty-column rule such
   moves can all be undone, so the parts are the layer's connected pieces
   and each is visited once; otherwise a part may overlap one gathered
   before, visited twice.

   A layer's entries can outgrow the room.  Then they come back from disk a
   slice at a time (PROOF_SLICE_EIGHTHS of the room), and the store may send
   the slice's unvisited entries back.  An entry still on disk cannot be
   taken out when a part meets it, so while any are, each finished part goes
   into `seen`: a key in it is skipped when its slice is loaded, and before
   `seen` is freed (at PROOF_SEEN_SHARE of the room) the keys on disk are
   sifted with it: those visited are dropped.  So each part is still visited
   once, and only a part itself must fit in the room. */
typedef struct {
    const fcs_codec *kc;
    const proof_limits *pl;
    fcs_counts *counts;
    proof_store store;
    proof_child *kids; /* PROOF_BATCH + FCS_MAX_MOVES */
    int n_kids;
    double started, saved, gap; /* when the proof began, last saved; how long until the next save */
    uint64_t visited, most, most_higher; /* in the layer's groups so far, for FCS_PROOF_TRACE */
} proof_state;

/* Where a child's layer is kept: the current one grows only as its part. */
static inline proof_layer *home_of(proof_state *ps, int layer)
{
    return layer == ps->store.current ? &ps->store.part : &ps->store.layers[layer];
}

/* Encode and pack p as child k, fetching its bucket's header ahead. */
static void proof_key(proof_state *ps, const fcs_pos *p, const column_code *codes, proof_child *k)
{
    uint64_t words[KEY_WORDS_MAX + 1];
    proof_layer *to;
    dealt_pairs pairs;
    k->len = (key_encode_coded(ps->kc, p, codes, words, NULL, &pairs) + 7) / 8;
    key_pack(words, k->len, k->packed);
    k->hash = key_hash_packed(k->packed, k->len);
    k->layer = proof_layer_of(ps->kc->r, &pairs, p);
    to = home_of(ps, k->layer);
    if (to->buckets)
        __builtin_prefetch(&to->buckets[layer_bucket_of(to, k->hash)]);
}

/* Look up (and add) the batch's children.  Their buckets' headers were
   fetched when they were made; fetching every bucket's index first lets
   those reads overlap instead of each lookup waiting for memory in turn.  A
   child that is one of the current layer's entries moves to the part: it is
   visited now.  Only a child new to the part can be one: one met again was
   taken out when first met. */
static int proof_flush(proof_state *ps)
{
    proof_store *st = &ps->store;
    int k;
    for (k = 0; k < ps->n_kids; k++) {
        const proof_layer *to = home_of(ps, ps->kids[k].layer);
        const proof_bucket *b = to->buckets ? &to->buckets[layer_bucket_of(to, ps->kids[k].hash)] : NULL;
        if (b)
            bucket_prefetch(b);
    }
    for (k = 0; k < ps->n_kids; k++) {
        const proof_child *kid = &ps->kids[k];
        int added;
        if (!proof_add(st, home_of(ps, kid->layer), kid->hash, kid->packed, kid->len, &added))
            return 0;
        if (added && kid->layer == st->current &&
            layer_remove(&st->layers[st->current], kid->hash, kid->packed, kid->len))
            st->live--;
    }
    ps->n_kids = 0;
    return 1;
}

/* Expand the next unexpanded position of bucket b of the part into the
   batch; 0 when the proof must stop (a limit, or a win it cannot spell out). */
static int proof_expand(proof_state *ps, uint64_t b)
{
    const fcs_rules *r = ps->kc->r;
    fcs_move moves[FCS_MAX_MOVES];
    uint64_t words[KEY_WORDS_MAX + 1];
    proof_bucket *bucket = &ps->store.part.buckets[b];
    bucket_at at = bucket_nth(bucket, bucket->done);
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    int k, n;

    key_unpack(at.key, bucket_len(bucket, &at), words);
    bucket->done++; /* before any child can split this bucket */
    ps->counts->expanded++;
    key_decode(ps->kc, words, &p, codes);
    n = fcs_legal_moves(r, &p, r->sequence != SEQ_UNLIMITED ? FCS_MOVES_SINGLE : 0, moves);
    for (k = 0; k < n; k++) {
        if (!make_child(ps->kc, HOME_SAFE, &p, codes, &moves[k], &child, child_codes))
            continue;
        if (fcs_is_won(&child))
            return 0;
        proof_key(ps, &child, child_codes, &ps->kids[ps->n_kids++]);
    }
    return ps->n_kids < PROOF_BATCH || proof_flush(ps);
}

/* Work through the part, bucket by bucket, expanding what each holds
   unexpanded, until a sweep finds nothing left: children landing in a
   bucket already swept wait for the next sweep.  0 when the proof must stop. */
static int proof_sweep_part(proof_state *ps)
{
    proof_layer *part = &ps->store.part;
    int swept = 0;
    while (!swept) {
        uint64_t b;
        swept = 1;
        for (b = 0; b < part->n_buckets; b++)
            while (part->buckets[b].done < part->buckets[b].n) {
                swept = 0;
                if (ps->pl->deadline && (ps->counts->expanded % TIME_CHECK_EVERY) == 0 &&
                    fcs_now_s() > ps->pl->deadline) {
                    ps->store.limit = FCS_LIMIT_TIME;
                    return 0;
                }
                if (!proof_expand(ps, b))
                    return 0;
            }
        if (!proof_flush(ps))
            return 0;
    }
    return 1;
}

/* Take the current layer's next entry out and into the (empty) part. */
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
    kid->hash = key_hash_packed(kid->packed, kid->len);
    kid->layer = ps->store.current;
    ps->n_kids = 1;
    return proof_flush(ps);
}

/* Between parts, when it is time: save a checkpoint.  What is left of the
   current layer is unvisited once the keys on disk are sifted with the
   parts visited.  A save waits at least CHECKPOINT_SPACING times as long as
   the last one took.  0 when the proof must stop. */
static int maybe_save(proof_state *ps)
{
    proof_store *st = &ps->store;
    fcs_counts counts;
    double began = fcs_now_s();
    if (!ps->pl->checkpoint || began - ps->saved < ps->gap)
        return 1;
    if (st->seen.n && !proof_sift_disk(st, st->current))
        return 0;
    counts = *ps->counts;
    counts.phase[FCS_LAYERED_PROOF].time_s += began - ps->started;
    /* if the disk will not take it, the proof goes on without */
    checkpoint_save(ps->pl->checkpoint, ps->pl->tag, st, st->current, &counts);
    ps->saved = fcs_now_s();
    ps->gap = ps->pl->checkpoint_every_s > CHECKPOINT_SPACING * (ps->saved - began)
                  ? ps->pl->checkpoint_every_s : CHECKPOINT_SPACING * (ps->saved - began);
    return 1;
}

/* Visit the part the current layer's next entry leads to, then let the
   part go (into `seen` while the layer has keys on disk); 0 when the proof
   must stop. */
static int proof_part(proof_state *ps, uint64_t *from)
{
    proof_store *st = &ps->store;
    int h = st->current;
    st->sweeping = 1;
    if (!proof_next_entry(ps, from) || !proof_sweep_part(ps))
        return 0;
    st->sweeping = 0;
    ps->visited += st->part.n;
    ps->counts->phase[FCS_LAYERED_PROOF].states += st->part.n;
    if (st->live > ps->most) { /* a part's end: nothing held goes before */
        ps->most = st->live;
        ps->most_higher = st->live - st->part.n - st->seen.n - st->layers[h].n;
    }
    if (!st->on_disk[h].n) {
        st->live -= st->part.n;
        layer_free(&st->part);
    } else if (!proof_merge_part(st) || (st->seen.n > st->room / PROOF_SEEN_SHARE && !proof_sift_disk(st, h))) {
        return 0;
    }
    return maybe_save(ps);
}

/* Work through layer h's entries, a slice at a time; 0 when the proof must stop. */
static int work_layer(proof_state *ps, int h)
{
    proof_store *st = &ps->store;
    uint64_t slice = st->room / 8 * PROOF_SLICE_EIGHTHS + 1; /* at least one, so each slice gets somewhere */
    st->current = h;
    while (st->layers[h].n || st->on_disk[h].n) {
        uint64_t from = 0;
        if (!proof_load_layer(st, h, slice))
            return 0;
        if (!st->on_disk[h].n)
            proof_forget_seen(st); /* no key is left to skip or sift with it */
        while (st->layers[h].n)
            if (!proof_part(ps, &from))
                return 0;
        layer_free(&st->layers[h]);
    }
    if (h % PROOF_GROUPS == PROOF_GROUPS - 1) { /* the last group of its layer */
#ifdef FCS_PROOF_TRACE /* scripts/measure_proof.py: what each layer held */
        if (ps->visited)
            fprintf(stderr, "layer %d/%d: %llu positions; most held at once: %llu (%llu in higher layers); "
                    "visited so far: %llu; spilled so far: %llu\n", h / PROOF_GROUPS / (FCS_CARDS + 1),
                    h / PROOF_GROUPS % (FCS_CARDS + 1), (unsigned long long)ps->visited,
                    (unsigned long long)ps->most, (unsigned long long)ps->most_higher,
                    (unsigned long long)ps->counts->phase[FCS_LAYERED_PROOF].states,
                    (unsigned long long)st->spilled);
#endif
        ps->visited = ps->most = ps->most_higher = 0;
    }
    return 1;
}

/* The layer to begin with: the root's, or the checkpoint's lowest; -1 when
   the proof must stop. */
static int proof_begin(proof_state *ps, int resumed, const fcs_pos *root)
{
    column_code codes[FCS_MAX_COLS];
    int h;
    if (resumed)
        return checkpoint_load(ps->pl->checkpoint, ps->pl->tag, &ps->store, &h, ps->counts) ? h : -1;
    key_code_columns(ps->kc, root, ALL_COLUMNS(ps->kc->r), codes);
    proof_key(ps, root, codes, &ps->kids[ps->n_kids++]);
    h = ps->kids[0].layer;
    return proof_flush(ps) ? h : -1;
}

int layered_proof(const fcs_codec *kc, const proof_limits *pl, int resumed, const fcs_pos *root, fcs_counts *counts,
                  int *limit)
{
    proof_state ps;
    int h = -1, proved;

    memset(&ps, 0, sizeof(ps));
    ps.kc = kc;
    ps.pl = pl;
    ps.counts = counts;
    ps.started = ps.saved = fcs_now_s();
    ps.gap = pl->checkpoint_every_s;
    ps.kids = malloc(sizeof(proof_child) * (PROOF_BATCH + FCS_MAX_MOVES));
    if (!proof_store_init(&ps.store, pl->room) || !ps.kids)
        ps.store.limit = FCS_LIMIT_MEMORY;
    else if ((h = proof_begin(&ps, resumed, root)) >= 0)
        while (h < PROOF_LAYERS && work_layer(&ps, h))
            h++;
    proved = h == PROOF_LAYERS;
    *limit = proved ? 0 : ps.store.limit;
    if (pl->checkpoint)
        checkpoint_remove(pl->checkpoint);
    proof_store_free(&ps.store);
    free(ps.kids);
    return proved;
}
