/* --optimal: A* over the move model the notation counts (search.h), with
   exact duplicate detection in a store of its own, below the seed: the
   tokens of the line in hand.

   The cost of a move is the tokens it writes: itself and the cards safe
   autoplay sends home after it.  Safe autoplay loses nothing here either: a
   card it sends is a pure obstacle (position.c), so a line that keeps it
   back is no shorter with its moves of that card deleted and the card sent
   home at once, one token.

   The heuristic, a lower bound on the tokens still to write (docs/solver.md
   argues it), is every card not home, one token each (its move home), plus
   the moves off a column that are not home moves a line must still make:
     (1) every maximal built run (a segment each card of which builds on the
     one under it, per the rules) holding a blocking card, one above a lower
     card of its own suit in its column, plus
     (2) a matching of the other runs by two-column cycles: runs R and R' in
     two columns with cards x in R and y in R', x above a lower card of y's
     suit and y above a lower card of x's.
   Order the cards by when each first goes home.  One that leaves its column
   only to go home comes before every card under it, and any card after the
   lower ones of its suit: so a blocking card, and x or y of a cycle, must
   first leave its column by another move.  Such a move lifts, of the
   column's cards still in place, only a top segment one move may lift: one
   card or a built one, within one run.  So each run of (1), and a run of
   each pair of (2), takes a move of its own.

   The bound need not be consistent (the matching can change by more than
   one a move): a position reached again in fewer tokens is opened again, so
   the first won position taken off the open list is reached by a shortest
   line.  A position whose tokens plus bound reach the seed's is left out: no
   shorter line passes it, so an open list that empties proves the seed is a
   shortest line. */
#include <stdlib.h>

#include "clock.h"
#include "key.h"
#include "open.h"
#include "search.h"
#include "solution.h"
#include "store.h"
#include "tuning.h"

static int home_count(const fcs_pos *p)
{
    return p->found[0] + p->found[1] + p->found[2] + p->found[3];
}

/* Cards as bits: bit CARD_BIT(c) for card c; SUIT_BITS: every rank of suit 0. */
#define CARD_BIT(c) ((c) - 1)
#define SUIT_BITS 0x1111111111111ull

/* A card of a run holding no blocking card, with a card under it: its bit,
   its run's number, and `above`: the cards it lies above a lower card of the
   suit of (every rank of a suit above the lowest under it). */
typedef struct {
    uint8_t bit, run;
    uint64_t above;
} clear_card;

/* The cards of suit s above rank `lowest` (FCS_RANKS + 1: none). */
static inline uint64_t ranks_above(int s, int lowest)
{
    return lowest > FCS_RANKS ? 0 : (SUIT_BITS << s) & (~0ull << (4 * lowest));
}

static inline int popcount(uint64_t v)
{
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((v * 0x0101010101010101ull) >> 56);
}

/* The size of a matching of the graph adj (bit j of adj[i]: runs i and j
   conflict), greedily: the vertex with the fewest free neighbours first,
   matched to its neighbour with the fewest.  Any matching is at most a
   vertex cover, the runs a line must move. */
static int matching(const uint64_t *adj, int n)
{
    uint64_t left = 0, scan;
    int i, size = 0;
    for (i = 0; i < n; i++)
        if (adj[i])
            left |= (uint64_t)1 << i;
    while (left) {
        int best = -1, best_deg = 65, mate = -1;
        for (scan = left; scan; scan &= scan - 1) {
            int v = __builtin_ctzll(scan), deg = popcount(adj[v] & left);
            if (deg == 0)
                left &= ~((uint64_t)1 << v);
            else if (deg < best_deg)
                best = v, best_deg = deg;
        }
        if (best < 0)
            break;
        best_deg = 65;
        for (scan = adj[best] & left; scan; scan &= scan - 1) {
            int v = __builtin_ctzll(scan), deg = popcount(adj[v] & left);
            if (deg < best_deg)
                mate = v, best_deg = deg;
        }
        left &= ~(((uint64_t)1 << best) | ((uint64_t)1 << mate));
        size++;
    }
    return size;
}

/* Add to adj the two-column cycles between the clear cards (columns in
   order; col_end[i]: the end of column i's); 0 when there is none.  Cards x
   and y close one when x lies above a card that must go home before y and y
   above one that must go home before x: one of them must leave its column
   other than home. */
