/* Python bindings of the C core.  Only the hot path lives in C; each function
   here has a pure-Python reference that the tests compare it with. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "clock.h"
#include "deal.h"
#include "proof/checkpoint.h"
#include "score.h"
#include "search.h"

static const char *const LIMIT_NAMES[] = {NULL, "states", "time", "memory", "disk", "threads", "broken"};
static const char *const STATUS_NAMES[] = {"solved", "unsolvable", "unknown"};

/* rules: (cells, columns, build, empty_fill, sequence, foundation_return). */
static int parse_rules(PyObject *obj, fcs_rules *r)
{
    if (!PyArg_ParseTuple(obj, "iiiiii;rules must be a 6-tuple of ints", &r->cells, &r->columns,
                          &r->build, &r->empty_fill, &r->sequence, &r->foundation_return))
        return 0;
    if (r->cells < 0 || r->cells > FCS_MAX_CELLS || r->columns < 1 || r->columns > FCS_MAX_COLS ||
        r->build < 0 || r->build > BUILD_ANY || r->empty_fill < 0 || r->empty_fill > FILL_NONE ||
        r->sequence < 0 || r->sequence > SEQ_SINGLE) {
        PyErr_SetString(PyExc_ValueError, "rules out of range");
        return 0;
    }
    return 1;
}

static int parse_card(PyObject *obj, uint8_t *out)
{
    long v;
    if (obj == Py_None) {
        *out = 0;
        return 1;
    }
    v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred())
        return 0;
    if (v < 0 || v >= FCS_CARDS) {
        PyErr_Format(PyExc_ValueError, "card out of range: %ld", v);
        return 0;
    }
    *out = (uint8_t)(v + 1);
    return 1;
}

/* Position from (columns, cells, foundations) with python cards 0..51. */
static int parse_position(const fcs_rules *r, PyObject *columns, PyObject *cells, PyObject *found,
                          int max_len, fcs_pos *p)
{
    Py_ssize_t i, j, n;
    memset(p, 0, sizeof(*p));
    if (!PySequence_Check(columns) || PySequence_Size(columns) != r->columns) {
        PyErr_SetString(PyExc_ValueError, "columns must be a sequence with one entry per column");
        return 0;
    }
    for (i = 0; i < r->columns; i++) {
        PyObject *col = PySequence_GetItem(columns, i);
        if (!col)
            return 0;
        n = PySequence_Size(col);
        if (n < 0 || n > max_len) {
            Py_DECREF(col);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "column %zd holds %zd cards; at most %d fit", i + 1, n,
                             max_len);
            return 0;
        }
        for (j = 0; j < n; j++) {
            PyObject *c = PySequence_GetItem(col, j);
            int ok = c && parse_card(c, &p->col[i][j]);
            Py_XDECREF(c);
            if (!ok || p->col[i][j] == 0) {
                Py_DECREF(col);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "empty card inside a column");
                return 0;
            }
        }
        p->len[i] = (uint8_t)n;
        Py_DECREF(col);
    }
    if (!PySequence_Check(cells) || PySequence_Size(cells) != r->cells) {
        PyErr_SetString(PyExc_ValueError, "cells must be a sequence with one entry per cell");
        return 0;
    }
    for (i = 0; i < r->cells; i++) {
        PyObject *c = PySequence_GetItem(cells, i);
        int ok = c && parse_card(c, &p->cell[i]);
        Py_XDECREF(c);
        if (!ok)
            return 0;
    }
    if (!PySequence_Check(found) || PySequence_Size(found) != FCS_NUM_SUITS) {
        PyErr_SetString(PyExc_ValueError, "foundations must be 4 counts");
        return 0;
    }
    for (i = 0; i < FCS_NUM_SUITS; i++) {
        PyObject *c = PySequence_GetItem(found, i);
        long v = c ? PyLong_AsLong(c) : -1;
        Py_XDECREF(c);
        if (PyErr_Occurred())
            return 0;
        if (v < 0 || v > FCS_RANKS) {
            PyErr_SetString(PyExc_ValueError, "foundation count out of range");
            return 0;
        }
        p->found[i] = (uint8_t)v;
    }
    return 1;
}

/* The longest dealt column the search accepts: room for 13 built cards. */
#define MAX_DEALT_LEN (FCS_MAX_COL_LEN - FCS_RANKS)

