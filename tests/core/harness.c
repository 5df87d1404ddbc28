/* A standalone harness for the C core's components, built and run by
   tests/test_core_components.py.  Each command drives one component through
   its header and prints what it found as tab-separated name=value fields;
   the tests decide what those must be.  It needs a C compiler and the core's
   sources, nothing of Python.

     keys SEED WALKS STEPS < start     the key codec (key.h) on positions of
                                       random legal play from `start`
     layer SEED N                      a proof layer's buckets (proof/layer.h)
     spill SEED N                      the spill file (proof/spill.h)
     checkpoint save SEED N PATH TAG   a checkpoint of a store made from SEED
     checkpoint load SEED N PATH TAG   load it and compare with that store

   `start` is: cells columns build empty_fill sequence foundation_return,
   then per column its length and cards (1..52: rank_index * 4 + suit + 1),
   then one number per cell (0: empty), then the 4 foundation counts.  TAG
   is 64 hex digits. */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "key.h"
#include "proof/checkpoint.h"
#include "proof/layer.h"
#include "proof/spill.h"

/* ---- shared: a seeded generator, test keys, printing ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
    return (uint32_t)(rng() % n);
}

/* A packed key as the proof stores one: 1..KEY_BYTES_MAX bytes. */
typedef struct {
    uint8_t len;
    uint8_t bytes[KEY_BYTES_MAX];
    uint32_t arrival; /* its place in the order keys are added */
} test_key;

static int key_order(const void *a, const void *b)
{
    const test_key *x = a, *y = b;
    int c = memcmp(x->bytes, y->bytes, x->len < y->len ? x->len : y->len);
    return c ? c : (int)x->len - (int)y->len;
}

static uint64_t hash_of(const test_key *k)
{
    return key_hash_packed(k->bytes, k->len);
}

/* n distinct keys in random arrival order (keys[i].arrival == i), mostly of
   the lengths real keys have, some short, and every eighth one the previous
   one less its last byte (keys equal but for their length must stay apart).
   *sorted gets a copy sorted by key_order, for find_key. */
static test_key *make_keys(uint32_t n, test_key **sorted)
{
    test_key *keys = calloc(n, sizeof(test_key)), *all = calloc(n, sizeof(test_key));
    uint32_t have = 0, i, j;
    if (!keys || !all)
        exit(3);
    while (have < n) {
        for (i = have; i < n; i++) {
            test_key *k = &all[i];
            if (i % 8 == 7 && all[i - 1].len > 1) {
                *k = all[i - 1];
                k->len--;
                continue;
            }
            k->len = (uint8_t)(rng() % 4 ? 8 + below(24) : 1 + below(KEY_BYTES_MAX));
            for (j = 0; j < k->len; j++)
                k->bytes[j] = (uint8_t)rng();
        }
        qsort(all, n, sizeof(test_key), key_order);
        for (have = 0, i = 0; i < n; i++)
            if (!have || key_order(&all[have - 1], &all[i]))
                all[have++] = all[i];
    }
    memcpy(keys, all, n * sizeof(test_key));
    for (i = n - 1; i > 0; i--) {
        test_key t;
        j = below(i + 1);
        t = keys[i];
        keys[i] = keys[j];
        keys[j] = t;
    }
    for (i = 0; i < n; i++)
        keys[i].arrival = i;
    memcpy(all, keys, n * sizeof(test_key));
    qsort(all, n, sizeof(test_key), key_order);
    *sorted = all;
    return keys;
}

/* The key among `sorted` with these bytes, or NULL. */
static const test_key *find_key(const test_key *sorted, uint32_t n, const uint8_t *bytes, uint8_t len)
{
    test_key probe;
    probe.len = len;
    memcpy(probe.bytes, bytes, len);
    return bsearch(&probe, sorted, n, sizeof(test_key), key_order);
}

/* A key that is none of `sorted`. */
static test_key absent_key(const test_key *sorted, uint32_t n)
{
    test_key k;
    uint32_t j;
    do {
        k.len = (uint8_t)(1 + below(KEY_BYTES_MAX));
        for (j = 0; j < k.len; j++)
            k.bytes[j] = (uint8_t)rng();
    } while (find_key(sorted, n, k.bytes, k.len));
    return k;
}

static void field(const char *name, unsigned long long value)
{
    printf("\t%s=%llu", name, value);
}

/* ---- keys: the codec ---- */

static int read_int(int lo, int hi, int *v)
{
    return scanf("%d", v) == 1 && *v >= lo && *v <= hi;
}

static int read_start(fcs_rules *r, fcs_pos *p)
{
    int i, j, v;
    memset(p, 0, sizeof(*p));
    if (!read_int(0, FCS_MAX_CELLS, &r->cells) || !read_int(1, FCS_MAX_COLS, &r->columns) ||
        !read_int(0, 2, &r->build) || !read_int(0, 2, &r->empty_fill) || !read_int(0, 2, &r->sequence) ||
        !read_int(0, 1, &r->foundation_return))
        return 0;
    for (i = 0; i < r->columns; i++) {
        if (!read_int(0, FCS_MAX_COL_LEN, &v))
            return 0;
        p->len[i] = (uint8_t)v;
        for (j = 0; j < p->len[i]; j++) {
            if (!read_int(1, FCS_CARDS, &v))
                return 0;
            p->col[i][j] = (uint8_t)v;
        }
    }
    for (i = 0; i < r->cells; i++) {
        if (!read_int(0, FCS_CARDS, &v))
            return 0;
        p->cell[i] = (uint8_t)v;
    }
    for (i = 0; i < FCS_NUM_SUITS; i++) {
        if (!read_int(0, FCS_RANKS, &v))
            return 0;
        p->found[i] = (uint8_t)v;
    }
    return 1;
}

