/* dorf.rl._vector: the batched environments' step in C (dorf.rl.vector).
 *
 * A Batch holds N solo games of the Board Game, or N Duels in self-play (below).  The deals are made in Python
 * (dorf.rl.vector: the engine's shuffle, the markers each task tile will get) and handed
 * over with Batch.deal; Batch.step then plays one action in every game without a line of
 * Python per game: it places the tile through the game's play area (the engine's own
 * PlayArea, compiled or pure, reached through its methods: push, legal_moves,
 * surroundings, tile_figures, tasks, flag_figures), reveals the next tile by the reveal rule
 * (rules notes 13 and 14; a tile that fits nowhere is set aside, rule 10), scores the pad,
 * and writes the action mask, the observation planes of dorf.rl.planes (each game's area
 * planes brought up to date with the new tile, the constant planes from their values) and
 * the reward and end flags into the numpy arrays it was given.  The rules stay in the
 * engine: the legality, the groups and the tasks are the play area's; this file keeps the
 * game's flow (which stack the next tile comes from) as dorf.games.seat.Seat.reveal does.
 *
 * A batch of Duels (dorf.rl.vector.SelfPlayVectorEnv) gives each game two play areas ("sides")
 * and one sequence of tiles: a tile is revealed for both (rule 24, as dorf.games.duel does) and
 * set aside in an area it fits nowhere; player 1 places it, then player 2, each step one
 * placement of the player to act.  Each area's planes are kept in an image of the batch's own
 * and copied into the observation at every step, the acting player's area first: a placement
 * player 2 has not matched yet is marked in player 1's image only after that copy (the other
 * player does not see it, as DuelState.view withholds it).  Only the span of each plane either
 * image was ever marked in is copied.
 * Standard library and CPython API only.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define SPAN 256
#define LETTER_COUNT 9
#define GROUPS 6
#define MARKER_KINDS 7
#define OPENING_TASK_TURNS 3
#define ACTIVE_TASKS 3

static const int DELTA[6] = {-SPAN, -SPAN + 1, 1, SPAN, SPAN - 1, -1};
static const char LETTERS[] = "FGVMRTLPX";
static const char FLAGS[] = "FGVX";
#define X_LETTER 8 /* the multicoloured flag edge's place in LETTERS */

/* A cell with legal moves and the bits of their rotations (the core's legal_cells). */
typedef struct {
    int32_t cell;
    uint32_t bits;
} Found;

/* The core's C interface (dorf.rules._accel._api), when the areas are compiled ones. */
typedef struct {
    int version;
    PyTypeObject *area_type;
    int (*node_figures)(PyObject *area, int32_t tile, int index, int32_t *size, int32_t *open);
    int (*closed_flags)(PyObject *area, long *total); /* version 2 */
    Py_ssize_t (*legal_cells)(PyObject *area, PyObject *face, PyObject *task, Found **buf,
                              Py_ssize_t *cap); /* version 3 */
} AccelAPIType;

static PyObject *s_push, *s_legal_moves, *s_surroundings, *s_tile_figures, *s_tasks,
    *s_flag_figures, *s_active_count, *s_mountains, *s_lakes, *s_longest_river, *s_longest_track, *s_cell, *s_spec, *s_status,
    *s_letters, *s_figures, *kw_push;

typedef struct {
    PyObject *task; /* strong */
    PyObject *spec; /* strong */
    PyObject *letter;  /* strong: the letter of a task of one, or NULL */
    PyObject *letters; /* strong: every letter the task looks at (none: connection) */
    int cell, type, value, spot, scores;
} OpenTask;

/* One play area of a game and the planes kept of it (in the output array, or for the Duel in
   the batch's own images, copied into the output each step). */
typedef struct {
    PyObject *area;
    int count, tasks_seen;
    int *src, *dst, *val; /* val: the figure last written there (the planes of N games do not
                             stay in cache: a figure is written again only when it changed) */
    int npairs;
    OpenTask *open;
    int nopen, capopen;
    long completed;
    long score;
    int *lo, *hi; /* the two-player games: per plane, the first and last place its marks were
                     written at */
    int *xcells, nx; /* Head to Head: the cells of its tiles with multicoloured flag edges */
} Side;

/* A seat's stacks and turns: the game's one in the Board Game and the Duel (both areas receive
   its tiles), each player's own in Head to Head. */
typedef struct {
    int *tasks;        /* tile ids, top last */
    PyObject **specs;  /* strong, per task position */
    float *task_fill;  /* per task position, the table values of that tile and task */
    int *marker_slot;  /* per task position, the marker kind it draws, or -1 */
    int ntasks;        /* (Head to Head's draft: the task tiles taken so far) */
    int *lands;
    int nlands;        /* (the draft: the landscape tiles taken, the two flag tiles counted) */
    int turns, revealed, over, spec_pos;
    int placed;        /* Head to Head: the tiles placed from it */
    int unseen[LETTER_COUNT];
} Flow;

typedef struct {
    Flow flow[2];      /* the second in Head to Head only */
    int over;
    int markers[MARKER_KINDS];
    Side side[2];      /* the Board Game uses the first only */
    int waits[2];      /* the Duel: whether each player is still to place the revealed tile */
    int acting;        /* the player to act now (the last to have acted once over) */
    /* Head to Head */
    int phase;             /* 0 the draft, 1 laying */
    unsigned char *pool;   /* per tile id, whether it lies open in the draft */
    int npool;
    int *owned[2], nowned[2]; /* the tiles each player took, in order */
    /* per player, their stacks' counts and unseen tiles as the other may know them while
       their latest placement is unseen (taken just before it) */
    int held_tasks[2], held_lands[2], held_unseen[2][LETTER_COUNT];
} Env;

typedef struct {
    PyObject_HEAD
    int n, tiles, table, actions, cells, wsize, stride, block, full_start, fpt, illegal_raise;
    int area_count, origin;
    Py_buffer bufs[15];
    int nbufs;
    float *grid, *values, *written;
    signed char *masks;
    double *rewards;
    unsigned char *terminated, *truncated, *illegal, *autoreset;
    long long *score, *turn, *outside;
    int *lookup, *wcells, *spot, *lcount;
    unsigned char *classes;
    int *letter_mask;
    float *land_fill;
    PyObject *faces, *flags, *open_status, *completed_status, *failed_status, *type_index, *scoring,
        *letter_of;
    int planes[8]; /* tile, frontier, edge0, open0, flag0, completed, failed, size */
    int type_plane[MARKER_KINDS];
    int group[GROUPS][3]; /* column, size plane, open plane */
    int slot_left_lands, slot_left_tasks, slot_turn, slot_markers, slot_unseen;
    int unseen0[LETTER_COUNT], markers0[MARKER_KINDS];
    Env *envs;
    const AccelAPIType *api; /* or NULL */
    PyObject *capsule;
    Found *found; /* legal_cells's buffer */
    Py_ssize_t found_cap;
    int *pending; /* the table slots of game pending_env to write (plan_table), npending of them */
    int npending, pending_env;
    /* The two-player games (seats 2): both players' areas, each seat seeing its own first */
    int seats, reward_kind, slot_opp_to_move;
    float *images;      /* per game and player, that area's planes (area_count x cells) */
    long long *to_play; /* the player to act, -1 once over */
    int row, picks;     /* a mask's length; the actions that are picks (Head to Head's tile ids) */
    /* Head to Head (h2h): the table slots of the other's stacks and unseen tiles and of the
       phase; the planes of the draft's ids; the flag tiles of each player; which tiles are task
       tiles; the points of a mountain or lake; the callable that shuffles the stacks */
    int h2h, slot_opp_tasks, slot_opp_lands, slot_opp_unseen, slot_draft, slot_laying;
    int id_planes[3]; /* pool, own, opp: planes of the grid */
    int id_slots[3];  /* and their slots in the table */
    int flag_tiles[2][2];
    unsigned char *is_task;
    int pair_points;
    PyObject *laying;
    PyObject *x_letter;
} Batch;

static void
side_clear(Side *s)
{
    Py_CLEAR(s->area);
    for (int k = 0; k < s->nopen; k++) {
        Py_CLEAR(s->open[k].task);
        Py_CLEAR(s->open[k].spec);
        Py_CLEAR(s->open[k].letter);
        Py_CLEAR(s->open[k].letters);
    }
    s->nopen = 0;
}

/* Let go of a game's task specs (those still on its stacks and those drawn: a drawn spec is
   kept to the game's end) and its areas. */
static void
env_clear(Env *e, int tiles)
{
    for (int p = 0; p < 2; p++) {
        Flow *f = &e->flow[p];
        for (int k = 0; f->specs != NULL && k < tiles; k++)
            Py_CLEAR(f->specs[k]);
        f->ntasks = 0;
        side_clear(&e->side[p]);
    }
}

