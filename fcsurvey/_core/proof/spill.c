/* What the layered proof holds, in memory and on disk (spill.h). */
#define _GNU_SOURCE          /* pread, pwrite, mkstemp; on Linux, fallocate */
#define _FILE_OFFSET_BITS 64 /* the spill file outgrows 2 GiB */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../search.h"

int file_transfer(int fd, uint8_t *data, size_t bytes, uint64_t offset, int writing)
{
    while (bytes) {
        ssize_t done = writing ? pwrite(fd, data, bytes, (off_t)offset) : pread(fd, data, bytes, (off_t)offset);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return 0;
        data += done;
        bytes -= (size_t)done;
        offset += (uint64_t)done;
    }
    return 1;
}

/* CRC-32 eight bytes at a time ("slicing by 8"): crc_table[k][b] is the CRC
   of byte b followed by k zero bytes, so eight table reads replace eight
   byte steps.  Built once, by whichever thread first needs it. */
static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_build(void)
{
    uint32_t b, c;
    int k, bit;
    for (b = 0; b < 256; b++) {
        for (c = b, bit = 0; bit < 8; bit++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1; /* the reflected polynomial */
        crc_table[0][b] = c;
    }
    for (k = 1; k < 8; k++)
        for (b = 0; b < 256; b++)
            crc_table[k][b] = (crc_table[k - 1][b] >> 8) ^ crc_table[0][crc_table[k - 1][b] & 0xFF];
}

uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t n)
{
    pthread_once(&crc_once, crc_build);
    crc = ~crc;
    for (; n >= 8; n -= 8, data += 8) {
        uint32_t lo = crc ^ ((uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                             (uint32_t)data[3] << 24);
        crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^ crc_table[5][(lo >> 16) & 0xFF] ^
              crc_table[4][lo >> 24] ^ crc_table[3][data[4]] ^ crc_table[2][data[5]] ^ crc_table[1][data[6]] ^
              crc_table[0][data[7]];
    }
    for (; n; n--, data++)
        crc = (crc >> 8) ^ crc_table[0][(crc ^ *data) & 0xFF];
    return ~crc;
}

int writer_flush(file_writer *w)
{
    if (w->crc)
        *w->crc = crc32_update(*w->crc, w->buf, w->used);
    if (!file_transfer(w->fd, w->buf, w->used, w->at, 1))
        return 0;
    w->at += w->used;
    w->used = 0;
    return 1;
}

int writer_put(file_writer *w, const void *data, size_t n)
{
    if (w->used + n > SPILL_BUFFER && !writer_flush(w))
        return 0;
    memcpy(w->buf + w->used, data, n);
    w->used += n;
    return 1;
}

int writer_put_key(file_writer *w, const uint8_t *key, uint8_t len)
{
    if (w->used + 1 + len > SPILL_BUFFER && !writer_flush(w))
        return 0;
    w->buf[w->used++] = len;
    memcpy(w->buf + w->used, key, len);
    w->used += len;
    return 1;
}

/* Keep what is left unread, and read what follows it, up to the buffer's
   size or the region's end. */
static int reader_fill(file_reader *r)
{
    size_t more = SPILL_BUFFER - (r->have - r->pos);
    if (more > r->end - r->at)
        more = (size_t)(r->end - r->at);
    memmove(r->buf, r->buf + r->pos, r->have - r->pos);
    r->have -= r->pos;
    r->pos = 0;
    if (!file_transfer(r->fd, r->buf + r->have, more, r->at, 0))
        return 0;
    if (r->crc)
        *r->crc = crc32_update(*r->crc, r->buf + r->have, more);
    r->have += more;
    r->at += more;
    return 1;
}

int reader_get(file_reader *r, void *data, size_t n)
{
    if (r->have - r->pos < n && (!reader_fill(r) || r->have - r->pos < n))
        return 0;
    memcpy(data, r->buf + r->pos, n);
    r->pos += n;
    return 1;
}

int reader_key(file_reader *r, const uint8_t **key, uint8_t *len)
{
    if (r->have - r->pos < 1 + KEY_BYTES_MAX && r->at < r->end && !reader_fill(r))
        return -1;
    if (r->pos == r->have)
        return 0;
    *len = r->buf[r->pos];
    if (!*len || *len > KEY_BYTES_MAX || r->pos + 1u + *len > r->have)
        return -1;
    *key = r->buf + r->pos + 1;
    r->pos += 1u + *len;
    return 1;
}

/* The file offset of the reader's next byte. */
static inline uint64_t reader_offset(const file_reader *r)
{
    return r->at - (r->have - r->pos);
}

/* A reader of one spilled segment, through ps->in. */
static file_reader segment_reader(const proof_store *ps, const spill_segment *segment)
{
    file_reader r = {ps->spill_fd, ps->in, 0, 0, segment->offset, segment->offset + segment->bytes, NULL};
    return r;
}

int proof_store_init(proof_store *ps, uint64_t room)
{
    memset(ps, 0, sizeof(*ps));
    ps->spill_fd = -1;
    ps->current = -1;
    ps->room = room;
    ps->part.tail = PROOF_BACK_BYTES;
    ps->layers = calloc(PROOF_LAYERS, sizeof(proof_layer));
    ps->on_disk = calloc(PROOF_LAYERS, sizeof(spill_list));
    ps->out = malloc(SPILL_BUFFER);
    ps->in = malloc(SPILL_BUFFER);
    return ps->layers && ps->on_disk && ps->out && ps->in;
}

void proof_store_free(proof_store *ps)
{
    int h;
    for (h = 0; ps->layers && h < PROOF_LAYERS; h++)
        layer_free(&ps->layers[h]);
    for (h = 0; ps->on_disk && h < PROOF_LAYERS; h++)
        free(ps->on_disk[h].segments);
    if (ps->spill_fd >= 0)
        close(ps->spill_fd);
    layer_free(&ps->part);
    layer_free(&ps->seen);
    free(ps->layers);
    free(ps->on_disk);
    free(ps->out);
    free(ps->in);
    memset(ps, 0, sizeof(*ps));
    ps->spill_fd = -1;
}

uint64_t proof_layer_keys(const proof_store *ps, int h)
{
    uint64_t keys = ps->layers[h].n;
    uint32_t k;
    for (k = 0; k < ps->on_disk[h].n; k++)
        keys += ps->on_disk[h].segments[k].keys;
    return keys;
}

static int spill_open(proof_store *ps)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/fcsurvey-proof-XXXXXX", dir && *dir ? dir : "/tmp") >= (int)sizeof(path))
        return 0;
    ps->spill_fd = mkstemp(path);
    if (ps->spill_fd < 0)
        return 0;
    /* Closed on exec, so no other program keeps its space alive. */
    return unlink(path) == 0 && fcntl(ps->spill_fd, F_SETFD, FD_CLOEXEC) == 0;
}

