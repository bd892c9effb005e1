"""The command line: `python -m minitriton demo` and `python -m minitriton show FILE.py:KERNEL`.

`demo` compiles and runs three of the Triton tutorials' kernels (vector add, fused softmax, matmul)
and checks each against numpy: on the GPU when the CUDA driver sees one (and MINITRITON_INTERPRET is
not set), otherwise in the numpy interpreter, where it also compiles each kernel for sm_90 to show
that the PTX is produced and assembles. `show` prints one stage of one kernel (its Python AST, its
tile IR, its layouts, its LLVM IR or its PTX) so a reader can watch a kernel move through the
pipeline without writing any code. Chapter: 01-introduction.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import bench, cdiv, driver, ir
from .errors import CompilationError
from .examples.tutorials import add_kernel, matmul_kernel, softmax_kernel
from .jit import JITFunction, interpreting

GPU_TARGET = "sm_90"  # what the CPU-only demo and `show` compile for: the H100/H200 generation


# ---------------------------------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------------------------------

@dataclass
class Case:
    """One demo kernel: its inputs, its launch, and numpy's answer."""

    name: str
    size: str
    kernel: JITFunction
    inputs: Callable[[np.random.Generator], dict[str, np.ndarray]]  # arrays, by role
    args: Callable[[dict], tuple]  # the arrays (host or device) -> the kernel's runtime arguments
    constexprs: dict[str, Any]
    grid: tuple[int, ...]
    output: str  # which array the kernel writes
    reference: Callable[[dict], np.ndarray]
    tolerance: float  # on the error relative to max(|expected|, 1)


def demo_cases() -> list[Case]:
    n = 98_437  # not a multiple of the block: the last of 97 programs is masked
    add = Case(
        "vector add", f"{n}", add_kernel,
        lambda rng: {"x": rng.random(n, np.float32), "y": rng.random(n, np.float32),
                     "out": np.full(n, np.nan, np.float32)},
        lambda a: (a["x"], a["y"], a["out"], n), {"BLOCK_SIZE": 1024}, (cdiv(n, 1024),),
        "out", lambda a: a["x"] + a["y"], 1e-6)

    rows, cols = 301, 781  # 64 programs, each looping over rows 64 apart; columns masked to 1024

    def softmax(a):
        shifted = np.exp(a["x"] - a["x"].max(axis=1, keepdims=True))
        return shifted / shifted.sum(axis=1, keepdims=True)

    soft = Case(
        "fused softmax", f"{rows}x{cols}", softmax_kernel,
        lambda rng: {"x": rng.standard_normal((rows, cols), np.float32),
                     "out": np.full((rows, cols), np.nan, np.float32)},
        lambda a: (a["out"], a["x"], cols, cols, rows, cols), {"BLOCK_SIZE": 1024, "num_stages": 2},
        (64,), "out", softmax, 1e-6)

    m, nn, k = 301, 203, 130  # 5 x 4 tiles of 64 x 64; the last row and column of tiles are masked

    def matmul(a):
        product = a["a"].astype(np.float32) @ a["b"].astype(np.float32)
        return np.where(product >= 0, product, 0.01 * product)

    mm = Case(
        "matmul fp16 + leaky_relu", f"{m}x{nn}x{k}", matmul_kernel,
        lambda rng: {"a": rng.standard_normal((m, k)).astype(np.float16),
                     "b": rng.standard_normal((k, nn)).astype(np.float16),
                     "c": np.full((m, nn), np.nan, np.float16)},
        lambda a: (a["a"], a["b"], a["c"], m, nn, k, k, 1, nn, 1, nn, 1),
        {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8,
         "ACTIVATION": "leaky_relu"},
        (cdiv(m, 64) * cdiv(nn, 64),), "c", matmul, 1e-2)
    return [add, soft, mm]


