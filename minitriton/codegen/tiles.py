"""Lowering the ops that move elements between threads: conversions, reductions, scans, dot.

Each rule first asks whether the move stays inside every thread: if the destination layout's lanes
and warps index the same elements as the source's (`register_map`), the op is a renumbering of
registers and costs nothing. Otherwise the elements go through shared memory at the op's buffer
(`attrs["smem_offset"]`, placed by `passes/shared`): every thread writes what it holds, a barrier,
every thread reads what it needs. Reductions fold inside a thread, then across lanes with
`shfl.sync.bfly`, then across warps through shared memory. `dot` runs on tensor cores
(`mma.sync.m16n8k16`) when its operands are in MMA fragment layouts, else as FMAs. Chapter: 08-llvm.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from .llvm import Lowering, cast_register, f32, f64, i8, i16, i32, i64, ll_type

# -- index maps: where the element a destination register needs sits in the source --------------


def _drop(axis):
    return lambda index: tuple(index[:axis]) + tuple(index[axis + 1:])


def _zero(dims):
    return lambda index: tuple(0 if d in dims else i for d, i in enumerate(index))


def _permute(perm):
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return lambda index: tuple(index[inverse[d]] for d in range(len(perm)))


def _relinearize(src_shape, dst_shape):
    def to_src(index):
        linear = 0
        for i, s in zip(index, dst_shape):
            linear = linear * s + i
        out = []
        for s in reversed(src_shape):
            linear, i = divmod(linear, s)
            out.append(i)
        return tuple(reversed(out))
    return to_src


# --8<-- [start:register_map]
def register_map(src_layout, src_shape, dst_layout, dst_shape, to_src) -> list[int] | None:
    """For each destination register, the source register of the same thread holding the element
    it needs, or None when some element lives in another thread."""
    for kind in ("lane_bases", "warp_bases"):
        for d, s in zip(getattr(dst_layout, kind)(dst_shape), getattr(src_layout, kind)(src_shape)):
            if tuple(to_src(d)) != tuple(s):
                return None
    first = {}
    for r, offset in enumerate(src_layout.register_offsets(src_shape)):
        first.setdefault(tuple(offset), r)
    mapping = [first.get(tuple(to_src(offset))) for offset in dst_layout.register_offsets(dst_shape)]
    return None if None in mapping else mapping
# --8<-- [end:register_map]


def _storage_type(dtype: ir.DType) -> ll.Type:
    return i8 if dtype.is_bool() else ll_type(dtype)


def _linear(lw: Lowering, index: list, shape) -> ll.Value:
    """Row-major linear position of a runtime index."""
    return _dotted(lw, index, _row_major(shape))


def _row_major(shape) -> list[int]:
    strides, stride = [], 1
    for s in reversed(shape):
        strides.insert(0, stride)
        stride *= s
    return strides


def _dotted(lw: Lowering, index: list, strides) -> ll.Value:
    """sum(index[d] * strides[d]) of a runtime index."""
    total = ll.Constant(i32, 0)
    for i, stride in zip(index, strides):
        total = lw.b.add(total, lw.b.mul(i, ll.Constant(i32, stride)) if stride != 1 else i)
    return total


def _shared_at(lw: Lowering, op, element: ll.Value, dtype: ir.DType, base: int = 0):
    size = max(dtype.bits // 8, 1)
    offset = lw.b.add(ll.Constant(i32, op.attrs.get("smem_offset", 0) + base),
                      lw.b.mul(element, ll.Constant(i32, size)))
    return lw.shared_ptr(offset)


def _write(lw, ptr, value, dtype):
    lw.b.store(lw.b.zext(value, i8) if dtype.is_bool() else value, ptr)


def _read(lw, ptr, dtype):
    v = lw.b.load(ptr, typ=_storage_type(dtype))
    return lw.b.icmp_unsigned("!=", v, ll.Constant(i8, 0)) if dtype.is_bool() else v


# --8<-- [start:places]
def _image(to_src, index, shape, src_rank: int) -> list[int]:
    """`_index_map` on a compile-time index: the OR of the images of its set bits."""
    out = [0] * src_rank
    for d, (value, size) in enumerate(zip(index, shape)):
        for bit in range(size.bit_length() - 1):
            if value >> bit & 1:
                unit = [0] * len(shape)
                unit[d] = 1 << bit
                out = [o | a for o, a in zip(out, to_src(tuple(unit)))]
    return out


def _places(lw: Lowering, layout, shape, strides, to_src=None, src_rank=None):
    """Where each register's element goes in a buffer with `strides` (over the source index that
    `to_src` maps it to): one runtime term per thread plus one constant per register. A layout
    builds an index by OR-ing lane, warp and register bits; where the thread's bits and the
    registers' bits never meet in a dimension, OR is addition and the position splits. Returns
    (thread term, constants), or None where the bits meet."""
    src_rank = len(shape) if src_rank is None else src_rank
    image = (lambda index: list(index)) if to_src is None else (lambda index: _image(to_src, index, shape, src_rank))
    thread_bits, register_bits = [0] * src_rank, [0] * src_rank
    for basis in layout.lane_bases(shape) + layout.warp_bases(shape):
        thread_bits = [t | b for t, b in zip(thread_bits, image(basis))]
    constants = [image(offset) for offset in layout.register_offsets(shape)]
    for c in constants:
        register_bits = [r | b for r, b in zip(register_bits, c)]
    if any(t & r for t, r in zip(thread_bits, register_bits)):
        return None
    parts = lw.thread_part(layout, shape)
    if to_src is not None:
        parts = _index_map(lw, to_src, parts, src_rank, shape)
    thread = _dotted(lw, parts, strides)
    return thread, [sum(i * s for i, s in zip(c, strides)) for c in constants]


def _element_ptrs(lw: Lowering, op, layout, shape, strides, dtype, base: int = 0, to_src=None, src_rank=None):
    """A shared-memory pointer per register of (`layout`, `shape`), into the op's buffer + `base`
    bytes, at the element's place under `strides`: two instructions a register where `_places`
    splits, else the index arithmetic in full."""
    size = max(dtype.bits // 8, 1)
    start = op.attrs.get("smem_offset", 0) + base
    split = _places(lw, layout, shape, strides, to_src, src_rank)
    if split is not None:
        thread, constants = split
        first = lw.b.add(ll.Constant(i32, start), lw.b.mul(thread, ll.Constant(i32, size)))
        return [lw.shared_ptr(lw.b.add(first, ll.Constant(i32, c * size)) if c else first) for c in constants]
    indices = lw.indices(layout, shape)
    if to_src is not None:
        indices = [_index_map(lw, to_src, index, src_rank, shape) for index in indices]
    return [_shared_at(lw, op, _dotted(lw, index, strides), dtype, base) for index in indices]
# --8<-- [end:places]


# --8<-- [start:through_shared]
def through_shared(lw: Lowering, op, registers, src: ir.Value, dst_layout, dst_shape, to_src) -> list:
    """Move elements between threads: write every held element at its row-major place in the
    source shape, wait at a barrier, read each needed element from `to_src(index)`."""
    dtype, strides = src.dtype, _row_major(src.shape)
    written = _element_ptrs(lw, op, src.layout, src.shape, strides, dtype)
    for r in lw.unique_registers(src.layout, src.shape):
        _write(lw, written[r], registers[r], dtype)
    lw.barrier()
    read = _element_ptrs(lw, op, dst_layout, dst_shape, strides, dtype, to_src=to_src, src_rank=len(src.shape))
    return [_read(lw, ptr, dtype) for ptr in read]
# --8<-- [end:through_shared]


def through_shared_from_owners(lw: Lowering, op, registers: list) -> list:
    """Each element's owner writes it; after a barrier every thread holding the element reads it."""
    value = op.result
    dtype = value.dtype
    if not value.type.is_tile:
        with lw.b.if_then(lw.b.icmp_unsigned("==", lw.tid, ll.Constant(i32, 0))):
            _write(lw, _shared_at(lw, op, ll.Constant(i32, 0), dtype), registers[0], dtype)
        lw.barrier()
        return [_read(lw, _shared_at(lw, op, ll.Constant(i32, 0), dtype), dtype)]
    owner = lw.owner_predicate(value.layout, value.shape)
    ptrs = _element_ptrs(lw, op, value.layout, value.shape, _row_major(value.shape), dtype)
    for r in lw.unique_registers(value.layout, value.shape):
        with lw.b.if_then(owner):
            _write(lw, ptrs[r], registers[r], dtype)
    lw.barrier()
    return [_read(lw, ptr, dtype) for ptr in ptrs]


