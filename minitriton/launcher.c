/* The launch fast path, compiled: what the JIT's binder in Python does for a key it has seen
 * (minitriton/jit.py, `make_binder`), without the Python interpreter in between.
 *
 *   fast(grid, constants, *values)
 *
 * reads each runtime argument's launch key as `specialize.launch_key` does (a torch tensor and an
 * int here in C, anything else through `launch_key` itself; a do_not_specialize argument as
 * `specialize.plain_key` does), makes the key a tuple of those keys and `constants`, looks it up,
 * packs the values for the entry's signature and calls cuLaunchKernel. It returns the entry's
 * kernel, or, on a miss, the key, for the binder to compile and `add`. tests/test_launcher.py holds
 * the keys read here equal to the Python functions'. A value that cannot be packed goes through the
 * entry's Python launch, which raises the clear error. The driver's entry point comes in as an
 * address, so a test can hand in a recording one. Built by launcher.py with the system C compiler.
 * Chapter: 09-ptx-driver-cache. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_ARGS 64

typedef int (*cu_launch_kernel)(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                unsigned by, unsigned bz, unsigned shared_bytes, void *stream,
                                void **params, void **extra);

/* One launch key's prepared launch. kinds: one struct code per kernel parameter ('P' a pointer,
 * '*' a value only the Python launch packs); positions: which runtime value each parameter takes;
 * guards: (globals, name, value) for each module-level value the kernel was compiled with. */
typedef struct {
    PyObject *kernel, *stream_of, *python_launch, *failure, *guards;
    void *function;
    unsigned block_x, shared_bytes;
    Py_ssize_t count;
    Py_ssize_t positions[MAX_ARGS];
    char kinds[MAX_ARGS];
    int python_only;
} Entry;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    cu_launch_kernel launch;
    PyObject *table, *tensor_type, *launch_key, *grid3;
    Py_ssize_t nargs;
    char plain[MAX_ARGS]; /* 1 for a do_not_specialize argument */
} FastPath;

static PyObject *s_data_ptr, *s_dtype, *s_get_device;

/* -------------------------------------------------------------------------- reading one argument */

/* The key of an int, as specialize.launch_key makes it; -1 (no error set) when it does not fit in 64 bits. */
static PyObject *int_key(PyObject *v, long long *out) {
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return NULL;
    }
    *out = x;
    return PyTuple_Pack(4, x == 1 ? Py_True : Py_False, (x & 15) == 0 ? Py_True : Py_False,
                        (x >= -2147483648LL && x < 2147483648LL) ? Py_True : Py_False, Py_True);
}

// --8<-- [start:read-arg]
/* Read argument i: its key and the value to launch with (new references); a tensor's address also
 * lands in *address. Returns -1 with an exception set on failure. */
static int read_arg(FastPath *self, Py_ssize_t i, PyObject *v, PyObject **key, PyObject **value,
                    uint64_t *address, int *has_address) {
    *has_address = 0;
    /* do_not_specialize: specialize.plain_key, the class or for an int whether it fits in 32 bits */
    if (self->plain[i]) {
        if (PyLong_CheckExact(v)) {
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (x == -1 && PyErr_Occurred())
                return -1;
            *key = (!overflow && x >= -2147483648LL && x < 2147483648LL) ? Py_True : Py_False;
        } else {
            *key = (PyObject *)Py_TYPE(v);
        }
        Py_INCREF(*key);
        Py_INCREF(v);
        *value = v;
        return 0;
    }
    if ((PyObject *)Py_TYPE(v) == self->tensor_type) {
        PyObject *pointer = PyObject_CallMethodNoArgs(v, s_data_ptr);
        if (pointer == NULL)
            return -1;
        uint64_t p = PyLong_AsUnsignedLongLong(pointer);
        PyObject *dtype = p == (uint64_t)-1 && PyErr_Occurred() ? NULL : PyObject_GetAttr(v, s_dtype);
        PyObject *device = dtype == NULL ? NULL : PyObject_CallMethodNoArgs(v, s_get_device);
        if (device == NULL) {
            Py_DECREF(pointer);
            Py_XDECREF(dtype);
            return -1;
        }
        *key = PyTuple_Pack(3, dtype, (p & 15) == 0 ? Py_True : Py_False, device);
        Py_DECREF(dtype);
        Py_DECREF(device);
        if (*key == NULL) {
            Py_DECREF(pointer);
            return -1;
        }
        *value = pointer;
        *address = p;
        *has_address = 1;
        return 0;
    }
    if (PyLong_CheckExact(v)) {
        long long x;
        *key = int_key(v, &x);
        if (*key != NULL) {
            Py_INCREF(v);
            *value = v;
            return 0;
        }
        if (PyErr_Occurred())
            return -1;
    }
    PyObject *pair = PyObject_CallOneArg(self->launch_key, v);
    if (pair == NULL)
        return -1;
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
        Py_DECREF(pair);
        PyErr_SetString(PyExc_TypeError, "launch_key must return (key, value)");
        return -1;
    }
    *key = PyTuple_GET_ITEM(pair, 0);
    *value = PyTuple_GET_ITEM(pair, 1);
    Py_INCREF(*key);
    Py_INCREF(*value);
    Py_DECREF(pair);
    return 0;
}

