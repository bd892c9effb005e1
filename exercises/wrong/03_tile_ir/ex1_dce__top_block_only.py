"""Exercise 3.1, wrong on purpose: only the function's top block is swept, not the regions nested
in its ops.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/03_tile_ir/ex1_dce.py.
"""
from minitriton import ir
from minitriton.ir import EFFECTS


def remove_dead(fn: ir.Function) -> int:
    removed = 0
    while True:
        used = {id(v) for op in fn.walk() for v in op.operands}
        kept = [op for op in fn.body.ops if op.name in EFFECTS or any(id(r) in used for r in op.results)]
        swept = len(fn.body.ops) - len(kept)
        fn.body.ops = kept
        if not swept:
            return removed
        removed += swept
