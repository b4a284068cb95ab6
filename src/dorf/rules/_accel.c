/* The compiled core of dorf.rules.area.PlayArea: the same play area, in C.
 *
 * dorf/rules/area.py is the reference and the readable specification; every
 * function here mirrors one there, step by step, so that both give the same
 * legal moves in the same order, the same groups, task statuses, journal and
 * undo.  tests/engine/test_backends.py places the same random moves on both,
 * side by side in every mode, and compares them after every placement.
 *
 * What differs is representation only:
 *  - a node is (tile index * 8 + area index) instead of (cell * 8 + area index);
 *  - the board, the frontier and the plain cells are small insertion-ordered
 *    hash maps (OMap) that behave exactly like Python dicts: a key deleted and
 *    set again goes to the end, so the enumerator's order is the same;
 *  - the tasks on a group are a linked chain of attachments, merged and cut by
 *    the journal;
 *  - every array is allocated with PyMem (counted by tracemalloc) and grows
 *    with the area: a full game's area takes a few kilobytes.
 *
 * Plain C through the CPython API: no build dependency but a C compiler
 * (docs/engine.md says why).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define SPAN 256
#define OFFSET 128
#define ORIGIN (OFFSET * SPAN + OFFSET)
#define NODE 8
#define RIVER 3
#define TRACK 4
#define LAKE 5
#define MOUNTAIN 6
#define FLAG_EDGE 7
#define HALF 9
#define HALF_MASK 511

#define OPEN_ 0
#define COMPLETED_ 1
#define FAILED_ 2

#define KIND_LETTER 0
#define KIND_CONNECTION 1
#define KIND_DOUBLE 2

static const int DELTA[6] = {-SPAN, -SPAN + 1, 1, SPAN, SPAN - 1, -1};
#define OPP(d) (((d) + 3) % 6)

static const char LETTERS[] = "FGVMRTLPX";
static const char AREA_LETTERS[] = "FGVRTLPX";
static signed char AREA_OF[128];    /* letter -> area index, -1 for meadow */
static unsigned char CODE_OF[128];  /* letter -> match code */
static unsigned char VALID[128];
static unsigned char TERRITORY[128];
static unsigned char MUST[128];
static unsigned char PAIRED[128];

/* Objects handed over by area.py's setup(). */
static PyObject *PlacedTileType, *HexType, *TaskType, *TaskLetter;
static PyObject *STATUS[3];
static PyObject *str_status, *str_connection, *str_double, *str_flag, *str_task;
static PyObject *FaceIndex; /* face str -> index into FACES */

/* ------------------------------------------------------------------------- faces */

typedef struct {
    PyObject *face;
    PyObject *edges[6];            /* the oriented edge strings, per rotation */
    char ch[6][6];                 /* [rotation][direction] letter */
    signed char area[6][6];        /* [rotation][direction] area index or -1 */
    unsigned char nareas[6];
    signed char areas[6][6];       /* [rotation] area indices in order of first appearance */
    unsigned char has_area[6];     /* [rotation] bit set of area indices present */
    unsigned char letter_mask[8][6]; /* [area index][rotation] directions showing it */
    unsigned char ndistinct;
    unsigned char rots[6];
    unsigned char plain;
    unsigned char low[512], high[512];
} Face;

static Face **FACES;
static Py_ssize_t nfaces, capfaces;

static int
face_build(Face *f, PyObject *face)
{
    Py_ssize_t len;
    const char *s;
    memset(f, 0, sizeof(Face));
    if (!PyUnicode_Check(face) || (s = PyUnicode_AsUTF8AndSize(face, &len)) == NULL || len != 6) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "tile %R is not six edge letters of %s", face, LETTERS);
        return -1;
    }
    for (int d = 0; d < 6; d++) {
        unsigned char c = (unsigned char)s[d];
        if (c >= 128 || !VALID[c]) {
            PyErr_Format(PyExc_ValueError, "tile %R is not six edge letters of %s", face, LETTERS);
            return -1;
        }
    }
    int sig[6];
    unsigned char distinct = 0;
    for (int k = 0; k < 6; k++) {
        sig[k] = 0;
        for (int d = 0; d < 6; d++) {
            char c = s[(d - k + 6) % 6];
            f->ch[k][d] = c;
            f->area[k][d] = AREA_OF[(unsigned char)c];
            sig[k] |= CODE_OF[(unsigned char)c] << (3 * d);
        }
        f->edges[k] = PyUnicode_FromStringAndSize(f->ch[k], 6);
        if (f->edges[k] == NULL)
            return -1;
        PyUnicode_InternInPlace(&f->edges[k]);
        int seen = 0;
        for (int j = 0; j < k; j++)
            if (memcmp(f->ch[j], f->ch[k], 6) == 0)
                seen = 1;
        if (!seen) {
            distinct |= 1 << k;
            f->rots[f->ndistinct++] = (unsigned char)k;
        }
        for (int d = 0; d < 6; d++) {
            int a = f->area[k][d];
            if (a >= 0) {
                if (!(f->has_area[k] & (1 << a))) {
                    f->has_area[k] |= 1 << a;
                    f->areas[k][f->nareas[k]++] = (signed char)a;
                }
                f->letter_mask[a][k] |= 1 << d;
            }
        }
    }
    f->plain = 1;
    for (int d = 0; d < 6; d++)
        if (MUST[(unsigned char)s[d]])
            f->plain = 0;
    unsigned char per_side[6][8];
    for (int d = 0; d < 6; d++)
        for (int code = 0; code < 8; code++) {
            unsigned char bits = 0;
            for (int i = 0; i < f->ndistinct; i++) {
                int k = f->rots[i];
                if (code == 0 || ((sig[k] >> (3 * d)) & 7) == code)
                    bits |= 1 << k;
            }
            per_side[d][code] = bits;
        }
    for (int v = 0; v < 512; v++) {
        f->low[v] = per_side[0][v & 7] & per_side[1][(v >> 3) & 7] & per_side[2][v >> 6];
        f->high[v] = per_side[3][v & 7] & per_side[4][(v >> 3) & 7] & per_side[5][v >> 6];
    }
    Py_INCREF(face);
    f->face = face;
    return 0;
}

