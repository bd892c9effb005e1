"""`triton.runtime.driver`: the active driver, as host code written for Triton asks for it.

Not a stage: the face the launch wing shows to Triton's host code. Triton's tutorials begin with
`DEVICE = triton.runtime.driver.active.get_active_torch_device()`, choose their configurations by
`driver.active.get_current_target()`, and size their launches by the numbers
`driver.active.utils.get_device_properties(i)` gives (multiprocessors, registers, shared memory).
`CudaDriver` answers these from minitriton's own driver (driver.py, through cuda.bindings), and
`driver` holds the active one, which `set_active` can replace, as Triton's does. Without a GPU a
call raises a `LaunchError` that says what is missing, except under MINITRITON_INTERPRET=1, where
kernels run on the CPU: there the active torch device is the CPU and the target is the interpreter's.
torch is optional and imported only by the calls that return torch objects.
Chapter: 01-introduction.
"""
from __future__ import annotations

import sys
from typing import Any

from .. import driver as cuda_driver
from ..errors import LaunchError
from ..jit import interpreting
from ..kernel import GPUTarget
from ..testing import do_bench

# --8<-- [start:properties]
# Triton's names for the device properties (`utils.get_device_properties`), and where each is in
# `driver.DeviceProperties`.
PROPERTY_NAMES = {
    "max_shared_mem": "max_shared_memory_per_block_optin",  # bytes a kernel may ask for
    "max_num_regs": "max_registers_per_block",
    "multiprocessor_count": "multiprocessor_count",
    "warpSize": "warp_size",
    "sm_clock_rate": "clock_rate_khz",
    "mem_clock_rate": "memory_clock_rate_khz",
    "mem_bus_width": "memory_bus_width",
}
# --8<-- [end:properties]


def _gpu(asked: str) -> None:
    """Raise, for the call `asked`, unless the CUDA driver sees a GPU."""
    if not cuda_driver.is_available():
        instead = "; under MINITRITON_INTERPRET=1 there is none to ask about" if interpreting() else \
            "; set MINITRITON_INTERPRET=1 to run kernels on the CPU"
        raise LaunchError(f"driver.active.{asked}: no NVIDIA GPU or CUDA driver here{instead}")


def _torch(asked: str):
    try:
        import torch
    except ImportError:
        raise LaunchError(f"driver.active.{asked} returns a torch object and torch is not installed; "
                          f"pip install torch") from None
    return torch


class CudaUtils:
    """`driver.active.utils`: what Triton's compiled helper module answers."""

    # --8<-- [start:get_device_properties]
    def get_device_properties(self, device: int | None = None) -> dict[str, int]:
        """The properties of GPU `device` (an ordinal; the current one if None) under Triton's names."""
        _gpu("utils.get_device_properties")
        properties = cuda_driver.device_properties(device)
        return {name: getattr(properties, field) for name, field in PROPERTY_NAMES.items()}
    # --8<-- [end:get_device_properties]


class CudaDriver:
    """The CUDA driver as Triton's host code sees it: the current device, its stream, its target."""

    def __init__(self):
        self.utils = CudaUtils()

    @staticmethod
    def is_active() -> bool:
        return cuda_driver.is_available()

    def get_current_device(self) -> int:
        _gpu("get_current_device()")
        return cuda_driver.current_device()

    def set_current_device(self, device: int) -> None:
        _gpu("set_current_device()")
        cuda_driver.set_current_device(device)

    def get_current_stream(self, device: int | None = None) -> int:
        """The stream kernels launch on: torch's current stream once torch has started CUDA, else 0."""
        _gpu("get_current_stream()")
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            return torch.cuda.current_stream(device).cuda_stream
        return 0

    # --8<-- [start:target]
    def get_current_target(self) -> GPUTarget:
        """The current GPU as a target: GPUTarget("cuda", 90, 32) on an H100."""
        target = cuda_driver.current_target()
        if target is None:
            _gpu("get_current_target()")
        return target

    def get_active_torch_device(self):
        """The torch device kernels run on: the current GPU, or the CPU in the interpreter without
        one."""
        torch = _torch("get_active_torch_device()")
        if interpreting() and not cuda_driver.is_available():
            return torch.device("cpu")
        _gpu("get_active_torch_device()")
        return torch.device("cuda", cuda_driver.current_device())
    # --8<-- [end:target]

    def get_device_capability(self, device: int | None = None) -> tuple[int, int]:
        _gpu("get_device_capability()")
        major, minor = divmod(cuda_driver.device_properties(device).capability, 10)
        return major, minor

    def get_device_interface(self):
        """torch.cuda, as Triton's: what benchmarks call for events and synchronize."""
        return _torch("get_device_interface()").cuda

    def get_benchmarker(self):
        return do_bench

    def get_empty_cache_for_benchmark(self):
        """A 256 MB torch tensor, whose zeroing (`clear_cache`) evicts the L2 cache between runs."""
        torch = _torch("get_empty_cache_for_benchmark()")
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")

    def clear_cache(self, cache) -> None:
        cache.zero_()

    def __repr__(self) -> str:
        return "minitriton CudaDriver"


# --8<-- [start:driver-config]
class DriverConfig:
    """`triton.runtime.driver`: the active driver (by default the CUDA one), which a program or a
    test may replace with `set_active` and bring back with `reset_active`."""

    def __init__(self):
        self._default: Any = None
        self._active: Any = None

    @property
    def default(self) -> CudaDriver:
        if self._default is None:
            self._default = CudaDriver()
        return self._default

    @property
    def active(self):
        if self._active is None:
            self._active = self.default
        return self._active

    def set_active(self, driver) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = self.default


driver = DriverConfig()
# --8<-- [end:driver-config]
