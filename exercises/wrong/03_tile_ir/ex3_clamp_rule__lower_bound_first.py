"""Exercise 3.3, wrong on purpose: the bounds are tested one after the other, lo first, so where
lo > hi an element below lo gives lo instead of hi.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/03_tile_ir/ex3_clamp_rule.py.
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
    return np.where(x < lo, lo, np.where(x > hi, hi, x)).astype(op.result.dtype.np, copy=False)
