"""The numpy twin of every libdevice symbol: what the interpreter computes for `extern_elementwise`.

Place in the pipeline: under the interpreter, which calls `TWINS[symbol](*operands)` on the
operands' numpy values (16-bit floats already widened to float32, the f32 symbol's argument) and
rounds what comes back to the op's result type. A twin of a float function computes in float64, so
an fp32 twin is correctly rounded; NVIDIA documents its functions within a few ulp of that (the
`fast_` ones far less: they are the GPU's approximate instructions, and their twins are the exact
functions they approximate). Where the result is an integer or a bit pattern, the twin says exactly
what the GPU gives, edge cases included (NaN, overflow), read from libdevice's own code. Chapter:
03-tile-ir (the interpreter).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from . import rounding, special
from .table import FUNCTIONS, Variant


def _wide(x) -> np.ndarray:
    """A float operand as float64 (integers stay as they are)."""
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype.kind == "f" else x


def _vectorized(fn: Callable) -> Callable:
    return np.vectorize(fn, otypes=[np.float64])


def _round_half_away(x):
    whole = np.trunc(x)
    return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0.0)


def _pi_times(x, fn):
    """sin(pi x) or cos(pi x) with the reduction done exactly: x mod 2 is exact, and so is the
    reduction to [-1/4, 1/4] by quarter turns, so integers and half-integers give exact zeros."""
    r = np.fmod(x, 2.0)
    quarter = np.rint(r * 2)  # r = quarter / 2 + t, |t| <= 1/4
    t = r - quarter / 2
    k = quarter.astype(np.int64) % 4
    s, c = np.sin(np.pi * t), np.cos(np.pi * t)
    if fn == "sin":  # sin(pi (t + k/2)) for k = 0, 1, 2, 3
        value = np.choose(k, [s, c, -s, -c])
    else:
        value = np.choose(k, [c, -s, -c, s])
    value = np.where(value == 0, np.abs(value) if fn == "cos" else np.copysign(0.0, x), value)
    return np.where(np.isinf(x), np.nan, value)


def _norm(*xs):
    """sqrt(x0^2 + x1^2 + ...), scaled by the largest so nothing overflows; inf if any is inf."""
    xs = [np.abs(x) for x in xs]
    largest = np.maximum.reduce(xs)
    with np.errstate(all="ignore"):
        safe = np.where((largest == 0) | np.isinf(largest), 1.0, largest)
        total = sum((x / safe) ** 2 for x in xs)
        value = safe * np.sqrt(total)
    value = np.where(largest == 0, 0.0, value)
    return np.where(np.isinf(largest), np.inf, value)


def _logb(x):
    mantissa, exponent = np.frexp(x)
    value = (exponent - 1).astype(np.float64)
    value = np.where(x == 0, -np.inf, value)
    return np.where(np.isinf(x), np.inf, np.where(np.isnan(x), np.nan, value))


def _ilogb(x):
    mantissa, exponent = np.frexp(x)
    value = np.where(x == 0, np.iinfo(np.int32).min, exponent - 1)
    value = np.where(np.isinf(x), np.iinfo(np.int32).max, value)
    return np.where(np.isnan(x), np.iinfo(np.int32).min, value).astype(np.int32)


def _remainder(x: float, y: float) -> float:
    """IEEE's remainder: x - n y for the integer n nearest x / y; NaN for y = 0 or an infinite x."""
    try:
        return math.remainder(x, y)
    except ValueError:
        return math.nan


def _fdim(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0))


def _rcp64h(x):
    """`rcp.approx.ftz.f64`: 1/x from the top 32 bits of x, its own low 32 bits zero."""
    top = (np.asarray(x, np.float64).view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)
    with np.errstate(all="ignore"):
        reciprocal = 1 / top
    return (reciprocal.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)


def _order_at_least_0(bessel: Callable) -> Callable:
    """libdevice's jn and yn: NaN for a negative order (measured on the GPU), the function elsewhere."""
    return lambda n, x: np.where(np.asarray(n) < 0, np.nan, bessel(np.maximum(n, 0), x))


