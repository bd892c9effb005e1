"""`triton.runtime._allocation`: the allocator of global scratch memory where Triton's host code
imports it from (`allocation.py`). Chapter: 05-coalesce."""
from ..allocation import Allocator, Buffer, NullAllocator, allocator, set_allocator  # noqa: F401
