/* The complete search's position store (the greedy searches use one too):
   every stored position's key, its parent and the move from it, its depth,
   and a hash table over the keys for exact duplicate detection. */
#ifndef FCS_STORE_H
#define FCS_STORE_H

#include "key.h"

#define NO_PARENT 0xFFFFFFFFu

typedef struct {
    int key_words;
    uint64_t *keys;
    uint32_t *parent;
    fcs_packed_move *move;
    uint16_t *depth;
    uint32_t n, alloc, max_states;
    uint64_t *table; /* (fingerprint << 32) | (index + 1); 0 = empty */
    uint64_t mask;
    int limit; /* the limit that stopped an insertion: FCS_LIMIT_STATES or FCS_LIMIT_MEMORY */
} fcs_store;

/* An empty store for keys of `key_words` words, holding at most
   `max_states`; 0 when out of memory. */
int store_init(fcs_store *st, int key_words, uint32_t max_states);
/* Forget every position, keeping the memory. */
void store_clear(fcs_store *st);
void store_free(fcs_store *st);
/* Find `key`, whose key_hash() is h; if absent insert it.  Returns the
   index, sets *is_new; returns NO_PARENT when a limit stops the insertion
   (st->limit says which). */
uint32_t store_find_or_add_hashed(fcs_store *st, const uint64_t *key, uint64_t h, int *is_new);
/* Set how position idx was reached: from `parent` (NO_PARENT for the root),
   by m made from `before`. */
void store_record(fcs_store *st, uint32_t idx, uint32_t parent, const fcs_pos *before, const fcs_move *m);
/* The moves from the root to `last`, then `final_move` (if any): a malloc'd
   array, its length in *steps; NULL when out of memory. */
fcs_packed_move *store_path(const fcs_store *st, uint32_t last, const fcs_packed_move *final_move, int *steps);

static inline uint32_t store_find_or_add(fcs_store *st, const uint64_t *key, int *is_new)
{
    return store_find_or_add_hashed(st, key, key_hash(key, st->key_words), is_new);
}

/* The stored key of position idx. */
static inline const uint64_t *store_key(const fcs_store *st, uint32_t idx)
{
    return &st->keys[(uint64_t)idx * st->key_words];
}

/* The stored key a table entry points to. */
static inline const uint64_t *store_entry_key(const fcs_store *st, uint64_t e)
{
    return &st->keys[((e & 0xFFFFFFFFu) - 1) * (uint64_t)st->key_words];
}

#endif
