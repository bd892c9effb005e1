"""Memory in the language: `tl.load`, `tl.store` and the atomics, with their typing rules.

A kernel reaches memory through tiles of pointers. `load` reads where its mask is true and gives
`other` (or 0) elsewhere, touching nothing there; `store` writes where its mask is true; the
value and mask broadcast to the pointers' shape, never beyond it. Booleans live in memory as
bytes. An atomic reads, combines and writes each element as one step and gives the old values;
its `sem` and `scope` say how it is ordered with other memory accesses (Triton's defaults:
acq_rel at gpu scope).

A load or store through a block pointer or a tensor descriptor (`blocks.py`) is one of the tile
of pointers the block stands for, masked at the array's edges. Chapter: 02-frontend.
"""
from __future__ import annotations

from .. import ir
from ..ir import Value
from .blocks import block_ptr, padding_value, tensor_descriptor
from .core import _operand, _unwrap, _value, builtin, tensor
from .semantic import (SemanticError, Weak, _as_mask, broadcast_shapes, broadcast_to, builder, cast, compare,
                       converted, emit, scalar_constant)


# --8<-- [start:builtins]
@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False) -> tensor:
    """Read the elements `pointer` points at; where `mask` is false, give `other` instead. Through a
    block pointer, the dimensions in `boundary_check` are masked at the array's edges, where the
    load reads `padding_option` ("zero", the default, or "nan")."""
    mask, other, padding = _unwrap(mask), _unwrap(other), padding_value(padding_option)
    pointer = _unwrap(pointer)
    if isinstance(pointer, block_ptr):
        if mask is not None or other is not None:
            raise SemanticError("`mask` and `other` arguments cannot be specified for loading block pointers",
                                "say which dimensions to check at the array's edges with boundary_check=(0, 1)")
        if padding is not None and not pointer.base.dtype.pointee.is_floating():
            raise SemanticError("Padding option `nan` is not supported for integer block pointers",
                                'pad integer blocks with zeros (padding_option="zero")')
        ptrs, mask = pointer.tile(boundary_check)
        return tensor(load_rule(ptrs, mask, None if mask is None or padding is None else Weak(padding)))
    if padding is not None or _unwrap(boundary_check):
        raise SemanticError("`padding_option` or `boundary_check` argument is not supported for loading a "
                            "tensor of pointers or loading a scalar, because the compiler does not know the "
                            "boundary", "mask the load (mask=..., other=...), or use a block pointer "
                            "(tl.make_block_ptr)")
    return tensor(load_rule(_value(pointer), None if mask is None else _operand(mask),
                                None if other is None else _operand(other)))


@builtin(method=True)
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="") -> None:
    """Write `value` where `pointer` points, only where `mask` is true (through a block pointer: only
    inside the array, along the dimensions in `boundary_check`)."""
    mask, pointer, value = _unwrap(mask), _unwrap(pointer), _unwrap(value)
    if isinstance(pointer, block_ptr):
        if mask is not None:
            raise SemanticError("`mask` argument cannot be specified for storing through block pointers",
                                "say which dimensions to check at the array's edges with boundary_check=(0, 1)")
        _check_block_value(value, pointer.block_shape, pointer.base.dtype.pointee)
        ptrs, mask = pointer.tile(boundary_check)
        return store_rule(ptrs, _operand(value), mask)
    if _unwrap(boundary_check):
        raise SemanticError("`boundary_check` argument is not supported for storing through a tensor of "
                            "pointers or a scalar, because the compiler does not know the boundary",
                            "mask the store (mask=...), or use a block pointer (tl.make_block_ptr)")
    store_rule(_value(pointer), _operand(value), None if mask is None else _operand(mask))
# --8<-- [end:builtins]


def _check_block_value(value, block_shape: tuple[int, ...], pointee: ir.DType) -> None:
    """What Triton asks of a value stored through a block pointer: the block's shape (or a scalar)
    and its element type (a Python number takes it)."""
    if not isinstance(value, tensor):
        return
    if value.type.is_tile and tuple(value.shape) != block_shape:
        raise SemanticError(f"Block shape({list(block_shape)}) and value shape({value.shape}) mismatch",
                            "store a value of the block's shape (or a scalar)")
    if value.dtype != pointee:
        raise SemanticError(f"Block element type({pointee}) and value element type({value.dtype}) mismatch",
                            f"convert the value first: value.to(tl.{pointee.facts.language})")


