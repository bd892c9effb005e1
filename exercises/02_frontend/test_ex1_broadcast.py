"""Tests for exercise 2.1: run with `make exercise CH=2 EX=1`."""
import numpy as np
import pytest
from _impl import load

import minitriton as triton
import minitriton.language as tl
from minitriton import exercise_hooks
from minitriton.examples.tutorials import matmul_kernel, softmax_kernel
from minitriton.language.semantic import SemanticError

impl = load("02_frontend/ex1_broadcast")


@pytest.mark.parametrize("a, b, expected", [
    ((), (), ()), ((), (4,), (4,)), ((4,), (), (4,)), ((8, 1), (1, 16), (8, 16)), ((16,), (8, 16), (8, 16)),
    ((8, 1), (16,), (8, 16)), ((2, 1, 4), (3, 1), (2, 3, 4)), ((1,), (1,), (1,)),
])
def test_known_shapes(a, b, expected):
    assert impl.broadcast_shapes(a, b) == expected
    assert impl.broadcast_shapes(b, a) == expected


@pytest.mark.parametrize("a, b", [((4,), (8,)), ((8, 2), (8, 4)), ((2, 3, 4), (3, 5))])
def test_mismatch_is_a_semantic_error(a, b):
    with pytest.raises(SemanticError, match=r"\[.*\].*\[.*\]"):
        impl.broadcast_shapes(a, b)


def test_agrees_with_numpy():
    """300 random pairs of shapes (sizes 1, 2 or 4, ranks 0 to 3): numpy's answer, or its refusal."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        a = tuple(int(s) for s in rng.choice([1, 2, 4], rng.integers(0, 4)))
        b = tuple(int(s) for s in rng.choice([1, 2, 4], rng.integers(0, 4)))
        try:
            expected = np.broadcast_shapes(a, b)
        except ValueError:
            with pytest.raises(SemanticError):
                impl.broadcast_shapes(a, b)
        else:
            assert impl.broadcast_shapes(a, b) == expected, (a, b)


# Exercise mode: your `broadcast_shapes` decides the shapes of real kernels.

@triton.jit
def outer(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows, cols = tl.arange(0, M), tl.arange(0, N)
    x, y = tl.load(x_ptr + rows), tl.load(y_ptr + cols)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], x[:, None] * y[None, :])


@triton.jit
def side_by_side(x_ptr, M: tl.constexpr, N: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, M), tl.arange(0, M) + tl.arange(0, N))


def yours():
    return exercise_hooks.use({"semantic.broadcast_shapes": impl.broadcast_shapes})


x32 = np.zeros(1, np.float32)
KERNELS = {
    "outer": (outer, (x32, x32, x32), dict(M=16, N=8)),
    "matmul": (matmul_kernel, (x32, x32, x32, 64, 64, 64, 64, 1, 64, 1, 64, 1),
               dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=8, ACTIVATION="")),
    "softmax": (softmax_kernel, (x32, x32, 784, 784, 100, 784), dict(BLOCK_SIZE=1024, num_stages=2)),
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_your_shapes_in_a_kernel_are_the_compilers(name):
    kernel, args, constexprs = KERNELS[name]
    with yours():
        mine = kernel.warmup(*args, **constexprs).asm["ttir"]
    assert mine == kernel.warmup(*args, **constexprs).asm["ttir"]


def test_an_outer_product_shaped_by_your_rule():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(16).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    out = np.full((16, 8), np.nan, np.float32)
    with yours():
        outer[(1,)](x, y, out, M=16, N=8)
        with pytest.raises(triton.CompilationError, match=r"tl\.arange\(0, M\) \+ tl\.arange\(0, N\)"):
            side_by_side.warmup(x, M=16, N=8)
    np.testing.assert_array_equal(out, np.outer(x, y))
