"""Autotuning in the interpreter, timed by a stand-in benchmark that reports the time each test
assigns to a config: the fastest config wins, each config is timed once per key, failures are scored
as unusable with their reason, pruning applies, the choice survives in the disk cache, heuristics feed
the kernel, and the chosen config computes the right answer."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.errors import LaunchError, OutOfResources

# The tests count launches (grid calls); comparing each launch on the GPU would launch twice.
pytestmark = pytest.mark.no_gpu_diff

autotune_module = importlib.import_module("minitriton.autotune")  # `minitriton.autotune` is the decorator
AutotuneError = autotune_module.AutotuneError

N = 1000  # not a multiple of any block


@pytest.fixture(autouse=True)
def _interpreted_with_a_private_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("MINITRITON_CACHE", raising=False)
    monkeypatch.delenv("MINITRITON_PRINT_AUTOTUNING", raising=False)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


@triton.jit
def accumulate_kernel(acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(acc_ptr + offsets, tl.load(acc_ptr + offsets, mask=mask) + tl.load(x_ptr + offsets, mask=mask),
             mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # Which branch runs shows in the result: 2x when the heuristic says no mask is needed, 3x if not.
    if EVEN_N:
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) * 2)
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 3, mask=mask)


class Grid:
    """A grid callable that records the meta-parameters of every launch."""

    def __init__(self):
        self.seen: list[dict] = []

    def __call__(self, meta):
        self.seen.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)


class FakeBench:
    """Stands in for do_bench: runs the kernel once, as a real benchmark would (so a config that
    does not compile fails here), then reports the time the test gave that config's BLOCK."""

    def __init__(self, grid: Grid, ms_by_block: dict[int, float], too_big: int | None = None):
        self.grid, self.ms_by_block, self.too_big = grid, ms_by_block, too_big
        self.calls = 0

    def __call__(self, kernel_call, warmup=None, rep=None):
        self.calls += 1
        before = len(self.grid.seen)
        kernel_call()
        assert len(self.grid.seen) == before + 1, "the benchmark launched the kernel once"
        block = self.grid.seen[-1]["BLOCK"]
        if self.too_big is not None and block >= self.too_big:
            # What the device says about a block that does not fit.
            raise OutOfResources(block * 1024, self.too_big * 1024, "shared memory")
        return [self.ms_by_block[block], 0.0, 0.0]  # the median first, as with quantiles


def named(block: int) -> str:
    """The name of the config with this BLOCK (and the default options): its key in `failures`."""
    return f"BLOCK: {block}, num_warps: 4, num_stages: 3"


def by_block(timings: dict) -> dict[int, float]:
    return {config.kwargs["BLOCK"]: ms for config, ms in timings.items()}


KEY = (N, "fp32", "fp32", "fp32")  # n, then the dtypes of the three arrays


def configs(*blocks: int, num_warps: int = 4) -> list[triton.Config]:
    return [triton.Config({"BLOCK": block}, num_warps=num_warps) for block in blocks]


def inputs(n: int = N, dtype=np.float32):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    return x, y, np.full(n, np.nan, dtype)  # the output is poisoned: an unwritten element shows


def tuned_add(bench: FakeBench, blocks=(16, 32, 64, 128), **options):
    return triton.autotune(configs(*blocks), key=["n"], do_bench=bench, **options)(add_kernel)