/* A position as text: columns split by '/', cards by ',', then '|' and the
   cells, '|' and the foundations. */
static void print_position(const char *name, const fcs_rules *r, const fcs_pos *p)
{
    int i, j;
    printf("\t%s=", name);
    for (i = 0; i < r->columns; i++) {
        printf("%s", i ? "/" : "");
        for (j = 0; j < p->len[i]; j++)
            printf("%s%d", j ? "," : "", p->col[i][j]);
    }
    printf("|");
    for (i = 0; i < r->cells; i++)
        printf("%s%d", i ? "," : "", p->cell[i]);
    printf("|%d,%d,%d,%d", p->found[0], p->found[1], p->found[2], p->found[3]);
}

static void print_key(const char *name, const fcs_codec *kc, const uint64_t *key)
{
    int i;
    printf("\t%s=", name);
    for (i = 0; i < kc->key_words; i++)
        printf("%016llx", (unsigned long long)key[i]);
}

static int same_words(const uint64_t *a, const uint64_t *b)
{
    return memcmp(a, b, KEY_WORDS_MAX * sizeof(uint64_t)) == 0;
}

/* Whether two coded columns agree in every field the key reads. */
static int same_codes(const fcs_rules *r, const column_code *a, const column_code *b)
{
    int i;
    for (i = 0; i < r->columns; i++) {
        if (a[i].n != b[i].n || a[i].origin != b[i].origin)
            return 0;
        if (a[i].n && (a[i].bits != b[i].bits || a[i].bottom != b[i].bottom))
            return 0;
        if (a[i].n && a[i].origin >= 0 && a[i].kept != b[i].kept)
            return 0;
    }
    return 1;
}

