"""`import minitriton.language as tl`: the names a kernel may use, as in `triton.language`. Chapter: 02-frontend."""
from . import math  # noqa: F401
from .core import *  # noqa: F401,F403
from .core import (abs, atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or,  # noqa: F401
                   atomic_xchg, atomic_xor, max, min, pow, range, sum)
from .random import (pair_uniform_to_normal, philox, rand, rand4x, randint, randint4x, randn,  # noqa: F401
                     randn4x, uint_to_uniform_float)
from .standard import sigmoid, softmax, swizzle2d  # noqa: F401
