"""Running a random program and judging it: the interpreter against the reference, the compile
for each GPU architecture through ptxas, and (on a GPU machine) the GPU against both.

`check(program, folder)` writes the program's source into `folder` and imports it (so the
frontend reads real source, as for any kernel), fills the outputs with poison, launches, and
compares every output: the positions the kernel must not write must still hold the poison's
bytes; the written positions whose value the rules define must equal the reference (floats: up to
the reference's error bound, NaN equal to NaN, the sign of a zero not compared). It returns one
`Outcome` per stage; `write_reproducer` puts a failing program's source, what differed and the
data in a folder of its own.
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import minitriton as triton
import minitriton.language as tl
from minitriton import driver

from . import rules
from .generate import Output, Program, poison


@dataclass
class Outcome:
    seed: int
    stage: str     # "interpreter", "ptx sm_80", "gpu", ...
    status: str    # "ok", "mismatch" (a wrong value), "failure" (an exception: the compiler or a launch)
    detail: str = ""
    files: dict[str, str] = field(default_factory=dict)  # for the reproducer (the PTX the GPU ran)


@contextlib.contextmanager
def interpreted(on: bool):
    saved = os.environ.get("MINITRITON_INTERPRET")
    os.environ["MINITRITON_INTERPRET"] = "1" if on else "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["MINITRITON_INTERPRET"]
        else:
            os.environ["MINITRITON_INTERPRET"] = saved


def kernel_of(program: Program, folder: Path):
    """Write the source to a file and import it: the @jit function `kernel`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"fuzz_{program.seed}.py"
    path.write_text(program.source)
    name = f"fuzz_program_{program.seed}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.kernel


def arguments(program: Program, place) -> tuple[list, dict[str, object]]:
    """The launch's positional arguments (inputs, poisoned outputs, sizes, scalars), with `place`
    putting a host array where the kernel reads it; and the outputs by name."""
    def arg(array: np.ndarray, t: rules.DType):
        placed = place(array)
        return triton.reinterpret(placed, tl.bfloat16) if t == rules.BF16 else placed

    inputs = [arg(rules.to_storage(i.data, i.dtype), i.dtype) for i in program.inputs]
    outputs = {o.name: place(poison(o.dtype, o.expected.shape)) for o in program.outputs}
    pointers = [triton.reinterpret(outputs[o.name], tl.bfloat16) if o.dtype == rules.BF16 else outputs[o.name]
                for o in program.outputs]
    return inputs + pointers + list(program.scalars.values()), outputs


def launch(program: Program, kernel, place, fetch) -> dict[str, np.ndarray]:
    args, outputs = arguments(program, place)
    kernel[program.grid](*args, num_warps=program.num_warps, **program.constexprs)
    return {name: fetch(a) for name, a in outputs.items()}


def agree(got: np.ndarray, want: np.ndarray, err, t: rules.DType) -> np.ndarray:
    """Elementwise: does `got` (holder values) match `want` within `err`?"""
    if not t.is_float:
        return got == want
    g, w = np.asarray(got, np.float64), np.asarray(want, np.float64)
    same = (g == w) | (np.isnan(g) & np.isnan(w))
    if err is None:
        return same
    with np.errstate(all="ignore"):
        top = rules.max_finite(t)
        close = np.abs(g - w) <= err
        near_overflow = (err > 0) & ((np.isinf(w) & (np.sign(g) == np.sign(w)) & (np.abs(g) >= top / 2)) |
                                     (np.isinf(g) & np.isfinite(w) & (np.abs(w) + err >= top / 2)))
    return same | close | np.isposinf(err) | near_overflow


def differences(output: Output, got: np.ndarray, want=None, err_scale: float = 1.0, label: str = "") -> str:
    """'' if `got` (storage, as the kernel left it) is right, else a description of the first
    differences. `want` replaces the reference (to compare the GPU with the interpreter)."""
    t = output.dtype
    expected = output.expected if want is None else rules.from_storage(want, t)
    lines = []
    untouched = poison(t, got.shape).view(np.uint8).reshape(got.shape + (-1,))
    kept = np.all(got.view(np.uint8).reshape(got.shape + (-1,)) == untouched, axis=-1)
    overwritten = ~output.written & ~kept
    if overwritten.any():
        where = np.argwhere(overwritten)[:4].tolist()  # plain ints
        lines.append(f"{output.name}{label}: {int(overwritten.sum())} positions outside the mask were written, e.g. {where}")
    values = rules.from_storage(got, t)
    err = None if output.err is None else output.err * err_scale
    bad = output.written & output.check & ~agree(values, expected, err, t)
    if bad.any():
        shown = []
        for index in map(tuple, np.argwhere(bad)[:6]):
            bound = "" if err is None else f" (bound {err[index]:.3g})"
            shown.append(f"{[int(i) for i in index]}: got {values[index]}, want {expected[index]}{bound}")
        lines.append(f"{output.name}{label} ({t.name}, {output.what}): {int(bad.sum())} of {int(output.check.sum())} "
                     f"checked values differ:\n    " + "\n    ".join(shown))
    return "\n".join(lines)


