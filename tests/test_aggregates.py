"""Aggregates: tuples, block pointers and tensor descriptors, against numpy in the interpreter.

Every kernel here is also compiled for sm_80, sm_90 and sm_90a by conftest, so the lowering to
masked tiles of pointers is held to the GPU code generator too. Sizes are not multiples of the
blocks, grids have several programs, and outputs start poisoned.
"""
import re
import types
from typing import NamedTuple

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import launcher
from minitriton.allocation import allocator
from minitriton.runtime._allocation import NullAllocator
from minitriton.errors import CompilationError
from minitriton.examples.tutorials import matmul_block_ptr_kernel, matmul_kernel
from minitriton.kernel import CompiledKernel
from minitriton.language.aggregate import flatten, rebuild
from minitriton.specialize import runtime_values
from minitriton.tools.tensor_descriptor import TensorDescriptor


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


def aligned(shape, dtype, fill=np.nan) -> np.ndarray:
    """An array of `shape` whose address is a multiple of 16 bytes, filled with `fill`."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.zeros(n * dtype.itemsize + 16, np.uint8)
    start = -raw.ctypes.data % 16
    array = raw[start:start + n * dtype.itemsize].view(dtype).reshape(shape)
    array[...] = fill
    return array


def ttir(kernel, *args, **kwargs) -> str:
    return kernel.warmup(*args, grid=(1,), **kwargs).asm["ttir"]


# ------------------------------------------------------------------------------------ tuple arguments

@triton.jit
def _plus_one(values):
    return tl.tuple([v + 1 for v in values])


@triton.jit
def _store_each(ptrs, values):
    for i in tl.static_range(len(values)):
        tl.store(ptrs[i], values[i])


@triton.jit
def tuple_arguments_kernel(first, ptrs, values, SCALE: tl.constexpr, last):
    _store_each(ptrs, _plus_one(values))
    tl.store(first, len(values) * SCALE + last)


@pytest.mark.parametrize("size", [0, 1, 2, 5])
def test_tuples_of_pointers_and_numbers(size):
    values = tuple(float(3 * i - 2) for i in range(size))
    outs = tuple(aligned(1, np.float32) for _ in range(size))
    first = aligned(1, np.float32)
    tuple_arguments_kernel[(1,)](first, outs, values, 10, 7)
    assert [o[0] for o in outs] == [v + 1 for v in values]
    assert first[0] == size * 10 + 7


def test_a_compiled_kernel_launched_with_every_argument_finds_the_members():
    outs = (aligned(1, np.float32), aligned(1, np.float32))
    first = aligned(1, np.float32)
    compiled = tuple_arguments_kernel.warmup(first, outs, (1.0, 2.0), 10, 7, grid=(1,))
    compiled[(1,)](first, outs, (4.0, 5.0), 10, 3)
    assert (outs[0][0], outs[1][0], first[0]) == (5.0, 6.0, 23.0)


@triton.jit
def nested_kernel(out, t, u, n):
    tl.static_assert(t[1][1] is None)
    tl.static_assert(t[1][3] == 4)
    tl.store(out + 0, tl.load(t[0]))
    tl.store(out + 1, t[1][0])
    tl.store(out + 2, tl.load(t[1][2] + n))
    tl.store(out + 3, t[1][3] * u[0])
    a, (b, _, c, d) = t
    tl.store(out + 4, tl.load(a) + b + tl.load(c) + d)
    tl.store(out + 5, t[-1][-1] + t[1][-2:][1] + len(t[1][1:]))


def test_nested_tuples_with_none_and_constexpr():
    x = np.array([8], np.int32)
    y = np.array([11, 12, 13], np.int32)
    out = np.full(6, -1, np.int32)
    nested_kernel[(1,)](out, (x, (5, None, y, tl.constexpr(4))), (3,), 2)
    np.testing.assert_array_equal(out, [8, 5, 13, 12, 8 + 5 + 11 + 4, 4 + 4 + 3])


def test_constexpr_members_specialize_and_numbers_become_arguments():
    x = np.zeros(1, np.int32)
    y = np.zeros(3, np.int32)
    text = ttir(nested_kernel, x, (x, (5, None, y, tl.constexpr(4))), (3,), 2)
    header = text[:text.index(") {")]  # the function's header, on one line or one argument a line
    # runtime members are arguments named by their paths; None and the constexpr are not
    assert re.findall(r"%([\w.]+):", header) == ["out", "t.0", "t.1.0", "t.1.2", "u.0", "n"]
    nested_kernel.cache.clear()
    for fourth in (4, 4, 6):
        out = np.zeros(6, np.int32)
        if fourth == 4:
            nested_kernel[(1,)](out, (x, (5, None, y, tl.constexpr(fourth))), (3,), 2)
        else:
            with pytest.raises(CompilationError, match="static_assert failed"):
                nested_kernel[(1,)](out, (x, (5, None, y, tl.constexpr(fourth))), (3,), 2)
    assert len({key[0] for key in nested_kernel.cache}) == 1  # 4 twice: one specialization


@triton.jit
def unit_member_kernel(x_ptr, out_ptr, strides, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets * strides[1]))


def test_a_member_equal_to_one_is_the_constant_one():
    x = aligned(16, np.float32, 1.0)
    out = aligned(16, np.float32)
    header, body = ttir(unit_member_kernel, x, out, (16, 1), BLOCK=16).split(") {\n", 1)
    assert "%strides.0: i32 {divisibility=16}" in header and "%strides.1: i32" in header
    assert "strides" not in body  # the body reads the constant 1 (and never the first stride)
    unit_member_kernel[(1,)](x, out, (16, 1), BLOCK=16)
    np.testing.assert_array_equal(out, x)


class Matrix(NamedTuple):
    ptr: object
    shape: tuple
    stride: tuple


class Function(NamedTuple):
    fn: tl.constexpr
    captured: tuple


@triton.jit
def _scaled(x, factor_ptr):
    return x * tl.load(factor_ptr)


@triton.jit
def _shifted(x, amount_ptr):
    return x + tl.load(amount_ptr)


@triton.jit
def _as_matrix(ptr, shape, stride):
    return Matrix(shape=shape, ptr=ptr, stride=stride)


@triton.jit
def _inside(m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows, cols = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N)
    return (rows[:, None] < m.shape[0]) & (cols[None, :] < m.shape[1])


@triton.jit
def namedtuple_kernel(f, X, Y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    X = _as_matrix(X.ptr, X.shape, X.stride)
    rows, cols = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N)
    x = tl.load(X.ptr + rows[:, None] * X.stride[0] + cols[None, :] * X.stride[1],
                mask=_inside(X, BLOCK_M, BLOCK_N), other=0.0)
    y = f.fn(x, *f.captured)
    tl.store(Y.ptr + rows[:, None] * Y.stride[0] + cols[None, :] * Y.stride[1], y, mask=_inside(Y, BLOCK_M, BLOCK_N))


@pytest.mark.parametrize("fn, reference", [(_scaled, np.multiply), (_shifted, np.add)])
def test_namedtuples_with_a_function_member(fn, reference, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((21, 30)).astype(np.float32)
    y = device.array(np.full((13, 17), np.nan, np.float32))
    a = np.array([2.5], np.float32)
    namedtuple_kernel[(1,)](Function(fn, (device.array(a),)), Matrix(device.array(x), x.shape, (30, 1)),
                            Matrix(y, y.shape, (17, 1)), BLOCK_M=16, BLOCK_N=32)
    np.testing.assert_allclose(device.numpy(y), reference(x[:13, :17], a[0]), rtol=1e-6)


@triton.jit
def tuple_values_kernel(out, x_ptr):
    t = (1, 2) + (3,)
    u = tl.tuple((4, 5)) + t[1:]
    tl.store(out + 0, (1, 2) == (1, 2))
    tl.store(out + 1, tl.tuple((1, 2)) == (1, 3))
    tl.store(out + 2, len(u))
    total = 0
    for v in u:
        total += v
    tl.store(out + 3, total)
    pair = tuple(tl.load(x_ptr + i) for i in range(2))
    tl.store(out + 4, pair[0] * 10 + pair[1])
    tl.store(out + 5, ((3, 4) or (5, 6))[1] + ((3, 4) and (5, 6))[0] + len(() and tl.program_id(0)))


def test_tuple_values_at_compile_time():
    out = np.full(6, -1, np.int32)
    tuple_values_kernel[(1,)](out, np.array([7, 9], np.int32))
    np.testing.assert_array_equal(out, [1, 0, 4, 4 + 5 + 2 + 3, 79, 4 + 5 + 0])


# ---------------------------------------------------------------- tuples through loops and branches

@triton.jit
def _swap(pair):
    return pair[1], pair[0]


@triton.jit
def carried_tuple_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    state = (x, tl.zeros([BLOCK], dtype=tl.float32), 0)  # a tile, a tile, a number
    for i in range(n):
        previous, current, count = state
        state = (current, previous + current * 0.5 + i, count + 1)
        if i % 3 == 1:
            state = (state[0], state[1] - 1.0, state[2])
        else:
            state = _swap(state[:2]) + state[2:]
    k = 0
    while k < n:
        state = (state[0] + 1.0, state[1], state[2] * 2)
        k += 1
    tl.store(out_ptr + offsets, state[0] + state[1] * 2.0 + state[2])


def reference_carried(x, n):
    previous, current, count = x.astype(np.float64), np.zeros_like(x, np.float64), 0
    for i in range(n):
        previous, current, count = current, previous + current * 0.5 + i, count + 1
        if i % 3 == 1:
            current = current - 1.0
        else:
            previous, current = current, previous
    for _ in range(n):
        previous, count = previous + 1.0, count * 2
    return previous + current * 2.0 + count


@pytest.mark.parametrize("n", [0, 1, 5])
def test_tuples_carried_through_loops_and_branches(n, device):
    x = np.random.default_rng(1).standard_normal(96).astype(np.float32)
    out = device.array(np.full(96, np.nan, np.float32))
    carried_tuple_kernel[(3,)](device.array(x), out, n, BLOCK=32)
    np.testing.assert_allclose(device.numpy(out), reference_carried(x, n), rtol=1e-5, atol=1e-5)


@triton.jit
def _pick(flag, a, b):
    if flag > 0:
        result = (a, b, "same")
    else:
        result = (b, a, "same")
    return result


@triton.jit
def branch_tuple_kernel(x_ptr, out_ptr, flag):
    a, b, label = _pick(flag, tl.load(x_ptr), tl.load(x_ptr + 1))
    tl.static_assert(label == "same")
    tl.store(out_ptr, a * 10 + b)


@pytest.mark.parametrize("flag, expected", [(2, 12.0), (-1, 21.0)])
def test_a_tuple_returned_from_both_branches(flag, expected):
    out = np.zeros(1, np.float32)
    branch_tuple_kernel[(1,)](np.array([1, 2], np.float32), out, flag)
    assert out[0] == expected


def test_flatten_and_rebuild_are_inverse():
    pair = Matrix(None, (3, (4.5, True)), "s")
    structure, leaves = flatten(pair)
    assert leaves == [3, 4.5, True]
    assert list(structure.paths("m")) == ["m[1][0]", "m[1][1][0]", "m[1][1][1]"]
    assert rebuild(structure, leaves) == pair and type(rebuild(structure, leaves)) is Matrix
    assert flatten(Matrix(None, (3, (4.5, True)), "t"))[0] != structure  # constants are structure


def test_runtime_values_follow_the_paths():
    bound = {"t": (1, (2, 3)), "m": Matrix("p", (4, 5), (6, 7)), "n": 8}
    assert runtime_values(bound, ["t.0", "t.1.1", "m.ptr", "m.stride.0", "n"]) == [1, 3, "p", 6, 8]


# ------------------------------------------------------------------------------------ block pointers

@triton.jit
def copy_block_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Add 1 to each element, one row of blocks per program, moving along the columns."""
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_ym, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    for _ in range(0, N, BLOCK_N):
        tl.store(y, tl.load(x, boundary_check=(0, 1)) + 1.0, boundary_check=(0, 1))
        x = tl.advance(x, (0, BLOCK_N))
        y = tl.advance(y, [0, BLOCK_N])


