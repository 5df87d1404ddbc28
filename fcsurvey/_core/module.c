/* Python bindings of the C core.  Only the hot path lives in C; each function
   here has a pure-Python reference that the tests compare it with. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "deal.h"

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

static PyMethodDef methods[] = {
    {"shuffled_deck", py_shuffled_deck, METH_O,
     "shuffled_deck(number) -> bytes: the 52 cards in dealing order."},
    {"deal_range_checksum", py_deal_range_checksum, METH_VARARGS,
     "deal_range_checksum(start, count) -> int: deal a range, return a checksum."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_fccore", "fcsurvey's compiled core.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fccore(void)
{
    return PyModule_Create(&moduledef);
}