/* The face's index (building its tables on first sight), or -1 with an exception. */
static int
face_of(PyObject *face)
{
    PyObject *found = PyDict_GetItemWithError(FaceIndex, face);
    if (found != NULL)
        return (int)PyLong_AsLong(found);
    if (PyErr_Occurred())
        return -1;
    if (nfaces == capfaces) {
        Py_ssize_t cap = capfaces ? 2 * capfaces : 64;
        Face **grown = PyMem_Realloc(FACES, cap * sizeof(Face *));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        FACES = grown;
        capfaces = cap;
    }
    Face *f = PyMem_Malloc(sizeof(Face));
    if (f == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (face_build(f, face) < 0) {
        for (int k = 0; k < 6; k++)
            Py_XDECREF(f->edges[k]);
        PyMem_Free(f);
        return -1;
    }
    PyObject *index = PyLong_FromSsize_t(nfaces);
    if (index == NULL || PyDict_SetItem(FaceIndex, face, index) < 0) {
        Py_XDECREF(index);
        return -1;
    }
    Py_DECREF(index);
    FACES[nfaces] = f;
    return (int)nfaces++;
}

/* ------------------------------------------------- moves: cached (cell, k) tuples */

static PyObject **MOVE_ROWS[SPAN]; /* per grid row: SPAN * 6 tuples, made on first use */

static PyObject *
move_tuple(int cell, int k)
{
    int row = cell / SPAN;
    if (row < 0 || row >= SPAN) {
        PyErr_SetString(PyExc_ValueError, "cell off the grid");
        return NULL;
    }
    PyObject **slots = MOVE_ROWS[row];
    if (slots == NULL) {
        slots = PyMem_Calloc(SPAN * 6, sizeof(PyObject *));
        if (slots == NULL)
            return PyErr_NoMemory();
        MOVE_ROWS[row] = slots;
    }
    PyObject **slot = &slots[(cell % SPAN) * 6 + k];
    if (*slot == NULL) {
        *slot = Py_BuildValue("(ii)", cell, k);
        if (*slot == NULL)
            return NULL;
    }
    return *slot; /* borrowed */
}

/* --------------------------------------- OMap: an insertion-ordered int -> int map */

typedef struct {
    int32_t key; /* -1: deleted */
    int32_t value;
} OEntry;

typedef struct {
    int32_t *index; /* -1 empty, -2 dummy, else entry position */
    uint32_t mask;
    OEntry *entries;
    int32_t n, cap, alive;
} OMap;

#define EMPTY -1
#define DUMMY -2

static inline uint32_t
hash_cell(int32_t key, uint32_t mask)
{
    return ((uint32_t)key * 2654435761u >> 7) & mask;
}

static int
omap_init(OMap *m, int32_t cap)
{
    m->entries = PyMem_Malloc(cap * sizeof(OEntry));
    m->index = PyMem_Malloc(2 * cap * sizeof(int32_t));
    if (m->entries == NULL || m->index == NULL) {
        PyMem_Free(m->entries);
        PyMem_Free(m->index);
        m->entries = NULL;
        m->index = NULL;
        PyErr_NoMemory();
        return -1;
    }
    for (int32_t i = 0; i < 2 * cap; i++)
        m->index[i] = EMPTY;
    m->mask = (uint32_t)(2 * cap - 1);
    m->n = m->alive = 0;
    m->cap = cap;
    return 0;
}

static void
omap_free(OMap *m)
{
    PyMem_Free(m->entries);
    PyMem_Free(m->index);
    m->entries = NULL;
    m->index = NULL;
    m->n = m->alive = m->cap = 0;
}

/* Slot in the index holding key, or -1. */
static inline int32_t
omap_slot(const OMap *m, int32_t key)
{
    uint32_t i = hash_cell(key, m->mask);
    for (;;) {
        int32_t e = m->index[i];
        if (e == EMPTY)
            return -1;
        if (e >= 0 && m->entries[e].key == key)
            return (int32_t)i;
        i = (i + 1) & m->mask;
    }
}

static inline int32_t
omap_get(const OMap *m, int32_t key, int32_t missing)
{
    int32_t slot = omap_slot(m, key);
    return slot < 0 ? missing : m->entries[m->index[slot]].value;
}

static inline int
omap_has(const OMap *m, int32_t key)
{
    return omap_slot(m, key) >= 0;
}

/* Rebuild with room for at least one more entry, keeping the order. */
static int
omap_rebuild(OMap *m)
{
    int32_t cap = m->cap;
    if (m->alive * 2 > cap)
        cap *= 2;
    OEntry *entries = PyMem_Malloc(cap * sizeof(OEntry));
    int32_t *index = PyMem_Malloc(2 * cap * sizeof(int32_t));
    if (entries == NULL || index == NULL) {
        PyMem_Free(entries);
        PyMem_Free(index);
        PyErr_NoMemory();
        return -1;
    }
    uint32_t mask = (uint32_t)(2 * cap - 1);
    for (int32_t i = 0; i < 2 * cap; i++)
        index[i] = EMPTY;
    int32_t n = 0;
    for (int32_t e = 0; e < m->n; e++) {
        if (m->entries[e].key < 0)
            continue;
        entries[n] = m->entries[e];
        uint32_t i = hash_cell(entries[n].key, mask);
        while (index[i] != EMPTY)
            i = (i + 1) & mask;
        index[i] = n++;
    }
    PyMem_Free(m->entries);
    PyMem_Free(m->index);
    m->entries = entries;
    m->index = index;
    m->mask = mask;
    m->cap = cap;
    m->n = m->alive = n;
    return 0;
}

/* d[key] = value: in place if present, else at the end. */
static int
omap_set(OMap *m, int32_t key, int32_t value)
{
    int32_t slot = omap_slot(m, key);
    if (slot >= 0) {
        m->entries[m->index[slot]].value = value;
        return 0;
    }
    if (m->n == m->cap && omap_rebuild(m) < 0)
        return -1;
    uint32_t i = hash_cell(key, m->mask);
    while (m->index[i] >= 0)
        i = (i + 1) & m->mask;
    m->entries[m->n].key = key;
    m->entries[m->n].value = value;
    m->index[i] = m->n++;
    m->alive++;
    return 0;
}

/* d.pop(key, missing) */
static int32_t
omap_pop(OMap *m, int32_t key, int32_t missing)
{
    int32_t slot = omap_slot(m, key);
    if (slot < 0)
        return missing;
    int32_t e = m->index[slot];
    int32_t value = m->entries[e].value;
    m->entries[e].key = -1;
    m->index[slot] = DUMMY;
    m->alive--;
    return value;
}

/* ------------------------------------------------------------------- the area */

typedef struct {
    int32_t cell;
    int32_t jmark;  /* journal length before this placement */
    int32_t tjmark; /* task journal length before this placement */
    int16_t face;
    int16_t task;   /* index into tasks, or -1 */
    int8_t rot;     /* 0 to 5: the rotation the edges are turned by */
    int8_t flag;    /* area index of the flag's letter, -1 for none, -2 for a letter of no area */
} TileRec;

typedef struct {
    int32_t parent, size, open;
    int16_t head, tail; /* the chain of tasks on this root, or -1 */
} NodeRec;

typedef struct {
    PyObject *obj; /* the Task */
    int32_t tile;
    int32_t value;
    int8_t kind;
    int8_t nletters;
    int8_t letters[2];
    int8_t status;
} TaskRec;

typedef struct {
    int16_t task;
    int16_t next;
} Attach;

typedef struct {
    int32_t op, a, b, c;
} JEntry;

enum { J_FRONT, J_FIG, J_UNION, J_LONG, J_PAIR, J_TMERGE, J_TATTACH };

typedef struct {
    int16_t task;
    int8_t old;
} TJEntry;

typedef struct {
    PyObject_HEAD
    PyObject *placed;
    PyObject *tasks;
    TileRec *tiles;
    NodeRec *nodes;
    int32_t ntiles, captiles;
    OMap board;    /* cell -> tile index */
    OMap frontier; /* cell -> constraint key */
    OMap plain;    /* cells no must-meet edge faces */
    int32_t longest[8], pairs[8];
    TaskRec *taskrecs;
    int32_t ntasks, captasks, connections, active;
    Attach *attach;
    int32_t nattach, capattach;
    JEntry *journal;
    int32_t njournal, capjournal;
    TJEntry *tjournal;
    int32_t ntjournal, captjournal;
} Area;

typedef struct {
    int kind, value, nletters;
    int letters[2];
    PyObject *spec;
} TaskInfo;

static int
grow(void **array, int32_t *cap, int32_t need, size_t item)
{
    if (need <= *cap)
        return 0;
    int32_t n = *cap ? *cap : 8;
    while (n < need)
        n += n / 2;
    void *grown = PyMem_Realloc(*array, (size_t)n * item);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *array = grown;
    *cap = n;
    return 0;
}

static int
grow_tiles(Area *self, int32_t need)
{
    if (need <= self->captiles)
        return 0;
    int32_t cap = self->captiles ? self->captiles : 16;
    while (cap < need)
        cap += cap / 2;
    TileRec *tiles = PyMem_Realloc(self->tiles, (size_t)cap * sizeof(TileRec));
    if (tiles == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->tiles = tiles;
    NodeRec *nodes = PyMem_Realloc(self->nodes, (size_t)cap * NODE * sizeof(NodeRec));
    if (nodes == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->nodes = nodes;
    self->captiles = cap;
    return 0;
}

static inline int
jlog(Area *self, int op, int32_t a, int32_t b, int32_t c)
{
    if (self->njournal == self->capjournal &&
        grow((void **)&self->journal, &self->capjournal, self->njournal + 1, sizeof(JEntry)) < 0)
        return -1;
    JEntry *e = &self->journal[self->njournal++];
    e->op = op;
    e->a = a;
    e->b = b;
    e->c = c;
    return 0;
}

static inline int32_t
find(const Area *self, int32_t node)
{
    const NodeRec *nodes = self->nodes;
    int32_t up = nodes[node].parent;
    while (up != node) {
        node = up;
        up = nodes[node].parent;
    }
    return node;
}

static inline int
judge(int size, int open, int value)
{
    if (size == value)
        return COMPLETED_;
    if (size > value || open == 0)
        return FAILED_;
    return OPEN_;
}

static inline int32_t
tile_at(const Area *self, int32_t cell)
{
    return omap_get(&self->board, cell, -1);
}

/* The letter of the edge the tile on `tile` shows in direction d. */
static inline char
edge_of(const Area *self, int32_t tile, int d)
{
    const TileRec *t = &self->tiles[tile];
    return FACES[t->face]->ch[t->rot][d];
}

static int
neighbour_count(const Area *self, int32_t cell)
{
    int count = 0;
    for (int d = 0; d < 6; d++)
        count += omap_has(&self->board, cell + DELTA[d]);
    return count;
}

static void
area_release(Area *self)
{
    for (int32_t i = 0; i < self->ntasks; i++)
        Py_CLEAR(self->taskrecs[i].obj);
    PyMem_Free(self->tiles);
    PyMem_Free(self->nodes);
    PyMem_Free(self->taskrecs);
    PyMem_Free(self->attach);
    PyMem_Free(self->journal);
    PyMem_Free(self->tjournal);
    self->tiles = NULL;
    self->nodes = NULL;
    self->taskrecs = NULL;
    self->attach = NULL;
    self->journal = NULL;
    self->tjournal = NULL;
    omap_free(&self->board);
    omap_free(&self->frontier);
    omap_free(&self->plain);
    self->ntiles = self->captiles = 0;
    self->ntasks = self->captasks = 0;
    self->nattach = self->capattach = 0;
    self->njournal = self->capjournal = 0;
    self->ntjournal = self->captjournal = 0;
}

static int
area_reset(Area *self)
{
    area_release(self);
    memset(self->longest, 0, sizeof(self->longest));
    memset(self->pairs, 0, sizeof(self->pairs));
    self->connections = 0;
    self->active = 0;
    if (omap_init(&self->board, 32) < 0 || omap_init(&self->frontier, 32) < 0 ||
        omap_init(&self->plain, 32) < 0)
        return -1;
    PyObject *placed = PyList_New(0);
    PyObject *tasks = PyList_New(0);
    if (placed == NULL || tasks == NULL) {
        Py_XDECREF(placed);
        Py_XDECREF(tasks);
        return -1;
    }
    Py_XSETREF(self->placed, placed);
    Py_XSETREF(self->tasks, tasks);
    return 0;
}

static PyObject *
Area_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    Area *self = (Area *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    if (area_reset(self) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int
Area_init(Area *self, PyObject *args, PyObject *kwds)
{
    if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
        PyErr_SetString(PyExc_TypeError, "PlayArea() takes no arguments");
        return -1;
    }
    if (self->ntiles == 0 && self->placed != NULL && PyList_GET_SIZE(self->placed) == 0)
        return 0;
    return area_reset(self);
}

static int
Area_traverse(Area *self, visitproc visit, void *arg)
{
    Py_VISIT(self->placed);
    Py_VISIT(self->tasks);
    for (int32_t i = 0; i < self->ntasks; i++)
        Py_VISIT(self->taskrecs[i].obj);
    return 0;
}

static int
Area_clear(Area *self)
{
    Py_CLEAR(self->placed);
    Py_CLEAR(self->tasks);
    for (int32_t i = 0; i < self->ntasks; i++)
        Py_CLEAR(self->taskrecs[i].obj);
    return 0;
}

static void
Area_dealloc(Area *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Area_clear(self);
    area_release(self);
    type->tp_free((PyObject *)self);
}

/* ------------------------------------------------------------ argument parsing */

/* Fill out[] (defaults set by the caller, NULL where required) from positional and keyword
   arguments; the first `npositional` names may be given by position. */
static int
parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
           const char *const *names, int npositional, PyObject **out)
{
    int nnames = 0;
    while (names[nnames])
        nnames++;
    if (nargs > npositional) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments", fname, npositional);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int found = -1;
        for (int j = 0; j < nnames; j++)
            if (PyUnicode_CompareWithASCIIString(name, names[j]) == 0)
                found = j;
        if (found < 0 || found < nargs) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname, name);
            return -1;
        }
        out[found] = args[nargs + i];
    }
    for (int j = 0; j < nnames; j++)
        if (out[j] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing argument '%s'", fname, names[j]);
            return -1;
        }
    return 0;
}

/* ------------------------------------------------------------- reading tasks */

static int
letter_index(PyObject *name)
{
    PyObject *letter = PyDict_GetItemWithError(TaskLetter, name);
    if (letter == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, name);
        return -1;
    }
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(letter, &len);
    if (s == NULL)
        return -1;
    return AREA_OF[(unsigned char)s[0]];
}

/* Read a TaskSpec (type, value, types) or None. */
static int
task_info(PyObject *spec, TaskInfo *ti)
{
    ti->spec = spec;
    if (spec == Py_None) {
        ti->kind = -1;
        return 0;
    }
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) < 3) {
        PyErr_SetString(PyExc_TypeError, "task must be a TaskSpec or None");
        return -1;
    }
    PyObject *type = PyTuple_GET_ITEM(spec, 0);
    long value = PyLong_AsLong(PyTuple_GET_ITEM(spec, 1));
    if (value == -1 && PyErr_Occurred())
        return -1;
    ti->value = (int)value;
    ti->nletters = 0;
    int eq = PyObject_RichCompareBool(type, str_connection, Py_EQ);
    if (eq < 0)
        return -1;
    if (eq) {
        ti->kind = KIND_CONNECTION;
        return 0;
    }
    eq = PyObject_RichCompareBool(type, str_double, Py_EQ);
    if (eq < 0)
        return -1;
    if (eq) {
        PyObject *types = PyTuple_GET_ITEM(spec, 2);
        if (!PyTuple_Check(types) || PyTuple_GET_SIZE(types) != 2) {
            PyErr_SetString(PyExc_ValueError, "a double task names two territories");
            return -1;
        }
        ti->kind = KIND_DOUBLE;
        for (int i = 0; i < 2; i++) {
            int index = letter_index(PyTuple_GET_ITEM(types, i));
            if (index < 0)
                return -1;
            ti->letters[ti->nletters++] = index;
        }
        return 0;
    }
    ti->kind = KIND_LETTER;
    int index = letter_index(type);
    if (index < 0)
        return -1;
    ti->letters[ti->nletters++] = index;
    return 0;
}

