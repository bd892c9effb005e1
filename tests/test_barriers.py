"""The barrier pass on hand-built IR, where the right answer is known.

Each shared-memory op here is a `convert_layout` with a buffer (`smem_offset`, `smem_bytes`): it
writes the buffer, waits at its own barrier, then reads it. A barrier is needed before an op whose
bytes another op touched since the last barrier, and nowhere else.
"""
from minitriton import ir
from minitriton.passes.barriers import insert_barriers


def shared_op(b: ir.Builder, x: ir.Value, offset: int, size: int) -> ir.Value:
    op = b.create("convert_layout", [x])
    op.attrs.update(smem_offset=offset, smem_bytes=size)
    return op.result


def kernel(body) -> ir.Function:
    b = ir.Builder()
    x = b.value("arange", [], start=0, end=128)
    body(b, x)
    return ir.Function("k", [], b.block)


def names(block: ir.Block) -> list[str]:
    out = []
    for op in block.ops:
        out.append(op.name + (f"@{op.attrs['smem_offset']}" if "smem_offset" in op.attrs else ""))
        out.extend(f"  {n}" for region in op.regions for n in names(region))
    return out


def test_one_op_needs_no_barrier():
    fn = insert_barriers(kernel(lambda b, x: shared_op(b, x, 0, 512)))
    assert "barrier" not in names(fn.body)


def test_reusing_a_buffer_needs_one_barrier():
    def body(b, x):
        shared_op(b, x, 0, 512)
        shared_op(b, x, 0, 512)
    fn = insert_barriers(kernel(body))
    assert names(fn.body) == ["arange", "convert_layout@0", "barrier", "convert_layout@0"]


def test_disjoint_buffers_need_none():
    def body(b, x):
        shared_op(b, x, 0, 512)
        shared_op(b, x, 512, 512)
    fn = insert_barriers(kernel(body))
    assert "barrier" not in names(fn.body)


def test_partial_overlap_needs_one():
    def body(b, x):
        shared_op(b, x, 0, 512)
        shared_op(b, x, 256, 512)
        shared_op(b, x, 1024, 64)
    fn = insert_barriers(kernel(body))
    assert names(fn.body) == ["arange", "convert_layout@0", "barrier", "convert_layout@256", "convert_layout@1024"]


def test_an_explicit_barrier_already_separates_them():
    def body(b, x):
        shared_op(b, x, 0, 512)
        b.create("barrier", [])
        shared_op(b, x, 0, 512)
    fn = insert_barriers(kernel(body))
    assert names(fn.body).count("barrier") == 1


def loop(b: ir.Builder, inner) -> None:
    lb, ub, step = (b.constant(v, ir.int32) for v in (0, 4, 1))
    body = ir.Block([ir.Value(ir.scalar(ir.int32))])
    saved, b.block = b.block, body
    inner(b)
    b.create("yield", [])
    b.block = saved
    b.region_op("for", [lb, ub, step], [], [body])


def test_the_back_edge_of_a_loop_needs_a_barrier():
    """One op in a loop: iteration 2 writes what iteration 1's threads may still be reading."""
    def body(b, x):
        loop(b, lambda b: shared_op(b, x, 0, 512))
    fn = insert_barriers(kernel(body))
    assert names(fn.body) == ["arange", "constant", "constant", "constant", "for", "  barrier",
                              "  convert_layout@0", "  yield"]


def test_a_loop_of_two_disjoint_buffers_needs_none():
    """Across the back edge, the second op's own barrier already orders the first op's reads of
    the last iteration before its writes in the next: no barrier is added."""
    def body(b, x):
        shared_op(b, x, 0, 256)
        loop(b, lambda b: (shared_op(b, x, 256, 256), shared_op(b, x, 512, 256)))
    fn = insert_barriers(kernel(body))
    assert "barrier" not in [n.strip() for n in names(fn.body)]


def test_a_barrier_after_an_if_that_used_the_buffer_in_one_branch():
    def body(b, x):
        cond = b.constant(True, ir.int1)
        then, other = ir.Block(), ir.Block()
        saved, b.block = b.block, then
        shared_op(b, x, 0, 512)
        b.create("yield", [])
        b.block = other
        b.create("yield", [])
        b.block = saved
        b.region_op("if", [cond], [], [then, other])
        shared_op(b, x, 0, 512)
    fn = insert_barriers(kernel(body))
    assert names(fn.body)[-2:] == ["barrier", "convert_layout@0"]
    assert names(fn.body).count("barrier") == 1


def test_a_rings_first_copy_waits_for_reads_before_it_even_after_another_copy():
    """cp.async (`async_load`) has no barrier of its own and its writes land whenever, so a copy
    orders nothing before it: a ring's first copy into bytes a conversion read since the last
    barrier needs one, even with another ring's copy between them. (Without it, in a pipelined
    gather, a thread's copy overwrote row numbers another thread was still reading in the
    prologue's conversion: an illegal address on the GPU.)"""
    def body(b, x):
        shared_op(b, x, 0, 256)  # the conversion of the row numbers
        for offset, size in ((24576, 12288), (0, 24576)):  # ring0's first copy, then ring1's
            b.block.ops.append(ir.Op("async_load", [], [], {"smem_offset": offset, "smem_bytes": size}, [], None))
    assert names(insert_barriers(kernel(body)).body)[1:] == \
        ["convert_layout@0", "async_load@24576", "barrier", "async_load@0"]