// --8<-- [end:read-arg]

/* The key of a call (a new tuple), with the values and addresses read on the way. */
static PyObject *read_key(FastPath *self, PyObject *constants, PyObject *const *args, Py_ssize_t n,
                          PyObject **values, uint64_t *addresses, int *has_address) {
    if (n != self->nargs) {
        PyErr_Format(PyExc_TypeError, "expected %zd runtime arguments, got %zd", self->nargs, n);
        return NULL;
    }
    PyObject *key = PyTuple_New(n + 1);
    if (key == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *k;
        if (read_arg(self, i, args[i], &k, &values[i], &addresses[i], &has_address[i]) < 0) {
            for (Py_ssize_t j = 0; j < i; j++)
                Py_DECREF(values[j]);
            Py_DECREF(key);
            return NULL;
        }
        PyTuple_SET_ITEM(key, i, k);
    }
    Py_INCREF(constants);
    PyTuple_SET_ITEM(key, n, constants);
    return key;
}

/* -------------------------------------------------------------------------- packing and launching */

typedef union {
    uint64_t u64;
    int64_t i64;
    uint32_t u32;
    int32_t i32;
    uint16_t u16;
    int16_t i16;
    uint8_t u8;
    int8_t i8;
    float f32;
    double f64;
} Slot;

/* Pack one value as `kind`; 0 when it cannot be (range, type), with no exception left set. */
static int pack(char kind, PyObject *v, uint64_t address, int has_address, Slot *slot) {
    if (kind == 'P' && has_address) {
        slot->u64 = address;
        return 1;
    }
    if (kind == '?') {
        int truth = PyObject_IsTrue(v);
        slot->u8 = (uint8_t)truth;
        goto done;
    }
    if (kind == 'f' || kind == 'd') {
        double d = PyFloat_AsDouble(v);
        if (kind == 'f') {
            slot->f32 = (float)d;
            if (isinf(slot->f32) && !isinf(d))
                return 0; /* struct refuses a float too large for fp32 */
        } else {
            slot->f64 = d;
        }
        goto done;
    }
    if (kind == 'P' || kind == 'Q' || kind == 'B' || kind == 'H' || kind == 'I') {
        unsigned long long x = PyLong_AsUnsignedLongLong(v);
        if (x == (unsigned long long)-1 && PyErr_Occurred())
            goto done;
        if ((kind == 'B' && x > 0xFF) || (kind == 'H' && x > 0xFFFF) || (kind == 'I' && x > 0xFFFFFFFFULL))
            return 0;
        slot->u64 = 0;
        if (kind == 'B') slot->u8 = (uint8_t)x;
        else if (kind == 'H') slot->u16 = (uint16_t)x;
        else if (kind == 'I') slot->u32 = (uint32_t)x;
        else slot->u64 = x;
        return 1;
    }
    if (kind == 'b' || kind == 'h' || kind == 'i' || kind == 'q') {
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred())
            goto done;
        long long bound = kind == 'b' ? 0x80LL : kind == 'h' ? 0x8000LL : kind == 'i' ? 0x80000000LL : 0;
        if (bound && (x < -bound || x >= bound))
            return 0;
        slot->u64 = 0;
        if (kind == 'b') slot->i8 = (int8_t)x;
        else if (kind == 'h') slot->i16 = (int16_t)x;
        else if (kind == 'i') slot->i32 = (int32_t)x;
        else slot->i64 = x;
        return 1;
    }
    return 0;
