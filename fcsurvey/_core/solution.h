/* Autoplay by mode, the child a move leads to with autoplay, and the
   solution text. */
#ifndef FCS_SOLUTION_H
#define FCS_SOLUTION_H

#include "key.h"
#include "search.h"
#include "store.h"

/* Which playable cards autoplay sends home: only provably safe ones (the
   complete search, every proof, and one greedy try), or, where only some
   solution has to be found, every playable card ("eager"). */
enum { HOME_SAFE, HOME_EAGER };

/* Send cards home per `mode`; returns how many went, and marks the columns
   it took cards from in *touched (if given).  When `out` is given, append
   their tokens there (space-separated, `*len` updated) and count them in
   `*tokens`. */
int autoplay(const fcs_rules *r, fcs_pos *p, int mode, char *out, int *len, int *tokens, unsigned *touched);

/* The child of p by move m with autoplay by `mode` (HOME_SAFE for the
   complete search and the layered proof), and its columns coded in `codes`
   from the parent's `parent_codes`: only the columns that changed are coded
   again.  0 when m only reorders columns (fcs_is_noop). */
int make_child(const fcs_codec *kc, int mode, const fcs_pos *p, const column_code *parent_codes, const fcs_move *m,
               fcs_pos *child, column_code *codes);

/* Spell out the solution that reaches stored position `last`, then makes
   `final_move` (if any), replaying it from kc->start with autoplay by
   `mode`: res->status FCS_SOLVED, or FCS_UNKNOWN (memory) when it cannot. */
void solution_from_store(const fcs_codec *kc, int mode, const fcs_store *st, uint32_t last,
                         const fcs_packed_move *final_move, fcs_result *res);

/* Write the line of `steps` packed moves from `start` (autoplay by `mode`
   first and after every move) into res: its tokens, their count and their
   single-card count; 0 when a move does not unpack, the line does not win,
   or memory runs out. */
int solution_emit(const fcs_rules *r, const fcs_pos *start, int mode, const fcs_packed_move *path, int steps,
                  fcs_result *res);

/* The same as solution_from_store for the solution that makes the `steps`
   moves of `path` from the root (the start after autoplay), shortened in
   place first; a NULL path is out of memory. */
void solution_from_path(const fcs_codec *kc, int mode, fcs_packed_move *path, int steps, fcs_result *res);

/* Whether `m`, made from a position autoplay has already run on, can let a
   card go home under either rule.  Nothing sent home can become safe unless
   the foundations change, so only a move to or from a foundation or the
   card a column move uncovers can start autoplay again. */
static inline int may_autoplay(const fcs_pos *child, const fcs_move *m)
{
    int len, c;
    if (m->dst_kind == AT_FOUNDATION || m->src_kind == AT_FOUNDATION)
        return 1;
    if (m->src_kind != AT_COLUMN || !(len = child->len[m->src]))
        return 0;
    c = child->col[m->src][len - 1];
    return child->found[CARD_SUIT(c)] + 1 == CARD_RANK(c);
}

/* Whether making m from p (autoplay done) sends a card home or may start
   autoplay: may_autoplay() read off the parent, so the child need not be
   built to find out. */
static inline int reaches_home(const fcs_pos *p, const fcs_move *m)
{
    int rest, c;
    if (m->dst_kind == AT_FOUNDATION || m->src_kind == AT_FOUNDATION)
        return 1;
    if (m->src_kind != AT_COLUMN || !(rest = p->len[m->src] - m->count))
        return 0;
    c = p->col[m->src][rest - 1];
    return p->found[CARD_SUIT(c)] + 1 == CARD_RANK(c);
}

#endif