def check(program: Program, folder: Path, archs=("sm_80", "sm_90a"), gpu: bool = False) -> list[Outcome]:
    """Every stage's outcome for one program."""
    outcomes = []

    def attempt(stage, fn):
        try:
            detail = fn()
        except Exception as e:  # the program is well-formed: any exception is a finding
            outcomes.append(Outcome(program.seed, stage, "failure", _describe(e)))
            return None
        outcomes.append(Outcome(program.seed, stage, "mismatch" if detail else "ok", detail or ""))
        return detail

    try:
        kernel = kernel_of(program, folder)
    except Exception as e:
        return [Outcome(program.seed, "import", "failure", _describe(e))]
    results = {}

    def interpret():
        with interpreted(True):
            results["interpreter"] = launch(program, kernel, np.copy, np.asarray)
        return "\n".join(filter(None, (differences(o, results["interpreter"][o.name]) for o in program.outputs)))

    with np.errstate(all="ignore"):
        attempt("interpreter", interpret)
    for arch in archs:
        attempt(f"ptx {arch}", lambda arch=arch: _compile(program, kernel, arch))
    if gpu:
        files = {}
        attempt("gpu", lambda: _on_gpu(program, kernel, results, files))
        outcomes[-1].files = files
    return outcomes


def _compile(program: Program, kernel, arch: str) -> str:
    args, _ = arguments(program, np.copy)
    compiled = kernel.warmup(*args, grid=program.grid, target=arch, num_warps=program.num_warps, **program.constexprs)
    return "" if compiled.asm.get("cubin") else f"no cubin for {arch} (is ptxas installed?)"


def _on_gpu(program: Program, kernel, results: dict, files: dict) -> str:
    """The GPU against the reference and against the interpreter (each value within twice its
    bound of the interpreter's); where they differ, the PTX it ran goes into `files`, to be tried
    with `ptxas -O0` (a wrong `-O3` is a toolchain bug: chapter 9)."""
    with interpreted(False):
        got = launch(program, kernel, driver.DeviceArray.from_numpy, lambda a: a.numpy())
    lines = [differences(o, got[o.name]) for o in program.outputs]
    if "interpreter" in results:
        lines += [differences(o, got[o.name], results["interpreter"][o.name], 2.0, " (gpu vs interpreter)")
                  for o in program.outputs]
    detail = "\n".join(filter(None, lines))
    if detail:
        args, _ = arguments(program, driver.DeviceArray.from_numpy)
        with interpreted(False):
            compiled = kernel.warmup(*args, grid=program.grid, num_warps=program.num_warps, **program.constexprs)
        if compiled.asm.get("ptx"):
            files["kernel.ptx"] = compiled.asm["ptx"]
    return detail


def _describe(e: Exception) -> str:
    text = f"{type(e).__name__}: {e}"
    frames = traceback.extract_tb(e.__traceback__)
    inner = [f for f in frames if "minitriton" in f.filename]
    if inner:
        text += f"\n    (raised at {inner[-1].filename}:{inner[-1].lineno})"
    return text


def write_reproducer(program: Program, outcomes: list[Outcome], folder: Path) -> Path:
    """The program's own folder: its source, what went wrong, and its inputs and expected outputs."""
    where = folder / f"seed_{program.seed}"
    where.mkdir(parents=True, exist_ok=True)
    (where / "kernel.py").write_text(program.source)
    report = [f"seed {program.seed}: grid {program.grid}, num_warps {program.num_warps}, "
              f"sizes {program.scalars}, blocks {program.constexprs}",
              f"reproduce: python -m tests.fuzz --seed {program.seed} --count 1 [--gpu]", ""]
    report += [f"[{o.stage}] {o.status}\n{o.detail}\n" for o in outcomes if o.status != "ok"]
    for o in outcomes:
        for name, text in o.files.items():
            (where / name).write_text(text)
            report.append(f"{name}: what the GPU ran; try `ptxas -arch=sm_XX -O0 {name}` against -O3 (chapter 9)")
    (where / "report.txt").write_text("\n".join(report))
    np.savez(where / "data.npz", **{f"input_{i.name}": rules.to_storage(i.data, i.dtype) for i in program.inputs},
             **{f"expected_{o.name}": rules.to_storage(o.expected, o.dtype) for o in program.outputs})
    return where
