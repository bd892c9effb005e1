"""tl.dot as Triton 3.6 has it: every input precision, out_dtype, fp8 operands, 3-D (batched) dots.

References are float64 products of the operands as the dot sees them: fp32 as it is ("ieee"),
cut to tf32 ("tf32": the 13 low bits cleared, as the tensor cores cut fp32 bits), or
split into parts (tf32x3, bf16x3, bf16x6, whose error bounds follow from the parts' widths). A
matmul kernel with masks runs sizes that are not multiples of its blocks, on several programs,
with 4 and 8 warps; outputs start poisoned. Kernels run in the interpreter and are compiled for
sm_80, sm_90 and sm_90a (tensor cores: mma.sync, wgmma) by the conftest.
"""
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import CompilationError
from minitriton.floats import fp8_values


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


def tf32_model(x: np.ndarray) -> np.ndarray:
    """fp32 -> tf32 by the bits: the 13 low mantissa bits dropped (toward zero)."""
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, acc_ptr, M, N, K, PRECISION: tl.constexpr, OUT: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """c = acc + a @ b over (BLOCK_M, BLOCK_N) tiles of c, k in steps of BLOCK_K, masked at the edges."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    out = rm[:, None] * N + rn[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.load(acc_ptr + out, mask=mask, other=0)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & (k + rk[None, :] < K),
                    other=0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=(k + rk[:, None] < K) & (rn[None, :] < N),
                    other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=OUT)
    tl.store(c_ptr + out, acc, mask=mask)


def matmul(a, b, acc, precision="ieee", out=tl.float32, blocks=(32, 32, 16), num_warps=4):
    (m, k), n = a.shape, b.shape[1]
    c = np.full((m, n), np.nan, acc.dtype) if acc.dtype.kind == "f" else np.full((m, n), -7, acc.dtype)
    block_m, block_n, block_k = blocks
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](a, b, c, acc, m, n, k, PRECISION=precision, OUT=out, BLOCK_M=block_m, BLOCK_N=block_n,
                        BLOCK_K=block_k, num_warps=num_warps)
    return c


def operands(seed, m=50, n=70, k=40, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype),
            rng.standard_normal((m, n)).astype(np.float32))


def scale(a, b) -> np.ndarray:
    """sum_k |a_ik b_kj|: what the rounding errors of a dot are relative to."""
    return np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))


# --------------------------------------------------------------------------------- fp32 precisions

@pytest.mark.parametrize("num_warps", [4, 8])
def test_ieee_is_fp32(num_warps):
    a, b, acc = operands(0)
    c = matmul(a, b, acc, "ieee", num_warps=num_warps)
    exact = acc + a.astype(np.float64) @ b
    assert np.all(np.abs(c - exact) <= 40 * 2**-24 * (scale(a, b) + np.abs(acc)))


@pytest.mark.parametrize("num_warps", [4, 8])
def test_tf32_cuts_each_operand_toward_zero(num_warps):
    a, b, acc = operands(1)
    c = matmul(a, b, acc, "tf32", num_warps=num_warps)
    model = acc + tf32_model(a).astype(np.float64) @ tf32_model(b)
    bound = 40 * 2**-24 * (scale(a, b) + np.abs(acc))  # fp32 accumulation only: products are exact
    assert np.all(np.abs(c - model) <= bound)
    fp32 = acc + a.astype(np.float64) @ b
    assert np.mean(np.abs(c - fp32) > bound) > 0.5  # it is not fp32: most results are off by more
    assert np.all(np.abs(c - fp32) <= 2 * 2**-10 * scale(a, b) + bound)  # each cut loses < 2**-10


@pytest.mark.parametrize("blocks, num_warps", [((64, 64, 32), 4), ((32, 64, 32), 4), ((16, 16, 16), 8),
                                               ((8, 16, 16), 4)],
                         ids=["wgmma", "mma.sync", "mma.sync-warps-twice", "cuda-cores"])
def test_tf32_cuts_the_low_bits_on_every_path(device, blocks, num_warps):
    """One product per result (b picks a column of a), so each result is tf32(a) exactly, in any
    order of the sums: every path cuts as the interpreter does, the tensor cores on fp32 bits."""
    m, n, k = 96, 80, 64
    rng = np.random.default_rng(7)
    a = (rng.uniform(1, 2, (m, k)) * rng.choice([-1, 1], (m, k))).astype(np.float32)  # random low bits
    b = (np.arange(k)[:, None] == np.arange(n)[None, :] % k).astype(np.float32)
    c = device.array(np.full((m, n), np.nan, np.float32))
    block_m, block_n, block_k = blocks
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](device.array(a), device.array(b), c, device.array(np.zeros((m, n), np.float32)), m, n, k,
                        PRECISION="tf32", OUT=tl.float32, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                        num_warps=num_warps)
    np.testing.assert_array_equal(device.numpy(c), tf32_model(a)[:, np.arange(n) % k])


def test_tf32_drops_the_low_bits_of_either_sign():
    k = 16
    a = np.full((16, k), 1 + 2**-10 + 2**-11 + 2**-20, np.float32)  # past halfway: still cut down
    a[:, 1] = -(1 + 2**-10 + 2**-11 + 2**-20)  # and a negative one cut toward zero too
    b = np.ones((k, 16), np.float32)
    c = matmul(a, b, np.zeros((16, 16), np.float32), "tf32", blocks=(16, 16, 16))
    np.testing.assert_array_equal(c, np.full((16, 16), (k - 2) * (1 + 2**-10), np.float32))


def test_tf32_is_the_default_and_allow_tf32_false_is_ieee():
    a, b, acc = operands(2, 32, 32, 32)
    default = np.full((32, 32), np.nan, np.float32)
    ieee = default.copy()
    default_kernel[(1,)](a, b, default, ALLOW=None)
    default_kernel[(1,)](a, b, ieee, ALLOW=False)
    np.testing.assert_array_equal(default, matmul(a, b, np.zeros_like(acc), "tf32", blocks=(32, 32, 32)))
    np.testing.assert_array_equal(ieee, matmul(a, b, np.zeros_like(acc), "ieee", blocks=(32, 32, 32)))
    assert not np.array_equal(default, ieee)


@triton.jit
def default_kernel(a_ptr, b_ptr, c_ptr, ALLOW: tl.constexpr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, allow_tf32=ALLOW))


@pytest.mark.parametrize("precision, bits", [("tf32x3", 21), ("bf16x3", 16), ("bf16x6", 23)])
def test_three_or_six_products_are_nearly_fp32(precision, bits):
    """tf32x3: big + small parts of 11 bits each carry 22 bits; bf16x3: hi and mid 8 bits each; bf16x6:
    hi, mid and lo, 24 bits. The products left out are below 2**-bits of each term."""
    a, b, acc = operands(3)
    c = matmul(a, b, acc, precision)
    exact = acc + a.astype(np.float64) @ b
    assert np.all(np.abs(c - exact) <= 2.0**-bits * 4 * scale(a, b) + 40 * 2**-24 * (scale(a, b) + np.abs(acc)))
    tf32 = matmul(a, b, acc, "tf32")
    assert np.max(np.abs(c - exact)) < np.max(np.abs(tf32 - exact)) / 8  # far better than one tf32 dot


def test_precision_names_are_case_blind_as_in_triton():
    a, b, acc = operands(4, 16, 16, 16)
    np.testing.assert_array_equal(matmul(a, b, acc, "TF32x3", blocks=(16, 16, 16)),
                                  matmul(a, b, acc, "tf32x3", blocks=(16, 16, 16)))


def test_an_infinite_operand_gives_infinity_in_three_products():
    """inf's small part is 0, and inf * 0 is NaN: the NaN of the small products is dropped."""
    a = np.ones((16, 16), np.float32)
    a[0, 0] = np.inf
    b = np.ones((16, 16), np.float32)
    for precision in ("tf32x3", "bf16x3", "bf16x6"):
        c = matmul(a, b, np.zeros((16, 16), np.float32), precision, blocks=(16, 16, 16))
        assert np.all(c[0] == np.inf) and np.all(c[1:] == 16)


