"""Tile IR: the printer's text, the verifier's refusals, and the simplify pass, on IR built by hand
and on the tutorials' kernels."""
import numpy as np
import pytest

from minitriton import ir
from minitriton.examples import tutorials
from minitriton.frontend import generate
from minitriton.interpreter import Memory, interpret
from minitriton.ir import VerificationError
from minitriton.specialize import arg_spec, specialize
from minitriton.passes.simplify import simplify

F32_PTR = ir.pointer_type(ir.float32)


def scale_kernel_ir() -> ir.Function:
    """A kernel written op by op: a masked load, a loop, a branch, casts, a masked store."""
    x_ptr = ir.Value(ir.scalar(F32_PTR), name="x_ptr")
    n = ir.Value(ir.scalar(ir.int32), name="n")
    b = ir.Builder()
    pid = b.value("program_id", [], axis=0)
    one = b.constant(1, ir.int32)
    block = b.constant(128, ir.int32)
    start = b.value("mul", [pid, block])
    offs = b.value("add", [b.value("splat", [start], shape=(128,)), b.value("arange", [], start=0, end=128)])
    mask = b.value("cmp", [offs, b.value("splat", [n], shape=(128,))], predicate="lt")
    ptrs = b.value("addptr", [b.value("splat", [x_ptr], shape=(128,)), offs])
    other = b.value("splat", [b.constant(0.0, ir.float32)], shape=(128,))
    x = b.value("load", [ptrs, mask, other])
    body = ir.Block([ir.Value(ir.scalar(ir.int32)), ir.Value(x.type)])
    inner = ir.Builder(body)
    inner.create("yield", [inner.value("add", [body.args[1], x])])
    loop = b.region_op("for", [b.constant(0, ir.int32), n, one, x], [x.type], [body])
    then, otherwise = ir.Block(), ir.Block()
    ir.Builder(then).create("yield", [ir.Builder(then).value("neg", [loop.result])])
    ir.Builder(otherwise).create("yield", [loop.result])
    branch = b.region_op("if", [b.value("cmp", [pid, one], predicate="eq")], [x.type], [then, otherwise])
    half = b.value("cast", [branch.result], dtype=ir.float16)
    b.create("store", [ptrs, b.value("cast", [half], dtype=ir.float32), mask])
    return ir.Function("scale", [x_ptr, n], b.block, [{"divisibility": 16}, {}])


GOLDEN = """\
func @scale(%x_ptr: !ptr<f32> {divisibility=16}, %n: i32) {
  %0 = program_id {axis=0} : i32
  %1 = constant 1 : i32
  %2 = constant 128 : i32
  %3 = mul %0, %2 : i32
  %4 = splat %3 {shape=[128]} : tile<128xi32>
  %5 = arange {start=0, end=128} : tile<128xi32>
  %6 = add %4, %5 : tile<128xi32>
  %7 = splat %n {shape=[128]} : tile<128xi32>
  %8 = cmp %6, %7 {predicate='lt'} : tile<128xi1>
  %9 = splat %x_ptr {shape=[128]} : tile<128x!ptr<f32>>
  %10 = addptr %9, %6 : tile<128x!ptr<f32>>
  %11 = constant 0.0 : f32
  %12 = splat %11 {shape=[128]} : tile<128xf32>
  %13 = load %10, %8, %12 : tile<128xf32>
  %14 = constant 0 : i32
  %15 = for %14, %n, %1, %13 : tile<128xf32>
    ^body(%16: i32, %17: tile<128xf32>):
      %18 = add %17, %13 : tile<128xf32>
      yield %18
  %19 = cmp %0, %1 {predicate='eq'} : i1
  %20 = if %19 : tile<128xf32>
    ^then():
      %21 = neg %15 : tile<128xf32>
      yield %21
    ^else():
      yield %15
  %22 = cast %20 {dtype=f16} : tile<128xf16>
  %23 = cast %22 {dtype=f32} : tile<128xf32>
  store %10, %23, %8
}"""


# ------------------------------------------------------------------------------------- printer

def test_printer_golden_text():
    fn = scale_kernel_ir()
    ir.verify(fn)
    assert ir.print_function(fn) == GOLDEN


