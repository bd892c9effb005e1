"""The typing rules of `tl.dot`: which operand types and shapes it takes, what it accumulates
in, and the precise fp32 variants (tf32x3, bf16x3, bf16x6) made of several tensor-core dots of the
operands' parts. Only "ieee" and "tf32" dots reach the IR. Chapter: 02-frontend (rules), 08-llvm
(the parts).
"""
from __future__ import annotations

from .. import ir
from ..dtypes import FACTS
from ..ir import DType, Value
from .semantic import (SemanticError, Weak, absolute, binary, broadcast_to, cast, compare, constant, emit,
                       where)


# --8<-- [start:dot]
PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")  # Triton's choices for fp32 on NVIDIA
DOT_INPUTS = (ir.int8, ir.uint8, ir.float16, ir.bfloat16, ir.float32, ir.float64)


def dot(a: Value, b: Value, acc: Value | None, input_precision: str, max_num_imprecise_acc: int | None,
        out_dtype: DType) -> Value:
    """`acc + a @ b` over 2-D tiles, or 3-D ones whose first dimension is a batch (Triton's rules).
    fp16, bf16 and fp8 multiply exactly and accumulate in fp32 (an fp16 `out_dtype` is rounded
    once, at the end); fp32 is rounded to tf32 for the tensor cores unless `input_precision` asks
    for "ieee", or for three (tf32x3, bf16x3) or six (bf16x6) products of its parts; int8
    accumulates in int32. Only "ieee" and "tf32" dots reach the IR: the rest is made of them here."""
    if len(a.shape) != len(b.shape) or len(a.shape) not in (2, 3):
        raise SemanticError(f"tl.dot: Both inputs must be either 2D or 3D; (lhs: {list(a.shape)} vs rhs: "
                            f"{list(b.shape)})", "a 2-D dot multiplies [M, K] by [K, N]; a 3-D one [B, M, K] by "
                            "[B, K, N]")
    *batch, m, k = a.shape
    *batch_b, k2, n = b.shape
    if batch != batch_b:
        raise SemanticError(f"tl.dot: input and other must have equal batch shapes ({list(a.shape)} @ "
                            f"{list(b.shape)})", "a 3-D dot multiplies [B, M, K] by [B, K, N], one B for both")
    if k != k2:
        raise SemanticError(f"tl.dot: inner dimensions differ ({list(a.shape)} @ {list(b.shape)}): the shapes are "
                            "not compatible for matmul",
                            "the first operand's columns must equal the second's rows")
    fp8 = a.dtype.is_fp8() and b.dtype.is_fp8()
    for side, x in (("lhs", a), ("rhs", b)):
        if not fp8 and x.dtype not in DOT_INPUTS:
            raise SemanticError(f"tl.dot: Unsupported {side} dtype {x.dtype}",
                                "tl.dot takes int8, fp16, bf16, fp32, fp64, or two fp8s")
    if not fp8 and a.dtype != b.dtype:
        raise SemanticError(f"tl.dot: Both operands must be same dtype. Got {a.dtype} and {b.dtype}",
                            "convert one operand to the other's type")
    min_k = 32 if a.dtype.bits == 8 else 16
    if k < min_k:
        raise SemanticError(f"tl.dot: Input shapes should have M >= 1, N >= 1 and K >= {min_k}, got K={k}",
                            f"make the reduction dimension at least {min_k}")
    result_dtype = _dot_result_dtype(a.dtype, out_dtype)
    if fp8 and not {a.dtype, b.dtype} <= {ir.float8e4nv, ir.float8e5}:  # as Triton: exact, and the IR's
        a, b = cast(a, ir.float16), cast(b, ir.float16)  # dot takes only e4m3 and e5m2 (see passes/layout)
    if acc is not None and (acc.shape != (*batch, m, n) or acc.dtype != out_dtype):
        raise SemanticError(f"tl.dot: the accumulator is a {list(acc.shape)} tile of {acc.dtype}; expected "
                            f"{[*batch, m, n]} of out_dtype={out_dtype}",
                            f"pass out_dtype=tl.{FACTS[acc.dtype.name].language} with this accumulator")
    if max_num_imprecise_acc is not None and fp8 and max_num_imprecise_acc > k:
        raise SemanticError(f"max_num_imprecise_acc ({max_num_imprecise_acc}) must be <= K ({k})",
                            "leave it out, or give at most K")
    precision = input_precision.lower()
    if precision not in PRECISIONS:
        raise SemanticError(f"input_precision must be one of {PRECISIONS}. Got {input_precision}",
                            "'tf32' (the default for fp32) or 'ieee' (exact fp32 products)")
    if result_dtype.is_fp16():  # accumulated in fp32, rounded to fp16 once, at the end
        wide = None if acc is None else cast(acc, ir.float32)
        return cast(dot(a, b, wide, precision, None, ir.float32), ir.float16)
    if not a.dtype.is_fp32() or precision in ("tf32", "ieee"):
        acc = acc if acc is not None else broadcast_to(constant(0, result_dtype), (*batch, m, n))
        return emit("dot", [a, b, acc], input_precision=precision if a.dtype.is_fp32() else "ieee")
    return _dot_of_parts(a, b, acc, precision)


