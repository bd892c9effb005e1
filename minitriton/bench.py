"""`python -m minitriton bench`: minitriton's kernels timed beside torch (cuBLAS) and Triton, in one run.

Not a stage of the compiler: it measures what the whole pipeline produces. Five benchmarks:

- `vector_add` (fp32, 2^12..2^28 elements), with a device-to-device copy as the bandwidth ceiling;
- `softmax` (fp32 and fp16, 4096 rows of 256..16384 columns);
- `matmul` (fp16 and bf16 with fp32 accumulation, square 512..8192; fp32 with input_precision="ieee"
  at 4096 against cuBLAS SGEMM with TF32 off), over a few block configurations;
- `launch`: the host time of one launch of a cached 4-argument kernel;
- `compile`: the matmul kernel's cold compile in a new process, and its load from the disk cache.

Every implementation's result is first checked against a float64 reference on fresh random inputs,
into a NaN-poisoned output; one that is wrong is reported and never timed. The implementations at
one point are then timed together, run by run on the same inputs, by `testing.do_bench_interleaved`
(CUDA events; the L2 cache is flushed before every run, so inputs that would fit in it are read
from memory all the same), and each gets the median of the means of pairs of its runs: a drift or
an alternation of the GPU's speed falls on all of them alike. Triton runs the very same kernel
sources: `twin()` compiles each minitriton kernel's own lines again with `triton.jit`. Results are
GB/s or TFLOP/s, with minitriton's ratio to every other implementation measured in the same run;
they go to `<out>/<bench>.csv` and `<out>/<bench>.png`, and a table with the GPU's name ends the
output.
Chapter: 10-performance.
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable

import minitriton
import minitriton.language as tl

from . import cdiv, driver, next_power_of_2
from .examples import tutorials
from .jit import JITFunction, interpreting
from .testing import (Line, do_bench_interleaved, format_table, plot_bars, plot_lines, relative_error,
                      write_csv)

BENCHMARKS = ("vector_add", "softmax", "matmul", "launch", "compile")

MINITRITON, TRITON, TORCH = "minitriton", "triton", "torch"
CUBLAS = "cuBLAS"  # through torch.matmul
COPY = "copy"  # torch's device-to-device copy_: the bandwidth ceiling
IMPLEMENTATIONS = (MINITRITON, TRITON, TORCH, CUBLAS, COPY)  # the order of a table's columns

# Largest ||out - ref|| / ||ref|| that passes, by the dtype the result is stored in. fp32 is tight
# enough that a matmul quietly rounding its inputs to tf32 (about 3e-4) fails.
TOLERANCE = {"fp32": 1e-5, "fp16": 5e-3, "bf16": 2e-2}
UNIT_SCALE = {"GB/s": 1e9, "TFLOP/s": 1e12}
LOWER_IS_BETTER = {"us", "ms"}  # units of time; everything else is a rate

ADD_BLOCK = 1024
SOFTMAX_ROWS = 4096
FP32_MATMUL_SIZE = 4096
LAUNCH_BATCH, LAUNCH_ROUNDS = 100, 200  # 20,000 launches, the GPU drained between batches
LAUNCH_ELEMENTS = 1024  # one program of ADD_BLOCK: the launch, not the kernel, is what costs


# --8<-- [start:sizes]
def vector_add_sizes(quick: bool) -> list[int]:
    """Elements per vector: every power of two from 2^12 to 2^28 (quick: 2^20, 2^24, 2^28)."""
    return [2**20, 2**24, 2**28] if quick else [2**e for e in range(12, 29)]


def softmax_columns(quick: bool) -> list[int]:
    """Row lengths: powers of two from 256 to 16384 and the sizes halfway between them, which
    leave part of each block masked (quick: 1024, 4096, 16384)."""
    if quick:
        return [1024, 4096, 16384]
    return sorted({256 << e for e in range(7)} | {384 << e for e in range(6)})


def matmul_sizes(quick: bool) -> list[int]:
    """M = N = K (quick: 1024, 4096, 8192)."""
    return [1024, 4096, 8192] if quick else [512, 1024, 2048, 3072, 4096, 6144, 8192]
# --8<-- [end:sizes]


def softmax_warps(row_bytes: int) -> int:
    """A warp for each KB of the row (32 bytes a thread), at least 4 and at most 16. Both compilers
    get the same: fp16 rows of 4096 ran at 2980 GB/s with 8 warps and 2430 with 16 on the H200, where
    each thread had a single 16-byte load and the reductions crossed twice as many warps."""
    return min(16, max(4, row_bytes // 1024))


DEFAULT_MATMUL_CONFIGS = (
    {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 8,
     "num_stages": 3},
    {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4,
     "num_stages": 3},
)


def matmul_configs() -> list[dict]:
    """The block configurations both compilers run: `MATMUL_CONFIGS` from the tutorials when they
    define it (dicts, or Config objects), else two of the usual ones."""
    return [config_dict(c) for c in getattr(tutorials, "MATMUL_CONFIGS", None) or DEFAULT_MATMUL_CONFIGS]


def config_dict(config) -> dict:
    """A config as one dict of meta-parameters plus num_warps and num_stages."""
    if isinstance(config, dict):
        return {"num_warps": 4, "num_stages": 3, **config}
    return {**config.kwargs, "num_warps": config.num_warps or 4, "num_stages": config.num_stages or 3}


def config_label(config: dict) -> str:
    """`128x128x32 w8 s3`: the block shape, warps and stages."""
    return (f"{config['BLOCK_SIZE_M']}x{config['BLOCK_SIZE_N']}x{config['BLOCK_SIZE_K']} "
            f"w{config['num_warps']} s{config['num_stages']}")


# The tutorial's matmul without the activation: the result is stored in C's own dtype (fp16, bf16 or
# fp32), and the caller chooses the precision of an fp32 dot.
# --8<-- [start:matmul]
@minitriton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, INPUT_PRECISION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
# --8<-- [end:matmul]


# ----------------------------------------------------------------------------- the same kernels for Triton

# --8<-- [start:twin]
def twin(kernel: JITFunction, jit: Callable, namespace: dict) -> Any:
    """`kernel`'s own source lines, compiled again by another `jit` (Triton's), with `namespace` as
    their globals (`tl`, and the twins of the @jit functions the kernel calls).

    The decorators are dropped and the code keeps the file name and line numbers of the original,
    so the other compiler reads the very lines minitriton read, and its errors point at them."""
    source = textwrap.dedent(kernel.src)
    start = re.search(r"^def\s", source, re.MULTILINE).start()
    first_line = kernel.fn.__code__.co_firstlineno + source[:start].count("\n")
    code = compile("\n" * (first_line - 1) + source[start:], kernel.fn.__code__.co_filename, "exec")
    scope = {"__name__": f"{__name__}.twins", **namespace}
    exec(code, scope)
    return jit(scope[kernel.fn.__name__])
# --8<-- [end:twin]


def minitriton_kernels() -> dict[str, JITFunction]:
    return {"add": tutorials.add_kernel, "softmax": tutorials.softmax_kernel, "matmul": matmul_kernel}


@functools.cache
def triton_kernels() -> dict[str, Any] | None:
    """The twins of `minitriton_kernels()` under triton 3.x, or None (after a note) without triton."""
    try:
        import triton
        import triton.language as triton_language
    except Exception as e:  # missing, or installed without what it needs: either way, no column
        print(f"note: triton cannot be imported here ({type(e).__name__}: {e}); its columns are left out",
              flush=True)
        return None
    return {name: twin(kernel, triton.jit, {"tl": triton_language})
            for name, kernel in minitriton_kernels().items()}


# ----------------------------------------------------------------------------- measurements

@dataclass
class Measurement:
    """One implementation at one point of one benchmark. `value` is in `unit` (GB/s, TFLOP/s, us,
    ms); `status` is "ok", "WRONG" (failed the check, not timed) or "ERROR" (raised; `note` says why)."""

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
    `reference(*inputs)` the float64 truth, and one run moves or computes `amount` bytes or flops."""

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
    """A size as a reader says it: 2^24 elements, 4096x1024 for softmax, 4096 for a square matmul."""
    if bench == "vector_add" and isinstance(x, int) and x > 0 and x & (x - 1) == 0:
        return f"2^{x.bit_length() - 1}"
    if bench == "softmax":
        return f"{SOFTMAX_ROWS}x{x}"
    return str(x)


