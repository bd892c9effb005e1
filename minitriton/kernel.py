"""What a compile is asked for and what it gives: `Options` in, a `CompiledKernel` out.

Plain data between the JIT, the compiler and the backends. A `CompiledKernel` holds one
specialization of a kernel: the text (or bytes) of every stage it went through, in `asm`, the
names of the parameters it is launched with, what the backend recorded about it, and the
backend's `launcher`. Chapter: 01-introduction.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
        """The JIT's fast path for one key (a `launcher.Prepared`): `.launch(grid, *values)`, `values`
        being the launch's non-constexpr parameters in order, of which `positions` are this
        kernel's (a None argument became a constant and is left out); `args` are the first
        launch's arguments. None where the backend has no such path (the interpreter)."""
        prepare = getattr(self.launcher, "prepared", None)
        return prepare(positions, args) if prepare is not None else None

    def __getitem__(self, grid):
        return lambda *args: self.launch(grid, list(args))
