/* The complete search: every child is stored as it is generated (exact
   duplicate detection), with every legal move (single cards, plus sequence
   moves) and safe autoplay after each one, and the open list is worked in
   score order until a solution turns up or no position is left: then every
   reachable position has been seen, which proves the deal unsolvable. */
#include <stdlib.h>

#include "phase.h"
#include "solution.h"
#include "tuning.h"

int complete_start(fcs_search *s, const fcs_pos *root)
{
    static const uint32_t zero = 0;
    uint64_t key[KEY_WORDS_MAX + 1];
    int is_new;
    uint32_t idx;

    key_encode(s->codec, root, key, NULL, NULL);
    idx = store_find_or_add(s->store, key, &is_new);
    if (idx == NO_PARENT) {
        s->limit = s->store->limit;
        return 0;
    }
    store_record(s->store, idx, NO_PARENT, NULL, NULL);
    open_clear(s->open, 1);
    if (!open_push(s->open, &zero, idx, NO_MOVE)) {
        s->limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    return 1;
}

/* A child keyed and hashed ahead of its lookup. */
typedef struct {
    uint64_t key[KEY_WORDS_MAX + 1];
    uint64_t hash;
    int move; /* its move's index */
} keyed_child;

/* Look up (and add) the children of cur (p, its columns coded in `codes`),
   whose moves are `moves`, up to `n` of them, keyed in `kids`.  First fetch
   their table slots, then the keys the slots point to whose fingerprint
   matches, so that the reads overlap instead of each lookup waiting for
   memory in turn: most children are met before, and each such lookup reads
   a key from anywhere in the store.  A new child is built again for its
   score.  0 when a limit stopped it. */
static int add_children(fcs_search *s, uint32_t cur, const fcs_pos *p, const column_code *codes,
                        const fcs_move *moves, const keyed_child *kids, int n)
{
    fcs_store *st = s->store;
    fcs_pos child;
    column_code child_codes[FCS_MAX_COLS];
    int k, is_new;
    for (k = 0; k < n; k++)
        __builtin_prefetch(&st->table[kids[k].hash & st->mask]);
    for (k = 0; k < n; k++) {
        uint64_t e = st->table[kids[k].hash & st->mask];
        if (e && (e >> 32) == (kids[k].hash >> 32))
            __builtin_prefetch(store_entry_key(st, e));
    }
    for (k = 0; k < n; k++) {
        const fcs_move *m = &moves[kids[k].move];
        uint32_t c = store_find_or_add_hashed(st, kids[k].key, kids[k].hash, &is_new);
        if (c == NO_PARENT) {
            s->limit = st->limit;
            return 0;
        }
        if (is_new) {
            uint32_t priority;
            make_child(s->codec, HOME_SAFE, p, codes, m, &child, child_codes);
            store_record(st, c, cur, p, m);
            priority = score_position(s->codec->r, s->w, &child) + (uint32_t)(s->w->depth * st->depth[c]);
            if (!open_push(s->open, &priority, c, NO_MOVE)) {
                s->limit = FCS_LIMIT_MEMORY;
                return 0;
            }
        } else if (st->depth[cur] + 1 < st->depth[c]) {
            /* A shorter way to a known position: keep it for the path.
               Depths only fall and a parent is always shallower than its
               child, so parent links can never form a cycle. */
            store_record(st, c, cur, p, m);
        }
    }
    return 1;
}

/* Expand stored position cur: key its children, and add them; 0 when the
   search ends here (a win, with the solution in res, or a limit). */
static int expand(fcs_search *s, uint32_t cur, keyed_child *kids, fcs_result *res)
{
    fcs_move moves[FCS_MAX_MOVES];
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    int i, n, n_kids;

    (*s->expanded)++;
    key_decode(s->codec, store_key(s->store, cur), &p, codes);
    n = fcs_legal_moves(s->codec->r, &p, 0, moves);
    for (i = n_kids = 0; i < n; i++) {
        keyed_child *k;
        if (!make_child(s->codec, HOME_SAFE, &p, codes, &moves[i], &child, child_codes))
            continue;
        if (fcs_is_won(&child))
            break;
        k = &kids[n_kids++];
        key_encode_coded(s->codec, &child, child_codes, k->key, NULL, NULL);
        k->hash = key_hash(k->key, s->codec->key_words);
        k->move = i;
    }
    /* The children before a won one are added first, as they come before it. */
    if (!add_children(s, cur, &p, codes, moves, kids, n_kids))
        return 0;
    if (i < n) {
        fcs_packed_move last = fcs_pack(&p, &moves[i]);
        solution_from_store(s->codec, HOME_SAFE, s->store, cur, &last, res);
        return 0;
    }
    return 1;
}

int complete_search(fcs_search *s, uint32_t pause_at, fcs_result *res)
{
    keyed_child *kids = malloc(sizeof(keyed_child) * FCS_MAX_MOVES);
    int outcome = PHASE_DONE, going = 1;

    if (!kids) {
        s->limit = FCS_LIMIT_MEMORY;
        return PHASE_DONE;
    }
    while (going && s->open->n) {
        uint32_t cur;
        if (pause_at && s->store->n >= pause_at) {
            outcome = PHASE_PAUSED;
            break;
        }
        cur = open_pop(s->open).state;
        if (s->deadline && (*s->expanded % TIME_CHECK_EVERY) == 0 && fcs_now_s() > s->deadline) {
            s->limit = FCS_LIMIT_TIME;
            going = 0;
            break;
        }
        going = expand(s, cur, kids, res);
    }
    if (going && !s->open->n)
        res->status = FCS_UNSOLVABLE;
    free(kids);
    return outcome;
}
