"""`tl.dot_scaled`: the product of two tiles in microscaling (MX) formats, made of ordinary tile IR.

An MX operand is a tile of small floats (fp4 e2m1, two to a byte; fp8 e4m3 or e5m2; or plain bf16 /
fp16) with an optional scale per 32 elements along K: an e8m0 byte `s` that stands for 2**(s - 127),
the code 0xFF for NaN. GPUs before Blackwell have no instruction for it, and Triton's own lowering
for them (its DecomposeScaledBlocked pattern) upcasts instead: each operand becomes bf16 (fp16 if
either format is "fp16"), is multiplied by its scale in that type, and the two meet in a plain
`dot` that accumulates in fp32. minitriton does the same here, in the language layer, so the
interpreter and the code generator both see only ops they already know: bit operations and a
`join` to unpack fp4 nibbles, fp8 conversions, `expand_dims` / `broadcast` / `reshape` to spread a
scale over its 32 elements, `select` for the NaN scale, and `dot`. The checks and their messages
are Triton 3.6's. Chapter: 08-llvm.
"""
from __future__ import annotations

from .. import ir
from ..ir import Value
from .core import _dtype, _unwrap, _value, builtin, tensor
from .dots import dot
from .semantic import SemanticError, Weak, binary, broadcast_to, cast, compare, emit, where
from .tiles import expand_dims, reshape, trans

# --8<-- [start:formats]
# Every format Triton's ScaleDotElemType names; those without a storage row are not implemented in
# Triton 3.6's tl.dot_scaled either ("NYI"). A format's tile holds its floats, or their bits in the
# unsigned integer of their width; e2m1's holds bytes of two nibbles, the first in the low bits.
KNOWN_FORMATS = ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "bf16", "fp16")
STORAGE = {"e4m3": (ir.float8e4nv, ir.uint8), "e5m2": (ir.float8e5, ir.uint8),
           "bf16": (ir.bfloat16, ir.uint16), "fp16": (ir.float16, ir.uint16), "e2m1": (None, ir.uint8)}
GROUP = 32  # elements along K that share one e8m0 scale
SCALE_NAN = 0xFF  # the e8m0 code for NaN
# --8<-- [end:formats]


# --8<-- [start:dot-scaled]
@builtin
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False,
               lhs_k_pack=True,
               rhs_k_pack=True, out_dtype=ir.float32) -> tensor:
    """`acc + (lhs * 2**(lhs_scale - 127)) @ (rhs * 2**(rhs_scale - 127))`, each scale spread over
    32 elements along K (`lhs_scale` is [M, K // 32], `rhs_scale` [N, K // 32]: not transposed);
    a None scale leaves its operand as it is. An e2m1 operand packs two elements per byte along K,
    or along M (N) with `lhs_k_pack=False` (`rhs_k_pack=False`). A scale of 0xFF makes its 32
    elements NaN, unless `fast_math` says the kernel has none."""
    if _dtype(out_dtype) != ir.float32:
        raise SemanticError("Only float32 is supported for out_dtype at the moment",
                            "leave out_dtype out")
    a, b = _value(lhs), _value(rhs)
    if not a.type.is_tile or not b.type.is_tile or len(a.shape) != len(b.shape) \
            or len(a.shape) not in (2, 3):
        raise SemanticError(f"Both inputs must be either 2D or 3D; (lhs: {list(a.shape)} vs rhs: "
                            f"{list(b.shape)})", "a 2-D dot_scaled multiplies [M, K] by [K, N]; a 3-D "
                            "one [B, M, K] by [B, K, N]")
    lhs_format, rhs_format = _format(lhs_format, "lhs"), _format(rhs_format, "rhs")
    lhs_k_pack, rhs_k_pack = bool(_unwrap(lhs_k_pack)), bool(_unwrap(rhs_k_pack))
    for k_pack, fmt in ((lhs_k_pack, lhs_format), (rhs_k_pack, rhs_format)):
        if not k_pack and fmt != "e2m1":
            raise SemanticError("only mxfp4 inputs can be packed along a dimension different than K",
                                "leave lhs_k_pack and rhs_k_pack True for this format")
    a, b = _floats(a, lhs_format), _floats(b, rhs_format)
    rank = len(a.shape)
    a = _unpacked(a, rank - 1 if lhs_k_pack else rank - 2) if lhs_format == "e2m1" else a
    b = _unpacked(b, rank - 2 if rhs_k_pack else rank - 1) if rhs_format == "e2m1" else b
    (*_, m, k), (*_, k_rhs, n) = a.shape, b.shape
    if k != k_rhs:
        raise SemanticError("Reduction dimension should pack the same number of elements; "
                            f"(lhs: {list(_value(lhs).shape)} vs rhs: {list(_value(rhs).shape)})",
                            "an e2m1 operand holds two elements per byte")
    compute = ir.float16 if "fp16" in (lhs_format, rhs_format) else ir.bfloat16
    a = _scaled(cast(a, compute), _scale(lhs_scale, "lhs", m, k), fast_math, rhs=False)
    b = _scaled(cast(b, compute), _scale(rhs_scale, "rhs", n, k), fast_math, rhs=True)
    acc = _unwrap(acc)
    if acc is not None:
        acc = _value(acc)
        if acc.shape != a.shape[:-1] + (n,) or acc.dtype != ir.float32:
            raise SemanticError(f"the accumulator is a {list(acc.shape)} tile of {acc.dtype}; dot_scaled "
                                f"needs {list(a.shape[:-1] + (n,))} of fp32",
                                "accumulate dot_scaled in an fp32 tile of the result's shape")
    return tensor(dot(a, b, acc, "ieee", None, ir.float32))
