"""The tensor memory accelerator: a host descriptor's blocks copied by TMA in a pipelined loop.

On sm_90a a loop that loads a `TensorDescriptor` argument's blocks into a wgmma operand gets TMA
copies (`passes/pipeline`, `codegen/tma`): one thread issues `cp.async.bulk.tensor` per box, an
mbarrier per stage counts the bytes, and the launch passes the descriptor again as a 128-byte
tensor map (`driver.encode_tensormap`). The checks here:

- on the GPU (and in the interpreter, which is the reference): matmuls through descriptors with
  every operand major (A by rows; B by rows, or K-major as attention's `k.T`; A M-major as a
  weight gradient's `x.T`), 16-bit, tf32 and fp8 operands, lines of K of one box or several,
  sizes that are not multiples of the blocks (TMA reads zeros outside), 2 to 4 stages, a loop that
  runs zero times, two loops in one kernel (each with its mbarriers), outputs poisoned;
- in the PTX (no GPU needed): the copies, the waits, the parameters, and where TMA is not used
  (sm_80, a descriptor made in the kernel, NaN padding);
- the launcher's parameter buffer with a tensor map in it.
"""
import re

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.floats import fp8_values
from minitriton.launcher import parameter_layout
from minitriton.tools.tensor_descriptor import TensorDescriptor

E4M3 = tl.float8e4nv


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