# --------------------------------------------------------------------------------- other types

@pytest.mark.parametrize("dtype", [np.float16, "bf16"])
def test_16_bit_floats_multiply_exactly(dtype):
    from minitriton.floats import bf16_bits, bf16_from_bits
    a, b, acc = operands(5, dtype=np.float32)
    if dtype == "bf16":
        a, b = bf16_from_bits(bf16_bits(a)), bf16_from_bits(bf16_bits(b))
        args = triton.reinterpret(bf16_bits(a), tl.bfloat16), triton.reinterpret(bf16_bits(b), tl.bfloat16)
    else:
        a, b = a.astype(np.float16), b.astype(np.float16)
        args = a, b
    c = np.full(acc.shape, np.nan, np.float32)
    (m, k), n = a.shape, b.shape[1]
    matmul_kernel[(2, 3)](*args, c, acc, m, n, k, PRECISION="ieee", OUT=tl.float32, BLOCK_M=32, BLOCK_N=32,
                          BLOCK_K=16)
    exact = acc + a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - exact) <= 40 * 2**-24 * (scale(a, b) + np.abs(acc)))


def test_fp16_out_dtype_rounds_an_fp32_sum_once_per_dot():
    a, b, _ = operands(6, 32, 32, 32, np.float16)
    acc = np.random.default_rng(6).standard_normal((32, 32)).astype(np.float16)
    c = matmul(a, b, acc, "ieee", out=tl.float16, blocks=(32, 32, 32))
    assert c.dtype == np.float16
    exact = acc.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_array_equal(c, exact.astype(np.float32).astype(np.float16))


@triton.jit
def int8_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    acc = tl.full((N, N), 1000, tl.int32)
    c = tl.dot(a, b, acc, out_dtype=tl.int32)
    tl.static_assert(c.dtype == tl.int32)
    tl.store(c_ptr + r[:, None] * N + r[None, :], c)


def test_int8_accumulates_in_int32():
    rng = np.random.default_rng(7)
    a, b = (rng.integers(-128, 128, (32, 32), dtype=np.int8) for _ in range(2))
    c = np.full((32, 32), -1, np.int32)
    int8_kernel[(1,)](a, b, c, N=32)
    np.testing.assert_array_equal(c, 1000 + a.astype(np.int64) @ b.astype(np.int64))


