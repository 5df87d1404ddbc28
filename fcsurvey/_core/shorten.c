/* The shortening pass (shorten.h): edits of a won line, each kept only when
   the edited line is legal move by move, rejoins the old line, and writes
   fewer tokens.  A line is a list of packed moves, which name the card
   moved and where it lands but not the column or cell it comes from, so
   deleting a card's move leaves its next move valid wherever the card now
   is: that is what makes most edits one deletion. */
#include "shorten.h"

#include <stdlib.h>

#include "solution.h"
#include "tuning.h"

static int accepts_empty(const fcs_rules *r, int card)
{
    return r->empty_fill == FILL_ANY || (r->empty_fill == FILL_KINGS && CARD_RANK(card) == FCS_RANKS);
}

/* The physical move packed move pm stands for in p, when the rules allow it
   there (fcs_unpack finds the move's ends; this checks the move itself, as
   the move generator would have). */
static int legal_move(const fcs_rules *r, const fcs_pos *p, fcs_packed_move pm, fcs_move *m)
{
    int card = PACKED_CARD(pm);
    if (!fcs_unpack(r, p, pm, m))
        return 0;
    if (m->src_kind == AT_FOUNDATION && (!r->foundation_return || m->dst_kind == AT_FOUNDATION))
        return 0;
    if (m->src_kind == AT_COLUMN && m->count > 1 &&
        (m->count > fcs_run_length(r, p, m->src) ||
         m->count > fcs_capacity(r, p, m->dst_kind == AT_COLUMN && !p->len[m->dst])))
        return 0;
    switch (m->dst_kind) {
    case AT_FOUNDATION:
        return m->count == 1 && p->found[CARD_SUIT(card)] + 1 == CARD_RANK(card);
    case AT_CELL:
        return m->count == 1;
    default:
        if (m->src_kind == AT_COLUMN && m->src == m->dst)
            return 0;
        if (p->len[m->dst])
            return fcs_can_build(r, p->col[m->dst][p->len[m->dst] - 1], card);
        return accepts_empty(r, card) && !fcs_is_noop(p, m);
    }
}

/* A line and the positions it passes: pos[k] before its move k (autoplay
   done), hash[k] of pos[k], tokens[k] what move k writes (itself and the
   cards autoplay sends home after it). */
typedef struct {
    const fcs_rules *r;
    int mode;
    fcs_packed_move *path;
    int steps;
    fcs_pos *pos;
    uint64_t *hash;
    int *tokens;
} line;

/* Replay the line from its move `from` on, filling in what follows; 0 when
   a move is not legal (never for a line the searches found). */
static int line_replay(line *l, int from)
{
    int k;
    for (k = from; k < l->steps; k++) {
        fcs_move m;
        fcs_copy_pos(&l->pos[k + 1], &l->pos[k], l->r->columns);
        if (!legal_move(l->r, &l->pos[k + 1], l->path[k], &m))
            return 0;
        fcs_apply(&l->pos[k + 1], &m);
        l->tokens[k] = 1 + autoplay(l->r, &l->pos[k + 1], l->mode, NULL, NULL, NULL, NULL);
        l->hash[k + 1] = order_free_hash(l->r, &l->pos[k + 1]);
    }
    return 1;
}

/* An edit of the line at move i: move i goes (drop_i), or lands where the
   card's next move j takes it (to_j); move j goes with it when drop_j. */
typedef struct {
    int i, j;
    int drop_i, drop_j;
    fcs_packed_move to_j;
} line_edit;

/* Try edit e: replay the edited moves from pos[e.i] until the position is
   one the old line passes after the edited moves (then the rest of the old
   line wins from it) within SHORTEN_REJOIN moves of the last edited one;
   the old moves it skips, when the edited ones write fewer tokens, else 0. */
static int try_edit(const line *l, const line_edit *e)
{
    fcs_pos p;
    int last = e->j >= 0 ? e->j : e->i, k, old_tokens = 0, new_tokens = 0, dropped = e->drop_i + e->drop_j;
    fcs_copy_pos(&p, &l->pos[e->i], l->r->columns);
    for (k = e->i; k < l->steps && k <= last + SHORTEN_REJOIN; k++) {
        fcs_move m;
        fcs_packed_move pm = l->path[k];
        old_tokens += l->tokens[k];
        if ((k == e->i && e->drop_i) || (k == e->j && e->drop_j))
            continue;
        if (k == e->i)
            pm = e->to_j;
        if (!legal_move(l->r, &p, pm, &m))
            return 0;
        fcs_apply(&p, &m);
        new_tokens += 1 + autoplay(l->r, &p, l->mode, NULL, NULL, NULL, NULL);
        /* Equal positions have equal foundations: only those are hashed. */
        if (k >= last && memcmp(p.found, l->pos[k + 1].found, sizeof(p.found)) == 0 &&
            order_free_hash(l->r, &p) == l->hash[k + 1])
            return new_tokens < old_tokens ? dropped : 0;
        if (new_tokens >= old_tokens + SHORTEN_REJOIN)
            return 0;
    }
    /* The old line ran out: the edited one must have won as well. */
    return k == l->steps && fcs_is_won(&p) && new_tokens < old_tokens ? dropped : 0;
}

