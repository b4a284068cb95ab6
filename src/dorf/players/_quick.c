/* The planner's quick evaluation, compiled (dorf.players._quick).
 *
 * One function, quick(), the same arithmetic as Evaluator.quick_in_python in
 * dorf/players/evaluation.py: the same operations on the same doubles in the
 * same order, so the same value to the last bit (tests/players/test_planner.py checks
 * it on random games).  It reads the play area only through its public methods
 * and attributes, so it values an area of either backend.  The rollouts call it
 * for every move they weigh, which is why it is compiled; without a C compiler
 * the Python form is used and gives the same values.
 *
 * Built with -ffp-contract=off (setup.py): no fused multiply-adds, which would
 * round differently from Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

/* The weights, in the order Evaluator.quick_constants lays them out. */
enum {
    W_LANDSCAPES, W_FREE, W_TASKS, W_FLAGS,
    F0, F1, F2, F3, F6, F7, F8, PA, PB, PC,
    T0, MISSING0, ENTRANCES0 = MISSING0 + 6, T8 = ENTRANCES0 + 4, T9, T10, T11, T12, T13, T14, T15, T16,
    NCONSTANTS
};

static PyObject *s_figures, *s_active_count, *s_longest_river, *s_longest_track, *s_mountains, *s_lakes, *s_status,
    *s_spec, *s_cell;
static double LOG1P[256];
static const int ACTIVE_TASKS = 3;

static inline double
log1p_of(long n)
{
    return (n >= 0 && n < 256) ? LOG1P[n] : log1p((double)n);
}

static inline double
chance_of(double logit)
{
    return logit < -30 ? 0.0 : 1.0 / (1.0 + exp(-logit));
}

static int
long_attr(PyObject *obj, PyObject *name, long *out)
{
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL)
        return -1;
    *out = PyLong_AsLong(value);
    Py_DECREF(value);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* area.figures(cell, letter) -> size, open edges */