INT8_CASES = [((100, 90, 160), (64, 64, 64), 4),    # mma.sync m16n8k32; wgmma m64n64k32 on sm_90a
              ((130, 70, 96), (128, 32, 32), 4),    # two m64 tiles per warpgroup, n32
              ((150, 140, 100), (128, 128, 128), 8),  # two warpgroups, 128-byte rows of K
              ((70, 40, 64), (64, 16, 32), 4),      # n16
              ((50, 60, 70), (32, 64, 64), 8),      # 32 rows: mma.sync everywhere
              ((90, 100, 100), (32, 32, 64), 4),    # mma.sync everywhere, 2 x 2 warps
              ((40, 130, 64), (16, 64, 32), 4),     # mma.sync everywhere, 4 warps along N
              ((40, 30, 50), (16, 16, 32), 8)]      # 8 warps on a 16 x 16 tile: some compute it twice


@pytest.mark.parametrize("shape, blocks, num_warps", INT8_CASES, ids=str)
def test_int8_dots_on_tensor_cores_are_exact(device, shape, blocks, num_warps):
    """int8 products summed in int32, masked edges, several programs. The values keep every partial
    sum far from int32's range, where the tensor cores saturate (mma.sync's `.satfinite`) and the
    interpreter wraps."""
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    rng = np.random.default_rng(23)
    a, b = rng.integers(-128, 128, (m, k), dtype=np.int8), rng.integers(-128, 128, (k, n), dtype=np.int8)
    acc = rng.integers(-2**20, 2**20, (m, n), dtype=np.int32)
    c = device.array(np.full((m, n), np.iinfo(np.int32).min, np.int32))
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](device.array(a), device.array(b), c, device.array(acc), m, n, k, PRECISION="ieee",
                        OUT=tl.int32, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=num_warps)
    np.testing.assert_array_equal(device.numpy(c), acc + a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("arch, blocks, num_warps, want", [
    ("sm_80", (64, 64, 64), 4, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"),
    ("sm_90", (128, 128, 32), 8, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"),
    ("sm_90a", (32, 64, 64), 4, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"),  # 32 rows
    ("sm_90a", (64, 64, 64), 4, "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 "),
    ("sm_90a", (128, 128, 128), 8, "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 "),
    ("sm_90a", (64, 16, 32), 4, "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 "),
], ids=str)
def test_int8_dots_take_the_integer_tensor_core_instructions(arch, blocks, num_warps, want):
    """As Triton: mma.sync saturates (`.satfinite`), wgmma's integer form is the plain one; both keep
    int32 accumulators in integer registers."""
    m, n, k = 128, 128, 128
    a, b, acc = np.zeros((m, k), np.int8), np.zeros((k, n), np.int8), np.zeros((m, n), np.int32)
    block_m, block_n, block_k = blocks
    ptx = matmul_kernel.warmup(a, b, acc, acc, m, n, k, PRECISION="ieee", OUT=tl.int32, BLOCK_M=block_m,
                               BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1), num_warps=num_warps,
                               target=arch).asm["ptx"]
    if want.startswith("wgmma"):  # a warpgroup's 64 rows, all of N, 32 of K: per warp, 16 rows
        wants = block_m * block_k // (16 * num_warps * 32)
    else:  # 16 x 8 x 32 per warp
        wants = block_m * block_n * block_k // (16 * 8 * 32 * num_warps)
    assert ptx.count(want) == wants  # every step of the dot on tensor cores, each once
    assert ("wgmma" in ptx) == want.startswith("wgmma")
    # mma.sync's A comes by ldmatrix (its rows run along K), one per fragment: a warp's 8-column tiles of
    # N (two warps along N in these cases) share it. ldmatrix cannot transpose bytes, so B does not.
    assert ptx.count("ldmatrix") == (0 if want.startswith("wgmma") else wants // (block_n // (2 * 8)))


@triton.jit
def result_type_kernel(a_ptr, OUT: tl.constexpr, WANT: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    tl.static_assert(tl.dot(a, a, out_dtype=OUT).dtype == WANT)


@pytest.mark.parametrize("dtype, out, want", [(tl.bfloat16, tl.float16, tl.float32), (tl.float32, tl.float16, tl.float32),
                                              (tl.float16, tl.float16, tl.float16), (tl.float8e5, tl.float16, tl.float16),
                                              (tl.float64, tl.float32, tl.float64)])
def test_result_types_as_in_triton(dtype, out, want):
    """bf16 and fp32 dots give fp32 whatever out_dtype says; fp16 and fp8 give out_dtype."""
    x = triton.reinterpret(np.zeros(256, f"u{dtype.itemsize}"), dtype) if dtype.stored_as_bits else \
        np.zeros(256, dtype.np)
    if dtype.is_fp8():  # K must be at least 32 for 8-bit operands
        return
    result_type_kernel[(1,)](x, OUT=out, WANT=want)


# ----------------------------------------------------------------------------------------- fp8

@triton.jit
def fp8_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, out_dtype=OUT, max_num_imprecise_acc=K))


def run_fp8(a_type, b_type, out=tl.float32, m=32, n=64, k=64):
    rng = np.random.default_rng(8)
    codes = []
    for dtype, shape in ((a_type, (m, k)), (b_type, (k, n))):
        finite = np.flatnonzero(np.isfinite(fp8_values(dtype)) & (np.abs(fp8_values(dtype)) < 100))
        codes.append(rng.choice(finite, shape).astype(np.uint8))
    c = np.full((m, n), np.nan, np.float32 if out == tl.float32 else np.float16)
    fp8_kernel[(1,)](triton.reinterpret(codes[0], a_type), triton.reinterpret(codes[1], b_type), c, M=m, N=n, K=k,
                     OUT=out)
    a, b = fp8_values(a_type)[codes[0]].astype(np.float64), fp8_values(b_type)[codes[1]].astype(np.float64)
    exact = a @ b
    bound = 64 * 2**-24 * scale(a, b) + (np.abs(exact) * 2**-11 if out == tl.float16 else 0)
    assert np.all(np.abs(c - exact) <= bound)


@pytest.mark.parametrize("a_type, b_type", [(tl.float8e5, tl.float8e5), (tl.float8e4b15, tl.float8e4b15),
                                            (tl.float8e5, tl.float8e4b15)], ids=str)
def test_fp8_dot_is_the_dot_of_its_numbers(a_type, b_type):
    run_fp8(a_type, b_type)


@pytest.mark.targets("sm_90", "sm_90a")
@pytest.mark.parametrize("a_type, b_type, out", [(tl.float8e4nv, tl.float8e4nv, tl.float32),
                                                 (tl.float8e4nv, tl.float8e5, tl.float32),
                                                 (tl.float8e4nv, tl.float8e4nv, tl.float16)], ids=str)
def test_fp8e4nv_dot(a_type, b_type, out):
    run_fp8(a_type, b_type, out)


# ------------------------------------------------------------------------------------------ 3-D

@triton.jit
def batched_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                   PRECISION: tl.constexpr):
    rb, rm, rn, rk = tl.arange(0, B), tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    c = c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :]
    tl.store(c, tl.dot(a, b, input_precision=PRECISION) + 1.0)


@pytest.mark.parametrize("shape, precision, num_warps", [((2, 16, 32, 16), "ieee", 4), ((4, 32, 16, 32), "ieee", 8),
                                                         ((2, 16, 16, 16), "tf32", 4), ((2, 16, 16, 32), "tf32x3", 4)])
def test_batched_dot(shape, precision, num_warps):
    batch, m, n, k = shape
    rng = np.random.default_rng(9)
    a = rng.standard_normal((batch, m, k)).astype(np.float32)
    b = rng.standard_normal((batch, k, n)).astype(np.float32)
    c = np.full((batch, m, n), np.nan, np.float32)
    batched_kernel[(1,)](a, b, c, B=batch, M=m, N=n, K=k, PRECISION=precision, num_warps=num_warps)
    model = tf32_model if precision == "tf32" else (lambda x: x)
    exact = 1 + np.matmul(model(a).astype(np.float64), model(b))
    bound = 4 * k * 2**-24 * (np.matmul(np.abs(a), np.abs(b)) + 1) + (2**-21 * 4 * np.matmul(np.abs(a), np.abs(b))
                                                                     if precision == "tf32x3" else 0)
    assert np.all(np.abs(c - exact) <= bound)


@triton.jit
def rank4_kernel(a_ptr, b_ptr, c_ptr):
    r2, r16 = tl.arange(0, 2), tl.arange(0, 16)
    index = r2[:, None, None, None] * 512 + r2[None, :, None, None] * 256 + r16[None, None, :, None] * 16 \
        + r16[None, None, None, :]
    c = tl.dot(tl.load(a_ptr + index), tl.load(b_ptr + index), input_precision="ieee")
    tl.store(c_ptr + index, c)


def test_a_4d_dot_folds_its_leading_dimensions_into_one_batch():
    rng = np.random.default_rng(10)
    a, b = (rng.standard_normal((2, 2, 16, 16)).astype(np.float32) for _ in range(2))
    c = np.full((2, 2, 16, 16), np.nan, np.float32)
    rank4_kernel[(1,)](a, b, c)
    np.testing.assert_allclose(c, np.matmul(a.astype(np.float64), b), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------- mistakes

@triton.jit
def bad_kernel(a_ptr, b_ptr, M: tl.constexpr, K: tl.constexpr, KIND: tl.constexpr):
    rm, rk = tl.arange(0, M), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * M + rm[None, :])
    if KIND == "both":
        tl.dot(a, b, input_precision="tf32", allow_tf32=True)
    elif KIND == "precision":
        tl.dot(a, b, input_precision="fp64")
    elif KIND == "out":
        tl.dot(a, b, out_dtype=tl.bfloat16)
    elif KIND == "acc":
        tl.dot(a, b, tl.zeros((M, M), tl.float16))
    elif KIND == "imprecise":
        tl.dot(a, b, max_num_imprecise_acc=2 * K)
    else:
        tl.dot(a, b)


@pytest.mark.parametrize("dtype, k, kind, message", [
    (np.float32, 16, "both", "Only one of input_precision and allow_tf32 can be specified"),
    (np.float32, 16, "precision", r"input_precision must be one of \('tf32', 'tf32x3', 'ieee', 'bf16x3', "
                                  r"'bf16x6'\)\. Got fp64"),
    (np.float16, 16, "out", "out_dtype=bfloat16 is unsupported"),
    (np.float32, 16, "acc", r"expected \[16, 16\] of out_dtype=fp32"),
    (np.float32, 8, "plain", "K >= 16, got K=8"),
    (np.int32, 16, "plain", "Unsupported lhs dtype int32"),
    (np.uint8, 32, "plain", "only int8 supported"),
    ("fp8", 16, "plain", "K >= 32, got K=16"),
    ("fp8", 32, "imprecise", r"max_num_imprecise_acc \(64\) must be <= K \(32\)"),
])
def test_mistakes_are_errors_with_tritons_words(dtype, k, kind, message):
    if dtype == "fp8":
        a = triton.reinterpret(np.zeros(16 * k, np.uint8), tl.float8e5)
    else:
        a = np.zeros(16 * k, dtype)
    with pytest.raises(CompilationError, match=message):
        bad_kernel[(1,)](a, a, M=16, K=k, KIND=kind)


@triton.jit
def small_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("m, n", [(1, 16), (8, 2), (2, 64)])
def test_m_and_n_may_be_below_16_as_in_triton(m, n):
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((m, 32)).astype(np.float16), rng.standard_normal((32, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    small_kernel[(1,)](a, b, c, M=m, N=n, K=32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - exact) <= 40 * 2**-24 * scale(a, b))


# ------------------------------------------------------------------------- tensor cores by type

def test_tf32_on_cuda_cores_is_ieee():
    a, b, acc = operands(12, 64, 64, 32)
    c = np.zeros((64, 64), np.float32)
    ptx = matmul_kernel.warmup(a, b, c, acc, 64, 64, 32, PRECISION="ieee", OUT=tl.float32, BLOCK_M=64, BLOCK_N=64,
                               BLOCK_K=32, grid=(1, 1), target="sm_90a").asm["ptx"]
    assert "mma" not in ptx and "fma.rn.f32" in ptx


E4M3, E5M2, E4B15 = tl.float8e4nv, tl.float8e5, tl.float8e4b15


@pytest.mark.parametrize("arch, types, blocks, wants", [
    # before sm_90a an fp8 dot multiplies the operands' fp16 values on mma.sync
    ("sm_80", (E5M2, E5M2), (64, 64, 64), ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"]),
    ("sm_90", (E4M3, E5M2), (64, 64, 64), ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                           "cvt.rn.f16x2.e4m3x2"]),
    # wgmma takes e4m3 and e5m2 as they are, in any pair, k32 per instruction
    ("sm_90a", (E4M3, E4M3), (64, 64, 64), ["wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3"]),
    ("sm_90a", (E4M3, E5M2), (64, 32, 32), ["wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2"]),
    ("sm_90a", (E5M2, E4M3), (128, 128, 128), ["wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3"]),
    ("sm_90a", (E5M2, E5M2), (64, 16, 32), ["wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e5m2"]),
    # fp8e4b15 has no wgmma type: fp16 values, on wgmma where fp16 fits it
    ("sm_90a", (E4B15, E4B15), (64, 64, 64), ["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"]),
    ("sm_90a", (E4B15, E5M2), (64, 64, 64), ["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"]),
    # a shape wgmma does not fit (32 rows for 4 warps): fp16 values on mma.sync
    ("sm_90a", (E4M3, E4M3), (32, 64, 64), ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"]),
    # tf32: mma.sync k8, or wgmma k8 (both operands K-major), given the fp32 bits as they are: the
    # tensor cores cut them, so wgmma's operands are copied in by cp.async, pipelined
    ("sm_80", "tf32", (64, 64, 32), ["mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"]),
    ("sm_90", "tf32", (64, 64, 32), ["mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"]),
    ("sm_90a", "tf32", (64, 64, 32), ["wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32", "cp.async"]),
    ("sm_90a", "tf32x3", (128, 64, 16), ["wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"]),
    ("sm_90a", "fp16", (64, 64, 64), ["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"]),
], ids=str)
def test_each_operand_type_takes_its_tensor_core_instruction(arch, types, blocks, wants):
    m, n, k = 128, 128, 128
    c, acc = np.zeros((m, n), np.float32), np.zeros((m, n), np.float32)
    if isinstance(types, tuple):
        a, b = (triton.reinterpret(np.zeros(m * k, np.uint8), t) for t in types)
        precision = "ieee"
    else:
        dtype = np.float16 if types == "fp16" else np.float32
        a, b = np.zeros((m, k), dtype), np.zeros((k, n), dtype)
        precision = "ieee" if types == "fp16" else types
    block_m, block_n, block_k = blocks
    ptx = matmul_kernel.warmup(a, b, c, acc, m, n, k, PRECISION=precision, OUT=tl.float32, BLOCK_M=block_m,
                               BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1), target=arch).asm["ptx"]
    for want in wants:
        assert want in ptx
    assert ("wgmma" in ptx) == ("wgmma" in wants[0]) and ("mma.sync" in ptx) == ("mma.sync" in wants[0])
    assert "cvt.rna" not in ptx


# Operands whose products are multiples of 1/16 of at most 2.25 in size, so that every partial sum of
# K <= 160 of them (and an accumulator of the same kind) is a multiple of 1/16 below 2**10: exact
# in fp32 in any order, and in the fp8 tensor cores' narrower adders (about 14 bits are kept), so
# the GPU agrees with the interpreter and with float64 bit for bit.
SMALL = np.array([0, 0.25, -0.25, 0.5, -0.5, 0.75, -0.75, 1, -1, 1.5, -1.5])  # in every fp8 format


def fp8_codes(dtype, shape, rng, values=None):
    """Random codes of `dtype` for `values` (default: every finite number below 100 in size)."""
    numbers = fp8_values(dtype)
    if values is None:
        pool = np.flatnonzero(np.isfinite(numbers) & (np.abs(numbers) < 100))
    else:
        pool = np.array([np.flatnonzero(numbers == v)[0] for v in values])
    return rng.choice(pool, shape).astype(np.uint8)


def run_fp8_matmul(device, types, shape, blocks, num_warps, values, seed=20):
    """c = acc + a @ b on fp8 codes by the looped, masked matmul; returns c and the float64 answer."""
    rng = np.random.default_rng(seed)
    (m, n, k), (block_m, block_n, block_k) = shape, blocks
    codes = [fp8_codes(types[0], (m, k), rng, values), fp8_codes(types[1], (k, n), rng, values)]
    acc = rng.choice(SMALL * 4, (m, n)).astype(np.float32)
    c = device.array(np.full((m, n), np.nan, np.float32))
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](triton.reinterpret(device.array(codes[0]), types[0]),
                        triton.reinterpret(device.array(codes[1]), types[1]), c, device.array(acc), m, n, k,
                        PRECISION="ieee", OUT=tl.float32, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                        num_warps=num_warps)
    a, b = (fp8_values(t)[x].astype(np.float64) for t, x in zip(types, codes))
    return device.numpy(c), acc + a @ b, a, b


FP8_CASES = [((E4M3, E4M3), (100, 90, 160), (64, 64, 64), 4),   # wgmma on sm_90a: m64n64k32, masked edges
             ((E5M2, E5M2), (130, 70, 96), (128, 32, 32), 4),   # two m64 tiles per warpgroup, n32
             ((E4M3, E5M2), (150, 140, 100), (128, 128, 128), 8),  # two warpgroups, k128 rows
             ((E5M2, E4M3), (70, 40, 64), (64, 16, 32), 4),     # n16
             ((E4M3, E4M3), (50, 60, 70), (32, 64, 64), 4),     # 32 rows: fp16 values on mma.sync
             ((E4B15, E4B15), (100, 90, 80), (64, 64, 64), 4)]  # no wgmma type: fp16 values


@pytest.mark.targets("sm_90", "sm_90a")
@pytest.mark.parametrize("types, shape, blocks, num_warps", FP8_CASES, ids=str)
def test_fp8_dots_on_tensor_cores_are_exact_where_the_sums_are(device, types, shape, blocks, num_warps):
    c, exact, _, _ = run_fp8_matmul(device, types, shape, blocks, num_warps, SMALL)
    np.testing.assert_array_equal(c, exact)


@pytest.mark.no_gpu_diff
@pytest.mark.targets("sm_90", "sm_90a")
@pytest.mark.parametrize("types, shape, blocks, num_warps", FP8_CASES, ids=str)
def test_fp8_dots_over_the_whole_range(device, types, shape, blocks, num_warps):
    """Any finite fp8 numbers: products are exact, but the tensor cores add fp8 products in
    narrower adders than fp32's (hence Triton's `max_num_imprecise_acc`): on an H100 the largest
    error of these cases was 2**-10.6 of the sum of the products' sizes. So the bound is relative to
    that sum, with a bit and a half to spare, and the GPU is not held to the interpreter's fp32 sums."""
    c, exact, a, b = run_fp8_matmul(device, types, shape, blocks, num_warps, None)
    assert np.all(np.abs(c - exact) <= 2**-9 * (scale(a, b) + 1))


@triton.jit
def dot_bt_kernel(a_ptr, bt_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                  PRECISION: tl.constexpr):
    """c = a @ b with b given as its transpose (N x K, row-major): b's tile is loaded K-contiguous."""
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(bt_ptr + rn[None, :] * K + rk[:, None])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision=PRECISION))