def _replicated(value: ir.Value) -> bool:
    """Whether more than one thread (or register) holds some element of `value`."""
    if not value.type.is_tile:
        return True
    layout, shape = value.layout, value.shape
    bases = layout.lane_bases(shape) + layout.warp_bases(shape)
    offsets = layout.register_offsets(shape)
    return any(not any(b) for b in bases) or len(set(offsets)) < len(offsets)


def _index_map(lw: Lowering, to_src, index: list, src_rank: int, dst_shape) -> list:
    """Apply a bit-linear index map to a runtime index: map each bit of each dimension."""
    result = [ll.Constant(i32, 0)] * src_rank
    for d, (value, size) in enumerate(zip(index, dst_shape)):
        for bit in range(size.bit_length() - 1):
            unit = [0] * len(dst_shape)
            unit[d] = 1 << bit
            image = to_src(tuple(unit))
            on = lw.b.and_(lw.b.lshr(value, ll.Constant(i32, bit)), ll.Constant(i32, 1))
            for sd, amount in enumerate(image):
                if amount:
                    result[sd] = lw.b.or_(result[sd], lw.b.mul(on, ll.Constant(i32, amount)))
    return result


def _move(lw: Lowering, op, registers, src: ir.Value, dst: ir.Value, to_src) -> list:
    mapping = register_map(src.layout, src.shape, dst.layout, dst.shape, to_src)
    if mapping is not None:
        return [registers[r] for r in mapping]
    return through_shared(lw, op, registers, src, dst.layout, dst.shape, to_src)


def _convert_layout(lw, op, x):
    if ldmatrix_operand(op) is not None:
        return _to_mma_operand(lw, op, x)
    return _move(lw, op, x, op.operands[0], op.result, lambda index: index)


# --8<-- [start:ldmatrix]
def ldmatrix_operand(op: ir.Op):
    """The swizzled shared layout a blocked -> mma-operand conversion goes through with 16-byte
    stores and `ldmatrix` (or, for wgmma, the layout it reads), or None for the generic path."""
    from ..layouts import BlockedLayout, DotOperandLayout, SharedOperandLayout, mma_operand_swizzle
    src, dst = op.operands[0], op.result
    if isinstance(dst.layout, SharedOperandLayout):
        return WgmmaShared(dst.layout.op_idx, *src.shape) if isinstance(src.layout, BlockedLayout) else None
    if not (isinstance(dst.layout, DotOperandLayout) and isinstance(src.layout, BlockedLayout)):
        return None
    if src.dtype.bits != 16 or src.layout.order[0] != 1 or dst.layout.k_width != 2:
        return None
    rows, cols = src.shape
    shared = mma_operand_swizzle(cols, 16, dst.layout.op_idx, (1, 0))
    if cols % (shared.vec * shared.max_phase) or rows < 16 or cols < 16:
        return None
    return shared


def _swizzled(lw: Lowering, shared, row, col, row_length: int):
    """Element offset of (row, col) in the swizzled buffer (`SharedLayout.offset`, in LLVM)."""
    B = lw.b
    c = lambda v: ll.Constant(i32, v)
    phase = B.urem(B.udiv(row, c(shared.per_phase)), c(shared.max_phase))
    chunk = B.xor(B.udiv(col, c(shared.vec)), phase)
    return B.add(B.mul(row, c(row_length)), B.add(B.mul(chunk, c(shared.vec)), B.urem(col, c(shared.vec))))


def _to_mma_operand(lw: Lowering, op, x) -> list:
    """Blocked registers -> shared memory (16-byte stores, swizzled) -> mma fragments (ldmatrix);
    a wgmma operand stays there, and its one "register" is the buffer's address."""
    src, dst = op.operands[0], op.result
    shared = ldmatrix_operand(op)
    base = ll.Constant(i32, op.attrs.get("smem_offset", 0))
    _store_operand(lw, src, x, shared, base)
    if isinstance(shared, WgmmaShared):
        lw.asm(ll.VoidType(), "fence.proxy.async.shared::cta;", "", [])  # tensor cores read what threads wrote
        lw.barrier()
        return [base]
    lw.barrier()
    return _read_operand(lw, dst, shared, src.shape[1], base)


