"""Tests for exercise 7.3: run with `pytest exercises/07_barriers/test_ex3_count_barriers.py`."""
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


@pytest.mark.parametrize("name", list(KERNELS))
def test_barriers(name):
    answer = impl.ANSWERS[name]
    assert isinstance(answer, int), f"ANSWERS[{name!r}] is not filled in"
    layout = KERNELS[name]().asm["layout"]
    assert answer == sum(line.strip() == "barrier" for line in layout.splitlines())