def test_config_reads_like_triton():
    config = triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3)
    assert str(config) == "BLOCK_M: 128, BLOCK_N: 64, num_warps: 8, num_stages: 3"
    assert config.all_kwargs() == {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_stages": 3}


def test_the_fastest_config_is_chosen_and_computes_the_right_answer():
    grid = Grid()
    bench = FakeBench(grid, {16: 3.0, 32: 1.0, 64: 2.0, 128: 5.0})
    kernel = tuned_add(bench)
    x, y, out = inputs()
    kernel[grid](x, y, out, N)
    assert kernel.best_config.kwargs == {"BLOCK": 32}
    assert kernel.cache == {KEY: kernel.best_config}
    assert {str(c): ms for c, ms in kernel.configs_timings[KEY].items()} == {
        named(16): 3.0, named(32): 1.0, named(64): 2.0, named(128): 5.0}
    assert kernel.failures[KEY] == {}
    np.testing.assert_allclose(out, x + y, rtol=1e-6)

    out[:] = np.nan  # poisoned again: the launch with the remembered config must write every element
    grid.seen.clear()
    kernel[grid](x, y, out, N)
    assert grid.seen == [{"x_ptr": x, "y_ptr": y, "out_ptr": out, "n": N, "BLOCK": 32}]
    np.testing.assert_allclose(out, x + y, rtol=1e-6)


def test_each_config_is_timed_once_per_key():
    grid = Grid()
    bench = FakeBench(grid, {16: 3.0, 32: 1.0, 64: 2.0, 128: 5.0})
    kernel = tuned_add(bench)
    for _ in range(3):
        kernel[grid](*inputs(), N)
    assert bench.calls == 4
    bench.ms_by_block = {16: 1.0, 32: 4.0, 64: 2.0, 128: 5.0}  # another size, another winner
    kernel[grid](*inputs(2 * N + 3), 2 * N + 3)
    assert bench.calls == 8 and kernel.best_config.kwargs == {"BLOCK": 16}
    kernel[grid](*inputs(N), N)
    assert bench.calls == 8 and kernel.best_config.kwargs == {"BLOCK": 32}
    kernel[grid](*inputs(N, np.float64), N)  # the same n with other dtypes is a new key
    assert bench.calls == 12
    assert set(kernel.cache) == {(N, "fp32", "fp32", "fp32"), (2 * N + 3, "fp32", "fp32", "fp32"),
                                 (N, "fp64", "fp64", "fp64")}


def test_a_config_that_does_not_compile_or_fit_is_unusable_with_its_reason():
    grid = Grid()
    # The fastest two cannot run: 100 is not a power of two, and 256 does not fit the device.
    bench = FakeBench(grid, {100: 0.5, 256: 0.7, 64: 2.0, 32: 3.0}, too_big=256)
    kernel = tuned_add(bench, blocks=(100, 256, 64, 32))
    x, y, out = inputs()
    kernel[grid](x, y, out, N)
    assert kernel.best_config.kwargs == {"BLOCK": 64}
    timings = by_block(kernel.configs_timings[KEY])
    assert timings == {100: float("inf"), 256: float("inf"), 64: 2.0, 32: 3.0}
    reasons = kernel.failures[KEY]
    assert set(reasons) == {named(100), named(256)}
    assert reasons[named(100)].startswith("CompilationError: ")
    assert "tl.arange(0, 100) has 100 elements: its range must be a power of 2" in reasons[named(100)]
    assert reasons[named(256)].startswith("OutOfResources: out of resources: shared memory needs 262144 bytes")
    np.testing.assert_allclose(out, x + y, rtol=1e-6)


def test_when_every_config_fails_the_error_lists_each_one_and_why():
    grid = Grid()
    kernel = tuned_add(FakeBench(grid, {}), blocks=(100, 48))
    with pytest.raises(AutotuneError) as caught:
        kernel[grid](*inputs(), N)
    message = str(caught.value)
    assert message.startswith(f"autotuning add_kernel for key {KEY}: no config could run:")
    assert f"\n  {named(100)}: CompilationError: " in message
    assert "tl.arange(0, 100) has 100 elements: its range must be a power of 2" in message
    assert f"\n  {named(48)}: CompilationError: " in message
    assert "tl.arange(0, 48) has 48 elements: its range must be a power of 2" in message


def test_configs_that_fail_alike_are_reported_once():
    def no_registers_left(named_args):
        raise OutOfResources(300, 255, "the registers of a thread")

    grid = Grid()
    kernel = triton.autotune([triton.Config({"BLOCK": b}, pre_hook=no_registers_left) for b in (32, 64)],
                             key=["n"], do_bench=FakeBench(grid, {}))(add_kernel)
    with pytest.raises(AutotuneError, match=r"all 2 configs failed the same way:\n  OutOfResources: out of "
                                            r"resources: the registers of a thread needs 300"):
        kernel[grid](*inputs(), N)


def test_early_config_prune_decides_what_is_timed():
    grid = Grid()
    bench = FakeBench(grid, {16: 3.0, 32: 1.0, 64: 2.0, 128: 5.0})
    seen = []

    def only_small_blocks(configs, named_args, **kwargs):
        seen.append((named_args["n"], kwargs))
        return [c for c in configs if c.kwargs["BLOCK"] <= 16 or c.kwargs["BLOCK"] >= 128]

    kernel = tuned_add(bench, prune_configs_by={"early_config_prune": only_small_blocks})
    x, y, out = inputs()
    kernel[grid](x, y, out, N)
    assert seen == [(N, {})]
    assert bench.calls == 2 and kernel.best_config.kwargs == {"BLOCK": 16}
    np.testing.assert_allclose(out, x + y, rtol=1e-6)


@pytest.mark.parametrize("top_k", [2, 0.5])
def test_perf_model_keeps_the_top_k_estimates(top_k):
    grid = Grid()
    bench = FakeBench(grid, {16: 3.0, 32: 1.0, 64: 2.0, 128: 5.0})
    estimates = []

    def perf_model(x_ptr, y_ptr, out_ptr, n, BLOCK, num_warps, num_stages):
        estimates.append(BLOCK)
        return abs(BLOCK - 100)  # the model believes 64 and 128 are best

    kernel = tuned_add(bench, prune_configs_by={"perf_model": perf_model, "top_k": top_k})
    kernel[grid](*inputs(), N)
    assert sorted(estimates) == [16, 32, 64, 128]
    timed = set(by_block(kernel.configs_timings[KEY]))
    assert bench.calls == 2 and timed == {64, 128}
    assert kernel.best_config.kwargs == {"BLOCK": 64}


def test_a_later_process_reads_the_choice_from_disk(tmp_path):
    grid = Grid()
    times = {16: 3.0, 32: 1.0, 64: 2.0, 128: 5.0}
    first = tuned_add(FakeBench(grid, times))
    first[grid](*inputs(), N)
    assert [p.suffix for p in (tmp_path / "autotune").iterdir()] == [".json"]

    # A new process: a new autotuner over the same kernel, with nothing in memory.
    bench = FakeBench(grid, times)
    second = tuned_add(bench)
    x, y, out = inputs()
    second[grid](x, y, out, N)
    assert bench.calls == 0
    assert second.best_config.kwargs == {"BLOCK": 32}
    assert {str(c): ms for c, ms in second.configs_timings[KEY].items()} == \
        {str(c): ms for c, ms in first.configs_timings[KEY].items()}
    np.testing.assert_allclose(out, x + y, rtol=1e-6)

    second[grid](*inputs(N + 1), N + 1)  # a key no process has tuned
    assert bench.calls == 4
    other_candidates = tuned_add(bench, blocks=(32, 64))
    other_candidates[grid](*inputs(), N)  # other configs: the record does not apply
    assert bench.calls == 6


def test_a_record_in_another_shape_is_tuned_again(tmp_path):
    grid = Grid()
    times = {16: 3.0, 32: 1.0, 64: 2.0, 128: 5.0}
    tuned_add(FakeBench(grid, times))[grid](*inputs(), N)
    [record] = (tmp_path / "autotune").iterdir()
    record.write_text(json.dumps({"config": "BLOCK: 32, num_warps: 4, num_stages: 3", "timings": [1.0]}))
    bench = FakeBench(grid, times)
    tuned_add(bench)[grid](*inputs(), N)
    assert bench.calls == 4


COUNTING_SCRIPT = """
import numpy as np
import minitriton as triton
import minitriton.language as tl

calls, last_block = 0, None

def fake_bench(kernel_call, warmup=None, rep=None):
    global calls
    calls += 1
    kernel_call()
    return 1.0 if last_block == 32 else 2.0

@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)

kernel = triton.autotune([triton.Config({"BLOCK": b}) for b in (16, 32, 64)], key=["n"],
                         do_bench=fake_bench)(double)

def grid(meta):
    global last_block
    last_block = meta["BLOCK"]
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)

x, out = np.arange(1000, dtype=np.float32), np.full(1000, np.nan, np.float32)
kernel[grid](x, out, 1000)
assert (out == 2 * x).all()
print(calls, kernel.best_config)
"""


def test_a_new_process_reads_the_choice_from_disk(tmp_path, monkeypatch):
    script = tmp_path / "tune_double.py"
    script.write_text(COUNTING_SCRIPT)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(Path(triton.__file__).parents[1]),
                                                                  os.environ.get("PYTHONPATH")])))
    run = lambda: subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                                 timeout=120).stdout.strip()
    assert run() == "3 BLOCK: 32, num_warps: 4, num_stages: 3"
    second = run()
    # Two records would mean the key moved between processes (or the package's source changed).
    assert second == "0 BLOCK: 32, num_warps: 4, num_stages: 3", sorted((tmp_path / "autotune").iterdir())


