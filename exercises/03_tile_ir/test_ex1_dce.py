"""Tests for exercise 3.1: run with `make exercise CH=3 EX=1`."""
import re

import numpy as np
import pytest
from _impl import load
from ir_helpers import for_loop, pointer_arg, pointers

import minitriton as triton
import minitriton.language as tl
from minitriton import exercise_hooks, ir
from minitriton.examples.tutorials import _layer_norm_fwd_fused, softmax_kernel

impl = load("03_tile_ir/ex1_dce")


def names(block: ir.Block) -> list[str]:
    return [op.name for op in block.ops]


def copy_with_dead_chain() -> ir.Function:
    """x[i] -> out[i], plus a chain of three ops whose end nobody reads."""
    x, out = pointer_arg("x_ptr"), pointer_arg("out_ptr")
    b = ir.Builder()
    offsets = b.value("arange", [], start=0, end=8)
    squared = b.value("mul", [offsets, offsets])           # dead once `doubled` is gone
    doubled = b.value("add", [squared, squared])           # dead once the cast is gone
    b.value("cast", [doubled], dtype=ir.int64)             # dead: nobody reads it
    b.create("store", [pointers(b, out, offsets), b.value("load", [pointers(b, x, offsets)])])
    return ir.Function("copy", [x, out], b.block)


def test_removes_a_dead_chain_to_a_fixed_point():
    fn = copy_with_dead_chain()
    assert impl.remove_dead(fn) == 3
    assert names(fn.body) == ["arange", "splat", "addptr", "splat", "addptr", "load", "store"]
    ir.verify(fn)


def test_nothing_to_remove():
    fn = copy_with_dead_chain()
    impl.remove_dead(fn)
    assert impl.remove_dead(fn) == 0


def test_ops_with_effects_stay_even_when_unused():
    x = pointer_arg("x_ptr")
    b = ir.Builder()
    offsets = b.value("arange", [], start=0, end=4)
    b.value("load", [pointers(b, x, offsets)])            # result unused, but a load stays
    b.create("print", [offsets], {"prefix": "", "hex": False})
    b.value("atomic", [pointers(b, x, offsets), b.value("splat", [b.constant(1.0, ir.float32)], shape=(4,))],
            kind="add")
    fn = ir.Function("effects", [x], b.block)
    assert impl.remove_dead(fn) == 0
    assert names(fn.body).count("load") == 1 and names(fn.body).count("atomic") == 1


def test_dead_ops_inside_a_loop_body():
    out = pointer_arg("out_ptr")
    b = ir.Builder()
    zero = b.value("splat", [b.constant(0.0, ir.float32)], shape=(4,))

    def body(inner, i, acc):
        inner.value("mul", [i, i])                          # dead, inside the region
        one = inner.value("splat", [inner.constant(1.0, ir.float32)], shape=(4,))
        return inner.value("add", [acc, one])

    loop = for_loop(b, 0, 10, zero, body)
    b.create("store", [pointers(b, out, b.value("arange", [], start=0, end=4)), loop.result])
    unused_loop = for_loop(b, 0, 3, zero, lambda inner, i, acc: acc)  # a `for` is kept: it is in EFFECTS
    fn = ir.Function("loop", [out], b.block)
    assert impl.remove_dead(fn) == 1
    assert names(loop.regions[0]) == ["constant", "splat", "add", "yield"]
    assert unused_loop in fn.body.ops
    ir.verify(fn)


# Exercise mode: your `remove_dead` is the compiler's dead-code elimination, on real kernels.

@triton.jit
def with_dead_code(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    unused = tl.exp(x * 2.0) + tl.sqrt(x)  # a chain nobody reads
    for i in range(3):
        waste = (x * i).to(tl.float16)  # dead inside the loop's body
    tl.store(out_ptr + offsets, x + 1.0, mask=mask)


x32 = np.zeros(1, np.float32)
KERNELS = {
    "dead code": (with_dead_code, (x32, x32, 1000), dict(BLOCK=256)),
    "softmax": (softmax_kernel, (x32, x32, 784, 784, 100, 784), dict(BLOCK_SIZE=1024, num_stages=2)),
    "layer norm": (_layer_norm_fwd_fused, (x32,) * 6 + (304, 300, 1e-5), dict(BLOCK_SIZE=128)),
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_your_dce_compiles_the_kernel_the_compiler_does(name):
    kernel, args, constexprs = KERNELS[name]
    with exercise_hooks.use({"simplify.remove_dead": impl.remove_dead}):
        yours = kernel.warmup(*args, **constexprs).asm["ttir"]
    assert yours == kernel.warmup(*args, **constexprs).asm["ttir"]


def test_a_kernel_cleaned_by_your_dce_runs_right():
    x = np.random.default_rng(0).random(1000).astype(np.float32)
    out = np.full(1000, np.nan, np.float32)
    with exercise_hooks.use({"simplify.remove_dead": impl.remove_dead}):
        with_dead_code[(4,)](x, out, 1000, BLOCK=256)
        ttir = with_dead_code.warmup(x, out, 1000, BLOCK=256).asm["ttir"]
    np.testing.assert_array_equal(out, x + np.float32(1))
    assert not re.search(r"\b(exp|sqrt|cast)\b", ttir), "the dead chain is still there:\n" + ttir
