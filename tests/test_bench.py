"""The benchmark harness on the CPU: sizes, tables, CSV and PNG files, perf_report sweeps, do_bench's
loop on the host clock, the checks before timing, Triton's twins of the kernels (run here by
minitriton's own jit in the interpreter), and `bench` refusing to run without a GPU."""
import csv
import importlib.util
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import minitriton
import minitriton.language as tl
from minitriton import bench, testing
from minitriton.examples import tutorials

ROOT = Path(__file__).resolve().parent.parent
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
NO_MATPLOTLIB = "matplotlib is not installed (it is in the optional `bench` extra)"


# ----------------------------------------------------------------------------- sizes and configs

def test_vector_add_sizes():
    assert bench.vector_add_sizes(False) == [2**e for e in range(12, 29)]
    quick = bench.vector_add_sizes(True)
    assert {2**24, 2**28} <= set(quick) and len(quick) == 3


def test_softmax_columns():
    full = bench.softmax_columns(False)
    assert full[0] == 256 and full[-1] == 16384 and full == sorted(set(full))
    assert any(c & (c - 1) for c in full), "some row lengths leave part of the block masked"
    assert bench.softmax_columns(True) == [1024, 4096, 16384]
    assert set(bench.softmax_columns(True)) <= set(full)


def test_matmul_sizes():
    full, quick = bench.matmul_sizes(False), bench.matmul_sizes(True)
    assert full[0] == 512 and full[-1] == 8192 and set(quick) <= set(full)
    assert {4096, 8192} <= set(quick)
    assert all(size % 16 == 0 for size in full + [bench.COMPILE_SIZE]), "one specialization for all sizes"