def _element_address(lw: Lowering, base, shared, row, col, row_length: int, size: int = 2):
    if isinstance(shared, WgmmaShared):
        return lw.shared_ptr(lw.b.add(base, shared.byte_offset(lw, row, col)))
    offset = _swizzled(lw, shared, row, col, row_length)
    return lw.shared_ptr(lw.b.add(base, lw.b.mul(offset, ll.Constant(i32, size))))


def _runs(lw: Lowering, value: ir.Value, run: int):
    """(first register, its runtime index) of each run of `run` consecutive elements a thread holds."""
    indices = lw.indices(value.layout, value.shape)
    offsets = value.layout.register_offsets(value.shape)
    seen = set()
    for r in range(0, len(offsets), run):
        if tuple(offsets[r]) not in seen:
            seen.add(tuple(offsets[r]))
            yield r, indices[r]


def _store_operand(lw: Lowering, src: ir.Value, x: list, shared, base) -> None:
    """Each thread stores its runs of consecutive row elements, up to 8 (16 bytes) at once."""
    B = lw.b
    run = min(src.layout.contig_per_thread(src.shape), shared.vec, 8) if src.layout.order[0] == 1 else 1
    for r, (row, col) in _runs(lw, src, run):
        vector = ll.VectorType(x[r].type, run)
        packed = ll.Constant(vector, None)
        for k in range(run):
            packed = B.insert_element(packed, x[r + k], ll.Constant(i32, k))
        B.store(packed, _element_address(lw, base, shared, row, col, src.shape[1]), align=2 * run)


def _read_operand(lw: Lowering, dst: ir.Value, shared, row_length: int, base) -> list:
    """ldmatrix: lane l gives the address of row l % 8 of 8x8 matrix l // 8 of each fragment."""
    B = lw.b
    layout = dst.layout
    warp_part = [ll.Constant(i32, 0), ll.Constant(i32, 0)]
    for f in layout.warp_fields(dst.shape):
        bits = B.and_(B.lshr(lw.warp, ll.Constant(i32, f.shift)), ll.Constant(i32, (1 << f.width) - 1))
        warp_part[f.dim] = B.or_(warp_part[f.dim], B.mul(bits, ll.Constant(i32, f.scale)))
    lane = lw.lane
    within = B.and_(lane, ll.Constant(i32, 7))
    second = B.and_(B.lshr(lane, ll.Constant(i32, 3)), ll.Constant(i32, 1))
    third = B.lshr(lane, ll.Constant(i32, 4))
    reg_offsets = layout.register_offsets(dst.shape)
    size = 8 if layout.op_idx == 0 else 4  # registers per m16k16 (A) or k16n8 (B) fragment
    out = [None] * len(reg_offsets)
    for start in range(0, len(reg_offsets), size):
        r0, c0 = reg_offsets[start]
        row = B.add(B.add(warp_part[0], ll.Constant(i32, r0)), B.add(within, B.mul(second, ll.Constant(i32, 8))))
        if layout.op_idx == 0:  # A: matrices (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15)
            col = B.add(B.add(warp_part[1], ll.Constant(i32, c0)), B.mul(third, ll.Constant(i32, 8)))
            text, count = "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0,$1,$2,$3}, [$4];", 4
        else:  # B, stored k-major: two transposed matrices (k 0-7, n 0-7), (k 8-15, n 0-7)
            col = B.add(warp_part[1], ll.Constant(i32, c0))
            text, count = "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {$0,$1}, [$2];", 2
        pointer = B.ptrtoint(_element_address(lw, base, shared, row, col, row_length), i64)
        result = lw.asm(ll.LiteralStructType([i32] * count), text, ",".join(["=r"] * count + ["l"]), [pointer])
        for w in range(count):
            word = B.extract_value(result, w)
            for half in range(2):
                bits = B.trunc(B.lshr(word, ll.Constant(i32, 16 * half)), i16)
                out[start + 2 * w + half] = bits if dst.dtype.is_bf16() else B.bitcast(bits, ll_type(dst.dtype))
    return out


# -- the pipelined form: cp.async into a ring of stages, ldmatrix out of it ---------------------------

def _stage_base(lw: Lowering, op, stage):
    offset = lw.fn.attrs["buffer_offsets"][op.attrs["buffer"]]
    return lw.b.add(ll.Constant(i32, offset), lw.b.mul(stage, ll.Constant(i32, op.attrs["stage_bytes"])))


def _async_load(lw: Lowering, op, ptrs, mask, stage):
    """cp.async each thread's runs straight from global into the swizzled stage; masked runs fill zeros."""
    B = lw.b
    src = op.operands[0]
    shared, run = op.attrs["shared"], op.attrs["run"]
    base = _stage_base(lw, op, stage[0])
    element = src.dtype.pointee.bits // 8
    size = element * run
    kind = "cg" if size == 16 else "ca"
    for r, (row, col) in _runs(lw, src, run):
        dst = B.ptrtoint(_element_address(lw, base, shared, row, col, src.shape[1], element), i64)
        copied = B.select(mask[r], ll.Constant(i32, size), ll.Constant(i32, 0))
        lw.asm(ll.VoidType(), f"cp.async.{kind}.shared.global [$0], [$1], {size}, $2;", "l,l,r",
               [dst, ptrs[r], copied])


def _async_commit(lw: Lowering, op):
    lw.asm(ll.VoidType(), "cp.async.commit_group;", "", [])


def _async_wait(lw: Lowering, op):
    lw.asm(ll.VoidType(), f"cp.async.wait_group {op.attrs['pending']};", "", [])
    if op.attrs.get("fence"):  # the copies are read next by the tensor cores (wgmma), not by threads
        lw.asm(ll.VoidType(), "fence.proxy.async.shared::cta;", "", [])


def _local_read(lw: Lowering, op, stage):
    from ..layouts import SharedOperandLayout
    if isinstance(op.result.layout, SharedOperandLayout):  # read where it is, by wgmma or the FMA dot
        return [_stage_base(lw, op, stage[0])]
    return _read_operand(lw, op.result, op.attrs["shared"], op.result.shape[1], _stage_base(lw, op, stage[0]))
# --8<-- [end:ldmatrix]


