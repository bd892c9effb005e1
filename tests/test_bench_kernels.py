"""The benchmarks' kernels on the CPU: attention, the norms, grouped GEMM and the matmul's TF32 and
fp8, launched by the benchmark's own launch functions in the interpreter (torch's allocations
stood in for by numpy) and checked against float64 at the benchmark's tolerances; their Triton
twins (made here with minitriton's jit) agree with them; the block configurations the benchmark
runs on an H100 compile for sm_90a, fit its shared memory and use wgmma; the sizes and bytes the
tables report. On a GPU, each benchmark runs end to end at small sizes."""
import csv
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest

import minitriton
import minitriton.language as tl
from minitriton import bench, testing
from minitriton.dtypes import array_address, reinterpret
from minitriton.examples.attention import attention_reference
from minitriton.examples.layer_norm import layer_norm_reference
from minitriton.examples.rms_norm import rms_norm_reference
from minitriton.floats import bf16_bits, bf16_from_bits

HOPPER_SHARED_BYTES = 232448  # the most an sm_90 program may ask for (227 KB)


@pytest.fixture
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


def _poisoned(shape, dtype):
    dtype = np.dtype(dtype)
    return np.full(shape, np.nan if dtype.kind == "f" else -1, dtype)


# What the launch functions ask of torch, answered by numpy: new outputs are NaN, as the harness's.
NUMPY_TORCH = SimpleNamespace(float32=np.float32, int32=np.int32,
                              empty=lambda shape, device=None, dtype=None: _poisoned(shape, dtype),
                              zeros=lambda shape, device=None, dtype=None: np.zeros(shape, dtype),
                              empty_like=lambda a: np.full_like(a, np.nan))


def _error(got, want) -> float:
    return bench.result_error(tuple(np.asarray(g, np.float64) for g in got), tuple(want))


# ----------------------------------------------------------------------------- sizes, bytes, configs

def test_the_new_sweeps():
    for sizes in (bench.norm_columns, bench.tf32_sizes, bench.fp8_sizes, bench.grouped_sizes,
                  bench.attention_lengths, bench.matmul_shapes):
        full, quick = sizes(False), sizes(True)
        assert quick and set(quick) <= set(full), sizes.__name__
    assert bench.norm_columns(False)[0] == 1024 and bench.norm_columns(False)[-1] == 16384
    assert any(c & (c - 1) for c in bench.norm_columns(False)), "some rows leave part of the block masked"
    assert bench.attention_lengths(False) == [1024, 2048, 4096, 8192, 16384]
    assert {(8192, 8192, 512), (16, 8192, 8192), (128, 8192, 8192)} <= set(bench.matmul_shapes(True))
    assert all(d % 16 == 0 for shape in bench.matmul_shapes(False) for d in shape), "fp8's cuBLAS wants 16s"
    for n in bench.attention_lengths(False):
        assert bench.ATTENTION_TOKENS % n == 0
    assert all(bench.ATTENTION_WIDTH % d == 0 for d in bench.ATTENTION_CONFIGS)


def test_matmul_cases():
    quick, full = bench.matmul_cases(True), bench.matmul_cases(False)
    names = [c.name for c in full]
    assert len(set(names)) == len(names) and {c.name for c in quick} <= set(names)
    assert {"fp16", "bf16", "fp16 skinny", "bf16 skinny", "fp32 ieee", "fp32 tf32", "fp8e4m3"} == set(names)
    for case in full:
        assert case.tolerance in bench.TOLERANCE and case.configs and case.shapes
    tf32, = (c for c in full if c.name == "fp32 tf32")
    assert tf32.precision == "tf32" and tf32.configs == bench.TF32_MATMUL_CONFIGS
    fp8, = (c for c in full if c.name == "fp8e4m3")
    assert fp8.dtype == "float8_e4m3fn" and fp8.configs == bench.FP8_MATMUL_CONFIGS


def _significant(x, bits, rounding=np.round):
    """x with `bits` significant bits (tf32 11, bf16 8, e4m3 4), rounded or truncated."""
    mantissa, exponent = np.frexp(x)
    return np.ldexp(rounding(mantissa * 2**bits) / 2**bits, exponent)


