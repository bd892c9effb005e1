"""Software pipelining on the IR: what the pass makes of matmul's loop, and what it leaves alone."""
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import ir
from minitriton.examples.tutorials import matmul_kernel
from minitriton.frontend import generate
from minitriton.specialize import arg_spec, specialize
from minitriton.passes.coalesce import coalesce
from minitriton.passes.layout import assign_layouts
from minitriton.passes.pipeline import pipeline
from minitriton.passes.simplify import simplify


def aligned(shape, dtype):
    raw = np.zeros(int(np.prod(shape)) * np.dtype(dtype).itemsize + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    return raw[start:start + int(np.prod(shape)) * np.dtype(dtype).itemsize].view(dtype).reshape(shape)


def laid_out(kernel, args: dict, constexprs: dict, num_warps=4, arch="sm_80") -> ir.Function:
    specs = {name: arg_spec(specialize(name, value)) for name, value in args.items()}
    fn = simplify(generate(kernel, specs, constexprs))
    return assign_layouts(fn, num_warps, coalesce(fn, num_warps), arch)


def matmul_ir(k=256, other_zero=True, arch="sm_80"):
    a = aligned((128, k), np.float16)
    b = aligned((k, 128), np.float16)
    c = aligned((128, 128), np.float16)
    args = dict(a_ptr=a, b_ptr=b, c_ptr=c, M=128, N=128, K=k, stride_am=k, stride_ak=1, stride_bk=128,
                stride_bn=1, stride_cm=128, stride_cn=1)
    constexprs = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="")
    return laid_out(matmul_kernel, args, constexprs, arch=arch)


def fp32_matmul_ir(block_m=128, block_n=64, num_warps=4):
    """The benchmark's fp32 matmul with an ieee dot, which runs on CUDA cores."""
    from minitriton.bench import matmul_kernel as bench_matmul
    a, b, c = (aligned((256, 256), np.float32) for _ in range(3))
    args = dict(a_ptr=a, b_ptr=b, c_ptr=c, M=256, N=256, K=256, stride_am=256, stride_ak=1, stride_bk=256,
                stride_bn=1, stride_cm=256, stride_cn=1)
    constexprs = dict(BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
                      INPUT_PRECISION="ieee")
    return laid_out(bench_matmul, args, constexprs, num_warps=num_warps, arch="sm_90a")


def loops(fn):
    return [op for op in fn.walk() if op.name == "for"]


def test_matmul_loop_is_pipelined_three_stages_deep():
    fn = pipeline(matmul_ir(), 3)
    top = [op.name for op in fn.body.ops]
    assert top.count("async_commit") == 2  # the prologue: iterations 0 and 1
    assert top.count("async_load") == 4  # two operands, two stages
    loop_at = top.index("for")
    assert top[loop_at + 1] == "async_wait" and fn.body.ops[loop_at + 1].attrs["pending"] == 0
    body = [op.name for op in loops(fn)[0].regions[0].ops]
    assert body[:2] == ["async_wait", "barrier"]
    assert loops(fn)[0].regions[0].ops[0].attrs["pending"] == 1  # the oldest of two groups has landed
    assert body.count("local_read") == 2 and "load" not in body
    assert body.count("async_load") == 2 and body.count("async_commit") == 1
    rings = fn.attrs["shared_buffers"]
    assert sorted(rings.values()) == [3 * 64 * 32 * 2, 3 * 32 * 64 * 2]


def test_the_rings_are_read_through_ldmatrix_or_wgmma_layouts():
    fn = pipeline(matmul_ir(arch="sm_90a"), 3)
    reads = [op for op in fn.walk() if op.name == "local_read"]
    assert {type(op.result.layout).__name__ for op in reads} == {"SharedOperandLayout"}
    waits = [op for op in fn.walk() if op.name == "async_wait"]
    assert waits[0].attrs.get("fence")  # the tensor cores read what cp.async wrote: a proxy fence first


def test_one_stage_means_no_pipelining():
    fn = pipeline(matmul_ir(), 1)
    assert not any(op.name.startswith("async") for op in fn.walk())


