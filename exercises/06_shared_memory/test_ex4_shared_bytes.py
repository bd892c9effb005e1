"""Tests for exercise 6.4: run with `pytest exercises/06_shared_memory/test_ex4_shared_bytes.py`."""
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


@pytest.mark.parametrize("name", list(KERNELS))
def test_shared_bytes(name):
    answer = impl.ANSWERS[name]
    assert isinstance(answer, int), f"ANSWERS[{name!r}] is not filled in"
    assert answer == KERNELS[name]().metadata["shared_bytes"]