def test_tolerances_tell_the_precisions_apart():
    """On a random matmul: inputs truncated to tf32 (as tensor cores may read fp32) pass tf32's
    check and fail fp32's; inputs rounded to bf16 fail tf32's; a result rounded to e4m3 fails fp8's."""
    rng = np.random.default_rng(12)
    a, b = rng.standard_normal((256, 512)), rng.standard_normal((512, 256))
    truth = a @ b
    error = lambda x, y: testing.relative_error(x @ y, truth)  # noqa: E731
    tf32 = error(_significant(a, 11, np.trunc), _significant(b, 11, np.trunc))
    assert bench.TOLERANCE["fp32"] < tf32 < bench.TOLERANCE["tf32"]
    assert error(_significant(a, 8), _significant(b, 8)) > bench.TOLERANCE["tf32"]
    assert testing.relative_error(_significant(truth, 4), truth) > bench.TOLERANCE["fp8"]


def test_norm_bytes():
    rows, cols = 4096, 1024
    assert bench.norm_bytes("layer norm fwd", rows, cols) == 2 * (2 * rows * cols + 2 * cols) + 8 * rows
    assert bench.norm_bytes("layer norm bwd", rows, cols) == 2 * (3 * rows * cols + 3 * cols) + 8 * rows
    assert bench.norm_bytes("rms norm fwd", rows, cols) == 2 * (2 * rows * cols + cols) + 4 * rows
    assert bench.norm_bytes("rms norm bwd", rows, cols) == 2 * (3 * rows * cols + 2 * cols) + 4 * rows


def test_configs_and_their_labels():
    for head_dim, configs in bench.ATTENTION_CONFIGS.items():
        for config in configs:
            assert config["BLOCK_M"] % config["BLOCK_N"] == 0, "the causal walks need it"
    assert bench.config_label(bench.ATTENTION_CONFIGS[128][0]) == "128x64 w8 s3"
    assert bench.config_label(bench.GROUPED_CONFIGS[0]) == "128x128x32 w4 s3"
    meta, options = bench.launch_options(bench.TF32_MATMUL_CONFIGS[0])
    assert options == {"num_warps": 8, "num_stages": 3} and "num_warps" not in meta
    assert bench.norm_groups(1024) == 256 and bench.norm_groups(16384) == 64
    assert bench.row_warps(2 * 1024) == 4 and bench.row_warps(2 * 16384) == 16


# ----------------------------------------------------------------------------- attention

def _attention_inputs(rng, shape, dtype, layout):
    """q, k, v of `shape` (Z, H, N, D) as launched, and their values in float64: fp16 stored
    [Z, H, N, D] or [Z, N, H, D] ("bshd", seen through a transpose), or bf16 bits."""
    z, h, n, d = shape
    launched, values = [], []
    for _ in range(3):
        if layout == "bshd":
            x = rng.standard_normal((z, n, h, d)).astype(dtype).transpose(0, 2, 1, 3)
        else:
            x = rng.standard_normal(shape).astype(np.float32 if dtype == "bf16" else dtype)
        if dtype == "bf16":
            bits = bf16_bits(x)
            launched.append(reinterpret(bits, tl.bfloat16))
            values.append(bf16_from_bits(bits).astype(np.float64))
        else:
            launched.append(x)
            values.append(x.astype(np.float64))
    return launched, values


@pytest.mark.parametrize("dtype, layout", [(np.float16, "bhsd"), ("bf16", "bhsd"), (np.float16, "bshd")])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n_ctx, head_dim, block_m, block_n", [(100, 32, 32, 16), (64, 16, 32, 32)])
def test_bench_attention_launch(interpret, dtype, layout, causal, n_ctx, head_dim, block_m, block_n):
    """The benchmark's launch: q's strides for all four arrays, a program per BLOCK_M queries of a
    head; N not a multiple of the blocks, and a layout whose heads are not outermost."""
    rng = np.random.default_rng(n_ctx + causal)
    (q, k, v), (q64, k64, v64) = _attention_inputs(rng, (2, 3, n_ctx, head_dim), dtype, layout)
    if dtype == "bf16":
        out = reinterpret(np.full((2, 3, n_ctx, head_dim), 0x7FC0, np.uint16), tl.bfloat16)  # bf16 NaNs
    else:
        out = np.full_like(q, np.nan)  # the same strides as q
    config = {"BLOCK_M": block_m, "BLOCK_N": block_n, "num_warps": 4, "num_stages": 2}
    run = bench.attention_launch(NUMPY_TORCH, bench.minitriton_kernels()["attention"], config, causal)
    assert run(q, k, v, out) is out
    got = bf16_from_bits(out.base) if dtype == "bf16" else out
    want = attention_reference(q64, k64, v64, np.zeros_like(q64), 1 / math.sqrt(head_dim), causal)[0]
    assert not np.isnan(got).any()
    assert testing.relative_error(got, want) < bench.TOLERANCE["bf16" if dtype == "bf16" else "fp16"]


