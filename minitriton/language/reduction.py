"""Reductions and scans in the language: `tl.sum`, `tl.max`, `tl.argmin`, `tl.reduce`, `tl.cumsum`...

A reduction folds a tile along one axis (all of it when the axis is None) and a scan keeps every
running value. The dtypes follow Triton 3.6: narrow integers are summed in 32 bits, `tl.max` and
`tl.min` compare fp16 and bf16 in fp32, scans of bf16 run in fp32. `tl.reduce` and
`tl.associative_scan` take a @jit combine function, which the frontend inlines as the op's region
(`frontend/calls.py`). Each is also a method of `tensor` (`x.sum(0)`). The typing rules come
first (what each kind adds or compares in, which axes, the ops they emit), then the builtins.
Chapter: 02-frontend.
"""
from __future__ import annotations

from .. import ir
from ..ir import DType, Value
from . import semantic
from .core import _const_int, _dtype, _unwrap, _value, builtin, tensor
from .semantic import SemanticError, cast, emit, invalid_operands, no_pointer


# ----------------------------------------------------------------------------- the typing rules

def sum_dtype(x: Value, dtype: DType | None) -> Value:
    """What `tl.sum` and `tl.cumsum` add in: `dtype` if given, else 32 bits for narrower integers,
    keeping their signedness (int1 is unsigned, as in Triton: a sum of booleans is a uint32)."""
    if dtype is None and x.dtype.is_int() and x.dtype.bits < 32:
        dtype = ir.uint32 if x.dtype.is_int_unsigned() else ir.int32
    return x if dtype is None else cast(x, dtype)


def extremum_dtype(x: Value) -> Value:
    """What `tl.max` and `tl.min` (without indices) compare in, as in Triton: fp32 for narrower
    floats, int32 for narrower integers."""
    if x.dtype.bits >= 32:
        return x
    return cast(x, ir.float32 if x.dtype.is_floating() else ir.int32)


# --8<-- [start:reduce]
def emit_reduce(x: Value, axis: int | None, kind: str, keep_dims: bool = False) -> Value:
    """Reduce along `axis` (all axes when None), in the dtype of `x`."""
    if not x.type.is_tile:
        raise SemanticError(f"cannot reduce a scalar ({x.dtype})", "reductions take tiles")
    no_fp8(x, "reduce")
    if x.type.numel > 1:  # one element is its own reduction, pointer or not (`unsplat`)
        no_pointer(x, f"tl.{kind}")
    if kind in BITWISE_REDUCTIONS and not x.dtype.is_int():
        raise invalid_operands(x.dtype, x.dtype, f"a {kind} reduction combines bits: it takes integers")
    if axis is None and kind in ("argmax", "argmin"):  # the index into the flattened tile
        result = emit_reduce(emit("reshape", [x], shape=(x.type.numel,)), 0, kind)
        for _ in range(len(x.shape) if keep_dims else 0):
            result = emit("expand_dims", [result], axis=0) if result.type.is_tile else \
                emit("splat", [result], shape=(1,))
        return result
    if axis is None:  # every axis, the last first: no element moves but for the reduction itself
        result = x
        for d in reversed(range(len(x.shape))):
            result = emit_reduce(result, d, kind, keep_dims)
        return result
    axis = axis_index(axis, len(x.shape))
    result = emit("reduce", [x], axis=axis, kind=kind)
    if keep_dims:
        result = emit("expand_dims", [result], axis=axis) if result.type.is_tile else \
            emit("splat", [result], shape=(1,))
    return result
# --8<-- [end:reduce]


BITWISE_REDUCTIONS = ("xor", "and", "or")  # xor_sum, reduce_and, reduce_or


def no_fp8(x: Value, what: str) -> None:
    if x.dtype.is_fp8():
        raise SemanticError(f"cannot {what} a tile of {x.dtype}: fp8 has no arithmetic of its own",
                            "convert it first: x.to(tl.float32)")


