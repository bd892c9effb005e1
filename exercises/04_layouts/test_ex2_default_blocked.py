"""Tests for exercise 4.2: run with `make exercise CH=4 EX=2`."""
import itertools

import pytest
from _impl import load

from minitriton.layouts import BlockedLayout, default_blocked

impl = load("04_layouts/ex2_default_blocked")


@pytest.mark.parametrize("shape, num_warps, spt, expected", [
    ((64, 64), 4, (1, 4), ([1, 4], [2, 16], [4, 1], [1, 0])),
    ((16, 16), 4, (1, 1), ([1, 1], [2, 16], [4, 1], [1, 0])),
    ((128, 32), 4, (1, 8), ([1, 8], [8, 4], [4, 1], [1, 0])),    # matmul's A tile
    ((32, 128), 4, (1, 8), ([1, 8], [2, 16], [4, 1], [1, 0])),   # matmul's B tile
    ((128, 32), 4, (1, 1), ([1, 1], [1, 32], [4, 1], [1, 0])),
    ((8, 2), 4, (1, 1), ([1, 1], [16, 2], [4, 1], [1, 0])),      # too small: replicas
    ((1, 1024), 8, (1, 4), ([1, 4], [1, 32], [1, 8], [1, 0])),   # one long row: warps along it
], ids=str)
def test_triton_gives_these(shape, num_warps, spt, expected):
    assert impl.default_blocked_2d(shape, num_warps, spt) == BlockedLayout(*expected)


def test_agrees_with_the_compiler_everywhere():
    sizes = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    for rows, cols, num_warps, spt in itertools.product(sizes, sizes, [1, 2, 4, 8, 16], [(1, 1), (1, 4), (2, 2)]):
        if spt[0] > rows or spt[1] > cols:
            continue
        expected = default_blocked((rows, cols), num_warps, order=(1, 0), size_per_thread=spt)
        assert impl.default_blocked_2d((rows, cols), num_warps, spt) == expected, (rows, cols, num_warps, spt)


def test_every_lane_and_warp_is_placed():
    for cols in [1, 4, 32, 64, 4096]:
        layout = impl.default_blocked_2d((64, cols), 4)
        assert layout.threads_per_warp[0] * layout.threads_per_warp[1] == 32
        assert layout.warps_per_cta[0] * layout.warps_per_cta[1] == 4