# ----------------------------------------------------------------------------- the norms

def _norm_args(rng, rows, cols, backward):
    x = (-2.3 + 0.5 * rng.standard_normal((rows, cols))).astype(np.float16)
    w, b = (rng.random(cols).astype(np.float16) for _ in range(2))
    dy = (0.1 * rng.standard_normal((rows, cols))).astype(np.float16)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1).astype(np.float32)
    rstd = (1 / np.sqrt(x64.var(axis=1) + bench.NORM_EPS)).astype(np.float32)
    rms_rstd = (1 / np.sqrt((x64 * x64).mean(axis=1) + bench.NORM_EPS)).astype(np.float32)
    inputs = (x, w, b, dy, mean, rstd, rms_rstd) + ((None, None) if backward else ())  # no torch graphs
    shapes = [(rows, cols), (cols,), (cols,)] if backward else [(rows, cols)]
    return inputs, tuple(_poisoned(shape, np.float16) for shape in shapes)


@pytest.mark.parametrize("case", bench.NORM_CASES)
@pytest.mark.parametrize("rows, cols", [(37, 300), (8, 64)])
def test_bench_norm_launches(interpret, case, rows, cols):
    rng = np.random.default_rng(rows * cols)
    backward = case.endswith("bwd")
    inputs, outputs = _norm_args(rng, rows, cols, backward)
    block = minitriton.next_power_of_2(cols)
    options = {"BLOCK": block, "warps": 4, "groups": 5, "programs": 6}
    got = bench.NORM_LAUNCHES[case](NUMPY_TORCH, bench.minitriton_kernels(), options)(*inputs, *outputs)
    assert all(g is o for g, o in zip(got, outputs)), "the results are the outputs given"
    x, w, b, dy = inputs[:4]
    if case.startswith("layer"):
        y, dx, dw, db = layer_norm_reference(x, w, b, dy, bench.NORM_EPS)
        want = (y,) if not backward else (dx, dw, db)
    else:
        y, dx, dw = rms_norm_reference(x, w, dy, bench.NORM_EPS)
        want = (y,) if not backward else (dx, dw)
    assert _error(got, want) < bench.TOLERANCE["fp16"]


# ----------------------------------------------------------------------------- grouped GEMM and matmul

@pytest.mark.no_gpu_diff  # the tables hold the interpreter's addresses (the GPU test below uses the GPU's)
def test_bench_grouped_launch(interpret):
    rng = np.random.default_rng(8)
    shapes = ((70, 40, 50), (16, 33, 64), (1, 20, 16))
    a = [rng.standard_normal((m, k)).astype(np.float16) for m, n, k in shapes]
    b = [rng.standard_normal((k, n)).astype(np.float16) for m, n, k in shapes]
    c = [_poisoned((m, n), np.float16) for m, n, k in shapes]
    tables = [np.array([array_address(x) for x in group], np.int64) for group in (a, b, c)]
    sizes = np.array([[x.shape[0], y.shape[1], x.shape[1]] for x, y in zip(a, b)], np.int32).reshape(-1)
    leading = np.array([[x.shape[1], y.shape[1], z.shape[1]] for x, y, z in zip(a, b, c)], np.int32).reshape(-1)
    config = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "num_warps": 4, "num_stages": 2}
    run = bench.grouped_launch(bench.minitriton_kernels()["grouped_matmul"], config, programs=5)
    got = run(a, b, c, *tables, sizes, leading)
    assert _error(got, [x.astype(np.float64) @ y for x, y in zip(a, b)]) < bench.TOLERANCE["fp16"]


def _small_config(**blocks):
    return {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2, "num_warps": 4,
            "num_stages": 2, **blocks}


