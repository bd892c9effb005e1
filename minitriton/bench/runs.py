"""The benchmarks: vector add, softmax, matmul, launch and compile, and `main`.

Chapter: 10-performance.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import minitriton

from .. import cdiv, driver, next_power_of_2
from ..jit import interpreting
from ..testing import format_table, relative_error

from .harness import (COPY, CUBLAS, MINITRITON, TOLERANCE, TORCH, TRITON, Candidate, ContextLost, Point, Session,
                      progress, tables, write_results)
from .kernels import (ADD_BLOCK, SOFTMAX_ROWS, config_label, matmul_configs, matmul_sizes, minitriton_kernels,
                      softmax_columns, softmax_warps, triton_kernels, vector_add_sizes)

BENCHMARKS = ("vector_add", "softmax", "matmul", "launch", "compile")
FP32_MATMUL_SIZE = 4096
LAUNCH_BATCH, LAUNCH_ROUNDS = 100, 200  # 20,000 launches, the GPU drained between batches
LAUNCH_ELEMENTS = 1024  # one program of ADD_BLOCK: the launch, not the kernel, is what costs

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