/* p with its columns and its cells in a random order. */
static void shuffle_position(const fcs_rules *r, const fcs_pos *p, fcs_pos *out)
{
    int order[FCS_MAX_COLS + FCS_MAX_CELLS], i, j, t, n;
    *out = *p;
    for (n = r->columns, i = 0; i < n; i++)
        order[i] = i;
    for (i = n - 1; i > 0; i--) {
        j = (int)below((uint32_t)i + 1);
        t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (i = 0; i < n; i++) {
        memcpy(out->col[i], p->col[order[i]], FCS_MAX_COL_LEN);
        out->len[i] = p->len[order[i]];
    }
    for (i = r->cells - 1; i > 0; i--) {
        j = (int)below((uint32_t)i + 1);
        t = out->cell[i];
        out->cell[i] = out->cell[j];
        out->cell[j] = (uint8_t)t;
    }
}

/* Pack a key to its own length, as the proof does, and check that it comes
   back whole, and that packed comparison tells it from a copy one bit off. */
static int packs(const uint64_t *key, int bits)
{
    uint8_t packed[KEY_BYTES_MAX], other[KEY_BYTES_MAX];
    uint64_t back[KEY_WORDS_MAX];
    int len = (bits + 7) / 8;
    key_pack(key, len, packed);
    key_unpack(packed, len, back);
    memcpy(other, packed, (size_t)len);
    other[below((uint32_t)len)] ^= (uint8_t)(1u << below(8));
    return same_words(key, back) && key_same_packed(packed, packed, len) && !key_same_packed(packed, other, len);
}

/* One position of the walk: everything the codec promises about it.
   `codes` holds p's columns as the walk coded them, move by move. */
static void check_position(const fcs_codec *kc, const fcs_pos *p, const column_code *codes)
{
    const fcs_rules *r = kc->r;
    uint64_t key[KEY_WORDS_MAX], again[KEY_WORDS_MAX], shuffled_key[KEY_WORDS_MAX], coded_key[KEY_WORDS_MAX];
    column_code decoded_codes[FCS_MAX_COLS], decoded_fresh[FCS_MAX_COLS], fresh[FCS_MAX_COLS];
    key_layout lay;
    dealt_pairs pairs, shuffled_pairs;
    fcs_pos canon, decoded, shuffled;
    int bits = key_encode(kc, p, key, &lay, &pairs), coded_bits;

    key_canonical(p, &lay, &canon);
    key_decode(kc, key, &decoded, decoded_codes);
    key_encode(kc, &decoded, again, NULL, NULL);
    key_code_columns(kc, &decoded, ALL_COLUMNS(r), decoded_fresh);
    shuffle_position(r, p, &shuffled);
    key_encode(kc, &shuffled, shuffled_key, NULL, &shuffled_pairs);
    coded_bits = key_encode_coded(kc, p, codes, coded_key, NULL, NULL);
    key_code_columns(kc, p, ALL_COLUMNS(r), fresh);

    printf("sample");
    print_position("pos", r, p);
    print_key("key", kc, key);
    field("bits", (unsigned long long)bits);
    field("words", (unsigned long long)kc->key_words);
    print_position("canon", r, &canon);
    print_position("decoded", r, &decoded);
    print_key("again", kc, again);
    print_position("shuffled", r, &shuffled);
    print_key("shuffled_key", kc, shuffled_key);
    field("decoded_codes", (unsigned long long)same_codes(r, decoded_codes, decoded_fresh));
    field("coded", (unsigned long long)(coded_bits == bits && same_words(coded_key, key) &&
                                        same_codes(r, codes, fresh)));
    field("packed", (unsigned long long)packs(key, bits));
    printf("\tpairs=%d:%llu\tshuffled_pairs=%d:%llu\n", pairs.count, (unsigned long long)pairs.which,
           shuffled_pairs.count, (unsigned long long)shuffled_pairs.which);
}

#define WALK_MAX 4096

static int home_count(const fcs_pos *p)
{
    return p->found[0] + p->found[1] + p->found[2] + p->found[3];
}

/* Random legal play from the start, `walks` times `steps` positions, each
   checked.  A walk that blocks, and now and then one that does not, goes on
   from its furthest position yet (most cards home), so it keeps branching
   and reaches deep instead of ending or going round in circles. */
static int cmd_keys(int walks, int steps)
{
    static fcs_pos seen[WALK_MAX];
    static column_code seen_codes[WALK_MAX][FCS_MAX_COLS];
    fcs_rules r;
    fcs_pos start, p;
    fcs_codec kc;
    fcs_move moves[FCS_MAX_MOVES];
    column_code codes[FCS_MAX_COLS];
    int w, s, last = 0, best;
    if (!read_start(&r, &start) || steps > WALK_MAX) {
        fprintf(stderr, "harness: bad start position on stdin, or over %d steps\n", WALK_MAX);
        return 2;
    }
    key_codec_init(&kc, &r, &start);
    printf("codec");
    field("k_bits", (unsigned long long)kc.k_bits);
    field("chain_bits", (unsigned long long)kc.chain_bits);
    field("words", (unsigned long long)kc.key_words);
    printf("\n");
    for (w = 0; w < walks; w++) {
        p = start;
        best = 0;
        key_code_columns(&kc, &p, ALL_COLUMNS(&r), codes);
        for (s = 0; s < steps; s++) {
            int n, home[FCS_MAX_MOVES], other[FCS_MAX_MOVES], n_home = 0, n_other = 0, i;
            const fcs_move *m;
            check_position(&kc, &p, codes);
            seen[s] = p;
            memcpy(seen_codes[s], codes, sizeof(codes));
            if (home_count(&p) > home_count(&seen[best]))
                best = s;
            /* Blocked, or now and then anyway: on from the furthest position yet. */
            if (!(n = fcs_legal_moves(&r, &p, 0, moves)) || rng() % 16 == 0) {
                p = seen[best];
                memcpy(codes, seen_codes[best], sizeof(codes));
                n = fcs_legal_moves(&r, &p, 0, moves);
            }
            for (i = 0; !n && i < s; i++) {
                p = seen[i];
                memcpy(codes, seen_codes[i], sizeof(codes));
                n = fcs_legal_moves(&r, &p, 0, moves);
            }
            if (!n)
                break; /* the start itself is blocked */
            for (i = 0; i < n; i++) {
                if (moves[i].dst_kind == AT_FOUNDATION)
                    home[n_home++] = i;
                else if (moves[i].dst_kind == AT_COLUMN && fcs_moved_card(&p, &moves[i]) != last)
                    other[n_other++] = i;
            }
            /* Cards go home most times they can, to a cell only a quarter of
               the time, and back where they came from seldom, so walks reach
               deep. */
            if (n_home && rng() % 8)
                m = &moves[home[below((uint32_t)n_home)]];
            else if (n_other && rng() % 4)
                m = &moves[other[below((uint32_t)n_other)]];
            else
                m = &moves[below((uint32_t)n)];
            last = fcs_moved_card(&p, m);
            fcs_apply(&p, m);
            key_code_columns(&kc, &p, fcs_move_columns(m), codes);
        }
    }
    return 0;
}

/* ---- layer: buckets and linear hashing ---- */

/* Walk every bucket of l with the bucket cursor: how many keys it holds,
   how many sit in a bucket their hash does not pick or with a fingerprint
   not their hash's, how many are not among `sorted` (or are there twice), and
   how many come before a key that arrived earlier (buckets keep arrival
   order).  With `first_later` given, also how many of the first `done` keys
   of a bucket arrived at or after it, or of the rest before it. */
typedef struct {
    uint64_t keys, misplaced, foreign, unordered, done_wrong, done_sum, nonempty, tail_wrong;
} layer_walk;

static layer_walk walk_layer(const proof_layer *l, const test_key *sorted, uint32_t n, uint32_t first_later)
{
    layer_walk lw = {0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t *met = calloc(n ? n : 1, 1);
    uint64_t b;
    for (b = 0; b < l->n_buckets; b++) {
        const proof_bucket *bucket = &l->buckets[b];
        bucket_at at;
        int64_t last = -1;
        lw.nonempty += bucket->n != 0;
        lw.done_sum += bucket->done;
        for (at = bucket_first(bucket); bucket_has(bucket, &at); bucket_next(bucket, &at)) {
            uint8_t len = (uint8_t)(bucket_len(bucket, &at) - l->tail);
            const test_key *k = find_key(sorted, n, at.key, len);
            uint64_t hash = key_hash_packed(at.key, len);
            lw.keys++;
            lw.misplaced += layer_bucket_of(l, hash) != b || bucket_fingerprint(bucket, &at) != (uint8_t)(hash >> 56);
            if (!k || met[k - sorted]++) {
                lw.foreign++;
                continue;
            }
            lw.unordered += (int64_t)k->arrival < last;
            last = k->arrival;
            if (first_later)
                lw.done_wrong += (at.i < bucket->done) != (k->arrival < first_later);
            if (l->tail) {
                uint16_t tail;
                memcpy(&tail, at.key + len, sizeof(tail));
                lw.tail_wrong += tail != (uint16_t)k->arrival;
            }
        }
    }
    free(met);
    return lw;
}

static void print_walk(const char *prefix, const layer_walk *lw)
{
    char name[64];
    const char *names[] = {"keys", "misplaced", "foreign", "unordered", "done_wrong", "done_sum", "nonempty",
                           "tail_wrong"};
    const uint64_t values[] = {lw->keys, lw->misplaced, lw->foreign, lw->unordered, lw->done_wrong, lw->done_sum,
                               lw->nonempty, lw->tail_wrong};
    size_t i;
    for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, names[i]);
        field(name, values[i]);
    }
}

