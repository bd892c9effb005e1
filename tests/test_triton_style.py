"""Kernels written the way Triton's own tests and users write them, run in the interpreter.

They are not tutorials and were not written alongside the compiler: broadcasting `where`, 2-D
reductions with `keep_dims` feeding back into the tile, masked loads with `other`, atomics whose old
values are kept, an attention block with an online softmax, a blocked transpose, early returns from
nested branches, `while` loops reading memory, and a stream compaction built from a cumsum.
"""
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


# ---------------------------------------------------------------------------- where, broadcast

@triton.jit
def where_kernel(cond_ptr, a_ptr, out_ptr, BLOCK_SIZE: tl.constexpr):
    xoffsets = tl.arange(0, BLOCK_SIZE)[:, None]
    yoffsets = tl.arange(0, BLOCK_SIZE)[None, :]
    mask = tl.load(cond_ptr + yoffsets)
    vals = tl.load(a_ptr + yoffsets + BLOCK_SIZE * xoffsets)
    res = tl.where(mask, vals, 0.)
    tl.store(out_ptr + yoffsets + BLOCK_SIZE * xoffsets, res)


@triton.jit
def where_scalar_condition(a_ptr, out_ptr, BLOCK_SIZE: tl.constexpr):
    xoffsets = tl.arange(0, BLOCK_SIZE)[:, None]
    yoffsets = tl.arange(0, BLOCK_SIZE)[None, :]
    mask = 0
    vals = tl.load(a_ptr + yoffsets + BLOCK_SIZE * xoffsets)
    res = tl.where(mask, vals, 0.)
    tl.store(out_ptr + yoffsets + BLOCK_SIZE * xoffsets, res)


def test_where_broadcast():
    rng = np.random.default_rng(17)
    size = 32
    a = rng.standard_normal((size, size)).astype(np.float32)
    cond = rng.integers(0, 2, size).astype(np.bool_)
    out = np.full_like(a, np.nan)
    where_kernel[(1,)](cond, a, out, BLOCK_SIZE=size)
    np.testing.assert_array_equal(out, np.where(cond[None, :], a, 0))
    where_scalar_condition[(1,)](a, out, size)
    assert (out == 0).all()


# ---------------------------------------------------------------------- 2-D reductions, keep_dims

