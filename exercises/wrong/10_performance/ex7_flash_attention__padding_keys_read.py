"""Exercise 10.7 (a kernel, the capstone): flash attention, forward, over sequences of their own
lengths.

A wrong solution, for the tests to catch: the walk covers all n_k keys, masking only past n_k: the padding joins in.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, kv_len_ptr, sm_scale, n_q, n_k,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    z = tl.program_id(1)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    queries = (z * n_q + rows)[:, None] * HEAD_DIM + dims[None, :]
    q = tl.load(q_ptr + queries, mask=rows[:, None] < n_q, other=0.0)
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    for start in range(0, n_k, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        real = keys < n_k
        offsets = (z * n_k + keys)[:, None] * HEAD_DIM + dims[None, :]
        k = tl.load(k_ptr + offsets, mask=real[:, None], other=0.0)
        v = tl.load(v_ptr + offsets, mask=real[:, None], other=0.0)
        s = tl.where(real[None, :], tl.dot(q, tl.trans(k)) * sm_scale, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        rescale = tl.exp(m - m_new)  # what was summed against m, against m_new
        l = l * rescale + tl.sum(p, 1)
        acc = acc * rescale[:, None] + tl.dot(p.to(tl.float16), v)
        m = m_new
    tl.store(o_ptr + queries, (acc / l[:, None]).to(tl.float16), mask=rows[:, None] < n_q)
    tl.store(lse_ptr + z * n_q + rows, m + tl.log(l), mask=rows < n_q)
