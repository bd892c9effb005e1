"""Triton 3.6's documented rules, written again in numpy: the fuzzer's reference semantics.

Nothing here calls minitriton. Each rule is read from Triton's `language/semantic.py`,
`language/core.py` and `language/standard.py` (and LLVM's meaning of the instructions Triton
emits), so that the fuzzer compares minitriton with Triton's definitions, not with itself:

- promotion (`computation_type`): a Python number next to a tensor of its kind or a higher one
  takes the tensor's type; else fp64 > fp32 > fp16 > bf16, but bf16 with anything other than bf16
  (an integer) is fp32; `/` and `%` of 16-bit floats compute in fp32; two integers: the wider, and at equal width the unsigned one
  (C's usual arithmetic conversions). `int1` is an unsigned integer of one bit.
- integers wrap; `//` and `%` truncate toward zero (C: the remainder takes the dividend's sign);
  what LLVM leaves undefined (a divisor of 0, INT_MIN // -1, a shift past the width) minitriton
  defines (`c_div`, `shift`).
- float arithmetic is IEEE's, rounded to nearest even, per op; a float -> int cast truncates;
  int -> float and narrowing float casts round to nearest even, once; fp16/bf16 to anything but
  fp32 go through fp32.
Values are held in numpy arrays: bf16 in float32 (its values are float32's with 8 significant
bits), everything else in its own numpy type.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    """An element type as Triton names it (`tl.<name>`)."""

    name: str
    kind: str  # "bool", "int" (signed), "uint", "float"
    bits: int

    @property
    def holder(self) -> np.dtype:
        """The numpy type that holds a value (bf16 in float32)."""
        if self.kind == "bool":
            return np.dtype(np.bool_)
        if self.kind == "float":
            return np.dtype({16: np.float16, 32: np.float32, 64: np.float64}[self.bits]) if self.name != "bfloat16" \
                else np.dtype(np.float32)
        return np.dtype(f"{'u' if self.kind == 'uint' else ''}int{self.bits}")

    @property
    def storage(self) -> np.dtype:
        """The numpy type of an array of these elements in memory (bf16 by its bits)."""
        return np.dtype(np.uint16) if self.name == "bfloat16" else self.holder

    @property
    def is_int(self) -> bool:  # int1 is one (Triton's `is_int`)
        return self.kind in ("bool", "int", "uint")

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def signed(self) -> bool:
        return self.kind == "int"

    @property
    def significand(self) -> int:
        """Significant bits of a float, the hidden one included."""
        return {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[self.name]

    @property
    def rank(self) -> int:
        """Triton's kind order: bool < integer < float."""
        return {"bool": 0, "int": 1, "uint": 1, "float": 2}[self.kind]

    def __repr__(self) -> str:
        return self.name


TYPES = {t.name: t for t in (
    DType("int1", "bool", 1), DType("int8", "int", 8), DType("int16", "int", 16), DType("int32", "int", 32),
    DType("int64", "int", 64), DType("uint8", "uint", 8), DType("uint16", "uint", 16), DType("uint32", "uint", 32),
    DType("uint64", "uint", 64), DType("float16", "float", 16), DType("bfloat16", "float", 16),
    DType("float32", "float", 32), DType("float64", "float", 64))}
BOOL, I32, U32, I64, U64 = TYPES["int1"], TYPES["int32"], TYPES["uint32"], TYPES["int64"], TYPES["uint64"]
FP16, BF16, FP32, FP64 = TYPES["float16"], TYPES["bfloat16"], TYPES["float32"], TYPES["float64"]
INTS = [t for t in TYPES.values() if t.kind in ("int", "uint")]
FLOATS = [FP16, BF16, FP32, FP64]


class Refused(Exception):
    """Triton refuses this combination (a TypeError or ValueError when it compiles)."""


# ---------------------------------------------------------------------------------------------------
# Typing (semantic.py: integer_promote_impl, computation_type_impl, to_tensor)
# ---------------------------------------------------------------------------------------------------

def integer_promote(a: DType, b: DType) -> DType:
    if a.signed == b.signed:
        return a if a.bits > b.bits else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    return unsigned if unsigned.bits >= signed.bits else signed


