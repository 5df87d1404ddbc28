/* Checkpoints of the layered proof (checkpoint.h), through spill.h's
   buffered writer and reader. */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "checkpoint.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define CHECKPOINT_MAGIC "FCSPRF02" /* 02: with the CRC of what follows the header */
#define CHECKPOINT_END 0xFFFFFFFFu
#define CHECKPOINT_PATH_MAX 4096
#define CHECKPOINT_READ 65536 /* bytes read at a time to check a checkpoint's CRC */

typedef struct {
    char magic[8];
    uint8_t tag[FCS_CHECKPOINT_TAG];
    uint64_t bytes;  /* the whole file's: a cut-off file is not taken */
    uint32_t crc;    /* of the bytes after the header, then of the header with crc 0: */
    uint32_t unused; /* a damaged file is not taken either */
    fcs_counts counts;
} checkpoint_header;

/* The checkpoint's header, if the file is a whole one with this tag. */
static int header_of(int fd, const uint8_t *tag, checkpoint_header *h)
{
    off_t size = lseek(fd, 0, SEEK_END);
    return size >= (off_t)sizeof(*h) && file_transfer(fd, (uint8_t *)h, sizeof(*h), 0, 0) &&
           memcmp(h->magic, CHECKPOINT_MAGIC, 8) == 0 && memcmp(h->tag, tag, FCS_CHECKPOINT_TAG) == 0 &&
           h->bytes == (uint64_t)size;
}

/* The CRC of a checkpoint whose body (the bytes after the header) has CRC
   `body`: the body's, then the header's with its crc field 0. */
static uint32_t crc_with_header(uint32_t body, const checkpoint_header *h)
{
    checkpoint_header zeroed;
    memcpy(&zeroed, h, sizeof(zeroed)); /* every byte, as the file holds it */
    zeroed.crc = 0;
    return crc32_update(body, (const uint8_t *)&zeroed, sizeof(zeroed));
}

/* Whether the file's bytes have the header's CRC. */
static int crc_holds(int fd, const checkpoint_header *h)
{
    uint8_t buf[CHECKPOINT_READ];
    uint64_t at = sizeof(*h);
    uint32_t crc = 0;
    while (at < h->bytes) {
        size_t n = h->bytes - at < sizeof(buf) ? (size_t)(h->bytes - at) : sizeof(buf);
        if (!file_transfer(fd, buf, n, at, 0))
            return 0;
        crc = crc32_update(crc, buf, n);
        at += n;
    }
    return crc_with_header(crc, h) == h->crc;
}

int checkpoint_matches(const char *path, const uint8_t *tag)
{
    checkpoint_header h;
    int fd, ok;
    if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    ok = header_of(fd, tag, &h) && crc_holds(fd, &h);
    close(fd);
    return ok;
}

/* The name a checkpoint is written under before it is renamed into place;
   0 when it would not fit in `tmp` (CHECKPOINT_PATH_MAX bytes). */
static int temp_name(const char *path, char *tmp)
{
    return snprintf(tmp, CHECKPOINT_PATH_MAX, "%s.tmp", path) < CHECKPOINT_PATH_MAX;
}

/* Write layer l's keys, in memory and then on disk, as the checkpoint's
   entry for layer `number`. */
static int save_layer(file_writer *w, proof_store *ps, int number)
{
    const proof_layer *layer = &ps->layers[number];
    const spill_list *list = &ps->on_disk[number];
    uint64_t keys = proof_layer_keys(ps, number), b;
    uint32_t k, id = (uint32_t)number;
    int ok;
    if (!keys)
        return 1;
    ok = writer_put(w, &id, sizeof(id)) && writer_put(w, &keys, sizeof(keys));
    for (b = 0; ok && b < layer->n_buckets; b++) {
        const proof_bucket *bucket = &layer->buckets[b];
        bucket_at at;
        for (at = bucket_first(bucket); ok && bucket_has(bucket, &at); bucket_next(bucket, &at))
            ok = writer_put_key(w, at.key, bucket_len(bucket, &at));
    }
    for (k = 0; ok && k < list->n; k++) { /* spilled keys are already in this form */
        uint64_t at = list->segments[k].offset, left = list->segments[k].bytes;
        while (ok && left) {
            size_t n = left < SPILL_BUFFER ? (size_t)left : SPILL_BUFFER;
            ok = file_transfer(ps->spill_fd, ps->in, n, at, 0) && writer_put(w, ps->in, n);
            at += n;
            left -= n;
        }
    }
    return ok;
}

