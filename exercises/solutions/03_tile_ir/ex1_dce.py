"""Exercise 3.1 (a compiler piece): dead-code elimination over tile IR.

The reference solution. The task, in full, is in exercises/03_tile_ir/ex1_dce.py.
"""
from minitriton import ir
from minitriton.ir import EFFECTS


def remove_dead(fn: ir.Function) -> int:
    removed = 0
    while True:
        used = {id(v) for op in fn.walk() for v in op.operands}
        swept = _sweep(fn.body, used)
        if not swept:
            return removed
        removed += swept


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
