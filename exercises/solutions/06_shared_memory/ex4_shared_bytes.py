"""Exercise 6.4 (a puzzle): how much shared memory does each kernel need?

The reference solution. The task, in full, is in exercises/06_shared_memory/ex4_shared_bytes.py.
"""

ANSWERS = {
    "vector add": 0,  # nothing moves between threads
    "softmax, 4 warps": 16,  # one fp32 partial result per warp; the two reductions share it
    "softmax, 1 warp": 0,  # the shuffles finish the reduction inside the warp
    "matmul, 64x64x32, 1 stage": 9216,  # the 64x64 fp16 result, rows of 128 + 16 bytes; the 4 KB operands share it
    "matmul, 128x128x32, 3 stages": 49152,  # rings 3 x 8 KB for A and for B; the 34 KB result reuses them
}
