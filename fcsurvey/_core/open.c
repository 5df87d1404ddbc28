/* The open list (open.h). */
#include "open.h"

#include <stdlib.h>

#include "tuning.h"

static int grow_buckets(open_order *o, uint32_t priority)
{
    uint32_t alloc = o->buckets ? o->buckets : INITIAL_BUCKETS, i;
    uint32_t *b;
    while (alloc <= priority)
        alloc *= 2;
    if ((b = realloc(o->bucket, (size_t)alloc * sizeof(uint32_t))) == NULL)
        return 0;
    for (i = o->buckets; i < alloc; i++)
        b[i] = NO_ENTRY;
    o->bucket = b;
    o->buckets = alloc;
    return 1;
}

void open_init(fcs_open *o, int orders)
{
    memset(o, 0, sizeof(*o));
    o->free_entry = NO_ENTRY;
    o->orders = orders;
}

void open_clear(fcs_open *o, int orders)
{
    int k;
    for (k = 0; k < OPEN_ORDERS; k++) {
        open_order *order = &o->order[k];
        uint32_t i;
        for (i = 0; i < order->buckets; i++)
            order->bucket[i] = NO_ENTRY;
        order->lowest = 0;
    }
    o->entries_n = o->n = 0;
    o->free_entry = NO_ENTRY;
    o->orders = orders;
    o->turn = 0;
}

void open_free(fcs_open *o)
{
    int k;
    free(o->entries);
    for (k = 0; k < OPEN_ORDERS; k++)
        free(o->order[k].bucket);
    open_init(o, o->orders);
}

int open_push(fcs_open *o, const uint32_t *priority, uint32_t state, uint32_t move)
{
    uint32_t e;
    int k;
    for (k = 0; k < o->orders; k++)
        if (priority[k] >= o->order[k].buckets && !grow_buckets(&o->order[k], priority[k]))
            return 0;
    if (o->free_entry != NO_ENTRY) {
        e = o->free_entry;
        o->free_entry = o->entries[e].next[0];
    } else {
        if (o->entries_n == o->entries_alloc) {
            uint32_t alloc = o->entries_alloc ? o->entries_alloc * 2 : INITIAL_STATES;
            open_entry *h = realloc(o->entries, (size_t)alloc * sizeof(open_entry));
            if (h == NULL)
                return 0;
            o->entries = h;
            o->entries_alloc = alloc;
        }
        e = o->entries_n++;
    }
    o->entries[e].state = state;
    o->entries[e].move = move;
    for (k = 0; k < o->orders; k++) {
        open_order *order = &o->order[k];
        o->entries[e].next[k] = order->bucket[priority[k]];
        order->bucket[priority[k]] = e;
        if (!o->n || priority[k] < order->lowest)
            order->lowest = priority[k];
    }
    o->n++;
    return 1;
}

open_entry open_pop(fcs_open *o)
{
    int k = o->orders > 1 ? (int)(o->turn++ % (unsigned)o->orders) : 0;
    open_order *order = &o->order[k];
    for (;;) {
        uint32_t e;
        open_entry top;
        while (order->bucket[order->lowest] == NO_ENTRY)
            order->lowest++;
        e = order->bucket[order->lowest];
        top = o->entries[e];
        order->bucket[order->lowest] = top.next[k];
        if (top.move != TAKEN && o->orders > 1) {
            o->entries[e].move = TAKEN;
            o->n--;
            return top;
        }
        o->entries[e].next[0] = o->free_entry;
        o->free_entry = e;
        if (top.move != TAKEN) {
            o->n--;
            return top;
        }
    }
}
