"""Hopper's wgmma beyond one swizzle atom of K, with A from registers, and the attention loop they make.

- K-split operands: a K-major operand whose lines of K are longer than 128 bytes (K = 128 or 256
  fp16, 256 fp8, 64 or 128 tf32) is stored as 128-byte blocks of K, one descriptor per k-step into
  its block (`geometry.WgmmaOperand`).
- The RS form: a dot whose A was computed from a wgmma accumulator (`p = f(dot(a, b)).to(fp16)`)
  takes A from registers (`passes.tensor_cores.wgmma_in_registers`), with no trip through shared memory.
- The attention forward (`examples/attention.py`) at sizes that are not multiples of its blocks:
  its loop keeps the accumulator and the softmax statistics in the accumulator's layout.

Each kernel runs in the interpreter (on the GPU too where there is one) and is compiled for sm_80,
sm_90 and sm_90a by the conftest; references are float64. The PTX checks name the instructions.
"""
import math
import os
import re
import subprocess

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.codegen.toolkit import ptxas_path
from minitriton.examples.attention import attention_fwd_kernel, attention_reference
from minitriton.floats import fp8_values


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


def magnitude(a, b) -> np.ndarray:
    """sum_k |a_ik b_kj|: what the rounding errors of a dot are relative to."""
    return np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))


# ---------------------------------------------------------------------------- K-split operands

@triton.jit
def matmul_kernel(A, B, C, M, N, K, PRECISION: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    """C = A @ B (row-major), masked at every edge, k in steps of BLOCK_K."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & (k + rk[None, :] < K), other=0)
        b = tl.load(B + (k + rk)[:, None] * N + rn[None, :], mask=(k + rk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


E4M3 = tl.float8e4nv
NEWER = pytest.mark.targets("sm_90", "sm_90a")  # e4m3 exists from sm_89 on
SMALL = np.array([0, 0.25, -0.25, 0.5, -0.5, 0.75, -0.75, 1, -1, 1.5, -1.5])  # exact sums in any order

# (operand type, (M, N, K), (BLOCK_M, BLOCK_N, BLOCK_K), num_warps): BLOCK_K's bytes per line
K_SPLIT_CASES = [(np.float16, (100, 90, 300), (64, 64, 128), 4),     # 256 bytes: 2 blocks
                 (np.float16, (150, 140, 520), (128, 128, 256), 8),  # 512 bytes: 4 blocks, 2 warpgroups
                 ("bf16", (130, 70, 200), (128, 64, 128), 4),        # two m64 tiles per warpgroup
                 pytest.param(E4M3, (100, 90, 300), (64, 64, 256), 4, marks=NEWER),  # fp8: both K-major, 2 blocks
                 pytest.param(E4M3, (70, 40, 200), (64, 32, 128), 4, marks=NEWER),   # fp8 K = 128: one atom
                 ("tf32", (100, 90, 150), (64, 64, 64), 4),          # tf32: 256 bytes, both K-major
                 ("tf32", (70, 60, 200), (64, 32, 128), 4)]          # 512 bytes


def k_split_operands(kind, shape, rng, array=np.asarray):
    """The operands as the kernel takes them (`array` puts a numpy array where it runs), and their
    values in float64."""
    m, n, k = shape
    if kind is E4M3:
        codes = [rng.choice([np.flatnonzero(fp8_values(E4M3) == v)[0] for v in SMALL], s).astype(np.uint8)
                 for s in ((m, k), (k, n))]
        return [triton.reinterpret(array(c), E4M3) for c in codes], \
            [fp8_values(E4M3)[c].astype(np.float64) for c in codes]
    if kind == "bf16":
        bits = [to_bf16_bits(rng.standard_normal(s)) for s in ((m, k), (k, n))]
        return [triton.reinterpret(array(b), tl.bfloat16) for b in bits], [bf16_value(b) for b in bits]
    dtype = np.float32 if kind == "tf32" else kind
    values = [rng.standard_normal(s).astype(dtype) for s in ((m, k), (k, n))]
    if kind == "tf32":  # round to tf32 first, so the dot's own rounding changes nothing
        values = [((v.view(np.uint32) + 0x1000) & 0xFFFFE000).view(np.float32) for v in values]
    return [array(v) for v in values], [v.astype(np.float64) for v in values]


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """fp32 -> bf16 bits, to nearest even."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("kind, shape, blocks, num_warps", K_SPLIT_CASES, ids=str)
def test_k_longer_than_one_swizzle_atom(device, kind, shape, blocks, num_warps):
    rng = np.random.default_rng(31)
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    arrays, (a, b) = k_split_operands(kind, shape, rng, device.array)
    c = device.array(np.full((m, n), np.nan, np.float32))
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](*arrays, c, m, n, k, PRECISION="tf32" if kind == "tf32" else "ieee", BLOCK_M=block_m,
                        BLOCK_N=block_n, BLOCK_K=block_k, num_warps=num_warps)
    got = device.numpy(c)
    if kind is E4M3:
        np.testing.assert_array_equal(got, a @ b)
    else:
        assert np.all(np.abs(got - a @ b) <= 40 * 2**-24 * magnitude(a, b))


