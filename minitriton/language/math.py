"""`tl.math`: the math functions under the module name Triton gives them."""
from .core import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, maximum,  # noqa: F401
                   minimum, pow, rsqrt, sin, sqrt, sqrt_rn, tanh, umulhi)
from .standard import sigmoid  # noqa: F401
