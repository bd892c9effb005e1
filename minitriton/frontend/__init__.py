"""The frontend: a @jit function's Python source -> tile IR.

Chapter: 02-frontend.

- `source`: reading a function (`parse`) and `KernelFunction`, what @jit makes;
- `generator`: `generate` and the `CodeGenerator`'s statements and expressions;
- `control`: `if`, `for` and `while`; `calls`: calls, inlining, combine functions.
"""
from .generator import CodeGenerator, generate  # noqa: F401
from .source import GONE, Dependencies, GlobalRead, KernelFunction, ParsedFunction, dependencies, parse  # noqa: F401