# --8<-- [start:descriptor-access]
@builtin
def load_tensor_descriptor(desc, offsets, cache_modifier="", eviction_policy="") -> tensor:
    """`desc.load(offsets)`: the block of a tensor descriptor whose first element is at `offsets`."""
    desc = _unwrap(desc)
    ptrs, mask, corner = desc.tile(offsets)
    padding = padding_value(desc.padding)
    if not desc.argument or desc.dtype.is_bool():
        return tensor(load_rule(ptrs, mask, None if padding is None else Weak(padding)))
    # a host descriptor's load names it and keeps the block's offsets: on sm_90 the pipeliner may
    # copy the block with the tensor memory accelerator instead (`passes/pipeline`)
    other = converted(0 if padding is None else padding, desc.dtype)
    return tensor(emit("load", [ptrs, mask, broadcast_to(other, ptrs.shape), *corner],
                       descriptor=desc.argument))


@builtin
def store_tensor_descriptor(desc, offsets, value) -> None:
    """`desc.store(offsets, value)`: write a block (converted to the descriptor's dtype) at `offsets`;
    its elements outside the array are not written."""
    desc, value = _unwrap(desc), _unwrap(value)
    shape = tuple(value.shape) if isinstance(value, tensor) else ()
    if shape != desc.block_shape:
        raise SemanticError(f"a tensor descriptor stores blocks of shape {list(desc.block_shape)}, got a value "
                            f"of shape {list(shape)}",
                            "give a value of the descriptor's block shape")
    ptrs, mask, _ = desc.tile(offsets)
    store_rule(ptrs, value.handle, mask)


@builtin
def descriptor_gather(desc, *args) -> tensor:
    """`desc.gather(x_offsets, y_offset)`: the rows `x_offsets` (a 1-D tile of row indices) of a
    descriptor whose blocks are one row, each a block wide from column `y_offset` on; elements
    outside the array read as the descriptor's padding."""
    desc = _unwrap(desc)
    if len(args) != 2:
        raise SemanticError(f"descriptor gather only supports 2D indexing, but got {len(args)}",
                            "give the rows' indices and the first column: desc.gather(rows, column)")
    ptrs, mask = desc.rows_tile("gather", *args)
    padding = padding_value(desc.padding)
    return tensor(load_rule(ptrs, mask, None if padding is None else Weak(padding)))


@builtin
def descriptor_scatter(desc, value, *args) -> None:
    """`desc.scatter(value, x_offsets, y_offset)`: write row `i` of `value` to row `x_offsets[i]` of
    the array, from column `y_offset` on (converted to the descriptor's dtype); elements outside the
    array are not written. Where two offsets are equal, which row lands is not specified."""
    desc, value = _unwrap(desc), _unwrap(value)
    if len(args) != 2:
        raise SemanticError(f"descriptor scatter only supports 2D indexing, but got {len(args)}",
                            "give the rows' indices and the first column: desc.scatter(value, rows, column)")
    ptrs, mask = desc.rows_tile("scatter", *args)
    shape = tuple(value.shape) if isinstance(value, tensor) else ()
    if shape != tuple(ptrs.shape):
        raise SemanticError(f"descriptor scatter writes a value of shape {list(ptrs.shape)} (a row per offset, a "
                            f"block wide), got {list(shape)}",
                            "give one row of the block per offset")
    store_rule(ptrs, value.handle, mask)


# The element types a descriptor's atomics take (Triton's, where it has no TMA to do them: fp16
# and bf16 min and max need Hopper's TMA reductions, which minitriton does not use).
DESCRIPTOR_ATOMIC_DTYPES = {
    "add": ("uint32", "int32", "uint64", "fp32", "fp16", "bf16"),
    "min": ("uint32", "int32", "uint64", "int64"),
    "max": ("uint32", "int32", "uint64", "int64"),
    "and": ("uint32", "int32", "uint64", "int64"),
    "or": ("uint32", "int32", "uint64", "int64"),
    "xor": ("uint32", "int32", "uint64", "int64"),
}


