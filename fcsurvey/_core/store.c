/* The position store (store.h). */
#include "store.h"

#include <stdlib.h>

#include "search.h"
#include "tuning.h"

static int grow_store(fcs_store *st)
{
    uint32_t alloc = st->alloc ? st->alloc * 2 : INITIAL_STATES;
    void *p;
    if (alloc > st->max_states)
        alloc = st->max_states;
    if ((p = realloc(st->keys, (size_t)alloc * (size_t)st->key_words * 8)) == NULL)
        return 0;
    st->keys = p;
    if ((p = realloc(st->parent, (size_t)alloc * sizeof(uint32_t))) == NULL)
        return 0;
    st->parent = p;
    if ((p = realloc(st->move, (size_t)alloc * sizeof(fcs_packed_move))) == NULL)
        return 0;
    st->move = p;
    if ((p = realloc(st->depth, (size_t)alloc * sizeof(uint16_t))) == NULL)
        return 0;
    st->depth = p;
    st->alloc = alloc;
    return 1;
}

static int grow_table(fcs_store *st)
{
    uint64_t size = st->mask ? (st->mask + 1) * 2 : (uint64_t)INITIAL_STATES * 2, i;
    uint64_t *t = calloc(size, sizeof(uint64_t));
    if (!t)
        return 0;
    for (i = 0; st->table && i <= st->mask; i++) {
        uint64_t e = st->table[i], slot;
        if (!e)
            continue;
        slot = key_hash(store_entry_key(st, e), st->key_words) & (size - 1);
        while (t[slot])
            slot = (slot + 1) & (size - 1);
        t[slot] = e;
    }
    free(st->table);
    st->table = t;
    st->mask = size - 1;
    return 1;
}

int store_init(fcs_store *st, int key_words, uint32_t max_states)
{
    memset(st, 0, sizeof(*st));
    st->key_words = key_words;
    st->max_states = max_states;
    return grow_table(st);
}

void store_clear(fcs_store *st)
{
    st->n = 0;
    memset(st->table, 0, (size_t)(st->mask + 1) * sizeof(uint64_t));
}

void store_free(fcs_store *st)
{
    free(st->keys);
    free(st->parent);
    free(st->move);
    free(st->depth);
    free(st->table);
    memset(st, 0, sizeof(*st));
}

static inline int same_words(const uint64_t *a, const uint64_t *b, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

uint32_t store_find_or_add_hashed(fcs_store *st, const uint64_t *key, uint64_t h, int *is_new)
{
    uint64_t slot = h & st->mask, fp = h >> 32, e;
    size_t bytes = (size_t)st->key_words * 8;
    while ((e = st->table[slot]) != 0) {
        if ((e >> 32) == fp && same_words(store_entry_key(st, e), key, st->key_words)) {
            *is_new = 0;
            return (uint32_t)(e & 0xFFFFFFFFu) - 1;
        }
        slot = (slot + 1) & st->mask;
    }
    if (st->n >= st->max_states) {
        st->limit = FCS_LIMIT_STATES;
        return NO_PARENT;
    }
    if (st->n == st->alloc && !grow_store(st)) {
        st->limit = FCS_LIMIT_MEMORY;
        return NO_PARENT;
    }
    memcpy(&st->keys[(uint64_t)st->n * st->key_words], key, bytes);
    st->table[slot] = (fp << 32) | (uint64_t)(st->n + 1);
    *is_new = 1;
    st->n++;
    if ((uint64_t)st->n * 2 > st->mask && !grow_table(st)) {
        st->limit = FCS_LIMIT_MEMORY;
        return NO_PARENT;
    }
    return st->n - 1;
}

void store_record(fcs_store *st, uint32_t idx, uint32_t parent, const fcs_pos *before, const fcs_move *m)
{
    st->parent[idx] = parent;
    st->move[idx] = parent == NO_PARENT ? 0 : fcs_pack(before, m);
    st->depth[idx] = parent == NO_PARENT ? 0 : (uint16_t)(st->depth[parent] + 1);
}

fcs_packed_move *store_path(const fcs_store *st, uint32_t last, const fcs_packed_move *final_move, int *steps)
{
    int n = final_move ? 1 : 0, i;
    uint32_t v;
    fcs_packed_move *path;
    for (v = last; v != NO_PARENT && st->parent[v] != NO_PARENT; v = st->parent[v])
        n++;
    path = malloc(sizeof(fcs_packed_move) * (size_t)(n + 1));
    if (!path)
        return NULL;
    i = n - 1;
    if (final_move)
        path[i--] = *final_move;
    for (v = last; v != NO_PARENT && st->parent[v] != NO_PARENT; v = st->parent[v])
        path[i--] = st->move[v];
    *steps = n;
    return path;
}
