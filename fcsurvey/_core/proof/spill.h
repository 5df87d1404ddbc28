/* What the layered proof holds, in memory and on disk, within its room.

   The layers above the current one only collect entries until their turn,
   and they are most of what a proof holds.  When the room runs out they go
   to a temporary file, highest first (they wait longest), until half the
   room is free; a layer's keys come back, duplicates dropped, when its turn
   comes (in slices, if they are many: see proof.c).  A key may be written
   more than once (it can arrive again after its layer went out, and sifting
   writes what it keeps again), so the file is bounded too: what waits in it
   may be PROOF_DISK times the room, in keys (on Linux the space of what was
   read back is given back at once; elsewhere the file keeps it until the
   proof ends, so it can grow past that).  The file is unlinked as soon as
   it is made, so it goes with the process, however that ends.

   The spill file and checkpoints (checkpoint.h) share one buffered writer
   and reader; a key is written as its length (one byte), then its bytes. */
#ifndef FCS_PROOF_SPILL_H
#define FCS_PROOF_SPILL_H

#include "layer.h"

/* A position's layer (see proof.h): first how few out-of-order pairs its
   columns hold, then its cards home, then its group. */
#define PROOF_LAYERS (FCS_CARDS * (FCS_CARDS + 1) * PROOF_GROUPS)

/* The shard (of n, one per thread of the proof: team.h) that holds a key
   with this hash: its bits 32 to 55, which pick no bucket (the low bits do)
   and make no fingerprint (the top 8 do), so every shard's layers fill all
   their buckets. */
static inline int proof_shard_of(uint64_t hash, int n)
{
    return (int)((((hash >> 32) & 0xFFFFFFu) * (uint64_t)n) >> 24);
}

/* Where one spilled batch of a layer's keys lies in the spill file. */
typedef struct {
    uint64_t offset, bytes, keys;
} spill_segment;

typedef struct {
    spill_segment *segments;
    uint32_t n, alloc;
} spill_list;

/* Buffered sequential writing of a file, through a SPILL_BUFFER. */
typedef struct {
    int fd;
    uint8_t *buf;
    size_t used;   /* bytes in buf */
    uint64_t at;   /* file offset buf goes to */
    uint32_t *crc; /* NULL, or the CRC-32 of every byte written so far (checkpoints) */
} file_writer;

/* Buffered sequential reading of a file region, through a SPILL_BUFFER. */
typedef struct {
    int fd;
    uint8_t *buf;
    size_t have, pos; /* bytes in buf; where the next read starts */
    uint64_t at, end; /* file offsets of what comes next into buf, and of the region's end */
    uint32_t *crc;    /* NULL, or the CRC-32 of every byte read into buf so far */
} file_reader;

/* The CRC-32 (ISO-HDLC, zlib's) of `crc`'s bytes followed by n more: 0 for
   none.  It catches every burst of up to 32 flipped bits, so a damaged disk
   block cannot hand a proof keys it did not save. */
uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t n);

/* Write (or read) all of `bytes` at `offset`, whatever the system does in
   one call; 0 on failure. */
int file_transfer(int fd, uint8_t *data, size_t bytes, uint64_t offset, int writing);
/* Append n bytes; 0 when the file will not take them. */
int writer_put(file_writer *w, const void *data, size_t n);
/* Append a key: its length, then its bytes. */
int writer_put_key(file_writer *w, const uint8_t *key, uint8_t len);
/* Write what is buffered. */
int writer_flush(file_writer *w);
/* The next n bytes; 0 when the file fails or ends first. */
int reader_get(file_reader *r, void *data, size_t n);
/* The next key, in *key (pointing into the buffer, valid until the next
   read) and *len: 1, or 0 at the region's end, or -1 when the file fails
   or is not what was written. */
int reader_key(file_reader *r, const uint8_t **key, uint8_t *len);

/* The bytes the part keeps after each key: the move back to the position
   that first made it (fcs_packed_move; 0 for an entry), which proof_expand
   leaves out. */
#define PROOF_BACK_BYTES ((int)sizeof(fcs_packed_move))

/* The positions the proof holds.  The layer being worked through holds only
   its entries (see proof.c); the part of it under way, in `part`, grows as
   it is gathered, each key with its back move.  `seen` holds the parts
   visited while the current layer has keys on disk. */
typedef struct {
    proof_layer *layers;  /* PROOF_LAYERS, by proof_layer_of */
    spill_list *on_disk;  /* PROOF_LAYERS: what each layer has on disk */
    proof_layer part;
    proof_layer seen;
    int current;          /* the layer under way, -1 before the first */
    int sweeping;         /* a part is being gathered (so no keys are being read in: see make_room) */
    uint64_t live;        /* positions held in memory, in all layers, the part and seen */
    uint64_t room;        /* positions it may hold at once */
    int spill_fd;         /* -1 until the first spill */
    uint64_t spill_end;   /* bytes written to it */
    uint64_t spilled;     /* keys written to it */
    uint64_t waiting;     /* keys in it not yet read back */
    uint8_t *out, *in;    /* SPILL_BUFFER bytes each: the writer's and the reader's */
    int limit;            /* what stopped it: FCS_LIMIT_STATES, _MEMORY, _DISK or _BROKEN */
} proof_store;

/* An empty store with room for `room` positions; 0 when out of memory. */
int proof_store_init(proof_store *ps, uint64_t room);
void proof_store_free(proof_store *ps);

/* Add a key to layer l (one of ps's) unless there, with l->tail bytes of
   `tail` after it, saying in *added which; 0 when out of room or memory
   (ps->limit says which). */
int proof_add(proof_store *ps, proof_layer *l, uint64_t hash, const uint8_t *packed, int len, const uint8_t *tail,
              int *added);
/* Write layer h's keys as one more segment of the file, and free the layer. */
int proof_spill_layer(proof_store *ps, int h);
/* Drop from layer h's keys on disk those already visited, in `seen`, which
   then goes: the survivors are written again, as one segment. */
int proof_sift_disk(proof_store *ps, int h);
/* Bring layer h's keys back from disk, as its entries, until it holds
   `slice` of them; the rest stays on disk, a slice for later.  Keys of
   parts already visited (in `seen`) are skipped. */
int proof_load_layer(proof_store *ps, int h, uint64_t slice);
/* Move the part's keys into `seen`, freeing the part bucket by bucket as it
   goes, so the two together never hold more than the part did. */
int proof_merge_part(proof_store *ps);
/* The parts visited go: nothing on disk needs sifting with them any more. */
void proof_forget_seen(proof_store *ps);
/* Keys layer h has, in memory and on disk. */
uint64_t proof_layer_keys(const proof_store *ps, int h);

#endif
