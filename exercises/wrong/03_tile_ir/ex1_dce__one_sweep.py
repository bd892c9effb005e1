"""Exercise 3.1, wrong on purpose: one sweep, no fixed point, so an op whose only reader was
removed in the same sweep stays.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/03_tile_ir/ex1_dce.py.
"""
from minitriton import ir
from minitriton.ir import EFFECTS


def remove_dead(fn: ir.Function) -> int:
    used = {id(v) for op in fn.walk() for v in op.operands}
    return _sweep(fn.body, used)


def _sweep(block: ir.Block, used: set[int]) -> int:
    removed, kept = 0, []
    for op in block.ops:
        for region in op.regions:
            removed += _sweep(region, used)
        if op.name not in EFFECTS and not any(id(r) in used for r in op.results):
            removed += 1
            continue
        kept.append(op)
    block.ops = kept
    return removed
