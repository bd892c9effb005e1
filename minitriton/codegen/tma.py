"""The tensor memory accelerator: a block of a descriptor copied by one thread, counted by an mbarrier.

On sm_90 a copy engine beside each multiprocessor moves a whole box of a tensor into shared memory
(`cp.async.bulk.tensor`): one thread issues it with the box's coordinates, and the engine works
out every address, skips what lies outside the tensor (it reads zeros there) and swizzles the
bytes as wgmma wants them. What it needs to know of the tensor (its address, shape, strides, the
box and the swizzle) is a 128-byte *tensor map* that the launch encodes on the host
(`driver.encode_tensormap`) and passes as a kernel parameter, after the arguments
(`Lowering.tensormaps`): a `byval` parameter marked `grid_constant`, so that the copy reads it
where it lies, in the parameter space, and LLVM does not copy it to the stack.

The copies of a pipelined loop (`passes/pipeline`) land in the stages of its rings. An mbarrier
per stage tells the threads when a stage is full: the issuing thread says how many bytes will
arrive (`mbarrier_expect`), the engine counts them down as they land, and the phase of the
barrier completes when all have; every thread waits for that phase (`mbarrier_wait`, with the
parity of the stage's use: it flips each time the loop wraps around the ring). The rest of the
ring's protocol (which stage, when it is read, by whom) is the pipeliner's, as for cp.async.
Chapter: 10-performance.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .lowering import Lowering, i32, i64
from .operands import stage_offset


def grid_constants(lw: Lowering) -> None:
    """Mark the tensor-map parameters `grid_constant` (1-based indices): read in place, never
    copied to local memory, so a TMA copy can be given their address."""
    if lw.tensormaps:
        first = len(lw.fn.args) + 1
        indices = lw.module.add_metadata([ll.Constant(i32, first + i) for i in range(len(lw.tensormaps))])
        lw.module.add_named_metadata("nvvm.annotations", [lw.kernel, ll.MetaDataString(lw.module, "grid_constant"),
                                                          indices])


def _address(lw: Lowering, name: str, stage, stage_bytes: int, extra: int = 0):
    """The shared address (32 bits, as shared pointers are: `ptx._initialize_llvm`) of stage
    `stage` of buffer `name`, plus `extra` bytes."""
    return lw.b.ptrtoint(lw.shared_ptr(stage_offset(lw, name, stage, stage_bytes, extra)), i32)


def _first_thread(lw: Lowering, go=None):
    """The predicate of the one thread that issues: thread 0 (and `go`, an i1)."""
    first = lw.b.icmp_unsigned("==", lw.tid, ll.Constant(i32, 0))
    return first if go is None else lw.b.and_(first, go)


def _mbarrier_init(lw: Lowering, op):
    """Thread 0 arms one mbarrier per stage, each expecting one arrival (its own, with the byte
    count); then everyone sees them. What threads did to shared memory before (possibly these
    bytes) is ordered before the copies, which go through another proxy."""
    lw.asm(ll.VoidType(), "fence.proxy.async.shared::cta;", "", [])
    first = _first_thread(lw)
    for stage in range(op.attrs["count"]):
        barrier = _address(lw, op.attrs["buffer"], ll.Constant(i32, stage), 8)
        lw.asm(ll.VoidType(), "@$0 mbarrier.init.shared::cta.b64 [$1], 1;", "b,r", [first, barrier])
    lw.asm(ll.VoidType(), "fence.mbarrier_init.release.cluster;", "", [])
    lw.barrier()


def _mbarrier_expect(lw: Lowering, op, stage, go):
    barrier = _address(lw, op.attrs["buffer"], stage[0], 8)
    lw.asm(ll.VoidType(), f"@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], {op.attrs['bytes']};",
           "b,r", [_first_thread(lw, go[0]), barrier])


# --8<-- [start:tma-load]
def _tma_load(lw: Lowering, op, stage, go, *corner):
    """The block at `corner` (row, column) into the stage, box by box: box j starts j boxes along
    the rows (the tensor map's inner dimension, TMA's x) and lands `stride` bytes after box j - 1."""
    B = lw.b
    copies = op.attrs["tma"]
    issue = _first_thread(lw, go[0])
    tensormap = B.ptrtoint(lw.tensormaps[op.attrs["tensormap"]], i64)
    barrier = _address(lw, op.attrs["barriers"], stage[0], 8)
    row, column = corner[0][0], corner[1][0]
    for j in range(copies.count):
        dst = _address(lw, op.attrs["buffer"], stage[0], op.attrs["stage_bytes"], j * copies.stride)
        x = B.add(column, ll.Constant(i32, j * copies.inner))
        lw.asm(ll.VoidType(), "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.tile"
               ".mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r",
               [issue, dst, tensormap, x, row, barrier])
# --8<-- [end:tma-load]


def _mbarrier_wait(lw: Lowering, op, stage, phase):
    """Every thread spins until the stage's phase of parity `phase` has completed: its bytes landed."""
    barrier = _address(lw, op.attrs["buffer"], stage[0], 8)
    lw.asm(ll.VoidType(), "{ .reg .pred done; waiting: mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1; "
           "@!done bra waiting; }", "r,r", [barrier, phase[0]])


def _mbarrier_inval(lw: Lowering, op):
    """Once every thread is past its last wait, thread 0 retires the mbarriers, so their bytes
    can be used for something else."""
    lw.barrier()
    first = _first_thread(lw)
    name, = op.attrs["buffers"]
    for stage in range(lw.fn.attrs["mbarriers"][name]):
        lw.asm(ll.VoidType(), "@$0 mbarrier.inval.shared::cta.b64 [$1];", "b,r",
               [first, _address(lw, name, ll.Constant(i32, stage), 8)])


RULES = {"mbarrier_init": _mbarrier_init, "mbarrier_expect": _mbarrier_expect, "tma_load": _tma_load,
         "mbarrier_wait": _mbarrier_wait, "mbarrier_inval": _mbarrier_inval}