def axis_index(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise SemanticError(f"invalid axis {axis}. Expected {-rank} <= axis < {rank}",
                            f"a tile of rank {rank} has axes 0 to {rank - 1} (or -1 to {-rank}, from the end)")
    return axis % rank


def emit_scan(x: Value, axis: int, kind: str, reverse: bool = False) -> Value:
    if not x.type.is_tile:
        raise SemanticError("cannot scan a scalar", "scans take tiles")
    no_fp8(x, "scan")
    no_pointer(x, f"tl.cum{kind}")
    axis = axis_index(axis, len(x.shape))
    return emit("scan", [x], axis=axis, kind=kind, reverse=reverse)


# ----------------------------------------------------------------------------- the builtins


# --8<-- [start:reductions]
def _reduce(kind: str):
    def fn(input, axis=None, keep_dims=False):
        axis = _unwrap(axis)
        axis = None if axis is None else _const_int(axis, "the reduction axis")
        return tensor(emit_reduce(_value(input), axis, kind, bool(_unwrap(keep_dims))))
    return fn


@builtin(method=True)
def sum(input, axis=None, keep_dims=False, dtype=None) -> tensor:
    """The sum along `axis` (of everything when None); narrow integers are summed in 32 bits."""
    dtype = None if _unwrap(dtype) is None else _dtype(dtype)
    return _reduce("sum")(tensor(sum_dtype(_value(input), dtype)), axis, keep_dims)
# --8<-- [end:reductions]


def _extremum(kind: str, input, axis, return_indices, keep_dims):
    """max or min as Triton 3 has them: fp16/bf16 compared (and returned) as fp32 and narrow
    integers as int32; with the indices, only bf16 is widened."""
    if _unwrap(return_indices):
        x = tensor(semantic.promoted_bf16(_value(input)))
        return _reduce(kind)(x, axis, keep_dims), _reduce("arg" + kind)(x, axis, keep_dims)
    return _reduce(kind)(tensor(extremum_dtype(_value(input))), axis, keep_dims)


@builtin(method=True)
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _extremum("max", input, axis, return_indices, keep_dims)


@builtin(method=True)
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _extremum("min", input, axis, return_indices, keep_dims)


@builtin(method=True)
def argmax(input, axis, tie_break_left=True, keep_dims=False) -> tensor:
    return _reduce("argmax")(input, axis, keep_dims)


@builtin(method=True)
def argmin(input, axis, tie_break_left=True, keep_dims=False) -> tensor:
    return _reduce("argmin")(input, axis, keep_dims)


def _reduction(name: str, kind: str, method: bool):
    """A reduction builtin with no options but the axis: xor_sum, reduce_or, reduce_and, prod."""
    def fn(input, axis=None, keep_dims=False) -> tensor:
        return _reduce(kind)(input, axis, keep_dims)
    fn.__name__ = name
    return builtin(fn, method=method)


xor_sum, reduce_or, reduce_and, prod = (_reduction(name, kind, method=name != "prod") for name, kind in (
    ("xor_sum", "xor"), ("reduce_or", "or"), ("reduce_and", "and"), ("prod", "prod")))


@builtin(method=True)
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduce along `axis` with `combine_fn(a, b)`, a @jit function of two scalars. The frontend
    inlines the combine function as the reduction's region (`CodeGenerator.combine`)."""
    raise SemanticError("tl.reduce is compiled by the frontend; it cannot be called from here")


@builtin(method=True)
def associative_scan(input, axis, combine_fn, reverse=False):
    """The running `combine_fn` along `axis` (an inclusive scan), as tl.reduce does for reductions."""
    raise SemanticError("tl.associative_scan is compiled by the frontend; it cannot be called from here")


def _scan(x, axis, kind: str, reverse) -> tensor:
    return tensor(emit_scan(_value(x), _const_int(axis, "the scan axis"), kind, bool(_unwrap(reverse))))


@builtin(method=True)
def cumsum(input, axis=0, reverse=False, dtype=None) -> tensor:
    """Running sums along `axis`; narrow integers are summed in 32 bits, as by tl.sum, and bf16 in fp32."""
    dtype = None if _unwrap(dtype) is None else _dtype(dtype)
    x = semantic.promoted_bf16(_value(input)) if dtype is None else _value(input)
    return _scan(tensor(sum_dtype(x, dtype)), axis, "sum", reverse)


@builtin(method=True)
def cumprod(input, axis=0, reverse=False) -> tensor:
    return _scan(tensor(semantic.promoted_bf16(_value(input))), axis, "prod", reverse)