def test_printer_shows_locations_when_asked():
    fn = scale_kernel_ir()
    fn.body.ops[0].loc = ir.Loc("kernel.py", 12, 4)
    text = ir.print_function(fn, show_locs=True)
    assert "%0 = program_id {axis=0} : i32  // line 12" in text


def test_hand_built_kernel_runs():
    fn = scale_kernel_ir()
    x = np.arange(200, dtype=np.float32)
    memory = Memory()
    address = memory.add(x, "x_ptr")
    interpret(fn, (2, 1, 1), [address, 200], memory)
    expected = np.arange(200, dtype=np.float32) * 201  # x, plus x added n = 200 times
    expected[128:] *= -1  # program 1 takes the branch
    np.testing.assert_array_equal(x, expected.astype(np.float16).astype(np.float32))


def test_types_print_as_the_ir_writes_them():
    assert str(ir.scalar(ir.int1)) == "i1"
    assert str(ir.tile((16, 32), ir.bfloat16)) == "tile<16x32xbf16>"
    assert str(ir.tile((4,), ir.pointer_type(ir.uint8))) == "tile<4x!ptr<u8>>"
    assert str(ir.pointer_type(ir.float16)) == "pointer<fp16>"


# ------------------------------------------------------------------------------------ verifier

def _fn(block: ir.Block, *args: ir.Value) -> ir.Function:
    return ir.Function("bad", list(args), block, [{} for _ in args])


def test_verifier_rejects_type_mismatch():
    b = ir.Builder()
    a, f = b.constant(1, ir.int32), b.constant(1.0, ir.float32)
    b.block.ops.append(ir.Op("add", [a, f], [ir.Value(ir.scalar(ir.int32))]))
    with pytest.raises(VerificationError, match="add: operands must have one type"):
        ir.verify(_fn(b.block))


def test_verifier_rejects_wrong_result_type():
    b = ir.Builder()
    a = b.constant(1, ir.int32)
    b.block.ops.append(ir.Op("add", [a, a], [ir.Value(ir.scalar(ir.int64))]))
    with pytest.raises(VerificationError, match=r"add: results typed \['i64'\], the rule gives \['i32'\]"):
        ir.verify(_fn(b.block))


def test_verifier_rejects_an_attribute_the_protocol_does_not_list():
    """Every attribute a pass writes has its row in ir.ATTRS (who writes it, who reads it)."""
    b = ir.Builder()
    a = b.constant(1, ir.int32)
    b.block.ops.append(ir.Op("add", [a, a], [ir.Value(ir.scalar(ir.int32))], {"vector_width": 4}))
    with pytest.raises(VerificationError, match="add: attribute vector_width is not in ir.attrs.ATTRS"):
        ir.verify(_fn(b.block))
    fn = _fn(ir.Builder().block)
    fn.attrs["scratch"] = 16
    with pytest.raises(VerificationError, match="function bad: attribute scratch"):
        ir.verify(fn)


def test_the_protocol_table_names_its_writers_and_readers():
    for key, attr in ir.ATTRS.items():
        assert attr.on and attr.writer and attr.readers and attr.meaning, key


def test_the_printer_shows_what_the_passes_decided():
    fn = _fn(ir.Builder().block)
    fn.attrs.update(shared_bytes=1024, buffer_offsets={"ring0": 0})
    assert "// shared_bytes=1024, buffer_offsets={ring0: 0}" in ir.print_function(fn)


def test_the_printer_names_each_layout_once_by_an_alias():
    """As Triton's MLIR does: `#blocked0 = #blocked<{...}>` above the function, the alias on each
    line; equal layouts share one alias; a slice names its parent by the parent's alias."""
    from minitriton.layouts import BlockedLayout, SliceLayout

    rows = BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0))
    cols = BlockedLayout((4, 1), (8, 4), (1, 4), (0, 1))
    b = ir.Builder()
    values = [b.value("arange", [], start=0, end=16) for _ in range(4)]
    for value, layout in zip(values, [rows, cols, BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0)),
                                      SliceLayout(1, cols)]):
        value.layout = layout
    text = ir.print_function(_fn(b.block))
    assert text.splitlines()[:3] == [f"#blocked0 = {rows}", f"#blocked1 = {cols}",
                                     "#slice0 = #slice<{dim=1, parent=#blocked1}>"]
    lines = [line for line in text.splitlines() if "arange" in line]
    assert [line.split()[-1] for line in lines] == ["#blocked0", "#blocked1", "#blocked0", "#slice0"]
    assert text.count("sizePerThread") == 2


