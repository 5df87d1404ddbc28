/* The layered proof's trail (trail.h): writing it, and spelling a win out of it. */
#define _GNU_SOURCE          /* mkstemp */
#define _FILE_OFFSET_BITS 64 /* a trail outgrows 2 GiB */
#include "trail.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../clock.h"
#include "../solution.h"
#include "proof.h"

/* An origin as written: 32 bits of the child's hash, and its round. */
typedef struct {
    uint32_t fingerprint, round;
} trail_origin_record;

/* A start as written: its key, its length (one byte), its round (four), so
   it can be read backwards. */
#define START_TAIL 5

static uint32_t fingerprint_of(uint64_t hash)
{
    return (uint32_t)(hash >> 32);
}

/* A temporary file, unlinked at once, for one of a thread's trail files; -1 when it cannot be made. */
static int trail_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int fd;
    if (snprintf(path, sizeof(path), "%s/fcsurvey-trail-XXXXXX", dir && *dir ? dir : "/tmp") >= (int)sizeof(path))
        return -1;
    if ((fd = mkstemp(path)) < 0)
        return -1;
    if (unlink(path) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int writer_open(file_writer *w)
{
    memset(w, 0, sizeof(*w));
    w->fd = trail_file();
    w->buf = malloc(SPILL_BUFFER);
    return w->buf != NULL;
}

int trail_init(proof_trail *t, trail_shared *shared)
{
    memset(t, 0, sizeof(*t));
    t->origins.fd = t->starts.fd = -1;
    t->shared = shared;
    if (!shared->budget)
        return 1;
    if (!writer_open(&t->origins) || !writer_open(&t->starts))
        return 0;
    if (t->origins.fd < 0 || t->starts.fd < 0)
        atomic_store(&shared->broken, 1);
    return 1;
}

void trail_free(proof_trail *t)
{
    if (t->origins.fd >= 0)
        close(t->origins.fd);
    if (t->starts.fd >= 0)
        close(t->starts.fd);
    free(t->origins.buf);
    free(t->starts.buf);
    memset(t, 0, sizeof(*t));
    t->origins.fd = t->starts.fd = -1;
}

/* Whether this thread may write one more record: the trail is on, whole so
   far, and within its budget (past it, it is broken for every thread). */
static int trail_room(proof_trail *t, uint32_t round)
{
    if (!t->shared || !t->shared->budget || !round || atomic_load_explicit(&t->shared->broken, memory_order_relaxed))
        return 0;
    if (++t->records <= t->shared->budget)
        return 1;
    atomic_store(&t->shared->broken, 1);
    return 0;
}

void trail_origin(proof_trail *t, uint64_t hash, uint32_t round)
{
    trail_origin_record rec = {fingerprint_of(hash), round};
    if (trail_room(t, round) && !writer_put(&t->origins, &rec, sizeof(rec)))
        atomic_store(&t->shared->broken, 1);
}

void trail_start(proof_trail *t, const uint8_t *packed, int len, uint32_t round)
{
    uint8_t tail[START_TAIL];
    tail[0] = (uint8_t)len;
    memcpy(tail + 1, &round, sizeof(round));
    if (trail_room(t, round) && (!writer_put(&t->starts, packed, (size_t)len) ||
                                 !writer_put(&t->starts, tail, sizeof(tail))))
        atomic_store(&t->shared->broken, 1);
}

int trail_whole(proof_trail *trails, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        proof_trail *t = &trails[i];
        if (!t->shared || !t->shared->budget || atomic_load(&t->shared->broken))
            return 0;
        if (!writer_flush(&t->origins) || !writer_flush(&t->starts))
            atomic_store(&t->shared->broken, 1);
    }
    return n > 0 && !atomic_load(&trails[0].shared->broken);
}

/* Reading a file backwards, through a SPILL_BUFFER: `buf` holds the file's
   bytes from `lo` up to `hi`, and those from `pos` on were read. */
typedef struct {
    int fd;
    uint8_t *buf;
    uint64_t lo, hi, pos;
} back_reader;

/* The n bytes before the reader's place, into out: 1, or 0 at the file's
   start, or -1 when the file fails. */
