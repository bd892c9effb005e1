"""Narrow floats as bits: bf16, the fp8s and tf32, and the one rounding every stage gives them.

numpy has no bf16 and no fp8, so their values live in float32 (`dtypes`); memory, kernel
parameters and constants hold their bit patterns. `float_bits` rounds values to those patterns
and `float_from_bits` reads them back, the same way for the interpreter, codegen's constants and
the driver's parameters; each fp8's encoding is its row of `dtypes.FORMATS`. tf32, which only a
`dot` uses, is cut here too. Chapter: 03-tile-ir (bf16), 08-llvm (fp8, tf32).
"""
from __future__ import annotations

import numpy as np

from .dtypes import FORMATS, DType, FloatFormat


# ---------------------------------------------------------------------------------------------------
# bf16: numpy has no such type, so values live in float32 and memory holds their top 16 bits.
# ---------------------------------------------------------------------------------------------------

# --8<-- [start:bf16]
def bf16_bits(x) -> np.ndarray:
    """Numbers (any float width, or Python floats) -> the bit patterns of their nearest bf16 (ties
    to even; every NaN the canonical 0x7FFF). Wider values are first rounded to odd in float32, so
    that they are rounded once, not twice. The one rounding the interpreter, codegen and the driver
    all use."""
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float16):
        x = _round_to_odd_float32(x)
    bits = np.asarray(x, np.float32).view(np.uint32)
    with np.errstate(over="ignore"):
        # Adding 0x7FFF, plus 1 when the kept part is odd, carries into bit 16 exactly when the
        # dropped half is above one half, or equal to it and the kept part is odd.
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & 1)) >> 16
    # Every NaN becomes 0x7FFF, the one NaN NVIDIA's conversion (cvt.rn.bf16.f32) gives.
    return np.where(np.isnan(x), np.uint32(0x7FFF), rounded).astype(np.uint16)


