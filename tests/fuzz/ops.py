"""The op families a random program is made of: for each, when it applies, the source it writes,
and its reference (the result's type by Triton's rules, its values in numpy, its error bound).

A family is `fn(g) -> bool`, `g` being the `generate.Generator` (its random choices, its values,
`g.value(...)` to write a statement); False when nothing fits (no operand of a usable type). A
combination Triton refuses raises `rules.Refused`, and the generator tries another. `FAMILIES`
says how often each is tried.
"""
from __future__ import annotations

import math

import numpy as np

from . import rules
from .rules import BF16, BOOL, FP32, FP64, DType, Refused
from .values import Literal, Value, broadcast, defined_of, error_of, expand, holder_of, ulp_bound


def _is_literal(x) -> bool:
    return isinstance(x, Literal)


def _typed(a, b, div_or_mod=False) -> DType:
    return rules.binary_type(a.dtype, _is_literal(a), b.dtype, _is_literal(b), getattr(a, "value", None),
                             getattr(b, "value", None), div_or_mod)


def _operands(g, t: DType, shape, *xs, weak=True):
    """Each operand's reference in type t, broadcast to the result's rank."""
    return [expand(holder_of(x, t, g.P, weak), len(shape)) for x in xs]


def _f64(x) -> np.ndarray:
    return np.asarray(x, np.float64)


def _exact(x) -> bool:
    return _is_literal(x) or x.exact


def _swap_literal(g, a, b):
    return (b, a) if _is_literal(b) and g.chance(0.3) else (a, b)


# --- arithmetic ------------------------------------------------------------------------------------
ARITH = {"+": ("add", np.add), "-": ("sub", np.subtract), "*": ("mul", np.multiply)}


def arith(g) -> bool:
    a = g.pick(lambda v: v.dtype != BOOL)
    if a is None:
        return False
    lhs, rhs = _swap_literal(g, a, g.partner(a, want=lambda v: v.dtype != BOOL))
    symbol = g.choice(ARITH)
    t = _typed(lhs, rhs)
    shape = broadcast([lhs.shape, rhs.shape])
    x, y = _operands(g, t, shape, lhs, rhs)
    name, fn = ARITH[symbol]
    err = None
    if t.is_int:
        ref = rules.wrapping(name, x, y, t)
    else:
        with np.errstate(all="ignore"):
            exact = fn(_f64(x), _f64(y))
            ref = rules.round_float(exact, t)
            # an add or subtract of an fp32 product may be one fma (passes/simplify.py), which
            # skips the product's rounding: up to an ulp of it, beyond the sum's own
            fused = [v for v in (lhs, rhs) if name != "mul" and t == FP32 and getattr(v, "product", False)]
            if fused or not (_exact(lhs) and _exact(rhs)):
                ex, ey = error_of(lhs, len(shape)), error_of(rhs, len(shape))
                err = ex + ey if name != "mul" else np.abs(_f64(x)) * ey + np.abs(_f64(y)) * ex + ex * ey
                for v in fused:
                    err = err + expand(ulp_bound(_f64(v.ref), FP32), len(shape))
                err = err + ulp_bound(exact, t)
    made = g.value(f"{lhs.name} {symbol} {rhs.name}", t, shape, ref, err, [lhs, rhs])
    made.product = name == "mul" and t == FP32
    return True


# --8<-- [start:nonzero]
def _nonzero(g, b: Value) -> Value:
    """b, with 0 (and -1 for signed integers) replaced: a divisor that is never undefined."""
    if b.dtype.is_float:
        cond, k = f"{b.name} == 0", 1.5
        bad = b.ref == 0
    elif b.dtype.signed:
        cond, k = f"({b.name} == 0) | ({b.name} == -1)", -3 if g.chance(0.5) else 3
        bad = (b.ref == 0) | (b.ref == -1)
    else:
        cond, k, bad = f"{b.name} == 0", 3, b.ref == 0
    fill = holder_of(Literal(k), b.dtype, g.P)
    return g.value(f"tl.where({cond}, {k}, {b.name})", b.dtype, b.shape,
                   np.where(bad, expand(fill, len(b.shape)), b.ref), operands=[b])


