"""Tile IR: the program every stage after the frontend reads and rewrites.

A kernel becomes one `Function`: a block of `Op`s in SSA form. Every `Value` has a `Type`: a shape
(empty for a scalar) and an element `DType` (which may be a pointer). Ops work on whole tiles at once;
nothing here says which thread holds which element: that is the layout pass's job, which sets
`Value.layout`. Loops and branches are ops with regions (`for`, `if`, `while`) whose blocks end in a
`yield`. `print_function` writes the text a person reads; `verify` checks every op against the rule in
`OPS`, and every pass leaves IR that verifies. Chapter: 03-tile-ir.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from .errors import Loc


# --8<-- [start:dtype]
@dataclass(frozen=True)
class DType:
    """An element type. `name` is Triton's (`fp32`, `int32`, ...); `short` is what the IR prints."""

    name: str
    kind: str  # "int" (signed; int1 is the boolean), "uint", "float" or "ptr"
    bits: int
    short: str
    pointee: DType | None = None  # for pointers: the type they point to

    def __str__(self) -> str:
        return self.name if self.kind != "ptr" else f"pointer<{self.pointee}>"

    __repr__ = __str__

    # The predicates Triton's dtypes answer, so kernels written for Triton run unchanged.
    def is_floating(self) -> bool: return self.kind == "float"
    def is_int(self) -> bool: return self.kind in ("int", "uint")
    def is_int_signed(self) -> bool: return self.kind == "int"
    def is_int_unsigned(self) -> bool: return self.kind == "uint"
    def is_bool(self) -> bool: return self.kind == "int" and self.bits == 1
    def is_ptr(self) -> bool: return self.kind == "ptr"
    def is_fp16(self) -> bool: return self.name == "fp16"
    def is_bf16(self) -> bool: return self.name == "bf16"
    def is_fp32(self) -> bool: return self.name == "fp32"
    def is_fp64(self) -> bool: return self.name == "fp64"
    def is_int32(self) -> bool: return self.name == "int32"
    def is_int64(self) -> bool: return self.name == "int64"
    def is_block(self) -> bool: return False

    @property
    def primitive_bitwidth(self) -> int:
        return self.bits

    @property
    def int_bitwidth(self) -> int:
        return self.bits

    @property
    def itemsize(self) -> int:
        return max(self.bits // 8, 1)

    @property
    def element_ty(self) -> DType:
        return self.pointee if self.kind == "ptr" else self

    @property
    def scalar(self) -> DType:
        return self

    @property
    def np(self) -> np.dtype:
        """The numpy dtype that holds this type's values (bf16 values live in float32)."""
        return NUMPY_DTYPES[self.name]


int1 = DType("int1", "int", 1, "i1")
int8 = DType("int8", "int", 8, "i8")
int16 = DType("int16", "int", 16, "i16")
int32 = DType("int32", "int", 32, "i32")
int64 = DType("int64", "int", 64, "i64")
uint8 = DType("uint8", "uint", 8, "u8")
uint16 = DType("uint16", "uint", 16, "u16")
uint32 = DType("uint32", "uint", 32, "u32")
uint64 = DType("uint64", "uint", 64, "u64")
float16 = DType("fp16", "float", 16, "f16")
bfloat16 = DType("bf16", "float", 16, "bf16")
float32 = DType("fp32", "float", 32, "f32")
float64 = DType("fp64", "float", 64, "f64")

SCALAR_DTYPES = {d.name: d for d in (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                     float16, bfloat16, float32, float64)}
NUMPY_DTYPES = {
    "int1": np.dtype(np.bool_), "int8": np.dtype(np.int8), "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32), "int64": np.dtype(np.int64), "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16), "uint32": np.dtype(np.uint32), "uint64": np.dtype(np.uint64),
    "fp16": np.dtype(np.float16), "bf16": np.dtype(np.float32), "fp32": np.dtype(np.float32),
    "fp64": np.dtype(np.float64), "ptr": np.dtype(np.int64),
}


def pointer_type(pointee: DType) -> DType:
    """The type of a pointer to `pointee` in global memory."""
    return DType(f"ptr<{pointee.name}>", "ptr", 64, f"!ptr<{pointee.short}>", pointee)
# --8<-- [end:dtype]