@pytest.mark.parametrize("kind, blocks, wants", [
    (np.float16, (64, 64, 128), ["m64n64k16.f32.f16.f16"]),
    (np.float16, (128, 128, 256), ["m64n128k16.f32.f16.f16"]),
    (E4M3, (64, 64, 256), ["m64n64k32.f32.e4m3.e4m3"]),
    ("tf32", (64, 64, 64), ["m64n64k8.f32.tf32.tf32"]),
], ids=str)
def test_a_long_k_stays_on_wgmma(kind, blocks, wants):
    """Before the split, wgmma refused K past 128 bytes and the dot fell back to mma.sync."""
    block_m, block_n, block_k = blocks
    arrays, _ = k_split_operands(kind, (block_m, block_n, block_k), np.random.default_rng(0))
    c = np.zeros((block_m, block_n), np.float32)
    ptx = matmul_kernel.warmup(*arrays, c, block_m, block_n, block_k, PRECISION="tf32" if kind == "tf32" else "ieee",
                               BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1), target="sm_90a",
                               num_warps=8 if block_m == 128 else 4).asm["ptx"]
    for want in wants:
        assert "wgmma.mma_async.sync.aligned." + want in ptx
    assert "mma.sync" not in ptx


# ---------------------------------------------------------------------------- tf32 computed transposed

# (M, N, K), (BLOCK_M, BLOCK_N, BLOCK_K), num_warps: row-major A and B, so B is N-major, which a
# tf32 wgmma cannot read from shared memory: the dot is computed as C^T = B^T A^T, B^T from registers
TF32_SWAP_CASES = [((300, 520, 100), (128, 256, 32), 8),  # two m64 tiles of B^T's rows per warpgroup
                   ((200, 300, 150), (128, 128, 32), 8),
                   ((100, 200, 70), (64, 128, 64), 4),    # K = 64: two 128-byte blocks of A^T's lines
                   ((90, 70, 40), (64, 64, 32), 4),
                   # long loops, in which a wgmma still reading its A registers while the next
                   # iteration's A lands in them would show (it did, before `deferred`)
                   ((256, 512, 2048), (128, 256, 32), 8),
                   ((256, 256, 1024), (128, 128, 64), 8)]


@pytest.mark.parametrize("shape, blocks, num_warps", TF32_SWAP_CASES, ids=str)
def test_a_tf32_dot_with_a_row_major_b_is_computed_transposed(device, shape, blocks, num_warps):
    """Exact: the values are tf32 and every partial sum is a multiple of 1/4 far below 2**11."""
    rng = np.random.default_rng(41)
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    a, b = (rng.choice(SMALL, s).astype(np.float32) for s in ((m, k), (k, n)))
    c = device.array(np.full((m, n), np.nan, np.float32))
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](device.array(a), device.array(b), c, m, n, k, PRECISION="tf32", BLOCK_M=block_m,
                        BLOCK_N=block_n, BLOCK_K=block_k, num_warps=num_warps)
    np.testing.assert_array_equal(device.numpy(c), a.astype(np.float64) @ b.astype(np.float64))


