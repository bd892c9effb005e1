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
