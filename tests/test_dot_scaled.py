"""tl.dot_scaled: microscaled operands (e2m1, e4m3, e5m2, bf16, fp16, with e8m0 scales per 32
elements along K) against a float64 reference.

The reference decodes each format in float64, and follows the upcast the GPU lowering does (Triton's
for Hopper and older, which minitriton's language layer builds): values in bf16, or fp16 when either
format is fp16; the scale 2**(s - 127) in that type (0 for s = 0 in bf16, rounded to fp16); their
product rounded to that type; NaN for s = 0xFF unless fast_math. The dot then accumulates in fp32,
whose rounding is the only error allowed. A masked matmul over a K loop runs sizes that are not
multiples of its blocks, on several programs, with outputs poisoned. Kernels run in the
interpreter and are compiled for sm_80, sm_90 and sm_90a by the conftest; the `device` fixture runs
the same tests on a GPU where there is one.
"""
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import CompilationError
from minitriton.floats import bf16_bits, bf16_from_bits, fp8_values, round_to_bf16

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])
FP8 = {"e4m3": tl.float8e4nv, "e5m2": tl.float8e5}


@triton.jit
def scaled_matmul_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, acc_ptr, M, N, K,
                         A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr, A_SCALED: tl.constexpr,
                         B_SCALED: tl.constexpr, FAST_MATH: tl.constexpr, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """c = acc + scaled(a) @ scaled(b) over (BLOCK_M, BLOCK_N) tiles, K in steps of BLOCK_K, masked.
    a is [M, K] ([M, K // 2] bytes for e2m1), b is [K, N] ([K // 2, N]); scales [M | N, K // 32]."""
    A_PACK: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    B_PACK: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ka = tl.arange(0, BLOCK_K // A_PACK)
    kb = tl.arange(0, BLOCK_K // B_PACK)
    ks = tl.arange(0, BLOCK_K // 32)
    out = rm[:, None] * N + rn[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.load(acc_ptr + out, mask=mask, other=0)
    for k in range(0, K, BLOCK_K):
        a_k = k // A_PACK + ka
        a = tl.load(a_ptr + rm[:, None] * (K // A_PACK) + a_k[None, :],
                    mask=(rm[:, None] < M) & (a_k[None, :] < K // A_PACK), other=0)
        b_k = k // B_PACK + kb
        b = tl.load(b_ptr + b_k[:, None] * N + rn[None, :], mask=(b_k[:, None] < K // B_PACK) & (rn[None, :] < N),
                    other=0)
        s_k = k // 32 + ks
        a_scale = None
        b_scale = None
        if A_SCALED:
            a_scale = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + s_k[None, :],
                              mask=(rm[:, None] < M) & (s_k[None, :] < K // 32), other=127)
        if B_SCALED:
            b_scale = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + s_k[None, :],
                              mask=(rn[:, None] < N) & (s_k[None, :] < K // 32), other=127)
        acc = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, acc, fast_math=FAST_MATH)
    tl.store(c_ptr + out, acc, mask=mask)


# ----------------------------------------------------------------------------------- the reference

def random_operand(rng, fmt: str, shape: tuple[int, int], pack_axis: int) -> np.ndarray:
    """What memory holds: bytes of two e2m1 nibbles (half as many along `pack_axis`), fp8 codes
    (no NaN or infinity), bf16 bits, fp16 numbers."""
    if fmt == "e2m1":
        shape = tuple(s // 2 if i == pack_axis else s for i, s in enumerate(shape))
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if fmt in FP8:
        codes = rng.integers(0, 256, shape, dtype=np.uint8)
        return np.where(np.isfinite(fp8_values(FP8[fmt])[codes]), codes, 0x38).astype(np.uint8)
    values = rng.standard_normal(shape) * 4
    return bf16_bits(values) if fmt == "bf16" else values.astype(np.float16)


def decode(x: np.ndarray, fmt: str, pack_axis: int) -> np.ndarray:
    """The operand's numbers in float64 (e2m1 unpacked along `pack_axis`, the low nibble first)."""
    if fmt == "e2m1":
        pairs = np.stack([E2M1[x & 15], E2M1[x >> 4]], axis=pack_axis + 1)
        return pairs.reshape(tuple(s * 2 if i == pack_axis else s for i, s in enumerate(x.shape)))
    if fmt in FP8:
        return fp8_values(FP8[fmt])[x].astype(np.float64)
    return (bf16_from_bits(x) if fmt == "bf16" else x).astype(np.float64)


def to_compute(x: np.ndarray, compute: str) -> np.ndarray:
    """Rounded to the compute type (bf16 or fp16), to nearest even, as float64."""
    with np.errstate(over="ignore"):
        return (round_to_bf16(x) if compute == "bf16" else x.astype(np.float16)).astype(np.float64)


def scaled(values: np.ndarray, scale, compute: str, fast_math: bool = False) -> np.ndarray:
    """values ([rows, K]) times their scales ([rows, K // 32]) as the upcast computes it."""
    if scale is None:
        return to_compute(values, compute)
    s = np.repeat(scale.astype(np.int64), 32, axis=-1)
    factor = np.where(s == 0, 0.0, 2.0 ** (s - 127.0)) if compute == "bf16" else to_compute(2.0 ** (s - 127.0),
                                                                                           compute)
    factor = np.where(s == 255, np.inf, factor)
    with np.errstate(invalid="ignore"):
        product = to_compute(to_compute(values, compute) * factor, compute)
    return product if fast_math else np.where(s == 255, np.nan, product)


def reference(a, a_scale, a_format, b, b_scale, b_format, acc, fast_math=False):
    compute = "fp16" if "fp16" in (a_format, b_format) else "bf16"
    av = scaled(decode(a, a_format, 1), a_scale, compute, fast_math)
    bv = scaled(decode(b, b_format, 0).T, b_scale, compute, fast_math).T
    with np.errstate(invalid="ignore"):
        return acc + av @ bv, np.abs(av) @ np.abs(bv) + np.abs(acc)


def run(device, a, a_scale, a_format, b, b_scale, b_format, acc, fast_math=False, blocks=(32, 32, 64)):
    (m, n), k = acc.shape, decode(a, a_format, 1).shape[1]
    c = device.array(np.full((m, n), np.nan, np.float32))
    block_m, block_n, block_k = blocks
    zero = np.zeros(1, np.uint8)
    args = [device.array(x) for x in (a, zero if a_scale is None else a_scale, b,
                                      zero if b_scale is None else b_scale)]
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    scaled_matmul_kernel[grid](args[0], args[1], args[2], args[3], c, device.array(acc), m, n, k, a_format, b_format,
                               a_scale is not None, b_scale is not None, fast_math, block_m, block_n, block_k)
    return device.numpy(c)


def case(seed, a_format, b_format, m=50, n=70, k=96, scales=(True, True), scale_range=(110, 140)):
    rng = np.random.default_rng(seed)
    a = random_operand(rng, a_format, (m, k), 1)
    b = random_operand(rng, b_format, (k, n), 0)
    a_scale = rng.integers(*scale_range, (m, k // 32), dtype=np.uint8) if scales[0] else None
    b_scale = rng.integers(*scale_range, (n, k // 32), dtype=np.uint8) if scales[1] else None
    acc = rng.standard_normal((m, n)).astype(np.float32)
    return a, a_scale, b, b_scale, acc


def check(c, exact, size, k):
    """Infinities and NaNs where the reference has them; elsewhere fp32 accumulation's error."""
    finite = np.isfinite(exact)
    assert np.array_equal(c[~finite], exact[~finite], equal_nan=True)
    assert np.all(np.abs(c[finite] - exact[finite]) <= (k + 2) * 2.0**-24 * size[finite])


# --------------------------------------------------------------------------------------- formats

SM89 = pytest.mark.targets("sm_90", "sm_90a")  # e4m3 (fp8e4nv) exists from sm_89, in Triton as here
PAIRS = [pytest.param("e2m1", "e4m3", marks=SM89), pytest.param("e4m3", "e5m2", marks=SM89), ("e5m2", "bf16"),
         ("bf16", "e2m1"), ("fp16", "e2m1"), pytest.param("e4m3", "fp16", marks=SM89), ("e2m1", "e2m1"),
         ("bf16", "fp16"), ("e5m2", "fp16")]


# Scales up to 2**23 make sums that cancel: the GPU's order of addition and the interpreter's
# differ by fp32's error on the terms' sizes, which `check` bounds; the cuda cases run the GPU.
@pytest.mark.no_gpu_diff
@pytest.mark.parametrize("a_format, b_format", PAIRS)
def test_formats(device, a_format, b_format):
    """Every pair of formats, both sides scaled, over a K loop whose last block is half masked."""
    a, a_scale, b, b_scale, acc = case(1, a_format, b_format, scale_range=(120, 134) if "fp16" in
                                       (a_format, b_format) else (100, 150))
    c = run(device, a, a_scale, a_format, b, b_scale, b_format, acc)
    check(c, *reference(a, a_scale, a_format, b, b_scale, b_format, acc), 96)


@pytest.mark.parametrize("scales", [(True, False), (False, True), (False, False)])
def test_one_side_or_no_side_scaled(device, scales):
    a, a_scale, b, b_scale, acc = case(2, "e2m1", "e5m2", scales=scales)
    c = run(device, a, a_scale, "e2m1", b, b_scale, "e5m2", acc)
    check(c, *reference(a, a_scale, "e2m1", b, b_scale, "e5m2", acc), 96)


def test_scale_extremes_round_as_the_upcast_does(device):
    """Scales from 0 (a factor of 0 in bf16) to 254 (products past bf16's range are infinite), and
    the fp16 upcast, where 2**(s - 127) rounds to 0 from 2**-25 down and is infinite from 2**16."""
    for a_format, b_format in (("e5m2", "bf16"), ("e5m2", "fp16")):
        a, a_scale, b, _, acc = case(3, a_format, b_format, scales=(True, False), scale_range=(90, 200))
        a_scale[:, 0] = [0, 1, 200, 103, 104, 142, 143, 127, 126, 100] * 5
        c = run(device, a, a_scale, a_format, b, None, b_format, acc)
        exact, size = reference(a, a_scale, a_format, b, None, b_format, acc)
        assert not np.isfinite(exact).all() if b_format == "fp16" else np.isfinite(exact).all()
        check(c, exact, size, 96)


@pytest.mark.parametrize("fast_math", [False, True])
def test_nan_scale(device, fast_math):
    """A scale of 0xFF makes its 32 elements NaN; with fast_math it is an infinite factor instead
    (so a nonzero element gives an infinity, a zero one NaN)."""
    a, a_scale, b, b_scale, acc = case(4, "e5m2", "e2m1", m=40, n=20, k=64)
    a_scale[3, 1] = 255
    a[3, 32:64] = 0x3C  # 1.0: times the infinite factor, +infinity
    b[:, 5] = 0x22  # two 1.0s a byte: column 5 of row 3 sums +infinities only
    c = run(device, a, a_scale, "e5m2", b, b_scale, "e2m1", acc, fast_math=fast_math)
    exact, size = reference(a, a_scale, "e5m2", b, b_scale, "e2m1", acc, fast_math)
    assert np.isnan(exact[3]).all() != fast_math and (exact[3, 5] == np.inf) == fast_math
    check(c, exact, size, 64)


# ------------------------------------------------------------------------------- shapes and packing

@triton.jit
def single_tile_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                       K: tl.constexpr, A_ROWS: tl.constexpr, A_COLS: tl.constexpr, B_ROWS: tl.constexpr,
                       B_COLS: tl.constexpr, A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr, A_K_PACK: tl.constexpr,
                       B_K_PACK: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, A_ROWS)[:, None] * A_COLS + tl.arange(0, A_COLS)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B_ROWS)[:, None] * B_COLS + tl.arange(0, B_COLS)[None, :])
    a_scale = tl.load(a_scale_ptr + tl.arange(0, M)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    b_scale = tl.load(b_scale_ptr + tl.arange(0, N)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, lhs_k_pack=A_K_PACK, rhs_k_pack=B_K_PACK)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


@pytest.mark.parametrize("a_k_pack, b_k_pack", [(False, True), (True, False), (False, False)])
def test_fp4_packed_along_m_or_n(device, a_k_pack, b_k_pack):
    """lhs_k_pack=False: the bytes of a hold two rows (M) each; rhs_k_pack=False: two columns (N)."""
    m, n, k = 32, 64, 64
    rng = np.random.default_rng(5)
    a = random_operand(rng, "e2m1", (m, k), 1 if a_k_pack else 0)
    b = random_operand(rng, "e2m1", (k, n), 0 if b_k_pack else 1)
    a_scale = rng.integers(110, 140, (m, k // 32), dtype=np.uint8)
    b_scale = rng.integers(110, 140, (n, k // 32), dtype=np.uint8)
    c = device.array(np.full((m, n), np.nan, np.float32))
    single_tile_kernel[(1,)](*(device.array(x) for x in (a, a_scale, b, b_scale)), c, m, n, k, *a.shape, *b.shape,
                             "e2m1", "e2m1", a_k_pack, b_k_pack)
    av = scaled(decode(a, "e2m1", 1 if a_k_pack else 0), a_scale, "bf16")
    bv = scaled(decode(b, "e2m1", 0 if b_k_pack else 1).T, b_scale, "bf16").T
    assert np.allclose(device.numpy(c), av @ bv, rtol=0, atol=(k + 2) * 2.0**-24 * np.max(np.abs(av) @ np.abs(bv)))


@triton.jit
def batched_kernel(a_ptr, a_scale_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                   K: tl.constexpr):
    """[B, M, K] e2m1 (bytes along K) by [B, K, N] e5m2 as fp8 numbers; one [M, K // 32] scale for every batch."""
    rb = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + rb * (M * K // 2) + tl.arange(0, M)[None, :, None] * (K // 2)
                + tl.arange(0, K // 2)[None, None, :])
    b = tl.load(b_ptr + rb * (K * N) + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    a_scale = tl.load(a_scale_ptr + tl.arange(0, M)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, a_scale, "e2m1", b, None, "e5m2")
    tl.store(c_ptr + rb * (M * N) + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


def test_batched(device):
    bs, m, n, k = 2, 16, 32, 64
    rng = np.random.default_rng(6)
    a = rng.integers(0, 256, (bs, m, k // 2), dtype=np.uint8)
    b = random_operand(rng, "e5m2", (bs * k, n), 0).reshape(bs, k, n)
    a_scale = rng.integers(110, 140, (m, k // 32), dtype=np.uint8)
    c = device.array(np.full((bs, m, n), np.nan, np.float32))
    batched_kernel[(1,)](device.array(a), device.array(a_scale), triton.reinterpret(device.array(b), tl.float8e5), c,
                         bs, m, n, k)
    for i in range(bs):
        av = scaled(decode(a[i], "e2m1", 1), a_scale, "bf16")
        bv = decode(b[i], "e5m2", 0)
        exact = av @ bv
        assert np.all(np.abs(device.numpy(c)[i] - exact) <= (k + 2) * 2.0**-24 * (np.abs(av) @ np.abs(bv)))


# ---------------------------------------------------------------------------------------- mistakes

@pytest.fixture
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


@triton.jit
def mistake_kernel(out_ptr, A_DTYPE: tl.constexpr, A_SHAPE: tl.constexpr, A_FORMAT: tl.constexpr,
                   A_SCALE: tl.constexpr, B_SHAPE: tl.constexpr, B_FORMAT: tl.constexpr, K_PACK: tl.constexpr,
                   ACC_DTYPE: tl.constexpr, OUT_DTYPE: tl.constexpr):
    a = tl.full(A_SHAPE, 0, A_DTYPE)
    b = tl.full(B_SHAPE, 0, tl.uint8)
    a_scale = tl.full(A_SCALE, 0, tl.uint8)
    acc = tl.full((32, 32), 0, ACC_DTYPE)
    c = tl.dot_scaled(a, a_scale, A_FORMAT, b, None, B_FORMAT, acc, lhs_k_pack=K_PACK, out_dtype=OUT_DTYPE)
    tl.store(out_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :], c)


GOOD = dict(A_DTYPE=tl.uint8, A_SHAPE=(32, 64), A_FORMAT="e5m2", A_SCALE=(32, 2), B_SHAPE=(64, 32), B_FORMAT="e5m2",
            K_PACK=True, ACC_DTYPE=tl.float32, OUT_DTYPE=tl.float32)


@pytest.mark.parametrize("change, phrase", [
    (dict(A_SCALE=(32, 4)), r"lhs_scale must be a tensor of shape \[32, 2\]. Got \['32', '4'\]"),
    (dict(A_FORMAT="e2m3"), "NYI: lhs_format e2m3"),
    (dict(A_FORMAT="E5M2"), "NYI: lhs_format E5M2"),
    (dict(A_FORMAT="e9m9"), r"Invalid float format: e9m9\."),
    (dict(A_FORMAT="e2m1", A_DTYPE=tl.int8), "e2m1 format must be packed as uint8. Got int8"),
    (dict(A_FORMAT="bf16"), "Unexpected dtype for bf16. Got uint8"),
    (dict(A_DTYPE=tl.float32), "Unexpected dtype for e5m2. Got fp32"),
    (dict(K_PACK=False), "only mxfp4 inputs can be packed along a dimension different than K"),
    (dict(A_FORMAT="e2m1"), "Reduction dimension should pack the same number of elements"),
    (dict(B_SHAPE=(2, 64, 32)), "Both inputs must be either 2D or 3D"),
    (dict(ACC_DTYPE=tl.float16), r"the accumulator is a \[32, 32\] tile of fp16"),
    (dict(OUT_DTYPE=tl.float16), "Only float32 is supported for out_dtype at the moment"),
])
def test_mistakes(interpret, change, phrase):
    with pytest.raises(CompilationError, match=phrase) as error:
        mistake_kernel[(1,)](np.zeros((32, 32), np.float32), **{**GOOD, **change})
    assert "tl.dot_scaled" in str(error.value)


def test_the_good_mistake_kernel_compiles(interpret):
    out = np.full((32, 32), np.nan, np.float32)
    mistake_kernel[(1,)](out, **GOOD)
    assert np.all(out == 0)


@triton.jit
def scale_dtype_kernel(out_ptr):
    a = tl.full((32, 64), 0, tl.uint8)
    b = tl.full((64, 32), 0, tl.uint8)
    c = tl.dot_scaled(a, tl.full((32, 2), 0, tl.int32), "e5m2", b, None, "e5m2")
    tl.store(out_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :], c)


def test_scale_must_be_uint8(interpret):
    with pytest.raises(CompilationError, match="lhs_scale must hold e8m0 scales as uint8, got int32"):
        scale_dtype_kernel[(1,)](np.zeros((32, 32), np.float32))
