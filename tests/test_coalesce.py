"""passes/coalesce: axis analysis facts, the vector width and order of each access, and the PTX they give.

Facts are checked three ways: on hand-built IR where the answer is worked out by hand; on the
tutorial kernels' loads and stores; and against the values the interpreter actually computes (every
op of every program, every loop trip), which is what makes a wrong rule show up as a failure rather
than as a misaligned vector load on a GPU.
"""
import re

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import interpreter, ir
from minitriton.codegen.memory import vector_width
from minitriton.examples.tutorials import (_layer_norm_fwd_fused, _seeded_dropout, add_kernel, matmul_kernel,
                                           softmax_kernel)
from minitriton.frontend import generate
from minitriton.specialize import arg_spec, specialize
from minitriton.layouts import BlockedLayout, SliceLayout
from minitriton.passes.axis_info import MAX_DIVISOR, AxisInfo
from minitriton.passes.coalesce import AxisAnalysis, coalesce, print_axis_info
from minitriton.passes.layout import blocked_for
from minitriton.passes.simplify import simplify
from test_agreement import embedding_grad_kernel  # an embedding's backward: atomic adds of rows

BIG = MAX_DIVISOR
INTERPRETER_RULES = dict(interpreter.RULES)  # the interpreter's own, before any test wraps them


# ---------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------