def test_failures_are_recorded_on_disk_too():
    grid = Grid()
    times = {100: 0.5, 64: 2.0}
    tuned_add(FakeBench(grid, times), blocks=(100, 64))[grid](*inputs(), N)
    bench = FakeBench(grid, times)
    again = tuned_add(bench, blocks=(100, 64))
    again[grid](*inputs(), N)
    assert bench.calls == 0 and again.best_config.kwargs == {"BLOCK": 64}
    assert "must be a power of 2" in again.failures[KEY][named(100)]
    assert by_block(again.configs_timings[KEY]) == {100: float("inf"), 64: 2.0}


def test_minitriton_cache_0_turns_the_disk_records_off(monkeypatch, tmp_path):
    monkeypatch.setenv("MINITRITON_CACHE", "0")
    grid = Grid()
    times = {16: 3.0, 32: 1.0, 64: 2.0, 128: 5.0}
    tuned_add(FakeBench(grid, times))[grid](*inputs(), N)
    bench = FakeBench(grid, times)
    tuned_add(bench)[grid](*inputs(), N)
    assert bench.calls == 4
    assert not (tmp_path / "autotune").exists()


def test_progress_shows_each_config_and_the_choice(monkeypatch, capsys):
    monkeypatch.setenv("MINITRITON_PRINT_AUTOTUNING", "1")
    grid = Grid()
    times = {100: 0.5, 32: 1.0, 64: 2.0}
    kernel = tuned_add(FakeBench(grid, times), blocks=(100, 32, 64))
    kernel[grid](*inputs(), N)
    kernel[grid](*inputs(), N)  # the same key: nothing more to say
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"minitriton: autotuning add_kernel for key {KEY}: 3 of 3 configs"
    assert lines[1].startswith(f"  {named(100)}: CompilationError: ")
    assert lines[2:4] == [f"  {named(32)}: 1.0000 ms", f"  {named(64)}: 2.0000 ms"]
    assert lines[4].startswith(f"minitriton: add_kernel for key {KEY}: best config {named(32)} "
                               f"(1.0000 ms; tuned in ")
    assert len(lines) == 5

    tuned_add(FakeBench(grid, times), blocks=(100, 32, 64))[grid](*inputs(), N)
    assert capsys.readouterr().err == \
        f"minitriton: add_kernel for key {KEY}: best config {named(32)} (from the disk cache)\n"


