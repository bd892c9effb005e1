"""`TensorDescriptor`: a block-shaped window on an array, built on the host and passed to a kernel.

`TensorDescriptor(base, shape, strides, block_shape, padding="zero")`, or
`TensorDescriptor.from_tensor(t, block_shape)`, names an array, its shape and strides (in elements),
and the shape of the blocks a kernel reads and writes through it (`desc.load([i, j])`). The checks
are Triton's, made where the descriptor is built: a rank of 1 to 5, a 16-byte aligned base, strides
that are multiples of 16 bytes except the last, which must be 1, blocks whose sizes are powers of
two. A launch flattens a descriptor into its base, shape and strides (`specialize.py`); the kernel
sees a `tl.tensor_descriptor` (`language/memory.py`). Chapter: 05-coalesce.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..dtypes import array_address, dtype_of_array

PADDINGS = ("zero", "nan")  # what a load reads outside the array


@dataclass
class TensorDescriptor:
    base: Any  # an array: a torch tensor, a numpy array, a DeviceArray...
    shape: list[int]
    strides: list[int]
    block_shape: list[int]
    padding: str = "zero"

    def __post_init__(self):
        rank = len(self.shape)
        assert 1 <= rank <= 5, f"a tensor descriptor has 1 to 5 dimensions, got {rank}"
        assert len(self.strides) == rank and len(self.block_shape) == rank, \
            f"rank mismatch: shape {list(self.shape)}, strides {list(self.strides)}, block_shape {list(self.block_shape)}"
        dtype = dtype_of_array(self.base)
        assert dtype is not None, f"the base of a tensor descriptor must be an array, got {type(self.base).__name__}"
        assert array_address(self.base) % 16 == 0, "base must be 16-byte aligned"
        for i, size in enumerate(self.block_shape):
            assert isinstance(size, int) and size > 0 and size & (size - 1) == 0, \
                f"block_shape element {i} must be a power of 2, got {size!r}"
        for stride in self.strides[:-1]:
            assert stride * dtype.itemsize % 16 == 0, "strides must be 16-byte aligned"
        assert self.strides[-1] == 1, "Last dimension must be contiguous"
        assert self.padding in PADDINGS, f"Illegal value for padding: {self.padding!r} (use 'zero' or 'nan')"

    @staticmethod
    def from_tensor(tensor: Any, block_shape: list[int], padding: str = "zero") -> TensorDescriptor:
        """A descriptor of the whole of `tensor`: a torch tensor, a numpy or CuPy array, a DeviceArray."""
        return TensorDescriptor(tensor, list(tensor.shape), _strides(tensor), list(block_shape), padding)


def _strides(array) -> list[int]:
    """An array's strides in elements: torch's `stride()`, numpy's byte `strides`, or those of a
    contiguous array where it says none."""
    if callable(getattr(array, "stride", None)):
        return list(array.stride())
    if getattr(array, "strides", None) is not None:
        return [s // array.dtype.itemsize for s in array.strides]
    strides, step = [], 1
    for size in reversed(array.shape):
        strides.insert(0, step)
        step *= size
    return strides
