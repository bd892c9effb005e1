"""Tensor cores: which instruction a dot gets, and the layouts that go with it.

`mma_layouts` answers for one dot: on sm_90a `wgmma` (its accumulator a warpgroup's 64 rows and
a share of the columns, its operands left in shared memory, or A in registers where it was
computed there), elsewhere `mma.sync` (fragments in registers), or None (the dot runs on CUDA
cores). fp8 operands that wgmma does not take are widened to fp16 first. The layout pass
(`passes/layout`) asks it for every dot; codegen (`codegen/dot`) reads its type tables.
Chapter: 04-layouts (the choice), 10-performance (wgmma).
"""
from __future__ import annotations

from .. import ir
from .geometry import WgmmaOperand
from ..layouts import BlockedLayout, DotOperandLayout, MmaLayout, PermutedLayout, SharedOperandLayout


# --8<-- [start:mma]
def mma_warps(m: int, n: int, num_warps: int) -> tuple[int, int]:
    """How warps tile an (m, n) accumulator: double along whichever side leaves each warp the
    squarer share (Triton's rule), so the A and B fragments each warp reads stay balanced."""
    warps = [1, 1]
    while warps[0] * warps[1] < num_warps:
        if m // 16 // warps[0] >= n // 16 // warps[1] and warps[0] < m // 16:
            warps[0] *= 2
        else:
            warps[1] *= 2
    return warps[0], warps[1]


# The operand types mma.sync multiplies, by how many of their elements along K share one 32-bit
# register: fp16 and bf16 two (m16n8k16), tf32 one (m16n8k8: the fp32 operands of a "tf32" dot),
# int8 four (m16n8k32).
MMA_K_WIDTH = {"fp16": 2, "bf16": 2, "tf32": 1, "int8": 4}

# The operand types of the tensor cores by their PTX names: wgmma (sm_90a) multiplies all of them
# (e4m3 may meet e5m2), mma.sync those above. A wgmma takes 32 bytes of K: k16 for 16-bit
# types, k32 for 8-bit ones, k8 for tf32.
PTX_TYPES = {"fp16": "f16", "bf16": "bf16", "tf32": "tf32", "int8": "s8", "fp8e4nv": "e4m3",
             "fp8e5": "e5m2"}

# The accumulator the tensor cores keep for each operand type: int32 for int8, fp32 for the rest.
MMA_ACCUMULATOR = {"int8": ir.int32}


def mma_operand_type(dot: ir.Op, index: int = 0) -> str | None:
    """The tensor cores' name for the type of operand `index` of a dot, or None if they have
    none."""
    x = dot.operands[index]
    if x.dtype.is_fp32():
        return "tf32" if dot.attrs["input_precision"] == "tf32" else None
    return x.dtype.name if x.dtype.name in PTX_TYPES else None


