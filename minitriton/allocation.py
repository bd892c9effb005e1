"""Global scratch memory for kernels: `triton.set_allocator` and `triton.runtime._allocation`.

In Triton, a kernel that needs global memory of its own (one that builds tensor descriptors on
the device, `tl.make_tensor_descriptor`, holds each in 128 bytes of it) asks the allocator set
here for it at each launch: `allocator(size, alignment, stream)` returns a buffer (anything with
`data_ptr()`). Until one is set, the allocator is a `NullAllocator`, whose call raises Triton's
error. minitriton lowers descriptors to masked loads and stores of ordinary pointers (chapter 5),
so none of its kernels needs scratch memory and no launch calls the allocator: it is recorded,
under Triton's names and with Triton's per-context scope, so that host code written for Triton
(`set_allocator(fn)`, `set_allocator(NullAllocator())`) runs unchanged. Chapter: 05-coalesce.
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Optional, Protocol


class Buffer(Protocol):
    """What an allocator returns: memory with an address."""

    def data_ptr(self) -> int: ...


class Allocator(Protocol):
    """`allocator(size, alignment, stream) -> Buffer`: `size` bytes aligned to `alignment`."""

    def __call__(self, size: int, alignment: int, stream: Optional[int]) -> Buffer: ...


class NullAllocator:
    """The allocator until one is set: a kernel that needs scratch memory fails with Triton's words."""

    def __call__(self, size: int, alignment: int, stream: Optional[int]) -> Buffer:
        raise RuntimeError("Kernel requires a runtime memory allocation, but no allocator was set. "
                           "Use triton.set_allocator to specify an allocator.")


_allocator: ContextVar[Allocator] = ContextVar("_allocator", default=NullAllocator())


def set_allocator(allocator: Allocator) -> None:
    """Make `allocator` the source of global scratch memory (for this context, as in Triton)."""
    _allocator.set(allocator)


def allocator() -> Allocator:
    """The allocator set last (a `NullAllocator` if none was)."""
    return _allocator.get()
