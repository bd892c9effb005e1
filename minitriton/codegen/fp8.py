"""fp8 registers: Triton's conversions between the fp8s and fp16 / fp32, one register at a time.

An fp8 value travels as its 8-bit code (an `i8` register). No thread computes on it: the frontend
converts fp8 operands to fp32 first (`semantic.through_fp32`), and only wgmma multiplies e4m3 and
e5m2 as they are, from shared memory (`dot.py`), so the only fp8 code here is the conversions, with the interpreter's semantics (`floats.fp8_bits`): to fp16 exactly; from fp32 to
nearest, ties to even, saturating (`cvt.rn.satfinite`, sm_89 and later, or bit arithmetic on
sm_80), or toward zero for fp8e5; fp8e4b15 by Triton's software conversion through fp16 (ties away
from zero, clamped to 1.75). Which fp8s an arch has at all is the dtype table's `cuda` column,
checked before codegen (`codegen/backend.check_types`). Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from .lowering import Lowering, f16, f32, i8, i16

NATIVE_FP8 = 89  # cvt between fp8x2 and f16x2 / f32: sm_89 and later


def _arch(lw: Lowering) -> int:
    return int(lw.arch[3:].rstrip("a"))


def _c(value: int) -> ll.Constant:
    return ll.Constant(i16, value)


# --8<-- [start:upcast]
def _e5_to_f16(lw: Lowering, code):
    """fp8e5 is fp16's top byte."""
    return lw.b.bitcast(lw.b.shl(lw.b.zext(code, i16), _c(8)), f16)


def _e4b15_to_f16(lw: Lowering, code):
    """fp8e4b15 (s eeee mmm) has fp16's bias: its bits move into fp16's (s 0eeee mmm0000000)."""
    B = lw.b
    wide = B.zext(code, i16)
    magnitude = B.shl(B.and_(wide, _c(0x7F)), _c(7))
    return B.bitcast(B.or_(B.shl(B.and_(wide, _c(0x80)), _c(8)), magnitude), f16)


def _e4nv_to_f16(lw: Lowering, code):
    pair = lw.asm(ll.IntType(32), "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", [lw.b.zext(code, i16)], side_effect=False)
    return lw.b.bitcast(lw.b.trunc(pair, i16), f16)


TO_F16 = {"fp8e5": _e5_to_f16, "fp8e4b15": _e4b15_to_f16, "fp8e4nv": _e4nv_to_f16}


def fp8_to_f16(lw: Lowering, code, dtype: ir.DType):
    """An fp8 register as the fp16 holding the same number (exact; a NaN stays a NaN)."""
    return TO_F16[dtype.name](lw, code)
# --8<-- [end:upcast]


# --8<-- [start:downcast]
def _toward_zero_f16(lw: Lowering, x):
    """fp32 -> the bits of fp16, rounded toward zero (a NaN becomes the canonical 0x7FFF)."""
    return lw.asm(i16, "cvt.rz.f16.f32 $0, $1;", "=h,f", [x], side_effect=False)


def _cvt_satfinite(kind: str):
    """`cvt.rn.satfinite.<kind>x2.f32` of (0, x): the low byte is x's code (sm_89 and later)."""
    def convert(lw: Lowering, x):
        pair = lw.asm(i16, f"cvt.rn.satfinite.{kind}x2.f32 $0, $1, $2;", "=h,f,f",
                      [ll.Constant(f32, 0.0), x],
                      side_effect=False)
        return lw.b.trunc(pair, i8)
    return convert


def _e5_nearest_software(lw: Lowering, x):
    """fp32 -> fp8e5 to nearest, ties to even, saturating, in integer arithmetic: first fp16
    rounded to odd (toward zero, its last bit set where anything was dropped, so the second
    rounding is not a double rounding), then its top byte rounded to nearest even."""
    B = lw.b
    half = _toward_zero_f16(lw, x)
    inexact = B.fcmp_ordered("!=", B.fpext(B.bitcast(half, f16), f32), x)
    odd = B.or_(half, B.zext(inexact, i16))
    magnitude = B.and_(odd, _c(0x7FFF))
    keep_odd = B.and_(B.lshr(magnitude, _c(8)), _c(1))
    rounded = B.lshr(B.add(B.add(magnitude, _c(0x7F)), keep_odd), _c(8))
    finite = B.select(B.icmp_unsigned(">", rounded, _c(0x7B)), _c(0x7B), rounded)
    code = B.select(B.icmp_unsigned(">", magnitude, _c(0x7C00)), _c(0x7F), finite)
    return B.trunc(B.or_(code, B.lshr(B.and_(odd, _c(0x8000)), _c(8))), i8)


def _e5_toward_zero(lw: Lowering, x):
    """Triton's: fp16 rounded toward zero, then its top byte (an overflow stops at the largest)."""
    return lw.b.trunc(lw.b.lshr(_toward_zero_f16(lw, x), _c(8)), i8)


def e4b15_from_f16_bits(lw: Lowering, half):
    """Triton's fp8e4b15 conversion of fp16 bits: the magnitude clamped to 1.75 (NaN and infinity
    too), shifted into place and rounded to nearest, ties away from zero; the sign kept."""
    B = lw.b
    magnitude = B.and_(half, _c(0x7FFF))
    clamped = B.select(B.icmp_unsigned(">", magnitude, _c(0x3F00)), _c(0x3F00), magnitude)
    rounded = B.lshr(B.add(B.shl(clamped, _c(1)), _c(0x80)), _c(8))
    return B.trunc(B.or_(rounded, B.lshr(B.and_(half, _c(0x8000)), _c(8))), i8)


def _e4b15_from_f32(lw: Lowering, x):
    return e4b15_from_f16_bits(lw, _toward_zero_f16(lw, x))


# (fp8, rounding) -> (the oldest arch, conversion of an f32 register), newest arch first
FROM_F32 = {
    ("fp8e4nv", "rtne"): [(NATIVE_FP8, _cvt_satfinite("e4m3"))],
    ("fp8e5", "rtne"): [(NATIVE_FP8, _cvt_satfinite("e5m2")), (0, _e5_nearest_software)],
    ("fp8e5", "rtz"): [(0, _e5_toward_zero)],
    ("fp8e4b15", "rtne"): [(0, _e4b15_from_f32)],
}


def fp8_from_f32(lw: Lowering, x, dtype: ir.DType, rounding: str = "rtne"):
    """An f32 register converted to the fp8 `dtype` as Triton converts it on this arch."""
    arch = _arch(lw)
    convert = next(rule for oldest, rule in FROM_F32[dtype.name, rounding] if arch >= oldest)
    return convert(lw, x)
# --8<-- [end:downcast]
