"""`minitriton.testing` as `triton.testing`: Triton 3.6's signatures, assert_close's rules, and
do_bench_cudagraph on the host's clock (the GPU's is in test_gpu.py)."""
import csv
import inspect
import sys
import types

import numpy as np
import pytest

from minitriton import driver, testing

# Triton 3.6's signatures (python/triton/testing.py): the parameters, in order, with their defaults.
TRITON = {
    "do_bench": [("fn", None), ("warmup", 25), ("rep", 100), ("grad_to_none", None), ("quantiles", None),
                 ("return_mode", "mean")],
    "do_bench_cudagraph": [("fn", None), ("rep", 20), ("grad_to_none", None), ("quantiles", None),
                           ("return_mode", "mean")],
    "assert_close": [("x", None), ("y", None), ("atol", None), ("rtol", None), ("err_msg", "")],
    "perf_report": [("benchmarks", None)],
    "get_dram_gbps": [("device", None)],
    "Benchmark": [("x_names", None), ("x_vals", None), ("line_arg", None), ("line_vals", None),
                  ("line_names", None), ("plot_name", None), ("args", None), ("xlabel", ""), ("ylabel", ""),
                  ("x_log", False), ("y_log", False), ("styles", None)],
}


@pytest.mark.parametrize("name", TRITON)
def test_tritons_signatures(name):
    parameters = inspect.signature(getattr(testing, name)).parameters.values()
    assert [(p.name, None if p.default is p.empty else p.default) for p in parameters] == TRITON[name]


def test_mark_run_takes_tritons_keywords():
    parameters = list(inspect.signature(testing.Mark.run).parameters)
    assert parameters[:5] == ["self", "show_plots", "print_data", "save_path", "return_df"]
    assert {"diff_col", "save_precision"} <= set(parameters)


# ----------------------------------------------------------------------------- assert_close

def test_default_tolerance_is_absolute_one_hundredth():
    x = np.linspace(-1, 1, 50, dtype=np.float32)
    testing.assert_close(x + 0.009, x)
    with pytest.raises(AssertionError, match="Mismatched elements: 50 / 50"):
        testing.assert_close(x + 0.011, x)


def test_relative_and_callable_tolerances():
    x = np.full(4, 1000.0)
    testing.assert_close(x * 1.001, x, atol=0, rtol=2e-3)
    with pytest.raises(AssertionError):
        testing.assert_close(x * 1.001, x, atol=0, rtol=5e-4)
    seen = []
    testing.assert_close(x.astype(np.float16), x, atol=lambda dtype: seen.append(dtype) or 0.0)
    assert seen == [np.float16]


def test_nan_equals_nan_in_arrays_and_not_in_single_values():
    """Triton compares arrays with numpy's equal_nan=True, and one element with np.allclose."""
    testing.assert_close(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    with pytest.raises(AssertionError, match=r"^\[nan\] is not close to \[nan\]"):
        testing.assert_close(np.array([np.nan]), np.array([np.nan]))


def test_single_values_fail_with_the_message_and_tolerances():
    testing.assert_close(1.005, 1.0)
    testing.assert_close([2.0], 2)
    with pytest.raises(AssertionError, match=r"^row 3: 1.5 is not close to 1.0 \(atol=0.01, rtol=0.0\)$"):
        testing.assert_close(1.5, 1.0, err_msg="row 3:")


def test_arrays_of_other_kinds():
    """Lists, and anything shaped like a torch tensor (bf16 read as fp32, as Triton reads it)."""
    class Tensor:
        def __init__(self, values, dtype):
            self.values, self.dtype = np.asarray(values, np.float32), dtype

        def detach(self):
            return self

        def cpu(self):
            return self

        def float(self):
            return Tensor(self.values, "torch.float32")

        def numpy(self):
            assert self.dtype != "torch.bfloat16", "numpy has no bf16: widen first"
            return self.values

    testing.assert_close(Tensor([1.0, 2.0], "torch.bfloat16"), [1.0, 2.0])
    seen = []
    testing.assert_close(Tensor([1.0, 2.0], "torch.bfloat16"), [1.0, 2.0], rtol=lambda d: seen.append(d) or 0)
    assert seen == ["torch.bfloat16"]
    with pytest.raises(AssertionError):
        testing.assert_close(Tensor([1.0, 2.5], "torch.float32"), [1.0, 2.0])


# ----------------------------------------------------------------------------- do_bench_cudagraph

def test_cudagraph_timing_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    calls = []
    tensor = types.SimpleNamespace(grad=1)

    def fn():
        calls.append(1)

    ms = testing.do_bench_cudagraph(fn, rep=2, grad_to_none=[tensor])
    assert isinstance(ms, float) and ms >= 0 and len(calls) >= 3 and tensor.grad is None
    low, high = testing.do_bench_cudagraph(fn, rep=1, quantiles=[0.2, 0.8])
    assert low <= high
    assert isinstance(testing.do_bench_cudagraph(fn, rep=1, return_mode="all"), list)
    with pytest.raises(ValueError, match="return_mode must be one of"):
        testing.do_bench_cudagraph(fn, return_mode="average")


def test_cudagraph_timing_without_torch_says_so(monkeypatch):
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(RuntimeError, match="torch is not installed: pip install torch, or time with do_bench"):
        testing.do_bench_cudagraph(lambda: None)


def test_cudagraph_timing_without_a_gpu_says_so(monkeypatch):
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace())
    monkeypatch.setattr(driver, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="do_bench_cudagraph times on a GPU and the CUDA driver sees none"):
        testing.do_bench_cudagraph(lambda: None)


# ----------------------------------------------------------------------------- perf_report's keywords

def test_diff_col_and_save_precision(tmp_path):
    @testing.perf_report(testing.Benchmark(x_names=["n"], x_vals=[1, 2], line_arg="p", line_vals=[1],
                                           line_names=["one"], plot_name="diff", args={}))
    def sweep(n, p):
        return n / 3

    header, rows = sweep.run(return_df=True, diff_col=True, save_path=tmp_path, save_precision=2)
    assert header == ["n", "one", "Diff"] and rows[1] == [2, 2 / 3, 2 / 3 - 2]
    assert list(csv.reader((tmp_path / "diff.csv").open()))[2] == ["2", "0.67", "-1.33"]


def test_dram_bandwidth_from_the_memory_clock_and_bus(monkeypatch):
    properties = types.SimpleNamespace(memory_clock_rate_khz=2_619_000, memory_bus_width=5120)
    monkeypatch.setattr(driver, "is_available", lambda: True)
    monkeypatch.setattr(driver, "device_properties", lambda device=None: properties)
    assert testing.get_dram_gbps() == pytest.approx(3352.32)  # an H100 SXM's 3.35 TB/s
    monkeypatch.setattr(driver, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="the CUDA driver sees no GPU here"):
        testing.get_dram_gbps()