int checkpoint_save(const char *path, const uint8_t *tag, proof_store *const *shards, int n_shards, int first,
                    const fcs_counts *counts)
{
    char tmp[CHECKPOINT_PATH_MAX];
    checkpoint_header h;
    uint32_t crc = 0, end = CHECKPOINT_END;
    file_writer w = {-1, shards[0]->out, 0, sizeof(checkpoint_header), &crc}; /* the header goes last */
    int l, s, ok;
    if (!temp_name(path, tmp) || (w.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        return 0;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, CHECKPOINT_MAGIC, 8);
    memcpy(h.tag, tag, FCS_CHECKPOINT_TAG);
    h.counts = *counts;
    ok = 1;
    for (l = first; ok && l < PROOF_LAYERS; l++)
        for (s = 0; ok && s < n_shards; s++)
            ok = save_layer(&w, shards[s], l);
    ok = ok && writer_put(&w, &end, sizeof(end)) && writer_flush(&w);
    h.bytes = w.at; /* the header goes last: until then the file is not taken */
    h.crc = crc_with_header(crc, &h);
    ok = ok && file_transfer(w.fd, (uint8_t *)&h, sizeof(h), 0, 1) && fsync(w.fd) == 0;
    ok = close(w.fd) == 0 && ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    return ok;
}

/* Load the keys of the checkpoint's layers, after its header, each into
   its shard; 0 when the proof must stop (a shard's limit says why). */
static int load_layers(file_reader *r, proof_store *const *shards, int n_shards, int *first,
                       const checkpoint_header *h)
{
    uint32_t number;
    int ok = reader_get(r, &number, sizeof(number));
    while (ok && number != CHECKPOINT_END) {
        uint64_t keys, k;
        ok = number < PROOF_LAYERS && reader_get(r, &keys, sizeof(keys));
        if (ok && (int)number < *first)
            *first = (int)number;
        for (k = 0; ok && k < keys; k++) {
            const uint8_t *key;
            uint8_t len;
            uint64_t hash;
            proof_store *ps;
            int added;
            if (reader_key(r, &key, &len) <= 0) {
                ok = 0;
                break;
            }
            hash = key_hash_packed(key, len);
            ps = shards[proof_shard_of(hash, n_shards)];
            if (!proof_add(ps, &ps->layers[number], hash, key, len, NULL, &added))
                return 0; /* out of room: its limit says so */
        }
        ok = ok && reader_get(r, &number, sizeof(number));
    }
    /* Every byte read, once: the CRC covers the whole file after its header. */
    ok = ok && r->pos == r->have && r->at == r->end && crc_with_header(*r->crc, h) == h->crc;
    if (!ok)
        shards[0]->limit = FCS_LIMIT_DISK; /* not what was written */
    return ok;
}

int checkpoint_load(const char *path, const uint8_t *tag, proof_store *const *shards, int n_shards, int *first,
                    fcs_counts *counts)
{
    checkpoint_header h;
    uint32_t crc = 0;
    file_reader r = {-1, shards[0]->in, 0, 0, sizeof(h), 0, &crc};
    int ok;
    *first = PROOF_LAYERS;
    if ((r.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || !header_of(r.fd, tag, &h)) {
        if (r.fd >= 0)
            close(r.fd);
        shards[0]->limit = FCS_LIMIT_DISK;
        return 0;
    }
    *counts = h.counts;
    r.end = h.bytes;
    ok = load_layers(&r, shards, n_shards, first, &h);
    close(r.fd);
    return ok;
}

void checkpoint_remove(const char *path)
{
    char tmp[CHECKPOINT_PATH_MAX];
    unlink(path);
    if (temp_name(path, tmp))
        unlink(tmp);
}
