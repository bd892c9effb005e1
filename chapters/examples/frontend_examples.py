"""Small kernels that chapter 2 compiles to show what the frontend does with each construct.

`scripts/figures.py` compiles them and writes the tile IR they become into chapters/figures/,
so the listings in the chapter are the compiler's own output.
"""
from typing import NamedTuple

import minitriton as triton
import minitriton.language as tl
from minitriton.examples.tutorials import leaky_relu
from minitriton.language.extra import libdevice


# --8<-- [start:double]
@triton.jit
def double(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, 2 * tl.load(x_ptr + offsets))
# --8<-- [end:double]


# --8<-- [start:gather]
@triton.jit
def gather(src_ptr, dst_ptr, stride, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets * stride))
# --8<-- [end:gather]


# --8<-- [start:mixed]
@triton.jit
def mixed(h_ptr, f_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    h = tl.load(h_ptr + offsets)        # fp16
    f = tl.load(f_ptr + offsets)        # fp32
    scaled = h * 0.5                    # a Python float takes the tile's type: stays fp16
    tl.store(out_ptr + offsets, scaled + f)  # fp16 meets fp32: both become fp32
# --8<-- [end:mixed]


# --8<-- [start:row_sum]
@triton.jit
def row_sum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        total += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(total, axis=0))
# --8<-- [end:row_sum]


# --8<-- [start:activate]
@triton.jit
def activate(x_ptr, n, ACTIVATION: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    if ACTIVATION == "leaky_relu":
        x = leaky_relu(x)
    tl.store(x_ptr + offsets, x, mask=offsets < n)
# --8<-- [end:activate]


# --8<-- [start:min_and_where]
@triton.jit
def smaller(value_a, index_a, value_b, index_b):
    """Of two (value, index) pairs, the smaller value; of equal values, the lower index."""
    take_a = (value_a < value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(take_a, value_a, value_b), tl.where(take_a, index_a, index_b)


@triton.jit
def min_and_where(x_ptr, min_ptr, where_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    value, index = tl.reduce((tl.load(x_ptr + offsets), offsets), 0, smaller)
    tl.store(min_ptr, value)
    tl.store(where_ptr, index)
# --8<-- [end:min_and_where]


# --8<-- [start:selu]
@triton.jit
def selu_scalar(x, alpha):
    if x > 0:  # a branch per element: x is one element here
        return x
    return alpha * (tl.exp(x) - 1)


@triton.jit
def selu(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.map_elementwise(selu_scalar, tl.load(x_ptr + offsets), 1.5))
# --8<-- [end:selu]


# --8<-- [start:bessel]
@triton.jit
def bessel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, libdevice.j0(x) + libdevice.pow(x, 2), mask=mask)
# --8<-- [end:bessel]


# --8<-- [start:min_max]
@triton.jit
def widen(bounds, x):
    """The (lowest, highest) pair `bounds`, widened to take in the tile `x`."""
    low, high = bounds
    return tl.minimum(low, x), tl.maximum(high, x)


@triton.jit
def min_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    first = tl.load(x_ptr + offsets)
    bounds = (first, first)
    for start in range(BLOCK, n, BLOCK):
        bounds = widen(bounds, tl.load(x_ptr + start + offsets))
    tl.store(out_ptr + offsets, bounds[1] - bounds[0])
# --8<-- [end:min_max]


# --8<-- [start:matrix]
class Matrix(NamedTuple):
    ptr: object
    shape: tuple
    strides: tuple


@triton.jit
def scale_rows(m, factor, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    ptrs = m.ptr + tl.program_id(0) * m.strides[0] + cols * m.strides[1]
    inside = cols < m.shape[1]
    tl.store(ptrs, tl.load(ptrs, mask=inside) * factor, mask=inside)
# --8<-- [end:matrix]