/* --------------------------------------------------------------- legality */

/* Size and open edges the `index` area of face f turned k at `cell` would have (_area_after). */
static void
area_after(const Area *self, int32_t cell, const Face *f, int k, int index, int *out_size, int *out_open)
{
    int territory = index <= 2;
    int size = 1, open = 0, nroots = 0;
    int32_t roots[6];
    int32_t near_tile[6];
    char theirs_of[6];
    for (int d = 0; d < 6; d++) {
        int32_t tile = tile_at(self, cell + DELTA[d]);
        near_tile[d] = tile;
        if (tile < 0) {
            if (f->area[k][d] == index)
                open++;
            continue;
        }
        char theirs = edge_of(self, tile, OPP(d));
        theirs_of[d] = theirs;
        int joining = AREA_OF[(unsigned char)theirs] == index || (territory && theirs == 'X');
        if (f->area[k][d] == index && joining) {
            int32_t root = find(self, tile * NODE + AREA_OF[(unsigned char)theirs]);
            int known = 0;
            for (int i = 0; i < nroots; i++)
                known |= roots[i] == root;
            if (!known) {
                roots[nroots++] = root;
                size += self->nodes[root].size;
                open += self->nodes[root].open;
            }
        }
    }
    if (nroots) {
        for (int d = 0; d < 6; d++) {
            int32_t tile = near_tile[d];
            if (tile < 0)
                continue;
            char theirs = theirs_of[d];
            int joining = AREA_OF[(unsigned char)theirs] == index || (territory && theirs == 'X');
            if (!joining)
                continue;
            int32_t root = find(self, tile * NODE + AREA_OF[(unsigned char)theirs]);
            for (int i = 0; i < nroots; i++)
                if (roots[i] == root) {
                    open--;
                    break;
                }
        }
    }
    *out_size = size;
    *out_open = open;
}

static int
task_possible(const Area *self, int32_t cell, const Face *f, int k, const TaskInfo *ti)
{
    if (ti->kind < 0)
        return 1;
    if (ti->kind == KIND_CONNECTION)
        return neighbour_count(self, cell) <= ti->value;
    for (int i = 0; i < ti->nletters; i++) {
        int size, open;
        area_after(self, cell, f, k, ti->letters[i], &size, &open);
        if (judge(size, open, ti->value) != FAILED_)
            return 1;
    }
    return 0;
}

/* The moves of one cell (rotations in `bits`) kept by rule 5, appended to `out` (or counted). */
typedef struct {
    const Face *f;
    const TaskInfo *ti;
    int single;  /* one letter: the quick filter of _keep_possible applies */
    int letter;
    int alone_ok[2];
} Keep;

static void
keep_init(Keep *keep, const Face *f, const TaskInfo *ti)
{
    keep->f = f;
    keep->ti = ti;
    keep->single = ti->kind >= 0 && ti->nletters == 1;
    keep->letter = 0;
    keep->alone_ok[0] = keep->alone_ok[1] = 0;
    if (keep->single) {
        keep->letter = ti->letters[0];
        keep->alone_ok[0] = judge(1, 1, ti->value) != FAILED_;
        keep->alone_ok[1] = judge(1, 0, ti->value) != FAILED_;
    }
}

static unsigned
keep_bits(const Area *self, const Keep *keep, int32_t cell, unsigned bits)
{
    const TaskInfo *ti = keep->ti;
    if (ti->kind < 0)
        return bits;
    unsigned kept = 0;
    if (!keep->single) {
        for (int k = 0; k < 6; k++)
            if ((bits >> k & 1) && task_possible(self, cell, keep->f, k, ti))
                kept |= 1u << k;
        return kept;
    }
    int letter = keep->letter;
    int territory = letter <= 2;
    unsigned joins = 0, empty = 0;
    for (int d = 0; d < 6; d++) {
        int32_t tile = tile_at(self, cell + DELTA[d]);
        if (tile < 0) {
            empty |= 1u << d;
            continue;
        }
        char theirs = edge_of(self, tile, OPP(d));
        if (AREA_OF[(unsigned char)theirs] == letter || (territory && theirs == 'X'))
            joins |= 1u << d;
    }
    for (int k = 0; k < 6; k++) {
        if (!(bits >> k & 1))
            continue;
        unsigned mask = keep->f->letter_mask[letter][k];
        if (mask & joins) {
            if (task_possible(self, cell, keep->f, k, ti))
                kept |= 1u << k;
        }
        else if (keep->alone_ok[(mask & empty) ? 0 : 1])
            kept |= 1u << k;
    }
    return kept;
}

/* A move of `bits` at `cell`, found by the enumerator. */
typedef struct {
    int32_t cell;
    uint32_t bits;
} Found;

static const unsigned char POPCOUNT6[64] = {
    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
    1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6,
};

/* Room for the cells find_moves may find in this area for this face. */
static Py_ssize_t
moves_room(const Area *self, const Face *f)
{
    Py_ssize_t n = (f->plain ? &self->plain : &self->frontier)->n;
    return n > 1 ? n : 1;
}

/* The cells with a legal move and the bits of their legal rotations into `found` (room for
   moves_room entries), stopping at the first when `first` is set.  Returns how many cells;
   `*nmoves` (when given) is set to the number of moves. */
static Py_ssize_t
find_moves(Area *self, const Face *f, const TaskInfo *ti, Found *found, int first, Py_ssize_t *nmoves)
{
    Keep keep;
    keep_init(&keep, f, ti);
    unsigned distinct = 0;
    for (int i = 0; i < f->ndistinct; i++)
        distinct |= 1u << f->rots[i];
    Py_ssize_t nfound = 0, moves = 0;
    if (self->ntiles == 0) {
        unsigned bits = 0;
        for (int i = 0; i < f->ndistinct; i++)
            if (task_possible(self, ORIGIN, f, f->rots[i], ti))
                bits |= 1u << f->rots[i];
        if (bits) {
            found[0].cell = ORIGIN;
            found[0].bits = bits;
            nfound = 1;
            moves = POPCOUNT6[bits];
        }
    }
    else {
        const OMap *m = f->plain ? &self->plain : &self->frontier;
        for (int32_t e = 0; e < m->n; e++) {
            int32_t cell = m->entries[e].key;
            if (cell < 0)
                continue;
            unsigned bits;
            if (f->plain)
                bits = distinct;
            else {
                int32_t key = m->entries[e].value;
                bits = f->low[key & HALF_MASK] & f->high[key >> HALF];
                if (!bits)
                    continue;
            }
            bits = keep_bits(self, &keep, cell, bits);
            if (!bits)
                continue;
            found[nfound].cell = cell;
            found[nfound++].bits = bits;
            moves += POPCOUNT6[bits];
            if (first)
                break;
        }
    }
    if (nmoves != NULL)
        *nmoves = moves;
    return nfound;
}

/* Walk the legal moves: as a list in `*out` (when `out` is given), or stop at the first.
   Returns the number of cells with a legal move (at most 1 without `out`), or -1. */