@pytest.mark.parametrize("M, N", [(37, 45), (32, 64), (5, 3)])
def test_block_pointers_carried_through_a_loop(M, N):
    x = np.random.default_rng(2).standard_normal((M, N + 3)).astype(np.float32)[:, :N]
    y = aligned((M, N + 1), np.float32)
    copy_block_kernel[(triton.cdiv(M, 16),)](x, y, M, N, N + 3, N + 1, BLOCK_M=16, BLOCK_N=16)
    np.testing.assert_array_equal(y[:, :N], x + 1.0)
    assert np.isnan(y[:, N]).all()  # the column past the end is never written


def test_loop_invariant_members_are_not_carried():
    x, y = aligned((37, 45), np.float32), aligned((37, 45), np.float32)
    text = ttir(copy_block_kernel, x, y, 37, 45, 45, 45, BLOCK_M=16, BLOCK_N=16)
    loop = next(line for line in text.splitlines() if " = for " in line)
    assert loop.rstrip().endswith(": i32, i32")  # only the column offsets of x and y change


@pytest.mark.parametrize("M, N, K, dtype", [(70, 50, 45, np.float16), (33, 64, 40, np.float32),
                                            (64, 64, 64, np.float16)])
def test_block_pointer_matmul(M, N, K, dtype, device):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = device.array(aligned((M, N), dtype))
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
    matmul_block_ptr_kernel[grid](device.array(a), device.array(b), c, M, N, K, K, 1, N, 1, N, 1,
                                  BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=2)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(device.numpy(c).astype(np.float64), reference, rtol=2e-2, atol=2e-2)


