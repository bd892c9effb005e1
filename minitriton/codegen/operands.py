"""The tensor cores' operands in shared memory: ldmatrix, wgmma's canonical layout, cp.async rings.

A dot on tensor cores reads its operands from shared memory. For `mma.sync` each thread stores its
runs of an operand (16 bytes at once, swizzled so no read meets a bank conflict) and `ldmatrix`
loads the fragments the instruction wants; for `wgmma` the operand stays there, laid out as the
instruction reads it through a descriptor, and a thread's only "register" is the buffer's address.
In a pipelined loop (`passes/pipeline`) the operand arrives there straight from global memory:
`cp.async` copies each iteration's tile into a stage of a ring, and the loop reads the stage a few
iterations later. The layouts themselves are `passes/geometry`'s. Chapter: 10-performance.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from ..layouts import SharedOperandLayout
from ..passes import geometry
from .lowering import Lowering, f32, i32, i64, ll_type


# --8<-- [start:ldmatrix]
def _swizzled(lw: Lowering, shared, row, col, row_length: int):
    """Element offset of (row, col) in the swizzled buffer (`SharedLayout.offset`, in LLVM)."""
    B = lw.b
    c = lambda v: ll.Constant(i32, v)
    phase = B.urem(B.udiv(row, c(shared.per_phase)), c(shared.max_phase))
    chunk = B.xor(B.udiv(col, c(shared.vec)), phase)
    return B.add(B.mul(row, c(row_length)),
                 B.add(B.mul(chunk, c(shared.vec)), B.urem(col, c(shared.vec))))


def to_mma_operand(lw: Lowering, op, x) -> list:
    """Blocked registers -> shared memory (16-byte stores, swizzled) -> mma fragments (ldmatrix);
    a wgmma operand stays there, and its one "register" is the buffer's address."""
    src, dst = op.operands[0], op.result
    shared = geometry.ldmatrix_operand(op)
    base = ll.Constant(i32, op.attrs.get("smem_offset", 0))
    _store_operand(lw, src, x, shared, base)
    if isinstance(shared, geometry.WgmmaOperand):
        # tensor cores read what threads wrote
        lw.asm(ll.VoidType(), "fence.proxy.async.shared::cta;", "", [])
        lw.barrier()
        return [base]
    lw.barrier()
    return read_operand(lw, dst, shared, src.shape, base)


def _element_address(lw: Lowering, base, shared, row, col, shape, size: int = 2):
    """The address of element (row, col) of an operand tile of `shape` in its buffer: its lines
    run along the rows (`order` (1, 0)) or, for a K-major B or an M-major A, down the columns."""
    if isinstance(shared, geometry.WgmmaOperand):
        return lw.shared_ptr(lw.b.add(base, wgmma_byte_offset(lw, shared, row, col)))
    if shared.order[0] == 1:
        offset = _swizzled(lw, shared, row, col, shape[1])
    else:
        offset = _swizzled(lw, shared, col, row, shape[0])
    return lw.shared_ptr(lw.b.add(base, lw.b.mul(offset, ll.Constant(i32, size))))


def _runs(lw: Lowering, value: ir.Value, run: int):
    """(first register, its runtime index) of each run of `run` consecutive elements a thread
    holds."""
    indices = lw.indices(value.layout, value.shape)
    offsets = value.layout.register_offsets(value.shape)
    seen = set()
    for r in range(0, len(offsets), run):
        if tuple(offsets[r]) not in seen:
            seen.add(tuple(offsets[r]))
            yield r, indices[r]