def test_the_interpreter_takes_the_first_config_that_runs_without_timing():
    grid = Grid()
    kernel = triton.autotune(configs(100, 64, 32), key=["n"])(add_kernel)  # no do_bench: nothing times
    x, y, out = inputs()
    kernel[grid](x, y, out, N)
    assert kernel.best_config.kwargs == {"BLOCK": 64}
    assert by_block(kernel.configs_timings[KEY]) == {100: float("inf"), 64: 0.0}
    assert "must be a power of 2" in kernel.failures[KEY][named(100)]
    np.testing.assert_allclose(out, x + y, rtol=1e-6)


def test_one_config_needs_no_timing():
    grid = Grid()
    bench = FakeBench(grid, {})
    kernel = tuned_add(bench, blocks=(64,))
    x, y, out = inputs()
    kernel[grid](x, y, out, N)
    assert bench.calls == 0 and kernel.best_config.kwargs == {"BLOCK": 64}
    np.testing.assert_allclose(out, x + y, rtol=1e-6)


def test_reset_to_zero_starts_every_run_from_zero():
    grid = Grid()
    kernel = triton.autotune(configs(16, 32, 64), key=["n"], reset_to_zero=["acc_ptr"],
                             do_bench=FakeBench(grid, {16: 3.0, 32: 1.0, 64: 2.0}))(accumulate_kernel)
    x = np.random.default_rng(1).standard_normal(N).astype(np.float32)
    acc = np.full(N, 7.0, np.float32)  # reset before each timed run, and before the real one
    kernel[grid](acc, x, N)
    np.testing.assert_allclose(acc, x, rtol=1e-6)