static Py_ssize_t
enumerate_moves(Area *self, const Face *f, const TaskInfo *ti, PyObject **out)
{
    Found local[256];
    Found *found = local;
    Py_ssize_t room = moves_room(self, f);
    if (room > 256) {
        found = PyMem_Malloc((size_t)room * sizeof(Found));
        if (found == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    Py_ssize_t nmoves, result = -1;
    Py_ssize_t nfound = find_moves(self, f, ti, found, out == NULL, &nmoves);
    if (out != NULL) {
        PyObject *list = PyList_New(nmoves);
        if (list == NULL)
            goto done;
        Py_ssize_t at = 0;
        for (Py_ssize_t i = 0; i < nfound; i++)
            for (int k = 0; k < 6; k++) {
                if (!(found[i].bits >> k & 1))
                    continue;
                PyObject *move = move_tuple(found[i].cell, k);
                if (move == NULL) {
                    Py_DECREF(list);
                    goto done;
                }
                PyList_SET_ITEM(list, at++, Py_NewRef(move));
            }
        *out = list;
    }
    result = nfound;
done:
    if (found != local)
        PyMem_Free(found);
    return result;
}

/* The (face, task=None) arguments of legal_moves and has_legal_placement: the face's index, or -1. */
static int
face_and_task(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, TaskInfo *ti)
{
    static const char *const names[] = {"face", "task", NULL};
    PyObject *given[2] = {NULL, Py_None};
    if (parse_args(fname, args, nargs, kwnames, names, 2, given) < 0)
        return -1;
    int fi = face_of(given[0]);
    if (fi < 0 || task_info(given[1], ti) < 0)
        return -1;
    return fi;
}

static PyObject *
Area_legal_moves(Area *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    TaskInfo ti;
    int fi = face_and_task("legal_moves", args, nargs, kwnames, &ti);
    if (fi < 0)
        return NULL;
    PyObject *out = NULL;
    if (enumerate_moves(self, FACES[fi], &ti, &out) < 0)
        return NULL;
    return out;
}

static PyObject *
Area_has_legal_placement(Area *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    TaskInfo ti;
    int fi = face_and_task("has_legal_placement", args, nargs, kwnames, &ti);
    if (fi < 0)
        return NULL;
    Py_ssize_t found;
    if (ti.kind < 0 && self->ntiles == 0)
        found = 1;
    else if (ti.kind < 0) {
        /* any(_fitting_rotations(face, key) for key in the frontier) */
        const Face *f = FACES[fi];
        found = 0;
        for (int32_t e = 0; e < self->frontier.n && !found; e++) {
            if (self->frontier.entries[e].key < 0)
                continue;
            int32_t key = self->frontier.entries[e].value;
            found = (f->low[key & HALF_MASK] & f->high[key >> HALF]) != 0;
        }
    }
    else
        found = enumerate_moves(self, FACES[fi], &ti, NULL);
    if (found < 0)
        return NULL;
    return PyBool_FromLong(found > 0);
}

/* ---------------------------------------------------------------- push and pop */

static int
set_status(Area *self, int32_t task, int status)
{
    self->taskrecs[task].status = (int8_t)status;
    return PyObject_SetAttr(self->taskrecs[task].obj, str_status, STATUS[status]);
}

static int
change_status(Area *self, int32_t task, int status)
{
    if (grow((void **)&self->tjournal, &self->captjournal, self->ntjournal + 1, sizeof(TJEntry)) < 0)
        return -1;
    self->tjournal[self->ntjournal].task = (int16_t)task;
    self->tjournal[self->ntjournal].old = OPEN_;
    self->ntjournal++;
    self->active--;
    return set_status(self, task, status);
}

static int
judge_double(const Area *self, const TaskRec *t)
{
    int failed = 0;
    for (int i = 0; i < t->nletters; i++) {
        int32_t root = find(self, t->tile * NODE + t->letters[i]);
        int status = judge(self->nodes[root].size, self->nodes[root].open, t->value);
        if (status == COMPLETED_)
            return COMPLETED_;
        failed += status == FAILED_;
    }
    return failed == 2 ? FAILED_ : OPEN_;
}

static int
attach_task(Area *self, int32_t root, int32_t task)
{
    if (grow((void **)&self->attach, &self->capattach, self->nattach + 1, sizeof(Attach)) < 0)
        return -1;
    NodeRec *node = &self->nodes[root];
    if (jlog(self, J_TATTACH, root, node->tail, 0) < 0)
        return -1;
    int32_t a = self->nattach++;
    self->attach[a].task = (int16_t)task;
    self->attach[a].next = -1;
    if (node->tail >= 0)
        self->attach[node->tail].next = (int16_t)a;
    else
        node->head = (int16_t)a;
    node->tail = (int16_t)a;
    return 0;
}

static PyObject *
make_hex(int32_t cell)
{
    PyObject *q = PyLong_FromLong(cell % SPAN - OFFSET);
    PyObject *r = PyLong_FromLong(cell / SPAN - OFFSET);
    PyObject *hex = NULL;
    if (q != NULL && r != NULL)
        hex = ((PyTypeObject *)HexType)->tp_alloc((PyTypeObject *)HexType, 2);
    if (hex == NULL) {
        Py_XDECREF(q);
        Py_XDECREF(r);
        return NULL;
    }
    PyTuple_SET_ITEM(hex, 0, q);
    PyTuple_SET_ITEM(hex, 1, r);
    return hex;
}

static int
push(Area *self, PyObject *face_obj, int32_t cell, PyObject *k_obj, int k, PyObject *flag,
     const TaskInfo *ti)
{
    int fi = face_of(face_obj);
    if (fi < 0)
        return -1;
    const Face *f = FACES[fi];
    if (cell < SPAN || cell >= SPAN * (SPAN - 1)) {
        PyErr_Format(PyExc_ValueError, "cell %d is off the grid", cell);
        return -1;
    }
    int32_t t = self->ntiles;
    if (grow_tiles(self, t + 1) < 0)
        return -1;
    TileRec *rec = &self->tiles[t];
    rec->cell = cell;
    rec->jmark = self->njournal;
    rec->tjmark = self->ntjournal;
    rec->face = (int16_t)fi;
    rec->rot = (int8_t)k;
    rec->task = -1;
    rec->flag = -1;
    if (flag != Py_None) {
        Py_ssize_t len;
        const char *letter = PyUnicode_Check(flag) ? PyUnicode_AsUTF8AndSize(flag, &len) : NULL;
        rec->flag = (letter != NULL && len == 1 && (unsigned char)letter[0] < 128 &&
                     AREA_OF[(unsigned char)letter[0]] >= 0 &&
                     (f->has_area[k] & (1 << AREA_OF[(unsigned char)letter[0]])))
                        ? AREA_OF[(unsigned char)letter[0]]
                        : -2;
        PyErr_Clear();
    }

    NodeRec *nodes = self->nodes;
    int was_plain = omap_has(&self->plain, cell);
    if (jlog(self, J_FRONT, cell, omap_pop(&self->frontier, cell, -1), was_plain) < 0)
        return -1;
    omap_pop(&self->plain, cell, 0);
    if (omap_set(&self->board, cell, t) < 0)
        return -1;
    self->ntiles = t + 1;
    int32_t base = t * NODE;
    for (int i = 0; i < NODE; i++)
        nodes[base + i].parent = -1;
    for (int i = 0; i < f->nareas[k]; i++) {
        int32_t node = base + f->areas[k][i];
        nodes[node].parent = node;
        nodes[node].size = 1;
        nodes[node].open = 0;
        nodes[node].head = nodes[node].tail = -1;
    }
    int32_t touched[12];
    int ntouched = 0;
    int32_t joins[6][2];
    int njoins = 0;
    for (int d = 0; d < 6; d++) {
        int32_t near = cell + DELTA[d];
        char mine = f->ch[k][d];
        int own = f->area[k][d];
        int32_t other = tile_at(self, near);
        if (other < 0) {
            if (own >= 0)
                nodes[base + own].open += 1;
            int32_t contribution = CODE_OF[(unsigned char)mine] << (3 * OPP(d));
            int32_t old = omap_get(&self->frontier, near, -1);
            if (jlog(self, J_FRONT, near, old, omap_has(&self->plain, near)) < 0)
                return -1;
            if (old < 0) {
                if (omap_set(&self->frontier, near, contribution) < 0)
                    return -1;
                if (!MUST[(unsigned char)mine] && omap_set(&self->plain, near, 0) < 0)
                    return -1;
            }
            else {
                if (omap_set(&self->frontier, near, old + contribution) < 0)
                    return -1;
                if (MUST[(unsigned char)mine])
                    omap_pop(&self->plain, near, 0);
            }
            continue;
        }
        char theirs = edge_of(self, other, OPP(d));
        int index = AREA_OF[(unsigned char)theirs];
        if (index < 0)
            continue;
        int32_t root = find(self, other * NODE + index);
        if (jlog(self, J_FIG, root, nodes[root].size, nodes[root].open) < 0)
            return -1;
        nodes[root].open -= 1;
        touched[ntouched++] = root;
        if (mine == theirs) {
            if (PAIRED[(unsigned char)mine]) {
                if (jlog(self, J_PAIR, index, self->pairs[index], 0) < 0)
                    return -1;
                self->pairs[index] += 1;
            }
            if (mine != 'X') {
                joins[njoins][0] = base + index;
                joins[njoins++][1] = root;
            }
        }
        else if (mine == 'X' || theirs == 'X') {
            /* A multicoloured flag edge joins the territory it meets (rule 19). */
            if (TERRITORY[(unsigned char)theirs]) {
                joins[njoins][0] = base + FLAG_EDGE;
                joins[njoins++][1] = root;
            }
            else if (TERRITORY[(unsigned char)mine]) {
                joins[njoins][0] = base + own;
                joins[njoins++][1] = root;
            }
        }
    }
    for (int j = 0; j < njoins; j++) {
        int32_t ra = find(self, joins[j][0]);
        int32_t rb = find(self, joins[j][1]);
        if (ra == rb)
            continue;
        if (nodes[ra].size < nodes[rb].size || ra % NODE == FLAG_EDGE) {
            int32_t swap = ra;
            ra = rb;
            rb = swap;
        }
        if (jlog(self, J_FIG, ra, nodes[ra].size, nodes[ra].open) < 0 || jlog(self, J_UNION, rb, 0, 0) < 0)
            return -1;
        nodes[rb].parent = ra;
        nodes[ra].size += nodes[rb].size;
        nodes[ra].open += nodes[rb].open;
        if (nodes[rb].head >= 0) {
            if (jlog(self, J_TMERGE, ra, rb, nodes[ra].tail) < 0)
                return -1;
            if (nodes[ra].tail >= 0)
                self->attach[nodes[ra].tail].next = nodes[rb].head;
            else
                nodes[ra].head = nodes[rb].head;
            nodes[ra].tail = nodes[rb].tail;
            nodes[rb].head = nodes[rb].tail = -1;
        }
    }
    PyObject *new_task = Py_None;
    Py_INCREF(new_task);
    if (ti->kind >= 0) {
        if (grow((void **)&self->taskrecs, &self->captasks, self->ntasks + 1, sizeof(TaskRec)) < 0)
            goto fail;
        PyObject *cell_obj = PyLong_FromLong(cell);
        if (cell_obj == NULL)
            goto fail;
        PyObject *obj = PyObject_CallFunctionObjArgs(TaskType, cell_obj, ti->spec, NULL);
        Py_DECREF(cell_obj);
        if (obj == NULL)
            goto fail;
        if (PyList_Append(self->tasks, obj) < 0) {
            Py_DECREF(obj);
            goto fail;
        }
        Py_SETREF(new_task, obj);
        Py_INCREF(obj);
        int32_t index = self->ntasks++;
        TaskRec *tr = &self->taskrecs[index];
        tr->obj = obj;
        tr->tile = t;
        tr->value = ti->value;
        tr->kind = (int8_t)ti->kind;
        tr->nletters = (int8_t)ti->nletters;
        tr->letters[0] = (int8_t)ti->letters[0];
        tr->letters[1] = (int8_t)ti->letters[1];
        tr->status = OPEN_;
        rec->task = (int16_t)index;
        if (ti->kind == KIND_CONNECTION)
            self->connections++;
        for (int i = 0; i < ti->nletters; i++)
            if (attach_task(self, find(self, base + ti->letters[i]), index) < 0)
                goto fail;
        self->active++;
    }
    /* Judge the tasks of every group this placement grew or covered. */
    for (int i = 0; i < f->nareas[k]; i++) {
        int index = f->areas[k][i];
        int32_t root = find(self, base + index);
        touched[ntouched++] = root;
        if (nodes[root].size > self->longest[index]) {
            if (jlog(self, J_LONG, index, self->longest[index], 0) < 0)
                goto fail;
            self->longest[index] = nodes[root].size;
        }
    }
    for (int i = 0; i < ntouched; i++) {
        int32_t root = touched[i];
        for (int a = nodes[root].head; a >= 0; a = self->attach[a].next) {
            int32_t task = self->attach[a].task;
            TaskRec *tr = &self->taskrecs[task];
            if (tr->status != OPEN_)
                continue;
            int status = tr->kind == KIND_DOUBLE ? judge_double(self, tr)
                                                 : judge(nodes[root].size, nodes[root].open, tr->value);
            if (status != OPEN_ && change_status(self, task, status) < 0)
                goto fail;
        }
    }
    if (self->connections) {
        for (int d = -1; d < 6; d++) {
            int32_t near = d < 0 ? cell : cell + DELTA[d];
            int32_t tile = tile_at(self, near);
            if (tile < 0 || self->tiles[tile].task < 0)
                continue;
            int32_t task = self->tiles[tile].task;
            TaskRec *tr = &self->taskrecs[task];
            if (tr->kind != KIND_CONNECTION || tr->status != OPEN_)
                continue;
            if (neighbour_count(self, near) == tr->value && change_status(self, task, COMPLETED_) < 0)
                goto fail;
        }
    }
    {
        PyObject *hex = make_hex(cell);
        if (hex == NULL)
            goto fail;
        PyObject *placed = ((PyTypeObject *)PlacedTileType)->tp_alloc((PyTypeObject *)PlacedTileType, 5);
        if (placed == NULL) {
            Py_DECREF(hex);
            goto fail;
        }
        Py_INCREF(face_obj);
        Py_INCREF(k_obj);
        Py_INCREF(flag);
        PyTuple_SET_ITEM(placed, 0, face_obj);
        PyTuple_SET_ITEM(placed, 1, hex);
        PyTuple_SET_ITEM(placed, 2, k_obj);
        PyTuple_SET_ITEM(placed, 3, flag);
        PyTuple_SET_ITEM(placed, 4, new_task);
        new_task = NULL;
        int failed = PyList_Append(self->placed, placed);
        Py_DECREF(placed);
        if (failed < 0)
            return -1;
    }
    return 0;
fail:
    Py_XDECREF(new_task);
    return -1;
}

/* push(face, cell, k, *, flag=None, task=None) from its arguments */
static int
push_called(Area *self, const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *face, *cell_obj, *k_obj, *flag = Py_None, *task = Py_None;
    if (nargs == 3) {
        face = args[0];
        cell_obj = args[1];
        k_obj = args[2];
        Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        for (Py_ssize_t i = 0; i < nkw; i++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, i);
            /* a keyword in Python source is interned: most often the very object we hold */
            PyObject **slot = name == str_flag ? &flag : name == str_task ? &task : NULL;
            if (slot == NULL && PyUnicode_CompareWithASCIIString(name, "flag") == 0)
                slot = &flag;
            else if (slot == NULL && PyUnicode_CompareWithASCIIString(name, "task") == 0)
                slot = &task;
            if (slot == NULL) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname, name);
                return -1;
            }
            *slot = args[3 + i];
        }
    }
    else {
        static const char *const names[] = {"face", "cell", "k", "flag", "task", NULL};
        PyObject *given[5] = {NULL, NULL, NULL, Py_None, Py_None};
        if (parse_args(fname, args, nargs, kwnames, names, 3, given) < 0)
            return -1;
        face = given[0];
        cell_obj = given[1];
        k_obj = given[2];
        flag = given[3];
        task = given[4];
    }
    long cell = PyLong_AsLong(cell_obj);
    if (cell == -1 && PyErr_Occurred())
        return -1;
    long k = PyLong_AsLong(k_obj);
    if (k == -1 && PyErr_Occurred())
        return -1;
    TaskInfo ti;
    if (task_info(task, &ti) < 0)
        return -1;
    k %= 6;
    if (k < 0)
        k += 6;
    return push(self, face, (int32_t)cell, k_obj, (int)k, flag, &ti);
}