def _descriptor_atomic(kind: str):
    def fn(desc, offsets, value) -> None:
        """`desc.atomic_<kind>(offsets, value)`: combine a block into the array at `offsets`, each
        element one atomic step (relaxed); elements outside the array are not touched."""
        desc, value = _unwrap(desc), _unwrap(value)
        shape = tuple(value.shape) if isinstance(value, tensor) else ()
        if shape != desc.block_shape:
            raise SemanticError(f"a tensor descriptor's atomic_{kind} takes blocks of shape {list(desc.block_shape)}, "
                                f"got a value of shape {list(shape)}",
                                "give a value of the descriptor's block shape")
        if str(desc.dtype) not in DESCRIPTOR_ATOMIC_DTYPES[kind]:
            hint = "16-bit float types require native tma support" if desc.dtype.is_floating() else None
            raise SemanticError(f"Unsupported dtype {desc.dtype} for a descriptor's atomic_{kind} (it takes "
                                f"{', '.join(DESCRIPTOR_ATOMIC_DTYPES[kind])})", hint)
        ptrs, mask, _ = desc.tile(offsets)
        atomic_rule(kind, ptrs, value.handle, mask, "relaxed")
    fn.__name__ = f"descriptor_atomic_{kind}"
    return builtin(fn)


# A descriptor's methods, as Triton's descriptors have them.
tensor_descriptor.load, tensor_descriptor.store = load_tensor_descriptor, store_tensor_descriptor
tensor_descriptor.gather, tensor_descriptor.scatter = descriptor_gather, descriptor_scatter
for _kind in DESCRIPTOR_ATOMIC_DTYPES:
    setattr(tensor_descriptor, f"atomic_{_kind}", _descriptor_atomic(_kind))
# --8<-- [end:descriptor-access]


def _atomic(kind: str):
    def fn(pointer, val, mask=None, sem=None, scope=None) -> tensor:
        mask = _unwrap(mask)
        return tensor(atomic_rule(kind, _value(pointer), _operand(val),
                                      None if mask is None else _operand(mask), _unwrap(sem), _unwrap(scope)))
    fn.__name__ = f"atomic_{kind}"
    return builtin(fn, method=True)


atomic_add, atomic_max, atomic_min = _atomic("add"), _atomic("max"), _atomic("min")
atomic_xchg, atomic_and, atomic_or, atomic_xor = (_atomic(k) for k in ("xchg", "and", "or", "xor"))


@builtin(method=True)
def atomic_cas(pointer, cmp, val, sem=None, scope=None) -> tensor:
    return tensor(atomic_cas_rule(_value(pointer), _operand(cmp), _operand(val), _unwrap(sem), _unwrap(scope)))


# -- the typing rules -----------------------------------------------------------------------------

# --8<-- [start:memory]
def _pointer_operand(ptr: Value, what: str) -> Value:
    if not ptr.dtype.is_ptr():
        raise SemanticError(f"{what} needs a pointer (or a tile of pointers), got {ptr.type}",
                            "pass a tensor argument and offset it: x_ptr + offsets")
    return ptr


def load_rule(ptr: Value, mask=None, other=None) -> Value:
    """Read through a tile of pointers; where `mask` is false, give `other` (or 0) and touch nothing."""
    ptr = _pointer_operand(ptr, "tl.load")
    pointee = ptr.dtype.pointee
    if pointee.is_bool():  # booleans live in memory as bytes
        return compare("ne", load_rule(cast(ptr, ir.pointer_type(ir.int8)), mask, other), Weak(0))
    if mask is None:
        if other is not None:
            raise SemanticError("tl.load: `other` needs a `mask`: it is the value of the masked-off lanes",
                                "pass mask=... as well, e.g. mask=offsets < n")
        return emit("load", [ptr])
    mask = _as_mask(mask)
    shape = broadcast_shapes(ptr.shape, mask.shape)
    ptr, mask = broadcast_to(ptr, shape), broadcast_to(mask, shape)
    if other is None:
        return emit("load", [ptr, mask])
    other = converted(other.value, pointee) if isinstance(other, Weak) else cast(other, pointee)
    return emit("load", [ptr, mask, broadcast_to(other, shape)])


def _stored(value, pointee: ir.DType) -> Value:
    """A value written to memory, converted to the pointee type (a Python number typed on its own
    first, then converted: `tl.store(p_int8, 300)` stores 44, as in Triton)."""
    return converted(value.value, pointee) if isinstance(value, Weak) else cast(value, pointee)


def _writable(ptr: Value, what: str) -> Value:
    if ptr.dtype.is_ptr() and ptr.dtype.const:
        raise SemanticError(f"{what}: Cannot store to a constant pointer",
                            "the pointer comes from a parameter annotated tl.const; drop the annotation "
                            "to write through it")
    return ptr