static void
Batch_dealloc(Batch *self)
{
    if (self->envs != NULL) {
        for (int i = 0; i < self->n; i++) {
            Env *e = &self->envs[i];
            env_clear(e, self->tiles);
            PyMem_Free(e->pool);
            for (int p = 0; p < 2; p++) {
                PyMem_Free(e->flow[p].tasks);
                PyMem_Free(e->flow[p].specs);
                PyMem_Free(e->flow[p].task_fill);
                PyMem_Free(e->flow[p].marker_slot);
                PyMem_Free(e->flow[p].lands);
                PyMem_Free(e->owned[p]);
                PyMem_Free(e->side[p].xcells);
                PyMem_Free(e->side[p].src);
                PyMem_Free(e->side[p].dst);
                PyMem_Free(e->side[p].val);
                PyMem_Free(e->side[p].open);
                PyMem_Free(e->side[p].lo);
                PyMem_Free(e->side[p].hi);
            }
        }
        PyMem_Free(self->envs);
    }
    for (int b = 0; b < self->nbufs; b++)
        PyBuffer_Release(&self->bufs[b]);
    PyMem_Free(self->spot);
    PyMem_Free(self->classes);
    PyMem_Free(self->letter_mask);
    PyMem_Free(self->land_fill);
    PyMem_Free(self->found);
    PyMem_Free(self->pending);
    PyMem_Free(self->images);
    PyMem_Free(self->is_task);
    Py_XDECREF(self->laying);
    Py_XDECREF(self->x_letter);
    Py_XDECREF(self->faces);
    Py_XDECREF(self->flags);
    Py_XDECREF(self->open_status);
    Py_XDECREF(self->completed_status);
    Py_XDECREF(self->failed_status);
    Py_XDECREF(self->type_index);
    Py_XDECREF(self->scoring);
    Py_XDECREF(self->letter_of);
    Py_XDECREF(self->capsule);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static void *
take(Batch *self, PyObject *obj, Py_ssize_t bytes, int writable)
{
    Py_buffer *b = &self->bufs[self->nbufs];
    if (PyObject_GetBuffer(obj, b, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0)
        return NULL;
    self->nbufs++;
    if (b->len < bytes) {
        PyErr_Format(PyExc_ValueError, "a buffer of %zd bytes where %zd are needed", b->len, bytes);
        return NULL;
    }
    return b->buf;
}

static int
ints(PyObject *seq, int *out, int count)
{
    PyObject *fast = PySequence_Fast(seq, "a sequence of integers");
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != count) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%d integers expected", count);
        return -1;
    }
    for (int k = 0; k < count; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[k] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

/* Batch(n, arrays, window, tiles, layout, table, engine, capsule[, duel]) -- built by dorf.rl.vector
   only.  duel: (reward kind 0 score / 1 margin / 2 win, the table slot of opp:to-move, to_play
   int64 (n)) makes a batch of Duels in self-play: then rewards and score hold two values a game. */
static PyObject *
Batch_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    int n, full_start, illegal_raise;
    PyObject *arrays, *window, *tiles, *layout, *table, *engine, *capsule, *duel = Py_None;
    if (!PyArg_ParseTuple(args, "iiiOOOOOOO|O", &n, &full_start, &illegal_raise, &arrays, &window, &tiles,
                          &layout, &table, &engine, &capsule, &duel))
        return NULL;
    Batch *self = (Batch *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->seats = 1;
    self->slot_opp_to_move = -1;
    PyObject *to_play = NULL, *h2h = Py_None;
    if (duel != Py_None) {
        if (!PyArg_ParseTuple(duel, "iiO|O", &self->reward_kind, &self->slot_opp_to_move, &to_play, &h2h))
            goto fail;
        self->seats = 2;
    }
    if (h2h != Py_None) {
        /* (picks, (opp tasks, opp lands, opp unseen, draft, laying slots), (pool, own, opp planes),
           (pool, own, opp slots), ((mountain, lake) flag tiles per player), is_task bytes,
           pair points, laying) */
        PyObject *slots, *planes, *idslots, *flags, *is_task, *laying;
        if (!PyArg_ParseTuple(h2h, "iOOOOOiO", &self->picks, &slots, &planes, &idslots, &flags, &is_task,
                              &self->pair_points, &laying))
            goto fail;
        int sl[5];
        if (ints(slots, sl, 5) < 0 || ints(planes, self->id_planes, 3) < 0 || ints(idslots, self->id_slots, 3) < 0 ||
            ints(flags, &self->flag_tiles[0][0], 4) < 0)
            goto fail;
        self->slot_opp_tasks = sl[0];
        self->slot_opp_lands = sl[1];
        self->slot_opp_unseen = sl[2];
        self->slot_draft = sl[3];
        self->slot_laying = sl[4];
        Py_buffer tb;
        if (PyObject_GetBuffer(is_task, &tb, PyBUF_SIMPLE) < 0)
            goto fail;
        self->is_task = PyMem_Malloc(tb.len > 0 ? (size_t)tb.len : 1);
        if (self->is_task != NULL)
            memcpy(self->is_task, tb.buf, (size_t)tb.len);
        int length = (int)tb.len;
        PyBuffer_Release(&tb);
        if (self->is_task == NULL)
            goto nomem;
        if (length != self->picks) {
            PyErr_SetString(PyExc_ValueError, "is_task: one byte a tile");
            goto fail;
        }
        self->laying = Py_NewRef(laying);
        if ((self->x_letter = PyUnicode_FromString("X")) == NULL)
            goto fail;
        self->h2h = 1;
    }
    if (capsule != Py_None) {
        const AccelAPIType *api = PyCapsule_GetPointer(capsule, "dorf.rules._accel._api");
        if (api == NULL)
            goto fail;
        if (api->version >= 1) {
            self->api = api;
            self->capsule = Py_NewRef(capsule);
        }
    }
    self->n = n;
    self->full_start = full_start;
    self->illegal_raise = illegal_raise;
    /* window: (cells of the grid, actions, lookup int32, window cells int32, spots int32) */
    PyObject *lookup, *wcells, *spots;
    if (!PyArg_ParseTuple(window, "iiOOO", &self->cells, &self->actions, &lookup, &wcells, &spots))
        goto fail;
    self->wsize = self->actions / 6;
    self->row = self->picks + self->actions;
    /* layout: (planes in the grid array, the 8 area planes, the 7 task type planes, 6 groups x 3, fpt) */
    PyObject *area_planes, *type_planes, *groups;
    int grid_planes;
    if (!PyArg_ParseTuple(layout, "iiiOOOi", &grid_planes, &self->area_count, &self->origin, &area_planes,
                          &type_planes, &groups, &self->fpt))
        goto fail;
    if (ints(area_planes, self->planes, 8) < 0 || ints(type_planes, self->type_plane, MARKER_KINDS) < 0 ||
        ints(groups, &self->group[0][0], GROUPS * 3) < 0)
        goto fail;
    self->stride = grid_planes * self->cells;
    self->block = self->cells; /* the area's planes follow the window plane */
    /* table: (values, first slots: left landscapes, left tasks, turn, markers, unseen; unseen0, markers0) */
    PyObject *unseen0, *markers0;
    if (!PyArg_ParseTuple(table, "iiiiiiOO", &self->table, &self->slot_left_lands, &self->slot_left_tasks,
                          &self->slot_turn, &self->slot_markers, &self->slot_unseen, &unseen0, &markers0))
        goto fail;
    if (ints(unseen0, self->unseen0, LETTER_COUNT) < 0 || ints(markers0, self->markers0, MARKER_KINDS) < 0)
        goto fail;
    /* tiles: (count, faces, flags, classes bytes, letter masks int32, landscape fills float32) */
    PyObject *classes, *letter_mask, *land_fill, *faces, *flags;
    if (!PyArg_ParseTuple(tiles, "iO!O!OOO", &self->tiles, &PyTuple_Type, &faces, &PyTuple_Type, &flags,
                          &classes, &letter_mask, &land_fill))
        goto fail;
    self->faces = Py_NewRef(faces);
    self->flags = Py_NewRef(flags);
    /* engine: (OPEN, COMPLETED, FAILED, type index, scoring types, letter of a type) */
    PyObject *st_open, *st_completed, *st_failed, *type_index, *scoring, *letter_of;
    if (!PyArg_ParseTuple(engine, "OOOO!O!O!", &st_open, &st_completed, &st_failed, &PyDict_Type,
                          &type_index, &PySet_Type, &scoring, &PyDict_Type, &letter_of))
        goto fail;
    self->open_status = Py_NewRef(st_open);
    self->completed_status = Py_NewRef(st_completed);
    self->failed_status = Py_NewRef(st_failed);
    self->type_index = Py_NewRef(type_index);
    self->scoring = Py_NewRef(scoring);
    self->letter_of = Py_NewRef(letter_of);
    /* arrays: grid, values, written, masks, rewards, terminated, truncated, illegal, autoreset,
       score, turn, outside */
    PyObject *a[12];
    if (!PyArg_ParseTuple(arrays, "OOOOOOOOOOOO", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7],
                          &a[8], &a[9], &a[10], &a[11]))
        goto fail;
    Py_ssize_t N = n;
    if (!(self->grid = take(self, a[0], N * self->stride * 4, 1)) ||
        !(self->values = take(self, a[1], N * self->table * 4, 1)) ||
        !(self->written = take(self, a[2], N * self->table * 4, 1)) ||
        !(self->masks = take(self, a[3], N * self->row, 1)) ||
        !(self->rewards = take(self, a[4], N * 8 * self->seats, 1)) ||
        !(self->terminated = take(self, a[5], N, 1)) || !(self->truncated = take(self, a[6], N, 1)) ||
        !(self->illegal = take(self, a[7], N, 1)) || !(self->autoreset = take(self, a[8], N, 1)) ||
        !(self->score = take(self, a[9], N * 8 * self->seats, 1)) ||
        !(self->turn = take(self, a[10], N * 8, 1)) || !(self->outside = take(self, a[11], N * 8, 1)) ||
        (to_play != NULL && !(self->to_play = take(self, to_play, N * 8, 1))))
        goto fail;
    self->pending_env = -1;
    if (!(self->pending = PyMem_Malloc((size_t)(self->table > 0 ? self->table : 1) * sizeof(int)))) {
        PyErr_NoMemory();
        goto fail;
    }
    /* 15 buffers at most: the 12 arrays, to_play and two of the window's (the third below) */
    if (!(self->lookup = take(self, lookup, (Py_ssize_t)SPAN * SPAN * 4, 0)) ||
        !(self->wcells = take(self, wcells, (Py_ssize_t)self->wsize * 4, 0)))
        goto fail;
    /* the rest are copied: the spots, classes, letter masks and landscape fills */
    {
        Py_buffer b;
        if (PyObject_GetBuffer(spots, &b, PyBUF_SIMPLE) < 0)
            goto fail;
        self->spot = PyMem_Malloc((size_t)self->wsize * 4);
        int ok = self->spot != NULL && b.len >= (Py_ssize_t)self->wsize * 4;
        if (ok)
            memcpy(self->spot, b.buf, (size_t)self->wsize * 4);
        PyBuffer_Release(&b);
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "bad spots");
            goto fail;
        }
        if (PyObject_GetBuffer(classes, &b, PyBUF_SIMPLE) < 0)
            goto fail;
        self->classes = PyMem_Malloc((size_t)self->tiles * 6);
        ok = self->classes != NULL && b.len >= (Py_ssize_t)self->tiles * 6;
        if (ok)
            memcpy(self->classes, b.buf, (size_t)self->tiles * 6);
        PyBuffer_Release(&b);
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "bad classes");
            goto fail;
        }
        if (PyObject_GetBuffer(letter_mask, &b, PyBUF_SIMPLE) < 0)
            goto fail;
        self->letter_mask = PyMem_Malloc((size_t)self->tiles * 4);
        ok = self->letter_mask != NULL && b.len >= (Py_ssize_t)self->tiles * 4;
        if (ok)
            memcpy(self->letter_mask, b.buf, (size_t)self->tiles * 4);
        PyBuffer_Release(&b);
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "bad letter masks");
            goto fail;
        }
        if (PyObject_GetBuffer(land_fill, &b, PyBUF_SIMPLE) < 0)
            goto fail;
        self->land_fill = PyMem_Malloc((size_t)self->tiles * self->table * 4);
        ok = self->land_fill != NULL && b.len >= (Py_ssize_t)self->tiles * self->table * 4;
        if (ok)
            memcpy(self->land_fill, b.buf, (size_t)self->tiles * self->table * 4);
        PyBuffer_Release(&b);
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "bad landscape fills");
            goto fail;
        }
    }
    if (self->tiles < 1 || self->table < 1 || self->cells < 1 || self->wsize < 1) {
        PyErr_SetString(PyExc_ValueError, "empty batch layout");
        goto fail;
    }
    if (PyTuple_GET_SIZE(self->faces) != self->tiles || PyTuple_GET_SIZE(self->flags) != self->tiles) {
        PyErr_SetString(PyExc_ValueError, "faces and flags: one per tile");
        goto fail;
    }
    if (self->seats == 2) {
        self->images = PyMem_Calloc((size_t)n * 2 * self->area_count * self->cells, sizeof(float));
        if (self->images == NULL)
            goto nomem;
    }
    self->envs = PyMem_Calloc((size_t)n, sizeof(Env));
    if (self->envs == NULL)
        goto nomem;
    for (int i = 0; i < n; i++) {
        Env *e = &self->envs[i];
        for (int p = 0; p < 1 + self->h2h; p++) {
            Flow *f = &e->flow[p];
            f->tasks = PyMem_Malloc((size_t)self->tiles * sizeof(int));
            f->specs = PyMem_Calloc((size_t)self->tiles, sizeof(PyObject *));
            f->task_fill = PyMem_Malloc((size_t)self->tiles * self->table * sizeof(float));
            f->marker_slot = PyMem_Malloc((size_t)self->tiles * sizeof(int));
            f->lands = PyMem_Malloc((size_t)self->tiles * sizeof(int));
            if (!f->tasks || !f->specs || !f->task_fill || !f->marker_slot || !f->lands)
                goto nomem;
            if (self->h2h) {
                e->owned[p] = PyMem_Malloc((size_t)self->tiles * sizeof(int));
                e->side[p].xcells = PyMem_Malloc((size_t)self->tiles * sizeof(int));
                if (!e->owned[p] || !e->side[p].xcells)
                    goto nomem;
            }
        }
        if (self->h2h && !(e->pool = PyMem_Calloc((size_t)self->tiles, 1)))
            goto nomem;
        for (int p = 0; p < self->seats; p++) {
            Side *s = &e->side[p];
            s->src = PyMem_Malloc(((size_t)self->wsize * 2 * GROUPS + 2) * sizeof(int));
            s->dst = PyMem_Malloc(((size_t)self->wsize * 2 * GROUPS + 2) * sizeof(int));
            s->val = PyMem_Malloc(((size_t)self->wsize * 2 * GROUPS + 2) * sizeof(int));
            if (!s->src || !s->dst || !s->val)
                goto nomem;
            if (self->seats == 2) {
                s->lo = PyMem_Malloc((size_t)self->area_count * sizeof(int));
                s->hi = PyMem_Malloc((size_t)self->area_count * sizeof(int));
                if (!s->lo || !s->hi)
                    goto nomem;
            }
        }
        e->flow[0].revealed = -1;
        e->over = 1;
    }
    return (PyObject *)self;