static PyObject *
Area_push(Area *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (push_called(self, "push", args, nargs, kwnames) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Area_last_changes(Area *self, PyObject *Py_UNUSED(ignored));

/* push(...), then last_changes(): one call where the caller keeps what the tile did to the tasks */
static PyObject *
Area_push_changes(Area *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (push_called(self, "push_changes", args, nargs, kwnames) < 0)
        return NULL;
    return Area_last_changes(self, NULL);
}

static int
undo_journal(Area *self, int32_t mark)
{
    NodeRec *nodes = self->nodes;
    for (int32_t i = self->njournal - 1; i >= mark; i--) {
        JEntry *e = &self->journal[i];
        switch (e->op) {
        case J_FRONT:
            if (e->b < 0)
                omap_pop(&self->frontier, e->a, 0);
            else if (omap_set(&self->frontier, e->a, e->b) < 0)
                return -1;
            if (e->c) {
                if (omap_set(&self->plain, e->a, 0) < 0)
                    return -1;
            }
            else
                omap_pop(&self->plain, e->a, 0);
            break;
        case J_FIG:
            nodes[e->a].size = e->b;
            nodes[e->a].open = e->c;
            break;
        case J_UNION:
            nodes[e->a].parent = e->a;
            break;
        case J_LONG:
            self->longest[e->a] = e->b;
            break;
        case J_PAIR:
            self->pairs[e->a] = e->b;
            break;
        case J_TMERGE: {
            NodeRec *ra = &nodes[e->a], *rb = &nodes[e->b];
            int32_t old_tail = e->c;
            rb->head = old_tail >= 0 ? self->attach[old_tail].next : ra->head;
            rb->tail = ra->tail;
            if (old_tail >= 0) {
                self->attach[old_tail].next = -1;
                ra->tail = (int16_t)old_tail;
            }
            else
                ra->head = ra->tail = -1;
            break;
        }
        case J_TATTACH: {
            NodeRec *root = &nodes[e->a];
            int32_t old_tail = e->b;
            if (old_tail >= 0) {
                self->attach[old_tail].next = -1;
                root->tail = (int16_t)old_tail;
            }
            else
                root->head = root->tail = -1;
            self->nattach--;
            break;
        }
        }
    }
    self->njournal = mark;
    return 0;
}

static PyObject *
Area_pop(Area *self, PyObject *Py_UNUSED(ignored))
{
    if (self->ntiles == 0) {
        PyErr_SetString(PyExc_IndexError, "pop from an empty play area");
        return NULL;
    }
    int32_t t = self->ntiles - 1;
    TileRec *rec = &self->tiles[t];
    Py_ssize_t last = PyList_GET_SIZE(self->placed) - 1;
    PyObject *tile = PyList_GET_ITEM(self->placed, last);
    Py_INCREF(tile);
    if (PyList_SetSlice(self->placed, last, last + 1, NULL) < 0) {
        Py_DECREF(tile);
        return NULL;
    }
    if (rec->task >= 0) {
        Py_ssize_t end = PyList_GET_SIZE(self->tasks);
        if (PyList_SetSlice(self->tasks, end - 1, end, NULL) < 0)
            goto fail;
    }
    for (int32_t i = self->ntjournal - 1; i >= rec->tjmark; i--)
        if (set_status(self, self->tjournal[i].task, self->tjournal[i].old) < 0)
            goto fail;
    self->ntjournal = rec->tjmark;
    if (rec->task >= 0) {
        TaskRec *tr = &self->taskrecs[rec->task];
        if (tr->kind == KIND_CONNECTION)
            self->connections--;
        Py_CLEAR(tr->obj);
        self->ntasks--;
    }
    self->active = 0;
    for (int32_t i = 0; i < self->ntasks; i++)
        self->active += self->taskrecs[i].status == OPEN_;
    if (undo_journal(self, rec->jmark) < 0)
        goto fail;
    omap_pop(&self->board, rec->cell, 0);
    self->ntiles = t;
    return tile;
fail:
    Py_DECREF(tile);
    return NULL;
}

/* ------------------------------------------------------------------ reading */

static int
cell_arg(PyObject *obj, int32_t *cell)
{
    long value = PyLong_AsLong(obj);
    if (value == -1 && PyErr_Occurred())
        return -1;
    *cell = (int32_t)value;
    return 0;
}

static PyObject *
Area_figures(Area *self, PyObject *const *args, Py_ssize_t nargs)
{
    int32_t cell;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "figures(cell, letter)");
        return NULL;
    }
    if (cell_arg(args[0], &cell) < 0)
        return NULL;
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(args[1], &len);
    if (s == NULL)
        return NULL;
    int index = len == 1 && (unsigned char)s[0] < 128 ? AREA_OF[(unsigned char)s[0]] : -1;
    int32_t tile = tile_at(self, cell);
    if (index < 0 || tile < 0 || !(FACES[self->tiles[tile].face]->has_area[self->tiles[tile].rot] & (1 << index))) {
        PyErr_SetObject(PyExc_KeyError, args[1]);
        return NULL;
    }
    int32_t root = find(self, tile * NODE + index);
    return Py_BuildValue("(ii)", self->nodes[root].size, self->nodes[root].open);
}

static PyObject *
Area_surroundings(Area *self, PyObject *arg)
{
    int32_t cell;
    if (cell_arg(arg, &cell) < 0)
        return NULL;
    char around[6];
    for (int d = 0; d < 6; d++) {
        int32_t tile = tile_at(self, cell + DELTA[d]);
        around[d] = tile < 0 ? '.' : edge_of(self, tile, OPP(d));
    }
    return PyUnicode_FromStringAndSize(around, 6);
}

/* PlayArea.open_cells: the empty cells the open edges of the letter group through a cell face,
 * each with the direction back to the group, in the dict order of area.py's depth-first walk. */
static int
open_cell_add(PyObject *out, int32_t near, int d)
{
    PyObject *key = PyLong_FromLong(near);
    if (key == NULL)
        return -1;
    int found = PyDict_Contains(out, key);
    int rc = found;
    if (found == 0) {
        PyObject *value = PyLong_FromLong(OPP(d));
        rc = value == NULL ? -1 : PyDict_SetItem(out, key, value);
        Py_XDECREF(value);
    }
    Py_DECREF(key);
    return rc < 0 ? -1 : 0;
}

static PyObject *
Area_open_cells(Area *self, PyObject *const *args, Py_ssize_t nargs)
{
    int32_t cell;
    Py_ssize_t len;
    const char *text;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "open_cells(cell, letter) takes two arguments");
        return NULL;
    }
    if (cell_arg(args[0], &cell) < 0)
        return NULL;
    if (!PyUnicode_Check(args[1]) || (text = PyUnicode_AsUTF8AndSize(args[1], &len)) == NULL || len != 1) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "letter %R is not one letter", args[1]);
        return NULL;
    }
    unsigned char letter = (unsigned char)text[0];
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    int32_t start = tile_at(self, cell);
    if (letter == 'X') {
        if (start < 0)
            return out;
        int d = 0;
        while (d < 6 && edge_of(self, start, d) != 'X')
            d++;
        if (d == 6)
            return out;
        int32_t near = tile_at(self, cell + DELTA[d]);
        if (near < 0) {
            if (open_cell_add(out, cell + DELTA[d], d) < 0)
                Py_CLEAR(out);
            return out;
        }
        unsigned char facing = (unsigned char)edge_of(self, near, OPP(d));
        if (facing >= 128 || !TERRITORY[facing])
            return out;
        letter = facing;
    }
    if (start < 0)
        return out;
    unsigned char other = letter < 128 && TERRITORY[letter] ? 'X' : letter;
    unsigned char *seen = PyMem_Calloc((size_t)self->ntiles, 1);
    int32_t *todo = PyMem_Malloc(sizeof(int32_t) * ((size_t)self->ntiles + 1));
    if (seen == NULL || todo == NULL) {
        PyMem_Free(seen);
        PyMem_Free(todo);
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    Py_ssize_t top = 0;
    seen[start] = 1;
    todo[top++] = cell;
    while (top > 0) {
        int32_t here = todo[--top];
        int32_t tile = tile_at(self, here);
        for (int d = 0; d < 6; d++) {
            unsigned char mine = (unsigned char)edge_of(self, tile, d);
            if (mine != letter && mine != other)
                continue;
            int32_t near = here + DELTA[d];
            int32_t there = tile_at(self, near);
            if (there < 0) {
                if (open_cell_add(out, near, d) < 0) {
                    Py_CLEAR(out);
                    top = 0;
                    break;
                }
                continue;
            }
            unsigned char facing = (unsigned char)edge_of(self, there, OPP(d));
            if ((facing == letter || facing == other) && !seen[there] && !(facing == 'X' && mine == 'X')) {
                seen[there] = 1;
                todo[top++] = near;
            }
        }
    }
    PyMem_Free(seen);
    PyMem_Free(todo);
    return out;
}

static PyObject *
Area_last_changes(Area *self, PyObject *Py_UNUSED(ignored))
{
    if (self->ntiles == 0)
        return PyTuple_New(0);
    int32_t mark = self->tiles[self->ntiles - 1].tjmark;
    PyObject *out = PyTuple_New(self->ntjournal - mark);
    if (out == NULL)
        return NULL;
    for (int32_t i = mark; i < self->ntjournal; i++) {
        TaskRec *tr = &self->taskrecs[self->tjournal[i].task];
        PyObject *pair = PyTuple_Pack(2, tr->obj, STATUS[tr->status]);
        if (pair == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i - mark, pair);
    }
    return out;
}

