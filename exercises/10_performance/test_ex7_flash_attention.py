"""Tests for exercise 10.7: run with `pytest exercises/10_performance/test_ex7_flash_attention.py`."""
import re

import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("10_performance/ex7_flash_attention")


def attention(q, k, v, kv_len, sm_scale):
    """o and lse in float64, sequence by sequence, as the exercise's numpy."""
    o, lse = np.empty(q.shape), np.empty(q.shape[:2])
    for z, length in enumerate(kv_len):
        s = q[z].astype(np.float64) @ k[z, :length].astype(np.float64).T * sm_scale
        p = np.exp(s - s.max(axis=1, keepdims=True))
        o[z] = p / p.sum(axis=1, keepdims=True) @ v[z, :length]
        lse[z] = s.max(axis=1) + np.log(p.sum(axis=1))
    return o, lse


def inputs(B, n_q, n_k, d, kv_len, seed, scale=1.0):
    """Random fp16 Q, K, V; the padding keys and values past each kv_len are NaN."""
    rng = np.random.default_rng(seed)
    q = (rng.standard_normal((B, n_q, d)) * scale).astype(np.float16)
    k = (rng.standard_normal((B, n_k, d)) * scale).astype(np.float16)
    v = rng.standard_normal((B, n_k, d)).astype(np.float16)
    for z, length in enumerate(kv_len):
        k[z, length:] = v[z, length:] = np.nan
    return q, k, v, np.array(kv_len, np.int32)


def run(q, k, v, kv_len, sm_scale, block_m=16, block_n=16):
    """The kernel on poisoned outputs, each followed by 64 sentinels; returns o and lse."""
    (B, n_q, d), n_k = q.shape, k.shape[1]
    o = np.full(B * n_q * d + 64, np.nan, np.float16)
    o[-64:] = -7
    lse = np.full(B * n_q + 64, np.nan, np.float32)
    lse[-64:] = -7
    impl.attention_kernel[(triton.cdiv(n_q, block_m), B)](q, k, v, o, lse, kv_len, sm_scale, n_q, n_k,
                                                          HEAD_DIM=d, BLOCK_M=block_m, BLOCK_N=block_n)
    assert (o[-64:] == -7).all() and (lse[-64:] == -7).all(), "the kernel wrote past the last query"
    return o[:-64].reshape(q.shape), lse[:-64].reshape(B, n_q)


def check(q, k, v, kv_len, sm_scale, **blocks):
    o, lse = run(q, k, v, kv_len, sm_scale, **blocks)
    want_o, want_lse = attention(q, k, v, kv_len, sm_scale)
    np.testing.assert_allclose(o, want_o, rtol=1e-2, atol=4e-3)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("B, n_q, n_k, d, kv_len, block_m, block_n", [
    (1, 16, 16, 16, [16], 16, 16),
    (2, 50, 70, 32, [70, 33], 16, 16),
    (3, 37, 45, 16, [1, 20, 45], 32, 16),
    (1, 20, 100, 16, [97], 16, 32),
], ids=str)
def test_matches_numpy(B, n_q, n_k, d, kv_len, block_m, block_n):
    q, k, v, kv_len = inputs(B, n_q, n_k, d, kv_len, seed=n_q + n_k)
    check(q, k, v, kv_len, d ** -0.5, block_m=block_m, block_n=block_n)


def test_scores_that_grow_block_after_block():
    """Key j scores about j / 8 with every query: each block of keys raises every maximum."""
    q, k, v, kv_len = inputs(1, 24, 80, 16, [80], seed=1)
    q[:] = 0.25
    k[:] = (np.arange(80)[:, None] / 8 + np.random.default_rng(2).uniform(-0.1, 0.1, (80, 16))).astype(np.float16)
    check(q, k, v, kv_len, 0.5)


def test_scores_too_large_for_exp():
    """Scores up to a few hundred: exp overflows fp32 unless each row's maximum is subtracted first."""
    q, k, v, kv_len = inputs(2, 30, 40, 16, [40, 25], seed=3, scale=3.0)
    check(q, k, v, kv_len, 2.0)


def test_both_dots_run_on_fp16_tensor_cores():
    q, k, v, kv_len = inputs(1, 64, 64, 32, [64], seed=4)
    o, lse = np.zeros_like(q), np.zeros((1, 64), np.float32)
    ptx = impl.attention_kernel.warmup(q, k, v, o, lse, kv_len, 0.125, 64, 64, HEAD_DIM=32, BLOCK_M=32,
                                       BLOCK_N=32, target="sm_80").asm["ptx"]
    mma = set(re.findall(r"mma\.sync\.aligned\.[\w.]+", ptx))
    assert mma == {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"}, f"the tensor-core instructions: {mma}"
