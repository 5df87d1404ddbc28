/* fcs_solve: the phases of a solve (search.h), run in turn from one table
   until one reaches a verdict or a limit. */
#include <stdlib.h>

#include "clock.h"
#include "phase.h"
#include "proof/checkpoint.h"
#include "proof/proof.h"
#include "solution.h"
#include "tuning.h"

static const struct {
    int home_mode;
    unsigned moves;
    uint32_t budget;
    int more_room_for; /* the try this one repeats with more room, or -1 */
} TRIES[] = {
#define TRY_ENTRY(mode, moves, budget, again) {mode, moves, budget, again},
    GREEDY_TRIES(TRY_ENTRY)
#undef TRY_ENTRY
};
#define TRY_COUNT ((int)(sizeof(TRIES) / sizeof(TRIES[0])))

static const struct {
    int home_mode;
    unsigned moves;
    int foundation_return_only;
} LAST_TRY_TABLE[] = {
#define LAST_TRY_ENTRY(mode, moves, fr_only) {mode, moves, fr_only},
    LAST_TRIES(LAST_TRY_ENTRY)
#undef LAST_TRY_ENTRY
};
#define LAST_TRY_COUNT ((int)(sizeof(LAST_TRY_TABLE) / sizeof(LAST_TRY_TABLE[0])))

/* A solve under way.  The greedy tries, the complete search and the last
   try take turns with one store and open list (`search`); the interlude
   gets its own, and shares only the codec, the greedy cache and the
   counts. */
typedef struct {
    const fcs_limits *lim;
    fcs_result *res;
    fcs_codec codec;
    fcs_pos root;
    uint32_t max_states;
    fcs_store store;
    fcs_open open;
    fcs_search search;
    fcs_counts counts;
    int searches;    /* the searches run (not resumed, and asked for) */
    int ended;       /* a greedy try reached a verdict or a limit */
    int paused;      /* the complete search paused for the interlude */
    int interlude_ended; /* the interlude won or ran out of time */
} solve_state;

/* The greedy search's settings for a try with autoplay `mode`. */
static void greedy_settings(solve_state *ss, int mode, unsigned moves)
{
    ss->search.home_mode = mode;
    ss->search.moves = moves;
    ss->search.w = &GREEDY_WEIGHTS;
}

static int want_searches(const solve_state *ss)
{
    return ss->searches && !ss->ended;
}

/* The greedy tries, each with the positions it may store: a repeat only
   goes on where the try it repeats ran out of room (one that ran out of
   positions would only do the same again). */
static void greedy_tries(solve_state *ss)
{
    uint32_t budget[TRY_COUNT];
    int i, out_of_room[TRY_COUNT];
    for (i = 0; i < TRY_COUNT && !ss->ended; i++) {
        int again = TRIES[i].more_room_for;
        budget[i] = ss->max_states < TRIES[i].budget ? ss->max_states : TRIES[i].budget;
        out_of_room[i] = 0;
        if (again >= 0 && !(out_of_room[again] && budget[i] > budget[again]))
            continue;
        greedy_settings(ss, TRIES[i].home_mode, TRIES[i].moves);
        ss->ended = greedy_search(&ss->search, &ss->root, OPEN_ORDERS, budget[i], ss->res) == PHASE_DONE;
        out_of_room[i] = ss->store.n >= budget[i];
        ss->counts.phase[FCS_GREEDY_TRIES].states += ss->store.n;
        if (!ss->ended)
            store_clear(&ss->store);
    }
}

/* The complete search, until it stores INTERLUDE_AFTER positions: a deal
   whose proof or win needs fewer never pays for the interlude. */
static void complete_first(solve_state *ss)
{
    ss->search.home_mode = HOME_SAFE;
    ss->search.moves = 0;
    ss->search.w = &COMPLETE_WEIGHTS;
    ss->paused = complete_start(&ss->search, &ss->root) &&
                 complete_search(&ss->search, INTERLUDE_AFTER, ss->res) == PHASE_PAUSED;
    ss->counts.phase[FCS_COMPLETE_SEARCH].states = ss->store.n;
}

static int want_interlude(const solve_state *ss)
{
    return ss->paused;
}

/* One go of the greedy search, with eager autoplay, of INTERLUDE_BUDGET positions (at most
   1/INTERLUDE_SHARE of the room, as its store comes on top of the complete
   search's) in a store of its own: a win the complete search reaches only
   late is often near for the greedy one, which goes deep where the
   complete one goes wide. */