/* Make edit e on the line's moves. */
static void apply_edit(line *l, const line_edit *e)
{
    if (e->drop_j)
        memmove(&l->path[e->j], &l->path[e->j + 1], (size_t)(l->steps - e->j - 1) * sizeof(fcs_packed_move));
    l->steps -= e->drop_j;
    if (e->drop_i) {
        memmove(&l->path[e->i], &l->path[e->i + 1], (size_t)(l->steps - e->i - 1) * sizeof(fcs_packed_move));
        l->steps--;
    } else {
        l->path[e->i] = e->to_j;
    }
}

/* The next move of move i's card after it, within SHORTEN_REACH moves, or -1. */
static int next_move_of_card(const line *l, int i)
{
    int card = PACKED_CARD(l->path[i]), k;
    for (k = i + 1; k < l->steps && k <= i + SHORTEN_REACH; k++)
        if (PACKED_CARD(l->path[k]) == card)
            return k;
    return -1;
}

/* The best edit at move i that holds, made; 0 when none does.  Edits are
   tried most tokens saved first: the card's two moves both go, its first
   move goes straight where its second lands, the first move alone goes. */
static int edit_at(line *l, int i)
{
    int j = next_move_of_card(l, i), t;
    line_edit tries[3];
    int n = 0;
    if (j >= 0) {
        tries[n++] = (line_edit){i, j, 1, 1, 0};
        tries[n++] = (line_edit){i, j, 0, 1, l->path[j]};
    }
    tries[n++] = (line_edit){i, j, 1, 0, 0};
    for (t = 0; t < n; t++)
        if (try_edit(l, &tries[t])) {
            apply_edit(l, &tries[t]);
            return 1;
        }
    return 0;
}

/* Where the line passes each position, by hash: open addressing over
   hash[], keeping the last index of a position passed twice. */
typedef struct {
    int *at; /* index into the line + 1; 0: empty */
    uint32_t mask;
} line_index;

static void index_build(line_index *x, const line *l)
{
    int k;
    memset(x->at, 0, (size_t)(x->mask + 1) * sizeof(int));
    for (k = 0; k <= l->steps; k++) {
        uint32_t s = (uint32_t)l->hash[k] & x->mask;
        while (x->at[s] && l->hash[x->at[s] - 1] != l->hash[k])
            s = (s + 1) & x->mask;
        x->at[s] = k + 1;
    }
}

static int index_find(const line_index *x, const line *l, uint64_t h)
{
    uint32_t s = (uint32_t)h & x->mask;
    while (x->at[s]) {
        if (l->hash[x->at[s] - 1] == h)
            return x->at[s] - 1;
        s = (s + 1) & x->mask;
    }
    return -1;
}

/* The best shortcut found so far from the line's position `from`: `n`
   moves to its position `to`, writing `tokens`, saving `gain` tokens. */
typedef struct {
    int from, to, n, gain;
    fcs_packed_move moves[SHORTEN_DEPTH];
} shortcut;

/* Every line of at most `left` more moves from p (reached from pos[sc->from]
   by `n` moves `moves`, writing `tokens`): keep in sc the one that reaches
   the line furthest ahead for the fewest tokens. */
static void shortcut_search(const line *l, const line_index *x, const fcs_pos *p, fcs_packed_move *moves, int n,
                            int tokens, int left, shortcut *sc)
{
    fcs_move legal[FCS_MAX_MOVES];
    int count = fcs_legal_moves(l->r, p, 0, legal), i;
    for (i = 0; i < count; i++) {
        fcs_pos child;
        int j, t, old = 0, k;
        if (fcs_is_noop(p, &legal[i]))
            continue;
        fcs_copy_pos(&child, p, l->r->columns);
        fcs_apply(&child, &legal[i]);
        t = tokens + 1 + autoplay(l->r, &child, l->mode, NULL, NULL, NULL, NULL);
        moves[n] = fcs_pack(p, &legal[i]);
        j = fcs_is_won(&child) ? l->steps : index_find(x, l, order_free_hash(l->r, &child));
        if (j > sc->from + n + 1) {
            for (k = sc->from; k < j; k++)
                old += l->tokens[k];
            if (old - t > sc->gain) {
                sc->to = j;
                sc->n = n + 1;
                sc->gain = old - t;
                memcpy(sc->moves, moves, (size_t)(n + 1) * sizeof(fcs_packed_move));
            }
        }
        if (left > 1 && !fcs_is_won(&child))
            shortcut_search(l, x, &child, moves, n + 1, t, left - 1, sc);
    }
}