def test_restore_value_puts_inputs_back_between_runs():
    grid = Grid()
    kernel = triton.autotune(configs(16, 32, 64), key=["n"], restore_value=["acc_ptr"],
                             do_bench=FakeBench(grid, {16: 3.0, 32: 1.0, 64: 2.0}))(accumulate_kernel)
    rng = np.random.default_rng(2)
    x, acc = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    before = acc.copy()
    kernel[grid](acc, x, N)
    np.testing.assert_allclose(acc, before + x, rtol=1e-6)  # the timed runs left no trace


def test_heuristics_compute_constexprs_the_kernel_sees():
    grid = Grid()
    kernel = triton.heuristics({
        "BLOCK": lambda args: min(64, triton.next_power_of_2(args["n"])),
        "EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0,  # sees the BLOCK computed just before
    })(scale_kernel)
    for n, factor in ((1024, 2), (N, 3), (8, 2), (5, 3)):  # n = 5 gets BLOCK 8, which needs the mask
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        out = np.full(n, np.nan, np.float32)
        grid.seen.clear()
        kernel[grid](x, out, n)
        block = min(64, triton.next_power_of_2(n))
        assert grid.seen == [{"x_ptr": x, "out_ptr": out, "n": n, "BLOCK": block, "EVEN_N": n % block == 0}]
        np.testing.assert_allclose(out, factor * x, rtol=1e-6)


def test_heuristics_may_choose_launch_options():
    kernel = triton.heuristics({"num_warps": lambda args: 8 if args["n"] > 512 else 2})(add_kernel)
    x, y, out = inputs()
    compiled = kernel[Grid()](x, y, out, N, BLOCK=64)
    assert compiled.metadata["num_warps"] == 8
    np.testing.assert_allclose(out, x + y, rtol=1e-6)


def test_autotune_over_heuristics_sees_the_chosen_config():
    grid = Grid()
    bench = FakeBench(grid, {32: 2.0, 64: 1.0, 128: 3.0})
    kernel = triton.autotune(configs(32, 64, 128), key=["n"], do_bench=bench)(
        triton.heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0})(scale_kernel))
    for n, factor in ((1024, 2), (N, 3)):
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        out = np.full(n, np.nan, np.float32)
        grid.seen.clear()
        kernel[grid](x, out, n)
        assert kernel.best_config.kwargs == {"BLOCK": 64}
        assert grid.seen[-1] == {"x_ptr": x, "out_ptr": out, "n": n, "BLOCK": 64, "EVEN_N": n % 64 == 0}
        np.testing.assert_allclose(out, factor * x, rtol=1e-6)