/* A segment read back: give its disk space back where the system can. */
static void release_segment(const proof_store *ps, const spill_segment *segment)
{
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
    (void)fallocate(ps->spill_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)segment->offset,
                    (off_t)segment->bytes);
#else
    (void)ps;
    (void)segment;
#endif
}

/* Room for one more segment in list; 0 when out of memory. */
static int reserve_segment(spill_list *list)
{
    if (list->n == list->alloc) {
        uint32_t alloc = list->alloc ? list->alloc * 2 : 4;
        spill_segment *segments = realloc(list->segments, sizeof(spill_segment) * alloc);
        if (!segments)
            return 0;
        list->segments = segments;
        list->alloc = alloc;
    }
    return 1;
}

/* Write every key of layer l through w; 0 when the disk will not take them. */
static int write_layer(file_writer *w, const proof_layer *l)
{
    uint64_t b;
    for (b = 0; b < l->n_buckets; b++) {
        const proof_bucket *bucket = &l->buckets[b];
        bucket_at at;
        for (at = bucket_first(bucket); bucket_has(bucket, &at); bucket_next(bucket, &at))
            if (!writer_put_key(w, at.key, bucket_len(bucket, &at)))
                return 0;
    }
    return 1;
}

int proof_spill_layer(proof_store *ps, int h)
{
    proof_layer *l = &ps->layers[h];
    spill_list *list = &ps->on_disk[h];
    file_writer w = {ps->spill_fd, ps->out, 0, ps->spill_end, NULL};
    if (ps->waiting + l->n > ps->room * PROOF_DISK) {
        ps->limit = FCS_LIMIT_STATES; /* its share, like the room, comes from max_states */
        return 0;
    }
    if (!reserve_segment(list) || (ps->spill_fd < 0 && !spill_open(ps))) {
        ps->limit = FCS_LIMIT_DISK; /* the disk (or memory) would not take it */
        return 0;
    }
    w.fd = ps->spill_fd;
    if (!write_layer(&w, l) || !writer_flush(&w)) {
        ps->limit = FCS_LIMIT_DISK;
        return 0;
    }
    list->segments[list->n].offset = ps->spill_end;
    list->segments[list->n].bytes = w.at - ps->spill_end;
    list->segments[list->n++].keys = l->n;
    ps->spill_end = w.at;
    ps->spilled += l->n;
    ps->waiting += l->n;
    ps->live -= l->n;
    layer_free(l);
    return 1;
}

void proof_forget_seen(proof_store *ps)
{
    ps->live -= ps->seen.n;
    layer_free(&ps->seen);
}

/* Out of room: send the higher layers to disk, highest first, until half
   the room is free.  If that is not enough while a part is under way, what
   it does not need goes too: the parts visited before it (sifting the
   current layer's keys on disk with them first), then the current layer's
   entries, a slice for later.  Only then: while keys are being read in
   (proof_load_layer, checkpoint_load), ps->in holds them and the current
   layer's disk list is being read, which sifting would change under them.
   0 (ps->limit says why) when what is left, the part and the positions held
   for it, fills all but an eighth of the room by itself (less would mean a
   spill, with its scan of every layer, every few positions). */
