"""dot: acc + a @ b, on tensor cores (mma.sync, wgmma) or on CUDA cores (FMA).

The layout pass chose how: operands in `DotOperandLayout`s are mma.sync fragments in registers (they
arrived there by ldmatrix, `operands.py`); operands in `SharedOperandLayout`s with an `MmaLayout`
parent stay in shared memory for Hopper's wgmma, which a warpgroup of 4 warps issues
asynchronously; anything else is a dot on CUDA cores, one FMA per accumulator register per step of
k, with both operands read from shared memory. Chapter: 08-llvm (mma.sync, FMA) and
10-performance (wgmma, the FMA dot's rings and order).
"""
from __future__ import annotations

from llvmlite import ir as ll

from .. import ir
from ..layouts import DotOperandLayout, MmaLayout, SharedOperandLayout, fma_operand_swizzle
from ..passes.geometry import WgmmaOperand, row_major
from ..passes.tensor_cores import PTX_TYPES, mma_operand_type
from .elementwise import cast_register
from .lowering import Lowering, i16, i32, ll_type
from .operands import tf32, wgmma_descriptor
from .shared import dotted, element_ptrs, read, shared_at, storage_type, write


def _dot(lw: Lowering, op, a, b, acc):
    layout = op.operands[0].layout
    if len(op.result.shape) == 3:
        return _batched_dot(lw, op, a, b, acc)
    b_layout = op.operands[1].layout
    if isinstance(b_layout, SharedOperandLayout) and isinstance(b_layout.parent, MmaLayout):
        return _wgmma(lw, op, a, b, acc)
    if isinstance(layout, DotOperandLayout):
        return _mma(lw, op, a, b, acc)
    return _fma_dot(lw, op, a, b, acc)


# --8<-- [start:mma]
# The mma.sync instruction for each operand type (`passes.tensor_cores.mma_operand_type`): its shape and
# types. 16-bit types and tf32 accumulate in fp32; int8 in int32, saturating on overflow
# (`.satfinite`, as Triton spells it).
MMA_INSTRUCTIONS = {"f16": "m16n8k16.row.col.f32.f16.f16.f32",
                    "bf16": "m16n8k16.row.col.f32.bf16.bf16.f32",
                    "tf32": "m16n8k8.row.col.f32.tf32.tf32.f32",
                    "s8": "m16n8k32.row.col.satfinite.s32.s8.s8.s32"}


