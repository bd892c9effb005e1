"""Exercise 2.6, wrong on purpose: every run is sorted ascending, so the runs a stage merges are
not bitonic and the network does not sort.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/02_frontend/ex6_bitonic.py.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def bitonic_sort_kernel(x_ptr, out_ptr, N: tl.constexpr, LOG_N: tl.constexpr):
    i = tl.arange(0, N)
    block = tl.program_id(0) * N
    x = tl.load(x_ptr + block + i)
    for s in tl.static_range(1, LOG_N + 1):
        for step in tl.static_range(s):
            j = s - 1 - step
            partner = tl.gather(x, i ^ (1 << j), 0)
            right = ((i >> j) & 1) == 1
            x = tl.where(right, tl.maximum(x, partner), tl.minimum(x, partner))
    tl.store(out_ptr + block + i, x)
