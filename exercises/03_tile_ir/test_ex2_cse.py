"""Tests for exercise 3.2: run with `make exercise CH=3 EX=2`."""
import pytest
from _impl import load
from ir_helpers import for_loop, pointer_arg, pointers

from minitriton import ir

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