nomem:
    PyErr_NoMemory();
fail:
    Py_DECREF(self);
    return NULL;
}

static inline long
int_attr(PyObject *obj, PyObject *name, int *ok)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) {
        *ok = 0;
        return 0;
    }
    long out = PyLong_AsLong(v);
    Py_DECREF(v);
    if (out == -1 && PyErr_Occurred())
        *ok = 0;
    return out;
}

/* Game i's mask: a move (cell, rot) of its revealed tile; returns whether it lies inside. */
static inline int
mark_move(Batch *self, signed char *row, const unsigned char *cls, int plain, long cell, long rot)
{
    int index = (cell >= 0 && cell < SPAN * SPAN) ? self->lookup[cell] : -1;
    if (index < 0)
        return 0;
    if (cls == NULL || rot < 0 || rot > 5)
        return 1;
    if (plain)
        row[6 * index + rot] = 1;
    else
        for (int j = 0; j < 6; j++)
            if (cls[j] == rot)
                row[6 * index + j] = 1;
    return 1;
}

/* The mask of game i for tile from its moves: the list of (cell, rotation) pairs the enumerator gives, or
   (moves NULL) the `nfound` cells of self->found; returns how many moves lie inside the window,
   or -1. */
static int
write_mask(Batch *self, int i, int tile, PyObject *moves, Py_ssize_t nfound)
{
    signed char *row = self->masks + (Py_ssize_t)i * self->row;
    memset(row, 0, (size_t)self->row);
    row += self->picks; /* Head to Head: the picks come first */
    if (moves != NULL && !PyList_Check(moves)) {
        PyErr_SetString(PyExc_TypeError, "legal_moves: a list of (cell, rotation) pairs expected");
        return -1;
    }
    int inside = 0, outside = 0;
    const unsigned char *cls = tile >= 0 ? self->classes + 6 * tile : NULL;
    int plain = 1; /* every rotation its own: one action a move */
    for (int j = 0; cls != NULL && j < 6; j++)
        plain &= cls[j] == j;
    if (moves == NULL) {
        for (Py_ssize_t p = 0; p < nfound; p++) {
            const Found *f = &self->found[p];
            for (int rot = 0; rot < 6; rot++)
                if (f->bits >> rot & 1) {
                    if (mark_move(self, row, cls, plain, f->cell, rot))
                        inside++;
                    else
                        outside++;
                }
        }
        self->outside[i] = outside;
        return inside;
    }
    Py_ssize_t pairs = PyList_GET_SIZE(moves);
    for (Py_ssize_t p = 0; p < pairs; p++) {
        PyObject *move = PyList_GET_ITEM(moves, p);
        if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 2) {
            PyErr_SetString(PyExc_TypeError, "legal_moves: a list of (cell, rotation) pairs expected");
            return -1;
        }
        long cell = PyLong_AsLong(PyTuple_GET_ITEM(move, 0));
        long rot = PyLong_AsLong(PyTuple_GET_ITEM(move, 1));
        if ((cell == -1 || rot == -1) && PyErr_Occurred())
            return -1;
        if (mark_move(self, row, cls, plain, cell, rot))
            inside++;
        else
            outside++;
    }
    self->outside[i] = outside;
    return inside;
}

/* The legal moves of game i's revealed tile (face, spec) in area s: how many there are (cells
   of the core's buffer, or moves of the enumerator's list), or -1 on an error; with inside
   given and moves found, game i's mask is written from them and *inside says how many lie
   inside the window. */
static Py_ssize_t
legal(Batch *self, int i, Side *s, int tile, PyObject *spec, int *inside)
{
    PyObject *face = PyTuple_GET_ITEM(self->faces, tile);
    if (self->api != NULL && self->api->version >= 3 && PyObject_TypeCheck(s->area, self->api->area_type)) {
        Py_ssize_t cells = self->api->legal_cells(s->area, face, spec, &self->found, &self->found_cap);
        if (cells > 0 && inside != NULL && (*inside = write_mask(self, i, tile, NULL, cells)) < 0)
            return -1;
        return cells;
    }
    PyObject *moves = PyObject_CallMethodObjArgs(s->area, s_legal_moves, face, spec, NULL);
    if (moves == NULL)
        return -1;
    Py_ssize_t count = PyObject_Length(moves);
    if (count > 0 && inside != NULL && (*inside = write_mask(self, i, tile, moves, 0)) < 0)
        count = -1;
    Py_DECREF(moves);
    return count;
}

/* Turn the top tile of flow f's stacks by the reveal rule (rules notes 13 and 14: a task tile in
   the first turns or while fewer than 3 tasks are active, else a landscape tile), the marker of
   a task tile drawn from `markers` (NULL: the tasks are printed); returns its task spec
   (borrowed: None for a landscape tile), or NULL when the tile due is not there. */
static PyObject *
draw(Batch *self, Flow *f, int *markers, long active)
{
    int number = f->turns + 1;
    PyObject *spec = Py_None;
    if (f->ntasks && (number <= OPENING_TASK_TURNS || active < ACTIVE_TASKS)) {
        int pos = --f->ntasks;
        f->revealed = f->tasks[pos];
        f->spec_pos = pos;
        spec = f->specs[pos];
        if (markers != NULL && f->marker_slot[pos] >= 0)
            markers[f->marker_slot[pos]]--;
    }
    else if (f->nlands) {
        f->revealed = f->lands[--f->nlands];
        f->spec_pos = -1;
    }
    else {
        f->revealed = -1;
        f->over = 1;
        return NULL;
    }
    f->turns++;
    int letters = self->letter_mask[f->revealed];
    for (int k = 0; k < LETTER_COUNT; k++)
        if (letters & (1 << k))
            f->unseen[k]--;
    return spec;
}

/* Reveal game i's next tile by the rules, setting aside tiles that fit nowhere; then its mask
   (in the Duel: the tile of both areas, set aside in one it fits nowhere; the mask of the first
   player to place it).  Returns the moves inside the window, or -1 on an error. */