static const char *const PHASE_NAMES[FCS_PHASE_COUNT + FCS_LINE_PHASE_COUNT] = {
    "greedy_tries", "complete_search", "interlude", "last_try", "layered_proof", "beam_search", "par_search"};

/* {phase name: {"states": positions, "time_s": seconds}} for every phase,
   the line searches (res->line) after the solve's own. */
static PyObject *phase_counts(const fcs_result *res)
{
    PyObject *phases = PyDict_New();
    int i;
    for (i = 0; phases && i < FCS_PHASE_COUNT + FCS_LINE_PHASE_COUNT; i++) {
        const fcs_phase_count *c = i < FCS_PHASE_COUNT ? &res->phase[i] : &res->line[i - FCS_PHASE_COUNT];
        PyObject *one = Py_BuildValue("{s:K,s:d}", "states", (unsigned long long)c->states, "time_s", c->time_s);
        if (!one || PyDict_SetItemString(phases, PHASE_NAMES[i], one) < 0) {
            Py_XDECREF(one);
            Py_DECREF(phases);
            return NULL;
        }
        Py_DECREF(one);
    }
    return phases;
}

static PyObject *py_solve(PyObject *self, PyObject *args)
{
    PyObject *rules_obj, *columns, *cells, *found, *solution, *phase_dict, *par;
    unsigned long long max_states;
    double timeout, every = 0, offer_every = 0, t0, elapsed;
    unsigned int phases;
    int threads = 1, length = FCS_LENGTH_DEFAULT;
    const char *checkpoint = NULL, *tag = NULL, *offer = NULL;
    Py_ssize_t tag_len = 0;
    fcs_rules r;
    fcs_pos start;
    fcs_limits lim;
    fcs_result res;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOKdI|zy#dizdi", &rules_obj, &columns, &cells, &found, &max_states, &timeout,
                          &phases, &checkpoint, &tag, &tag_len, &every, &threads, &offer, &offer_every, &length))
        return NULL;
    if (!parse_rules(rules_obj, &r) ||
        !parse_position(&r, columns, cells, found, MAX_DEALT_LEN, &start))
        return NULL;
    memset(&lim, 0, sizeof(lim));
    if (!phases || (phases & ~(unsigned)FCS_PHASES_ALL)) {
        PyErr_Format(PyExc_ValueError, "phases must be a non-zero mask of PHASE_SEARCH and PHASE_PROOF");
        return NULL;
    }
    if (threads < 1 || threads > FCS_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to %d, got %d", FCS_MAX_THREADS, threads);
        return NULL;
    }
    if (length < FCS_LENGTH_DEFAULT || length > FCS_LENGTH_OPTIMAL) {
        PyErr_Format(PyExc_ValueError, "length must be LENGTH_DEFAULT, LENGTH_SHORT or LENGTH_OPTIMAL, got %d",
                     length);
        return NULL;
    }
    if (checkpoint && (!tag || tag_len != FCS_CHECKPOINT_TAG)) {
        PyErr_Format(PyExc_ValueError, "a checkpoint needs a tag of %d bytes", FCS_CHECKPOINT_TAG);
        return NULL;
    }
    if (checkpoint)
        memcpy(lim.checkpoint_tag, tag, FCS_CHECKPOINT_TAG);
    lim.checkpoint = checkpoint;
    lim.checkpoint_every_s = every;
    lim.max_states = max_states;
    lim.timeout_s = timeout;
    lim.phases = phases;
    lim.threads = threads;
    lim.offer = checkpoint ? offer : NULL;
    lim.offer_every_s = offer_every;
    t0 = fcs_now_s();
    Py_BEGIN_ALLOW_THREADS
    fcs_solve(&r, &start, &lim, &res);
    res.par = -1;
    if (length != FCS_LENGTH_DEFAULT) /* --optimal's seed: the shorter the line in hand, the less A* stores */
        fcs_short(&r, &start, &res);
    if (length == FCS_LENGTH_OPTIMAL && res.status == FCS_SOLVED)
        fcs_optimal(&r, &start, max_states, timeout, &res);
    Py_END_ALLOW_THREADS
    elapsed = fcs_now_s() - t0;
    if (res.solution) {
        solution = PyUnicode_FromString(res.solution);
        free(res.solution);
        if (!solution)
            return NULL;
    } else {
        solution = Py_None;
        Py_INCREF(solution);
    }
    if (!(phase_dict = phase_counts(&res))) {
        Py_DECREF(solution);
        return NULL;
    }
    if (res.par >= 0) {
        par = PyLong_FromLong(res.par);
        if (!par) {
            Py_DECREF(solution);
            Py_DECREF(phase_dict);
            return NULL;
        }
    } else {
        par = Py_None;
        Py_INCREF(par);
    }
    return Py_BuildValue("{s:s,s:z,s:K,s:K,s:i,s:i,s:N,s:d,s:O,s:N,s:N}", "status", STATUS_NAMES[res.status],
                         "limit", LIMIT_NAMES[res.limit], "states", (unsigned long long)res.states,
                         "expanded", (unsigned long long)res.expanded, "moves", res.moves,
                         "atomic_moves", res.atomic_moves, "solution", solution, "elapsed_s", elapsed,
                         "resumed", res.resumed ? Py_True : Py_False, "phase_counts", phase_dict, "par", par);
}

