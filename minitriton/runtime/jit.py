"""`triton.runtime.jit`: the JIT's classes where Triton's host code imports them from (`jit.py`).
Chapter: 01-introduction."""
from ..jit import JITFunction, KernelInterface, jit  # noqa: F401