@pytest.mark.targets("sm_90", "sm_90a")
@pytest.mark.parametrize("types, shape", [((E4M3, E5M2), (64, 64, 128)), ((E5M2, E5M2), (64, 32, 64)),
                                          ("tf32", (64, 64, 32)), ("tf32", (128, 32, 16))], ids=str)
def test_a_k_contiguous_b_is_stored_k_major_in_runs(device, types, shape):
    """A K-major B (fp8, tf32 on wgmma) from a tile whose threads hold runs along K: stored as vectors."""
    m, n, k = shape
    rng = np.random.default_rng(22)
    c = device.array(np.full((m, n), np.nan, np.float32))
    if types == "tf32":
        a, bt = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((n, k)).astype(np.float32)
        dot_bt_kernel[(1,)](device.array(a), device.array(bt), c, M=m, N=n, K=k, PRECISION="tf32")
        exact = tf32_model(a).astype(np.float64) @ tf32_model(bt).T
        assert np.all(np.abs(device.numpy(c) - exact) <= 40 * 2**-24 * scale(a, bt.T))
        return
    codes = fp8_codes(types[0], (m, k), rng, SMALL), fp8_codes(types[1], (n, k), rng, SMALL)
    dot_bt_kernel[(1,)](*(triton.reinterpret(device.array(x), t) for x, t in zip(codes, types)), c, M=m, N=n, K=k,
                        PRECISION="ieee")
    a, bt = (fp8_values(t)[x].astype(np.float64) for t, x in zip(types, codes))
    np.testing.assert_array_equal(device.numpy(c), a @ bt.T)