def _dot_result_dtype(inputs: DType, out_dtype: DType) -> DType:
    """int8 -> int32, fp32 and bf16 -> fp32, fp64 -> fp64, fp16 and fp8 -> `out_dtype` (fp32 or fp16)."""
    if inputs.is_int():
        if inputs != ir.int8:
            raise SemanticError("tl.dot: only int8 supported!", "integer dots take int8 operands")
        return ir.int32
    if out_dtype.is_bf16():
        raise SemanticError("out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast "
                            "with `.to(tl.bfloat16)`", "accumulate in fp32, then convert the result")
    if inputs.is_fp32() or inputs.is_bf16():
        return ir.float32
    if inputs.is_fp64():
        return ir.float64
    if out_dtype not in (ir.float16, ir.float32):
        raise SemanticError(f"tl.dot: out_dtype={out_dtype} is unsupported for {inputs} operands",
                            "use out_dtype=tl.float32 or tl.float16")
    return out_dtype
# --8<-- [end:dot]


# --8<-- [start:dot-parts]
def _dot_of_parts(a: Value, b: Value, acc: Value | None, precision: str) -> Value:
    """An fp32 dot from dots of the operands' parts, as Triton's F32DotTC pass makes it. tf32x3:
    big = tf32(x), small = x - big; small_a big_b + big_a small_b + big_a big_b. bf16x3 and bf16x6:
    x = hi + mid + lo, each a bf16; the products whose size is above fp32's last bit (3 of them, or
    6), smallest first, the big one last. A NaN among the small products (inf * 0, from an
    infinite operand whose small part is 0) is dropped, so the big product decides."""
    zeros = broadcast_to(constant(0, ir.float32), a.shape[:-1] + (b.shape[-1],))
    if precision == "tf32x3":
        (a_big, a_small), (b_big, b_small) = _tf32_parts(a), _tf32_parts(b)
        pairs, last, kind = [(a_small, b_big), (a_big, b_small)], (a_big, b_big), "tf32"
    else:
        count = 2 if precision == "bf16x3" else 3
        (hi, mid, *lo), (b_hi, b_mid, *b_lo) = _bf16_parts(a, count), _bf16_parts(b, count)
        pairs = [(mid, b_mid), (lo[0], b_hi), (hi, b_lo[0])] if count == 3 else []
        pairs += [(mid, b_hi), (hi, b_mid)]
        last, kind = (hi, b_hi), "ieee"
    result = zeros
    for x, y in pairs:
        result = emit("dot", [x, y, result], input_precision=kind)
    result = where(compare("ne", result, result), Weak(0.0), result)
    result = emit("dot", [*last, result], input_precision=kind)
    return result if acc is None else binary("add", result, acc)


def _tf32_parts(x: Value) -> tuple[Value, Value]:
    """(tf32(x), x - tf32(x)): tf32(x) rounds to nearest, ties away, as `cvt.rna.tf32.f32` does
    (half of the dropped part added to the bits, which are then cut; infinity and NaN only cut)."""
    bits = cast(x, ir.uint32, bitcast=True)
    finite = compare("lt", absolute(x), Weak(float("inf")))
    rounded = binary("and", where(finite, binary("add", bits, Weak(0x1000)), bits), Weak(0xFFFFE000))
    big = cast(rounded, ir.float32, bitcast=True)
    return big, binary("sub", x, big)


def _bf16_parts(x: Value, count: int) -> list[Value]:
    """`count` bf16s whose sum is x (to fp32's precision): each the nearest bf16 to what is left."""
    parts = []
    for i in range(count):
        part = cast(x, ir.bfloat16)
        parts.append(part)
        if i + 1 < count:
            x = binary("sub", x, cast(part, ir.float32))
    return parts
# --8<-- [end:dot-parts]
