"""Checking results, as `triton.testing` does: `assert_close`, and the relative error the
benchmarks check before they time. Arrays may be torch tensors (on any device), numpy arrays,
DeviceArrays, lists or scalars. Chapter: 10-performance.
"""
from __future__ import annotations

import math
import sys

import numpy as np


def to_numpy(x) -> np.ndarray:
    """A host numpy copy of a torch tensor (bf16 widened to fp32), a DeviceArray, or an array-like."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        x = x.detach()
        if str(x.dtype) == "torch.bfloat16":  # numpy has no bf16
            x = x.float()
        return x.cpu().numpy()
    if hasattr(x, "numpy") and hasattr(x, "__cuda_array_interface__"):
        return x.numpy()
    return np.asarray(x)


# --8<-- [start:assert_close]
def assert_close(x, y, atol=None, rtol=None, err_msg: str = "") -> None:
    """Fail unless |x - y| <= atol + rtol * |y| everywhere, as `triton.testing.assert_close`:
    atol 1e-2 and rtol 0 by default; either may be a function of x's dtype (a torch dtype for a
    tensor, a numpy one otherwise). Arrays of more than one element are compared by numpy, with
    NaN equal to NaN; single values, as Triton compares them, with NaN equal to nothing."""
    x_host, y_host = to_numpy(x), to_numpy(y)
    dtype = getattr(x, "dtype", x_host.dtype)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(dtype) if callable(atol) else atol
    rtol = rtol(dtype) if callable(rtol) else rtol
    if x_host.size > 1 or y_host.size > 1:
        np.testing.assert_allclose(x_host, y_host, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)
    elif not np.allclose(x_host, y_host, atol=atol, rtol=rtol):
        raise AssertionError(f"{err_msg} {x_host} is not close to {y_host} (atol={atol}, "
                             f"rtol={rtol})".strip())
# --8<-- [end:assert_close]


def relative_error(actual, expected) -> float:
    """||actual - expected|| / ||expected|| (Frobenius, in float64): the check the benchmarks run
    before timing. Infinite when `actual` holds a NaN or an infinity (an element never written into
    a NaN-poisoned output, or an overflow). Torch tensors are compared where they are, numpy
    arrays on the host."""
    if hasattr(actual, "detach") and hasattr(expected, "detach"):
        torch = sys.modules["torch"]
        difference = actual.detach().double() - expected.detach().double()
        if not bool(torch.isfinite(difference).all()):
            return math.inf
        return float(torch.linalg.vector_norm(difference) / torch.linalg.vector_norm(expected.double()))
    expected = to_numpy(expected).astype(np.float64)
    difference = to_numpy(actual).astype(np.float64) - expected
    if not np.isfinite(difference).all():
        return math.inf
    return float(np.linalg.norm(difference) / np.linalg.norm(expected))
