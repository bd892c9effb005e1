"""The numpy interpreter: runs tile IR on the CPU, one program instance after another.

It reads a verified `ir.Function` and the kernel's arguments, and changes the caller's numpy arrays
in place. It is the reference semantics of the tile IR: every later stage (the CUDA backend included)
must give the results it gives. Each op's meaning is one entry of `RULES`; a value is a numpy array
of its tile's shape (a numpy scalar or 0-d array for a scalar) whose numpy dtype is `DType.np`.
Chapter: 03-tile-ir.

The semantics, which are Triton's:

- Integers wrap. `div` and `rem` on integers truncate toward zero, as in C (the remainder has the
  dividend's sign); by a divisor of 0 both give 0, as in Triton's interpreter, and INT_MIN // -1
  wraps to INT_MIN with a remainder of 0 (codegen guards the divisor, since LLVM and PTX leave
  those cases undefined); `rem` on floats is `fmod`. `shr` is arithmetic for signed and logical
  for unsigned integers; a shift by an amount outside [0, width) leaves 0, or copies of the sign
  bit for an arithmetic `shr` (numpy's rule, so Triton's interpreter's; LLVM makes it poison, so
  codegen guards the amount). `umulhi` is the high half of the double-width product of the
  operands read as unsigned, for signed types too (what Triton's GPU code computes; Triton's
  interpreter differs for negative int32s).
- fp16 arithmetic is done in fp16. bf16 values are held in float32 and rounded to bf16 (to nearest,
  ties to even) after every op whose result is bf16. Math functions (`exp`, `sqrt`, ...) on fp16 and
  bf16 are computed in float32 and rounded back. `minimum`/`maximum` are IEEE's minNum/maxNum (a NaN
  operand gives the other one; both NaN give NaN) unless they say `propagate_nan`; so are the
  `max`/`min` reductions and scans. `shr` of an unsigned type may come from a signed left operand:
  the frontend then bitcasts around an arithmetic `shr`.
- `cast`: float -> int truncates toward zero (saturating at the integer's range, NaN -> 0, as the
  GPU's `cvt.rzi` does); int -> float and float -> float round to nearest even; int -> int wraps or
  extends according to the *source's* signedness; anything -> int1 is `!= 0`; int1 -> int is 0/1;
  pointers are int64 addresses, so ptr <-> int64 and ptr -> ptr keep the address. `bitcast`
  reinterprets the bits (a bf16 by its 16-bit pattern).
- `reduce` and `scan` combine in their element type, as Triton types them (`tl.sum` of fp16 adds
  fp16s; `tl.cumsum` of bf16 and `tl.sum(x, dtype=tl.float32)` convert to fp32 first): a 16-bit
  float is rounded after every step, as the GPU does. A reduction folds halves (element i with
  element i + n/2, until one is left), a scan goes along the axis; `argmax`/`argmin` give the
  first index among equal values, and a NaN loses to every number (a slice of NaN alone: index
  0). `dot` multiplies fp16/bf16/fp8/fp32 in float32 (fp64 in float64,
  integers exactly) and adds the accumulator; with `input_precision` "tf32" each fp32 operand is
  first cut to tf32 (10 mantissa bits, toward zero, as the tensor cores read fp32 bits).
- fp8 values are held in float32, like bf16's, and stored as their 8-bit codes. A `cast` to an fp8
  is Triton's conversion (`floats.fp8_bits`): to nearest (fp8e4b15: ties away) or toward zero,
  clamped to the format's largest number, NaN to its NaN; the frontend computes every other op on
  fp8 values in fp32.
- Memory is `Memory`: the caller's arrays in one flat address space. An active lane outside the
  arrays its pointer was made from (`pointer_origins`; every array, for a pointer of unknown
  origin), misaligned for its type, or writing an array the caller made read-only, is an
  `InterpreterError` naming the op's source line. Masked-off
  lanes never touch memory; a masked load gives `other`, or 0. Atomics apply their lanes one after
  another in element order, so lanes with one address all take effect; they return the old values
  (0 for masked lanes).
- `gather` refuses an index outside its axis (an `InterpreterError` naming the element; Triton
  leaves it undefined); `histogram` does not count values outside [0, bins), as Triton's interpreter;
  `map_elementwise` runs its region on `pack` elements of each operand at a time, in row-major
  order; `inline_asm` cannot run here, as in Triton's interpreter.
- `extern_elementwise` calls a library function by its numpy twin (`libdevice/twins.py`), which
  computes in float64 and is rounded once to the result type (16-bit floats go through the f32
  version). `special_register`: `smid` is 0, `globaltimer` is `time.perf_counter_ns()`.
- `print` writes one line per element, like Triton's device_print:
  `pid (x, y, z) idx (i, j) <prefix><value>`, the prefix being `x: ` for `device_print("x", ...)`
  (floats as C's `%f`, `hex` shows the bit pattern).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import ir
from .accesses import note_access, record_accesses  # noqa: F401 (record_accesses: the interpreter's face)
from .address_space import Memory, as_dtype, bits_of, from_bits, pointer_origins
from .errors import InterpreterError, LaunchError
from .floats import float_from_bits, fp8_bits, round_to_tf32
from .libdevice.twins import TWINS


# ---------------------------------------------------------------------------------------------------
# The rules: `rule(program, op, *operand_values)` returns the op's result (None when it has none;
# for the region ops `for`, `if`, `while`, the list of results).
# ---------------------------------------------------------------------------------------------------

def _widen(x):
    """fp16 computes in float32 (correctly rounded back: float32 has more than twice the bits);
    a boolean as the one-bit integer it is, in uint8 (numpy's booleans do logic, not arithmetic)."""
    if x.dtype == np.bool_:
        return x.astype(np.uint8)
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _elementwise(fn: Callable) -> Callable:
    """An op on whole tiles; a one-bit result keeps the low bit (True + True is False, as on the GPU)."""
    def rule(program, op, *xs):
        result = fn(*map(_widen, xs))
        return as_dtype(op.result.dtype, np.asarray(result) & 1 if op.result.dtype.is_bool() else result)
    return rule


# --8<-- [start:fma]
def _fma(a, b, c) -> np.ndarray:
    """a * b + c rounded once, as the GPU's fma. For fp32 (and the 16-bit floats, which the GPU
    computes in fp32) exactly: the float64 product of two 24-bit significands is exact, the float64
    sum is rounded to odd (toward zero, then the last bit set if anything was lost), and rounding
    that to fp32 is then the correct rounding of the true value. fp64 is rounded twice, product and
    sum: near enough for a reference."""
    a, b, c = (np.asarray(v) for v in (a, b, c))
    if np.float64 in (a.dtype, b.dtype, c.dtype):
        return a.astype(np.float64) * b + c
    product, c = a.astype(np.float64) * b.astype(np.float64), c.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        total = product + c
        back = total - product  # two-sum: `lost` is exactly what rounding the sum dropped
        lost = (product - (total - back)) + (c - back)
    bits = np.atleast_1d(total).view(np.int64).copy()
    inexact = np.atleast_1d((lost != 0) & np.isfinite(total))
    away = inexact & (np.atleast_1d(np.signbit(lost)) != np.atleast_1d(np.signbit(total)))
    bits[away] -= 1  # one step toward zero: the magnitude's bits, whatever the sign
    bits[inexact] |= 1
    return bits.view(np.float64).astype(np.float32).reshape(np.shape(total))
# --8<-- [end:fma]


def _exp2(program, op, x):
    """2**x. In fp32 (and the 16-bit floats, computed in fp32) a result below the smallest normal
    fp32 is 0, as the GPU's `ex2.approx.ftz` gives it; fp64 keeps its subnormals."""
    result = np.exp2(_widen(x))
    if not op.result.dtype.is_fp64():
        result = np.where(result < np.finfo(np.float32).tiny, 0.0, result)
    return as_dtype(op.result.dtype, result)


def _minmax(ignoring_nan: Callable, propagating_nan: Callable) -> Callable:
    """IEEE's minNum/maxNum (a NaN loses) unless the op says `propagate_nan`."""
    return lambda program, op, a, b: as_dtype(op.result.dtype, (
        propagating_nan if op.attrs.get("propagate_nan") else ignoring_nan)(_widen(a), _widen(b)))


def _div(a, b):
    if a.dtype.kind in "iu":
        return (a - np.fmod(a, b)) // b  # an exact division, so floor is truncation: C's quotient
    return a / b


def _umulhi(a, b):
    """The high half of the product of the operands' bits read as unsigned numbers, whatever their
    type: Triton's `mulhiui`, which its GPU code computes with `__nv_umulhi` / `__nv_umul64hi`."""
    dtype = np.asarray(a).dtype
    bits = dtype.itemsize * 8
    unsigned = np.dtype(f"uint{bits}")
    a, b = np.asarray(a).view(unsigned), np.asarray(b).view(unsigned)
    if bits <= 32:
        high = (a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(bits)
    else:  # Python ints: no overflow
        high = np.asarray((a.astype(object) * b.astype(object)) >> bits).astype(np.uint64)
    return high.astype(unsigned).view(dtype)


def _float_to_int(x, dtype: ir.DType):
    """Truncate toward zero, saturating at the integer's range (NaN -> 0), as `cvt.rzi` does."""
    info = np.iinfo(dtype.np)
    whole = np.trunc(np.nan_to_num(np.asarray(x, np.float64), nan=0.0))
    result = np.clip(whole, info.min, info.max).astype(dtype.np)
    # float64 cannot hold a 64-bit maximum; the clip rounded it up, so fix the top end here.
    return np.where(whole >= float(info.max), info.max, result).astype(dtype.np)


def _cast(program, op, x):
    source, target = op.operands[0].dtype, op.result.dtype
    if source.is_floating() and target.is_int() and not target.is_bool():
        return _float_to_int(x, target)
    if target.is_fp8():  # Triton's conversion: to nearest or toward zero, saturating
        return float_from_bits(fp8_bits(x, target, op.attrs.get("rounding", "rtne")), target)
    if op.attrs.get("rounding") == "rtz":
        return _toward_zero(x, target)
    return as_dtype(target, x)


def _toward_zero(x, target: ir.DType):
    """A float narrowed with rounding toward zero: to nearest, then one step back toward zero
    wherever that went past `x` in magnitude (an overflow to infinity comes back to the largest
    finite value)."""
    wide = np.asarray(x, np.float64)
    nearest = as_dtype(target, x)
    past = np.abs(np.asarray(nearest, np.float64)) > np.abs(wide)
    bits = bits_of(nearest, target)
    back = from_bits((bits - past.astype(bits.dtype)).astype(bits.dtype), target)  # magnitude - 1 ulp
    return as_dtype(target, np.where(past, back, nearest))


def _addptr(program, op, pointer, offset):
    return pointer + np.asarray(offset).astype(np.int64) * op.result.dtype.pointee.itemsize


def _arg_extremum(extremum: Callable) -> Callable:
    """argmax/argmin: the first index of the extremum, where a NaN loses to every number (as in
    `max`, IEEE's maxNum) and a slice of NaN alone gives its first index."""
    def arg(x, axis):
        hit = x == extremum(x, axis=axis, keepdims=True)
        return np.argmax(np.where(hit.any(axis=axis, keepdims=True), hit, True), axis=axis)
    return arg


REDUCERS: dict[str, Callable] = {
    "sum": np.add.reduce, "prod": np.multiply.reduce, "max": np.fmax.reduce, "min": np.fmin.reduce,
    "argmax": _arg_extremum(np.fmax.reduce), "argmin": _arg_extremum(np.fmin.reduce),
    "xor": np.bitwise_xor.reduce, "and": np.bitwise_and.reduce, "or": np.bitwise_or.reduce,
}
SCANS: dict[str, Callable] = {
    "sum": np.add.accumulate, "prod": np.multiply.accumulate,
    "max": np.fmax.accumulate, "min": np.fmin.accumulate,
}


# --8<-- [start:reduce]
def _halves(combine: Callable, xs: list, axis: int) -> list:
    """The tree every reduction folds along `axis`: element i with element i + n/2, until one is
    left. `combine(lefts, rights)` takes and gives one array per operand."""
    xs = [np.moveaxis(x, axis, 0) for x in xs]
    while xs[0].shape[0] > 1:
        half = xs[0].shape[0] // 2
        xs = combine([x[:half] for x in xs], [x[half:] for x in xs])
    return [x[0] for x in xs]


# The reductions and scans whose result depends on where each step rounds: 16-bit floats round
# after every step (Triton combines them in their own type), so they go step by step.
ROUNDED_STEPS = {"sum": np.add, "prod": np.multiply}


def _reduce(program, op, *xs):
    """One array per result; several only with a combine function, which takes the left halves'
    elements and then the right halves' and gives one value per operand."""
    kind, axis = op.attrs["kind"], op.attrs["axis"]
    if kind == "combine":
        return _results(op, _halves(lambda a, b: program.run(op.regions[0], a + b), list(xs), axis))
    (x,), dtype = xs, op.result.dtype
    if kind in ROUNDED_STEPS and dtype.bits == 16 and dtype.is_floating():
        step = lambda a, b: [as_dtype(dtype, ROUNDED_STEPS[kind](_widen(a[0]), _widen(b[0])))]
        return _halves(step, [x], axis)[0]
    return as_dtype(dtype, REDUCERS[kind](_widen(x), axis=axis))
# --8<-- [end:reduce]


def _results(op, arrays: list):
    """An op's value, or its list of values when it has several (a reduce or scan of a tuple)."""
    arrays = [as_dtype(r.dtype, a) for r, a in zip(op.results, arrays)]
    return arrays if len(arrays) > 1 else arrays[0]


def _scan(program, op, *xs):
    if op.attrs["kind"] == "combine":  # one element after another, with the user's combine function
        axis = op.attrs["axis"]
        xs = [np.moveaxis(x, axis, 0) for x in xs]
        order = range(xs[0].shape[0] - 1, -1, -1) if op.attrs.get("reverse", False) else range(xs[0].shape[0])
        outs, acc = [np.empty_like(x) for x in xs], None
        for i in order:
            acc = [x[i] for x in xs] if acc is None else program.run(op.regions[0], acc + [x[i] for x in xs])
            for out, a in zip(outs, acc):
                out[i] = a
        return _results(op, [np.moveaxis(out, 0, axis) for out in outs])
    (x,) = xs
    axis, kind, dtype, reverse = op.attrs["axis"], op.attrs["kind"], op.result.dtype, op.attrs.get("reverse", False)
    x = np.flip(x, axis) if reverse else x
    if kind in ROUNDED_STEPS and dtype.bits == 16 and dtype.is_floating():
        out = np.moveaxis(np.array(x, copy=True), axis, 0)
        for i in range(1, out.shape[0]):  # each running value rounded, as the GPU's are
            out[i] = as_dtype(dtype, ROUNDED_STEPS[kind](_widen(out[i - 1]), _widen(out[i])))
        result = np.moveaxis(out, 0, axis)
    else:
        result = as_dtype(dtype, SCANS[kind](_widen(x), axis=axis))
    return np.flip(result, axis) if reverse else result


# --8<-- [start:dot]
def _dot(program, op, a, b, acc):
    """acc + a @ b (over the last two dimensions; a leading one is the batch). Floats multiply in
    float32 (float64 for fp64), which holds every product of two fp16, bf16, fp8 or tf32 numbers
    exactly; "tf32" first cuts each fp32 operand as the tensor cores do. Integers
    multiply exactly, and wrap into the accumulator's type (mma.sync clamps instead,
    Triton's `.satfinite`: the two agree while no sum leaves int32)."""
    inputs = op.operands[0].dtype
    if inputs.is_floating():
        compute = np.float64 if inputs.is_fp64() else np.float32
        if inputs.is_fp32() and op.attrs["input_precision"] == "tf32":
            a, b = round_to_tf32(a), round_to_tf32(b)
    else:
        compute = np.int64  # exact for any tile an integer dot can hold; wraps into acc's type
    product = np.matmul(a.astype(compute), b.astype(compute))
    return as_dtype(op.result.dtype, product + acc.astype(compute))
# --8<-- [end:dot]


# --8<-- [start:shapes]
def _gather(program, op, src, index):
    """np.take_along_axis, where an index outside the source's axis is an error (Triton leaves it
    undefined; its interpreter raises numpy's IndexError)."""
    axis, n = op.attrs["axis"], op.operands[0].shape[op.attrs["axis"]]
    outside = (index < 0) | (index >= n)
    if outside.any():
        where = tuple(int(i) for i in np.argwhere(outside)[0])
        raise InterpreterError(op.loc, f"gather index {int(index[where])} at {where} is outside [0, {n}) "
                                       f"along axis {axis}",
                               "clamp or mask the indices: tl.where(i < n, i, 0)")
    return np.take_along_axis(src, index.astype(np.int64), axis)


def _histogram(program, op, x, mask=None):
    """Counts of the values in [0, bins) where the mask holds; others are not counted (as in
    Triton's interpreter: np.histogram over that range)."""
    bins = op.attrs["bins"]
    counted = (x >= 0) & (x < bins) if mask is None else mask & (x >= 0) & (x < bins)
    return np.bincount(x[counted].astype(np.int64), minlength=bins).astype(np.int32)


def _map_elementwise(program, op, *xs):
    """The region on `pack` elements of each operand at a time, in row-major order (the GPU takes
    each thread's registers in order); a last short group is padded with its last element, as on
    the GPU, and the padding's results are dropped."""
    pack, shape = op.attrs["pack"], op.results[0].shape
    count = int(np.prod(shape)) if shape else 1
    groups = -(-count // pack)
    flat = []
    for x in xs:
        elements = np.broadcast_to(x, shape).reshape(-1)
        flat.append(np.concatenate([elements, np.repeat(elements[-1:], groups * pack - count)]))
    outs = [np.zeros(groups * pack, r.dtype.np) for r in op.results]
    for g in range(groups):
        args = [x[g * pack + k] for x in flat for k in range(pack)]
        values = program.run(op.regions[0], args)
        for i, out in enumerate(outs):
            out[g * pack:(g + 1) * pack] = values[i * pack:(i + 1) * pack]
    return _results(op, [out[:count].reshape(shape) for out in outs])


def _inline_asm(program, op, *xs):
    raise InterpreterError(op.loc, "inline_asm not supported in interpreter mode",
                           "run the kernel on the GPU, or write the computation with tl.* functions")
# --8<-- [end:shapes]


def _note(program, op, pointer, mask, dtype: ir.DType) -> None:
    """Tell the access recorder (accesses.py) which elements this op's lanes point at."""
    note_access(program.memory, program.pid, op.name, pointer, mask, dtype.storage.itemsize,
                op.loc.line if op.loc else None)


def _load(program, op, pointer, mask=None, other=None, *corner):
    _note(program, op, pointer, mask, op.result.dtype)
    loaded = program.memory.load(pointer, mask, op.result.dtype, op.loc, program.origins_of(op))
    return loaded if other is None else np.where(mask, loaded, other)


def _store(program, op, pointer, value, mask=None):
    _note(program, op, pointer, mask, op.operands[1].dtype)
    program.memory.store(pointer, value, mask, op.operands[1].dtype, op.loc, program.origins_of(op))


def _atomic(program, op, pointer, value, mask=None):
    _note(program, op, pointer, mask, op.result.dtype)
    return program.memory.atomic(op.attrs["kind"], pointer, value, mask, op.result.dtype, op.loc,
                                 program.origins_of(op))


def _atomic_cas(program, op, pointer, expected, value):
    _note(program, op, pointer, None, op.result.dtype)
    return program.memory.atomic_cas(pointer, expected, value, op.result.dtype, op.loc,
                                     program.origins_of(op))


def _for(program, op, lower, upper, step, *carried):
    if step == 0:
        raise InterpreterError(op.loc, "for loop with step 0 never ends", "use a nonzero step")
    induction = op.operands[0].dtype.np.type
    for i in range(int(lower), int(upper), int(step)):
        carried = program.run(op.regions[0], [induction(i), *carried])
    return carried


def _if(program, op, condition):
    if condition:
        return program.run(op.regions[0], [])
    return program.run(op.regions[1], []) if len(op.regions) > 1 else []


def _while(program, op, *values):
    before, after = op.regions
    while True:
        condition, *values = program.run(before, values)
        if not condition:
            return values
        values = program.run(after, values)


def _format(value, dtype: ir.DType, hex_: bool) -> str:
    """One element as device_print shows it (C's %f for floats, zero-padded bits for hex)."""
    if hex_:
        return f"0x{int(value):0{max(dtype.bits // 4, 1)}x}"
    if dtype.is_ptr():
        return f"{int(value):#x}"
    return f"{float(value):f}" if dtype.is_floating() else str(int(value))


def _print(program, op, *values):
    prefix, hex_ = op.attrs.get("prefix", ""), op.attrs.get("hex", False)
    pid = ", ".join(map(str, program.pid))
    for k, (value, operand) in enumerate(zip(values, op.operands)):
        which = f"(operand {k}) " if len(values) > 1 else ""
        shown = bits_of(value, operand.dtype) if hex_ else np.asarray(value)
        for index in np.ndindex(shown.shape):
            text = _format(shown[index], operand.dtype, hex_)
            print(f"pid ({pid}) idx ({', '.join(map(str, index))}) {prefix}{which}{text}")


def _assert(program, op, condition):
    failed = np.argwhere(~np.asarray(condition, bool))
    if len(failed):
        where = f" at element {tuple(int(i) for i in failed[0])}" if failed.shape[1] else ""
        message = op.attrs.get("message", "")
        raise InterpreterError(op.loc, f"device assertion failed in program "
                                       f"{tuple(program.pid)}{where}: {message}")


# --8<-- [start:extern]
def _extern_elementwise(program, op, *xs):
    """A library function by its numpy twin. 16-bit floats go through the f32 function, as on the
    GPU: widened to float32, and the result rounded to float32 before it is rounded back."""
    twin = TWINS.get(op.attrs["symbol"])
    if twin is None:
        raise InterpreterError(op.loc, f"the interpreter cannot run {op.attrs['symbol']}: it knows only "
                                       f"libdevice's functions", "run the kernel on a GPU")
    xs = [np.asarray(x, np.float32) if v.dtype.is_fp16() else x for x, v in zip(xs, op.operands)]
    result = twin(*xs)
    if op.result.dtype.is_fp16() or op.result.dtype.is_bf16():
        result = np.asarray(result, np.float32)
    return as_dtype(op.result.dtype, result)
# --8<-- [end:extern]


# The GPU's own registers: which multiprocessor (0: the interpreter is one) and its nanosecond clock.
SPECIAL_REGISTERS = {"smid": lambda: np.int32(0), "globaltimer": lambda: np.int64(time.perf_counter_ns())}


PREDICATES = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
              "eq": np.equal, "ne": np.not_equal}

# --8<-- [start:rules]
RULES: dict[str, Callable] = {
    # indices and constants
    "constant": lambda program, op: as_dtype(op.result.dtype, op.attrs["value"])[()],
    "program_id": lambda program, op: np.int32(program.pid[op.attrs["axis"]]),
    "num_programs": lambda program, op: np.int32(program.grid[op.attrs["axis"]]),
    "arange": lambda program, op: np.arange(op.attrs["start"], op.attrs["end"], dtype=np.int32),
    # shapes
    "splat": lambda program, op, x: np.full(op.attrs["shape"], x, op.result.dtype.np),
    "broadcast": lambda program, op, x: np.broadcast_to(x, op.attrs["shape"]),
    "expand_dims": lambda program, op, x: np.expand_dims(x, op.attrs["axis"]),
    "reshape": lambda program, op, x: np.reshape(x, op.attrs["shape"]),
    "trans": lambda program, op, x: np.transpose(x, op.attrs["perm"]),
    # elementwise arithmetic
    "add": _elementwise(np.add), "sub": _elementwise(np.subtract),
    "mul": _elementwise(np.multiply), "div": _elementwise(_div), "rem": _elementwise(np.fmod),
    "minimum": _minmax(np.fmin, np.minimum), "maximum": _minmax(np.fmax, np.maximum),
    "neg": _elementwise(np.negative), "abs": _elementwise(np.abs),
    "and": _elementwise(np.bitwise_and), "or": _elementwise(np.bitwise_or),
    "xor": _elementwise(np.bitwise_xor), "not": _elementwise(np.invert),
    "shl": _elementwise(np.left_shift), "shr": _elementwise(np.right_shift),
    "umulhi": _elementwise(_umulhi),
    "exp": _elementwise(np.exp), "exp2": _exp2, "log": _elementwise(np.log),
    "log2": _elementwise(np.log2), "sqrt": _elementwise(np.sqrt),
    "rsqrt": _elementwise(lambda x: 1 / np.sqrt(x)), "sin": _elementwise(np.sin),
    "cos": _elementwise(np.cos), "tanh": _elementwise(np.tanh),
    "erf": _elementwise(np.vectorize(math.erf, otypes=[np.float64])),
    "floor": _elementwise(np.floor), "ceil": _elementwise(np.ceil), "pow": _elementwise(np.power),
    "fma": lambda program, op, a, b, c: as_dtype(op.result.dtype, _fma(a, b, c)),
    "cmp": lambda program, op, a, b: PREDICATES[op.attrs["predicate"]](a, b),
    "select": lambda program, op, c, a, b: np.where(c, a, b),
    "cast": _cast,
    "bitcast": lambda program, op, x: from_bits(bits_of(x, op.operands[0].dtype), op.result.dtype),
    "extern_elementwise": _extern_elementwise,
    # memory
    "addptr": _addptr, "load": _load, "store": _store, "atomic": _atomic,
    "atomic_cas": _atomic_cas,
    # across a tile
    "reduce": _reduce, "scan": _scan, "dot": _dot,
    "join": lambda program, op, a, b: np.stack([a, b], axis=-1),
    "split": lambda program, op, x: [x[..., 0], x[..., 1]],
    "gather": _gather, "histogram": _histogram,
    "inline_asm": _inline_asm, "map_elementwise": _map_elementwise,
    # control flow: the rule runs the regions and returns the list of results
    "for": _for, "if": _if, "while": _while,
    # the rest
    "print": _print, "assert": _assert,
    "hint": lambda program, op, x: x,
    "convert_layout": lambda program, op, x: x,
    "barrier": lambda program, op: None,
    "special_register": lambda program, op: SPECIAL_REGISTERS[op.attrs["register"]](),
    "griddepcontrol": lambda program, op: None,  # one grid at a time: nothing to wait for
}
# --8<-- [end:rules]


# --8<-- [start:run]
@dataclass
class Program:
    """One program instance: its id, the grid, memory, the value of every SSA value so far, and
    the arguments each pointer value was made from (`pointer_origins`)."""

    pid: tuple[int, int, int]
    grid: tuple[int, int, int]
    memory: Memory
    env: dict[int, Any]
    origins: dict[int, tuple[str, ...]]

    def origins_of(self, op: ir.Op) -> tuple[str, ...] | None:
        """The arguments a memory op's pointer operand was made from, if known."""
        return self.origins.get(id(op.operands[0]))

    def run(self, block: ir.Block, args: list) -> list:
        """Run a block's ops in order; return the values its terminator passes on."""
        env = self.env
        for arg, value in zip(block.args, args):
            env[id(arg)] = value
        for op in block.ops:
            operands = [env[id(v)] for v in op.operands]
            if op.name in ir.TERMINATORS:  # not evaluated: the block's values go back to its op
                return operands
            result = RULES[op.name](self, op, *operands)
            if op.name in ir.REGION_OPS or len(op.results) > 1:
                env.update(zip(map(id, op.results), result))
            elif op.results:
                env[id(op.results[0])] = result
        return []


def _argument(param: ir.Value, value):
    dtype = param.dtype
    if dtype.is_ptr() and not isinstance(value, (int, np.integer)):
        raise LaunchError(f"argument {param.name!r} is a pointer: pass the address that Memory.add "
                          f"returned, not a {type(value).__name__}")
    if dtype.is_int() and not dtype.is_bool():  # checked as the GPU's launch packs it
        info = np.iinfo(dtype.np)
        if not isinstance(value, (int, np.integer)) or not info.min <= value <= info.max:
            raise LaunchError(f"argument {param.name!r} should be {dtype.name}, got {value!r}")
    return as_dtype(dtype, value)[()]


def interpret(fn: ir.Function, grid: tuple[int, int, int], args: list, memory: Memory) -> None:
    """Run `fn` once per program id over the grid (x fastest), one program after another.

    `args[i]` is the value of `fn.args[i]`: an address from `memory.add` for a pointer, a Python
    number for a scalar (converted to the argument's dtype).
    """
    if len(args) != len(fn.args):
        raise LaunchError(f"{fn.name} takes {len(fn.args)} arguments, got {len(args)}")
    values = {id(param): _argument(param, value) for param, value in zip(fn.args, args)}
    memory.host_pointers = any(op.name in ("cast", "bitcast") and op.result.dtype.is_ptr() and
                               not op.operands[0].dtype.is_ptr() for op in fn.walk())
    origins = pointer_origins(fn)
    grid = tuple(grid) + (1,) * (3 - len(grid))
    with np.errstate(all="ignore"):  # integers wrap and floats overflow silently, as on a GPU
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    Program((x, y, z), grid, memory, dict(values), origins).run(fn.body, [])
# --8<-- [end:run]