def aligned(n: int, dtype, offset_bytes: int = 0) -> np.ndarray:
    """A zeroed array of `n` elements whose address is 64-byte aligned plus `offset_bytes`."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 64 + offset_bytes, np.uint8)
    start = -raw.ctypes.data % 64 + offset_bytes
    return raw[start:start + n * dtype.itemsize].view(dtype)


def tile_ir(kernel, *args, **constexprs) -> ir.Function:
    """The simplified tile IR of one specialization, as the compiler makes it for these arguments."""
    bound = kernel.bind(args, constexprs)
    specs = {n: arg_spec(specialize(n, v)) for n, v in bound.items() if n not in kernel.constexpr_names}
    consts = {n: v for n, v in bound.items() if n in kernel.constexpr_names}
    return simplify(generate(kernel, specs, consts))


def accesses(fn: ir.Function) -> list[ir.Op]:
    return [op for op in fn.walk() if op.name in ("load", "store", "atomic") and "vector" in op.attrs]


def widths(fn: ir.Function) -> list[tuple[str, int, int]]:
    return [(op.name, op.attrs["contig_dim"], op.attrs["vector"]) for op in accesses(fn)]


def ptx_counts(ptx: str) -> dict[str, int]:
    patterns = {"ld.v4": r"ld\.global\.v4\.b32", "ld.b32": r"ld\.global\.b32", "st.v4": r"st\.global\.v4\.b32",
                "st.b32": r"st\.global\.b32"}
    return {name: len(re.findall(p, ptx)) for name, p in patterns.items()}


class Kernel:
    """Hand-built tile IR: `k.arg(...)` makes arguments, `k.b` appends ops, `k.done()` verifies."""

    def __init__(self):
        self.b = ir.Builder()
        self.args, self.arg_attrs = [], []

    def arg(self, name: str, dtype: ir.DType, divisibility: int | None = None) -> ir.Value:
        value = ir.Value(ir.scalar(dtype), name=name)
        self.args.append(value)
        self.arg_attrs.append({"divisibility": divisibility} if divisibility else {})
        return value

    def done(self) -> ir.Function:
        fn = ir.Function("k", self.args, self.b.block, self.arg_attrs)
        ir.verify(fn)
        return fn


F32_PTR = ir.pointer_type(ir.float32)


# ---------------------------------------------------------------------------------------------------
# Axis facts of hand-built IR
# ---------------------------------------------------------------------------------------------------

def test_vector_add_index_facts():
    k = Kernel()
    x = k.arg("x", F32_PTR, 16)
    n16, n = k.arg("n16", ir.int32, 16), k.arg("n", ir.int32)
    b = k.b
    start = b.value("mul", [b.value("program_id", [], axis=0), b.constant(1024, ir.int32)])
    offsets = b.value("add", [b.value("splat", [start], shape=(1024,)), b.value("arange", [], start=0, end=1024)])
    ptrs = b.value("addptr", [b.value("splat", [x], shape=(1024,)), offsets])
    mask16 = b.value("cmp", [offsets, b.value("splat", [n16], shape=(1024,))], predicate="lt")
    mask = b.value("cmp", [offsets, b.value("splat", [n], shape=(1024,))], predicate="lt")
    facts = AxisAnalysis(k.done())
    assert facts[start] == AxisInfo((1,), (1024,), (1,))
    assert facts[offsets] == AxisInfo((1024,), (1024,), (1,))
    assert facts[ptrs] == AxisInfo((1024,), (16,), (1,))  # bytes: x is 16-aligned, offsets *4 more so
    assert facts[mask16].constancy == (16,)  # [16k, 16k+16) lies wholly below n16 or not
    assert facts[mask].constancy == (1,)
    assert str(facts[offsets]) == "contiguity=[1024], divisibility=[1024], constancy=[1]"


def test_two_dimensional_pointer_facts():
    """x + rows[:, None] * stride + cols[None, :]: consecutive along dim 1, each row 16-aligned."""
    k = Kernel()
    x, stride = k.arg("x", F32_PTR, 16), k.arg("stride", ir.int32, 16)
    b = k.b
    rows = b.value("expand_dims", [b.value("arange", [], start=0, end=64)], axis=1)
    row_offsets = b.value("broadcast", [b.value("mul", [rows, b.value("splat", [stride], shape=(64, 1))])],
                          shape=(64, 32))
    cols = b.value("broadcast", [b.value("expand_dims", [b.value("arange", [], start=0, end=32)], axis=0)],
                   shape=(64, 32))
    offsets = b.value("add", [row_offsets, cols])
    ptrs = b.value("addptr", [b.value("splat", [x], shape=(64, 32)), offsets])
    facts = AxisAnalysis(k.done())
    assert facts[rows] == AxisInfo((64, 1), (BIG, 1), (1, 1))
    assert facts[row_offsets] == AxisInfo((1, 1), (16, 16), (1, 32))
    assert facts[cols] == AxisInfo((1, 32), (1, BIG), (64, 1))
    assert facts[offsets] == AxisInfo((1, 32), (1, 16), (1, 1))
    assert facts[ptrs] == AxisInfo((1, 32), (4, 16), (1, 1))


def test_div_rem_shift_rules():
    k = Kernel()
    b = k.b
    r = b.value("arange", [], start=0, end=64)
    splat = lambda v: b.value("splat", [b.constant(v, ir.int32)], shape=(64,))
    quotient = b.value("div", [r, splat(4)])
    remainder = b.value("rem", [r, splat(16)])
    shifted = b.value("shl", [r, splat(2)])
    times_one = b.value("mul", [r, splat(1)])
    times_eight = b.value("mul", [r, splat(8)])
    anded = b.value("and", [r, splat(12)])
    facts = AxisAnalysis(k.done())
    assert facts[quotient] == AxisInfo((1,), (1,), (4,))  # 0,0,0,0,1,1,1,1,...
    assert facts[remainder] == AxisInfo((16,), (16,), (1,))  # 0..15, 0..15, ...
    assert facts[shifted] == AxisInfo((1,), (4,), (1,))  # 0, 4, 8, ...: every element a multiple of 4
    assert facts[times_one] == facts[r]
    assert facts[times_eight] == AxisInfo((1,), (8,), (1,))  # 0, 8, 16, ...
    assert facts[anded].divisibility == (4,)  # x & 12 keeps 12's two low zero bits


def test_constants_fold_and_splat_carries_the_value():
    k = Kernel()
    b = k.b
    s = b.value("add", [b.constant(48, ir.int32), b.constant(16, ir.int32)])
    tile_ = b.value("splat", [s], shape=(8, 4))
    zero = b.constant(0, ir.int32)
    facts = AxisAnalysis(k.done())
    assert facts[s] == AxisInfo((1,), (64,), (1,), 64)
    assert facts[tile_] == AxisInfo((1, 1), (64, 64), (8, 4), 64)
    assert facts[zero].divisibility == (BIG,)


def test_select_with_a_known_condition_is_its_choice():
    k = Kernel()
    b = k.b
    r = b.value("arange", [], start=0, end=16)
    ones = b.value("splat", [b.constant(1, ir.int32)], shape=(16,))
    pick = lambda flag: b.value("select", [b.value("splat", [b.constant(flag, ir.int1)], shape=(16,)), r, ones])
    first, second = pick(True), pick(False)
    facts = AxisAnalysis(k.done())
    assert facts[first] == facts[r] and facts[second] == facts[ones]


def test_loop_carried_pointer_reaches_a_fixed_point():
    """A pointer advanced by a whole block stays 16-aligned; advanced by one element, only 4-aligned."""
    for step_elements, expected_bytes in ((32, 16), (1, 4)):
        k = Kernel()
        x = k.arg("x", F32_PTR, 16)
        b = k.b
        ptrs = b.value("addptr", [b.value("splat", [x], shape=(32,)), b.value("arange", [], start=0, end=32)])
        lb, ub, step = b.constant(0, ir.int32), b.constant(8, ir.int32), b.constant(32, ir.int32)
        body = ir.Block([ir.Value(ir.scalar(ir.int32)), ir.Value(ptrs.type)])
        inner = ir.Builder(body)
        advanced = inner.value("addptr", [body.args[1], inner.value(
            "splat", [inner.constant(step_elements, ir.int32)], shape=(32,))])
        inner.create("yield", [advanced])
        loop = b.region_op("for", [lb, ub, step, ptrs], [ptrs.type], [body])
        facts = AxisAnalysis(k.done())
        assert facts[body.args[0]] == AxisInfo((1,), (32,), (1,))  # k = 0, 32, 64, ...
        assert facts[body.args[1]] == AxisInfo((32,), (expected_bytes,), (1,))
        assert facts[loop.result] == facts[body.args[1]]


def test_if_results_meet_both_branches():
    k = Kernel()
    flag = k.arg("flag", ir.int1)
    b = k.b
    r = b.value("arange", [], start=0, end=16)
    then_block, else_block = ir.Block(), ir.Block()
    ir.Builder(then_block).create("yield", [r])
    eb = ir.Builder(else_block)
    eb.create("yield", [eb.value("add", [r, eb.value("splat", [eb.constant(8, ir.int32)], shape=(16,))])])
    branch = b.region_op("if", [flag], [r.type], [then_block, else_block])
    facts = AxisAnalysis(k.done())
    assert facts[branch.result] == AxisInfo((16,), (8,), (1,))


def test_hints_override_the_facts():
    k = Kernel()
    base = k.arg("base", ir.int32)
    b = k.b
    gathered = b.value("splat", [base], shape=(64,))
    hinted = b.value("hint", [gathered], divisibility=(16,))
    contiguous = b.value("hint", [hinted], contiguity=(8,))
    of_48 = b.value("hint", [gathered], divisibility=(48,))
    facts = AxisAnalysis(k.done())
    assert facts[gathered] == AxisInfo((1,), (1,), (64,))
    assert facts[contiguous] == AxisInfo((8,), (16,), (64,))
    assert facts[of_48].divisibility == (16,)  # a multiple of 48 is one of 16, not of 32


def test_unknown_ops_know_nothing():
    k = Kernel()
    x = k.arg("x", F32_PTR, 16)
    b = k.b
    ptrs = b.value("addptr", [b.value("splat", [x], shape=(32,)), b.value("arange", [], start=0, end=32)])
    total = b.value("reduce", [b.value("load", [ptrs])], axis=0, kind="sum")
    facts = AxisAnalysis(k.done())
    assert facts[total] == AxisInfo((1,), (1,), (1,))


def test_print_axis_info_annotates_each_op():
    x = aligned(1024, np.float32)
    text = print_axis_info(tile_ir(add_kernel, x, x, x, 1024, BLOCK_SIZE=1024))
    # the facts follow the op on its line, or on the next line where the two would pass 100 columns
    assert re.search(r"arange \{start=0, end=1024\} : tile<1024xi32>\s+// contiguity=\[1024\], "
                     r"divisibility=\[1073741824\]", text)
    assert re.search(r"addptr [^\n]*\s+// contiguity=\[1024\], divisibility=\[16\], constancy=\[1\]", text)
    assert max(map(len, text.splitlines())) <= 100


# ---------------------------------------------------------------------------------------------------
# The decision: vector widths and orders of the tutorial kernels' accesses
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, n, block, num_warps, vector", [
    (np.float32, 1024, 1024, 4, 4),  # 16 bytes per thread per access
    (np.float16, 1024, 1024, 4, 8),
    (np.float64, 1024, 1024, 4, 2),
    (np.int8, 4096, 4096, 4, 16),
    (np.float32, 1000, 1024, 4, 1),  # n is not a multiple of 16: the mask may change inside a vector
    (np.float32, 1024, 256, 4, 2),  # 256 elements over 128 threads: two each
    (np.float32, 1024, 128, 4, 1),
    (np.float32, 1024, 128, 1, 4),
])
def test_vector_add_widths(dtype, n, block, num_warps, vector):
    x = aligned(n, dtype)
    fn = tile_ir(add_kernel, x, x, x, n, BLOCK_SIZE=block)
    decisions = coalesce(fn, num_warps)
    assert widths(fn) == [("load", 0, vector)] * 2 + [("store", 0, vector)]
    assert sorted(decisions.values()) == [((0,), vector)] * 3


def test_misaligned_pointer_gets_scalar_access():
    x, y = aligned(1024, np.float32, offset_bytes=4), aligned(1024, np.float32)
    fn = tile_ir(add_kernel, x, y, y, 1024, BLOCK_SIZE=1024)
    coalesce(fn, 4)
    assert widths(fn) == [("load", 0, 1), ("load", 0, 4), ("store", 0, 4)]


def test_matmul_loads_vectorize_along_the_contiguous_dimension():
    a = aligned(64 * 64, np.float16).reshape(64, 64)
    fn = tile_ir(matmul_kernel, a, a, a, 64, 64, 64, 64, 1, 64, 1, 64, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                 BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="")
    decisions = coalesce(fn, 4)
    a_load, b_load, c_store = accesses(fn)
    assert (a_load.attrs["contig_dim"], a_load.attrs["vector"]) == (1, 8)  # along K: stride_ak == 1
    assert (b_load.attrs["contig_dim"], b_load.attrs["vector"]) == (1, 8)  # along N: stride_bn == 1
    assert (c_store.attrs["contig_dim"], c_store.attrs["vector"]) == (1, 8)
    # The loop carries A's pointers: the value it starts from gets the same decision.
    loop = next(op for op in fn.walk() if op.name == "for")
    assert decisions[id(loop.operands[4])] == ((1, 0), 8)


def test_column_major_a_is_contiguous_along_m():
    a = aligned(64 * 64, np.float16).reshape(64, 64)
    fn = tile_ir(matmul_kernel, a, a, a, 64, 64, 64, 1, 64, 64, 1, 64, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                 BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="")
    decisions = coalesce(fn, 4)
    a_load = accesses(fn)[0]
    assert (a_load.attrs["contig_dim"], a_load.attrs["vector"]) == (0, 8)
    assert decisions[id(a_load.operands[0])] == ((0, 1), 8)


@triton.jit
def transpose_kernel(x_ptr, y_ptr, stride_xn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """y (row-major BLOCK_M x BLOCK_N) = x stored column-major: element (m, n) at m + n * stride_xn."""
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    tile = tl.load(x_ptr + rows[:, None] + cols[None, :] * stride_xn)
    tl.store(y_ptr + rows[:, None] * BLOCK_N + cols[None, :], tile)


def test_transposed_access_gets_order_0_1(monkeypatch):
    xt = np.random.default_rng(0).standard_normal((32, 64)).astype(np.float32)  # x = xt.T is 64 x 32
    y = np.full((64, 32), np.nan, np.float32)
    fn = tile_ir(transpose_kernel, xt, y, 64, BLOCK_M=64, BLOCK_N=32)
    decisions = coalesce(fn, 4)
    load, store = accesses(fn)
    assert decisions[id(load.operands[0])] == ((0, 1), 4)
    assert decisions[id(store.operands[0])] == ((1, 0), 4)
    kernel = transpose_kernel.warmup(xt, y, 64, BLOCK_M=64, BLOCK_N=32, grid=(1,), target="sm_90")
    lines = kernel.asm["layout"].splitlines()
    alias = next(line for line in lines if " load " in line).split()[-1]  # the load's layout, e.g. #blocked1
    definition = next(line for line in lines if line.startswith(f"{alias} = "))
    assert "sizePerThread=[4,1]" in definition and "order=[0,1]" in definition
    assert ptx_counts(kernel.asm["ptx"])["ld.v4"] > 0 and ptx_counts(kernel.asm["ptx"])["st.v4"] > 0
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    transpose_kernel[(1,)](xt, y, 64, BLOCK_M=64, BLOCK_N=32)
    np.testing.assert_array_equal(y, xt.T)


@triton.jit
def offset_copy(x_ptr, y_ptr, starts_ptr, BLOCK: tl.constexpr, HINT: tl.constexpr):
    """Copy BLOCK elements from a start read at run time; HINT promises it is a multiple of 16."""
    pid = tl.program_id(0)
    start = tl.load(starts_ptr + pid)
    if HINT:
        start = tl.multiple_of(start, 16)
    values = tl.load(x_ptr + start + tl.arange(0, BLOCK))
    tl.store(y_ptr + pid * BLOCK + tl.arange(0, BLOCK), values)


@triton.jit
def block_gather(x_ptr, y_ptr, index_ptr, BLOCK: tl.constexpr, HINT: tl.constexpr):
    """y[i] = x[index[i]], where index is made of aligned runs of 4 consecutive positions."""
    offsets = tl.load(index_ptr + tl.arange(0, BLOCK))
    if HINT:
        offsets = tl.max_contiguous(tl.multiple_of(offsets, 4), 4)
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + offsets))


@pytest.mark.parametrize("hint, vector", [(False, 1), (True, 4)])
def test_multiple_of_enables_vectors_from_a_runtime_start(monkeypatch, hint, vector):
    x = np.arange(1024, dtype=np.float32)
    starts = np.array([0, 48, 512, 16, 880], np.int32)
    y = np.full((len(starts), 128), np.nan, np.float32)
    fn = tile_ir(offset_copy, x, y, starts, BLOCK=128, HINT=hint)
    coalesce(fn, 1)
    assert widths(fn) == [("load", 0, vector), ("store", 0, 4)]
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    offset_copy[(len(starts),)](x, y, starts, BLOCK=128, HINT=hint, num_warps=1)
    np.testing.assert_array_equal(y, np.stack([x[s:s + 128] for s in starts]))


@pytest.mark.parametrize("hint, vector", [(False, 1), (True, 4)])
def test_max_contiguous_enables_vectors_on_gathered_offsets(monkeypatch, hint, vector):
    rng = np.random.default_rng(1)
    index = (rng.permutation(64)[:32, None] * 4 + np.arange(4)).reshape(-1).astype(np.int32)  # runs of 4
    x = rng.standard_normal(256).astype(np.float32)
    y = np.full(128, np.nan, np.float32)
    fn = tile_ir(block_gather, x, y, index, BLOCK=128, HINT=hint)
    coalesce(fn, 1)
    assert widths(fn)[1:] == [("load", 0, vector), ("store", 0, 4)]
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    block_gather[(1,)](x, y, index, BLOCK=128, HINT=hint, num_warps=1)
    np.testing.assert_array_equal(y, x[index])


@triton.jit
def table_sum(table_ptr, y_ptr, steps, BLOCK: tl.constexpr, HINT: tl.constexpr):
    """y = the sum of `steps` consecutive blocks of an array whose address is read from a table,
    as tutorial 08 reads its matrices' addresses. HINT promises that the carried pointers are
    16-byte aligned, by a statement whose result is not kept (as the tutorial does)."""
    x_ptr = tl.load(table_ptr).to(tl.pointer_type(tl.float16))
    ptrs = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for _ in range(steps):
        if HINT:
            tl.multiple_of(ptrs, [16])
        acc += tl.load(ptrs)
        ptrs += BLOCK
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)


@pytest.mark.parametrize("hint, vector", [(False, 1), (True, 8)])
def test_a_hint_statement_marks_the_value_itself(hint, vector):
    """`tl.multiple_of(x, 16)` as a statement promises the fact of `x` itself, as in Triton: every
    later use of the name sees it, and a pointer carried by the loop takes the vector its hinted
    load allows (before, the promise was lost and each thread loaded one fp16 at a time)."""
    table, y = np.zeros(1, np.int64), np.zeros(256, np.float32)
    fn = tile_ir(table_sum, table, y, 4, BLOCK=256, HINT=hint)
    coalesce(fn, 1)
    assert ("load", 0, vector) in widths(fn)
    ptx = table_sum.warmup(table, y, 4, BLOCK=256, HINT=hint, grid=(1,), target="sm_90a", num_warps=1).asm["ptx"]
    assert (ptx_counts(ptx)["ld.v4"] > 0) == hint


@triton.jit
def count_kernel(counts_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.atomic_add(counts_ptr + offsets, 1, mask=offsets < n)


def test_integer_atomics_are_left_alone():
    counts = aligned(1024, np.int32)
    fn = tile_ir(count_kernel, counts, 1024, BLOCK=1024)
    assert coalesce(fn, 4) == {}
    assert not any("vector" in op.attrs for op in fn.walk())


@pytest.mark.parametrize("dtype, vector", [(np.float32, 4), (np.float16, 8), ("bf16", 8)])
def test_float_atomic_adds_are_coalesced_into_vector_atomics_on_hopper(dtype, vector):
    """Hopper adds up to 16 bytes of floats with one `atom.add.v8.bf16` (as Triton emits for an
    embedding's backward); an older GPU one element at a time."""
    if dtype == "bf16":
        grad = table = old = triton.reinterpret(aligned(64 * 256, np.uint16), tl.bfloat16)
    else:
        grad = table = old = aligned(64 * 256, dtype)
    rows = aligned(64, np.int64)
    fn = tile_ir(embedding_grad_kernel, grad, table, rows, old, 64, WIDTH=256, ROWS=32, COLS=128)
    coalesce(fn, 4)
    assert ("atomic", 1, vector) in widths(fn)
    args = dict(WIDTH=256, ROWS=32, COLS=128, grid=(1,), num_warps=4)
    hopper = embedding_grad_kernel.warmup(grad, table, rows, old, 64, target="sm_90a", **args).asm["ptx"]
    ampere = embedding_grad_kernel.warmup(grad, table, rows, old, 64, target="sm_80", **args).asm["ptx"]
    assert re.search(rf"atom\.global\.gpu\.acq_rel\.add\.(noftz\.)?v{vector}\.(bf16|f16|f32) ", hopper)
    assert f".v{vector}." not in "".join(re.findall(r"atom\.[^ ]+", ampere))


# ---------------------------------------------------------------------------------------------------
# PTX: 16-byte accesses exactly where alignment allows them
# ---------------------------------------------------------------------------------------------------

def vector_add_ptx(x_offset: int, y_offset: int = 0, out_offset: int = 0) -> str:
    x = aligned(2048, np.float32, offset_bytes=x_offset)
    y = aligned(2048, np.float32, offset_bytes=y_offset)
    out = aligned(2048, np.float32, offset_bytes=out_offset)
    return add_kernel.warmup(x, y, out, 2048, BLOCK_SIZE=1024, grid=(2,), target="sm_90").asm["ptx"]


def test_aligned_vector_add_uses_16_byte_accesses():
    # 1024 elements over 128 threads: 8 per thread, two ld.global.v4.b32 for each input.
    assert ptx_counts(vector_add_ptx(0)) == {"ld.v4": 4, "ld.b32": 0, "st.v4": 2, "st.b32": 0}


def test_one_pointer_off_by_4_bytes_loads_scalars():
    assert ptx_counts(vector_add_ptx(4)) == {"ld.v4": 2, "ld.b32": 8, "st.v4": 2, "st.b32": 0}


def test_all_pointers_off_by_4_bytes_use_only_scalar_accesses():
    assert ptx_counts(vector_add_ptx(4, 4, 4)) == {"ld.v4": 0, "ld.b32": 16, "st.v4": 0, "st.b32": 8}


# ---------------------------------------------------------------------------------------------------
# Layouts and codegen follow the decision, and never vectorize past what a layout holds
# ---------------------------------------------------------------------------------------------------

def test_blocked_for_puts_the_vector_along_order_0():
    layout = blocked_for((64, 32), 4, vector=4, order=(0, 1))
    assert layout == BlockedLayout((4, 1), (16, 2), (1, 4), (0, 1))
    assert layout.contig_per_thread((64, 32)) == 4
    assert blocked_for((64, 32), 4) == BlockedLayout((1, 1), (1, 32), (4, 1), (1, 0))


def _access(layout, shape, **attrs):
    ptr = ir.Value(ir.tile(shape, F32_PTR), layout=layout)
    return ir.Op("load", [ptr], [], attrs), ptr


@pytest.mark.parametrize("layout, shape, attrs, width", [
    (BlockedLayout([4], [32], [4], [0]), (1024,), dict(vector=4, contig_dim=0), 4),
    (BlockedLayout([4], [32], [4], [0]), (1024,), dict(vector=8, contig_dim=0), 4),  # the layout holds 4
    (BlockedLayout([2], [32], [4], [0]), (1024,), dict(vector=4, contig_dim=0), 2),
    (BlockedLayout([4], [32], [4], [0]), (1024,), dict(vector=3, contig_dim=0), 2),  # powers of two only
    (BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]), (64, 32), dict(vector=4, contig_dim=0), 1),  # other dim
    (BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1]), (64, 32), dict(vector=4, contig_dim=0), 4),
    (BlockedLayout([4], [32], [4], [0]), (1024,), {}, 1),  # not annotated
    (SliceLayout(0, BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])), (32,), dict(vector=4, contig_dim=0), 1),
])
def test_codegen_vector_width(layout, shape, attrs, width):
    assert vector_width(*_access(layout, shape, **attrs)) == width


