"""What a kernel tells the compiler, and what it prints: hints, assertions, prints, barriers.

`multiple_of`, `max_contiguous` and `max_constancy` are promises about index values that
coalescing (chapter 5) may rely on; `assume` is accepted and ignored. `static_print` and
`static_assert` act while the kernel is compiled; `device_print` and `device_assert` while it runs
(in the interpreter as on the GPU). Chapter: 02-frontend.
"""
from __future__ import annotations

import builtins

from . import semantic
from .core import _const, _const_int, _operand, _unwrap, _value, builtin, tensor
from .semantic import SemanticError


def _hint(name: str, fact: str, promise: str):
    """A hint builtin: the author promises `fact` (an AxisInfo fact, chapter 5) of `input`."""
    def fn(input, values) -> tensor:
        values = _unwrap(values)
        values = tuple(values) if isinstance(values, (list, tuple)) else (values,)
        return tensor(semantic.hint(_value(input), fact, tuple(_const_int(v, name) for v in values)))
    fn.__name__, fn.__doc__ = name, f"Promise the compiler that {promise}."
    fn.marks_its_input = True  # as in Triton, the promise is about `input` itself (see frontend/calls.py)
    return builtin(fn)


multiple_of = _hint("multiple_of", "divisibility", "each element (each run's start) is a multiple of `values`")
max_contiguous = _hint("max_contiguous", "contiguity", "runs of `values` elements are consecutive integers")
max_constancy = _hint("max_constancy", "constancy", "runs of `values` elements are equal")


@builtin
def device_print(prefix, *args, hex=False) -> None:
    """Print each element of each argument with its program id and index, as the kernel runs."""
    prefix = _unwrap(prefix)
    if not isinstance(prefix, str):  # print(x): no prefix, only values
        args, prefix = (prefix,) + args, ""
    semantic.device_print(prefix, [_value(a) for a in args], bool(_unwrap(hex)))


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False) -> None:
    """Print at compile time (constexprs and types, not runtime values)."""
    builtins.print(*(_unwrap(v) for v in values), sep=sep, end=end, flush=flush)


@builtin
def static_assert(cond, msg="") -> None:
    cond = _const(cond, "static_assert's condition")
    if not cond:
        raise SemanticError(f"static_assert failed: {_unwrap(msg)}" if msg else "static_assert failed",
                            "a tl.static_assert checks compile-time values (constexprs, shapes, dtypes) "
                            "while the kernel compiles")


@builtin
def device_assert(cond, msg="", mask=None) -> None:
    c = _value(cond)
    if _unwrap(mask) is not None:
        c = semantic.binary("or", c, semantic.unary("lnot", _value(mask)))
    msg = _unwrap(msg)
    if not isinstance(msg, str):
        raise SemanticError(f"device_assert's message must be a string, got {type(msg).__name__} {msg!r}",
                            "the message is fixed when the kernel compiles: give a string literal, and "
                            "tl.device_print the values")
    semantic.device_assert(c, msg)


@builtin
def debug_barrier() -> None:
    semantic.builder().create("barrier", [])


@builtin
def assume(cond) -> None:
    """A promise that `cond` holds (Triton uses it for optimization); nothing is checked or emitted."""
    _operand(cond)
