"""The reference's values: what a kernel variable holds in every program, and how sure we are of it.

A `Value` is a kernel variable and its reference: `ref`, an array `(P, *shape)` in the holder type
of its dtype (`rules.DType.holder`); `err`, where the value is not exactly defined by the rules (an
approximate math function, fp32 `/`, a float sum in an unspecified order), an absolute bound on how
far a correct result may be from `ref` (None: it must be equal, bit for bit but for the sign of a
zero); and `defined`, the lanes whose value the rules define at all (a masked load without `other=`
leaves its masked lanes undefined). A `Literal` is a Python number
written into the source: Triton types it weakly (`rules.computation_type`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import rules
from .rules import DType


@dataclass
class Value:
    name: str
    dtype: DType
    shape: tuple[int, ...]
    ref: np.ndarray
    err: np.ndarray | None = None
    defined: np.ndarray | None = None  # None: every lane
    leaf: bool = False  # the bits of input data, untouched (a bitcast of it is defined)
    product: bool = False  # an fp32 `*`: an add or subtract reading it alone may fuse it into an fma

    @property
    def exact(self) -> bool:
        return self.err is None

    def defined_lanes(self) -> np.ndarray:
        return np.ones(self.ref.shape, bool) if self.defined is None else self.defined


@dataclass(frozen=True)
class Literal:
    value: int | float | bool

    @property
    def name(self) -> str:
        v = self.value
        if isinstance(v, float):
            return repr(v) if np.isfinite(v) else f'float("{v}")'
        return repr(v)

    @property
    def dtype(self) -> DType:
        return rules.literal_type(self.value)

    shape = ()


Operand = Value | Literal


def holder_of(operand: Operand, target: DType, programs: int, weak: bool = True) -> np.ndarray:
    """An operand's reference converted to `target`. A weak literal is converted straight from the
    Python number (scalar_constant); any other first becomes a tensor of its own type (to_tensor,
    as tl.maximum, tl.fma and load's `other` take one) and is then cast."""
    if isinstance(operand, Literal):
        v = operand.value
        if not weak and operand.dtype != target:
            return rules.cast(holder_of(operand, operand.dtype, programs), operand.dtype, target)
        if target.is_float:
            x = rules.int_to_float(np.array([int(v)]), rules.I64, target) if isinstance(v, (bool, int)) \
                else rules.round_float(np.array([v], np.float64), target)
        else:
            x = np.array([v]).astype(target.holder)
        return np.broadcast_to(x, (programs,))
    return rules.cast(operand.ref, operand.dtype, target)


def expand(x: np.ndarray, ndim: int) -> np.ndarray:
    """(P, *shape) with ones put in front of `shape` up to `ndim` dimensions, for broadcasting as
    Triton does (it aligns the last dimensions)."""
    shape = x.shape[1:]
    return x.reshape((x.shape[0],) + (1,) * (ndim - len(shape)) + shape)


def broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def ulp_bound(x: np.ndarray, t: DType) -> np.ndarray:
    """Two roundings to the float type `t` at x (the reference's and the result's, each half an
    ulp), plus a subnormal's spacing: what an approximate value may gain in one rounded op."""
    spacing = 2.0 ** {"float16": -24, "bfloat16": -133, "float32": -149, "float64": -1074}[t.name]
    with np.errstate(all="ignore"):
        return np.abs(np.asarray(x, np.float64)) * 2 * rules.unit_roundoff(t) + 2 * spacing


def error_of(v: Operand, ndim: int) -> np.ndarray | float:
    if isinstance(v, Literal) or v.err is None:
        return 0.0
    return expand(v.err, ndim)


def defined_of(operands: list[Operand], shape: tuple[int, ...], programs: int) -> np.ndarray | None:
    masks = [expand(o.defined, len(shape)) for o in operands if isinstance(o, Value) and o.defined is not None]
    if not masks:
        return None
    return np.broadcast_to(np.logical_and.reduce(np.broadcast_arrays(*masks)), (programs,) + shape).copy()