def _memory_instructions(ptx: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in re.findall(r"\b((?:ld|st)\.global[\w.]*|cp\.async\.[\w.]+)", ptx):
        counts[m] = counts.get(m, 0) + 1
    return counts


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_block_pointer_matmul_loads_as_the_pointer_one_does(arch):
    """Lowered to tiles of pointers and masks, a block pointer's loads are vectorized and pipelined
    as the tutorial's pointer arithmetic is: the same cp.async copies, the same vector stores."""
    M = N = K = 512
    a, b, c = aligned((M, K), np.float16), aligned((K, N), np.float16), aligned((M, N), np.float16)
    args = (a, b, c, M, N, K, K, 1, N, 1, N, 1)
    meta = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, num_warps=4, num_stages=3)
    pointers = matmul_kernel.warmup(*args, **meta, target=arch).asm
    blocks = matmul_block_ptr_kernel.warmup(*args, **meta, target=arch).asm
    counts = _memory_instructions(blocks["ptx"])
    assert counts == _memory_instructions(pointers["ptx"])
    assert counts["cp.async.cg.shared.global"] == 24 and counts["st.global.v4.b32"] == 16
    assert blocks["layout"].count("convert_layout") == pointers["layout"].count("convert_layout")


@triton.jit
def attention_kernel(Q, K, V, Out, n_ctx, sm_scale, stride_qm, stride_kn, stride_vn, stride_om,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    """Softmax(Q K^T) V as the fused-attention tutorial computes it: K^T and V named by block
    pointers (K^T's contiguous dimension is its first: order (0, 1)) advanced at each step."""
    start_m = tl.program_id(0) * BLOCK_M
    q_block = tl.make_block_ptr(Q, (n_ctx, HEAD_DIM), (stride_qm, 1), (start_m, 0), (BLOCK_M, HEAD_DIM), (1, 0))
    kt_block = tl.make_block_ptr(K, (HEAD_DIM, n_ctx), (1, stride_kn), (0, 0), (HEAD_DIM, BLOCK_N), (0, 1))
    v_block = tl.make_block_ptr(V, (n_ctx, HEAD_DIM), (stride_vn, 1), (0, 0), (BLOCK_N, HEAD_DIM), (1, 0))
    q = tl.load(q_block, boundary_check=(0,))
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    for start_n in range(0, n_ctx, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        qk = tl.where(cols[None, :] < n_ctx, tl.dot(q, tl.load(kt_block, boundary_check=(1,))) * sm_scale,
                      float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), tl.load(v_block, boundary_check=(0,)))
        m_i = m_new
        kt_block = tl.advance(kt_block, (0, BLOCK_N))
        v_block = tl.advance(v_block, (BLOCK_N, 0))
    o_block = tl.make_block_ptr(Out, (n_ctx, HEAD_DIM), (stride_om, 1), (start_m, 0), (BLOCK_M, HEAD_DIM), (1, 0))
    tl.store(o_block, (acc / l_i[:, None]).to(tl.float16), boundary_check=(0,))


def test_attention_with_block_pointers(device):
    n, d = 100, 32
    rng = np.random.default_rng(8)
    q, k, v = (rng.standard_normal((n, d)).astype(np.float16) for _ in range(3))
    out = device.array(np.full((n, d), np.nan, np.float16))
    attention_kernel[(triton.cdiv(n, 32),)](device.array(q), device.array(k), device.array(v), out, n, 0.2,
                                            d, d, d, d, BLOCK_M=32, BLOCK_N=32, HEAD_DIM=d)
    out = device.numpy(out)
    scores = q.astype(np.float64) @ k.astype(np.float64).T * 0.2
    weights = np.exp(scores - scores.max(1, keepdims=True))
    reference = weights / weights.sum(1, keepdims=True) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float64), reference, rtol=1e-2, atol=1e-2)


@triton.jit
def padded_kernel(x_ptr, out_ptr, M, N, stride_m, row, col, PADDING: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Read the block at (row, col), which may cross the array's edges, and write all of it out."""
    block = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (row, col), (BLOCK_M, BLOCK_N), (1, 0))
    if PADDING == "":
        values = tl.load(block, boundary_check=(0, 1))
    else:
        values = tl.load(block, boundary_check=(0, 1), padding_option=PADDING)
    rows, cols = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N)
    tl.store(out_ptr + rows[:, None] * BLOCK_N + cols[None, :], values)


