"""The op families that work across a tile: reductions, scans, shape ops and dots.

Their typing is Triton 3.6's `standard.py`: `tl.sum` and `tl.cumsum` add integers narrower than 32
bits in 32 (int1 is unsigned: uint32) and floats in their own type; `tl.max` and `tl.min` compare
narrow floats in fp32 and narrow integers in int32 (with `return_indices`, only bf16 is widened);
scans widen bf16 to fp32; `tl.reduce` and `tl.associative_scan` combine in the input's type. The
order of a float reduction is not specified: its reference is the exact sum, rounded, with a bound
of `(log2(n) + 16)` roundings of the sum of magnitudes (any tree with sequential runs of up to 16);
a scan's reference is the sequential one (left to right, rounding every step) with the same slack.
"""
from __future__ import annotations

import math

import numpy as np

from . import rules
from .rules import BF16, FP16, FP32, I32, DType
from .values import Value, ulp_bound


# Combine functions for tl.reduce / tl.associative_scan: the body, and the dtypes it may take
# (tl.maximum of two bf16s is an fp32, which a combine function may not return).
COMBINES = {
    "add": ("a + b", lambda t: t.kind != "bool"),
    "max": ("tl.maximum(a, b)", lambda t: t != BF16),
    "min": ("tl.minimum(a, b)", lambda t: t != BF16),
    "xor": ("a ^ b", lambda t: t.is_int),
    "or": ("a | b", lambda t: t.is_int),
    "mul": ("a * b", lambda t: t.kind in ("int", "uint")),
}


def _f64(x) -> np.ndarray:
    return np.asarray(x, np.float64)


def _unsigned(x: np.ndarray) -> np.ndarray:
    return x.astype(f"uint{max(x.dtype.itemsize * 8, 8)}") if x.dtype.kind in "iub" and x.dtype != bool else x


def _combine(name: str, x, y, t: DType):
    """One step of a combine function in type t (floats rounded to t)."""
    with np.errstate(all="ignore"):
        if name in ("add", "mul"):
            if t.is_float:
                return rules.round_float((np.add if name == "add" else np.multiply)(_f64(x), _f64(y)), t)
            return rules.wrapping(name, x, y, t)
        if name in ("max", "min"):
            if t.is_float:
                return (np.fmax if name == "max" else np.fmin)(x, y)
            return (np.maximum if name == "max" else np.minimum)(x, y)
        return {"xor": np.bitwise_xor, "or": np.bitwise_or}[name](x, y)


def _fold(name: str, x: np.ndarray, axes: tuple[int, ...], t: DType) -> np.ndarray:
    """The exact fold of a reduction (floats: the float64 sum, rounded once)."""
    if name == "add" and t.is_float:
        with np.errstate(all="ignore"):
            return rules.round_float(np.sum(_f64(x), axis=axes), t)
    if name in ("add", "mul"):
        fn = np.add if name == "add" else np.multiply
        return fn.reduce(_unsigned(x), axis=axes).astype(t.holder)
    if name in ("max", "min"):
        fn = {("max", True): np.fmax, ("min", True): np.fmin, ("max", False): np.maximum,
              ("min", False): np.minimum}[name, t.is_float]
        return fn.reduce(x, axis=axes)
    return {"xor": np.bitwise_xor, "or": np.bitwise_or}[name].reduce(x, axis=axes)


def _sum_bound(x: np.ndarray, err, axes, t: DType, count: int, result) -> np.ndarray:
    """How far a float sum in another order may be from the exact one."""
    with np.errstate(all="ignore"):
        finite = np.isfinite(_f64(x))
        magnitude = np.sum(np.where(finite, np.abs(_f64(x)), 0.0), axis=axes)
        bound = (math.log2(max(count, 2)) + 16) * rules.unit_roundoff(t) * magnitude + ulp_bound(result, t)
        if err is not None:
            bound = bound + np.sum(err, axis=axes)
        # An infinity or a NaN decides the result in every order, unless a partial sum can overflow.
        bound = np.where(np.all(finite, axis=axes), bound, 0.0)
        return np.where(magnitude >= rules.max_finite(t) / 4, np.inf, bound)


def _reduced_shape(shape, axis, keep):
    if axis is None:
        return tuple(1 for _ in shape) if keep else ()
    return tuple(1 if k == axis else s for k, s in enumerate(shape)) if keep else \
        tuple(s for k, s in enumerate(shape) if k != axis)


def _axis_src(axis, keep) -> str:
    if axis is None:
        return ", None, keep_dims=True" if keep else ""
    return f", {axis}" + (", keep_dims=True" if keep else "")


