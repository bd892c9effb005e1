"""The access picture (accesses.py): for kernels whose accesses are known, the recorder says which
elements each program read and wrote, which lanes were masked off and where they pointed, and
draws it."""
import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.errors import InterpreterError
from minitriton.examples.tutorials import add_kernel
from minitriton.interpreter import record_accesses


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


def run_add(n, block):
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    with record_accesses() as accesses:
        add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    np.testing.assert_array_equal(out, x + y)
    return accesses.last


def test_vector_add_each_program_reads_and_writes_its_block():
    launch = run_add(200, 64)
    assert launch.kernel == "add_kernel" and launch.grid == (4, 1, 1)
    assert launch.shapes == {"x_ptr": (200,), "y_ptr": (200,), "output_ptr": (200,)}
    for array, kind in [("x_ptr", "load"), ("y_ptr", "load"), ("output_ptr", "store")]:
        masks = launch.masks(array, kind)
        assert sorted(masks) == [(p, 0, 0) for p in range(4)]
        for p, mask in masks.items():
            expected = np.zeros(200, bool)
            expected[p[0] * 64:(p[0] + 1) * 64] = True
            np.testing.assert_array_equal(mask, expected)
        # only the last program masks lanes off: 56 of them, past the end, none inside the array
        assert not any(m.any() for m in launch.masks(array, kind, masked=True).values())
        outside = launch.outside(array, kind)
        assert list(outside) == [(3, 0, 0)]
        np.testing.assert_array_equal(outside[(3, 0, 0)], np.arange(200, 256))
        assert launch.outside(array, kind, masked=False) == {}  # no fault
    assert launch.kinds("x_ptr") == ["load"] and launch.kinds("output_ptr") == ["store"]


def test_the_text_picture_marks_programs_masked_lanes_and_the_end():
    text = run_add(100, 32).text()
    lines = text.splitlines()
    assert lines[0] == "add_kernel, grid (4, 1, 1)" and lines[1].startswith("0-9a-z: program")
    block = lines[lines.index("x_ptr 100: load") + 1:][:2]
    assert block == ["       0 " + "0" * 32 + "1" * 32, "      64 " + "2" * 32 + "3" * 4 + "|" + "-" * 28]
    assert "output_ptr 100: store" in lines


@triton.jit
def _masked_columns(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    """Each program reads its row's first n_cols of `stride`: the lanes past n_cols are masked off
    inside the array (the row's padding), and writes them to out's row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row * BLOCK + cols, x)


def test_masked_lanes_inside_the_array_are_drawn_as_masked():
    x = np.arange(3 * 8, dtype=np.float32).reshape(3, 8)
    out = np.full((3, 8), np.nan, np.float32)
    with record_accesses() as accesses:
        _masked_columns[(3,)](x, out, 5, 8, BLOCK=8)
    launch = accesses.last
    assert launch.shapes["x_ptr"] == (3, 8)
    read, masked = launch.masks("x_ptr"), launch.masks("x_ptr", masked=True)
    for r in range(3):
        assert np.argwhere(read[(r, 0, 0)]).tolist() == [[r, c] for c in range(5)]
        assert np.argwhere(masked[(r, 0, 0)]).tolist() == [[r, c] for c in range(5, 8)]
    cells, start = launch.cells("x_ptr", "load")
    assert start == 0 and cells.reshape(3, 8).tolist() == [[r] * 5 + [-2] * 3 for r in range(3)]
    assert launch.text().splitlines()[4:7] == ["       0 00000---", "       1 11111---", "       2 22222---"]
    np.testing.assert_array_equal(out, np.where(np.arange(8) < 5, x, 0))


@triton.jit
def _everyone_reads_one(x_ptr, out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.load(x_ptr) + pid)


def test_an_element_read_by_several_programs():
    x, out = np.array([5.0], np.float32), np.full(3, np.nan, np.float32)
    with record_accesses() as accesses:
        _everyone_reads_one[(3,)](x, out)
    launch = accesses.last
    assert launch.cells("x_ptr", "load")[0].tolist() == [-3]
    assert launch.cells("out_ptr", "store")[0].tolist() == [0, 1, 2]
    np.testing.assert_array_equal(out, [5, 6, 7])


def test_a_fault_is_recorded_before_it_is_raised():
    x = np.zeros(10, np.float32)
    with record_accesses() as accesses:
        with pytest.raises(InterpreterError):
            add_kernel[(1,)](x, x, np.empty_like(x), 16, BLOCK_SIZE=16)  # n too large: 6 lanes fault
    launch = accesses.last
    faults = launch.outside("x_ptr", masked=False)
    np.testing.assert_array_equal(faults[(0, 0, 0)], np.arange(10, 16))
    assert "!!!!!!" in launch.text()


def test_atomics_and_the_svg():
    @triton.jit
    def count(x_ptr, counts_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.atomic_add(counts_ptr + tl.load(x_ptr + offsets, mask=offsets < n, other=0), 1, mask=offsets < n)

    x = np.array([0, 2, 2, 1, 2], np.int32)
    counts = np.zeros(3, np.int32)
    with record_accesses() as accesses:
        count[(2,)](x, counts, 5, BLOCK=4)
    np.testing.assert_array_equal(counts, [1, 1, 3])
    launch = accesses.last
    assert launch.kinds("counts_ptr") == ["atomic"]
    # program 0 adds to counts 0, 2, 2, 1; program 1 to count 2, its three masked-off lanes point at 0
    assert launch.cells("counts_ptr", "atomic")[0].tolist() == [0, 0, -3]
    assert np.flatnonzero(launch.masks("counts_ptr", "atomic", masked=True)[(1, 0, 0)]).tolist() == [0]
    svg = launch.svg()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "counts_ptr: atomic (3)" in svg and "x_ptr: load (5)" in svg and 'url(#hatch)' in svg


def test_nothing_is_recorded_outside_the_with():
    with record_accesses() as accesses:
        pass
    run_add(10, 16)
    assert accesses.launches == []
    with pytest.raises(AssertionError, match="no kernel ran"):
        accesses.last
