"""Tests for exercise 10.3: run with `pytest exercises/10_performance/test_ex3_roofline.py`."""
import pytest
from _impl import load

impl = load("10_performance/ex3_roofline")

H200_GBS, H200_TFLOPS = 4212.0, 677.0  # measured in chapter 10: a copy, and cuBLAS fp16


def test_the_three_kernels_bytes_and_flops():
    assert impl.vector_add(1 << 28) == (3 * 4 << 28, 1 << 28)
    assert impl.softmax(4096, 16384) == (2 * 4 * 4096 * 16384, 5 * 4096 * 16384)
    assert impl.matmul(8192, 8192, 8192) == (3 * 2 * 8192 ** 2, 2 * 8192 ** 3)
    assert impl.matmul(128, 64, 32, 4) == ((128 * 32 + 32 * 64 + 128 * 64) * 4, 2 * 128 * 64 * 32)


def test_vector_add_and_softmax_are_memory_bound_matmul_is_not():
    assert impl.bound(*impl.vector_add(1 << 28), H200_GBS, H200_TFLOPS) == "memory"
    assert impl.bound(*impl.softmax(4096, 16384), H200_GBS, H200_TFLOPS) == "memory"
    assert impl.bound(*impl.matmul(8192, 8192, 8192), H200_GBS, H200_TFLOPS) == "compute"


def test_the_floors_chapter_10_quotes():
    assert impl.floor_ms(*impl.vector_add(1 << 28), H200_GBS, H200_TFLOPS) == pytest.approx(0.765, abs=0.001)
    assert impl.floor_ms(*impl.matmul(8192, 8192, 8192), H200_GBS, H200_TFLOPS) == pytest.approx(1.624, abs=0.001)
    assert impl.floor_ms(0, 0, 1.0, 1.0) == 0.0
