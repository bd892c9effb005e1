"""Exercise 7.2, wrong on purpose: the set after a loop is only the body's end set, as if the
loop ran at least once.

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
            while True:
                end = walk(op.regions[0], set(entry), insert=False)
                if end <= entry:
                    break
                entry |= end
            pending = walk(op.regions[0], set(entry), insert)
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