static int
figures(PyObject *area, PyObject *cell, PyObject *letter, long *size, long *open_edges)
{
    PyObject *args[3] = {area, cell, letter};
    PyObject *pair = PyObject_VectorcallMethod(s_figures, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (pair == NULL)
        return -1;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        Py_DECREF(pair);
        PyErr_SetString(PyExc_TypeError, "figures() must return (size, open edges)");
        return -1;
    }
    *size = PyLong_AsLong(PyTuple_GET_ITEM(pair, 0));
    *open_edges = PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
    Py_DECREF(pair);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *
quick(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError,
                        "quick(area, constants, flags, landscapes_left, tasks_left, supply, done, open_tasks)");
        return NULL;
    }
    PyObject *area = args[0], *constants = args[1], *flags = args[2], *supply = args[5], *open_tasks = args[7];
    if (!PyTuple_Check(constants) || PyTuple_GET_SIZE(constants) != NCONSTANTS || !PyList_Check(flags) ||
        !PyDict_Check(supply) || !PyList_Check(open_tasks)) {
        PyErr_SetString(PyExc_TypeError, "quick(): a constants tuple, flag and task lists, a supply dict");
        return NULL;
    }
    double c[NCONSTANTS];
    for (int i = 0; i < NCONSTANTS; i++) {
        c[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(constants, i));
        if (c[i] == -1.0 && PyErr_Occurred())
            return NULL;
    }
    long landscapes_left = PyLong_AsLong(args[3]);
    long tasks_left = PyLong_AsLong(args[4]);
    long done = PyLong_AsLong(args[6]);
    if (PyErr_Occurred())
        return NULL;
    long river, track, mountains, lakes, active;
    if (long_attr(area, s_longest_river, &river) < 0 || long_attr(area, s_longest_track, &track) < 0 ||
        long_attr(area, s_mountains, &mountains) < 0 || long_attr(area, s_lakes, &lakes) < 0)
        return NULL;
    double total = (double)(river + track + 3 * (mountains + lakes));
    double flags_value = 0.0;
    Py_ssize_t nflags = PyList_GET_SIZE(flags);
    if (nflags) {
        double flag_later = c[F6] * log1p_of(landscapes_left) / 4;
        long later = landscapes_left + 1;
        for (Py_ssize_t i = 0; i < nflags; i++) {
            PyObject *pair = PyList_GET_ITEM(flags, i);
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
                PyErr_SetString(PyExc_TypeError, "a flag is a (cell, letter) pair");
                return NULL;
            }
            long size, open_edges;
            if (figures(area, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1), &size, &open_edges) < 0)
                return NULL;
            if (open_edges == 0) {
                total += (double)size;
                continue;
            }
            double logit = c[F0] + c[F1] * (double)(open_edges < 10 ? open_edges : 10) / 10 +
                           c[F2] * (double)(open_edges == 1) + c[F3] * (double)(open_edges == 2);
            logit += flag_later + c[F7] * (double)open_edges / (double)later +
                     c[F8] * (double)(size < 15 ? size : 15) / 15;
            flags_value += (c[PA] * (double)size + c[PB] * (double)open_edges + c[PC]) * chance_of(logit);
        }
    }
    if (long_attr(area, s_active_count, &active) < 0)
        return NULL;
    double tasks_value = 0.0;
    long later = landscapes_left + 1;
    double landscapes_part = c[T13] * log1p_of(landscapes_left) / 4;
    double active_part = c[T16] * (double)active / 3;
    total += (double)done;
    Py_ssize_t ntasks = PyList_GET_SIZE(open_tasks);
    for (Py_ssize_t i = 0; i < ntasks; i++) {
        PyObject *task = PyList_GET_ITEM(open_tasks, i);
        if (!PyTuple_Check(task) || PyTuple_GET_SIZE(task) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(task, 2))) {
            PyErr_SetString(PyExc_TypeError, "an open task is a (cell, value, letters) triple");
            return NULL;
        }
        PyObject *cell = PyTuple_GET_ITEM(task, 0), *letters = PyTuple_GET_ITEM(task, 2);
        long value = PyLong_AsLong(PyTuple_GET_ITEM(task, 1));
        if (value == -1 && PyErr_Occurred())
            return NULL;
        double best = 0.0;
        Py_ssize_t nletters = PyUnicode_GET_LENGTH(letters);
        for (Py_ssize_t j = 0; j < nletters; j++) {
            Py_UCS4 ch = PyUnicode_READ_CHAR(letters, j);
            PyObject *letter = PyUnicode_FromOrdinal((int)ch);
            if (letter == NULL)
                return NULL;
            long size, open_edges;
            if (figures(area, cell, letter, &size, &open_edges) < 0) {
                Py_DECREF(letter);
                return NULL;
            }
            if (size > value || open_edges == 0) {
                Py_DECREF(letter);
                continue;
            }
            long count = 0;
            PyObject *found = PyDict_GetItemWithError(supply, letter);
            Py_DECREF(letter);
            if (found != NULL) {
                count = PyLong_AsLong(found);
                if (count == -1 && PyErr_Occurred())
                    return NULL;
            } else if (PyErr_Occurred()) {
                return NULL;
            }
            long missing = value - size;
            double logit = c[T0] + c[MISSING0 + (missing < 5 ? missing : 5)] +
                           c[ENTRANCES0 + (open_edges < 3 ? open_edges : 3)];
            logit += c[T8] * (double)(open_edges < 8 ? open_edges : 8) / 8 + c[T9] * (double)(open_edges < missing);
            if (ch == 'R' || ch == 'T')
                logit += c[T10] + c[T11] * (double)missing;
            logit += c[T12] * (double)missing / (double)later + landscapes_part;
            logit += c[T14] * (double)missing / (double)(count + 1) + c[T15] * log1p_of(count) / 3 + active_part;
            double chance = chance_of(logit);
            if ((double)value * chance > best)
                best = (double)value * chance;
        }
        tasks_value += best;
    }
    long free = tasks_left > 0 ? ACTIVE_TASKS - active : 0;
    return PyFloat_FromDouble(total + c[W_LANDSCAPES] * (double)landscapes_left + c[W_FREE] * (double)free +
                              c[W_TASKS] * tasks_value + c[W_FLAGS] * flags_value);
}

/* ledger(tasks, open, completed, task_letter) -> (done, open_tasks): Evaluator.task_ledger of an
   area's task list, compiled (the same points and the same triples in the same order). */