static int
reveal(Batch *self, int i)
{
    Env *e = &self->envs[i];
    int ok = 1;
    long active = int_attr(e->side[0].area, s_active_count, &ok);
    if (self->seats == 2) {
        long other = int_attr(e->side[1].area, s_active_count, &ok);
        if (other < active)
            active = other;
    }
    if (!ok)
        return -1;
    Flow *f = &e->flow[0];
    while (1) {
        PyObject *spec = draw(self, f, e->markers, active);
        if (spec == NULL) {
            e->over = 1;
            e->waits[0] = e->waits[1] = 0;
            return write_mask(self, i, -1, NULL, 0);
        }
        int tile = f->revealed, inside = 0;
        Py_ssize_t second = 0;
        if (self->seats == 2 && (second = legal(self, i, &e->side[1], tile, spec, NULL)) < 0)
            return -1;
        Py_ssize_t first = legal(self, i, &e->side[0], tile, spec, &inside); /* the mask, if any */
        if (first < 0)
            return -1;
        e->waits[0] = first > 0;
        e->waits[1] = second > 0;
        if (first > 0) {
            e->acting = 0;
            return inside;
        }
        if (second > 0) {
            e->acting = 1;
            return legal(self, i, &e->side[1], tile, spec, &inside) < 0 ? -1 : inside;
        }
    }
}

/* Head to Head: reveal player p's next tile from their own stacks (the rule applied to their
   area alone), setting aside tiles that fit nowhere; with inside given, game i's mask from its
   moves.  Returns 1 (a tile to place), 0 (p's game is over) or -1 on an error. */
static int
reveal_seat(Batch *self, int i, int p, int *inside)
{
    Env *e = &self->envs[i];
    Flow *f = &e->flow[p];
    Side *s = &e->side[p];
    int ok = 1;
    long active = int_attr(s->area, s_active_count, &ok);
    if (!ok)
        return -1;
    while (1) {
        PyObject *spec = draw(self, f, NULL, active);
        if (spec == NULL)
            return 0;
        Py_ssize_t count = legal(self, i, s, f->revealed, spec, inside);
        if (count < 0)
            return -1;
        if (count > 0)
            return 1;
    }
}

/* Head to Head: the mask of game i's player p for their revealed tile; the moves inside. */
static int
seat_mask(Batch *self, int i, int p)
{
    Flow *f = &self->envs[i].flow[p];
    PyObject *spec = f->spec_pos >= 0 ? f->specs[f->spec_pos] : Py_None;
    int inside = 0;
    if (legal(self, i, &self->envs[i].side[p], f->revealed, spec, &inside) < 0)
        return -1;
    return inside;
}

/* One constant plane, 16 values a copy: a plain loop (what -O2 makes of one) stores one value at
   a time.  (Streaming stores, which skip reading the lines first, measured slower.) */
static inline void
fill_plane(float *plane, int cells, float v)
{
    float chunk[16];
    for (int k = 0; k < 16; k++)
        chunk[k] = v;
    int c = 0;
    for (; c + 16 <= cells; c += 16)
        memcpy(plane + c, chunk, sizeof chunk);
    for (; c < cells; c++)
        plane[c] = v;
}

static void plan_planes(Batch *self, int i);

/* The table values of game i; in the full layout, the constant planes whose value changed are
   listed in self->pending (their lines asked for ahead, written by write_pending, which must
   have written the planes listed before). */
static void
plan_table(Batch *self, int i)
{
    Env *e = &self->envs[i];
    int T = self->table;
    float *row = self->values + (Py_ssize_t)i * T;
    if (e->flow[0].revealed < 0)
        memset(row, 0, (size_t)T * sizeof(float));
    else if (e->flow[0].spec_pos >= 0)
        memcpy(row, e->flow[0].task_fill + (Py_ssize_t)e->flow[0].spec_pos * T, (size_t)T * sizeof(float));
    else
        memcpy(row, self->land_fill + (Py_ssize_t)e->flow[0].revealed * T, (size_t)T * sizeof(float));
    double n = (double)self->tiles;
    row[self->slot_left_lands] = (float)(e->flow[0].nlands / n);
    row[self->slot_left_tasks] = (float)(e->flow[0].ntasks / n);
    row[self->slot_turn] = (float)((e->flow[0].turns < self->tiles ? e->flow[0].turns : self->tiles) / n);
    for (int k = 0; k < MARKER_KINDS; k++)
        row[self->slot_markers + k] = (float)(e->markers[k] / n);
    for (int k = 0; k < LETTER_COUNT; k++)
        row[self->slot_unseen + k] = (float)(e->flow[0].unseen[k] / n);
    if (self->slot_opp_to_move >= 0)
        row[self->slot_opp_to_move] = (float)(!e->over && e->waits[1 - e->acting]);
    plan_planes(self, i);
}

/* The full layout: list the constant planes of game i whose value in its table row changed. */
static void
plan_planes(Batch *self, int i)
{
    int T = self->table;
    const float *row = self->values + (Py_ssize_t)i * T;
    if (self->full_start < 0)
        return;
    float *written = self->written + (Py_ssize_t)i * T;
    float *planes = self->grid + (Py_ssize_t)i * self->stride + (Py_ssize_t)self->full_start * self->cells;
    int np = 0;
    for (int s = 0; s < T; s++) {
        if (row[s] == written[s])
            continue; /* NaN, never written, differs from everything */
        self->pending[np++] = s;
#ifdef __GNUC__
        const char *plane = (const char *)(planes + (Py_ssize_t)s * self->cells);
        for (Py_ssize_t at = 0; at < (Py_ssize_t)self->cells * 4; at += 64)
            __builtin_prefetch(plane + at, 1, 3);
#endif
    }
    self->npending = np;
    self->pending_env = i;
}

/* Write the constant planes plan_table listed (after the next game's step, which gives their
   lines time to arrive: the planes of N games do not stay in cache). */
static void
write_pending(Batch *self)
{
    int i = self->pending_env;
    if (i < 0)
        return;
    int T = self->table;
    const float *row = self->values + (Py_ssize_t)i * T;
    float *written = self->written + (Py_ssize_t)i * T;
    float *planes = self->grid + (Py_ssize_t)i * self->stride + (Py_ssize_t)self->full_start * self->cells;
    for (int k = 0; k < self->npending; k++) {
        int s = self->pending[k];
        fill_plane(planes + (Py_ssize_t)s * self->cells, self->cells, row[s]);
        written[s] = row[s];
    }
    self->pending_env = -1;
    self->npending = 0;
}

/* Head to Head: the table values of game i for its acting player (the other's stacks and unseen
   tiles as they may be known), then plan_planes. */
static void
plan_h2h(Batch *self, int i)
{
    Env *e = &self->envs[i];
    int T = self->table, a = e->acting, o = 1 - a;
    float *row = self->values + (Py_ssize_t)i * T;
    const Flow *mine = &e->flow[a], *theirs = &e->flow[o];
    if (e->phase == 1 && !mine->over && mine->revealed >= 0)
        memcpy(row,
               mine->spec_pos >= 0 ? mine->task_fill + (Py_ssize_t)mine->spec_pos * T
                                   : self->land_fill + (Py_ssize_t)mine->revealed * T,
               (size_t)T * sizeof(float));
    else
        memset(row, 0, (size_t)T * sizeof(float));
    double n = (double)self->tiles;
    /* the other's latest placement is unseen while they have placed more (and the game goes on) */
    int held = e->phase == 1 && !mine->over && theirs->placed > mine->placed;
    row[self->slot_draft] = (float)(e->phase == 0);
    row[self->slot_laying] = (float)(e->phase == 1 && !e->over);
    row[self->slot_left_tasks] = (float)(mine->ntasks / n);
    row[self->slot_left_lands] = (float)(mine->nlands / n);
    row[self->slot_opp_tasks] = (float)((held ? e->held_tasks[o] : theirs->ntasks) / n);
    row[self->slot_opp_lands] = (float)((held ? e->held_lands[o] : theirs->nlands) / n);
    for (int k = 0; k < LETTER_COUNT; k++) {
        row[self->slot_unseen + k] = (float)(mine->unseen[k] / n);
        row[self->slot_opp_unseen + k] = (float)((held ? e->held_unseen[o][k] : theirs->unseen[k]) / n);
    }
    int other_moves = e->phase == 1 && !e->over && !theirs->over && (mine->over || theirs->placed <= mine->placed);
    row[self->slot_opp_to_move] = (float)other_moves;
    plan_planes(self, i);
}

/* Where side p of game i keeps its planes: the output array's area block in the Board Game,
   the batch's image of that area in the Duel. */
static inline float *
side_block(Batch *self, int i, int p)
{
    if (self->seats == 1)
        return self->grid + (Py_ssize_t)i * self->stride + self->block;
    return self->images + ((Py_ssize_t)i * 2 + p) * self->area_count * self->cells;
}

/* A mark of side e written at place `at` of its plane `plane` (kept track of in the Duel). */
static inline void
touch(Side *e, int plane, int at)
{
    if (e->lo == NULL)
        return;
    if (at < e->lo[plane])
        e->lo[plane] = at;
    if (at > e->hi[plane])
        e->hi[plane] = at;
}

