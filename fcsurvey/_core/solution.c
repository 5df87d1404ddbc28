/* Autoplay by mode, the child a move leads to, and the solution text:
   move tokens and their single-card counts. */
#include "solution.h"

#include <stdlib.h>

#include "search.h"
#include "shorten.h"
#include "tuning.h"

#define SOLUTION_TOKEN_MAX 8

static const char COLUMN_CHARS[] = "1234567890";
static const char CELL_CHARS[] = "abcdefgklm";
static const char SUIT_CHARS[] = "CDHS";

static int loc_token(char *out, int kind, int index)
{
    if (kind == AT_COLUMN)
        out[0] = COLUMN_CHARS[index];
    else if (kind == AT_CELL)
        out[0] = CELL_CHARS[index];
    else
        out[0] = 'h';
    return 1;
}

/* Standard notation for one move (see notation.py). */
static int move_token(const fcs_pos *before, const fcs_move *m, char *out)
{
    int n = 0;
    if (m->src_kind == AT_FOUNDATION) {
        out[n++] = 'h';
        out[n++] = SUIT_CHARS[m->src];
    } else {
        n += loc_token(out + n, m->src_kind, m->src);
    }
    n += loc_token(out + n, m->dst_kind, m->dst);
    if (m->dst_kind == AT_COLUMN && m->src_kind == AT_COLUMN && m->count > 1 && before->len[m->dst] == 0) {
        static const char hex[] = "0123456789abcdef";
        out[n++] = 'v';
        if (m->count >= 16)
            out[n++] = hex[m->count >> 4];
        out[n++] = hex[m->count & 15];
    }
    return n;
}

static void append_token(char *out, int *len, const char *tok, int n)
{
    if (*len)
        out[(*len)++] = ' ';
    memcpy(out + *len, tok, (size_t)n);
    *len += n;
    out[*len] = 0;
}

static inline int goes_home(const fcs_rules *r, const fcs_pos *p, int c, int mode)
{
    if (p->found[CARD_SUIT(c)] + 1 != CARD_RANK(c))
        return 0;
    return mode == HOME_EAGER || fcs_safe_home(r, p->found, c);
}

/* Only the next card of each suit can go, so it looks those up among the
   accessible cards. */
int autoplay(const fcs_rules *r, fcs_pos *p, int mode, char *out, int *len, int *tokens, unsigned *touched)
{
    uint64_t avail = 0;
    int i, sent = 0, progress = 1;
    for (i = 0; i < r->cells; i++)
        avail |= (uint64_t)1 << p->cell[i];
    for (i = 0; i < r->columns; i++)
        if (p->len[i])
            avail |= (uint64_t)1 << p->col[i][p->len[i] - 1];
    while (progress) {
        int suit;
        progress = 0;
        for (suit = 0; suit < FCS_NUM_SUITS; suit++) {
            int c, from_cell = -1, from_col = -1;
            char tok[2];
            if (p->found[suit] == FCS_RANKS)
                continue;
            c = CARD_MAKE(p->found[suit] + 1, suit);
            if (!(avail & ((uint64_t)1 << c)) || !goes_home(r, p, c, mode))
                continue;
            for (i = 0; i < r->cells && from_cell < 0; i++)
                if (p->cell[i] == c)
                    from_cell = i;
            for (i = 0; i < r->columns && from_cell < 0 && from_col < 0; i++)
                if (p->len[i] && p->col[i][p->len[i] - 1] == c)
                    from_col = i;
            if (from_cell >= 0) {
                p->cell[from_cell] = 0;
                tok[0] = CELL_CHARS[from_cell];
            } else {
                p->len[from_col]--;
                if (p->len[from_col])
                    avail |= (uint64_t)1 << p->col[from_col][p->len[from_col] - 1];
                if (touched)
                    *touched |= 1u << from_col;
                tok[0] = COLUMN_CHARS[from_col];
            }
            avail &= ~((uint64_t)1 << c);
            p->found[suit]++;
            if (out) {
                tok[1] = 'h';
                append_token(out, len, tok, 2);
                (*tokens)++;
            }
            sent++;
            progress = 1;
        }
    }
    return sent;
}

