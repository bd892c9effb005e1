"""minitriton: a staged, readable Triton-style GPU JIT compiler. `import minitriton as triton`."""
import operator

from .version import __version__  # noqa: F401
from . import language, testing, tools  # noqa: F401,E402
from .allocation import set_allocator  # noqa: F401,E402
from .errors import CompilationError, InterpreterError, LaunchError, OutOfResources, TritonError  # noqa: F401,E402
from .jit import JITFunction, KernelInterface, jit  # noqa: F401,E402
from .language.core import constexpr_function  # noqa: F401,E402
from .compiler import compile  # noqa: F401,E402  (Triton's triton.compile: compile without launching)
from .dtypes import TensorWrapper, reinterpret  # noqa: F401,E402
from .autotune import Config, autotune, heuristics  # noqa: F401,E402
from . import knobs, runtime  # noqa: F401,E402


def cdiv(x: int, y: int) -> int:
    """ceil(x / y): how many blocks of size `y` cover `x` elements."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1), as a Python int for a numpy size too."""
    n = operator.index(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()