/* How many of keys[from..to) layer l holds. */
static uint64_t count_held(const proof_layer *l, const test_key *keys, uint32_t from, uint32_t to)
{
    uint64_t held = 0;
    uint32_t i;
    for (i = from; i < to; i++)
        held += layer_has(l, hash_of(&keys[i]), keys[i].bytes, keys[i].len);
    return held;
}

/* A layer keeping 2 bytes after each key (as the part keeps its back
   moves), each key's arrival: insert all, look every key up (by the key
   alone) and walk the buckets (each tail still its key's after the
   splits), then remove every third and walk again. */
static void tail_layer(const test_key *keys, const test_key *sorted, uint32_t n)
{
    proof_layer t;
    layer_walk lw;
    uint64_t absent = 0, removed = 0;
    uint32_t i;
    memset(&t, 0, sizeof(t));
    t.tail = (int)sizeof(uint16_t);
    printf("tail");
    for (i = 0; i < n; i++) {
        uint16_t tail = (uint16_t)keys[i].arrival;
        if (!layer_insert(&t, hash_of(&keys[i]), keys[i].bytes, keys[i].len, (const uint8_t *)&tail))
            exit(3);
    }
    for (i = 0; i < n; i++) {
        test_key k = absent_key(sorted, n);
        absent += layer_has(&t, hash_of(&k), k.bytes, k.len);
    }
    field("n", t.n);
    field("buckets", t.n_buckets);
    field("found", count_held(&t, keys, 0, n));
    field("absent_found", absent);
    lw = walk_layer(&t, sorted, n, 0);
    print_walk("walk", &lw);
    for (i = 0; i < n; i += 3)
        removed += layer_remove(&t, hash_of(&keys[i]), keys[i].bytes, keys[i].len);
    field("removed", removed);
    field("kept_found", count_held(&t, keys, 0, n));
    lw = walk_layer(&t, sorted, n, 0);
    print_walk("kept", &lw);
    layer_free(&t);
    field("tail_after_free", (unsigned long long)t.tail);
    printf("\n");
}

/* Insert the first half of the keys, mark every bucket expanded, insert the
   rest (splitting buckets under the marked ones), then look every key up
   and walk the buckets.  Then, in a second layer: insert all, remove every
   third, remove them again, insert them back, and remove all.  Then the
   same keys with tails (tail_layer). */