@pytest.mark.parametrize("padding, fill", [("nan", np.nan), ("zero", 0.0), ("", 0.0)])
@pytest.mark.parametrize("row, col", [(0, 0), (10, 20), (-3, -5), (12, 30)])
def test_padding_outside_the_array(padding, fill, row, col):
    M, N = 14, 27
    x = np.random.default_rng(4).standard_normal((M, N)).astype(np.float32)
    out = np.full((8, 16), -99.0, np.float32)
    padded_kernel[(1,)](x, out, M, N, N, row, col, PADDING=padding, BLOCK_M=8, BLOCK_N=16)
    expected = np.full((8, 16), fill, np.float32)
    for i in range(8):
        for j in range(16):
            if 0 <= row + i < M and 0 <= col + j < N:
                expected[i, j] = x[row + i, col + j]
    np.testing.assert_array_equal(out, expected)


@triton.jit
def one_dimension_checked_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Rows are whole blocks (no check along them); columns are checked."""
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    y = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(1,)) * 2, boundary_check=(1,))


def test_a_check_along_one_dimension():
    x = np.arange(32 * 13, dtype=np.int32).reshape(32, 13)
    out = np.full((32, 13), -1, np.int32)
    one_dimension_checked_kernel[(4,)](x, out, 32, 13, BLOCK_M=8, BLOCK_N=16)
    np.testing.assert_array_equal(out, 2 * x)


@triton.jit
def _load_block(block):
    return tl.load(block, boundary_check=(0,))


@triton.jit
def ranks_kernel(x_ptr, y_ptr, z_ptr, out1, out3, n, A, B, C, flag):
    line = tl.make_block_ptr(x_ptr, (n,), (1,), (tl.program_id(0) * 32,), (32,), (0,))
    if flag > 0:
        line = tl.advance(line, (3,))
    else:
        line = tl.advance(line, (-3,))
    dst = tl.make_block_ptr(out1, (n,), (1,), (tl.program_id(0) * 32,), (32,), (0,))
    tl.store(dst, _load_block(line), boundary_check=(0,))
    cube = tl.make_block_ptr(z_ptr, (A, B, C), (B * C, C, 1), (0, 0, 0), (4, 4, 8), (2, 1, 0))
    cube_out = tl.make_block_ptr(out3, (A, B, C), (B * C, C, 1), (0, 0, 0), (4, 4, 8), (2, 1, 0))
    tl.store(cube_out, tl.load(cube, boundary_check=(0, 1, 2)) + tl.load(y_ptr), boundary_check=(0, 1, 2))


@pytest.mark.parametrize("flag", [2, -1])
def test_one_and_three_dimensional_blocks_and_a_block_pointer_in_a_branch(flag):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(70).astype(np.float32)
    z = rng.standard_normal((3, 2, 5)).astype(np.float32)
    out1, out3 = np.full(70, np.nan, np.float32), np.full((3, 2, 5), np.nan, np.float32)
    ranks_kernel[(3,)](x, np.array([0.5], np.float32), z, out1, out3, 70, 3, 2, 5, flag)
    shift = 3 if flag > 0 else -3
    shifted = np.concatenate([np.zeros(3), x, np.zeros(3)])[3 + shift:][:70]
    np.testing.assert_array_equal(out1, shifted.astype(np.float32))
    np.testing.assert_array_equal(out3, z + 0.5)


@triton.jit
def store_scalar_kernel(out_ptr, M, N, BLOCK: tl.constexpr):
    block = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (tl.program_id(0) * BLOCK, 0), (BLOCK, BLOCK), (1, 0))
    tl.store(block, 7, boundary_check=(0, 1))


def test_a_number_stored_through_a_block_pointer():
    out = np.full((10, 6), -1, np.int16)
    store_scalar_kernel[(2,)](out, 10, 6, BLOCK=8)
    assert (out == 7).all()


# -------------------------------------------------------------------------------- tensor descriptors

@triton.jit
def descriptor_kernel(x_ptr, y_ptr, M, N, stride_x, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """y = 2x + 1, block by block, through descriptors made in the kernel."""
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride_x, 1], block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, (M, N), (N, 1), (BLOCK_M, BLOCK_N))
    tl.static_assert(y_desc.block_shape == (BLOCK_M, BLOCK_N))
    row = tl.program_id(0) * BLOCK_M
    for col in range(0, N, BLOCK_N):
        block = tl.zeros(y_desc.block_shape, y_desc.dtype) + x_desc.load([row, col]) * 2
        y_desc.store([row, col], block + 1)


@pytest.mark.parametrize("M, N", [(37, 45), (16, 64), (1, 9)])
def test_descriptors_made_in_the_kernel(M, N):
    x = aligned((M, N + 4), np.float32, 0.0)
    x[...] = np.random.default_rng(6).standard_normal(x.shape)
    y = aligned((M, N), np.float32)
    descriptor_kernel[(triton.cdiv(M, 16),)](x, y, M, N, N + 4, BLOCK_M=16, BLOCK_N=16)
    np.testing.assert_allclose(y, x[:, :N] * 2 + 1, rtol=1e-6)


@triton.jit
def gather_kernel(x_ptr, rows_ptr, out_ptr, M, N, R, y, BLOCK_R: tl.constexpr, BLOCK_Y: tl.constexpr,
                  PADDING: tl.constexpr):
    """out[i, j] = x[rows[i], y + j]: each program gathers BLOCK_R of the rows, one column block."""
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BLOCK_Y], padding_option=PADDING)
    tl.static_assert(desc.block_shape == [1, BLOCK_Y])  # a kernel's tuple equals a list of its values
    i = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    column = tl.program_id(1) * BLOCK_Y
    block = desc.gather(tl.load(rows_ptr + i, mask=i < R, other=-1), y + column)
    j = column + tl.arange(0, BLOCK_Y)
    tl.store(out_ptr + i[:, None] * (N + BLOCK_Y) + j[None, :], block, mask=i[:, None] < R)


def gathered(x, rows, y, width, fill):
    """numpy's gather: row `rows[i]` of `x` from column `y` on, `fill` outside `x`."""
    expected = np.full((len(rows), width), fill, x.dtype)
    for i, row in enumerate(rows):
        for j in range(width):
            if 0 <= row < x.shape[0] and 0 <= y + j < x.shape[1]:
                expected[i, j] = x[row, y + j]
    return expected


