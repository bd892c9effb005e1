"""`import minitriton.language as tl`: the names a kernel may use, as in `triton.language`.

Chapter: 02-frontend.

- `core`: tensors, constexprs, dtypes, and the builtins on values (arithmetic, math, dot);
- `memory`: load, store, atomics; `reduction`: reductions and scans; `debug`: hints, prints, asserts;
- `shapes`: reshape, trans, permute, broadcast, expand_dims, join, split, cat, gather, histogram;
  `scaled`: dot_scaled, made of upcasts and a dot; `elementwise`: inline PTX and mapped scalar functions;
- `aggregate`: values made of values (tuples...), taken apart where regions need flat values;
- `blocks`: block pointers and tensor descriptors, and the tiles of pointers they stand for;
- `semantic`: the typing rules behind them all; `tiles`: the rules that make tiles and reshape them;
- `extern`: calls into a device library (`tl.extern_elementwise`); `extra`: `tl.extra.libdevice`
  and `tl.extra.cuda`;
- `standard` and `random`: functions written in the language itself; `math`: `tl.math`.
"""
from . import extra, math  # noqa: F401
from .core import *  # noqa: F401,F403
from .core import abs, pow, range  # noqa: F401  (names `import *` leaves out: they shadow Python's)
from .aggregate import tuple  # noqa: F401
from .blocks import advance, block_ptr, make_block_ptr, make_tensor_descriptor, tensor_descriptor  # noqa: F401
from .debug import (assume, debug_barrier, device_assert, device_print, max_constancy, max_contiguous,  # noqa: F401
                    multiple_of, static_assert, static_print)
from .elementwise import inline_asm_elementwise, map_elementwise  # noqa: F401
from .memory import (atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or, atomic_xchg,  # noqa: F401
                     atomic_xor, load, load_tensor_descriptor, store, store_tensor_descriptor)
from .random import (pair_uniform_to_normal, philox, philox_impl, rand, rand4x, randint, randint4x, randn,  # noqa: F401
                     randn4x, uint_to_uniform_float)
from .reduction import (argmax, argmin, associative_scan, cumprod, cumsum, max, min, prod, reduce,  # noqa: F401
                        reduce_and, reduce_or, sum, xor_sum)
from .scaled import dot_scaled  # noqa: F401
from .shapes import (broadcast, broadcast_to, cat, expand_dims, gather, histogram, join, permute,  # noqa: F401
                     ravel, reshape, split, trans, view)
from .standard import flip, interleave, sigmoid, softmax, sort, swizzle2d, topk  # noqa: F401