# --8<-- [start:wgmma]
class WgmmaShared:
    """How wgmma wants an operand in shared memory (PTX ISA, "canonical layouts").

    A (M x K) is K-major: rows of K elements, swizzled by 16-byte chunk over 8-row atoms (128, 64
    or 32-byte rows). B (K x N) is N-major in atoms of 64 columns: each atom holds 8 k-rows of
    128 bytes (1 KB, 128-byte swizzle); atoms for the next 8 k-rows follow (SBO = 1 KB), atoms
    for the next 64 columns come after all the k-rows (LBO = K * 128 bytes)."""

    def __init__(self, op_idx: int, rows: int, cols: int):
        self.op_idx, self.rows, self.cols = op_idx, rows, cols
        self.vec = 8  # elements in a 16-byte chunk: runs of these are stored at once
        if op_idx == 0:
            self.row_bytes = 2 * cols
            self.mode = {128: 1, 64: 2, 32: 3}[self.row_bytes]
            self.per_phase = 128 // self.row_bytes
            self.max_phase = 8 // self.per_phase
        self.bytes = rows * cols * 2

    def byte_offset(self, lw: Lowering, row, col):
        B = lw.b
        c = lambda v: ll.Constant(i32, v)
        if self.op_idx == 0:
            phase = B.urem(B.udiv(row, c(self.per_phase)), c(self.max_phase))
            chunk = B.xor(B.udiv(col, c(8)), phase)
            return B.add(B.mul(row, c(self.row_bytes)), B.add(B.mul(chunk, c(16)), B.mul(B.urem(col, c(8)), c(2))))
        atom = B.udiv(col, c(64))
        chunk = B.xor(B.udiv(B.urem(col, c(64)), c(8)), B.urem(row, c(8)))
        within = B.add(B.mul(row, c(128)), B.add(B.mul(chunk, c(16)), B.mul(B.urem(col, c(8)), c(2))))
        return B.add(B.mul(atom, c(self.rows * 128)), within)

    def descriptor(self, lw: Lowering, address):
        """The 64-bit matrix descriptor of the operand starting at shared `address` (bytes)."""
        B = lw.b
        if self.op_idx == 0:
            lbo, sbo, mode = 16, 8 * self.row_bytes, self.mode
        else:
            lbo, sbo, mode = self.rows * 128, 1024, 1
        fixed = (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62
        start = B.lshr(B.and_(B.zext(address, i64), ll.Constant(i64, 0x3FFFF)), ll.Constant(i64, 4))
        return B.or_(start, ll.Constant(i64, fixed))


def _wgmma(lw: Lowering, op, a, b, acc):
    """acc += a @ b by warpgroups: each group of 4 warps computes 64 rows with wgmma.m64nNk16,
    reading both operands from shared memory through descriptors."""
    B = lw.b
    av, bv, cv = op.operands
    (m, k), n = av.shape, bv.shape[1]
    num_warps = lw.num_warps
    a_shared, b_shared = WgmmaShared(0, m, k), WgmmaShared(1, k, n)
    smem_base = B.ptrtoint(lw.shared_ptr(ll.Constant(i32, 0)), i32)
    group_row = B.mul(B.lshr(lw.warp, ll.Constant(i32, 2)), ll.Constant(i32, 64))
    kind = "bf16" if av.dtype.is_bf16() else "f16"
    count = n // 2  # accumulator registers of one m64nN tile per thread
    outs = ",".join(f"${i}" for i in range(count))
    text = (f"{{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{kind}.{kind} "
            f"{{{outs}}}, ${count}, ${count + 1}, p, 1, 1, 0, 1; }}")
    constraints = ",".join(["=f"] * count + ["l", "l"] + [str(i) for i in range(count)])
    out = list(acc)
    lw.asm(ll.VoidType(), "wgmma.fence.sync.aligned;", "", [])
    for m_rep in range(m // (16 * num_warps)):
        row = B.add(group_row, ll.Constant(i32, m_rep * 16 * num_warps))
        regs = out[m_rep * count:(m_rep + 1) * count]
        for kk in range(k // 16):
            a_address = B.add(B.add(smem_base, a[0]), B.add(B.mul(row, ll.Constant(i32, a_shared.row_bytes)),
                                                             ll.Constant(i32, 32 * kk)))
            b_address = B.add(B.add(smem_base, b[0]), ll.Constant(i32, 2048 * kk))
            result = lw.asm(ll.LiteralStructType([f32] * count), text, constraints,
                            [a_shared.descriptor(lw, a_address), b_shared.descriptor(lw, b_address)] + regs)
            regs = [B.extract_value(result, i) for i in range(count)]
        out[m_rep * count:(m_rep + 1) * count] = regs
    lw.asm(ll.VoidType(), "wgmma.commit_group.sync.aligned;", "", [])
    pending = op.attrs.get("pending", 0)  # 1 in a pipelined loop: this group runs on into the next
    if pending:
        lw.asm(ll.VoidType(), f"wgmma.wait_group.sync.aligned {pending};", "", [])
        return out
    return _wgmma_wait(lw, op, out)


def _wgmma_wait(lw: Lowering, op, acc):
    """Wait for every wgmma group; the accumulator registers go through the wait as operands tied
    to its results, so nothing reads them before it (they are being written until then)."""
    count = 64  # registers per asm statement
    out = []
    for start in range(0, len(acc), count):
        regs = acc[start:start + count]
        constraints = ",".join(["=f"] * len(regs) + [str(i) for i in range(len(regs))])
        text = "wgmma.wait_group.sync.aligned 0;" if start == 0 else ""
        result = lw.asm(ll.LiteralStructType([f32] * len(regs)), text, constraints, regs)
        out += [lw.b.extract_value(result, i) for i in range(len(regs))]
    return out
# --8<-- [end:wgmma]


def _broadcast(lw, op, x):
    src = op.operands[0]
    dims = {d for d, (a, b) in enumerate(zip(src.shape, op.result.shape)) if a != b}
    return _move(lw, op, x, src, op.result, _zero(dims))


def _expand_dims(lw, op, x):
    src = op.operands[0]
    return _move(lw, op, x, src, op.result, _drop(op.attrs["axis"]))


def _trans(lw, op, x):
    return _move(lw, op, x, op.operands[0], op.result, _permute(op.attrs["perm"]))


def _reshape(lw, op, x):
    src = op.operands[0]
    return _move(lw, op, x, src, op.result, _relinearize(src.shape, op.result.shape))


# ---------------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------------

def _combine(lw: Lowering, kind: str, dtype: ir.DType, a, b, region: ir.Block | None = None):
    """Combine two partial results (for argmax/argmin, (value, index) pairs; ties keep the lower
    index; for "combine", the user's function, lowered again wherever two partials meet)."""
    B = lw.b
    if kind == "combine":
        lw.set(region.args[0], [a])
        lw.set(region.args[1], [b])
        lw.block(ir.Block(region.args, region.ops[:-1]))
        return lw.get(region.ops[-1].operands[0])[0]
    if kind in ("argmax", "argmin"):
        (va, ia), (vb, ib) = a, b
        fa, fb = lw.to_f32(va, dtype) if dtype.is_floating() else va, lw.to_f32(vb, dtype) if dtype.is_floating() else vb
        if dtype.is_floating():
            better = B.fcmp_ordered(">" if kind == "argmax" else "<", fb, fa)
            equal = B.fcmp_ordered("==", fb, fa)
        else:
            cmp = B.icmp_signed if dtype.kind == "int" else B.icmp_unsigned
            better = cmp(">" if kind == "argmax" else "<", fb, fa)
            equal = cmp("==", fb, fa)
        take_b = B.or_(better, B.and_(equal, B.icmp_signed("<", ib, ia)))
        return B.select(take_b, vb, va), B.select(take_b, ib, ia)
    from .llvm import RULES
    name = {"sum": "add", "prod": "mul", "max": "maximum", "min": "minimum", "xor": "xor", "and": "and",
            "or": "or"}[kind]
    fake = ir.Op(name, [ir.Value(ir.scalar(dtype)), ir.Value(ir.scalar(dtype))], [])
    return RULES[name](lw, fake, [a], [b])[0]


def _shuffle_xor(lw: Lowering, value, mask: int):
    """The value lane `lane ^ mask` holds (every type goes through 32-bit shuffles)."""
    B = lw.b
    full = ll.Constant(i32, 0xFFFFFFFF)
    t = value.type
    if t == i64 or t == f64:
        bits = B.bitcast(value, i64) if t == f64 else value
        lo, hi = B.trunc(bits, i32), B.trunc(B.lshr(bits, ll.Constant(i64, 32)), i32)
        lo, hi = (lw.call("llvm.nvvm.shfl.sync.bfly.i32", i32, [full, v, ll.Constant(i32, mask), ll.Constant(i32, 31)])
                  for v in (lo, hi))
        joined = B.or_(B.zext(lo, i64), B.shl(B.zext(hi, i64), ll.Constant(i64, 32)))
        return B.bitcast(joined, f64) if t == f64 else joined
    if t == f32:
        return lw.call("llvm.nvvm.shfl.sync.bfly.f32", f32, [full, value, ll.Constant(i32, mask), ll.Constant(i32, 31)])
    if t == i32:
        return lw.call("llvm.nvvm.shfl.sync.bfly.i32", i32, [full, value, ll.Constant(i32, mask), ll.Constant(i32, 31)])
    bits = B.bitcast(value, ll.IntType(t.width if isinstance(t, ll.IntType) else 16)) \
        if not isinstance(t, ll.IntType) else value
    wide = B.zext(bits, i32)
    out = B.trunc(lw.call("llvm.nvvm.shfl.sync.bfly.i32", i32, [full, wide, ll.Constant(i32, mask),
                                                               ll.Constant(i32, 31)]), bits.type)
    return out if isinstance(t, ll.IntType) else B.bitcast(out, t)


def _shuffle(lw, value, mask):
    if isinstance(value, tuple):
        return tuple(_shuffle_xor(lw, v, mask) for v in value)
    return _shuffle_xor(lw, value, mask)


# --8<-- [start:reduce]
def _reduce(lw: Lowering, op, x):
    """Fold in each thread, then across lanes by butterfly shuffles, then across warps in shared memory."""
    src, result = op.operands[0], op.result
    axis, kind = op.attrs["axis"], op.attrs["kind"]
    region = op.regions[0] if op.regions else None
    dtype = src.dtype
    layout, shape = src.layout, src.shape
    offsets = layout.register_offsets(shape)
    with_index = kind in ("argmax", "argmin")
    indices = lw.indices(layout, shape) if with_index else None
    # 1. In-thread: registers that differ only along the axis fold together.
    groups: dict[tuple, object] = {}
    for r in lw.unique_registers(layout, shape):
        key = _drop(axis)(offsets[r])
        value = (x[r], indices[r][axis]) if with_index else x[r]
        groups[key] = value if key not in groups else _combine(lw, kind, dtype, groups[key], value, region)
    # 2. Across lanes: one butterfly step per lane bit that moves along the axis.
    for mask in layout.lane_masks_along(axis, shape):
        groups = {k: _combine(lw, kind, dtype, v, _shuffle(lw, v, mask), region) for k, v in groups.items()}
    # 3. Across warps: partial results meet in shared memory.
    warp_masks = layout.warp_masks_along(axis, shape)
    if warp_masks:
        groups = _across_warps(lw, op, groups, warp_masks, kind, dtype, layout, shape, axis, region)
    # 4. Registers in the order of the result's (slice) layout.
    if not result.type.is_tile:
        (value,) = groups.values()
        return [value[1] if with_index else value]
    picked = [groups[tuple(o)] for o in result.layout.register_offsets(result.shape)]
    return [v[1] if with_index else v for v in picked]
# --8<-- [end:reduce]


def _across_warps(lw: Lowering, op, groups, warp_masks, kind, dtype, layout, shape, axis, region=None):
    B = lw.b
    out_shape = _drop(axis)(shape)
    count = 1
    for s in out_shape:
        count *= s
    slot = ll.Constant(i32, 0)  # this warp's position among the warps along the axis
    for k, mask in enumerate(warp_masks):
        on = B.and_(B.lshr(lw.warp, ll.Constant(i32, mask.bit_length() - 1)), ll.Constant(i32, 1))
        slot = B.or_(slot, B.shl(on, ll.Constant(i32, k)))
    parts = lw.thread_part(layout, shape)
    with_index = kind in ("argmax", "argmin")
    size = max(dtype.bits // 8, 1)
    index_base = len(warp_masks) and (1 << len(warp_masks)) * count * size
    index_base = (index_base + 3) // 4 * 4
    positions = {}
    for key, value in groups.items():
        element_index = [B.or_(p, ll.Constant(i32, o)) if o else p for p, o in zip(_drop(axis)(parts), key)]
        position = _linear(lw, element_index, out_shape) if out_shape else ll.Constant(i32, 0)
        positions[key] = position
        at = B.add(B.mul(slot, ll.Constant(i32, count)), position)
        if with_index:
            _write(lw, _shared_at(lw, op, at, dtype), value[0], dtype)
            _write(lw, _shared_at(lw, op, at, ir.int32, index_base), value[1], ir.int32)
        else:
            _write(lw, _shared_at(lw, op, at, dtype), value, dtype)
    lw.barrier()
    result = {}
    for key, position in positions.items():
        acc = None
        for w in range(1 << len(warp_masks)):
            at = B.add(ll.Constant(i32, w * count), position)
            value = _read(lw, _shared_at(lw, op, at, dtype), dtype)
            if with_index:
                value = (value, _read(lw, _shared_at(lw, op, at, ir.int32, index_base), ir.int32))
            acc = value if acc is None else _combine(lw, kind, dtype, acc, value, region)
        result[key] = acc
    return result


def reduce_scratch_bytes(op: ir.Op) -> int:
    """Shared memory a reduction needs: one partial per warp along the axis per result element."""
    src = op.operands[0]
    warps = 1 << len(src.layout.warp_masks_along(op.attrs["axis"], src.shape))
    if warps == 1:
        return 0
    count = op.result.type.numel
    size = max(src.dtype.bits // 8, 1)
    total = (warps * count * size + 3) // 4 * 4
    return total + (warps * count * 4 if op.attrs["kind"] in ("argmax", "argmin") else 0)


# ---------------------------------------------------------------------------------------------------
# Scans: in shared memory, one thread per line along the axis (simple and exact).
# ---------------------------------------------------------------------------------------------------

def _scan(lw: Lowering, op, x):
    B = lw.b
    src = op.operands[0]
    dtype, shape, axis = src.dtype, src.shape, op.attrs["axis"]
    written = _element_ptrs(lw, op, src.layout, shape, _row_major(shape), dtype)
    for r in lw.unique_registers(src.layout, shape):
        _write(lw, written[r], x[r], dtype)
    lw.barrier()
    length = shape[axis]
    stride = 1
    for s in shape[axis + 1:]:
        stride *= s
    lines = src.type.numel // length
    # for line in range(tid, lines, threads): scan the `length` elements of that line

    def scan_line(line, _):
        outer, inner = B.udiv(line, ll.Constant(i32, stride)), B.urem(line, ll.Constant(i32, stride))
        base = B.add(B.mul(outer, ll.Constant(i32, length * stride)), inner)
        acc = None
        for k in (range(length - 1, -1, -1) if op.attrs.get("reverse") else range(length)):
            ptr = _shared_at(lw, op, B.add(base, ll.Constant(i32, k * stride)), dtype)
            value = _read(lw, ptr, dtype)
            acc = value if acc is None else _combine(lw, op.attrs["kind"], dtype, acc, value,
                                                     op.regions[0] if op.regions else None)
            _write(lw, ptr, acc, dtype)
        return []

    lw.counted_loop(lw.tid, lines, 32 * lw.num_warps, [], scan_line)
    lw.barrier()
    return [_read(lw, ptr, dtype) for ptr in _element_ptrs(lw, op, op.result.layout, shape, _row_major(shape), dtype)]


# ---------------------------------------------------------------------------------------------------
# dot
# ---------------------------------------------------------------------------------------------------

# --8<-- [start:mma]
def _mma(lw: Lowering, op, a, b, acc):
    """acc += a @ b with mma.sync.m16n8k16: A fragments of 8, B of 4, C of 4 registers per tile."""
    B = lw.b
    av, bv, cv = op.operands
    m_tile = 16 * av.layout.parent.warps_per_cta[0]
    n_tile = 8 * av.layout.parent.warps_per_cta[1]
    a_tiles = _fragments(av.layout.register_offsets(av.shape), 8, lambda o: (o[0] // m_tile, o[1] // 16))
    b_tiles = _fragments(bv.layout.register_offsets(bv.shape), 4, lambda o: (o[0] // 16, o[1] // n_tile))
    c_tiles = _fragments(cv.layout.register_offsets(cv.shape), 4, lambda o: (o[0] // m_tile, o[1] // n_tile))
    kind = "bf16" if av.dtype.is_bf16() else "f16"
    text = (f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32 "
            "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};")
    constraints = "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
    out = list(acc)
    k_tiles = av.shape[1] // 16
    for (mi, ni), c_regs in c_tiles.items():
        values = [out[r] for r in c_regs]
        for ki in range(k_tiles):
            a_words = _pack_pairs(lw, [a[r] for r in a_tiles[(mi, ki)]])
            b_words = _pack_pairs(lw, [b[r] for r in b_tiles[(ki, ni)]])
            result = lw.asm(ll.LiteralStructType([f32] * 4), text, constraints, a_words + b_words + values,
                            side_effect=False)
            values = [B.extract_value(result, i) for i in range(4)]
        for r, v in zip(c_regs, values):
            out[r] = v
    return out
# --8<-- [end:mma]


def _fragments(offsets, size: int, tile_of) -> dict:
    """Group a thread's registers into instruction fragments of `size`, keyed by their tile."""
    return {tile_of(offsets[start]): list(range(start, start + size)) for start in range(0, len(offsets), size)}


def _pack_pairs(lw: Lowering, values: list) -> list:
    B = lw.b
    words = []
    for lo, hi in zip(values[0::2], values[1::2]):
        lo_bits = lo if isinstance(lo.type, ll.IntType) else B.bitcast(lo, i16)
        hi_bits = hi if isinstance(hi.type, ll.IntType) else B.bitcast(hi, i16)
        words.append(B.or_(B.zext(lo_bits, i32), B.shl(B.zext(hi_bits, i32), ll.Constant(i32, 16))))
    return words


# --8<-- [start:fma_dot]
def _runs_of_four(offsets: list[int], layout, shape, dim: int) -> list[list[int]]:
    """The thread's distinct indices along `dim`, in runs of 4 consecutive ones that start on a
    multiple of 4 in every thread (a 16-byte vector load), else one by one."""
    values = sorted(set(offsets))
    lane_warp = [b[dim] for b in layout.lane_bases(shape) + layout.warp_bases(shape)]
    aligned = all(v % 4 == 0 for v in lane_warp)
    runs, i = [], 0
    while i < len(values):
        if aligned and values[i] % 4 == 0 and values[i:i + 4] == list(range(values[i], values[i] + 4)):
            runs.append(values[i:i + 4])
            i += 4
        else:
            runs.append([values[i]])
            i += 1
    return runs


def _bits(values) -> int:
    out = 0
    for v in values:
        out |= v
    return out


def _transposed_swizzle(av: ir.Value, cv: ir.Value) -> int:
    """How many bits of a^T's row index, from bit 2 up, are xor-ed with bits 2.. of k: row chunk
    r//4 of row k is stored at chunk (r//4) ^ ((k//4) & mask). A warp loading A (4 rows, 8 runs of
    4 k) then spreads its writes over the banks, where unswizzled it wrote 4 banks, each eight
    times; runs of 4 rows stay aligned, so reads stay 16-byte vectors. Only bits that are thread
    bits of A's rows, thread bits of its k and not register bits of the accumulator's rows
    qualify: then every address is still one per-thread term plus a constant per register."""
    m = av.shape[0]
    a_threads = av.layout.lane_bases(av.shape) + av.layout.warp_bases(av.shape)
    row_threads, k_threads = _bits(b[0] for b in a_threads), _bits(b[1] for b in a_threads)
    k_registers = _bits(o[1] for o in av.layout.register_offsets(av.shape))
    acc_registers = _bits(o[0] for o in cv.layout.register_offsets(cv.shape))
    width = 0
    while width < 3 and 4 << width < m:
        bit = 1 << (2 + width)
        if not (row_threads & bit and not acc_registers & bit and not k_registers & bit
                and (k_threads & bit or bit >= av.shape[1])):
            break
        width += 1
    return width


def _chunk(lw: Lowering, k, width: int):
    """The swizzle of a^T's row k: bits 2.. of k, `width` of them, in place."""
    return lw.b.and_(k, ll.Constant(i32, ((1 << width) - 1) << 2))


def _fma_stage(lw: Lowering, op, a, b, elem, width: int) -> None:
    """Write a^T (swizzled) and b (runs of 4 as one vector) to the op's shared memory."""
    B = lw.b
    av, bv = op.operands[:2]
    (m, k_size), (_, n) = av.shape, bv.shape
    size = max(elem.bits // 8, 1)

    def thread_term():
        row, k = lw.thread_part(av.layout, av.shape)
        return B.add(B.mul(k, ll.Constant(i32, m)), B.xor(row, _chunk(lw, k, width)))
    term = lw.in_prologue(thread_term)
    start = B.add(ll.Constant(i32, op.attrs.get("smem_offset", 0)), B.mul(term, ll.Constant(i32, size)))
    offsets = av.layout.register_offsets(av.shape)
    for r in lw.unique_registers(av.layout, av.shape):
        row, k = offsets[r]
        _write(lw, lw.shared_ptr(B.add(start, ll.Constant(i32, (k * m + row) * size))), a[r], elem)
    ptrs = _element_ptrs(lw, op, bv.layout, bv.shape, (n, 1), elem, m * k_size * size)
    offsets = bv.layout.register_offsets(bv.shape)
    bases = [basis[1] for basis in bv.layout.lane_bases(bv.shape) + bv.layout.warp_bases(bv.shape)]
    vectors = elem.bits == 32 and n % 4 == 0 and all(x % 4 == 0 for x in bases)
    unique = set(lw.unique_registers(bv.layout, bv.shape))
    r = 0
    while r < len(offsets):
        run = offsets[r:r + 4]
        if vectors and len(run) == 4 and run[0][1] % 4 == 0 and set(range(r, r + 4)) <= unique \
                and run == [(run[0][0], run[0][1] + t) for t in range(4)]:
            vector = ll.Constant(ll.VectorType(_storage_type(elem), 4), None)
            for t in range(4):
                vector = B.insert_element(vector, b[r + t], ll.Constant(i32, t))
            B.store(vector, B.bitcast(ptrs[r], vector.type.as_pointer(3)), align=16)
            r += 4
            continue
        if r in unique:
            _write(lw, ptrs[r], b[r], elem)
        r += 1


def _fma_dot(lw: Lowering, op, a, b, acc):
    """acc[i, j] += sum_k a[i, k] * b[k, j] on CUDA cores: at each k a thread reads its rows of a
    and its columns of b from shared memory, as vectors where they are consecutive, then does one
    FMA per accumulator register. The operands arrive in registers, and are staged here as a^T
    (k-major, swizzled: a thread's rows at one k are consecutive) and b; or they already sit in
    the pipeline's rings, a row-major in swizzled 16-byte chunks (4 steps of k of one row) and b
    row-major. k goes in chunks of 4 steps where registers allow, several chunks per iteration."""
    from ..layouts import SharedOperandLayout, fma_operand_swizzle
    B = lw.b
    c = lambda v: ll.Constant(i32, v)
    av, bv, cv = op.operands
    (m, k_size), (_, n) = av.shape, bv.shape
    elem, compute = av.dtype, cv.dtype
    size = max(elem.bits // 8, 1)
    offsets = cv.layout.register_offsets(cv.shape)
    parts = lw.thread_part(cv.layout, cv.shape)
    col_runs = _runs_of_four([o[1] for o in offsets], cv.layout, cv.shape, 1)

    def vector(start, count: int) -> list:
        """`count` consecutive elements from byte `start`, in one load where count > 1."""
        ptr = lw.shared_ptr(start)
        if count == 1:
            loaded = [_read(lw, ptr, elem)]
        else:
            v = B.load(ptr, typ=ll.VectorType(_storage_type(elem), count), align=count * size)
            loaded = [B.extract_element(v, c(t)) for t in range(count)]
        return [cast_register(lw, x, elem, compute) for x in loaded]

    def runs_at(start, runs, part) -> dict:
        """{offset: value} of a thread's runs in the line of elements starting at byte `start`."""
        values = {}
        for run in runs:
            values.update(zip(run, vector(B.add(start, B.mul(B.add(part, c(run[0])), c(size))), len(run))))
        return values

    if isinstance(av.layout, SharedOperandLayout):
        ring = fma_operand_swizzle(0, av.shape, elem.bits, cv.layout, cv.shape)
        a_base, b_base, unroll = a[0], b[0], ring.vec
        rows = sorted({o[0] for o in offsets})
        # the swizzle uses only bits of the thread's part of the row, so it is one value per thread
        row_start, phase = lw.in_prologue(lambda: (
            B.mul(parts[0], c(k_size * size)), B.urem(B.udiv(parts[0], c(ring.per_phase)), c(ring.max_phase))))

        def a_values(k) -> list[dict]:
            chunk = B.xor(B.udiv(k, c(unroll)), phase)
            start = B.add(a_base, B.add(row_start, B.mul(chunk, c(unroll * size))))
            by_row = {row: vector(B.add(start, c(row * k_size * size)), unroll) for row in rows}
            return [{row: by_row[row][t] for row in rows} for t in range(unroll)]
    else:
        width = _transposed_swizzle(av, cv)
        _fma_stage(lw, op, a, b, elem, width)
        lw.barrier()
        a_base = c(op.attrs.get("smem_offset", 0))
        b_base = c(op.attrs.get("smem_offset", 0) + m * k_size * size)
        unroll = 4 if len(offsets) <= 64 and k_size % 4 == 0 else 1
        row_runs = _runs_of_four([o[0] for o in offsets], cv.layout, cv.shape, 0)

        def a_values(k) -> list[dict]:  # the swizzle is the same for the 4 steps of a chunk
            part = B.xor(parts[0], _chunk(lw, k, width))
            return [runs_at(B.add(a_base, B.mul(B.add(k, c(t)), c(m * size))), row_runs, part)
                    for t in range(unroll)]

    def operands(k) -> list[tuple[dict, dict]]:
        """The a and b values of the `unroll` steps from k on."""
        return [(a_at, runs_at(B.add(b_base, B.mul(B.add(k, c(t)), c(n * size))), col_runs, parts[1]))
                for t, a_at in enumerate(a_values(k))]

    # Row by row, each row's columns in the opposite direction of the last: every FMA then shares an
    # operand with the one before (ptxas keeps it in the operand reuse cache), which measured 2-3%
    # faster than plain row order and 10% faster than column order (fewer register bank conflicts).
    order = sorted(range(len(offsets)), key=lambda i: (offsets[i][0], (-1) ** offsets[i][0] * offsets[i][1]))

    def fmas(accumulators, a_at, b_at):
        updated = [None] * len(accumulators)
        for i in order:
            acc_value, (row, col) = accumulators[i], offsets[i]
            x, y = a_at[row], b_at[col]
            if compute.is_floating():
                name = "llvm.fma.f64" if compute == ir.float64 else "llvm.fma.f32"
                updated[i] = lw.call(name, ll_type(compute), [x, y, acc_value])
            else:
                updated[i] = B.add(acc_value, B.mul(x, y))
        return updated

    # A chunk is `unroll` steps of k. The loop takes as many chunks at once as keep it near 2048 FMAs
    # (all of a k-tile of 32 for 64 accumulators), loading the next chunk before this one's FMAs.
    chunks = 1
    while k_size % (2 * chunks * unroll) == 0 and 2 * chunks * unroll * len(offsets) <= 2048:
        chunks *= 2

    def steps(k, accumulators):
        loaded = [operands(k)]
        for i in range(chunks):
            if i + 1 < chunks:  # the next chunk's loads go out before this chunk's FMAs
                loaded.append(operands(B.add(k, c((i + 1) * unroll))))
            for a_at, b_at in loaded[i]:
                accumulators = fmas(accumulators, a_at, b_at)
        return accumulators

    return lw.counted_loop(c(0), k_size, unroll * chunks, list(acc), steps)
# --8<-- [end:fma_dot]


def _dot(lw: Lowering, op, a, b, acc):
    from ..layouts import DotOperandLayout, MmaLayout, SharedOperandLayout
    layout = op.operands[0].layout
    if isinstance(layout, DotOperandLayout):
        return _mma(lw, op, a, b, acc)
    if isinstance(layout, SharedOperandLayout) and isinstance(layout.parent, MmaLayout):
        return _wgmma(lw, op, a, b, acc)
    return _fma_dot(lw, op, a, b, acc)


# --8<-- [start:scratch]
def scratch_bytes(op: ir.Op) -> int:
    """Bytes of shared memory an op needs while it runs (0 when it stays in registers)."""
    name = op.name
    from ..layouts import SharedOperandLayout
    if name == "convert_layout" and isinstance(op.result.layout, SharedOperandLayout):
        return (op.result.type.numel * 2 + 1023) // 1024 * 1024  # a wgmma operand: whole 1 KB atoms
    if name in ("convert_layout", "broadcast", "expand_dims", "trans", "reshape"):
        src = op.operands[0]
        to_src = {"convert_layout": lambda i: i,
                  "broadcast": _zero({d for d, (x, y) in enumerate(zip(src.shape, op.result.shape)) if x != y}),
                  "expand_dims": _drop(op.attrs.get("axis", 0)),
                  "trans": _permute(op.attrs.get("perm", ())),
                  "reshape": _relinearize(src.shape, op.result.shape)}[name]
        if not src.type.is_tile or register_map(src.layout, src.shape, op.result.layout, op.result.shape,
                                                to_src) is not None:
            return 0
        return src.type.numel * max(src.dtype.bits // 8, 1)
    if name == "reduce":
        return reduce_scratch_bytes(op)
    if name in ("atomic", "atomic_cas"):
        return op.result.type.numel * max(op.result.dtype.bits // 8, 1) if _replicated(op.result) else 0
    if name == "scan":
        return op.result.type.numel * max(op.result.dtype.bits // 8, 1)
    if name == "dot":
        from ..layouts import DotOperandLayout, SharedOperandLayout
        if isinstance(op.operands[0].layout, (DotOperandLayout, SharedOperandLayout)):
            return 0
        a, b, _ = op.operands
        return (a.type.numel + b.type.numel) * max(a.dtype.bits // 8, 1)
    return 0
# --8<-- [end:scratch]


RULES = {"async_load": _async_load, "async_commit": _async_commit, "async_wait": _async_wait,
         "wgmma_wait": _wgmma_wait,
         "local_read": _local_read, "convert_layout": _convert_layout, "broadcast": _broadcast, "expand_dims": _expand_dims,
         "trans": _trans, "reshape": _reshape, "reduce": _reduce, "scan": _scan, "dot": _dot}

