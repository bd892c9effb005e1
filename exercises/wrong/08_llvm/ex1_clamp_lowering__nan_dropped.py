"""Exercise 8.1, wrong on purpose: `llvm.maxnum` and `llvm.minnum` return the other operand when
one is NaN, so clamp(NaN) gives lo.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/08_llvm/ex1_clamp_lowering.py.
"""
from minitriton import ir
from minitriton.codegen.lowering import f32, i32  # noqa: F401


def clamp_rule(lw, op: ir.Op, x: list, lo: list, hi: list) -> list:
    if op.operands[0].dtype.is_floating():
        return [lw.call("llvm.minnum.f32", f32, [lw.call("llvm.maxnum.f32", f32, [v, low]), high])
                for v, low, high in zip(x, lo, hi)]
    out = []
    for v, low, high in zip(x, lo, hi):
        at_least = lw.b.select(lw.b.icmp_signed("<", v, low), low, v)
        out.append(lw.b.select(lw.b.icmp_signed(">", at_least, high), high, at_least))
    return out