def dtype_named(name: str) -> DType:
    """The DType whose `name` this is (`fp32`, `ptr<fp16>`, ...): how cached metadata names types."""
    if name.startswith("ptr<") and name.endswith(">"):
        return pointer_type(dtype_named(name[4:-1]))
    return SCALAR_DTYPES[name]


def dtype_from_numpy(dt: np.dtype) -> DType:
    """The DType of a numpy array's elements (bfloat16 has no numpy dtype of its own)."""
    for name, npdt in NUMPY_DTYPES.items():
        if npdt == dt and name not in ("bf16", "ptr"):
            return SCALAR_DTYPES[name]
    raise TypeError(f"no minitriton dtype for numpy dtype {dt}")


# --8<-- [start:type]
@dataclass(frozen=True)
class Type:
    """The type of a value: a tile of `shape` (empty for a scalar) whose elements are `dtype`."""

    shape: tuple[int, ...]
    dtype: DType

    @property
    def is_tile(self) -> bool:
        return bool(self.shape)

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1

    def with_dtype(self, dtype: DType) -> Type:
        return Type(self.shape, dtype)

    def with_shape(self, shape: tuple[int, ...]) -> Type:
        return Type(tuple(shape), self.dtype)

    def __str__(self) -> str:
        if not self.shape:
            return self.dtype.short
        return f"tile<{'x'.join(map(str, self.shape))}x{self.dtype.short}>"
# --8<-- [end:type]


def scalar(dtype: DType) -> Type:
    return Type((), dtype)


def tile(shape, dtype: DType) -> Type:
    return Type(tuple(shape), dtype)


# --8<-- [start:value]
@dataclass(eq=False)
class Value:
    """An SSA value: made once, by an op (`owner`) or as a block argument, and never changed.

    `name` is a hint for the printer (a kernel argument's name). `layout` stays None until the layout
    pass says which thread holds which element.
    """

    type: Type
    owner: Op | None = None
    name: str | None = None
    layout: Any = None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.shape

    @property
    def dtype(self) -> DType:
        return self.type.dtype


@dataclass(eq=False)
class Block:
    """A list of ops run in order, with arguments (a loop body's induction variable and carried values)."""

    args: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)

    @property
    def terminator(self) -> Op | None:
        return self.ops[-1] if self.ops and self.ops[-1].name == "yield" else None


@dataclass(eq=False)
class Op:
    """One operation: `results = name(operands) {attrs}`, with nested `regions` for control flow."""

    name: str
    operands: list[Value]
    results: list[Value]
    attrs: dict[str, Any] = field(default_factory=dict)
    regions: list[Block] = field(default_factory=list)
    loc: Loc | None = None

    @property
    def result(self) -> Value:
        assert len(self.results) == 1, f"op {self.name} has {len(self.results)} results, not one"
        return self.results[0]


@dataclass(eq=False)
class Function:
    """A kernel: its runtime arguments (constexprs are already folded in) and its body."""

    name: str
    args: list[Value]
    body: Block
    arg_attrs: list[dict[str, Any]] = field(default_factory=list)
    loc: Loc | None = None
    attrs: dict[str, Any] = field(default_factory=dict)  # num_warps, ... set by the compiler

    def walk(self) -> Iterator[Op]:
        """Every op, in program order, nested regions included (an op comes before its regions' ops)."""
        yield from walk_block(self.body)
# --8<-- [end:value]


def walk_block(block: Block) -> Iterator[Op]:
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from walk_block(region)


# ---------------------------------------------------------------------------------------------------
# The op table: for each op, the rule that checks its operands and attributes and gives its result
# types. The builder and the verifier both use it, so an op's typing has exactly one home.
# ---------------------------------------------------------------------------------------------------

class VerificationError(AssertionError):
    """The IR broke an invariant: a bug in a stage of the compiler, never in a user's kernel."""


def _check(cond: bool, op_name: str, message: str) -> None:
    if not cond:
        raise VerificationError(f"{op_name}: {message}")


def _same_shape(name: str, *values: Value) -> None:
    shapes = {v.shape for v in values}
    _check(len(shapes) == 1, name, f"operands must have one shape, got {sorted(shapes)}")


def _same_type(name: str, *values: Value) -> None:
    types = {v.type for v in values}
    _check(len(types) == 1, name, f"operands must have one type, got {', '.join(sorted(map(str, types)))}")


