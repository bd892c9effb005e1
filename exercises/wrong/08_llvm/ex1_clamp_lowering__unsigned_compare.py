"""Exercise 8.1, wrong on purpose: int32 is compared unsigned, so a negative number counts as
huge (-7 is above 50).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/08_llvm/ex1_clamp_lowering.py.
"""
from minitriton import ir
from minitriton.codegen.lowering import f32, i32  # noqa: F401


def clamp_rule(lw, op: ir.Op, x: list, lo: list, hi: list) -> list:
    if op.operands[0].dtype.is_floating():
        return [lw.call("llvm.minimum.f32", f32, [lw.call("llvm.maximum.f32", f32, [v, low]), high])
                for v, low, high in zip(x, lo, hi)]
    out = []
    for v, low, high in zip(x, lo, hi):
        at_least = lw.b.select(lw.b.icmp_unsigned("<", v, low), low, v)
        out.append(lw.b.select(lw.b.icmp_unsigned(">", at_least, high), high, at_least))
    return out
