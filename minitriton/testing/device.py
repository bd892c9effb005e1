"""The device's ceilings, as `triton.testing` reports them: `get_dram_gbps`, the peak bandwidth of
device memory that a roofline divides by. Read from the CUDA driver's attributes (driver.py).
Chapter: 10-performance.
"""
from __future__ import annotations

from .. import driver


def get_dram_gbps(device: int | None = None) -> float:
    """Device memory's peak bandwidth in GB/s: the memory clock (kHz) times the bus width (bits),
    times two transfers a clock (DDR), in bytes. `device` is an ordinal; the current one if None."""
    if not driver.is_available():
        raise RuntimeError("get_dram_gbps reads the GPU's memory clock and bus width, and the CUDA "
                           "driver sees no GPU here")
    properties = driver.device_properties(device)
    return properties.memory_clock_rate_khz * properties.memory_bus_width * 2 / 1e6 / 8
