"""The op table: every op's typing rule, the traits the passes ask about, and the builder.

For each op, one rule checks its operands and attributes and gives its result types. The `Builder`
calls the rule to type each op it makes and the verifier calls the same rule after every pass, so an
op's typing has exactly one home. Beside the table, named sets of op names answer the questions the
passes ask of an op (does it have an effect? is it cheap to compute again?), so that no pass keeps
its own list. Chapter: 03-tile-ir.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..dtypes import DType, int1, int32, int64
from ..errors import Loc, VerificationError
from .core import Block, Op, Type, Value, scalar, tile


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
    if attrs.get("rounding") is not None:
        _check(x.dtype.is_floating() and dtype.is_floating() and dtype.bits < x.dtype.bits, name,
               "a rounding mode is for narrowing float casts")
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
    if "descriptor" in attrs:  # a block of a host descriptor: (ptr, mask, other, offset per dimension)
        corner, rest = rest[2:], rest[:2]
        _check(len(rest) == 2 and len(corner) == len(ptr.shape) and all(c.type == scalar(int32) for c in corner),
               name, "operands are (ptr, mask, other, one int32 offset per dimension)")
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


# --8<-- [start:shape-rules]
def _join(name, operands, attrs):
    """Two tiles of one type side by side along a new last dimension of size 2."""
    a, b = operands
    _same_type(name, a, b)
    _check(a.type.is_tile, name, "operands must be tiles")
    return [tile(a.shape + (2,), a.dtype)]


def _split(name, operands, attrs):
    """The two halves of a tile along its last dimension, which has size 2 (join's inverse)."""
    (x,) = operands
    _check(len(x.shape) >= 2 and x.shape[-1] == 2, name,
           f"needs a last dimension of size 2, got {x.shape}")
    return [tile(x.shape[:-1], x.dtype)] * 2


def _gather(name, operands, attrs):
    """result[i] = src[i with i[axis] replaced by index[i]]: the result has the index's shape."""
    src, index = operands
    axis = attrs["axis"]
    _check(src.type.is_tile and len(index.shape) == len(src.shape), name,
           "source and index must have one rank")
    _check(0 <= axis < len(src.shape), name, f"axis {axis} out of range")
    _check(index.dtype.is_int() and not index.dtype.is_bool(), name, "index must be an integer tile")
    _check(all(i == s for d, (i, s) in enumerate(zip(index.shape, src.shape)) if d != axis), name,
           f"index {index.shape} and source {src.shape} differ outside the axis")
    return [tile(index.shape, src.dtype)]


def _histogram(name, operands, attrs):
    """How many elements (where the mask is true) fall in each of `bins` bins of width 1 from 0."""
    x, *mask = operands
    bins = attrs["bins"]
    _check(len(x.shape) == 1 and x.dtype.is_int(), name, "needs a 1-D integer tile")
    _check(bins > 0 and bins & (bins - 1) == 0, name, f"bins must be a power of two, got {bins}")
    if mask:
        _same_shape(name, x, mask[0])
        _check(mask[0].dtype == int1, name, "mask must be int1")
    return [tile((bins,), int32)]


def _per_element(name, operands, attrs):
    """inline_asm and map_elementwise: operands of one shape, one result per dtype of `dtypes`."""
    _check(len({v.shape for v in operands}) <= 1, name, "operands must have one shape")
    _check(attrs["pack"] >= 1, name, "pack must be at least 1")
    shape = operands[0].shape if operands else ()
    return [Type(shape, dtype) for dtype in attrs["dtypes"]]
# --8<-- [end:shape-rules]


# "combine": a user's @jit combine function, inlined as the op's region (two scalar arguments, one
# yielded value): tl.reduce and tl.associative_scan.
REDUCE_KINDS = ("sum", "prod", "max", "min", "argmax", "argmin", "xor", "and", "or", "combine")


def _across(name, operands, attrs, kinds) -> None:
    """What reduce and scan check: tiles of one shape, a valid axis, a known kind; several
    operands only with a combine function (`tl.reduce((values, indices), ...)`)."""
    x = operands[0]
    _check(x.type.is_tile and 0 <= attrs["axis"] < len(x.shape), name, f"axis {attrs['axis']} out of range")
    _same_shape(name, *operands)
    _check(attrs["kind"] in kinds, name, f"unknown kind {attrs['kind']}")
    _check(len(operands) == 1 or attrs["kind"] == "combine", name,
           "several operands need a combine function")


def _reduce(name, operands, attrs):
    """One result per operand, with the axis removed (an argmax's is the int32 index)."""
    _across(name, operands, attrs, REDUCE_KINDS)
    axis = attrs["axis"]
    shape = operands[0].shape[:axis] + operands[0].shape[axis + 1:]
    if attrs["kind"] in ("argmax", "argmin"):
        return [Type(shape, int32)]
    return [Type(shape, x.dtype) for x in operands]


def _scan(name, operands, attrs):
    _across(name, operands, attrs, ("sum", "prod", "max", "min", "combine"))
    return [x.type for x in operands]


def _dot(name, operands, attrs):
    """acc + a @ b over 2-D tiles, or 3-D ones whose first dimension is a batch. The frontend has
    decomposed the other precisions (tf32x3, bf16x3, bf16x6): a dot is "ieee", or "tf32" for fp32.
    The operands have one type, or are two fp8s (e4m3 times e5m2 is one wgmma)."""
    a, b, acc = operands
    _check(len(a.shape) == len(b.shape) in (2, 3), name, "operands must be 2-D, or 3-D with a batch")
    *batch, m, k = a.shape
    *batch2, k2, n = b.shape
    _check(batch == batch2, name, f"batch dimensions differ: {a.shape} @ {b.shape}")
    _check(k == k2, name, f"inner dimensions differ: {a.shape} @ {b.shape}")
    _check(acc.shape == (*batch, m, n), name, f"accumulator must be {(*batch, m, n)}, got {acc.shape}")
    _check(a.dtype == b.dtype or a.dtype.is_fp8() and b.dtype.is_fp8(), name,
           f"operand types differ: {a.dtype} and {b.dtype}")
    _check(attrs["input_precision"] in ("ieee", "tf32"), name, "bad input_precision")
    return [acc.type]


def _fma(name, operands, attrs):
    _same_type(name, *operands)
    _check(operands[0].dtype.is_floating(), name, "needs floats")
    return [operands[0].type]


def _extern_elementwise(name, operands, attrs):
    """A function of a device library (libdevice's `__nv_sinf`), element by element: its operands
    share one shape and may differ in dtype (`jn(n, x)`); the result's dtype is an attribute."""
    _check(isinstance(attrs["symbol"], str) and attrs["symbol"], name, "symbol must name a function")
    _check(len({v.shape for v in operands}) <= 1, name, "operands must have one shape")
    return [Type(operands[0].shape if operands else (), attrs["dtype"])]


def _special_register(name, operands, attrs):
    _check(attrs["register"] in SPECIAL_REGISTERS, name, f"unknown register {attrs['register']!r}")
    return [scalar(SPECIAL_REGISTERS[attrs["register"]])]


# What `special_register` reads: the multiprocessor a program runs on, and the GPU's nanosecond clock.
SPECIAL_REGISTERS = {"smid": int32, "globaltimer": int64}


def _no_results(name, operands, attrs):
    return []


def _passthrough(name, operands, attrs):
    return [operands[0].type]


def _region_op(name, operands, attrs):
    raise VerificationError(f"{name}: result types come from its regions; use Builder.region_op")


REGION_OPS = ("for", "if", "while")
TERMINATORS = ("yield", "condition")  # end a region: they pass values on and compute nothing

# --8<-- [start:traits]
# What the passes ask of an op, as named sets of op names.
ARITHMETIC = {"add", "sub", "mul", "div", "rem", "minimum", "maximum", "neg", "abs"}  # any numbers
BITWISE = {"and", "or", "xor", "shl", "shr", "not", "umulhi"}  # integers
MATH = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "floor", "ceil",
        "pow"}  # floats