X_NAMES = {"vector_add": "n", "softmax": "rows x cols", "matmul": "M=N=K"}


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
                error = relative_error(c.run(*args), c.reference(*args))
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
        self.record(point, implementation, status="ERROR", note=f"{note}; {reason}" if note else reason)
        progress(f"{where}: ERROR {reason}")
        try:
            self.torch.cuda.synchronize()
        except Exception:
            raise ContextLost(f"{where}: {reason}") from error


def where(point: Point, c: Candidate) -> str:
    """What a progress line is about: `softmax fp32 4096x1024: triton`, and the config if any."""
    return (f"{point.bench} {point.case} {format_x(point.bench, point.x)}: {c.implementation}"
            f"{f' [{c.note}]' if c.note else ''}")


def progress(text: str) -> None:
    print(f"  {text}", flush=True)


# ----------------------------------------------------------------------------- the benchmarks

def run_vector_add(s: Session) -> None:
    torch = s.torch
    for n in vector_add_sizes(s.quick):
        point = Point("vector_add", "fp32", n, "fp32", "GB/s")
        grid = (cdiv(n, ADD_BLOCK),)

        def fresh():
            x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
            return x, y, torch.full_like(x, math.nan)

        def total(x, y, out):
            return x.double() + y.double()

        def add(kernel):
            def run(x, y, out):
                kernel[grid](x, y, out, n, BLOCK_SIZE=ADD_BLOCK)
                return out
            return run

        moved = 3 * 4 * n
        s.measure(point, [*(Candidate(name, add(kernels["add"]), total, moved)
                            for name, kernels in s.kernels().items()),
                          Candidate(TORCH, lambda x, y, out: torch.add(x, y, out=out), total, moved),
                          Candidate(COPY, lambda x, y, out: out.copy_(x), lambda x, y, out: x.double(),
                                    2 * 4 * n)],
                  fresh)


