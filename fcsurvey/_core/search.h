/* The solver's entry point: fcs_solve runs the phases of a solve in turn
   (solve.c) until one reaches a verdict or a limit. */
#ifndef FCS_SEARCH_H
#define FCS_SEARCH_H

#include "position.h"

enum { FCS_SOLVED = 0, FCS_UNSOLVABLE = 1, FCS_UNKNOWN = 2 };
enum { FCS_LIMIT_NONE = 0, FCS_LIMIT_STATES = 1, FCS_LIMIT_TIME = 2, FCS_LIMIT_MEMORY = 3, FCS_LIMIT_DISK = 4,
       FCS_LIMIT_THREADS = 5, /* not a verdict's: the proof stopped to go on with the threads offered */
       FCS_LIMIT_BROKEN = 6 /* not a verdict's: a move went down a layer, against the layered proof's
                               argument (proof.h), so it proves nothing: a bug, which the caller raises */ };

#define FCS_CHECKPOINT_TAG 32
#define FCS_MAX_THREADS 64 /* threads one layered proof may run on (proof/team.h) */

/* The phases of a solve, in order: the greedy tries, the complete search
   (which can prove a deal unsolvable when it fits in max_states) with the
   interlude of a greedy search in its course, the last greedy try when the
   complete search ran out of room, and the layered proof they hand over to
   when it did.  The first four are the searches. */
enum { FCS_GREEDY_TRIES, FCS_COMPLETE_SEARCH, FCS_INTERLUDE, FCS_LAST_TRY, FCS_LAYERED_PROOF, FCS_PHASE_COUNT };
/* The searches for a shorter line that run after a solve has won (--short's
   beam search, --optimal's A*): counted apart, as they decide no verdict. */
enum { FCS_LINE_BEAM, FCS_LINE_PAR, FCS_LINE_PHASE_COUNT };
/* Which phases a caller runs: the searches, the proof, or both. */
enum { FCS_PHASE_SEARCH = 1, FCS_PHASE_PROOF = 2, FCS_PHASES_ALL = 3 };

/* What one phase did: positions stored (the proof: visited) and seconds. */
typedef struct {
    uint64_t states;
    double time_s;
} fcs_phase_count;

/* What a solve counts as it goes, phase by phase. */
typedef struct {
    uint64_t expanded; /* positions expanded, by every phase */
    fcs_phase_count phase[FCS_PHASE_COUNT];
} fcs_counts;

typedef struct {
    uint64_t max_states;
    double timeout_s; /* <= 0: none */
    /* When given, the layered proof saves what it still has to do to this
       file between groups, at most every checkpoint_every_s seconds, and a
       solve given the same file and tag resumes from it.  The tag names the
       build, rules and start (the caller's business); a file with another
       tag is ignored and overwritten.  The file goes when the proof returns,
       whatever its outcome, so only a process that dies leaves one (or a
       caller that, resuming, runs the searches and then not the proof). */
    const char *checkpoint;
    uint8_t checkpoint_tag[FCS_CHECKPOINT_TAG];
    double checkpoint_every_s;
    /* Which phases to run (0: both).  A caller that wants to try something
       else between them runs the searches alone, which end `unknown` with
       the states limit where the proof would start, then the proof alone. */
    unsigned phases;
    /* Threads the layered proof runs on (0 or 1: one, as in builds before
       it had threads); the searches before it use one. */
    int threads;
    /* When given (with a checkpoint), the file of the threads the layered
       proof is offered, read every offer_every_s seconds: when it names
       another number than the proof runs on, the proof saves its checkpoint
       and stops with FCS_LIMIT_THREADS, for the caller to resume it on that
       number (proof/offer.h). */
    const char *offer;
    double offer_every_s;
} fcs_limits;

typedef struct {
    int status;
    int limit;
    uint64_t states;
    uint64_t expanded;
    int moves;        /* tokens in the solution */
    int atomic_moves; /* single-card moves they expand to */
    char *solution;   /* malloc'd, space-separated tokens; NULL unless solved */
    int resumed;      /* the layered proof went on from a checkpoint */
    int par;          /* --optimal: the fewest tokens any solution writes (its solution), -1 if not proved */
    fcs_phase_count phase[FCS_PHASE_COUNT]; /* by phase: their states add up to `states` */
    fcs_phase_count line[FCS_LINE_PHASE_COUNT]; /* positions the line searches kept: not in `states` */
} fcs_result;

/* Solve from `start` (as dealt: safe autoplay is applied, and written into
   the solution, by the solver).  Keeps no global state; safe to run from
   several threads at once. */
void fcs_solve(const fcs_rules *r, const fcs_pos *start, const fcs_limits *lim, fcs_result *res);
/* How hard a solve works on its solution's length: the searches' line with
   the shortening pass (shorten.h), --short's beam search as well, or
   --optimal's A* search for a proven shortest line. */
enum { FCS_LENGTH_DEFAULT = 0, FCS_LENGTH_SHORT = 1, FCS_LENGTH_OPTIMAL = 2 };
/* --short: after fcs_solve solved from `start`, look for a shorter line with
   a beam search (shorten.h) bounded by the one found; res takes it (its
   solution, moves and atomic_moves) when it writes fewer tokens. */
void fcs_short(const fcs_rules *r, const fcs_pos *start, fcs_result *res);
/* --optimal: after fcs_solve solved from `start` (and fcs_short shortened
   its line), A* (optimal.c) for the fewest tokens, storing at most
   max_states positions for at most timeout_s seconds (0: none), only those a
   line shorter than res's could pass.  When it finishes, res->par is that
   number and res takes the line (solution, moves, atomic_moves), or keeps
   its own when none is shorter; else res->par is -1 and res keeps its line. */
void fcs_optimal(const fcs_rules *r, const fcs_pos *start, uint64_t max_states, double timeout_s, fcs_result *res);
/* fcs_optimal's heuristic: a lower bound on the tokens still to write from p. */
int fcs_optimal_bound(const fcs_rules *r, const fcs_pos *p);
/* Send safe cards home.  When `out` is given, append their tokens there
   (space-separated, `*len` updated) and count them in `*tokens`. */
void fcs_autoplay(const fcs_rules *r, fcs_pos *p, char *out, int *len, int *tokens);

#endif