@pytest.mark.parametrize("dtype, block_y, padding", [(np.float32, 8, "zero"), (np.float16, 16, "nan"),
                                                      (np.int8, 32, "zero")])
def test_descriptor_gather(dtype, block_y, padding):
    M, N, R, y = 37, 45, 27, 3  # R rows in blocks of 8, N columns in blocks of block_y: neither divides
    rng = np.random.default_rng(8)
    x = aligned((M, N), dtype, 0)
    x[...] = rng.integers(-100, 100, (M, N)) if dtype == np.int8 else rng.standard_normal((M, N))
    rows = rng.integers(0, M, R).astype(np.int32)
    rows[[2, 11, 20]] = [-1, M, M + 40]  # rows outside the array read the padding
    out = np.full((R + 8, N + block_y), 77, dtype)
    gather_kernel[(triton.cdiv(R, 8), triton.cdiv(N, block_y))](x, rows, out, M, N, R, y, BLOCK_R=8,
                                                                 BLOCK_Y=block_y, PADDING=padding)
    width = triton.cdiv(N, block_y) * block_y
    expected = gathered(x, rows, y, width, np.nan if padding == "nan" else 0)
    np.testing.assert_array_equal(out[:R, :width], expected)
    assert (out[:R, width:] == 77).all() and (out[R:] == 77).all()  # nothing written elsewhere


@triton.jit
def scatter_kernel(desc, values_ptr, rows_ptr, y, BLOCK_R: tl.constexpr):
    """Row i of `values` to row rows[i] of the descriptor's array, from column y on."""
    i = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    j = tl.arange(0, desc.block_shape[1])
    block = tl.load(values_ptr + i[:, None] * desc.block_shape[1] + j[None, :])
    desc.scatter(block, tl.load(rows_ptr + i), y)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
def test_descriptor_scatter(dtype, device):
    M, N, R, y = 50, 45, 32, 20  # the columns from y on run past N: those are not written
    width = 32
    rng = np.random.default_rng(9)
    values = aligned((R, width), np.float32, 0.0)
    values[...] = rng.integers(-100, 100, (R, width))
    rows = rng.permutation(M)[:R].astype(np.int32)  # distinct rows: each written once
    rows[[3, 17]] = [-2, M + 7]  # rows outside the array are not written
    out = aligned((M, 48), dtype, 55)  # rows of 48, of which the descriptor's array is the first N
    array = device.array(out)
    desc = TensorDescriptor(array, [M, N], [48, 1], [1, width])
    scatter_kernel[(R // 16,)](desc, device.array(values), device.array(rows), y, BLOCK_R=16)
    expected = np.full((M, 48), 55, dtype)
    for i, row in enumerate(rows):
        if 0 <= row < M:
            expected[row, y:N] = values[i, :N - y].astype(dtype)  # converted to the descriptor's dtype
    np.testing.assert_array_equal(device.numpy(array), expected)


@triton.jit
def descriptor_atomic_kernel(x_ptr, v_ptr, M, N, KIND: tl.constexpr):
    """Each program combines an 8 x 16 block of v into x at a place shifted up by 3 rows, so the
    blocks overlap each other and cross the array's top and bottom edges."""
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [8, 16])
    row, col = tl.program_id(0) * 5 - 3, tl.program_id(1) * 16
    block = tl.load(v_ptr + (tl.program_id(0) * 8 + tl.arange(0, 8))[:, None] * 32 + col + tl.arange(0, 16)[None, :])
    getattr(desc, "atomic_" + KIND)([row, col], block)


DESCRIPTOR_ATOMICS = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
                      "or": np.bitwise_or, "xor": np.bitwise_xor}


@pytest.mark.parametrize("kind", list(DESCRIPTOR_ATOMICS))
@pytest.mark.parametrize("dtype", [np.int32, np.uint64])
def test_descriptor_atomics(kind, dtype):
    M, N, programs = 21, 24, 5  # N is not a multiple of 16: the second column block is cut
    rng = np.random.default_rng(11)
    x = aligned((M, N), dtype, 0)
    x[...] = rng.integers(0, 1000, (M, N))
    v = aligned((programs * 8, 32), dtype, 0)
    v[...] = rng.integers(0, 1000, v.shape)
    expected = x.copy()
    for p in range(programs):
        for i in range(8):
            row = p * 5 - 3 + i
            if 0 <= row < M:
                expected[row] = DESCRIPTOR_ATOMICS[kind](expected[row], v[p * 8 + i, :N])
    descriptor_atomic_kernel[(programs, 2)](x, v, M, N, KIND=kind)
    np.testing.assert_array_equal(x, expected)


@triton.jit
def shaped_copy_kernel(x_ptr, y_ptr, shape):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape, (shape[1], 1), (8, 16))
    y_desc = tl.make_tensor_descriptor(y_ptr, shape, (shape[1], 1), (8, 16))
    y_desc.store([0, 0], x_desc.load([0, 0]))


class Size(tuple):
    """A tuple of ints of a class of its own, as torch.Size is."""

    def __new__(cls, values):
        assert all(isinstance(v, int) for v in values), "a Size holds ints"
        return super().__new__(cls, values)


def test_a_tuple_subclass_argument_is_a_tuple():
    x, y = aligned((5, 16), np.float32, 0.0), aligned((5, 16), np.float32)
    x[...] = np.random.default_rng(10).standard_normal(x.shape)
    shaped_copy_kernel[(1,)](x, y, Size(x.shape))
    np.testing.assert_array_equal(y, x)


@triton.jit
def descriptor_argument_kernel(src, dst, out_of_bounds):
    """Copy the block at each program's place, and store one block wholly outside the array."""
    rows, cols = src.block_shape
    row, col = tl.program_id(0) * rows, tl.program_id(1) * cols
    dst.store([row, col], tl.load_tensor_descriptor(src, [row, col]).to(dst.dtype))
    tl.store_tensor_descriptor(dst, [row + out_of_bounds, col], tl.full(src.block_shape, 5, dst.dtype))