static int back_take(back_reader *b, void *out, size_t n)
{
    if (b->pos < n)
        return 0;
    if (b->pos - n < b->lo) {
        uint64_t lo = b->pos > SPILL_BUFFER ? b->pos - SPILL_BUFFER : 0;
        if (!file_transfer(b->fd, b->buf, (size_t)(b->pos - lo), lo, 0))
            return -1;
        b->lo = lo;
        b->hi = b->pos;
    }
    b->pos -= n;
    memcpy(out, b->buf + (b->pos - b->lo), n);
    return 1;
}

/* A start read back. */
typedef struct {
    uint32_t round;
    int len;
    uint8_t key[KEY_BYTES_MAX];
} trail_start_record;

/* One thread's files read backwards, each with the record it read last
   and has not yet used (`have`). */
typedef struct {
    back_reader origins, starts;
    trail_origin_record origin;
    trail_start_record start;
    int have_origin, have_start;
} trail_reader;

/* Read the next origin back into r->origin (r->have_origin 0 at the file's
   start); 0 when the file fails. */
static int read_origin(trail_reader *r)
{
    int got = back_take(&r->origins, &r->origin, sizeof(r->origin));
    r->have_origin = got > 0;
    return got >= 0;
}

static int read_start(trail_reader *r)
{
    uint8_t tail[START_TAIL];
    int got = back_take(&r->starts, tail, sizeof(tail));
    r->have_start = 0;
    if (got <= 0)
        return got == 0;
    r->start.len = tail[0];
    memcpy(&r->start.round, tail + 1, sizeof(r->start.round));
    if (!r->start.len || r->start.len > KEY_BYTES_MAX || back_take(&r->starts, r->start.key, (size_t)r->start.len) <= 0)
        return 0;
    r->have_start = 1;
    return 1;
}

/* The starts of one round, as a search begins from them. */
typedef struct {
    trail_start_record *at;
    size_t n, alloc;
    uint32_t round; /* 0: none yet */
} start_list;

/* Gather round's starts from every thread's file (the rounds looked for
   only go down, so the files are read once); 0 when a file fails or out of
   memory. */
static int gather_starts(trail_reader *readers, int n, uint32_t round, start_list *list)
{
    int i;
    if (list->round == round)
        return 1;
    list->n = 0;
    list->round = round;
    for (i = 0; i < n; i++) {
        trail_reader *r = &readers[i];
        while (r->have_start && r->start.round >= round) {
            if (r->start.round == round) {
                if (list->n == list->alloc) {
                    size_t alloc = list->alloc ? list->alloc * 2 : 64;
                    void *p = realloc(list->at, alloc * sizeof(*list->at));
                    if (!p)
                        return 0;
                    list->at = p;
                    list->alloc = alloc;
                }
                list->at[list->n++] = r->start;
            }
            if (!read_start(r))
                return 0;
        }
    }
    return 1;
}

/* The next origin back over every thread's file, the latest round first:
   *rec; 0 when none is left, -1 when a file fails. */
static int next_origin(trail_reader *readers, int n, trail_origin_record *rec)
{
    int i, best = -1;
    for (i = 0; i < n; i++)
        if (readers[i].have_origin && (best < 0 || readers[i].origin.round > readers[best].origin.round))
            best = i;
    if (best < 0)
        return 0;
    *rec = readers[best].origin;
    return read_origin(&readers[best]) ? 1 : -1;
}

/* A position's packed key, its length and its layer. */
typedef struct {
    uint64_t words[KEY_WORDS_MAX + 1];
    uint8_t packed[KEY_BYTES_MAX];
    int len, layer;
} keyed;

static void key_of(const fcs_codec *kc, const fcs_pos *p, const column_code *codes, keyed *k)
{
    dealt_pairs pairs;
    k->len = (key_encode_coded(kc, p, codes, k->words, NULL, &pairs) + 7) / 8;
    key_pack(k->words, k->len, k->packed);
    k->layer = proof_layer_of(kc->r, &pairs, p);
}

