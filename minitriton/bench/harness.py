"""The harness: check, time together, record; then tables, CSV files and plots.

Every implementation's result is first checked against a float64 reference on fresh random inputs,
into a NaN-poisoned output; one that is wrong is reported and never timed. The implementations at
one point are then timed together, run by run on the same inputs, by `testing.do_bench_interleaved`
(CUDA events; the L2 cache is flushed before every run, so inputs that would fit in it are read
from memory all the same), and each gets the median of the means of pairs of its runs: a drift or
an alternation of the GPU's speed falls on all of them alike. Results are GB/s or TFLOP/s, with
minitriton's ratio to every other implementation measured in the same run. Chapter: 10-performance.
"""
from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable

from ..testing import Line, do_bench_interleaved, plot_bars, plot_lines, relative_error, write_csv

from .kernels import NORM_ROWS, SOFTMAX_ROWS, minitriton_kernels, triton_kernels

MINITRITON, TRITON, TORCH = "minitriton", "triton", "torch"
CUBLAS = "cuBLAS"  # through torch: torch.matmul, and torch._scaled_mm for fp8
COPY = "copy"  # torch's device-to-device copy_: the bandwidth ceiling
SDPA = ("sdpa flash", "sdpa cudnn", "sdpa efficient")  # torch's scaled_dot_product_attention, by backend
IMPLEMENTATIONS = (MINITRITON, TRITON, TORCH, CUBLAS, *SDPA, COPY)  # the order of a table's columns
BEST_OF = {"best sdpa": SDPA}  # a ratio column against the fastest of a family, where it ran

# Largest ||out - ref|| / ||ref|| that passes, by the dtype the result is stored in, or for tf32 and
# fp8 by what the inputs are rounded to. fp32 is tight enough that a matmul quietly rounding its
# inputs to tf32 (about 3e-4) fails. tf32 keeps 10 bits of each input's mantissa (a product is off
# by up to 2^-10 when the hardware truncates), so a matmul rounding to bf16 (8 bits) fails it. fp8
# inputs are exact, and the error is the fp16 output's rounding plus Hopper's fp8 accumulation
# in the tensor cores (narrower than fp32, in Triton and in cuBLAS's fast accumulation alike);
# anything rounded to fp8 on the way (2^-4) fails.
TOLERANCE = {"fp32": 1e-5, "tf32": 2e-3, "fp16": 5e-3, "bf16": 2e-2, "fp8": 1e-2}
# A block configuration that asks for more shared memory or registers than the GPU has: dropped, as
# an autotuner drops it, and no failure of the implementation (its other configurations ran).
TOO_LARGE = "TOO LARGE"
UNIT_SCALE = {"GB/s": 1e9, "TFLOP/s": 1e12}
LOWER_IS_BETTER = {"us", "ms"}  # units of time; everything else is a rate


# ----------------------------------------------------------------------------- measurements

@dataclass
class Measurement:
    """One implementation at one point of one benchmark. `value` is in `unit` (GB/s, TFLOP/s, us,
    ms); `status` is "ok", "WRONG" (failed the check, not timed), "ERROR" (raised; `note` says why)
    or TOO_LARGE (its block configuration does not fit the GPU)."""

    bench: str
    case: str  # "fp32", "fp16", "bf16", "fp32 ieee", or what a launch/compile row measures
    x: int | str  # the swept size
    implementation: str
    ms: float | None
    value: float | None
    unit: str
    error: float | None  # ||out - ref|| / ||ref||
    status: str
    note: str = ""  # the block configuration, or why it failed


CSV_HEADER = ["gpu", *(f.name for f in fields(Measurement))]


@dataclass(frozen=True)
class Candidate:
    """One implementation to check and time at a point: `run(*inputs)` returns its result,
    `reference(*inputs)` the float64 truth (a tuple of results for a tuple of truths: dx, dw and
    db of a backward pass), and one run moves or computes `amount` bytes or flops."""

    implementation: str
    run: Callable
    reference: Callable
    amount: float
    note: str = ""  # the block configuration


@dataclass(frozen=True)
class Point:
    """Where a sweep is: which benchmark, case and size, the dtype its result is stored in (which
    sets the tolerance), and the unit its rate is given in."""

    bench: str
    case: str
    x: int | str
    dtype: str
    unit: str


def format_x(bench: str, x) -> str:
    """A size as a reader says it: 2^24 elements, 4096x1024 for softmax and the norms, 4096 for a
    square matmul, 8192x8192x512 for another."""
    if bench == "vector_add" and isinstance(x, int) and x > 0 and x & (x - 1) == 0:
        return f"2^{x.bit_length() - 1}"
    if bench in ROWS:
        return f"{ROWS[bench]}x{x}"
    return str(x)


