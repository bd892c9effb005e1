"""Language functions written in the language itself: each is a @jit function, inlined where called.

They read like the kernels that use them, and show that `tl` needs only a small core of builtins.
Chapter: 02-frontend.
"""
from ..jit import jit
from . import core as tl


@jit
def sigmoid(x):
    return 1 / (1 + tl.exp(-x))


@jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    """exp(x) / sum(exp(x)) along `dim` (0 when None), the maximum subtracted first."""
    axis: tl.constexpr = 0 if dim is None else dim
    numerator = tl.exp(x - x.max(axis, keep_dims=keep_dims))
    return tl.fdiv(numerator, numerator.sum(axis, keep_dims=keep_dims), ieee_rounding)


@jit
def swizzle2d(i, j, size_i, size_j, size_g):
    """Reorder a (size_i x size_j) grid so that groups of `size_g` rows are visited column by column."""
    linear = i * size_j + j
    group_size = size_g * size_j
    first_i = (linear // group_size) * size_g
    rows_in_group = tl.minimum(size_i - first_i, size_g)
    linear = linear % group_size
    return first_i + linear % rows_in_group, linear // rows_in_group



for _method in (sigmoid, softmax):  # x.sigmoid(), x.softmax(): methods of tensors, as in Triton
    setattr(tl.tensor, _method.__name__, _method)