void fcs_autoplay(const fcs_rules *r, fcs_pos *p, char *out, int *len, int *tokens)
{
    autoplay(r, p, HOME_SAFE, out, len, tokens, NULL);
}

int make_child(const fcs_codec *kc, int mode, const fcs_pos *p, const column_code *parent_codes, const fcs_move *m,
               fcs_pos *child, column_code *codes)
{
    const fcs_rules *r = kc->r;
    unsigned changed = fcs_move_columns(m);
    if (fcs_is_noop(p, m))
        return 0;
    fcs_copy_pos(child, p, r->columns);
    fcs_apply(child, m);
    if (may_autoplay(child, m))
        autoplay(r, child, mode, NULL, NULL, NULL, &changed);
    memcpy(codes, parent_codes, (size_t)r->columns * sizeof(column_code));
    key_code_columns(kc, child, changed, codes);
    return 1;
}

/* Single-card moves one sequence move of n cards stands for, moving through
   the free cells and then halving through empty columns; moves beyond that
   capacity (unlimited sequence moves) count one per card. */
static int atomic_count(int n, int cells, int empties)
{
    int half;
    if (n <= cells + 1)
        return 2 * n - 1;
    if (empties <= 0)
        return n;
    half = (cells + 1) << (empties - 1);
    if (n - half > half)
        return n;
    return 2 * atomic_count(n - half, cells, empties - 1) + atomic_count(half, cells, empties - 1);
}

/* Replay the path of packed moves from the start on the real (physical)
   layout, writing every move and every autoplayed card as a token. */
int solution_emit(const fcs_rules *r, const fcs_pos *start, int mode, const fcs_packed_move *path, int steps,
                  fcs_result *res)
{
    fcs_pos p = *start;
    size_t cap = (size_t)(steps + FCS_CARDS * 2 + 8) * SOLUTION_TOKEN_MAX;
    char *out = malloc(cap), tok[SOLUTION_TOKEN_MAX];
    int len = 0, tokens = 0, atomic = 0, i;
    if (!out)
        return 0;
    out[0] = 0;
    autoplay(r, &p, mode, out, &len, &tokens, NULL);
    atomic += tokens;
    for (i = 0; i < steps; i++) {
        fcs_move m;
        int before = tokens, n;
        if (!fcs_unpack(r, &p, path[i], &m)) {
            free(out);
            return 0;
        }
        n = move_token(&p, &m, tok);
        if (m.count > 1) {
            int dest_empty = p.len[m.dst] == 0;
            int empties = r->empty_fill == FILL_ANY ? fcs_empty_columns(r, &p) - dest_empty : 0;
            atomic += atomic_count(m.count, fcs_empty_cells(r, &p), empties);
        } else {
            atomic++;
        }
        append_token(out, &len, tok, n);
        tokens++;
        fcs_apply(&p, &m);
        autoplay(r, &p, mode, out, &len, &tokens, NULL);
        atomic += tokens - before - 1;
    }
    if (!fcs_is_won(&p)) {
        free(out);
        return 0;
    }
    res->solution = out;
    res->moves = tokens;
    res->atomic_moves = atomic;
    return 1;
}

void solution_from_path(const fcs_codec *kc, int mode, fcs_packed_move *path, int steps, fcs_result *res)
{
    if (path)
        steps = shorten_line(kc->r, mode, &kc->start, path, steps, SHORTCUT_DEPTH);
    if (path && solution_emit(kc->r, &kc->start, mode, path, steps, res)) {
        res->status = FCS_SOLVED;
    } else {
        res->status = FCS_UNKNOWN;
        res->limit = FCS_LIMIT_MEMORY;
    }
}

void solution_from_store(const fcs_codec *kc, int mode, const fcs_store *st, uint32_t last,
                         const fcs_packed_move *final_move, fcs_result *res)
{
    int steps = 0;
    fcs_packed_move *path = store_path(st, last, final_move, &steps);
    solution_from_path(kc, mode, path, steps, res);
    free(path);
}