/* An area's planes (blk) after its tile number e->count was placed at cell (face, rot, flag). */
static int
mark_tile(Batch *self, Side *e, float *blk, int cell, int tile, int rot)
{
    int C = self->cells;
    int frontier = self->planes[1] * C, tile_plane = self->planes[0] * C;
    int edge0 = self->planes[2], open0 = self->planes[3], flag0 = self->planes[4];
    PyObject *pycell = PyLong_FromLong(cell);
    if (pycell == NULL)
        return -1;
    PyObject *sur = PyObject_CallMethodOneArg(e->area, s_surroundings, pycell);
    Py_DECREF(pycell);
    if (sur == NULL)
        return -1;
    const char *around = PyUnicode_AsUTF8(sur);
    if (around == NULL || strlen(around) != 6) {
        Py_DECREF(sur);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "surroundings: six letters expected");
        return -1;
    }
    for (int d = 0; d < 6; d++) {
        int near = cell + DELTA[d];
        int j = (near >= 0 && near < SPAN * SPAN) ? self->lookup[near] : -1;
        if (j < 0)
            continue;
        if (around[d] == '.') {
            blk[frontier + self->spot[j]] = 1.0f;
            touch(e, self->planes[1], self->spot[j]);
        }
        else
            blk[(open0 + (d + 3) % 6) * C + self->spot[j]] = 0.0f;
    }
    int number = e->count++;
    int index = self->lookup[cell];
    if (index >= 0) {
        int here = self->spot[index];
        blk[frontier + here] = 0.0f;
        blk[tile_plane + here] = 1.0f;
        touch(e, self->planes[0], here);
        const char *face = PyUnicode_AsUTF8(PyTuple_GET_ITEM(self->faces, tile));
        if (face == NULL) {
            Py_DECREF(sur);
            return -1;
        }
        for (int d = 0; d < 6; d++) {
            const char *at = strchr(LETTERS, face[(d - rot + 6) % 6]);
            if (at != NULL) {
                blk[(edge0 + LETTER_COUNT * d + (int)(at - LETTERS)) * C + here] = 1.0f;
                touch(e, edge0 + LETTER_COUNT * d + (int)(at - LETTERS), here);
            }
            if (around[d] == '.') {
                blk[(open0 + d) * C + here] = 1.0f;
                touch(e, open0 + d, here);
            }
        }
        PyObject *flag = PyTuple_GET_ITEM(self->flags, tile);
        if (flag != Py_None) {
            const char *f = PyUnicode_AsUTF8(flag);
            const char *at = f ? strchr(FLAGS, f[0]) : NULL;
            if (at != NULL) {
                blk[(flag0 + (int)(at - FLAGS)) * C + here] = 1.0f;
                touch(e, flag0 + (int)(at - FLAGS), here);
            }
        }
        /* where its group figures go: read below from tile_figures */
        e->src[e->npairs] = -1 - number; /* a placeholder: this tile's pairs are found next */
        e->dst[e->npairs] = here;
    }
    Py_DECREF(sur);
    return index >= 0;
}

/* The size and open edges of the `letter` group through cell in an area (area.figures): 0, or
   -1 on an error. */
static int
group_figures(PyObject *area, int cell, PyObject *letter, long *size, long *open)
{
    PyObject *pycell = PyLong_FromLong(cell);
    if (pycell == NULL)
        return -1;
    PyObject *f = PyObject_CallMethodObjArgs(area, s_figures, pycell, letter, NULL);
    Py_DECREF(pycell);
    if (f == NULL)
        return -1;
    if (!PyTuple_Check(f) || PyTuple_GET_SIZE(f) != 2) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_TypeError, "figures: a (size, open) pair expected");
        return -1;
    }
    *size = PyLong_AsLong(PyTuple_GET_ITEM(f, 0));
    *open = PyLong_AsLong(PyTuple_GET_ITEM(f, 1));
    Py_DECREF(f);
    return PyErr_Occurred() ? -1 : 0;
}

/* The size of the `letter` group through cell in an area, or -1 on an error. */
static long
group_size(PyObject *area, int cell, PyObject *letter)
{
    long size, open;
    return group_figures(area, cell, letter, &size, &open) < 0 ? -1 : size;
}

/* How far an open task has come, divided by 10 (dorf.rl.planes._task_size): its group's size for
   a task of one letter; for a connection task the tiles around it; for a double task the larger
   of its two territories not above the value (else the larger). */
static int
open_task_size(Batch *self, Side *e, const OpenTask *o, double *size)
{
    if (o->letter != NULL) {
        long s = group_size(e->area, o->cell, o->letter);
        if (s < 0)
            return -1;
        *size = s / 10.0;
        return 0;
    }
    Py_ssize_t count = PyUnicode_GET_LENGTH(o->letters);
    if (count == 0) {
        PyObject *pycell = PyLong_FromLong(o->cell);
        if (pycell == NULL)
            return -1;
        PyObject *sur = PyObject_CallMethodOneArg(e->area, s_surroundings, pycell);
        Py_DECREF(pycell);
        if (sur == NULL)
            return -1;
        const char *around = PyUnicode_AsUTF8(sur);
        if (around == NULL) {
            Py_DECREF(sur);
            return -1;
        }
        int near = 0;
        for (const char *c = around; *c; c++)
            near += *c != '.';
        Py_DECREF(sur);
        *size = near / 10.0;
        return 0;
    }
    long below = -1, best = -1;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *letter = PyUnicode_Substring(o->letters, k, k + 1);
        if (letter == NULL)
            return -1;
        long s = group_size(e->area, o->cell, letter);
        Py_DECREF(letter);
        if (s < 0)
            return -1;
        if (s > best)
            best = s;
        if (s <= o->value && s > below)
            below = s;
    }
    *size = (below >= 0 ? below : best) / 10.0;
    return 0;
}

/* Group figures and tasks of an area (fresh: the newest tile is inside the window). */
static int
refresh(Batch *self, Side *e, float *blk, int fresh)
{
    int C = self->cells;
    const AccelAPIType *api = self->api;
    int direct = api != NULL && PyObject_TypeCheck(e->area, api->area_type);
    PyObject *raw = NULL;
    Py_buffer b;
    const int *fig = NULL;
    if (!direct) {
        raw = PyObject_CallMethodNoArgs(e->area, s_tile_figures);
        if (raw == NULL)
            return -1;
        if (PyObject_GetBuffer(raw, &b, PyBUF_SIMPLE) < 0) {
            Py_DECREF(raw);
            return -1;
        }
        fig = b.buf;
    }
    int32_t size, open;
    if (fresh) {
        int number = -1 - e->src[e->npairs], here = e->dst[e->npairs];
        int base = number * self->fpt;
        int n = e->npairs;
        for (int g = 0; g < GROUPS; g++) {
            int column = self->group[g][0];
            int has = direct ? api->node_figures(e->area, number, (column - 1) / 2, &size, &open) == 0
                             : fig[base + column] >= 0;
            if (has) {
                e->src[n] = base + column;
                e->dst[n] = self->group[g][1] * C + here;
                e->src[n + 1] = base + column + 1;
                e->dst[n + 1] = self->group[g][2] * C + here;
                e->val[n] = e->val[n + 1] = -1; /* no figure is -1: written below */
                touch(e, self->group[g][1], here);
                touch(e, self->group[g][2], here);
                n += 2;
            }
        }
        e->npairs = n;
    }
    if (direct) {
        for (int k = 0; k < e->npairs; k += 2) { /* a size, then its open edges */
            int tile = e->src[k] / self->fpt, column = e->src[k] % self->fpt;
            if (api->node_figures(e->area, tile, (column - 1) / 2, &size, &open) < 0) {
                PyErr_SetString(PyExc_RuntimeError, "a group figure of a tile that has none");
                return -1;
            }
            if (size != e->val[k]) {
                blk[e->dst[k]] = (float)(size / 10.0);
                e->val[k] = size;
            }
            if (open != e->val[k + 1]) {
                blk[e->dst[k + 1]] = (float)(open / 10.0);
                e->val[k + 1] = open;
            }
        }
    }
    else {
        for (int k = 0; k < e->npairs; k++)
            if (fig[e->src[k]] != e->val[k]) {
                blk[e->dst[k]] = (float)(fig[e->src[k]] / 10.0);
                e->val[k] = fig[e->src[k]];
            }
        PyBuffer_Release(&b);
        Py_DECREF(raw);
    }
    /* new tasks */
    PyObject *tasks = PyObject_GetAttr(e->area, s_tasks);
    if (tasks == NULL)
        return -1;
    Py_ssize_t ntasks = PyList_Check(tasks) ? PyList_GET_SIZE(tasks) : -1;
    if (ntasks < 0) {
        Py_DECREF(tasks);
        PyErr_SetString(PyExc_TypeError, "area.tasks: a list expected");
        return -1;
    }
    for (Py_ssize_t t = e->tasks_seen; t < ntasks; t++) {
        PyObject *task = PyList_GET_ITEM(tasks, t);
        int ok = 1;
        int cell = (int)int_attr(task, s_cell, &ok);
        if (!ok)
            goto error;
        PyObject *spec = PyObject_GetAttr(task, s_spec);
        if (spec == NULL)
            goto error;
        if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) < 2) {
            Py_DECREF(spec);
            PyErr_SetString(PyExc_TypeError, "a task spec expected");
            goto error;
        }
        PyObject *kind = PyTuple_GET_ITEM(spec, 0);
        long value = PyLong_AsLong(PyTuple_GET_ITEM(spec, 1));
        PyObject *type = PyDict_GetItemWithError(self->type_index, kind);
        if (type == NULL || (value == -1 && PyErr_Occurred())) {
            Py_DECREF(spec);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_KeyError, "unknown task type");
            goto error;
        }
        PyObject *letters = PyObject_GetAttr(spec, s_letters);
        if (letters == NULL || !PyUnicode_Check(letters)) {
            Py_DECREF(spec);
            Py_XDECREF(letters);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a task's letters: a str expected");
            goto error;
        }
        if (e->nopen == e->capopen) {
            int cap = e->capopen ? 2 * e->capopen : 16;
            OpenTask *grown = PyMem_Realloc(e->open, (size_t)cap * sizeof(OpenTask));
            if (grown == NULL) {
                Py_DECREF(spec);
                Py_DECREF(letters);
                PyErr_NoMemory();
                goto error;
            }
            e->open = grown;
            e->capopen = cap;
        }
        OpenTask *o = &e->open[e->nopen++];
        o->task = Py_NewRef(task);
        o->spec = spec;
        o->letters = letters;
        o->letter = Py_XNewRef(PyDict_GetItemWithError(self->letter_of, kind));
        o->cell = cell;
        o->type = (int)PyLong_AsLong(type);
        o->value = (int)value;
        o->scores = PySet_Contains(self->scoring, kind) == 1;
        int index = (cell >= 0 && cell < SPAN * SPAN) ? self->lookup[cell] : -1;
        o->spot = index >= 0 ? self->spot[index] : -1;
        if (o->spot >= 0) {
            blk[self->type_plane[o->type] * C + o->spot] = (float)(value / 10.0);
            touch(e, self->type_plane[o->type], o->spot);
            for (int q = 5; q <= 7; q++) /* completed, failed, size */
                touch(e, self->planes[q], o->spot);
        }
    }
    e->tasks_seen = (int)ntasks;
    Py_DECREF(tasks);
    /* open tasks: how far they have come, or done */
    int kept = 0, k = 0;
    for (; k < e->nopen; k++) {
        OpenTask o = e->open[k];
        PyObject *status = PyObject_GetAttr(o.task, s_status);
        if (status == NULL)
            goto stop;
        Py_DECREF(status); /* the statuses are held by the module that defines them */
        if (status == self->open_status) {
            if (o.spot >= 0) {
                double size;
                if (open_task_size(self, e, &o, &size) < 0)
                    goto stop;
                blk[self->planes[7] * C + o.spot] = (float)size;
            }
            e->open[kept++] = o;
            continue;
        }
        if (o.spot >= 0) {
            blk[self->planes[7] * C + o.spot] = 0.0f;
            blk[self->planes[status == self->completed_status ? 5 : 6] * C + o.spot] = 1.0f;
        }
        if (status == self->completed_status && o.scores)
            e->completed += o.value;
        Py_DECREF(o.task);
        Py_DECREF(o.spec);
        Py_XDECREF(o.letter);
        Py_DECREF(o.letters);
    }
    e->nopen = kept;
    return 0;