ROWS = {"softmax": SOFTMAX_ROWS, "layernorm": NORM_ROWS}  # the fixed number of rows of a row sweep
X_NAMES = {"vector_add": "n", "softmax": "rows x cols", "layernorm": "rows x cols",
           "matmul": "M=N=K, or MxNxK", "grouped_gemm": "N (each product N x N x N)",
           "attention": "sequence length N"}


class ContextLost(RuntimeError):
    """A kernel broke the CUDA context (an illegal address, say): nothing after it can run."""


class Session:
    """One run of the benchmarks: torch, triton's kernels, the GPU's name, what was measured."""

    def __init__(self, torch, quick: bool, gpu: str):
        self.torch, self.quick, self.gpu = torch, quick, gpu
        self.triton = triton_kernels()
        self.minitriton = minitriton_kernels()
        self.measurements: list[Measurement] = []

    def kernels(self) -> dict[str, dict[str, Any]]:
        """Implementation name -> its kernels by role, for each compiler that is here."""
        return {MINITRITON: self.minitriton, **({TRITON: self.triton} if self.triton else {})}

    def record(self, point: Point, implementation: str, **values) -> Measurement:
        measurement = Measurement(point.bench, point.case, point.x, implementation,
                                  **{"ms": None, "value": None, "unit": point.unit, "error": None,
                                     "note": "", **values})
        self.measurements.append(measurement)
        return measurement

    # --8<-- [start:measure]
    def measure(self, point: Point, candidates: list[Candidate], fresh: Callable) -> None:
        """Check each candidate's `run(*fresh())` against its `reference` of the same inputs; time
        the ones that are right together, taking turns on one more set of fresh inputs, and record
        each one's `amount` (bytes or flops) per second."""
        tolerance = TOLERANCE[point.dtype]
        right = []
        for c in candidates:
            try:
                args = fresh()
                error = result_error(c.run(*args), c.reference(*args))
                del args
            except Exception as e:
                self.failed(point, c.implementation, c.note, e, where(point, c))
                continue
            if error <= tolerance:
                right.append((c, error))
            else:
                self.record(point, c.implementation, error=error, status="WRONG", note=c.note)
                progress(f"{where(point, c)}: WRONG, relative error {error:.1e} > {tolerance:.0e}; not timed")
        if not right:
            return
        args = fresh()
        try:
            times = do_bench_interleaved([functools.partial(c.run, *args) for c, _ in right])
        except Exception as e:
            for c, _ in right:
                self.failed(point, c.implementation, c.note, e, where(point, c))
            return
        for (c, error), ms in zip(right, times):
            value = c.amount / (ms * 1e-3) / UNIT_SCALE[point.unit]
            self.record(point, c.implementation, ms=ms, value=value, error=error, status="ok", note=c.note)
            progress(f"{where(point, c)}: {ms:.4f} ms = {value:.4g} {point.unit} (error {error:.1e})")
    # --8<-- [end:measure]

    def failed(self, point: Point, implementation: str, note: str, error: Exception, where: str) -> None:
        reason = f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0][:160]}"
        status = TOO_LARGE if type(error).__name__ == "OutOfResources" else "ERROR"  # both compilers' name
        self.record(point, implementation, status=status, note=f"{note}; {reason}" if note else reason)
        progress(f"{where}: {status} {reason}")
        try:
            self.torch.cuda.synchronize()
        except Exception:
            raise ContextLost(f"{where}: {reason}") from error


def result_error(result, reference) -> float:
    """The relative error of a result, or the largest of the relative errors of a tuple of results
    against a tuple of references (each part has its own scale: dx and a sum over rows of dw)."""
    if isinstance(reference, tuple):
        assert isinstance(result, tuple) and len(result) == len(reference), "one result per reference"
        return max(relative_error(r, e) for r, e in zip(result, reference))
    return relative_error(result, reference)