static void interlude(solve_state *ss)
{
    fcs_store store;
    fcs_open open;
    fcs_search t;
    uint32_t budget = ss->max_states / INTERLUDE_SHARE < INTERLUDE_BUDGET ? ss->max_states / INTERLUDE_SHARE
                                                                          : INTERLUDE_BUDGET;
    open_init(&open, 1);
    t.codec = &ss->codec;
    t.store = &store;
    t.open = &open;
    t.cache = ss->search.cache;
    t.w = &GREEDY_WEIGHTS;
    t.home_mode = HOME_EAGER;
    t.moves = FCS_MOVES_GREEDY;
    t.deadline = ss->search.deadline;
    t.expanded = &ss->counts.expanded;
    t.limit = 0;
    ss->interlude_ended = store_init(&store, ss->codec.key_words, ss->max_states) &&
                          greedy_search(&t, &ss->root, 1, budget, ss->res) == PHASE_DONE &&
                          (ss->res->status == FCS_SOLVED || t.limit == FCS_LIMIT_TIME);
    if (t.limit == FCS_LIMIT_TIME)
        ss->search.limit = FCS_LIMIT_TIME;
    ss->counts.phase[FCS_INTERLUDE].states = store.n;
    store_free(&store);
    open_free(&open);
}

static int want_complete_rest(const solve_state *ss)
{
    return ss->paused && !ss->interlude_ended;
}

/* The complete search goes on where it paused. */
static void complete_rest(solve_state *ss)
{
    ss->search.home_mode = HOME_SAFE;
    ss->search.moves = 0;
    ss->search.w = &COMPLETE_WEIGHTS;
    complete_search(&ss->search, 0, ss->res);
    ss->counts.phase[FCS_COMPLETE_SEARCH].states = ss->store.n;
}

static int want_last_try(const solve_state *ss)
{
    return want_searches(ss) && ss->res->status == FCS_UNKNOWN && ss->search.limit == FCS_LIMIT_STATES;
}

/* Last try i, in the store the complete search had; 1 when it gave up (out
   of room, or with eager autoplay dry), so the next may go on. */
static int last_go(solve_state *ss, int i)
{
    int gave_up;
    store_clear(&ss->store);
    greedy_settings(ss, LAST_TRY_TABLE[i].home_mode, LAST_TRY_TABLE[i].moves);
    ss->search.limit = 0;
    gave_up = greedy_search(&ss->search, &ss->root, 1, ss->max_states / LAST_TRY_SHARE + 1, ss->res) == PHASE_GAVE_UP;
    ss->counts.phase[FCS_LAST_TRY].states += ss->store.n;
    if (gave_up)
        ss->search.limit = FCS_LIMIT_STATES;
    return gave_up;
}

/* The complete search ran out of room: a proof is out of reach, but a win
   may not be.  The greedy search with eager autoplay goes deep where the complete one
   goes wide, so it has one more go.  Its open list grows by about six
   entries a position, hence 1/LAST_TRY_SHARE of the room, which keeps
   memory within what the limit allows.  With foundation return a second go
   follows (LAST_TRIES), with safe autoplay and every move: there the
   layered proof has no cards home to layer by, so it reaches a win only
   after about every position with fewer dealt pairs broken (docs/solver.md,
   "Last try").  Each goes only when the one before gave up; a safe one that
   runs dry proves the deal unsolvable, as greedy try 2 does. */
static void last_try(solve_state *ss)
{
    int i;
    for (i = 0; i < LAST_TRY_COUNT; i++)
        if ((!LAST_TRY_TABLE[i].foundation_return_only || ss->codec.r->foundation_return) && !last_go(ss, i))
            break;
}

static int want_proof(const solve_state *ss)
{
    return !ss->ended && ss->res->status == FCS_UNKNOWN && ss->search.limit == FCS_LIMIT_STATES &&
           (ss->lim->phases & FCS_PHASE_PROOF);
}

