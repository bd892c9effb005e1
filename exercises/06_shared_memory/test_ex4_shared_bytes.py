"""Tests for exercise 6.4: run with `make exercise CH=6 EX=4`."""
import numpy as np
import pytest
from _impl import load

from minitriton.examples.tutorials import add_kernel, matmul_kernel, softmax_kernel

impl = load("06_shared_memory/ex4_shared_bytes")


def aligned(dtype) -> np.ndarray:
    raw = np.zeros(64 + np.dtype(dtype).itemsize, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + np.dtype(dtype).itemsize].view(dtype)


def matmul(block: int, stages: int):
    f16 = aligned(np.float16)
    return matmul_kernel.warmup(f16, f16, f16, 512, 512, 512, 512, 1, 512, 1, 512, 1, BLOCK_SIZE_M=block,
                                BLOCK_SIZE_N=block, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="",
                                num_stages=stages, target="sm_80")


f32 = aligned(np.float32)
KERNELS = {
    "vector add": lambda: add_kernel.warmup(f32, f32, f32, 4096, BLOCK_SIZE=1024, target="sm_80"),
    "softmax, 4 warps": lambda: softmax_kernel.warmup(f32, f32, 784, 784, 100, 784, BLOCK_SIZE=1024,
                                                      num_stages=2, target="sm_80"),
    "softmax, 1 warp": lambda: softmax_kernel.warmup(f32, f32, 784, 784, 100, 784, BLOCK_SIZE=1024,
                                                     num_stages=2, num_warps=1, target="sm_80"),
    "matmul, 64x64x32, 1 stage": lambda: matmul(64, 1),
    "matmul, 128x128x32, 3 stages": lambda: matmul(128, 3),
}


HINTS = {  # questions that lead to the answer, shown when it is wrong
    "vector add": "which values go from one thread to another?",
    "softmax, 4 warps": "a reduction across warps exchanges one partial result per warp; do the two "
                        "reductions need bytes of their own, or can one reuse the other's?",
    "softmax, 1 warp": "when a whole row is in one warp, what is left to exchange through memory?",
    "matmul, 64x64x32, 1 stage": "list each conversion that goes through shared memory and its bytes; "
                                 "which of those buffers are live at the same time?",
    "matmul, 128x128x32, 3 stages": "how large is one stage of each operand's ring, and what else is live "
                                    "while the rings are?",
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_shared_bytes(name):
    answer = impl.ANSWERS[name]
    assert isinstance(answer, int), f"ANSWERS[{name!r}] is not filled in"
    needed = KERNELS[name]().metadata["shared_bytes"]
    if answer != needed:  # not an assert: its message would print the answer
        pytest.fail(f"ANSWERS[{name!r}] = {answer} is not what the compiled kernel asks for: it needs "
                    f"{'less' if answer > needed else 'more'}. Chapter 6: {HINTS[name]}", pytrace=False)
