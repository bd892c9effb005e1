"""Tests for exercise 5.4: run with `make exercise CH=5 EX=4`."""
import re

import numpy as np
import pytest
from _impl import load

impl = load("05_coalesce/ex4_vectorize")

# (rows, n_cols, row_stride, BLOCK, num_warps): n_cols and row_stride multiples of 4 but not of 16,
# and four elements a thread, so that one 16-byte access a thread moves a whole block.
LAUNCHES = [(5, 500, 516, 512, 4), (3, 100, 132, 128, 1), (4, 1000, 1012, 1024, 8)]
IDS = [f"{n_cols}-of-{row_stride}" for _, n_cols, row_stride, _, _ in LAUNCHES]


def aligned(n: int) -> np.ndarray:
    raw = np.zeros(n * 4 + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + n * 4].view(np.float32)


def arrays(rows: int, row_stride: int):
    x = aligned(rows * row_stride)
    x[:] = np.random.default_rng(row_stride).standard_normal(x.size).astype(np.float32)
    out = aligned(rows * row_stride)
    out[:] = np.nan  # poisoned: what the kernel does not write stays NaN
    return x, out


@pytest.mark.parametrize("rows, n_cols, row_stride, block, num_warps", LAUNCHES, ids=IDS)
def test_scales_the_rows_and_nothing_else(rows, n_cols, row_stride, block, num_warps):
    x, out = arrays(rows, row_stride)
    impl.scale_rows[(rows,)](x, out, n_cols, row_stride, 2.5, BLOCK=block, num_warps=num_warps)
    got, want = out.reshape(rows, row_stride), x.reshape(rows, row_stride)
    np.testing.assert_array_equal(got[:, :n_cols], np.float32(2.5) * want[:, :n_cols])
    assert np.isnan(got[:, n_cols:]).all(), "columns at or past n_cols were written"


@pytest.mark.parametrize("rows, n_cols, row_stride, block, num_warps", LAUNCHES, ids=IDS)
def test_every_access_is_16_bytes_wide(rows, n_cols, row_stride, block, num_warps):
    x, out = arrays(rows, row_stride)
    ptx = impl.scale_rows.warmup(x, out, n_cols, row_stride, 2.5, BLOCK=block, num_warps=num_warps,
                                 target="sm_90").asm["ptx"]
    counts = {name: len(re.findall(pattern, ptx)) for name, pattern in [
        ("v4 loads", r"ld\.global\.v4\.b32"), ("scalar loads", r"ld\.global\.b32"),
        ("v4 stores", r"st\.global\.v4\.b32"), ("scalar stores", r"st\.global\.b32")]}
    assert counts == {"v4 loads": 1, "scalar loads": 0, "v4 stores": 1, "scalar stores": 0}, counts
