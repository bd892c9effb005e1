"""Global scratch memory for kernels: `triton.set_allocator`, as Triton's launches ask it.

In Triton, a kernel that builds tensor descriptors on the device (`tl.make_tensor_descriptor`)
needs a little global memory to hold them, which each launch asks the allocator set here for.
minitriton lowers descriptors to masked loads and stores of ordinary pointers (chapter 5), so no
kernel needs scratch memory: the allocator is recorded, so that host code written for Triton
runs unchanged, and `allocator()` gives it back. Chapter: 05-coalesce.
"""
from __future__ import annotations

from typing import Callable

_allocator: Callable | None = None


def set_allocator(allocator: Callable | None) -> None:
    """Record `allocator(size, alignment, stream) -> buffer`, the global scratch memory's source."""
    global _allocator
    _allocator = allocator


def allocator() -> Callable | None:
    """The allocator set last (None if none was)."""
    return _allocator
