"""Tests for exercise 2.4: run with `make exercise CH=2 EX=4`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton

impl = load("02_frontend/ex4_clamp")


def reference(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    wide = x.astype(np.float32)
    return np.where(wide < lo, np.float32(lo), np.where(wide > hi, np.float32(hi), wide)).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n, block", [(1, 16), (1000, 128), (77, 32)])
def test_clamp(dtype, n, block):
    rng = np.random.default_rng(n)
    x = (3 * rng.standard_normal(n)).astype(dtype)
    x[::7] = np.nan
    out = np.full(n, 12345, dtype)
    impl.clamp_kernel[(triton.cdiv(n, block),)](x, out, -1.5, 0.1, n, BLOCK=block)
    np.testing.assert_array_equal(out, reference(x, -1.5, 0.1))


def test_uses_where():
    f32 = np.zeros(4, np.float32)
    ttir = impl.clamp_kernel.warmup(f32, f32, 0.0, 1.0, 4, BLOCK=4, target="interpreter").asm["ttir"]
    assert "select" in ttir, "pick per element with tl.where (it becomes a `select` op)"