def test_the_printer_breaks_a_long_header_one_argument_a_line():
    args = [ir.Value(ir.scalar(F32_PTR), name=f"pointer_number_{i}") for i in range(4)]
    text = ir.print_function(ir.Function("wide", args, ir.Builder().block, [{"divisibility": 16}] * 4))
    assert text.splitlines()[:2] == ["func @wide(", "    %pointer_number_0: !ptr<f32> {divisibility=16},"]
    assert text.splitlines()[4:6] == ["    %pointer_number_3: !ptr<f32> {divisibility=16}", ") {"]
    assert max(map(len, text.splitlines())) <= ir.Printer.WIDTH


def test_verifier_rejects_use_before_definition():
    b = ir.Builder()
    a = b.constant(1, ir.int32)
    total = b.value("add", [a, a])
    b.block.ops.reverse()  # the add now comes before the constant it reads
    with pytest.raises(VerificationError, match="used before it is defined"):
        ir.verify(_fn(b.block))
    assert total.owner.name == "add"


def test_verifier_rejects_a_value_leaking_out_of_a_region():
    n = ir.Value(ir.scalar(ir.int32), name="n")
    b = ir.Builder()
    body = ir.Block([ir.Value(ir.scalar(ir.int32))])
    inner = ir.Builder(body)
    hidden = inner.value("add", [body.args[0], body.args[0]])
    inner.create("yield", [])
    zero, one = b.constant(0, ir.int32), b.constant(1, ir.int32)
    b.region_op("for", [zero, n, one], [], [body])
    b.value("add", [hidden, hidden])  # `hidden` lives only inside the loop body
    with pytest.raises(VerificationError, match="used before it is defined"):
        ir.verify(_fn(b.block, n))


def test_verifier_rejects_bad_yield():
    n = ir.Value(ir.scalar(ir.int32), name="n")
    b = ir.Builder()
    init = b.constant(0.0, ir.float32)
    body = ir.Block([ir.Value(ir.scalar(ir.int32)), ir.Value(ir.scalar(ir.float32))])
    inner = ir.Builder(body)
    inner.create("yield", [body.args[0]])  # yields the i32 induction variable for an f32 carried value
    zero, one = b.constant(0, ir.int32), b.constant(1, ir.int32)
    b.region_op("for", [zero, n, one, init], [init.type], [body])
    with pytest.raises(VerificationError, match="yield must match the carried values"):
        ir.verify(_fn(b.block, n))


def test_verifier_rejects_region_without_terminator():
    b = ir.Builder()
    cond = b.value("cmp", [b.constant(1, ir.int32), b.constant(2, ir.int32)], predicate="lt")
    b.region_op("if", [cond], [], [ir.Block(), ir.Block()])
    with pytest.raises(VerificationError, match="must end in yield"):
        ir.verify(_fn(b.block))


def test_verifier_rejects_if_on_a_tile():
    b = ir.Builder()
    r = b.value("arange", [], start=0, end=4)
    cond = b.value("cmp", [r, r], predicate="eq")
    then, otherwise = ir.Block(), ir.Block()
    ir.Builder(then).create("yield", [])
    ir.Builder(otherwise).create("yield", [])
    b.region_op("if", [cond], [], [then, otherwise])
    with pytest.raises(VerificationError, match="condition must be a scalar int1"):
        ir.verify(_fn(b.block))


def test_builder_rejects_bad_operands_at_once():
    b = ir.Builder()
    with pytest.raises(VerificationError, match="range length must be a power of two"):
        b.value("arange", [], start=0, end=12)
    a = b.value("arange", [], start=0, end=8)
    with pytest.raises(VerificationError, match=r"cannot broadcast \(8,\) to \(4,\)"):
        b.value("broadcast", [a], shape=(4,))
    with pytest.raises(VerificationError, match="needs float elements"):
        b.value("exp", [a])
    with pytest.raises(VerificationError, match="unknown kind"):
        b.value("reduce", [a], axis=0, kind="median")