static PyObject *py_legal_moves(PyObject *self, PyObject *args)
{
    PyObject *rules_obj, *columns, *cells, *found, *list;
    int single_only, skip_built = 0, n, i;
    fcs_rules r;
    fcs_pos p;
    fcs_move moves[FCS_MAX_MOVES];
    uint8_t runs[FCS_MAX_COLS];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOp|p", &rules_obj, &columns, &cells, &found, &single_only, &skip_built))
        return NULL;
    if (!parse_rules(rules_obj, &r) || !parse_position(&r, columns, cells, found, FCS_MAX_COL_LEN, &p))
        return NULL;
    fcs_run_lengths(&r, &p, runs);
    n = fcs_moves(&r, &p, (single_only ? FCS_MOVES_SINGLE : 0) | (skip_built ? FCS_MOVES_GREEDY : 0), runs, moves);
    if (!(list = PyList_New(n)))
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(iiiii)", moves[i].src_kind, moves[i].src, moves[i].dst_kind,
                                    moves[i].dst, moves[i].count);
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, t);
    }
    return list;
}

/* For tests: --optimal's bound, checked against true distances. */
static PyObject *py_optimal_bound(PyObject *self, PyObject *args)
{
    PyObject *rules_obj, *columns, *cells, *found;
    fcs_rules r;
    fcs_pos p;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO", &rules_obj, &columns, &cells, &found))
        return NULL;
    if (!parse_rules(rules_obj, &r) || !parse_position(&r, columns, cells, found, FCS_MAX_COL_LEN, &p))
        return NULL;
    return PyLong_FromLong(fcs_optimal_bound(&r, &p));
}

static PyObject *py_safe_home(PyObject *self, PyObject *args)
{
    PyObject *rules_obj, *found_obj;
    int card, i;
    fcs_rules r;
    uint8_t found[FCS_NUM_SUITS];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOi", &rules_obj, &found_obj, &card))
        return NULL;
    if (!parse_rules(rules_obj, &r))
        return NULL;
    if (card < 0 || card >= FCS_CARDS || PySequence_Size(found_obj) != FCS_NUM_SUITS) {
        PyErr_SetString(PyExc_ValueError, "bad card or foundations");
        return NULL;
    }
    for (i = 0; i < FCS_NUM_SUITS; i++) {
        PyObject *c = PySequence_GetItem(found_obj, i);
        long v = c ? PyLong_AsLong(c) : -1;
        Py_XDECREF(c);
        if (PyErr_Occurred())
            return NULL;
        found[i] = (uint8_t)v;
    }
    return PyBool_FromLong(fcs_safe_home(&r, found, card + 1));
}

static PyObject *py_shuffled_deck(PyObject *self, PyObject *arg)
{
    unsigned long long number = PyLong_AsUnsignedLongLong(arg);
    uint8_t out[FCS_DECK_SIZE];
    (void)self;
    if (PyErr_Occurred())
        return NULL;
    if (fcs_shuffled_deck(number, out) != 0) {
        PyErr_Format(PyExc_ValueError, "deal number must be 1 to %llu, got %llu",
                     FCS_MAX_DEAL, number);
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)out, FCS_DECK_SIZE);
}