static PyObject *
Area_edges(Area *self, PyObject *arg)
{
    int32_t cell;
    if (cell_arg(arg, &cell) < 0)
        return NULL;
    int32_t tile = tile_at(self, cell);
    if (tile < 0)
        Py_RETURN_NONE;
    PyObject *edges = FACES[self->tiles[tile].face]->edges[self->tiles[tile].rot];
    Py_INCREF(edges);
    return edges;
}

static PyObject *
Area_in_frontier(Area *self, PyObject *arg)
{
    int32_t cell;
    if (cell_arg(arg, &cell) < 0)
        return NULL;
    return PyBool_FromLong(omap_has(&self->frontier, cell));
}

static PyObject *
Area_frontier_cells(Area *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (int32_t e = 0; e < self->frontier.n; e++) {
        int32_t cell = self->frontier.entries[e].key;
        if (cell < 0)
            continue;
        PyObject *value = PyLong_FromLong(cell);
        if (value == NULL || PyList_Append(out, value) < 0) {
            Py_XDECREF(value);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(value);
    }
    return out;
}

static PyObject *
Area_root(Area *self, PyObject *const *args, Py_ssize_t nargs)
{
    int32_t cell;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_root(cell, index)");
        return NULL;
    }
    if (cell_arg(args[0], &cell) < 0)
        return NULL;
    long index = PyLong_AsLong(args[1]);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    int32_t tile = tile_at(self, cell);
    if (index < 0 || index >= NODE || tile < 0 ||
        !(FACES[self->tiles[tile].face]->has_area[self->tiles[tile].rot] & (1 << index)))
        return PyLong_FromLong(-1);
    return PyLong_FromLong(find(self, tile * NODE + (int32_t)index));
}

static PyObject *
Area_root_figures(Area *self, PyObject *arg)
{
    long root = PyLong_AsLong(arg);
    if (root == -1 && PyErr_Occurred())
        return NULL;
    if (root < 0 || root >= (long)self->ntiles * NODE || self->nodes[root].parent != root) {
        PyErr_Format(PyExc_KeyError, "%ld is not a root", root);
        return NULL;
    }
    NodeRec *node = &self->nodes[root];
    Py_ssize_t n = 0;
    for (int a = node->head; a >= 0; a = self->attach[a].next)
        n++;
    PyObject *tasks = PyTuple_New(n);
    if (tasks == NULL)
        return NULL;
    n = 0;
    for (int a = node->head; a >= 0; a = self->attach[a].next) {
        PyObject *obj = self->taskrecs[self->attach[a].task].obj;
        Py_INCREF(obj);
        PyTuple_SET_ITEM(tasks, n++, obj);
    }
    return Py_BuildValue("(iiN)", node->size, node->open, tasks);
}

static PyObject *
Area_neighbour_count(Area *self, PyObject *arg)
{
    int32_t cell;
    if (cell_arg(arg, &cell) < 0)
        return NULL;
    return PyLong_FromLong(neighbour_count(self, cell));
}

static PyObject *
Area_area_after(Area *self, PyObject *const *args, Py_ssize_t nargs)
{
    int32_t cell;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "_area_after(cell, edges, index)");
        return NULL;
    }
    if (cell_arg(args[0], &cell) < 0)
        return NULL;
    int fi = face_of(args[1]);
    if (fi < 0)
        return NULL;
    long index = PyLong_AsLong(args[2]);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    int size, open;
    area_after(self, cell, FACES[fi], 0, (int)index, &size, &open);
    return Py_BuildValue("(ii)", size, open);
}

/* grown_to: the moves (in order) after which the face's `index` area would count from `least` to
   `most` tiles. */
static PyObject *
Area_grown_to(Area *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "grown_to(face, moves, index, least, most)");
        return NULL;
    }
    int fi = face_of(args[0]);
    if (fi < 0)
        return NULL;
    const Face *f = FACES[fi];
    PyObject *moves = args[1];
    long index = PyLong_AsLong(args[2]);
    long least = PyLong_AsLong(args[3]);
    long most = PyLong_AsLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (index < 0 || index >= NODE) {
        PyErr_SetString(PyExc_ValueError, "index is not an area letter's");
        return NULL;
    }
    if (!PyList_Check(moves)) {
        PyErr_SetString(PyExc_ValueError, "moves must be a list");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(moves);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *move = PyList_GET_ITEM(moves, i);
        if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 2) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "a move is a (cell, rotation) tuple");
            return NULL;
        }
        int32_t cell;
        if (cell_arg(PyTuple_GET_ITEM(move, 0), &cell) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        long k = PyLong_AsLong(PyTuple_GET_ITEM(move, 1));
        if (k == -1 && PyErr_Occurred()) {
            Py_DECREF(out);
            return NULL;
        }
        k = ((k % 6) + 6) % 6;
        int size, open;
        area_after(self, cell, f, (int)k, (int)index, &size, &open);
        if (least <= size && size <= most && PyList_Append(out, move) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* contact_counts of dorf.rules.area, for one oriented tile and its surroundings. */
static void
contacts(const char *edges, const char *around, int *same, int *other)
{
    *same = *other = 0;
    for (int d = 0; d < 6; d++) {
        char mine = edges[d], theirs = around[d];
        if (theirs == '.')
            continue;
        if (theirs == mine || (mine == 'X' && TERRITORY[(unsigned char)theirs]) ||
            (theirs == 'X' && TERRITORY[(unsigned char)mine]))
            *same += mine != 'M';
        else
            *other += 1;
    }
}

typedef struct {
    double value;
    Py_ssize_t at;
} Ranked;

/* A stable sort, best value first (as list.sort(key=-value)). */
static void
rank_sort(Ranked *items, Ranked *scratch, Py_ssize_t n)
{
    if (n < 2)
        return;
    Py_ssize_t half = n / 2;
    rank_sort(items, scratch, half);
    rank_sort(items + half, scratch, n - half);
    Py_ssize_t i = 0, j = half, o = 0;
    while (i < half && j < n) {
        if (-items[j].value < -items[i].value)
            scratch[o++] = items[j++];
        else
            scratch[o++] = items[i++];
    }
    while (i < half)
        scratch[o++] = items[i++];
    while (j < n)
        scratch[o++] = items[j++];
    memcpy(items, scratch, n * sizeof(Ranked));
}

/* The float random.Random.random() makes of two 32-bit words, read little-endian from 8 bytes. */
static inline double
random_of(const unsigned char *p)
{
    uint32_t a = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    uint32_t b = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * (1.0 / 9007199254740992.0);
}

static PyObject *
Area_contact_values(Area *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 && nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "contact_values(face, moves, joined, mismatched, noise[, best, near])");
        return NULL;
    }
    Py_ssize_t best = -1;
    PyObject *near = NULL;
    if (nargs == 7 && args[5] != Py_None) {
        best = PyLong_AsSsize_t(args[5]);
        if (best == -1 && PyErr_Occurred())
            return NULL;
        if (best < 0) {
            PyErr_SetString(PyExc_ValueError, "best must not be negative");
            return NULL;
        }
        near = args[6];
    }
    int fi = face_of(args[0]);
    if (fi < 0)
        return NULL;
    const Face *f = FACES[fi];
    PyObject *moves = args[1], *noise = args[4];
    double joined = PyFloat_AsDouble(args[2]);
    double mismatched = PyFloat_AsDouble(args[3]);
    if (PyErr_Occurred())
        return NULL;
    /* The noise: a list of one float a move, or the bytes of rng.getrandbits(64 * n) in little-endian
       order, read as rng.random() would have made the same n floats from the same 2n words. */
    const unsigned char *bits = NULL;
    if (!PyList_Check(moves)) {
        PyErr_SetString(PyExc_ValueError, "moves must be a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(moves);
    if (PyBytes_Check(noise) && PyBytes_GET_SIZE(noise) == 8 * n) {
        bits = (const unsigned char *)PyBytes_AS_STRING(noise);
    } else if (!PyList_Check(noise) || PyList_GET_SIZE(noise) != n) {
        PyErr_SetString(PyExc_ValueError, "noise must be a list of one float a move or 8 bytes a move");
        return NULL;
    }
    Ranked *items = PyMem_Malloc((n ? n : 1) * 2 * sizeof(Ranked));
    if (items == NULL)
        return PyErr_NoMemory();
    int32_t around_cell = -1;
    char around[6] = {0};
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *move = PyList_GET_ITEM(moves, i);
        if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 2) {
            PyMem_Free(items);
            PyErr_SetString(PyExc_TypeError, "a move is a (cell, rotation) tuple");
            return NULL;
        }
        long cell = PyLong_AsLong(PyTuple_GET_ITEM(move, 0));
        long k = PyLong_AsLong(PyTuple_GET_ITEM(move, 1));
        double r = bits != NULL ? random_of(bits + 8 * i) : PyFloat_AsDouble(PyList_GET_ITEM(noise, i));
        if (PyErr_Occurred()) {
            PyMem_Free(items);
            return NULL;
        }
        k = ((k % 6) + 6) % 6;
        if (cell != around_cell) {
            around_cell = (int32_t)cell;
            for (int d = 0; d < 6; d++) {
                int32_t tile = tile_at(self, (int32_t)cell + DELTA[d]);
                around[d] = tile < 0 ? '.' : edge_of(self, tile, OPP(d));
            }
        }
        int same, other;
        contacts(f->ch[k], around, &same, &other);
        items[i].value = joined * (double)same - mismatched * (double)other + r * 0.01;
        items[i].at = i;
    }
    /* With best: the best `best`, then up to `best` more of the rest (in order) whose cell is in near.
       The same list as sorting all of them: the best `best` are picked in one pass (a later move
       goes after the equal ones picked before it, as the stable sort puts it), and only the rest
       whose cell is near are sorted (the near test made once for each run of moves at one cell). */
    Py_ssize_t keep = n, extra = 0;
    if (best == 0) {
        keep = 0; /* none, and none more */
    } else if (best > 0 && best < n) {
        Ranked *top = items + n;
        Py_ssize_t picked = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            double v = items[i].value;
            if (picked == best && !(-v < -top[picked - 1].value))
                continue;
            Py_ssize_t at = picked < best ? picked++ : picked - 1;
            while (at > 0 && -v < -top[at - 1].value) {
                top[at] = top[at - 1];
                at--;
            }
            top[at].value = v;
            top[at].at = i;
        }
        /* The picked are marked (at -1) and skipped below; top keeps their own copies. */
        for (Py_ssize_t i = 0; i < best; i++)
            items[top[i].at].at = -1;
        Py_ssize_t nearby = 0;
        int empty = (PyAnySet_Check(near) && PySet_GET_SIZE(near) == 0) ||
                    (PyTuple_Check(near) && PyTuple_GET_SIZE(near) == 0);
        PyObject *last_cell = NULL;
        int last_found = 0;
        for (Py_ssize_t i = 0; i < n && !empty; i++) {
            if (items[i].at < 0)
                continue;
            PyObject *cell = PyTuple_GET_ITEM(PyList_GET_ITEM(moves, i), 0);
            if (last_cell == NULL || (cell != last_cell && PyObject_RichCompareBool(cell, last_cell, Py_EQ) != 1)) {
                last_found = PySequence_Contains(near, cell);
                if (last_found < 0) {
                    PyMem_Free(items);
                    return NULL;
                }
                last_cell = cell;
            }
            if (last_found)
                items[nearby++] = items[i]; /* nearby <= i: items from i on are not yet read */
        }
        /* items[0:nearby] in order, sorted stably with the room after top as scratch (the buffer
           holds 2n: nearby <= n - best). */
        rank_sort(items, top + best, nearby);
        extra = nearby < best ? nearby : best;
        memmove(items + best, items, (size_t)extra * sizeof(Ranked));
        memcpy(items, top, (size_t)best * sizeof(Ranked));
        keep = best;
    } else {
        rank_sort(items, items + n, n);
    }
    PyObject *out = PyList_New(keep + extra);
    if (out == NULL) {
        PyMem_Free(items);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < keep + extra; i++) {
        PyObject *pair = Py_BuildValue("(dO)", items[i].value, PyList_GET_ITEM(moves, items[i].at));
        if (pair == NULL) {
            Py_DECREF(out);
            PyMem_Free(items);
            return NULL;
        }
        PyList_SET_ITEM(out, i, pair);
    }
    PyMem_Free(items);
    return out;
}

