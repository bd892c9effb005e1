"""Measuring kernels, as `triton.testing` does: `do_bench`, `Benchmark` and `perf_report`, `assert_close`.

Not a stage of the compiler: the tools that time and check what the pipeline produced. `do_bench`
times a function on the GPU with CUDA events (through `cuda.bindings.driver`), writing a 256 MB buffer
before every run so that no input is still in the L2 cache, and returns the median (or the mean, the
quantiles...) in milliseconds. `perf_report(Benchmark(...))` turns a function of a few parameters
into a sweep that prints a table and saves a CSV and a line plot. The writers of tables, CSV files
and plots live here once and `minitriton.bench` uses them too. matplotlib is optional (the `bench`
extra): without it the plots are skipped with a note and the CSV files are still written.
Chapter: 10-performance.
"""
from __future__ import annotations

import csv
import math
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from . import driver
from .jit import interpreting

# Written before every timed run: several times the L2 cache of current GPUs (50 MB on an H100), so
# each run reads its inputs from device memory, as it would inside a real program.
L2_FLUSH_BYTES = 256 * 1024 * 1024
RETURN_MODES = ("min", "max", "mean", "median", "pair_median", "all")
MATPLOTLIB_MISSING = "matplotlib is not installed (pip install 'minitriton[bench]'): no plot, only the CSV"


# ----------------------------------------------------------------------------- timing