static PyObject *
ledger(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyList_Check(args[0]) || !PyDict_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "ledger(tasks, open, completed, task_letter): a list and a dict");
        return NULL;
    }
    PyObject *tasks = args[0], *open = args[1], *completed = args[2], *task_letter = args[3];
    PyObject *open_tasks = PyList_New(0);
    if (open_tasks == NULL)
        return NULL;
    long done = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tasks); i++) {
        PyObject *task = PyList_GET_ITEM(tasks, i);
        PyObject *status = PyObject_GetAttr(task, s_status);
        if (status == NULL)
            goto fail;
        Py_DECREF(status); /* compared by identity only: the enum members live on */
        if (status != completed && status != open)
            continue;
        PyObject *spec = PyObject_GetAttr(task, s_spec);
        if (spec == NULL)
            goto fail;
        if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 3) {
            Py_DECREF(spec);
            PyErr_SetString(PyExc_TypeError, "a task's spec is a (type, value, types) TaskSpec");
            goto fail;
        }
        PyObject *type = PyTuple_GET_ITEM(spec, 0), *value = PyTuple_GET_ITEM(spec, 1);
        if (status == completed) {
            long points = PyLong_AsLong(value);
            Py_DECREF(spec);
            if (points == -1 && PyErr_Occurred())
                goto fail;
            done += points;
            continue;
        }
        if (PyUnicode_Check(type) && PyUnicode_CompareWithASCIIString(type, "connection") == 0) {
            Py_DECREF(spec);
            continue;
        }
        PyObject *letters;
        if (PyUnicode_Check(type) && PyUnicode_CompareWithASCIIString(type, "double") == 0) {
            PyObject *types = PyTuple_GET_ITEM(spec, 2);
            PyObject *empty = PyUnicode_FromString("");
            letters = empty;
            PyObject *iterator = empty == NULL ? NULL : PyObject_GetIter(types);
            PyObject *one;
            while (iterator != NULL && letters != NULL && (one = PyIter_Next(iterator)) != NULL) {
                PyObject *letter = PyDict_GetItemWithError(task_letter, one);
                if (letter == NULL && !PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, one);
                Py_DECREF(one);
                PyObject *joined = letter == NULL ? NULL : PyUnicode_Concat(letters, letter);
                Py_SETREF(letters, joined);
            }
            Py_XDECREF(iterator);
            if (letters != NULL && PyErr_Occurred())
                Py_CLEAR(letters);
        } else {
            letters = PyDict_GetItemWithError(task_letter, type);
            if (letters == NULL && !PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, type);
            Py_XINCREF(letters);
        }
        if (letters == NULL) {
            Py_DECREF(spec);
            goto fail;
        }
        PyObject *cell = PyObject_GetAttr(task, s_cell);
        PyObject *entry = cell == NULL ? NULL : PyTuple_Pack(3, cell, value, letters);
        Py_XDECREF(cell);
        Py_DECREF(letters);
        Py_DECREF(spec);
        if (entry == NULL || PyList_Append(open_tasks, entry) < 0) {
            Py_XDECREF(entry);
            goto fail;
        }
        Py_DECREF(entry);
    }
    PyObject *out = Py_BuildValue("(lN)", done, open_tasks);
    return out;
fail:
    Py_DECREF(open_tasks);
    return NULL;
}

static PyMethodDef quick_methods[] = {
    {"ledger", (PyCFunction)(void (*)(void))ledger, METH_FASTCALL,
     "ledger(tasks, open, completed, task_letter) -> (done, open_tasks)"},
    {"quick", (PyCFunction)(void (*)(void))quick, METH_FASTCALL,
     "quick(area, constants, flags, landscapes_left, tasks_left, supply, done, open_tasks) -> float"},
    {NULL},
};

static struct PyModuleDef quick_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "dorf.players._quick",
    .m_doc = "The planner's quick evaluation, compiled (see dorf.players.evaluation).",
    .m_size = -1,
    .m_methods = quick_methods,
};

PyMODINIT_FUNC
PyInit__quick(void)
{
    for (int n = 0; n < 256; n++)
        LOG1P[n] = log1p((double)n);
    const char *names[] = {"figures", "active_count", "longest_river", "longest_track", "mountains", "lakes",
                           "status", "spec", "cell"};
    PyObject **slots[] = {&s_figures,   &s_active_count, &s_longest_river, &s_longest_track, &s_mountains,
                          &s_lakes,     &s_status,       &s_spec,          &s_cell};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if ((*slots[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return NULL;
    return PyModule_Create(&quick_module);
}
