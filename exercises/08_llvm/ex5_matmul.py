"""Exercise 8.5 (a kernel): a tiled matrix product on the tensor cores, with `tl.dot`.

`matmul_kernel` computes C = A @ B for fp16 matrices A (M x K) and B (K x N) into an fp32 C
(M x N). In numpy, with the products summed in at least fp32:

    c = (a.astype(np.float32) @ b.astype(np.float32))

Element (i, k) of A is at `a_ptr + i * stride_am + k * stride_ak`, and likewise for B (stride_bk,
stride_bn) and C (stride_cm, stride_cn): any of them may be transposed in memory, and none is
padded to a multiple of a block. Program (pid_m, pid_n) computes the BLOCK_M x BLOCK_N tile of C
whose corner is (pid_m * BLOCK_M, pid_n * BLOCK_N): it walks K a BLOCK_K slice at a time, loads a
BLOCK_M x BLOCK_K tile of A and a BLOCK_K x BLOCK_N tile of B (masked at every edge, K's included:
a masked-off element must add nothing to the sum), and accumulates their `tl.dot` in an fp32 tile.

On sm_80 a `tl.dot` of fp16 tiles into fp32 is `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
(chapter 8: the operands' registers are the fragments the instruction expects). The tests compile
your kernel for sm_80 and look for that instruction: fp16 operands, an fp32 accumulator.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    tl.static_assert(False, "exercise 8.5: matmul_kernel is not written yet")
