"""`tl.math`: the math functions under the module name Triton gives them.

Triton 2.x kept libdevice's functions here too (`tl.math.tanh`, `tl.math.pow`); kernels written for it
still find them: a name this module does not have is looked up in `tl.extra.libdevice`.
"""
from .core import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, maximum,  # noqa: F401
                   minimum, pow, rsqrt, sin, sqrt, sqrt_rn, tanh, umulhi)
from .extra import libdevice as _libdevice
from .standard import sigmoid  # noqa: F401


def __getattr__(name: str):
    if name in _libdevice.__all__:
        return getattr(_libdevice, name)
    raise AttributeError(f"module 'tl.math' has no attribute {name!r}")