/* Deal `count` consecutive numbers from `start` without building Python
   objects; returns a checksum so the work cannot be optimised away.  Used by
   scripts/bench_deals.py. */
static PyObject *py_deal_range_checksum(PyObject *self, PyObject *args)
{
    unsigned long long start, count, n, sum = 0;
    uint8_t out[FCS_DECK_SIZE];
    (void)self;
    if (!PyArg_ParseTuple(args, "KK", &start, &count))
        return NULL;
    if (start < 1 || count > FCS_MAX_DEAL || start - 1 > FCS_MAX_DEAL - count) {
        PyErr_SetString(PyExc_ValueError, "range outside 1..8589934591");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    for (n = start; n < start + count; n++) {
        fcs_shuffled_deck(n, out);
        sum = sum * 31u + out[0] + out[51];
    }
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(sum);
}

/* Whether a file is a whole checkpoint with this tag: so that a solve given a
   checkpoint of another deal, rules or build refuses it rather than overwrite it. */
static PyObject *py_checkpoint_matches(PyObject *self, PyObject *args)
{
    const char *path, *tag;
    Py_ssize_t tag_len;
    int ok;
    (void)self;
    if (!PyArg_ParseTuple(args, "sy#", &path, &tag, &tag_len))
        return NULL;
    if (tag_len != FCS_CHECKPOINT_TAG) {
        PyErr_Format(PyExc_ValueError, "a checkpoint needs a tag of %d bytes", FCS_CHECKPOINT_TAG);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    ok = checkpoint_matches(path, (const uint8_t *)tag);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

/* How many weights a set has. */
#define WEIGHT_ONE(name, greedy, complete, beam) +1
enum { WEIGHT_COUNT = 0 WEIGHTS(WEIGHT_ONE) };
#undef WEIGHT_ONE

/* A weight set as a tuple of ints, in the order of WEIGHTS (tuning.h). */
static PyObject *weights_tuple(const weights *w)
{
#define WEIGHT_ITEM(name, greedy, complete, beam) w->name,
    const int values[WEIGHT_COUNT] = {WEIGHTS(WEIGHT_ITEM)};
#undef WEIGHT_ITEM
    PyObject *t = PyTuple_New(WEIGHT_COUNT);
    Py_ssize_t i;
    for (i = 0; t && i < WEIGHT_COUNT; i++) {
        PyObject *v = PyLong_FromLong(values[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* The largest weight set_weights takes: scores stay far below 2^32. */
#define MAX_WEIGHT 1000

/* A weight set from a tuple of ints in the order of WEIGHTS, each 0..MAX_WEIGHT. */
static int parse_weights(PyObject *obj, weights *w)
{
    int values[WEIGHT_COUNT], i;
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != WEIGHT_COUNT) {
        PyErr_Format(PyExc_ValueError, "a weight set is a tuple of %d ints", WEIGHT_COUNT);
        return 0;
    }
    for (i = 0; i < WEIGHT_COUNT; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(obj, i));
        if (v == -1 && PyErr_Occurred())
            return 0;
        if (v < 0 || v > MAX_WEIGHT) {
            PyErr_Format(PyExc_ValueError, "weights must be 0 to %d, got %ld", MAX_WEIGHT, v);
            return 0;
        }
        values[i] = (int)v;
    }
    i = 0;
#define WEIGHT_SET(name, greedy, complete, beam) w->name = values[i++];
    WEIGHTS(WEIGHT_SET)
#undef WEIGHT_SET
    return 1;
}

static PyObject *py_weights(PyObject *self, PyObject *args)
{
    int tuned = 0;
    PyObject *greedy, *complete;
    (void)self;
    if (!PyArg_ParseTuple(args, "|p", &tuned))
        return NULL;
    if (!(greedy = weights_tuple(tuned ? &TUNED_GREEDY_WEIGHTS : &GREEDY_WEIGHTS)))
        return NULL;
    if (!(complete = weights_tuple(tuned ? &TUNED_COMPLETE_WEIGHTS : &COMPLETE_WEIGHTS))) {
        Py_DECREF(greedy);
        return NULL;
    }
    return Py_BuildValue("(NN)", greedy, complete);
}

/* Not while a solve runs: every search reads the weights in force as it starts. */
static PyObject *py_set_weights(PyObject *self, PyObject *args)
{
    PyObject *greedy_obj, *complete_obj;
    weights greedy, complete;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &greedy_obj, &complete_obj) || !parse_weights(greedy_obj, &greedy) ||
        !parse_weights(complete_obj, &complete))
        return NULL;
    GREEDY_WEIGHTS = greedy;
    COMPLETE_WEIGHTS = complete;
    Py_RETURN_NONE;
}

/* The names of the weights, in the order of WEIGHTS. */
static PyObject *weight_names(void)
{
#define WEIGHT_NAME(name, greedy, complete, beam) #name,
    const char *const names[WEIGHT_COUNT] = {WEIGHTS(WEIGHT_NAME)};
#undef WEIGHT_NAME
    PyObject *t = PyTuple_New(WEIGHT_COUNT);
    Py_ssize_t i;
    for (i = 0; t && i < WEIGHT_COUNT; i++) {
        PyObject *v = PyUnicode_FromString(names[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* PyModule_AddObject that takes `value` (NULL: an error already set) either way. */
static int add_object(PyObject *m, const char *name, PyObject *value)
{
    if (!value)
        return -1;
    if (PyModule_AddObject(m, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}

static PyMethodDef methods[] = {
    {"shuffled_deck", py_shuffled_deck, METH_O,
     "shuffled_deck(number) -> bytes: the 52 cards in dealing order."},
    {"deal_range_checksum", py_deal_range_checksum, METH_VARARGS,
     "deal_range_checksum(start, count) -> int: deal a range, return a checksum."},
    {"solve", py_solve, METH_VARARGS,
     "solve(rules, columns, cells, foundations, max_states, timeout, phases[, checkpoint, tag, every, threads, offer, "
     "offer_every, length]) -> dict; length: LENGTH_DEFAULT, LENGTH_SHORT (a beam search for a shorter line) or LENGTH_OPTIMAL (A*: par); phases: PHASE_SEARCH | PHASE_PROOF; threads: the layered proof's (checkpoint may be "
     "None); offer: the file of the threads it is offered (with a checkpoint only), read every offer_every seconds."},
    {"checkpoint_matches", py_checkpoint_matches, METH_VARARGS,
     "checkpoint_matches(path, tag) -> bool: whether path is a whole checkpoint with this tag."},
    {"legal_moves", py_legal_moves, METH_VARARGS,
     "legal_moves(rules, columns, cells, foundations, single_only[, skip_built]) -> "
     "[(src_kind, src, dst_kind, dst, count)]; kinds 0 column, 1 cell, 2 foundation; "
     "skip_built leaves out what the greedy tries with eager autoplay do without (FCS_MOVES_GREEDY)."},
    {"weights", py_weights, METH_VARARGS,
     "weights([tuned]) -> (greedy, complete): the weight sets in force (tuned: tuning.h's), in WEIGHT_NAMES order."},
    {"set_weights", py_set_weights, METH_VARARGS,
     "set_weights(greedy, complete): put other weight sets in force for the solves that follow (experiments and "
     "tests only; no verdict depends on them)."},
    {"safe_home", py_safe_home, METH_VARARGS,
     "safe_home(rules, foundations, card) -> bool: the solver's safe-autoplay test."},
    {"optimal_bound", py_optimal_bound, METH_VARARGS,
     "optimal_bound(rules, columns, cells, foundations) -> int: --optimal's lower bound on the tokens to win."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_fccore", "fcsurvey's compiled core.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fccore(void)
{
    PyObject *m = PyModule_Create(&moduledef);
    if (m && (PyModule_AddIntConstant(m, "PHASE_SEARCH", FCS_PHASE_SEARCH) < 0 ||
              PyModule_AddIntConstant(m, "PHASE_PROOF", FCS_PHASE_PROOF) < 0 ||
              PyModule_AddIntConstant(m, "MAX_THREADS", FCS_MAX_THREADS) < 0 ||
              PyModule_AddIntConstant(m, "LENGTH_DEFAULT", FCS_LENGTH_DEFAULT) < 0 ||
              PyModule_AddIntConstant(m, "LENGTH_SHORT", FCS_LENGTH_SHORT) < 0 ||
              PyModule_AddIntConstant(m, "LENGTH_OPTIMAL", FCS_LENGTH_OPTIMAL) < 0 ||
              add_object(m, "WEIGHT_NAMES", weight_names()) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
