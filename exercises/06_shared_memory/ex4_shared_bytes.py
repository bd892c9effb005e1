"""Exercise 6.4 (a puzzle): how much shared memory does each kernel need?

Replace each None by the bytes of dynamic shared memory the compiled kernel asks for
(`compiled.metadata["shared_bytes"]`), worked out from chapter 6 before you look. The tests compile
each kernel for sm_80 (`warmup`, no GPU needed) and compare. The kernels are the tutorials' of
`minitriton/examples/tutorials.py`:

- "vector add": add_kernel, fp32, BLOCK_SIZE=1024, 4 warps.
- "softmax, 4 warps": softmax_kernel, fp32 rows of 784, BLOCK_SIZE=1024, 4 warps. (Each `tl.max`
  and `tl.sum` reduces 1024 elements to one.)
- "softmax, 1 warp": the same with num_warps=1.
- "matmul, 64x64x32, 1 stage": matmul_kernel, fp16 512 x 512 matrices, BLOCK_SIZE_M = BLOCK_SIZE_N
  = 64, BLOCK_SIZE_K = 32, 4 warps, num_stages=1. (Both operands of each `dot` are converted to
  tensor-core fragments through shared memory, and the fp16 result back to a blocked layout before
  it is stored; that conversion pads each row of its buffer by 16 bytes where the accumulator's
  stores would otherwise meet in the banks, as they do here.)
- "matmul, 128x128x32, 3 stages": the same with 128 x 128 tiles and num_stages=3. (Each operand
  gets a ring of 3 stages; rings start on 1 KB boundaries and live over their loop only.)
"""

ANSWERS = {
    "vector add": None,
    "softmax, 4 warps": None,
    "softmax, 1 warp": None,
    "matmul, 64x64x32, 1 stage": None,
    "matmul, 128x128x32, 3 stages": None,
}