def run_case(case: Case, on_gpu: bool) -> float:
    """Run one case with a fixed seed; return its largest error relative to max(|expected|, 1)."""
    host = case.inputs(np.random.default_rng(0))
    if on_gpu:
        device = {role: driver.DeviceArray.from_numpy(array) for role, array in host.items()}
        case.kernel[case.grid](*case.args(device), **case.constexprs)
        result = device[case.output].numpy()
    else:
        case.kernel[case.grid](*case.args(host), **case.constexprs)
        result = host[case.output]
    expected = case.reference(host)
    error = np.abs(result.astype(np.float64) - expected) / np.maximum(np.abs(expected), 1.0)
    return float(np.nan_to_num(error, nan=np.inf).max())  # an element never written (NaN) fails


def ptx_report(case: Case) -> tuple[bool, str]:
    """Compile the case for sm_90 without a GPU: (fine, what happened). Was PTX produced, and did
    ptxas assemble it? A checkout without the CUDA backend is fine; a backend that fails is not."""
    host = case.inputs(np.random.default_rng(0))
    try:
        compiled = case.kernel.warmup(*case.args(host), grid=case.grid, target=GPU_TARGET,
                                      **case.constexprs)
    except ImportError as e:
        return True, f"not yet available ({e})"
    except Exception as e:  # reported in the table, so the other kernels still get their line
        reason = (str(e).strip().splitlines() or [""])[0][:100]
        return False, f"FAILED ({type(e).__name__}{': ' + reason if reason else ''})"
    if "cubin" in compiled.asm:
        return True, f"{GPU_TARGET} PTX produced and assembled by ptxas"
    if "ptx" in compiled.asm:
        return True, f"{GPU_TARGET} PTX produced (no ptxas here to assemble it)"
    return False, f"FAILED (no PTX among the stages made: {', '.join(compiled.asm)})"


def demo(args: argparse.Namespace) -> int:
    on_gpu = driver.is_available() and not interpreting()
    if not on_gpu:
        os.environ["MINITRITON_INTERPRET"] = "1"  # the launches below run in the numpy interpreter
    backend = f"cuda ({driver.device_properties().name})" if on_gpu else "interpreter"
    cases = demo_cases()
    rows, failures = [], 0
    for case in cases:
        error = run_case(case, on_gpu)
        ok = error <= case.tolerance
        failures += not ok
        rows.append((case.name, case.size, backend, f"{error:.2e}", "ok" if ok else "WRONG"))
    _print_table(("kernel", "size", "backend", "max rel. error", "ok"), rows)
    if not on_gpu:
        print(f"\nNo GPU here: the kernels ran in the numpy interpreter. Compiling them for "
              f"{GPU_TARGET} instead:")
        for case in cases:
            fine, report = ptx_report(case)
            failures += not fine
            print(f"  {case.name:<26} PTX: {report}")
    return 1 if failures else 0


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


# ---------------------------------------------------------------------------------------------------
# show
# ---------------------------------------------------------------------------------------------------

STAGES = ("ast", "ttir", "layout", "llir", "ptx")
# Stand-in values for a runtime scalar named only by its type: a value with no special facts
# (not 1, not a multiple of 16), in the type's range, so the specialization is the general one.
SCALAR_STAND_INS = {"i1": True, "i32": 3, "i64": 2**31 + 3, "u64": 2**63 + 3, "fp32": 0.5}


class UsageError(Exception):
    """A mistake on the command line; printed with the usage line, exit status 2."""


def load_kernel(target: str) -> JITFunction:
    """`FILE.py:KERNEL` -> the @jit function named KERNEL in FILE.py."""
    path_text, sep, name = target.rpartition(":")
    if not sep or not path_text or not name:
        raise UsageError(f"expected FILE.py:KERNEL, got {target!r}")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    sys.path.insert(0, str(path.resolve().parent))  # so the file's own imports of its neighbours work
    spec = importlib.util.spec_from_file_location(f"_minitriton_show_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    kernel = getattr(module, name, None)
    if not isinstance(kernel, JITFunction):
        kernels = sorted(n for n, v in vars(module).items() if isinstance(v, JITFunction))
        what = "is not defined" if kernel is None else f"is a {type(kernel).__name__}, not a @jit function"
        raise UsageError(f"{name} {what} in {path}; its @jit functions: {', '.join(kernels) or 'none'}")
    return kernel


def parse_signature(text: str) -> dict[str, Any]:
    """`x_ptr=*fp32,n=i32,BLOCK=1024` -> the values to call `warmup` with.

    `*fp32` stands for an array of that dtype (16-byte aligned); a scalar type (`i32`, `i64`, `fp32`,
    `i1`) for a runtime value of that type; anything else is a value: an int, a float, True/False/None,
    or a string (a constexpr such as ACTIVATION=leaky_relu).
    """
    values = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--signature items are NAME=TYPE or NAME=VALUE, got {item!r}")
        values[name.strip()] = _signature_value(value.strip())
    return values


def _signature_value(text: str):
    if text.startswith("*"):
        dtype = ir.SCALAR_DTYPES.get(text[1:])
        if dtype is None:
            raise UsageError(f"unknown pointee type in {text!r}; one of: {', '.join(ir.SCALAR_DTYPES)}")
        return _aligned_array(dtype.np)
    if text in SCALAR_STAND_INS:
        return SCALAR_STAND_INS[text]
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"True": True, "False": False, "None": None}.get(text, text)


