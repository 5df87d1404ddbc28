/* A proof layer's buckets (layer.h). */
#include "layer.h"

#include <stdlib.h>

static inline uint32_t bucket_bytes(uint32_t n, uint32_t used)
{
    return (bucket_index_bytes(n) + used + BUCKET_GRAIN - 1) / BUCKET_GRAIN * BUCKET_GRAIN;
}

void layer_free(proof_layer *l)
{
    uint64_t i;
    int tail = l->tail;
    for (i = 0; i < l->n_buckets; i++)
        free(l->buckets[i].data);
    free(l->buckets);
    memset(l, 0, sizeof(*l));
    l->tail = tail;
}

/* Append a key and its `tail` bytes to bucket b; 0 when out of memory or
   the bucket is full. */
static int bucket_append(proof_bucket *b, uint8_t fp, const uint8_t *key, uint32_t len, const uint8_t *tail,
                         uint32_t tail_len)
{
    uint32_t old_index = bucket_index_bytes(b->n), new_index = bucket_index_bytes(b->n + 1u);
    uint32_t bytes = len + tail_len;
    if (b->n == BUCKET_MAX)
        return 0;
    if (bucket_bytes(b->n + 1u, b->used + bytes) != bucket_bytes(b->n, b->used)) {
        uint8_t *data = realloc(b->data, bucket_bytes(b->n + 1u, b->used + bytes));
        if (!data)
            return 0;
        b->data = data;
    }
    if (new_index != old_index)
        memmove(b->data + new_index, b->data + old_index, b->used);
    b->data[2 * b->n] = fp;
    b->data[2 * b->n + 1] = (uint8_t)bytes;
    memcpy(b->data + new_index + b->used, key, len);
    if (tail_len)
        memcpy(b->data + new_index + b->used + len, tail, tail_len);
    b->used += bytes;
    b->n++;
    return 1;
}

/* An empty bucket with room for n keys of `used` bytes, as bucket_append
   would have grown it to; 0 when out of memory. */
static int bucket_reserve(proof_bucket *b, uint32_t n, uint32_t used)
{
    memset(b, 0, sizeof(*b));
    return !n || (b->data = malloc(bucket_bytes(n, used))) != NULL;
}

/* Copy the key `at` of old to the end of b, reserved big enough for it. */
static void bucket_copy(proof_bucket *b, const proof_bucket *old, const bucket_at *at, uint32_t index_bytes)
{
    uint32_t len = bucket_len(old, at);
    b->data[2 * b->n] = bucket_fingerprint(old, at);
    b->data[2 * b->n + 1] = (uint8_t)len;
    memcpy(b->data + index_bytes + b->used, at->key, len);
    b->used += len;
    b->n++;
}

/* Split bucket l->split into itself and its image one level up, by the next
   hash bit, keeping arrival order (and so which keys are expanded).  Each
   half is allocated once at its final size: a first walk finds which half
   each key goes to (BUCKET_MAX of them at most), a second copies them. */
static int split_bucket(proof_layer *l)
{
    uint64_t low = l->split, high = low + ((uint64_t)1 << l->level), bit = (uint64_t)1 << l->level;
    uint64_t side[(BUCKET_MAX + 64) / 64];
    proof_bucket old = l->buckets[low], parts[2];
    uint32_t n[2] = {0, 0}, used[2] = {0, 0}, index_bytes[2];
    bucket_at at;
    int k;
    if (l->n_buckets == l->alloc) {
        uint64_t alloc = l->alloc * 2;
        proof_bucket *buckets = realloc(l->buckets, sizeof(proof_bucket) * alloc);
        if (!buckets)
            return 0;
        l->buckets = buckets;
        l->alloc = alloc;
    }
    memset(side, 0, sizeof(uint64_t) * (old.n / 64 + 1u));
    for (at = bucket_first(&old); bucket_has(&old, &at); bucket_next(&old, &at)) {
        uint32_t len = bucket_len(&old, &at);
        k = (key_hash_packed(at.key, (int)len - l->tail) & bit) != 0;
        side[at.i / 64] |= (uint64_t)k << (at.i % 64);
        n[k]++;
        used[k] += len;
    }
    if (!bucket_reserve(&parts[0], n[0], used[0]) || !bucket_reserve(&parts[1], n[1], used[1])) {
        free(parts[0].data);
        return 0;
    }
    index_bytes[0] = bucket_index_bytes(n[0]);
    index_bytes[1] = bucket_index_bytes(n[1]);
    for (at = bucket_first(&old); bucket_has(&old, &at); bucket_next(&old, &at)) {
        k = (int)(side[at.i / 64] >> (at.i % 64) & 1);
        parts[k].done += at.i < old.done;
        bucket_copy(&parts[k], &old, &at, index_bytes[k]);
    }
    free(old.data);
    l->buckets[low] = parts[0];
    l->buckets[high] = parts[1];
    l->n_buckets++;
    if (++l->split == bit) {
        l->level++;
        l->split = 0;
    }
    return 1;
}

int layer_remove(proof_layer *l, uint64_t hash, const uint8_t *packed, int len)
{
    proof_bucket *b;
    uint8_t *keys;
    uint32_t i, at, old_index, new_index;
    bucket_at found;
    if (!l->buckets)
        return 0;
    b = &l->buckets[layer_bucket_of(l, hash)];
    found = layer_find(b, l->tail, hash, packed, len);
    if (!bucket_has(b, &found))
        return 0;
    len += l->tail;
    old_index = bucket_index_bytes(b->n);
    keys = b->data + old_index;
    i = found.i;
    at = (uint32_t)(found.key - keys);
    memmove(keys + at, keys + at + len, b->used - at - (uint32_t)len);
    memmove(b->data + 2 * i, b->data + 2 * i + 2, 2 * (b->n - i - 1u));
    b->used -= (uint32_t)len;
    new_index = bucket_index_bytes(b->n - 1u);
    if (new_index != old_index)
        memmove(b->data + new_index, keys, b->used);
    b->n--;
    l->n--;
    if (!b->n) {
        free(b->data);
        b->data = NULL;
    } else if (bucket_bytes(b->n, b->used) != bucket_bytes(b->n + 1u, b->used + (uint32_t)len)) {
        uint8_t *data = realloc(b->data, bucket_bytes(b->n, b->used));
        if (data) /* else the bucket keeps its larger block, which is harmless */
            b->data = data;
    }
    return 1;
}

int layer_insert(proof_layer *l, uint64_t hash, const uint8_t *packed, int len, const uint8_t *tail)
{
    proof_bucket *b;
    if (!l->buckets) {
        if (!(l->buckets = calloc((size_t)1 << FIRST_LEVEL, sizeof(proof_bucket))))
            return 0;
        l->alloc = l->n_buckets = (uint64_t)1 << FIRST_LEVEL;
        l->level = FIRST_LEVEL;
    }
    b = &l->buckets[layer_bucket_of(l, hash)];
    if (!bucket_append(b, (uint8_t)(hash >> 56), packed, (uint32_t)len, tail, (uint32_t)l->tail) ||
        (++l->n > l->n_buckets * BUCKET_LOAD && !split_bucket(l)))
        return 0;
    return 1;
}