def run_softmax(s: Session) -> None:
    torch = s.torch
    for dtype_name, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
        for cols in softmax_columns(s.quick):
            point = Point("softmax", dtype_name, cols, dtype_name, "GB/s")
            block = next_power_of_2(cols)
            moved = 2 * SOFTMAX_ROWS * cols * dtype.itemsize  # the input read once, the output written once

            def fresh():
                x = torch.randn(SOFTMAX_ROWS, cols, device="cuda", dtype=dtype)
                return x, torch.full_like(x, math.nan)

            def reference(x, y):
                return torch.softmax(x.double(), dim=-1)

            # One program per row for both compilers (4096 rows fill the GPU); the tutorial sizes a
            # persistent grid from each compiler's register report instead.
            def softmax(kernel):
                def run(x, y):
                    kernel[(SOFTMAX_ROWS,)](y, x, x.stride(0), y.stride(0), SOFTMAX_ROWS, cols,
                                            BLOCK_SIZE=block, num_stages=2,
                                            num_warps=softmax_warps(block * dtype.itemsize))
                    return y
                return run

            s.measure(point, [*(Candidate(name, softmax(kernels["softmax"]), reference, moved)
                                for name, kernels in s.kernels().items()),
                              Candidate(TORCH, lambda x, y: torch.softmax(x, dim=-1), reference, moved)],
                      fresh)


def matmul_launch(kernel, config: dict, precision: str | None) -> Callable:
    """`run(a, b, c)` for one compiler and one block configuration: C = A @ B, returns C."""
    meta = {k: v for k, v in config.items() if k not in ("num_warps", "num_stages")}

    def run(a, b, c):
        (M, K), N = a.shape, b.shape[1]
        grid = (cdiv(M, meta["BLOCK_SIZE_M"]) * cdiv(N, meta["BLOCK_SIZE_N"]),)
        kernel[grid](a, b, c, M, N, K, *element_strides(a), *element_strides(b), *element_strides(c),
                     INPUT_PRECISION=precision, num_warps=config["num_warps"],
                     num_stages=config["num_stages"], **meta)
        return c
    return run