def literal_type(x) -> DType:
    """The type of a Python number on its own."""
    if isinstance(x, bool):
        return BOOL
    if isinstance(x, int):
        return I32 if -2**31 <= x < 2**31 else U32 if 0 <= x < 2**32 else I64 if -2**63 <= x < 2**63 else U64
    tiny, huge = 2.0**-126, (2 - 2.0**-23) * 2.0**127
    return FP32 if abs(x) in (0.0, float("inf")) or x != x or tiny <= abs(x) <= huge else FP64


# --8<-- [start:computation-type]
def computation_type(a: DType, a_literal: bool, b: DType, b_literal: bool,
                     div_or_mod: bool = False) -> DType:
    if a_literal != b_literal:
        literal, tensor = (a, b) if a_literal else (b, a)
        if literal.rank <= tensor.rank:
            return FP32 if div_or_mod and tensor in (FP16, BF16) else tensor
    if FP64 in (a, b):
        return FP64
    if FP32 in (a, b):
        return FP32
    if FP16 in (a, b):
        return FP32 if div_or_mod else FP16
    if a == b == BF16:
        return FP32 if div_or_mod else BF16
    if BF16 in (a, b):
        return FP32
    if div_or_mod and a.signed != b.signed:
        raise Refused("/, // or % of integers of different signedness")
    return integer_promote(a, b)
# --8<-- [end:computation-type]


def binary_type(a: DType, a_literal, b: DType, b_literal, a_value=None, b_value=None, div_or_mod=False) -> DType:
    """computation_type plus the checks of binary_op_type_checking_impl on a literal operand."""
    result = computation_type(a, a_literal, b, b_literal, div_or_mod)
    for literal, value in ((a_literal, a_value), (b_literal, b_value)):
        if literal and result.is_int and isinstance(value, (int, float)):
            if value < 0 and not result.signed:
                raise Refused("a negative literal with an unsigned tensor")
            low, high = int_range(result)
            if not low <= value <= high:
                raise Refused("a literal out of range for the type")
    return result


def sum_type(x: DType) -> DType:
    """_pick_sum_dtype: integers narrower than 32 bits are summed in 32, keeping signedness."""
    if x.is_int and x.bits < 32:
        return I32 if x.signed else U32
    return x


def extremum_type(x: DType) -> DType:
    """tl.max / tl.min without indices: bf16 -> fp32, then narrower than 32 bits -> fp32 / int32."""
    if x == BF16 or (x.is_float and x.bits < 32):
        return FP32
    return I32 if x.is_int and x.bits < 32 else x


