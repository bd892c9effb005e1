"""Counter-based random numbers (Philox 4x32, 10 rounds), written in the language and inlined.

The same (seed, offset) always gives the same number, in the interpreter and on the GPU alike, so a
kernel like seeded dropout can recompute its mask instead of storing it. Chapter: 02-frontend.
"""
from ..jit import jit
from . import core as tl

# Philox 4x32 constants: the key schedule's increments and the two round multipliers.
KEY_STEP_0: tl.constexpr = 0x9E3779B9
KEY_STEP_1: tl.constexpr = 0xBB67AE85
ROUND_MUL_0: tl.constexpr = 0xD2511F53
ROUND_MUL_1: tl.constexpr = 0xCD9E8D57
DEFAULT_ROUNDS: tl.constexpr = 10


# --8<-- [start:philox]
@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """Four 32-bit counters and a 64-bit seed -> four random 32-bit words."""
    seed = tl.to_tensor(seed).to(tl.uint64)
    k0 = (seed & 0xFFFFFFFF).to(tl.uint32)
    k1 = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    c0 = c0.to(tl.uint32, bitcast=True)
    c1 = c1.to(tl.uint32, bitcast=True)
    c2 = c2.to(tl.uint32, bitcast=True)
    c3 = c3.to(tl.uint32, bitcast=True)
    for _ in tl.static_range(n_rounds):
        prev0, prev2 = c0, c2
        c0 = tl.umulhi(ROUND_MUL_1, prev2) ^ c1 ^ k0
        c2 = tl.umulhi(ROUND_MUL_0, prev0) ^ c3 ^ k1
        c1 = prev2 * ROUND_MUL_1
        c3 = prev0 * ROUND_MUL_0
        k0 = k0 + KEY_STEP_0
        k1 = k1 + KEY_STEP_1
    return c0, c1, c2, c3
# --8<-- [end:philox]


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    offset = tl.to_tensor(offset)
    zero = offset * 0
    return philox(seed, offset, zero, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = DEFAULT_ROUNDS):
    """A random uint32 for each offset."""
    first, _, _, _ = randint4x(seed, offset, n_rounds)
    return first


@jit
def uint_to_uniform_float(x):
    """Random 32-bit words -> floats uniform in [0, 1)."""
    x = x.to(tl.int32, bitcast=True)
    x = tl.where(x < 0, -x - 1, x)
    return x * 4.6566127342e-10  # the largest scale with 2**31 - 1 times it still below 1.0


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
