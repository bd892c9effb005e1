"""Timing kernels, as `triton.testing` does: `do_bench`, `do_bench_cudagraph`.

Not a stage of the compiler: how the tools time what the pipeline produced. `do_bench` times a
function on the GPU with CUDA events (through `cuda.bindings.driver`), writing a 256 MB buffer
before every run so that no input is still in the L2 cache, and returns the mean (or the median,
the quantiles...) in milliseconds; `do_bench_interleaved` times several functions run by run.
`do_bench_cudagraph` captures many calls in one CUDA graph (with torch) and times its replays, so
the host's launch cost drops out. Under MINITRITON_INTERPRET=1 both time the interpreter on the
host's clock. Chapter: 10-performance.
"""
from __future__ import annotations

import sys
import time
from typing import Any, Callable, Sequence

import numpy as np

from .. import driver
from ..jit import interpreting

# Written before every timed run: several times the L2 cache of current GPUs (50 MB on an H100), so
# each run reads its inputs from device memory, as it would inside a real program.
L2_FLUSH_BYTES = 256 * 1024 * 1024
RETURN_MODES = ("min", "max", "mean", "median", "pair_median", "all")


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
    is the `quantiles` of the times if given, else their `return_mode`: "mean" (as Triton's
    default),
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
    all of them alike, and their ratios hold even where each one's own time moves from run to
    run."""
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


# --8<-- [start:do_bench_cudagraph]
def do_bench_cudagraph(fn: Callable[[], Any], rep: float = 20, grad_to_none=None,
                       quantiles: Sequence[float] | None = None, return_mode: str = "mean"):
    """The time of one call of `fn`, in ms, with the host's part taken out: as many calls as fill
    `rep` ms are captured in one CUDA graph (torch.cuda.graph, on a stream of its own), the graph
    is replayed ten times, and each replay's time divided by the calls in it is one sample, reduced
    as `do_bench` reduces its times. No L2 flush: a graph replays its calls back to back. `fn`
    runs once before, so it compiles and allocates outside the graph. Kernels are captured when
    they launch on torch's current stream, that is when their arrays are torch tensors. Under
    MINITRITON_INTERPRET=1 it is `do_bench` on the host's clock, with no warm-up."""
    if return_mode not in RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(RETURN_MODES)}, got {return_mode!r}")
    if interpreting():
        return do_bench(fn, 0, rep, grad_to_none, quantiles, return_mode)
    try:
        import torch
    except ImportError:
        raise RuntimeError("do_bench_cudagraph captures fn with torch.cuda.graph and torch is not "
                           "installed: pip install torch, or time with do_bench") from None
    _need_gpu("do_bench_cudagraph")

    def run(calls: int) -> None:
        for _ in range(calls):
            for tensor in grad_to_none or ():
                tensor.grad = None
            fn()

    with torch.cuda.stream(torch.cuda.Stream()):
        run(1)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run(5)
        end.record()
        torch.cuda.synchronize()
        estimate_ms = start.elapsed_time(end) / 5
        calls = max(1, int(rep / estimate_ms)) if estimate_ms > 0 else 1000
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            run(calls)
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / calls)
    return summarize(times, quantiles, return_mode)
# --8<-- [end:do_bench_cudagraph]


def _gpu_clock() -> CudaClock:
    _need_gpu("do_bench")
    return CudaClock()


def _need_gpu(timer: str) -> None:
    if not driver.is_available():
        raise RuntimeError(f"{timer} times on a GPU and the CUDA driver sees none here; set "
                           "MINITRITON_INTERPRET=1 to time the numpy interpreter with the host's clock")


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