def store_rule(ptr: Value, value, mask=None) -> None:
    """Write `value` (converted to the pointee type) through `ptr` where `mask` is true."""
    ptr = _writable(_pointer_operand(ptr, "tl.store"), "tl.store")
    pointee = ptr.dtype.pointee
    if pointee.is_bool():
        value = value if not isinstance(value, Weak) else scalar_constant(value.value)
        return store_rule(cast(ptr, ir.pointer_type(ir.int8)), cast(value, ir.int8), mask)
    value = _stored(value, pointee)
    mask = None if mask is None else _as_mask(mask)
    # The pointers say where to write: the value and the mask may broadcast to them, not beyond.
    for what, x in (("a value", value), ("a mask", mask)):
        if x is not None and not _broadcasts_to(x.shape, ptr.shape):
            raise SemanticError(f"cannot store {what} of shape {list(x.shape)} through pointers of shape "
                                f"{list(ptr.shape)}", "the value and mask take the pointers' shape "
                                "(or broadcast to it)")
    operands = [ptr, broadcast_to(value, ptr.shape)]
    if mask is not None:
        operands.append(broadcast_to(mask, ptr.shape))
    builder().create("store", operands)
# --8<-- [end:memory]


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    padded = (1,) * (len(target) - len(shape)) + tuple(shape)
    return len(shape) <= len(target) and all(a in (1, b) for a, b in zip(padded, target))


def _atomic_dtype(kind: str, dtype: ir.DType) -> None:
    """The element types Triton's atomics take: 32- and 64-bit integers for all; fp32 and fp64 for
    add, max, min and xchg; fp16 and bf16 for add only."""
    ok = dtype.is_int() and dtype.bits in (32, 64) or \
        dtype.is_floating() and (dtype.bits >= 32 and kind in ("add", "max", "min", "xchg") or
                                 kind == "add" and dtype.bits == 16)
    if not ok:
        raise SemanticError(f"atomic_{kind} does not support {dtype}",
                            "atomics take 32- and 64-bit integers; floats only for add (fp16, bf16, fp32, "
                            "fp64), max, min and xchg (fp32, fp64)")


def atomic_rule(kind: str, ptr: Value, value, mask=None, sem: str | None = None, scope: str | None = None) -> Value:
    ptr = _writable(_pointer_operand(ptr, f"tl.atomic_{kind}"), f"tl.atomic_{kind}")
    pointee = ptr.dtype.pointee
    _atomic_dtype(kind, pointee)
    value = _stored(value, pointee)
    shape = broadcast_shapes(ptr.shape, value.shape)
    if mask is not None:
        shape = broadcast_shapes(shape, _as_mask(mask).shape)
    operands = [broadcast_to(ptr, shape), broadcast_to(value, shape)]
    if mask is not None:
        operands.append(broadcast_to(_as_mask(mask), shape))
    return emit("atomic", operands, kind=kind, **_ordering(sem, scope))


def _ordering(sem: str | None, scope: str | None) -> dict:
    """Memory ordering of an atomic; Triton's defaults are acq_rel at gpu scope."""
    sem, scope = sem or "acq_rel", scope or "gpu"
    if sem not in ("relaxed", "acquire", "release", "acq_rel"):
        raise SemanticError(f"unknown sem {sem!r}", "use 'relaxed', 'acquire', 'release' or 'acq_rel'")
    if scope not in ("cta", "gpu", "sys"):
        raise SemanticError(f"unknown scope {scope!r}", "use 'cta', 'gpu' or 'sys'")
    return {"sem": sem, "scope": scope}


def atomic_cas_rule(ptr: Value, cmp, value, sem: str | None = None, scope: str | None = None) -> Value:
    ptr = _writable(_pointer_operand(ptr, "tl.atomic_cas"), "tl.atomic_cas")
    pointee = ptr.dtype.pointee
    if pointee.bits not in (16, 32, 64):
        raise SemanticError(f"atomic_cas only supports elements with width {{16, 32, 64}}, not {pointee}",
                            "compare-and-swap a wider word that holds the element")
    cmp = _stored(cmp, pointee)
    value = _stored(value, pointee)
    shape = broadcast_shapes(broadcast_shapes(ptr.shape, cmp.shape), value.shape)
    return emit("atomic_cas", [broadcast_to(ptr, shape), broadcast_to(cmp, shape),
                               broadcast_to(value, shape)], **_ordering(sem, scope))

