"""The Triton tutorials' kernels, run unmodified in the interpreter and checked against numpy.

Sizes are not multiples of the blocks, grids have several programs, and outputs start as NaN so an
element a kernel forgets to write shows up.
"""
import numpy as np
import pytest

import minitriton as triton
from minitriton.examples import attention, fused_attention, grouped_gemm, layer_norm, rms_norm, tutorials
from minitriton.examples.tutorials import (_layer_norm_fwd_fused, _seeded_dropout, add_kernel,
                                           matmul_kernel, softmax_kernel)


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


# --------------------------------------------------------------------------------------- vector add

@pytest.mark.parametrize("n, block", [(1, 16), (1000, 128), (4097, 1024)])
def test_add(n, block):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    np.testing.assert_array_equal(out, x + y)


def test_add_leaves_memory_past_n_alone():
    """The mask keeps the last program from writing past n, even inside a larger array."""
    x = np.arange(100, dtype=np.float32)
    out = np.full(128, -1.0, np.float32)
    add_kernel[(2,)](x, x, out, 100, BLOCK_SIZE=64)
    np.testing.assert_array_equal(out[:100], 2 * x)
    assert (out[100:] == -1).all()


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.uint8])
def test_add_other_dtypes(dtype):
    x = (np.arange(77) % 50).astype(dtype)
    out = np.zeros(77, dtype)
    add_kernel[(3,)](x, x, out, 77, BLOCK_SIZE=32)
    np.testing.assert_array_equal(out, x + x)


def test_run_add():
    result, reference = tutorials.run_add(n=5000, block=512)
    np.testing.assert_array_equal(result, reference)


# ----------------------------------------------------------------------------------- fused softmax

def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("n_rows, n_cols, programs", [(1, 1, 1), (37, 300, 8), (5, 128, 16)])
def test_softmax(n_rows, n_cols, programs):
    x = np.random.default_rng(1).standard_normal((n_rows, n_cols)).astype(np.float32)
    y = np.full_like(x, np.nan)
    softmax_kernel[(programs,)](y, x, x.strides[0] // 4, y.strides[0] // 4, n_rows, n_cols,
                                BLOCK_SIZE=triton.next_power_of_2(n_cols), num_stages=2)
    np.testing.assert_allclose(y, _softmax(x), rtol=1e-5, atol=1e-7)


def test_softmax_strided_rows():
    """Rows of a wider array: the row stride is not the row length."""
    wide = np.random.default_rng(2).standard_normal((9, 200)).astype(np.float32)
    x = wide[:, 10:110]
    out = np.full((9, 160), np.nan, np.float32)
    y = out[:, :100]
    softmax_kernel[(4,)](y, x, wide.strides[0] // 4, out.strides[0] // 4, 9, 100, BLOCK_SIZE=128,
                         num_stages=3)
    np.testing.assert_allclose(y, _softmax(x), rtol=1e-5, atol=1e-7)
    assert np.isnan(out[:, 100:]).all()


def test_run_softmax():
    result, reference = tutorials.run_softmax()
    np.testing.assert_allclose(result, reference, rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------------------------------ matmul

def _launch_matmul(a, b, c, activation, block_m=32, block_n=32, block_k=32, group=4):
    M, K = a.shape
    _, N = b.shape
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    s = lambda arr, i: arr.strides[i] // arr.itemsize
    matmul_kernel[grid](a, b, c, M, N, K, s(a, 0), s(a, 1), s(b, 0), s(b, 1), s(c, 0), s(c, 1),
                        BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k,
                        GROUP_SIZE_M=group, ACTIVATION=activation)


def _matmul_reference(a, b, activation):
    r = a.astype(np.float64) @ b.astype(np.float64)
    return np.where(r >= 0, r, 0.01 * r) if activation == "leaky_relu" else r


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("activation", ["leaky_relu", ""])
def test_matmul(dtype, activation):
    rng = np.random.default_rng(3)
    M, N, K = 100, 90, 70
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = np.full((M, N), np.nan, np.float16)
    _launch_matmul(a, b, c, activation)
    expected = _matmul_reference(a, b, activation)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=1e-2, atol=2e-2)
    if activation == "leaky_relu":
        raw = _matmul_reference(a, b, "")
        negative = raw < -0.5  # leaky: kept negative, and scaled down a hundredfold
        assert (c[negative] < 0).all() and (np.abs(c[negative]) < 0.02 * np.abs(raw[negative])).all()


