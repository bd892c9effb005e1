"""Known problems of the toolchain under minitriton, kept as tests: they need a GPU and run only when
asked (MINITRITON_KNOWN_ISSUES=1), and each asserts the right answer, so it fails while the
problem is there and passes once a new ptxas or driver has fixed it.

- ptxas -O3 (CUDA 13.0, and the JIT of driver 580) was seen by the differential fuzzer on an H200
  to drop the negation in `max(-93 - t, u)`, computing `max(t + 93, u)`; `-O0` keeps it. The
  kernel below computes `max(c - t, u)` written five equivalent ways, for every integer width, so
  a run shows which forms and types the bug reaches (chapter 9, "When ptxas is wrong"). On an H100
  (driver 580) all 20 cases pass with ptxas 13.0 and with Triton's ptxas 12.8: the reduction does
  not reach the bug, and stays as a guard.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.driver import DeviceArray

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(os.environ.get("MINITRITON_KNOWN_ISSUES") != "1",
                       reason="a known toolchain problem: MINITRITON_KNOWN_ISSUES=1 runs it"),
]


@triton.jit
def max_of_constant_minus_kernel(t_ptr, u_ptr, out_ptr, n, FORM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    t = tl.load(t_ptr + offs, mask=mask)
    u = tl.load(u_ptr + offs, mask=mask)
    if FORM == 0:
        v = -93 - t
    elif FORM == 1:
        v = -(t + 93)
    elif FORM == 2:
        v = -t - 93
    elif FORM == 3:
        v = ~t - 92  # the same number in two's complement
    else:
        v = -93 - t
    if FORM == 4:  # a compare and a select instead of max
        tl.store(out_ptr + offs, tl.where(v > u, v, u), mask=mask)
    else:
        tl.store(out_ptr + offs, tl.maximum(v, u), mask=mask)


@pytest.mark.parametrize("form", [0, 1, 2, 3, 4], ids=["c-t", "-(t+c)", "-t-c", "~t-(c-1)", "where"])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_ptxas_keeps_the_negation_in_max_of_a_constant_minus_t(dtype, form, monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    rng = np.random.default_rng(93)
    n = 1000
    t = rng.integers(-100, 100, n).astype(dtype)
    u = rng.integers(-100, 100, n).astype(dtype)
    out = DeviceArray.from_numpy(np.zeros(n, dtype))
    max_of_constant_minus_kernel[(triton.cdiv(n, 256),)](DeviceArray.from_numpy(t), DeviceArray.from_numpy(u), out,
                                                         n, FORM=form, BLOCK=256)
    with np.errstate(over="ignore"):
        want = np.maximum((np.array(-93, dtype) - t).astype(dtype), u)
    got = out.numpy()
    wrong = np.flatnonzero(got != want)
    assert not len(wrong), (f"ptxas dropped the negation: at {wrong[:5]} t={t[wrong[:5]]} u={u[wrong[:5]]} "
                            f"got {got[wrong[:5]]}, want {want[wrong[:5]]}")
