/* The position, the rules and the move primitives shared by the search.
   Python reference: fcsurvey/engine.py (tests compare the two). */
#ifndef FCS_POSITION_H
#define FCS_POSITION_H

#include <stdint.h>

#define FCS_MAX_COLS 10
#define FCS_MAX_CELLS 10
/* Columns >= 4 deal at most 13 cards each; at most 12 more can be built on. */
#define FCS_MAX_COL_LEN 32
#define FCS_NUM_SUITS 4
#define FCS_RANKS 13
#define FCS_CARDS 52

/* A card is 1..52 = python card + 1 (rank_index * 4 + suit + 1); 0 is "none". */
#define CARD_RANK(c) ((((c) - 1) >> 2) + 1)
#define CARD_SUIT(c) (((c) - 1) & 3)
#define CARD_MAKE(rank, suit) ((uint8_t)((((rank) - 1) << 2) + (suit) + 1))
/* Suits are C D H S: clubs and spades (0, 3) black, diamonds and hearts red. */
#define SUIT_RED(s) (((s) ^ ((s) >> 1)) & 1)

enum { BUILD_ALTERNATE = 0, BUILD_SUIT = 1, BUILD_ANY = 2 };
enum { FILL_ANY = 0, FILL_KINGS = 1, FILL_NONE = 2 };
enum { SEQ_LIMITED = 0, SEQ_UNLIMITED = 1, SEQ_SINGLE = 2 };

typedef struct {
    int cells;
    int columns;
    int build;
    int empty_fill;
    int sequence;
    int foundation_return;
} fcs_rules;

typedef struct {
    uint8_t col[FCS_MAX_COLS][FCS_MAX_COL_LEN]; /* deepest card first */
    uint8_t len[FCS_MAX_COLS];
    uint8_t cell[FCS_MAX_CELLS];
    uint8_t found[FCS_NUM_SUITS];               /* cards home per suit */
} fcs_pos;

/* A move between physical places.  Kinds: column, cell, foundation.  For a
   foundation source or destination the index is the suit.  `count` cards move
   (more than one only between columns). */
enum { AT_COLUMN = 0, AT_CELL = 1, AT_FOUNDATION = 2 };

typedef struct {
    uint8_t src_kind, src, dst_kind, dst, count;
} fcs_move;

/* A stored move names the card it takes (the bottom card of the moved run)
   and where it lands, so it does not depend on the order of columns or
   cells, which canonical positions forget. */
enum { DEST_FOUNDATION = 0, DEST_CELL = 1, DEST_ON_CARD = 2, DEST_EMPTY_COLUMN = 3 };
typedef uint16_t fcs_packed_move;
#define PACK_MOVE(card, kind, dest) ((fcs_packed_move)((card) | ((kind) << 6) | ((dest) << 8)))
#define PACKED_CARD(m) ((m) & 63)
#define PACKED_KIND(m) (((m) >> 6) & 3)
#define PACKED_DEST(m) (((m) >> 8) & 63)

/* Does `above` build on `below` (one rank lower, colour/suit per rules)? */
static inline int fcs_can_build(const fcs_rules *r, int below, int above)
{
    int sa = CARD_SUIT(above), sb = CARD_SUIT(below);
    if (CARD_RANK(above) + 1 != CARD_RANK(below))
        return 0;
    if (r->build == BUILD_ALTERNATE)
        return SUIT_RED(sa) != SUIT_RED(sb);
    return r->build == BUILD_ANY || sa == sb;
}
int fcs_empty_cells(const fcs_rules *r, const fcs_pos *p);
int fcs_empty_columns(const fcs_rules *r, const fcs_pos *p);
int fcs_run_length(const fcs_rules *r, const fcs_pos *p, int col);
/* fcs_run_length of every column. */
void fcs_run_lengths(const fcs_rules *r, const fcs_pos *p, uint8_t runs[FCS_MAX_COLS]);
/* Most cards one column-to-column move may carry to a destination that is
   empty (dest_empty = 1) or not. */
int fcs_capacity(const fcs_rules *r, const fcs_pos *p, int dest_empty);
int fcs_safe_home(const fcs_rules *r, const uint8_t found[FCS_NUM_SUITS], int card);
int fcs_is_won(const fcs_pos *p);
/* The card a move takes (bottom card of the moved run). */
int fcs_moved_card(const fcs_pos *p, const fcs_move *m);
fcs_packed_move fcs_pack(const fcs_pos *p, const fcs_move *m);
/* Find the physical move for a packed one; returns 0 when it is not legal here. */
int fcs_unpack(const fcs_rules *r, const fcs_pos *p, fcs_packed_move pm, fcs_move *out);

/* All legal moves.  With single_only, column-to-column moves carry one card;
   otherwise every count the rules allow.  Moves into an empty cell or empty
   column use the lowest-index one (the others give the same position up to
   order).  Returns the number written. */
#define FCS_MAX_MOVES 600
int fcs_legal_moves(const fcs_rules *r, const fcs_pos *p, int single_only, fcs_move *out);
/* The same, for a caller that already knows each column's movable run
   (runs[i] = fcs_run_length(r, p, i)).  With skip_built it leaves out, in
   the same order otherwise, what the eager fast try does without: every
   move that takes a card built on the card below it anywhere but to an
   empty column (such a move only trades one parent for another); while a
   cell is free and runs can move into an empty column, a single card other
   than a king from a column into one (the cell holds it as well, and the
   column stays free for a run or a king); and a column's top card to a cell
   when another column can take it or when it is a king alone in its column. */
int fcs_legal_moves_by_runs(const fcs_rules *r, const fcs_pos *p, int single_only, int skip_built,
                            const uint8_t *runs, fcs_move *out);
void fcs_apply(fcs_pos *p, const fcs_move *m);

#endif