# Functions of floats, computed in float64 (libdevice's fp32 versions get their result rounded).
MATH: dict[str, Callable] = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x),
    "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "rcbrt": lambda x: 1 / np.cbrt(x),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": _round_half_away, "rint": np.rint,
    "nearbyint": np.rint, "sinpi": lambda x: _pi_times(x, "sin"), "cospi": lambda x: _pi_times(x, "cos"),
    "logb": _logb, "ilogb": _ilogb,
    "atan2": np.arctan2, "hypot": _norm, "rhypot": lambda x, y: 1 / _norm(x, y), "copysign": np.copysign,
    "fmod": np.fmod, "remainder": _vectorized(_remainder), "fdim": _fdim,
    "norm3d": _norm, "rnorm3d": lambda *xs: 1 / _norm(*xs), "norm4d": _norm, "rnorm4d": lambda *xs: 1 / _norm(*xs),
    "pow": np.power, "ldexp": np.ldexp, "scalbn": np.ldexp,
    "erf": special.erf, "erfc": special.erfc, "erfcx": special.erfcx, "erfinv": special.erfinv,
    "erfcinv": special.erfcinv, "normcdf": special.normcdf, "normcdfinv": special.normcdfinv,
    "lgamma": special.lgamma, "tgamma": special.tgamma, "j0": special.j0, "j1": special.j1,
    "y0": special.y0, "y1": special.y1, "jn": _order_at_least_0(special.jn), "yn": _order_at_least_0(special.yn),
    "cyl_bessel_i0": special.cyl_bessel_i0, "cyl_bessel_i1": special.cyl_bessel_i1,
    "saturatef": lambda x: np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0)),
    "rsqrt_rn": lambda x: 1 / np.sqrt(x), "rcp64h": _rcp64h,
    # the GPU's approximate instructions (sin.approx, ex2.approx, div.approx...): their exact functions
    "fast_sinf": np.sin, "fast_cosf": np.cos, "fast_tanf": np.tan, "fast_expf": np.exp,
    "fast_exp10f": lambda x: np.power(10.0, x), "fast_logf": np.log, "fast_log2f": np.log2,
    "fast_log10f": np.log10, "fast_powf": np.power, "fast_dividef": np.divide,
    "isnan": lambda x: np.isnan(x).astype(np.int32), "isinf": lambda x: np.isinf(x).astype(np.int32),
    "finitef": lambda x: np.isfinite(x).astype(np.int32), "isfinited": lambda x: np.isfinite(x).astype(np.int32),
    "signbit": lambda x: np.signbit(x).astype(np.int32),
}


# -- integers ------------------------------------------------------------------------------------------

def _unsigned(x) -> np.ndarray:
    x = np.asarray(x)
    return x.view(f"u{x.dtype.itemsize}")


def _clz(x):
    bits = _unsigned(x).astype(object)
    width = np.asarray(x).dtype.itemsize * 8
    return np.vectorize(lambda v: width - int(v).bit_length(), otypes=[np.int32])(bits)


def _popc(x):
    return np.vectorize(lambda v: bin(int(v)).count("1"), otypes=[np.int32])(_unsigned(x).astype(object))


def _ffs(x):
    """1 + the position of the lowest set bit, 0 for 0."""
    return np.vectorize(lambda v: (int(v) & -int(v)).bit_length(), otypes=[np.int32])(_unsigned(x).astype(object))


def _brev(x):
    x = np.asarray(x)
    width = x.dtype.itemsize * 8
    flipped = np.vectorize(lambda v: int(f"{int(v):0{width}b}"[::-1], 2), otypes=[object])(_unsigned(x).astype(object))
    return np.asarray(flipped.astype(np.uint64) if width == 64 else flipped.astype(np.uint32)).view(x.dtype)


def _mulhi(x, y):
    """The high half of the double-width product, in the operands' signedness."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    width = x.dtype.itemsize * 8
    product = x.astype(object) * y.astype(object)
    high = np.vectorize(lambda p: (int(p) >> width) & ((1 << width) - 1), otypes=[object])(product)
    return high.astype(np.uint64 if width == 64 else np.uint32).view(x.dtype)


def _mul24(x, y):
    """The low 32 bits of the product of the low 24 bits of each (sign-extended for int32)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype == np.int32:
        low = lambda v: (v.astype(np.int64) << 40) >> 40
    else:
        low = lambda v: v.astype(np.int64) & 0xFFFFFF
    return (low(x) * low(y)).astype(x.dtype)


def _halving_add(rounded_up: bool):
    def add(x, y):  # (x + y) >> 1, or (x + y + 1) >> 1, without overflowing
        total = np.asarray(x).astype(np.int64) + np.asarray(y).astype(np.int64) + int(rounded_up)
        return (total >> 1).astype(np.asarray(x).dtype)
    return add


def _sad(x, y, z):
    """|x - y| + z, wrapping at 32 bits."""
    difference = np.abs(np.asarray(x).astype(np.int64) - np.asarray(y).astype(np.int64))
    return ((difference + np.asarray(z).astype(np.int64)) & 0xFFFFFFFF).astype(np.uint32).view(np.asarray(x).dtype)


def _byte_perm(x, y, selector):
    """Bytes of the 8-byte value y:x picked by the low 3 bits of each of the selector's 4 nibbles."""
    source = (_unsigned(y).astype(np.uint64) << np.uint64(32)) | _unsigned(x).astype(np.uint64)
    selector = _unsigned(selector).astype(np.uint64)
    result = np.zeros(np.broadcast(source, selector).shape, np.uint64)
    for position in range(4):
        which = (selector >> np.uint64(4 * position)) & np.uint64(7)
        byte = (source >> (which * np.uint64(8))) & np.uint64(0xFF)
        result |= byte << np.uint64(8 * position)
    return result.astype(np.uint32).view(np.int32)


def _abs(x):
    x = np.asarray(x)
    return np.abs(x) if x.dtype.kind == "f" else np.where(x < 0, -x, x).astype(x.dtype)  # -INT_MIN wraps