def _toward(g, v: Value, k: int) -> Value:
    """v, with the lanes where its low two bits are 01 set to k: an integer's edge on purpose."""
    fill = expand(holder_of(Literal(k), v.dtype, g.P), len(v.shape))
    low_bits = v.ref & np.array(3).astype(v.dtype.holder)
    chosen = low_bits == np.array(1).astype(v.dtype.holder)
    return g.value(f"tl.where(({v.name} & 3) == 1, {k}, {v.name})", v.dtype, v.shape,
                   np.where(chosen, fill, v.ref), operands=[v])
# --8<-- [end:nonzero]
# --8<-- [end:nonzero]


def divide(g) -> bool:
    """`/`, `//` and `%`: the divisor kept away from zero first."""
    symbol = g.choice(["/", "//", "%"])
    a = g.pick(lambda v: v.exact and v.dtype != BOOL and (symbol != "//" or v.dtype.is_int))
    if a is None:
        return False
    b = g.partner(a, literal=0.3, want=lambda v: v.exact and v.dtype != BOOL and (symbol != "//" or v.dtype.is_int))
    if _is_literal(b) and (b.value in (0, -1) or (symbol == "//" and isinstance(b.value, float))):
        return False
    lhs, rhs = _swap_literal(g, a, b)
    t = _typed(lhs, rhs, div_or_mod=True)
    if symbol == "//" and not t.is_int:
        raise Refused("// of floats")
    if t.is_int and g.chance(0.25):  # the edges minitriton defines: x // 0, INT_MIN // -1
        if not _is_literal(rhs):
            rhs = _toward(g, rhs, g.choice([0, -1]) if rhs.dtype.signed else 0)
        if not _is_literal(lhs) and lhs.dtype.signed:
            lhs = _toward(g, lhs, -(1 << (lhs.dtype.bits - 1)))
    elif not _is_literal(rhs):
        rhs = _nonzero(g, rhs)
    shape = broadcast([lhs.shape, rhs.shape])
    x, y = _operands(g, t, shape, lhs, rhs)
    err = None
    with np.errstate(all="ignore"):
        if symbol == "/":
            result = FP32 if t.is_int else t
            if t.is_int:
                x, y = rules.cast(x, t, FP32), rules.cast(y, t, FP32)
            exact = _f64(x) / _f64(y)
            ref = rules.round_float(exact, result)
            if result == FP32:  # div.full.f32: two ulps (Triton's lowering of fp32 `/`)
                err = np.abs(exact) * 2.0**-22 + 2.0**-126
            t = result
        elif t.is_int:
            ref = (rules.c_div if symbol == "//" else rules.c_rem)(x, y, t)
        else:
            ref = rules.round_float(np.fmod(_f64(x), _f64(y)), t)
    defined = None
    if symbol == "%" and t.is_float:
        # fmod is exact, but GPUs compute x - trunc(x / y) * y (LLVM's lowering of frem; minitriton's
        # is exact while the quotient is below 2**29): past that, no GPU gives fmod.
        with np.errstate(all="ignore"):
            defined = ~(np.abs(_f64(x) / _f64(y)) >= 2.0**29)
        operands = defined_of([lhs, rhs], shape, g.P)
        defined = np.broadcast_to(defined, (g.P,) + shape) & (True if operands is None else operands)
    g.value(f"{lhs.name} {symbol} {rhs.name}", t, shape, ref, err, [lhs, rhs], defined=defined)
    return True


def extremum(g) -> bool:
    """tl.minimum / tl.maximum: bf16 is compared in fp32, a literal is a tensor of its own type."""
    a = g.pick(lambda v: v.dtype != BOOL)
    if a is None:
        return False
    b = g.partner(a, literal=0.25, want=lambda v: v.dtype != BOOL)
    ta, tb = (FP32 if x.dtype == BF16 else x.dtype for x in (a, b))
    t = rules.computation_type(ta, False, tb, False)
    shape = broadcast([a.shape, b.shape])
    x, y = _operands(g, t, shape, a, b, weak=False)
    which = g.choice(["minimum", "maximum"])
    nan = g.chance(0.3) and t.is_float
    if t.is_float:
        fn = {("minimum", False): np.fmin, ("maximum", False): np.fmax, ("minimum", True): np.minimum,
              ("maximum", True): np.maximum}[which, nan]
        ref = fn(x, y)
    else:
        ref = (np.minimum if which == "minimum" else np.maximum)(x, y)
    err = None if _exact(a) and _exact(b) else np.maximum(error_of(a, len(shape)), error_of(b, len(shape)))
    tail = ", propagate_nan=tl.PropagateNan.ALL" if nan else ""
    g.value(f"tl.{which}({a.name}, {b.name}{tail})", t, shape, ref, err, [a, b])
    return True


COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
           "!=": np.not_equal}


def compare(g) -> bool:
    a = g.pick(lambda v: v.exact)
    if a is None:
        return False
    lhs, rhs = _swap_literal(g, a, g.partner(a, want=lambda v: v.exact))
    t = _typed(lhs, rhs)
    shape = broadcast([lhs.shape, rhs.shape])
    x, y = _operands(g, t, shape, lhs, rhs)
    symbol = g.choice(COMPARE)
    g.value(f"{lhs.name} {symbol} {rhs.name}", BOOL, shape, COMPARE[symbol](x, y), None, [lhs, rhs])
    return True


# --- bits ------------------------------------------------------------------------------------------
BITWISE = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}


def bitwise(g) -> bool:
    integer = lambda v: v.exact and v.dtype.is_int
    a = g.pick(integer)
    if a is None:
        return False
    symbol = g.choice(["&", "|", "^", "~", "<<", ">>", "umulhi"])
    if symbol == "~":
        g.value(f"~{a.name}", a.dtype, a.shape, np.invert(a.ref), None, [a])
        return True
    if symbol in ("<<", ">>"):
        return _shift(g, a, symbol)
    if symbol == "umulhi":
        wide = lambda v: integer(v) and v.dtype.name in ("int32", "int64", "uint32", "uint64")
        a, b = g.pick(wide), None
        b = g.pick(lambda v: wide(v) and a is not None and broadcast([a.shape, v.shape]) is not None)
        if a is None or b is None:
            return False
        t = rules.computation_type(a.dtype, False, b.dtype, False)
        shape = broadcast([a.shape, b.shape])
        x, y = _operands(g, t, shape, a, b)
        g.value(f"tl.umulhi({a.name}, {b.name})", t, shape, rules.umulhi(x, y, t), None, [a, b])
        return True
    lhs, rhs = _swap_literal(g, a, g.partner(a, want=integer))
    if _is_literal(rhs) and isinstance(rhs.value, float) or _is_literal(lhs) and isinstance(lhs.value, float):
        return False
    t = _typed(lhs, rhs)
    if not t.is_int:
        raise Refused("bitwise operands must be integers")
    shape = broadcast([lhs.shape, rhs.shape])
    x, y = _operands(g, t, shape, lhs, rhs)
    g.value(f"{lhs.name} {symbol} {rhs.name}", t, shape, BITWISE[symbol](x, y), None, [lhs, rhs])
    return True


def _shift(g, a: Value, symbol: str) -> bool:
    """a << b, a >> b: `>>` is arithmetic when `a` is signed. The amount is masked below the width,
    or one time in four below twice the width: past it, the edge minitriton defines."""
    if a.dtype.kind == "bool":
        return False
    b = g.pick(lambda v: v.exact and v.dtype.kind in ("int", "uint") and broadcast([a.shape, v.shape]) is not None)
    if b is None or g.chance(0.3):
        t = a.dtype
        b = Literal(int(g.rng.integers(0, t.bits)))
    else:
        t = rules.computation_type(a.dtype, False, b.dtype, False)
        below = min(t.bits * (2 if g.chance(0.25) else 1), 1 << (b.dtype.bits - b.dtype.signed)) - 1
        b = g.value(f"{b.name} & {below}", b.dtype, b.shape, b.ref & np.array(below).astype(b.dtype.holder),
                    None, [b])
    shape = broadcast([a.shape, b.shape])
    x, y = _operands(g, t, shape, a, b)
    ref = rules.shift("shl" if symbol == "<<" else "shr", x, y, t, arithmetic=a.dtype.signed)
    g.value(f"{a.name} {symbol} {b.name}", t, shape, ref, None, [a, b])
    return True