TF32_CASES = [("tf32", (100, 90, 70), (64, 64, 32), 4),    # wgmma on sm_90a: m64n64k8, 128-byte rows
              ("tf32", (130, 100, 40), (128, 64, 16), 4),  # two m64 tiles per warpgroup, 64-byte rows
              ("tf32", (150, 140, 50), (128, 128, 16), 8),  # two warpgroups
              ("tf32", (70, 40, 64), (64, 16, 32), 4),     # n16
              ("tf32x3", (100, 90, 70), (64, 64, 32), 4)]


@pytest.mark.parametrize("precision, shape, blocks, num_warps", TF32_CASES, ids=str)
def test_tf32_dots_on_every_tensor_core_shape(device, precision, shape, blocks, num_warps):
    rng = np.random.default_rng(21)
    (m, n, k) = shape
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    acc = rng.standard_normal((m, n)).astype(np.float32)
    c = device.array(np.full((m, n), np.nan, np.float32))
    block_m, block_n, block_k = blocks
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](device.array(a), device.array(b), c, device.array(acc), m, n, k, PRECISION=precision,
                        OUT=tl.float32, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=num_warps)
    c = device.numpy(c)
    bound = 40 * 2**-24 * (scale(a, b) + np.abs(acc))  # fp32 accumulation: the products are exact
    if precision == "tf32":
        model = acc + tf32_model(a).astype(np.float64) @ tf32_model(b)
    else:  # three products of the parts: fp32's error and the small parts' products left out
        model, bound = acc + a.astype(np.float64) @ b, bound + 4 * 2**-21 * scale(a, b)
    assert np.all(np.abs(c - model) <= bound)