# ------------------------------------------------------------------------------------ simplify

def _ops(fn: ir.Function) -> list[str]:
    return [op.name for op in fn.walk()]


def test_simplify_merges_common_subexpressions():
    x_ptr = ir.Value(ir.scalar(F32_PTR), name="x_ptr")
    b = ir.Builder()
    r1 = b.value("arange", [], start=0, end=8)
    r2 = b.value("arange", [], start=0, end=8)
    p1 = b.value("addptr", [b.value("splat", [x_ptr], shape=(8,)), r1])
    p2 = b.value("addptr", [b.value("splat", [x_ptr], shape=(8,)), r2])
    a, c = b.value("load", [p1]), b.value("load", [p2])  # loads are never merged: memory may change
    b.create("store", [p1, b.value("add", [a, c])])
    fn = simplify(_fn(b.block, x_ptr))
    assert _ops(fn) == ["arange", "splat", "addptr", "load", "load", "add", "store"]
    store = fn.body.ops[-1]
    loads = [op for op in fn.walk() if op.name == "load"]
    assert loads[0].operands[0] is loads[1].operands[0] is store.operands[0]


def test_simplify_removes_dead_code():
    x_ptr = ir.Value(ir.scalar(F32_PTR), name="x_ptr")
    b = ir.Builder()
    r = b.value("arange", [], start=0, end=8)
    unused = b.value("mul", [r, r])
    b.value("exp", [b.value("cast", [unused], dtype=ir.float32)])  # a dead chain
    p = b.value("addptr", [b.value("splat", [x_ptr], shape=(8,)), r])
    b.value("load", [p])  # a load nobody reads stays: it is not known to be safe to drop
    b.create("store", [p, b.value("splat", [b.constant(1.0, ir.float32)], shape=(8,))])
    fn = simplify(_fn(b.block, x_ptr))
    assert _ops(fn) == ["arange", "splat", "addptr", "load", "constant", "splat", "store"]


def test_simplify_folds_double_transpose():
    x_ptr = ir.Value(ir.scalar(F32_PTR), name="x_ptr")
    b = ir.Builder()
    rows = b.value("expand_dims", [b.value("arange", [], start=0, end=4)], axis=1)
    cols = b.value("expand_dims", [b.value("arange", [], start=0, end=8)], axis=0)
    offs = b.value("add", [b.value("broadcast", [rows], shape=(4, 8)),
                           b.value("broadcast", [cols], shape=(4, 8))])
    ptrs = b.value("addptr", [b.value("splat", [x_ptr], shape=(4, 8)), offs])
    x = b.value("load", [ptrs])
    t = b.value("trans", [x], perm=(1, 0))
    back = b.value("trans", [t], perm=(1, 0))
    same = b.value("reshape", [back], shape=(4, 8))  # a reshape to its own shape is nothing too
    b.create("store", [ptrs, same])
    fn = simplify(_fn(b.block, x_ptr))
    assert "trans" not in _ops(fn) and "reshape" not in _ops(fn)
    assert fn.body.ops[-1].operands[1] is x


def test_simplify_keeps_a_real_permutation():
    b = ir.Builder()
    r = b.value("reshape", [b.value("arange", [], start=0, end=8)], shape=(2, 4))
    t = b.value("trans", [r], perm=(1, 0))
    b.create("print", [t], {"prefix": "", "hex": False})
    fn = simplify(_fn(b.block))
    assert _ops(fn) == ["arange", "reshape", "trans", "print"]


def test_cse_sees_outer_values_in_regions_but_not_the_reverse():
    n = ir.Value(ir.scalar(ir.int32), name="n")
    b = ir.Builder()
    outer = b.value("mul", [n, n])
    body = ir.Block([ir.Value(ir.scalar(ir.int32))])
    inner = ir.Builder(body)
    again = inner.value("mul", [n, n])  # the same as `outer`: replaced by it
    inside = inner.value("add", [again, body.args[0]])
    inner.create("print", [inside], {"prefix": "", "hex": False})
    inner.create("yield", [])
    b.region_op("for", [b.constant(0, ir.int32), n, b.constant(1, ir.int32)], [], [body])
    after = b.value("add", [outer, outer])  # must not be merged with anything inside the loop
    b.create("print", [after], {"prefix": "", "hex": False})
    fn = simplify(_fn(b.block, n))
    loop = next(op for op in fn.walk() if op.name == "for")
    assert [op.name for op in loop.regions[0].ops] == ["add", "print", "yield"]
    assert loop.regions[0].ops[0].operands[0] is outer
    assert fn.body.ops[-2].name == "add" and fn.body.ops[-2].operands == [outer, outer]