done:
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* The most programs CUDA launches along x, y and z: kernel.GRID_LIMITS. */
static const long long GRID_LIMITS[3] = {0x7FFFFFFFLL, 65535, 65535};

/* The grid as three unsigned ints: a tuple of 1 to 3 ints within CUDA's limits read directly,
 * anything else through `grid3` (which raises the clear error). */
static int read_grid(FastPath *self, PyObject *grid, unsigned dims[3]) {
    if (PyTuple_CheckExact(grid) && PyTuple_GET_SIZE(grid) >= 1 && PyTuple_GET_SIZE(grid) <= 3) {
        Py_ssize_t n = PyTuple_GET_SIZE(grid), i;
        for (i = 0; i < 3; i++) {
            dims[i] = 1;
            if (i >= n)
                continue;
            PyObject *g = PyTuple_GET_ITEM(grid, i);
            if (!PyLong_CheckExact(g))
                break;
            long long x = PyLong_AsLongLong(g);
            if (x < 0 || x > GRID_LIMITS[i]) {
                PyErr_Clear();
                break;
            }
            dims[i] = (unsigned)x;
        }
        if (i == 3)
            return 0;
    }
    PyObject *three = PyObject_CallOneArg(self->grid3, grid);
    if (three == NULL)
        return -1;
    for (int i = 0; i < 3; i++)
        dims[i] = (unsigned)PyLong_AsUnsignedLong(PyTuple_GET_ITEM(three, i));
    Py_DECREF(three);
    return PyErr_Occurred() ? -1 : 0;
}

/* The entry's Python launch, called as launch((x, y, z), *values): the way for what C does not pack. */
static PyObject *python_launch(Entry *e, unsigned dims[3], PyObject **values, Py_ssize_t n) {
    PyObject *stack[MAX_ARGS + 1];
    PyObject *grid = Py_BuildValue("(III)", dims[0], dims[1], dims[2]);
    if (grid == NULL)
        return NULL;
    stack[0] = grid;
    for (Py_ssize_t i = 0; i < n; i++)
        stack[i + 1] = values[i];
    PyObject *r = PyObject_Vectorcall(e->python_launch, stack, n + 1, NULL);
    Py_DECREF(grid);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    Py_INCREF(e->kernel);
    return e->kernel;
}

static PyObject *launch(FastPath *self, Entry *e, PyObject *grid, PyObject **values, uint64_t *addresses,
                        int *has_address) {
    unsigned dims[3];
    if (read_grid(self, grid, dims) < 0)
        return NULL;
    if (e->python_only)
        return python_launch(e, dims, values, self->nargs);
    Slot slots[MAX_ARGS];
    void *params[MAX_ARGS];
    for (Py_ssize_t j = 0; j < e->count; j++) {
        Py_ssize_t i = e->positions[j];
        if (!pack(e->kinds[j], values[i], addresses[i], has_address[i], &slots[j]))
            return python_launch(e, dims, values, self->nargs);
        params[j] = &slots[j];
    }
    if (dims[0] && dims[1] && dims[2]) { /* an empty grid launches nothing */
        PyObject *stream = PyObject_CallNoArgs(e->stream_of);
        if (stream == NULL)
            return NULL;
        void *handle = (void *)(uintptr_t)PyLong_AsUnsignedLongLong(stream);
        Py_DECREF(stream);
        if (PyErr_Occurred())
            return NULL;
        int err = self->launch(e->function, dims[0], dims[1], dims[2], e->block_x, 1, 1, e->shared_bytes,
                               handle, params, NULL);
        if (err) {
            PyObject *error = PyObject_CallFunction(e->failure, "i(III)", err, dims[0], dims[1], dims[2]);
            if (error != NULL) {
                PyErr_SetObject((PyObject *)Py_TYPE(error), error);
                Py_DECREF(error);
            }
            return NULL;
        }
    }
    Py_INCREF(e->kernel);
    return e->kernel;
}

