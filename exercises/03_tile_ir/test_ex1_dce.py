"""Tests for exercise 3.1: run with `make exercise CH=3 EX=1`."""
from _impl import load
from ir_helpers import for_loop, pointer_arg, pointers

from minitriton import ir

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