@triton.jit
def many_batch_axes_kernel(X, Y, Z, RANK: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr):
    x = tl.load(X + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    y = tl.load(Y + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    if TRANS_A:
        x = tl.trans(x)  # no axes given: the last two swap, the batch axes stay
    if TRANS_B:
        y = y.trans()
    tl.store(Z + tl.arange(0, 256 << RANK), tl.dot(x, y).reshape([256 << RANK]))


@pytest.mark.parametrize("rank", [2, 3, 4, 5])
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, False), (False, True)])
def test_dots_with_any_number_of_batch_axes(rank, trans_a, trans_b):
    shape = (2,) * (rank - 2) + (32, 32)
    rng = np.random.default_rng(rank)
    a, b = (rng.integers(-4, 5, shape).astype(np.float16) for _ in range(2))
    c = np.full(shape, np.nan, np.float32)
    many_batch_axes_kernel[(1,)](a, b, c, rank, trans_a, trans_b)
    t = lambda m, flag: np.swapaxes(m, -1, -2) if flag else m
    np.testing.assert_array_equal(c, t(a, trans_a).astype(np.float32) @ t(b, trans_b).astype(np.float32))


@triton.jit
def trans_1d_kernel(X):
    tl.store(X + tl.arange(0, 16), tl.trans(tl.load(X + tl.arange(0, 16))))