/* 1 if each module-level value the entry's kernel read is still the object it was compiled with;
 * 0 if one is not (the Python binder then compares values, and says which changed); -1 on error. */
static int guards_hold(Entry *e) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(e->guards); i++) {
        PyObject *guard = PyTuple_GET_ITEM(e->guards, i);
        PyObject *now = PyDict_GetItemWithError(PyTuple_GET_ITEM(guard, 0), PyTuple_GET_ITEM(guard, 1));
        if (now != PyTuple_GET_ITEM(guard, 2))
            return PyErr_Occurred() ? -1 : 0;
    }
    return 1;
}

// --8<-- [start:fast-call]
/* Launch the entry of this call's key: the kernel, or on a miss the key (new references). A key
 * whose kernel read a module-level value that has changed since is a miss too. */
static PyObject *hit_or_key(FastPath *self, PyObject *grid, PyObject *constants, PyObject *const *args,
                            Py_ssize_t n) {
    PyObject *values[MAX_ARGS];
    uint64_t addresses[MAX_ARGS];
    int has_address[MAX_ARGS];
    PyObject *key = read_key(self, constants, args, n, values, addresses, has_address);
    if (key == NULL)
        return NULL;
    PyObject *capsule = PyDict_GetItemWithError(self->table, key);
    if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError))
        PyErr_Clear(); /* an unhashable value (a list as an option): a miss; the slow way says
                          what is wrong */
    Entry *e = capsule == NULL ? NULL : (Entry *)PyCapsule_GetPointer(capsule, NULL);
    int held = e == NULL ? 0 : guards_hold(e);
    PyObject *result;
    if (held <= 0) {
        result = PyErr_Occurred() ? NULL : key;
        if (result == NULL)
            Py_DECREF(key);
    } else {
        Py_DECREF(key);
        result = launch(self, e, grid, values, addresses, has_address);
    }
    for (Py_ssize_t i = 0; i < n; i++)
        Py_DECREF(values[i]);
    return result;
}

/* fast(grid, constants, *values): the kernel after launching it, or the key on a miss */
static PyObject *fast_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "fast(grid, constants, *values) takes no keywords");
        return NULL;
    }
    if (n < 2) {
        PyErr_SetString(PyExc_TypeError, "fast(grid, constants, *values)");
        return NULL;
    }
    return hit_or_key((FastPath *)callable, args[0], args[1], args + 2, n - 2);
}

// --8<-- [end:fast-call]

/* -------------------------------------------------------------------------- the Python-facing type */

static void entry_clear(Entry *e) {
    Py_XDECREF(e->kernel);
    Py_XDECREF(e->stream_of);
    Py_XDECREF(e->python_launch);
    Py_XDECREF(e->failure);
    Py_XDECREF(e->guards);
    PyMem_Free(e);
}

static void entry_free(PyObject *capsule) {
    entry_clear((Entry *)PyCapsule_GetPointer(capsule, NULL));
}

/* add(key, kernel, function, block_x, shared_bytes, kinds, positions, stream_of, python_launch, failure,
 *     guards=()) */