/* A path found by one link's search: its moves, and the start it began at. */
typedef struct {
    fcs_packed_move *moves;
    int steps;
    keyed from;
} link_path;

/* What a link's search works with: the positions it met, keys only as the
   proof holds them (at most `room`), and a file of them in the order met,
   level by level (level i from level_at[i] to level_at[i + 1]). */
typedef struct {
    proof_layer met;
    uint64_t room;
    file_writer out;
    uint8_t *in;
    uint64_t *level_at;
    size_t levels, alloc;
} link_search;

/* Mark the end of a level (and the start of the next); 0 when the file fails or out of memory. */
static int end_level(link_search *ls)
{
    if (!writer_flush(&ls->out))
        return 0;
    if (ls->levels == ls->alloc) {
        size_t alloc = ls->alloc ? ls->alloc * 2 : 256;
        void *p = realloc(ls->level_at, alloc * sizeof(*ls->level_at));
        if (!p)
            return 0;
        ls->level_at = p;
        ls->alloc = alloc;
    }
    ls->level_at[ls->levels++] = ls->out.at;
    return 1;
}

/* A position met for the first time goes into `met` and the file; 0 on a
   limit (*limit says which). */
static int meet(link_search *ls, const keyed *k, int *limit)
{
    uint64_t hash = key_hash_packed(k->packed, k->len);
    if (layer_has(&ls->met, hash, k->packed, k->len))
        return 1;
    if (ls->met.n >= ls->room) {
        *limit = FCS_LIMIT_STATES;
        return 0;
    }
    if (!layer_insert(&ls->met, hash, k->packed, k->len, NULL)) {
        *limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    if (!writer_put_key(&ls->out, k->packed, (uint8_t)k->len)) {
        *limit = FCS_LIMIT_DISK;
        return 0;
    }
    return 1;
}

static int is_target(const keyed *target, int won, const keyed *k)
{
    return target ? !won && k->len == target->len && key_same_packed(k->packed, target->packed, k->len) : won;
}

/* Walk the levels back from `at`, met on level d, whose child by `last`
   is the target: on each lower level, a position with the one above as a
   child (the one that met it first is there).  0 on a limit. */
static int walk_back(const fcs_codec *kc, link_search *ls, size_t d, const keyed *at, fcs_packed_move last,
                     fcs_counts *counts, link_path *out, int *limit)
{
    const unsigned flags = kc->r->sequence != SEQ_UNLIMITED ? FCS_MOVES_SINGLE : 0;
    fcs_move moves[FCS_MAX_MOVES];
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    keyed k, cur = *at;
    size_t j;
    if (!(out->moves = malloc(sizeof(*out->moves) * (d + 1)))) {
        *limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    out->steps = (int)d + 1;
    out->moves[d] = last;
    for (j = d; j-- > 0;) {
        file_reader r = {ls->out.fd, ls->in, 0, 0, ls->level_at[j], ls->level_at[j + 1], NULL};
        const uint8_t *key;
        uint8_t len;
        int got, found = 0;
        while (!found && (got = reader_key(&r, &key, &len)) > 0) {
            uint64_t words[KEY_WORDS_MAX + 1];
            int i, n;
            key_unpack(key, len, words);
            key_decode(kc, words, &p, codes);
            counts->expanded++;
            n = fcs_legal_moves(kc->r, &p, flags, moves);
            for (i = 0; i < n && !found; i++) {
                if (!make_child(kc, HOME_SAFE, &p, codes, &moves[i], &child, child_codes) || fcs_is_won(&child))
                    continue;
                key_of(kc, &child, child_codes, &k);
                if ((found = is_target(&cur, 0, &k)))
                    out->moves[j] = fcs_pack(&p, &moves[i]);
            }
            if (found) {
                cur.len = len;
                memcpy(cur.packed, key, len);
            }
        }
        if (!found) { /* a file that is not what was written */
            *limit = FCS_LIMIT_DISK;
            return 0;
        }
    }
    out->from = cur;
    return 1;
}

/* Search the layer of the starts, from them, breadth first, for a
   position with a child that is `target` or, when target is NULL, won, by
   the proof's moves: 1 with the path in *out, 0 when there is none, -1 on
   a limit (*limit says which).  It keeps keys only, as the proof does, and
   the levels on disk; the path is found again by walking them back. */
static int search_link(const fcs_codec *kc, link_search *ls, const start_list *starts, const keyed *target,
                       double deadline, fcs_counts *counts, link_path *out, int *limit)
{
    const unsigned flags = kc->r->sequence != SEQ_UNLIMITED ? FCS_MOVES_SINGLE : 0;
    fcs_move moves[FCS_MAX_MOVES];
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    keyed k;
    size_t s, d;
    int layer = -1, outcome = 0;

    layer_free(&ls->met);
    ls->levels = 0;
    ls->out.at = ls->out.used = 0;
    if (ftruncate(ls->out.fd, 0) != 0 || !end_level(ls)) {
        *limit = FCS_LIMIT_DISK;
        return -1;
    }
    for (s = 0; s < starts->n; s++) {
        uint64_t words[KEY_WORDS_MAX + 1];
        key_unpack(starts->at[s].key, starts->at[s].len, words);
        key_decode(kc, words, &p, codes);
        key_of(kc, &p, codes, &k);
        if (layer < 0)
            layer = k.layer;
        if (!meet(ls, &k, limit))
            return -1;
    }
    if (!end_level(ls)) {
        *limit = FCS_LIMIT_DISK;
        return -1;
    }
    for (d = 0; !outcome && ls->level_at[d + 1] > ls->level_at[d]; d++) {
        file_reader r = {ls->out.fd, ls->in, 0, 0, ls->level_at[d], ls->level_at[d + 1], NULL};
        const uint8_t *key;
        uint8_t len;
        int got;
        while (!outcome && (got = reader_key(&r, &key, &len)) > 0) {
            uint64_t words[KEY_WORDS_MAX + 1];
            keyed at;
            int i, n;
            if (deadline && (counts->expanded % TIME_CHECK_EVERY) == 0 && fcs_now_s() > deadline) {
                *limit = FCS_LIMIT_TIME;
                return -1;
            }
            at.len = len;
            memcpy(at.packed, key, len);
            key_unpack(key, len, words);
            key_decode(kc, words, &p, codes);
            counts->expanded++;
            n = fcs_legal_moves(kc->r, &p, flags, moves);
            for (i = 0; i < n && !outcome; i++) {
                int won;
                if (!make_child(kc, HOME_SAFE, &p, codes, &moves[i], &child, child_codes))
                    continue;
                if (!(won = fcs_is_won(&child)))
                    key_of(kc, &child, child_codes, &k);
                if (is_target(target, won, &k))
                    outcome = walk_back(kc, ls, d, &at, fcs_pack(&p, &moves[i]), counts, out, limit) ? 1 : -1;
                else if (!won && k.layer == layer && !meet(ls, &k, limit))
                    outcome = -1;
            }
        }
        if (!outcome && (got < 0 || !end_level(ls))) {
            *limit = FCS_LIMIT_DISK;
            outcome = -1;
        }
    }
    counts->phase[FCS_LAYERED_PROOF].states += ls->met.n;
    return outcome;
}

static int same_key(const keyed *a, const keyed *b)
{
    return a->len == b->len && key_same_packed(a->packed, b->packed, a->len);
}

/* The links' paths, found from the win back, joined from the root on into
   the solution. */
static void join_links(const fcs_codec *kc, const link_path *links, size_t n, fcs_result *res)
{
    fcs_packed_move *path;
    size_t i;
    int steps = 0;
    for (i = 0; i < n; i++)
        steps += links[i].steps;
    if (!(path = malloc(sizeof(*path) * (size_t)(steps + 1)))) {
        res->status = FCS_UNKNOWN;
        return;
    }
    for (i = n, steps = 0; i-- > 0; steps += links[i].steps)
        memcpy(path + steps, links[i].moves, sizeof(*path) * (size_t)links[i].steps);
    solution_from_path(kc, HOME_SAFE, path, steps, res);
    free(path);
}

/* Read the trail back, from the won round to the root, searching one round
   after another (trail.h); 0 when the links are all found, or the limit
   that stopped it. */
static int find_links(const fcs_codec *kc, trail_reader *readers, int n, uint32_t won_round, const keyed *root,
                      link_search *ls, double deadline, fcs_counts *counts, link_path **links, size_t *n_links)
{
    start_list starts = {NULL, 0, 0, 0};
    size_t alloc = 0;
    uint32_t round = won_round;
    keyed from;
    const keyed *target = NULL;
    int limit = 0;
    for (;;) {
        link_path found;
        trail_origin_record rec;
        int got;
        if (!gather_starts(readers, n, round, &starts)) {
            limit = FCS_LIMIT_DISK;
            break;
        }
        if ((got = starts.n ? search_link(kc, ls, &starts, target, deadline, counts, &found, &limit) : 0) < 0)
            break;
        if (got) {
            if (*n_links == alloc) {
                void *p = realloc(*links, sizeof(**links) * (alloc = alloc ? alloc * 2 : 64));
                if (!p) {
                    free(found.moves);
                    limit = FCS_LIMIT_MEMORY;
                    break;
                }
                *links = p;
            }
            (*links)[(*n_links)++] = found;
            if (same_key(&found.from, root))
                break;
            from = found.from;
            target = &from;
        } else if (!target) { /* the won round reached no win: not the trail that was written */
            limit = FCS_LIMIT_MEMORY;
            break;
        }
        /* the origins of `from` before this round, latest first */
        while ((got = next_origin(readers, n, &rec)) > 0 &&
               (rec.round >= round || rec.fingerprint != fingerprint_of(key_hash_packed(from.packed, from.len))))
            ;
        if (got <= 0) { /* none: not the trail that was written, or a file failed */
            limit = got < 0 ? FCS_LIMIT_DISK : FCS_LIMIT_MEMORY;
            break;
        }
        round = rec.round;
    }
    free(starts.at);
    return limit;
}

int trail_spell(const fcs_codec *kc, proof_trail *trails, int n, uint32_t won_round, const fcs_pos *root,
                uint64_t room, double deadline, fcs_counts *counts, fcs_result *res)
{
    trail_reader *readers = calloc((size_t)n, sizeof(*readers));
    link_path *links = NULL;
    size_t n_links = 0, i;
    column_code codes[FCS_MAX_COLS];
    link_search ls;
    keyed root_key;
    int limit = FCS_LIMIT_MEMORY, k;

    memset(&ls, 0, sizeof(ls));
    ls.room = room;
    key_code_columns(kc, root, ALL_COLUMNS(kc->r), codes);
    key_of(kc, root, codes, &root_key);
    if (readers && writer_open(&ls.out) && (ls.in = malloc(SPILL_BUFFER)) != NULL) {
        limit = ls.out.fd < 0 ? FCS_LIMIT_DISK : 0;
        for (k = 0; k < n && !limit; k++) {
            /* read back through the buffers they were written through */
            back_reader o = {trails[k].origins.fd, trails[k].origins.buf, 0, 0, trails[k].origins.at};
            back_reader s = {trails[k].starts.fd, trails[k].starts.buf, 0, 0, trails[k].starts.at};
            o.lo = o.hi = o.pos;
            s.lo = s.hi = s.pos;
            readers[k].origins = o;
            readers[k].starts = s;
            if (!read_origin(&readers[k]) || !read_start(&readers[k]))
                limit = FCS_LIMIT_DISK;
        }
        if (!limit)
            limit = find_links(kc, readers, n, won_round, &root_key, &ls, deadline, counts, &links, &n_links);
        if (!limit) {
            join_links(kc, links, n_links, res);
            if (res->status != FCS_SOLVED)
                limit = FCS_LIMIT_MEMORY;
        }
    }
    layer_free(&ls.met);
    if (ls.out.fd >= 0)
        close(ls.out.fd);
    free(ls.out.buf);
    free(ls.in);
    free(ls.level_at);
    for (i = 0; i < n_links; i++)
        free(links[i].moves);
    free(links);
    free(readers);
    return limit;
}