@pytest.mark.parametrize("how", ["from_tensor", "constructor"])
def test_descriptor_arguments(how, device):
    M, N = 21, 40
    x = aligned((M, N), np.float16, 0.0)
    x[...] = np.random.default_rng(7).standard_normal((M, N))
    y = device.array(aligned((M, N), np.float32))
    if how == "from_tensor":
        src = TensorDescriptor.from_tensor(device.array(x), [8, 16])
        dst = TensorDescriptor.from_tensor(y, [8, 16])
    else:
        src = TensorDescriptor(device.array(x), [M, N], [N, 1], [8, 16])
        dst = TensorDescriptor(y, (M, N), (N, 1), (8, 16), padding="zero")
    descriptor_argument_kernel[(triton.cdiv(M, 8), triton.cdiv(N, 16))](src, dst, 1000)
    np.testing.assert_array_equal(device.numpy(y), x.astype(np.float32))


@triton.jit
def descriptor_padding_kernel(src, out_ptr, row, col):
    rows, cols = tl.arange(0, 8), tl.arange(0, 16)
    tl.store(out_ptr + rows[:, None] * 16 + cols[None, :], src.load([row, col]))


@pytest.mark.parametrize("padding, fill", [("nan", np.nan), ("zero", 0.0)])
def test_a_descriptor_reads_its_padding_outside_the_array(padding, fill):
    M, N = 10, 20
    x = aligned((M, N), np.float32, 0.0)
    x[...] = np.arange(M * N).reshape(M, N)
    out = np.full((8, 16), -1, np.float32)
    descriptor_padding_kernel[(1,)](TensorDescriptor.from_tensor(x, [8, 16], padding=padding), out, 6, 12)
    expected = np.full((8, 16), fill, np.float32)
    expected[:4, :8] = x[6:, 12:]
    np.testing.assert_array_equal(out, expected)


def test_descriptor_arguments_are_specialized_like_their_members():
    x, y = aligned((21, 48), np.float16, 0.0), aligned((21, 48), np.float32, 0.0)
    text = ttir(descriptor_argument_kernel, TensorDescriptor.from_tensor(x, [8, 16]),
                TensorDescriptor.from_tensor(y, [8, 16]), 0)
    header, body = text.split(") {\n", 1)  # the header may put one argument on a line
    assert "%src.base: !ptr<f16> {divisibility=16}" in header and "%src.shape.1: i32 {divisibility=16}" in header
    assert "%src.strides.0: i32 {divisibility=16}" in header
    assert "src.strides.1" not in body  # the last stride is 1: the body reads the constant
    descriptor_argument_kernel.cache.clear()
    for block in ([8, 16], [8, 16], [4, 16]):
        descriptor_argument_kernel[(1, 1)](TensorDescriptor.from_tensor(x, block),
                                           TensorDescriptor.from_tensor(y, block), 0)
    assert len({key[0] for key in descriptor_argument_kernel.cache}) == 2  # the block shape specializes


def test_set_allocator_is_recorded():
    def alloc(size, alignment, stream):
        return np.empty(size, np.uint8)

    assert isinstance(allocator(), NullAllocator)  # none set: Triton's error if a kernel asks
    with pytest.raises(RuntimeError, match="no allocator was set. Use triton.set_allocator"):
        allocator()(128, 128, None)
    triton.set_allocator(alloc)
    try:
        assert allocator() is alloc
    finally:
        triton.set_allocator(NullAllocator())


def test_host_descriptors_check_what_triton_checks():
    x = aligned((8, 16), np.float32, 0.0)
    with pytest.raises(AssertionError, match="Last dimension must be contiguous"):
        TensorDescriptor(x, [8, 8], [16, 2], [8, 8])
    with pytest.raises(AssertionError, match="strides must be 16-byte aligned"):
        TensorDescriptor(x, [8, 15], [15, 1], [8, 8])
    with pytest.raises(AssertionError, match="power of 2"):
        TensorDescriptor(x, [8, 16], [16, 1], [8, 12])
    with pytest.raises(AssertionError, match="16-byte aligned"):
        TensorDescriptor(x.reshape(-1)[1:], [127], [1], [8])
    with pytest.raises(AssertionError, match="padding"):
        TensorDescriptor(x, [8, 16], [16, 1], [8, 8], padding="one")


# ------------------------------------------------------------------------------------ the launch path

def test_members_of_tuples_are_read_again_at_each_launch(monkeypatch):
    """A kernel with members of tuples among its runtime arguments gets a prepared launch of all of
    them; a later launch with the same key reads the members from its own arguments, by their paths
    (a new value of a float member is passed, not the first launch's)."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    monkeypatch.setattr(launcher, "launch_kernel_address", lambda: None)  # the binder in Python
    monkeypatch.delattr(tuple_arguments_kernel, "_binder", raising=False)
    launched = []

    def kernel_for(self, bound, *options, **target):
        kernel = CompiledKernel("k", {}, ["first", "ptrs.0", "values.0", "last"])
        kernel.launcher = lambda grid, args: launched.append(("slow", args))

        def prepared(positions, args):
            assert positions == [0, 1, 2, 3] and args == ["x", "p", 1.5, 7]
            return types.SimpleNamespace(launch=lambda grid, *values: launched.append(("prepared", list(values))))
        kernel.launcher.prepared = prepared
        return kernel

    monkeypatch.setattr(triton.JITFunction, "kernel_for", kernel_for)
    for value in (1.5, 2.5, 3.5):
        tuple_arguments_kernel[(1,)]("x", ("p",), (value,), 10, 7)
    assert launched == [("slow", ["x", "p", 1.5, 7]), ("prepared", ["x", "p", 2.5, 7]),
                        ("prepared", ["x", "p", 3.5, 7])]
    tuple_arguments_kernel.__dict__.pop("_binder")  # made with the fast path of this test


def test_a_tuples_launch_key_is_its_members_keys():
    """As fine as the specialization (a float member's value is not in it; an int's facts are), and
    finer: an array member's device is in it, so a launch on another device is checked again."""
    from minitriton.specialize import launch_key

    class Pair(NamedTuple):
        a: int
        b: float

    key = lambda value: launch_key(value)[0]  # noqa: E731
    assert key((16, 1.5)) == key((32, 2.5)) and key((16, 1.5)) != key((17, 1.5))
    assert key(Pair(16, 1.5)) != key((16, 1.5)) and key((None, "x")) != key((None, "y"))
    assert key(((1, 2), 3.0)) == key(((1, 3), 4.0)) != key(((1, 16), 4.0))