@triton.jit
def normalize_rows_kernel(X, Y, STATS, stride, n_cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    row0 = tl.program_id(0) * ROWS
    r = row0 + tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    mask = c < n_cols
    x = tl.load(X + r * stride + c, mask=mask, other=float("-inf"))
    x_max = tl.max(x, axis=1, keep_dims=True)  # (ROWS, 1)
    e = tl.exp(x - x_max)
    denom = tl.sum(e, axis=1, keep_dims=True)
    tl.store(Y + r * stride + c, e / denom, mask=mask)
    arg = tl.argmax(x, axis=1)  # (ROWS,)
    total = tl.sum(tl.where(mask, x, 0.0), axis=None)  # everything, one number per program
    tl.store(STATS + row0 + tl.arange(0, ROWS), arg)
    tl.atomic_add(STATS + 1000, total)


def test_reduce_2d_keep_dims():
    rng = np.random.default_rng(3)
    n_rows, n_cols = 12, 50
    x = rng.standard_normal((n_rows, 64)).astype(np.float32)
    y = np.full_like(x, np.nan)
    stats = np.zeros(1001, np.float32)
    normalize_rows_kernel[(n_rows // 4,)](x, y, stats, 64, n_cols, ROWS=4, COLS=64)
    v = x[:, :n_cols]
    e = np.exp(v - v.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y[:, :n_cols], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert np.isnan(y[:, n_cols:]).all()
    np.testing.assert_array_equal(stats[:n_rows], v.argmax(axis=1))
    np.testing.assert_allclose(stats[1000], v.sum(), rtol=1e-4)


# ------------------------------------------------------------------------- masked load, other

@triton.jit
def masked_load_kernel(in_ptr, out_ptr, in_size: tl.constexpr, out_size: tl.constexpr):
    in_offsets = tl.arange(0, out_size)
    x = tl.load(in_ptr + in_offsets, mask=in_offsets < in_size, other=1)
    output_offsets = tl.arange(0, out_size)
    tl.store(out_ptr + output_offsets, x)


@pytest.mark.parametrize("dtype, size_diff", [(np.float32, 0)] + [(d, 3) for d in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64)])
def test_masked_load(dtype, size_diff):
    size = 128
    rng = np.random.default_rng(size_diff)
    if dtype == np.bool_:
        x = rng.integers(0, 2, size - size_diff).astype(np.bool_)
    elif np.dtype(dtype).kind in "iu":
        x = rng.integers(0, 127, size - size_diff).astype(dtype)
    else:
        x = rng.random(size - size_diff).astype(dtype)
    out = np.zeros(size, dtype)
    masked_load_kernel[(1,)](x, out, size - size_diff, size)
    np.testing.assert_array_equal(out, np.concatenate([x, np.ones(size_diff, dtype)]))


# ------------------------------------------------------------------------------------ atomics

@triton.jit
def atomic_rmw_kernel(Z, X, OLD, AXIS: tl.constexpr, SHAPE0: tl.constexpr, SHAPE1: tl.constexpr):
    off0 = tl.arange(0, SHAPE0)
    off1 = tl.arange(0, SHAPE1)
    x = tl.load(X + off0[:, None] * SHAPE1 + off1[None, :])
    z = tl.sum(x, axis=AXIS)
    if AXIS == 1:
        old = tl.atomic_add(Z + off0, z)
        tl.store(OLD + off0, old)
    else:
        old = tl.atomic_add(Z + off1, z)
        tl.store(OLD + off1, old)


@pytest.mark.parametrize("shape, axis, dtype", [((2, 8), 0, np.float32), ((2, 8), 1, np.int64),
                                                ((8, 2), 0, np.uint64), ((8, 2), 1, np.float64),
                                                ((16, 16), 0, np.int64), ((16, 16), 1, np.float32)])
def test_tensor_atomic_rmw(shape, axis, dtype):
    rng = np.random.default_rng(17)
    x = (rng.standard_normal(shape) * 10).astype(dtype) if np.dtype(dtype).kind == "f" else \
        rng.integers(0, 100, shape).astype(dtype)
    z_shape = (shape[0],) if axis == 1 else (shape[1],)
    z = rng.integers(0, 10, z_shape).astype(dtype)
    old = np.zeros(z_shape, dtype)
    z_ref, old_ref = z + x.sum(axis=axis), z.copy()
    atomic_rmw_kernel[(1,)](z, x, old, axis, shape[0], shape[1])
    np.testing.assert_allclose(z, z_ref, rtol=1e-5)
    np.testing.assert_array_equal(old, old_ref)


@triton.jit
def atomic_predicate_kernel(X, Y):
    val = tl.program_id(0)
    if val < 64:
        tl.atomic_max(X, val)
    tl.atomic_min(Y + val % 4, -val.to(tl.float32))  # negative floats, several programs per address


def test_atomic_rmw_predicate():
    x = np.zeros(1, np.int32)
    y = np.zeros(4, np.float32)
    atomic_predicate_kernel[(300,)](x, y)
    assert x[0] == 63
    np.testing.assert_array_equal(y, [-296, -297, -298, -299])


# ------------------------------------------------------------------------ attention, online softmax

@triton.jit
def attention_kernel(Q, K, V, Out, seq_len, sm_scale, stride_s, HEAD: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + offs_m[:, None] * stride_s + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp(x) = exp2(x * log2(e))
    hi = tl.minimum((start_m + 1) * BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        k = tl.load(K + cols[None, :] * stride_s + offs_d[:, None], mask=cols[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < seq_len
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + cols[:, None] * stride_s + offs_d[None, :], mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]  # every row sees at least one key (its own, when causal)
    tl.store(Out + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=offs_m[:, None] < seq_len)


def _attention_reference(q, k, v, scale, causal):
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq_len", [16, 50])
def test_attention(causal, seq_len):
    rng = np.random.default_rng(seq_len)
    head = 16
    q, k, v = (rng.standard_normal((seq_len, head)).astype(np.float16) for _ in range(3))
    out = np.full((seq_len, head), np.nan, np.float16)
    scale = head ** -0.5
    attention_kernel[(triton.cdiv(seq_len, 16),)](q, k, v, out, seq_len, scale, head, HEAD=head, BLOCK_M=16,
                                                  BLOCK_N=16, CAUSAL=causal)
    np.testing.assert_allclose(out.astype(np.float64), _attention_reference(q, k, v, scale, causal),
                               rtol=2e-2, atol=2e-2)


# ------------------------------------------------------------------------------ blocked transpose

@triton.jit
def transpose_kernel(X, Y, M, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(X + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask)
    tl.store(Y + rn[:, None] * stride_ym + rm[None, :] * stride_yn, tl.trans(tile), mask=tl.trans(mask))


def test_blocked_transpose():
    x = np.random.default_rng(5).standard_normal((100, 70)).astype(np.float32)
    y = np.full((70, 100), np.nan, np.float32)
    grid = lambda meta: (triton.cdiv(100, meta["BLOCK_M"]), triton.cdiv(70, meta["BLOCK_N"]))
    transpose_kernel[grid](x, y, 100, 70, 70, 1, 100, 1, BLOCK_M=32, BLOCK_N=16)
    np.testing.assert_array_equal(y, x.T)


def test_blocked_transpose_of_a_strided_view():
    base = np.random.default_rng(6).standard_normal((40, 90)).astype(np.float64)
    x = base[:, ::3]  # a view: every third column
    y = np.full((30, 40), np.nan, np.float64)
    transpose_kernel[(2, 2)](x, y, 40, 30, 90, 3, 40, 1, BLOCK_M=32, BLOCK_N=16)
    np.testing.assert_array_equal(y, x.T)


# ------------------------------------------------------------------------ control flow, returns

@triton.jit
def if_return_kernel(ExitEarly, Out, cond: tl.constexpr, mode: tl.constexpr):
    pid = tl.program_id(0)
    exit_early = tl.load(ExitEarly)
    if exit_early:
        tl.store(Out, 0)
        return
    if mode == "dynamic":
        if cond:
            tl.store(Out, 1)
            return
        else:
            tl.store(Out, 2)
    tl.store(Out + pid + 1, 3)


def test_if_return():
    out = np.full(2, -1, np.int32)
    if_return_kernel[(1,)](np.array([1], np.int32), out, True, "dynamic")
    assert list(out) == [0, -1]
    out[:] = -1
    if_return_kernel[(1,)](np.array([0], np.int32), out, True, "dynamic")
    assert list(out) == [1, -1]
    out[:] = -1
    if_return_kernel[(1,)](np.array([0], np.int32), out, False, "dynamic")
    assert list(out) == [2, 3]
    out[:] = -1
    if_return_kernel[(1,)](np.array([0], np.int32), out, False, "static")
    assert list(out) == [-1, 3]


@triton.jit
def nested_if_else_return_kernel(Cond1, Cond2, Cond3, Val1, Val2, Val3, Out):
    val = 0
    if tl.load(Cond1):
        if tl.load(Cond2):
            val = tl.load(Val1)
        else:
            return
    else:
        if tl.load(Cond3):
            val = tl.load(Val2)
        else:
            val = tl.load(Val3)
    tl.store(Out, val)


@pytest.mark.parametrize("c1, c2, c3, expected", [(True, True, True, 1), (True, False, True, -1),
                                                  (False, True, True, 2), (False, True, False, 3)])
def test_nested_if_else_return(c1, c2, c3, expected):
    flags = [np.array([c], np.int32) for c in (c1, c2, c3)]
    values = [np.array([v], np.int32) for v in (1, 2, 3)]
    out = np.array([-1], np.int32)
    nested_if_else_return_kernel[(1,)](*flags, *values, out)
    assert out[0] == expected


@triton.jit
def while_kernel(InitI, Bound, CutOff, OutI, OutInitI, OutJ):
    init_i = tl.load(InitI)
    curr_i = init_i
    j = 0
    # Check that init_i is not updated by the loop
    while j < tl.load(Bound):
        curr_i = curr_i + (j == tl.load(CutOff))
        j += 1
        tl.store(OutInitI, init_i)
    tl.store(OutI, curr_i)
    tl.store(OutJ, j)


def test_while():
    init_i, bound, cut_off = (np.array([v], np.int32) for v in (1, 10, 5))
    out_i, out_init, out_j = (np.zeros(1, np.int32) for _ in range(3))
    while_kernel[(1,)](init_i, bound, cut_off, out_i, out_init, out_j)
    assert (out_init[0], out_i[0], out_j[0]) == (1, 2, 10)


@triton.jit
def for_iv_kernel(Out, lo, hi, step):
    acc = tl.zeros((), dtype=tl.int64)
    for i in range(lo, hi, step):
        acc += i
    tl.store(Out, acc)


@pytest.mark.parametrize("lo, hi, step", [(0, 10, 1), (-5, 30, 7), (20, -7, -3), (5, 5, 1),
                                         (2**31 - 10, 2**31 - 1, 4)])
def test_for_induction_variable(lo, hi, step):
    out = np.zeros(1, np.int64)
    for_iv_kernel[(1,)](out, lo, hi, step)
    assert out[0] == sum(range(lo, hi, step))


# --------------------------------------------------------------------- cumsum: stream compaction

@triton.jit
def compact_kernel(X, Out, Count, n, threshold, BLOCK: tl.constexpr):
    """Copy the elements above `threshold` to the front of Out, in order (one program)."""
    base = 0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n, other=threshold)
        keep = x > threshold
        position = base + tl.cumsum(keep.to(tl.int32), axis=0) - 1
        tl.store(Out + position, x, mask=keep)
        base += tl.sum(keep.to(tl.int32), axis=0)
    tl.store(Count, base)


def test_stream_compaction():
    x = np.random.default_rng(9).standard_normal(300).astype(np.float32)
    out = np.full(300, np.nan, np.float32)
    count = np.zeros(1, np.int32)
    compact_kernel[(1,)](x, out, count, 300, 0.5, BLOCK=64)
    kept = x[x > 0.5]
    assert count[0] == kept.size
    np.testing.assert_array_equal(out[:kept.size], kept)
    assert np.isnan(out[kept.size:]).all()


# ------------------------------------------------------------------- a grouped, swizzled matmul

@triton.jit
def swizzled_matmul_kernel(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr, GROUP: tl.constexpr):
    pid_m, pid_n = tl.swizzle2d(tl.program_id(0), tl.program_id(1), tl.num_programs(0), tl.num_programs(1),
                                GROUP)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=2):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0.0)
        b = tl.load(B + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_swizzled_matmul():
    rng = np.random.default_rng(11)
    M, N, K = 70, 50, 40
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    swizzled_matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a, b, c, M, N, K, BLOCK_M=16, BLOCK_N=16,
                                                                    BLOCK_K=16, GROUP=2)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ tl.reduce and tl.associative_scan

@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def _xor_combine(a, b):
    return a ^ b


@triton.jit
def custom_reduce_kernel(x_ptr, rows_ptr, cols_ptr, all_ptr, M: tl.constexpr, N: tl.constexpr, OP: tl.constexpr):
    offs_m, offs_n = tl.arange(0, M), tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    if OP == "add":
        combine = _add_combine
    elif OP == "max":
        combine = _max_combine
    else:
        combine = _xor_combine
    tl.store(rows_ptr + offs_m, tl.reduce(x, 1, combine))
    tl.store(cols_ptr + offs_n[None, :], tl.reduce(x, axis=0, combine_fn=combine, keep_dims=True))
    tl.store(all_ptr, tl.reduce(x, None, combine))


@pytest.mark.parametrize("op, dtype", [("add", np.float32), ("max", np.float32), ("max", np.int32),
                                       ("xor", np.int32), ("add", np.int64)])
def test_reduce_with_a_combine_function(op, dtype):
    rng = np.random.default_rng(21)
    m, n = 16, 64
    x = (rng.standard_normal((m, n)) * 100).astype(dtype)
    rows, cols = np.full(m, -7, dtype), np.full((1, n), -7, dtype)
    total = np.full(1, -7, dtype)
    custom_reduce_kernel[(1,)](x, rows, cols, total, M=m, N=n, OP=op)
    fold = {"add": np.sum, "max": np.max, "xor": lambda a, axis=None: np.bitwise_xor.reduce(a, axis=axis)}[op]
    rtol = 1e-5 if dtype == np.float32 else 0
    np.testing.assert_allclose(rows, fold(x, axis=1), rtol=rtol)
    np.testing.assert_allclose(cols[0], fold(x, axis=0), rtol=rtol)
    np.testing.assert_allclose(total[0], fold(x.reshape(-1), axis=0), rtol=rtol * 10)


@triton.jit
def custom_scan_kernel(x_ptr, sum_ptr, max_ptr, rev_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(sum_ptr + offs, tl.associative_scan(x, 1, _add_combine))
    tl.store(max_ptr + offs, tl.associative_scan(x, axis=0, combine_fn=_max_combine))
    tl.store(rev_ptr + offs, tl.associative_scan(x, 1, _add_combine, reverse=True))


def test_associative_scan_with_a_combine_function():
    rng = np.random.default_rng(22)
    m, n = 8, 32
    x = rng.integers(-50, 50, (m, n)).astype(np.int32)
    outs = [np.full((m, n), -7, np.int32) for _ in range(3)]
    custom_scan_kernel[(1,)](x, *outs, M=m, N=n)
    np.testing.assert_array_equal(outs[0], np.cumsum(x, axis=1))
    np.testing.assert_array_equal(outs[1], np.maximum.accumulate(x, axis=0))
    np.testing.assert_array_equal(outs[2], np.flip(np.cumsum(np.flip(x, 1), axis=1), 1))


@triton.jit
def _argmin_combine(value_a, index_a, value_b, index_b):
    """The smaller value and its index; of equal values, the smaller index."""
    take_a = (value_a < value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(take_a, value_a, value_b), tl.where(take_a, index_a, index_b)


@triton.jit
def argmin_tuple_kernel(x_ptr, rows_ptr, row_idx_ptr, cols_ptr, col_idx_ptr, all_ptr, all_idx_ptr,
                        M: tl.constexpr, N: tl.constexpr):
    offs_m, offs_n = tl.arange(0, M), tl.arange(0, N)
    offs = offs_m[:, None] * N + offs_n[None, :]
    x = tl.load(x_ptr + offs)
    cols = tl.broadcast_to(offs_n[None, :], (M, N))
    value, index = tl.reduce((x, cols), 1, _argmin_combine)
    tl.store(rows_ptr + offs_m, value)
    tl.store(row_idx_ptr + offs_m, index)
    rows = tl.broadcast_to(offs_m[:, None], (M, N)).to(tl.int64)
    value, index = tl.reduce((x, rows), axis=0, combine_fn=_argmin_combine, keep_dims=True)
    tl.store(cols_ptr + offs_n[None, :], value)
    tl.store(col_idx_ptr + offs_n[None, :], index)
    value, index = tl.reduce((x, offs), None, _argmin_combine)
    tl.store(all_ptr, value)
    tl.store(all_idx_ptr, index)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int64])
@pytest.mark.parametrize("m, n", [(16, 64), (4, 256), (64, 8)])
def test_reduce_of_values_and_indices_finds_the_first_minimum(dtype, m, n):
    rng = np.random.default_rng(23)
    x = rng.integers(-20, 20, (m, n)).astype(dtype)  # few distinct values: many ties
    rows, cols, total = np.full(m, 99, dtype), np.full((1, n), 99, dtype), np.full(1, 99, dtype)
    row_idx, col_idx, total_idx = np.full(m, -7, np.int32), np.full((1, n), -7, np.int64), np.full(1, -7, np.int32)
    argmin_tuple_kernel[(1,)](x, rows, row_idx, cols, col_idx, total, total_idx, M=m, N=n)
    np.testing.assert_array_equal(rows, x.min(axis=1))
    np.testing.assert_array_equal(row_idx, x.argmin(axis=1))
    np.testing.assert_array_equal(cols[0], x.min(axis=0))
    np.testing.assert_array_equal(col_idx[0], x.argmin(axis=0))
    assert total[0] == x.min() and total_idx[0] == x.argmin()


@triton.jit
def _welford_combine(mean_a, m2_a, count_a, mean_b, m2_b, count_b):
    """Chan's update: the mean, the sum of squared deviations and the count of two parts merged."""
    count = count_a + count_b
    weight = tl.where(count == 0, 0.0, count_b / tl.maximum(count, 1.0))
    delta = mean_b - mean_a
    return mean_a + delta * weight, m2_a + m2_b + delta * delta * count_a * weight, count


@triton.jit
def welford_kernel(x_ptr, mean_ptr, var_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=0.0)
    count = mask.to(tl.float32)
    mean, m2, count = tl.reduce((x, tl.zeros_like(x), count), 0, _welford_combine)
    tl.store(mean_ptr + row, mean)
    tl.store(var_ptr + row, m2 / count)


def test_welford_reduction_of_three_tensors_gives_mean_and_variance():
    rng = np.random.default_rng(24)
    rows, n = 5, 300  # 300 of a 512 block: the masked lanes have count 0
    x = (rng.standard_normal((rows, n)) * 3 + 10).astype(np.float32)
    mean, var = np.full(rows, -7, np.float32), np.full(rows, -7, np.float32)
    welford_kernel[(rows,)](x, mean, var, n, BLOCK=512)
    np.testing.assert_allclose(mean, x.astype(np.float64).mean(axis=1), rtol=1e-5)
    np.testing.assert_allclose(var, x.astype(np.float64).var(axis=1), rtol=1e-4)


@triton.jit
def _running_max_combine(value_a, index_a, value_b, index_b):
    take_b = value_b > value_a
    return tl.where(take_b, value_b, value_a), tl.where(take_b, index_b, index_a)


@triton.jit
def tuple_scan_kernel(x_ptr, max_ptr, where_ptr, rev_ptr, rev_where_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    index = tl.broadcast_to(tl.arange(0, N)[None, :], (M, N))
    best, where = tl.associative_scan((x, index), 1, _running_max_combine)
    tl.store(max_ptr + offs, best)
    tl.store(where_ptr + offs, where)
    best, where = tl.associative_scan((x, index), 1, _running_max_combine, reverse=True)
    tl.store(rev_ptr + offs, best)
    tl.store(rev_where_ptr + offs, where)


@pytest.mark.parametrize("m, n", [(8, 32), (2, 256)])
def test_scan_of_a_tuple_carries_the_index_of_the_running_maximum(m, n):
    rng = np.random.default_rng(25)
    x = rng.integers(-1000, 1000, (m, n)).astype(np.float32)
    outs = [np.full((m, n), -7, np.float32), np.full((m, n), -7, np.int32)] * 2
    outs = [o.copy() for o in outs]
    tuple_scan_kernel[(1,)](x, *outs, M=m, N=n)
    expect = np.maximum.accumulate(x, axis=1)
    np.testing.assert_array_equal(outs[0], expect)
    first = np.array([[int(np.argmax(row[:j + 1])) for j in range(n)] for row in x])
    np.testing.assert_array_equal(outs[1], first)
    flipped = np.flip(x, 1)
    np.testing.assert_array_equal(outs[2], np.flip(np.maximum.accumulate(flipped, axis=1), 1))
    last = np.array([[j + int(np.argmax(row[j:])) for j in range(n)] for row in x])
    np.testing.assert_array_equal(outs[3], last)


@triton.jit
def _pair_sum(a, b, c, d):
    return a + c


@triton.jit
def reduce_tuple_kernel(x_ptr, out_ptr, SHAPE_MISMATCH: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if SHAPE_MISMATCH:
        y = tl.load(x_ptr + tl.arange(0, 8))
    else:
        y = x
    tl.store(out_ptr, tl.reduce((x, y), 0, _pair_sum)[0])


def test_a_tuple_reduction_with_a_wrong_combine_or_shapes_is_a_clear_error():
    x = np.zeros(16, np.float32)
    with pytest.raises(triton.CompilationError, match="must return 2 value"):
        reduce_tuple_kernel[(1,)](x, x, SHAPE_MISMATCH=False)
    with pytest.raises(triton.CompilationError, match="one shape"):
        reduce_tuple_kernel[(1,)](x, x, SHAPE_MISMATCH=True)


# ------------------------------------------------------------------ pointers read from memory

@triton.jit
def scale_each_kernel(table_ptr, sizes_ptr, factor, BLOCK: tl.constexpr):
    """Each program scales one array, found through a table of addresses (as tutorial 08's grouped
    GEMM finds its matrices)."""
    which = tl.program_id(0)
    data = tl.load(table_ptr + which).to(tl.pointer_type(tl.float32))
    n = tl.load(sizes_ptr + which)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(data + offs, tl.load(data + offs, mask=offs < n) * factor, mask=offs < n)


@pytest.mark.no_gpu_diff  # the table holds addresses: the GPU's are not the interpreter's
def test_a_table_of_addresses_reaches_arrays_the_launch_was_not_given(device):
    rng = np.random.default_rng(26)
    hosts = [rng.standard_normal(n).astype(np.float32) for n in (5, 300, 64)]
    arrays = [device.array(h.copy()) for h in hosts]
    table = np.array([a.ctypes.data if isinstance(a, np.ndarray) else a.data_ptr() for a in arrays], np.int64)
    sizes = np.array([h.size for h in hosts], np.int32)
    scale_each_kernel[(3,)](device.array(table), device.array(sizes), 2.5, BLOCK=128)
    for h, a in zip(hosts, arrays):
        np.testing.assert_array_equal(device.numpy(a), h * np.float32(2.5))


@triton.jit
def wild_pointer_kernel(table_ptr):
    bad = tl.load(table_ptr).to(tl.pointer_type(tl.float32))
    tl.store(bad, 1.0)


def test_a_pointer_into_unmapped_memory_is_an_error_not_a_crash():
    with pytest.raises(triton.InterpreterError, match="in no array"):
        wild_pointer_kernel[(1,)](np.array([16], np.int64))


# ------------------------------------------------------------------ dots fed by other dots

@triton.jit
def chained_dots_kernel(q_ptr, k_ptr, v_ptr, do_ptr, dk_ptr, dv_ptr, steps,
                        BM: tl.constexpr, BN: tl.constexpr, HD: tl.constexpr):
    """The shape of attention's backward pass for dK and dV: operands that come from another dot
    (in the accumulator's layout), from a transpose, from arithmetic on a load; loop-carried
    accumulators; a tile used by two dots, once transposed."""
    offs_n, offs_k, offs_m = tl.arange(0, BN), tl.arange(0, HD), tl.arange(0, BM)
    k = tl.load(k_ptr + offs_n[:, None] * HD + offs_k[None, :])
    v = tl.load(v_ptr + offs_n[:, None] * HD + offs_k[None, :]) * 0.5  # arithmetic on a load
    dk = tl.zeros([BN, HD], dtype=tl.float32)
    dv = tl.zeros([BN, HD], dtype=tl.float32)
    for i in range(steps):
        rows = i * BM + offs_m
        q_t = tl.load(q_ptr + rows[None, :] * HD + offs_k[:, None])  # HD x BM: q transposed
        do = tl.load(do_ptr + rows[:, None] * HD + offs_k[None, :])
        p_t = tl.dot(k, q_t) * 0.125  # BN x BM, in the accumulator's layout
        dv += tl.dot(p_t.to(tl.float16), do)
        dp_t = tl.dot(v, tl.trans(do))
        ds_t = (p_t * dp_t).to(tl.float16)
        dk += tl.dot(ds_t, tl.trans(q_t))
    tl.store(dk_ptr + offs_n[:, None] * HD + offs_k[None, :], dk)
    tl.store(dv_ptr + offs_n[:, None] * HD + offs_k[None, :], dv)


@pytest.mark.parametrize("num_warps, num_stages", [(4, 1), (4, 3), (8, 2)])
def test_dots_fed_by_dots_transposes_and_arithmetic(num_warps, num_stages):
    rng = np.random.default_rng(27)
    bm, bn, hd, steps = 32, 64, 64, 3
    q = (rng.standard_normal((steps * bm, hd)) * 0.5).astype(np.float16)
    do = (rng.standard_normal((steps * bm, hd)) * 0.5).astype(np.float16)
    k = (rng.standard_normal((bn, hd)) * 0.5).astype(np.float16)
    v = (rng.standard_normal((bn, hd)) * 0.5).astype(np.float16)
    dk, dv = np.full((bn, hd), np.nan, np.float32), np.full((bn, hd), np.nan, np.float32)
    chained_dots_kernel[(1,)](q, k, v, do, dk, dv, steps, BM=bm, BN=bn, HD=hd,
                              num_warps=num_warps, num_stages=num_stages)
    f = lambda x: x.astype(np.float32)
    v_half = f((f(v) * 0.5).astype(np.float16))
    want_dk, want_dv = np.zeros((bn, hd), np.float32), np.zeros((bn, hd), np.float32)
    for i in range(steps):
        q_t, d = f(q[i * bm:(i + 1) * bm]).T, f(do[i * bm:(i + 1) * bm])
        p_t = (f(k) @ q_t) * 0.125
        want_dv += f(p_t.astype(np.float16)) @ d
        ds_t = f((p_t * (v_half @ d.T)).astype(np.float16))
        want_dk += ds_t @ q_t.T
    np.testing.assert_allclose(dv, want_dv, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(dk, want_dk, rtol=2e-2, atol=2e-2)


# ------------------------------------------------------------------ reductions over a whole tile

@triton.jit
def group_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, channels, hw, groups, eps,
                      BLOCK_C: tl.constexpr, BLOCK_HW: tl.constexpr):
    """One (sample, group) per program: the statistics of a whole 2-D tile (tl.sum with no axis),
    then the normalized tile, scaled per channel."""
    pid = tl.program_id(0)
    group = pid % groups
    per_group = channels // groups
    c = tl.arange(0, BLOCK_C)
    s = tl.arange(0, BLOCK_HW)
    mask = (c[:, None] < per_group) & (s[None, :] < hw)
    offs = pid * per_group * hw + c[:, None] * hw + s[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    count = per_group * hw
    mean = tl.sum(x) / count
    centered = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered) / count + eps)
    channel = group * per_group + c
    w = tl.load(w_ptr + channel, mask=c < per_group)
    b = tl.load(b_ptr + channel, mask=c < per_group)
    tl.store(y_ptr + offs, centered * rstd * w[:, None] + b[:, None], mask=mask)
    tl.store(mean_ptr + pid, mean)
    tl.store(rstd_ptr + pid, rstd)


def test_group_norm_reduces_a_whole_tile_without_moving_it():
    """tl.sum(x) of a 2-D tile reduces one axis and then the other, as Triton may reorder, and the
    per-channel weights are broadcast after their conversion, not before: only the reductions'
    partials and two 64-element conversions go through shared memory, so a 64 x 1024 fp32 tile
    (256 KB) needs 2 KB of it, not 256 KB."""
    rng = np.random.default_rng(28)
    n, channels, groups, hw = 2, 12, 3, 50
    x = rng.standard_normal((n, channels, hw)).astype(np.float32) * 2 + 1
    w, b = rng.standard_normal(channels).astype(np.float32), rng.standard_normal(channels).astype(np.float32)
    y = np.full_like(x, np.nan)
    mean, rstd = np.full(n * groups, np.nan, np.float32), np.full(n * groups, np.nan, np.float32)
    group_norm_kernel[(n * groups,)](x, y, w, b, mean, rstd, channels, hw, groups, 1e-5, BLOCK_C=4, BLOCK_HW=64)
    grouped = x.reshape(n, groups, -1).astype(np.float64)
    want_mean, want_var = grouped.mean(-1), grouped.var(-1)
    np.testing.assert_allclose(mean, want_mean.reshape(-1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, (1 / np.sqrt(want_var + 1e-5)).reshape(-1), rtol=1e-5)
    normalized = ((grouped - want_mean[..., None]) / np.sqrt(want_var[..., None] + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(y, normalized * w[None, :, None] + b[None, :, None], rtol=1e-4, atol=1e-4)
    big = group_norm_kernel.warmup(np.zeros(64 * 1024, np.float32), np.zeros(64 * 1024, np.float32), w, b,
                                   mean, rstd, 64, 1024, 1, 1e-5, BLOCK_C=64, BLOCK_HW=1024, num_warps=8,
                                   grid=(1,), target="sm_90")
    assert big.metadata["shared_bytes"] <= 2048, big.metadata["shared_bytes"]


# ------------------------------------------------------------------ atomics: every op, every dtype

@triton.jit
def atomic_op_kernel(z_ptr, x_ptr, old_ptr, OP: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr,
                     N: tl.constexpr):
    """Each element of z is hit by four lanes of this program, from 4 * N values of x."""
    offs = tl.arange(0, 4 * N)
    x = tl.load(x_ptr + offs)
    target = z_ptr + offs % N
    if OP == "add":
        old = tl.atomic_add(target, x, sem=SEM, scope=SCOPE)
    elif OP == "max":
        old = tl.atomic_max(target, x, sem=SEM, scope=SCOPE)
    elif OP == "min":
        old = tl.atomic_min(target, x, sem=SEM, scope=SCOPE)
    elif OP == "and":
        old = tl.atomic_and(target, x, sem=SEM, scope=SCOPE)
    elif OP == "or":
        old = tl.atomic_or(target, x, sem=SEM, scope=SCOPE)
    elif OP == "xor":
        old = tl.atomic_xor(target, x, sem=SEM, scope=SCOPE)
    else:
        old = tl.atomic_xchg(target, x, sem=SEM, scope=SCOPE)
    tl.store(old_ptr + offs, old)


ATOMIC_DTYPES = {  # the dtypes Triton 3.6 accepts for each atomic
    "add": [np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64],
    "max": [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64],
    "min": [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64],
    "and": [np.int32, np.uint32, np.int64, np.uint64],
    "or": [np.int32, np.uint32, np.int64, np.uint64],
    "xor": [np.int32, np.uint32, np.int64, np.uint64],
    "xchg": [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64],
}
FOLD = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or,
        "xor": np.bitwise_xor}


@pytest.mark.no_gpu_diff  # the old values depend on the order the lanes of one address land in
@pytest.mark.parametrize("op, dtype", [(op, d) for op, dtypes in ATOMIC_DTYPES.items() for d in dtypes])
def test_every_atomic_on_every_dtype_triton_allows(op, dtype):
    rng = np.random.default_rng(29)
    n = 16
    if np.dtype(dtype).kind == "f":
        x = rng.integers(-20, 20, 4 * n).astype(dtype)  # small integers: fp16 sums stay exact
        z = rng.integers(-20, 20, n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -1000), 1000, 4 * n).astype(dtype)
        z = rng.integers(max(info.min, -1000), 1000, n).astype(dtype)
    start, old = z.copy(), np.zeros(4 * n, dtype)
    atomic_op_kernel[(1,)](z, x, old, OP=op, SEM="acq_rel", SCOPE="gpu", N=n)
    lanes, olds = x.reshape(4, n), old.reshape(4, n)
    for i in range(n):  # the lanes of one address land one after another, in some order
        if op == "xchg":  # each lane takes what the one before it left: a chain through all of them
            assert sorted([start[i], *lanes[:, i]]) == sorted([*olds[:, i], z[i]])
            continue
        assert z[i] == FOLD[op].reduce([start[i], *lanes[:, i]])
        for k in range(4):  # what lane k saw: the start folded with some of the other lanes
            others = [lanes[j, i] for j in range(4) if j != k]
            seen = {FOLD[op].reduce([start[i], *[v for b, v in enumerate(others) if mask >> b & 1]])
                    for mask in range(8)}
            assert olds[k, i] in seen, (i, k)


@pytest.mark.parametrize("op, dtype, message", [
    ("max", np.float16, "atomic_max does not support fp16"), ("and", np.float32, "atomic_and does not support fp32"),
    ("add", np.int16, "atomic_add does not support int16"), ("xchg", np.uint8, "atomic_xchg does not support uint8")])
def test_atomics_triton_refuses_are_clear_errors(op, dtype, message):
    x = np.zeros(64, dtype)
    with pytest.raises(triton.CompilationError, match=message):
        atomic_op_kernel[(1,)](x, x, x, OP=op, SEM="acq_rel", SCOPE="gpu", N=16)


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel"])
@pytest.mark.parametrize("scope", ["cta", "gpu", "sys"])
def test_atomic_sem_and_scope_reach_the_ptx(sem, scope):
    x = np.zeros(64, np.int32)
    compiled = atomic_op_kernel.warmup(x, x, x, OP="add", SEM=sem, SCOPE=scope, N=16, grid=(1,), target="sm_90")
    assert f"atom.global.{scope}.{sem}.add" in compiled.asm["ptx"]  # Triton's spelling


@triton.jit
def bf16_atomic_add_kernel(z_bits_ptr, x_bits_ptr, old_bits_ptr, N: tl.constexpr):
    offs = tl.arange(0, 4 * N)
    z = z_bits_ptr.to(tl.pointer_type(tl.bfloat16))  # bf16 arrays travel as their 16-bit patterns
    x = tl.load(x_bits_ptr.to(tl.pointer_type(tl.bfloat16)) + offs)
    old = tl.atomic_add(z + offs % N, x)
    tl.store(old_bits_ptr + offs, old.to(tl.uint16, bitcast=True))


@pytest.mark.no_gpu_diff  # which lane's add lands first, and so each one's old value, is the GPU's choice
def test_bf16_atomic_add_also_before_hopper():
    """sm_90 has atom.add.bf16; sm_80 gets a compare-and-swap loop (the conftest assembles both)."""
    rng = np.random.default_rng(30)
    n = 16
    as_bits = lambda v: (np.asarray(v, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    x, z = rng.integers(-20, 20, 4 * n), rng.integers(-20, 20, n)
    z_bits, old_bits = as_bits(z), np.zeros(4 * n, np.uint16)
    bf16_atomic_add_kernel[(1,)](z_bits, as_bits(x), old_bits, N=n)
    np.testing.assert_array_equal(z_bits, as_bits(z + x.reshape(4, n).sum(axis=0)))


# ------------------------------------------------------------- small rules of the language

@triton.jit
def lazy_ifexp_kernel(x_ptr, out_ptr, far, n):
    i = tl.program_id(0)
    # Only the side taken runs: `far` is an offset no array holds, so an eager load would fault.
    v = tl.load(x_ptr + i) if i < n else tl.load(x_ptr + far)
    tl.store(out_ptr + i, v * 2)


def test_a_runtime_conditional_expression_runs_only_the_side_taken():
    x, out = np.arange(5, dtype=np.float32), np.full(5, -1, np.float32)
    lazy_ifexp_kernel[(5,)](x, out, 1 << 40, 5)
    np.testing.assert_array_equal(out, 2 * x)


@triton.jit
def one_element_condition_kernel(x_ptr):
    condition = tl.load(x_ptr + tl.arange(0, 1)) > 42  # a tile of one element reads as its value
    if condition:
        tl.store(x_ptr, 42)


@pytest.mark.parametrize("start, end", [(43, 42), (40, 40)])
def test_a_one_element_tile_is_a_condition(start, end):
    x = np.array([start, 7], np.int32)
    one_element_condition_kernel[(1,)](x)
    assert x.tolist() == [end, 7]


@triton.jit
def introspection_kernel(x_ptr, out_ptr):
    if x_ptr is not None and hasattr(x_ptr, "dtype") and isinstance(x_ptr.dtype, tl.pointer_type):
        if x_ptr.dtype.element_ty == tl.int32:
            tl.store(out_ptr, tl.load(x_ptr) + 1)
    n = 3
    tl.store(out_ptr + 1, n.to(tl.float32).to(tl.int64) + n.dtype.primitive_bitwidth)  # 3 + 32


@pytest.mark.parametrize("dtype, first", [(np.int32, 11), (np.int64, -1)])
def test_isinstance_hasattr_and_the_attributes_of_python_numbers(dtype, first):
    out = np.full(2, -1, np.int64)
    introspection_kernel[(1,)](np.array([10], dtype), out)
    assert out.tolist() == [first, 35]
    assert isinstance(tl.pointer_type(tl.float16), tl.pointer_type) and not isinstance(tl.float16, tl.pointer_type)
    assert tl.pi32_t == tl.pointer_type(tl.int32)


@triton.jit
def annotated_argument_kernel(out_ptr, v: tl.int8, w: "tl.float16"):
    tl.store(out_ptr, v.to(tl.float32) + w.to(tl.float32))
    tl.static_assert(v.dtype == tl.int8)
    tl.static_assert(w.dtype == tl.float16)


@triton.jit
def annotated_double_kernel(out_ptr, x: tl.float64):
    tl.store(out_ptr, x)


def test_an_argument_annotated_with_a_dtype_takes_that_dtype(device):
    """As in Triton 3.6, the annotation types the parameter itself: the launch converts the value
    (0.1 to fp16; to fp64 exactly, where an fp32 parameter would have lost it), and refuses one the
    type cannot hold."""
    out = device.array(np.zeros(1, np.float32))
    annotated_argument_kernel[(1,)](out, -100, 0.1)
    assert device.numpy(out)[0] == np.float32(-100 + np.float32(np.float16(0.1)))
    with pytest.raises(triton.LaunchError, match="should be (int8|i8), got 300"):
        annotated_argument_kernel[(1,)](out, 300, 0.1)
    double = device.array(np.zeros(1, np.float64))
    annotated_double_kernel[(1,)](double, 0.1)
    assert device.numpy(double)[0] == 0.1
    ttir = annotated_argument_kernel.warmup(np.zeros(1, np.float32), 3, 0.5, grid=(1,), target="sm_90a").asm["ttir"]
    assert "%v: i8" in ttir and "%w: f16" in ttir


@triton.jit
def expand_dims_kernel(out_ptr, AXES: tl.constexpr):
    x = tl.expand_dims(tl.arange(0, 4), AXES)
    tl.store(out_ptr + tl.arange(0, 4), tl.reshape(x, [4]))


@pytest.mark.parametrize("axes, message", [(2, r"invalid axis 2"), (-3, r"invalid axis -3"),
                                           ((0, -3), r"duplicate axes, normalized axes = \[0, 0\]")])
def test_expand_dims_refuses_bad_axes(axes, message):
    with pytest.raises(triton.CompilationError, match=message) as caught:
        expand_dims_kernel[(1,)](np.zeros(4, np.int32), AXES=axes)
    assert isinstance(caught.value, triton.TritonError)


@triton.jit
def pid_kernel(out_ptr, AXIS: tl.constexpr):
    tl.store(out_ptr, tl.program_id(AXIS))


def test_errors_share_triton_s_base_class_and_phrases():
    with pytest.raises(triton.TritonError, match="program_id axis must be 0, 1, or 2 but got 3") as caught:
        pid_kernel[(1,)](np.zeros(1, np.int32), AXIS=3)
    assert str(caught.value.__cause__) == "program_id axis must be 0, 1, or 2 but got 3"  # chained as Triton does
    assert caught.value.error_message == "program_id axis must be 0, 1, or 2 but got 3"
    for error in (triton.CompilationError, triton.OutOfResources, triton.InterpreterError):
        assert issubclass(error, triton.TritonError)


def test_dtype_families_name_dtypes():
    names = tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.FP_TYPES
    assert [tl.dtype(n).name for n in names] == names
    assert all(tl.dtype(n).is_standard_floating() for n in tl.dtype.STANDARD_FP_TYPES)
    assert all(tl.dtype(n).is_int_signed() for n in tl.dtype.SINT_TYPES)


@pytest.mark.parametrize("dtype", [tl.float8e4nv, tl.float8e5])
def test_no_atomic_on_fp8(dtype):
    codes = triton.reinterpret(np.zeros(16, np.uint8), dtype)
    with pytest.raises(triton.TritonError, match=f"atomic_add does not support {dtype}"):
        atomic_op_kernel[(1,)](codes, codes, codes, OP="add", SEM="acq_rel", SCOPE="gpu", N=16)


@triton.jit
def _offset_by(x, N: tl.constexpr):
    return x + N


@triton.jit
def constexpr_parameter_kernel(out_ptr, n):
    tl.store(out_ptr, _offset_by(1, n))  # a run-time value for a constexpr parameter: bound as it is
    tl.store(out_ptr + 1, _offset_by(1, 7))


def test_a_callee_s_constexpr_parameter_takes_a_run_time_value():
    out = np.zeros(2, np.int32)
    constexpr_parameter_kernel[(1,)](out, 5)
    assert out.tolist() == [6, 8]