# --- selection, one-operand ops, casts ----------------------------------------------------------------
def where(g) -> bool:
    cond = g.pick(lambda v: v.dtype == BOOL and v.exact)
    if cond is None:
        return False
    a = g.pick(lambda v: broadcast([cond.shape, v.shape]) is not None)
    b = g.partner(a, literal=0.3, want=lambda v: broadcast([cond.shape, a.shape, v.shape]) is not None)
    a, b = _swap_literal(g, a, b)
    t = _typed(a, b)
    shape = broadcast([cond.shape, a.shape, b.shape])
    x, y = _operands(g, t, shape, a, b)
    c = expand(cond.ref, len(shape))
    err = None if _exact(a) and _exact(b) else np.where(c, error_of(a, len(shape)), error_of(b, len(shape)))
    g.value(f"tl.where({cond.name}, {a.name}, {b.name})", t, shape, np.where(c, x, y), err, [cond, a, b])
    return True


def unary(g) -> bool:
    a = g.pick(lambda v: v.dtype.kind != "bool")
    if a is None:
        return False
    op = g.choice(["neg", "abs", "math", "math", "fma"])
    t = a.dtype
    if op == "neg":
        with np.errstate(all="ignore"):
            ref = rules.wrapping("sub", np.zeros_like(a.ref), a.ref, t) if t.is_int else \
                rules.round_float(0.0 - _f64(a.ref), t)
        g.value(f"-{a.name}", t, a.shape, ref, a.err, [a])
    elif op == "abs":
        ref = a.ref if t.kind == "uint" else np.abs(a.ref)
        g.value(f"tl.abs({a.name})", t, a.shape, ref, a.err, [a])
    elif op == "math":
        return _math(g)
    else:
        return _fma(g, a)
    return True


def _math(g) -> bool:
    """Math functions take fp32 and fp64 only (math.py's _check_dtype); floor, ceil and sqrt_rn
    are exact, the others approximate."""
    a = g.pick(lambda v: v.exact and v.dtype in (FP32, FP64))
    if a is None:
        return False
    name = g.choice(list(MATH_FUNCTIONS) + ["floor", "ceil", "sqrt_rn"])
    if name == "sqrt_rn" and a.dtype != FP32:
        return False
    x = _f64(a.ref)
    with np.errstate(all="ignore"):
        if name in ("floor", "ceil", "sqrt_rn"):
            ref, err = rules.round_float({"floor": np.floor, "ceil": np.ceil, "sqrt_rn": np.sqrt}[name](x), a.dtype), None
        else:
            fn, bound = MATH_FUNCTIONS[name]
            exact = fn(x)
            ref = rules.round_float(exact, a.dtype)
            err = bound(x, exact) if a.dtype == FP32 else np.abs(exact) * 2.0**-50 + 2.0**-60 * (1 + np.abs(x))
            err = err + ulp_bound(exact, a.dtype)
    g.value(f"tl.{name}({a.name})", a.dtype, a.shape, ref, err, [a])
    return True


# f(x) in float64, and how far an fp32 result of Triton's lowering may be from it (beyond rounding).
MATH_FUNCTIONS = {
    "exp": (np.exp, lambda x, r: np.abs(r) * (2.0**-21 + np.abs(x) * 2.0**-23)),
    # ex2.approx.ftz: a result below the smallest normal fp32 may be 0
    "exp2": (np.exp2, lambda x, r: np.abs(r) * 2.0**-21 + np.where(np.abs(r) < 2.0**-126, 2.0**-126, 0.0)),
    "log": (np.log, lambda x, r: np.abs(r) * 2.0**-21 + 2.0**-21),
    "log2": (np.log2, lambda x, r: np.abs(r) * 2.0**-21 + 2.0**-21),
    "sqrt": (np.sqrt, lambda x, r: np.abs(r) * 2.0**-22),
    "rsqrt": (lambda x: 1 / np.sqrt(x), lambda x, r: np.abs(r) * 2.0**-21),
    "sin": (np.sin, lambda x, r: 2.0**-20 + np.abs(x) * 2.0**-22),
    "cos": (np.cos, lambda x, r: 2.0**-20 + np.abs(x) * 2.0**-22),
    "erf": (np.vectorize(math.erf, otypes=[np.float64]), lambda x, r: np.abs(r) * 2.0**-21 + 2.0**-23),
}