def reduce(g) -> bool:
    kind = g.choice(["sum", "sum", "max", "min", "argmax", "argmin", "max_indices", "xor_sum", "reduce"])
    a = g.pick(lambda v: len(v.shape) >= 1 and (v.exact or kind in ("sum", "max", "min", "reduce")))
    if a is None:
        return False
    axis = None if g.chance(0.25) and kind not in ("argmax", "argmin", "max_indices") else \
        int(g.rng.integers(len(a.shape)))
    keep = g.chance(0.25)
    axes = tuple(range(1, len(a.shape) + 1)) if axis is None else (axis + 1,)
    count = math.prod(a.shape) if axis is None else a.shape[axis]
    shape = _reduced_shape(a.shape, axis, keep)
    defined = None if a.defined is None else np.logical_and.reduce(a.defined, axis=axes, keepdims=True)
    squeeze = lambda r: r.reshape((g.P,) + shape)
    tail = _axis_src(axis, keep)
    if kind in ("argmax", "argmin", "max_indices"):
        return _indices(g, a, kind, axis, keep, shape, axes, defined)
    if kind == "sum":
        target = FP32 if a.dtype.is_float and a.dtype != FP32 and g.chance(0.25) else None
        t = rules.sum_type(a.dtype) if target is None else target
        x = rules.cast(a.ref, a.dtype, t)
        ref = _fold("add", x, axes, t)
        err = _sum_bound(x, a.err, axes, t, count, np.sum(_f64(x), axis=axes)) if t.is_float else None
        src = f"tl.sum({a.name}{tail}" + (f", dtype=tl.{target.name})" if target else ")")
        if target is None and g.chance(0.3) and axis is not None and not keep:
            src = f"{a.name}.sum({axis})"
    elif kind in ("max", "min"):
        t = rules.extremum_type(a.dtype)
        ref = _fold(kind, rules.cast(a.ref, a.dtype, t), axes, t)
        err = None if a.exact else np.max(a.err, axis=axes)
        src = f"tl.{kind}({a.name}{tail})"
    elif kind == "xor_sum":
        if not a.dtype.is_int:
            return False
        t, ref, err, src = a.dtype, _fold("xor", a.ref, axes, a.dtype), None, f"tl.xor_sum({a.name}{tail})"
    else:
        name = g.choice([n for n, (_, ok) in COMBINES.items() if ok(a.dtype)])
        if not a.exact and name not in ("add", "max", "min"):
            return False
        t = a.dtype
        ref = _fold(name, a.ref, axes, t)
        err = None
        if t.is_float and name == "add":
            err = _sum_bound(a.ref, a.err, axes, t, count, np.sum(_f64(a.ref), axis=axes))
        elif not a.exact:
            err = np.max(a.err, axis=axes)
        g.helpers[f"combine_{name}"] = COMBINES[name][0]
        src = f"tl.reduce({a.name}, {axis}, combine_{name}" + (", keep_dims=True)" if keep else ")")
    g.value(src, t, shape, squeeze(ref), None if err is None else squeeze(err),
            defined=None if defined is None else squeeze(defined))
    return True


def _indices(g, a: Value, kind, axis, keep, shape, axes, defined) -> bool:
    """tl.argmax / tl.argmin, and tl.max(..., return_indices=True): the first index among equal
    values, where a NaN loses to every number (as in tl.max); a slice of NaN alone gives index 0."""
    t = FP32 if a.dtype == BF16 else a.dtype
    x = rules.cast(a.ref, a.dtype, t)
    squeeze = lambda r: np.asarray(r).reshape((g.P,) + shape)
    f = _f64(x) if t.is_float else np.asarray(x)
    nan = np.isnan(f) if t.is_float else np.zeros(f.shape, bool)
    worst = np.inf if kind == "argmin" else -np.inf
    key = np.where(nan, worst, f) if t.is_float else f
    best_key = (np.min if kind == "argmin" else np.max)(key, axis=axes[0], keepdims=True)
    winners = (key == best_key) & ~nan
    winners |= ~np.any(winners, axis=axes[0], keepdims=True)  # all NaN: every index ties
    first = np.argmax(winners, axis=axes[0], keepdims=True)
    index, best = squeeze(first.astype(np.int32)), squeeze(np.take_along_axis(x, first, axis=axes[0]))
    defined = None if defined is None else squeeze(defined)
    tail = f", {axis}" + (", keep_dims=True" if keep else "")
    if kind != "max_indices":
        g.value(f"tl.{kind}({a.name}{tail})", I32, shape, index, defined=defined)
        return True
    g.values(f"tl.max({a.name}{tail}, return_indices=True)", [(t, shape, best, None), (I32, shape, index, None)], defined)
    return True


