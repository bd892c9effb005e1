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
from dataclasses import dataclass, field
from typing import Any

from . import ir
from .backends import backend_for


@dataclass(frozen=True)
class Options:
    num_warps: int = 4
    num_stages: int = 3
    target: str = "cuda"  # "interpreter", "cuda" (the GPU that is here) or an arch such as "sm_90"


@dataclass
class CompiledKernel:
    """One specialization of a kernel, compiled: its stages' text and a way to launch it."""

    name: str
    asm: dict[str, Any]
    runtime_args: list[str]  # the parameters passed at launch, in order
    metadata: dict[str, Any] = field(default_factory=dict)
    launcher: Any = None

    def launch(self, grid: tuple[int, int, int], args: list) -> None:
        self.launcher(grid, args)

    def prepared(self, positions: list[int], args: list) -> Any:
        """The JIT's fast path for one key (a `driver.Prepared`): `.launch(grid, *values)`, `values`
        being the launch's non-constexpr parameters in order, of which `positions` are this
        kernel's (a None argument became a constant and is left out); `args` are the first
        launch's arguments. None where the backend has no such path (the interpreter)."""
        prepare = getattr(self.launcher, "prepared", None)
        return prepare(positions, args) if prepare is not None else None

    def __getitem__(self, grid):
        return lambda *args: self.launch(grid, list(args))


# --8<-- [start:compile]
def compile(jit_fn, specs: dict[str, tuple], constexprs: dict[str, Any], options: Options) -> CompiledKernel:
    """Run the stages in order for one specialization of `jit_fn`. The tile IR is made only when
    the backend asks for it: a kernel found in the disk cache skips every stage."""
    from .frontend import generate
    from .jit import arg_spec
    from .passes.simplify import simplify

    def tile_ir() -> ir.Function:
        return simplify(generate(jit_fn, {n: arg_spec(k) for n, k in specs.items()}, constexprs))

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


