"""Counter-based random numbers (Philox 4x32, 10 rounds), written in the language and inlined.

The same (seed, offset) always gives the same number, in the interpreter and on the GPU alike, so a
kernel like seeded dropout can recompute its mask instead of storing it. Chapter: 02-frontend.
"""
from ..jit import jit
from . import core as tl
from .debug import static_assert

# Philox constants: the key schedule's increments and the two round multipliers, for 32-bit words
# (Philox 4x32) and for 64-bit ones (Philox 4x64, when the counters are 64-bit).
KEY_STEP_32: tl.constexpr = (0x9E3779B9, 0xBB67AE85)
ROUND_MUL_32: tl.constexpr = (0xD2511F53, 0xCD9E8D57)
KEY_STEP_64: tl.constexpr = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
ROUND_MUL_64: tl.constexpr = (0xD2E7470EE14C6C93, 0xCA5A826395121157)
DEFAULT_ROUNDS: tl.constexpr = 10


# --8<-- [start:philox]
@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """`n_rounds` rounds of Philox on the counters (c0..c3) with the key (k0, k1), all uint32 or
    all uint64."""
    if c0.dtype == tl.uint32:
        mul0, mul1 = ROUND_MUL_32
        step0, step1 = KEY_STEP_32
    else:
        static_assert(c0.dtype == tl.uint64, "philox counters must be uint32 or uint64")
        mul0, mul1 = ROUND_MUL_64
        step0, step1 = KEY_STEP_64
    for _ in tl.static_range(n_rounds):
        prev0, prev2 = c0, c2
        c0 = tl.umulhi(mul1, prev2) ^ c1 ^ k0
        c2 = tl.umulhi(mul0, prev0) ^ c3 ^ k1
        c1 = prev2 * mul1
        c3 = prev0 * mul0
        k0 = k0 + step0
        k1 = k1 + step1
    return c0, c1, c2, c3


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """Four counters of one width (32 or 64 bits) and an integer seed -> four random words of
    that width, unsigned. With 32-bit counters the seed's two halves are the key."""
    seed = tl.to_tensor(seed)
    static_assert(seed.dtype.is_int(), "the seed of a random function must be an integer")
    seed = seed.to(tl.uint64)
    c0, c1, c2, c3 = tl.to_tensor(c0), tl.to_tensor(c1), tl.to_tensor(c2), tl.to_tensor(c3)
    if c0.dtype.primitive_bitwidth == 32:
        word = tl.uint32
        k0, k1 = (seed & 0xFFFFFFFF).to(tl.uint32), ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    else:
        static_assert(c0.dtype.primitive_bitwidth == 64, "philox counters must be 32 or 64 bits wide")
        word = tl.uint64
        k0, k1 = seed, tl.full((1,), 0, tl.uint64)
    return philox_impl(c0.to(word, bitcast=True), c1.to(word, bitcast=True), c2.to(word, bitcast=True),
                       c3.to(word, bitcast=True), k0, k1, n_rounds)
# --8<-- [end:philox]


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """Four random uint32 for each offset; a 64-bit offset's high half is the second counter."""
    offset = tl.to_tensor(offset)
    low = offset.to(tl.uint32)
    zero = low * 0
    if offset.dtype.primitive_bitwidth > 32:
        high = (offset >> 32).to(tl.uint32)
    else:
        high = zero
    return philox(seed, low, high, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """A random uint32 for each offset."""
    first, _, _, _ = randint4x(seed, offset, n_rounds)
    return first


@jit
def uint_to_uniform_float(x):
    """Random 32- or 64-bit words -> floats uniform in [0, 1)."""
    if x.dtype == tl.uint32 or x.dtype == tl.int32:
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10  # the largest scale with (2**31 - 1) times it still below 1.0
    else:
        static_assert(x.dtype == tl.uint64 or x.dtype == tl.int64, "random words must be 32 or 64 bits")
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19  # likewise for 2**63 - 1
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@jit
def rand(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """A float uniform in [0, 1) for each offset."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    return (uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3),
            uint_to_uniform_float(i4))


@jit
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniform floats -> two standard normal ones."""
    u1 = tl.maximum(1.0e-7, u1)
    angle = 6.283185307179586 * u2
    radius = tl.sqrt(-2.0 * tl.log(u1))
    return radius * tl.cos(angle), radius * tl.sin(angle)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """A standard normal float for each offset."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