static int cycles(const clear_card *clear, const int *col_end, int columns, uint64_t *adj)
{
    clear_card const *by_bit[FCS_CARDS];
    uint64_t later = 0;
    int i, j, found = 0;
    for (j = 0; j < col_end[columns - 1]; j++) {
        by_bit[clear[j].bit] = &clear[j];
        later |= (uint64_t)1 << clear[j].bit;
    }
    for (i = j = 0; i < columns; i++) {
        int k;
        for (k = j; k < col_end[i]; k++)
            later &= ~((uint64_t)1 << clear[k].bit);
        for (; j < col_end[i]; j++) {
            const clear_card *x = &clear[j];
            uint64_t ys = x->above & later;
            while (ys) {
                const clear_card *y = by_bit[__builtin_ctzll(ys)];
                ys &= ys - 1;
                if (y->above >> x->bit & 1) {
                    adj[x->run] |= (uint64_t)1 << y->run;
                    adj[y->run] |= (uint64_t)1 << x->run;
                    found = 1;
                }
            }
        }
    }
    return found;
}

/* The non-home moves a line from p must still make (docs/solver.md argues
   it): the maximal built runs holding a blocking card, plus a matching of
   the other runs by the two-column cycles between their cards.  Only cards
   of those runs with a card under them can be in a cycle: each column keeps
   just those in `clear`. */
static int runs_to_move(const fcs_rules *r, const fcs_pos *p)
{
    clear_card clear[FCS_CARDS];
    uint8_t blocked[FCS_CARDS];
    uint64_t adj[FCS_CARDS];
    int col_end[FCS_MAX_COLS];
    int i, j, k, n = 0, runs = 0, cards = 0;
    for (i = 0; i < r->columns; i++) {
        const uint8_t *col = p->col[i];
        uint64_t above = 0;
        int first = cards;
        for (j = 0; j < p->len[i]; j++) {
            int c = col[j];
            if (!j || !fcs_can_build(r, col[j - 1], c))
                blocked[runs++] = 0;
            if (above >> CARD_BIT(c) & 1) {
                n += !blocked[runs - 1];
                blocked[runs - 1] = 1;
                continue;
            }
            if (j) {
                clear[cards].bit = (uint8_t)CARD_BIT(c);
                clear[cards].run = (uint8_t)(runs - 1);
                clear[cards++].above = above;
            }
            /* no card above c's suit-mates under it is lower: c is the lowest yet */
            above = (above & ~(SUIT_BITS << CARD_SUIT(c))) | ranks_above(CARD_SUIT(c), CARD_RANK(c));
        }
        for (j = k = first; j < cards; j++)
            if (!blocked[clear[j].run])
                clear[k++] = clear[j];
        col_end[i] = cards = k;
    }
    memset(adj, 0, sizeof(adj[0]) * (size_t)runs);
    return n + (cards && cycles(clear, col_end, r->columns, adj) ? matching(adj, runs) : 0);
}

int fcs_optimal_bound(const fcs_rules *r, const fcs_pos *p)
{
    return FCS_CARDS - home_count(p) + runs_to_move(r, p);
}

/* An A* search under way: the store, the open list (priority: tokens so far
   plus the bound, then the bound, times BOUND_SPAN; an entry's move field:
   the tokens it was pushed with), each stored position's tokens so far, and
   the tokens of the line in hand (the solve's), which no shorter line
   reaches a position at or above. */
typedef struct {
    fcs_codec codec;
    fcs_store store;
    fcs_open open;
    uint16_t *tokens;
    uint32_t tokens_alloc;
    uint32_t seed;
} optimal_search;

/* Bounds are below this (cards not home plus runs: at most twice the cards),
   so priorities (tokens + bound) * BOUND_SPAN + bound take the lowest sum
   first and, among equal sums, the deepest position first. */
#define BOUND_SPAN (2 * FCS_CARDS + 1)

/* Record that stored position c is reached from `parent` (p) by m in
   `tokens` tokens, its bound `bound`, and open it; 0 when out of memory. */
static int reach(optimal_search *o, uint32_t c, uint32_t parent, const fcs_pos *p, const fcs_move *m,
                 uint32_t tokens, uint32_t bound)
{
    uint32_t priority = (tokens + bound) * BOUND_SPAN + bound;
    if (c >= o->tokens_alloc) {
        uint32_t alloc = o->tokens_alloc ? o->tokens_alloc : INITIAL_STATES;
        uint16_t *more;
        while (alloc <= c)
            alloc *= 2;
        if (!(more = realloc(o->tokens, (size_t)alloc * sizeof(uint16_t))))
            return 0;
        o->tokens = more;
        o->tokens_alloc = alloc;
    }
    store_record(&o->store, c, parent, p, m);
    o->tokens[c] = (uint16_t)tokens;
    return open_push(&o->open, &priority, c, tokens);
}

/* The line to stored position `won`, written into res; 0 when out of memory. */
static int optimal_line(const optimal_search *o, uint32_t won, fcs_result *res)
{
    int steps = 0, ok;
    fcs_packed_move *path = store_path(&o->store, won, NULL, &steps);
    fcs_result line;
    memset(&line, 0, sizeof(line));
    ok = path && solution_emit(o->codec.r, &o->codec.start, HOME_SAFE, path, steps, &line);
    free(path);
    if (!ok)
        return 0;
    free(res->solution);
    res->solution = line.solution;
    res->moves = line.moves;
    res->atomic_moves = line.atomic_moves;
    res->par = line.moves;
    return 1;
}

