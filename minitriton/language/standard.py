"""Language functions written in the language itself: each is a @jit function, inlined where called.

They read like the kernels that use them, and show that `tl` needs only a small core of builtins.
`sort`, `topk` and `flip` are Triton's: networks of compare-and-swap steps built from reshapes,
reductions and `where`, with no op of their own. Chapter: 02-frontend.
"""
from ..jit import jit
from . import core as tl
from .debug import static_assert
from .reduction import max, min, xor_sum
from .shapes import expand_dims, join, reshape


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


# --8<-- [start:sort]
def _log2(n: int) -> int:
    return n.bit_length() - 1


def _all_but(n_dims: int, d: int) -> list[int]:
    return [a for a in range(n_dims) if a != d]


@jit
def _bit(n_bits: tl.constexpr, j: tl.constexpr):
    """Bit j of the position, on a hypercube of n_bits dimensions of size 2 (dimension
    n_bits - 1 - j holds it: the last dimension is bit 0). Built by expand_dims, not reshape, so
    that the layout pass can compute it in whatever layout its user has."""
    return expand_dims(tl.arange(0, 2), _all_but(n_bits, n_bits - 1 - j))


@jit
def _compare_and_swap(x, flip, j: tl.constexpr):
    """Each element meets the one whose position differs in bit j; the pair is put in ascending
    order, or descending where `flip` is 1: the left element keeps the smaller, the right the
    larger. The partner comes from a xor-reduction over the pair (a ^ b ^ a = b), on the bits."""
    n_bits: tl.constexpr = _log2(x.numel)
    bits = x.to(tl.get_int_dtype(x.dtype.primitive_bitwidth, True), bitcast=True)
    partner = (bits ^ xor_sum(bits, n_bits - 1 - j, True)).to(x.dtype, bitcast=True)
    return tl.where((x > partner) != (flip ^ _bit(n_bits, j)), partner, x)


@jit
def _bitonic_merge(x, stage: tl.constexpr, order: tl.constexpr):
    """Sort every run of 2**stage elements, each of which holds two sorted halves in opposite
    orders: compare-and-swap at bits stage - 1, ..., 0. `order` 0 sorts every run ascending, 1
    descending, 2 alternately (by bit `stage`), making the runs of the next, longer stage."""
    if order == 2:
        flip = _bit(_log2(x.numel), stage)
    else:
        flip = order
    for i in tl.static_range(stage):
        x = _compare_and_swap(x, flip, stage - 1 - i)
    return x


@jit
def _sort(x, k: tl.constexpr, dim: tl.constexpr, descending: tl.constexpr):
    """Bitonic sort along the last dimension, on a hypercube view of the tile (every dimension of
    size 2). With `k`, the first log2(k) stages sort runs of k; then each step keeps the better
    half of two neighbouring runs (a max or min over a dimension of the hypercube) and merges it,
    until k elements are left."""
    last: tl.constexpr = len(x.shape) - 1
    static_assert((last if dim is None else dim) == last, "only minor dimension is currently supported")
    static_assert(k is None or 0 < k <= x.shape[last] and k & (k - 1) == 0,
                  "topk's k must be a power of two, at most the size of the last dimension")
    log_n: tl.constexpr = _log2(x.shape[last])
    log_k: tl.constexpr = log_n if k is None else _log2(k)
    n_bits: tl.constexpr = _log2(x.numel)
    h = reshape(x, [2] * n_bits if n_bits else [1])
    for i in tl.static_range(1, log_k + 1):
        h = _bitonic_merge(h, i, 2 if i < log_n else descending)
    for i in tl.static_range(log_k + 1, log_n + 1):
        if descending:
            h = max(h, _log2(h.numel) - 1 - log_k)
        else:
            h = min(h, _log2(h.numel) - 1 - log_k)
        h = _bitonic_merge(h, log_k, 2 if i < log_n else descending)
    return reshape(h, x.shape[:-1] + [2 ** log_k])


@jit
def sort(x, dim: tl.constexpr = None, descending: tl.constexpr = 0):
    """`x` sorted along its last dimension (the only one Triton sorts). Ties and NaN go where
    the network puts them: a comparison with NaN is false, so a NaN never moves past a number."""
    return _sort(x, None, dim, descending)


@jit
def topk(x, k: tl.constexpr, dim: tl.constexpr = None):
    """The k largest elements along the last dimension, largest first (k a power of two)."""
    return _sort(x, k, dim, True)
# --8<-- [end:sort]


# --8<-- [start:flip]
@jit
def flip(x, dim=None):
    """`x` reversed along `dim` (the last by default): viewing that dimension as bits, reversing
    it complements every bit, and each bit is complemented by a swap within pairs (a ^ (a ^ b))."""
    static_assert(dim is None or -len(x.shape) <= dim < len(x.shape), "flip's dim is not an axis of x")
    d: tl.constexpr = len(x.shape) - 1 if dim is None else dim % len(x.shape)
    steps: tl.constexpr = _log2(x.shape[d])
    bits = x.to(tl.get_int_dtype(x.dtype.primitive_bitwidth, True), bitcast=True)
    y = reshape(bits, x.shape[:d] + [2] * steps + x.shape[d + 1:])
    for i in tl.static_range(steps):
        y = y ^ xor_sum(y, d + i, True)
    return reshape(y, x.shape).to(x.dtype, bitcast=True)
# --8<-- [end:flip]


@jit
def interleave(a, b):
    """a and b interleaved along their last dimension: a[0], b[0], a[1], b[1], ..."""
    c = join(a, b)
    if len(c.shape) == 1:  # two scalars
        return c
    return reshape(c, c.shape[:-2] + [2 * c.shape[-2]])


for _method in (sigmoid, softmax, sort, flip):  # x.sort(), x.softmax(): methods of tensors, as in Triton
    setattr(tl.tensor, _method.__name__, _method)