stop: /* an error at task k: the tasks from k on stay open, after those kept */
    memmove(&e->open[kept], &e->open[k], (size_t)(e->nopen - k) * sizeof(OpenTask));
    e->nopen = kept + (e->nopen - k);
    return -1;
error:
    Py_DECREF(tasks);
    return -1;
}

/* Head to Head's score pad of an area (score_head_to_head): its total, and in tb what decides
   between two equal totals (rule 21: mountains and lakes, the longest river, flag points, task
   points).  Returns the total, or -1 on an error. */
static long
h2h_score(Batch *self, Side *e, long tb[5])
{
    int ok = 1;
    long river = int_attr(e->area, s_longest_river, &ok);
    long pairs = int_attr(e->area, s_mountains, &ok) + int_attr(e->area, s_lakes, &ok);
    if (!ok)
        return -1;
    long flags = 0;
    for (int k = 0; k < e->nx; k++) { /* each multicoloured flag edge scores its closed territory */
        long size, open;
        if (group_figures(e->area, e->xcells[k], self->x_letter, &size, &open) < 0)
            return -1;
        if (open == 0)
            flags += size;
    }
    long total = e->completed + river + flags + self->pair_points * pairs;
    tb[0] = total;
    tb[1] = pairs;
    tb[2] = river;
    tb[3] = flags;
    tb[4] = e->completed;
    return total;
}

/* The score pad's total of game i (score_coop): tasks, flags, the longest track and river. */
static long
score_of(Batch *self, Side *e)
{
    int ok = 1;
    long total = e->completed + int_attr(e->area, s_longest_track, &ok);
    total += int_attr(e->area, s_longest_river, &ok);
    if (!ok)
        return -1;
    long closed;
    if (self->api != NULL && self->api->version >= 2 && PyObject_TypeCheck(e->area, self->api->area_type) &&
        self->api->closed_flags(e->area, &closed) == 0)
        return total + closed;
    PyObject *flags = PyObject_CallMethodNoArgs(e->area, s_flag_figures);
    if (flags == NULL)
        return -1;
    PyObject *fast = PySequence_Fast(flags, "flag figures");
    Py_DECREF(flags);
    if (fast == NULL)
        return -1;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fast); k++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(fast, k);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_TypeError, "flag_figures: (size, open) pairs expected");
            return -1;
        }
        long size = PyLong_AsLong(PyTuple_GET_ITEM(pair, 0));
        long open = PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
        if (open == 0)
            total += size;
    }
    Py_DECREF(fast);
    if (PyErr_Occurred())
        return -1;
    return total;
}

/* The Duel: game i's observation shows the images of the area of the player to act (its own)
   and of the other's (as the images are: a placement the other player has not seen yet is
   marked in its image only after this copy). */
static void
show(Batch *self, int i)
{
    Env *e = &self->envs[i];
    /* Each plane of both images is 0 outside the places either was marked at, and so is what
       this game's observation showed there before (since its deal): only those are copied. */
    Py_ssize_t C = self->cells, A = self->area_count;
    float *own = self->grid + (Py_ssize_t)i * self->stride + self->block, *opp = own + A * C;
    const float *mine = side_block(self, i, e->acting), *theirs = side_block(self, i, 1 - e->acting);
    const Side *a = &e->side[0], *b = &e->side[1];
    for (Py_ssize_t k = 0; k < A; k++) {
        int lo = a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k];
        int hi = a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k];
        if (hi < lo)
            continue;
        size_t bytes = (size_t)(hi - lo + 1) * sizeof(float);
        memcpy(own + k * C + lo, mine + k * C + lo, bytes);
        memcpy(opp + k * C + lo, theirs + k * C + lo, bytes);
    }
}

/* Fill flow f's stacks: task ids (int32, top last), their specs (a list), their table values
   (float32, one row a task), the marker kind each draws (int32; None: none) and the landscape
   ids (int32, top last).  Returns 0, or -1 with an error set (f's stacks then empty). */
static int
load_flow(Batch *self, Flow *f, PyObject *task_ids, PyObject *specs, PyObject *fills, PyObject *slots,
          PyObject *lands)
{
    for (int k = 0; k < self->tiles; k++)
        Py_CLEAR(f->specs[k]);
    f->ntasks = f->nlands = 0;
    if (!PyList_Check(specs)) {
        PyErr_SetString(PyExc_TypeError, "the task specs: a list expected");
        return -1;
    }
    Py_ssize_t nt = PyList_GET_SIZE(specs);
    if (nt > self->tiles) {
        PyErr_SetString(PyExc_ValueError, "more tasks than tiles");
        return -1;
    }
    Py_buffer b;
    if (PyObject_GetBuffer(task_ids, &b, PyBUF_SIMPLE) < 0)
        return -1;
    int ok = b.len == nt * 4;
    if (ok)
        memcpy(f->tasks, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    if (PyObject_GetBuffer(fills, &b, PyBUF_SIMPLE) < 0)
        return -1;
    ok = ok && b.len == nt * self->table * 4;
    if (ok)
        memcpy(f->task_fill, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    if (slots == Py_None)
        for (Py_ssize_t k = 0; k < nt; k++)
            f->marker_slot[k] = -1;
    else {
        if (PyObject_GetBuffer(slots, &b, PyBUF_SIMPLE) < 0)
            return -1;
        ok = ok && b.len == nt * 4;
        if (ok)
            memcpy(f->marker_slot, b.buf, (size_t)b.len);
        PyBuffer_Release(&b);
    }
    if (PyObject_GetBuffer(lands, &b, PyBUF_SIMPLE) < 0)
        return -1;
    ok = ok && b.len <= self->tiles * 4;
    int nl = (int)(b.len / 4);
    if (ok)
        memcpy(f->lands, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "a deal of the wrong size");
        return -1;
    }
    for (Py_ssize_t k = 0; k < nt; k++)
        f->specs[k] = Py_NewRef(PyList_GET_ITEM(specs, k));
    f->ntasks = (int)nt;
    f->nlands = nl;
    return 0;
}

/* Head to Head: the draft's id planes of game i, the acting player's own first (the planes are
   never among the constant planes write_pending writes: their slots stay 0). */
static void
write_ids(Batch *self, int i, int pool_too)
{
    Env *e = &self->envs[i];
    float *base = self->grid + (Py_ssize_t)i * self->stride;
    int C = self->cells;
    if (pool_too) {
        float *pool = base + (Py_ssize_t)self->id_planes[0] * C;
        memset(pool, 0, (size_t)C * sizeof(float));
        for (int t = 0; t < self->tiles; t++)
            if (e->pool[t])
                pool[t] = 1.0f;
    }
    for (int k = 0; k < 2; k++) {
        int p = k == 0 ? e->acting : 1 - e->acting;
        float *plane = base + (Py_ssize_t)self->id_planes[1 + k] * C;
        memset(plane, 0, (size_t)C * sizeof(float));
        for (int t = 0; t < e->nowned[p]; t++)
            plane[e->owned[p][t]] = 1.0f;
    }
}

/* Head to Head: game i's mask in the draft, the open tiles. */
static int
draft_mask(Batch *self, int i)
{
    Env *e = &self->envs[i];
    signed char *row = self->masks + (Py_ssize_t)i * self->row;
    memset(row, 0, (size_t)self->row);
    for (int t = 0; t < self->picks; t++)
        row[t] = (signed char)e->pool[t];
    return e->npool;
}

/* Head to Head: a tile of player p's (in their stacks, unseen) that no longer lies open. */
static void
count_tile(Batch *self, Env *e, int p, int tile)
{
    e->pool[tile] = 0;
    e->npool--;
    Flow *f = &e->flow[p];
    if (self->is_task[tile])
        f->ntasks++;
    else
        f->nlands++;
    int letters = self->letter_mask[tile];
    for (int k = 0; k < LETTER_COUNT; k++)
        if (letters & (1 << k))
            f->unseen[k]++;
}

/* Head to Head: a tile taken by player p in the draft. */
static void
take_tile(Batch *self, Env *e, int p, int tile)
{
    count_tile(self, e, p, tile);
    e->owned[p][e->nowned[p]++] = tile;
}

static void plan_h2h(Batch *self, int i);

/* deal(i, area, task_ids int32, specs list, task_fills float32, marker_slots int32, landscape_ids int32);
   area: a tuple of both players' areas in the two-player games.  Head to Head begins with the
   draft (its stacks, empty here, are made when the draft ends). */
static PyObject *
Batch_deal(Batch *self, PyObject *args)
{
    int i;
    PyObject *area, *task_ids, *specs, *fills, *slots, *lands;
    if (!PyArg_ParseTuple(args, "iOOO!OOO", &i, &area, &task_ids, &PyList_Type, &specs, &fills, &slots,
                          &lands))
        return NULL;
    if (i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "no such environment");
        return NULL;
    }
    if (self->seats == 2 && (!PyTuple_Check(area) || PyTuple_GET_SIZE(area) != 2)) {
        PyErr_SetString(PyExc_TypeError, "a two-player game is dealt a tuple of two areas");
        return NULL;
    }
    Env *e = &self->envs[i];
    env_clear(e, self->tiles);
    if (load_flow(self, &e->flow[0], task_ids, specs, fills, slots, lands) < 0)
        return NULL;
    for (int p = 0; p < self->seats; p++) {
        Side *s = &e->side[p];
        s->area = Py_NewRef(self->seats == 1 ? area : PyTuple_GET_ITEM(area, p));
        s->count = 0;
        s->tasks_seen = 0;
        s->npairs = 0;
        s->completed = 0;
        s->score = 0;
        s->nx = 0;
        float *blk = side_block(self, i, p);
        memset(blk, 0, (size_t)self->area_count * self->cells * sizeof(float));
        for (int k = 0; s->lo != NULL && k < self->area_count; k++) {
            s->lo[k] = self->cells;
            s->hi[k] = -1;
        }
        if (self->origin >= 0) {
            blk[self->planes[1] * self->cells + self->origin] = 1.0f;
            touch(s, self->planes[1], self->origin);
        }
        self->score[(Py_ssize_t)i * self->seats + p] = 0;
    }
    for (int p = 0; p < 2; p++) {
        Flow *f = &e->flow[p];
        f->turns = f->placed = f->over = 0;
        f->revealed = f->spec_pos = -1;
    }
    e->over = 0;
    e->acting = 0;
    e->waits[0] = e->waits[1] = 0;
    memcpy(e->flow[0].unseen, self->unseen0, sizeof e->flow[0].unseen);
    memcpy(e->markers, self->markers0, sizeof e->markers);
    float *written = self->written + (Py_ssize_t)i * self->table;
    for (int s = 0; s < self->table; s++)
        written[s] = Py_NAN;
    int inside;
    if (self->h2h) { /* the draft: every tile open but the flag tiles, each player's in their stacks */
        memset(e->pool, 1, (size_t)self->tiles);
        e->npool = self->tiles;
        e->phase = 0;
        for (int p = 0; p < 2; p++) {
            Flow *f = &e->flow[p];
            memset(f->unseen, 0, sizeof f->unseen);
            f->ntasks = f->nlands = 0; /* the draft's counts (the stacks are made when it ends) */
            e->nowned[p] = 0;
            for (int k = 0; k < 2; k++) /* a flag tile is the player's, not taken in the draft */
                count_tile(self, e, p, self->flag_tiles[p][k]);
        }
        for (int k = 0; k < 3; k++) { /* the id planes are written by write_ids only */
            written[self->id_slots[k]] = 0.0f;
            memset(self->grid + (Py_ssize_t)i * self->stride + (Py_ssize_t)self->id_planes[k] * self->cells, 0,
                   (size_t)self->cells * sizeof(float));
        }
        inside = draft_mask(self, i);
    }
    else
        inside = reveal(self, i);
    if (inside < 0)
        return NULL;
    if (self->seats == 2) { /* the observation's area blocks cleared of the game before, then shown */
        memset(self->grid + (Py_ssize_t)i * self->stride + self->block, 0,
               (size_t)2 * self->area_count * self->cells * sizeof(float));
        show(self, i);
    }
    write_pending(self);
    if (self->h2h) {
        plan_h2h(self, i);
        write_ids(self, i, 1);
    }
    else
        plan_table(self, i);
    write_pending(self);
    self->turn[i] = e->flow[0].turns;
    if (self->to_play != NULL)
        self->to_play[i] = e->over ? -1 : e->acting;
    Py_RETURN_NONE;
}

