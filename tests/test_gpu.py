"""Checks that only a GPU can make: printing, launch errors, large shared memory, the disk cache.

The kernels of every other test also run on the GPU through `make gpu-check` (MINITRITON_GPU_DIFF=1
compares each launch with the interpreter); these are the cases a comparison cannot express.
"""
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.errors import LaunchError
from minitriton.examples.tutorials import add_kernel, matmul_kernel

pytestmark = [pytest.mark.gpu, pytest.mark.no_ptx, pytest.mark.no_gpu_diff]


@pytest.fixture(autouse=True)
def on_the_gpu(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")


def device_array(x):
    from minitriton.driver import DeviceArray
    return DeviceArray.from_numpy(np.ascontiguousarray(x))


@triton.jit
def hello_kernel():
    tl.device_print("pid", tl.program_id(0))


def test_hello_prints_one_line_per_thread(capfd):
    from minitriton import driver
    hello_kernel[(1,)](num_warps=1)
    driver.synchronize()
    lines = [line for line in capfd.readouterr().out.splitlines() if line.startswith("pid (")]
    assert len(lines) == 32
    assert all(line == "pid (0, 0, 0) idx () pid: 0" for line in lines), lines[:3]


def test_a_host_array_is_refused_before_launch():
    x = device_array(np.ones(16, np.float32))
    with pytest.raises(LaunchError, match="host array"):
        add_kernel[(1,)](np.ones(16, np.float32), x, x, 16, BLOCK_SIZE=16)


def test_a_cpu_tensor_is_refused_before_launch():
    torch = pytest.importorskip("torch")
    x = torch.ones(16, device="cuda")
    with pytest.raises(LaunchError, match="cpu"):
        add_kernel[(1,)](torch.ones(16), x, x, 16, BLOCK_SIZE=16)


def test_matmul_with_more_than_48kb_of_shared_memory():
    rng = np.random.default_rng(3)
    m, n, k = 300, 272, 208  # rows start on 16-byte boundaries, so the operand loads can be pipelined
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    da, db = device_array(a), device_array(b)
    dc = device_array(np.full((m, n), np.nan, np.float16))
    grid = (triton.cdiv(m, 128) * triton.cdiv(n, 128),)
    kernel = matmul_kernel[grid](da, db, dc, m, n, k, k, 1, n, 1, n, 1, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
                                 BLOCK_SIZE_K=64, GROUP_SIZE_M=8, ACTIVATION="", num_warps=8, num_stages=4)
    assert kernel.metadata["shared_bytes"] > 48 * 1024
    ref = a.astype(np.float32) @ b.astype(np.float32)
    got = dc.numpy().astype(np.float32)
    assert np.abs(got - ref).max() / np.abs(ref).max() < 2e-3


def test_a_zero_sized_grid_launches_nothing():
    x = device_array(np.ones(16, np.float32))
    add_kernel[(0,)](x, x, x, 16, BLOCK_SIZE=16)
    assert (x.numpy() == 1).all()


# ----------------------------------------------------------------------------- Triton's host API

def test_the_runtime_driver_describes_this_gpu():
    from minitriton import driver
    active = triton.runtime.driver.active
    properties = active.utils.get_device_properties(driver.current_device())
    mine = driver.device_properties()
    assert properties["multiprocessor_count"] == mine.multiprocessor_count > 0
    assert properties["max_shared_mem"] == mine.max_shared_memory_per_block_optin >= 48 * 1024
    assert properties["warpSize"] == 32 and properties["max_num_regs"] >= 32 * 1024
    assert properties["sm_clock_rate"] > 0 and properties["mem_clock_rate"] > 0 and properties["mem_bus_width"] > 0
    target = active.get_current_target()
    assert (target.backend, target.warp_size, f"sm_{target.arch}") == ("cuda", 32, mine.arch)


def test_the_active_torch_device_is_torchs_current_one():
    torch = pytest.importorskip("torch")
    device = triton.runtime.driver.active.get_active_torch_device()
    assert device == torch.device("cuda", torch.cuda.current_device())


def test_tutorial_02s_host_code():
    """Warm up, read registers and shared memory, size a persistent grid, launch the compiled kernel."""
    from minitriton.examples.tutorials import softmax_kernel
    properties = triton.runtime.driver.active.utils.get_device_properties(0)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1823, 781)).astype(np.float32)
    dx, dy = device_array(x), device_array(np.full_like(x, np.nan))
    kernel = softmax_kernel.warmup(dy, dx, 781, 781, 1823, 781, BLOCK_SIZE=1024, num_stages=2, num_warps=8,
                                   grid=(1,))
    kernel._init_handles()
    assert kernel.n_regs > 0 and kernel.function and kernel.module and kernel.n_spills >= 0
    occupancy = properties["max_num_regs"] // (kernel.n_regs * properties["warpSize"] * 8)
    if kernel.metadata.shared:
        occupancy = min(occupancy, properties["max_shared_mem"] // kernel.metadata.shared)
    programs = min(properties["multiprocessor_count"] * occupancy, 1823)
    kernel[(programs, 1, 1)](dy, dx, 781, 781, 1823, 781, 1024, 2)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(dy.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-6)


def test_maxnreg_caps_the_registers_the_driver_reports():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((128, 96)).astype(np.float32)
    b = rng.standard_normal((96, 80)).astype(np.float32)
    registers = []
    for maxnreg in (None, 40):
        dc = device_array(np.full((128, 80), np.nan, np.float32))
        kernel = matmul_kernel[(4,)](device_array(a), device_array(b), dc, 128, 80, 96, 96, 1, 80, 1, 80, 1,
                                     BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
                                     ACTIVATION="", INPUT_PRECISION="ieee", num_stages=1, maxnreg=maxnreg)
        registers.append(kernel.n_regs)  # as the driver reports them, once loaded
        np.testing.assert_allclose(dc.numpy(), a @ b, rtol=1e-4, atol=1e-4)  # spills or not
    assert registers[1] <= 40 < registers[0]


@pytest.mark.parametrize("option", ["launch_cooperative_grid", "launch_pdl"])
def test_launches_with_attributes_run(option):
    from minitriton import driver
    if option == "launch_pdl" and driver.device_properties().capability < 90:
        pytest.skip("programmatic dependent launch needs sm_90")
    x = np.arange(1000, dtype=np.float32)
    dx, out = device_array(x), device_array(np.zeros(1000, np.float32))
    for _ in range(3):  # the first launch, then the key's own Python launch
        add_kernel[(8,)](dx, dx, out, 1000, BLOCK_SIZE=128, **{option: True})
    np.testing.assert_array_equal(out.numpy(), 2 * x)


def test_a_cooperative_grid_larger_than_the_gpu_is_a_launch_error():
    x = device_array(np.zeros(16, np.float32))
    with pytest.raises(LaunchError, match="launch_cooperative_grid=True"):
        add_kernel[(1_000_000,)](x, x, x, 16, BLOCK_SIZE=16, launch_cooperative_grid=True)


def test_do_bench_cudagraph_times_replays():
    torch = pytest.importorskip("torch")
    x = torch.rand(1 << 20, device="cuda")
    out = torch.empty_like(x)
    run = lambda: add_kernel[(triton.cdiv(x.numel(), 1024),)](x, x, out, x.numel(), BLOCK_SIZE=1024)  # noqa: E731
    ms = triton.testing.do_bench_cudagraph(run)
    low, high = triton.testing.do_bench_cudagraph(run, quantiles=[0.2, 0.8])
    assert 0 < ms < 1 and 0 < low <= high
    triton.testing.assert_close(out, 2 * x)


def on_device(run, **kwargs):
    return run(to_device=device_array, to_host=lambda a: a.numpy(), **kwargs)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("n_ctx, head_dim", [(1000, 64), (333, 128)])
def test_attention_on_the_gpu(causal, n_ctx, head_dim):
    from minitriton.examples.attention import run_attention
    results, references = on_device(run_attention, Z=2, H=3, N_CTX=n_ctx, HEAD_DIM=head_dim, causal=causal,
                                    block_m=64, block_n=64, seed=n_ctx)
    for name, got, want in zip(("O", "dQ", "dK", "dV"), results, references):
        np.testing.assert_allclose(got.astype(np.float64), want, atol=4e-3 * np.abs(want).max(), err_msg=name)


def test_grouped_matmul_reads_device_addresses_from_memory():
    from minitriton.examples.grouped_gemm import run_grouped_matmul
    shapes = ((1000, 900, 700), (33, 128, 64), (64, 17, 2000), (1, 1, 16), (512, 512, 512))
    results, references = on_device(run_grouped_matmul, shapes=shapes, programs=132, block=64)
    for got, want in zip(results, references):
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=5e-2)