@triton.jit
def other_not_zero(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, PRECISION: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + offs[:, None] * K + k + offs[None, :], mask=k + offs[None, :] < K, other=1.0)
        b = tl.load(b_ptr + (k + offs[:, None]) * BLOCK + offs[None, :])
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)


def test_a_load_with_a_nonzero_other_is_not_copied_asynchronously():
    """cp.async fills masked elements with zeros, so only a zero (or absent) `other` may be pipelined."""
    a, b = aligned((64, 256), np.float16), aligned((256, 64), np.float16)
    c = aligned((64, 64), np.float32)
    fn = laid_out(other_not_zero, dict(a_ptr=a, b_ptr=b, c_ptr=c, K=256), dict(BLOCK=64, PRECISION="tf32"))
    fn = pipeline(fn, 3)
    copied = [op for op in fn.walk() if op.name == "async_load"]
    assert len(copied) == 3  # B only: two copies in the prologue, one in the loop (A would add three)
    body = [op.name for op in loops(fn)[0].regions[0].ops]
    assert body.count("load") == 1 and body.count("local_read") == 1  # A is still loaded, then converted


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_pipelined_matmul_still_compiles_for_every_depth(stages, tmp_path, monkeypatch):
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path))
    a = aligned((128, 256), np.float16)
    b = aligned((256, 128), np.float16)
    c = aligned((128, 128), np.float16)
    kernel = matmul_kernel.warmup(a, b, c, 128, 128, 256, 256, 1, 128, 1, 128, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                  BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", num_stages=stages, grid=(4,),
                                  target="sm_80")
    assert f"cp.async.wait_group {stages - 2};" in kernel.asm["ptx"]


def test_wgmma_runs_on_while_the_next_iteration_starts():
    """On sm_90a the loop's dot waits only for the group before its own: the ring gets a slot more
    (so no copy overwrites a stage a wgmma may still read), and the accumulator is waited for after
    the loop, before anything reads it."""
    fn = pipeline(matmul_ir(arch="sm_90a"), 3)
    (dot,) = [op for op in fn.walk() if op.name == "dot"]
    assert dot.attrs["pending"] == 1
    assert sorted(fn.attrs["shared_buffers"].values()) == [4 * 64 * 32 * 2, 4 * 32 * 64 * 2]
    top = fn.body.ops
    at = [op.name for op in top].index("for")
    wait = top[at + 1]
    assert wait.name == "wgmma_wait" and wait.operands[0] is top[at].results[0]
    later = [v for op in top[at + 2:] for v in op.operands]
    assert not any(v is top[at].results[0] for v in later) and any(v is wait.result for v in later)
    assert top[at + 2].name == "async_wait" and top[at + 2].attrs["buffers"] == wait.attrs["buffers"]


def test_on_sm_80_the_dot_stays_synchronous():
    fn = pipeline(matmul_ir(), 3)
    assert not any(op.name == "wgmma_wait" for op in fn.walk())
    assert all("pending" not in op.attrs for op in fn.walk() if op.name == "dot")


