"""Tests for exercise 3.2: run with `make exercise CH=3 EX=2`."""
import numpy as np
import pytest
from _impl import load
from ir_helpers import for_loop, pointer_arg, pointers

import minitriton as triton
import minitriton.language as tl
from minitriton import exercise_hooks, ir
from minitriton.examples.tutorials import _layer_norm_fwd_fused, softmax_kernel

impl = load("03_tile_ir/ex2_cse")


def key(op: ir.Op):
    return impl.cse_key(op)


def test_same_op_same_operands_same_key():
    b = ir.Builder()
    r = b.value("arange", [], start=0, end=8)
    first, second = b.create("add", [r, r]), b.create("add", [r, r])
    assert key(first) is not None and key(first) == key(second)
    assert hash(key(first)) == hash(key(second))


def test_operands_are_compared_by_identity_and_order():
    b = ir.Builder()
    r = b.value("arange", [], start=0, end=8)
    s = b.value("arange", [], start=0, end=8)   # equal to r, but another value (until CSE merges them)
    assert key(b.create("sub", [r, s])) != key(b.create("sub", [s, r]))
    assert key(b.create("mul", [r, r])) != key(b.create("mul", [s, s]))


def test_attributes_count():
    b = ir.Builder()
    r = b.value("arange", [], start=0, end=8)
    lt, le = b.create("cmp", [r, r], {"predicate": "lt"}), b.create("cmp", [r, r], {"predicate": "le"})
    assert key(lt) != key(le)
    assert key(b.create("arange", [], {"start": 0, "end": 8})) != key(b.create("arange", [], {"start": 0, "end": 4}))


def test_lists_and_tuples_are_alike():
    b = ir.Builder()
    c = b.constant(1, ir.int32)
    assert key(b.create("splat", [c], {"shape": [4, 2]})) == key(b.create("splat", [c], {"shape": (4, 2)}))


@pytest.mark.parametrize("a, a_type, b, b_type", [
    (1, ir.int32, 1, ir.int64), (1, ir.int32, True, ir.int1), (1.0, ir.float32, 1.0, ir.float16),
    (0.0, ir.float32, -0.0, ir.float32), (2.0, ir.float32, 3.0, ir.float32),
])
def test_different_constants(a, a_type, b, b_type):
    builder = ir.Builder()
    assert key(builder.create("constant", [], {"value": a, "dtype": a_type})) != \
        key(builder.create("constant", [], {"value": b, "dtype": b_type}))


def test_ops_that_must_never_merge():
    x = pointer_arg("x_ptr")
    b = ir.Builder()
    ptrs = pointers(b, x, b.value("arange", [], start=0, end=4))
    assert key(b.create("load", [ptrs])) is None
    assert key(b.create("store", [ptrs, b.value("load", [ptrs])])) is None
    loop = for_loop(b, 0, 4, b.value("load", [ptrs]), lambda inner, i, acc: acc)
    assert key(loop) is None


def test_eliminate_merges_and_keeps_the_ir_valid():
    x, out = pointer_arg("x_ptr"), pointer_arg("out_ptr")
    b = ir.Builder()
    offsets_a = b.value("arange", [], start=0, end=8)
    offsets_b = b.value("arange", [], start=0, end=8)
    value = b.value("load", [pointers(b, x, offsets_a)])
    b.create("store", [pointers(b, out, offsets_b), value])
    fn = ir.Function("copy", [x, out], b.block)
    assert impl.eliminate_common_subexpressions(fn) == 1
    assert [op.name for op in fn.body.ops] == ["arange", "splat", "addptr", "load", "splat", "addptr", "store"]
    ir.verify(fn)


def test_negative_zero_survives():
    """where(c, 0.0, -0.0) must keep both constants: merging them would change the sign of results."""
    b = ir.Builder()
    zero, negative_zero = b.constant(0.0, ir.float32), b.constant(-0.0, ir.float32)
    cond = b.constant(True, ir.int1)
    b.value("select", [cond, zero, negative_zero])
    fn = ir.Function("signs", [], b.block)
    assert impl.eliminate_common_subexpressions(fn) == 0


# Exercise mode: your `cse_key` decides what the compiler's CSE merges, in real kernels.

@triton.jit
def twice(x_ptr, out_ptr, sign_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    before = tl.load(x_ptr + offsets, mask=offsets < n)              # offsets < n, x_ptr + offsets: twice
    tl.store(x_ptr + offsets, before + 1.0, mask=offsets < n)
    after = tl.load(x_ptr + offsets, mask=offsets < n)               # the same load, after a store
    tl.store(out_ptr + offsets, after * 2.0 + before, mask=offsets < n)
    tl.store(sign_ptr + offsets, tl.where(before > 0, 0.0, -0.0), mask=offsets < n)


x32 = np.zeros(1, np.float32)
KERNELS = {
    "twice": (twice, (x32, x32, x32, 1000), dict(BLOCK=256)),
    "softmax": (softmax_kernel, (x32, x32, 784, 784, 100, 784), dict(BLOCK_SIZE=1024, num_stages=2)),
    "layer norm": (_layer_norm_fwd_fused, (x32,) * 6 + (304, 300, 1e-5), dict(BLOCK_SIZE=128)),
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_your_key_compiles_the_kernel_the_compiler_does(name):
    kernel, args, constexprs = KERNELS[name]
    with exercise_hooks.use({"simplify.cse_key": impl.cse_key}):
        yours = kernel.warmup(*args, **constexprs).asm["ttir"]
    assert yours == kernel.warmup(*args, **constexprs).asm["ttir"]


def test_a_kernel_merged_by_your_key_runs_right():
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    given = x.copy()
    out, sign = np.full(1000, np.nan, np.float32), np.full(1000, np.nan, np.float32)
    with exercise_hooks.use({"simplify.cse_key": impl.cse_key}):
        twice[(4,)](x, out, sign, 1000, BLOCK=256)
        ttir = twice.warmup(x, out, sign, 1000, BLOCK=256).asm["ttir"]
    np.testing.assert_array_equal(out, (given + np.float32(1)) * np.float32(2) + given)
    np.testing.assert_array_equal(np.signbit(sign), given <= 0)
    assert ttir.count(" = cmp ") == 2, "offsets < n once, before > 0 once:\n" + ttir