def _aligned_array(dtype: np.dtype) -> np.ndarray:
    """A one-element array whose address is a multiple of 16 (the common case a launch sees)."""
    raw = np.zeros(16 + dtype.itemsize, np.uint8)
    start = -raw.ctypes.data % 16
    return raw[start:start + dtype.itemsize].view(dtype)


def show(args: argparse.Namespace) -> int:
    kernel = load_kernel(args.kernel)
    if args.stage == "ast":
        print(ast.dump(kernel.parsed.tree, indent=2))
        return 0
    values = parse_signature(args.signature or "")
    missing = [p for p in kernel.arg_names if p not in values
               and kernel.signature.parameters[p].default is kernel.signature.parameters[p].empty]
    if missing:
        raise UsageError(f"--signature must give {', '.join(missing)} (e.g. "
                         f"{','.join(f'{p}=*fp32' for p in missing[:2])})")
    target = "interpreter" if args.stage == "ttir" else args.target
    try:
        compiled = kernel.warmup(target=target, num_warps=args.num_warps, **values)
    except ImportError as e:
        print(f"error: the CUDA backend, which makes the `{args.stage}` stage, is not available here: {e}",
              file=sys.stderr)
        return 1
    if args.stage not in compiled.asm:
        print(f"the {target} backend has no `{args.stage}` stage; it has: {', '.join(compiled.asm)}",
              file=sys.stderr)
        return 1
    print(compiled.asm[args.stage])
    return 0


# ---------------------------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m minitriton",
                                  description="minitriton: a staged, readable Triton-style GPU JIT.")
    commands = top.add_subparsers(dest="command", required=True)
    d = commands.add_parser("demo", help="compile and run vector add, softmax and matmul; check with numpy")
    d.set_defaults(usage=d)
    s = commands.add_parser("show", help="print one stage of a kernel",
                            description="Print one stage of a @jit kernel. Example: python -m minitriton "
                                        "show minitriton/examples/tutorials.py:add_kernel --stage ttir "
                                        "--signature 'x_ptr=*fp32,y_ptr=*fp32,output_ptr=*fp32,"
                                        "n_elements=i32,BLOCK_SIZE=1024'")
    s.add_argument("kernel", metavar="FILE.py:KERNEL")
    s.add_argument("--stage", choices=STAGES, default="ttir")
    s.add_argument("--signature", help="NAME=TYPE|VALUE,...: *fp32 for an array, i32/i64/fp32/i1 "
                                       "for a runtime scalar, a literal for a constexpr")
    s.add_argument("--target", default=GPU_TARGET, help=f"GPU arch for layout/llir/ptx (default {GPU_TARGET})")
    s.add_argument("--num-warps", type=int, default=4)
    s.set_defaults(usage=s)
    commands.add_parser("bench", add_help=False, help="check, then time the kernels beside torch and triton "
                        "on a GPU (python -m minitriton bench --help)")
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:  # `bench` parses its own options
        return bench.main(argv[1:])
    top = parser()
    args = top.parse_args(argv)
    try:
        return {"demo": demo, "show": show}[args.command](args)
    except UsageError as e:
        args.usage.error(str(e))  # prints the command's usage line and exits with status 2
    except CompilationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