static PyObject *
Area_flag_figures(Area *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (int32_t t = 0; t < self->ntiles; t++) {
        int flag = self->tiles[t].flag;
        if (flag == -1)
            continue;
        if (flag < 0) {
            PyObject *tile = PyList_GET_ITEM(self->placed, t);
            PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(tile, 3));
            Py_DECREF(out);
            return NULL;
        }
        int32_t root = find(self, t * NODE + flag);
        PyObject *pair = Py_BuildValue("(ii)", self->nodes[root].size, self->nodes[root].open);
        if (pair == NULL || PyList_Append(out, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(pair);
    }
    return out;
}

/* tile_figures(): a flat array('i') of 17 integers a tile (see area.py). */
static PyObject *ArrayType;

static PyObject *
Area_tile_figures(Area *self, PyObject *Py_UNUSED(ignored))
{
    Py_ssize_t n = (Py_ssize_t)self->ntiles * (1 + 2 * NODE);
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    if (bytes == NULL)
        return NULL;
    int32_t *out = (int32_t *)PyBytes_AS_STRING(bytes);
    for (int32_t t = 0; t < self->ntiles; t++) {
        int32_t cell = self->tiles[t].cell;
        int32_t open = 0;
        for (int d = 0; d < 6; d++)
            if (!omap_has(&self->board, cell + DELTA[d]))
                open |= 1 << d;
        *out++ = open;
        unsigned has = FACES[self->tiles[t].face]->has_area[self->tiles[t].rot];
        for (int index = 0; index < NODE; index++) {
            if (has & (1u << index)) {
                int32_t root = find(self, t * NODE + index);
                *out++ = self->nodes[root].size;
                *out++ = self->nodes[root].open;
            }
            else {
                *out++ = -1;
                *out++ = -1;
            }
        }
    }
    PyObject *result = PyObject_CallFunction(ArrayType, "sO", "i", bytes);
    Py_DECREF(bytes);
    return result;
}

/* move_array(moves): a list of (cell, rotation) pairs, as legal_moves gives them, as one
   flat array('i'): cell, rotation, cell, rotation, ... (see area.py). */
static PyObject *
Area_move_array(Area *self, PyObject *moves)
{
    if (!PyList_Check(moves)) {
        PyErr_SetString(PyExc_TypeError, "move_array expects a list of (cell, rotation) pairs");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(moves);
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, 2 * n * (Py_ssize_t)sizeof(int32_t));
    if (bytes == NULL)
        return NULL;
    int32_t *out = (int32_t *)PyBytes_AS_STRING(bytes);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *move = PyList_GET_ITEM(moves, i);
        if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 2) {
            PyErr_SetString(PyExc_TypeError, "move_array expects a list of (cell, rotation) pairs");
            Py_DECREF(bytes);
            return NULL;
        }
        for (int j = 0; j < 2; j++) {
            long value = PyLong_AsLong(PyTuple_GET_ITEM(move, j));
            if (value == -1 && PyErr_Occurred()) {
                Py_DECREF(bytes);
                return NULL;
            }
            if (value < INT32_MIN || value > INT32_MAX) {
                PyErr_SetString(PyExc_OverflowError, "a move's cell or rotation does not fit an int");
                Py_DECREF(bytes);
                return NULL;
            }
            *out++ = (int32_t)value;
        }
    }
    PyObject *result = PyObject_CallFunction(ArrayType, "sO", "i", bytes);
    Py_DECREF(bytes);
    return result;
}

static PyObject *
Area_get_active(Area *self, void *closure)
{
    return PyLong_FromLong(self->active);
}

static PyObject *
Area_get_longest(Area *self, void *closure)
{
    return PyLong_FromLong(self->longest[(intptr_t)closure]);
}

static PyObject *
Area_get_pairs(Area *self, void *closure)
{
    return PyLong_FromLong(self->pairs[(intptr_t)closure]);
}

static PyObject *
Area_sizeof(Area *self, PyObject *Py_UNUSED(ignored))
{
    size_t size = Py_TYPE(self)->tp_basicsize;
    size += (size_t)self->captiles * (sizeof(TileRec) + NODE * sizeof(NodeRec));
    size += (size_t)self->captasks * sizeof(TaskRec) + (size_t)self->capattach * sizeof(Attach);
    size += (size_t)self->capjournal * sizeof(JEntry) + (size_t)self->captjournal * sizeof(TJEntry);
    const OMap *maps[3] = {&self->board, &self->frontier, &self->plain};
    for (int i = 0; i < 3; i++)
        size += (size_t)maps[i]->cap * (sizeof(OEntry) + 2 * sizeof(int32_t));
    return PyLong_FromSize_t(size);
}

/* A copy of an array of n items with room for cap (NULL for an empty one), or -1. */
static int
copy_array(void **to, const void *from, int32_t n, int32_t cap, size_t item)
{
    *to = NULL;
    if (cap <= 0)
        return 0;
    *to = PyMem_Malloc((size_t)cap * item);
    if (*to == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (n > 0)
        memcpy(*to, from, (size_t)n * item);
    return 0;
}

static int
omap_copy(OMap *to, const OMap *from)
{
    if (copy_array((void **)&to->entries, from->entries, from->n, from->cap, sizeof(OEntry)) < 0 ||
        copy_array((void **)&to->index, from->index, 2 * from->cap, 2 * from->cap, sizeof(int32_t)) < 0)
        return -1;
    to->mask = from->mask;
    to->n = from->n;
    to->cap = from->cap;
    to->alive = from->alive;
    return 0;
}

/* PlayArea.copy: a new area equal to this one in every respect, its journal too (it pops back
   as far), that shares nothing that changes with it: new Task objects, and new placed tiles
   for those that carry one (the others are immutable and shared). */
static PyObject *
Area_copy(Area *self, PyObject *Py_UNUSED(ignored))
{
    PyTypeObject *type = Py_TYPE(self);
    Area *copy = (Area *)type->tp_alloc(type, 0); /* zeroed: an area of nothing */
    if (copy == NULL)
        return NULL;
    if (copy_array((void **)&copy->tiles, self->tiles, self->ntiles, self->captiles, sizeof(TileRec)) < 0 ||
        copy_array((void **)&copy->nodes, self->nodes, self->ntiles * NODE, self->captiles * NODE,
                   sizeof(NodeRec)) < 0)
        goto fail;
    copy->captiles = self->captiles;
    copy->ntiles = self->ntiles;
    if (omap_copy(&copy->board, &self->board) < 0 || omap_copy(&copy->frontier, &self->frontier) < 0 ||
        omap_copy(&copy->plain, &self->plain) < 0)
        goto fail;
    memcpy(copy->longest, self->longest, sizeof(self->longest));
    memcpy(copy->pairs, self->pairs, sizeof(self->pairs));
    copy->connections = self->connections;
    copy->active = self->active;
    if (copy_array((void **)&copy->attach, self->attach, self->nattach, self->capattach, sizeof(Attach)) < 0)
        goto fail;
    copy->nattach = self->nattach;
    copy->capattach = self->capattach;
    if (copy_array((void **)&copy->journal, self->journal, self->njournal, self->capjournal, sizeof(JEntry)) < 0)
        goto fail;
    copy->njournal = self->njournal;
    copy->capjournal = self->capjournal;
    if (copy_array((void **)&copy->tjournal, self->tjournal, self->ntjournal, self->captjournal,
                   sizeof(TJEntry)) < 0)
        goto fail;
    copy->ntjournal = self->ntjournal;
    copy->captjournal = self->captjournal;
    if (copy_array((void **)&copy->taskrecs, self->taskrecs, self->ntasks, self->captasks, sizeof(TaskRec)) < 0)
        goto fail;
    copy->captasks = self->captasks;
    for (int32_t i = 0; i < self->ntasks; i++)
        copy->taskrecs[i].obj = NULL;
    copy->ntasks = self->ntasks; /* the traversal and release skip the NULLs */
    copy->tasks = PyList_New(self->ntasks);
    copy->placed = PyList_New(self->ntiles);
    if (copy->tasks == NULL || copy->placed == NULL)
        goto fail;
    for (int32_t i = 0; i < self->ntasks; i++) {
        const TaskRec *tr = &self->taskrecs[i];
        PyObject *spec = PyObject_GetAttrString(tr->obj, "spec");
        PyObject *cell = spec == NULL ? NULL : PyLong_FromLong(self->tiles[tr->tile].cell);
        PyObject *obj = cell == NULL ? NULL : PyObject_CallFunctionObjArgs(TaskType, cell, spec, NULL);
        Py_XDECREF(spec);
        Py_XDECREF(cell);
        if (obj == NULL)
            goto fail;
        copy->taskrecs[i].obj = obj;
        PyList_SET_ITEM(copy->tasks, i, Py_NewRef(obj));
        if (tr->status != OPEN_ && PyObject_SetAttr(obj, str_status, STATUS[tr->status]) < 0)
            goto fail;
    }
    for (int32_t i = 0; i < self->ntiles; i++) {
        PyObject *tile = PyList_GET_ITEM(self->placed, i);
        int16_t task = self->tiles[i].task;
        if (task < 0) {
            PyList_SET_ITEM(copy->placed, i, Py_NewRef(tile));
            continue;
        }
        PyObject *placed = ((PyTypeObject *)PlacedTileType)->tp_alloc((PyTypeObject *)PlacedTileType, 5);
        if (placed == NULL)
            goto fail;
        for (int j = 0; j < 4; j++)
            PyTuple_SET_ITEM(placed, j, Py_NewRef(PyTuple_GET_ITEM(tile, j)));
        PyTuple_SET_ITEM(placed, 4, Py_NewRef(copy->taskrecs[task].obj));
        PyList_SET_ITEM(copy->placed, i, placed);
    }
    return (PyObject *)copy;
fail:
    Py_DECREF(copy);
    return NULL;
}

static PyMethodDef Area_methods[] = {
    {"copy", (PyCFunction)Area_copy, METH_NOARGS,
     "A new area equal to this one, its journal too, sharing nothing that changes with it."},
    {"push", (PyCFunction)(void (*)(void))Area_push, METH_FASTCALL | METH_KEYWORDS,
     "Place a tile without checking it."},
    {"push_changes", (PyCFunction)(void (*)(void))Area_push_changes, METH_FASTCALL | METH_KEYWORDS,
     "push(), then last_changes(): the tasks the tile completed or failed."},
    {"pop", (PyCFunction)Area_pop, METH_NOARGS, "Undo the last placement exactly and return it."},
    {"legal_moves", (PyCFunction)(void (*)(void))Area_legal_moves, METH_FASTCALL | METH_KEYWORDS,
     "Every legal (cell, rotation) for face."},
    {"has_legal_placement", (PyCFunction)(void (*)(void))Area_has_legal_placement,
     METH_FASTCALL | METH_KEYWORDS, NULL},
    {"figures", (PyCFunction)(void (*)(void))Area_figures, METH_FASTCALL, NULL},
    {"surroundings", (PyCFunction)Area_surroundings, METH_O, NULL},
    {"open_cells", (PyCFunction)(void (*)(void))Area_open_cells, METH_FASTCALL,
     "The empty cells the open edges of a group face, each with the direction back."},
    {"last_changes", (PyCFunction)Area_last_changes, METH_NOARGS, NULL},
    {"contact_values", (PyCFunction)(void (*)(void))Area_contact_values, METH_FASTCALL, NULL},
    {"tile_figures", (PyCFunction)Area_tile_figures, METH_NOARGS, NULL},
    {"move_array", (PyCFunction)Area_move_array, METH_O, NULL},
    {"flag_figures", (PyCFunction)Area_flag_figures, METH_NOARGS, NULL},
    {"_edges", (PyCFunction)Area_edges, METH_O, NULL},
    {"_in_frontier", (PyCFunction)Area_in_frontier, METH_O, NULL},
    {"_frontier_cells", (PyCFunction)Area_frontier_cells, METH_NOARGS, NULL},
    {"_root", (PyCFunction)(void (*)(void))Area_root, METH_FASTCALL, NULL},
    {"_root_figures", (PyCFunction)Area_root_figures, METH_O, NULL},
    {"_neighbour_count", (PyCFunction)Area_neighbour_count, METH_O, NULL},
    {"_area_after", (PyCFunction)(void (*)(void))Area_area_after, METH_FASTCALL, NULL},
    {"grown_to", (PyCFunction)(void (*)(void))Area_grown_to, METH_FASTCALL, NULL},
    {"__sizeof__", (PyCFunction)Area_sizeof, METH_NOARGS, NULL},
    {NULL},
};

static PyMemberDef Area_members[] = {
    {"placed", T_OBJECT_EX, offsetof(Area, placed), READONLY, NULL},
    {"tasks", T_OBJECT_EX, offsetof(Area, tasks), READONLY, NULL},
    {NULL},
};

static PyGetSetDef Area_getset[] = {
    {"active_count", (getter)Area_get_active, NULL, "How many tasks are open now.", NULL},
    {"longest_river", (getter)Area_get_longest, NULL, NULL, (void *)(intptr_t)RIVER},
    {"longest_track", (getter)Area_get_longest, NULL, NULL, (void *)(intptr_t)TRACK},
    {"lakes", (getter)Area_get_pairs, NULL, NULL, (void *)(intptr_t)LAKE},
    {"mountains", (getter)Area_get_pairs, NULL, NULL, (void *)(intptr_t)MOUNTAIN},
    {NULL},
};

static PyTypeObject AreaType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dorf.rules._accel.Area",
    .tp_basicsize = sizeof(Area),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The compiled core of dorf.rules.area.PlayArea.",
    .tp_new = Area_new,
    .tp_init = (initproc)Area_init,
    .tp_dealloc = (destructor)Area_dealloc,
    .tp_traverse = (traverseproc)Area_traverse,
    .tp_clear = (inquiry)Area_clear,
    .tp_methods = Area_methods,
    .tp_members = Area_members,
    .tp_getset = Area_getset,
};

