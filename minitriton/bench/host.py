"""The benchmarks of the host's side: the time of one launch, and of the first launch of a kernel
(its compile, or its load from the disk cache) in a new process.

Chapter: 10-performance.
"""
from __future__ import annotations

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

from .. import cdiv
from ..testing import relative_error

from .harness import MINITRITON, TOLERANCE, TORCH, TRITON, Point, Session, progress
from .kernels import (ADD_BLOCK, COMPILE_SIZE, LAUNCH_BATCH, LAUNCH_ELEMENTS, LAUNCH_ROUNDS, config_label,
                      matmul_configs, minitriton_kernels, triton_kernels)
from .matmuls import matmul_launch


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
