/* The rules, the position and its moves: the move generator and its flags.
   Python reference: fcsurvey/engine.py (tests compare the two). */
#ifndef FCS_POSITION_H
#define FCS_POSITION_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
/* How many cells, and how many columns, are empty. */
static inline int fcs_empty_cells(const fcs_rules *r, const fcs_pos *p)
{
    int i, n = 0;
    for (i = 0; i < r->cells; i++)
        n += p->cell[i] == 0;
    return n;
}

static inline int fcs_empty_columns(const fcs_rules *r, const fcs_pos *p)
{
    int i, n = 0;
    for (i = 0; i < r->columns; i++)
        n += p->len[i] == 0;
    return n;
}

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

/* What the move generator leaves out, as flags of one generator; with none
   it gives every legal move.  Moves into an empty cell or empty column always
   use the lowest-index one (the others give the same position up to order).
   The pruning flags leave moves out, in the same order otherwise; they are
   for the greedy tries with eager autoplay, which prove nothing when they
   run dry (the complete search and the layered proof use every move):
   SINGLE       column-to-column moves carry one card, not every count the
                rules allow.
   SKIP_BUILT   no move takes a card built on the card below it, except into
                an empty column (such a move only trades one parent for
                another): whole runs only, to a column, a cell or home.
   KEEP_EMPTY   while a cell is free and runs can move into an empty column,
                no single card other than a king goes from a column into one
                (the cell holds it as well, and the column stays free for a
                run or a king).
   PREFER_COLUMN  no column top goes to a cell when another column can take
                it (the column holds it without spending the cell).
   KEEP_KING    no king alone in its column goes to a cell: it is where it
                belongs.
   FCS_MOVES_GREEDY is the set the greedy tries with eager autoplay use. */
enum {
    FCS_MOVES_SINGLE = 1,
    FCS_MOVES_SKIP_BUILT = 2,
    FCS_MOVES_KEEP_EMPTY = 4,
    FCS_MOVES_PREFER_COLUMN = 8,
    FCS_MOVES_KEEP_KING = 16,
    FCS_MOVES_GREEDY = FCS_MOVES_SKIP_BUILT | FCS_MOVES_KEEP_EMPTY | FCS_MOVES_PREFER_COLUMN | FCS_MOVES_KEEP_KING
};
#define FCS_MAX_MOVES 600
/* The moves `flags` keeps, for a caller that already knows each column's
   movable run (runs[i] = fcs_run_length(r, p, i)); returns the number
   written. */
int fcs_moves(const fcs_rules *r, const fcs_pos *p, unsigned flags, const uint8_t *runs, fcs_move *out);
/* fcs_moves with the runs worked out here. */
int fcs_legal_moves(const fcs_rules *r, const fcs_pos *p, unsigned flags, fcs_move *out);
void fcs_apply(fcs_pos *p, const fcs_move *m);

/* *to = *from for a game of `columns` columns: rows past them are never
   read, and a struct copy of the whole (344 bytes) costs a string move. */
static inline void fcs_copy_pos(fcs_pos *to, const fcs_pos *from, int columns)
{
    memcpy(to->col, from->col, (size_t)columns * FCS_MAX_COL_LEN);
    memcpy(to->len, from->len, sizeof(fcs_pos) - offsetof(fcs_pos, len));
}

/* The columns a move takes cards from or puts them on (bit i: column i). */
static inline unsigned fcs_move_columns(const fcs_move *m)
{
    return (m->src_kind == AT_COLUMN ? 1u << m->src : 0) | (m->dst_kind == AT_COLUMN ? 1u << m->dst : 0);
}

/* A whole column into an empty one changes nothing but order. */
static inline int fcs_is_noop(const fcs_pos *p, const fcs_move *m)
{
    return m->src_kind == AT_COLUMN && m->dst_kind == AT_COLUMN && p->len[m->dst] == 0 &&
           m->count == p->len[m->src];
}

#endif