def test_bench_matmul_in_tf32(interpret):
    """The default precision of an fp32 dot rounds the inputs to tf32: within tf32's tolerance, and
    far outside fp32's (the check tells the two apart)."""
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((70, 96)).astype(np.float32), rng.standard_normal((96, 50)).astype(np.float32)
    c = _poisoned((70, 50), np.float32)
    bench.matmul_launch(bench.matmul_kernel, _small_config(), "tf32")(a, b, c)
    error = testing.relative_error(c, a.astype(np.float64) @ b)
    assert 10 * bench.TOLERANCE["fp32"] < error < bench.TOLERANCE["tf32"]


@pytest.mark.targets("sm_90", "sm_90a")  # e4m3 exists from sm_89 on
def test_bench_matmul_in_fp8(interpret):
    """e4m3 inputs, B column-major (as the benchmark makes it for cuBLAS), an fp16 result."""
    rng = np.random.default_rng(10)
    # numbers from 1/8 to 7.5 of either sign: sums of 96 of their products fit fp16
    codes = [(rng.integers(0, 2, shape) << 7 | rng.integers(4, 10, shape) << 3 | rng.integers(0, 8, shape))
             .astype(np.uint8) for shape in ((48, 96), (40, 96))]
    a, b = reinterpret(codes[0], tl.float8e4nv), reinterpret(codes[1].T, tl.float8e4nv)
    c = _poisoned((48, 40), np.float16)
    bench.matmul_launch(bench.matmul_kernel, _small_config(BLOCK_SIZE_K=64), None)(a, b, c)
    values = [_e4m3(x).astype(np.float64) for x in codes]
    assert testing.relative_error(c, values[0] @ values[1].T) < bench.TOLERANCE["fp8"]


def _e4m3(codes):
    """The numbers e4m3 codes stand for (bias 7, 3 mantissa bits, no infinities)."""
    exponent, mantissa = (codes >> 3) & 0xF, (codes & 7).astype(np.float64)
    magnitude = np.where(exponent == 0, mantissa / 8 * 2.0**-6, (1 + mantissa / 8) * 2.0 ** (exponent - 7.0))
    return np.where(codes & 0x80, -magnitude, magnitude)


# ----------------------------------------------------------------------------- the Triton twins

def test_every_benchmark_kernel_has_a_twin(interpret):
    """Each kernel's twin, made from its own lines with the @jit functions it calls twinned too, as
    Triton's are made; run in the interpreter, the fused attention's twin agrees with the original."""
    twins = {role: bench.twin(kernel, minitriton.jit, bench.twin_namespace(kernel, minitriton.jit, tl))
             for role, kernel in bench.minitriton_kernels().items()}
    attention = twins["attention"]
    assert "_attend_keys" in attention.fn.__globals__, "the helper the kernel calls is twinned too"
    assert attention.fn.__globals__["_attend_keys"] is not bench.minitriton_kernels()["attention"].fn.__globals__[
        "_attend_keys"]
    rng = np.random.default_rng(11)
    q, k, v = (rng.standard_normal((1, 2, 70, 16)).astype(np.float16) for _ in range(3))
    config = {"BLOCK_M": 32, "BLOCK_N": 16, "num_warps": 4, "num_stages": 2}
    results = []
    for kernel in (bench.minitriton_kernels()["attention"], attention):
        out = np.full_like(q, np.nan)
        bench.attention_launch(NUMPY_TORCH, kernel, config, True)(q, k, v, out)
        results.append(out)
    np.testing.assert_array_equal(results[0], results[1])


# ----------------------------------------------------------------------------- the H100's configurations

def _compiled(kernel, *args, **kwargs):
    compiled = kernel.warmup(*args, grid=(1,), target="sm_90a", **kwargs)
    return compiled.asm["ptx"], compiled.metadata


@pytest.mark.slow
@pytest.mark.parametrize("head_dim", sorted(bench.ATTENTION_CONFIGS))
def test_attention_configs_compile_for_hopper(head_dim):
    """Each of the benchmark's attention configs, causal or not: wgmma for both dots (the second
    with P from registers), and the shared memory fits."""
    n, heads = 4096, bench.ATTENTION_WIDTH // head_dim
    q = np.zeros((1, heads, n, head_dim), np.float16)
    lse = np.zeros((1, heads, n), np.float32)
    for config in bench.ATTENTION_CONFIGS[head_dim]:
        meta, options = bench.launch_options(config)
        for causal in (False, True):
            ptx, metadata = _compiled(bench.minitriton_kernels()["attention"], q, q, q, q, lse, 0.1,
                                      *bench.element_strides(q), heads, n, HEAD_DIM=head_dim, CAUSAL=causal,
                                      **meta, **options)
            assert "wgmma.mma_async" in ptx and "mma.sync" not in ptx, (config, causal)
            assert metadata["shared_bytes"] <= HOPPER_SHARED_BYTES, (config, causal)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["fp32 tf32", "fp8e4m3"])
