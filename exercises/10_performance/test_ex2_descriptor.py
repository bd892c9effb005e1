"""Tests for exercise 10.2: run with `make exercise CH=10 EX=2`."""
import pytest
from _impl import load

impl = load("10_performance/ex2_descriptor")


def fields(d: int) -> tuple[int, int, int, int]:
    return d & 0x3FFF, (d >> 16) & 0x3FFF, (d >> 32) & 0x3FFF, d >> 62


def test_each_field_in_its_bits():
    assert fields(impl.descriptor(0x1400, 8192, 1024, 128)) == (0x140, 512, 64, 1)
    assert fields(impl.descriptor(0x1400, 16, 512, 64)) == (0x140, 1, 32, 2)
    assert fields(impl.descriptor(0, 16, 256, 32)) == (0, 1, 16, 3)
    assert fields(impl.descriptor(0x20, 128, 64, 0)) == (2, 8, 4, 0)


def test_the_address_keeps_only_18_bits():
    """Bits 14 and 15 are reserved: an address of more than 18 bits must not spill into them."""
    assert impl.descriptor(0x41000, 16, 1024, 128) == 0x100 | 1 << 16 | (1024 >> 4) << 32 | 1 << 62


@pytest.mark.parametrize("row_bytes, mode", [(128, 1), (64, 2), (32, 3)])
def test_a_k_major_a_tile(row_bytes, mode):
    start, lbo, sbo, swizzle = fields(impl.a_operand(0x4000, row_bytes))
    assert (start, lbo, sbo, swizzle) == (0x400, 1, 8 * row_bytes >> 4, mode)


def test_a_128_byte_swizzled_a_tile_at_16_kb():
    assert impl.a_operand(0x4000, 128) == (0x4000 >> 4) | 1 << 16 | (1024 >> 4) << 32 | 1 << 62
