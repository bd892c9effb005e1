"""Exercise mode: a piece of the compiler that the reader wrote runs in place of the compiler's own.

The book's exercises (`exercises/`) ask the reader to write pieces of minitriton: dead-code
elimination, the owner of an element, the width of an access, the barrier walk. Where the compiler
has the same piece, its function is marked where it is defined, in one line:

    @replaceable("coalesce.vector_width")
    def vector_width(contiguity, divisibility, mask_constancy, element_bytes, numel, num_warps): ...

and `use({"coalesce.vector_width": theirs})` installs the reader's function for the length of a
`with` block: every compile inside it calls theirs instead, so their rule decides the PTX, the
barriers, the figure. The exercise tests do this with the reader's file. Nothing is installed by
default; a replaceable function then costs one dictionary lookup more per call.

A kernel compiled while anything is installed is kept apart: the JIT's key includes `installed()`,
and the disk cache is neither read nor written, so a reader's piece never serves a compile without
it, nor the other way round. Chapter: the exercises of chapters 2 to 8 (index.md says how).
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator

POINTS: dict[str, Callable] = {}  # every replaceable piece: name -> the compiler's own function
_installed: dict[str, Callable] = {}


def replaceable(name: str) -> Callable[[Callable], Callable]:
    """Mark the compiler's function as the piece `name`, which `use` may replace."""
    def mark(function: Callable) -> Callable:
        assert name not in POINTS, f"two pieces are named {name!r}"
        POINTS[name] = function

        @functools.wraps(function)
        def piece(*args, **kwargs):
            return _installed.get(name, function)(*args, **kwargs)
        return piece
    return mark


def installed() -> tuple[tuple[str, Callable], ...]:
    """The pieces installed now, as (name, function) sorted by name; () when none is."""
    return tuple(sorted(_installed.items()))


@contextlib.contextmanager
def use(functions: dict[str, Callable]) -> Iterator[None]:
    """Install `functions` (name -> the reader's function) for the length of the `with` block."""
    unknown = sorted(set(functions) - set(POINTS))
    if unknown:
        raise ValueError(f"no piece of the compiler is named {', '.join(unknown)}; "
                         f"the replaceable ones are {', '.join(sorted(POINTS))}")
    saved = dict(_installed)
    _installed.update(functions)
    try:
        yield
    finally:
        _installed.clear()
        _installed.update(saved)