/* Still undecided: the stores go, and the layered proof gets the room. */
static void proof(solve_state *ss)
{
    proof_limits pl = {(uint64_t)ss->max_states * PROOF_ROOM, ss->search.deadline, ss->lim->checkpoint,
                       ss->lim->checkpoint_tag, ss->lim->checkpoint_every_s, ss->lim->threads,
                       ss->lim->offer, ss->lim->offer_every_s};
    int limit;
    store_free(&ss->store);
    open_free(&ss->open);
    if (layered_proof(&ss->codec, &pl, ss->res->resumed, &ss->root, &ss->counts, ss->res, &limit))
        ss->res->status = FCS_UNSOLVABLE;
    ss->search.limit = limit; /* 0 when it proved the deal unsolvable or spelled its win out */
}

static const struct {
    int phase;
    int (*wanted)(const solve_state *);
    void (*work)(solve_state *);
} PHASES[] = {
    {FCS_GREEDY_TRIES, want_searches, greedy_tries},
    {FCS_COMPLETE_SEARCH, want_searches, complete_first},
    {FCS_INTERLUDE, want_interlude, interlude},
    {FCS_COMPLETE_SEARCH, want_complete_rest, complete_rest},
    {FCS_LAST_TRY, want_last_try, last_try},
    {FCS_LAYERED_PROOF, want_proof, proof},
};
#define PHASE_STEPS ((int)(sizeof(PHASES) / sizeof(PHASES[0])))

/* Set up the solve; 0 when it is over before any phase (the root is won,
   or no memory). */
static int solve_begin(solve_state *ss, const fcs_rules *r, const fcs_pos *start, const fcs_limits *lim)
{
    ss->lim = lim;
    ss->max_states = lim->max_states > 0xFFFFFFF0u ? 0xFFFFFFF0u : (uint32_t)lim->max_states;
    if (ss->max_states < 1)
        ss->max_states = 1;
    key_codec_init(&ss->codec, r, start);
    open_init(&ss->open, 1);
    ss->search.codec = &ss->codec;
    ss->search.store = &ss->store;
    ss->search.open = &ss->open;
    ss->search.expanded = &ss->counts.expanded;
    ss->search.deadline = lim->timeout_s > 0 ? fcs_now_s() + lim->timeout_s : 0;
    ss->root = *start;
    fcs_autoplay(r, &ss->root, NULL, NULL, NULL);
    if (fcs_is_won(&ss->root)) {
        solution_from_store(&ss->codec, HOME_SAFE, &ss->store, NO_PARENT, NULL, ss->res);
        return 0;
    }
    ss->searches = (lim->phases & FCS_PHASE_SEARCH) != 0;
    if ((lim->phases & FCS_PHASE_PROOF) && checkpoint_matches(lim->checkpoint, lim->checkpoint_tag)) {
        /* A proof under way: the searches before it ended undecided last
           time.  (The searches alone run again, so that they are counted.) */
        ss->res->resumed = 1;
        ss->searches = 0;
    }
    if (!ss->searches) {
        ss->search.limit = FCS_LIMIT_STATES; /* where the searches handed over to the proof */
        return 1;
    }
    ss->search.cache = greedy_cache_new();
    if (!ss->search.cache || !store_init(&ss->store, ss->codec.key_words, ss->max_states)) {
        ss->search.limit = FCS_LIMIT_MEMORY;
        return 0;
    }
    return 1;
}

void fcs_solve(const fcs_rules *r, const fcs_pos *start, const fcs_limits *lim, fcs_result *res)
{
    solve_state ss;
    fcs_limits given = *lim;
    int i;

    memset(res, 0, sizeof(*res));
    memset(&ss, 0, sizeof(ss));
    if (!given.phases)
        given.phases = FCS_PHASES_ALL;
    res->status = FCS_UNKNOWN;
    ss.res = res;
    if (solve_begin(&ss, r, start, &given))
        for (i = 0; i < PHASE_STEPS; i++)
            if (PHASES[i].wanted(&ss)) {
                double began = fcs_now_s();
                PHASES[i].work(&ss);
                ss.counts.phase[PHASES[i].phase].time_s += fcs_now_s() - began;
            }
    if (res->status == FCS_UNKNOWN)
        res->limit = ss.search.limit ? ss.search.limit : FCS_LIMIT_MEMORY;
    for (i = 0; i < FCS_PHASE_COUNT; i++)
        res->states += ss.counts.phase[i].states;
    res->expanded = ss.counts.expanded;
    memcpy(res->phase, ss.counts.phase, sizeof(res->phase));
    store_free(&ss.store);
    open_free(&ss.open);
    greedy_cache_free(ss.search.cache);
}