def test_members_of_tuples_take_the_compiled_fast_path_too(monkeypatch):
    """Where the compiled binder (launcher.c) is built, it keeps the entry as one the Python launch
    packs: a later launch is read and looked up in C, then handed the arguments as they are."""
    if launcher.compiled_launcher()[0] is None:
        pytest.skip("no C compiler here: no compiled fast path")
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    monkeypatch.setattr(launcher, "launch_kernel_address", lambda: 1)  # never called: Python packs
    monkeypatch.delattr(tuple_arguments_kernel, "_binder", raising=False)
    launched, slow = [], []

    def kernel_for(self, bound, *options, **target):
        slow.append(1)
        kernel = CompiledKernel("k", {}, ["first", "ptrs.0", "values.0", "last"])
        kernel.launcher = lambda grid, args: launched.append(("slow", args))
        kernel.launcher.prepared = lambda positions, args: types.SimpleNamespace(
            launch=lambda grid, *values: launched.append((tuple(grid), list(values))), function=0, block_x=32,
            shared_bytes=0, stream_of=lambda: 0, failure=None, attributes=())
        return kernel

    monkeypatch.setattr(triton.JITFunction, "kernel_for", kernel_for)
    for value in (1.5, 2.5):
        tuple_arguments_kernel[(2,)]("x", ("p",), (value,), 10, 7)
    binder = tuple_arguments_kernel._binder
    assert type(binder).__name__ == "Binder" and len(slow) == 1
    assert launched == [("slow", ["x", "p", 1.5, 7]), ((2, 1, 1), ["x", "p", 2.5, 7])]
    tuple_arguments_kernel.__dict__.pop("_binder")


# ------------------------------------------------------------------------------------------ mistakes

@triton.jit
def assign_member_kernel(x_ptr):
    t = tl.tuple([5, 6, 7])
    t[0] = 0
    tl.store(x_ptr, t[0])


@triton.jit
def runtime_index_kernel(x_ptr, i):
    t = (1.0, 2.0)
    tl.store(x_ptr, t[i])


@triton.jit
def branch_structure_kernel(x_ptr, flag):
    value = (1.0, 2.0)
    if flag > 0:
        value = tl.load(x_ptr)
    tl.store(x_ptr, value)


@triton.jit
def loop_structure_kernel(x_ptr, n):
    t = (tl.load(x_ptr), 0.0)
    for i in range(n):
        t = (t[0], t[1], 1.0)
    tl.store(x_ptr, t[0])


@triton.jit
def loop_member_type_kernel(x_ptr, n):
    t = (tl.load(x_ptr), 0)
    for i in range(n):
        t = (t[0], t[1] + 0.5)
    tl.store(x_ptr, t[0])


@triton.jit
def bad_boundary_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(x_ptr + tl.arange(0, 8), tl.sum(tl.load(block, boundary_check=(0, 2)), 1))


@triton.jit
def duplicate_boundary_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(x_ptr + tl.arange(0, 8), tl.sum(tl.load(block, boundary_check=(1, 1)), 1))


@triton.jit
def store_padding_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(block, tl.zeros([8, 8], tl.float32), padding_option="zero")


@triton.jit
def rank_mismatch_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0,), (8, 8), (1, 0))
    tl.store(block, tl.zeros([8, 8], tl.float32))


@triton.jit
def advance_rank_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(tl.advance(block, (8,)), tl.zeros([8, 8], tl.float32))


@triton.jit
def mask_with_block_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(x_ptr, tl.sum(tl.sum(tl.load(block, mask=True), 1), 0))


@triton.jit
def boundary_on_pointers_kernel(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr, boundary_check=(0,)))


@triton.jit
def nan_on_ints_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (8,), (0,))
    tl.store(block, tl.load(block, boundary_check=(0,), padding_option="nan"))


@triton.jit
def wide_offsets_kernel(x_ptr, start):
    block = tl.make_block_ptr(x_ptr, (8,), (1,), (start.to(tl.int64),), (8,), (0,))
    tl.store(block, tl.zeros([8], tl.float32))


@triton.jit
def value_shape_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(block, tl.zeros([4, 8], tl.float32))


@triton.jit
def value_dtype_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(block, tl.zeros([8, 8], tl.float16))


@triton.jit
def block_shape_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 6), (1, 0))
    tl.store(block, 0.0)


@triton.jit
def order_kernel(x_ptr):
    block = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 1))
    tl.store(block, 0.0)


@triton.jit
def descriptor_stride_kernel(x_ptr, stride):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (1, stride), (8, 8))
    desc.store([0, 0], tl.zeros([8, 8], tl.float32))


@triton.jit
def descriptor_narrow_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (8, 2))
    desc.store([0, 0], tl.zeros([8, 2], tl.float32))


@triton.jit
def descriptor_offsets_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (8, 8))
    desc.store([0], tl.zeros([8, 8], tl.float32))


@triton.jit
def descriptor_store_shape_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (8, 8))
    desc.store([0, 0], tl.zeros([8, 4], tl.float32))


@triton.jit
def descriptor_nan_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (8, 8), padding_option="nan")
    desc.store([0, 0], desc.load([0, 0]))


@triton.jit
def gather_tall_block_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (2, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.sum(desc.gather(tl.arange(0, 8), 0), 1))


@triton.jit
def gather_few_rows_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (1, 8))
    tl.store(x_ptr + tl.arange(0, 4), tl.sum(desc.gather(tl.arange(0, 4), 0), 1))


