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
    for (i = 0; i < l->n_buckets; i++)
        free(l->buckets[i].data);
    free(l->buckets);
    memset(l, 0, sizeof(*l));
}

/* Append a key to bucket b; 0 when out of memory or the bucket is full. */
static int bucket_append(proof_bucket *b, uint8_t fp, const uint8_t *key, uint32_t len)
{
    uint32_t old_index = bucket_index_bytes(b->n), new_index = bucket_index_bytes(b->n + 1u);
    if (b->n == BUCKET_MAX)
        return 0;
    if (bucket_bytes(b->n + 1u, b->used + len) != bucket_bytes(b->n, b->used)) {
        uint8_t *data = realloc(b->data, bucket_bytes(b->n + 1u, b->used + len));
        if (!data)
            return 0;
        b->data = data;
    }
    if (new_index != old_index)
        memmove(b->data + new_index, b->data + old_index, b->used);
    b->data[2 * b->n] = fp;
    b->data[2 * b->n + 1] = (uint8_t)len;
    memcpy(b->data + new_index + b->used, key, len);
    b->used += len;
    b->n++;
    return 1;
}

/* Split bucket l->split into itself and its image one level up, by the next
   hash bit, keeping arrival order (and so which keys are expanded). */
static int split_bucket(proof_layer *l)
{
    uint64_t low = l->split, high = low + ((uint64_t)1 << l->level), bit = (uint64_t)1 << l->level;
    proof_bucket old = l->buckets[low], parts[2] = {{NULL, 0, 0, 0}, {NULL, 0, 0, 0}};
    bucket_at at;
    if (l->n_buckets == l->alloc) {
        uint64_t alloc = l->alloc * 2;
        proof_bucket *buckets = realloc(l->buckets, sizeof(proof_bucket) * alloc);
        if (!buckets)
            return 0;
        l->buckets = buckets;
        l->alloc = alloc;
    }
    for (at = bucket_first(&old); bucket_has(&old, &at); bucket_next(&old, &at)) {
        uint32_t len = bucket_len(&old, &at);
        proof_bucket *to = &parts[(key_hash_packed(at.key, (int)len) & bit) != 0];
        if (at.i < old.done)
            to->done++;
        if (!bucket_append(to, bucket_fingerprint(&old, &at), at.key, len)) {
            free(parts[0].data);
            free(parts[1].data);
            return 0;
        }
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
    found = layer_find(b, hash, packed, len);
    if (!bucket_has(b, &found))
        return 0;
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

int layer_insert(proof_layer *l, uint64_t hash, const uint8_t *packed, int len)
{
    proof_bucket *b;
    if (!l->buckets) {
        if (!(l->buckets = calloc((size_t)1 << FIRST_LEVEL, sizeof(proof_bucket))))
            return 0;
        l->alloc = l->n_buckets = (uint64_t)1 << FIRST_LEVEL;
        l->level = FIRST_LEVEL;
    }
    b = &l->buckets[layer_bucket_of(l, hash)];
    if (!bucket_append(b, (uint8_t)(hash >> 56), packed, (uint32_t)len) ||
        (++l->n > l->n_buckets * BUCKET_LOAD && !split_bucket(l)))
        return 0;
    return 1;
}