static int cmd_layer(uint32_t n)
{
    test_key *sorted, *keys = make_keys(n, &sorted);
    proof_layer l, m;
    layer_walk lw;
    uint64_t b, absent = 0, removed = 0, again = 0;
    uint32_t i, half = n / 2;
    memset(&l, 0, sizeof(l));
    memset(&m, 0, sizeof(m));
    printf("tuning");
    field("first_level", FIRST_LEVEL);
    field("bucket_load", BUCKET_LOAD);
    printf("\n");

    printf("layer");
    for (i = 0; i < n; i++) {
        if (i == half)
            for (b = 0; b < l.n_buckets; b++)
                l.buckets[b].done = l.buckets[b].n;
        if (!layer_insert(&l, hash_of(&keys[i]), keys[i].bytes, keys[i].len, NULL))
            return 3;
    }
    for (i = 0; i < n; i++) {
        test_key k = absent_key(sorted, n);
        absent += layer_has(&l, hash_of(&k), k.bytes, k.len);
    }
    field("n", l.n);
    field("buckets", l.n_buckets);
    field("level", (unsigned long long)l.level);
    field("split", l.split);
    field("found", count_held(&l, keys, 0, n));
    field("absent_found", absent);
    lw = walk_layer(&l, sorted, n, half);
    print_walk("walk", &lw);
    printf("\n");

    printf("remove");
    for (i = 0; i < n; i++)
        if (!layer_insert(&m, hash_of(&keys[i]), keys[i].bytes, keys[i].len, NULL))
            return 3;
    for (i = 0; i < n; i += 3)
        removed += layer_remove(&m, hash_of(&keys[i]), keys[i].bytes, keys[i].len);
    for (i = 0; i < n; i += 3)
        again += layer_remove(&m, hash_of(&keys[i]), keys[i].bytes, keys[i].len);
    field("removed", removed);
    field("removed_again", again);
    field("n", m.n);
    for (removed = 0, again = 0, i = 0; i < n; i++) {
        int held = layer_has(&m, hash_of(&keys[i]), keys[i].bytes, keys[i].len);
        removed += i % 3 == 0 && held;
        again += i % 3 != 0 && held;
    }
    field("removed_found", removed);
    field("kept_found", again);
    lw = walk_layer(&m, sorted, n, 0);
    print_walk("walk", &lw);
    for (i = 0; i < n; i += 3)
        if (!layer_insert(&m, hash_of(&keys[i]), keys[i].bytes, keys[i].len, NULL))
            return 3;
    field("reinserted_found", count_held(&m, keys, 0, n));
    for (removed = 0, i = 0; i < n; i++)
        removed += layer_remove(&m, hash_of(&keys[i]), keys[i].bytes, keys[i].len);
    field("emptied", removed);
    field("emptied_n", m.n);
    lw = walk_layer(&m, sorted, n, 0);
    field("emptied_nonempty", lw.nonempty);
    for (again = 0, b = 0; b < m.n_buckets; b++)
        again += m.buckets[b].data != NULL;
    field("emptied_blocks", again);
    printf("\n");
    tail_layer(keys, sorted, n);
    layer_free(&l);
    layer_free(&m);
    free(keys);
    free(sorted);
    return 0;
}

/* ---- spill: the proof store on disk ---- */

#define SPILL_LAYER 1000
#define BIG_ROOM ((uint64_t)1 << 32)

static void add_keys(proof_store *ps, int h, const test_key *keys, uint32_t from, uint32_t to, uint64_t *added_sum)
{
    uint32_t i;
    for (i = from; i < to; i++) {
        int added;
        if (!proof_add(ps, &ps->layers[h], hash_of(&keys[i]), keys[i].bytes, keys[i].len, NULL, &added))
            exit(3);
        *added_sum += (uint64_t)added;
    }
}

static void print_disk(const char *prefix, const proof_store *ps, int h)
{
    char name[64];
    uint64_t bytes = 0, keys = 0;
    uint32_t k;
    for (k = 0; k < ps->on_disk[h].n; k++) {
        bytes += ps->on_disk[h].segments[k].bytes;
        keys += ps->on_disk[h].segments[k].keys;
    }
    snprintf(name, sizeof(name), "%s_segments", prefix);
    field(name, ps->on_disk[h].n);
    snprintf(name, sizeof(name), "%s_disk_keys", prefix);
    field(name, keys);
    snprintf(name, sizeof(name), "%s_disk_bytes", prefix);
    field(name, bytes);
    snprintf(name, sizeof(name), "%s_memory_keys", prefix);
    field(name, ps->layers[h].n);
    snprintf(name, sizeof(name), "%s_layer_keys", prefix);
    field(name, proof_layer_keys(ps, h));
    snprintf(name, sizeof(name), "%s_live", prefix);
    field(name, ps->live);
    snprintf(name, sizeof(name), "%s_waiting", prefix);
    field(name, ps->waiting);
    snprintf(name, sizeof(name), "%s_spilled", prefix);
    field(name, ps->spilled);
}

/* What the keys of layer l are: how many, how many not among `sorted`, how
   many already `met` (then marked), and how many `misfit` (of their arrival
   and `arg`) says are not where they belong. */
typedef struct {
    uint64_t keys, foreign, repeats, wrong;
} key_census;

typedef int (*key_misfit)(uint32_t arrival, uint32_t arg);

static int fits_anywhere(uint32_t arrival, uint32_t arg)
{
    (void)arrival;
    (void)arg;
    return 0;
}

static int arrived_before(uint32_t arrival, uint32_t arg)
{
    return arrival < arg;
}

static void census(key_census *tally, const proof_layer *l, const test_key *sorted, uint32_t n, uint8_t *met,
                   key_misfit misfit, uint32_t arg)
{
    uint64_t b;
    for (b = 0; b < l->n_buckets; b++) {
        const proof_bucket *bucket = &l->buckets[b];
        bucket_at at;
        for (at = bucket_first(bucket); bucket_has(bucket, &at); bucket_next(bucket, &at)) {
            const test_key *k = find_key(sorted, n, at.key, bucket_len(bucket, &at));
            tally->keys++;
            if (!k) {
                tally->foreign++;
                continue;
            }
            tally->repeats += met[k->arrival]++ != 0;
            tally->wrong += (uint64_t)misfit(k->arrival, arg);
        }
    }
}