def scan(g) -> bool:
    kind = g.choice(["cumsum", "cumsum", "cumprod", "scan"])
    a = g.pick(lambda v: len(v.shape) >= 1 and (v.exact or kind != "cumprod"))
    if a is None:
        return False
    axis = int(g.rng.integers(len(a.shape)))
    reverse = g.chance(0.3)
    if kind == "cumsum":
        name, t = "add", rules.sum_type(FP32 if a.dtype == BF16 else a.dtype)
        src = f"tl.cumsum({a.name}, {axis}" + (", reverse=True)" if reverse else ")")
    elif kind == "cumprod":
        name, t = "mul", FP32 if a.dtype == BF16 else a.dtype
        if t.kind == "bool":
            return False
        src = f"tl.cumprod({a.name}, {axis}" + (", reverse=True)" if reverse else ")")
    else:
        name = g.choice([n for n, (_, ok) in COMBINES.items() if ok(a.dtype)])
        if not a.exact and name not in ("add", "max", "min"):
            return False
        t = a.dtype
        g.helpers[f"combine_{name}"] = COMBINES[name][0]
        src = f"tl.associative_scan({a.name}, {axis}, combine_{name}" + (", reverse=True)" if reverse else ")")
    x = np.moveaxis(rules.cast(a.ref, a.dtype, t), axis + 1, 1)
    order = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
    out, acc = np.empty_like(x), None
    for k in order:
        acc = x[:, k] if acc is None else _combine(name, acc, x[:, k], t)
        out[:, k] = acc
    ref = np.moveaxis(out, 1, axis + 1)
    err = _scan_bound(g, a, x, name, t, axis, reverse, ref) if t.is_float and (name in ("add", "mul") or not a.exact) \
        else None
    defined = None
    if a.defined is not None:
        d = np.moveaxis(a.defined, axis + 1, 1)
        d = np.flip(np.logical_and.accumulate(np.flip(d, 1), axis=1), 1) if reverse else np.logical_and.accumulate(d, axis=1)
        defined = np.moveaxis(d, 1, axis + 1)
    g.value(src, t, a.shape, ref, err, defined=defined)
    return True


def _scan_bound(g, a: Value, x, name, t: DType, axis, reverse, ref) -> np.ndarray:
    """The slack of a float scan around the sequential result: as a sum's for `add` (over the
    running sum of magnitudes), relative for `mul`, the operands' own for max and min."""
    def running(y, fn):
        y = np.flip(y, 1) if reverse else y
        y = fn(y, axis=1)
        return np.flip(y, 1) if reverse else y

    n = x.shape[1]
    depth = (math.log2(max(n, 2)) + 16) * rules.unit_roundoff(t)
    with np.errstate(all="ignore"):
        finite = running(np.isfinite(_f64(x)), np.logical_and.accumulate)
        if name == "add":
            magnitude = running(np.where(np.isfinite(_f64(x)), np.abs(_f64(x)), 0.0), np.cumsum)
            bound = depth * magnitude + ulp_bound(np.moveaxis(ref, axis + 1, 1), t)
            if a.err is not None:
                bound = bound + running(np.moveaxis(a.err, axis + 1, 1), np.cumsum)
        elif name == "mul":  # near an overflow or an underflow, the order decides: no bound
            magnitude = running(np.abs(_f64(x)), np.cumprod)
            tiny = running(np.abs(_f64(x)) < 2.0 ** -60, np.logical_or.accumulate)
            bound = np.where(tiny, np.inf, depth * magnitude + 2.0 ** -126 * n)
        else:  # max and min: a NaN is ignored, so it decides nothing
            return np.moveaxis(running(np.moveaxis(a.err, axis + 1, 1), np.maximum.accumulate), 1, axis + 1)
        bound = np.where(finite, bound, 0.0)
        bound = np.where(magnitude >= rules.max_finite(t) / 4, np.inf, bound)
    return np.moveaxis(bound, 1, axis + 1)