# ---------------------------------------------------------------------------------------------------
# The pass only annotates; the facts hold on the values the interpreter computes
# ---------------------------------------------------------------------------------------------------

def _tutorial_irs():
    x = aligned(1024, np.float32)
    x2 = aligned(64 * 64, np.float32).reshape(64, 64)
    a = aligned(64 * 64, np.float16).reshape(64, 64)
    return {
        "add": tile_ir(add_kernel, x, x, x, 1000, BLOCK_SIZE=1024),
        "softmax": tile_ir(softmax_kernel, x2, x2, 64, 64, 64, 64, BLOCK_SIZE=64, num_stages=2),
        "matmul": tile_ir(matmul_kernel, a, a, a, 64, 64, 64, 64, 1, 64, 1, 64, 1, BLOCK_SIZE_M=64,
                          BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="leaky_relu"),
        "dropout": tile_ir(_seeded_dropout, x, x, 1000, 0.5, 123, BLOCK_SIZE=1024),
        "layernorm": tile_ir(_layer_norm_fwd_fused, x2, x2, x, x, x, x, 64, 64, 1e-5, BLOCK_SIZE=64),
    }


@pytest.mark.parametrize("name", ["add", "softmax", "matmul", "dropout", "layernorm"])
def test_coalesce_only_annotates(name):
    fn = _tutorial_irs()[name]
    before = ir.print_function(fn)
    coalesce(fn, 4)
    ir.verify(fn)
    for op in accesses(fn):
        assert set(op.attrs) >= {"vector", "contig_dim"}
        del op.attrs["vector"], op.attrs["contig_dim"]
    assert ir.print_function(fn) == before


