"""For every libdevice function: its test inputs, an independent float64-or-better reference, and
the tolerances the interpreter and the GPU are held to. Used by tests/test_libdevice.py.

References are exact where the answer is exact (rounding modes, conversions, bit patterns: Python
integers and fractions), else mpmath at 120 bits, so they never share a formula with the twins they
check. A tolerance is `ulps` units in the last place of the result type, plus an absolute `atol`
where a function has zeros (Bessel functions, lgamma) and a relative one would be meaningless.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import mpmath as mp
import numpy as np

from minitriton.libdevice.table import FUNCTIONS

mp.mp.prec = 120


@dataclass(frozen=True)
class Tol:
    ulps: float = 1
    atol: float = 0.0


@dataclass
class Case:
    reference: Callable  # of Python numbers (floats, ints) -> a Python number (an mpf, Fraction, int)
    domain: tuple = ()  # per argument: (low, high) for floats, ("int", low, high) for integers
    edges: tuple = ()  # extra inputs of a one-argument function (NaN, infinities, ties...)
    interpreter: dict = field(default_factory=dict)  # "fp32" / "fp64" -> Tol
    gpu: dict = field(default_factory=dict)
    exact: bool = False  # the result must be the reference, bit for bit, on the interpreter and the GPU


CASES: dict[str, Case] = {}
NAN, INF = float("nan"), float("inf")
SPECIALS = (NAN, INF, -INF, 0.0, -0.0)


def _case(names: str, reference: Callable, *domain, edges=(), interpreter=None, gpu=None, exact=False):
    for name in names.split():
        CASES[name] = Case(reference, domain, edges, interpreter or {}, gpu or {}, exact)


# -- exact rounding of a rational number to a float type, in each IEEE mode (independent of the twins:
#    it looks at the neighbours of the nearest float and keeps the right one) --------------------------

def round_to(exact, dtype, mode: str = "rn") -> float:
    if isinstance(exact, float) and not math.isfinite(exact):
        return exact
    exact = Fraction(exact)
    kind = np.dtype(dtype).type
    biggest = Fraction(float(np.finfo(kind).max))
    if abs(exact) > biggest:  # past the largest float: the largest or infinity, by mode
        big, inf = float(np.finfo(kind).max), INF
        toward_inf = {"rn": abs(exact) >= biggest + Fraction(float(np.spacing(kind(np.finfo(kind).max)))) / 2,
                      "rz": False, "ru": exact > 0, "rd": exact < 0}[mode]
        return math.copysign(inf if toward_inf else big, float(exact.numerator))
    start = kind(float(exact)) if abs(exact) < 2 ** 1000 else kind(math.copysign(1e308, exact))
    around = {float(start), float(np.nextafter(start, kind(-INF))), float(np.nextafter(start, kind(INF)))}
    around = {v for v in around if math.isfinite(v)}
    below = max(v for v in around if Fraction(v) <= exact)
    above = min(v for v in around if Fraction(v) >= exact)
    if mode == "rd":
        return below
    if mode == "ru":
        return above
    if mode == "rz":
        return below if exact >= 0 else above
    if Fraction(above) - exact != exact - Fraction(below):
        return below if exact - Fraction(below) < Fraction(above) - exact else above
    even = lambda v: int(np.asarray(v, kind).view(f"u{np.dtype(kind).itemsize}")) % 2 == 0
    return below if even(below) else above


def _saturate(value: int, unsigned: bool, bits: int) -> int:
    low, high = (0, 2 ** bits - 1) if unsigned else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    return min(max(value, low), high)


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


_TO_INT = {"rn": lambda f: round(f), "rz": math.trunc, "rd": math.floor, "ru": math.ceil}  # round(): ties to even


def _to_integer(mode: str, unsigned: bool, bits: int, nan: int = 0):
    def reference(x):
        if math.isnan(x):
            return nan
        if math.isinf(x):
            value = 2 ** 70 if x > 0 else -2 ** 70
        else:
            value = _TO_INT[mode](Fraction(x))
        return _signed(_saturate(value, unsigned, bits), bits)
    return reference


def _mpf(fn):
    """A reference computed by mpmath on exact inputs; NaN where mpmath answers a complex number."""
    def reference(*args):
        try:
            value = fn(*[mp.mpf(a) if isinstance(a, float) else a for a in args])
        except (ValueError, ZeroDivisionError):
            return NAN
        return NAN if isinstance(value, mp.mpc) else value
    return reference


# -- math on floats ----------------------------------------------------------------------------------
F32_1, F64_2 = Tol(1), Tol(2)
BESSEL_GPU = {"fp32": Tol(16, 5e-6), "fp64": Tol(16, 5e-11)}

_case("sin", _mpf(mp.sin), (-10, 10))
_case("cos", _mpf(mp.cos), (-10, 10))
_case("tan", _mpf(mp.tan), (-1.5, 1.5))
_case("asin", _mpf(mp.asin), (-1, 1))
_case("acos", _mpf(mp.acos), (-1, 1))
_case("atan", _mpf(mp.atan), (-50, 50))
_case("sinh", _mpf(mp.sinh), (-80, 80))
_case("cosh", _mpf(mp.cosh), (-80, 80))
_case("tanh", _mpf(mp.tanh), (-20, 20))
_case("asinh", _mpf(mp.asinh), (-1e3, 1e3))
_case("acosh", _mpf(mp.acosh), (1, 1e3))
_case("atanh", _mpf(mp.atanh), (-1, 1))
_case("exp", _mpf(mp.exp), (-80, 80))
_case("exp2", _mpf(lambda x: mp.power(2, x)), (-120, 120))
_case("exp10", _mpf(lambda x: mp.power(10, x)), (-35, 35))
_case("expm1", _mpf(mp.expm1), (-50, 50))
_case("log", _mpf(mp.log), (1e-3, 1e4))
_case("log2", _mpf(lambda x: mp.log(x, 2)), (1e-3, 1e4))
_case("log10", _mpf(mp.log10), (1e-3, 1e4))
_case("log1p", _mpf(mp.log1p), (-1, 100))
_case("sqrt", _mpf(mp.sqrt), (0, 1e4), gpu={"fp32": Tol(4), "fp64": Tol(1)})  # __nv_sqrtf may be sqrt.approx
_case("rsqrt", _mpf(lambda x: 1 / mp.sqrt(x)), (1e-3, 1e4))
_case("cbrt", _mpf(lambda x: mp.sign(x) * mp.cbrt(abs(x))), (-1e4, 1e4))
_case("rcbrt", _mpf(lambda x: 1 / mp.cbrt(x)), (1e-3, 1e4))
_case("sinpi", _mpf(mp.sinpi), (-10, 10), edges=(0.5, 1.0, -1.0, 2.5, 0.25, -3.75))
_case("cospi", _mpf(mp.cospi), (-10, 10), edges=(0.5, 1.0, -1.0, 2.5, 0.25, -3.75))
_case("atan2", _mpf(mp.atan2), (-10, 10), (-10, 10))
_case("hypot", _mpf(mp.hypot), (-1e3, 1e3), (-1e3, 1e3))
_case("rhypot", _mpf(lambda x, y: 1 / mp.hypot(x, y)), (-1e3, 1e3), (-1e3, 1e3))
_case("norm3d", _mpf(lambda *xs: mp.sqrt(mp.fsum(x * x for x in xs))), *[(-1e3, 1e3)] * 3)
_case("rnorm3d", _mpf(lambda *xs: 1 / mp.sqrt(mp.fsum(x * x for x in xs))), *[(-1e3, 1e3)] * 3)
_case("norm4d", _mpf(lambda *xs: mp.sqrt(mp.fsum(x * x for x in xs))), *[(-1e3, 1e3)] * 4)
_case("rnorm4d", _mpf(lambda *xs: 1 / mp.sqrt(mp.fsum(x * x for x in xs))), *[(-1e3, 1e3)] * 4)
_case("erf", _mpf(mp.erf), (-6, 6))
_case("erfc", _mpf(mp.erfc), (-6, 26))
_case("erfcx", _mpf(lambda x: mp.exp(x * x) * mp.erfc(x)), (-5, 50), interpreter={"fp64": Tol(4)})
_case("erfinv", _mpf(mp.erfinv), (-1, 1), interpreter={"fp64": Tol(4)})
def _erfcinv(q):
    if q in (0, 2):
        return mp.inf if q == 0 else -mp.inf
    if q > 1e-3:
        return mp.erfinv(1 - q)
    return mp.findroot(lambda y: mp.log(mp.erfc(y)) - mp.log(q), mp.sqrt(-mp.log(q)))


_case("erfcinv", _mpf(_erfcinv), (1e-6, 2), edges=(1e-30, 1e-300, 1.0, 1.9999),
      interpreter={"fp64": Tol(4)})
_case("normcdf", _mpf(mp.ncdf), (-30, 10), interpreter={"fp64": Tol(1000)}, gpu={"fp64": Tol(1000)})
_case("normcdfinv", _mpf(lambda p: -mp.sqrt(2) * mp.erfinv(1 - 2 * p)), (1e-6, 1), interpreter={"fp64": Tol(8)})
_case("lgamma", _mpf(lambda x: mp.log(abs(mp.gamma(x)))), (-5.4, 30), interpreter={"fp64": Tol(20, 1e-14)},
      gpu={"fp32": Tol(64, 1e-5), "fp64": Tol(64, 1e-12)})  # libdevice: larger error between -11 and -2.26
_case("tgamma", _mpf(mp.gamma), (-5.4, 30), edges=(0.5, 1.0, 3.0, -0.5), interpreter={"fp64": Tol(20)},
      gpu={"fp32": Tol(8), "fp64": Tol(16)})
_case("j0", _mpf(lambda x: mp.besselj(0, x)), (-60, 60), interpreter={"fp64": Tol(4, 2e-12)}, gpu=BESSEL_GPU)
_case("j1", _mpf(lambda x: mp.besselj(1, x)), (-60, 60), interpreter={"fp64": Tol(4, 2e-12)}, gpu=BESSEL_GPU)
_case("y0", _mpf(lambda x: mp.bessely(0, x)), (1e-2, 60), interpreter={"fp64": Tol(4, 2e-12)}, gpu=BESSEL_GPU)
_case("y1", _mpf(lambda x: mp.bessely(1, x)), (1e-2, 60), interpreter={"fp64": Tol(4, 2e-12)}, gpu=BESSEL_GPU)
_case("jn", _mpf(lambda n, x: mp.besselj(n, x) if n >= 0 else mp.nan), ("int", -12, 12), (-40, 40),
      interpreter={"fp64": Tol(8, 2e-12)}, gpu={"fp32": Tol(64, 1e-5), "fp64": Tol(64, 1e-10)})
_case("yn", _mpf(lambda n, x: mp.bessely(n, x) if n >= 0 else mp.nan), ("int", -6, 6), (0.5, 40),
      interpreter={"fp64": Tol(1e5, 2e-12)}, gpu={"fp32": Tol(64, 1e-5), "fp64": Tol(1e5, 1e-10)})
_case("cyl_bessel_i0", _mpf(lambda x: mp.besseli(0, x)), (-80, 80), interpreter={"fp64": Tol(16)})
_case("cyl_bessel_i1", _mpf(lambda x: mp.besseli(1, x)), (-80, 80), interpreter={"fp64": Tol(16)})
_case("pow", _mpf(mp.power), (0, 10), (-20, 20), gpu={"fp32": Tol(16)})  # powif: 10 ulp seen at x**-17
_case("fast_sinf", _mpf(mp.sin), (-math.pi, math.pi), gpu={"fp32": Tol(64, 1e-6)})
_case("fast_cosf", _mpf(mp.cos), (-math.pi, math.pi), gpu={"fp32": Tol(64, 1e-6)})
_case("fast_tanf", _mpf(mp.tan), (-1.4, 1.4), gpu={"fp32": Tol(256, 1e-6)})
_case("fast_expf", _mpf(mp.exp), (-10, 10), gpu={"fp32": Tol(64)})
_case("fast_exp10f", _mpf(lambda x: mp.power(10, x)), (-5, 5), gpu={"fp32": Tol(64)})
_case("fast_logf", _mpf(mp.log), (1e-2, 100), gpu={"fp32": Tol(64, 1e-6)})
_case("fast_log2f", _mpf(lambda x: mp.log(x, 2)), (1e-2, 100), gpu={"fp32": Tol(64, 1e-6)})
_case("fast_log10f", _mpf(mp.log10), (1e-2, 100), gpu={"fp32": Tol(64, 1e-6)})
_case("fast_powf", _mpf(mp.power), (0.1, 10), (-5, 5), gpu={"fp32": Tol(256)})
_case("fast_dividef", lambda x, y: Fraction(x) / Fraction(y), (-100, 100), (1, 100), gpu={"fp32": Tol(2)})
_case("rsqrt_rn", _mpf(lambda x: 1 / mp.sqrt(x)), (1e-3, 1e4))
_case("rcp64h", _mpf(lambda x: 1 / x), (-100, 100), interpreter={"fp64": Tol(2 ** 33)}, gpu={"fp64": Tol(2 ** 34)})


# -- exact answers -------------------------------------------------------------------------------------
HALVES = (0.5, 1.5, 2.5, -0.5, -2.5, 3.49999, 1e30, -7.0)


def _exact(names, reference, *domain, edges=()):
    _case(names, reference, *domain, edges=edges, exact=True)


_exact("floor", lambda x: float(math.floor(x)) if math.isfinite(x) else x, (-100, 100), edges=HALVES + SPECIALS)
_exact("ceil", lambda x: float(math.ceil(x)) if math.isfinite(x) else x, (-100, 100), edges=HALVES + SPECIALS)
_exact("trunc", lambda x: float(math.trunc(x)) if math.isfinite(x) else x, (-100, 100), edges=HALVES + SPECIALS)
_exact("rint nearbyint", lambda x: float(round(x)) if math.isfinite(x) else x, (-100, 100), edges=HALVES + SPECIALS)
_exact("round", lambda x: float(math.copysign(math.floor(abs(Fraction(x)) + Fraction(1, 2)), x))
       if math.isfinite(x) else x, (-100, 100), edges=HALVES + SPECIALS)
_exact("fmod", lambda x, y: Fraction(x) - math.trunc(Fraction(x) / Fraction(y)) * Fraction(y), (-100, 100), (-10, 10))
_exact("remainder", lambda x, y: Fraction(x) - round(Fraction(x) / Fraction(y)) * Fraction(y), (-100, 100), (-10, 10))
_exact("copysign", math.copysign, (-10, 10), (-10, 10))
_exact("fdim", lambda x, y: Fraction(x) - Fraction(y) if x > y else 0.0, (-10, 10), (-10, 10))
_exact("ldexp scalbn", lambda x, n: Fraction(x) * Fraction(2) ** n, (-10, 10), ("int", -100, 100))
_exact("logb", lambda x: float(math.frexp(x)[1] - 1) if x and math.isfinite(x) else
       (-INF if x == 0 else abs(x)), (-1e6, 1e6), edges=(1.0, 2.0, 0.75, 1e-40) + SPECIALS)
_exact("ilogb", lambda x: math.frexp(x)[1] - 1 if x and math.isfinite(x) else
       (2 ** 31 - 1 if math.isinf(x) else -2 ** 31), (-1e6, 1e6), edges=(1.0, 2.0, 0.75) + SPECIALS)
_exact("saturatef", lambda x: 0.0 if math.isnan(x) else min(max(x, 0.0), 1.0), (-2, 2), edges=SPECIALS)
_exact("isnan", lambda x: int(math.isnan(x)), (-10, 10), edges=SPECIALS)
_exact("isinf", lambda x: int(math.isinf(x)), (-10, 10), edges=SPECIALS)
_exact("finitef isfinited", lambda x: int(math.isfinite(x)), (-10, 10), edges=SPECIALS)
_exact("signbit", lambda x: int(math.copysign(1.0, x) < 0), (-10, 10), edges=(INF, -INF, 0.0, -0.0))
_exact("llrint", lambda x: _to_integer("rn", False, 64)(x), (-1e3, 1e3), edges=HALVES + (1e19, -1e19))
_exact("llround", lambda x: -2 ** 63 if math.isnan(x) else _signed(_saturate(
    math.floor(abs(Fraction(x)) + Fraction(1, 2)) * (1 if x >= 0 else -1), False, 64), 64),
    (-1e3, 1e3), edges=HALVES + (1e19, -1e19, NAN))
_exact("nextafter", None, (-10, 10), (-10, 10))
_exact("abs", None, (-10, 10), edges=SPECIALS)
_exact("fma", None, (-10, 10), (-10, 10), (-10, 10))

for _mode in ("rn", "rz", "rd", "ru"):
    for _op, _fn in (("add", lambda x, y: Fraction(x) + Fraction(y)), ("sub", lambda x, y: Fraction(x) - Fraction(y)),
                     ("mul", lambda x, y: Fraction(x) * Fraction(y)), ("div", lambda x, y: Fraction(x) / Fraction(y))):
        _exact(f"{_op}_{_mode}", _fn, (-100, 100), (-100, 100))
    _exact(f"fma_{_mode}", lambda x, y, z: Fraction(x) * Fraction(y) + Fraction(z), (-100, 100), (-100, 100), (-100, 100))
    _exact(f"rcp_{_mode}", lambda x: 1 / Fraction(x), (-100, 100))
    _exact(f"sqrt_{_mode}", None, (0, 1e4))
    for _name, (_source, _target) in {"double2float": ("f", "f"), "int2float": ("i32", "f"), "uint2float": ("u32", "f"),
                                      "ll2float": ("i64", "f"), "ull2float": ("u64", "f"), "ll2double": ("i64", "f"),
                                      "ull2double": ("u64", "f")}.items():
        _exact(f"{_name}_{_mode}", lambda x: Fraction(x), (-1e3, 1e3) if _source == "f" else ("int", None, None))
    for _name, (_unsigned, _bits) in {"double2int": (False, 32), "double2uint": (True, 32), "double2ll": (False, 64),
                                      "double2ull": (True, 64), "float2int": (False, 32), "float2uint": (True, 32),
                                      "float2ll": (False, 64), "float2ull": (True, 64)}.items():
        _low = -10.0 if _unsigned else -2.0 ** (_bits - 1) * 1.25
        _nan = 0 if _name in ("float2int", "float2uint") else -2 ** (_bits - 1)  # as the GPU gives it
        _exact(f"{_name}_{_mode}", _to_integer(_mode, _unsigned, _bits, _nan), (_low, 2.0 ** _bits * 1.25 if _unsigned
                                                                           else 2.0 ** (_bits - 1) * 1.25),
               edges=HALVES + (NAN, INF, -INF, 0.5, -0.5))
_exact("int2double_rn uint2double_rn", lambda x: Fraction(x), ("int", None, None))


# -- bits --------------------------------------------------------------------------------------------
def _reinterpret(source: str, target: str):
    return lambda x: struct.unpack(target, struct.pack(source, x))[0]


_exact("int_as_float", _reinterpret("<i", "<f"), ("int", -2 ** 31, 2 ** 31 - 1))
_exact("uint_as_float", _reinterpret("<I", "<f"), ("int", 0, 2 ** 32 - 1))
_exact("float_as_int float_as_uint", _reinterpret("<f", "<i"), (-1e3, 1e3), edges=(0.0, -0.0, INF, -INF))
_exact("longlong_as_double", _reinterpret("<q", "<d"), ("int", -2 ** 63, 2 ** 63 - 1))
_exact("double_as_longlong", _reinterpret("<d", "<q"), (-1e3, 1e3), edges=(0.0, -0.0, INF))
_exact("double2loint", lambda x: _signed(struct.unpack("<Q", struct.pack("<d", x))[0], 32), (-1e3, 1e3))
_exact("double2hiint", lambda x: _signed(struct.unpack("<Q", struct.pack("<d", x))[0] >> 32, 32), (-1e3, 1e3))
_exact("hiloint2double",
       lambda hi, lo: struct.unpack("<d", struct.pack("<Q", ((hi & 0xFFFFFFFF) << 32) | (lo & 0xFFFFFFFF)))[0],
       ("int", -2 ** 31, 2 ** 31 - 1), ("int", -2 ** 31, 2 ** 31 - 1))

# integers: the reference knows its width from the variant (see `integer_reference`)
_exact("clz popc ffs brev mulhi mul24 hadd rhadd sad byte_perm", None, ("int", None, None), ("int", None, None),
       ("int", None, None))


def integer_reference(name: str, bits: int, unsigned: bool) -> Callable:
    mask = (1 << bits) - 1

    def wrap(v):
        return v & mask if unsigned else _signed(v, bits)
    return {
        "clz": lambda x: bits - (x & mask).bit_length(),
        "popc": lambda x: bin(x & mask).count("1"),
        "ffs": lambda x: ((x & mask) & -(x & mask)).bit_length(),
        "brev": lambda x: wrap(int(format(x & mask, f"0{bits}b")[::-1], 2)),
        "mulhi": lambda x, y: wrap((x * y) >> bits),
        "mul24": lambda x, y: wrap(_signed(x, 24) * _signed(y, 24) if not unsigned
                                   else (x & 0xFFFFFF) * (y & 0xFFFFFF)),
        "hadd": lambda x, y: (x + y) >> 1,
        "rhadd": lambda x, y: (x + y + 1) >> 1,
        "sad": lambda x, y, z: wrap(abs(x - y) + z),
        "byte_perm": lambda x, y, s: _signed(sum(((((y & mask) << 32 | (x & mask)) >> (8 * ((s >> (4 * i)) & 7))) & 0xFF)
                                                 << (8 * i) for i in range(4)), 32),
        "abs": lambda x: wrap(abs(x)),
    }[name]


assert set(CASES) == set(FUNCTIONS), f"cases missing for {sorted(set(FUNCTIONS) - set(CASES))}"