def test_layer_norm_backward_locks_hold_under_contention():
    """Thousands of rows, four locks: every program of a group waits for the others."""
    from minitriton.examples.layer_norm import run_layer_norm_backward
    results, references = on_device(run_layer_norm_backward, M=4096, N=1000, groups=4)
    for name, got, want in zip(("y", "dx", "dw", "db"), results, references):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-3 if name in ("dw", "db") else 1e-4, err_msg=name)


@triton.jit
def fp64_math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    results = (tl.exp(x), tl.log(tl.abs(x)), tl.sin(x), tl.cos(x), tl.erf(x), tl.exp2(x), tl.log2(tl.abs(x)),
               tl.rsqrt(tl.abs(x)), tl.math.pow(tl.abs(x), x))
    for i in tl.static_range(len(results)):
        tl.store(out_ptr + i * n + offs, results[i], mask=offs < n)


def test_fp64_math_is_computed_in_fp64():
    """fp64 math goes to libdevice's fp64 functions (an ulp or two), not through fp32."""
    import math
    x = np.random.default_rng(3).uniform(-6, 6, 1000)
    out = device_array(np.full(9 * 1000, np.nan))
    fp64_math_kernel[(8,)](device_array(x), out, 1000, BLOCK=128)
    a = np.abs(x)
    want = [np.exp(x), np.log(a), np.sin(x), np.cos(x), np.array([math.erf(v) for v in x]), np.exp2(x), np.log2(a),
            1 / np.sqrt(a), a ** x]
    np.testing.assert_allclose(out.numpy().reshape(9, 1000), np.array(want), rtol=1e-14, atol=1e-300)