/* Bytes a spilled run of keys takes: a length byte and the key, each. */
static uint64_t spilled_bytes(const test_key *keys, uint32_t from, uint32_t to)
{
    uint64_t bytes = 0;
    uint32_t i;
    for (i = from; i < to; i++)
        bytes += 1u + keys[i].len;
    return bytes;
}

/* Keys spilled twice come back once, in slices of `slice`. */
static void spill_slices(const test_key *keys, const test_key *sorted, uint32_t n)
{
    proof_store ps;
    uint8_t *met = calloc(n, 1);
    uint64_t added = 0, again = 0, slice = n / 4;
    uint32_t six = n / 10 * 6, four = n / 10 * 4, rounds = 0;
    key_census total = {0, 0, 0, 0};
    if (!met || !proof_store_init(&ps, BIG_ROOM))
        exit(3);
    printf("slices");
    field("spill_buffer", SPILL_BUFFER);
    add_keys(&ps, SPILL_LAYER, keys, 0, six, &added);
    add_keys(&ps, SPILL_LAYER, keys, 0, n / 10, &again);
    field("added", added);
    field("added_again", again);
    field("first_spill", (unsigned long long)proof_spill_layer(&ps, SPILL_LAYER));
    field("first_bytes_expected", spilled_bytes(keys, 0, six));
    print_disk("first", &ps, SPILL_LAYER);
    added = 0;
    add_keys(&ps, SPILL_LAYER, keys, four, n, &added);
    field("readded", added);
    field("second_spill", (unsigned long long)proof_spill_layer(&ps, SPILL_LAYER));
    print_disk("second", &ps, SPILL_LAYER);
    ps.current = SPILL_LAYER;
    printf("\tslice_sizes=");
    while (ps.on_disk[SPILL_LAYER].n && rounds++ < 100) {
        proof_layer *l = &ps.layers[SPILL_LAYER];
        uint64_t b, before = total.keys;
        if (!proof_load_layer(&ps, SPILL_LAYER, slice))
            exit(3);
        census(&total, l, sorted, n, met, fits_anywhere, 0);
        printf("%s%llu", rounds > 1 ? "," : "", (unsigned long long)(total.keys - before));
        /* Visited: the slice's keys go to `seen`, as a part's do. */
        for (b = 0; b < l->n_buckets; b++) {
            bucket_at at;
            for (at = bucket_first(&l->buckets[b]); bucket_has(&l->buckets[b], &at); bucket_next(&l->buckets[b], &at))
                if (!layer_insert(&ps.seen, key_hash_packed(at.key, bucket_len(&l->buckets[b], &at)), at.key,
                                  bucket_len(&l->buckets[b], &at), NULL))
                    exit(3);
        }
        layer_free(l);
    }
    field("slice", slice);
    field("loaded", total.keys);
    field("foreign", total.foreign);
    field("repeats", total.repeats);
    print_disk("end", &ps, SPILL_LAYER);
    printf("\n");
    proof_store_free(&ps);
    free(met);
}

/* Keys on disk already visited (in `seen`) are dropped by sifting. */
static void spill_sift(const test_key *keys, const test_key *sorted, uint32_t n)
{
    proof_store ps;
    uint8_t *met = calloc(n, 1);
    uint64_t added = 0;
    uint32_t i, half = n / 2;
    key_census tally = {0, 0, 0, 0};
    if (!met || !proof_store_init(&ps, BIG_ROOM))
        exit(3);
    printf("sift");
    add_keys(&ps, SPILL_LAYER, keys, 0, n, &added);
    if (!proof_spill_layer(&ps, SPILL_LAYER))
        exit(3);
    for (i = 0; i < half; i++) {
        if (!layer_insert(&ps.seen, hash_of(&keys[i]), keys[i].bytes, keys[i].len, NULL))
            exit(3);
        ps.live++;
    }
    field("sifted", (unsigned long long)proof_sift_disk(&ps, SPILL_LAYER));
    field("seen_after", ps.seen.n);
    print_disk("sift", &ps, SPILL_LAYER);
    ps.current = SPILL_LAYER;
    field("loaded_ok", (unsigned long long)proof_load_layer(&ps, SPILL_LAYER, UINT64_MAX));
    census(&tally, &ps.layers[SPILL_LAYER], sorted, n, met, arrived_before, half);
    field("loaded", tally.keys);
    field("foreign", tally.foreign);
    field("visited_loaded", tally.wrong);
    printf("\n");
    proof_store_free(&ps);
    free(met);
}

/* Where the last key of a spilled segment starts, within it. */
static uint64_t last_key_at(int fd, const spill_segment *segment)
{
    uint8_t *bytes = malloc(segment->bytes);
    uint64_t at = 0, last = 0;
    if (!bytes || !file_transfer(fd, bytes, segment->bytes, segment->offset, 0))
        exit(3);
    for (; at < segment->bytes; at += 1u + bytes[at])
        last = at;
    free(bytes);
    return last;
}

