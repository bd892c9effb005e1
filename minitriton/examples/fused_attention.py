"""The fused attention forward pass the benchmark times, written for minitriton in the style of
Triton's fused attention tutorial (06): block pointers, an online softmax in base 2, and the keys
walked in two passes, so that only the blocks that need a mask pay for one.

Q, K, V and O are [Z, H, N_CTX, HEAD_DIM] arrays with any strides (one set for all four). A
program owns BLOCK_M queries of one head. Its first walk covers the keys every one of its queries
sees whole: all the blocks before its own when causal, every full block of the sequence when
not; these blocks need no mask. Its second walk covers the rest, the block on the diagonal (causal)
or the sequence's last, partial block (not causal), and masks each score against the sequence's
end and, if causal, against its query. Per query it keeps the running maximum m of the scaled
scores, the running sum l of exp2(score - m) and the output accumulated against m; it saves
M = m + log2(l) for a backward pass. `examples/attention.py` holds the one-walk version with its
backward; this one differs only in the walks. Chapter: 10-performance.
"""
import math

import numpy as np

import minitriton as triton
import minitriton.language as tl
from minitriton.examples.attention import attention_reference


# --8<-- [start:fused]
@triton.jit
def _attend_keys(acc, l, m, q, K, V, base, rows, lo, hi, qk_scale, stride_n, stride_d, N_CTX,
                 HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr,
                 CAUSAL: tl.constexpr):
    """Keys lo .. hi (lo a multiple of BLOCK_N) folded into (acc, l, m)."""
    kt_block = tl.make_block_ptr(K + base, (HEAD_DIM, N_CTX), (stride_d, stride_n), (0, lo),
                                 (HEAD_DIM, BLOCK_N), (0, 1))  # K seen transposed: Q K^T is a dot
    v_block = tl.make_block_ptr(V + base, (N_CTX, HEAD_DIM), (stride_n, stride_d), (lo, 0),
                                (BLOCK_N, HEAD_DIM), (1, 0))
    for start_n in tl.range(lo, hi, BLOCK_N):
        if MASKED:
            kt = tl.load(kt_block, boundary_check=(1,), padding_option="zero")
            v = tl.load(v_block, boundary_check=(0,), padding_option="zero")
        else:
            kt = tl.load(kt_block)
            v = tl.load(v_block)
        scores = tl.dot(q, kt)
        if MASKED:
            keys = start_n + tl.arange(0, BLOCK_N)
            keep = keys[None, :] < N_CTX
            if CAUSAL:
                keep = keep & (rows[:, None] >= keys[None, :])
            scores = tl.where(keep, scores * qk_scale, float("-inf"))
            m_new = tl.maximum(m, tl.max(scores, 1))
            scores -= m_new[:, None]
        else:  # the scale folded into the maximum and the subtraction: one multiply-add a score
            m_new = tl.maximum(m, tl.max(scores, 1) * qk_scale)
            scores = scores * qk_scale - m_new[:, None]
        p = tl.math.exp2(scores)
        alpha = tl.math.exp2(m - m_new)  # how much the old maximum shrinks against the new one
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        l = l * alpha + tl.sum(p, 1)
        m = m_new
        kt_block = tl.advance(kt_block, (0, BLOCK_N))
        v_block = tl.advance(v_block, (BLOCK_N, 0))
    return acc, l, m


@triton.jit
def fused_attention_fwd_kernel(Q, K, V, Out, M, sm_scale,
                               stride_z, stride_h, stride_n, stride_d, H, N_CTX,
                               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                               BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    tl.static_assert(BLOCK_M % BLOCK_N == 0, "the diagonal block of queries starts a block of keys")
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1)  # z * H + h
    base = (head // H) * stride_z + (head % H) * stride_h
    q_block = tl.make_block_ptr(Q + base, (N_CTX, HEAD_DIM), (stride_n, stride_d), (start_m, 0),
                                (BLOCK_M, HEAD_DIM), (1, 0))
    q = tl.load(q_block, boundary_check=(0,), padding_option="zero")
    rows = start_m + tl.arange(0, BLOCK_M)
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x * log2(e))
    if CAUSAL:  # keys before the block's first query are seen by all its queries
        whole, end = start_m, tl.minimum(start_m + BLOCK_M, N_CTX)
    else:  # every full block of keys, then what is left of the sequence
        whole, end = N_CTX - N_CTX % BLOCK_N, N_CTX
    acc, l, m = _attend_keys(acc, l, m, q, K, V, base, rows, 0, whole, qk_scale, stride_n,
                             stride_d, N_CTX, HEAD_DIM, BLOCK_N, False, CAUSAL)
    acc, l, m = _attend_keys(acc, l, m, q, K, V, base, rows, whole, end, qk_scale, stride_n,
                             stride_d, N_CTX, HEAD_DIM, BLOCK_N, True, CAUSAL)
    tl.store(M + head * N_CTX + rows, m + tl.math.log2(l), mask=rows < N_CTX)
    o_block = tl.make_block_ptr(Out + base, (N_CTX, HEAD_DIM), (stride_n, stride_d), (start_m, 0),
                                (BLOCK_M, HEAD_DIM), (1, 0))
    tl.store(o_block, (acc / l[:, None]).to(Out.dtype.element_ty), boundary_check=(0,))
# --8<-- [end:fused]


def run_fused_attention(Z: int = 1, H: int = 2, N_CTX: int = 100, HEAD_DIM: int = 32, causal: bool = True,
                        dtype=np.float16, block_m: int = 32, block_n: int = 16, seed: int = 0,
                        to_device=np.asarray, to_host=np.asarray):
    """The forward pass on random inputs: ((O, M), their float64 references), M the base-2
    log-sum-exp of each query's scaled scores, as the kernel saves it."""
    rng = np.random.default_rng(seed)
    shape = (Z, H, N_CTX, HEAD_DIM)
    q, k, v = (rng.standard_normal(shape).astype(dtype) for _ in range(3))
    sm_scale = 1 / math.sqrt(HEAD_DIM)
    out = to_device(np.full(shape, np.nan, dtype))
    lse = to_device(np.full((Z, H, N_CTX), np.nan, np.float32))
    strides = [s // q.itemsize for s in q.strides]
    fused_attention_fwd_kernel[(triton.cdiv(N_CTX, block_m), Z * H)](
        to_device(q), to_device(k), to_device(v), out, lse, sm_scale, *strides, H, N_CTX,
        HEAD_DIM=HEAD_DIM, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal)
    reference_out = attention_reference(q, k, v, np.zeros(shape), sm_scale, causal)[0]
    return (to_host(out), to_host(lse)), (reference_out, log2_sum_exp2(q, k, sm_scale, causal))


def log2_sum_exp2(q, k, sm_scale: float, causal: bool) -> np.ndarray:
    """log2 of the sum over keys of 2^(score * log2(e)): the M the kernel saves, in float64."""
    scores = np.asarray(q, np.float64) @ np.swapaxes(np.asarray(k, np.float64), -1, -2) * sm_scale
    if causal:
        n = q.shape[-2]
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    return ((top + np.log(np.exp(scores - top).sum(axis=-1, keepdims=True))) / math.log(2))[..., 0]
