"""Exercise 10.7 (a kernel, the capstone): flash attention, forward, over sequences of their own
lengths.

A batch holds B sequences. Sequence z has n_q queries (rows of Q[z]) and n_k keys and values
(rows of K[z] and V[z]), of which only the first kv_len[z] are real: the rest are padding and may
hold anything, NaN included. In numpy, for each z with L = kv_len[z] (1 <= L <= n_k):

    s = (q[z] @ k[z, :L].T) * sm_scale                     # n_q x L scores
    p = np.exp(s - s.max(axis=1, keepdims=True))
    o[z] = (p / p.sum(axis=1, keepdims=True)) @ v[z, :L]   # the softmax of each row of s, times V
    lse[z] = s.max(axis=1) + np.log(p.sum(axis=1))         # the log of each row's sum of exp(s)

Q, K, V and O are fp16, packed [B, n, HEAD_DIM] arrays (row r of sequence z starts at element
(z * n + r) * HEAD_DIM, with n = n_q for Q and O, n_k for K and V); lse is fp32 [B, n_q]; kv_len
is int32 [B]. Program (pid_m, z) computes the BLOCK_M queries from pid_m * BLOCK_M of sequence z.

The n_q x L scores are never held at once: walk the keys BLOCK_N at a time, with exercise 10.4's
online softmax done for a whole block of queries. Per query keep the running maximum m, the running
sum l of exp(s - m) and the output accumulated against that maximum, acc (BLOCK_M x HEAD_DIM, fp32).
A block of keys gives its scores by one `tl.dot`; where it raises a query's maximum from m to m_new,
both l and acc were taken against the old one and are multiplied by exp(m - m_new) before the
block's own share is added, `tl.dot(p, v)` for acc. At the end O = acc / l.

Both dots run on the tensor cores: fp16 operands and fp32 accumulators (round p to fp16 for the
second, as Triton's tutorial does). The tests compile your kernel for sm_80 and read its PTX: every
tensor-core instruction must be `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, kv_len_ptr, sm_scale, n_q, n_k,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(False, "exercise 10.7: attention_kernel is not written yet")