/* A spilled segment that is not what was written is refused: its last key
   of length 0 (the segment ending right after that length), its first key
   longer than KEY_BYTES_MAX, or the segment cut inside its last key. */
static void spill_corrupt(const test_key *keys, uint32_t n)
{
    const char *names[] = {"zero_length", "long_length", "cut_key"};
    int c;
    printf("corrupt");
    for (c = 0; c < 3; c++) {
        proof_store ps;
        spill_segment *segment;
        uint64_t added = 0, at = 0;
        uint8_t byte = c == 0 ? 0 : 0xFF;
        char name[64];
        int ok;
        if (!proof_store_init(&ps, BIG_ROOM))
            exit(3);
        add_keys(&ps, SPILL_LAYER, keys, 0, n, &added);
        if (!proof_spill_layer(&ps, SPILL_LAYER))
            exit(3);
        segment = &ps.on_disk[SPILL_LAYER].segments[0];
        if (c == 0) {
            at = last_key_at(ps.spill_fd, segment);
            segment->bytes = at + 1;
        }
        if (c < 2 && pwrite(ps.spill_fd, &byte, 1, (off_t)(segment->offset + at)) != 1)
            exit(3);
        if (c == 2)
            segment->bytes--;
        ps.current = SPILL_LAYER;
        ok = proof_load_layer(&ps, SPILL_LAYER, UINT64_MAX);
        snprintf(name, sizeof(name), "%s_loaded", names[c]);
        field(name, (unsigned long long)ok);
        snprintf(name, sizeof(name), "%s_limit", names[c]);
        field(name, (unsigned long long)ps.limit);
        proof_store_free(&ps);
    }
    field("limit_disk", FCS_LIMIT_DISK);
    printf("\n");
}

/* Out of room, the higher layers go to disk on their own; every key comes
   back, in its layer, once. */
#define ROOM_FIRST 500
#define ROOM_LAYERS 10

static int not_in_room_layer(uint32_t arrival, uint32_t h)
{
    return ROOM_FIRST + arrival % ROOM_LAYERS != h;
}

static void spill_room(const test_key *keys, const test_key *sorted, uint32_t n)
{
    proof_store ps;
    uint8_t *met = calloc(n, 1);
    uint64_t room = n / 8, most = 0, total = 0;
    key_census all = {0, 0, 0, 0};
    uint32_t i;
    int h;
    if (!met || !proof_store_init(&ps, room))
        exit(3);
    printf("room");
    ps.current = ROOM_FIRST - 1;
    for (i = 0; i < n; i++) {
        uint64_t added = 0;
        add_keys(&ps, ROOM_FIRST + (int)(i % ROOM_LAYERS), keys, i, i + 1, &added);
        if (ps.live > most)
            most = ps.live;
    }
    for (h = ROOM_FIRST; h < ROOM_FIRST + ROOM_LAYERS; h++)
        total += proof_layer_keys(&ps, h);
    field("room", room);
    field("most_live", most);
    field("held", total);
    field("spilled", ps.spilled);
    for (h = ROOM_FIRST; h < ROOM_FIRST + ROOM_LAYERS; h++) {
        int rounds = 0;
        ps.current = h;
        while ((ps.on_disk[h].n || ps.layers[h].n) && rounds++ < 1000) {
            if (!proof_load_layer(&ps, h, room / 4))
                exit(3);
            census(&all, &ps.layers[h], sorted, n, met, not_in_room_layer, (uint32_t)h);
            ps.live -= ps.layers[h].n;
            layer_free(&ps.layers[h]);
        }
    }
    field("loaded", all.keys);
    field("foreign", all.foreign);
    field("repeats", all.repeats);
    field("wrong_layer", all.wrong);
    field("waiting", ps.waiting);
    printf("\n");
    proof_store_free(&ps);
    free(met);
}

static int cmd_spill(uint32_t n)
{
    test_key *sorted, *keys = make_keys(n, &sorted);
    spill_slices(keys, sorted, n);
    spill_sift(keys, sorted, n);
    spill_corrupt(keys, n);
    spill_room(keys, sorted, n);
    free(keys);
    free(sorted);
    return 0;
}

/* ---- checkpoint: save and load ---- */

#define CHECKPOINT_FIRST 100
#define CHECKPOINT_LAYERS 5
#define CHECKPOINT_BELOW 90 /* a finished layer: below the first saved */

/* The layer the checkpoint store puts key i in. */
static int checkpoint_layer(uint32_t i)
{
    return i % 50 == 0 ? CHECKPOINT_BELOW : CHECKPOINT_FIRST + (int)(i % CHECKPOINT_LAYERS);
}

/* The store a checkpoint is made of: n keys over the layers, the two
   highest spilled to disk, and a third of the highest's keys again in
   memory (a key written twice, as when it arrives after its layer went
   out); and counts with a value in every field. */
