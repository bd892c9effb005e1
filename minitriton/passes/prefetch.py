"""Register prefetch: a loop's loads issued one iteration ahead, into registers the loop carries.

A loop that loads a tile and then computes with it waits for memory once an iteration: the
instructions that use the tile cannot issue before it lands, and the next iteration's loads come
after them. Where the pipeline (`passes/pipeline`) has no ring for the loads (they feed no dot),
this pass loads iteration i + 1's tiles at the top of iteration i, before the work on the tiles
of iteration i, which the loop carries in from the iteration before; the first tiles are loaded
before the loop. A load past the loop's end is masked off, as the pipeline's are.

It takes a `for` loop only where that cannot change what the loop computes or cost much:

- nothing in the body writes memory (a store there could write what the next iteration reads);
- the loop has no dot (the pipeline's business, and its registers are spoken for);
- each load's address and mask depend on the induction variable and on values from before the
  loop only (the pipeline clones such address arithmetic in the same way);
- the tiles held ahead take at most `PREFETCH_BYTES` of the block's registers: 32 a thread at 4
  warps, 8 at 16. A block of many warps has few registers a thread to spare; past them ptxas
  takes more, and fewer blocks fit on an SM (layer norm's 16384-column rows, 16 warps, one
  iteration a loop, lost a tenth of their speed to it);
- `num_stages` (the loop's, or the kernel's) is at least 2.

Triton leaves such loops as they are. Chapter: 10-performance.
"""
from __future__ import annotations

from .. import ir
from .pipeline import clone, drop_unread, emit, slice_of, writes_memory

PREFETCH_BYTES = 16 << 10  # of the block's registers, for the next iteration's tiles


# --8<-- [start:prefetch]
def prefetch(fn: ir.Function, num_stages: int, num_warps: int) -> ir.Function:
    """Load each eligible loop's tiles one iteration ahead (none with num_stages < 2)."""
    _block(fn.body, num_stages, PREFETCH_BYTES // (32 * num_warps))
    ir.verify(fn)
    return fn


def _block(block: ir.Block, stages: int, budget: int) -> None:
    """`budget`: the bytes of registers a thread may hold ahead."""
    ops = []
    for op in block.ops:
        for region in op.regions:
            _block(region, stages, budget)
        if op.name == "for" and op.attrs.get("num_stages", stages) >= 2:
            _loop(op, ops, budget)  # its prologue goes into `ops`, before it
        ops.append(op)
    block.ops = ops


def _loop(loop: ir.Op, out: list[ir.Op], budget: int) -> None:
    parts = ir.loop_parts(loop)
    body, (lb, ub, step), iv = parts.body, parts.bounds, parts.induction
    if not _worth_it(parts):
        return
    loads = _loads(body, set(map(id, parts.carried)), budget)
    if not loads:
        return
    computed = slice_of([load.result for load in loads], body, loads=True)
    # before the loop: the first iteration's tiles
    first = {id(iv): lb}
    clone(computed, first, out, emit(out, "cmp", [lb, ub], predicate="lt"))
    # at the top of the body: the next iteration's
    top: list[ir.Op] = []
    index = emit(top, "add", [iv, step])
    following = {id(iv): index}
    clone(computed, following, top, emit(top, "cmp", [index, ub], predicate="lt"))
    held = [ir.Value(load.result.type, layout=load.result.layout) for load in loads]
    replace = {id(load.result): value for load, value in zip(loads, held)}
    gone = {id(load) for load in loads}
    body.ops = top + [op for op in body.ops if id(op) not in gone]
    for op in ir.walk_block(body):
        op.operands = [replace.get(id(v), v) for v in op.operands]
    drop_unread(body.ops, {id(op) for op in computed})
    # the loop carries the tiles: in from before it, out to the next iteration
    body.args.extend(held)
    body.terminator.operands.extend(following[id(load.result)] for load in loads)
    loop.operands.extend(first[id(load.result)] for load in loads)
    extra = [ir.Value(load.result.type, loop, layout=load.result.layout) for load in loads]
    loop.results.extend(extra)


def _worth_it(parts: ir.LoopParts) -> bool:
    """A loop with a constant positive step, more than one iteration if its bounds are known, no dot
    and no write to memory in it."""
    step = parts.bounds[2].owner
    if step is None or step.name != "constant" or step.attrs["value"] <= 0:
        return False
    lb, ub = (v.owner for v in parts.bounds[:2])
    if lb is not None and ub is not None and lb.name == ub.name == "constant" \
            and ub.attrs["value"] - lb.attrs["value"] <= step.attrs["value"]:
        return False
    inside = list(ir.walk_block(parts.body))
    return not any(op.name == "dot" or writes_memory(op) for op in inside)


def _loads(body: ir.Block, carried: set[int], budget: int) -> list[ir.Op]:
    """The body's tile loads whose addresses read no carried value, in order, while their tiles fit
    in `budget` bytes of a thread's registers."""
    chosen, held = [], 0
    for op in body.ops:
        if op.name != "load" or not op.result.type.is_tile:
            continue
        computed = slice_of([op.result], body, loads=True)
        if computed is None or any(id(v) in carried for o in computed for v in o.operands):
            continue
        value = op.result
        size = value.layout.registers_per_thread(value.shape) * max(value.dtype.itemsize, 1)
        if held + size <= budget:
            held += size
            chosen.append(op)
    return chosen
# --8<-- [end:prefetch]