def int_range(t: DType) -> tuple[int, int]:
    if t.kind == "bool":
        return 0, 1
    return (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.signed else (0, (1 << t.bits) - 1)


# ---------------------------------------------------------------------------------------------------
# Rounding and conversions
# ---------------------------------------------------------------------------------------------------

def max_finite(t: DType) -> float:
    return {"float16": 65504.0, "bfloat16": float(np.float32(3.3895313892515355e38)),
            "float32": float(np.finfo(np.float32).max), "float64": float(np.finfo(np.float64).max)}[t.name]


def _min_exponent(t: DType) -> int:
    """The exponent of the smallest subnormal: every value of `t` is a multiple of 2**this."""
    return {"float16": -24, "bfloat16": -133, "float32": -149, "float64": -1074}[t.name]


def round_float(x, t: DType) -> np.ndarray:
    """The float64 values `x` rounded once to `t`, to nearest even (overflow to infinity)."""
    x = np.asarray(x, np.float64)
    if t == FP64:
        return x.copy()
    if t != BF16:
        with np.errstate(over="ignore"):  # an overflow is an infinity, as it should be
            return x.astype(t.holder)  # numpy rounds float64 -> float32 and -> float16 directly, correctly
    with np.errstate(all="ignore"):
        _, exponent = np.frexp(x)  # x = m * 2**exponent, 0.5 <= |m| < 1
        quantum = np.exp2(np.maximum(exponent - t.significand, _min_exponent(t)).astype(np.float64))
        finite = np.isfinite(x) & (x != 0)
        rounded = np.where(finite, np.rint(np.where(finite, x, 0) / quantum) * quantum, x)
        rounded = np.where(np.abs(rounded) > max_finite(t), np.copysign(np.inf, x), rounded)
    return rounded.astype(np.float32)


_POWERS = np.array([1 << k for k in range(64)], np.uint64)


def int_to_float(x: np.ndarray, source: DType, t: DType) -> np.ndarray:
    """An integer converted to a float once, to nearest even (LLVM's sitofp / uitofp)."""
    x = np.asarray(x)
    if source.kind == "bool":
        x = x.astype(np.uint8)
        source = TYPES["uint8"]
    if source.signed:
        wide = x.astype(np.int64)
        negative = wide < 0
        magnitude = np.where(negative, (~wide).astype(np.uint64) + np.uint64(1), wide.astype(np.uint64))
    else:
        negative, magnitude = np.zeros(x.shape, bool), x.astype(np.uint64)
    length = np.searchsorted(_POWERS, magnitude, side="right")  # bit length (0 for 0)
    shift = np.maximum(length - t.significand, 0).astype(np.uint64)
    kept = magnitude >> shift
    rest = magnitude - (kept << shift)
    half = np.where(shift > 0, np.left_shift(np.uint64(1), np.maximum(shift, 1) - np.uint64(1)), np.uint64(0))
    up = (shift > 0) & ((rest > half) | ((rest == half) & (kept & np.uint64(1) == 1)))
    value = np.ldexp((kept + up.astype(np.uint64)).astype(np.float64), shift.astype(np.int64))
    return round_float(np.where(negative, -value, value), t)


def float_to_int(x: np.ndarray, t: DType) -> np.ndarray:
    """Truncation toward zero (fptosi / fptoui); the value must fit (the generator makes sure)."""
    whole = np.trunc(np.asarray(x, np.float64))
    if t.bits == 64:  # float64 cannot hold every int64: go through Python ints
        return np.array([int(v) for v in whole.reshape(-1)], object).astype(t.holder).reshape(whole.shape) \
            if whole.size else whole.astype(t.holder)
    return whole.astype(np.int64).astype(t.holder)


def cast(x: np.ndarray, source: DType, target: DType) -> np.ndarray:
    """semantic.cast: `x.to(target)`."""
    if source == target:
        return x
    if target.kind == "bool":
        return np.asarray(x) != 0  # NaN != 0 holds
    if source.is_float and target.is_float:
        if source in (FP16, BF16) and target != FP32:
            return cast(cast(x, source, FP32), FP32, target)
        return round_float(np.asarray(x, np.float64), target)
    if source.is_int and target.is_float:
        return int_to_float(x, source, target)
    if source.is_float:
        return float_to_int(x, target)
    if source.kind == "bool":
        return np.asarray(x).astype(target.holder)
    wide = np.asarray(x).astype(np.int64 if source.signed else np.uint64)  # sign- or zero-extended
    return wide.astype(target.holder)  # then wrapped


def bitcast(x: np.ndarray, source: DType, target: DType) -> np.ndarray:
    """The same bits seen as another type of the same width."""
    bits = bf16_bits(x) if source == BF16 else np.asarray(x).astype(source.holder)
    if target == BF16:
        return (bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return bits.view(target.holder)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """The 16-bit patterns of bf16 values held in float32 (exact: they are bf16 values)."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def to_storage(x: np.ndarray, t: DType) -> np.ndarray:
    return bf16_bits(x) if t == BF16 else np.asarray(x).astype(t.storage)


def from_storage(x: np.ndarray, t: DType) -> np.ndarray:
    return bitcast(x.view(np.uint16), TYPES["uint16"], BF16) if t == BF16 else x.astype(t.holder)


# ---------------------------------------------------------------------------------------------------
# Integer and float arithmetic
# ---------------------------------------------------------------------------------------------------

def _unsigned(t: DType) -> np.dtype:
    return np.dtype(f"uint{max(t.bits, 8)}")


def wrapping(op: str, a, b, t: DType) -> np.ndarray:
    """+, -, * of integers, wrapping: done on the unsigned type of the width (defined in C)."""
    u = _unsigned(t)
    a, b = np.asarray(a).astype(t.holder).astype(u), np.asarray(b).astype(t.holder).astype(u)
    result = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](a, b)
    return result.astype(t.holder) if t.kind != "bool" else (result & 1).astype(bool)


def _as_python(x) -> np.ndarray:
    return np.asarray(x).astype(object)


def _wrapped(values, t: DType) -> np.ndarray:
    """Python integers wrapped to t's width, as two's complement for a signed t."""
    size, top = 1 << t.bits, 1 << (t.bits - 1)
    wrap = np.frompyfunc(lambda v: v % size - (size if t.signed and v % size >= top else 0), 1, 1)
    return wrap(values).astype(t.holder)


def _truncated_quotient(x: int, y: int) -> int:
    return abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)


# Where Triton (LLVM's sdiv, srem, shl, ashr, lshr) leaves the result undefined, minitriton defines
# it, and both its backends follow: x // 0 and x % 0 are 0; INT_MIN // -1 wraps to INT_MIN (and
# INT_MIN % -1 is 0); a shift by an amount outside [0, width) gives 0, or copies of the sign bit for
# an arithmetic >>.
def c_div(a, b, t: DType) -> np.ndarray:
    """Integer division truncating toward zero (sdiv / udiv)."""
    a, b = _as_python(a), _as_python(b)
    return _wrapped(np.frompyfunc(lambda x, y: _truncated_quotient(x, y) if y else 0, 2, 1)(a, b), t)


def c_rem(a, b, t: DType) -> np.ndarray:
    """The remainder of c_div: a - (a / b) * b, so it has the dividend's sign (srem / urem)."""
    a, b = _as_python(a), _as_python(b)
    return _wrapped(np.frompyfunc(lambda x, y: x - _truncated_quotient(x, y) * y if y else 0, 2, 1)(a, b), t)


def shift(op: str, a, b, t: DType, arithmetic: bool) -> np.ndarray:
    """<< and >>: >> is arithmetic when the left operand was signed (core.py's __rshift__ looks at
    it before promotion), else logical."""
    kind = np.dtype(str(_unsigned(t)).replace("u", "") if op == "shr" and arithmetic else _unsigned(t))
    amount = np.asarray(b).astype(t.holder).astype(np.int64)
    inside = (amount >= 0) & (amount < t.bits)
    a = np.asarray(a).astype(t.holder).astype(kind)
    moved = (np.left_shift if op == "shl" else np.right_shift)(a, np.where(inside, amount, 0).astype(kind))
    outside = np.where(a < 0, -1, 0).astype(kind) if op == "shr" and arithmetic else np.zeros_like(a)
    return np.where(inside, moved, outside).astype(t.holder)


def umulhi(a, b, t: DType) -> np.ndarray:
    """The high half of the double-width product of the operands read as unsigned (Triton's
    `mulhiui`, for signed types too)."""
    a, b = (_as_python(np.asarray(v).astype(t.holder).view(_unsigned(t))) for v in (a, b))
    high = np.frompyfunc(lambda x, y: (x * y) >> t.bits, 2, 1)(a, b)
    return high.astype(np.uint64).astype(_unsigned(t)).view(t.holder) if t.bits == 64 else \
        high.astype(np.int64).astype(_unsigned(t)).view(t.holder)


def fma(a, b, c, t: DType) -> np.ndarray:
    """a * b + c rounded once: the product is exact in float64 (fp32 and narrower), the sum's
    rounding error comes back by TwoSum, and rounding the float64 sum to odd before the final
    rounding makes the two roundings one."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        s = p + c
        bp = s - c
        error = (p - bp) + (c - (s - bp))
        even = (s.view(np.int64) & 1) == 0
        nudge = np.isfinite(s) & (error != 0) & even
        s = np.where(nudge, np.nextafter(s, np.where(error > 0, np.inf, -np.inf)), s)
    return round_float(s, t)


def unit_roundoff(t: DType) -> float:
    return 2.0 ** -t.significand