def element_strides(x) -> tuple[int, ...]:
    """Strides in elements, of a torch tensor or a numpy array (whose strides are in bytes)."""
    return tuple(x.stride()) if callable(getattr(x, "stride", None)) else tuple(s // x.itemsize for s in x.strides)


def where(point: Point, c: Candidate) -> str:
    """What a progress line is about: `softmax fp32 4096x1024: triton`, and the config if any."""
    return (f"{point.bench} {point.case} {format_x(point.bench, point.x)}: {c.implementation}"
            f"{f' [{c.note}]' if c.note else ''}")


def progress(text: str) -> None:
    print(f"  {text}", flush=True)



# ----------------------------------------------------------------------------- tables and files

def best(measurements: list[Measurement]) -> dict[tuple, Measurement]:
    """(case, x, implementation) -> its best measurement (of several block configurations), or,
    where none succeeded, the first failure."""
    chosen: dict[tuple, Measurement] = {}
    for m in measurements:
        key = (m.case, m.x, m.implementation)
        held = chosen.get(key)
        if held is None or (m.status == "ok" and (held.status != "ok" or better(m, held))):
            chosen[key] = m
    return chosen


def better(a: Measurement, b: Measurement) -> bool:
    return a.value < b.value if a.unit in LOWER_IS_BETTER else a.value > b.value


def fastest_of(measurements: list[Measurement | None]) -> Measurement | None:
    """The best of the measurements that succeeded (the fastest SDPA backend at a point), or None."""
    ok = [m for m in measurements if m is not None and m.status == "ok"]
    return functools.reduce(lambda a, b: b if better(b, a) else a, ok) if ok else None


def speed_ratio(mine: Measurement, other: Measurement) -> str:
    """minitriton's speed as a percentage of another's (over 100%: minitriton is faster)."""
    if mine.status != "ok" or other.status != "ok" or not other.value or not mine.value:
        return "-"
    ratio = other.value / mine.value if mine.unit in LOWER_IS_BETTER else mine.value / other.value
    return f"{100 * ratio:.0f}%"


def cell(m: Measurement | None):
    if m is None:
        return None
    return m.value if m.status == "ok" else m.status


def tables(bench: str, measurements: list[Measurement], gpu: str) -> list[tuple[str, list[str], list[list]]]:
    """The summary of one benchmark as (title, header, rows) tables: for a sweep, one table per
    case with a row per size; for launch and compile, one table with a row per case. A column per
    implementation, then minitriton's speed relative to each of the others."""
    chosen = best([m for m in measurements if m.bench == bench])
    if not chosen:
        return []
    implementations = [i for i in IMPLEMENTATIONS if any(k[2] == i for k in chosen)]
    others = [i for i in implementations if i != MINITRITON]
    families = {name: [i for i in members if i in implementations] for name, members in BEST_OF.items()}
    families = {name: members for name, members in families.items() if len(members) > 1}
    cases = list(dict.fromkeys(k[0] for k in chosen))
    unit = next(iter(chosen.values())).unit
    sense = "lower" if unit in LOWER_IS_BETTER else "higher"
    ratio_header = [f"vs {i}" for i in [*others, *families]] if MINITRITON in implementations else []
    configured = bench in X_NAMES and any(m.note for m in chosen.values()  # a sweep over block configs
                                          if m.implementation == MINITRITON and m.status == "ok")

    def row(first, case, x):
        found = {i: chosen.get((case, x, i)) for i in implementations}
        fastest = {name: fastest_of([found[i] for i in members]) for name, members in families.items()}
        ratios = [speed_ratio(found[MINITRITON], other) if found[MINITRITON] and other else "-"
                  for other in [*(found[i] for i in others), *fastest.values()]] \
            if MINITRITON in implementations else []
        config = [found[MINITRITON].note if found[MINITRITON] and found[MINITRITON].status == "ok"
                  else "-"] if configured else []
        return [first, *(cell(found[i]) for i in implementations), *ratios, *config]

    config_header = ["minitriton's best config"] if configured else []
    if bench in X_NAMES:
        result = []
        for case in cases:
            xs = list(dict.fromkeys(k[1] for k in chosen if k[0] == case))
            result.append((f"{bench}, {case}: {unit} ({sense} is better) on {gpu}",
                           [X_NAMES[bench], *implementations, *ratio_header, *config_header],
                           [row(format_x(bench, x), case, x) for x in xs]))
        return result
    x = next(iter(chosen))[1]
    return [(f"{bench}: {unit} ({sense} is better), {x}, on {gpu}",
             ["", *implementations, *ratio_header], [row(case, case, x) for case in cases])]


def write_results(out: Path, bench: str, measurements: list[Measurement], gpu: str) -> list[Path]:
    """`<out>/<bench>.csv` (every measurement) and `<out>/<bench>.png` (where matplotlib is here)."""
    mine = [m for m in measurements if m.bench == bench]
    written = [write_csv(out / f"{bench}.csv", CSV_HEADER, [[gpu, *asdict(m).values()] for m in mine])]
    chosen = best(mine)
    if not chosen:
        return written
    png = out / f"{bench}.png"
    unit = next(iter(chosen.values())).unit
    if bench in X_NAMES:
        panels = {}
        for case in dict.fromkeys(k[0] for k in chosen):
            xs = list(dict.fromkeys(k[1] for k in chosen if k[0] == case))
            panels[f"{bench} {case} ({gpu})"] = [
                Line(i, xs, [cell_value(chosen.get((case, x, i))) for x in xs])
                for i in IMPLEMENTATIONS if any(k[0] == case and k[2] == i for k in chosen)]
        drawn = plot_lines(png, panels, X_NAMES[bench], unit, x_log=True, x_base=2)
    else:
        groups = {case: {i: cell_value(m) for (c, _, i), m in chosen.items() if c == case}
                  for case in dict.fromkeys(k[0] for k in chosen)}
        drawn = plot_bars(png, groups, unit, f"{bench} ({gpu})", y_log=bench == "compile")
    return written + ([png] if drawn else [])


def cell_value(m: Measurement | None) -> float | None:
    return m.value if m is not None and m.status == "ok" else None


