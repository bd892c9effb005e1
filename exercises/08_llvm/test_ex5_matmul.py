"""Tests for exercise 8.5: run with `pytest exercises/08_llvm/test_ex5_matmul.py`."""
import re

import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("08_llvm/ex5_matmul")


def operands(M, N, K, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16)


def matmul(a: np.ndarray, b: np.ndarray, c: np.ndarray, blocks=(32, 32, 32)) -> None:
    """C = A @ B through the kernel, each matrix with its own strides (in elements)."""
    (M, K), N = a.shape, b.shape[1]
    strides = [s // m.itemsize for m in (a, b, c) for s in m.strides]
    grid = (triton.cdiv(M, blocks[0]), triton.cdiv(N, blocks[1]))
    impl.matmul_kernel[grid](a, b, c, M, N, K, *strides, BLOCK_M=blocks[0], BLOCK_N=blocks[1], BLOCK_K=blocks[2])


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("M, N, K, blocks", [
    (16, 16, 16, (16, 16, 16)), (50, 70, 90, (32, 32, 32)), (33, 17, 300, (16, 16, 32)), (1, 40, 20, (16, 32, 16)),
    (64, 48, 64, (32, 16, 16)),
], ids=str)
def test_products(M, N, K, blocks):
    a, b = operands(M, N, K, seed=M + N + K)
    c = np.full((M, N), np.nan, np.float32)  # poisoned: an element the kernel skips stays NaN
    matmul(a, b, c, blocks)
    np.testing.assert_allclose(c, reference(a, b), rtol=1e-4, atol=1e-4)


def test_sums_of_many_products_stay_fp32_accurate():
    """K = 600 products of numbers near 1 sum to about 600, where fp16 steps by 0.5."""
    rng = np.random.default_rng(1)
    a = rng.uniform(0.9, 1.1, (20, 600)).astype(np.float16)
    b = rng.uniform(0.9, 1.1, (600, 24)).astype(np.float16)
    c = np.full((20, 24), np.nan, np.float32)
    matmul(a, b, c, (16, 16, 64))
    np.testing.assert_allclose(c, reference(a, b), rtol=1e-5)


def test_transposed_operands_and_output():
    """A and B stored transposed (column-major), C written into the left part of a wider array."""
    a_t, b_t = operands(45, 29, 70, seed=2)
    a, b = np.asfortranarray(a_t), np.asfortranarray(b_t)
    storage = np.full((45, 40), -1.0, np.float32)
    matmul(a, b, storage[:, :29], (16, 16, 32))
    np.testing.assert_allclose(storage[:, :29], reference(a, b), rtol=1e-4, atol=1e-4)
    assert (storage[:, 29:] == -1.0).all(), "the kernel wrote outside C"


def test_the_dot_runs_on_fp16_tensor_cores_into_fp32():
    a, b = operands(64, 64, 64, seed=3)
    c = np.zeros((64, 64), np.float32)
    compiled = impl.matmul_kernel.warmup(a, b, c, 64, 64, 64, 64, 1, 64, 1, 64, 1, BLOCK_M=32, BLOCK_N=32,
                                         BLOCK_K=32, target="sm_80")
    mma = set(re.findall(r"mma\.sync\.aligned\.[\w.]+", compiled.asm["ptx"]))
    assert mma == {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"}, f"the tensor-core instructions: {mma}"