def test_the_epilogue_reuses_the_rings_after_a_barrier(tmp_path, monkeypatch):
    """The rings live over their loop only: the epilogue's conversion may take their bytes, once
    every warp is past the last wgmma (a barrier between the waits and the conversion)."""
    from minitriton.passes.barriers import insert_barriers
    from minitriton.passes.shared import assign_shared
    fn = pipeline(matmul_ir(arch="sm_90a"), 3)
    assign_shared(fn)
    insert_barriers(fn)
    names = [op.name for op in fn.body.ops]
    at = names.index("wgmma_wait")
    convert = next(op for op in fn.body.ops[at:] if op.name == "convert_layout" and "smem_offset" in op.attrs)
    assert convert.attrs["smem_offset"] < max(fn.attrs["buffer_offsets"].values())  # inside the rings' bytes
    assert "barrier" in names[at:fn.body.ops.index(convert)]
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path))
    a, b, c = aligned((128, 256), np.float16), aligned((256, 128), np.float16), aligned((128, 128), np.float16)
    ptx = matmul_kernel.warmup(a, b, c, 128, 128, 256, 256, 1, 128, 1, 128, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                               BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", grid=(4,), target="sm_90a").asm["ptx"]
    assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 1 and ptx.count("wgmma.wait_group.sync.aligned 0;") == 1


def test_a_dot_on_cuda_cores_reads_both_operands_from_rings():
    """fp32 (ieee) has no tensor-core path: the dot does its FMAs from shared memory, so its two
    operands are copied by cp.async into rings of 4-byte elements and read there, not loaded."""
    from minitriton.layouts import BlockedLayout, SharedOperandLayout
    fn = pipeline(fp32_matmul_ir(), 3)
    body = loops(fn)[0].regions[0].ops
    assert "load" not in [op.name for op in body]
    reads = [op for op in body if op.name == "local_read"]
    (dot,) = [op for op in body if op.name == "dot"]
    assert [v.owner for v in dot.operands[:2]] == reads
    for op_idx, read in enumerate(reads):
        assert read.result.layout == SharedOperandLayout(op_idx, dot.result.layout)
        assert isinstance(read.result.layout.parent, BlockedLayout)
        assert read.attrs["run"] == 4  # 16-byte copies
    assert sorted(fn.attrs["shared_buffers"].values()) == [3 * 32 * 64 * 4, 3 * 128 * 32 * 4]


def test_a_dot_on_cuda_cores_pipelines_both_operands_or_neither():
    a, b, c = aligned((64, 256), np.float32), aligned((256, 64), np.float32), aligned((64, 64), np.float32)
    fn = laid_out(other_not_zero, dict(a_ptr=a, b_ptr=b, c_ptr=c, K=256), dict(BLOCK=64, PRECISION="ieee"),
                  arch="sm_90a")
    fn = pipeline(fn, 3)
    assert not any(op.name.startswith("async") or op.name == "local_read" for op in fn.walk())


# ---------------------------------------------------------------------------- indices read from memory

@triton.jit
def gathered_matmul_kernel(A, W, Rows, Table, Out, M, N, K, TABLE: tl.constexpr, STORE: tl.constexpr,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Out = A @ W[rows], the rows of W gathered along K, as a MoE kernel gathers its tokens'
    rows: by a masked load of BLOCK_K row numbers per iteration, or (TABLE) by one unmasked
    scalar per iteration, a block table's entry: block j of K is W's rows Table[j] * BLOCK_K + 0..
    BLOCK_K-1, as a paged KV cache reads its blocks. STORE writes memory inside the loop."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k in range(0, K, BLOCK_K):
        in_k = k + rk < K
        if TABLE:
            rows = tl.load(Table + k // BLOCK_K) * BLOCK_K + rk
        else:
            rows = tl.load(Rows + k + rk, mask=in_k, other=0)
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & in_k[None, :], other=0)
        w = tl.load(W + rows[:, None] * N + rn[None, :], mask=in_k[:, None] & (rn[None, :] < N), other=0)
        acc = tl.dot(a, w, acc)
        if STORE:
            tl.store(Rows + k + rk, rows, mask=in_k & (tl.program_id(0) + tl.program_id(1) < 0))
    tl.store(Out + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def gathered_ir(table=False, store=False, arch="sm_90a", blocks=(64, 64, 32)):
    args = dict(A=aligned((128, 256), np.float16), W=aligned((512, 128), np.float16), Rows=aligned((256,), np.int32),
                Table=aligned((8,), np.int32), Out=aligned((128, 128), np.float32), M=128, N=128, K=256)
    block_m, block_n, block_k = blocks
    return laid_out(gathered_matmul_kernel, args, dict(TABLE=table, STORE=store, BLOCK_M=block_m, BLOCK_N=block_n,
                                                       BLOCK_K=block_k), arch=arch)


@pytest.mark.parametrize("table", [False, True], ids=["rows", "table"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_load_whose_rows_are_read_from_memory_is_pipelined(table, arch):
    """The row numbers are read S-1 iterations ahead, with the addresses they make, and only
    while that iteration exists (the mask of the cloned read is `and`ed with it: past the end a
    table's next entry is not there); in the loop the one read left is the one ahead."""
    fn = pipeline(gathered_ir(table, arch=arch), 3)
    (loop,) = loops(fn)
    body = loop.regions[0].ops
    assert [op.name for op in body].count("async_load") == 2 and "local_read" in [op.name for op in body]
    (index_read,) = [op for op in body if op.name == "load"]
    assert len(index_read.operands) >= 2  # masked: a table's unmasked read gains the iteration's mask
    mask = index_read.operands[1].owner
    assert mask.name == "and" or (mask.name == "cmp" and mask.attrs["predicate"] == "lt")
    prologue = fn.body.ops[:fn.body.ops.index(loop)]
    assert [op.name for op in prologue].count("load") == 2  # iterations 0 and 1, each guarded
    assert all(len(op.operands) >= 2 for op in prologue if op.name == "load")


def test_a_gather_in_a_loop_that_writes_memory_is_not_read_ahead():
    """A store in the loop might change the row numbers before their iteration: then they are
    read when their iteration comes, and the gathered operand is not pipelined."""
    fn = pipeline(gathered_ir(store=True), 3)
    (loop,) = loops(fn)
    names = [op.name for op in loop.regions[0].ops]
    assert "async_load" not in names and names.count("load") == 3


@pytest.mark.parametrize("table", [False, True], ids=["rows", "table"])
@pytest.mark.parametrize("m, n, k, blocks, num_warps", [(100, 90, 200, (64, 64, 32), 4),
                                                        (70, 130, 96, (64, 128, 32), 8)], ids=str)
def test_gathered_rows_pipelined_give_the_gathered_product(device, table, m, n, k, blocks, num_warps):
    block_m, block_n, block_k = blocks
    rng = np.random.default_rng(m + n + k)
    blocks_k = triton.cdiv(k, block_k)
    w_rows = 3 * blocks_k * block_k
    a = rng.standard_normal((m, k)).astype(np.float16)
    w = rng.standard_normal((w_rows, n)).astype(np.float16)
    table_entries = rng.permutation(3 * blocks_k)[:blocks_k].astype(np.int32)
    rows = (table_entries[:, None] * block_k + np.arange(block_k)).reshape(-1)[:k] if table \
        else rng.integers(0, w_rows, k)
    out = device.array(np.full((m, n), np.nan, np.float32))
    gathered_matmul_kernel[(triton.cdiv(m, block_m), triton.cdiv(n, block_n))](
        device.array(a), device.array(w), device.array(rows.astype(np.int32)), device.array(table_entries), out,
        m, n, k, TABLE=table, STORE=False, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
        num_warps=num_warps, num_stages=3)
    want = a.astype(np.float64) @ w[rows].astype(np.float64)
    bound = 40 * 2**-24 * (np.abs(a.astype(np.float64)) @ np.abs(w[rows].astype(np.float64)))
    assert np.all(np.abs(device.numpy(out) - want) <= bound)



@pytest.mark.parametrize("arch, stages, slots", [("sm_90a", 3, 3), ("sm_90a", 5, 3), ("sm_80", 3, 2), ("sm_80", 2, 2)])
def test_rings_that_would_not_fit_take_fewer_stages(arch, stages, slots):
    """128 x 128 x 128 fp16 tiles: 64 KB a slot. On sm_90a (227 KB a block) 3 stages of wgmma
    would need 4 slots, 256 KB: the loop takes 2 stages and 3 slots. On sm_80 (163 KB), 2 slots.
    Before, the launch failed with OutOfResources where Triton's rings (a slot fewer) fit."""
    from minitriton.passes.pipeline import SHARED_MEMORY
    fn = pipeline(gathered_ir(arch=arch, blocks=(128, 128, 128)), stages, arch)
    rings = sorted(fn.attrs["shared_buffers"].values())
    assert rings == [slots * 128 * 128 * 2] * 2 and sum(rings) <= SHARED_MEMORY[arch]
    unlimited = pipeline(gathered_ir(arch=arch, blocks=(128, 128, 128)), stages)  # no arch: as asked
    assert sorted(unlimited.attrs["shared_buffers"].values())[0] == (stages + (arch == "sm_90a")) * 128 * 128 * 2
