/* Every tunable of the solver, once, one line each with its meaning.  None
   changes what a verdict means (each search stays sound whatever they are);
   they change how many positions and how much time a verdict takes, and so
   whether it comes within the limits.  The measurements behind the values
   are in docs/solver.md. */
#ifndef FCS_TUNING_H
#define FCS_TUNING_H

/* The greedy tries, in order: autoplay mode, move generator flags, positions
   it may store, and the try it repeats with more room when that one ran out
   of it (-1: none). */
#define GREEDY_TRIES(TRY)                                                                                  \
    TRY(HOME_EAGER, FCS_MOVES_GREEDY, 10000, -1) /* every playable card home: fewer positions, short solutions */ \
    TRY(HOME_SAFE, 0, 20000, -1)                 /* safe autoplay, every move: some deals need a card kept back */ \
    TRY(HOME_EAGER, FCS_MOVES_GREEDY, 100000, 0) /* the first again with more room, if it ran out of it */

/* Heuristic weights (score.h), lower scores first: name, the greedy
   searches' (fitted on FreeCell deals), the complete search's, --short's
   beam search's (fitted by coordinate descent on the tokens of its lines,
   docs/solver.md: every position of a level is as deep, so the depth term
   plays no part; the larger numbers tell more positions apart). */
#define WEIGHTS(W)                                                                    \
    W(not_home, 1, 2, 15)     /* each card not on a foundation */                     \
    W(blocked, 3, 3, 17)      /* each card above a lower card of its suit */          \
    W(broken, 4, 3, 19)       /* each card not built on the card below */             \
    W(not_well, 0, 1, 4)      /* each card above a column's first such break */      \
    W(column, 7, 7, 28)       /* each non-empty column */                             \
    W(cell, 6, 6, 13)         /* each occupied free cell ... */                       \
    W(cell_squared, 1, 1, 2)  /* ... and the square of their number */                \
    W(buried, 1, 3, 7)        /* each card above a card a foundation needs next */    \
    W(depth, 3, 2, 0)         /* each move made: favours short solutions */

#define INTERLUDE_AFTER 100000  /* positions the complete search stores before the interlude */
#define INTERLUDE_BUDGET 150000 /* positions the interlude's greedy search may store ... */
#define INTERLUDE_SHARE 16      /* ... and at most this share of max_states: 1/16 */
#define LAST_TRY_SHARE 8        /* each last greedy try's share of max_states: 1/8 */

/* The last tries, in order, once the complete search ran out of room (each
   with 1/LAST_TRY_SHARE of it, in turn, until one ends): autoplay mode, move
   generator flags, and whether it runs only with foundation return. */
#define LAST_TRIES(TRY)                                                                                     \
    TRY(HOME_EAGER, FCS_MOVES_GREEDY, 0) /* deep where the complete search went wide */                      \
    TRY(HOME_SAFE, 0, 1)                 /* foundation return: safe autoplay, every move (its proof finds no win soon) */

/* The shortening pass (shorten.h). */
#define SHORTEN_PASSES 3  /* passes over the line, while one still finds an edit */
#define SHORTEN_REACH 24  /* moves ahead it looks for a card's next move */
#define SHORTEN_REJOIN 24 /* moves past an edit it replays for the edited line to meet the old one again */
#define SHORTEN_DEPTH 4   /* the longest shortcut it can look for between two positions of the line ... */
#define SHORTCUT_DEPTH 0  /* ... and the longest it does by default (none: they cost more than they save) ... */
#define SHORT_SHORTCUT_DEPTH 2 /* ... and with --short */
#define SHORT_BEAM_WIDTH 2400  /* positions a level of --short's beam search keeps */
#define BEAM_SCORES 4096       /* scores the beam tells apart (higher ones count as this one less) */
#define BEAM_BATCH 16          /* children the beam builds before it looks them up among those seen */

#define RECENT_SLOTS 1024     /* expanded positions the greedy search keeps decoded and profiled */
#define TIME_CHECK_EVERY 256  /* positions between two looks at the clock */
#define INITIAL_STATES 1024   /* a store's and an open list's first allocation, in entries */
#define INITIAL_BUCKETS 1024  /* an open list's first priorities */

#ifndef PROOF_ROOM /* scripts/measure_proof.py builds with other values */
#define PROOF_ROOM 4          /* positions the layered proof holds at once, per max_states (each costs about 1/4 of a stored one) */
#endif
#ifndef PROOF_DISK
#define PROOF_DISK 8          /* keys waiting in the spill file, per position of room */
#endif
#ifndef PROOF_TRAIL
#define PROOF_TRAIL 16        /* records the proof's trail may write, per position of room (proof/trail.h) */
#endif
#define PROOF_GROUPS 64       /* groups a proof layer splits into by a hash (proof.h) */
#define PROOF_BATCH 1024      /* children gathered before their lookups */
#define PROOF_AHEAD 8         /* children between two steps of a lookup's fetches from memory (exchange.c) */
#define PROOF_SLICE_EIGHTHS 3 /* a layer's entries read back at once: 3/8 of the room */
#define PROOF_SEEN_SHARE 4    /* parts visited kept until they fill this share of the room: 1/4 */
#define PROOF_FREE_SHARE 2    /* out of room: spill until this share of it is free: 1/2 */
#define PROOF_SLACK_SHARE 8   /* give up when the part alone leaves less than this share: 1/8 */
#define PROOF_RINGS 65536     /* children in flight from one proof thread to the others (48 bytes each) */
#define PROOF_PUBLISH 256     /* children a thread writes to a ring before it shows them */
#define PROOF_ROUND 4096      /* with threads, a round takes more entries while its parts hold fewer a thread ... */
#define PROOF_ROUND_SHARE 16  /* ... and fewer than this share of the room: 1/16, ... */
#define PROOF_ROUND_OPEN 16   /* ... and its parts have at most this many positions a thread yet to expand */
#define BUCKET_LOAD 24        /* keys per layer bucket, on average, before one is split (a lookup reads its index) */
#define BUCKET_GRAIN 32       /* a layer bucket's bytes grow in steps of this */
#define SLOT_GRAIN 8          /* a layer bucket's index grows in steps of this many slots */
#define FIRST_LEVEL 4         /* a layer starts with 2^FIRST_LEVEL buckets */
#define SPILL_BUFFER ((size_t)1 << 20) /* bytes of each buffer of the spill file and checkpoints */
#define CHECKPOINT_SPACING 20 /* a save waits this many times as long as the last took: saving costs at most 1/20 */

#endif