/* ----------------------------------------------------------------- the module */

static PyObject *
accel_setup(PyObject *module, PyObject *args)
{
    PyObject *placed, *hex, *task, *open, *completed, *failed, *task_letter, *letters, *area_letters;
    if (!PyArg_ParseTuple(args, "OOOOOOOOO:setup", &placed, &hex, &task, &open, &completed, &failed,
                          &task_letter, &letters, &area_letters))
        return NULL;
    if (PyUnicode_CompareWithASCIIString(letters, LETTERS) != 0 ||
        PyUnicode_CompareWithASCIIString(area_letters, AREA_LETTERS) != 0) {
        PyErr_SetString(PyExc_ImportError, "dorf.rules._accel was built for other edge letters");
        return NULL;
    }
    Py_XSETREF(PlacedTileType, Py_NewRef(placed));
    Py_XSETREF(HexType, Py_NewRef(hex));
    Py_XSETREF(TaskType, Py_NewRef(task));
    Py_XSETREF(STATUS[OPEN_], Py_NewRef(open));
    Py_XSETREF(STATUS[COMPLETED_], Py_NewRef(completed));
    Py_XSETREF(STATUS[FAILED_], Py_NewRef(failed));
    Py_XSETREF(TaskLetter, Py_NewRef(task_letter));
    Py_RETURN_NONE;
}

/* A C interface for other extensions, in the capsule _accel._api: reading an area without
   making Python objects (the batched environments read their group figures and flags this way).
   Additive: a function is added at the end, with the next version. */
#define ACCEL_API_NAME "dorf.rules._accel._api"

typedef struct {
    int version;
    PyTypeObject *area_type;
    /* The size and open edges of the group through area ``index`` (F G V R T L P X) of placed tile
       number ``tile``; -1 where that tile shows no such area. */
    int (*node_figures)(PyObject *area, int32_t tile, int index, int32_t *size, int32_t *open);
    /* Version 2: the sum of the sizes of the closed groups the flags of the placed tiles stand in
       (what flag_figures lists, added up where no edge is open); -1 where a flag's letter has no
       area (then ask flag_figures). */
    int (*closed_flags)(PyObject *area, long *total);
    /* Version 3: legal_moves(face, task) without a list: the cells with a legal move and the bits
       of their legal rotations (bit r for rotation r) into *buf, which holds *cap entries and is
       grown with PyMem_Realloc when the area needs more (the caller frees it with PyMem_Free).
       Returns the number of cells, or -1 with an exception. */
    Py_ssize_t (*legal_cells)(PyObject *area, PyObject *face, PyObject *task, Found **buf, Py_ssize_t *cap);
} AccelAPIType;

static int
api_node_figures(PyObject *obj, int32_t tile, int index, int32_t *size, int32_t *open)
{
    const Area *self = (const Area *)obj;
    if (tile < 0 || tile >= self->ntiles || index < 0 || index >= NODE)
        return -1;
    if (!(FACES[self->tiles[tile].face]->has_area[self->tiles[tile].rot] & (1u << index)))
        return -1;
    int32_t root = find(self, tile * NODE + index);
    *size = self->nodes[root].size;
    *open = self->nodes[root].open;
    return 0;
}

static int
api_closed_flags(PyObject *obj, long *total)
{
    const Area *self = (const Area *)obj;
    long sum = 0;
    for (int32_t t = 0; t < self->ntiles; t++) {
        int flag = self->tiles[t].flag;
        if (flag == -1)
            continue;
        if (flag < 0)
            return -1;
        int32_t root = find(self, t * NODE + flag);
        if (self->nodes[root].open == 0)
            sum += self->nodes[root].size;
    }
    *total = sum;
    return 0;
}

static Py_ssize_t
api_legal_cells(PyObject *obj, PyObject *face, PyObject *task, Found **buf, Py_ssize_t *cap)
{
    Area *self = (Area *)obj;
    TaskInfo ti;
    int fi = face_of(face);
    if (fi < 0 || task_info(task, &ti) < 0)
        return -1;
    const Face *f = FACES[fi];
    Py_ssize_t room = moves_room(self, f);
    if (room > *cap) {
        Found *grown = PyMem_Realloc(*buf, (size_t)room * sizeof(Found));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *buf = grown;
        *cap = room;
    }
    return find_moves(self, f, &ti, *buf, 0, NULL);
}

static AccelAPIType AccelAPI = {3, &AreaType, api_node_figures, api_closed_flags, api_legal_cells};

static PyMethodDef accel_methods[] = {
    {"setup", accel_setup, METH_VARARGS, "Hand over the Python types the core creates."},
    {NULL},
};

static struct PyModuleDef accel_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "dorf.rules._accel",
    .m_doc = "The compiled core of dorf.rules.area (see docs/engine.md).",
    .m_size = -1,
    .m_methods = accel_methods,
};

PyMODINIT_FUNC
PyInit__accel(void)
{
    for (int c = 0; c < 128; c++) {
        AREA_OF[c] = -1;
        CODE_OF[c] = 5;
    }
    for (const char *p = LETTERS; *p; p++)
        VALID[(unsigned char)*p] = 1;
    for (int i = 0; AREA_LETTERS[i]; i++)
        AREA_OF[(unsigned char)AREA_LETTERS[i]] = (signed char)i;
    CODE_OF['R'] = 1;
    CODE_OF['T'] = 2;
    CODE_OF['L'] = 3;
    CODE_OF['P'] = 4;
    MUST['R'] = MUST['T'] = MUST['L'] = MUST['P'] = 1;
    PAIRED['L'] = PAIRED['P'] = 1;
    TERRITORY['F'] = TERRITORY['G'] = TERRITORY['V'] = 1;
    str_status = PyUnicode_InternFromString("status");
    str_connection = PyUnicode_InternFromString("connection");
    str_double = PyUnicode_InternFromString("double");
    str_flag = PyUnicode_InternFromString("flag");
    str_task = PyUnicode_InternFromString("task");
    FaceIndex = PyDict_New();
    if (str_status == NULL || str_connection == NULL || str_double == NULL || str_flag == NULL ||
        str_task == NULL || FaceIndex == NULL)
        return NULL;
    if (PyType_Ready(&AreaType) < 0)
        return NULL;
    PyObject *array_module = PyImport_ImportModule("array");
    if (array_module == NULL)
        return NULL;
    ArrayType = PyObject_GetAttrString(array_module, "array");
    Py_DECREF(array_module);
    if (ArrayType == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&accel_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&AreaType);
    if (PyModule_AddObject(m, "Area", (PyObject *)&AreaType) < 0) {
        Py_DECREF(&AreaType);
        Py_DECREF(m);
        return NULL;
    }
    PyObject *api = PyCapsule_New(&AccelAPI, ACCEL_API_NAME, NULL);
    if (api == NULL || PyModule_AddObject(m, "_api", api) < 0) {
        Py_XDECREF(api);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