/* Expand stored position idx (tokens so far: g); 0 on a limit.  A child
   whose tokens plus bound reach the seed's is left out: every position of a
   shorter line is below it (the bound never overestimates). */
static int expand(optimal_search *o, uint32_t idx, uint32_t g)
{
    const fcs_rules *r = o->codec.r;
    fcs_move moves[FCS_MAX_MOVES];
    fcs_pos p, child;
    column_code codes[FCS_MAX_COLS], child_codes[FCS_MAX_COLS];
    uint64_t key[KEY_WORDS_MAX + 1];
    int i, n, is_new;
    key_decode(&o->codec, store_key(&o->store, idx), &p, codes);
    n = fcs_legal_moves(r, &p, 0, moves);
    for (i = 0; i < n; i++) {
        const fcs_move *m = &moves[i];
        uint32_t c, tokens, bound;
        if (!make_child(&o->codec, HOME_SAFE, &p, codes, m, &child, child_codes))
            continue;
        /* itself, and what autoplay sent home (a foundation move sends one itself) */
        tokens = g + 1 + (uint32_t)(home_count(&child) - home_count(&p)) - (m->dst_kind == AT_FOUNDATION) +
                 (m->src_kind == AT_FOUNDATION);
        bound = (uint32_t)fcs_optimal_bound(r, &child);
        if (tokens + bound >= o->seed)
            continue;
        key_encode_coded(&o->codec, &child, child_codes, key, NULL, NULL);
        c = store_find_or_add(&o->store, key, &is_new);
        if (c == NO_PARENT)
            return 0;
        if ((is_new || tokens < o->tokens[c]) && !reach(o, c, idx, &p, m, tokens, bound))
            return 0;
    }
    return 1;
}

/* Pop and expand until a won position comes off the open list (res takes
   its line and par), the open list empties (par is the seed's tokens: no
   line is shorter, and res keeps the seed) or a limit stops the search. */
static void search(optimal_search *o, double deadline, fcs_result *res)
{
    uint32_t pops = 0;
    while (o->open.n) {
        open_entry e = open_pop(&o->open);
        fcs_pos p;
        column_code codes[FCS_MAX_COLS];
        if (e.move != o->tokens[e.state])
            continue; /* reached in fewer tokens since it was pushed */
        if (deadline && (++pops % TIME_CHECK_EVERY) == 0 && fcs_now_s() > deadline)
            return;
        key_decode(&o->codec, store_key(&o->store, e.state), &p, codes);
        if (fcs_is_won(&p)) {
            if (!optimal_line(o, e.state, res) || res->par != (int)e.move)
                res->par = -1; /* never: the line writes the tokens it was counted with */
            return;
        }
        if (!expand(o, e.state, e.move))
            return;
    }
    res->par = res->moves;
}

void fcs_optimal(const fcs_rules *r, const fcs_pos *start, uint64_t max_states, double timeout_s, fcs_result *res)
{
    optimal_search o;
    fcs_pos root = *start;
    uint64_t key[KEY_WORDS_MAX + 1];
    double t0 = fcs_now_s(), deadline = timeout_s > 0 ? t0 + timeout_s : 0;
    uint32_t idx, first, bound;
    int is_new;
    res->par = -1;
    memset(&o, 0, sizeof(o));
    o.seed = (uint32_t)res->moves;
    key_codec_init(&o.codec, r, start);
    open_init(&o.open, 1);
    autoplay(r, &root, HOME_SAFE, NULL, NULL, NULL, NULL);
    first = (uint32_t)(home_count(&root) - home_count(start)); /* the tokens autoplay writes before any move */
    bound = (uint32_t)fcs_optimal_bound(r, &root);
    if (first + bound >= o.seed) {
        res->par = res->moves;
    } else if (store_init(&o.store, o.codec.key_words, max_states > 0xFFFFFFF0u ? 0xFFFFFFF0u : (uint32_t)max_states)) {
        key_encode(&o.codec, &root, key, NULL, NULL);
        idx = store_find_or_add(&o.store, key, &is_new);
        if (idx != NO_PARENT && reach(&o, idx, NO_PARENT, NULL, NULL, first, bound))
            search(&o, deadline, res);
    }
    res->line[FCS_LINE_PAR].states = o.store.n;
    res->line[FCS_LINE_PAR].time_s = fcs_now_s() - t0;
    store_free(&o.store);
    open_free(&o.open);
    free(o.tokens);
}
