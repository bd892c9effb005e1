"""The data of tile IR: types, values, ops, blocks, functions, and how to walk them.

A kernel becomes one `Function`: a block of `Op`s in SSA form. Every `Value` has a `Type`: a shape
(empty for a scalar) and an element `DType` (which may be a pointer; see `dtypes`). Ops work on
whole tiles at once; nothing here says which thread holds which element: that is the layout pass's
job, which sets `Value.layout`. Loops and branches are ops with regions (`for`, `if`, `while`) whose
blocks end in a `yield` (a while loop's first block in a `condition`); `loop_parts` names the
pieces of a loop. Chapter: 03-tile-ir.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from ..dtypes import DType
from ..errors import Loc


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

    `name` is a hint for the printer (a kernel argument's name). `layout` stays None until the
    layout pass says which thread holds which element.
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
    """A list of ops run in order, with arguments (a loop body's induction variable and carried
    values)."""

    args: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)

    @property
    def terminator(self) -> Op | None:
        return self.ops[-1] if self.ops and self.ops[-1].name == "yield" else None


@dataclass(eq=False)
class Op:
    """One operation: `results = name(operands) {attrs}`, with nested `regions` for control flow.
    `attrs` are compile-time data: the frontend's (an axis, a predicate) and, later, what the
    passes decide about the op (`ir.attrs.ATTRS` lists every key)."""

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
    # what the passes decide for the whole kernel
    attrs: dict[str, Any] = field(default_factory=dict)

    def walk(self) -> Iterator[Op]:
        """Every op, in program order, nested regions included (an op comes before its regions'
        ops)."""
        yield from walk_block(self.body)
# --8<-- [end:value]


def walk_block(block: Block) -> Iterator[Op]:
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from walk_block(region)


def is_zero(v: Value | None) -> bool:
    """Whether `v` is the constant 0 (or a tile of it: a splat or broadcast of one), as a dot's
    accumulator is when the kernel gave none; None counts as zero too."""
    if v is None:
        return True
    op = v.owner
    while op is not None and op.name in ("splat", "broadcast", "convert_layout"):
        op = op.operands[0].owner
    return op is not None and op.name == "constant" and op.attrs["value"] == 0


# --8<-- [start:loop-parts]
@dataclass(frozen=True)
class LoopParts:
    """The pieces of a `for` or `while` op. A carried value enters as `inits[i]`, is `carried[i]`
    inside the body, comes back as `yielded[i]` and leaves as `results[i]`. A `for` also has its
    `bounds` (lower, upper, step) and `induction` variable (the body's first argument); a `while`'s
    `body` is its second region (the first computes the condition from the same values)."""

    inits: list[Value]
    carried: list[Value]
    yielded: list[Value]
    results: list[Value]
    body: Block
    bounds: tuple[Value, Value, Value] | None = None
    induction: Value | None = None


def loop_parts(op: Op) -> LoopParts:
    """The parts of a loop op (see `LoopParts`)."""
    body = op.regions[-1]
    if op.name == "for":
        lower, upper, step, *inits = op.operands
        return LoopParts(inits, body.args[1:], body.terminator.operands, op.results, body,
                         (lower, upper, step), body.args[0])
    assert op.name == "while", f"loop_parts of a {op.name} op"
    return LoopParts(list(op.operands), body.args, body.terminator.operands, op.results, body)
# --8<-- [end:loop-parts]
