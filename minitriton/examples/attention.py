"""Flash attention, forward and backward, written for minitriton in the style of Triton's fused
attention tutorial (06): block pointers, an online softmax in base 2, and a backward pass that
recomputes the probabilities from the log-sum-exp the forward pass saved.

Q, K, V, O and their gradients are [Z, H, N_CTX, HEAD_DIM] arrays, with any strides (one set for
all four) in the forward kernel and contiguous in the backward ones. The
forward program owns BLOCK_M queries of one head and walks the keys BLOCK_N at a time, keeping
for each query the running maximum m, the running sum l of exp2(score - m) and the output
accumulated against that maximum; a new block that raises the maximum rescales both by
exp2(m_old - m_new). It saves M = m + log2(l), so that P = exp2(score - M) later. The backward
pass is two kernels after a small one for delta = rowsum(O * dO): one owns a block of keys and
sums dK and dV over every query, one owns a block of queries and sums dQ over every key, so no
program writes where another does. Chapter: 10-performance.
"""
import math

import numpy as np

import minitriton as triton
import minitriton.language as tl

# --8<-- [start:forward]
@triton.jit
def attention_fwd_kernel(Q, K, V, Out, M, sm_scale,
                         stride_z, stride_h, stride_n, stride_d, H, N_CTX,
                         HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1)  # z * H + h
    base = (head // H) * stride_z + (head % H) * stride_h
    q_block = tl.make_block_ptr(Q + base, (N_CTX, HEAD_DIM),
                                (stride_n, stride_d), (start_m, 0),
                                (BLOCK_M, HEAD_DIM), (1, 0))
    # K seen transposed, so that a dot gives Q K^T
    kt_block = tl.make_block_ptr(K + base, (HEAD_DIM, N_CTX),
                                 (stride_d, stride_n), (0, 0),
                                 (HEAD_DIM, BLOCK_N), (0, 1))
    v_block = tl.make_block_ptr(V + base, (N_CTX, HEAD_DIM),
                                (stride_n, stride_d), (0, 0),
                                (BLOCK_N, HEAD_DIM), (1, 0))
    rows = start_m + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    q = tl.load(q_block, boundary_check=(0,), padding_option="zero")
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    scale = sm_scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x*log2(e))
    # causal: no key after the block's last query
    end = tl.minimum(start_m + BLOCK_M, N_CTX) if CAUSAL else N_CTX
    for start_n in range(0, end, BLOCK_N):
        kt = tl.load(kt_block, boundary_check=(1,), padding_option="zero")
        scores = tl.dot(q, kt) * scale
        keep = (start_n + cols)[None, :] < N_CTX
        if CAUSAL:
            keep = keep & (rows[:, None] >= (start_n + cols)[None, :])
        scores = tl.where(keep, scores, float("-inf"))
        m_new = tl.maximum(m, tl.max(scores, 1))
        p = tl.math.exp2(scores - m_new[:, None])
        rescale = tl.math.exp2(m - m_new)
        l = l * rescale + tl.sum(p, 1)
        v = tl.load(v_block, boundary_check=(0,), padding_option="zero")
        acc = acc * rescale[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
        kt_block = tl.advance(kt_block, (0, BLOCK_N))
        v_block = tl.advance(v_block, (BLOCK_N, 0))
    tl.store(M + head * N_CTX + rows, m + tl.math.log2(l), mask=rows < N_CTX)
    o_block = tl.make_block_ptr(Out + base, (N_CTX, HEAD_DIM),
                                (stride_n, stride_d), (start_m, 0),
                                (BLOCK_M, HEAD_DIM), (1, 0))
    out = (acc / l[:, None]).to(Out.dtype.element_ty)
    tl.store(o_block, out, boundary_check=(0,))
# --8<-- [end:forward]


# --8<-- [start:backward]
@triton.jit
def attention_bwd_delta_kernel(Out, dOut, Delta, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    """delta = rowsum(O * dO), one number per query: what every softmax row's gradient subtracts."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    head = tl.program_id(1)
    offs = head * N_CTX * HEAD_DIM + rows[:, None] * HEAD_DIM + tl.arange(0, HEAD_DIM)[None, :]
    mask = rows[:, None] < N_CTX
    o = tl.load(Out + offs, mask=mask, other=0.0).to(tl.float32)
    do = tl.load(dOut + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(Delta + head * N_CTX + rows, tl.sum(o * do, 1), mask=rows < N_CTX)


@triton.jit
def _probabilities(q, kt, m, rows, cols, N_CTX, scale, CAUSAL: tl.constexpr):
    """P for a block of queries (rows) and keys (cols), from the log-sum-exp M the forward saved;
    zero outside the sequence and, if causal, above the diagonal."""
    p = tl.math.exp2(tl.dot(q, kt) * scale - m[:, None])
    keep = (cols[None, :] < N_CTX) & (rows[:, None] < N_CTX)
    if CAUSAL:
        keep = keep & (rows[:, None] >= cols[None, :])
    return tl.where(keep, p, 0.0)


@triton.jit
def _query_block(Q, dOut, M, Delta, base, head, rows, dims, N_CTX, HEAD_DIM: tl.constexpr):
    """What both backward kernels read of a block of queries: Q, dO, the forward's log-sum-exp M
    and delta (zeros past the sequence's end)."""
    inside = rows < N_CTX
    offs = base + rows[:, None] * HEAD_DIM + dims[None, :]
    q = tl.load(Q + offs, mask=inside[:, None], other=0.0)
    do = tl.load(dOut + offs, mask=inside[:, None], other=0.0)
    m = tl.load(M + head * N_CTX + rows, mask=inside, other=0.0)
    delta = tl.load(Delta + head * N_CTX + rows, mask=inside, other=0.0)
    return q, do, m, delta


@triton.jit
def attention_bwd_dkdv_kernel(Q, K, V, dOut, M, Delta, dK, dV, sm_scale, H, N_CTX, HEAD_DIM: tl.constexpr,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """One block of keys: dV = sum over queries of P^T dO, dK = sm_scale * sum of dS^T Q, where
    dS = P * (dO V^T - delta)."""
    start_n = tl.program_id(0) * BLOCK_N
    head = tl.program_id(1)
    base = head * N_CTX * HEAD_DIM
    cols = start_n + tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    key_mask = cols[:, None] < N_CTX
    k = tl.load(K + base + cols[:, None] * HEAD_DIM + dims[None, :], mask=key_mask, other=0.0)
    v = tl.load(V + base + cols[:, None] * HEAD_DIM + dims[None, :], mask=key_mask, other=0.0)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    scale = sm_scale * 1.4426950408889634
    begin = (start_n // BLOCK_M) * BLOCK_M if CAUSAL else 0  # causal: no query before the first key
    for start_m in range(begin, N_CTX, BLOCK_M):
        rows = start_m + tl.arange(0, BLOCK_M)
        q, do, m, delta = _query_block(Q, dOut, M, Delta, base, head, rows, dims, N_CTX, HEAD_DIM)
        p = _probabilities(q, tl.trans(k), m, rows, cols, N_CTX, scale, CAUSAL)
        dv += tl.dot(tl.trans(p).to(do.dtype), do)
        ds = p * (tl.dot(do, tl.trans(v)).to(tl.float32) - delta[:, None])
        dk += tl.dot(tl.trans(ds).to(q.dtype), q)
    offs = base + cols[:, None] * HEAD_DIM + dims[None, :]
    tl.store(dK + offs, (dk * sm_scale).to(dK.dtype.element_ty), mask=key_mask)
    tl.store(dV + offs, dv.to(dV.dtype.element_ty), mask=key_mask)


@triton.jit
def attention_bwd_dq_kernel(Q, K, V, dOut, M, Delta, dQ, sm_scale, H, N_CTX, HEAD_DIM: tl.constexpr,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """One block of queries: dQ = sm_scale * sum over keys of dS K."""
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1)
    base = head * N_CTX * HEAD_DIM
    rows = start_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q, do, m, delta = _query_block(Q, dOut, M, Delta, base, head, rows, dims, N_CTX, HEAD_DIM)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    scale = sm_scale * 1.4426950408889634
    end = tl.minimum(start_m + BLOCK_M, N_CTX) if CAUSAL else N_CTX
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        key_mask = cols[:, None] < N_CTX
        k = tl.load(K + base + cols[:, None] * HEAD_DIM + dims[None, :], mask=key_mask, other=0.0)
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + dims[None, :], mask=key_mask, other=0.0)
        p = _probabilities(q, tl.trans(k), m, rows, cols, N_CTX, scale, CAUSAL)
        ds = p * (tl.dot(do, tl.trans(v)).to(tl.float32) - delta[:, None])
        dq += tl.dot(ds.to(k.dtype), k)
    tl.store(dQ + base + rows[:, None] * HEAD_DIM + dims[None, :], (dq * sm_scale).to(dQ.dtype.element_ty),
             mask=rows[:, None] < N_CTX)
# --8<-- [end:backward]


# ---------------------------------------------------------------------------------------------------
# Launching the kernels on inputs made with a fixed seed, and float64 references.
# ---------------------------------------------------------------------------------------------------

def attention_reference(q, k, v, do, sm_scale: float, causal: bool):
    """O, dQ, dK, dV in float64, from the inputs as given (already rounded to their dtype)."""
    q, k, v, do = (np.asarray(t, np.float64) for t in (q, k, v, do))
    scores = q @ np.swapaxes(k, -1, -2) * sm_scale
    if causal:
        n = q.shape[-2]
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    out = p @ v
    dv = np.swapaxes(p, -1, -2) @ do
    dp = do @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    return out, ds @ k * sm_scale, np.swapaxes(ds, -1, -2) @ q * sm_scale, dv


def run_attention(Z: int = 1, H: int = 2, N_CTX: int = 100, HEAD_DIM: int = 32, causal: bool = True,
                  dtype=np.float16, block_m: int = 32, block_n: int = 32, seed: int = 0,
                  to_device=np.asarray, to_host=np.asarray):
    """Forward and backward on random inputs: ((O, dQ, dK, dV), their float64 references)."""
    rng = np.random.default_rng(seed)
    shape = (Z, H, N_CTX, HEAD_DIM)
    q, k, v, do = (rng.standard_normal(shape).astype(dtype) for _ in range(4))
    sm_scale = 1 / math.sqrt(HEAD_DIM)
    out, m, delta = (to_device(np.full(s, np.nan, t)) for s, t in
                     ((shape, dtype), ((Z, H, N_CTX), np.float32), ((Z, H, N_CTX), np.float32)))
    dq, dk, dv = (to_device(np.full(shape, np.nan, dtype)) for _ in range(3))
    q_d, k_d, v_d, do_d = (to_device(t) for t in (q, k, v, do))
    strides = [s // q.itemsize for s in q.strides]
    common = dict(HEAD_DIM=HEAD_DIM, CAUSAL=causal)
    attention_fwd_kernel[(triton.cdiv(N_CTX, block_m), Z * H)](
        q_d, k_d, v_d, out, m, sm_scale, *strides, H, N_CTX, BLOCK_M=block_m, BLOCK_N=block_n, **common)
    attention_bwd_delta_kernel[(triton.cdiv(N_CTX, block_m), Z * H)](out, do_d, delta, N_CTX, HEAD_DIM=HEAD_DIM,
                                                                     BLOCK_M=block_m)
    attention_bwd_dkdv_kernel[(triton.cdiv(N_CTX, block_n), Z * H)](
        q_d, k_d, v_d, do_d, m, delta, dk, dv, sm_scale, H, N_CTX, BLOCK_M=block_m, BLOCK_N=block_n, **common)
    attention_bwd_dq_kernel[(triton.cdiv(N_CTX, block_m), Z * H)](
        q_d, k_d, v_d, do_d, m, delta, dq, sm_scale, H, N_CTX, BLOCK_M=block_m, BLOCK_N=block_n, **common)
    results = tuple(to_host(t) for t in (out, dq, dk, dv))
    return results, attention_reference(q, k, v, do, sm_scale, causal)