def aligned(shape, dtype) -> np.ndarray:
    """A zeroed array whose data starts on 16 bytes, as a descriptor's base must."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(size + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    return raw[start:start + size].view(dtype).reshape(shape)


# --8<-- [start:kernel]
@triton.jit
def tma_matmul_kernel(a_desc, b_desc, c_ptr, M, N, K, A_MAJOR_M: tl.constexpr, B_MAJOR_K: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      PRECISION: tl.constexpr):
    """C = A @ B through descriptors: A is [M, K] (or [K, M], read as x.T), B is [K, N] (or
    [N, K], read as k.T)."""
    m0, n0 = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([k, m0]).T if A_MAJOR_M else a_desc.load([m0, k])
        b = b_desc.load([n0, k]).T if B_MAJOR_K else b_desc.load([k, n0])
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    rm, rn = m0 + tl.arange(0, BLOCK_M), n0 + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
# --8<-- [end:kernel]


SMALL = np.array([0, 0.25, -0.25, 0.5, -0.5, 0.75, -0.75, 1, -1, 1.5, -1.5])  # exact sums in any order


def values(kind, shape, rng) -> np.ndarray:
    """Random values exact in `kind` (as stored: fp8 codes, bf16 bits), and the values in float64."""
    if kind is E4M3:
        codes = rng.choice([np.flatnonzero(fp8_values(E4M3) == v)[0] for v in SMALL], shape).astype(np.uint8)
        return codes, fp8_values(E4M3)[codes].astype(np.float64)
    x = rng.standard_normal(shape).astype(np.float32)
    if kind == "bf16":
        bits = (x.view(np.uint32) + 0x8000) >> 16  # to nearest (ties away: still a bf16 value)
        return bits.astype(np.uint16), (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if kind == "tf32":  # tf32 values, so that the tensor cores' rounding changes nothing
        x = ((x.view(np.uint32) + 0x1000) & 0xFFFFE000).view(np.float32)
        return x, x.astype(np.float64)
    x = x.astype(np.float16)
    return x, x.astype(np.float64)


def run_matmul(device, kind, shape, blocks, a_major_m=False, b_major_k=False, num_warps=4, num_stages=3):
    rng = np.random.default_rng(11)
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    stored_k = k or 64  # no iteration: the arrays are there, the loop reads none of them
    (sa, a), (sb, b) = values(kind, (m, stored_k), rng), values(kind, (stored_k, n), rng)
    a, b = a[:, :k], b[:k]
    arrays = []
    for stored, transposed in ((sa, a_major_m), (sb, b_major_k)):
        stored = stored.T if transposed else stored
        x = aligned(stored.shape, stored.dtype)
        x[...] = stored
        x = device.array(x)
        arrays.append(triton.reinterpret(x, E4M3 if kind is E4M3 else tl.bfloat16) if kind in (E4M3, "bf16") else x)
    a_block = [block_k, block_m] if a_major_m else [block_m, block_k]
    b_block = [block_n, block_k] if b_major_k else [block_k, block_n]
    a_desc, b_desc = (TensorDescriptor.from_tensor(x, block) for x, block in zip(arrays, (a_block, b_block)))
    c = device.array(np.full((m, n), np.nan, np.float32))
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    tma_matmul_kernel[grid](a_desc, b_desc, c, m, n, k, A_MAJOR_M=a_major_m, B_MAJOR_K=b_major_k,
                            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                            PRECISION="tf32" if kind == "tf32" else "ieee", num_warps=num_warps,
                            num_stages=num_stages)
    return device.numpy(c), a @ b, np.abs(a) @ np.abs(b)


# (operand kind, (M, N, K), (BLOCK_M, BLOCK_N, BLOCK_K), A M-major, B K-major, warps, stages): rows of
# whole 16 bytes, as a descriptor's strides must be, but no size a multiple of its block
CASES = [
    ("fp16", (200, 152, 328), (128, 128, 64), False, False, 4, 3),   # one box per line of K
    ("fp16", (136, 88, 200), (64, 64, 32), False, False, 4, 2),      # 64-byte lines: 64-byte swizzle
    ("fp16", (152, 104, 264), (64, 128, 128), False, False, 4, 4),   # 256-byte lines: two boxes
    ("fp16", (200, 136, 200), (128, 64, 64), False, True, 4, 3),     # B K-major: k.T
    ("fp16", (136, 200, 136), (64, 128, 64), True, False, 4, 3),     # A M-major: x.T
    ("bf16", (136, 200, 144), (128, 128, 64), True, True, 8, 3),
    ("bf16", (104, 264, 200), (64, 256, 64), False, False, 8, 3),    # two warpgroups side by side
    ("fp16", (96, 64, 0), (64, 64, 64), False, False, 4, 3),         # no iteration at all
    ("tf32", (100, 80, 120), (64, 64, 32), False, False, 4, 3),      # 128-byte lines of fp32
    ("tf32", (100, 80, 136), (64, 64, 64), False, True, 4, 3),       # two boxes of fp32, B K-major
]
FP8_CASES = [(E4M3, (100, 80, 272), (64, 64, 128), False, True, 4, 3)]  # fp8 wgmma: K-major B


@pytest.mark.targets("sm_90a")  # where the copies are TMA's (sm_80's cp.async rings are tested elsewhere)
@pytest.mark.parametrize("kind, shape, blocks, a_major_m, b_major_k, num_warps, num_stages", CASES, ids=str)
def test_a_matmul_through_descriptors(device, kind, shape, blocks, a_major_m, b_major_k, num_warps, num_stages):
    got, exact, size = run_matmul(device, kind, shape, blocks, a_major_m, b_major_k, num_warps, num_stages)
    bound = 2**-20 * 8 * size  # products exact, sums rounded in fp32
    assert np.all(np.abs(got - exact) <= bound), np.nanmax(np.abs(got - exact) - bound)


@pytest.mark.targets("sm_90a")
@pytest.mark.parametrize("kind, shape, blocks, a_major_m, b_major_k, num_warps, num_stages", FP8_CASES, ids=str)
def test_an_fp8_matmul_through_descriptors(device, kind, shape, blocks, a_major_m, b_major_k, num_warps, num_stages):
    got, exact, _ = run_matmul(device, kind, shape, blocks, a_major_m, b_major_k, num_warps, num_stages)
    np.testing.assert_array_equal(got, exact)  # small values: every partial sum is exact


@triton.jit
def two_loops_kernel(a_desc, b_desc, c_ptr, N, K, BLOCK: tl.constexpr):
    """C = A @ B + A @ B, in two loops one after the other: each arms and retires its mbarriers,
    and the second may reuse the first's shared memory."""
    m0, n0 = tl.program_id(0) * BLOCK, tl.program_id(1) * BLOCK
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    for k in range(0, K, BLOCK):
        acc = tl.dot(a_desc.load([m0, k]), b_desc.load([k, n0]), acc)
    for k in range(0, K, BLOCK):
        acc = tl.dot(a_desc.load([m0, k]), b_desc.load([k, n0]), acc)
    rm, rn = m0 + tl.arange(0, BLOCK), n0 + tl.arange(0, BLOCK)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < N) & (rn[None, :] < N))


@pytest.mark.targets("sm_90a")
def test_two_pipelined_loops_in_one_kernel(device):
    n, k = 136, 200
    rng = np.random.default_rng(5)
    a, b = aligned((n, k), np.float16), aligned((k, n), np.float16)
    a[...], b[...] = rng.standard_normal((n, k)), rng.standard_normal((k, n))
    c = device.array(np.full((n, n), np.nan, np.float32))
    grid = (triton.cdiv(n, 64), triton.cdiv(n, 64))
    two_loops_kernel[grid](TensorDescriptor.from_tensor(device.array(a), [64, 64]),
                           TensorDescriptor.from_tensor(device.array(b), [64, 64]), c, n, k, BLOCK=64)
    exact = 2 * a.astype(np.float64) @ b.astype(np.float64)
    size = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(device.numpy(c) - exact) <= 2**-20 * 16 * size)


# ---------------------------------------------------------------------------- in the PTX

