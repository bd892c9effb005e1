"""Tests for exercise 7.3: run with `make exercise CH=7 EX=3`."""
import numpy as np
import pytest
from _impl import load
from barrier_kernels import loop_sum, two_sums

from minitriton.examples.tutorials import _layer_norm_fwd_fused, softmax_kernel

impl = load("07_barriers/ex3_count_barriers")


def aligned() -> np.ndarray:
    raw = np.zeros(68, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + 4].view(np.float32)


x = aligned()
KERNELS = {
    "two sums, 4 warps": lambda: two_sums.warmup(x, x, BLOCK=1024, num_warps=4, target="sm_80"),
    "two sums, 1 warp": lambda: two_sums.warmup(x, x, BLOCK=1024, num_warps=1, target="sm_80"),
    "sum in a loop": lambda: loop_sum.warmup(x, x, 10, BLOCK=1024, num_warps=4, target="sm_80"),
    "softmax": lambda: softmax_kernel.warmup(x, x, 784, 784, 100, 784, BLOCK_SIZE=1024, num_stages=2,
                                             num_warps=4, target="sm_80"),
    "layer norm": lambda: _layer_norm_fwd_fused.warmup(x, x, x, x, x, x, 304, 300, 1e-5, BLOCK_SIZE=128,
                                                      num_warps=4, target="sm_80"),
}


HINTS = {  # questions that lead to the answer, shown when it is wrong
    "two sums, 4 warps": "each sum crosses warps through shared memory; do the two sums use the same bytes?",
    "two sums, 1 warp": "does a reduction within one warp go through shared memory at all?",
    "sum in a loop": "follow the loop's back edge: what does the next trip write, and who may still read it?",
    "softmax": "count the reductions of one row and the bytes they share, then follow the row loop's back edge",
    "layer norm": "what is pending before the first reduction, and what between it and the next one?",
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_barriers(name):
    answer = impl.ANSWERS[name]
    assert isinstance(answer, int), f"ANSWERS[{name!r}] is not filled in"
    layout = KERNELS[name]().asm["layout"]
    barriers = sum(line.strip() == "barrier" for line in layout.splitlines())
    if answer != barriers:  # not an assert: its message would print the answer
        pytest.fail(f"ANSWERS[{name!r}] = {answer} is not the number of barriers the compiled kernel has: it "
                    f"has {'fewer' if answer > barriers else 'more'}. Chapter 7: {HINTS[name]}", pytrace=False)