static PyObject *fast_add(FastPath *self, PyObject *args) {
    PyObject *key, *kernel, *positions, *stream_of, *py_launch, *failure, *guards = NULL;
    unsigned long long function;
    unsigned block_x, shared_bytes;
    const char *kinds;
    Py_ssize_t nkinds;
    if (!PyArg_ParseTuple(args, "OOKIIs#O!OOO|O!", &key, &kernel, &function, &block_x, &shared_bytes, &kinds,
                          &nkinds, &PyTuple_Type, &positions, &stream_of, &py_launch, &failure, &PyTuple_Type,
                          &guards))
        return NULL;
    if (nkinds != PyTuple_GET_SIZE(positions) || nkinds > MAX_ARGS) {
        PyErr_SetString(PyExc_ValueError, "one kind and one position per parameter, at most 64");
        return NULL;
    }
    guards = guards == NULL ? PyTuple_New(0) : (Py_INCREF(guards), guards);
    if (guards == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(guards); i++) {
        PyObject *guard = PyTuple_GET_ITEM(guards, i);
        if (!PyTuple_Check(guard) || PyTuple_GET_SIZE(guard) != 3 || !PyDict_Check(PyTuple_GET_ITEM(guard, 0))) {
            Py_DECREF(guards);
            PyErr_SetString(PyExc_TypeError, "each guard is a tuple (globals dict, name, value)");
            return NULL;
        }
    }
    Entry *e = PyMem_Calloc(1, sizeof(Entry));
    if (e == NULL) {
        Py_DECREF(guards);
        return PyErr_NoMemory();
    }
    e->guards = guards;
    e->function = (void *)(uintptr_t)function;
    e->block_x = block_x;
    e->shared_bytes = shared_bytes;
    e->count = nkinds;
    for (Py_ssize_t j = 0; j < nkinds; j++) {
        e->kinds[j] = kinds[j];
        e->python_only |= strchr("P?bhiqBHIQfd", kinds[j]) == NULL;
        e->positions[j] = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, j));
        if (e->positions[j] < 0 || e->positions[j] >= self->nargs) {
            Py_DECREF(guards);
            PyMem_Free(e);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a position outside the runtime arguments");
            return NULL;
        }
    }
    Py_INCREF(kernel); Py_INCREF(stream_of); Py_INCREF(py_launch); Py_INCREF(failure);
    e->kernel = kernel, e->stream_of = stream_of, e->python_launch = py_launch, e->failure = failure;
    PyObject *capsule = PyCapsule_New(e, NULL, entry_free);
    if (capsule == NULL) {
        entry_clear(e);
        return NULL;
    }
    int rc = PyDict_SetItem(self->table, key, capsule);
    Py_DECREF(capsule);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* key(constants, *values): the key a call with these values looks up, launching nothing */
static PyObject *fast_key(FastPath *self, PyObject *const *args, Py_ssize_t n) {
    if (n < 1) {
        PyErr_SetString(PyExc_TypeError, "key(constants, *values)");
        return NULL;
    }
    PyObject *values[MAX_ARGS];
    uint64_t addresses[MAX_ARGS];
    int has_address[MAX_ARGS];
    PyObject *key = read_key(self, args[0], args + 1, n - 1, values, addresses, has_address);
    if (key != NULL)
        for (Py_ssize_t i = 0; i < n - 1; i++)
            Py_DECREF(values[i]);
    return key;
}

