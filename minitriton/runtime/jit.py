"""`triton.runtime.jit`: the JIT's classes where Triton's host code imports them from (`jit.py`).
Chapter: 01-introduction."""
from ..dtypes import TensorWrapper, reinterpret  # noqa: F401
from ..jit import JITFunction, KernelInterface, jit  # noqa: F401
from ..language.core import constexpr_function  # noqa: F401