def test_warmup_compiles_every_config_for_a_gpu_without_one():
    kernel = tuned_add(FakeBench(Grid(), {}), blocks=(32, 64))
    x, y, out = inputs()
    compiled = kernel.warmup(x, y, out, N, target="sm_90")
    assert [k.metadata["arch"] for k in compiled] == ["sm_90", "sm_90"]
    assert all(".visible .entry add_kernel" in k.asm["ptx"] for k in compiled)


def test_launch_mistakes_are_explained():
    kernel = tuned_add(FakeBench(Grid(), {}))
    x, y, out = inputs()
    with pytest.raises(LaunchError, match=r"was given BLOCK, which the autotuner's configs choose"):
        kernel[Grid()](x, y, out, N, BLOCK=64)
    with pytest.raises(LaunchError, match=r"launch it as add_kernel\[grid\]"):
        kernel(x, y, out, N)
    with pytest.raises(ValueError, match=r"names 'size', not a parameter of "
                                         r"add_kernel\(x_ptr, y_ptr, out_ptr, n, BLOCK\)"):
        triton.autotune(configs(32), key=["size"])(add_kernel)
    with pytest.raises(ValueError, match=r"prune_configs_by takes perf_model, top_k and "
                                         r"early_config_prune; got topk"):
        triton.autotune(configs(32), key=["n"], prune_configs_by={"topk": 2})(add_kernel)
    with pytest.raises(TypeError, match=r"wrap a @jit function"):
        triton.autotune(configs(32), key=[])(lambda x: x)


def test_tuning_on_every_device(device):
    """Unmocked: the interpreter takes the first config that runs; a GPU times each with do_bench.
    reset_to_zero works on the arrays of either."""
    kernel = triton.autotune(configs(64, 128, 256), key=["n"], reset_to_zero=["acc_ptr"])(accumulate_kernel)
    x = np.random.default_rng(3).standard_normal(N).astype(np.float32)
    acc = device.array(np.full(N, np.nan, np.float32))
    kernel[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](acc, device.array(x), N)
    if device.name == "cuda":
        from minitriton import driver
        driver.synchronize()
    np.testing.assert_allclose(device.numpy(acc), x, rtol=1e-6)
    timings = next(iter(kernel.configs_timings.values()))
    assert kernel.best_config in timings and all(ms >= 0 for ms in timings.values())


@triton.jit
def _bound_kernel(x_ptr, n, scale=2.0, BLOCK: tl.constexpr = 16, EXTRA: tl.constexpr = None):
    pass


@pytest.mark.parametrize("args, kwargs", [
    ((np.zeros(4), 4), {}),
    ((np.zeros(4), 4, 3.0), {"BLOCK": 32}),
    ((np.zeros(4),), {"n": 4, "num_warps": 8}),
    ((), {"x_ptr": np.zeros(4), "n": 4, "EXTRA": 1, "num_stages": 2}),
    ((np.zeros(4), 4), {"BLOCK": 64, "scale": 1.0}),
])
def test_every_launch_binds_its_arguments_as_inspect_does(args, kwargs):
    """The autotuner binds each launch's arguments without `inspect` (every launch pays for it),
    in the same order and with the same defaults, so the tuning key is the one the slow way makes."""
    from minitriton.autotune import _named_args
    base = _bound_kernel
    bound = base.signature.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in base.arg_names})
    bound.apply_defaults()
    slow = {**bound.arguments, **{k: v for k, v in kwargs.items() if k not in base.arg_names}}
    fast = _named_args(base, args, kwargs)
    assert list(fast) == list(slow) and all(fast[k] is slow[k] for k in slow)


@pytest.mark.parametrize("args, kwargs, match", [
    ((np.zeros(4), 4, 1.0, 16, None, 7), {}, "positional"),
    ((np.zeros(4), 4), {"n": 5}, "multiple values"),
])
def test_a_launch_python_cannot_bind_still_says_why(args, kwargs, match):
    from minitriton.autotune import _named_args
    with pytest.raises(LaunchError, match=match):
        _named_args(_bound_kernel, args, kwargs)
