/* The layered proof's partial-order reduction: of a position's moves, a
   subset (a stubborn set) that keeps every won position reachable.

   Where it applies (foundation return off, single-card moves, every cell
   full, no column empty), a set S of columns is closed so that no sequence
   of moves outside T (the moves of S's top cards and of the cell cards, and
   the moves onto S's top cards) can touch S, the cells, or a card T moves:
   - every column outside S holds an "immobile" card, which no move outside T
     can shift (its parents are home, in a cell, in S or under an immobile
     card; a lower card of its suit stays on the table), so no column can
     empty and, the cells staying full, no move outside T goes to a cell or
     an empty column;
   - every parent of a top card of S or of a cell card, and every card that
     builds on a top card of S, is home, in a cell, in S, or under an
     immobile card (it never comes to the top while T waits);
   - no card T moves, nor the card a move of T uncovers, can go home while T
     waits: each has a lower card of its suit that stays on the table.
   Then every move of T commutes with every sequence outside T (D1) and each
   enabled move of T stays enabled along one (D2), so by Valmari's theorem
   the moves of T alone reach every deadlock the position reaches, and the
   won position is one.  docs/solver.md ("Stubborn sets: tried, left
   out") gives the argument and the measurements: sound on every sample,
   but it rarely removes a position and makes each one dearer, so the proof
   leaves it off unless FCSURVEY_PROOF_REDUCE=1. */
#ifndef FCS_PROOF_REDUCE_H
#define FCS_PROOF_REDUCE_H

#include "../position.h"

/* Whether the reduction may run under these rules (the proof reads the
   FCSURVEY_PROOF_REDUCE switch besides). */
int proof_reduce_applies(const fcs_rules *r);

/* Keep, in order, only the moves of the stubborn set among p's n moves
   (p's every legal single-card move); returns how many are kept: n when
   no reduction applies here. */
int proof_reduce(const fcs_rules *r, const fcs_pos *p, fcs_move *moves, int n);

#endif