def test_matmul_transposed_b():
    """B given as the transpose of a row-major array: its strides are (1, K), not (N, 1)."""
    rng = np.random.default_rng(4)
    M, N, K = 70, 50, 90
    a = rng.standard_normal((M, K)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)
    b = bt.T
    assert b.strides == (2, 2 * K)
    c = np.full((M, N), np.nan, np.float16)
    _launch_matmul(a, b, c, "", block_m=16, block_n=64, block_k=32, group=2)
    np.testing.assert_allclose(c.astype(np.float32), _matmul_reference(a, b, ""), rtol=1e-2, atol=2e-2)


def test_matmul_fp32_output_strided():
    """C is a column block of a wider fp32 array (the fp16 result is converted by the store). The fp32
    dot is a tf32 one (Triton's default): the operands are multiples of 1/64, exact in tf32."""
    rng = np.random.default_rng(5)
    a = np.round(rng.standard_normal((33, 40)) * 64).astype(np.float32) / 64
    b = np.round(rng.standard_normal((40, 20)) * 64).astype(np.float32) / 64
    big = np.full((33, 64), np.nan, np.float32)
    c = big[:, 8:28]
    _launch_matmul(a, b, c, "leaky_relu", block_m=16, block_n=16, block_k=16, group=1)
    np.testing.assert_allclose(c, _matmul_reference(a, b, "leaky_relu"), rtol=2e-3, atol=2e-3)
    assert np.isnan(big[:, :8]).all() and np.isnan(big[:, 28:]).all()


def test_run_matmul():
    result, reference = tutorials.run_matmul()
    np.testing.assert_allclose(result.astype(np.float32), reference.astype(np.float32), rtol=1e-2,
                               atol=2e-2)


# --------------------------------------------------------------------------------- seeded dropout

def _dropout(x, p, seed, block=256):
    out = np.full_like(x, np.nan)
    _seeded_dropout[(triton.cdiv(x.size, block),)](x, out, x.size, p, seed, BLOCK_SIZE=block)
    return out


def test_dropout_keeps_and_scales():
    x = np.random.default_rng(6).uniform(1, 2, 3001).astype(np.float32)  # never 0 itself
    p = 0.3
    out = _dropout(x, p, seed=123)
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / (1 - p), rtol=1e-6)
    assert abs(kept.mean() - (1 - p)) < 0.03


def test_dropout_same_seed_same_mask_other_seed_other_mask():
    x = np.random.default_rng(7).uniform(1, 2, 1000).astype(np.float32)
    first, again = _dropout(x, 0.5, seed=42), _dropout(x, 0.5, seed=42)
    np.testing.assert_array_equal(first, again)
    other = _dropout(x, 0.5, seed=43)
    assert ((first != 0) != (other != 0)).mean() > 0.3  # about half should differ


def test_dropout_mask_does_not_depend_on_block():
    """The random number is a function of (seed, offset) only."""
    x = np.random.default_rng(8).uniform(1, 2, 700).astype(np.float32)
    np.testing.assert_array_equal(_dropout(x, 0.5, seed=9, block=64), _dropout(x, 0.5, seed=9, block=512))


def test_run_dropout():
    result, reference = tutorials.run_dropout()
    np.testing.assert_array_equal(result, reference)
    assert 0.4 < (result != 0).mean() < 0.6


# ---------------------------------------------------------------------------------------- layer norm

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("M, N, block", [(7, 300, 128), (3, 64, 64), (2, 5, 16)])
def test_layer_norm(dtype, M, N, block):
    rng = np.random.default_rng(M * N)
    x = rng.standard_normal((M, N)).astype(dtype)
    w, b = rng.standard_normal(N).astype(dtype), rng.standard_normal(N).astype(dtype)
    y = np.full((M, N), np.nan, dtype)
    mean, rstd = np.full(M, np.nan, np.float32), np.full(M, np.nan, np.float32)
    eps = 1e-5
    _layer_norm_fwd_fused[(M,)](x, y, w, b, mean, rstd, N, N, eps, BLOCK_SIZE=block)
    x64 = x.astype(np.float64)
    mu, var = x64.mean(axis=1), x64.var(axis=1)
    expected = (x64 - mu[:, None]) / np.sqrt(var[:, None] + eps) * w + b
    tol = 1e-5 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(mean, mu, rtol=tol, atol=tol)
    np.testing.assert_allclose(rstd, 1 / np.sqrt(var + eps), rtol=tol, atol=tol)
    np.testing.assert_allclose(y.astype(np.float64), expected, rtol=tol, atol=5 * tol)