@pytest.mark.parametrize("shape, blocks, num_warps", TF32_SWAP_CASES, ids=str)
def test_the_transposed_tf32_dot_reads_b_from_registers_out_of_a_ring(shape, blocks, num_warps):
    """m64n{BLOCK_M}k8 with four A registers (B^T's fragment, 4 bytes at a time out of an N-major
    ring that cp.async fills 16 bytes at a time), A^T through a descriptor; no 4-byte copies."""
    (m, n, k), (block_m, block_n, block_k) = [16 * (s // 16) for s in shape], blocks  # 16-byte copies
    a, b, c = np.zeros((m, k), np.float32), np.zeros((k, n), np.float32), np.zeros((m, n), np.float32)
    ptx = matmul_kernel.warmup(a, b, c, m, n, k, PRECISION="tf32", BLOCK_M=block_m, BLOCK_N=block_n,
                               BLOCK_K=block_k, grid=(1, 1), num_warps=num_warps, num_stages=3,
                               target="sm_90a").asm["ptx"]
    issued = re.findall(rf"wgmma.mma_async.sync.aligned.m64n{block_m}k8.f32.tf32.tf32 {{[^}}]*}}, {{([^}}]*)}}", ptx)
    assert issued and all(len(registers.split(",")) == 4 for registers in issued)
    assert "cp.async.cg.shared.global" in ptx and "cp.async.ca" not in ptx
    assert "ld.shared.b32" in ptx  # B^T's fragments


def test_an_m_major_a_keeps_the_tf32_dot_as_written():
    """With A loaded M fastest (x.T) as well, swapping would only move the operand that lies
    across K: the dot stays m64n128 (swapped it would be m64n64), its A in registers (read from
    an M-major ring, as B^T is when swapped)."""
    a, b, c = np.zeros((64, 64), np.float32), np.zeros((64, 128), np.float32), np.zeros((64, 128), np.float32)
    ptx = at_matmul_kernel.warmup(a, b, c, 64, 128, 64, BLOCK_M=64, BLOCK_N=128, BLOCK_K=32, grid=(1, 1),
                                  num_warps=4, target="sm_90a").asm["ptx"]
    assert re.search(r"m64n128k8.f32.tf32.tf32 {[^}]*}, {", ptx) and "m64n64k8" not in ptx


@triton.jit
def at_matmul_kernel(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A^T @ B for a row-major (K, M) A: A's tile is loaded M fastest."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(A + (k + rk)[None, :] * M + rm[:, None])
        b = tl.load(B + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * N + rn[None, :], acc)


# ---------------------------------------------------------------------------- warpgroups side by side

# (operand type, (M, N, K), (BLOCK_M, BLOCK_N, BLOCK_K), num_warps): more warps than BLOCK_M's rows
# take as warpgroups of 64, so the warpgroups split N (`tensor_cores.wgmma_warps`: (4, 2), (4, 4), (8, 2))
SIDE_CASES = [(np.float16, (100, 200, 150), (64, 128, 64), 8),   # N-major B, m64n64 each
              ("bf16", (70, 250, 96), (64, 256, 32), 8),          # m64n128 each
              (np.float16, (130, 260, 64), (64, 256, 64), 16),    # four warpgroups along N
              (np.float16, (200, 150, 64), (128, 256, 32), 16),   # two along M, two along N
              ("tf32", (100, 90, 150), (64, 64, 64), 8),          # K-major B, m64n32 each
              pytest.param(E4M3, (100, 90, 300), (64, 64, 256), 8, marks=NEWER)]


@pytest.mark.parametrize("kind, shape, blocks, num_warps", SIDE_CASES, ids=str)
def test_warpgroups_side_by_side_along_n(device, kind, shape, blocks, num_warps):
    test_k_longer_than_one_swizzle_atom(device, kind, shape, blocks, num_warps)


@pytest.mark.parametrize("kind, shape, blocks, num_warps", SIDE_CASES[:5], ids=str)
def test_warpgroups_side_by_side_issue_a_share_of_n(kind, shape, blocks, num_warps):
    """Triton's rule: a 64-row tile with 8 warps is two m64n(N/2) wgmmas side by side, not
    mma.sync (which it fell back to before)."""
    (block_m, block_n, block_k) = blocks
    arrays, _ = k_split_operands(kind, (block_m, block_n, block_k), np.random.default_rng(0))
    warps_m = 4 if block_m == 64 else 8
    width = block_n * warps_m // num_warps
    ptx = matmul_kernel.warmup(*arrays, np.zeros((block_m, block_n), np.float32), block_m, block_n, block_k,
                               PRECISION="tf32" if kind == "tf32" else "ieee", BLOCK_M=block_m, BLOCK_N=block_n,
                               BLOCK_K=block_k, grid=(1, 1), target="sm_90a", num_warps=num_warps).asm["ptx"]
    assert re.search(rf"wgmma\.mma_async\.sync\.aligned\.m64n{width}k", ptx)
    assert "mma.sync" not in ptx


@triton.jit
def chained_kernel(A, B, V, Out, Rows, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, D: tl.constexpr):
    """Out = softmax-like f(A @ B) @ V and each row's max of A @ B: the row statistics of an
    accumulator whose warpgroups split N are combined across warpgroups; P then goes to the
    second dot through shared memory (its A cannot come from registers: each warp holds only
    its warpgroup's columns)."""
    rm, rn, rk, rd = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K), tl.arange(0, D)
    s = tl.dot(tl.load(A + rm[:, None] * K + rk[None, :]), tl.load(B + rk[:, None] * N + rn[None, :]))
    row_max = tl.max(s, axis=1)
    p = tl.exp2(s - row_max[:, None]).to(tl.float16)
    tl.store(Rows + rm, row_max)
    tl.store(Out + rm[:, None] * D + rd[None, :], tl.dot(p, tl.load(V + rn[:, None] * D + rd[None, :])))


@pytest.mark.gpu_tolerance(1e-2, 1e-2)
@pytest.mark.parametrize("m, n, k, d, num_warps", [(64, 128, 32, 64, 8), (64, 256, 64, 128, 16)], ids=str)
def test_rows_of_an_accumulator_split_along_n(device, m, n, k, d, num_warps):
    rng = np.random.default_rng(m + n + d)
    a, b, v = (rng.standard_normal(s).astype(np.float16) for s in ((m, k), (k, n), (n, d)))
    out, rows = device.array(np.full((m, d), np.nan, np.float32)), device.array(np.full(m, np.nan, np.float32))
    chained_kernel[(1,)](device.array(a), device.array(b), device.array(v), out, rows, M=m, N=n, K=k, D=d,
                         num_warps=num_warps)
    s = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(device.numpy(rows), s.max(axis=1), rtol=1e-5, atol=1e-4)
    p = np.exp2(s - s.max(axis=1, keepdims=True)).astype(np.float16).astype(np.float64)
    bound = 40 * 2**-24 * magnitude(p, v) + 2.0**-10 * magnitude(np.abs(p) + 2**-14, v)
    assert np.all(np.abs(device.numpy(out) - p @ v.astype(np.float64)) <= bound)


# ---------------------------------------------------------------------------- B K-major, any N

@triton.jit
def nt_matmul_kernel(A, BT, C, M, N, K, TRANS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    """C = A @ BT^T, both row-major, K a multiple of BLOCK_K. B is loaded K fastest (as attention's
    backward loads Q^T, K^T and V^T), so wgmma keeps it K-major in shared memory: by transposed
    pointers, or (TRANS) as B^T lies, rows of K, and transposed by `.T`, as attention's forward
    writes `k = desc_k.load(...).T`; the pipeliner then copies each tile of B^T into the ring as
    B, with no transpose in registers."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0)
        if TRANS:
            b = tl.load(BT + rn[:, None] * K + (k + rk)[None, :], mask=rn[:, None] < N, other=0).T
        else:
            b = tl.load(BT + rn[None, :] * K + (k + rk)[:, None], mask=rn[None, :] < N, other=0)
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# (M, N, K), (BLOCK_M, BLOCK_N, BLOCK_K), num_warps: N below one 64-column atom, K one or more blocks
NT_CASES = [((100, 70, 256), (64, 32, 128), 4), ((130, 40, 128), (128, 16, 64), 4),
            ((70, 20, 64), (64, 8, 32), 4), ((200, 100, 256), (128, 16, 128), 8), ((64, 96, 96), (64, 32, 32), 4)]


@pytest.mark.parametrize("trans", [False, True], ids=["pointers", "trans"])
@pytest.mark.parametrize("bf16", [False, True], ids=["fp16", "bf16"])
@pytest.mark.parametrize("shape, blocks, num_warps", NT_CASES, ids=str)
def test_b_k_major_at_any_n(device, shape, blocks, num_warps, bf16, trans):
    rng = np.random.default_rng(sum(shape))
    m, n, k = shape
    raw = [rng.standard_normal(s) for s in ((m, k), (n, k))]
    if bf16:
        bits = [to_bf16_bits(x) for x in raw]
        arrays = [triton.reinterpret(device.array(x), tl.bfloat16) for x in bits]
        a, bt = (bf16_value(x) for x in bits)
    else:
        a, bt = (x.astype(np.float16) for x in raw)
        arrays = [device.array(x) for x in (a, bt)]
        a, bt = a.astype(np.float64), bt.astype(np.float64)
    c = device.array(np.full((m, n), np.nan, np.float32))
    block_m, block_n, block_k = blocks
    nt_matmul_kernel[(triton.cdiv(m, block_m), triton.cdiv(n, block_n))](
        *arrays, c, m, n, k, TRANS=trans, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=num_warps)
    assert np.all(np.abs(device.numpy(c) - a @ bt.T) <= 40 * 2**-24 * magnitude(a, bt.T))


@pytest.mark.parametrize("shape, blocks, num_warps", NT_CASES[:2], ids=str)
def test_a_transposed_load_is_copied_in_as_b(shape, blocks, num_warps):
    """`bt.T` in a pipelined loop: both operands come in by cp.async (the ring of B^T is filled
    transposed: `perm` on its async_load), nothing is transposed through shared memory by threads,
    and the loop issues no ordinary global load."""
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    a, bt = np.zeros((m, k), np.float16), np.zeros((n, k), np.float16)
    compiled = nt_matmul_kernel.warmup(a, bt, np.zeros((m, n), np.float32), m, n, k, TRANS=True,
                                       BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1),
                                       target="sm_90a", num_warps=num_warps)
    layout = compiled.asm["layout"]
    copies = [line for line in layout.splitlines() if "async_load" in line]
    assert copies and all("ring" in line for line in copies)
    assert sum("perm=[1, 0]" in line for line in copies) == len(copies) // 2  # B^T's; A's are as they are
    assert not any(" trans " in line for line in layout.splitlines())
    assert f"wgmma.mma_async.sync.aligned.m64n{block_n}k16.f32.f16.f16" in compiled.asm["ptx"]


@pytest.mark.parametrize("shape, blocks, num_warps", NT_CASES, ids=str)
def test_b_k_major_stays_on_wgmma(shape, blocks, num_warps):
    """A 16-bit B kept N-major needs whole 64-column atoms; kept K-major, any N of 8-line groups
    does (attention's backward has N = 16 and 32). Before, these dots fell back to mma.sync."""
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    a, bt = np.zeros((m, k), np.float16), np.zeros((n, k), np.float16)
    ptx = nt_matmul_kernel.warmup(a, bt, np.zeros((m, n), np.float32), m, n, k, TRANS=False, BLOCK_M=block_m,
                                  BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1), target="sm_90a",
                                  num_warps=num_warps).asm["ptx"]
    assert f"wgmma.mma_async.sync.aligned.m64n{block_n}k16.f32.f16.f16" in ptx
    assert "mma.sync" not in ptx


# ---------------------------------------------------------------------------- A M-major

@triton.jit
def tn_matmul_kernel(AT, B, BT, C, M, N, K, TRANS: tl.constexpr, B_K_MAJOR: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = AT^T @ B, AT (K x M) row-major, as a weight gradient's X^T @ dY: A is loaded M fastest,
    by transposed pointers or (TRANS) as AT lies and transposed by `tl.trans`. wgmma keeps it
    M-major in shared memory and transposes it itself. B as it lies (N-major) or, with B_K_MAJOR,
    from BT (N x K) loaded K fastest."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k in range(0, K, BLOCK_K):
        in_k = k + rk < K
        if TRANS:
            a = tl.trans(tl.load(AT + (k + rk)[:, None] * M + rm[None, :], mask=in_k[:, None] & (rm[None, :] < M),
                                 other=0))
        else:
            a = tl.load(AT + (k + rk)[None, :] * M + rm[:, None], mask=in_k[None, :] & (rm[:, None] < M), other=0)
        if B_K_MAJOR:
            b = tl.load(BT + rn[None, :] * K + (k + rk)[:, None], mask=in_k[:, None] & (rn[None, :] < N), other=0)
        else:
            b = tl.load(B + (k + rk)[:, None] * N + rn[None, :], mask=in_k[:, None] & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# (M, N, K), (BLOCK_M, BLOCK_N, BLOCK_K), num_warps; strides multiples of 16 elements (so the
# loads are vectors), sizes not multiples of the blocks
TN_CASES = [((112, 80, 144), (64, 64, 32), 4), ((144, 208, 112), (128, 128, 64), 8),
            ((80, 112, 272), (64, 128, 128), 8), ((208, 64, 64), (128, 64, 16), 4)]


@pytest.mark.parametrize("b_k_major", [False, True], ids=["b-n-major", "b-k-major"])
@pytest.mark.parametrize("trans", [False, True], ids=["pointers", "trans"])
@pytest.mark.parametrize("bf16", [False, True], ids=["fp16", "bf16"])
@pytest.mark.parametrize("shape, blocks, num_warps", TN_CASES, ids=str)
def test_a_loaded_m_fastest(device, shape, blocks, num_warps, bf16, trans, b_k_major):
    rng = np.random.default_rng(sum(shape) + 3 * trans + 5 * b_k_major)
    m, n, k = shape
    raw = [rng.standard_normal(s) for s in ((k, m), (k, n))]
    if bf16:
        bits = [to_bf16_bits(x) for x in raw]
        at, b = (bf16_value(x) for x in bits)
        arrays = [triton.reinterpret(device.array(x), tl.bfloat16) for x in (bits[0], bits[1], bits[1].T.copy())]
    else:
        at, b = (x.astype(np.float16) for x in raw)
        arrays = [device.array(x) for x in (at, b, b.T.copy())]
        at, b = at.astype(np.float64), b.astype(np.float64)
    c = device.array(np.full((m, n), np.nan, np.float32))
    block_m, block_n, block_k = blocks
    tn_matmul_kernel[(triton.cdiv(m, block_m), triton.cdiv(n, block_n))](
        *arrays, c, m, n, k, TRANS=trans, B_K_MAJOR=b_k_major, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
        num_warps=num_warps)
    assert np.all(np.abs(device.numpy(c) - at.T @ b) <= 40 * 2**-24 * magnitude(at.T, b))


@pytest.mark.parametrize("trans", [False, True], ids=["pointers", "trans"])
@pytest.mark.parametrize("shape, blocks, num_warps", TN_CASES[:2], ids=str)
def test_an_m_major_a_is_copied_in_as_it_lies_and_transposed_by_wgmma(shape, blocks, num_warps, trans):
    """Both operands come in by cp.async (A's runs along M: 16-byte copies), the A buffer is
    M-major (`mContiguous`), and every wgmma has A's transpose bit set: before, A was stored
    element by element into a K-major buffer, and not pipelined."""
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    z = np.zeros
    compiled = tn_matmul_kernel.warmup(z((k, m), np.float16), z((k, n), np.float16), z((n, k), np.float16),
                                       z((m, n), np.float32), m, n, k, TRANS=trans, B_K_MAJOR=False,
                                       BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1),
                                       target="sm_90a", num_warps=num_warps, num_stages=3)
    layout, ptx = compiled.asm["layout"], compiled.asm["ptx"]
    copies = [line for line in layout.splitlines() if "async_load" in line]
    assert len(copies) == 2 * 3 and all("run=8" in line for line in copies)  # 2 rings: 2 ahead, 1 in the loop
    assert "mContiguous=true" in layout
    wgmmas = [line for line in ptx.splitlines() if "wgmma.mma_async" in line]
    assert wgmmas and all(line.rstrip("; }").endswith("p, 1, 1, 1, 1") for line in wgmmas)


# ---------------------------------------------------------------------------- the same on mma.sync

# shapes wgmma does not take (under 64 rows, or 2 warps): mma.sync reads a K-major B, or an
# M-major A, with ldmatrix from lines down the columns, as they were copied in; K a multiple of
# BLOCK_K (the nt kernel's rule), strides multiples of 16 elements
SYNC_CASES = [((112, 80, 160), (32, 64, 32), 4), ((48, 96, 80), (16, 32, 16), 4), ((144, 80, 96), (64, 32, 32), 2)]


@pytest.mark.parametrize("trans", [False, True], ids=["pointers", "trans"])
@pytest.mark.parametrize("shape, blocks, num_warps", SYNC_CASES, ids=str)
def test_mma_sync_reads_a_k_major_b_and_an_m_major_a(device, shape, blocks, num_warps, trans):
    test_b_k_major_at_any_n(device, shape, blocks, num_warps, False, trans)
    for b_k_major in (False, True):
        test_a_loaded_m_fastest(device, shape, blocks, num_warps, True, trans, b_k_major)


@pytest.mark.parametrize("trans", [False, True], ids=["pointers", "trans"])
def test_mma_sync_operands_down_the_columns_are_copied_in_and_read_by_ldmatrix(trans):
    """sm_80: both operands come in by cp.async in 16-byte runs; a K-major B is read by ldmatrix
    as it lies (its lines are B's columns: each holds a fragment's pairs along K), an M-major A
    transposed (`.trans`). Before, both went through shared memory element by element, and
    were not pipelined."""
    z = np.zeros
    (m, n, k), (block_m, block_n, block_k), num_warps = SYNC_CASES[0]
    nt = nt_matmul_kernel.warmup(z((m, k), np.float16), z((n, k), np.float16), z((m, n), np.float32), m, n, k,
                                 TRANS=trans, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1),
                                 target="sm_80", num_warps=num_warps, num_stages=3).asm
    tn = tn_matmul_kernel.warmup(z((k, m), np.float16), z((k, n), np.float16), z((n, k), np.float16),
                                 z((m, n), np.float32), m, n, k, TRANS=trans, B_K_MAJOR=False, BLOCK_M=block_m,
                                 BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1), target="sm_80",
                                 num_warps=num_warps, num_stages=3).asm
    for asm in (nt, tn):
        copies = [line for line in asm["layout"].splitlines() if "async_load" in line]
        assert len(copies) == 2 * 3 and all("run=8" in line for line in copies)
    assert "ldmatrix.sync.aligned.m8n8.x2.shared.b16" in nt["ptx"] and ".trans" not in nt["ptx"]
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in tn["ptx"]
    assert "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in tn["ptx"]  # its B, N-major


# ---------------------------------------------------------------------------- A from registers

@triton.jit
def two_dots_kernel(A, B, V, Out, scale, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, D: tl.constexpr,
                    BF16: tl.constexpr):
    """Out = f(A @ B) @ V with f(s) = s * scale, rounded to the operands' type: the second dot's A is
    computed from the first's accumulator, as attention's P is."""
    rm, rn, rk, rd = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K), tl.arange(0, D)
    a = tl.load(A + rm[:, None] * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn[None, :])
    v = tl.load(V + rn[:, None] * D + rd[None, :])
    s = tl.dot(a, b) * scale
    p = s.to(tl.bfloat16) if BF16 else s.to(tl.float16)
    tl.store(Out + rm[:, None] * D + rd[None, :], tl.dot(p, v))


# (M, N: the second dot's K, K: the first dot's, D: the second dot's N, num_warps)
RS_CASES = [(64, 64, 32, 64, 4), (128, 64, 64, 64, 4), (128, 128, 64, 128, 8), (64, 16, 16, 64, 4),  # n16: mma.sync first
            (128, 32, 128, 256, 8), (256, 128, 64, 64, 8)]


# P is the first dot's fp32 sum rounded to 16 bits: where the GPU's sum and numpy's differ in their
# last bits, P may round the other way (one 16-bit step), and the second dot carries that step
@pytest.mark.gpu_tolerance(1e-2, 1e-2)
@pytest.mark.parametrize("bf16", [False, True], ids=["fp16", "bf16"])
@pytest.mark.parametrize("m, n, k, d, num_warps", RS_CASES, ids=str)
def test_a_computed_from_an_accumulator(device, m, n, k, d, num_warps, bf16):
    rng = np.random.default_rng(m + n + k + d)
    scale = 0.25
    raw = [rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (n, d))]
    if bf16:
        bits = [to_bf16_bits(x) for x in raw]
        arrays = [triton.reinterpret(device.array(b), tl.bfloat16) for b in bits]
        a, b, v = (bf16_value(x) for x in bits)
    else:
        a, b, v = (x.astype(np.float16) for x in raw)
        arrays = [device.array(x) for x in (a, b, v)]
        a, b, v = (x.astype(np.float64) for x in (a, b, v))
    out = device.array(np.full((m, d), np.nan, np.float32))
    two_dots_kernel[(1,)](*arrays, out, scale, M=m, N=n, K=k, D=d, BF16=bf16, num_warps=num_warps)
    s = (a @ b) * scale
    p = bf16_value(to_bf16_bits(s)) if bf16 else s.astype(np.float16).astype(np.float64)
    # p's rounding may differ by one unit where fp32 sums land on either side of a tie
    ulp = 2.0**-7 if bf16 else 2.0**-10
    bound = 40 * 2**-24 * magnitude(p, v) + ulp * magnitude(np.abs(s) + 2**-14, v)
    assert np.all(np.abs(device.numpy(out) - p @ v) <= bound)