# ----------------------------------------------------------------------- the tutorials' kernels

def _generate(kernel, args: dict, constexprs: dict) -> ir.Function:
    specs = {name: arg_spec(specialize(name, value)) for name, value in args.items()}
    return generate(kernel, specs, constexprs)


X = np.zeros(64 * 64, np.float32)
H = np.zeros(64 * 64, np.float16)
TUTORIALS = {
    "add": (tutorials.add_kernel, dict(x_ptr=X, y_ptr=X, output_ptr=X, n_elements=100), dict(BLOCK_SIZE=64)),
    "softmax": (tutorials.softmax_kernel, dict(output_ptr=X, input_ptr=X, input_row_stride=64,
                                               output_row_stride=64, n_rows=5, n_cols=50),
                dict(BLOCK_SIZE=64, num_stages=2)),
    "matmul": (tutorials.matmul_kernel, dict(a_ptr=H, b_ptr=H, c_ptr=H, M=64, N=64, K=64, stride_am=64,
                                             stride_ak=1, stride_bk=64, stride_bn=1, stride_cm=64, stride_cn=1),
               dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=4,
                    ACTIVATION="leaky_relu")),
    "dropout": (tutorials._seeded_dropout, dict(x_ptr=X, output_ptr=X, n_elements=100, p=0.5, seed=7),
                dict(BLOCK_SIZE=64)),
    "layer_norm": (tutorials._layer_norm_fwd_fused, dict(X=X, Y=X, W=X, B=X, Mean=X, Rstd=X, stride=64, N=50,
                                                         eps=1e-5), dict(BLOCK_SIZE=64)),
}


def _duplicates(block: ir.Block, visible: set) -> list[ir.Op]:
    """Pure ops computing what an op before them (in this block or an enclosing one) computes."""
    visible, found = set(visible), []
    for op in block.ops:
        for region in op.regions:
            found += _duplicates(region, visible)
        if op.name in ir.EFFECTS or op.regions or not op.results:
            continue
        key = (op.name, tuple(id(v) for v in op.operands), repr(sorted(op.attrs.items())))
        if key in visible:
            found.append(op)
        visible.add(key)
    return found


@pytest.mark.parametrize("name", sorted(TUTORIALS))
def test_tutorial_kernels_verify_after_simplify(name):
    kernel, args, constexprs = TUTORIALS[name]
    fn = _generate(kernel, args, constexprs)
    ir.verify(fn)
    before = len(list(fn.walk()))
    fn = simplify(fn)
    ir.verify(fn)
    assert len(list(fn.walk())) <= before
    text = ir.print_function(fn)
    assert text.startswith(f"func @{kernel.__name__}(")
    assert not _duplicates(fn.body, set()), "simplify leaves no pure op that an earlier one computes"


@pytest.mark.parametrize("name", ["add", "softmax", "layer_norm", "dropout"])
def test_simplify_preserves_meaning(name):
    """The interpreter gives the same results before and after simplify (the pass's law), the
    multiply-adds left unfused: fusing them is the one rewrite that rounds differently (below)."""
    kernel, args, constexprs = TUTORIALS[name]
    results = []
    for clean in (False, True):
        fn = _generate(kernel, args, constexprs)
        if clean:
            fn = simplify(fn, fp_fusion=False)
        memory, values, arrays = Memory(), [], []
        for arg in fn.args:
            value = args[arg.name]
            if isinstance(value, np.ndarray):
                data = np.random.default_rng(len(arrays)).standard_normal(value.size).astype(value.dtype)
                arrays.append(data)
                values.append(memory.add(data, arg.name))
            else:
                values.append(value)
        interpret(fn, (3, 1, 1), values, memory)
        results.append(arrays)
    for before, after in zip(*results):
        np.testing.assert_array_equal(before, after)
