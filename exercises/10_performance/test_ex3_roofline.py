"""Tests for exercise 10.3: run with `make exercise CH=10 EX=3`."""
import csv
from pathlib import Path

import pytest
from _impl import load

impl = load("10_performance/ex3_roofline")
BENCH = Path(__file__).resolve().parents[2] / "chapters" / "figures" / "bench"


def measured(bench: str, case: str, x: int, implementation: str) -> float:
    """A figure of the H200 run that chapter 10 reports, from the CSV the run wrote."""
    with open(BENCH / f"{bench}.csv", newline="") as results:
        for row in csv.DictReader(results):
            if (row["case"], int(row["x"]), row["implementation"]) == (case, x, implementation):
                return float(row["value"])
    raise LookupError(f"{bench}.csv has no {implementation} {case} at {x}")


H200_GBS = measured("vector_add", "fp32", 1 << 28, "copy")  # a device-to-device copy of 1 GB
H200_TFLOPS = measured("matmul", "fp16", 8192, "cuBLAS")    # cuBLAS, fp16, 8192 x 8192 x 8192


def test_the_three_kernels_bytes_and_flops():
    assert impl.vector_add(1 << 28) == (3 * 4 << 28, 1 << 28)
    assert impl.softmax(4096, 16384) == (2 * 4 * 4096 * 16384, 5 * 4096 * 16384)
    assert impl.matmul(8192, 8192, 8192) == (3 * 2 * 8192 ** 2, 2 * 8192 ** 3)
    assert impl.matmul(128, 64, 32, 4) == ((128 * 32 + 32 * 64 + 128 * 64) * 4, 2 * 128 * 64 * 32)


def test_vector_add_and_softmax_are_memory_bound_matmul_is_not():
    assert impl.bound(*impl.vector_add(1 << 28), H200_GBS, H200_TFLOPS) == "memory"
    assert impl.bound(*impl.softmax(4096, 16384), H200_GBS, H200_TFLOPS) == "memory"
    assert impl.bound(*impl.matmul(8192, 8192, 8192), H200_GBS, H200_TFLOPS) == "compute"


def test_the_floors_on_the_h200():
    """Vector add moves 12 bytes an element at the copy's bandwidth; matmul does 2 k flops an
    output element at cuBLAS's rate (its bytes would take far less)."""
    vector_add_ms = 12 * 2**28 / (H200_GBS * 1e9) * 1e3
    matmul_ms = 2 * 8192**3 / (H200_TFLOPS * 1e12) * 1e3
    assert impl.floor_ms(*impl.vector_add(1 << 28), H200_GBS, H200_TFLOPS) == pytest.approx(vector_add_ms, rel=1e-9)
    assert impl.floor_ms(*impl.matmul(8192, 8192, 8192), H200_GBS, H200_TFLOPS) == pytest.approx(matmul_ms, rel=1e-9)
    assert impl.floor_ms(0, 0, 1.0, 1.0) == 0.0
