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
from typing import Any

from .backends import backend_for
from .errors import CompilationError  # noqa: F401  (triton.compiler's names: CompiledKernel, CompilationError)
from .frontend import KernelFunction, generate
from .ir import Function
from .kernel import CompiledKernel, Options
from .passes.simplify import simplify
from .specialize import arg_spec


# --8<-- [start:compile]
def compile(jit_fn: KernelFunction, specs: dict[str, tuple], constexprs: dict[str, Any],
            options: Options) -> CompiledKernel:
    """Run the stages in order for one specialization of `jit_fn`. The tile IR is made only when
    the backend asks for it: a kernel found in the disk cache skips every stage."""

    def tile_ir() -> Function:
        return simplify(generate(jit_fn, {n: arg_spec(k) for n, k in specs.items()}, constexprs,
                                 num_warps=options.num_warps))

    kernel = backend_for(options.target).compile(jit_fn, tile_ir, specs, constexprs, options)
    dump(kernel)
    return kernel
# --8<-- [end:compile]


def dump(kernel: CompiledKernel) -> None:
    """Print the stages named in MINITRITON_DUMP (e.g. `ttir,ptx`, or `all`) to stderr."""
    wanted = [s.strip() for s in os.environ.get("MINITRITON_DUMP", "").split(",") if s.strip()]
    for stage, text in kernel.asm.items():
        if ("all" in wanted or stage in wanted) and isinstance(text, str):
            print(f"// ----- {kernel.name}: {stage} -----\n{text}", file=sys.stderr)


