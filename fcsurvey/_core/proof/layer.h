/* One layer of the layered proof: its positions' keys, each packed to its
   own length, in buckets by hash under linear hashing: buckets split one at
   a time as the layer grows, so no step needs twice the memory.

   A bucket: an index of (fingerprint, key length) slots, room for a
   multiple of SLOT_GRAIN of them, then the keys, both in order of arrival;
   the first `done` have been expanded.  A lookup reads the index and only
   the keys whose fingerprint matches.  The bucket_at cursor is the one walk
   of that layout.

   A layer may keep `tail` bytes after each key that are not part of it
   (the part's back moves, proof.c): a slot's length counts them, a lookup
   compares and a split hashes only the key before them. */
#ifndef FCS_PROOF_LAYER_H
#define FCS_PROOF_LAYER_H

#include "../key.h"
#include "../tuning.h"

#define BUCKET_MAX 0xFFFFu

typedef struct {
    uint8_t *data;
    uint32_t used; /* bytes of keys */
    uint16_t n, done;
} proof_bucket;

typedef struct {
    proof_bucket *buckets;
    uint64_t n_buckets, n, split, alloc;
    int level; /* a hash's low `level` bits pick the bucket, one more if below split */
    int tail;  /* bytes kept after each key, not part of it (0, or PROOF_BACK_BYTES for the part); layer_free keeps it */
} proof_layer;

/* A key of a bucket: where it starts, its place in arrival order. */
typedef struct {
    const uint8_t *key;
    uint32_t i;
} bucket_at;

/* Put a key (packed to `len` bytes, with its key_hash_packed) into layer l
   without looking for it there, followed by l->tail bytes of `tail` (NULL
   when l->tail is 0); 0 when out of memory. */
int layer_insert(proof_layer *l, uint64_t hash, const uint8_t *packed, int len, const uint8_t *tail);
/* Take a key out of layer l, one never swept (its buckets' `done` is 0);
   0 when it is not there.  A bucket's memory shrinks with it, so an entry
   taken out of its layer frees its bytes. */
int layer_remove(proof_layer *l, uint64_t hash, const uint8_t *packed, int len);
void layer_free(proof_layer *l);

static inline uint64_t layer_bucket_of(const proof_layer *l, uint64_t hash)
{
    uint64_t b = hash & (((uint64_t)1 << l->level) - 1);
    return b < l->split ? hash & (((uint64_t)1 << (l->level + 1)) - 1) : b;
}

static inline uint32_t bucket_index_bytes(uint32_t n)
{
    return (n + SLOT_GRAIN - 1) / SLOT_GRAIN * SLOT_GRAIN * 2;
}

/* The bucket's first key. */
static inline bucket_at bucket_first(const proof_bucket *b)
{
    bucket_at at = {b->n ? b->data + bucket_index_bytes(b->n) : NULL, 0};
    return at;
}

/* Whether `at` is a key of the bucket (not past its last). */
static inline int bucket_has(const proof_bucket *b, const bucket_at *at)
{
    return at->i < b->n;
}

/* The bytes the bucket keeps for key `at`: the key's, and its layer's tail. */
static inline uint8_t bucket_len(const proof_bucket *b, const bucket_at *at)
{
    return b->data[2 * at->i + 1];
}

static inline uint8_t bucket_fingerprint(const proof_bucket *b, const bucket_at *at)
{
    return b->data[2 * at->i];
}

static inline void bucket_next(const proof_bucket *b, bucket_at *at)
{
    at->key += b->data[2 * at->i + 1];
    at->i++;
}

/* Fetch the bucket's index ahead of a lookup: its first byte and its last
   (an index of 24 to 48 slots, 48 to 96 bytes, often spans two cache lines). */
static inline void bucket_prefetch(const proof_bucket *b)
{
    if (b->n) {
        __builtin_prefetch(b->data);
        __builtin_prefetch(b->data + 2 * b->n - 1);
    }
}

/* Fetch the key of bucket b a lookup of (hash, len) would compare first,
   `len` the bytes the bucket keeps for it (its layer's tail included): the
   index must be fetched already, the bucket must not change before the
   lookup for this to help (a fetch is only a hint: it is never wrong). */
static inline void bucket_prefetch_match(const proof_bucket *b, uint64_t hash, int len)
{
    const uint8_t fp = (uint8_t)(hash >> 56), *index = b->data, *key;
    uint32_t i;
    if (!b->n)
        return;
    key = b->data + bucket_index_bytes(b->n);
    for (i = 0; i < b->n; key += index[2 * i + 1], i++)
        if (index[2 * i] == fp && index[2 * i + 1] == len) {
            __builtin_prefetch(key);
            __builtin_prefetch(key + len - 1);
            return;
        }
}

/* The bucket's key `i` in arrival order. */
static inline bucket_at bucket_nth(const proof_bucket *b, uint32_t i)
{
    bucket_at at = bucket_first(b);
    while (at.i < i)
        bucket_next(b, &at);
    return at;
}

/* Where bucket b (of a layer keeping `tail` bytes after each key) holds
   the key (packed to `len` bytes, with its hash); past its last key
   (bucket_has false) when it does not. */
static inline bucket_at layer_find(const proof_bucket *b, int tail, uint64_t hash, const uint8_t *packed, int len)
{
    const uint8_t fp = (uint8_t)(hash >> 56), *index = b->data;
    const uint32_t n = b->n;
    bucket_at at = bucket_first(b);
    for (; at.i < n; at.key += index[2 * at.i + 1], at.i++)
        if (index[2 * at.i] == fp && index[2 * at.i + 1] == len + tail && key_same_packed(at.key, packed, len))
            break;
    return at;
}

/* Whether layer l holds the key (packed to `len` bytes, with its hash). */
static inline int layer_has(const proof_layer *l, uint64_t hash, const uint8_t *packed, int len)
{
    const proof_bucket *b;
    bucket_at at;
    if (!l->buckets)
        return 0;
    b = &l->buckets[layer_bucket_of(l, hash)];
    at = layer_find(b, l->tail, hash, packed, len);
    return bucket_has(b, &at);
}

#endif
