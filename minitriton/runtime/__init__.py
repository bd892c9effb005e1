"""`triton.runtime`, for host code written for Triton: the active driver, the kernel classes, the
autotuner, the runtime errors and the scratch-memory allocator, under the names and module paths
Triton gives them (`triton.runtime.driver`, `triton.runtime.jit.JITFunction`,
`triton.runtime.autotuner.Autotuner`, `triton.runtime._allocation.NullAllocator`).
Each name is minitriton's own object; only `driver.py` adds anything. Chapter: 01-introduction.
"""
from . import _allocation, autotuner, errors, jit  # noqa: F401
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .driver import driver  # noqa: F401  (the DriverConfig object, as in Triton, not the module)
from .errors import InterpreterError, OutOfResources  # noqa: F401
from .jit import JITFunction, KernelInterface  # noqa: F401
