"""`compile()`: the pipeline as a list of stages, from a @jit function to something that launches.

The frontend makes tile IR; the machine-independent passes clean it; then a backend takes over: the
numpy interpreter runs the tile IR as it is, the CUDA backend lowers it through layouts, shared memory
and barriers to LLVM IR, PTX and a cubin. Each stage's output is kept in `CompiledKernel.asm` so a
reader can watch one kernel move through the pipeline (`MINITRITON_DUMP=ttir,ptx` prints them).
Chapter: 01-introduction.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from . import driver
from .backends import backend_for
from .codegen.backend import NO_GPU
from .dtypes import dtype_of_signature
from .errors import CompilationError, LaunchError, user_facing  # noqa: F401  (triton.compiler's names: CompiledKernel, CompilationError)
from .frontend import KernelFunction, generate
from .ir import Function
from .kernel import CompiledKernel, GPUTarget, Options, launch_options
from .passes.simplify import simplify
from .specialize import arg_spec


# --8<-- [start:ast-source]
@dataclass
class ASTSource:
    """A kernel and the specialization to compile it for, as Triton's `compile` takes it:
    `ASTSource(kernel, signature={"x": "*fp32", "n": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": 64}, attrs={(0,): [["tt.divisibility", 16]]})`. A signature gives each
    runtime parameter Triton's type string (or, from the JIT, the specialization a launch read:
    `specialize.specialize`); `attrs` says, by parameter index, which are multiples of 16. A
    parameter named in neither takes its default."""

    fn: KernelFunction
    signature: dict[str, Any]
    constexprs: dict | None = None  # by name, or by (index,) as Triton also writes them
    attrs: dict | None = None
    name: str | None = None  # the compiled kernel's, where not the function's (`@jit(repr=...)`)
    specs: dict[str, tuple] = field(init=False)
    constants: dict[str, Any] = field(init=False)

    def __post_init__(self):
        names = self.fn.arg_names
        if any(not isinstance(k, str) for k in self.signature):
            raise TypeError("ASTSource: signature keys must be the parameters' names (strings)")
        constants = {names[k[0]] if isinstance(k, tuple) else k: v
                     for k, v in (self.constexprs or {}).items()}
        divisible = {names[k[0]] for k, facts in (self.attrs or {}).items()
                     if ["tt.divisibility", 16] in [list(f) for f in facts]}
        self.specs = {n: _spec(self.fn, n, self.signature[n], n in divisible) for n in names
                      if n in self.signature and n not in constants and self.signature[n] != "constexpr"}
        self.constants = {n: constants[n] for n in names if n in constants}


def _spec(fn: KernelFunction, name: str, kind, divisible: bool) -> tuple:
    """A runtime parameter's specialization from its signature string (`*fp16`, `i32`, `fp32`)."""
    if isinstance(kind, tuple):  # the JIT's: already a specialization
        return kind
    try:
        dtype = dtype_of_signature(kind)
    except KeyError as e:
        raise TypeError(f"ASTSource for {fn.__name__}: parameter `{name}`: {e.args[0]}") from None
    if dtype.is_ptr():
        return (kind, divisible)
    return (kind, divisible, False) if dtype.is_int() and not dtype.is_bool() else (kind,)
# --8<-- [end:ast-source]


# --8<-- [start:compile]
@user_facing
def compile(src: ASTSource, target: GPUTarget | str | None = None,
            options: Options | dict | None = None) -> CompiledKernel:
    """Run the stages in order for one specialization of a kernel, without launching it: Triton's
    `triton.compile`, and what every launch's first call comes to. `target` is a GPUTarget, or
    minitriton's own name ("interpreter", "cuda": the GPU here, an arch such as "sm_90a"); None
    is the current GPU's (`driver.current_target`). `options` are the launch options. The tile
    IR is made only when the backend asks for it: a kernel found in the disk cache skips every
    stage."""
    options = _options(options)
    if target is None:
        target = driver.current_target()
        if target is None:
            raise LaunchError(NO_GPU)
    options = replace(options, target=target.cuda_arch if isinstance(target, GPUTarget) else target)
    kernel = backend_for(options.target).compile(src.fn, lambda: tile_ir(src, options), src.specs,
                                                 src.constants, options)
    dump(kernel)
    return kernel
# --8<-- [end:compile]


def tile_ir(src: ASTSource, options: Options) -> Function:
    """The first stages alone: the kernel's verified, simplified tile IR for one specialization."""
    return simplify(generate(src.fn, {n: arg_spec(k) for n, k in src.specs.items()}, src.constants,
                             name=src.name, num_warps=options.num_warps), fp_fusion=options.enable_fp_fusion)


def _options(options: Options | dict | None) -> Options:
    if isinstance(options, Options):
        return options
    known = [name for name in Options.__dataclass_fields__ if name != "target"]
    if unknown := sorted(set(options or {}) - set(known)):
        raise LaunchError(f"compile(options=...): {', '.join(unknown)}: minitriton's compile options are "
                          f"{', '.join(known)}")
    return launch_options(**(options or {}))


def dump(kernel: CompiledKernel) -> None:
    """Print the stages named in MINITRITON_DUMP (e.g. `ttir,ptx`, or `all`) to stderr."""
    wanted = [s.strip() for s in os.environ.get("MINITRITON_DUMP", "").split(",") if s.strip()]
    for stage, text in kernel.asm.items():
        if ("all" in wanted or stage in wanted) and isinstance(text, str):
            print(f"// ----- {kernel.name}: {stage} -----\n{text}", file=sys.stderr)