INTEGER: dict[str, Callable] = {
    "clz": _clz, "popc": _popc, "ffs": _ffs, "brev": _brev, "mulhi": _mulhi, "mul24": _mul24,
    "hadd": _halving_add(False), "rhadd": _halving_add(True), "sad": _sad, "byte_perm": _byte_perm,
    "abs": _abs,
}



# -- conversions and bits -----------------------------------------------------------------------------

_TO_INTEGER = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}


def _saturated(whole: np.ndarray, unsigned: bool, bits: int) -> np.ndarray:
    """Whole floats to integers as `cvt` converts them: clamped to the range, NaN to 0."""
    low, high = (0, 2 ** bits - 1) if unsigned else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    as_int = np.vectorize(lambda v: 0 if v != v else min(max(int(v) if abs(v) != math.inf else
                                                                 (high if v > 0 else low), low), high),
                          otypes=[object])(np.asarray(whole, np.float64))
    return as_int.astype(f"{'u' if unsigned else 'i'}{bits // 8}")


def _float_to_integer(mode: str, unsigned: bool, bits: int, nan_is_zero: bool = True):
    """A float rounded by `mode` to an integer of `bits`, saturating. NaN gives 0 where the GPU
    converts with one `cvt` from f32 to a 32-bit integer, and the lowest signed pattern (0x80...)
    for the f64 and the 64-bit conversions, as libdevice's give on the GPU."""
    def convert(x):  # an unsigned result comes back as the signed type of its width (Triton's table)
        x = np.asarray(x, np.float64)
        result = _saturated(_TO_INTEGER[mode](x), unsigned, bits).view(f"i{bits // 8}")
        return result if nan_is_zero else np.where(np.isnan(x), np.iinfo(f"i{bits // 8}").min, result)
    return convert


def _llround(x):
    """Rounded half away from zero; NaN and anything out of range give INT64_MIN or INT64_MAX."""
    x = np.asarray(x, np.float64)
    whole = _round_half_away(x)
    result = _saturated(whole, False, 64)
    return np.where(np.isnan(x), np.iinfo(np.int64).min, result)


def _bits_as(target: str):
    return lambda x: np.ascontiguousarray(x).view(target)


def _hilo(hi, lo):
    hi, lo = np.broadcast_arrays(np.asarray(hi), np.asarray(lo))
    bits = (_unsigned(hi).astype(np.uint64) << np.uint64(32)) | _unsigned(lo).astype(np.uint64)
    return bits.view(np.float64)


def _half_of_double(high: bool):
    def half(x):
        bits = np.asarray(x, np.float64).view(np.uint64)
        return ((bits >> np.uint64(32)) if high else (bits & np.uint64(0xFFFFFFFF))).astype(np.uint32).view(np.int32)
    return half


CONVERSIONS: dict[str, Callable] = {
    "int_as_float": _bits_as("f4"), "float_as_int": _bits_as("i4"), "uint_as_float": _bits_as("f4"),
    "float_as_uint": _bits_as("i4"), "longlong_as_double": _bits_as("f8"), "double_as_longlong": _bits_as("i8"),
    "hiloint2double": _hilo, "double2loint": _half_of_double(False), "double2hiint": _half_of_double(True),
    "llrint": _float_to_integer("rn", False, 64), "llround": _llround,
}


def _by_precision(name: str, variant: Variant) -> Callable | None:
    """Twins whose answer depends on the precision the result is rounded to, or on a rounding mode."""
    dtype = variant.result.np
    prefix, _, mode = name.rpartition("_")
    if mode in rounding.MODES and prefix in ("add", "sub", "mul", "div", "rcp", "sqrt"):
        return lambda *xs: rounding.arithmetic(prefix, xs, dtype, mode)
    if name == "fma" or mode in rounding.MODES and prefix == "fma":
        return lambda a, b, c: rounding.fma(a, b, c, dtype, mode if prefix == "fma" else "rn")
    if mode in rounding.MODES and "2" in prefix:  # a conversion: source2target_mode
        source, target = prefix.split("2")
        if source == "double" and target == "float":
            return lambda x: rounding.narrow(x, mode)
        if source in ("float", "double"):
            unsigned, bits = target.startswith("u"), 64 if target.endswith("ll") else 32
            return _float_to_integer(mode, unsigned, bits, nan_is_zero=source == "float" and bits == 32)
        return lambda x: rounding.from_integer(x, dtype, mode)
    if name == "nextafter":
        return lambda x, y: np.nextafter(np.asarray(x, dtype), np.asarray(y, dtype))
    return None


def twin(name: str, variant: Variant) -> Callable:
    """The numpy function computing `name`'s `variant`, from the operands' numpy values."""
    special_case = _by_precision(name, variant)
    if special_case is not None:
        return special_case
    if name in INTEGER:
        return INTEGER[name]
    if name in CONVERSIONS:
        return CONVERSIONS[name]
    fn = MATH[name]
    return lambda *xs: fn(*map(_wide, xs))


TWINS: dict[str, Callable] = {variant.symbol: twin(name, variant)
                              for name, variants in FUNCTIONS.items() for variant in variants}