def test_interpreter_runs_annotated_ir_unchanged():
    rng = np.random.default_rng(0)
    n = 1000
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    fn = tile_ir(add_kernel, x, y, x, n, BLOCK_SIZE=256)
    coalesce(fn, 4)
    memory = interpreter.Memory()
    out = np.full(n, np.nan, np.float32)
    args = [memory.add(x, "x"), memory.add(y, "y"), memory.add(out, "out"), n]
    interpreter.interpret(fn, (4, 1, 1), args, memory)
    np.testing.assert_array_equal(out, x + y)


def _violation(info: AxisInfo, value, v: ir.Value) -> str | None:
    """Where the concrete `value` of `v` breaks the claimed facts (None if it keeps them)."""
    array = np.asarray(value).reshape(v.shape or (1,))
    if v.dtype.is_floating():
        array = array.view(np.dtype(f"u{array.dtype.itemsize}"))  # compare bit patterns (NaN == NaN)
    array = array.astype(np.int64) if array.dtype != np.uint64 else array.astype(object)
    step = v.dtype.pointee.itemsize if v.dtype.is_ptr() else 1
    for d in range(array.ndim):
        along = np.moveaxis(array, d, -1)
        n = along.shape[-1]
        runs = along.reshape(along.shape[:-1] + (n // info.contiguity[d], info.contiguity[d]))
        if not (np.diff(runs, axis=-1) == step).all():
            return f"dim {d}: runs of {info.contiguity[d]} are not consecutive"
        if (runs[..., 0] % info.divisibility[d]).any():
            return f"dim {d}: a run starts at a value that {info.divisibility[d]} does not divide"
        equal = along.reshape(along.shape[:-1] + (n // info.constancy[d], info.constancy[d]))
        if not (equal == equal[..., :1]).all():
            return f"dim {d}: runs of {info.constancy[d]} are not constant"
    if info.constant is not None and not (array == info.constant).all():
        return f"not every element is {info.constant}"
    return None


def check_facts_while_running(monkeypatch, fn: ir.Function, grid, arrays: list, scalars: dict):
    """Run `fn` in the interpreter and check, after every op, that its result keeps its facts."""
    facts = AxisAnalysis(fn)

    def checking(name, rule_):
        def run(program, op, *operands):
            result = rule_(program, op, *operands)
            values = result if name in ir.REGION_OPS else [result]
            for r, value in zip(op.results, values):
                problem = _violation(facts[r], value, r)
                assert problem is None, f"{op.name} -> {r.type}: {facts[r]}: {problem}"
            return result
        return run

    monkeypatch.setattr(interpreter, "RULES", {n: checking(n, r) for n, r in INTERPRETER_RULES.items()})
    memory = interpreter.Memory()
    pointers = iter(arrays)
    args = [memory.add(next(pointers), a.name) if a.dtype.is_ptr() else scalars[a.name] for a in fn.args]
    interpreter.interpret(fn, grid, args, memory)


@triton.jit
def index_zoo(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    """Index arithmetic of every kind the rules cover, all of it feeding one store."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    rows, cols = offsets // 8, offsets % 8
    grid_ = rows[:, None] * stride + tl.arange(0, 4)[None, :] + 16
    mixed = (offsets << 2) + (offsets >> 1) + tl.minimum(offsets, n) + tl.where(mask, offsets, 7) \
        + (offsets & 6) + (offsets | 1) + (offsets ^ 3) - cols * 3 + tl.sum(grid_, axis=1) + (8 - cols)
    walk = offsets
    for i in range(0, 4):
        walk += 16 * i
    ahead = tl.load(x_ptr + (walk % n), mask=mask, other=0.0)
    tl.store(out_ptr + offsets, mixed.to(tl.float32) + ahead, mask=mask)


@pytest.mark.parametrize("n, stride", [(1000, 48), (1024, 64), (1024, 7)])
def test_facts_hold_on_an_index_zoo(monkeypatch, n, stride):
    x = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    fn = tile_ir(index_zoo, x, out, n, stride, BLOCK=128)
    check_facts_while_running(monkeypatch, fn, (triton.cdiv(n, 128), 1, 1), [x, out], {"n": n, "stride": stride})


def test_facts_hold_on_the_tutorials(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(1000).astype(np.float32)
    out = np.zeros(1000, np.float32)
    check_facts_while_running(monkeypatch, tile_ir(add_kernel, x, x, out, 1000, BLOCK_SIZE=256), (4, 1, 1),
                              [x, x, out], {"n_elements": 1000})
    rows = rng.standard_normal((37, 300)).astype(np.float32)
    check_facts_while_running(
        monkeypatch, tile_ir(softmax_kernel, rows, rows, 300, 300, 37, 300, BLOCK_SIZE=512, num_stages=2),
        (8, 1, 1), [rows.copy(), rows], {"input_row_stride": 300, "output_row_stride": 300, "n_rows": 37,
                                         "n_cols": 300})
    a = rng.standard_normal((100, 70)).astype(np.float16)
    b = rng.standard_normal((70, 90)).astype(np.float16)
    c = np.zeros((100, 90), np.float16)
    fn = tile_ir(matmul_kernel, a, b, c, 100, 90, 70, 70, 1, 90, 1, 90, 1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
                 BLOCK_SIZE_K=32, GROUP_SIZE_M=4, ACTIVATION="leaky_relu")
    check_facts_while_running(monkeypatch, fn, (16, 1, 1), [a, b, c],
                              {"M": 100, "N": 90, "K": 70, "stride_am": 70, "stride_ak": 1, "stride_bk": 90,
                               "stride_bn": 1, "stride_cm": 90, "stride_cn": 1})
    w, bias = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    stats = np.zeros(7, np.float32)
    rows = rng.standard_normal((7, 300)).astype(np.float32)
    fn = tile_ir(_layer_norm_fwd_fused, rows, rows, w, bias, stats, stats, 300, 300, 1e-5, BLOCK_SIZE=128)
    check_facts_while_running(monkeypatch, fn, (7, 1, 1), [rows, rows.copy(), w, bias, stats, stats.copy()],
                              {"stride": 300, "N": 300, "eps": 1e-5})


# ---------------------------------------------------------------------------------------------------
# Codegen computes an elementwise op once per run of equal elements a thread holds
# ---------------------------------------------------------------------------------------------------

@triton.jit
def runs_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    y = tl.where(cols < n, x * 2.0 - 1.0, -7.0)  # `cols < n`: runs of 16 where 16 divides n
    band = (cols // 8) % 3 == 1  # runs of 8 wherever n is
    y = tl.where(band, y, y + 100.0)
    tl.store(out_ptr + cols, y, mask=cols < n)


def test_a_mask_constant_over_a_vector_is_compared_once():
    """`cols < n` with 16 | n: one compare for each 4-element vector of a thread (each start a
    multiple of 4), where an n of unknown alignment needs a compare per element."""
    x, out = np.zeros(2048, np.float32), np.zeros(2048, np.float32)
    ptx = lambda n: runs_kernel.warmup(x, out, n, BLOCK=1024, grid=(2,), target="sm_90").asm["ptx"]
    compares = lambda text: len(re.findall(r"setp\.lt\.s32", text))
    # 1024 elements over 128 threads: 8 a thread, two vectors of 4
    assert compares(ptx(2048)) == 2
    assert compares(ptx(2047)) == 8


@pytest.mark.parametrize("n", [2048, 2000, 1040, 1001])
def test_runs_of_equal_elements_agree_with_numpy(device, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(2048).astype(np.float32)
    out = device.array(np.full(2048, np.nan, np.float32))
    runs_kernel[(2,)](device.array(x), out, n, BLOCK=1024)
    cols = np.arange(2048)
    want = np.where(cols < n, x * np.float32(2) - np.float32(1), np.float32(-7))
    want = np.where((cols // 8) % 3 == 1, want, want + np.float32(100))
    got = device.numpy(out)
    np.testing.assert_array_equal(got[:n], want[:n])
    assert np.isnan(got[n:]).all()