def compiled(target="sm_90a", kind="fp16", shape=(256, 256, 256), blocks=(128, 128, 64), a_major_m=False,
             b_major_k=False, num_warps=4, num_stages=3, padding="zero"):
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    dtype = np.float32 if kind == "tf32" else np.float16
    a = aligned((k, m) if a_major_m else (m, k), dtype)
    b = aligned((n, k) if b_major_k else (k, n), dtype)
    a_desc = TensorDescriptor.from_tensor(a, [block_k, block_m] if a_major_m else [block_m, block_k], padding)
    b_desc = TensorDescriptor.from_tensor(b, [block_n, block_k] if b_major_k else [block_k, block_n], padding)
    return tma_matmul_kernel.warmup(a_desc, b_desc, aligned((m, n), np.float32), m, n, k, A_MAJOR_M=a_major_m,
                                    B_MAJOR_K=b_major_k, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                                    PRECISION="tf32" if kind == "tf32" else "ieee", num_warps=num_warps,
                                    num_stages=num_stages, grid=(1,), target=target)


def copies(ptx: str) -> int:
    return ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes")


@pytest.mark.no_ptx
@pytest.mark.parametrize("case, boxes", [
    (dict(), {"a_desc": ("fp16", (64, 128), 128), "b_desc": ("fp16", (64, 64), 128)}),
    (dict(blocks=(64, 64, 32)), {"a_desc": ("fp16", (32, 64), 64), "b_desc": ("fp16", (64, 32), 128)}),
    (dict(blocks=(64, 128, 128)), {"a_desc": ("fp16", (64, 64), 128), "b_desc": ("fp16", (64, 128), 128)}),
    (dict(b_major_k=True), {"a_desc": ("fp16", (64, 128), 128), "b_desc": ("fp16", (64, 128), 128)}),
    (dict(a_major_m=True), {"a_desc": ("fp16", (64, 64), 128), "b_desc": ("fp16", (64, 64), 128)}),
    (dict(kind="tf32", blocks=(64, 64, 64), b_major_k=True),
     {"a_desc": ("fp32", (32, 64), 128), "b_desc": ("fp32", (32, 64), 128)}),
], ids=str)
def test_each_block_is_copied_in_boxes_of_its_swizzle(case, boxes):
    kernel = compiled(**case)
    maps = {name: (dtype, tuple(box), swizzle) for name, dtype, box, swizzle in kernel.metadata.tensormaps}
    assert maps == boxes
    assert kernel.metadata.runtime_args[-2:] == ("a_desc", "b_desc")  # passed again, after the rest
    ptx = kernel.asm["ptx"]
    assert ptx.count(".param .align 64 .b8") == 2 and "cvta.param" in ptx
    issues = 3  # two stages ahead, one in the loop
    want = issues * sum(_boxes_per_block(case, name, box) for name, (_, box, _) in boxes.items())
    assert copies(ptx) == want
    assert "mbarrier.try_wait.parity.shared::cta.b64" in ptx and "mbarrier.inval" in ptx
    assert "cp.async.ca" not in ptx and "cp.async.cg" not in ptx  # nothing copied thread by thread
    assert ptx.count("mbarrier.arrive.expect_tx") == issues


def _boxes_per_block(case, name, box):
    block_m, block_n, block_k = case.get("blocks", (128, 128, 64))
    if name == "a_desc":
        inner = block_m if case.get("a_major_m") else block_k
    else:
        inner = block_k if case.get("b_major_k") else block_n
    return inner // box[0]


@pytest.mark.no_ptx
def test_sm80_copies_by_threads():
    ptx = compiled(target="sm_80").asm["ptx"]
    assert copies(ptx) == 0 and "mbarrier" not in ptx and "cp.async.cg.shared.global" in ptx
    assert compiled(target="sm_80").metadata.tensormaps == ()


@pytest.mark.no_ptx
def test_nan_padding_is_not_copied_by_tma():
    """TMA can fill NaN, but a block read with a nonzero `other` is not pipelined at all."""
    kernel = compiled(padding="nan")
    assert copies(kernel.asm["ptx"]) == 0 and kernel.metadata.tensormaps == ()


@triton.jit
def device_descriptor_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [BLOCK, K], [K, 1], [BLOCK, BLOCK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, BLOCK], [BLOCK, 1], [BLOCK, BLOCK])
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    for k in range(0, K, BLOCK):
        acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    r = tl.arange(0, BLOCK)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@pytest.mark.no_ptx
def test_a_descriptor_made_in_the_kernel_is_copied_by_threads():
    """Its tensor map would have to be written in global memory by the kernel: cp.async instead."""
    a, b = aligned((64, 256), np.float16), aligned((256, 64), np.float16)
    kernel = device_descriptor_kernel.warmup(a, b, aligned((64, 64), np.float32), 256, BLOCK=64, grid=(1,),
                                             target="sm_90a")
    assert copies(kernel.asm["ptx"]) == 0 and "cp.async.cg.shared.global" in kernel.asm["ptx"]