def element_strides(x) -> tuple[int, ...]:
    """Strides in elements, of a torch tensor or a numpy array (whose strides are in bytes)."""
    return tuple(x.stride()) if callable(getattr(x, "stride", None)) else tuple(s // x.itemsize for s in x.strides)


def run_matmul(s: Session) -> None:
    torch = s.torch
    cases = [("fp16", torch.float16, None, size) for size in matmul_sizes(s.quick)]
    cases += [("bf16", torch.bfloat16, None, size) for size in matmul_sizes(s.quick)]
    cases += [("fp32 ieee", torch.float32, "ieee", FP32_MATMUL_SIZE)]
    for case, dtype, precision, size in cases:
        point = Point("matmul", case, size, case.split()[0], "TFLOP/s")

        def fresh():
            a = torch.randn(size, size, device="cuda", dtype=dtype)
            b = torch.randn(size, size, device="cuda", dtype=dtype)
            return a, b, torch.full((size, size), math.nan, device="cuda", dtype=dtype)

        def reference(a, b, c):
            return a.double() @ b.double()

        flops = 2 * size**3
        s.measure(point, [*(Candidate(name, matmul_launch(kernels["matmul"], config, precision), reference,
                                      flops, note=config_label(config))
                            for name, kernels in s.kernels().items() for config in matmul_configs()),
                          Candidate(CUBLAS, lambda a, b, c: torch.matmul(a, b), reference, flops)],
                  fresh)


def use_ieee_fp32_matmuls(torch) -> None:
    """cuBLAS multiplies fp32 matrices in full precision (TF32 off) for the rest of the process.
    torch 2.9 and later have a new switch, and refuse a mix of the new and the old."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        matmul.fp32_precision = "ieee"
    else:
        matmul.allow_tf32 = False


def run_launch(s: Session) -> None:
    """Host time of one launch: batches of LAUNCH_BATCH launches of one program, each batch timed
    on the host clock after the GPU has drained (untimed), so no launch waits for room in a full
    launch queue: the median over LAUNCH_ROUNDS batches, divided by LAUNCH_BATCH, the
    implementations taking turns batch by batch. Back to back and never drained, the loop would
    time the GPU running tiny kernels (about 4 us each), not the host."""
    torch = s.torch
    n = LAUNCH_ELEMENTS
    point = Point("launch", "host time per launch", f"batches of {LAUNCH_BATCH} launches of a 4-argument "
                  f"vector add, {cdiv(n, ADD_BLOCK)} program", "fp32", "us")
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    out = torch.full_like(x, math.nan)
    grid = (cdiv(n, ADD_BLOCK),)

    def launcher(kernel):
        return lambda: kernel[grid](x, y, out, n, BLOCK_SIZE=ADD_BLOCK)

    launches = {name: launcher(kernels["add"]) for name, kernels in s.kernels().items()}
    launches[TORCH] = lambda: torch.add(x, y, out=out)
    timed = {}
    for implementation, launch in launches.items():
        try:
            out.fill_(math.nan)
            launch()
            error = relative_error(out, x.double() + y.double())
            if not error <= TOLERANCE["fp32"]:
                s.record(point, implementation, error=error, status="WRONG")
                progress(f"launch: {implementation}: WRONG, relative error {error:.1e}; not timed")
                continue
            for _ in range(100):  # the launch path's own caches warm up
                launch()
            timed[implementation] = (launch, error, [])
        except Exception as e:
            s.failed(point, implementation, "", e, f"launch: {implementation}")
    # the implementations take turns, round by round, so none is measured while the host is warming
    for _ in range(LAUNCH_ROUNDS // (10 if s.quick else 1)):
        for implementation, (launch, _, rounds) in timed.items():
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(LAUNCH_BATCH):
                launch()
            rounds.append((time.perf_counter() - start) / LAUNCH_BATCH * 1e6)
    torch.cuda.synchronize()
    for implementation, (_, error, rounds) in timed.items():
        us = statistics.median(rounds)
        s.record(point, implementation, ms=us / 1e3, value=us, error=error, status="ok")
        progress(f"launch: {implementation}: {us:.2f} us per launch")


# --8<-- [start:compile]
COLD = "cold: new process, empty cache"
DISK = "from the disk cache: new process"
WARM_PROCESS = "cold kernel, after another kernel in the process"
CHILD_MARK = "minitriton-bench-child: "
CHILD_COMMAND = "import sys; from minitriton.bench import compile_child; sys.exit(compile_child(sys.argv[1:]))"
COMPILE_SIZE = 512  # M = N = K of the launch that compiles the matmul: divisible by 16 like every size above


def run_compile(s: Session) -> None:
    """The first launch of the fp16 matmul (compile or cache load, module load, one small run),
    timed inside new processes: with an empty cache; again from the cache that run filled; and in
    a process that compiled the vector add first (one-time start-up costs already paid)."""
    implementations = [MINITRITON] + ([TRITON] if s.triton else [])
    label = f"matmul fp16 {config_label(matmul_configs()[0])}"
    for implementation in implementations:
        samples: dict[str, list[float]] = {COLD: [], DISK: [], WARM_PROCESS: []}
        try:
            for _ in range(1 if s.quick else 3):
                with tempfile.TemporaryDirectory(prefix="minitriton-bench-cache-") as cache:
                    samples[COLD].append(run_child(implementation, cache, ["matmul"])["matmul"])
                    samples[DISK].append(run_child(implementation, cache, ["matmul"])["matmul"])
                with tempfile.TemporaryDirectory(prefix="minitriton-bench-cache-") as cache:
                    samples[WARM_PROCESS].append(run_child(implementation, cache, ["add", "matmul"])["matmul"])
        except Exception as e:
            s.failed(Point("compile", COLD, label, "fp32", "ms"), implementation, "", e,
                     f"compile: {implementation}")
            continue
        for case, times in samples.items():
            ms = statistics.median(times)
            s.record(Point("compile", case, label, "fp32", "ms"), implementation, ms=ms, value=ms,
                     status="ok", note=f"runs: {', '.join(f'{t:.1f}' for t in times)} ms")
            progress(f"compile: {implementation}: {case}: {ms:.1f} ms")


def run_child(implementation: str, cache: str, kernels: list[str]) -> dict[str, float]:
    """Run `compile_child` in a new Python with `cache` as both compilers' cache directory."""
    root = str(Path(minitriton.__file__).resolve().parent.parent)
    env = {**os.environ, "MINITRITON_CACHE_DIR": cache, "TRITON_CACHE_DIR": cache, "MINITRITON_CACHE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
           # Python's bytecode is kept beside, as installed packages keep theirs: with
           # PYTHONDONTWRITEBYTECODE=1 each process would compile every module it imports again
           "PYTHONPYCACHEPREFIX": os.path.join(cache, "bytecode")}
    env.pop("MINITRITON_INTERPRET", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", CHILD_COMMAND, implementation, *kernels], env=env,
                          capture_output=True, text=True, timeout=600)
    result = parse_child_output(done.stdout)
    if done.returncode or result is None:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"the {implementation} compile process failed (exit {done.returncode}): {last}")
    return result