static PyObject *fast_new(PyTypeObject *type, PyObject *args, PyObject *Py_UNUSED(kwargs)) {
    unsigned long long address;
    PyObject *tensor_type, *launch_key, *grid3;
    const char *plain;
    Py_ssize_t nargs;
    if (!PyArg_ParseTuple(args, "KOOOs#", &address, &tensor_type, &launch_key, &grid3, &plain, &nargs))
        return NULL;
    if (nargs > MAX_ARGS) {
        PyErr_SetString(PyExc_ValueError, "at most 64 runtime arguments");
        return NULL;
    }
    FastPath *self = (FastPath *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = fast_call;
    self->launch = (cu_launch_kernel)(uintptr_t)address;
    self->table = PyDict_New();
    Py_INCREF(tensor_type); Py_INCREF(launch_key); Py_INCREF(grid3);
    self->tensor_type = tensor_type, self->launch_key = launch_key, self->grid3 = grid3;
    self->nargs = nargs;
    for (Py_ssize_t i = 0; i < nargs; i++)
        self->plain[i] = plain[i] == 'p';
    if (self->table == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void fast_dealloc(FastPath *self) {
    Py_XDECREF(self->table);
    Py_XDECREF(self->tensor_type);
    Py_XDECREF(self->launch_key);
    Py_XDECREF(self->grid3);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *fast_len(FastPath *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSsize_t(PyDict_GET_SIZE(self->table));
}

static PyMethodDef fast_methods[] = {
    {"add", (PyCFunction)fast_add, METH_VARARGS, "add(key, kernel, function, block_x, shared_bytes, kinds, "
     "positions, stream_of, python_launch, failure, guards=()): the prepared launch of one key"},
    {"key", (PyCFunction)(void (*)(void))fast_key, METH_FASTCALL, "key(constants, *values)"},
    {"entries", (PyCFunction)fast_len, METH_NOARGS, "how many keys have a prepared launch"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FastPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "minitriton._launcher.FastPath",
    .tp_basicsize = sizeof(FastPath),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(FastPath, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = fast_new,
    .tp_dealloc = (destructor)fast_dealloc,
    .tp_methods = fast_methods,
    .tp_doc = "FastPath(cu_launch_kernel_address, tensor_type, launch_key, grid3, plain): the binder's "
              "fast path for one @jit function, in C",
};

/* -------------------------------------------------------------------------- the binder, in C */

/* Binder(fast, names, constexpr, defaults, options, option_defaults, missing, fallback, interpret, also):
 * `binder(grid, *args, **kwargs)` for one @jit function. It binds the call to the kernel's parameters
 * (names, each with its default or `missing`) and launch options as the Python binder does,
 * and calls the fast path with the constants (the constexprs in order, then the options) and the
 * runtime values. Anything else (a callable grid, a missing or unknown argument, the interpreter
 * switched on in the environment variable `interpret`, or in `also` when `interpret` is unset, as
 * jit.interpreting() reads them; a key not seen yet) goes to `fallback`, the Python binder. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    FastPath *fast;
    PyObject *names, *defaults, *missing, *fallback; /* names: the parameters, then the options */
    Py_ssize_t nparams, nnames;
    char constexpr[MAX_ARGS];
    char *interpret, *also;
} Binder;

static int interpreting(Binder *b) {
    const char *v = getenv(b->interpret);
    if (v == NULL)
        v = getenv(b->also);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static Py_ssize_t name_index(Binder *b, PyObject *name) {
    for (Py_ssize_t i = 0; i < b->nnames; i++)
        if (PyTuple_GET_ITEM(b->names, i) == name)
            return i;
    for (Py_ssize_t i = 0; i < b->nnames; i++) {
        int same = PyUnicode_Compare(PyTuple_GET_ITEM(b->names, i), name);
        if (same == 0)
            return i;
        if (same == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
    }
    return -1;
}

// --8<-- [start:binder]
static PyObject *binder_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Binder *b = (Binder *)callable;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf), nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *slots[MAX_ARGS * 2], *runtime[MAX_ARGS];
    Py_ssize_t nconst = b->nnames - b->nparams, nruntime = 0;
    if (n < 1 || !PyTuple_CheckExact(args[0]) || n - 1 > b->nparams || interpreting(b))
        goto fallback;
    for (Py_ssize_t i = 0; i < b->nnames; i++)
        slots[i] = i < n - 1 ? args[i + 1] : NULL;
    for (Py_ssize_t j = 0; j < nkw; j++) {
        Py_ssize_t i = name_index(b, PyTuple_GET_ITEM(kwnames, j));
        if (i < 0 || slots[i] != NULL)
            goto fallback;
        slots[i] = args[n + j];
    }
    for (Py_ssize_t i = 0; i < b->nnames; i++) {
        if (slots[i] == NULL)
            slots[i] = PyTuple_GET_ITEM(b->defaults, i);
        if (slots[i] == b->missing)
            goto fallback;
        if (i < b->nparams && !b->constexpr[i])
            runtime[nruntime++] = slots[i];
        else if (i < b->nparams)
            nconst++;
    }
    PyObject *constants = PyTuple_New(nconst);
    if (constants == NULL)
        return NULL;
    for (Py_ssize_t i = 0, c = 0; i < b->nnames; i++)
        if (i >= b->nparams || b->constexpr[i]) {
            Py_INCREF(slots[i]);
            PyTuple_SET_ITEM(constants, c++, slots[i]);
        }
    PyObject *result = hit_or_key(b->fast, args[0], constants, runtime, nruntime);
    Py_DECREF(constants);
    if (result == NULL || !PyTuple_CheckExact(result))
        return result;
    Py_DECREF(result); /* a miss: the Python binder compiles and adds the key */
fallback:
    return PyObject_Vectorcall(b->fallback, args, nargsf, kwnames);
}
// --8<-- [end:binder]

static PyObject *binder_new(PyTypeObject *type, PyObject *args, PyObject *Py_UNUSED(kwargs)) {
    PyObject *fast, *names, *constexpr, *defaults, *options, *option_defaults, *missing, *fallback;
    const char *interpret, *also;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!OOss", &FastPathType, &fast, &PyTuple_Type, &names, &PyTuple_Type,
                          &constexpr, &PyTuple_Type, &defaults, &PyTuple_Type, &options, &PyTuple_Type,
                          &option_defaults, &missing, &fallback, &interpret, &also))
        return NULL;
    Py_ssize_t nparams = PyTuple_GET_SIZE(names), noptions = PyTuple_GET_SIZE(options);
    if (nparams > MAX_ARGS || noptions > MAX_ARGS || PyTuple_GET_SIZE(constexpr) != nparams ||
        PyTuple_GET_SIZE(defaults) != nparams || PyTuple_GET_SIZE(option_defaults) != noptions) {
        PyErr_SetString(PyExc_ValueError, "one flag and one default per parameter, one default per option");
        return NULL;
    }
    Binder *self = (Binder *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = binder_call;
    self->names = PySequence_Concat(names, options);
    self->defaults = PySequence_Concat(defaults, option_defaults);
    self->interpret = PyMem_Malloc(strlen(interpret) + 1);
    self->also = PyMem_Malloc(strlen(also) + 1);
    Py_INCREF(fast); Py_INCREF(missing); Py_INCREF(fallback);
    self->fast = (FastPath *)fast, self->missing = missing, self->fallback = fallback;
    self->nparams = nparams, self->nnames = nparams + noptions;
    Py_ssize_t nruntime = 0;
    for (Py_ssize_t i = 0; i < nparams; i++) {
        self->constexpr[i] = PyObject_IsTrue(PyTuple_GET_ITEM(constexpr, i)) == 1;
        nruntime += !self->constexpr[i];
    }
    if (self->names == NULL || self->defaults == NULL || self->interpret == NULL || self->also == NULL) {
        Py_DECREF(self);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    strcpy(self->interpret, interpret);
    strcpy(self->also, also);
    if (nruntime != self->fast->nargs) {
        Py_DECREF(self);
        PyErr_SetString(PyExc_ValueError, "the fast path takes another number of runtime arguments");
        return NULL;
    }
    return (PyObject *)self;
}

static void binder_dealloc(Binder *self) {
    Py_XDECREF(self->fast);
    Py_XDECREF(self->names);
    Py_XDECREF(self->defaults);
    Py_XDECREF(self->missing);
    Py_XDECREF(self->fallback);
    PyMem_Free(self->interpret);
    PyMem_Free(self->also);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* binder[grid]: the binder with its grid, called as binder(grid, *args, **kwargs) (kernel[grid](...)). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *binder, *grid;
} Bound;

static PyObject *bound_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Bound *self = (Bound *)callable;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf), total = n + (kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames));
    if (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) { /* the slot before the arguments is ours for the call */
        PyObject **slots = (PyObject **)args - 1, *saved = slots[0];
        slots[0] = self->grid;
        PyObject *result = binder_call(self->binder, slots, n + 1, kwnames);
        slots[0] = saved;
        return result;
    }
    PyObject *small[2 * MAX_ARGS + 1];
    PyObject **stack = total < 2 * MAX_ARGS ? small : PyMem_Malloc((total + 1) * sizeof(PyObject *));
    if (stack == NULL)
        return PyErr_NoMemory();
    stack[0] = self->grid;
    memcpy(stack + 1, args, total * sizeof(PyObject *));
    PyObject *result = binder_call(self->binder, stack, n + 1, kwnames);
    if (stack != small)
        PyMem_Free(stack);
    return result;
}

static void bound_dealloc(Bound *self) {
    Py_XDECREF(self->binder);
    Py_XDECREF(self->grid);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject BoundType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "minitriton._launcher.Bound",
    .tp_basicsize = sizeof(Bound),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Bound, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_dealloc = (destructor)bound_dealloc,
    .tp_doc = "binder[grid]: call it with the kernel's arguments",
};

static PyObject *binder_subscript(PyObject *binder, PyObject *grid) {
    Bound *self = PyObject_New(Bound, &BoundType);
    if (self == NULL)
        return NULL;
    self->vectorcall = bound_call;
    Py_INCREF(binder); Py_INCREF(grid);
    self->binder = binder, self->grid = grid;
    return (PyObject *)self;
}

static PyMappingMethods binder_mapping = {.mp_subscript = binder_subscript};

static PyMemberDef binder_members[] = {
    {"fallback", T_OBJECT, offsetof(Binder, fallback), READONLY, "the Python binder, for all but a hit"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject BinderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "minitriton._launcher.Binder",
    .tp_basicsize = sizeof(Binder),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Binder, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = binder_new,
    .tp_dealloc = (destructor)binder_dealloc,
    .tp_members = binder_members,
    .tp_as_mapping = &binder_mapping,
    .tp_doc = "Binder(fast, names, constexpr, defaults, options, option_defaults, missing, fallback, "
              "interpret, also): binder(grid, *args, **kwargs) of one @jit function, in C",
};

/* -------------------------------------------------------------------------- kernel[grid], in C */

/* Subscript(fallback): JITFunction.__getitem__ in C, put on the class when this module loads
 * (jit.py's hook, which launcher.py calls once).
 * kernel[grid] reads the kernel's `_binder` and, where it is a Binder, returns binder[grid] without
 * a Python frame; anything else (no binder yet, the Python binder) goes to `fallback`, the Python
 * __getitem__. As a method descriptor it is called with (kernel, grid), no bound method made. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback;
} Subscript;

static PyObject *s_binder;

static PyObject *subscript_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    if (PyVectorcall_NARGS(nargsf) == 2 && kwnames == NULL) {
        PyObject *binder = PyObject_GetAttr(args[0], s_binder);
        if (binder == NULL)
            PyErr_Clear(); /* not made yet: the fallback makes it */
        else if (Py_IS_TYPE(binder, &BinderType)) {
            PyObject *bound = binder_subscript(binder, args[1]);
            Py_DECREF(binder);
            return bound;
        } else
            Py_DECREF(binder);
    }
    return PyObject_Vectorcall(((Subscript *)callable)->fallback, args, nargsf, kwnames);
}

static PyObject *subscript_get(PyObject *self, PyObject *obj, PyObject *Py_UNUSED(type)) {
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyObject *subscript_new(PyTypeObject *type, PyObject *args, PyObject *Py_UNUSED(kwargs)) {
    PyObject *fallback;
    if (!PyArg_ParseTuple(args, "O", &fallback))
        return NULL;
    Subscript *self = (Subscript *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = subscript_call;
    Py_INCREF(fallback);
    self->fallback = fallback;
    return (PyObject *)self;
}

static void subscript_dealloc(Subscript *self) {
    Py_XDECREF(self->fallback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef subscript_members[] = {
    {"fallback", T_OBJECT, offsetof(Subscript, fallback), READONLY, "the Python __getitem__"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject SubscriptType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "minitriton._launcher.Subscript",
    .tp_basicsize = sizeof(Subscript),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_vectorcall_offset = offsetof(Subscript, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = subscript_get,
    .tp_new = subscript_new,
    .tp_dealloc = (destructor)subscript_dealloc,
    .tp_members = subscript_members,
    .tp_doc = "Subscript(fallback): JITFunction.__getitem__ in C; kernel[grid] is binder[grid]",
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, .m_name = "_launcher", .m_size = -1};

PyMODINIT_FUNC PyInit__launcher(void) {
    s_data_ptr = PyUnicode_InternFromString("data_ptr");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_get_device = PyUnicode_InternFromString("get_device");
    s_binder = PyUnicode_InternFromString("_binder");
    if (PyType_Ready(&FastPathType) < 0 || PyType_Ready(&BinderType) < 0 || PyType_Ready(&BoundType) < 0 ||
        PyType_Ready(&SubscriptType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&FastPathType);
    Py_INCREF(&BinderType);
    Py_INCREF(&SubscriptType);
    if (PyModule_AddObject(m, "FastPath", (PyObject *)&FastPathType) < 0 ||
        PyModule_AddObject(m, "Binder", (PyObject *)&BinderType) < 0 ||
        PyModule_AddObject(m, "Subscript", (PyObject *)&SubscriptType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
