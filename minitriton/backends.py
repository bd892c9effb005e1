"""Backends: where `compile()` hands over, and the whole of what a new target must supply.

A backend has one method, `compile(jit_fn, tile_ir, specs, constexprs, options) -> CompiledKernel`:
`tile_ir()` makes the verified tile IR (a backend with a cache may not need to), and the kernel's
`launcher(grid, args)` runs it. Two exist: the numpy
interpreter (runs the tile IR as it is, on the CPU) and CUDA (layouts -> LLVM -> PTX -> cubin -> driver).
A new target, say AMD through LLVM's AMDGPU backend, would be a third class with this one method.
Chapter: 01-introduction.
"""
from __future__ import annotations

import ctypes

import numpy as np

from . import ir
from .accesses import note_launch
from .codegen.backend import CUDABackend
from .dtypes import TensorWrapper
from .interpreter import Memory, interpret
from .kernel import CompiledKernel


def backend_for(target: str):
    if target == "interpreter":
        return InterpreterBackend()
    return CUDABackend(target)


# --8<-- [start:interpreter_backend]
class InterpreterBackend:
    """Runs tile IR with numpy; arrays on a GPU are copied to the host and back around the run."""

    def compile(self, jit_fn, tile_ir, specs, constexprs, options):
        fn = tile_ir()

        def launcher(grid, args, stream=None):  # the host runs it: no stream to order it on
            memory, values, copy_back, seen = Memory(), [], [], {}
            for arg, value in zip(fn.args, args):
                if arg.dtype.is_ptr():
                    host, done, address = host_view(value)
                    first = seen.setdefault((address, host.size), host)
                    if first is host:
                        copy_back.append(done)
                    elif first.ctypes.data != host.ctypes.data:  # a GPU array given twice: one host copy
                        host = first
                    memory.add(host, arg.name, address)  # under each argument's name
                    values.append(address)
                else:
                    values.append(value)
            note_launch(fn.name, grid, {a.name: v for a, v in zip(fn.args, args) if a.dtype.is_ptr()})
            interpret(fn, grid, values, memory)
            for done in copy_back:
                done()

        # No registers, spills or shared memory: the host runs each program whole, in numpy.
        metadata = {**options.recorded(), "backend": "interpreter",
                    "signature": [a.dtype.name for a in fn.args],
                    "registers": 0, "spill_stores": 0, "spill_loads": 0, "stack_frame": 0}
        return CompiledKernel(fn.name, {"ttir": ir.print_function(fn)}, [a.name for a in fn.args],
                              metadata,
                              launcher, arg_names=list(jit_fn.arg_names))
# --8<-- [end:interpreter_backend]


def host_view(array) -> tuple[np.ndarray, callable, int]:
    """A uint8 view of every byte `array` spans (read-only if the caller made the array so), what
    to call when the kernel is done, and the array's address on its device."""
    if isinstance(array, TensorWrapper):  # the same bytes, read as another dtype
        return host_view(array.base)
    if hasattr(array, "data_ptr") and hasattr(array, "device"):  # a torch tensor
        if array.device.type != "cpu":
            host = array.detach().cpu()
            view, _, _ = host_view(host)
            return view, lambda: array.copy_(host), array.data_ptr()
        extent = _extent(array.shape, array.stride(), array.element_size())
        return _bytes_at(array.data_ptr(), extent), lambda: None, array.data_ptr()
    if isinstance(array, np.ndarray):
        if any(s < 0 for s in array.strides):
            raise ValueError("arrays with negative strides are not supported; pass a copy")
        view = _bytes_at(array.ctypes.data, _extent(array.shape, [s // array.itemsize for s in array.strides],
                                                    array.itemsize))
        view.flags.writeable = bool(array.flags.writeable)
        return view, lambda: None, array.ctypes.data
    if hasattr(array, "__cuda_array_interface__") and hasattr(array, "numpy"):  # DeviceArray, CuPy
        host = np.ascontiguousarray(array.numpy() if not hasattr(array, "get") else array.get())
        view, _, _ = host_view(host)
        done = (lambda: array.copy_from_host(host)) if hasattr(array, "copy_from_host") else (lambda: array.set(host))
        return view, done, array.__cuda_array_interface__["data"][0]
    raise TypeError(f"cannot give the interpreter a {type(array).__name__}")


def _extent(shape, strides, itemsize: int) -> int:
    if any(s == 0 for s in shape):
        return 0
    return (sum((n - 1) * s for n, s in zip(shape, strides)) + 1) * itemsize


def _bytes_at(address: int, nbytes: int) -> np.ndarray:
    if nbytes == 0:
        return np.zeros(0, np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(address))
