"""Exercise 7.1, wrong on purpose: after an op with a range, its range joins the pending set
instead of replacing it (the op's own barrier ordered everything before it).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/07_barriers/ex1_straight_line.py.
"""
from minitriton import ir


def insert_barriers(block: ir.Block) -> int:
    pending: set[tuple[int, int]] = set()
    ops, inserted = [], 0
    for op in block.ops:
        if op.name == "barrier":
            pending = set()
        if "smem_bytes" in op.attrs:
            start = op.attrs["smem_offset"]
            mine = (start, start + op.attrs["smem_bytes"])
            if any(mine[0] < end and begin < mine[1] for begin, end in pending):
                ops.append(ir.Op("barrier", [], []))
                inserted += 1
            pending.add(mine)
        ops.append(op)
    block.ops = ops
    return inserted