def wgmma_warps(m: int, num_warps: int) -> tuple[int, int]:
    """How warps tile a wgmma accumulator of `m` rows (Triton's rule): a warpgroup of 4 warps
    along M, doubled along M while the rows go further, then along N. So 8 warps take a 128-row
    tile as (8, 1), two warpgroups one above the other, and a 64-row tile as (4, 2), two
    warpgroups side by side, each issuing an m64nN/2 of its half of the columns."""
    warps_m = 4
    while warps_m < num_warps and m > 16 * warps_m:
        warps_m *= 2
    return warps_m, max(1, num_warps // warps_m)


def wgmma_accumulator(m: int, n: int, num_warps: int) -> MmaLayout:
    """The layout of a wgmma accumulator: version 2's `(num_warps, 1)` when one warpgroup spans
    N, else version 3's, whose warp tiles are each warpgroup's share of the columns."""
    warps_m, warps_n = wgmma_warps(m, num_warps)
    if warps_n == 1:
        return MmaLayout((num_warps, 1))
    return MmaLayout((warps_m, warps_n), version=3, instr_shape=(16, n // warps_n))


def wgmma_fits(dot: ir.Op, num_warps: int, registers: bool = False, b_k_major: bool = False,
               a_m_major: bool = False) -> bool:
    """Whether wgmma takes this dot: warpgroups of 4 warps, each 64 rows of the accumulator and
    the columns `wgmma_warps` gives it, up to 256, in whole 64-column atoms where B stays
    N-major (16-bit types not `b_k_major`), else in 8-line groups; the lines of K of the operands
    kept K-major in shared memory in one swizzle atom or whole 128-byte blocks
    (`geometry.WgmmaOperand`). With A in `registers` or `a_m_major` only B may be K-major: K
    needs whole k16 steps, and whole lines when B is K-major; in registers, one warpgroup must
    span N (each warp holds the A rows of its own 16 rows only)."""
    a, b, acc = dot.operands
    m, n = acc.shape
    bits = a.dtype.bits
    line_fits = WgmmaOperand.k_fits(a.shape[1] * bits // 8)
    k_fits = line_fits
    if registers or a_m_major:  # A's lines are not K: only B's may need to fit
        k_fits = a.shape[1] % 16 == 0 and (line_fits or not b_k_major)
    n_step = 64 if bits == 16 and not b_k_major else 8
    if num_warps % 4 or m % 64:
        return False
    warps_m, warps_n = wgmma_warps(m, num_warps)
    width = n // warps_n  # the columns of one warpgroup's wgmma
    return m % (16 * warps_m) == 0 and n % warps_n == 0 and width <= 256 and width % n_step == 0 \
        and width & (width - 1) == 0 and k_fits and not (registers and warps_n > 1)


# --8<-- [start:rs]
def wgmma_in_registers(dot: ir.Op, a_layout, num_warps: int, b_k_major: bool = False) -> bool:
    """Whether a wgmma dot takes A from registers (the RS form) rather than from shared memory:
    when A was computed in the layout of a wgmma accumulator (attention's P = exp2(S - m), cast
    to 16 bits, made from the scores S of the dot before). Each warp then already holds its 16
    rows as mma.sync's A fragment (`DotOperandLayout` of that accumulator), so A reaches the
    instruction with no trip through shared memory: the conversion only renumbers registers."""
    return a_layout == MmaLayout((num_warps, 1)) and dot.operands[0].dtype.bits == 16 \
        and wgmma_fits(dot, num_warps, registers=True, b_k_major=b_k_major)
# --8<-- [end:rs]


def m_contiguous(dot: ir.Op, a_layout) -> bool:
    """Whether wgmma's 16-bit A is stored M-major: when its threads hold runs along M (it was
    loaded M fastest: `x.T` of a row-major x, as a weight gradient's X^T is), which then go to
    shared memory, or come in by cp.async, 16 bytes at a time, and the instruction transposes
    them, where a K-major buffer would take them one element at a time."""
    a = dot.operands[0]
    return isinstance(a_layout, BlockedLayout) and a_layout.order[0] == 0 and a.dtype.bits == 16 \
        and a_layout.contig_per_thread(a.shape) > 1


def k_contiguous(dot: ir.Op, b_layout) -> bool:
    """Whether wgmma's 16-bit B is stored K-major: when its threads hold runs along K (it was
    loaded K fastest, as attention's K^T is), which then go to shared memory as they are, 16
    bytes at a time, where an N-major buffer would take them one element at a time. The lines
    of K must fit (`geometry.WgmmaOperand.k_fits`); other types are K-major anyway."""
    b = dot.operands[1]
    return isinstance(b_layout, BlockedLayout) and b_layout.order[0] == 0 and b.dtype.bits == 16 \
        and b_layout.contig_per_thread(b.shape) > 1 and WgmmaOperand.k_fits(b.shape[0] * 2)


def mma_layouts(dot: ir.Op, num_warps: int, arch: str = "sm_80", a_layout=None, b_layout=None):
    """Tensor-core layouts for `dot` when the types and shape allow, else None: on sm_90a the
    operands stay in shared memory for `wgmma` (A in registers where `wgmma_in_registers` says,
    given the layout `a_layout` A was computed in; B K-major where `b_layout` has K fastest);
    elsewhere they go to registers for mma.sync (fp8 after `upcast_fp8_operands`)."""
    a, b, acc = dot.operands
    kind = mma_operand_type(dot)
    if kind is None or mma_operand_type(dot, 1) is None or len(acc.shape) != 2 \
            or acc.dtype != MMA_ACCUMULATOR.get(kind, ir.float32):
        return None
    if arch == "sm_90a":
        mma = wgmma_accumulator(*dot.operands[2].shape, num_warps)
        b_k_major = k_contiguous(dot, b_layout)
        b_shared = SharedOperandLayout(1, mma, b_k_major)
        if wgmma_in_registers(dot, a_layout, num_warps, b_k_major):
            return DotOperandLayout(0, mma, MMA_K_WIDTH[kind]), b_shared, mma
        down_columns = isinstance(a_layout, (BlockedLayout, PermutedLayout)) and a_layout.order[0] == 0
        if a.dtype.bits == 32 and down_columns and wgmma_fits(dot, num_warps, registers=True):
            return DotOperandLayout(0, mma, 1), b_shared, mma  # tf32 A down its columns: from registers
        a_m_major = m_contiguous(dot, a_layout)
        if wgmma_fits(dot, num_warps, b_k_major=b_k_major, a_m_major=a_m_major):
            return SharedOperandLayout(0, mma, m_contiguous=a_m_major), b_shared, mma
    k_width = MMA_K_WIDTH.get(kind)
    m, n = acc.shape
    if k_width is None or m % 16 or n % 8 or a.shape[1] % (8 * k_width):
        return None
    # a tile smaller than the warps' (16 x 16 on 4 warps: (1, 4), 32 columns) is computed by some
    # warps twice, as Triton does: the tensor cores still beat the FMA path on it
    mma = MmaLayout(mma_warps(m, n, num_warps))
    return DotOperandLayout(0, mma, k_width), DotOperandLayout(1, mma, k_width), mma


# --8<-- [start:swap]
def swap_tf32_operands(fn: ir.Function, num_warps: int, arch: str, vectors: dict) -> None:
    """wgmma reads tf32 operands from shared memory only K-major, so a B loaded N fastest (a
    row-major B, as most are) would be copied in 4 bytes at a time, transposed on the way. The
    dot is then computed transposed, C^T = B^T A^T: B^T becomes the A operand, which wgmma takes
    from registers in any major (the RS form, read from an N-major ring), and A^T a K-major B
    when A's rows run along K. So dot(a, b, acc) becomes trans(dot(trans(b), trans(a),
    trans(acc))): the transposes move nothing (their layouts are their operands' permuted,
    `passes/layout.permute_layout`), and a loop carries the accumulator transposed."""
    replaced: dict[int, ir.Value] = {}

    def visit(block: ir.Block) -> None:
        made = ir.Builder()
        for op in block.ops:
            op.operands = [replaced.get(id(v), v) for v in op.operands]
            for region in op.regions:
                visit(region)
            if op.name == "dot" and _swaps(op, num_warps, arch, vectors):
                made.loc = op.loc
                a, b, acc = op.operands
                trans = lambda x: made.value("trans", [x], perm=(1, 0))
                swapped = made.create("dot", [trans(b), trans(a), trans(acc)], dict(op.attrs))
                replaced[id(op.result)] = trans(swapped.result)
                continue
            made.block.ops.append(op)
        block.ops = made.block.ops
    visit(fn.body)


def _swaps(dot: ir.Op, num_warps: int, arch: str, vectors: dict) -> bool:
    """Whether `swap_tf32_operands` computes this dot transposed: a tf32 dot on sm_90a whose B is
    loaded N fastest and A not M fastest, and whose transposed shape wgmma takes with A in
    registers."""
    a, b, acc = dot.operands
    if arch != "sm_90a" or mma_operand_type(dot) != "tf32" or mma_operand_type(dot, 1) != "tf32" \
            or len(acc.shape) != 2 or acc.dtype != ir.float32:
        return False

    def fastest(x: ir.Value):  # the dimension a loaded operand's threads hold runs along
        if x.owner is None or x.owner.name != "load":
            return None
        order, _ = vectors.get(id(x.owner.operands[0]), (None, 1))
        return order[0] if order is not None else None
    if fastest(b) != 1 or fastest(a) == 0:
        return False
    scratch = ir.Builder()
    trans = lambda x: scratch.value("trans", [x], perm=(1, 0))
    return wgmma_fits(scratch.create("dot", [trans(b), trans(a), trans(acc)], dict(dot.attrs)), num_warps,
                      registers=True)
# --8<-- [end:swap]


# --8<-- [start:upcast]
def upcast_fp8_operands(block: ir.Block, num_warps: int, arch: str) -> None:
    """A dot of e4m3 / e5m2 operands that wgmma does not take (before sm_90a, or a shape it does
    not fit) multiplies their fp16 values instead, exactly (every such number is an fp16), as
    Triton decomposes it. The casts go just before the dot, so they run in the layout the loads
    made (once per element: an mma operand layout holds copies) and the fp16 operands then take
    the 16-byte-store and ldmatrix path to mma.sync."""
    made = ir.Builder()
    for op in list(block.ops):
        for region in op.regions:
            upcast_fp8_operands(region, num_warps, arch)
        if op.name == "dot" and op.operands[0].dtype.is_fp8():
            layouts = mma_layouts(op, num_warps, arch)
            if not (layouts and isinstance(layouts[0], SharedOperandLayout)):
                made.loc = op.loc
                op.operands[:2] = [made.value("cast", [x], dtype=ir.float16) for x in op.operands[:2]]
        made.block.ops.append(op)
    block.ops = made.block.ops
# --8<-- [end:upcast]
# --8<-- [end:mma]
