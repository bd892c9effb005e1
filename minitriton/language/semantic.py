"""The typing rules of the language: what `a + b`, `tl.load(p, mask)` or `tl.where(c, a, b)` mean in tile IR.

The frontend evaluates a kernel's expressions; every operation on tiles lands here, where operands are
promoted to one dtype (Triton's rules), broadcast to one shape (numpy's rules), checked, and turned
into IR ops on the builder the frontend installed. A mistake raises `SemanticError`, which the
frontend turns into a `CompilationError` pointing at the kernel's line. Chapter: 02-frontend.
"""
from __future__ import annotations

import builtins
import contextlib

from .. import ir
from ..exercise_hooks import replaceable
from ..floats import nearest
from ..ir import DType, Value

_builder: ir.Builder | None = None
_num_warps = 4  # the launch's, for tl.extra.cuda.num_warps(): a compile-time constant, as in Triton


class SemanticError(Exception):
    """A type or shape mistake in a kernel; `hint` says what is allowed instead."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


@contextlib.contextmanager
def building(builder: ir.Builder, num_warps: int = 4):
    """Make `builder` the one every language function appends to, for the duration of a compile
    of a kernel launched with `num_warps` warps."""
    global _builder, _num_warps
    saved, _builder = (_builder, _num_warps), builder
    _num_warps = num_warps
    try:
        yield builder
    finally:
        _builder, _num_warps = saved


def num_warps() -> int:
    builder()  # only inside a kernel
    return _num_warps


def builder() -> ir.Builder:
    if _builder is None:
        raise SemanticError("language functions can only be called inside a @jit kernel",
                            "launch the kernel with kernel[grid](...) instead of calling it")
    return _builder


def emit(name: str, operands: list[Value], **attrs) -> Value:
    """The result of a new op; whatever made it (a join, a histogram, a dot), a tile it gives must
    not pass MAX_NUMEL elements: the compile of one that did would not end."""
    value = builder().value(name, operands, **attrs)
    if value.type.is_tile and value.type.numel > MAX_NUMEL:
        tile_shape(value.shape)
    return value


# --8<-- [start:promotion]
def integer_promote(a: DType, b: DType) -> DType:
    """Two integer types meet at the wider one; mixed signedness goes unsigned unless the signed is
    wider."""
    if a.is_bool():
        return b
    if b.is_bool():
        return a
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    unsigned, signed = (a, b) if a.kind == "uint" else (b, a)
    return unsigned if unsigned.bits >= signed.bits else signed


DIVISIONS = ("div", "floordiv", "rem")


@replaceable("semantic.computation_type")
def computation_type(a: DType, b: DType, op: str) -> DType:
    """The dtype both operands of a binary op are converted to before the op (Triton's rules)."""
    if a.is_floating() or b.is_floating():
        if ir.float64 in (a, b):
            return ir.float64
        if ir.float32 in (a, b):
            return ir.float32
        if op in DIVISIONS and (a.bits == 16 or b.bits == 16):
            return ir.float32  # 16-bit floats are divided in fp32, as PTX has no fp16 division
        if ir.float16 in (a, b):
            return ir.float16  # fp16 wins over bf16 (Triton's rule)
        if a == b == ir.bfloat16:
            return ir.bfloat16
        if a.is_bf16() or b.is_bf16():
            return ir.float32  # bf16 and an integer (or an fp8) meet at fp32 (Triton's rule)
        if a.is_fp8() and b.is_fp8():
            return a if a == b else ir.float16  # two different fp8s meet at fp16 (Triton's rule)
        return a if a.is_floating() else b  # an fp8 and an integer: the fp8
    if op in DIVISIONS and a.kind != b.kind and not a.is_bool() and not b.is_bool():
        raise SemanticError(f"Cannot use /, // or % with {a} and {b} because they have "
                            "different signedness",
                            "cast one of them so both are signed or both unsigned")
    if op == "div":  # `/` of two integers is a float division
        return ir.float32
    return integer_promote(a, b)
# --8<-- [end:promotion]


class Weak:
    """A Python number in an expression: it takes the dtype of the tile it meets, if of the same kind."""

    def __init__(self, value):
        self.value = value

    @property
    def dtype(self) -> DType:
        """Its dtype on its own: int32, else uint32, int64, uint64, whichever holds it first;
        float32, or float64 for a magnitude float32 cannot hold."""
        if isinstance(self.value, bool):
            return ir.int1
        if isinstance(self.value, int):
            for dtype, lo, hi in ((ir.int32, -2**31, 2**31), (ir.uint32, 0, 2**32),
                                  (ir.int64, -2**63, 2**63), (ir.uint64, 0, 2**64)):
                if lo <= self.value < hi:
                    return dtype
            raise SemanticError(f"Nonrepresentable integer {self.value}: it does not fit in 64 bits",
                                "integers in a kernel have at most 64 bits")
        magnitude = builtins.abs(self.value)
        if magnitude in (0.0, float("inf")) or magnitude != magnitude or 2**-126 <= magnitude <= 3.4028234663852886e38:
            return ir.float32
        return ir.float64


# --8<-- [start:constant]
def constant(value, dtype: DType) -> Value:
    """The constant `value` of `dtype`. A float type takes any number, rounded as it is stored
    (one past its range is infinity, as Triton's constants round); an integer type only the
    integers it holds (what `tl.full((n,), 2**40, tl.int32)` or `tl.full(..., float("-inf"),
    tl.int32)` would lose is an error); a boolean any number, by its truth; a pointer only 0."""
    if dtype.is_floating():
        try:
            value = float(value)
        except OverflowError:
            raise SemanticError(f"Nonrepresentable number {value}: too large for a float",
                                "floats in a kernel have at most 64 bits") from None
        infinity = float("inf")
        overflows = builtins.abs(nearest(value, dtype)) == infinity != builtins.abs(value)
        return builder().constant(nearest(value, dtype) if overflows else value, dtype)
    if dtype.is_bool() or dtype.is_ptr() and value == 0:
        return builder().constant(bool(value) if dtype.is_bool() else 0, dtype)
    if dtype.is_ptr():
        raise SemanticError(f"cannot make a constant pointer of {value}",
                            "the only constant pointer is 0 (null)")
    if isinstance(value, float) and not value.is_integer():
        raise SemanticError(f"cannot make a constant of {dtype} from the float {value}",
                            "an integer tile holds integers: make a float tile (tl.float32), or "
                            f"give an integer such as {dtype.get_int_min_value()} (the smallest)")
    lo, hi = dtype.get_int_min_value(), dtype.get_int_max_value()
    if not lo <= value <= hi:
        raise SemanticError(f"Scalar {value} is out of range for type {dtype}",
                            f"{dtype} holds {lo} to {hi}: use a wider type, or the value meant")
    return builder().constant(int(value), dtype)


def converted(value, dtype: DType) -> Value:
    """A Python number as a value of `dtype`, as Triton converts one given for `other=` or stored:
    typed on its own (`Weak.dtype`), then cast (-1 into uint8 is 255, -inf into int32 its
    smallest). A number both types hold exactly is that constant: the same value, one op fewer."""
    def holds(t: DType) -> bool:
        if t.is_floating():
            return value != value or nearest(float(value), t) == value  # every float has a NaN
        if t.is_bool():
            return value in (0, 1)
        in_range = t.get_int_min_value() <= value <= t.get_int_max_value()
        return float(value).is_integer() and in_range
    exact = holds(Weak(value).dtype) and holds(dtype)
    return constant(value, dtype) if exact else cast(scalar_constant(value), dtype)


# --8<-- [end:constant]


def scalar_constant(value) -> Value:
    """The IR constant for a Python number (int32 if it fits, else int64; float32; int1)."""
    return constant(value, Weak(value).dtype)



def meet(a, b, op: str) -> tuple[Value, Value]:
    """Convert two operands (IR values or Python numbers) to one dtype, then broadcast to one shape."""
    if isinstance(a, Weak) and isinstance(b, Weak):
        a, b = scalar_constant(a.value), scalar_constant(b.value)
    if isinstance(a, Weak):
        a = weak_to(a, b.dtype, op)
    if isinstance(b, Weak):
        b = weak_to(b, a.dtype, op)
    if a.dtype.is_ptr() or b.dtype.is_ptr():
        if op != "select" or a.dtype != b.dtype:
            raise invalid_operands(a.dtype, b.dtype, POINTER_HINTS.get(op, POINTER_HINTS["arith"]))
        return broadcast_pair(a, b)
    dtype = computation_type(a.dtype, b.dtype, op)
    return broadcast_pair(cast(a, dtype), cast(b, dtype))


# --8<-- [start:pointer-operands]
POINTER_HINTS = {  # what to write instead, by where a pointer met an operator that does not take it
    "arith": "pointers take only + and - of integer offsets (ptr + offsets); load through them "
             "for values",
    "cmp": "compare the offsets instead, or the addresses as integers: ptr.to(tl.int64)",
    "select": "tl.where picks between two pointers of one type, or between two values; not a "
              "pointer and a value",
    "offset": "a pointer moves by a whole number of elements: convert the offsets, "
              "offsets.to(tl.int32)",
    "mask": "a condition selects elements through mask= of tl.load / tl.store (tl.load(ptr + "
            "offsets, mask=cond)); to move the pointer by 0 or 1, convert it: cond.to(tl.int32)",
}


def invalid_operands(a: DType, b: DType, hint: str | None = None) -> SemanticError:
    """Triton's error for two operand types an operator does not take together."""
    return SemanticError(f"invalid operands of type {a} and {b}", hint)


def no_pointer(x: Value, what: str) -> Value:
    """`x`, checked not to be a pointer: `what` (a math function, a reduction) takes numbers."""
    if x.dtype.is_ptr():
        raise SemanticError(f"Unexpected dtype {x.dtype}: {what} takes numbers, not pointers",
                            "load through the pointers first: tl.load(ptr)")
    return x
# --8<-- [end:pointer-operands]


def _kind(dtype: DType) -> int:
    """Triton's order of kinds: bool < integer < float."""
    return 0 if dtype.is_bool() else 2 if dtype.is_floating() else 1


def weak_to(w: Weak, other: DType, op: str) -> Value:
    """A Python number meeting a value of dtype `other` (Triton's rule): a number of a kind no
    higher than the value's (bool < integer < float) takes the value's dtype and must fit in it;
    one of a higher kind keeps its own dtype, and the promotion decides. Dividing a 16-bit float
    (`/`, `%`) is done in fp32: the number becomes an fp32 straight away, never rounded to 16 bits."""
    if other.is_ptr() or _kind(w.dtype) > _kind(other):
        return scalar_constant(w.value)
    if op in DIVISIONS and other.is_floating() and other.bits == 16:
        return constant(w.value, ir.float32)
    if other.is_int() and not other.is_bool() and not isinstance(w.value, bool):
        if w.value < 0 and other.kind == "uint":
            raise SemanticError(f"Cannot perform a binary operation between an unsigned tensor ({other}) and a "
                                f"negative scalar ({w.value})", "cast one of them explicitly")
        lo, hi = (-(1 << (other.bits - 1)), 1 << (other.bits - 1)) if other.kind == "int" else (0, 1 << other.bits)
        if not lo <= w.value < hi:
            raise SemanticError(f"Scalar {w.value} is out of range for type {other}",
                                "cast the tensor to a wider type first (x.to(tl.int64))")
    return constant(w.value, other)


# --8<-- [start:broadcast-shapes]
@replaceable("semantic.broadcast_shapes")
def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """numpy's rule: align from the right; sizes must match or one of them be 1."""
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    shape = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise SemanticError(f"cannot broadcast shapes {list(a)} and {list(b)}: incompatible "
                                f"dimensions at index {len(shape)}: {x} and {y}",
                                "the sizes of each dimension must match or one of them be 1")
        shape.append(max(x, y))
    return tuple(shape)
# --8<-- [end:broadcast-shapes]


# --8<-- [start:broadcast-to]
def broadcast_to(x: Value, shape: tuple[int, ...]) -> Value:
    """Splat a scalar, add leading unit dimensions, then stretch the unit dimensions."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    tile_shape(shape)
    if not x.type.is_tile:
        return emit("splat", [x], shape=shape)
    padded = (1,) * (len(shape) - len(x.shape)) + x.shape
    if len(x.shape) > len(shape):
        raise SemanticError(f"Cannot broadcast, rank mismatch: {list(x.shape)}, {list(shape)}",
                            "broadcasting adds dimensions, it never removes one: reduce or reshape instead")
    for i, (a, b) in enumerate(zip(padded, shape)):
        if a != b and a != 1:
            raise SemanticError(f"cannot broadcast shape {list(padded)} to {list(shape)}: the expanded "
                                f"size of the tensor ({b}) must match the existing size ({a}) at "
                                f"non-singleton dimension {i}",
                                "a dimension can only grow from size 1")
    while len(x.shape) < len(shape):
        x = emit("expand_dims", [x], axis=0)
    return emit("broadcast", [x], shape=shape)
# --8<-- [end:broadcast-to]


def broadcast_pair(a: Value, b: Value) -> tuple[Value, Value]:
    shape = broadcast_shapes(a.shape, b.shape)
    return broadcast_to(a, shape), broadcast_to(b, shape)


# --8<-- [start:fp8-casts]
def fp8_conversion_error(source: DType, target: DType, rounding: str | None) -> str | None:
    """Why Triton's NVIDIA backend has no conversion from `source` to `target` with this rounding,
    or None: an fp8 converts only to and from fp16, bf16 and fp32 (fp8e4b15, whose conversion is
    software through fp16, not from or to bf16), and rounds toward zero only fp32 -> fp8e5."""
    fp8, other = (source, target) if source.is_fp8() else (target, source)
    if other.is_fp8() or not other.is_floating() or other.is_fp64():
        return f"cannot convert {source} to {target}: an fp8 converts only to and from fp16, bf16 and fp32"
    if fp8.is_fp8e4b15() and other.is_bf16():
        return f"cannot convert {source} to {target}: fp8e4b15's conversion goes through fp16, not bf16"
    if rounding == "rtz" and not fp8.is_fp8e4b15() and (source, target) != (ir.float32, ir.float8e5):
        return (f"fp_downcast_rounding='rtz' from {source} to {target} is not supported: toward zero, only "
                "fp32 -> fp8e5 is (and fp8e4b15, which ignores it)")
    return None
# --8<-- [end:fp8-casts]


# --8<-- [start:cast]
def cast(x: Value, dtype: DType, bitcast: bool = False, rounding: str | None = None) -> Value:
    """Convert element types; `bitcast` reinterprets the bits instead (same width only). A float
    narrowed to a smaller float rounds to nearest even, or toward zero with `rounding="rtz"`."""
    if not bitcast and x.dtype != dtype and (x.dtype.is_fp8() or dtype.is_fp8()):
        error = fp8_conversion_error(x.dtype, dtype, rounding)
        if error:
            raise SemanticError(error, "leave fp_downcast_rounding out (to nearest)" if "rtz" in error else
                                "convert through float32: x.to(tl.float32).to(...)")
        if dtype.is_fp8e4b15():
            rounding = None  # its one conversion rounds to nearest, ties away, whatever is asked
    if rounding is not None:
        narrowing = x.dtype.is_floating() and dtype.is_floating() and dtype.bits < x.dtype.bits
        if rounding not in ("rtne", "rtz"):
            raise SemanticError(f"unknown fp_downcast_rounding {rounding!r}", "use 'rtne' or 'rtz'")
        if not narrowing:
            raise SemanticError("fp_downcast_rounding should be set only for truncating fp conversions: "
                                f"the source is {x.dtype} and the destination {dtype}",
                                "leave fp_downcast_rounding out: it is for narrowing a float to a smaller float")
        if rounding == "rtz":
            return emit("cast", [x], dtype=dtype, rounding="rtz")
    if x.dtype == dtype:
        return x
    if bitcast and (x.dtype.is_ptr() or dtype.is_ptr()):
        return pointer_cast(x, dtype)  # as Triton: a pointer's bitcast is its cast
    if bitcast:
        if x.dtype.bits != dtype.bits:
            raise SemanticError(f"cannot bitcast {x.dtype} ({x.dtype.bits} bits) to {dtype} "
                                f"({dtype.bits} bits)", "bitcast needs two types of one width")
        return emit("bitcast", [x], dtype=dtype)
    if x.dtype.is_ptr() or dtype.is_ptr():
        return pointer_cast(x, dtype)
    return emit("cast", [x], dtype=dtype)


def pointer_cast(x: Value, dtype: DType) -> Value:
    """The conversions of pointers Triton has: to another pointer, to a 64-bit integer (the
    address) or to a boolean (not null), and from a 64-bit integer."""
    source = x.dtype
    if source.is_ptr() and dtype.is_bool():
        return emit("cmp", [cast(x, ir.int64), broadcast_to(constant(0, ir.int64), x.shape)], predicate="ne")
    if source.is_ptr() and (dtype.is_ptr() or dtype.is_int() and dtype.bits == 64) or \
            dtype.is_ptr() and source.is_int() and source.bits == 64:
        return emit("cast", [x], dtype=dtype)
    raise SemanticError(f"cannot cast {x.dtype} to {dtype}",
                        "a pointer converts to another pointer, to tl.int64 (its address) or to tl.int1, "
                        "and back from tl.int64")
# --8<-- [end:cast]


# --8<-- [start:binary]
ARITH = {"add", "sub", "mul", "div", "floordiv", "rem"}
BITWISE = {"and", "or", "xor", "shl", "shr"}


def binary(op: str, a, b) -> Value:
    """`a <op> b` for the operators of Python: promotion, broadcasting, pointer arithmetic."""
    a_ptr = not isinstance(a, Weak) and a.dtype.is_ptr()
    b_ptr = not isinstance(b, Weak) and b.dtype.is_ptr()
    if a_ptr or b_ptr:
        return pointer_arith(op, a, b)
    signed = (b if isinstance(a, Weak) else a).dtype.is_int_signed()  # the tile whose `>>` this is
    amount = b.value if op in ("shl", "shr") and isinstance(b, Weak) else None
    a, b = meet(a, b, op)
    dtype = a.dtype
    if op in BITWISE and not dtype.is_int():
        raise invalid_operands(dtype, dtype, "bitwise operators need integers")
    if amount is not None and not 0 <= amount < dtype.bits:
        # LLVM makes such a shift poison: the GPU and the interpreter would each give something
        raise SemanticError(f"Value {amount} exceeds the maximum bitwidth ({dtype.bits}) for type '{dtype}'"
                            if amount > 0 else f"shift by a negative amount ({amount})",
                            f"a shift of a {dtype} moves it by 0 to {dtype.bits - 1} bits; widen it first "
                            "(x.to(tl.int64)) to shift further")
    if op == "floordiv":
        if not dtype.is_int():
            raise SemanticError("`//` needs integer operands", "use `/` for floats")
        op = "div"
    if dtype.is_fp8() and op in ARITH:
        return through_fp32(op, [a, b], **({"rounding": "rn"} if op == "div" else {}))
    if op == "shr" and signed != dtype.is_int_signed() and not dtype.is_bool():
        # Triton shifts arithmetically when the left operand is signed, whatever the promotion gave
        twin = ir.dtype_named(("int" if signed else "uint") + str(dtype.bits))
        return cast(emit("shr", [cast(a, twin, True), cast(b, twin, True)]), dtype, True)
    return emit(op, [a, b])
# --8<-- [end:binary]


# --8<-- [start:through-fp32]
def through_fp32(name: str, operands: list[Value], **attrs) -> Value:
    """Op `name` of fp8 operands: an fp8 has no arithmetic of its own, so it is computed in fp32
    (exact operands: every fp8 number is an fp32) and the result converted back, as Triton upcasts
    it. Other types are emitted as they are."""
    dtype = operands[0].dtype
    if not dtype.is_fp8():
        return emit(name, operands, **attrs)
    return cast(emit(name, [cast(x, ir.float32) for x in operands], **attrs), dtype)
# --8<-- [end:through-fp32]


def absolute(x: Value) -> Value:
    """|x|: an fp8 (but AMD's, whose 0x80 is a NaN) by clearing its sign bit, as Triton does, so an
    infinity stays one; an unsigned integer or a boolean is its own absolute value."""
    no_pointer(x, "tl.abs")
    if x.dtype.is_int_unsigned():
        return x
    if x.dtype.is_fp8() and ir.FORMATS[x.dtype.name].specials != "fnuz":
        bits = cast(x, ir.uint8, bitcast=True)
        return cast(emit("and", [bits, broadcast_to(constant(0x7F, ir.uint8), x.shape)]), x.dtype, bitcast=True)
    return through_fp32("abs", [x])


# --8<-- [start:pointer-arith]
def pointer_arith(op: str, a, b) -> Value:
    """`ptr + offsets`, `offsets + ptr`, `ptr - offsets`: the only arithmetic on pointers. The
    offset must be an integer (a boolean is refused: `ptr + mask` is a mask meant for tl.load)."""
    dtypes = [x.dtype for x in (a, b)]
    if op not in ("add", "sub") or op == "sub" and (isinstance(a, Weak) or not a.dtype.is_ptr()):
        raise invalid_operands(*dtypes, POINTER_HINTS["arith"])
    if isinstance(a, Weak) or not a.dtype.is_ptr():
        a, b = b, a
    if isinstance(b, Weak):
        b = scalar_constant(b.value)
    if b.dtype.is_ptr():
        raise SemanticError("cannot add pointers together" if op == "add" else
                            f"invalid operands of type {a.dtype} and {b.dtype}",
                            "offset a pointer by an integer tile: ptr + offsets (to subtract two "
                            "pointers, subtract their offsets, or p.to(tl.int64) - q.to(tl.int64))")
    if not b.dtype.is_int() or b.dtype.is_bool():
        hint = POINTER_HINTS["mask" if b.dtype.is_bool() else "offset"]
        raise SemanticError(f"invalid operands of type {a.dtype} and {b.dtype}: pointer offsets "
                            "must be integers", hint)
    if op == "sub":
        b = emit("neg", [b])
    a, b = broadcast_pair(a, b)
    return emit("addptr", [a, b])
# --8<-- [end:pointer-arith]


def compare(predicate: str, a, b) -> Value:
    a, b = meet(a, b, "cmp")
    if a.dtype.is_fp8():  # compared as the fp32 numbers they are
        a, b = cast(a, ir.float32), cast(b, ir.float32)
    return emit("cmp", [a, b], predicate=predicate)


def logical(op: str, a: Value, b) -> Value:
    """`a and b`, `a or b` on tiles (both sides evaluated): each side is true where it is not zero.
    Not of pointers, as in Triton (`not p`, and a pointer as tl.where's condition, are)."""
    if any(not isinstance(x, Weak) and x.dtype.is_ptr() for x in (a, b)):
        raise invalid_operands(*(x.dtype for x in (a, b)), "compare the pointers' offsets, or test p.to(tl.int1)")
    return binary(op, truth(a), truth(b))


def truth(x) -> Value:
    """Where `x` is not zero (a pointer: not null), as a condition: the meaning of `if`, `not`,
    `and`, `or` and tl.where's condition for any type."""
    if isinstance(x, Weak):
        return scalar_constant(bool(x.value))
    if x.dtype.is_ptr():
        return pointer_cast(x, ir.int1)
    return x if x.dtype == ir.int1 else compare("ne", x, Weak(0))


def unsplat(x: Value) -> Value:
    """The element of a one-element tile as a scalar: a reduction with nothing to combine, along
    each axis (a pointer's too)."""
    for axis in reversed(range(len(x.shape)) if x.type.is_tile else ()):
        x = emit("reduce", [x], axis=axis, kind="sum")
    return x


def unary(op: str, x: Value) -> Value:
    if op == "neg":
        if x.dtype.is_ptr():
            raise SemanticError(f"wrong type argument to unary minus ({x.dtype})", POINTER_HINTS["arith"])
        if x.dtype.is_bool():
            x = cast(x, ir.int32)
        return through_fp32("neg", [x])
    if op == "not":  # bitwise invert `~`
        if not x.dtype.is_int():
            raise SemanticError(f"wrong type argument to unary invert ({x.dtype})",
                                "`~` inverts the bits of an integer; for a condition write `not c` or c == 0")
        return emit("not", [x])
    if op == "lnot":  # `not x`: x == 0 (a pointer: null)
        return compare("eq", cast(x, ir.int64) if x.dtype.is_ptr() else x, Weak(0))
    raise AssertionError(f"unknown unary op {op}")


FLOAT_MATH = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "floor",
              "ceil")


def math(op: str, x: Value) -> Value:
    """Math functions of floats; integers are converted to fp32 first."""
    if x.dtype.is_ptr():
        raise SemanticError(f"Expected dtype ['fp32', 'fp64'] but got {x.dtype}",
                            f"{op} takes numbers: load through the pointers first, tl.load(ptr)")
    if not x.dtype.is_floating():
        if op in ("floor", "ceil"):
            return x
        x = cast(x, ir.float32)
    if x.dtype.is_fp8():
        raise SemanticError(f"Expected dtype ['fp32', 'fp64'] but got {x.dtype}",
                            f"{op} has no fp8 version: convert first, x.to(tl.float32)")
    return emit(op, [x])


def where(cond: Value, a, b) -> Value:
    cond = truth(cond)
    if isinstance(a, Weak) and isinstance(b, Weak):
        a, b = scalar_constant(a.value), scalar_constant(b.value)
    a, b = meet(a, b, "select")
    shape = broadcast_shapes(cond.shape, a.shape)
    return emit("select", [broadcast_to(cond, shape), broadcast_to(a, shape), broadcast_to(b, shape)])


def minmax(op: str, a: Value, b: Value, propagate_nan: bool = False) -> Value:
    """tl.minimum / tl.maximum: bf16 in fp32; NaN wins only with `propagate_nan`."""
    a, b = meet(promoted_bf16(a), promoted_bf16(b), op)
    if a.dtype.is_floating() and propagate_nan:
        return through_fp32(op, [a, b], propagate_nan=True)
    return through_fp32(op, [a, b])


def _as_mask(mask) -> Value:
    """A load's or store's mask: booleans only, as in Triton (an integer tile there is most often
    the offsets, given where `offsets < n` was meant)."""
    if isinstance(mask, Weak):
        mask = scalar_constant(mask.value)
    if mask.dtype != ir.int1:
        raise SemanticError(f"Mask must have boolean scalar type, got {mask.dtype}",
                            "make the mask with a comparison: mask = offsets < n")
    return mask


def promoted_bf16(x: Value) -> Value:
    """bf16 as fp32, as Triton reads it in scans and in max/min with indices."""
    return cast(x, ir.float32) if x.dtype.is_bf16() else x


def program_id(axis: int) -> Value:
    if axis not in (0, 1, 2):
        raise SemanticError(f"program_id axis must be 0, 1, or 2 but got {axis}", "a launch grid has three axes")
    return emit("program_id", [], axis=axis)


def num_programs(axis: int) -> Value:
    if axis not in (0, 1, 2):
        raise SemanticError(f"num_programs axis must be 0, 1, or 2 but got {axis}", "a launch grid has three axes")
    return emit("num_programs", [], axis=axis)


MAX_NUMEL = 1 << 20  # the most elements a tile may have (Triton's TRITON_MAX_TENSOR_NUMEL)


def tile_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A tile's shape, checked as Triton checks it: powers of two, at most MAX_NUMEL elements."""
    numel = 1
    for i, s in enumerate(shape):
        if not isinstance(s, int) or s <= 0 or s & (s - 1):
            raise SemanticError(f"tile shape {list(shape)}: shape element {i} must be a power of 2",
                                "use constexpr powers of two for tile sizes (triton.next_power_of_2) "
                                "and mask the tail")
        numel *= s
    if numel > MAX_NUMEL:
        raise SemanticError(f"tile shape {list(shape)}: numel ({numel}) exceeds triton maximum tensor numel "
                            f"({MAX_NUMEL})", "split the work into smaller tiles, in a loop or over programs")
    return tuple(shape)


def device_print(prefix: str, values: list[Value], hex: bool) -> None:
    """A prefix before values ends in ": " (Triton's convention): `device_print("x", v)` prints
    `pid (0, 0, 0) idx (3) x: 1.5`."""
    prefix = prefix.strip()
    values = [cast(v, ir.float32) if v.dtype.is_fp8() else v for v in values]  # printed as the numbers they are
    if values and prefix and not prefix.endswith(":"):
        prefix += ":"
    builder().create("print", values, {"prefix": prefix + " " if prefix else "", "hex": hex})


def device_assert(cond: Value, message: str) -> None:
    builder().create("assert", [truth(cond)], {"message": message})


def hint(x: Value, kind: str, values: tuple[int, ...]) -> Value:
    if not x.type.is_tile and kind != "divisibility":
        return x
    return emit("hint", [x], **{kind: tuple(values)})