@triton.jit
def gather_narrow_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (64, 64), (64, 1), (1, 16))
    tl.store(x_ptr + tl.arange(0, 8), tl.sum(desc.gather(tl.arange(0, 8), 0), 1))


@triton.jit
def gather_indexing_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (1, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.sum(desc.gather(tl.arange(0, 8), 0, 0), 1))


@triton.jit
def gather_wide_rows_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (1, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.sum(desc.gather(tl.arange(0, 8).to(tl.int64), 0), 1))


@triton.jit
def scatter_shape_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 8), (8, 1), (1, 8))
    desc.scatter(tl.zeros([8, 4], tl.float32), tl.arange(0, 8), 0)


@triton.jit
def descriptor_atomic_dtype_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 16), (16, 1), (8, 16))
    desc.atomic_min([0, 0], tl.zeros([8, 16], tl.float16))


@triton.jit
def descriptor_atomic_shape_kernel(x_ptr):
    desc = tl.make_tensor_descriptor(x_ptr, (8, 16), (16, 1), (8, 16))
    desc.atomic_add([0, 0], tl.zeros([8, 8], tl.float32))


@triton.jit
def descriptor_argument_narrow_kernel(desc):
    desc.store([0, 0], desc.load([0, 0]))


F32 = np.zeros(64, np.float32)
I32 = np.zeros(64, np.int32)
I8 = np.zeros(64 * 64, np.int8)
F16 = np.zeros(128, np.float16)


@pytest.mark.parametrize("kernel, args, match, hint", [
    (assign_member_kernel, (F32,), r"cannot assign to t\[0\]", None),
    (runtime_index_kernel, (F32, 3), r"cannot index .* with a runtime value", r"constants"),
    (branch_structure_kernel, (F32, 2), r"`value` is a tensor or a number in the then branch but a tuple of 2",
     r"same kind"),
    (loop_structure_kernel, (F32, 2), r"`t` is a tuple of 2 before the loop but a tuple of 3", None),
    (loop_member_type_kernel, (F32, 2), r"`t\[1\]` is i32 before the loop but f32", r"0\.0 for a float"),
    (bad_boundary_kernel, (F32,), r"boundary_check dimension 2 is out of range for a block of rank 2", r"0 to 1"),
    (duplicate_boundary_kernel, (F32,), r"Duplicate dimension in `boundary_check`", None),
    (store_padding_kernel, (F32,), r"unexpected keyword argument 'padding_option'", None),
    (rank_mismatch_kernel, (F32,), r"Expected shape/strides/offsets/block_shape to have the same length", None),
    (advance_rank_kernel, (F32,), r"the block pointer has 2 dimensions, got 1 offsets", None),
    (mask_with_block_kernel, (F32,), r"`mask` and `other` arguments cannot be specified for loading block",
     r"boundary_check"),
    (boundary_on_pointers_kernel, (F32,), r"`padding_option` or `boundary_check` argument is not supported",
     r"block pointer"),
    (nan_on_ints_kernel, (I32,), r"Padding option `nan` is not supported for integer block pointers", None),
    (wide_offsets_kernel, (F32, 0), r"offsets must be 32-bit integers, got int64", r"\.to\(tl\.int32\)"),
    (value_shape_kernel, (F32,), r"Block shape\(\[8, 8\]\) and value shape\(\[4, 8\]\) mismatch", None),
    (value_dtype_kernel, (F32,), r"Block element type\(fp32\) and value element type\(fp16\) mismatch",
     r"tl\.float32"),
    (block_shape_kernel, (F32,), r"must be a power of 2, got 6", None),
    (order_kernel, (F32,), r"Expected a permutation", None),
    (descriptor_stride_kernel, (F32, 8), r"Tensor descriptor last dim must be 1", r"contiguous"),
    (descriptor_narrow_kernel, (F32,), r"at least 16 bytes in the last dimension, but got 2 \* 4 = 8 bytes", None),
    (descriptor_offsets_kernel, (F32,), r"expected 2 offsets, but got 1", None),
    (descriptor_store_shape_kernel, (F32,), r"stores blocks of shape \[8, 8\], got a value of shape \[8, 4\]", None),
    (descriptor_nan_kernel, (I32,), r"Padding option `nan` is not supported for integer blocks", None),
    (gather_tall_block_kernel, (F32,), r"descriptor block must have 1 row, but got \[2, 8\]", r"\[1, columns\]"),
    (gather_few_rows_kernel, (F32,), r"descriptor gather must have at least 8 rows, but got \[4\]", None),
    (gather_narrow_kernel, (I8,), r"descriptor gather of int8 must have at least 32 columns, but got 16", None),
    (gather_indexing_kernel, (F32,), r"descriptor gather only supports 2D indexing, but got 3", None),
    (gather_wide_rows_kernel, (F32,), r"x offsets must be 32-bit integers, got int64", r"\.to\(tl\.int32\)"),
    (descriptor_atomic_dtype_kernel, (F16,), r"Unsupported dtype fp16 for a descriptor's atomic_min", r"native tma"),
    (descriptor_atomic_shape_kernel, (F32,), r"atomic_add takes blocks of shape \[8, 16\], got .* \[8, 8\]", None),
    (scatter_shape_kernel, (F32,), r"descriptor scatter writes a value of shape \[8, 8\].*got \[8, 4\]", None),
], ids=lambda v: getattr(v, "__name__", None))
def test_mistakes(kernel, args, match, hint):
    with pytest.raises(CompilationError) as caught:
        kernel[(1,)](*args)
    error = caught.value
    assert type(error) is CompilationError and error.loc.file == __file__
    assert re.search(match, error.message), str(error)
    if hint is not None:
        assert error.hint is not None and re.search(hint, error.hint), str(error)


def test_a_descriptor_argument_the_language_refuses_names_the_argument():
    x = aligned((8, 4), np.float32, 0.0)
    with pytest.raises(CompilationError, match=r"argument `desc`: Descriptor block shape must have at least 16"):
        descriptor_argument_narrow_kernel[(1,)](TensorDescriptor(x, [8, 4], [4, 1], [8, 2]))