def shape(g) -> bool:
    kind = g.choice(["trans", "reshape", "expand", "broadcast"])
    if kind == "trans":
        a = g.pick(lambda v: len(v.shape) == 2)
        if a is None:
            return False
        src = g.choice([f"tl.trans({a.name})", f"tl.permute({a.name}, (1, 0))", f"{a.name}.T"])
        g.value(src, a.dtype, a.shape[::-1], np.swapaxes(a.ref, 1, 2), None if a.exact else np.swapaxes(a.err, 1, 2),
                defined=None if a.defined is None else np.swapaxes(a.defined, 1, 2))
        return True
    if kind == "reshape":
        a = g.pick(lambda v: len(v.shape) >= 1 and math.prod(v.shape) >= 2)
        if a is None:
            return False
        numel = math.prod(a.shape)
        shapes = {w.shape for w in g.frame.views.values() if math.prod(w.shape) == numel} | {(numel,)}
        shapes.discard(a.shape)
        if not shapes:
            return False
        target = g.choice(sorted(shapes))
        move = lambda x: None if x is None else x.reshape((g.P,) + target)
        g.value(f"tl.reshape({a.name}, {target})", a.dtype, target, move(a.ref), move(a.err), defined=move(a.defined))
        return True
    if kind == "expand":
        a = g.pick(lambda v: len(v.shape) == 1)
        if a is None:
            return False
        axis = int(g.rng.integers(2))
        src = g.choice([f"{a.name}[:, None]" if axis == 1 else f"{a.name}[None, :]", f"tl.expand_dims({a.name}, {axis})"])
        move = lambda x: None if x is None else np.expand_dims(x, axis + 1)
        target = (a.shape[0], 1) if axis == 1 else (1, a.shape[0])
        g.value(src, a.dtype, target, move(a.ref), move(a.err), defined=move(a.defined))
        return True
    a = g.pick(lambda v: len(v.shape) == 2 and 1 in v.shape)
    if a is None:
        return False
    targets = [w.shape for w in g.frame.views.values() if len(w.shape) == 2 and
               all(s == 1 or s == ws for s, ws in zip(a.shape, w.shape))]
    if not targets:
        return False
    target = g.choice(targets)
    move = lambda x: None if x is None else np.broadcast_to(x, (g.P,) + target).copy()
    g.value(f"tl.broadcast_to({a.name}, {target})", a.dtype, target, move(a.ref), move(a.err), defined=move(a.defined))
    return True


DOT_TYPES = {"float16": FP16, "bfloat16": BF16, "float32": FP32, "int8": rules.TYPES["int8"]}


def dot(g) -> bool:
    """tl.dot of two 2-D tiles (each dimension 16 to 128), converted to a common input type: fp16,
    bf16 and fp32 ("ieee", or tf32 whose inputs keep 11 significant bits) accumulate in fp32,
    int8 (K >= 32) in int32."""
    ok = lambda n: 16 <= n <= 128
    a = g.pick(lambda v: v.exact and len(v.shape) == 2 and ok(v.shape[0]) and ok(v.shape[1]))
    if a is None:
        return False
    b = g.pick(lambda v: v.exact and len(v.shape) == 2 and v.shape[0] == a.shape[1] and ok(v.shape[1]))
    if b is None:
        return False
    integers = a.dtype.is_int and b.dtype.is_int
    name = g.choice([n for n in DOT_TYPES if n != "int8" or (integers and a.shape[1] >= 32)])
    dt = DOT_TYPES[name]
    operands, refs = [], []
    for v in (a, b):
        operands.append(v.name if v.dtype == dt else f"{v.name}.to(tl.{dt.name})")
        refs.append(rules.cast(v.ref, v.dtype, dt))
    precision = g.choice([None, "ieee", "tf32"]) if dt == FP32 else None
    out = I32 if dt.is_int else FP32
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    acc = g.pick(lambda v: v.exact and v.shape == (m, n) and v.dtype == out) if g.chance(0.3) else None
    src = f"tl.dot({operands[0]}, {operands[1]}" + (f", {acc.name}" if acc else "") + \
          (f", input_precision=\"{precision}\"" if precision else "") + \
          (", out_dtype=tl.int32)" if acc and dt.is_int else ")")  # an accumulator must be of out_dtype
    x, y = refs
    da, db = a.defined_lanes(), b.defined_lanes()
    defined = np.all(da, axis=2)[:, :, None] & np.all(db, axis=1)[:, None, :] & \
        (acc.defined_lanes() if acc else True)
    if dt.is_int:
        product = np.matmul(x.astype(np.int64), y.astype(np.int64)) + (acc.ref.astype(np.int64) if acc else 0)
        g.value(src, out, (m, n), product.astype(np.int32), None, defined=defined)
        return True
    with np.errstate(all="ignore"):
        exact = np.matmul(_f64(x), _f64(y)) + (_f64(acc.ref) if acc else 0.0)
        finite_abs = lambda v: np.where(np.isfinite(_f64(v)), np.abs(_f64(v)), 0.0)
        magnitude = np.matmul(finite_abs(x), finite_abs(y)) + (finite_abs(acc.ref) if acc else 0.0)
        bound = (k + 8) * rules.unit_roundoff(FP32) * magnitude + ulp_bound(exact, FP32)
        if dt == FP32 and precision != "ieee":  # each operand cut toward zero: under 2**-10 of itself
            bound = bound + 2.0**-9 * (1 + 2.0**-10) * magnitude
        finite = np.all(np.isfinite(_f64(x)), axis=2)[:, :, None] & np.all(np.isfinite(_f64(y)), axis=1)[:, None, :]
        finite = finite & (np.isfinite(_f64(acc.ref)) if acc else True)
        bound = np.where(magnitude >= rules.max_finite(FP32) / 4, np.inf, np.where(finite, bound, 0.0))
    g.value(src, out, (m, n), rules.round_float(exact, FP32), bound, defined=defined)
    return True
