"""Shared-memory geometry: which ops need a buffer, how big, and how tensor-core operands sit there.

An op that moves elements between threads goes through shared memory while it runs; one that only
renumbers each thread's registers does not. Whether a move stays in registers is `register_map`
(an index map per op: `index_map`); how many bytes the others need is `scratch_bytes`; how an
operand of the tensor cores is laid out there is `ldmatrix_operand` (mma.sync reads it with
`ldmatrix`) or `WgmmaOperand` (wgmma reads it through a descriptor). The shared pass sizes its
buffers with these, the pipeliner decides which loads can become rings, and codegen addresses the
same bytes, so the three agree by construction. Plain arithmetic on layouts and shapes; no LLVM.
Chapter: 06-shared-memory.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from .. import ir
from ..layouts import (BlockedLayout, DotOperandLayout, SharedLayout, SharedOperandLayout,
                       mma_operand_swizzle)

# -- index maps: where the element a destination index needs sits in the source ---------------------


def drop(axis):
    """expand_dims(x, axis): the source index leaves out `axis`."""
    return lambda index: tuple(index[:axis]) + tuple(index[axis + 1:])


def zero(dims):
    """broadcast along `dims`: the source holds index 0 there."""
    return lambda index: tuple(0 if d in dims else i for d, i in enumerate(index))


def permute(perm):
    """trans(x, perm): result dimension d is source dimension perm[d]."""
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return lambda index: tuple(index[inverse[d]] for d in range(len(perm)))


def relinearize(src_shape, dst_shape):
    """reshape: the element at the same row-major position."""
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


MOVES = ("convert_layout", "broadcast", "expand_dims", "trans", "reshape")  # ops that only move elements


def index_map(op: ir.Op):
    """For an op in MOVES: the map from a result index to the operand index it holds."""
    src, dst = op.operands[0], op.result
    if op.name == "broadcast":
        return zero({d for d, (x, y) in enumerate(zip(src.shape, dst.shape)) if x != y})
    if op.name == "expand_dims":
        return drop(op.attrs["axis"])
    if op.name == "trans":
        return permute(op.attrs["perm"])
    if op.name == "reshape":
        return relinearize(src.shape, dst.shape)
    return lambda index: index


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


def replicated(value: ir.Value) -> bool:
    """Whether more than one thread (or register) holds some element of `value`."""
    if not value.type.is_tile:
        return True
    layout, shape = value.layout, value.shape
    bases = layout.lane_bases(shape) + layout.warp_bases(shape)
    offsets = layout.register_offsets(shape)
    return any(not any(b) for b in bases) or len(set(offsets)) < len(offsets)


# --8<-- [start:operands]
@dataclass(frozen=True)
class WgmmaOperand:
    """How wgmma wants an operand in shared memory (PTX ISA, "canonical layouts").

    A K-major operand is stored as lines of K elements (A's rows; B's columns), each 32, 64 or 128
    bytes, swizzled by 16-byte chunk over 8-line atoms. A longer line (K = 128 fp16 is 256 bytes)
    is split into blocks of 128 bytes of K, as Triton splits it: block j holds bytes 128j to
    128j + 127 of every line, 128-byte swizzled, and the blocks follow one another, so each
    k-step's descriptor points into one block. Operands of any type but fp16 and bf16 are K-major:
    only those may be transposed by the instruction. A 16-bit B loaded K fastest (`k_contiguous`:
    attention's K^T, from a row-major K) is stored K-major too, so its runs stay 16-byte stores
    (and cp.async copies). Any other 16-bit B is N-major, in atoms of 64 columns: each atom holds
    8 k-rows of 128 bytes (1 KB, 128-byte swizzle); atoms for the next 8 k-rows follow (SBO =
    1 KB), atoms for the next 64 columns come after all the k-rows (LBO = K * 128 bytes). A 16-bit
    A is K-major unless it was loaded M fastest (`m_contiguous`: X^T of a row-major X); then it is
    M-major, in atoms of 64 rows laid out as B's of 64 columns."""

    op_idx: int
    rows: int
    cols: int
    bits: int = 16
    k_contiguous: bool = False
    m_contiguous: bool = False

    @property
    def k_major(self) -> bool:
        if self.bits != 16:
            return True
        return not self.m_contiguous if self.op_idx == 0 else self.k_contiguous

    @property
    def k_length(self) -> int:
        return self.cols if self.op_idx == 0 else self.rows

    @property
    def line_dim(self) -> int:
        """The dimension of the tile whose consecutive elements are consecutive in the buffer:
        K for a K-major operand, M or N for the other."""
        k_dim = 1 - self.op_idx
        return k_dim if self.k_major else 1 - k_dim

    @property
    def vec(self) -> int:  # elements in a 16-byte chunk: runs of these are stored at once
        return 128 // self.bits

    @property
    def line_bytes(self) -> int:  # a K-major line: K elements
        return (self.cols if self.op_idx == 0 else self.rows) * self.bits // 8

    @property
    def row_bytes(self) -> int:  # a line's part in one block: the swizzle atom's width
        return min(self.line_bytes, 128)

    @property
    def lines(self) -> int:  # A's rows or B's columns
        return self.rows if self.op_idx == 0 else self.cols

    @property
    def block_bytes(self) -> int:  # one block of K: every line's `row_bytes`
        return self.lines * self.row_bytes

    @staticmethod
    def k_fits(line_bytes: int) -> bool:
        """Whether a K-major line fits: one atom of 32 or 64 bytes, or whole blocks of 128."""
        return line_bytes in (32, 64) or line_bytes % 128 == 0

    @property
    def line_step(self) -> int:
        """Bytes from one line to the next within a block, for lines a multiple of 8 apart (A's
        rows, a K-major B's columns); for an N-major B (an M-major A), per column (row), for those
        a multiple of 64 apart (an atom of 64 follows all the k-rows of those before it)."""
        return self.row_bytes if self.k_major else self.k_length * 2

    def k_step_offset(self, kk: int) -> int:
        """The byte offset of the k-step `kk` (32 bytes of K) in a K-major operand: its block,
        then its place in the block's lines; in an N-major (M-major) one, its 16 k-rows are two
        atoms of 1 KB."""
        if not self.k_major:
            return 2048 * kk
        block, within = divmod(32 * kk, self.row_bytes)
        return block * self.block_bytes + within

    @property
    def per_phase(self) -> int:
        return 128 // self.row_bytes

    @property
    def max_phase(self) -> int:
        return 8 // self.per_phase

    @property
    def bytes(self) -> int:
        return self.rows * self.cols * self.bits // 8

    def descriptor_bits(self) -> int:
        """The fixed fields of the 64-bit matrix descriptor: the leading and stride byte offsets
        and the swizzle mode (the start address is ORed in per operand)."""
        if self.k_major:
            lbo, sbo, mode = 16, 8 * self.row_bytes, {128: 1, 64: 2, 32: 3}[self.row_bytes]
        else:
            lbo, sbo, mode = self.k_length * 128, 1024, 1
        return (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62

    def tma_copies(self) -> TmaCopies | None:
        """How the tensor memory accelerator fills this operand from a row-major block whose rows
        are the operand's lines (each copy a box of `inner` elements of every line, swizzled as
        wgmma reads it), or None where no box does. TMA's swizzle XORs a 16-byte chunk's
        address bits 4-6 with bits 7-9, which is the canonical layouts' swizzle: a K-major
        operand's block of K is one box (32, 64 or 128 bytes of each line); an N-major B's (M-major
        A's) atom of 64 lines is one box of 128-byte k-rows."""
        if self.k_major:
            if self.row_bytes not in (32, 64, 128) or self.lines > 256:
                return None
            return TmaCopies(self.row_bytes * 8 // self.bits, self.lines, self.row_bytes,
                             self.line_bytes // self.row_bytes, self.block_bytes)
        if self.lines % 64 or self.k_length > 256:
            return None
        return TmaCopies(64, self.k_length, 128, self.lines // 64, self.k_length * 128)


@dataclass(frozen=True)
class TmaCopies:
    """The TMA copies of one operand tile: `count` boxes of `inner` x `outer` elements (inner
    fastest), the box j covering inner elements [j inner, (j + 1) inner) and landing `stride` bytes
    after box j - 1, swizzled over `swizzle` bytes (32, 64 or 128)."""

    inner: int
    outer: int
    swizzle: int
    count: int
    stride: int


def ldmatrix_operand(op: ir.Op) -> SharedLayout | WgmmaOperand | None:
    """The swizzled shared layout a blocked -> mma-operand conversion goes through with 16-byte
    stores and `ldmatrix` (or, for wgmma, the layout it reads), or None for the generic path."""
    src, dst = op.operands[0], op.result
    if isinstance(dst.layout, SharedOperandLayout):
        blocked = isinstance(src.layout, BlockedLayout)
        return WgmmaOperand(dst.layout.op_idx, *src.shape, src.dtype.bits, dst.layout.k_contiguous,
                            dst.layout.m_contiguous) if blocked else None
    if not (isinstance(dst.layout, DotOperandLayout) and isinstance(src.layout, BlockedLayout)):
        return None
    bits = src.dtype.bits
    # 16-bit operands, and an 8-bit A (its rows run along K): ldmatrix transposes only 16-bit
    # elements, so a row-major 8-bit B is read element by element, as Triton reads it. A 16-bit
    # operand whose threads hold runs down its columns (a K-major B: K^T loaded K fastest; an
    # M-major A: X^T) is stored in lines down the columns, as it lies, and read the other way.
    # A 32-bit (tf32) operand is read element by element (ldmatrix moves 16-bit elements), in
    # whichever major it was loaded: its swizzle puts a warp's reads in 32 distinct banks.
    order = (1, 0) if src.layout.order[0] == 1 else (0, 1)
    if (bits, dst.layout.op_idx) not in ((16, 0), (16, 1), (8, 0), (32, 0), (32, 1)) \
            or dst.layout.k_width != 32 // bits \
            or (order == (0, 1) and (bits == 8 or src.layout.contig_per_thread(src.shape) < 2)):
        return None
    rows, cols = src.shape
    line = cols if order == (1, 0) else rows
    shared = mma_operand_swizzle(line, bits, dst.layout.op_idx, order)
    if line % (shared.vec * shared.max_phase) or rows < 16 or cols < 16:
        return None
    return shared
# --8<-- [end:operands]


# --8<-- [start:rounds]
ROUND_BYTES = 64 * 1024  # a conversion larger than this goes through shared memory in rounds


def conversion_rounds(op: ir.Op) -> int:
    """In how many rounds a convert_layout moves its tile through shared memory: 1, or, for a
    tile of more than ROUND_BYTES, a power of two that makes each round at most that big. Round
    c moves rows [c R, (c + 1) R) of dimension 0; it can be cut there when which round a register
    belongs to is the same in every thread: when no lane and no warp of either layout holds rows
    R or more apart. (Triton converts a big tile in repetitions of its layouts' tiles the same
    way, so a 256 x 256 fp32 conversion needs 64 KB at a time, not 256.)"""
    src, dst = op.operands[0], op.result
    if not _row_major_conversion(op):
        return 1
    total = conversion_bytes(op)
    if total <= ROUND_BYTES:
        return 1
    rows, sides = src.shape[0], ((src.layout, src.shape), (dst.layout, dst.shape))
    threads = [b[0] for layout, shape in sides
               for b in layout.lane_bases(shape) + layout.warp_bases(shape)]
    registers = [b[0] for layout, shape in sides for b in layout.register_bases(shape)]
    if any(span & (span - 1) for span in threads + registers):  # a basis not one bit of the row
        return 1
    rounds = 1
    while total // rounds > ROUND_BYTES and rows // (rounds * 2) > max(threads, default=0):
        rounds *= 2
    return rounds
# --8<-- [end:rounds]


# --8<-- [start:padding]
def conversion_strides(op: ir.Op) -> list[int]:
    """The element strides of a convert_layout's tile in its buffer: row-major, each row padded by
    16 bytes where that spreads a warp's accesses over more banks. A bank is 4 bytes wide and
    there are 32, so the rows of a 256-element fp16 tile all start in bank 0: the eight rows of an
    mma accumulator that a warp stores at once (four lanes a row) meet in four banks, and each
    store takes 8 passes. A row 16 bytes longer starts 4 banks further on, and the store takes 1.
    Padding in 16 bytes keeps every row's 16-byte vectors aligned."""
    src, dst = op.operands[0], op.result
    strides = row_major(src.shape)
    if not _row_major_conversion(op) or len(src.shape) < 2:
        return strides
    size = max(src.dtype.itemsize, 1)
    padded = row_major([*src.shape[:-1], src.shape[-1] + 16 // size])
    cost = lambda s: (bank_passes(src.layout, tuple(src.shape), tuple(s), size)  # noqa: E731
                      + bank_passes(dst.layout, tuple(dst.shape), tuple(s), size))
    return padded if cost(padded) < cost(strides) else strides


def conversion_bytes(op: ir.Op) -> int:
    """The bytes of a convert_layout's whole tile in its buffer, padded rows included."""
    src = op.operands[0]
    return src.shape[0] * conversion_strides(op)[0] * src.dtype.itemsize


def _row_major_conversion(op: ir.Op) -> bool:
    """A convert_layout whose tile goes through its buffer row-major (`codegen.shared.through_shared`),
    not into a tensor-core operand's own layout (`ldmatrix_operand`), which takes no rounds or pads."""
    return op.name == "convert_layout" and op.operands[0].type.is_tile and ldmatrix_operand(op) is None


@functools.cache
def bank_passes(layout, shape: tuple, strides: tuple, size: int) -> int:
    """The passes through shared memory's 32 banks that warp 0 makes to access each of its
    registers' elements at `strides` (one register at a time, over the 32 lanes): for each
    register, the most distinct 4-byte words that fall in one bank. A sum over registers, to
    compare two ways of laying a tile out."""
    lanes = [layout.lane_offset(lane, shape) for lane in range(32)]
    total = 0
    for offset in dict.fromkeys(map(tuple, layout.register_offsets(shape))):
        elements = [sum((o ^ l) * stride for o, l, stride in zip(offset, lane, strides)) for lane in lanes]
        words = {element * size // 4 for element in elements}
        banks: dict[int, int] = {}
        for word in words:
            banks[word % 32] = banks.get(word % 32, 0) + 1
        total += max(banks.values())
    return total
# --8<-- [end:padding]


def row_major(shape) -> list[int]:
    strides, stride = [], 1
    for extent in reversed(shape):
        strides.insert(0, stride)
        stride *= extent
    return strides


# --8<-- [start:scratch]
def scratch_bytes(op: ir.Op) -> int:
    """Bytes of shared memory an op needs while it runs (0 when it stays in registers)."""
    name = op.name
    if name == "convert_layout" and isinstance(op.result.layout, SharedOperandLayout):
        # a wgmma operand: 1 KB atoms
        return (op.result.type.numel * op.result.dtype.itemsize + 1023) // 1024 * 1024
    if name in MOVES:
        src = op.operands[0]
        if not src.type.is_tile or register_map(src.layout, src.shape, op.result.layout, op.result.shape,
                                                index_map(op)) is not None:
            return 0
        if _row_major_conversion(op):  # its rows padded
            return conversion_bytes(op) // conversion_rounds(op)
        return src.type.numel * src.dtype.itemsize
    if name == "reduce":
        return reduce_scratch_bytes(op)
    if name in ("atomic", "atomic_cas"):
        return op.result.type.numel * op.result.dtype.itemsize if replicated(op.result) else 0
    if name == "scan":
        return component_offsets(op, op.results[0].type.numel)[1]
    if name == "gather":  # the whole source, which any thread may index
        return op.operands[0].type.numel * op.operands[0].dtype.itemsize
    if name == "histogram":  # one int32 counter per bin
        return 4 * op.attrs["bins"]
    if name == "dot":
        if isinstance(op.operands[0].layout, (DotOperandLayout, SharedOperandLayout)):
            return 0
        a, b, _ = op.operands
        return (a.type.numel + b.type.numel) * a.dtype.itemsize
    return 0
# --8<-- [end:scratch]


def components(op: ir.Op) -> list[ir.DType]:
    """What a reduction or scan carries per element: a value per operand (several for `tl.reduce`
    of a tuple), or an argmax's or argmin's value and then its int32 index."""
    if op.attrs["kind"] in ("argmax", "argmin"):
        return [op.operands[0].dtype, ir.int32]
    return [x.dtype for x in op.operands]


def component_offsets(op: ir.Op, count: int) -> tuple[list[int], int]:
    """Where each component's `count` elements start in the op's buffer (one after another, each on
    max(4, its size) bytes), and where the last one ends."""
    offsets, end = [], 0
    for dtype in components(op):
        align = max(4, dtype.itemsize)
        end = (end + align - 1) // align * align
        offsets.append(end)
        end += count * dtype.itemsize
    return offsets, end


def reduce_partials(op: ir.Op) -> int:
    """How many partial results a reduction leaves in shared memory: one per warp along the axis
    per result element (0 when a single warp spans the axis: shuffles finish the job)."""
    src = op.operands[0]
    warps = 1 << len(src.layout.warp_masks_along(op.attrs["axis"], src.shape))
    return 0 if warps == 1 else warps * op.results[0].type.numel


def reduce_scratch_bytes(op: ir.Op) -> int:
    """Shared memory a reduction needs: every component of its partial results."""
    count = reduce_partials(op)
    return (component_offsets(op, count)[1] + 3) // 4 * 4 if count else 0