def parse_child_output(stdout: str) -> dict[str, float] | None:
    """The times the child printed on its marked line (the last one), or None."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(CHILD_MARK):
            return {name: float(ms) for name, ms in json.loads(line[len(CHILD_MARK):]).items()}
    return None


def compile_child(argv: list[str]) -> int:
    """In a new process: `argv` is an implementation and kernel roles ("add", "matmul"); launch each
    once and print the milliseconds from the launch call to the end of the kernel."""
    import torch
    implementation, roles = argv[0], argv[1:]
    torch.zeros(1, device="cuda")  # the CUDA context and torch's own start-up are no kernel's cost
    kernels = triton_kernels() if implementation == TRITON else minitriton_kernels()
    times = {}
    for role in roles:
        launch = child_launch(role, kernels[role], torch)
        torch.cuda.synchronize()
        start = time.perf_counter()
        launch()
        torch.cuda.synchronize()
        times[role] = (time.perf_counter() - start) * 1e3
    print(CHILD_MARK + json.dumps(times), flush=True)
    return 0


def child_launch(role: str, kernel, torch) -> Callable[[], Any]:
    if role == "add":
        n = 1 << 20
        x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
        out = torch.empty_like(x)
        return lambda: kernel[(cdiv(n, ADD_BLOCK),)](x, y, out, n, BLOCK_SIZE=ADD_BLOCK)
    a, b = (torch.randn(COMPILE_SIZE, COMPILE_SIZE, device="cuda", dtype=torch.float16) for _ in range(2))
    c = torch.empty_like(a)
    run = matmul_launch(kernel, matmul_configs()[0], None)
    return lambda: run(a, b, c)
# --8<-- [end:compile]


RUNNERS = {"vector_add": run_vector_add, "softmax": run_softmax, "matmul": run_matmul,
           "launch": run_launch, "compile": run_compile}


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
    cases = list(dict.fromkeys(k[0] for k in chosen))
    unit = next(iter(chosen.values())).unit
    sense = "lower" if unit in LOWER_IS_BETTER else "higher"
    ratio_header = [f"vs {i}" for i in others] if MINITRITON in implementations else []

    def row(first, case, x):
        found = {i: chosen.get((case, x, i)) for i in implementations}
        ratios = [speed_ratio(found[MINITRITON], found[i]) if found[MINITRITON] and found[i] else "-"
                  for i in others] if MINITRITON in implementations else []
        config = [found[MINITRITON].note if found[MINITRITON] and found[MINITRITON].status == "ok"
                  else "-"] if bench == "matmul" else []
        return [first, *(cell(found[i]) for i in implementations), *ratios, *config]

    config_header = ["minitriton's best config"] if bench == "matmul" else []
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


# ----------------------------------------------------------------------------- main

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minitriton bench",
                                description="Check, then time minitriton's kernels beside torch (cuBLAS) "
                                            "and triton on this GPU; print a table, write CSV and PNG files.")
    p.add_argument("benchmarks", nargs="*", type=benchmark_name, metavar="BENCH",
                   help=f"any of {', '.join(BENCHMARKS)}, or all (the default)")
    p.add_argument("--quick", action="store_true", help="three sizes per sweep, one compile run")
    p.add_argument("--out", type=Path, default=Path("results"), help="where the CSV and PNG files go "
                   "(default: results/)")
    return p


def benchmark_name(text: str) -> str:
    # A `type`, not `choices`: Python 3.11's argparse checks an empty `nargs="*"` against the choices.
    if text not in (*BENCHMARKS, "all"):
        raise argparse.ArgumentTypeError(f"unknown benchmark {text!r}; choose from {', '.join(BENCHMARKS)}, all")
    return text


def unmet_requirement() -> str | None:
    """Why the benchmarks cannot run here, or None."""
    if interpreting():
        return "MINITRITON_INTERPRET is set: the benchmarks time compiled kernels on the GPU; unset it"
    if not driver.is_available():
        return ("the benchmarks need an NVIDIA GPU and its driver, and the CUDA driver sees none here "
                "(`python -m minitriton demo` runs the kernels in the interpreter)")
    try:
        import torch
    except ImportError:
        return "the benchmarks need torch for the references and baselines: pip install torch"
    if not torch.cuda.is_available():
        return "torch cannot use the GPU here (torch.cuda.is_available() is False): install a CUDA build of torch"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    names = list(BENCHMARKS) if "all" in args.benchmarks or not args.benchmarks \
        else list(dict.fromkeys(args.benchmarks))
    problem = unmet_requirement()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    import torch

    torch.zeros(1, device="cuda")  # torch makes the context first, and minitriton shares it
    use_ieee_fp32_matmuls(torch)
    props = driver.device_properties()
    session = Session(torch, args.quick, props.name)
    triton_version = sys.modules["triton"].__version__ if session.triton else "not importable"
    print(f"minitriton bench on {props.name} ({props.arch}, {props.multiprocessor_count} SMs, "
          f"L2 {props.l2_cache_bytes >> 20} MB); torch {torch.__version__}, triton {triton_version}",
          flush=True)
    lost = None
    for name in names:
        print(f"{name}:", flush=True)
        try:
            RUNNERS[name](session)
        except ContextLost as e:
            lost = e
            break
        torch.cuda.empty_cache()
    for name in names:
        written = write_results(args.out, name, session.measurements, props.name)
        print(f"wrote {', '.join(str(p) for p in written)}")
    for name in names:
        for title, header, rows in tables(name, session.measurements, props.name):
            print(f"\n{title}\n{format_table(header, rows)}")
    if lost is not None:
        print(f"\nstopped: the CUDA context is lost after {lost}", file=sys.stderr)
    failures = [m for m in session.measurements if m.status != "ok"]
    if failures:
        print(f"\n{len(failures)} measurement(s) failed their check or raised: see the status column",
              file=sys.stderr)
    return 1 if failures or lost else 0