def bf16_from_bits(bits) -> np.ndarray:
    """16-bit patterns -> the float32 values they stand for (exact: bf16 is float32's top half)."""
    return (np.asarray(bits).view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def _round_to_odd_float32(x: np.ndarray) -> np.ndarray:
    """Wider values -> float32, rounded toward zero with the last bit set when inexact.

    A value rounded to odd in float32 rounds to bf16 exactly as the original would: the sticky
    last bit remembers that something was dropped, so the second rounding is not a double rounding.
    """
    wide = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = wide.astype(np.float32)
        narrow = np.where(np.abs(narrow) > np.abs(wide), np.nextafter(narrow, np.float32(0)), narrow)
    return (narrow.view(np.uint32) | (narrow != wide)).astype(np.uint32).view(np.float32)


def round_to_bf16(x) -> np.ndarray:
    """Values rounded to bf16 precision (to nearest, ties to even), as float32."""
    return bf16_from_bits(bf16_bits(x))
# --8<-- [end:bf16]




def fp8_values(dtype: DType) -> np.ndarray:
    """The number each of the 256 codes of an fp8 stands for (NaN for the NaN codes), as float32."""
    return _FP8_VALUES[dtype.name]


def _decode_fp8(fmt: FloatFormat) -> np.ndarray:
    codes = np.arange(256)
    exponent, mantissa = (codes >> fmt.mantissa) & ((1 << fmt.exponent) - 1), codes & ((1 << fmt.mantissa) - 1)
    normal = exponent > 0
    significand = np.where(normal, 1 << fmt.mantissa, 0) + mantissa
    magnitude = significand * 2.0 ** (np.maximum(exponent, 1) - fmt.bias - fmt.mantissa)
    values = np.where(codes >= 128, -magnitude, magnitude)
    top = exponent == (1 << fmt.exponent) - 1
    nan = {"ieee": top & (mantissa != 0), "fn": top & (mantissa == (1 << fmt.mantissa) - 1),
           "fnuz": codes == 0x80, "finite": codes < 0}[fmt.specials]
    values = np.where(top & (mantissa == 0) & (fmt.specials == "ieee"), np.copysign(np.inf, values), values)
    values = values.astype(np.float32)
    # A NaN keeps its code in its payload, so that moving it (a load, a store, a select) keeps it
    tagged = (np.where(codes >= 128, 0x80000000, 0) | _NAN_TAG | codes).astype(np.uint32).view(np.float32)
    return np.where(nan, tagged, values)


_NAN_TAG = 0x7FC00100  # an fp32 quiet NaN whose low byte is the fp8 NaN's code


_FP8_VALUES = {name: _decode_fp8(fmt) for name, fmt in FORMATS.items() if name.startswith("fp8")}
_FP8_POSITIVE = {name: values[:128][~np.isnan(values[:128])] for name, values in _FP8_VALUES.items()}


# --8<-- [start:fp8]
def fp8_bits(x, dtype: DType, rounding: str = "rtne") -> np.ndarray:
    """Numbers -> the codes of the fp8 `dtype` Triton's conversion gives them: the nearest (ties as
    the format says) or, with `rounding="rtz"`, the next toward zero; clamped to the format's
    `saturate` (toward zero, an infinity stays one); NaN -> the format's NaN. fp8e4b15's conversion
    goes through fp16, so an fp16 NaN keeps its sign and any other NaN becomes +1.75."""
    fmt = FORMATS[dtype.name]
    x = np.asarray(x)
    magnitude = np.abs(x.astype(np.float64))
    nan = np.isnan(magnitude)
    negative = np.signbit(x) & (~nan | (x.dtype == np.float16))
    with np.errstate(invalid="ignore", over="ignore"):
        _, exponent = np.frexp(magnitude)  # magnitude = m * 2**exponent, m in [0.5, 1)
        ulp = np.ldexp(1.0, np.maximum(exponent - 1, 1 - fmt.bias) - fmt.mantissa)
        steps = magnitude / ulp  # exact: a power-of-two scaling of a narrower float
        if rounding == "rtz":
            steps = np.trunc(steps)
        else:
            steps = np.rint(steps) if fmt.ties == "even" else np.floor(steps + 0.5)
        rounded = np.minimum(np.where(np.isinf(magnitude), magnitude, steps * ulp), fmt.saturate)
    if rounding == "rtz":  # toward zero, only overflowing numbers are clamped
        rounded = np.where(np.isinf(magnitude), magnitude, rounded)
    if fmt.specials == "finite":
        rounded = np.where(nan, fmt.saturate, rounded)
    return _code(rounded, negative, fmt, dtype)
# --8<-- [end:fp8]


def _code(magnitude, negative, fmt: FloatFormat, dtype: DType) -> np.ndarray:
    """The code of +-`magnitude`, a number (or infinity, or NaN) of the format."""
    positive = _FP8_POSITIVE[dtype.name]
    code = np.searchsorted(positive, np.where(np.isnan(magnitude), 0.0, magnitude)).astype(np.uint8)
    code = np.where(negative & ((code != 0) | (fmt.specials != "fnuz")), code | 0x80, code)
    nan = {"fnuz": 0x80, "finite": None}.get(fmt.specials, 0x7F)
    return np.where(np.isnan(magnitude), nan, code).astype(np.uint8) if nan is not None else code.astype(np.uint8)


def _fp8_exact(x, dtype: DType) -> tuple[np.ndarray, np.ndarray]:
    """(code, whether x is exactly that code's number) for numbers x of any float type; a NaN
    that came from an fp8 code (`_NAN_TAG`) is that code, any other the format's NaN."""
    x = np.asarray(x)
    magnitude = np.abs(x.astype(np.float64))
    code = _code(magnitude, np.signbit(x), FORMATS[dtype.name], dtype)
    if x.dtype == np.float32:
        bits = x.view(np.uint32)
        tagged = np.isnan(x) & ((bits & 0x7FFFFF00) == _NAN_TAG) & np.isnan(_FP8_VALUES[dtype.name][bits & 0xFF])
        code = np.where(tagged, bits & 0xFF, code).astype(np.uint8)
    return code, (_FP8_VALUES[dtype.name][code] == x) | np.isnan(magnitude)


def float_bits(x, dtype: DType) -> np.ndarray:
    """The bit patterns of values of `dtype`, a float held as bits (bf16, fp8): a number the type
    has is its own code (an fp8e5 infinity too; a bf16 held in float32 is its top half, a NaN's
    payload included, so that loading, moving and bitcasting keep bits as the GPU does), any other
    is converted (`bf16_bits`, `fp8_bits`)."""
    if dtype.is_bf16():
        x = np.asarray(x)
        if x.dtype != np.float32:
            return bf16_bits(x)
        bits = x.view(np.uint32)
        return np.where(bits & np.uint32(0xFFFF) == 0, bits >> 16, bf16_bits(x)).astype(np.uint16)
    code, exact = _fp8_exact(x, dtype)
    return np.where(exact, code, fp8_bits(x, dtype)).astype(np.uint8)


def float_from_bits(bits, dtype: DType) -> np.ndarray:
    """Bit patterns of `dtype` (bf16, fp8) -> the float32 values they stand for (exact)."""
    return bf16_from_bits(bits) if dtype.is_bf16() else _FP8_VALUES[dtype.name][np.asarray(bits).view(np.uint8)]


def nearest(x: float, dtype: DType) -> float:
    """The number of the float type `dtype` nearest to `x` (past the largest finite: infinity, or an
    fp8's saturation), as a constant of that type holds it in the interpreter and in codegen."""
    if dtype.stored_as_bits:
        return float(float_from_bits(float_bits(x, dtype), dtype))
    with np.errstate(over="ignore"):
        return float(np.asarray(x).astype(dtype.np))


# --8<-- [start:tf32]
def round_to_tf32(x) -> np.ndarray:
    """float32 values cut to tf32 (10 mantissa bits) as the tensor cores cut them: they are given
    an fp32's 32 bits, as Triton gives them, and ignore the 13 lowest, which rounds toward zero."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    return (bits & np.uint32(0xFFFFE000)).view(np.float32)
# --8<-- [end:tf32]