# --8<-- [end:dot-scaled]


def _format(fmt, side: str) -> str:
    fmt = _unwrap(fmt)
    if not isinstance(fmt, str) or fmt.upper() not in (f.upper() for f in KNOWN_FORMATS):
        raise SemanticError(f"Invalid float format: {fmt}.", f"{side}_format is one of {', '.join(STORAGE)}")
    if fmt not in STORAGE:
        raise SemanticError(f"NYI: {side}_format {fmt}", f"{side}_format is one of {', '.join(STORAGE)}")
    return fmt


def _floats(x: Value, fmt: str) -> Value:
    """The operand as its format's floats (an e2m1 operand stays bytes)."""
    floats, bits = STORAGE[fmt]
    if fmt == "e2m1" and x.dtype != bits:
        raise SemanticError(f"e2m1 format must be packed as uint8. Got {x.dtype}", "load the packed bytes as uint8")
    if x.dtype in (floats, bits):
        return x if floats is None else cast(x, floats, bitcast=True)
    raise SemanticError(f"Unexpected dtype for {fmt}. Got {x.dtype}",
                        f"a {fmt} operand holds {floats}, or their bits as {bits}")


# --8<-- [start:fp4]
def _unpacked(x: Value, axis: int) -> Value:
    """Bytes of two e2m1 nibbles as bf16 numbers, twice as many along `axis`: the low nibble first.
    A nibble is s.ee.m; its magnitude em = 0b0ee_m is 0, 0.5 (em = 1), or 2**(ee - 1) * (1 + m/2),
    every one exact in bf16 (and fp16): exponent field ee - 1 + bias, m the mantissa's top bit.
    Those bits are (em << (mantissa - 1)) + ((bias - 1) << mantissa); 0 and 0.5 are em times 0.5's
    bits. The sign moves from bit 3 to bit 15."""
    mantissa, bias = ir.bfloat16.fp_mantissa_width, ir.bfloat16.exponent_bias
    half = (bias - 1) << mantissa
    byte = cast(x, ir.uint16)
    halves = []
    for nibble in (binary("and", byte, Weak(0xF)), binary("shr", byte, Weak(4))):
        em = binary("and", nibble, Weak(0x7))
        normal = binary("add", binary("shl", em, Weak(mantissa - 1)), Weak(half))
        bits = where(compare("ge", em, Weak(2)), normal, binary("mul", em, Weak(half)))
        sign = binary("shl", binary("and", nibble, Weak(0x8)), Weak(12))
        halves.append(cast(binary("or", bits, sign), ir.bfloat16, bitcast=True))
    pairs = emit("join", halves)  # [..., 2]: each byte's two elements side by side
    rank = len(x.shape)
    # the pairs go next to their axis; along the last one they are (tl.interleave)
    if axis != rank - 1:
        pairs = trans(pairs, tuple(range(axis + 1)) + (rank,) + tuple(range(axis + 1, rank)))
    return reshape(pairs, x.shape[:axis] + (2 * x.shape[axis],) + x.shape[axis + 1:])
# --8<-- [end:fp4]


# --8<-- [start:scale]
def _scale(scale, side: str, rows: int, k: int) -> Value | None:
    """The checked e8m0 scale tile ([rows, k // 32] bytes), or None."""
    scale = _unwrap(scale)
    if scale is None:
        return None
    scale = _value(scale)
    if scale.dtype != ir.uint8:
        raise SemanticError(f"{side}_scale must hold e8m0 scales as uint8, got {scale.dtype}",
                            "one byte per 32 elements along K: the exponent, biased by 127")
    if list(scale.shape) != [rows, k // GROUP]:
        raise SemanticError(f"{side}_scale must be a tensor of shape [{rows}, {k // GROUP}]. "
                            f"Got {[str(s) for s in scale.shape]}",
                            "one scale per group of 32 elements along K, for each row")
    return scale


def _scaled(x: Value, scale: Value | None, fast_math, rhs: bool) -> Value:
    """x (lhs [..., M, K] or rhs [..., K, N], of bf16 or fp16) times 2**(scale - 127), each scale
    spread over its 32 elements of K (a 2-D scale serves every batch of a 3-D operand).
    2**(s - 127) is s in a bf16's (or fp32's) exponent field: exact in bf16, rounded to fp16 (0 from
    2**-25 down, infinity from 2**16 up). The code 0xFF (infinity there) becomes NaN,
    unless `fast_math`."""
    if scale is None:
        return x
    if x.dtype.is_bf16():
        factor = cast(binary("shl", cast(scale, ir.uint16), Weak(7)), ir.bfloat16, bitcast=True)
    else:
        factor = cast(cast(binary("shl", cast(scale, ir.uint32), Weak(23)), ir.float32,
                           bitcast=True), ir.float16)
    if not _unwrap(fast_math):
        factor = where(compare("eq", scale, Weak(SCALE_NAN)), Weak(float("nan")), factor)
    rows, groups = scale.shape
    spread = broadcast_to(expand_dims(factor, 2), (rows, groups, GROUP))
    spread = reshape(spread, (rows, groups * GROUP))
    if rhs:
        spread = trans(spread, (1, 0))
    return binary("mul", x, broadcast_to(spread, x.shape))
# --8<-- [end:scale]