def _mma(lw: Lowering, op, a, b, acc):
    """acc += a @ b with mma.sync: per m16n8 tile and step of k, A fragments of 4 operand registers,
    B of 2, C of 4 accumulators (k16 for 16-bit types, two elements to a register; k32 for int8,
    four; k8 for tf32)."""
    B = lw.b
    av, bv, cv = op.operands
    kind = PTX_TYPES[mma_operand_type(op)]
    k_width = av.layout.k_width
    m_tile = 16 * av.layout.parent.warps_per_cta[0]
    n_tile = 8 * av.layout.parent.warps_per_cta[1]
    k_step = 8 * k_width
    a_tiles = _fragments(av.layout.register_offsets(av.shape), 4 * k_width,
                         lambda o: (o[0] // m_tile, o[1] // k_step))
    b_tiles = _fragments(bv.layout.register_offsets(bv.shape), 2 * k_width,
                         lambda o: (o[0] // k_step, o[1] // n_tile))
    c_tiles = _fragments(cv.layout.register_offsets(cv.shape), 4,
                         lambda o: (o[0] // m_tile, o[1] // n_tile))
    text = (f"mma.sync.aligned.{MMA_INSTRUCTIONS[kind]} "
            "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};")
    accumulator = _accumulator_constraint(cv)
    constraints = f"={accumulator},={accumulator},={accumulator},={accumulator},r,r,r,r,r,r,0,1,2,3"
    words = _pack if k_width > 1 else _fp32_words
    out = list(acc)
    k_tiles = av.shape[1] // k_step
    for (mi, ni), c_regs in c_tiles.items():
        values = [out[r] for r in c_regs]
        for ki in range(k_tiles):
            a_words = words(lw, [a[r] for r in a_tiles[(mi, ki)]])
            b_words = words(lw, [b[r] for r in b_tiles[(ki, ni)]])
            result = lw.asm(ll.LiteralStructType([ll_type(cv.dtype)] * 4), text, constraints,
                            a_words + b_words + values, side_effect=False)
            values = [B.extract_value(result, i) for i in range(4)]
        for r, v in zip(c_regs, values):
            out[r] = v
    return out
# --8<-- [end:mma]


def _accumulator_constraint(acc: ir.Value) -> str:
    """The inline-asm register class of the tensor cores' accumulators: f32 ("f") or s32 ("r")."""
    return "f" if acc.dtype.is_floating() else "r"


def _fragments(offsets, size: int, tile_of) -> dict:
    """Group a thread's registers into instruction fragments of `size`, keyed by their tile."""
    return {tile_of(offsets[start]): list(range(start, start + size)) for start in range(0, len(offsets), size)}


def _fp32_words(lw: Lowering, values: list) -> list:
    """tf32 operand registers: one fp32 each, its bits as they are (the tensor core cuts them)."""
    return [lw.b.bitcast(x, i32) for x in values]


def _pack(lw: Lowering, values: list) -> list:
    """The 32-bit operand registers of mma.sync: consecutive 16-bit (pairs) or 8-bit (fours)
    elements along K, the first in the lowest bits."""
    B = lw.b
    words = []
    per_word = 32 // values[0].type.width if isinstance(values[0].type, ll.IntType) else 2
    if per_word == 2:
        return [lw.pack_pair(values[i], values[i + 1]) for i in range(0, len(values), 2)]
    for start in range(0, len(values), per_word):
        word = None
        for i, x in enumerate(values[start:start + per_word]):
            bits = B.zext(x if isinstance(x.type, ll.IntType) else B.bitcast(x, i16), i32)
            word = bits if word is None else B.or_(word, B.shl(bits, ll.Constant(i32, 32 // per_word * i)))
        words.append(word)
    return words


# --8<-- [start:tf32]
def _operand_rounding(op):
    """What a dot does to each operand register before multiplying: a "tf32" dot of fp32 on CUDA
    cores cuts it to tf32, as the tensor cores would."""
    if op.operands[0].dtype.is_fp32() and op.attrs["input_precision"] == "tf32":
        return tf32
    return lambda lw, x: x
# --8<-- [end:tf32]


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
    size = elem.itemsize

    def thread_term():
        row, k = lw.thread_part(av.layout, av.shape)
        return B.add(B.mul(k, ll.Constant(i32, m)), B.xor(row, _chunk(lw, k, width)))
    term = lw.in_prologue(thread_term)
    start = B.add(ll.Constant(i32, op.attrs.get("smem_offset", 0)), B.mul(term, ll.Constant(i32, size)))
    offsets = av.layout.register_offsets(av.shape)
    rounded = _operand_rounding(op)
    a, b = [rounded(lw, x) for x in a], [rounded(lw, x) for x in b]
    for r in lw.unique_registers(av.layout, av.shape):
        row, k = offsets[r]
        write(lw, lw.shared_ptr(B.add(start, ll.Constant(i32, (k * m + row) * size))), a[r], elem)
    ptrs = element_ptrs(lw, op, bv.layout, bv.shape, (n, 1), elem, m * k_size * size)
    offsets = bv.layout.register_offsets(bv.shape)
    bases = [basis[1] for basis in bv.layout.lane_bases(bv.shape) + bv.layout.warp_bases(bv.shape)]
    vectors = elem.bits == 32 and n % 4 == 0 and all(x % 4 == 0 for x in bases)
    unique = set(lw.unique_registers(bv.layout, bv.shape))
    r = 0
    while r < len(offsets):
        run = offsets[r:r + 4]
        if vectors and len(run) == 4 and run[0][1] % 4 == 0 and set(range(r, r + 4)) <= unique \
                and run == [(run[0][0], run[0][1] + t) for t in range(4)]:
            vector = ll.Constant(ll.VectorType(storage_type(elem), 4), None)
            for t in range(4):
                vector = B.insert_element(vector, b[r + t], ll.Constant(i32, t))
            B.store(vector, B.bitcast(ptrs[r], vector.type.as_pointer(3)), align=16)
            r += 4
            continue
        if r in unique:
            write(lw, ptrs[r], b[r], elem)
        r += 1


def _fma_dot(lw: Lowering, op, a, b, acc):
    """acc[i, j] += sum_k a[i, k] * b[k, j] on CUDA cores: at each k a thread reads its rows of a
    and its columns of b from shared memory, as vectors where they are consecutive, then does one
    FMA per accumulator register. The operands arrive in registers, and are staged here as a^T
    (k-major, swizzled: a thread's rows at one k are consecutive) and b; or they already sit in
    the pipeline's rings, a row-major in swizzled 16-byte chunks (4 steps of k of one row) and b
    row-major. k goes in chunks of 4 steps where registers allow, several chunks per iteration."""
    B = lw.b
    c = lambda v: ll.Constant(i32, v)
    av, bv, cv = op.operands
    (m, k_size), (_, n) = av.shape, bv.shape
    elem, compute = av.dtype, cv.dtype
    size = elem.itemsize
    offsets = cv.layout.register_offsets(cv.shape)
    parts = lw.thread_part(cv.layout, cv.shape)
    col_runs = _runs_of_four([o[1] for o in offsets], cv.layout, cv.shape, 1)

    def vector(start, count: int) -> list:
        """`count` consecutive elements from byte `start`, in one load where count > 1."""
        ptr = lw.shared_ptr(start)
        if count == 1:
            loaded = [read(lw, ptr, elem)]
        else:
            v = B.load(ptr, typ=ll.VectorType(storage_type(elem), count), align=count * size)
            loaded = [B.extract_element(v, c(t)) for t in range(count)]
        return [cast_register(lw, x, elem, compute) for x in loaded]

    def runs_at(start, runs, part) -> dict:
        """{offset: value} of a thread's runs in the line of elements starting at byte `start`."""
        values = {}
        for run in runs:
            values.update(zip(run,
                              vector(B.add(start, B.mul(B.add(part, c(run[0])), c(size))),
                                     len(run))))
        return values

    if isinstance(av.layout, SharedOperandLayout):
        ring = fma_operand_swizzle(0, av.shape, elem.bits, cv.layout, cv.shape)
        a_base, b_base, unroll = a[0], b[0], ring.vec
        rows = sorted({o[0] for o in offsets})
        # the swizzle uses only bits of the thread's part of the row, so it is one value per thread
        row_start, phase = lw.in_prologue(lambda: (
            B.mul(parts[0], c(k_size * size)),
            B.urem(B.udiv(parts[0], c(ring.per_phase)), c(ring.max_phase))))

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
    order = sorted(range(len(offsets)),
                   key=lambda i: (offsets[i][0], (-1) ** offsets[i][0] * offsets[i][1]))

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


# --8<-- [start:batched]
def _batched_dot(lw: Lowering, op, a, b, acc):
    """A 3-D dot, acc[z] += a[z] @ b[z] for each z of the batch, on CUDA cores: both operands are
    staged in the op's shared memory as they are (row-major), then each thread, at each step of
    k, reads the a and b elements its accumulator registers need and does one FMA per register.
    Plain and correct; the 2-D paths are the fast ones."""
    B = lw.b
    av, bv, cv = op.operands
    elem, compute = av.dtype, cv.dtype
    rounded = _operand_rounding(op)
    b_base = av.type.numel * elem.itemsize
    for value, registers, base in ((av, a, 0), (bv, b, b_base)):
        indices = lw.indices(value.layout, value.shape)
        for r in lw.unique_registers(value.layout, value.shape):
            ptr = shared_at(lw, op, dotted(lw, indices[r], row_major(value.shape)), elem, base)
            write(lw, ptr, rounded(lw, registers[r]), elem)
    lw.barrier()
    (_, m, k), n = av.shape, bv.shape[2]
    out_indices = lw.indices(cv.layout, cv.shape)

    def step(kk, accumulators):
        updated = []
        for (z, i, j), value in zip(out_indices, accumulators):
            x = read(lw, shared_at(lw, op, dotted(lw, [z, i, kk], (m * k, k, 1)), elem), elem)
            y = read(lw, shared_at(lw, op, dotted(lw, [z, kk, j], (k * n, n, 1)), elem, b_base), elem)
            x, y = cast_register(lw, x, elem, compute), cast_register(lw, y, elem, compute)
            if compute.is_floating():
                updated.append(lw.call(f"llvm.fma.{'f64' if compute.is_fp64() else 'f32'}",
                                       ll_type(compute),
                                       [x, y, value]))
            else:
                updated.append(B.add(value, B.mul(x, y)))
        return updated

    return lw.counted_loop(ll.Constant(i32, 0), k, 1, list(acc), step)
# --8<-- [end:batched]


# --8<-- [start:wgmma]
def _wgmma(lw: Lowering, op, a, b, acc):
    """acc += a @ b by warpgroups: each group of 4 warps computes 64 rows and its share of the
    columns (all of them, or a slice where warpgroups split N: `tensor_cores.wgmma_warps`) with
    wgmma.m64nNkK (32 bytes of K: k16, k32 for fp8 and int8, k8 for tf32), reading B from shared
    memory through a descriptor (K-major, or N-major: only a 16-bit operand may be, by its
    transpose bit), and A either from there too (K-major, or M-major: X^T) or, when it was
    computed in registers (attention's P), from them: the RS form, four 32-bit words per thread
    per k16 step, each warp's 16 rows laid out as mma.sync's A fragment."""
    B = lw.b
    av, bv, cv = op.operands
    (m, k), n = av.shape, bv.shape[1]
    warps_m, warps_n = cv.layout.warps_per_cta
    n //= warps_n  # the columns of one warpgroup's instruction
    registers = isinstance(av.layout, DotOperandLayout)  # A in registers: the RS form
    m_major = not registers and av.layout.m_contiguous  # X^T: the instruction transposes it
    a_shared = WgmmaOperand(0, m, k, av.dtype.bits, m_contiguous=m_major)
    b_shared = WgmmaOperand(1, k, bv.shape[1], bv.dtype.bits, bv.layout.k_contiguous)
    smem_base = B.ptrtoint(lw.shared_ptr(ll.Constant(i32, 0)), i32)
    group = B.lshr(lw.uniform_warp, ll.Constant(i32, 2))  # warpgroups are numbered down M first
    group_row = B.mul(B.urem(group, ll.Constant(i32, warps_m // 4)), ll.Constant(i32, 64))
    group_col = B.mul(B.udiv(group, ll.Constant(i32, warps_m // 4)), ll.Constant(i32, n))
    b_group = B.add(B.add(smem_base, b[0]), B.mul(group_col, ll.Constant(i32, b_shared.line_step)))
    a_type, b_type = PTX_TYPES[mma_operand_type(op)], PTX_TYPES[mma_operand_type(op, 1)]
    k_step = 256 // av.dtype.bits
    count = n // 2  # accumulator registers of one m64nN tile per thread
    outs = ",".join(f"${i}" for i in range(count))
    a_text = "{" + ",".join(f"${count + i}" for i in range(4)) + "}" if registers else f"${count}"
    b_index = count + (4 if registers else 1)
    if cv.dtype.is_floating():
        # scale-d, A's and B's scales (1), 16-bit types' transposes: A's (SS only), B's
        transposes = ("" if registers else f", {int(m_major)}") + f", {int(not b_shared.k_major)}"
        scales = ", 1, 1" + (transposes if bv.dtype.bits == 16 else "")
        instruction = f"wgmma.mma_async.sync.aligned.m64n{n}k{k_step}.f32.{a_type}.{b_type}"
    else:  # integers have only scale-d, both operands K-major; no .satfinite, as Triton spells it
        scales = ""
        instruction = f"wgmma.mma_async.sync.aligned.m64n{n}k{k_step}.s32.{a_type}.{b_type}"
    def text(scale_d: int) -> str:  # scale-d 0: D = A @ B, the accumulator's registers unread
        return (f"{{ .reg .pred p; setp.ne.b32 p, {scale_d}, 0; "
                f"{instruction} {{{outs}}}, {a_text}, ${b_index}, p{scales}; }}")
    constraints = ",".join([f"={_accumulator_constraint(cv)}"] * count + ["r"] * 4 * registers
                           + ["l"] * (2 - registers) + [str(i) for i in range(count)])
    if registers:  # this thread's A fragment of each (m64 tile, k step), as _mma groups them:
        # 8 16-bit elements (four words) of a k16 step, or 4 fp32 of a tf32 k8 step
        a_tiles = _fragments(av.layout.register_offsets(av.shape), 4 * av.layout.k_width,
                             lambda o: (o[0] // (16 * warps_m), o[1] // k_step))
        words = _pack if av.layout.k_width > 1 else _fp32_words
    # every operand register is made before the fence: one written after it, between two wgmmas,
    # makes ptxas fence again there (its "warpgroup.arrive is injected" note)
    operands = {}
    m_reps = m // (16 * warps_m)
    for m_rep in range(m_reps):
        row = B.add(group_row, ll.Constant(i32, m_rep * 16 * warps_m))
        for kk in range(k // k_step):
            if not registers:
                a_base = B.add(smem_base, a[0])
                a_row = B.mul(row, ll.Constant(i32, a_shared.line_step))
                a_address = B.add(a_base, B.add(a_row, ll.Constant(i32, a_shared.k_step_offset(kk))))
            b_address = B.add(b_group, ll.Constant(i32, b_shared.k_step_offset(kk)))
            a_operand = words(lw, [a[r] for r in a_tiles[(m_rep, kk)]]) if registers \
                else [wgmma_descriptor(lw, a_shared, a_address)]
            operands[m_rep, kk] = a_operand + [wgmma_descriptor(lw, b_shared, b_address)]
    # a zero accumulator (the dot had none) is never read: scale-d 0 on the first k-step
    zero = ir.is_zero(cv)
    out = [ll.Constant(x.type, ll.Undefined) for x in acc] if zero else list(acc)
    lw.asm(ll.VoidType(), "wgmma.fence.sync.aligned;", "", [])
    for m_rep in range(m_reps):
        regs = out[m_rep * count:(m_rep + 1) * count]
        for kk in range(k // k_step):
            result = lw.asm(ll.LiteralStructType([ll_type(cv.dtype)] * count),
                            text(int(not (zero and kk == 0))), constraints, operands[m_rep, kk] + regs)
            regs = [B.extract_value(result, i) for i in range(count)]
        out[m_rep * count:(m_rep + 1) * count] = regs
    lw.asm(ll.VoidType(), "wgmma.commit_group.sync.aligned;", "", [])
    pending = op.attrs.get("pending", 0)  # 1 in a pipelined loop: this group runs on into the next
    if pending:
        if not op.attrs.get("deferred"):  # (else a wgmma_wait at the next iteration's top ends it)
            lw.asm(ll.VoidType(), f"wgmma.wait_group.sync.aligned {pending};", "", [])
        return out
    return _wgmma_wait(lw, op, out)


def _wgmma_wait(lw: Lowering, op, acc):
    """Wait for every wgmma group; the accumulator registers go through the wait as operands tied
    to its results, so nothing reads them before it (they are being written until then)."""
    count = 64  # registers per asm statement
    out = []
    kind = _accumulator_constraint(op.result)
    for start in range(0, len(acc), count):
        regs = acc[start:start + count]
        constraints = ",".join([f"={kind}"] * len(regs) + [str(i) for i in range(len(regs))])
        text = "wgmma.wait_group.sync.aligned 0;" if start == 0 else ""
        result = lw.asm(ll.LiteralStructType([regs[0].type] * len(regs)), text, constraints, regs)
        out += [lw.b.extract_value(result, i) for i in range(len(regs))]
    return out
# --8<-- [end:wgmma]


RULES = {"dot": _dot, "wgmma_wait": _wgmma_wait}