def _elementwise(kinds: tuple[str, ...]) -> Callable:
    def rule(name, operands, attrs):
        _same_type(name, *operands)
        _check(operands[0].dtype.kind in kinds, name, f"needs {'/'.join(kinds)} elements, "
                                                      f"got {operands[0].dtype}")
        return [operands[0].type]
    return rule


_ANY = ("int", "uint", "float")
_INTS = ("int", "uint")


def _cmp(name, operands, attrs):
    _same_type(name, *operands)
    _check(attrs["predicate"] in ("lt", "le", "gt", "ge", "eq", "ne"), name, "unknown predicate")
    return [operands[0].type.with_dtype(int1)]


def _select(name, operands, attrs):
    cond, a, b = operands
    _same_type(name, a, b)
    _same_shape(name, cond, a)
    _check(cond.dtype == int1, name, "condition must be int1")
    return [a.type]


def _cast(name, operands, attrs):
    (x,) = operands
    dtype = attrs["dtype"]
    if name == "bitcast":
        _check(x.dtype.bits == dtype.bits, name, f"{x.dtype} and {dtype} differ in width")
    return [x.type.with_dtype(dtype)]


def _addptr(name, operands, attrs):
    ptr, offset = operands
    _same_shape(name, ptr, offset)
    _check(ptr.dtype.is_ptr(), name, "first operand must be a pointer")
    _check(offset.dtype.is_int() and not offset.dtype.is_bool(), name, "offset must be an integer")
    return [ptr.type]


# --8<-- [start:typing-rule]
def _load(name, operands, attrs):
    ptr, *rest = operands
    _check(ptr.dtype.is_ptr(), name, "first operand must be a pointer")
    _check(len(rest) <= 2, name, "operands are (ptr, mask?, other?)")
    result = ptr.type.with_dtype(ptr.dtype.pointee)
    if rest:
        _same_shape(name, ptr, rest[0])
        _check(rest[0].dtype == int1, name, "mask must be int1")
    if len(rest) == 2:
        _check(rest[1].type == result, name, f"other must be {result}, got {rest[1].type}")
    return [result]
# --8<-- [end:typing-rule]


def _store(name, operands, attrs):
    ptr, value, *mask = operands
    _check(ptr.dtype.is_ptr(), name, "first operand must be a pointer")
    _check(value.type == ptr.type.with_dtype(ptr.dtype.pointee), name,
           f"value {value.type} does not match pointer {ptr.type}")
    if mask:
        _same_shape(name, ptr, mask[0])
        _check(mask[0].dtype == int1, name, "mask must be int1")
    return []


def _atomic(name, operands, attrs):
    ptr, value, *mask = operands
    _check(attrs["kind"] in ("add", "max", "min", "xchg", "and", "or", "xor"), name, "unknown kind")
    _check(ptr.dtype.is_ptr() and value.type == ptr.type.with_dtype(ptr.dtype.pointee), name,
           f"value {value.type} does not match pointer {ptr.type}")
    if mask:
        _same_shape(name, ptr, mask[0])
    return [value.type]


def _atomic_cas(name, operands, attrs):
    ptr, cmp, value = operands
    _same_type(name, cmp, value)
    _check(ptr.dtype.is_ptr() and value.dtype == ptr.dtype.pointee, name, "pointer/value mismatch")
    return [value.type]


def _program_id(name, operands, attrs):
    _check(attrs["axis"] in (0, 1, 2), name, "axis must be 0, 1 or 2")
    return [scalar(int32)]


def _constant(name, operands, attrs):
    dtype = attrs["dtype"]
    return [scalar(dtype)]


def _arange(name, operands, attrs):
    start, end = attrs["start"], attrs["end"]
    n = end - start
    _check(n > 0 and (n & (n - 1)) == 0, name, f"range length must be a power of two, got {n}")
    return [tile((n,), int32)]


def _splat(name, operands, attrs):
    (x,) = operands
    _check(not x.type.is_tile, name, "operand must be a scalar")
    return [tile(attrs["shape"], x.dtype)]


def _broadcast(name, operands, attrs):
    (x,) = operands
    shape = tuple(attrs["shape"])
    _check(len(shape) == len(x.shape), name, "rank must not change")
    _check(all(a == b or a == 1 for a, b in zip(x.shape, shape)), name,
           f"cannot broadcast {x.shape} to {shape}")
    return [tile(shape, x.dtype)]


