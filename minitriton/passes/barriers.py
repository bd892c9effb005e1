"""Barriers: a `bar.sync` exactly where one thread's shared-memory access could race another's.

Reads tile IR whose shared-memory ops have buffers (`passes/shared`). Each such op writes its
buffer, waits at a barrier of its own, then reads it back: inside one op there is no race. Between
ops there can be: a later op writing bytes that an earlier op's threads may still be reading (or
writing). The pass walks the program in order with the set of accesses made since the last barrier;
before an op whose writes overlap one of them it inserts a `barrier` op. Loops are walked until the
set at the top of the body stops changing, so the back edge (the next iteration overwriting what
this one read) is covered too. Chapter: 07-barriers.
"""
from __future__ import annotations

from .. import ir
from ..exercise_hooks import replaceable

# --8<-- [start:range]
# a byte range [start, end) of shared memory, read or written since the last barrier
Access = tuple[int, int]


def _range(op: ir.Op) -> Access | None:
    if "smem_bytes" not in op.attrs:
        return None
    return op.attrs["smem_offset"], op.attrs["smem_offset"] + op.attrs["smem_bytes"]


def _overlaps(a: Access, pending: set[Access]) -> bool:
    return any(a[0] < b[1] and b[0] < a[1] for b in pending)
# --8<-- [end:range]


# --8<-- [start:walk]
@replaceable("barriers.walk")
def _walk(block: ir.Block, pending: set[Access], insert: bool) -> set[Access]:
    """Flow the set of unsynchronized accesses through `block`; insert barriers if `insert`."""
    new_ops = []
    for op in block.ops:
        if op.name == "barrier":
            pending = set()
        if op.name == "for" or op.name == "while":
            pending = _loop(op, pending, insert)
        elif op.name == "if":
            ends = [_walk(region, set(pending), insert) for region in op.regions]
            pending = set().union(*ends)
        buffer = _range(op)
        if buffer is not None:
            if _overlaps(buffer, pending):
                if insert:
                    new_ops.append(ir.Op("barrier", [], [], {}, [], op.loc))
                pending = set()
            if op.name in ("async_load", "tma_load"):  # a ring's first copy: no barrier of its own, and its
                pending = pending | {buffer}  # writes land whenever, so nothing before is ordered
            else:
                pending = {buffer}  # the op's own barrier orders its writes; its reads stay pending
        pending |= set(op.attrs.get("smem_reads", ()))  # e.g. wgmma reading its operands
        new_ops.append(op)
    if insert:
        block.ops = new_ops
    return pending


def _loop(op: ir.Op, pending: set[Access], insert: bool) -> set[Access]:
    """The body runs again after itself: iterate to a fixed point, then insert once."""
    entry = set(pending)
    while True:
        end = entry
        for region in op.regions:  # a while loop's `before` region runs, then its `after` region
            end = _walk(region, set(end), insert=False)
        if end <= entry:
            break
        entry |= end
    end = entry
    for region in op.regions:
        end = _walk(region, set(end), insert)
    return entry | end  # the loop may run zero times: what was pending before still is
# --8<-- [end:walk]


def insert_barriers(fn: ir.Function) -> ir.Function:
    _walk(fn.body, set(), insert=True)
    ir.verify(fn)
    return fn
