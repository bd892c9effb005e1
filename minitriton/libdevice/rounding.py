"""IEEE 754's four rounding modes in numpy, for libdevice's `add_rz`, `float2int_rd`, `ll2float_ru` ...

numpy rounds to nearest only. Every directed rounding here starts from the nearest result and the
sign of what rounding left out (the exact result minus the nearest): rounding down moves one step
toward -inf where that sign is negative, rounding up one step toward +inf where it is positive,
rounding toward zero one step toward 0 where the nearest result is the larger in magnitude. So
each operation needs two things computed exactly: its nearest result, and that sign.

- fp32 operations are computed in float64: a sum, product, quotient or square root of floats
  rounded to float64 and then to float32 is the correctly rounded float32 result (float64 has more
  than twice float32's digits), and the sign comes out exactly from one more float64 operation;
- fp64 operations take the sign from the error-free transformations (Knuth's two-sum, Dekker's
  two-product), which give the rounding error of a sum or a product as a double;
- fma, and conversions from 64-bit integers, are done in exact rational arithmetic (`fractions`),
  element by element: slow, and rare.

Chapter: 03-tile-ir (the interpreter).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

MODES = ("rn", "rz", "rd", "ru")


def directed(nearest: np.ndarray, left_out: np.ndarray, mode: str) -> np.ndarray:
    """The result in `mode` from the nearest one and the sign of (exact - nearest)."""
    if mode == "rn":
        return nearest
    toward = {"rd": -np.inf, "ru": np.inf, "rz": 0.0}[mode]
    with np.errstate(invalid="ignore"):
        if mode == "rd":
            move = left_out < 0
        elif mode == "ru":
            move = left_out > 0
        else:
            move = (left_out != 0) & (np.sign(left_out) == -np.sign(nearest))
    moved = np.nextafter(nearest, np.asarray(toward, nearest.dtype))
    return np.where(move, moved, nearest)


def narrow(x, mode: str) -> np.ndarray:
    """float64 values rounded to float32 in `mode`."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        nearest = x.astype(np.float32)
        return directed(nearest, x - nearest.astype(np.float64), mode)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a + b rounded, its rounding error), both doubles, exactly (Knuth)."""
    s = a + b
    b_virtual = s - a
    return s, (a - (s - b_virtual)) + (b - b_virtual)


def two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a * b rounded, its rounding error), exactly while nothing overflows or underflows (Dekker)."""
    def split(x):
        scaled = 134217729.0 * x  # 2^27 + 1: the high half keeps 26 bits
        high = scaled - (scaled - x)
        return high, x - high
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def arithmetic(op: str, args: list[np.ndarray], dtype: np.dtype, mode: str) -> np.ndarray:
    """`op` ("add", "sub", "mul", "div", "sqrt", "rcp") of float arrays of `dtype`, rounded in `mode`."""
    with np.errstate(all="ignore"):
        if dtype == np.float32:
            return _arithmetic32(op, [np.asarray(a, np.float64) for a in args], mode)
        return _arithmetic64(op, [np.asarray(a, np.float64) for a in args], mode)


def _arithmetic32(op, args, mode):
    if op == "rcp":
        op, args = "div", [np.ones_like(args[0]), args[0]]
    a = args[0]
    if op in ("add", "sub"):
        b = args[1] if op == "add" else -args[1]
        s, error = two_sum(a, b)
        nearest = s.astype(np.float32)
        return directed(nearest, (s - nearest) + error, mode)
    if op == "mul":
        exact = a * args[1]  # 24 + 24 bits: exact in float64
        nearest = exact.astype(np.float32)
        return directed(nearest, exact - nearest, mode)
    if op == "div":
        b = args[1]
        nearest = (a / b).astype(np.float32)
        return directed(nearest, (a - nearest.astype(np.float64) * b) * np.sign(b), mode)
    assert op == "sqrt", op
    nearest = np.sqrt(a).astype(np.float32)
    wide = nearest.astype(np.float64)
    return directed(nearest, a - wide * wide, mode)


def _arithmetic64(op, args, mode):
    if op == "rcp":
        op, args = "div", [np.ones_like(args[0]), args[0]]
    a = args[0]
    if op in ("add", "sub"):
        nearest, error = two_sum(a, args[1] if op == "add" else -args[1])
        return directed(nearest, error, mode)
    if op == "mul":
        nearest, error = two_product(a, args[1])
        return directed(nearest, error, mode)
    if op == "div":
        b = args[1]
        nearest = a / b
        product, error = two_product(nearest, b)
        return directed(nearest, ((a - product) - error) * np.sign(b), mode)
    assert op == "sqrt", op
    nearest = np.sqrt(a)
    square, error = two_product(nearest, nearest)
    return directed(nearest, (a - square) - error, mode)


def round_exact(exact: Fraction, dtype: np.dtype, mode: str) -> float:
    """A rational number rounded to `dtype` (float32 or float64) in `mode`, exactly."""
    nearest = dtype.type(float(exact)) if abs(exact) < 2 ** 1024 else dtype.type(np.inf if exact > 0 else -np.inf)
    if np.isfinite(nearest) and dtype == np.float32:  # float32(float64(x)) may round twice: check both neighbours
        candidates = [nearest, np.nextafter(nearest, dtype.type(-np.inf)), np.nextafter(nearest, dtype.type(np.inf))]
        finite = [c for c in candidates if np.isfinite(c)]
        nearest = min(finite, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.float32(c).view(np.uint32)) & 1))
    if not np.isfinite(nearest):
        left_out = -1.0 if nearest > 0 else 1.0
    else:
        difference = exact - Fraction(float(nearest))
        left_out = float((difference > 0) - (difference < 0))
    return directed(np.asarray(nearest, dtype), np.asarray(left_out), mode)[()]


def fma(a, b, c, dtype: np.dtype, mode: str) -> np.ndarray:
    """a * b + c rounded once, in `mode` (exact rational arithmetic, element by element)."""
    a, b, c = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (a, b, c)))
    out = np.empty(a.shape, dtype)
    for index in np.ndindex(a.shape):
        x, y, z = float(a[index]), float(b[index]), float(c[index])
        if not all(map(np.isfinite, (x, y, z))):
            with np.errstate(all="ignore"):
                out[index] = dtype.type(x * y + z)  # infinities and NaNs: no rounding happens
            continue
        out[index] = round_exact(Fraction(x) * Fraction(y) + Fraction(z), dtype, mode)
    return out


def from_integer(x, dtype: np.dtype, mode: str) -> np.ndarray:
    """Integers (of any width, signed or not) rounded to a float dtype in `mode`, exactly."""
    x = np.asarray(x)
    out = np.empty(x.shape, dtype)
    for index in np.ndindex(x.shape):
        out[index] = round_exact(Fraction(int(x[index])), dtype, mode)
    return out