def _expand_dims(name, operands, attrs):
    (x,) = operands
    axis = attrs["axis"]
    _check(0 <= axis <= len(x.shape), name, f"axis {axis} out of range")
    return [tile(x.shape[:axis] + (1,) + x.shape[axis:], x.dtype)]


def _reshape(name, operands, attrs):
    (x,) = operands
    shape = tuple(attrs["shape"])
    _check(int(np.prod(shape)) == x.type.numel, name, f"cannot reshape {x.shape} to {shape}")
    return [Type(shape, x.dtype)]


def _trans(name, operands, attrs):
    (x,) = operands
    perm = tuple(attrs["perm"])
    _check(sorted(perm) == list(range(len(x.shape))), name, f"bad permutation {perm}")
    return [tile(tuple(x.shape[p] for p in perm), x.dtype)]


# "combine": a user's @jit combine function, inlined as the op's region (two scalar arguments, one
# yielded value): tl.reduce and tl.associative_scan.
REDUCE_KINDS = ("sum", "prod", "max", "min", "argmax", "argmin", "xor", "and", "or", "combine")


def _reduce(name, operands, attrs):
    (x,) = operands
    axis = attrs["axis"]
    _check(x.type.is_tile and 0 <= axis < len(x.shape), name, f"axis {axis} out of range")
    _check(attrs["kind"] in REDUCE_KINDS, name, f"unknown kind {attrs['kind']}")
    shape = x.shape[:axis] + x.shape[axis + 1:]
    dtype = int32 if attrs["kind"] in ("argmax", "argmin") else x.dtype
    return [Type(shape, dtype)]


def _scan(name, operands, attrs):
    (x,) = operands
    _check(x.type.is_tile and 0 <= attrs["axis"] < len(x.shape), name, "axis out of range")
    _check(attrs["kind"] in ("sum", "prod", "max", "min", "combine"), name, f"unknown kind {attrs['kind']}")
    return [x.type]


def _dot(name, operands, attrs):
    a, b, acc = operands
    _check(len(a.shape) == 2 and len(b.shape) == 2, name, "operands must be 2-D")
    m, k = a.shape
    k2, n = b.shape
    _check(k == k2, name, f"inner dimensions differ: {a.shape} @ {b.shape}")
    _check(acc.shape == (m, n), name, f"accumulator must be {(m, n)}, got {acc.shape}")
    _check(a.dtype == b.dtype, name, f"operand types differ: {a.dtype} and {b.dtype}")
    _check(attrs["input_precision"] in ("ieee", "tf32", "tf32x3"), name, "bad input_precision")
    return [acc.type]


def _fma(name, operands, attrs):
    _same_type(name, *operands)
    _check(operands[0].dtype.is_floating(), name, "needs floats")
    return [operands[0].type]


def _no_results(name, operands, attrs):
    return []


def _passthrough(name, operands, attrs):
    return [operands[0].type]


def _region_op(name, operands, attrs):
    raise VerificationError(f"{name}: result types come from its regions; use Builder.region_op")


# --8<-- [start:ops]
OPS: dict[str, Callable] = {
    # indices and constants
    "constant": _constant, "program_id": _program_id, "num_programs": _program_id,
    "arange": _arange,
    # shapes
    "splat": _splat, "broadcast": _broadcast, "expand_dims": _expand_dims, "reshape": _reshape,
    "trans": _trans,
    # elementwise arithmetic (C semantics for integer division and remainder, as in Triton)
    **{op: _elementwise(_ANY) for op in ("add", "sub", "mul", "div", "rem", "minimum", "maximum",
                                         "neg", "abs")},
    **{op: _elementwise(_INTS) for op in ("and", "or", "xor", "shl", "shr", "not", "umulhi")},
    **{op: _elementwise(("float",)) for op in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin",
                                               "cos", "tanh", "erf", "floor", "ceil", "pow")},
    "fma": _fma, "cmp": _cmp, "select": _select, "cast": _cast, "bitcast": _cast,
    # memory
    "addptr": _addptr, "load": _load, "store": _store, "atomic": _atomic,
    "atomic_cas": _atomic_cas,
    # across a tile
    "reduce": _reduce, "scan": _scan, "dot": _dot,
    # control flow (results typed by their regions) and the rest
    "for": _region_op, "if": _region_op, "while": _region_op, "yield": _no_results,
    "condition": _no_results, "print": _no_results, "assert": _no_results,
    "hint": _passthrough, "barrier": _no_results,
    # made by the layout pass: the same values, held by other threads
    "convert_layout": _passthrough,
}