def test_trans_of_one_axis_is_refused():
    with pytest.raises(triton.CompilationError, match="tl.trans invoked with a 0- or 1-dimensional tensor"):
        trans_1d_kernel[(1,)](np.zeros(16, np.float32))


# ----------------------------------------------------------------------------- dot + d

@triton.jit
def added_dot_kernel(a_ptr, b_ptr, c_ptr, K, FORM: tl.constexpr, BLOCK: tl.constexpr):
    """c = sum over k-steps of a_k @ b_k, accumulated in one of four forms; one program."""
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), c_ptr.dtype.element_ty)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + r[:, None] * K + (k + r)[None, :])
        b = tl.load(b_ptr + (k + r)[:, None] * BLOCK + r[None, :])
        if FORM == "acc += dot":
            acc += tl.dot(a, b)
        elif FORM == "dot + acc":
            acc = tl.dot(a, b) + acc
        elif FORM == "read twice":  # the dot's result has a second reader: it stays a dot of its own
            d = tl.dot(a, b)
            acc += d + d - d
        else:  # the dot already has an accumulator
            acc += tl.dot(a, b, tl.full((BLOCK, BLOCK), 1, acc.dtype), out_dtype=acc.dtype) - 1
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


@pytest.mark.parametrize("form, folded", [("acc += dot", True), ("dot + acc", True), ("read twice", False),
                                          ("with an accumulator", False)])
@pytest.mark.parametrize("dtype", [np.float16, np.int8])
def test_an_added_dot_accumulates_in_place(form, folded, dtype):
    """`acc += tl.dot(a, b)` is `tl.dot(a, b, acc)`, as Triton combines it (the loop then keeps one
    accumulator, not two): only where the dot had no accumulator and the add alone reads it."""
    rng = np.random.default_rng(5)
    block, k = 32, 96
    a, b = rng.integers(-3, 4, (block, k)).astype(dtype), rng.integers(-3, 4, (k, block)).astype(dtype)
    out_type = np.float32 if dtype == np.float16 else np.int32
    c = np.full((block, block), -7, out_type)
    added_dot_kernel[(1,)](a, b, c, k, FORM=form, BLOCK=block)
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))  # small integers: exact
    ttir = added_dot_kernel.warmup(a, b, c, k, FORM=form, BLOCK=block, grid=(1,), target="sm_90a").asm["ttir"]
    loop = ttir[ttir.index("^body"):ttir.index("yield")]
    dots = [line for line in loop.splitlines() if " = dot " in line]
    carried = loop.split("^body(")[1].split(",")[1].split(":")[0].strip()  # the accumulator inside the loop
    assert (dots[0].split(", ")[2].split(" ")[0] == carried) == folded


