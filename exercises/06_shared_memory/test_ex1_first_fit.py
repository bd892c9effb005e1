"""Tests for exercise 6.1: run with `make exercise CH=6 EX=1`."""
from _impl import load
from hypothesis import given, settings
from hypothesis import strategies as st

from minitriton.passes.shared import Buffer, allocate

impl = load("06_shared_memory/ex1_first_fit")
KB = 1024


def test_buffers_that_are_never_live_together_share():
    offsets, total = impl.first_fit([(64 * KB, 0, 3), (64 * KB, 2, 5), (32 * KB, 6, 7)])
    assert offsets == [0, 64 * KB, 0] and total == 128 * KB


def test_the_largest_goes_first():
    offsets, total = impl.first_fit([(16, 0, 9), (4096, 0, 9), (256, 5, 5)])
    assert offsets == [4096 + 256, 0, 4096] and total == 4096 + 256 + 16


def test_a_gap_is_reused():
    """B is placed above A; C, live with B but not with A, fits below B where A was."""
    offsets, _ = impl.first_fit([(512, 0, 1), (256, 1, 4), (128, 3, 5)])
    assert offsets == [0, 512, 0]


def test_no_buffers():
    assert impl.first_fit([]) == ([], 0)


buffers = st.lists(st.tuples(st.integers(1, 64).map(lambda k: 16 * k), st.integers(0, 20), st.integers(0, 6))
                   .map(lambda t: (t[0], t[1], t[1] + t[2])), max_size=12)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(buffers)
def test_live_buffers_never_overlap_and_the_compiler_agrees(given_buffers):
    offsets, total = impl.first_fit(given_buffers)
    for i, (size_i, start_i, end_i) in enumerate(given_buffers):
        for j, (size_j, start_j, end_j) in enumerate(given_buffers[:i]):
            if start_i <= end_j and start_j <= end_i:
                assert offsets[i] + size_i <= offsets[j] or offsets[j] + size_j <= offsets[i], (i, j)
    objects = [Buffer(None, size, start, end) for size, start, end in given_buffers]
    assert total == allocate(objects)
    assert offsets == [b.offset for b in objects]
