"""Tests for exercise 9.3: run with `make exercise CH=9 EX=3`."""
from pathlib import Path

from _impl import load

impl = load("09_ptx_driver_cache/ex3_ptxas_report")
HERE = Path(__file__).parent


def usage(registers=0, stack_frame=0, spill_stores=0, spill_loads=0, shared_bytes=0):
    return dict(registers=registers, stack_frame=stack_frame, spill_stores=spill_stores,
                spill_loads=spill_loads, shared_bytes=shared_bytes)


def test_the_softmax_and_vector_add_report():
    report = (HERE / "ptxas_report.txt").read_text()
    assert impl.parse_report(report) == {"softmax_kernel": usage(registers=30), "add_kernel": usage(registers=20)}


def test_spills_shared_memory_and_a_device_function():
    """ptxas 13.0 -v on two kernels and a device function; one kernel spills, one uses static
    shared memory."""
    report = (HERE / "ptxas_report_spills.txt").read_text()
    assert impl.parse_report(report) == {
        "_Z2k2Pf": usage(registers=24, stack_frame=464, spill_stores=564, spill_loads=584),
        "_Z2k1Pff": usage(registers=40, stack_frame=272, shared_bytes=4096),
    }


def test_a_device_function_between_the_kernels():
    """ptxas 13.0 -v on `device_function.ptx`: two kernels that call one device function. ptxas
    reports the function's properties after each kernel that calls it, between the entries: a
    report belongs to a kernel by its name, not by its position."""
    report = (HERE / "ptxas_report_device_function.txt").read_text()
    assert impl.parse_report(report) == {
        "second": usage(registers=10, stack_frame=64, shared_bytes=1024),
        "first": usage(registers=12, stack_frame=64),
    }


def test_an_empty_report():
    assert impl.parse_report("ptxas info    : 0 bytes gmem\n") == {}
