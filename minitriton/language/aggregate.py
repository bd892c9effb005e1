"""Aggregates: values made of other values, as tuples, block pointers and tensor descriptors are.

A kernel being compiled holds tensors (handles on IR values), compile-time Python values, and
values made of others: a tuple (a namedtuple too) of any of them; a block pointer, which is a base
pointer, a shape, strides and offsets, plus a block shape and an order fixed at compile time; a
tensor descriptor. The kernel reaches into an aggregate as Python reaches into any object. Only
where the IR needs a flat list of values (the results of an `if`, the values a loop carries, the
arguments of a kernel) does the frontend take one apart: `flatten` gives its *structure*, what is
fixed at compile time, and its *leaves*, the tensors and numbers in it, in order; `rebuild` puts
it back together from the region's values. Two values can meet in one region only if their
structures are equal. Chapter: 02-frontend.
"""
from __future__ import annotations

import builtins
import dataclasses
from dataclasses import dataclass
from typing import Any, Iterator

from .core import tensor

# `tl.tuple`: a kernel's tuples are Python's, whatever they hold.
tuple = builtins.tuple


def static(**kwargs):
    """A field of an aggregate class that is fixed at compile time (a block shape, an order)."""
    return dataclasses.field(metadata={"static": True}, **kwargs)


class aggregate:
    """The base of the language's aggregate classes: frozen dataclasses whose fields are values
    (tensors, tuples of them...), except the fields made with `static()`."""


def _fields(cls) -> builtins.tuple[list[str], list[str]]:
    """(the names of an aggregate class's value fields, those of its static fields)."""
    every = dataclasses.fields(cls)
    return [f.name for f in every if not f.metadata.get("static")], [f.name for f in every if f.metadata.get("static")]


# --8<-- [start:structure]
LEAF = "leaf"  # a tensor or a number: what a region carries
CONSTANT = "constant"  # anything else: fixed at compile time


@dataclass(frozen=True)
class Structure:
    """What `flatten` keeps of a value besides its leaves: its kind (LEAF, CONSTANT, a tuple or list
    class, an aggregate class), what is fixed (a constant's value, an aggregate's static fields),
    and the structures of its parts, with their names (`[0]`, `.offsets`) for messages."""

    kind: Any
    fixed: Any = None
    parts: builtins.tuple[Structure, ...] = ()
    names: builtins.tuple[str, ...] = ()

    def __eq__(self, other) -> bool:
        return isinstance(other, Structure) and self.kind is other.kind and self.names == other.names \
            and same_constant(self.fixed, other.fixed) and self.parts == other.parts

    __hash__ = None

    def paths(self, prefix: str = "") -> Iterator[str]:
        """The path of each leaf, in order (`[1]`, `.offsets[0]`): how a message names it."""
        if self.kind == LEAF:
            yield prefix
        for name, part in zip(self.names, self.parts):
            yield from part.paths(prefix + name)

    def __str__(self) -> str:
        if self.kind == LEAF:
            return "a tensor or a number"
        if self.kind == CONSTANT:
            return repr(self.fixed)
        if issubclass(self.kind, aggregate):
            fixed = ", ".join(f"{n}={v!r}" for n, v in zip(_fields(self.kind)[1], self.fixed))
            return f"a {self.kind.__name__}({fixed})"
        return f"a {self.kind.__name__} of {len(self.parts)}"


def flatten(value) -> builtins.tuple[Structure, list]:
    """(the structure of `value`, its leaves in order)."""
    leaves: list = []
    return _take_apart(value, leaves), leaves


def _take_apart(value, leaves: list) -> Structure:
    if isinstance(value, (tensor, bool, int, float)):
        leaves.append(value)
        return Structure(LEAF)
    if isinstance(value, (builtins.tuple, list)):
        parts = builtins.tuple(_take_apart(v, leaves) for v in value)
        return Structure(type(value), None, parts, builtins.tuple(f"[{i}]" for i in range(len(value))))
    if isinstance(value, aggregate):
        names, fixed = _fields(type(value))
        parts = builtins.tuple(_take_apart(getattr(value, n), leaves) for n in names)
        return Structure(type(value), builtins.tuple(getattr(value, n) for n in fixed), parts,
                         builtins.tuple(f".{n}" for n in names))
    return Structure(CONSTANT, value)


def rebuild(structure: Structure, leaves: list):
    """The value of `structure` whose leaves are `leaves` (the inverse of `flatten`)."""
    remaining = iter(leaves)
    value = _put_together(structure, remaining)
    assert next(remaining, None) is None, "rebuild was given more leaves than the structure holds"
    return value


def _put_together(structure: Structure, leaves: Iterator):
    kind = structure.kind
    if kind == LEAF:
        return next(leaves)
    if kind == CONSTANT:
        return structure.fixed
    parts = [_put_together(p, leaves) for p in structure.parts]
    if issubclass(kind, aggregate):
        names, fixed = _fields(kind)
        return kind(**dict(zip(names, parts)), **dict(zip(fixed, structure.fixed)))
    # a namedtuple, or a tuple or list
    return kind(*parts) if hasattr(kind, "_fields") else kind(parts)
# --8<-- [end:structure]


def same_constant(a, b) -> bool:
    """Whether two compile-time values are one: equal values of one type (the same object, for
    values that do not compare)."""
    try:
        return a is b or type(a) is type(b) and bool(a == b)
    except Exception:
        return False