static void checkpoint_store(proof_store *ps, const test_key *keys, uint32_t n, fcs_counts *counts)
{
    uint64_t added = 0;
    uint32_t i;
    int p;
    if (!proof_store_init(ps, BIG_ROOM))
        exit(3);
    for (i = 0; i < n; i++)
        add_keys(ps, checkpoint_layer(i), keys, i, i + 1, &added);
    if (!proof_spill_layer(ps, CHECKPOINT_FIRST + 3) || !proof_spill_layer(ps, CHECKPOINT_FIRST + 4))
        exit(3);
    for (i = 0; i < n; i++)
        if (checkpoint_layer(i) == CHECKPOINT_FIRST + 4 && i % 3 == 0)
            add_keys(ps, CHECKPOINT_FIRST + 4, keys, i, i + 1, &added);
    memset(counts, 0, sizeof(*counts));
    counts->expanded = 0x123456789ull;
    for (p = 0; p < FCS_PHASE_COUNT; p++) {
        counts->phase[p].states = 1000u * (unsigned)p + 7u;
        counts->phase[p].time_s = p + 0.25;
    }
}

static int not_in_checkpoint_layer(uint32_t arrival, uint32_t h)
{
    return checkpoint_layer(arrival) != (int)h;
}

static int parse_tag(const char *hex, uint8_t *tag)
{
    int i;
    unsigned v;
    if (strlen(hex) != 2 * FCS_CHECKPOINT_TAG)
        return 0;
    for (i = 0; i < FCS_CHECKPOINT_TAG; i++) {
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return 0;
        tag[i] = (uint8_t)v;
    }
    return 1;
}

static int same_counts(const fcs_counts *a, const fcs_counts *b)
{
    int p;
    if (a->expanded != b->expanded)
        return 0;
    for (p = 0; p < FCS_PHASE_COUNT; p++)
        if (a->phase[p].states != b->phase[p].states || a->phase[p].time_s != b->phase[p].time_s)
            return 0;
    return 1;
}

static int cmd_checkpoint(const char *what, uint32_t n, const char *path, const char *tag_hex)
{
    test_key *sorted, *keys = make_keys(n, &sorted);
    uint8_t tag[FCS_CHECKPOINT_TAG], *met = calloc(n, 1);
    proof_store ps;
    fcs_counts counts, loaded_counts;
    if (!parse_tag(tag_hex, tag) || !met) {
        fprintf(stderr, "harness: the tag must be %d hex digits\n", 2 * FCS_CHECKPOINT_TAG);
        return 2;
    }
    if (!strcmp(what, "save")) {
        checkpoint_store(&ps, keys, n, &counts);
        printf("save");
        field("saved", (unsigned long long)checkpoint_save(path, tag, (proof_store *[]){&ps}, 1, CHECKPOINT_FIRST, &counts));
        field("disk_keys", ps.waiting);
        printf("\n");
    } else {
        key_census tally = {0, 0, 0, 0};
        int first = -1, h;
        checkpoint_store(&ps, keys, n, &counts); /* what was saved, to compare with */
        proof_store_free(&ps);
        if (!proof_store_init(&ps, BIG_ROOM))
            exit(3);
        memset(&loaded_counts, 0, sizeof(loaded_counts));
        printf("load");
        field("matches", (unsigned long long)checkpoint_matches(path, tag));
        field("loaded", (unsigned long long)checkpoint_load(path, tag, (proof_store *[]){&ps}, 1, &first, &loaded_counts));
        field("limit", (unsigned long long)ps.limit);
        printf("\tfirst=%d", first);
        field("counts_equal", (unsigned long long)same_counts(&counts, &loaded_counts));
        for (h = 0; h < PROOF_LAYERS; h++)
            census(&tally, &ps.layers[h], sorted, n, met, not_in_checkpoint_layer, (uint32_t)h);
        field("keys", tally.keys);
        field("foreign", tally.foreign);
        field("repeats", tally.repeats);
        field("wrong_layer", tally.wrong);
        field("below_first", ps.layers[CHECKPOINT_BELOW].n);
        field("limit_disk", FCS_LIMIT_DISK);
        printf("\n");
    }
    proof_store_free(&ps);
    free(met);
    free(keys);
    free(sorted);
    return 0;
}

int main(int argc, char **argv)
{
    const char *usage = "usage: harness keys SEED WALKS STEPS < start | layer SEED N | spill SEED N |"
                        " checkpoint save|load SEED N PATH TAG\n";
    if (argc < 3) {
        fputs(usage, stderr);
        return 2;
    }
    rng_state = strtoull(argv[2], NULL, 10);
    if (!strcmp(argv[1], "keys") && argc == 5)
        return cmd_keys(atoi(argv[3]), atoi(argv[4]));
    if (!strcmp(argv[1], "layer") && argc == 4)
        return cmd_layer((uint32_t)strtoul(argv[3], NULL, 10));
    if (!strcmp(argv[1], "spill") && argc == 4)
        return cmd_spill((uint32_t)strtoul(argv[3], NULL, 10));
    if (!strcmp(argv[1], "checkpoint") && argc == 7 && (!strcmp(argv[2], "save") || !strcmp(argv[2], "load"))) {
        rng_state = strtoull(argv[3], NULL, 10);
        return cmd_checkpoint(argv[2], (uint32_t)strtoul(argv[4], NULL, 10), argv[5], argv[6]);
    }
    fputs(usage, stderr);
    return 2;
}
