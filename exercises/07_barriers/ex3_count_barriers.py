"""Exercise 7.3 (a puzzle): how many barriers does each kernel get?

Replace each None in ANSWERS by the number of `barrier` ops in the compiled kernel's `layout`
stage, worked out from chapters 6 and 7 before you look. The tests compile each kernel for sm_80
(`warmup`, no GPU needed) with the launch described, and count. `two_sums` and `loop_sum` are in
`exercises/07_barriers/barrier_kernels.py`; the others are the tutorials'.

- "two sums, 4 warps": two_sums with BLOCK=1024, num_warps=4.
- "two sums, 1 warp": the same with num_warps=1.
- "sum in a loop": loop_sum with BLOCK=1024, num_warps=4.
- "softmax": the tutorial's softmax_kernel, fp32 rows of 784, BLOCK_SIZE=1024, num_warps=4.
- "layer norm": the tutorial's _layer_norm_fwd_fused, BLOCK_SIZE=128, num_warps=4.
"""

ANSWERS = {
    "two sums, 4 warps": None,
    "two sums, 1 warp": None,
    "sum in a loop": None,
    "softmax": None,
    "layer norm": None,
}
