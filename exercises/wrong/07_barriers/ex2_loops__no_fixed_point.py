"""Exercise 7.2, wrong on purpose: the loop body is walked once from the set before the loop, so
what one trip leaves pending never reaches the top of the next (the back edge).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/07_barriers/ex2_loops.py.
"""
from minitriton import ir


def _range(op: ir.Op):
    if "smem_bytes" not in op.attrs:
        return None
    return op.attrs["smem_offset"], op.attrs["smem_offset"] + op.attrs["smem_bytes"]


def walk(block: ir.Block, pending: set[tuple[int, int]], insert: bool) -> set[tuple[int, int]]:
    ops = []
    for op in block.ops:
        if op.name == "barrier":
            pending = set()
        elif op.name == "for":
            entry = set(pending)
            pending = entry | walk(op.regions[0], set(entry), insert)
        elif op.name == "if":
            pending = set().union(*(walk(region, set(pending), insert) for region in op.regions))
        mine = _range(op)
        if mine is not None:
            if any(mine[0] < end and start < mine[1] for start, end in pending) and insert:
                ops.append(ir.Op("barrier", [], []))
            pending = {mine}
        ops.append(op)
    if insert:
        block.ops = ops
    return pending