static int make_room(proof_store *ps)
{
    uint64_t full = ps->room - ps->room / PROOF_SLACK_SHARE, half = ps->room / PROOF_FREE_SHARE;
    int h;
    for (h = PROOF_LAYERS - 1; h > ps->current && ps->live > half; h--)
        if (ps->layers[h].n && !proof_spill_layer(ps, h))
            return 0;
    if (ps->live > full && ps->sweeping) {
        if (ps->seen.n && !proof_sift_disk(ps, ps->current))
            return 0;
        if (ps->live > half && ps->layers[ps->current].n && !proof_spill_layer(ps, ps->current))
            return 0;
    }
    if (ps->live > full) {
        ps->limit = FCS_LIMIT_STATES;
        return 0;
    }
    return 1;
}

int proof_add(proof_store *ps, proof_layer *l, uint64_t hash, const uint8_t *packed, int len, const uint8_t *tail,
              int *added)
{
    *added = 0;
    if (layer_has(l, hash, packed, len))
        return 1;
    if (ps->live >= ps->room && !make_room(ps))
        return 0; /* which may have sent l itself to disk */
    if (!layer_insert(l, hash, packed, len, tail)) {
        ps->limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    ps->live++;
    *added = 1;
    return 1;
}

int proof_merge_part(proof_store *ps)
{
    uint64_t b;
    for (b = 0; b < ps->part.n_buckets; b++) {
        proof_bucket *bucket = &ps->part.buckets[b];
        bucket_at at;
        for (at = bucket_first(bucket); bucket_has(bucket, &at); bucket_next(bucket, &at)) {
            int len = bucket_len(bucket, &at) - ps->part.tail; /* the key alone: `seen` keeps no back moves */
            if (!layer_insert(&ps->seen, key_hash_packed(at.key, len), at.key, len, NULL)) {
                ps->limit = FCS_LIMIT_MEMORY;
                return 0;
            }
        }
        free(bucket->data);
        bucket->data = NULL;
        bucket->n = 0;
    }
    layer_free(&ps->part);
    return 1;
}

/* Layer h's first `used` bytes (and `keys` keys) on disk were read back: give
   their space back, and drop the segments they emptied. */
static void consume_disk(proof_store *ps, int h, uint64_t used, uint64_t keys)
{
    spill_list *list = &ps->on_disk[h];
    spill_segment *first = &list->segments[0], read = {first->offset, used, keys};
    release_segment(ps, &read);
    ps->waiting -= keys;
    first->offset += used;
    first->bytes -= used;
    first->keys -= keys;
    if (!first->bytes) {
        memmove(list->segments, list->segments + 1, sizeof(spill_segment) * --list->n);
        if (!list->n) {
            free(list->segments);
            memset(list, 0, sizeof(*list));
        }
    }
}

int proof_load_layer(proof_store *ps, int h, uint64_t slice)
{
    while (ps->on_disk[h].n && ps->layers[h].n < slice) {
        file_reader rd = segment_reader(ps, &ps->on_disk[h].segments[0]);
        uint64_t start = rd.at, keys = 0;
        const uint8_t *key;
        uint8_t len;
        int got = 0, added;
        while (ps->layers[h].n < slice && (got = reader_key(&rd, &key, &len)) > 0) {
            uint64_t hash = key_hash_packed(key, len);
            keys++;
            if (!layer_has(&ps->seen, hash, key, len) && !proof_add(ps, &ps->layers[h], hash, key, len, NULL, &added))
                return 0;
        }
        if (got < 0) {
            ps->limit = FCS_LIMIT_DISK; /* the file fails, or is not what was written */
            return 0;
        }
        consume_disk(ps, h, reader_offset(&rd) - start, keys);
    }
    return 1;
}

int proof_sift_disk(proof_store *ps, int h)
{
    spill_list *list = &ps->on_disk[h];
    spill_segment kept = {ps->spill_end, 0, 0};
    file_writer w = {ps->spill_fd, ps->out, 0, ps->spill_end, NULL};
    while (list->n) {
        file_reader rd = segment_reader(ps, &list->segments[0]);
        uint64_t keys = 0;
        const uint8_t *key;
        uint8_t len;
        int got;
        while ((got = reader_key(&rd, &key, &len)) > 0) {
            keys++;
            if (layer_has(&ps->seen, key_hash_packed(key, len), key, len))
                continue;
            if (!writer_put_key(&w, key, len)) {
                ps->limit = FCS_LIMIT_DISK;
                return 0;
            }
            kept.keys++;
        }
        if (got < 0) {
            ps->limit = FCS_LIMIT_DISK;
            return 0;
        }
        consume_disk(ps, h, list->segments[0].bytes, keys);
    }
    if (!writer_flush(&w)) {
        ps->limit = FCS_LIMIT_DISK;
        return 0;
    }
    ps->spill_end = w.at;
    kept.bytes = ps->spill_end - kept.offset;
    proof_forget_seen(ps);
    if (!kept.keys)
        return 1;
    if (!reserve_segment(list)) {
        ps->limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    list->segments[list->n++] = kept;
    ps->spilled += kept.keys;
    ps->waiting += kept.keys;
    return 1;
}