/* Game i's end flags after a step: over by the rules, or cut short with no move inside the
   window (inside: its next mask's moves there); either way dealt again at the next step. */
static inline void
end_flags(Batch *self, int i, int inside)
{
    int over = self->envs[i].over;
    self->terminated[i] = (unsigned char)over;
    self->truncated[i] = (unsigned char)(!over && inside == 0);
    self->autoreset[i] = self->terminated[i] | self->truncated[i];
}

/* The two-player games: game i's end flags, seat to act and both players' rewards after player p's
   decision, which gained `gain` points (inside: its next mask's moves inside the window; winner:
   the winner once over for the win reward, -1 for none or a shared victory). */
static void
end_two_player_step(Batch *self, int i, int p, int inside, long gain, int winner)
{
    end_flags(self, i, inside);
    self->to_play[i] = self->autoreset[i] ? -1 : self->envs[i].acting;
    double *reward = self->rewards + 2 * i;
    reward[p] = reward[1 - p] = 0.0;
    if (self->reward_kind == 0)
        reward[p] = (double)gain;
    else if (self->reward_kind == 1) {
        reward[p] = (double)gain;
        reward[1 - p] = (double)-gain;
    }
    else if (winner >= 0) {
        reward[winner] = 1.0;
        reward[1 - winner] = -1.0;
    }
}

