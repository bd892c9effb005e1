"""`python -m minitriton bench`: which benchmarks there are, and `main`, which runs them.

The benchmarks live by family: `memory` (vector add, softmax, layer norm and RMSNorm), `matmuls`
(matmul and grouped GEMM), `attention`, and `host` (launch and compile). Chapter: 10-performance.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import driver
from ..jit import interpreting
from ..testing import format_table

from .attention import run_attention
from .harness import TOO_LARGE, ContextLost, Session, tables, write_results
from .host import run_compile, run_launch
from .matmuls import run_grouped_gemm, run_matmul, set_fp32_matmul_precision
from .memory import run_layernorm, run_softmax, run_vector_add

RUNNERS = {"vector_add": run_vector_add, "softmax": run_softmax, "layernorm": run_layernorm,
           "matmul": run_matmul, "grouped_gemm": run_grouped_gemm, "attention": run_attention,
           "launch": run_launch, "compile": run_compile}
BENCHMARKS = tuple(RUNNERS)


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
    set_fp32_matmul_precision(torch, "ieee")
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
    failures = [m for m in session.measurements if m.status not in ("ok", TOO_LARGE)]
    if failures:
        print(f"\n{len(failures)} measurement(s) failed their check or raised: see the status column",
              file=sys.stderr)
    return 1 if failures or lost else 0