# Ops only the CUDA backend makes (software pipelining): they never reach the interpreter.
BACKEND_OPS: dict[str, Callable] = {
    "async_load": _no_results,    # (ptrs, mask?, stage) -> copies a tile into stage `stage` of a buffer
    "async_commit": _no_results,  # closes the group of copies issued since the last commit
    "async_wait": _no_results,    # waits until at most attrs["pending"] groups are in flight
    "local_read": lambda name, operands, attrs: [attrs["type"]],  # (stage) -> the tile, in registers
    "wgmma_wait": _passthrough,   # (acc) -> acc, once the wgmma groups writing it are done
}
OPS.update(BACKEND_OPS)
# --8<-- [end:ops]

REGION_OPS = ("for", "if", "while")


# ---------------------------------------------------------------------------------------------------
# Building IR.
# ---------------------------------------------------------------------------------------------------

class Builder:
    """Appends ops to the current block; `loc` is stamped on every op made."""

    def __init__(self, block: Block | None = None):
        self.block = block if block is not None else Block()
        self.loc: Loc | None = None

    def create(self, name: str, operands: list[Value], attrs: dict | None = None) -> Op:
        """Make an op whose result types follow from the rule in OPS, and append it."""
        attrs = dict(attrs or {})
        result_types = OPS[name](name, operands, attrs)
        op = Op(name, list(operands), [], attrs, [], self.loc)
        op.results = [Value(t, op) for t in result_types]
        self.block.ops.append(op)
        return op

    def value(self, name: str, operands: list[Value], **attrs) -> Value:
        return self.create(name, operands, attrs).result

    def region_op(self, name: str, operands: list[Value], result_types: list[Type],
                  regions: list[Block], attrs: dict | None = None) -> Op:
        op = Op(name, list(operands), [], dict(attrs or {}), regions, self.loc)
        op.results = [Value(t, op) for t in result_types]
        self.block.ops.append(op)
        return op

    def constant(self, value, dtype: DType) -> Value:
        return self.value("constant", [], value=value, dtype=dtype)


# ---------------------------------------------------------------------------------------------------
# Printing: the text a person reads between any two stages.
# ---------------------------------------------------------------------------------------------------

def _attr_text(value) -> str:
    if isinstance(value, DType):
        return value.short
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return str(value)