def _fma(g, a: Value) -> bool:
    """tl.fma(a, b, c): one rounding. Each operand is a tensor (a literal of its own type) and the
    three are promoted together; fp64 is left out (the reference rounds through float64)."""
    b, c = (g.partner(a, literal=0.2, want=lambda v: v.dtype.kind != "bool") for _ in range(2))
    first = rules.computation_type(a.dtype, False, b.dtype, False)  # x, y = legalize(x, y)
    t = rules.computation_type(first, False, c.dtype, False)          # then each with z
    if not t.is_float or t == FP64:
        return False
    shape = broadcast([a.shape, b.shape, c.shape])
    if shape is None:
        return False
    x, y = (rules.cast(v, first, t) for v in _operands(g, first, shape, a, b, weak=False))
    (z,) = _operands(g, t, shape, c, weak=False)
    ref, err = rules.fma(x, y, z, t), None
    if not (_exact(a) and _exact(b) and _exact(c)):
        ea, eb, ec = (error_of(v, len(shape)) for v in (a, b, c))
        with np.errstate(all="ignore"):
            err = np.abs(_f64(x)) * eb + np.abs(_f64(y)) * ea + ea * eb + ec + ulp_bound(_f64(x) * _f64(y) + _f64(z), t)
    g.value(f"tl.fma({a.name}, {b.name}, {c.name})", t, shape, ref, err, [a, b, c])
    return True


def _largest_below(limit: int) -> float:
    """The largest fp32 number <= limit (it is an fp64 number too): a clamp written as a literal
    becomes an fp32 tensor first (to_tensor)."""
    x = np.float32(limit)
    return float(x if float(x) <= limit else np.nextafter(x, np.float32(0)))


def cast(g) -> bool:
    a = g.pick()
    target = g.choice([t for t in rules.TYPES.values() if t != a.dtype])
    if g.chance(0.15):
        return _bitcast(g)
    if not a.exact and not (a.dtype.is_float and target.is_float):
        return False  # an approximate value only goes on continuously
    form = "{}.to(tl.{})" if g.chance(0.7) else "tl.cast({}, tl.{})"
    err = None
    if a.dtype.is_float and target.is_int and target.kind != "bool":
        clamp = FP64 if a.dtype == FP64 else FP32
        low, high = rules.int_range(target)
        lo, hi = float(low), _largest_below(high)
        x = rules.cast(a.ref, a.dtype, clamp)
        bounds = [rules.cast(np.array(v, np.float32), FP32, clamp) for v in (lo, hi)]
        clamped = np.fmin(np.fmax(x, bounds[0]), bounds[1])
        ref = rules.float_to_int(clamped, target)
        src = form.format(f"tl.minimum(tl.maximum({a.name}, {lo!r}), {hi!r})", target.name)
    else:
        ref = rules.cast(a.ref, a.dtype, target)
        src = form.format(a.name, target.name)
        if not a.exact:
            err = a.err + (ulp_bound(ref, target) if target.bits < a.dtype.bits else 0.0)
    g.value(src, target, a.shape, ref, err, [a])
    return True


def _bitcast(g) -> bool:
    """The same bits as another type: from a load's bits, or from any exact integer."""
    a = g.pick(lambda v: v.dtype.kind != "bool" and (v.leaf or (v.exact and v.dtype.is_int)))
    if a is None:
        return False
    targets = [t for t in rules.TYPES.values() if t.bits == a.dtype.bits and t != a.dtype and t.kind != "bool"]
    if not targets:
        return False
    target = g.choice(targets)
    g.value(f"{a.name}.to(tl.{target.name}, bitcast=True)", target, a.shape,
            rules.bitcast(a.ref, a.dtype, target), None, [a], leaf=a.leaf)
    return True


def load(g) -> bool:
    """A load of an input in another view (maybe a new input), maybe with a data-dependent mask."""
    inp = g.choice(g.inputs) if g.chance(0.7) else g.new_input(g.choice(list(rules.TYPES.values())))
    view = g.choice(list(g.frame.views.values()))
    cond = g.pick(lambda v: v.dtype == BOOL and v.exact and v.shape == view.shape) if g.chance(0.3) else None
    g.load(inp, view, cond)
    return True