# Each element of the result from the same element of each operand (and nothing else).
ELEMENTWISE = ARITHMETIC | BITWISE | MATH | {"fma", "cmp", "select", "cast", "bitcast", "addptr",
                                            "extern_elementwise"}
# A side effect, or a result that two identical calls may not share: never merged, never dropped.
EFFECTS = {"load", "store", "atomic", "atomic_cas", "print", "assert", "barrier", "special_register",
           # inline_asm: kept as written, pure or not
           "griddepcontrol", *REGION_OPS, *TERMINATORS, "inline_asm"}
# Pure and a few instructions per element: computing one again where it is needed costs less than
# moving it between threads (the layout pass) or waiting for it (the pipeliner clones them).
CHEAP = (ELEMENTWISE - MATH - {"fma", "extern_elementwise"}) | {
    "constant", "program_id", "num_programs", "arange", "splat", "broadcast", "expand_dims", "hint",
    "convert_layout"}
# --8<-- [end:traits]


# --8<-- [start:ops]
OPS: dict[str, Callable] = {
    # indices and constants
    "constant": _constant, "program_id": _program_id, "num_programs": _program_id,
    "arange": _arange,
    # shapes
    "splat": _splat, "broadcast": _broadcast, "expand_dims": _expand_dims, "reshape": _reshape,
    "trans": _trans,
    # elementwise arithmetic (C semantics for integer division and remainder, as in Triton)
    **{op: _elementwise(_ANY) for op in sorted(ARITHMETIC)},
    **{op: _elementwise(_INTS) for op in sorted(BITWISE)},
    **{op: _elementwise(("float",)) for op in sorted(MATH)},
    "fma": _fma, "cmp": _cmp, "select": _select, "cast": _cast, "bitcast": _cast,
    # libdevice: tl.extra.libdevice, tl.extern_elementwise
    "extern_elementwise": _extern_elementwise,
    # memory
    "addptr": _addptr, "load": _load, "store": _store, "atomic": _atomic,
    "atomic_cas": _atomic_cas,
    # across a tile
    "reduce": _reduce, "scan": _scan, "dot": _dot,
    "join": _join, "split": _split, "gather": _gather, "histogram": _histogram,
    # the author's own code, element by element: PTX, or a @jit function of scalars (its region)
    "inline_asm": _per_element, "map_elementwise": _per_element,
    # control flow (results typed by their regions) and the rest
    "for": _region_op, "if": _region_op, "while": _region_op, "yield": _no_results,
    "condition": _no_results, "print": _no_results, "assert": _no_results,
    "hint": _passthrough, "barrier": _no_results, "special_register": _special_register,
    # {control = wait | launch_dependents}: programmatic dependent launch
    "griddepcontrol": _no_results,
    # made by the layout pass: the same values, held by other threads
    "convert_layout": _passthrough,
}

