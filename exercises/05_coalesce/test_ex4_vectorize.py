"""Tests for exercise 5.4: run with `pytest exercises/05_coalesce/test_ex4_vectorize.py`."""
import re

import numpy as np
from _impl import load

impl = load("05_coalesce/ex4_vectorize")
ROWS, N_COLS, ROW_STRIDE, BLOCK = 5, 500, 516, 512


def aligned(n: int) -> np.ndarray:
    raw = np.zeros(n * 4 + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + n * 4].view(np.float32)


def arrays():
    x = aligned(ROWS * ROW_STRIDE)
    x[:] = np.random.default_rng(0).standard_normal(x.size).astype(np.float32)
    out = aligned(ROWS * ROW_STRIDE)
    out[:] = np.nan  # poisoned: what the kernel does not write stays NaN
    return x, out


def test_scales_the_rows_and_nothing_else():
    x, out = arrays()
    impl.scale_rows[(ROWS,)](x, out, N_COLS, ROW_STRIDE, 2.5, BLOCK=BLOCK)
    got, want = out.reshape(ROWS, ROW_STRIDE), x.reshape(ROWS, ROW_STRIDE)
    np.testing.assert_array_equal(got[:, :N_COLS], np.float32(2.5) * want[:, :N_COLS])
    assert np.isnan(got[:, N_COLS:]).all(), "columns at or past n_cols were written"


def test_every_access_is_16_bytes_wide():
    x, out = arrays()
    ptx = impl.scale_rows.warmup(x, out, N_COLS, ROW_STRIDE, 2.5, BLOCK=BLOCK, target="sm_90").asm["ptx"]
    counts = {name: len(re.findall(pattern, ptx)) for name, pattern in [
        ("v4 loads", r"ld\.global\.v4\.b32"), ("scalar loads", r"ld\.global\.b32"),
        ("v4 stores", r"st\.global\.v4\.b32"), ("scalar stores", r"st\.global\.b32")]}
    assert counts == {"v4 loads": 1, "scalar loads": 0, "v4 stores": 1, "scalar stores": 0}, counts
