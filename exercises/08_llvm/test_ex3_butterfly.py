"""Tests for exercise 8.3: run with `make exercise CH=8 EX=3`."""
import random
import re

import numpy as np
import pytest
from _impl import load

import minitriton as triton
import minitriton.language as tl
from minitriton import exercise_hooks
from minitriton.examples.tutorials import softmax_kernel
from minitriton.layouts import BlockedLayout

impl = load("08_llvm/ex3_butterfly")


def masks(schedule):
    return [step[0][0] ^ step[0][1] for step in schedule]


def test_softmax_row_over_32_lanes():
    schedule = impl.butterfly_schedule(BlockedLayout([4], [32], [4], [0]), (1024,), 0)
    assert masks(schedule) == [1, 2, 4, 8, 16]
    assert schedule[0][:3] == [(0, 1), (2, 3), (4, 5)]
    assert schedule[4][:3] == [(0, 16), (1, 17), (2, 18)]
    assert all(len(step) == 16 for step in schedule)


def test_two_dimensions():
    layout = BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])  # lanes 0-15 along a row, bit 4 down
    assert masks(impl.butterfly_schedule(layout, (64, 64), 1)) == [1, 2, 4, 8]
    assert masks(impl.butterfly_schedule(layout, (64, 64), 0)) == [16]


def test_replicas_do_not_exchange():
    layout = BlockedLayout([1], [32], [4], [0])
    assert masks(impl.butterfly_schedule(layout, (16,), 0)) == [1, 2, 4, 8]  # lanes 16-31 are copies
    assert impl.butterfly_schedule(BlockedLayout([4, 1], [1, 32], [4, 1], [1, 0]), (64, 32), 0) == []


@pytest.mark.parametrize("layout, shape, axis", [
    (BlockedLayout([4], [32], [4], [0]), (1024,), 0),
    (BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]), (64, 64), 1),
    (BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]), (64, 64), 0),
    (BlockedLayout([2, 2], [4, 8], [2, 2], [0, 1]), (16, 64), 0),
    (BlockedLayout([2, 2], [4, 8], [2, 2], [0, 1]), (16, 64), 1),
    (BlockedLayout([1], [32], [4], [0]), (16,), 0),
    (BlockedLayout([1, 1, 2], [2, 4, 4], [1, 2, 2], [2, 0, 1]), (4, 16, 8), 1),
], ids=str)
def test_the_schedule_sums_each_line(layout, shape, axis):
    """Run the schedule: each lane starts with a value for the element it holds (its lane offset);
    at the end every lane must hold the sum over the distinct elements of its line along `axis`."""
    rng = random.Random(0)
    value_of = {}
    offsets = [tuple(layout.lane_offset(lane, shape)) for lane in range(32)]
    for offset in offsets:
        value_of.setdefault(offset, rng.randint(1, 10**6))
    values = [value_of[offset] for offset in offsets]
    for step in impl.butterfly_schedule(layout, shape, axis):
        assert sorted(lane for pair in step for lane in pair) == list(range(32)), "each lane exchanges once"
        for lane, partner in step:
            values[lane] = values[partner] = values[lane] + values[partner]
    for lane, offset in enumerate(offsets):
        line = {o for o in offsets if all(o[d] == offset[d] for d in range(len(shape)) if d != axis)}
        assert values[lane] == sum(value_of[o] for o in line), f"lane {lane}"


# Exercise mode: your schedule decides the shuffles of real reductions, down to the PTX.

@triton.jit
def sums(x_ptr, rows_ptr, cols_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(rows_ptr + tl.arange(0, M), tl.sum(x, axis=1))
    tl.store(cols_ptr + tl.arange(0, N), tl.sum(x, axis=0))


def your_masks(layout, dim, shape):
    """The lane-id bits a reduction along `dim` shuffles over, read from your schedule."""
    return [step[0][0] ^ step[0][1] for step in impl.butterfly_schedule(layout, shape, dim)]


x32 = np.zeros(1, np.float32)
KERNELS = {
    "two sums of a 64 x 64 tile": lambda: sums.warmup(x32, x32, x32, M=64, N=64, target="sm_80"),
    "two sums of a 16 x 128 tile": lambda: sums.warmup(x32, x32, x32, M=16, N=128, num_warps=2, target="sm_80"),
    "softmax": lambda: softmax_kernel.warmup(x32, x32, 784, 784, 100, 784, BLOCK_SIZE=1024, num_stages=2,
                                             target="sm_80"),
}


def shuffles(ptx: str) -> list[str]:
    """The lane masks of the PTX's butterfly shuffles, in order."""
    return re.findall(r"shfl\.sync\.bfly\.b32\s+%r\d+, %r\d+, (\d+),", ptx)


@pytest.mark.parametrize("name", list(KERNELS))
def test_your_shuffles_are_the_compilers(name):
    with exercise_hooks.use({"layouts.lane_masks_along": your_masks}):
        yours = KERNELS[name]().asm["ptx"]
    compilers = KERNELS[name]().asm["ptx"]
    assert shuffles(yours) == shuffles(compilers)
    assert yours == compilers


def test_softmax_shuffles_over_every_lane_bit():
    with exercise_hooks.use({"layouts.lane_masks_along": your_masks}):
        masks = shuffles(KERNELS["softmax"]().asm["ptx"])
    assert masks == ["1", "2", "4", "8", "16"] * 2, masks  # the max, then the sum