def _store_operand(lw: Lowering, src: ir.Value, x: list, shared, base) -> None:
    """Each thread stores its runs of elements consecutive in the buffer, up to 16 bytes at once:
    along a row, or down a column of a K-major B (whose lines are B's columns)."""
    B = lw.b
    along = shared.line_dim if isinstance(shared, geometry.WgmmaOperand) else shared.order[0]
    run = min(src.layout.contig_per_thread(src.shape), shared.vec, 128 // src.dtype.bits) \
        if src.layout.order[0] == along else 1
    for r, (row, col) in _runs(lw, src, run):
        vector = ll.VectorType(x[r].type, run)
        packed = ll.Constant(vector, None)
        for k in range(run):
            packed = B.insert_element(packed, x[r + k], ll.Constant(i32, k))
        B.store(packed, _element_address(lw, base, shared, row, col, src.shape, src.dtype.itemsize),
                align=src.dtype.itemsize * run)


def read_operand(lw: Lowering, dst: ir.Value, shared, shape, base) -> list:
    """ldmatrix: lane l gives the address of row l % 8 of 8x8 matrix l // 8 of each fragment.
    A buffer whose lines run along K (A's rows, a K-major B's columns) is read as it lies, and
    one whose lines run across K (an N-major B, an M-major A) transposed (`.trans`): either way
    each thread gets its fragment's pairs along K. A 32-bit (tf32) fragment is read an element at
    a time."""
    B = lw.b
    layout = dst.layout
    if dst.dtype.bits == 32:  # no ldmatrix of 32-bit elements: each thread reads its own
        return [B.load(_element_address(lw, base, shared, row, col, shape, 4), typ=ll_type(dst.dtype))
                for row, col in lw.indices(layout, dst.shape)]
    warp_part = [ll.Constant(i32, 0), ll.Constant(i32, 0)]
    for f in layout.warp_fields(dst.shape):
        bits = B.and_(B.lshr(lw.warp, ll.Constant(i32, f.shift)), ll.Constant(i32, (1 << f.width) - 1))
        warp_part[f.dim] = B.or_(warp_part[f.dim], B.mul(bits, ll.Constant(i32, f.scale)))
    lane = lw.lane
    within = B.and_(lane, ll.Constant(i32, 7))
    second = B.and_(B.lshr(lane, ll.Constant(i32, 3)), ll.Constant(i32, 1))
    third = B.lshr(lane, ll.Constant(i32, 4))
    reg_offsets = layout.register_offsets(dst.shape)
    # elements in each 32-bit word ldmatrix loads: 2 (16-bit), 4 (8-bit A)
    per_word = layout.k_width
    matrix_k = 4 * per_word  # one 8 x 8 matrix of b16 is 8 rows of 16 bytes: 8 or 16 elements of K
    # registers per m16k(2*matrix_k) (A) or k16n8 (B) fragment
    size = 4 * per_word if layout.op_idx == 0 else 4
    bits = ll.IntType(32 // per_word)
    out = [None] * len(reg_offsets)
    for start in range(0, len(reg_offsets), size):
        r0, c0 = reg_offsets[start]
        r0 = B.add(warp_part[0], ll.Constant(i32, r0))
        c0 = B.add(warp_part[1], ll.Constant(i32, c0))
        eight = B.mul(second, ll.Constant(i32, 8))
        along_k = shared.order[0] == 1 - layout.op_idx  # the buffer's lines run along K
        trans = "" if along_k else ".trans"
        # A: matrices (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15), in b16; lane l
        # names the start of line l % 8 of matrix l // 8: a row of 8 k, or (M-major) a k of 8 rows
        if layout.op_idx == 0:
            k = B.mul(third, ll.Constant(i32, matrix_k))
            row, col = (B.add(r0, B.add(within, eight)), B.add(c0, k)) if along_k else \
                (B.add(r0, eight), B.add(c0, B.add(k, within)))
            text, count = f"ldmatrix.sync.aligned.m8n8.x4{trans}.shared.b16 {{$0,$1,$2,$3}}, [$4];", 4
        else:  # B: matrices (k 0-7, n 0-7), (k 8-15, n 0-7): k-rows of 8 n, or (K-major) n-lines of 8 k
            row, col = (B.add(r0, eight), B.add(c0, within)) if along_k else \
                (B.add(r0, B.add(within, eight)), c0)
            text, count = f"ldmatrix.sync.aligned.m8n8.x2{trans}.shared.b16 {{$0,$1}}, [$2];", 2
        address = _element_address(lw, base, shared, row, col, shape, dst.dtype.itemsize)
        pointer = B.ptrtoint(address, i32)  # shared pointers are 32 bits wide
        result = lw.asm(ll.LiteralStructType([i32] * count), text, ",".join(["=r"] * count + ["r"]),
                        [pointer])
        for w in range(count):
            word = B.extract_value(result, w)
            for part in range(per_word):
                element = B.trunc(B.lshr(word, ll.Constant(i32, bits.width * part)), bits)
                out[start + per_word * w + part] = element if ll_type(dst.dtype) == bits \
                    else B.bitcast(element, ll_type(dst.dtype))
    return out


# -- the pipelined form: cp.async into a ring of stages, ldmatrix out of it ---------------------------

def stage_offset(lw: Lowering, buffer: str, stage, stage_bytes: int, extra: int = 0):
    """The shared-memory offset (i32 bytes) of stage `stage` of the ring (or mbarriers) `buffer`,
    plus `extra` bytes."""
    offset = lw.fn.attrs["buffer_offsets"][buffer] + extra
    return lw.b.add(ll.Constant(i32, offset), lw.b.mul(stage, ll.Constant(i32, stage_bytes)))


def _stage_base(lw: Lowering, op, stage):
    return stage_offset(lw, op.attrs["buffer"], stage, op.attrs["stage_bytes"])


def _async_load(lw: Lowering, op, ptrs, mask, stage):
    """cp.async each thread's runs straight from global into the swizzled stage; masked runs fill
    zeros. A load of the operand's transpose (`perm`) puts its element (i, j) at the operand's
    (j, i)."""
    B = lw.b
    src = op.operands[0]
    shared, run = op.attrs["shared"], op.attrs["run"]
    transposed = tuple(op.attrs.get("perm", (0, 1))) == (1, 0)
    base = _stage_base(lw, op, stage[0])
    element = src.dtype.pointee.itemsize
    size = element * run
    kind = "cg" if size == 16 else "ca"
    for r, (row, col) in _runs(lw, src, run):
        row, col = (col, row) if transposed else (row, col)
        shape = src.shape[::-1] if transposed else src.shape  # the operand's
        address = _element_address(lw, base, shared, row, col, shape, element)
        dst = B.ptrtoint(address, i32)
        copied = B.select(mask[r], ll.Constant(i32, size), ll.Constant(i32, 0))
        lw.asm(ll.VoidType(), f"cp.async.{kind}.shared.global [$0], [$1], {size}, $2;", "r,l,r",
               [dst, ptrs[r], copied])


def _async_commit(lw: Lowering, op):
    lw.asm(ll.VoidType(), "cp.async.commit_group;", "", [])


def _async_wait(lw: Lowering, op):
    lw.asm(ll.VoidType(), f"cp.async.wait_group {op.attrs['pending']};", "", [])
    # the copies are read next by the tensor cores (wgmma), not by threads
    if op.attrs.get("fence"):
        lw.asm(ll.VoidType(), "fence.proxy.async.shared::cta;", "", [])


def _local_read(lw: Lowering, op, stage):
    # read where it is, by wgmma or the FMA dot
    if isinstance(op.result.layout, SharedOperandLayout):
        return [_stage_base(lw, op, stage[0])]
    return read_operand(lw, op.result, op.attrs["shared"], op.result.shape,
                        _stage_base(lw, op, stage[0]))
# --8<-- [end:ldmatrix]


# --8<-- [start:tf32]
def tf32(lw: Lowering, x):
    """An fp32 register cut to tf32 as the tensor cores cut their operands (`floats.round_to_tf32`:
    the 13 low bits cleared). Only the FMA dot needs it: mma.sync and wgmma are given the fp32
    bits as they are, in registers or copied into shared memory, and cut them themselves."""
    bits = lw.b.and_(lw.b.bitcast(x, i32), ll.Constant(i32, 0xFFFFE000))
    return lw.b.bitcast(bits, f32)
# --8<-- [end:tf32]


# --8<-- [start:wgmma-address]
def wgmma_byte_offset(lw: Lowering, shared: geometry.WgmmaOperand, row, col):
    """The byte offset of (row, col) in a wgmma operand's buffer (`geometry.WgmmaOperand`)."""
    B = lw.b
    c = lambda v: ll.Constant(i32, v)
    if shared.k_major:
        line, k = (row, col) if shared.op_idx == 0 else (col, row)
        per_block = shared.row_bytes * 8 // shared.bits  # elements of K in one block
        block, k = (B.udiv(k, c(per_block)), B.urem(k, c(per_block))) if shared.line_bytes > 128 else (c(0), k)
        phase = B.urem(B.udiv(line, c(shared.per_phase)), c(shared.max_phase))
        chunk = B.xor(B.udiv(k, c(shared.vec)), phase)
        within = B.add(B.mul(line, c(shared.row_bytes)),
                       B.add(B.mul(chunk, c(16)), B.mul(B.urem(k, c(shared.vec)), c(shared.bits // 8))))
        return within if shared.line_bytes <= 128 else B.add(B.mul(block, c(shared.block_bytes)), within)
    k, line = (row, col) if shared.op_idx == 1 else (col, row)  # an N-major B; an M-major A
    atom = B.udiv(line, c(64))
    chunk = B.xor(B.udiv(B.urem(line, c(64)), c(8)), B.urem(k, c(8)))
    within = B.add(B.mul(k, c(128)), B.add(B.mul(chunk, c(16)), B.mul(B.urem(line, c(8)), c(2))))
    return B.add(B.mul(atom, c(shared.k_length * 128)), within)


def wgmma_descriptor(lw: Lowering, shared: geometry.WgmmaOperand, address):
    """The 64-bit matrix descriptor of the operand starting at shared `address` (bytes)."""
    B = lw.b
    start = B.lshr(B.and_(B.zext(address, i64), ll.Constant(i64, 0x3FFFF)), ll.Constant(i64, 4))
    return B.or_(start, ll.Constant(i64, shared.descriptor_bits()))
# --8<-- [end:wgmma-address]


RULES = {"async_load": _async_load, "async_commit": _async_commit, "async_wait": _async_wait,
         "local_read": _local_read}