# ------------------------------------------------------------------ tiles smaller than the warps'

SMALL_TILES = [((16, 16, 16), 4), ((32, 32, 32), 16), ((16, 16, 32), 8), ((16, 64, 16), 8)]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("blocks, num_warps", SMALL_TILES, ids=str)
def test_a_tile_smaller_than_the_warps_still_takes_mma(arch, blocks, num_warps):
    """16 x 16 on 4 warps is (1, 4) warps of m16n8 tiles, 32 columns: two warps compute the same
    8 columns, as in Triton, whose test_dot looks for mma.sync in these kernels."""
    a, b, acc = np.zeros((64, 64), np.float16), np.zeros((64, 64), np.float16), np.zeros((64, 64), np.float32)
    block_m, block_n, block_k = blocks
    ptx = matmul_kernel.warmup(a, b, acc, acc, 64, 64, 64, PRECISION="ieee", OUT=tl.float32, BLOCK_M=block_m,
                               BLOCK_N=block_n, BLOCK_K=block_k, grid=(1, 1), num_warps=num_warps,
                               target=arch).asm["ptx"]
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    assert "fma.rn.f32" not in ptx


@pytest.mark.parametrize("dtype", [np.float16, "bf16", np.float32])
@pytest.mark.parametrize("blocks, num_warps", SMALL_TILES, ids=str)
def test_a_tile_smaller_than_the_warps_agrees_with_numpy(device, blocks, num_warps, dtype):
    """The replicated warps each hold a copy of their columns; the store writes each element once,
    right, at sizes that leave every edge masked."""
    m, n, k = 45, 70, 50
    rng = np.random.default_rng(11)
    if dtype == "bf16":
        bits = [(rng.standard_normal(s).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
                for s in ((m, k), (k, n))]
        a, b = ((x.astype(np.uint32) << 16).view(np.float32) for x in bits)
        args = [triton.reinterpret(device.array(x), tl.bfloat16) for x in bits]
    else:
        a, b = (rng.standard_normal(s).astype(dtype) for s in ((m, k), (k, n)))
        args = [device.array(a), device.array(b)]
    acc = rng.standard_normal((m, n)).astype(np.float32)
    c = device.array(np.full((m, n), np.nan, np.float32))
    block_m, block_n, block_k = blocks
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](*args, c, device.array(acc), m, n, k, PRECISION="ieee", OUT=tl.float32,
                        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=num_warps)
    want = acc + a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(device.numpy(c) - want) <= 1e-5 * scale(a, b) + 1e-5)


@triton.jit
def small_epilogues_kernel(a_ptr, b_ptr, c_ptr, rows_ptr, cols_ptr, chain_ptr, M: tl.constexpr, N: tl.constexpr,
                           K: tl.constexpr):
    """One tile: c = softmax(a @ b) by rows, its row and column sums, and (a @ b) @ b^T chained."""
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    s = tl.dot(a, b)
    p = tl.exp(s - tl.max(s, 1)[:, None])
    tl.store(c_ptr + m[:, None] * N + n[None, :], p / tl.sum(p, 1)[:, None])
    tl.store(rows_ptr + m, tl.sum(s, 1))
    tl.store(cols_ptr + n, tl.sum(s, 0))
    chained = tl.dot(s.to(tl.float16), tl.trans(b))
    tl.store(chain_ptr + m[:, None] * K + k[None, :], chained)


@pytest.mark.parametrize("shape, num_warps", [((16, 16, 16), 4), ((32, 32, 32), 16), ((16, 32, 16), 8)], ids=str)
def test_reductions_of_a_tile_computed_twice_count_it_once(device, shape, num_warps):
    """Row and column sums, a softmax and a chained dot over an accumulator whose warps replicate
    (Triton's test_dot epilogues at its small shapes): the copies must not be summed twice."""
    m, n, k = shape
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((m, k)) / 4).astype(np.float16)
    b = (rng.standard_normal((k, n)) / 4).astype(np.float16)
    outs = [device.array(np.full(s, np.nan, np.float32)) for s in ((m, n), (m,), (n,), (m, k))]
    small_epilogues_kernel[(1,)](device.array(a), device.array(b), *outs, M=m, N=n, K=k, num_warps=num_warps)
    s = a.astype(np.float64) @ b.astype(np.float64)
    p = np.exp(s - s.max(1, keepdims=True))
    chained = s.astype(np.float16).astype(np.float64) @ b.astype(np.float64).T
    for got, want in zip(outs, (p / p.sum(1, keepdims=True), s.sum(1), s.sum(0), chained)):
        np.testing.assert_allclose(device.numpy(got), want, rtol=2e-3, atol=2e-3)
