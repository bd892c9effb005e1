"""Shared memory: which ops need a buffer, and where in the kernel's shared memory it goes.

Reads tile IR with layouts. An op that moves elements between threads (a layout conversion, a
reduction across warps, a scan, a dot on CUDA cores) needs scratch space while it runs; codegen
answers how much (`passes.geometry.scratch_bytes`, which codegen's addressing also follows). Each buffer is live over an interval of the
program (here: the op itself); buffers whose intervals overlap get disjoint offsets, the others
share space, first fit. Sets `attrs["smem_offset"]` on each such op and `fn.attrs["shared_bytes"]`,
and raises `OutOfResources` when the kernel needs more than the device offers. Chapter: 06-shared-memory.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..errors import OutOfResources
from ..ir.ops import CHEAP, ELEMENTWISE
from ..layouts import SharedOperandLayout
from .geometry import scratch_bytes


# --8<-- [start:buffer]
@dataclass
class Buffer:
    """A shared-memory buffer: who uses it, its size, when it is live (op positions), and its
    offset."""

    op: ir.Op
    size: int
    start: int
    end: int
    offset: int = 0
    align: int = 16
    ring: str = ""  # the name of a pipeline ring (live over its loop), else "" (live over `op`)

    def __str__(self) -> str:
        return (f"{self.ring or self.op.name}: [{self.offset}, {self.offset + self.size}) "
                f"live {self.start}..{self.end}")
# --8<-- [end:buffer]


# --8<-- [start:liveness]
def _buffers(fn: ir.Function) -> list[Buffer]:
    """A buffer per op that needs one, live over the op itself; a wgmma operand stays live until
    its last reader (the dot whose tensor cores read it from shared memory), or, read in a loop
    it was made before, to that loop's end (every iteration reads it)."""
    ops = list(fn.walk())
    position_of = {id(op): position for position, op in enumerate(ops)}
    loops = [(position, position + sum(len(list(ir.walk_block(r))) for r in op.regions))
             for position, op in enumerate(ops) if op.name in ("for", "while")]
    last_use: dict[int, int] = {}
    for position, op in enumerate(ops):
        for v in op.operands:
            made = position_of.get(id(v.owner), -1)
            ends = [end for start, end in loops if start < position <= end and not start < made <= end]
            last_use[id(v)] = max([position] + ends)
    buffers = []
    for position, op in enumerate(ops):
        size = scratch_bytes(op)
        if size:  # a buffer of whole kilobytes holds swizzle atoms, which must start on one
            align = 1024 if size % 1024 == 0 else 16
            end = position
            if op.results and isinstance(op.results[0].layout, SharedOperandLayout):
                end = last_use.get(id(op.result), position)
            buffers.append(Buffer(op, (size + 15) // 16 * 16, position, end, align=align))
    return buffers + _rings(fn, ops)
# --8<-- [end:liveness]


# --8<-- [start:rings]
def _rings(fn: ir.Function, ops: list[ir.Op]) -> list[Buffer]:
    """The pipeline's rings (`fn.attrs["shared_buffers"]`), each live from the first copy into it
    to the wait after its loop (the ops that name it in `buffer` or `buffers`); the loop's body
    lies in between. They hold swizzle atoms, so they start on a kilobyte. A loop's mbarriers
    (`fn.attrs["mbarriers"]`: 8 bytes per stage) live the same way, from their arming to their end."""
    spans: dict[str, tuple[int, int, ir.Op]] = {}
    for position, op in enumerate(ops):
        names = [op.attrs["buffer"]] if "buffer" in op.attrs else op.attrs.get("buffers", [])
        for name in names:
            first, _, first_op = spans.get(name, (position, position, op))
            spans[name] = (first, position, first_op)
    sizes, barriers = fn.attrs.get("shared_buffers", {}), fn.attrs.get("mbarriers", {})
    buffers = []
    for name, (first, last, first_op) in spans.items():
        if name in barriers:  # 8 bytes each
            buffers.append(Buffer(first_op, (8 * barriers[name] + 15) // 16 * 16, first, last, ring=name))
        else:
            size = (sizes[name] + 1023) // 1024 * 1024
            buffers.append(Buffer(first_op, size, first, last, align=1024, ring=name))
    return buffers
# --8<-- [end:rings]


# --8<-- [start:early]
# What a store of a wgmma operand may move above: ops that compute in registers or read global memory.
_IN_REGISTERS = ELEMENTWISE | CHEAP | {"load"}


def store_operands_early(block: ir.Block) -> None:
    """Move each conversion to a wgmma operand (a store to shared memory) up to just after the op
    that makes its value, as long as only register arithmetic and global loads lie between them.
    The dot reads the operand from shared memory, so its registers are free as soon as it is
    stored, not at the dot: a loop loading A and B with plain loads (a grouped GEMM's unaligned
    rows) then holds one operand's tile in registers at a time, not both."""
    ops: list[ir.Op] = []
    for op in block.ops:
        for region in op.regions:
            store_operands_early(region)
        at = len(ops)
        if op.name == "convert_layout" and isinstance(op.result.layout, SharedOperandLayout):
            made = op.operands[0].owner
            while at and ops[at - 1] is not made and ops[at - 1].name in _IN_REGISTERS:
                at -= 1
            if not at or ops[at - 1] is not made:
                at = len(ops)  # made outside this block, or something else lies between: stays
        ops.insert(at, op)
    block.ops = ops
# --8<-- [end:early]


# --8<-- [start:allocate]
def allocate(buffers: list[Buffer]) -> int:
    """First fit by decreasing size: each buffer goes at the lowest offset that no buffer live at
    the same time occupies. Returns the total bytes needed."""
    placed: list[Buffer] = []
    for buf in sorted(buffers, key=lambda b: (-b.size, b.start)):
        offset = 0
        for other in sorted(placed, key=lambda b: b.offset):
            overlaps_in_time = other.start <= buf.end and buf.start <= other.end
            if overlaps_in_time and other.offset < offset + buf.size and offset < other.offset + other.size:
                offset = (other.offset + other.size + buf.align - 1) // buf.align * buf.align
        buf.offset = offset
        placed.append(buf)
    return max((b.offset + b.size for b in buffers), default=0)
# --8<-- [end:allocate]


# --8<-- [start:assign]
def assign_shared(fn: ir.Function, limit: int | None = None) -> list[Buffer]:
    """Place every scratch buffer of `fn`; `limit` is the device's shared memory per block. The
    stores of wgmma operands are first moved to where their values are made (`store_operands_early`)."""
    store_operands_early(fn.body)
    buffers = _buffers(fn)
    total = allocate(buffers)
    rings = {buf.ring: buf for buf in buffers if buf.ring}
    fn.attrs["buffer_offsets"] = {name: buf.offset for name, buf in rings.items()}
    long_lived = {id(buf.op.result): buf for buf in buffers if buf.end != buf.start and not buf.ring}
    for buf in buffers:  # a ring's first copy (before its loop) writes the whole ring, as far as
        # barriers go: space reused from before is waited for
        buf.op.attrs["smem_offset"] = buf.offset
        buf.op.attrs["smem_bytes"] = buf.size
    for op in fn.walk():  # the readers of a wgmma operand read its bytes too
        for v in op.operands:
            if id(v) in long_lived:
                buf = long_lived[id(v)]
                op.attrs.setdefault("smem_reads", []).append((buf.offset, buf.offset + buf.size))
        if "buffers" in op.attrs:  # the end of a loop's rings: what its last iterations read
            op.attrs["smem_reads"] = [(rings[n].offset, rings[n].offset + rings[n].size)
                                      for n in op.attrs["buffers"]]
    fn.attrs["shared_bytes"] = total
    if limit is not None and total > limit:
        raise OutOfResources(total, limit, "shared memory")
    return buffers
# --8<-- [end:assign]