/* The best shortcut from the line's move i, made; 0 when there is none. */
static int shortcut_at(line *l, const line_index *x, int i, int depth)
{
    fcs_packed_move moves[SHORTEN_DEPTH];
    shortcut sc = {i, i, 0, 0, {0}};
    shortcut_search(l, x, &l->pos[i], moves, 0, 0, depth, &sc);
    if (!sc.gain)
        return 0;
    memmove(&l->path[i + sc.n], &l->path[sc.to], (size_t)(l->steps - sc.to) * sizeof(fcs_packed_move));
    memcpy(&l->path[i], sc.moves, (size_t)sc.n * sizeof(fcs_packed_move));
    l->steps -= sc.to - i - sc.n;
    return 1;
}

/* Whether an edit at move i holds depends on the moves from i to at most
   i + EDIT_WINDOW (the card's next move within SHORTEN_REACH, then up to
   SHORTEN_REJOIN more to meet the old line) and on the position before i.
   So an edit that failed at i fails again in the next pass unless an edit
   made since lies within the window (an edit at e changes only moves from e
   on: it clears what it may change, the EDIT_WINDOW moves before it), or the
   pass already made an edit before i (which may lay the positions after it
   out in another order).  Shortcuts (depth > 0) read the whole line: no
   edit is taken as known to fail then. */
#define EDIT_WINDOW (SHORTEN_REACH + SHORTEN_REJOIN + 1)

int shorten_line(const fcs_rules *r, int mode, const fcs_pos *start, fcs_packed_move *path, int steps, int depth)
{
    line l = {r, mode, path, steps, NULL, NULL, NULL};
    int pass, i, edited = 1;
    uint8_t *fails; /* fails[i]: no edit at move i holds (see EDIT_WINDOW) */
    fcs_packed_move *old = malloc((size_t)(steps + 1) * sizeof(fcs_packed_move));
    line_index x = {NULL, 1};
    while (x.mask < 2u * (uint32_t)(steps + 1))
        x.mask <<= 1;
    x.at = malloc((size_t)x.mask * sizeof(int));
    x.mask--;
    l.pos = malloc((size_t)(steps + 1) * sizeof(fcs_pos));
    l.hash = malloc((size_t)(steps + 1) * sizeof(uint64_t));
    l.tokens = malloc((size_t)(steps + 1) * sizeof(int));
    fails = calloc((size_t)steps + 1, 1);
    if (!old || !x.at || !l.pos || !l.hash || !l.tokens || !fails)
        goto done;
    memcpy(old, path, (size_t)steps * sizeof(fcs_packed_move));
    l.pos[0] = *start;
    autoplay(r, &l.pos[0], mode, NULL, NULL, NULL, NULL);
    l.hash[0] = order_free_hash(r, &l.pos[0]);
    if (!line_replay(&l, 0))
        goto done;
    for (pass = 0; pass < SHORTEN_PASSES && edited; pass++)
        for (edited = 0, i = 0; i < l.steps; i++) {
            if (!edited && fails[i])
                continue;
            while (i < l.steps && (edit_at(&l, i) || (depth > 0 && (index_build(&x, &l), shortcut_at(&l, &x, i, depth))))) {
                edited = 1;
                memset(&fails[i > EDIT_WINDOW ? i - EDIT_WINDOW : 0], 0, (size_t)(i > EDIT_WINDOW ? EDIT_WINDOW : i));
                if (!line_replay(&l, i) || !fcs_is_won(&l.pos[l.steps])) {
                    /* Only a hash shared by two positions leads here: the old line stands. */
                    memcpy(path, old, (size_t)steps * sizeof(fcs_packed_move));
                    l.steps = steps;
                    goto done;
                }
            }
            fails[i] = depth == 0;
        }
done:
    free(fails);
    free(x.at);
    free(old);
    free(l.pos);
    free(l.hash);
    free(l.tokens);
    return l.steps;
}