def test_tf32_and_fp8_matmul_configs_compile_for_hopper(case):
    """TF32: wgmma .tf32 (k8) computing C^T = B^T A^T (the row-major B's transpose from registers:
    an m64n{BLOCK_M}), its fp32 operands copied by cp.async 16 bytes at a time; fp8: wgmma .e4m3
    (k32), its operands copied by cp.async. Every config fits."""
    matmul_case, = (c for c in bench.matmul_cases(False) if c.name == case)
    n = 4096
    if case == "fp8e4m3":
        a = reinterpret(np.zeros((n, n), np.uint8), tl.float8e4nv)
        b = reinterpret(np.zeros((n, n), np.uint8).T, tl.float8e4nv)
        c, instruction = np.zeros((n, n), np.float16), "wgmma.mma_async.sync.aligned.m64n{}k32.f32.e4m3.e4m3"
    else:
        a = b = c = np.zeros((n, n), np.float32)
        instruction = "wgmma.mma_async.sync.aligned.m64n{}k8.f32.tf32.tf32"
    for config in matmul_case.configs:
        meta, options = bench.launch_options(config)
        ptx, metadata = _compiled(bench.matmul_kernel, a, b, c, n, n, n, *bench.element_strides(a),
                                  *bench.element_strides(b), *bench.element_strides(c),
                                  INPUT_PRECISION=matmul_case.precision, **meta, **options)
        if case == "fp8e4m3":
            warpgroups_along_n = max(1, options["num_warps"] // 4 // (meta["BLOCK_SIZE_M"] // 64))
            assert instruction.format(meta["BLOCK_SIZE_N"] // warpgroups_along_n) in ptx, config
        else:
            # B^T's fragment from registers, A^T's columns: N = BLOCK_M
            assert re.search(re.escape(instruction.format(meta["BLOCK_SIZE_M"])) + r" {[^}]*}, {", ptx), config
            assert "cp.async.ca" not in ptx, config  # no 4-byte copies
        assert "cp.async" in ptx and "mma.sync" not in ptx, config  # both pipelined
        assert "cvt.rna.tf32.f32" not in ptx, config  # tf32: the tensor cores are given fp32 bits
        assert metadata["shared_bytes"] <= HOPPER_SHARED_BYTES, config


# ----------------------------------------------------------------------------- on a GPU

SMALL = {"attention_lengths": lambda quick: [1024], "norm_columns": lambda quick: [1536],
         "grouped_sizes": lambda quick: [384], "matmul_sizes": lambda quick: [1024],
         "matmul_shapes": lambda quick: [(16, 1024, 2048)], "tf32_sizes": lambda quick: [1024],
         "fp8_sizes": lambda quick: [1024]}


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["attention", "layernorm", "grouped_gemm", "matmul"])
def test_each_new_benchmark_on_the_gpu(monkeypatch, tmp_path, capsys, name):
    """One small point of each case: every implementation passes its check and is timed."""
    pytest.importorskip("torch", reason="bench needs torch for its references and baselines")
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    for module in (bench.attention, bench.memory, bench.matmuls):
        for function, sizes in SMALL.items():
            if hasattr(module, function):
                monkeypatch.setattr(module, function, sizes)
    assert bench.main([name, "--out", str(tmp_path)]) == 0, capsys.readouterr().err
    rows = list(csv.DictReader((tmp_path / f"{name}.csv").open()))
    assert rows and all(r["status"] in ("ok", bench.TOO_LARGE) for r in rows)
    ran = {(r["case"], r["x"], r["implementation"]) for r in rows if r["status"] == "ok"}
    assert ran == {(r["case"], r["x"], r["implementation"]) for r in rows}, "every implementation ran somewhere"
    assert {bench.MINITRITON, bench.TRITON} <= {r["implementation"] for r in rows}