/* Place tile at (cell, rot) with its task spec in an area (area.push); 0, or -1 on an error. */
static int
push(Batch *self, Side *side, int tile, int cell, int rot, PyObject *spec)
{
    PyObject *pycell = PyLong_FromLong(cell), *pyrot = PyLong_FromLong(rot);
    PyObject *r = NULL;
    if (pycell && pyrot) {
        PyObject *call[6] = {side->area, PyTuple_GET_ITEM(self->faces, tile), pycell, pyrot,
                             PyTuple_GET_ITEM(self->flags, tile), spec};
        r = PyObject_VectorcallMethod(s_push, call, 4 | PY_VECTORCALL_ARGUMENTS_OFFSET, kw_push);
    }
    Py_XDECREF(pycell);
    Py_XDECREF(pyrot);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Head to Head: the player to act next in laying (to_move()'s first), or -1 once both games are
   over: a player whose game goes on and who has not placed more tiles than the other (unless
   the other's game is over). */
static int
next_layer(const Env *e)
{
    const Flow *a = &e->flow[0], *b = &e->flow[1];
    if (!a->over && (b->over || a->placed <= b->placed))
        return 0;
    if (!b->over && (a->over || b->placed <= a->placed))
        return 1;
    return -1;
}

/* Head to Head: the draft is over; each player's tiles are shuffled into their stacks (by the
   batch's laying callable, as HeadToHeadState deals them) and each reveals a tile.  Returns
   the moves inside the window of the first to place, or -1 on an error. */
static int
begin_laying(Batch *self, int i)
{
    Env *e = &self->envs[i];
    PyObject *owned[2] = {NULL, NULL};
    for (int p = 0; p < 2; p++) {
        if ((owned[p] = PyTuple_New(e->nowned[p])) == NULL)
            goto fail;
        for (int k = 0; k < e->nowned[p]; k++) {
            PyObject *id = PyLong_FromLong(e->owned[p][k]);
            if (id == NULL)
                goto fail;
            PyTuple_SET_ITEM(owned[p], k, id);
        }
    }
    PyObject *deal = PyObject_CallFunction(self->laying, "iOO", i, owned[0], owned[1]);
    Py_CLEAR(owned[0]);
    Py_CLEAR(owned[1]);
    if (deal == NULL)
        return -1;
    for (int p = 0; p < 2; p++) {
        PyObject *mine = PyTuple_Check(deal) && PyTuple_GET_SIZE(deal) == 2 ? PyTuple_GET_ITEM(deal, p) : NULL;
        if (mine == NULL || !PyTuple_Check(mine) || PyTuple_GET_SIZE(mine) != 4) {
            Py_DECREF(deal);
            PyErr_SetString(PyExc_TypeError, "laying: two (task ids, specs, fills, landscape ids) expected");
            return -1;
        }
        if (load_flow(self, &e->flow[p], PyTuple_GET_ITEM(mine, 0), PyTuple_GET_ITEM(mine, 1),
                      PyTuple_GET_ITEM(mine, 2), Py_None, PyTuple_GET_ITEM(mine, 3)) < 0) {
            Py_DECREF(deal);
            return -1;
        }
    }
    Py_DECREF(deal);
    e->phase = 1;
    for (int p = 0; p < 2; p++)
        if (reveal_seat(self, i, p, NULL) < 0)
            return -1;
    int next = next_layer(e);
    if (next < 0) {
        e->over = 1;
        return write_mask(self, i, -1, NULL, 0);
    }
    e->acting = next;
    return seat_mask(self, i, next);
fail:
    Py_XDECREF(owned[0]);
    Py_XDECREF(owned[1]);
    return -1;
}

/* Head to Head: game i's action a (legal: checked) -- a pick in the draft, else a placement of
   the acting player's revealed tile; then the next player's mask, the planes, the rewards. */
static int
h2h_step(Batch *self, int i, int a)
{
    Env *e = &self->envs[i];
    int p = e->acting, inside, gain = 0;
    if (e->phase == 0) {
        take_tile(self, e, p, a);
        if (e->npool == 1) { /* the last tile goes to the second player */
            int last = 0;
            while (!e->pool[last])
                last++;
            take_tile(self, e, 1, last);
            inside = begin_laying(self, i);
        }
        else {
            e->acting = 1 - p;
            inside = draft_mask(self, i);
        }
        if (inside < 0)
            return -1;
        /* both areas are still empty: their blocks in the observation stay as they are */
    }
    else {
        Flow *f = &e->flow[p];
        int q = 1 - p, tile = f->revealed;
        int cell = self->wcells[(a - self->picks) / 6];
        int rot = self->classes[6 * tile + (a - self->picks) % 6];
        Side *side = &e->side[p];
        /* what the other may know of p's stacks until they have placed their tile of the round */
        e->held_tasks[p] = f->ntasks;
        e->held_lands[p] = f->nlands;
        memcpy(e->held_unseen[p], f->unseen, sizeof f->unseen);
        if (push(self, side, tile, cell, rot, f->spec_pos >= 0 ? f->specs[f->spec_pos] : Py_None) < 0)
            return -1;
        f->placed++;
        if (self->letter_mask[tile] & (1 << X_LETTER))
            side->xcells[side->nx++] = cell;
        int pending = !e->flow[q].over && f->placed > e->flow[q].placed;
        if (pending) { /* q places next, seeing p's area as it was before this tile */
            e->acting = q;
            show(self, i);
        }
        float *blk = side_block(self, i, p);
        int fresh = mark_tile(self, side, blk, cell, tile, rot);
        if (fresh < 0 || refresh(self, side, blk, fresh) < 0)
            return -1;
        long tb[5];
        long score = h2h_score(self, side, tb);
        if (score < 0)
            return -1;
        gain = (int)(score - side->score);
        side->score = score;
        self->score[2 * i + p] = score;
        /* p reveals their next tile at once; its mask is the one wanted if p places next */
        int mine = !pending && next_layer(e) == p; /* (p's game goes on until the reveal says) */
        int found = reveal_seat(self, i, p, mine ? &inside : NULL);
        if (found < 0)
            return -1;
        if (pending)
            inside = seat_mask(self, i, q);
        else {
            int next = next_layer(e);
            if (next < 0) {
                e->over = 1;
                inside = write_mask(self, i, -1, NULL, 0);
            }
            else {
                e->acting = next;
                if (!(mine && found == 1 && next == p))
                    inside = seat_mask(self, i, next);
            }
            show(self, i);
        }
        if (inside < 0)
            return -1;
    }
    write_pending(self);
    plan_h2h(self, i);
    write_ids(self, i, e->phase == 0 || e->flow[0].placed + e->flow[1].placed == 0);
    int winner = -1;
    if (self->reward_kind == 2 && e->over) { /* by total, then the tie-breakers of rule 21 */
        long tb[2][5];
        for (int k = 0; k < 2; k++)
            if (h2h_score(self, &e->side[k], tb[k]) < 0)
                return -1;
        for (int k = 0; k < 5 && winner < 0; k++)
            if (tb[0][k] != tb[1][k])
                winner = tb[0][k] > tb[1][k] ? 0 : 1;
    }
    end_two_player_step(self, i, p, inside, gain, winner);
    return 0;
}

/* step(actions int64) -- the games marked in autoreset were dealt again just before: they
   take no action this step (reward 0, not ended). */
static PyObject *
Batch_step(Batch *self, PyObject *arg)
{
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0)
        return NULL;
    if (b.len < (Py_ssize_t)self->n * 8) {
        PyBuffer_Release(&b);
        PyErr_SetString(PyExc_ValueError, "one int64 action per environment");
        return NULL;
    }
    const long long *actions = b.buf;
    for (int i = 0; i < self->n; i++) {
        Env *e = &self->envs[i];
        self->illegal[i] = 0;
        if (self->autoreset[i]) {
            self->autoreset[i] = 0;
            for (int p = 0; p < self->seats; p++)
                self->rewards[(Py_ssize_t)i * self->seats + p] = 0.0;
            self->terminated[i] = self->truncated[i] = 0;
            continue;
        }
        if (e->side[0].area == NULL || e->over) {
            write_pending(self);
            PyBuffer_Release(&b);
            PyErr_SetString(PyExc_RuntimeError, "call reset() first");
            return NULL;
        }
        long long a = actions[i];
        if (a < 0 || a >= self->row || !self->masks[(Py_ssize_t)i * self->row + a]) {
            if (self->illegal_raise) {
                write_pending(self);
                PyBuffer_Release(&b);
                PyErr_Format(PyExc_ValueError,
                             "action %lld of environment %d is not legal now (see infos['action_mask'])", a, i);
                return NULL;
            }
            self->illegal[i] = 1;
            for (int p = 0; p < self->seats; p++)
                self->rewards[(Py_ssize_t)i * self->seats + p] = 0.0;
            self->terminated[i] = 1;
            self->truncated[i] = 0;
            self->autoreset[i] = 1;
            continue;
        }
        if (self->h2h) {
            if (h2h_step(self, i, (int)a) < 0)
                goto error;
            continue;
        }
        int tile = e->flow[0].revealed;
        int cell = self->wcells[a / 6];
        int rot = self->classes[6 * tile + a % 6];
        int p = e->acting;
        Side *side = &e->side[p];
        PyObject *spec = e->flow[0].spec_pos >= 0 ? e->flow[0].specs[e->flow[0].spec_pos] : Py_None;
        if (push(self, side, tile, cell, rot, spec) < 0)
            goto error;
        int inside = 0, shown = 0;
        if (self->seats == 2) {
            e->waits[p] = 0;
            if (e->waits[1 - p]) { /* the other places the same tile next, not seeing this one */
                e->acting = 1 - p;
                if (legal(self, i, &e->side[1 - p], tile, spec, &inside) < 0)
                    goto error;
                show(self, i);
                shown = 1;
            }
        }
        float *blk = side_block(self, i, p);
        int fresh = mark_tile(self, side, blk, cell, tile, rot);
        if (fresh < 0 || refresh(self, side, blk, fresh) < 0)
            goto error;
        long score = score_of(self, side);
        if (score < 0)
            goto error;
        if (!shown) {
            inside = reveal(self, i);
            if (inside < 0)
                goto error;
            if (self->seats == 2)
                show(self, i);
        }
        write_pending(self);
        plan_table(self, i);
        long gain = score - side->score;
        side->score = score;
        self->turn[i] = e->flow[0].turns;
        if (self->seats == 1) {
            end_flags(self, i, inside);
            self->rewards[i] = (double)gain;
            self->score[i] = score;
            continue;
        }
        self->score[2 * i + p] = score;
        long s0 = e->side[0].score, s1 = e->side[1].score;
        end_two_player_step(self, i, p, inside, gain, e->over && s0 != s1 ? (s0 > s1 ? 0 : 1) : -1);
    }
    write_pending(self);
    PyBuffer_Release(&b);
    Py_RETURN_NONE;
error:
    write_pending(self);
    PyBuffer_Release(&b);
    return NULL;
}

static PyMethodDef Batch_methods[] = {
    {"deal", (PyCFunction)Batch_deal, METH_VARARGS,
     "deal(i, area, task_ids, specs, fills, slots, landscape_ids)"},
    {"step", (PyCFunction)Batch_step, METH_O, "step(actions): one action in every game"},
    {NULL, NULL, 0, NULL},
};

/* sample(masks int8 (n, actions) of 0 and 1, uniforms float64 (n), out int64 (n)): per row, the
   k-th marked action with k = floor(u * marked), or 0 where none is marked. */
static PyObject *
vector_sample(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "sample(masks, uniforms, out)");
        return NULL;
    }
    Py_buffer m, u, o;
    if (PyObject_GetBuffer(args[0], &m, PyBUF_SIMPLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &u, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&m);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &o, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&m);
        PyBuffer_Release(&u);
        return NULL;
    }
    Py_ssize_t n = o.len / 8;
    int ok = n > 0 && u.len >= n * 8 && m.len % n == 0;
    if (ok) {
        Py_ssize_t actions = m.len / n;
        const signed char *masks = m.buf;
        const double *uniforms = u.buf;
        long long *out = o.buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            const signed char *row = masks + i * actions;
            Py_ssize_t marked = 0, a = 0, words = actions / 8;
            /* masks hold 0 and 1: eight at a time, the bytes of a word summed by one multiplication */
            for (Py_ssize_t w = 0; w < words; w++) {
                uint64_t x;
                memcpy(&x, row + 8 * w, 8);
                marked += (Py_ssize_t)((x * 0x0101010101010101ULL) >> 56);
            }
            for (a = 8 * words; a < actions; a++)
                marked += row[a] != 0;
            Py_ssize_t k = (Py_ssize_t)(uniforms[i] * (double)marked);
            if (k >= marked)
                k = marked - 1;
            out[i] = 0;
            for (a = 0; marked > 0 && a < actions; a++) {
                if (a % 8 == 0 && a + 8 <= actions) {
                    uint64_t x;
                    memcpy(&x, row + a, 8);
                    Py_ssize_t here = (Py_ssize_t)((x * 0x0101010101010101ULL) >> 56);
                    if (here <= k) {
                        k -= here;
                        a += 7;
                        continue;
                    }
                }
                if (row[a] != 0 && k-- == 0) {
                    out[i] = a;
                    break;
                }
            }
        }
    }
    PyBuffer_Release(&m);
    PyBuffer_Release(&u);
    PyBuffer_Release(&o);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "sample: buffers of mismatched sizes");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef vector_methods[] = {
    {"sample", (PyCFunction)(void (*)(void))vector_sample, METH_FASTCALL,
     "sample(masks, uniforms, out): one marked action per row, uniformly."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dorf.rl._vector.Batch",
    .tp_basicsize = sizeof(Batch),
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "N solo games of the Board Game stepped together (built by dorf.rl.vector).",
    .tp_methods = Batch_methods,
    .tp_new = Batch_new,
};

static struct PyModuleDef vector_module = {
    PyModuleDef_HEAD_INIT, "dorf.rl._vector", "The batched environments' step (dorf.rl.vector).", -1,
    vector_methods,
};

#define INTERN(var, text)                                                                             \
    if ((var = PyUnicode_InternFromString(text)) == NULL)                                              \
        return NULL;

PyMODINIT_FUNC
PyInit__vector(void)
{
    INTERN(s_push, "push");
    INTERN(s_legal_moves, "legal_moves");
    INTERN(s_surroundings, "surroundings");
    INTERN(s_tile_figures, "tile_figures");
    INTERN(s_tasks, "tasks");
    INTERN(s_flag_figures, "flag_figures");
    INTERN(s_active_count, "active_count");
    INTERN(s_longest_river, "longest_river");
    INTERN(s_mountains, "mountains");
    INTERN(s_lakes, "lakes");
    INTERN(s_longest_track, "longest_track");
    INTERN(s_cell, "cell");
    INTERN(s_spec, "spec");
    INTERN(s_status, "status");
    INTERN(s_letters, "letters");
    INTERN(s_figures, "figures");
    if ((kw_push = Py_BuildValue("(ss)", "flag", "task")) == NULL)
        return NULL;
    if (PyType_Ready(&BatchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&vector_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Batch", (PyObject *)&BatchType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