@pytest.mark.parametrize("m, n, k, d, num_warps", RS_CASES, ids=str)
def test_the_second_dot_reads_a_from_registers(m, n, k, d, num_warps):
    """sm_90a: one wgmma per m64 tile and k16 step with a `{%r..}` A operand; A never stored."""
    a, b, v = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((n, d), np.float16)
    kernel = two_dots_kernel.warmup(a, b, v, np.zeros((m, d), np.float32), 0.25, M=m, N=n, K=k, D=d, BF16=False,
                                    grid=(1,), target="sm_90a", num_warps=num_warps)
    ptx = kernel.asm["ptx"]
    rs = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{d}k16\.f32\.f16\.f16 \{{[^}}]*\}}, \{{%r", ptx)
    assert len(rs) == m // (16 * num_warps) * (n // 16)
    assert ("mma.sync" in ptx) == (n % 64 != 0)  # the first dot's N: wgmma takes 16-bit B in 64-column atoms
    # the only convert between the dots is the free one to the A fragment (no shared memory)
    lines = expanded(kernel.asm["layout"]).splitlines()
    first, second = [i for i, line in enumerate(lines) if " = dot " in line]
    converts = [line for line in lines[first:second] if "convert_layout" in line]
    assert any("#dot_op<{opIdx=0" in line and "smem_bytes" not in line for line in converts)
    assert all("#shared_operand<{opIdx=1" in line for line in converts if "smem_bytes" in line)  # V only


@pytest.mark.skipif(ptxas_path() is None, reason="ptxas is not installed here")
@pytest.mark.parametrize("m, n, k, d, num_warps", [(128, 64, 64, 64, 4), (128, 128, 64, 128, 8), (64, 16, 16, 64, 4)],
                         ids=str)
def test_wgmma_operands_are_ready_before_the_fence(tmp_path, m, n, k, d, num_warps):
    """Every register a wgmma reads (A's fragments, the accumulator) is written before the group's
    `wgmma.fence`; a zero accumulator is not written at all (scale-d 0 on the first k-step). A
    register written between two wgmmas makes ptxas fence, or wait for the group, there: its
    "warpgroup.arrive/wait is injected" notes, which serialize the tensor cores."""
    a, b, v = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((n, d), np.float16)
    ptx = two_dots_kernel.warmup(a, b, v, np.zeros((m, d), np.float32), 0.25, M=m, N=n, K=k, D=d, BF16=False,
                                 grid=(1,), target="sm_90a", num_warps=num_warps).asm["ptx"]
    wgmmas = [line for line in ptx.splitlines() if "wgmma.mma_async" in line]
    first_steps = [line for line in wgmmas if "setp.ne.b32 p, 0, 0;" in line]
    dots = 2 if n % 64 == 0 else 1  # the first dot's B (N-major) needs 64-column atoms
    assert len(first_steps) == dots * m // (16 * num_warps)
    (tmp_path / "k.ptx").write_text(ptx)
    report = subprocess.run([ptxas_path(), "-arch=sm_90a", "-v", "-o", os.devnull, str(tmp_path / "k.ptx")],
                            capture_output=True, text=True, check=True).stderr
    assert "is injected" not in report, report


def expanded(text: str) -> str:
    """Printed IR with every layout alias (`#blocked0 = ...`, defined above the function) replaced
    by its definition, parents first, so a line can be searched for a layout's fields."""
    aliases = {}
    for line in text.splitlines():
        found = re.match(r"^(#\w+) = (.*)$", line)
        if found:
            aliases[found.group(1)] = found.group(2)
    for _ in range(len(aliases)):  # a definition may name its parent by alias
        aliases = {name: re.sub(r"#\w+\b", lambda m: aliases.get(m.group(0), m.group(0)), d) for name, d in aliases.items()}
    return re.sub(r"#\w+\b(?![<{])", lambda m: aliases.get(m.group(0), m.group(0)), text)


# ---------------------------------------------------------------------------- attention forward

ATTENTION_CASES = [(64, 128, 64, 4, False, 333), (64, 128, 128, 8, True, 301), (128, 128, 64, 8, False, 257),
                   (128, 128, 128, 8, True, 190), (128, 64, 64, 4, True, 100)]  # D, BLOCK_M, BLOCK_N, warps, causal, N


def attention_forward(device, head_dim, block_m, block_n, num_warps, causal, n_ctx, dtype=np.float16):
    """O from the example's forward kernel on random inputs, and its float64 reference."""
    rng = np.random.default_rng(n_ctx)
    z, h = 1, 2
    shape = (z, h, n_ctx, head_dim)
    q, k, v = (rng.standard_normal(shape).astype(dtype) for _ in range(3))
    out = device.array(np.full(shape, np.nan, dtype))
    m = device.array(np.full((z, h, n_ctx), np.nan, np.float32))
    sm_scale = 1 / math.sqrt(head_dim)
    attention_fwd_kernel[(triton.cdiv(n_ctx, block_m), z * h)](
        device.array(q), device.array(k), device.array(v), out, m, sm_scale, *[s // q.itemsize for s in q.strides],
        h, n_ctx, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal, num_warps=num_warps)
    want = attention_reference(q, k, v, q, sm_scale, causal)[0]
    return device.numpy(out).astype(np.float64), want


@pytest.mark.gpu_tolerance(1e-2, 2e-3)
@pytest.mark.parametrize("head_dim, block_m, block_n, num_warps, causal, n_ctx", ATTENTION_CASES, ids=str)
def test_attention_forward_at_odd_sizes(device, head_dim, block_m, block_n, num_warps, causal, n_ctx):
    got, want = attention_forward(device, head_dim, block_m, block_n, num_warps, causal, n_ctx)
    np.testing.assert_allclose(got, want, atol=4e-3 * np.abs(want).max())


@triton.jit
def two_loops_kernel(Q, K, Out, N, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Q K^T summed over two halves of the keys in two loops (causal attention's two stages), the
    second half twice: both loops read the same Q from shared memory."""
    rows, cols, keys = tl.arange(0, BLOCK_M), tl.arange(0, D), tl.arange(0, BLOCK_N)
    q = tl.load(Q + rows[:, None] * D + cols[None, :])
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for n in range(0, N // 2, BLOCK_N):
        acc = tl.dot(q, tl.trans(tl.load(K + (n + keys)[:, None] * D + cols[None, :])), acc)
    for n in range(N // 2, N, BLOCK_N):
        acc += 2 * tl.dot(q, tl.trans(tl.load(K + (n + keys)[:, None] * D + cols[None, :])))
    tl.store(Out + rows[:, None] * BLOCK_N + keys[None, :], acc)


def test_two_loops_read_one_copy_of_q(device):
    """Q goes to shared memory once, before the first loop, and stays there for the second."""
    rng = np.random.default_rng(9)
    n, d = 256, 64
    q, k = (rng.choice(SMALL, s).astype(np.float16) for s in ((64, d), (n, d)))
    out = device.array(np.full((64, 64), np.nan, np.float32))
    two_loops_kernel[(1,)](device.array(q), device.array(k), out, n, D=d, BLOCK_M=64, BLOCK_N=64)
    halves = [q.astype(np.float64) @ k[h * n // 2:(h + 1) * n // 2].astype(np.float64).T for h in (0, 1)]
    blocks = [sum(np.split(h, n // 128, axis=1)) for h in halves]
    np.testing.assert_array_equal(device.numpy(out), blocks[0] + 2 * blocks[1])
    kernel = two_loops_kernel.warmup(q, k, np.zeros((64, 64), np.float32), n, D=d, BLOCK_M=64, BLOCK_N=64,
                                     grid=(1,), target="sm_90a")
    layout = expanded(kernel.asm["layout"])
    writes = [line for line in layout.splitlines() if "convert_layout" in line and "#shared_operand<{opIdx=0" in line]
    assert len(writes) == 1 and layout.index(writes[0]) < layout.index(" = for ")


@pytest.mark.parametrize("head_dim, block_n, num_warps", [(64, 64, 4), (128, 64, 8), (128, 128, 8), (64, 128, 4)])
def test_the_attention_loop_keeps_p_and_acc_in_registers(head_dim, block_n, num_warps):
    """sm_90a: Q K^T and P V on wgmma (P from registers); Q goes to shared memory once, before the
    loop; K and V arrive in rings by cp.async (K stored K-major, as loaded); nothing in the loop
    converts through shared memory, P included."""
    n_ctx = 1024
    q = np.zeros((1, 1, n_ctx, head_dim), np.float16)
    kernel = attention_fwd_kernel.warmup(q, q, q, q, np.zeros(n_ctx, np.float32), 0.5,
                                         *[s // 2 for s in q.strides], 1, n_ctx, HEAD_DIM=head_dim, BLOCK_M=128,
                                         BLOCK_N=block_n, CAUSAL=False, grid=(1,), target="sm_90a",
                                         num_warps=num_warps, num_stages=3)
    layout, ptx = expanded(kernel.asm["layout"]), kernel.asm["ptx"]
    loop = layout[layout.index(" = for "):layout.index("yield")]
    assert not [line for line in loop.splitlines() if "convert_layout" in line and "smem_bytes" in line]
    before = layout[:layout.index(" = for ")]
    assert "#shared_operand<{opIdx=0" in before  # Q
    assert loop.count("local_read") == 2 and "kContiguous=true" in loop  # K^T and V from their rings
    assert "#dot_op<{opIdx=0" in loop  # P, renumbered in registers
    rs = len(re.findall(r"wgmma\.mma_async[^;]*\}, \{%r", ptx))
    assert rs == (128 // (16 * num_warps)) * (block_n // 16)
    assert "mma.sync" not in ptx
    assert "ldmatrix" not in ptx