def test_run_layer_norm():
    result, reference = tutorials.run_layer_norm()
    np.testing.assert_allclose(result, reference, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ attention, grouped GEMM, the norms' backward

# dS is rounded to fp16 before its dot, where small differences in P (ex2.approx) can move it an ulp
@pytest.mark.gpu_tolerance(1e-2, 2e-3)
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("n_ctx, head_dim, block", [(100, 32, 32), (64, 16, 16), (47, 64, 32)])
def test_attention_forward_and_backward(causal, n_ctx, head_dim, block):
    results, references = attention.run_attention(Z=2, H=2, N_CTX=n_ctx, HEAD_DIM=head_dim, causal=causal,
                                                   block_m=block, block_n=block, seed=n_ctx)
    for name, got, want in zip(("O", "dQ", "dK", "dV"), results, references):
        assert not np.isnan(got).any(), f"{name}: unwritten elements"
        np.testing.assert_allclose(got.astype(np.float64), want, atol=4e-3 * np.abs(want).max(), err_msg=name)


@pytest.mark.gpu_tolerance(1e-2, 2e-3)
def test_attention_in_fp32_with_unequal_blocks():
    results, references = attention.run_attention(Z=1, H=3, N_CTX=77, HEAD_DIM=32, causal=True, dtype=np.float32,
                                                   block_m=32, block_n=16, seed=5)
    for name, got, want in zip(("O", "dQ", "dK", "dV"), results, references):
        np.testing.assert_allclose(got, want, atol=2e-2 * np.abs(want).max(), err_msg=name)


# The tables hold the interpreter's addresses: the GPU runs it on device arrays in tests/test_gpu.py.
@pytest.mark.no_gpu_diff
def test_grouped_matmul_through_tables_of_pointers():
    results, references = grouped_gemm.run_grouped_matmul(programs=5, block=32)
    for got, want in zip(results, references):
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2)


@pytest.mark.no_gpu_diff
@pytest.mark.parametrize("programs, block", [(1, 16), (7, 32)])
def test_grouped_matmul_other_launches(programs, block):
    shapes = ((20, 30, 40), (16, 16, 16), (50, 3, 33))
    results, references = grouped_gemm.run_grouped_matmul(shapes, programs=programs, block=block, seed=programs)
    for got, want in zip(results, references):
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("M, N, groups", [(45, 300, 8), (3, 1000, 8), (16, 64, 1)])
def test_layer_norm_backward_with_locks(M, N, groups):
    results, references = layer_norm.run_layer_norm_backward(M=M, N=N, groups=groups, seed=M)
    for name, got, want in zip(("y", "dx", "dw", "db"), results, references):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=name)


# Both walks of the fused forward: causal (the blocks before the diagonal, then the diagonal) and
# not (the full blocks, then the sequence's partial last one, or none when N is a multiple).
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("n_ctx, head_dim, block_m, block_n", [(100, 32, 32, 16), (64, 16, 32, 32), (77, 64, 16, 16),
                                                               (20, 32, 64, 32)])
def test_fused_attention_forward(causal, n_ctx, head_dim, block_m, block_n):
    (out, lse), (want_out, want_lse) = fused_attention.run_fused_attention(
        Z=2, H=2, N_CTX=n_ctx, HEAD_DIM=head_dim, causal=causal, block_m=block_m, block_n=block_n, seed=n_ctx)
    assert not np.isnan(out).any() and not np.isnan(lse).any(), "unwritten elements"
    np.testing.assert_allclose(out.astype(np.float64), want_out, atol=4e-3 * np.abs(want_out).max())
    np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("M, N, programs, dtype", [(45, 300, 7, np.float32), (10, 64, 3, np.float32),
                                                   (33, 1000, 40, np.float16)])
def test_rms_norm_forward_and_backward(M, N, programs, dtype):
    """More programs than rows (40 for 33) leave some partial rows all zeros, which must not matter."""
    results, references = rms_norm.run_rms_norm(M=M, N=N, programs=programs, dtype=dtype, seed=M)
    for name, got, want in zip(("y", "dx", "dw"), results, references):
        assert not np.isnan(got).any(), f"{name}: unwritten elements"
        error = np.linalg.norm(got.astype(np.float64) - want) / np.linalg.norm(want)
        assert error < (1e-6 if dtype == np.float32 else 2e-3), name
