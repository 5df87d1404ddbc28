/* --optimal: A* over the move model the notation counts (search.h), with
   exact duplicate detection in a store of its own.

   The cost of a move is the tokens it writes: itself and the cards safe
   autoplay sends home after it.  Safe autoplay loses nothing here either: a
   card it sends is a pure obstacle (position.c), so a line that keeps it
   back is no shorter with its moves of that card deleted and the card sent
   home at once, one token.

   The heuristic, a lower bound on the tokens still to write (docs/solver.md
   argues it):
     every card not home, one token each (its move home), plus
     for every column, its maximal built runs (segments each card of which
     builds on the one under it, per the rules) holding a blocking card: one
     above a lower card of its own suit in the column.
   It is consistent, so admissible (it is 0 when won):
   - A move lifts cards from one column only, and only from within its top
     run (a sequence move lifts a built top segment; other moves one card),
     so it empties or shortens one run of its source: that column's count
     falls by at most 1.  The cards left keep their runs and their blocking
     (a card blocks for what lies under it).
   - Cards put on a column never lower its count: the runs under them stay,
     the top one at most grows, and no card under them changes.
   - A card going home (a foundation move, or autoplay) is a top card whose
     lower suit-mates are home, so it blocks nothing and its run's other
     cards keep their count: only the first term falls, by one.
   So a move writing c tokens (itself, and c - 1 autoplay sent home; c if it
   is a foundation move) lowers the bound by at most c.  Hence the first
   time A* takes a position off the open list its tokens are the fewest, and
   the first won position it takes is reached by a shortest line.  Every
   build order, empty-fill and sequence rule keeps these facts. */
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

/* Sum over columns of the maximal built runs holding a blocking card. */
static int blocked_runs(const fcs_rules *r, const fcs_pos *p)
{
    int i, j, n = 0;
    for (i = 0; i < r->columns; i++) {
        const uint8_t *col = p->col[i];
        /* lowest[s]: the lowest rank of suit s under card j; counted: card
           j's run has been counted */
        uint8_t lowest[FCS_NUM_SUITS] = {FCS_RANKS + 1, FCS_RANKS + 1, FCS_RANKS + 1, FCS_RANKS + 1};
        int counted = 0;
        for (j = 0; j < p->len[i]; j++) {
            int c = col[j], su = CARD_SUIT(c), rk = CARD_RANK(c);
            if (j && !fcs_can_build(r, col[j - 1], c))
                counted = 0;
            if (lowest[su] < rk) {
                n += !counted;
                counted = 1;
            } else {
                lowest[su] = (uint8_t)rk;
            }
        }
    }
    return n;
}

int fcs_optimal_bound(const fcs_rules *r, const fcs_pos *p)
{
    return FCS_CARDS - home_count(p) + blocked_runs(r, p);
}

/* An A* search under way: the store, the open list (priority: tokens so far
   plus the bound; an entry's move field: the tokens it was pushed with) and
   each stored position's tokens so far. */
typedef struct {
    fcs_codec codec;
    fcs_store store;
    fcs_open open;
    uint16_t *tokens;
    uint32_t tokens_alloc;
} optimal_search;

/* Record that stored position c is reached from `parent` (p) by m in
   `tokens` tokens, and open it; 0 when out of memory. */
static int reach(optimal_search *o, uint32_t c, uint32_t parent, const fcs_pos *p, const fcs_move *m,
                 const fcs_pos *child, uint32_t tokens)
{
    uint32_t priority = tokens + (uint32_t)fcs_optimal_bound(o->codec.r, child);
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

/* Expand stored position idx (tokens so far: g); 0 on a limit. */
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
        uint32_t c, tokens;
        if (!make_child(&o->codec, HOME_SAFE, &p, codes, m, &child, child_codes))
            continue;
        /* itself, and what autoplay sent home (a foundation move sends one itself) */
        tokens = g + 1 + (uint32_t)(home_count(&child) - home_count(&p)) - (m->dst_kind == AT_FOUNDATION) +
                 (m->src_kind == AT_FOUNDATION);
        key_encode_coded(&o->codec, &child, child_codes, key, NULL, NULL);
        c = store_find_or_add(&o->store, key, &is_new);
        if (c == NO_PARENT)
            return 0;
        if ((is_new || tokens < o->tokens[c]) && !reach(o, c, idx, &p, m, &child, tokens))
            return 0;
    }
    return 1;
}

void fcs_optimal(const fcs_rules *r, const fcs_pos *start, uint64_t max_states, double timeout_s, fcs_result *res)
{
    optimal_search o;
    fcs_pos root = *start;
    uint64_t key[KEY_WORDS_MAX + 1];
    double deadline = timeout_s > 0 ? fcs_now_s() + timeout_s : 0;
    uint32_t idx, pops = 0;
    int is_new, first = 0;
    res->par = -1;
    memset(&o, 0, sizeof(o));
    key_codec_init(&o.codec, r, start);
    open_init(&o.open, 1);
    autoplay(r, &root, HOME_SAFE, NULL, NULL, NULL, NULL);
    first = home_count(&root) - home_count(start); /* the tokens autoplay writes before any move */
    if (store_init(&o.store, o.codec.key_words, max_states > 0xFFFFFFF0u ? 0xFFFFFFF0u : (uint32_t)max_states)) {
        key_encode(&o.codec, &root, key, NULL, NULL);
        idx = store_find_or_add(&o.store, key, &is_new);
        if (idx != NO_PARENT && reach(&o, idx, NO_PARENT, NULL, NULL, &root, (uint32_t)first)) {
            while (o.open.n) {
                open_entry e = open_pop(&o.open);
                fcs_pos p;
                column_code codes[FCS_MAX_COLS];
                if (e.move != o.tokens[e.state])
                    continue; /* reached in fewer tokens since it was pushed */
                if (deadline && (++pops % TIME_CHECK_EVERY) == 0 && fcs_now_s() > deadline)
                    break;
                key_decode(&o.codec, store_key(&o.store, e.state), &p, codes);
                if (fcs_is_won(&p)) {
                    if (!optimal_line(&o, e.state, res) || res->par != (int)e.move)
                        res->par = -1; /* never: the line writes the tokens it was counted with */
                    break;
                }
                if (!expand(&o, e.state, e.move))
                    break;
            }
        }
    }
    store_free(&o.store);
    open_free(&o.open);
    free(o.tokens);
}
