"""Tests for exercise 9.4: run with `pytest exercises/09_ptx_driver_cache/test_ex4_occupancy.py`.

The expected numbers are worked out by hand from the rules in the exercise (and agree with NVIDIA's
occupancy calculator for these GPUs).
"""
import pytest
from _impl import load

impl = load("09_ptx_driver_cache/ex4_occupancy")
A100, H100 = impl.GPUS["sm_80"], impl.GPUS["sm_90"]


def test_a_small_kernel_fills_the_multiprocessor():
    """4 warps of 32 registers: 16 blocks by warps (64 / 4) and by registers (16 warps a quarter)."""
    assert impl.limits(H100, 4, 32, 0) == {"blocks": 32, "warps": 16, "registers": 16, "shared": 228}
    assert impl.occupancy(H100, 4, 32, 0) == (16, 1.0, {"warps", "registers"})


def test_registers_are_allocated_256_to_a_warp():
    """33 registers: 1056 a warp, allocated 1280; 12 warps a quarter, 48 warps, 12 blocks of 4."""
    assert impl.limits(H100, 4, 33, 0)["registers"] == 12
    assert impl.occupancy(H100, 4, 33, 0) == (12, 0.75, {"registers"})


def test_a_warp_lies_in_one_quarter_of_the_register_file():
    """40 registers: 1280 a warp, 12 warps in each quarter of 16384 (not 51 in the whole 65536), so
    48 warps: 24 blocks of 2 warps."""
    assert impl.limits(A100, 2, 40, 0)["registers"] == 24


def test_the_block_limit():
    """1 warp of 16 registers: 128 blocks by registers and 64 by warps, but at most 32 blocks."""
    assert impl.occupancy(H100, 1, 16, 0) == (32, 0.5, {"blocks"})


def test_too_many_registers_for_a_block():
    """32 warps of 72 registers need 73728 registers: the launch would fail."""
    assert impl.limits(H100, 32, 72, 0)["registers"] == 0
    assert impl.occupancy(H100, 32, 72, 0) == (0, 0.0, {"registers"})
    assert impl.occupancy(H100, 32, 64, 0) == (1, 0.5, {"registers"})
    assert impl.limits(H100, 1, 256, 0)["registers"] == 0


def test_no_registers_no_register_limit():
    assert impl.limits(H100, 4, 0, 0)["registers"] >= 32


@pytest.mark.parametrize("shared_bytes, blocks", [
    (65536, 3),     # 66560 a block
    (58368, 3),     # 57 KB + 1 KB reserved = 59392: 3 (without the reserved KB, 4)
    (32276, 6),     # + 1024 = 33300, allocated 33408: 6 (unrounded, 7)
    (0, 228),       # the reserved KB alone
    (232448, 1),    # the most a block may have
    (232449, 0),    # one byte more: cannot run
], ids=str)
def test_shared_memory(shared_bytes, blocks):
    assert impl.limits(H100, 4, 32, shared_bytes)["shared"] == blocks


def test_a_matmul_on_an_a100():
    """128 x 128 x 32 fp16 tiles in 4 stages take 64 KB of shared memory (chapter 9); with 4 warps
    of 168 registers, shared memory allows 2 blocks and registers 3."""
    assert impl.limits(A100, 4, 168, 65536) == {"blocks": 32, "warps": 16, "registers": 3, "shared": 2}
    assert impl.occupancy(A100, 4, 168, 65536) == (2, 0.125, {"shared"})


@pytest.mark.parametrize("num_warps, blocks, registers", [
    (4, 2, 255), (4, 3, 168), (4, 4, 128), (4, 5, 96), (4, 16, 32), (8, 1, 255), (8, 4, 64), (32, 1, 64),
    (2, 24, 40), (1, 32, 64), (1, 16, 128), (1, 13, 128), (4, 17, 24),
], ids=str)
def test_registers_for_a_number_of_blocks(num_warps, blocks, registers):
    assert impl.registers_for(H100, num_warps, blocks) == registers


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8, 16, 32])
def test_registers_for_is_the_most_that_fits(num_warps):
    for blocks in range(1, 40):
        r = impl.registers_for(H100, num_warps, blocks)
        assert r == 0 or impl.limits(H100, num_warps, r, 0)["registers"] >= blocks
        assert r == 255 or impl.limits(H100, num_warps, r + 1, 0)["registers"] < blocks
