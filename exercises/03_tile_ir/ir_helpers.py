"""Small kernels built by hand with `ir.Builder`, shared by the tests of chapter 3's exercises."""
from minitriton import ir

F32_PTR = ir.pointer_type(ir.float32)


def pointer_arg(name: str, pointee: ir.DType = ir.float32) -> ir.Value:
    return ir.Value(ir.scalar(ir.pointer_type(pointee)), name=name)


def pointers(b: ir.Builder, base: ir.Value, offsets: ir.Value) -> ir.Value:
    """base + offsets, as a tile of pointers of offsets' shape."""
    return b.value("addptr", [b.value("splat", [base], shape=offsets.shape), offsets])


def for_loop(b: ir.Builder, lower: int, upper: int, init: ir.Value, body) -> ir.Op:
    """A `for` op carrying one value: body(builder, induction variable, carried) returns the next."""
    bounds = [b.constant(v, ir.int32) for v in (lower, upper, 1)]
    block = ir.Block([ir.Value(ir.scalar(ir.int32)), ir.Value(init.type)])
    inner = ir.Builder(block)
    inner.create("yield", [body(inner, *block.args)])
    return b.region_op("for", bounds + [init], [init.type], [block])