def test_matmul_configs_default_then_the_tutorials(monkeypatch):
    monkeypatch.delattr(tutorials, "MATMUL_CONFIGS", raising=False)
    configs = bench.matmul_configs()
    assert [bench.config_label(c) for c in configs] == ["128x128x32 w8 s3", "64x64x32 w4 s3"]
    assert all(c["GROUP_SIZE_M"] == 8 for c in configs)
    config = minitriton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
                               num_warps=4, num_stages=4)
    monkeypatch.setattr(tutorials, "MATMUL_CONFIGS", [config, {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16,
                                                                "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 1}],
                        raising=False)
    assert [bench.config_label(c) for c in bench.matmul_configs()] == ["64x128x64 w4 s4", "16x16x16 w4 s3"]


# ----------------------------------------------------------------------------- the kernels, twice

def _matmul(kernel, M, N, K, dtype, precision, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = np.full((M, N), np.nan, dtype)
    config = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 2,
              "num_warps": 4, "num_stages": 2}
    bench.matmul_launch(kernel, config, precision)(a, b, c)
    return c, a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("dtype, precision, tolerance", [(np.float16, None, 5e-3), (np.float32, "ieee", 1e-6)])
def test_bench_matmul_kernel(monkeypatch, dtype, precision, tolerance):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    c, reference = _matmul(bench.matmul_kernel, 70, 50, 40, dtype, precision, seed=1)  # 3 x 2 tiles, masked
    assert c.dtype == dtype
    assert testing.relative_error(c, reference) < tolerance


def test_twin_compiles_the_same_lines_again(monkeypatch):
    """Triton's twin is made from the kernel's own lines; here minitriton's jit stands in for
    Triton's, so the twin runs in the interpreter and must agree with the original."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    other = bench.twin(tutorials.add_kernel, minitriton.jit, {"tl": tl})
    assert other is not tutorials.add_kernel and other.fn is not tutorials.add_kernel.fn
    original = tutorials.add_kernel.fn.__code__
    assert other.fn.__code__.co_filename == original.co_filename
    def_line = original.co_firstlineno + 1  # the line after the one decorator
    assert other.fn.__code__.co_firstlineno == def_line
    assert other.src.startswith("def add_kernel(")
    assert other.fn.__globals__["tl"] is tl and "minitriton" not in other.fn.__globals__

    n = 3000
    rng = np.random.default_rng(2)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    out = np.full(n, np.nan, np.float32)
    other[(minitriton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    np.testing.assert_array_equal(out, x + y)

    c, reference = _matmul(bench.twin(bench.matmul_kernel, minitriton.jit, {"tl": tl}), 40, 36, 20,
                           np.float32, "ieee", seed=3)
    assert testing.relative_error(c, reference) < 1e-6


# ----------------------------------------------------------------------------- do_bench

def test_summarize():
    times = [4.0, 1.0, 3.0, 2.0]
    assert testing.summarize(times, None, "mean") == 2.5
    assert testing.summarize(times, None, "median") == 2.5
    assert testing.summarize(times, None, "min") == 1.0 and testing.summarize(times, None, "max") == 4.0
    assert testing.summarize(times, None, "all") == times
    assert testing.summarize(times, [0.5]) == 2.5
    assert testing.summarize(times, [0.0, 0.5, 1.0]) == [1.0, 2.5, 4.0]


def test_run_counts():
    assert testing.run_counts(0.5, 25, 100) == (50, 200)
    assert testing.run_counts(1000.0, 25, 100) == (1, 1), "at least one run of each"
    assert testing.run_counts(0.0, 25, 100)[1] > 0


def test_do_bench_on_the_host_clock(monkeypatch):
    """Under the interpreter do_bench times with the host's clock; the loop is the GPU one."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    calls = []

    def sleep_2ms():
        calls.append(time.perf_counter())
        time.sleep(0.002)

    median = testing.do_bench(sleep_2ms, warmup=4, rep=20, return_mode="median")
    assert 1.9 <= median < 10
    # one first call, five to estimate, then about 4 / 2 warm-up and 20 / 2 timed runs
    assert 1 + 5 + 1 + 5 <= len(calls) <= 1 + 5 + 2 + 10
    low, high = testing.do_bench(sleep_2ms, warmup=1, rep=10, quantiles=[0.2, 0.8])
    assert 1.9 <= low <= high


def test_do_bench_interleaved_takes_turns(monkeypatch):
    """Several functions timed together: after their warm-up they take turns run by run, and each
    gets its own time. From one round to the next a function's run moves by an odd number of runs:
    two functions swap places each round, three keep their order."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    calls = []

    def sleeper(name, seconds):
        def run():
            calls.append(name)
            time.sleep(seconds)
        return run

    short, long = testing.do_bench_interleaved([sleeper("a", 0.001), sleeper("b", 0.004)], warmup=0, rep=25,
                                               return_mode="median")
    assert 0.9 <= short < 3.5 <= long < 12, (short, long)
    assert calls[:14] == ["a", "b"] + ["a"] * 5 + ["b"] * 5 + ["a", "b"], \
        "a first call each, five each to estimate, a warm-up round"
    timed = calls[14:]
    assert len(timed) >= 4 and timed == ["a", "b", "b", "a"] * (len(timed) // 4) + ["a", "b"] * (len(timed) % 4 // 2)
    calls.clear()
    testing.do_bench_interleaved([sleeper(name, 0.001) for name in "abc"], warmup=0, rep=6)
    timed = calls[3 + 15 + 3:]
    assert len(timed) >= 9 and timed == ["a", "b", "c"] * (len(timed) // 3)
    with pytest.raises(ValueError, match="return_mode"):
        testing.do_bench_interleaved([sleeper("a", 0)], return_mode="average")


def test_pair_median_is_steady_on_alternating_times():
    """Times that alternate between two levels, with a few outliers: the plain median jumps to the
    level that has one sample more; the median of pairs stays between them."""
    low, high = [7.65] * 50, [8.05] * 50
    alternating = [t for pair in zip(high, low) for t in pair]
    assert testing.pair_median(alternating) == pytest.approx(7.85)
    one_more_high = alternating[:-1] + [8.05, 8.05, 7.65]
    assert np.median(one_more_high) == 8.05, "the plain median takes a side"
    assert testing.pair_median(one_more_high) == pytest.approx(7.85)
    assert testing.pair_median(alternating[:20] + [50.0, 7.65] + alternating[22:]) == pytest.approx(7.85)
    assert testing.summarize(alternating, None, "pair_median") == pytest.approx(7.85)
    assert testing.pair_median([3.0]) == 3.0


def test_do_bench_resets_gradients(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    tensor = SimpleNamespace(grad="stale")
    seen = []
    testing.do_bench(lambda: seen.append(tensor.grad), warmup=0, rep=0, grad_to_none=[tensor])
    assert seen[-1] is None


def test_do_bench_without_a_gpu(monkeypatch):
    from minitriton import driver
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    monkeypatch.setattr(driver, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="MINITRITON_INTERPRET=1"):
        testing.do_bench(lambda: None)
    with pytest.raises(ValueError, match="return_mode"):
        testing.do_bench(lambda: None, return_mode="average")


# ----------------------------------------------------------------------------- checking results

def test_relative_error():
    rng = np.random.default_rng(4)
    expected = rng.standard_normal((30, 7))
    assert testing.relative_error(expected.astype(np.float32), expected) < 1e-7
    assert math.isclose(testing.relative_error(1.1 * expected, expected), 0.1, rel_tol=1e-9)
    poisoned = expected.copy()
    poisoned[3, 4] = np.nan  # an element the kernel never wrote
    assert testing.relative_error(poisoned, expected) == math.inf


def test_assert_close():
    x = np.array([1.0, 2.0, np.nan], np.float32)
    testing.assert_close(x, x + np.float32(0.005))
    testing.assert_close(x, 1.01 * x, atol=0, rtol=0.02)
    testing.assert_close(x, x, atol=lambda dtype: 0.0)
    with pytest.raises(AssertionError):
        testing.assert_close(x, x + 1, err_msg="off by one")


# ----------------------------------------------------------------------------- tables, CSV, plots

def test_format_table():
    text = testing.format_table(["n", "GB/s", "ok"], [["2^20", 1234.5678, "yes"], ["2^24", 0.123456, None]])
    lines = text.splitlines()
    assert lines[0].split() == ["n", "GB/s", "ok"] and set(lines[1]) <= {"-", " "}
    assert lines[2].split() == ["2^20", "1235", "yes"]
    assert lines[3].split() == ["2^24", "0.1235", "-"]
    assert lines[2].index("1235") + 4 == lines[3].index("0.1235") + 6, "numbers are right-aligned"


def test_write_csv(tmp_path):
    path = testing.write_csv(tmp_path / "deep" / "t.csv", ["x", "y"], [[1, 0.1 + 0.2], [2, None]])
    rows = list(csv.reader(path.open()))
    assert rows == [["x", "y"], ["1", repr(0.1 + 0.2)], ["2", ""]]


def _fake_sweep():
    calls = []

    @testing.perf_report(testing.Benchmark(
        x_names=["size"], x_vals=[2**10, 2**12, 2**14], line_arg="provider", line_vals=["fast", "slow"],
        line_names=["Fast", "Slow"], styles=[("blue", "-"), ("green", "--")], ylabel="GB/s",
        plot_name="fake-sweep", args={"scale": 2.0}, x_log=True))
    def fake(size, provider, scale):
        calls.append((size, provider, scale))
        return scale * size / (1 if provider == "fast" else 4)

    return fake, calls


def test_perf_report_sweeps_prints_and_writes_csv(tmp_path, capsys):
    fake, calls = _fake_sweep()
    header, rows = fake.run(print_data=True, save_path=tmp_path, return_df=True)
    assert calls == [(s, p, 2.0) for s in (1024, 4096, 16384) for p in ("fast", "slow")]
    assert header == ["size", "Fast", "Slow"]
    assert rows[1] == [4096, 8192.0, 2048.0]
    out = capsys.readouterr().out
    assert out.startswith("fake-sweep:\n") and "8192" in out and "Slow" in out
    table = list(csv.reader((tmp_path / "fake-sweep.csv").open()))
    assert table[0] == ["size", "Fast", "Slow"] and table[3] == ["16384", "32768.0", "8192.0"]
    assert (tmp_path / "fake-sweep.png").exists() == HAS_MATPLOTLIB
    if not HAS_MATPLOTLIB:
        assert testing.MATPLOTLIB_MISSING in out


def test_perf_report_with_bands_and_several_x_names(capsys):
    @testing.perf_report([testing.Benchmark(
        x_names=["M", "N"], x_vals=[8, (16, 32)], line_arg="p", line_vals=[1], line_names=["one"],
        plot_name="bands", args={})])
    def fake(M, N, p):
        return M * N, M * N - 1, M * N + 1

    (header, rows), = fake.run(return_df=True)
    assert header == ["M", "N", "one", "one-min", "one-max"]
    assert rows == [[8, 8, 64, 63, 65], [16, 32, 512, 511, 513]]
    assert capsys.readouterr().out == "", "nothing printed unless print_data"


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason=NO_MATPLOTLIB)
def test_plots_are_png_files(tmp_path):
    lines = [testing.Line("a", [256, 512, 1024], [1.0, None, 3.0]), testing.Line("b", [256], [2.0])]
    assert testing.plot_lines(tmp_path / "l.png", {"left": lines, "right": lines[:1]}, "n", "GB/s",
                              x_log=True, x_base=2)
    assert testing.plot_bars(tmp_path / "b.png", {"cold": {"x": 1.0, "y": None}, "warm": {"x": 2.0}}, "ms")
    for name in ("l.png", "b.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason=NO_MATPLOTLIB)
def test_panels_wrap_two_to_a_row(tmp_path):
    """Three panels side by side would be shown at half size in the book's column: two to a row."""
    import struct

    line = [testing.Line("a", [1, 2], [1.0, 2.0])]
    assert testing.plot_lines(tmp_path / "p.png", {"a": line, "b": line, "c": line}, "n", "y")
    width, height = struct.unpack(">II", (tmp_path / "p.png").read_bytes()[16:24])  # the PNG's IHDR
    assert (width, height) == (2 * 5.5 * 120, 2 * 4.2 * 120)


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason=NO_MATPLOTLIB)
def test_a_panel_of_named_points_keeps_a_linear_axis(tmp_path):
    """Matmul shapes are names ("16x8192x8192"), not numbers: no log scale for their panel."""
    shapes = [testing.Line("a", ["8192x8192x512", "16x8192x8192"], [600.0, 90.0])]
    sizes = [testing.Line("a", [1024, 4096], [300.0, 600.0])]
    assert testing.plot_lines(tmp_path / "m.png", {"square": sizes, "skinny": shapes}, "size", "TFLOP/s",
                              x_log=True, x_base=2)
    assert (tmp_path / "m.png").read_bytes().startswith(b"\x89PNG")


def test_without_matplotlib_only_a_note(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails
    assert not testing.plot_lines(tmp_path / "l.png", {"p": [testing.Line("a", [1], [1.0])]}, "n", "y")
    assert not (tmp_path / "l.png").exists()
    assert testing.MATPLOTLIB_MISSING in capsys.readouterr().out


# ----------------------------------------------------------------------------- bench's tables and files

GPU = "NVIDIA Fake H100"


def _m(bench_name, case, x, implementation, value, unit, status="ok", note=""):
    return bench.Measurement(bench_name, case, x, implementation, 1.0 if value else None, value, unit,
                             0.0 if status == "ok" else 0.5, status, note)


def _fake_measurements():
    return [
        _m("vector_add", "fp32", 2**24, bench.MINITRITON, 2910.0, "GB/s"),
        _m("vector_add", "fp32", 2**24, bench.TRITON, 3000.0, "GB/s"),
        _m("vector_add", "fp32", 2**24, bench.TORCH, 2900.0, "GB/s"),
        _m("vector_add", "fp32", 2**24, bench.COPY, 3100.0, "GB/s"),
        _m("vector_add", "fp32", 2**28, bench.MINITRITON, None, "GB/s", status="WRONG"),
        _m("vector_add", "fp32", 2**28, bench.TRITON, 3050.0, "GB/s"),
        _m("matmul", "fp16", 4096, bench.MINITRITON, 500.0, "TFLOP/s", note="128x128x32 w8 s3"),
        _m("matmul", "fp16", 4096, bench.MINITRITON, 300.0, "TFLOP/s", note="64x64x32 w4 s3"),
        _m("matmul", "fp16", 4096, bench.MINITRITON, None, "TFLOP/s", status="ERROR", note="x"),
        _m("matmul", "fp16", 4096, bench.CUBLAS, 625.0, "TFLOP/s"),
        _m("launch", "host time per launch", "10000 launches", bench.MINITRITON, 4.0, "us"),
        _m("launch", "host time per launch", "10000 launches", bench.TRITON, 12.0, "us"),
    ]


def test_tables_of_a_sweep():
    (title, header, rows), = bench.tables("vector_add", _fake_measurements(), GPU)
    assert GPU in title and "GB/s" in title and "higher is better" in title
    assert header == ["n", "minitriton", "triton", "torch", "copy", "vs triton", "vs torch", "vs copy"]
    assert rows[0] == ["2^24", 2910.0, 3000.0, 2900.0, 3100.0, "97%", "100%", "94%"]
    assert rows[1] == ["2^28", "WRONG", 3050.0, None, None, "-", "-", "-"]
    assert "WRONG" in testing.format_table(header, rows)


def test_tables_pick_the_best_config_and_lower_is_better_for_time():
    (title, header, rows), = bench.tables("matmul", _fake_measurements(), GPU)
    assert header[-1] == "minitriton's best config"
    assert rows == [["4096", 500.0, 625.0, "80%", "128x128x32 w8 s3"]]
    (title, header, rows), = bench.tables("launch", _fake_measurements(), GPU)
    assert "lower is better" in title and GPU in title
    assert rows == [["host time per launch", 4.0, 12.0, "300%"]]
    assert bench.tables("compile", _fake_measurements(), GPU) == []


def test_write_results(tmp_path):
    measurements = _fake_measurements()
    written = bench.write_results(tmp_path, "vector_add", measurements, GPU)
    assert written[0] == tmp_path / "vector_add.csv"
    rows = list(csv.DictReader((tmp_path / "vector_add.csv").open()))
    assert len(rows) == 6 and {r["gpu"] for r in rows} == {GPU}
    assert list(rows[0]) == bench.CSV_HEADER
    assert rows[4]["status"] == "WRONG" and rows[4]["value"] == ""
    assert (tmp_path / "vector_add.png" in written) == HAS_MATPLOTLIB
    bench.write_results(tmp_path, "launch", measurements, GPU)
    assert (tmp_path / "launch.csv").exists()


def test_format_x():
    assert bench.format_x("vector_add", 2**24) == "2^24"
    assert bench.format_x("softmax", 1024) == "4096x1024"
    assert bench.format_x("layernorm", 1536) == "4096x1536"
    assert bench.format_x("matmul", 4096) == "4096"
    assert bench.format_x("matmul", "16x8192x8192") == "16x8192x8192"
    assert set(bench.X_NAMES) | {"launch", "compile"} == set(bench.BENCHMARKS), "every sweep names its x"


def test_tables_against_the_fastest_sdpa_backend():
    """A ratio column per backend, and one against the fastest that ran at each point; a backend
    that failed at a point is not the fastest there."""
    measurements = [
        _m("attention", "fp16 D=128", 4096, bench.MINITRITON, 400.0, "TFLOP/s", note="128x64 w8 s3"),
        _m("attention", "fp16 D=128", 4096, bench.TRITON, 500.0, "TFLOP/s"),
        _m("attention", "fp16 D=128", 4096, "sdpa flash", 320.0, "TFLOP/s"),
        _m("attention", "fp16 D=128", 4096, "sdpa cudnn", 640.0, "TFLOP/s"),
        _m("attention", "fp16 D=128", 1024, bench.MINITRITON, 300.0, "TFLOP/s", note="128x64 w8 s3"),
        _m("attention", "fp16 D=128", 1024, "sdpa flash", 200.0, "TFLOP/s"),
        _m("attention", "fp16 D=128", 1024, "sdpa cudnn", None, "TFLOP/s", status="ERROR"),
    ]
    (title, header, rows), = bench.tables("attention", measurements, GPU)
    assert header == ["sequence length N", "minitriton", "triton", "sdpa flash", "sdpa cudnn", "vs triton",
                      "vs sdpa flash", "vs sdpa cudnn", "vs best sdpa", "minitriton's best config"]
    assert rows[0] == ["4096", 400.0, 500.0, 320.0, 640.0, "80%", "125%", "62%", "62%", "128x64 w8 s3"]
    assert rows[1] == ["1024", 300.0, None, 200.0, "ERROR", "-", "150%", "-", "150%", "128x64 w8 s3"]
    (title, header, rows), = bench.tables("attention", measurements[:3], GPU)
    assert "vs best sdpa" not in header, "one backend: its own column says it"


def test_result_error_of_several_results():
    """A backward pass's results are checked one by one: a small dw cannot hide in a large dx."""
    dx, dw = np.ones(1000), np.ones(10)
    assert bench.result_error((dx, dw), (dx, dw)) == 0
    assert bench.result_error((dx, 1.1 * dw), (dx, dw)) == pytest.approx(0.1)
    assert bench.result_error((dx, np.full(10, np.nan)), (dx, dw)) == math.inf
    assert bench.result_error(dx, dx) == 0


def test_a_config_too_large_for_the_gpu_is_no_failure(monkeypatch):
    """Its status says so, another config's measurement is the implementation's, and the run
    does not fail for it."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    monkeypatch.setattr(bench.harness, "triton_kernels", lambda: None)
    session = bench.Session(SimpleNamespace(cuda=SimpleNamespace(synchronize=lambda: None)), quick=True, gpu=GPU)
    point = bench.Point("matmul", "fp32 ieee", 64, "fp32", "TFLOP/s")
    OutOfResources = type("OutOfResources", (RuntimeError,), {})

    def too_large(x):
        raise OutOfResources("the shared memory of kernel matmul_kernel needs 294912 bytes")

    fits = bench.Candidate(bench.MINITRITON, lambda x: x, lambda x: x, 1e6, note="64x64x32 w4 s3")
    session.measure(point, [bench.Candidate(bench.MINITRITON, too_large, lambda x: x, 1e6, note="big"), fits],
                    lambda: (np.ones(4),))
    statuses = [m.status for m in session.measurements]
    assert statuses == [bench.TOO_LARGE, "ok"]
    (_, _, rows), = bench.tables("matmul", session.measurements, GPU)
    assert rows[0][-1] == "64x64x32 w4 s3"


# ----------------------------------------------------------------------------- checking before timing

def test_measure_checks_before_timing(monkeypatch, capsys):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")  # do_bench on the host clock
    monkeypatch.setattr(bench.harness, "triton_kernels", lambda: None)
    synchronized = []
    fake_torch = SimpleNamespace(cuda=SimpleNamespace(synchronize=lambda: synchronized.append(1)))
    session = bench.Session(fake_torch, quick=True, gpu=GPU)
    point = bench.Point("vector_add", "fp32", 1000, "fp32", "GB/s")
    rng = np.random.default_rng(5)
    fresh = lambda: (rng.random(1000, np.float32), rng.random(1000, np.float32), np.full(1000, np.nan, np.float32))
    total = lambda x, y, out: x.astype(np.float64) + y

    def right(x, y, out):
        np.add(x, y, out=out)
        return out

    calls = []

    def half_written(x, y, out):
        calls.append(1)
        out[:500] = x[:500] + y[:500]
        return out

    def raising(x, y, out):
        raise MemoryError("too big")

    session.measure(point, [bench.Candidate("right", right, total, 12_000),
                            bench.Candidate("half", half_written, total, 12_000),
                            bench.Candidate("raises", raising, total, 12_000, note="cfg")], fresh)
    wrong, error, ok = session.measurements  # failures are recorded as found, the timed at the end
    assert ok.status == "ok" and ok.ms > 0 and math.isclose(ok.value, 12_000 / (ok.ms * 1e-3) / 1e9)
    assert wrong.status == "WRONG" and wrong.error == math.inf and wrong.ms is None
    assert calls == [1], "a wrong kernel is never timed"
    assert error.status == "ERROR" and "MemoryError: too big" in error.note and error.note.startswith("cfg")
    assert synchronized, "after an error the context is checked"
    out = capsys.readouterr().out
    assert "vector_add fp32 1000: half: WRONG" in out and "not timed" in out


def test_a_lost_context_stops_the_run(monkeypatch):
    monkeypatch.setattr(bench.harness, "triton_kernels", lambda: None)

    def broken():
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    session = bench.Session(SimpleNamespace(cuda=SimpleNamespace(synchronize=broken)), quick=True, gpu=GPU)
    point = bench.Point("vector_add", "fp32", 10, "fp32", "GB/s")
    with pytest.raises(bench.ContextLost, match="illegal memory access"):
        session.measure(point, [bench.Candidate("x", lambda: broken(), lambda: None, 1)], lambda: ())


def test_compile_child_environment(monkeypatch, tmp_path):
    """The child gets the cache directory for both compilers, the disk cache on, no interpreter,
    and this checkout on its path; its marked line is found among other output."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    monkeypatch.setenv("MINITRITON_CACHE", "0")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    child = ("import os, sys, json, minitriton; e = os.environ; print('a warning'); "
             f"print({bench.CHILD_MARK!r} + json.dumps({{"
             "'cache': float(e['MINITRITON_CACHE_DIR'] == e['TRITON_CACHE_DIR'] == sys.argv[2]), "
             "'on': float(e['MINITRITON_CACHE'] == '1' and 'MINITRITON_INTERPRET' not in e), "
             "'bytecode': float(not sys.dont_write_bytecode and sys.pycache_prefix.startswith(sys.argv[2])), "
             "'arguments': float(len(sys.argv))}))")
    monkeypatch.setattr(bench.host, "CHILD_COMMAND", child)
    assert bench.run_child("minitriton", str(tmp_path), [str(tmp_path)]) == \
        {"cache": 1.0, "on": 1.0, "bytecode": 1.0, "arguments": 3.0}
    monkeypatch.setattr(bench.host, "CHILD_COMMAND", "import sys; sys.exit('no GPU in the child')")
    with pytest.raises(RuntimeError, match="exit 1.*no GPU in the child"):
        bench.run_child("triton", str(tmp_path), ["matmul"])


def test_parse_child_output():
    text = f"some warning\n{bench.CHILD_MARK}{{\"matmul\": 812.5}}\ntrailing\n"
    assert bench.parse_child_output(text) == {"matmul": 812.5}
    assert bench.parse_child_output("Traceback ...\n") is None


# ----------------------------------------------------------------------------- the command

def test_bench_without_a_gpu_exits_2_with_one_line():
    from minitriton import driver
    if driver.is_available():
        pytest.skip("a GPU is here: bench would run for real")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("MINITRITON_INTERPRET", None)
    done = subprocess.run([sys.executable, "-m", "minitriton", "bench", "--quick", "vector_add"], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: ")
    assert "GPU" in done.stderr and "Traceback" not in done.stderr


def test_bench_refuses_without_a_gpu_or_in_the_interpreter(monkeypatch, capsys, tmp_path):
    from minitriton import driver
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    monkeypatch.setattr(driver, "is_available", lambda: False)
    assert bench.main(["--out", str(tmp_path)]) == 2
    assert "GPU" in capsys.readouterr().err
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    assert bench.main(["softmax"]) == 2
    assert "MINITRITON_INTERPRET" in capsys.readouterr().err
    assert not any(tmp_path.iterdir()), "nothing written"


def test_bench_rejects_an_unknown_benchmark(capsys):
    with pytest.raises(SystemExit) as exit:
        bench.main(["vector-add"])
    assert exit.value.code == 2
    assert "unknown benchmark 'vector-add'" in capsys.readouterr().err


# ----------------------------------------------------------------------------- on a GPU

@pytest.mark.gpu
def test_do_bench_on_the_gpu(monkeypatch):
    """CUDA events and the L2 flush, around a kernel on DeviceArrays (no torch needed)."""
    from minitriton.driver import DeviceArray
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    n = (1 << 22) + 5
    rng = np.random.default_rng(6)
    x_host, y_host = rng.random(n, np.float32), rng.random(n, np.float32)
    x, y = DeviceArray.from_numpy(x_host), DeviceArray.from_numpy(y_host)
    out = DeviceArray.from_numpy(np.full(n, np.nan, np.float32))
    add = lambda: tutorials.add_kernel[(minitriton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    median = testing.do_bench(add, warmup=5, rep=20, return_mode="median")
    times = testing.do_bench(add, warmup=5, rep=20, return_mode="all")
    assert 0 < median < 100 and len(times) >= 1 and all(t > 0 for t in times)
    np.testing.assert_array_equal(out.numpy(), x_host + y_host)


@pytest.mark.gpu
def test_bench_launch_on_the_gpu(tmp_path, capsys):
    pytest.importorskip("torch", reason="bench needs torch for its references and baselines")
    assert bench.main(["--quick", "launch", "--out", str(tmp_path)]) == 0
    rows = list(csv.DictReader((tmp_path / "launch.csv").open()))
    assert {r["implementation"] for r in rows} >= {bench.MINITRITON, bench.TORCH}
    assert all(r["status"] == "ok" and float(r["value"]) > 0 for r in rows)
    out = capsys.readouterr().out
    assert rows[0]["gpu"] in out and "host time per launch" in out