# --8<-- [start:printer]
class Printer:
    """Names values %0, %1, ... in order of definition (kernel arguments keep their own names)."""

    def __init__(self, show_locs: bool = False, show_layouts: bool = True):
        self.names: dict[int, str] = {}
        self.counter = itertools.count()
        self.show_locs, self.show_layouts = show_locs, show_layouts
        self.lines: list[str] = []

    def name(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            self.names[key] = f"%{v.name}" if v.name else f"%{next(self.counter)}"
        return self.names[key]

    def typed(self, v: Value) -> str:
        text = str(v.type)
        if self.show_layouts and v.layout is not None:
            text += f" {v.layout}"
        return text

    def function(self, fn: Function) -> str:
        args = []
        for v, attrs in itertools.zip_longest(fn.args, fn.arg_attrs or [], fillvalue={}):
            extra = " {" + ", ".join(f"{k}={_attr_text(a)}" for k, a in attrs.items()) + "}" if attrs else ""
            args.append(f"{self.name(v)}: {self.typed(v)}{extra}")
        self.lines.append(f"func @{fn.name}({', '.join(args)}) {{")
        self.block(fn.body, 1)
        self.lines.append("}")
        return "\n".join(self.lines)

    def block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.op(op, depth)

    def op(self, op: Op, depth: int) -> None:
        pad = "  " * depth
        results = ", ".join(self.name(r) for r in op.results)
        lhs = f"{results} = " if results else ""
        operands = ", ".join(self.name(v) for v in op.operands)
        attrs = {k: v for k, v in op.attrs.items() if k != "dtype" or op.name in ("cast", "bitcast")}
        attr_text = " {" + ", ".join(f"{k}={_attr_text(v)}" for k, v in attrs.items()) + "}" if attrs else ""
        types = ", ".join(self.typed(r) for r in op.results)
        line = f"{pad}{lhs}{op.name}" + (f" {operands}" if operands else "") + attr_text
        if op.name == "constant":
            line = f"{pad}{lhs}constant {_attr_text(op.attrs['value'])}"
        if types:
            line += f" : {types}"
        if self.show_locs and op.loc is not None:
            line += f"  // line {op.loc.line}"
        self.lines.append(line)
        for i, region in enumerate(op.regions):
            head = ", ".join(f"{self.name(a)}: {self.typed(a)}" for a in region.args)
            label = {"for": ["body"], "if": ["then", "else"], "while": ["before", "after"]}
            self.lines.append(f"{pad}  ^{label.get(op.name, ['region'] * 4)[i]}({head}):")
            self.block(region, depth + 2)
# --8<-- [end:printer]


def print_function(fn: Function, show_locs: bool = False, show_layouts: bool = True) -> str:
    return Printer(show_locs, show_layouts).function(fn)


# ---------------------------------------------------------------------------------------------------
# Verifying: every pass leaves IR for which this raises nothing.
# ---------------------------------------------------------------------------------------------------

# --8<-- [start:verify]
def verify(fn: Function) -> None:
    """Check types (through the rules in OPS), SSA dominance and region terminators."""
    defined: set[int] = {id(a) for a in fn.args}
    _verify_block(fn.body, defined, fn)


def _verify_block(block: Block, defined: set[int], fn: Function) -> None:
    defined = defined | {id(a) for a in block.args}
    for op in block.ops:
        for v in op.operands:
            if id(v) not in defined:
                raise VerificationError(f"{op.name}: operand used before it is defined (or out of scope)"
                                        f"\n{print_function(fn)}")
        if op.name not in OPS:
            raise VerificationError(f"unknown op {op.name!r}")
        if op.name in REGION_OPS:
            _verify_region_op(op, defined, fn)
        else:
            expected = OPS[op.name](op.name, op.operands, op.attrs)
            got = [r.type for r in op.results]
            if expected != got:
                raise VerificationError(f"{op.name}: results typed {list(map(str, got))}, "
                                        f"the rule gives {list(map(str, expected))}")
        defined |= {id(r) for r in op.results}


def _verify_region_op(op: Op, defined: set[int], fn: Function) -> None:
    result_types = [r.type for r in op.results]
    for region in op.regions:
        _verify_block(region, defined, fn)
        term = region.ops[-1] if region.ops else None
        if term is None or term.name not in ("yield", "condition"):
            raise VerificationError(f"{op.name}: a region must end in yield or condition")
    if op.name == "for":
        lb, ub, step, *inits = op.operands
        _check(all(not v.type.is_tile and v.dtype.is_int() for v in (lb, ub, step)), "for",
               "bounds and step must be integer scalars")
        body = op.regions[0]
        _check([a.type for a in body.args] == [lb.type] + [v.type for v in inits], "for",
               "block arguments must be the induction variable and the carried values")
        _check([v.type for v in inits] == result_types, "for", "carried values must match results")
        _check([v.type for v in body.terminator.operands] == result_types, "for",
               "yield must match the carried values")
    elif op.name == "if":
        _check(op.operands[0].type == scalar(int1), "if", "condition must be a scalar int1")
        for region in op.regions:
            _check([v.type for v in region.terminator.operands] == result_types, "if",
                   "each branch must yield the results' types")
    elif op.name == "while":
        before, after = op.regions
        cond = before.ops[-1]
        _check(cond.name == "condition" and cond.operands[0].type == scalar(int1), "while",
               "the before region must end in condition(%cond, values...)")
        _check([v.type for v in cond.operands[1:]] == [a.type for a in after.args] == result_types,
               "while", "condition values must match the after region and the results")
        _check([v.type for v in after.terminator.operands] == [a.type for a in before.args]
               == [v.type for v in op.operands], "while", "after must yield the loop's initial types")
# --8<-- [end:verify]


def uses(fn: Function) -> dict[int, list[Op]]:
    """Map each value (by id) to the ops that read it."""
    result: dict[int, list[Op]] = {}
    for op in fn.walk():
        for v in op.operands:
            result.setdefault(id(v), []).append(op)
    return result