def test_a_tensor_map_parameter_takes_128_bytes_in_the_buffer():
    layout, offsets = parameter_layout(["*fp16", "int32", "tensormap", "fp32", "tensormap"])
    assert offsets == [0, 8, 12, 140, 144] and layout.size == 272


@pytest.mark.no_ptx
def test_a_ring_of_tma_copies_has_a_slot_per_stage():
    """The threads meet after the wgmma of the iteration has been waited for down to one group and
    before the copies refill a stage: the stage the previous iteration read is free by then, so
    the ring needs no slot more than its stages (a cp.async ring, whose threads meet at the top of
    the iteration, does)."""
    kernel = compiled(num_stages=3)  # 128 x 128 x 64 fp16: A and B are 16 KB a stage
    text = kernel.asm["layout"]
    assert "ring0: 49152" in text and "ring1: 49152" in text
    body = [line.strip() for line in text.split("^body")[1].splitlines()]
    body = body[:next(i for i, line in enumerate(body) if line.startswith("yield"))]
    names = [line.split(" {")[0].split(" = ")[-1].split(" ")[0] for line in body]
    wait, meet, expect = names.index("mbarrier_wait"), names.index("barrier"), names.index("mbarrier_expect")
    dot = next(i for i, line in enumerate(body) if " dot " in line and "pending=1" in line)
    assert wait < dot < meet < expect and names.count("barrier") == 1
    cp_async = compiled(target="sm_80", num_stages=3).asm["layout"]
    assert "ring0: 49152" in cp_async  # mma.sync on sm_80: no wgmma in flight, no extra slot either


@triton.jit
def mixed_matmul_kernel(a_desc, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    """A through a descriptor (TMA on sm_90a), B through pointers (cp.async): one loop, two rings."""
    m0, n0 = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    rn, rk = n0 + tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k in range(0, K, BLOCK_K):
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc = tl.dot(a_desc.load([m0, k]), b, acc)
    rm = m0 + tl.arange(0, BLOCK_M)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.targets("sm_90a")
def test_a_tma_ring_beside_a_cp_async_ring(device):
    m, n, k = 136, 200, 200
    rng = np.random.default_rng(3)
    a, b = aligned((m, k), np.float16), aligned((k, n), np.float16)
    a[...], b[...] = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    c = device.array(np.full((m, n), np.nan, np.float32))
    grid = (triton.cdiv(m, 64), triton.cdiv(n, 128))
    mixed_matmul_kernel[grid](TensorDescriptor.from_tensor(device.array(a), [64, 64]), device.array(b), c,
                              m, n, k, BLOCK_M=64, BLOCK_N=128, BLOCK_K=64)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    size = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(device.numpy(c) - exact) <= 2**-20 * 8 * size)


@pytest.mark.no_ptx
@pytest.mark.parametrize("block_n, slots, meets_after_wait", [(256, 4, False), (128, 3, True)])
def test_a_loop_with_both_rings_waits_for_both_and_keeps_the_extra_slot_where_it_is_free(block_n, slots,
                                                                                            meets_after_wait):
    """A cp.async ring beside a TMA ring, in 3 stages: the ring needs a slot more for the wgmma still
    reading the last stage, unless that slot would cost a block of the SM. At 64 x 256 x 64 (40 KB a
    slot) one block fits with 4 slots or 3: the slot stays. At 64 x 128 x 64 (24 KB a slot) 4 slots
    let two blocks run and 3 let three: the ring keeps 3, and the threads meet after the wgmma wait,
    before the copies refill the stage it read."""
    a, b = aligned((256, 256), np.float16), aligned((256, 256), np.float16)
    kernel = mixed_matmul_kernel.warmup(TensorDescriptor.from_tensor(a, [64, 64]), b, aligned((256, 256), np.float32),
                                        256, 256, 256, BLOCK_M=64, BLOCK_N=block_n, BLOCK_K=64, grid=(1,),
                                        target="sm_90a", num_stages=3)
    ptx, text = kernel.asm["ptx"], kernel.asm["layout"]
    assert copies(ptx) == 3 and "cp.async.cg.shared.global" in ptx and "cp.async.wait_group 1" in ptx
    assert "mbarrier.try_wait.parity" in ptx
    buffers = re.search(r"shared_buffers=\{([^}]*)\}", text).group(1)
    rings = sorted(int(n) for n in re.findall(r"ring\d: (\d+)", buffers))
    assert rings == sorted([slots * 64 * 64 * 2, slots * 64 * block_n * 2])  # A 8 KB a slot, B 16 or 32 KB
    after_wait = ptx[ptx.index("wgmma.wait_group.sync.aligned 1"):]
    assert ("bar.sync" in after_wait[:after_wait.index("cp.async.cg")]) == meets_after_wait
