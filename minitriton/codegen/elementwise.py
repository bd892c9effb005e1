"""Elementwise ops, one register at a time: arithmetic, math, comparisons, conversions.

An elementwise op (`ir.ELEMENTWISE`) computes each of its result's registers from the same
register of each operand, so it is written as a rule for one register: `rule(lowering, op, dtype,
*registers) -> register`, `dtype` being the element type it computes in. `apply` is where every
such rule is called, and the one place 16-bit floats are legalized: bf16 has no arithmetic of its
own here and fp16 only a little, so their registers are widened to f32 before the rule and its
result rounded back after, as the interpreter computes them (a library call, whose operands may
differ in type, legalizes each of them the same way). The rules themselves only ever see fp32,
fp64, fp16 (for the few ops PTX has for it) and integers. Also here: the ops that make a tile from
nothing (constants, program ids, special registers, `arange`, `splat`). Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from .fp8 import e4b15_from_f16_bits, fp8_from_f32, fp8_to_f16
from .lowering import GLOBAL_PTR, Lowering, const, f32, f64, i8, i16, i64, ll_type

# --8<-- [start:legalize]
# The ops whose 16-bit float operands are computed in f32. fp16 keeps its own add, sub, mul, div,
# neg and compares (PTX's f16 instructions, exact as f32 rounded back); everything else on fp16,
# and everything on bf16, goes through f32.
LEGALIZED = ir.ARITHMETIC | ir.MATH | {"fma", "cmp"}
FP16_NATIVE = {"add", "sub", "mul", "div", "neg", "cmp"}


def apply(lw: Lowering, name: str, op: ir.Op | None, dtype: ir.DType, *registers):
    """One register of elementwise op `name` from one register of each operand, of `dtype`."""
    rule = REGISTER_RULES[name]
    if name in LEGALIZED and (dtype.is_bf16() or dtype.is_fp16() and name not in FP16_NATIVE):
        result = rule(lw, op, ir.float32, *(lw.to_f32(x, dtype) for x in registers))
        return lw.from_f32(result, dtype) if result.type == f32 else result  # a compare gives i1
    return rule(lw, op, dtype, *registers)


def _tile_rule(name: str):
    """The rule for a whole tile: `apply` register by register (a select's type is its values'),
    once for each run of equal elements a thread holds (`Lowering.equal_registers`): a mask
    `cols < n` over 8 fp16 of a 16-byte load is one compare, not 8, as in Triton."""
    def rule(lw: Lowering, op: ir.Op, *operands):
        dtype = op.operands[1 if name == "select" else 0].dtype
        firsts = lw.equal_registers(op.result) or range(len(operands[0]))
        result = []
        for first, registers in zip(firsts, zip(*operands)):
            computed = first < len(result)
            result.append(result[first] if computed else apply(lw, name, op, dtype, *registers))
        return result
    return rule
# --8<-- [end:legalize]


# --8<-- [start:elementwise]
def _binary(int_op: str, uint_op: str | None, float_op: str | None):
    """A rule applying one LLVM instruction, chosen by the element kind."""
    def rule(lw: Lowering, op, dtype, x, y):
        if dtype.is_floating():
            return getattr(lw.b, float_op)(x, y)
        return getattr(lw.b, int_op if dtype.is_int_signed() else uint_op)(x, y)
    return rule
# --8<-- [end:elementwise]


def _minmax(pick: str):
    def rule(lw: Lowering, op, dtype, x, y):
        if dtype.is_floating():  # llvm.minimum / maximum give NaN for a NaN; minnum / maxnum the other
            name = f"{pick}imum" if op is not None and op.attrs.get("propagate_nan") else f"{pick}num"
            return lw.call(f"llvm.{name}.{'f64' if dtype.is_fp64() else 'f32'}", ll_type(dtype), [x, y])
        cmp = lw.b.icmp_signed if dtype.is_int_signed() else lw.b.icmp_unsigned
        return lw.b.select(cmp("<" if pick == "min" else ">", x, y), x, y)
    return rule


# --8<-- [start:division-by-zero]
def _guarded_division(lw: Lowering, instruction: str, x, y):
    """An integer division or remainder defined for every divisor, by the interpreter's rule (and
    Triton's interpreter's): by 0 the result is 0; a signed one by -1 gives -x, wrapping (INT_MIN //
    -1 is INT_MIN), and a remainder of 0. For LLVM both cases are undefined, and PTX's `div` by
    zero gives "an unspecified, machine-specific value". A constant divisor that is neither needs
    no guard; any other is replaced by 1 where it is one of them (x % 1 is then 0, right for -1
    too), and the result by 0, or by -x for a quotient by -1, there."""
    B, width = lw.b, y.type.width
    signed = instruction in ("sdiv", "srem")
    special = (0, (1 << width) - 1) if signed else (0,)  # -1's bits, as a constant holds them
    if isinstance(y, ll.Constant) and isinstance(y.constant, int) \
            and y.constant % (1 << width) not in special:
        return getattr(B, instruction)(x, y)
    zero, one = ll.Constant(y.type, 0), ll.Constant(y.type, 1)
    is_zero = B.icmp_unsigned("==", y, zero)
    if not signed:
        return B.select(is_zero, zero, getattr(B, instruction)(x, B.select(is_zero, one, y)))
    is_minus_one = B.icmp_signed("==", y, ll.Constant(y.type, -1))
    result = getattr(B, instruction)(x, B.select(B.or_(is_zero, is_minus_one), one, y))
    if instruction == "sdiv":
        result = B.select(is_minus_one, B.neg(x), result)
    return B.select(is_zero, zero, result)
# --8<-- [end:division-by-zero]


def _div(lw: Lowering, op, dtype, x, y):
    """Division: fp32 `/` is div.full.f32 (2 ulp, Triton's choice), `div_rn` the IEEE division;
    an integer's truncates toward zero, and is defined for every divisor (`_guarded_division`)."""
    if dtype.is_fp32() and op.attrs.get("rounding") != "rn":
        return lw.asm(f32, "div.full.f32 $0, $1, $2;", "=f,f,f", [x, y], side_effect=False)
    if not dtype.is_floating():
        return _guarded_division(lw, "sdiv" if dtype.is_int_signed() else "udiv", x, y)
    return lw.b.fdiv(x, y)


def _rem(lw: Lowering, op, dtype, x, y):
    """`%`: C's remainder for integers (`_guarded_division`); for floats fmod, computed in f64 so
    that it is exact while the quotient stays below 2**29 (far beyond what kernels use it for).
    Where the truncated quotient is 0 (|x| < |y|, an infinite y among them) the remainder is x
    itself: x - 0 * y would be NaN for an infinite y, and would lose the sign of a -0.0."""
    B = lw.b
    if not dtype.is_floating():
        return _guarded_division(lw, "srem" if dtype.is_int_signed() else "urem", x, y)
    xd, yd = (v if dtype.is_fp64() else B.fpext(v, f64) for v in (x, y))
    quotient = lw.call("llvm.trunc.f64", f64, [B.fdiv(xd, yd)])
    r = lw.call("llvm.fma.f64", f64, [B.fneg(quotient), yd, xd])
    wrong_sign = B.fcmp_ordered("<", B.fmul(r, xd), ll.Constant(f64, 0.0))
    ay = lw.call("llvm.fabs.f64", f64, [yd])
    fix = B.select(B.fcmp_ordered("<", xd, ll.Constant(f64, 0.0)), B.fneg(ay), ay)
    r = B.select(wrong_sign, B.fadd(r, fix), r)
    r = B.select(B.fcmp_ordered("==", quotient, ll.Constant(f64, 0.0)), xd, r)
    return r if dtype.is_fp64() else B.fptrunc(r, f32)


def _umulhi(lw: Lowering, op, dtype, x, y):
    wide = ll.IntType(2 * dtype.bits)
    return lw.b.trunc(lw.b.lshr(lw.b.mul(lw.b.zext(x, wide), lw.b.zext(y, wide)), ll.Constant(wide, dtype.bits)),
                      ll_type(dtype))


# --8<-- [start:shift]
def _shift(left: bool):
    """`<<`, or `>>` (arithmetic for a signed type), defined for every amount by the interpreter's
    rule (numpy's, and so Triton's interpreter's; PTX's shifts clamp the same way): an amount
    outside [0, width), read as unsigned, shifts every bit out, leaving 0, or copies of the sign
    bit for an arithmetic `>>`. For LLVM such a shift is poison, so an amount that is not a
    constant in range (the language refuses a constant out of range) is checked: `>>` of a signed
    value shifts by at most width - 1, the others keep their result only where the amount is in
    range. Their amount is masked into range too, though the select already discards the rest:
    LLVM's NVPTX backend would otherwise fold the select into PTX's clamping shift, whose amount is
    32 bits wide, and a 64-bit amount of 2**32 + 1 would shift by 1."""
    def rule(lw: Lowering, op, dtype, x, amount):
        B, width = lw.b, dtype.bits
        instruction = "shl" if left else "ashr" if dtype.is_int_signed() else "lshr"
        if isinstance(amount, ll.Constant) and isinstance(amount.constant, int) \
                and 0 <= amount.constant < width:
            return getattr(B, instruction)(x, amount)
        in_range = B.icmp_unsigned("<", amount, ll.Constant(amount.type, width))
        if instruction == "ashr":  # past the width, as far as the sign bit
            return B.ashr(x, B.select(in_range, amount, ll.Constant(amount.type, width - 1)))
        masked = B.and_(amount, ll.Constant(amount.type, width - 1))
        return B.select(in_range, getattr(B, instruction)(x, masked), ll.Constant(x.type, 0))
    return rule
# --8<-- [end:shift]


def _neg(lw: Lowering, op, dtype, x):
    return lw.b.fneg(x) if dtype.is_floating() else lw.b.neg(x)


def _not(lw: Lowering, op, dtype, x):
    return lw.b.not_(x)


def _abs(lw: Lowering, op, dtype, x):
    """|x|; for integers the most negative value stays itself (it wraps, as in the interpreter).
    A 16-bit |x| is taken in 32 bits and cut back: LLVM turns the compare-and-negate into PTX's
    `abs.s16`, after which `abs(x) // abs(x)` was -1 for x = -32768 on an H100, as if the result
    had stayed +32768 in the 32-bit register that holds it (chapter 9)."""
    if dtype.is_floating():
        return lw.call(f"llvm.fabs.{'f64' if dtype.is_fp64() else 'f32'}", ll_type(dtype), [x])
    if dtype.bits == 16:
        return lw.asm(i16, "{ .reg .s32 t; cvt.s32.s16 t, $1; abs.s32 t, t; cvt.s16.s32 $0, t; }", "=h,h", [x],
                      side_effect=False)
    return lw.b.select(lw.b.icmp_signed("<", x, ll.Constant(ll_type(dtype), 0)), lw.b.neg(x), x)


def _fma(lw: Lowering, op, dtype, x, y, z):
    return lw.call(f"llvm.fma.{'f64' if dtype.is_fp64() else 'f32'}", ll_type(dtype), [x, y, z])


# --8<-- [start:math]
LOG2E, LN2 = 1.4426950408889634, 0.6931471805599453


def _exp2(lw, x, flush: bool = False):
    """2**x by the approximate instruction; `flush` (`.ftz`, one SASS instruction instead of
    four) gives 0 for a result below the smallest normal fp32, as Triton's tl.exp2 does. tl.exp
    keeps them."""
    return lw.call(f"llvm.nvvm.ex2.approx{'.ftz' if flush else ''}.f", f32, [x])


def _log2(lw, x):
    return lw.call("llvm.nvvm.lg2.approx.f", f32, [x])


# Each function of an f32 register: the fast approximate instructions where PTX has one, as Triton's
# lowering chooses them, and libdevice's erff, whose relative error is a few ulps.
MATH_F32 = {
    "exp": lambda lw, x: _exp2(lw, lw.b.fmul(x, ll.Constant(f32, LOG2E))),
    "exp2": lambda lw, x: _exp2(lw, x, flush=True),
    "log": lambda lw, x: lw.b.fmul(_log2(lw, x), ll.Constant(f32, LN2)),
    "log2": _log2,
    "sqrt": lambda lw, x: lw.call("llvm.nvvm.sqrt.approx.f", f32, [x]),  # tl.sqrt_rn: libdevice's
    "rsqrt": lambda lw, x: lw.call("llvm.nvvm.rsqrt.approx.f", f32, [x]),
    "sin": lambda lw, x: lw.call("llvm.nvvm.sin.approx.f", f32, [x]),
    "cos": lambda lw, x: lw.call("llvm.nvvm.cos.approx.f", f32, [x]),
    "floor": lambda lw, x: lw.call("llvm.floor.f32", f32, [x]),
    "ceil": lambda lw, x: lw.call("llvm.ceil.f32", f32, [x]),
    "tanh": lambda lw, x: lw.asm(f32, "tanh.approx.f32 $0, $1;", "=f,f", [x], side_effect=False),
    "erf": lambda lw, x: lw.call("__nv_erff", f32, [x]),
}
# fp64 has no approximate instructions: LLVM's exact ones, and libdevice's fp64 functions for the rest.
MATH_F64 = {"sqrt": "llvm.sqrt.f64", "floor": "llvm.floor.f64", "ceil": "llvm.ceil.f64",
            **{name: f"__nv_{name}"
               for name in ("exp", "exp2", "log", "log2", "rsqrt", "sin", "cos", "tanh", "erf")}}
assert set(MATH_F64) == set(MATH_F32), "each math function in fp32 and in fp64"
# --8<-- [end:math]


def _math(name: str):
    def rule(lw: Lowering, op, dtype, x):
        if dtype.is_fp64():
            return lw.call(MATH_F64[name], f64, [x])
        return MATH_F32[name](lw, x)
    return rule


def _pow(lw: Lowering, op, dtype, x, y):
    """x**y = 2**(y*log2|x|), negated for a negative x and an odd integer y (NaN if y is not an
    integer); in fp64, libdevice's pow."""
    if dtype.is_fp64():
        return lw.call("__nv_pow", f64, [x, y])
    B = lw.b
    c = lambda v: ll.Constant(f32, v)
    xf, yf = x, y
    magnitude = _exp2(lw, B.fmul(yf, _log2(lw, lw.call("llvm.fabs.f32", f32, [xf]))))
    integral = B.fcmp_ordered("==", lw.call("llvm.floor.f32", f32, [yf]), yf)
    half = B.fmul(yf, c(0.5))
    odd = B.and_(integral, B.fcmp_unordered("!=", lw.call("llvm.floor.f32", f32, [half]), half))
    negative = B.fcmp_ordered("<", xf, c(0.0))
    signed = B.select(odd, B.fneg(magnitude), magnitude)
    r = B.select(negative, B.select(integral, signed, c(float("nan"))), magnitude)
    return B.select(B.fcmp_ordered("==", yf, c(0.0)), c(1.0), r)


_PREDICATES = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _cmp(lw: Lowering, op, dtype, x, y):
    pred = _PREDICATES[op.attrs["predicate"]]
    if dtype.is_floating():  # != is true for NaN, every other comparison false
        return (lw.b.fcmp_unordered if pred == "!=" else lw.b.fcmp_ordered)(pred, x, y)
    if dtype.is_ptr():
        return lw.b.icmp_unsigned(pred, lw.b.ptrtoint(x, i64), lw.b.ptrtoint(y, i64))
    cmp = lw.b.icmp_signed if dtype.is_int_signed() else lw.b.icmp_unsigned
    return cmp(pred, x, y)


def _select(lw: Lowering, op, dtype, p, x, y):
    return lw.b.select(p, x, y)


# --8<-- [start:cast]
def cast_register(lw: Lowering, x, src: ir.DType, dst: ir.DType):
    """One register converted from `src` to `dst`, with the interpreter's semantics."""
    b = lw.b
    if src == dst:
        return x
    if src.is_ptr() or dst.is_ptr():
        if src.is_ptr() and dst.is_ptr():
            return x
        if src.is_ptr():
            return b.ptrtoint(x, ll_type(dst))
        return b.inttoptr(b.sext(x, i64) if src.bits < 64 else x, GLOBAL_PTR)
    if src.is_fp8() or dst.is_fp8():
        return _fp8_cast(lw, x, src, dst)
    if dst.is_bool():
        if src.is_floating():
            return b.fcmp_unordered("!=", lw.to_f32(x, src),
                                    ll.Constant(f32 if src != ir.float64 else f64, 0.0))
        return b.icmp_unsigned("!=", x, ll.Constant(x.type, 0))
    if src.is_floating() and dst.is_floating():
        if src.is_bf16() or dst.is_bf16():
            wide = lw.to_f32(x, src) if src != ir.float64 else b.fptrunc(x, f32)
            return lw.from_f32(wide, dst) if dst != ir.float64 else b.fpext(wide, f64)
        if src.is_fp32() and dst.is_fp16():
            return lw.from_f32(x, dst)
        return b.fpext(x, ll_type(dst)) if dst.bits > src.bits else b.fptrunc(x, ll_type(dst))
    if src.is_floating():  # to an integer: round toward zero, saturating, NaN -> 0 (cvt.rzi)
        wide = lw.to_f32(x, src)
        kind = "fptosi" if dst.is_int_signed() else "fptoui"
        name = f"llvm.{kind}.sat.i{dst.bits}.{'f64' if wide.type is f64 else 'f32'}"
        return lw.call(name, ll_type(dst), [wide])
    if dst.is_floating():
        target = f32 if dst.is_bf16() else ll_type(dst)
        wide = b.sitofp(x, target) if src.is_int_signed() else b.uitofp(x, target)
        return lw.from_f32(wide, dst) if dst.is_bf16() else wide
    if dst.bits < src.bits:
        return b.trunc(x, ll_type(dst))
    if dst.bits > src.bits:
        return b.sext(x, ll_type(dst)) if src.is_int_signed() else b.zext(x, ll_type(dst))
    return x
# --8<-- [end:cast]


def _fp8_cast(lw: Lowering, x, src: ir.DType, dst: ir.DType, rounding: str = "rtne"):
    """A conversion to or from an fp8 (the frontend allows fp16, bf16 and fp32 on the other side):
    through fp16 from an fp8; from fp32 (exact from fp16 and bf16) to an fp8, but for fp16 ->
    fp8e4b15, whose conversion takes the fp16 bits themselves (an fp16 NaN keeps its sign)."""
    if src.is_fp8():
        return cast_register(lw, fp8_to_f16(lw, x, src), ir.float16, dst)
    if src.is_fp16() and dst.is_fp8e4b15():
        return e4b15_from_f16_bits(lw, lw.b.bitcast(x, i16))
    return fp8_from_f32(lw, lw.to_f32(x, src), dst, rounding)


def _cast(lw: Lowering, op, dtype, x):
    if op.result.dtype.is_fp8():
        return _fp8_cast(lw, x, dtype, op.result.dtype, op.attrs.get("rounding", "rtne"))
    if op.attrs.get("rounding") == "rtz":
        return _toward_zero(lw, x, dtype, op.result.dtype)
    return cast_register(lw, x, dtype, op.result.dtype)


def _toward_zero(lw: Lowering, x, src: ir.DType, dst: ir.DType):
    """A narrowing float cast rounding toward zero: `cvt.rz`, through f32 from f64 to a 16-bit float
    (truncating twice truncates once)."""
    if src.is_fp64():
        x = lw.asm(f32, "cvt.rz.f32.f64 $0, $1;", "=f,d", [x], side_effect=False)
        if dst.is_fp32():
            return x
    bits = lw.asm(i16, f"cvt.rz.{'bf16' if dst.is_bf16() else 'f16'}.f32 $0, $1;", "=h,f", [x], side_effect=False)
    return bits if dst.is_bf16() else lw.b.bitcast(bits, ll_type(dst))  # bf16 registers are i16


def _bitcast(lw: Lowering, op, dtype, x):
    target = op.result.dtype
    if dtype.is_ptr() or target.is_ptr():
        return cast_register(lw, x, dtype, target)
    return lw.b.bitcast(x, ll_type(target))


def _addptr(lw: Lowering, op, dtype, pointer, offset):
    """A pointer moved by `offset` elements (the offset sign- or zero-extended to 64 bits)."""
    pointee = i8 if dtype.pointee.is_bool() else ll_type(dtype.pointee)
    odt = op.operands[1].dtype
    wide = offset if odt.bits == 64 else (lw.b.sext(offset, i64) if odt.is_int_signed() else lw.b.zext(offset, i64))
    return lw.b.gep(pointer, [wide], source_etype=pointee)


# --8<-- [start:extern]
def _extern(lw: Lowering, op, dtype, *registers):
    """A call of a library function (libdevice's `__nv_sinf`): declared here, its body linked from
    NVIDIA's bitcode before NVPTX codegen (`codegen/link.py`). Its operands may differ in type
    (`jn(n, x)`), so 16-bit floats are legalized here operand by operand, as `apply` does for the
    other math: widened to f32 for the f32 function, the result rounded back."""
    args = [lw.to_f32(register, operand.dtype) for register, operand in zip(registers, op.operands)]
    result = op.result.dtype
    narrow = result.is_fp16() or result.is_bf16()
    value = lw.call(op.attrs["symbol"], f32 if narrow else ll_type(result), args)
    return lw.from_f32(value, result) if narrow else value
# --8<-- [end:extern]


REGISTER_RULES = {
    "add": _binary("add", "add", "fadd"), "sub": _binary("sub", "sub", "fsub"),
    "mul": _binary("mul", "mul", "fmul"), "div": _div, "rem": _rem,
    "and": _binary("and_", "and_", None), "or": _binary("or_", "or_", None),
    "xor": _binary("xor", "xor", None), "shl": _shift(left=True), "shr": _shift(left=False),
    "minimum": _minmax("min"), "maximum": _minmax("max"), "umulhi": _umulhi,
    "neg": _neg, "not": _not, "abs": _abs, "fma": _fma, "pow": _pow,
    **{name: _math(name) for name in MATH_F32},
    "cmp": _cmp, "select": _select, "cast": _cast, "bitcast": _bitcast, "addptr": _addptr,
    "extern_elementwise": _extern,
}
assert set(REGISTER_RULES) == ir.ELEMENTWISE, "one register rule per elementwise op"


# -- tiles from nothing ------------------------------------------------------------------------------

def _constant(lw: Lowering, op):
    return [const(op.attrs["dtype"], op.attrs["value"])]


def _program_id(lw: Lowering, op):
    return [lw.sreg("ctaid." + "xyz"[op.attrs["axis"]])]


def _num_programs(lw: Lowering, op):
    return [lw.sreg("nctaid." + "xyz"[op.attrs["axis"]])]


def _arange(lw: Lowering, op):
    v = op.result
    return [index[0] for index in lw.indices(v.layout, v.shape)]


def _special_register(lw: Lowering, op):
    """%smid, or %globaltimer read by a volatile instruction, so that LLVM never merges two reads of
    the clock or moves one across the code it is timing."""
    if op.attrs["register"] == "smid":
        return [lw.sreg("smid")]
    return [lw.asm(i64, "mov.u64 $0, %globaltimer;", "=l", [])]


def _splat(lw: Lowering, op, x):
    return x * lw.n_regs(op.result)


def _hint(lw: Lowering, op, x):
    return x


RULES = {"constant": _constant, "program_id": _program_id, "num_programs": _num_programs, "arange": _arange,
         "special_register": _special_register, "splat": _splat, "hint": _hint, **{name: _tile_rule(name) for name in REGISTER_RULES}}