class CudaClock:
    """CUDA events recorded on one stream: torch's current stream when torch has started CUDA (so
    the events are ordered with torch's work and with kernels launched on torch tensors), else the
    default stream. `flush_l2` writes the flush buffer on that stream."""

    def __init__(self):
        from cuda.bindings import driver as cuda

        driver.current_device()  # initializes the driver and makes a context current
        self.cuda, self.check = cuda, driver.check
        torch = sys.modules.get("torch")
        stream = torch.cuda.current_stream().cuda_stream if torch and torch.cuda.is_initialized() else 0
        self.stream = cuda.CUstream(stream)
        self.flush_buffer = _flush_buffer()
        self.events = []

    def event(self):
        event = self.check(self.cuda.cuEventCreate(self.cuda.CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate")
        self.events.append(event)
        return event

    def record(self, event) -> None:
        self.check(self.cuda.cuEventRecord(event, self.stream), "cuEventRecord")

    def elapsed_ms(self, start, end) -> float:
        return float(self.check(self.cuda.cuEventElapsedTime(start, end), "cuEventElapsedTime"))

    def synchronize(self) -> None:
        driver.synchronize()  # also raises an error that a kernel hit while it ran

    def flush_l2(self) -> None:
        buffer = self.flush_buffer
        self.check(self.cuda.cuMemsetD32Async(buffer.address, 0, buffer.nbytes // 4, self.stream),
                   "cuMemsetD32Async")

    def close(self) -> None:
        for event in self.events:
            self.cuda.cuEventDestroy(event)
        self.events.clear()


_flush_buffers: dict[int, Any] = {}  # device ordinal -> DeviceArray, allocated on first use


def _flush_buffer():
    device = driver.current_device()
    if device not in _flush_buffers:
        _flush_buffers[device] = driver.DeviceArray.alloc(L2_FLUSH_BYTES, np.uint8)
    return _flush_buffers[device]


class HostClock:
    """The host's clock, for functions that finish before they return: kernels running in the
    numpy interpreter (MINITRITON_INTERPRET=1). There is no cache of ours to flush."""

    def event(self) -> list:
        return [0.0]

    def record(self, event) -> None:
        event[0] = time.perf_counter()

    def elapsed_ms(self, start, end) -> float:
        return (end[0] - start[0]) * 1e3

    def synchronize(self) -> None:
        pass

    def flush_l2(self) -> None:
        pass

    def close(self) -> None:
        pass


# --8<-- [start:do_bench]
def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100, grad_to_none=None,
             quantiles: Sequence[float] | None = None, return_mode: str = "mean"):
    """The time of one call of `fn`, in ms, measured on the GPU with CUDA events.

    `fn` runs once (to compile and load what it needs), then five times to estimate its time; from
    that estimate come the number of warm-up runs (filling `warmup` ms) and of timed runs (filling
    `rep` ms). The L2 cache is flushed before every timed run, outside the timed region. The result
    is the `quantiles` of the times if given, else their `return_mode`: "mean" (as Triton's default),
    "median", "min", "max", "pair_median" (see `pair_median`) or "all" (the list). `grad_to_none`:
    tensors whose `.grad` is reset before each run. Under MINITRITON_INTERPRET=1 the host's clock
    times the interpreter instead.
    """
    return do_bench_interleaved([fn], warmup, rep, grad_to_none, quantiles, return_mode)[0]


def do_bench_interleaved(fns: Sequence[Callable[[], Any]], warmup: float = 25, rep: float = 100,
                         grad_to_none=None, quantiles: Sequence[float] | None = None,
                         return_mode: str = "pair_median") -> list:
    """`do_bench` of several functions at once, a result for each: they take turns run by run, so
    whatever drifts while they are timed (the GPU's clocks and memory, the host's load) falls on
    all of them alike, and their ratios hold even where each one's own time moves from run to run."""
    if return_mode not in RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(RETURN_MODES)}, got {return_mode!r}")
    clock = HostClock() if interpreting() else _gpu_clock()
    try:
        times = time_runs(clock, fns, warmup, rep, grad_to_none)
    finally:
        clock.close()
    return [summarize(t, quantiles, return_mode) for t in times]


def time_runs(clock, fns: Sequence[Callable[[], Any]], warmup: float, rep: float,
              grad_to_none=None) -> list[list[float]]:
    """The times in ms of the timed runs of each of `fns` on `clock` (the body of `do_bench`). A
    round runs every function once, each after its own flush; the rounds fill `warmup` and `rep`
    ms per function, on average. From one round to the next each function's run moves by an odd
    number of runs in the GPU's sequence: a fixed order does it for an odd number of functions,
    and for an even number the order turns by one each round (see `pair_median`)."""
    for fn in fns:
        fn()
    clock.synchronize()
    estimate = 0.0
    for fn in fns:
        start, end = clock.event(), clock.event()
        clock.record(start)
        for _ in range(5):
            clock.flush_l2()
            fn()
        clock.record(end)
        clock.synchronize()
        estimate += clock.elapsed_ms(start, end) / 5
    n_warmup, n_repeat = run_counts(estimate / len(fns), warmup, rep)
    # Every event exists before the first timed run, so creating them costs the runs nothing.
    rounds = [[(clock.event(), clock.event()) for _ in fns] for _ in range(n_repeat)]
    for _ in range(n_warmup):
        for fn in fns:
            fn()
    turn = len(fns) % 2 == 0
    for r, events in enumerate(rounds):
        for k in range(len(fns)):
            i = (k + r) % len(fns) if turn else k
            for tensor in grad_to_none or ():
                tensor.grad = None
            clock.flush_l2()
            clock.record(events[i][0])
            fns[i]()
            clock.record(events[i][1])
    clock.synchronize()
    return [[clock.elapsed_ms(*events[i]) for events in rounds] for i in range(len(fns))]
# --8<-- [end:do_bench]


def _gpu_clock() -> CudaClock:
    if not driver.is_available():
        raise RuntimeError("do_bench times on a GPU and the CUDA driver sees none here; set "
                           "MINITRITON_INTERPRET=1 to time the numpy interpreter with the host's clock")
    return CudaClock()


def run_counts(estimate_ms: float, warmup: float, rep: float) -> tuple[int, int]:
    """How many warm-up and timed runs fill `warmup` and `rep` ms, for a run of `estimate_ms`."""
    estimate_ms = max(estimate_ms, 1e-6)  # a run too short for the clock to see counts as 1 ns
    return max(1, int(warmup / estimate_ms)), max(1, int(rep / estimate_ms))


def summarize(times: Sequence[float], quantiles: Sequence[float] | None = None, return_mode: str = "mean"):
    """`times` reduced as `do_bench` promises: the quantiles (one value if one was asked for), or the
    list ("all"), or one statistic."""
    values = np.asarray(times, dtype=np.float64)
    if quantiles is not None:
        result = np.quantile(values, quantiles).tolist()
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return values.tolist()
    if return_mode == "pair_median":
        return pair_median(values)
    return float(getattr(np, return_mode)(values))


# --8<-- [start:pair_median]
def pair_median(times: Sequence[float]) -> float:
    """The median of the means of consecutive pairs of times (a lone last time is left out).

    On the H200 a kernel's runs alternate between two speeds, run after run in the GPU's sequence,
    whatever runs between them: 8.0 and 7.65 us for a 2^20 vector add. The plain median of such a
    mixture lands on either level, so two calls of `do_bench` on the same kernel can differ by 4%.
    `time_runs` puts a function's consecutive times on runs of opposite parity, so each pair holds
    one run at each speed and the median of the pairs' means is steady."""
    values = np.asarray(times, dtype=np.float64)
    if len(values) < 2:
        return float(values.mean())
    pairs = len(values) // 2
    return float(np.median(values[:2 * pairs].reshape(pairs, 2).mean(axis=1)))
# --8<-- [end:pair_median]


# ----------------------------------------------------------------------------- checking results

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


def assert_close(x, y, atol=None, rtol=None, err_msg: str = "") -> None:
    """Fail unless |x - y| <= atol + rtol * |y| everywhere (as `triton.testing.assert_close`:
    atol 1e-2 and rtol 0 by default; either may be a function of the dtype). NaN equals NaN."""
    x_host, y_host = to_numpy(x), to_numpy(y)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(getattr(x, "dtype", x_host.dtype)) if callable(atol) else atol
    rtol = rtol(getattr(x, "dtype", x_host.dtype)) if callable(rtol) else rtol
    np.testing.assert_allclose(x_host, y_host, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)


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


# ----------------------------------------------------------------------------- tables, CSV, plots

def format_cell(value) -> str:
    """A table cell: "-" for nothing, four significant digits for small floats, whole numbers past 1000."""
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"
    return str(value)


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell, the first to the left (it names the row), the others
    to the right, a rule under the header."""
    cells = [[format_cell(c) for c in row] for row in rows]
    widths = [max([len(str(header[i]))] + [len(r[i]) for r in cells]) for i in range(len(header))]

    def line(row):
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(padded).rstrip()

    return "\n".join([line([str(h) for h in header]), "  ".join("-" * w for w in widths),
                      *(line(r) for r in cells)])


def write_csv(path: Path | str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> Path:
    """Rows as CSV, numbers at full precision (a missing value is an empty cell)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows([["" if c is None else c for c in row] for row in rows])
    return path


@dataclass
class Line:
    """One line of a plot: an implementation's values along the swept size. A None is a point
    that has no value (a run that failed) and is left out."""

    name: str
    x: list
    y: list
    y_min: list | None = None  # a band around the line, when the function reports one
    y_max: list | None = None
    color: str | None = None
    linestyle: str | None = None


def _figure(panels: int, show: bool, width: float = 5.5):
    """A figure with `panels` axes side by side, each `width` inches wide, or None (after a note)
    without matplotlib. Saved figures are drawn off screen, without touching pyplot's backend."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(MATPLOTLIB_MISSING, flush=True)
        return None
    size = (width * panels, 4.2)
    if show:
        import matplotlib.pyplot as plt
        figure = plt.figure(figsize=size)
    else:
        from matplotlib.figure import Figure
        figure = Figure(figsize=size)
    return figure, figure.subplots(1, panels, squeeze=False)[0]


def plot_lines(path: Path | str | None, panels: dict[str, list[Line]], xlabel: str, ylabel: str,
               x_log: bool = False, y_log: bool = False, x_base: int = 10, show: bool = False) -> bool:
    """One axes per panel (its title the key), a line with markers per `Line`. Saves a PNG to `path`
    (if given). False when matplotlib is missing."""
    made = _figure(len(panels), show)
    if made is None:
        return False
    figure, axes = made
    for ax, (title, lines) in zip(axes, panels.items()):
        for line in lines:
            points = [(x, y, lo, hi) for x, y, lo, hi in zip(line.x, line.y, line.y_min or [None] * len(line.x),
                                                             line.y_max or [None] * len(line.x)) if y is not None]
            if not points:
                continue
            xs, ys, lows, highs = zip(*points)
            ax.plot(xs, ys, marker="o", markersize=3, label=line.name, color=line.color, ls=line.linestyle)
            if None not in lows and None not in highs:
                ax.fill_between(xs, lows, highs, alpha=0.15, color=line.color)
        if x_log:
            ax.set_xscale("log", base=x_base)
        if y_log:
            ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend()
    return _finish(figure, path, show)


def plot_bars(path: Path | str | None, groups: dict[str, dict[str, float | None]], ylabel: str,
              title: str = "", y_log: bool = False, show: bool = False) -> bool:
    """Grouped bars: one group per key of `groups`, one bar per implementation in it."""
    made = _figure(1, show, width=max(5.5, 2.2 * len(groups)))
    if made is None:
        return False
    figure, (ax,) = made
    names = list(dict.fromkeys(name for bars in groups.values() for name in bars))
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        heights = [bars.get(name) for bars in groups.values()]
        positions = [g + (i - (len(names) - 1) / 2) * width for g in range(len(groups))]
        ax.bar([p for p, h in zip(positions, heights) if h is not None],
               [h for h in heights if h is not None], width, label=name)
    ax.set_xticks(range(len(groups)), [textwrap.fill(group, 20) for group in groups])
    if y_log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    return _finish(figure, path, show)


def _finish(figure, path, show: bool) -> bool:
    figure.tight_layout()
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=120)
    if show:
        import matplotlib.pyplot as plt
        plt.show()
    return True


# ----------------------------------------------------------------------------- perf_report

# --8<-- [start:perf_report]
@dataclass
class Benchmark:
    """One sweep for `perf_report`, as in `triton.testing.Benchmark`: the function is called with
    each of `x_vals` for the `x_names` (a value for all of them, or a tuple with one value each) and
    each of `line_vals` for `line_arg`, plus the fixed `args`. Each `line_vals` entry is one line,
    labelled by `line_names`; `styles` are (color, linestyle) pairs."""

    x_names: list[str]
    x_vals: list
    line_arg: str
    line_vals: list
    line_names: list[str]
    plot_name: str
    args: dict
    xlabel: str = ""
    ylabel: str = ""
    x_log: bool = False
    y_log: bool = False
    styles: list[tuple[str, str]] | None = None


class Mark:
    """A function under `perf_report`: `.run()` sweeps it over its benchmarks."""

    def __init__(self, fn: Callable, benchmarks: Benchmark | list[Benchmark]):
        self.fn, self.benchmarks = fn, benchmarks

    def run(self, show_plots: bool = False, print_data: bool = False, save_path: str | Path = "",
            return_df: bool = False, **kwargs):
        """Sweep every benchmark; print its table (`print_data`), save `<plot_name>.csv` and
        `.png` under `save_path` (if given), show the plot (`show_plots`). With `return_df`,
        returns each benchmark's (header, rows)."""
        benchmarks = [self.benchmarks] if isinstance(self.benchmarks, Benchmark) else self.benchmarks
        tables = [self._run(bench, show_plots, print_data, save_path, kwargs) for bench in benchmarks]
        if return_df:
            return tables[0] if isinstance(self.benchmarks, Benchmark) else tables
        return None

    def _run(self, bench: Benchmark, show_plots, print_data, save_path, kwargs):
        x_values, means, lows, highs = sweep(self.fn, bench, kwargs)
        header = [*bench.x_names, *bench.line_names]
        rows = [[*x, *(m[i] for m in means)] for i, x in enumerate(x_values)]
        if any(v is not None for band in lows for v in band):
            header += [f"{n}-min" for n in bench.line_names] + [f"{n}-max" for n in bench.line_names]
            for i, row in enumerate(rows):
                row += [lo[i] for lo in lows] + [hi[i] for hi in highs]
        if print_data:
            print(f"{bench.plot_name}:")
            print(format_table(header, rows), flush=True)
        if save_path or show_plots:
            styles = bench.styles or [(None, None)] * len(bench.line_names)
            lines = [Line(name, [x[0] for x in x_values], means[i], lows[i], highs[i], *styles[i])
                     for i, name in enumerate(bench.line_names)]
            plot_lines(Path(save_path) / f"{bench.plot_name}.png" if save_path else None,
                       {bench.plot_name: lines}, bench.xlabel or " = ".join(bench.x_names),
                       bench.ylabel, bench.x_log, bench.y_log, show=show_plots)
        if save_path:
            write_csv(Path(save_path) / f"{bench.plot_name}.csv", header, rows)
        return header, rows


def sweep(fn: Callable, bench: Benchmark, kwargs: dict):
    """Call `fn` at every (x, line) point: the x values (a tuple per x), and per line its values
    and its lower and upper band (None where `fn` returned a single number)."""
    x_values, means, lows, highs = [], [[] for _ in bench.line_vals], [[] for _ in bench.line_vals], \
        [[] for _ in bench.line_vals]
    for x in bench.x_vals:
        x = tuple(x) if isinstance(x, (list, tuple)) else (x,) * len(bench.x_names)
        if len(x) != len(bench.x_names):
            raise ValueError(f"{bench.plot_name}: x value {x} does not give one value for each of "
                             f"{bench.x_names}")
        x_values.append(x)
        for i, line in enumerate(bench.line_vals):
            result = fn(**dict(zip(bench.x_names, x)), **{bench.line_arg: line}, **bench.args, **kwargs)
            mean, low, high = result if isinstance(result, (tuple, list)) else (result, None, None)
            means[i].append(mean)
            lows[i].append(low)
            highs[i].append(high)
    return x_values, means, lows, highs


def perf_report(benchmarks: Benchmark | list[Benchmark]) -> Callable[[Callable], Mark]:
    """Mark a function for benchmarking: `perf_report(Benchmark(...))(fn).run(print_data=True)`."""
    return lambda fn: Mark(fn, benchmarks)
# --8<-- [end:perf_report]