# Ops only the CUDA backend makes (software pipelining): they never reach the interpreter.
BACKEND_OPS: dict[str, Callable] = {
    # (ptrs, mask?, stage) -> copies a tile into stage `stage` of a buffer
    "async_load": _no_results,
    "async_commit": _no_results,  # closes the group of copies issued since the last commit
    "async_wait": _no_results,    # waits until at most attrs["pending"] groups are in flight
    # (stage) -> the tile, in registers
    "local_read": lambda name, operands, attrs: [attrs["type"]],
    "wgmma_wait": _passthrough,   # (acc) -> acc, once the wgmma groups writing it are done
    # the tensor memory accelerator (sm_90): one thread copies a block, an mbarrier counts its bytes
    "mbarrier_init": _no_results,   # arms a ring's mbarriers, one per stage
    "mbarrier_expect": _no_results,  # (stage, go): the bytes the stage's copies will bring
    "tma_load": _no_results,        # (stage, go, offsets...): copies a descriptor's block into a stage
    "mbarrier_wait": _no_results,   # (stage, phase): waits until the stage's copies have landed
    "mbarrier_inval": _no_results,  # the loop is over: the mbarriers' bytes may be used again
}
OPS.update(BACKEND_OPS)
# --8<-- [end:ops]




# --8<-- [start:builder]
class Builder:
    """Appends ops to the current block; `loc` is stamped on every op made."""

    def __init__(self, block: Block | None = None):
        self.block = block if block is not None else Block()
        self.loc: Loc | None = None  # where in the kernel's source the ops come from
        self.created = 0  # ops made so far: how far the frontend's unrolling has grown the kernel

    def create(self, name: str, operands: list[Value], attrs: dict | None = None) -> Op:
        """Make an op whose result types follow from the rule in OPS, and append it."""
        attrs = dict(attrs or {})
        result_types = OPS[name](name, operands, attrs)
        op = Op(name, list(operands), [], attrs, [], self.loc)
        op.results = [Value(t, op) for t in result_types]
        self.block.ops.append(op)
        self.created += 1
        return op

    def value(self, name: str, operands: list[Value], **attrs) -> Value:
        return self.create(name, operands, attrs).result

    def region_op(self, name: str, operands: list[Value], result_types: list[Type],
                  regions: list[Block], attrs: dict | None = None) -> Op:
        op = Op(name, list(operands), [], dict(attrs or {}), regions, self.loc)
        op.results = [Value(t, op) for t in result_types]
        self.block.ops.append(op)
        self.created += 1
        return op

    def constant(self, value, dtype: DType) -> Value:
        return self.value("constant", [], value=value, dtype=dtype)
# --8<-- [end:builder]
