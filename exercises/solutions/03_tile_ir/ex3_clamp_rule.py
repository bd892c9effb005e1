"""Exercise 3.3 (a compiler piece): teach the interpreter a new op, `clamp`.

`%r = clamp %x, %lo, %hi` takes three operands of one type (three tiles of one shape, or three
scalars) and gives, per element, min(max(x, lo), hi). A NaN in x gives NaN (as numpy's
`maximum` and `minimum` do). Its typing rule, `clamp_type`, is written for you; the tests add it
to `ir.OPS` and your rule to `interpreter.RULES`, then build IR that uses the op and run it.

Write `clamp_rule(program, op, x, lo, hi)` in the style of the rules in `interpreter.RULES`: the
operands arrive as numpy values (arrays for tiles, numpy scalars for scalars) and the rule returns
the result's value, whose numpy dtype must be the result type's (`op.result.dtype.np`).
"""
import numpy as np

from minitriton import ir


def clamp_type(name: str, operands: list[ir.Value], attrs: dict) -> list[ir.Type]:
    """The typing rule: one type for all three operands, numbers only; the result has that type."""
    x, lo, hi = operands
    if not x.type == lo.type == hi.type:
        raise ir.VerificationError(f"{name}: operands must have one type, got {x.type}, {lo.type}, {hi.type}")
    if x.dtype.is_ptr():
        raise ir.VerificationError(f"{name}: cannot clamp pointers")
    return [x.type]


def clamp_rule(program, op: ir.Op, x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi).astype(op.result.dtype.np, copy=False)
