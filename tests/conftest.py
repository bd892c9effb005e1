"""Shared test fixtures.

- Tests marked `gpu` run only where the CUDA driver sees an NVIDIA GPU; elsewhere they are skipped
  with the reason, so a CPU-only run stays green and says what it left out.
- `device` runs a test once in the interpreter and, where a GPU is here, once on the GPU: kernels
  are launched the same way, `device.array(x)` puts a numpy array where the kernel can reach it and
  `device.numpy(a)` brings it back.
- Every kernel a test launches in the interpreter is also compiled for sm_80, sm_90 and sm_90a, down to a
  cubin assembled by ptxas, so the CPU-only run proves the CUDA backend accepts every test kernel.
"""
import dataclasses
import os

import numpy as np
import pytest

import importlib

from minitriton.dtypes import TensorWrapper
from minitriton.tools.tensor_descriptor import TensorDescriptor

jit_module = importlib.import_module("minitriton.jit")  # `minitriton.jit` is also the decorator
NO_GPU = "no NVIDIA GPU/driver here (run `make gpu-check` on a GPU machine)"
PTX_TARGETS = ("sm_80", "sm_90", "sm_90a")  # sm_90a: Hopper with wgmma


def pytest_collection_modifyitems(config, items):
    gpu_tests = [item for item in items if "gpu" in item.keywords]
    if not gpu_tests:
        return
    from minitriton.driver import is_available

    if is_available():
        return
    for item in gpu_tests:
        item.add_marker(pytest.mark.skip(reason=NO_GPU))


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Compiled kernels go to a cache of this run's own, so a stale entry never hides a change."""
    previous = os.environ.get("MINITRITON_CACHE_DIR")
    os.environ["MINITRITON_CACHE_DIR"] = str(tmp_path_factory.mktemp("kernel-cache"))
    yield
    if previous is None:
        os.environ.pop("MINITRITON_CACHE_DIR", None)
    else:
        os.environ["MINITRITON_CACHE_DIR"] = previous


@pytest.fixture(autouse=True)
def _also_compile_for_gpus(monkeypatch, request):
    """Wrap the JIT so an interpreted launch also compiles the same specialization for each GPU arch."""
    if "no_ptx" in request.keywords or os.environ.get("MINITRITON_GPU_DIFF") == "1":
        return  # comparing on a GPU compiles for it anyway
    original = jit_module.JITFunction.kernel_for
    marker = request.node.get_closest_marker("targets")  # kernels of types only newer GPUs have
    targets = marker.args if marker else PTX_TARGETS

    def kernel_for(self, bound, options, target):
        kernel = original(self, bound, options, target)
        if target is None and jit_module.interpreting():
            for arch in targets:
                compiled = original(self, bound, options, arch)
                assert compiled.asm.get("ptx"), f"{self.__name__}: no PTX for {arch}"
        return kernel

    monkeypatch.setattr(jit_module.JITFunction, "kernel_for", kernel_for)


# --8<-- [start:differential]
@pytest.fixture(autouse=True)
def _also_run_on_the_gpu(monkeypatch, request):
    """With MINITRITON_GPU_DIFF=1 on a GPU machine, every interpreted launch also runs on the GPU,
    on byte-identical copies of its arrays, and every array must come out the same: the interpreter
    is the reference semantics, and this holds the compiled code to it, kernel by kernel."""
    if os.environ.get("MINITRITON_GPU_DIFF") != "1" or {"no_gpu_diff", "no_ptx"} & set(request.keywords):
        return
    from minitriton.driver import is_available
    if not is_available():
        return
    original = jit_module.JITFunction.run_slow  # every interpreted launch comes this way
    marker = request.node.get_closest_marker("gpu_tolerance")
    tolerance = marker.args if marker else (2e-3, 2e-5)

    def run_slow(self, *args, grid, **kwargs):
        if not jit_module.interpreting():
            return original(self, *args, grid=grid, **kwargs)
        arrays = [a for v in list(args) + list(kwargs.values()) for a in _arrays_in(v)]
        before = [np.copy(_extent(a)) for a in arrays]
        result = original(self, *args, grid=grid, **kwargs)  # the reference; a kernel error stops here
        # on the GPU through the launch fast path, as a user's launch goes
        _compare_on_gpu(jit_module.JITFunction.run, self, args, kwargs, grid, arrays, before, tolerance)
        return result

    monkeypatch.setattr(jit_module.JITFunction, "run_slow", run_slow)


def _arrays_in(value) -> list[np.ndarray]:
    """The numpy arrays an argument holds: itself, or those of a tuple, a descriptor or a reinterpret."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (TensorDescriptor, TensorWrapper)):  # a descriptor, triton.reinterpret(array)
        return _arrays_in(value.base)
    if isinstance(value, tuple):
        return [a for v in value for a in _arrays_in(v)]
    return []


def _swapped(value, swap):
    """`value` with each numpy array in it (in tuples and descriptors too) replaced by `swap(array)`."""
    if isinstance(value, np.ndarray):
        return swap(value)
    if isinstance(value, TensorDescriptor):
        return dataclasses.replace(value, base=_swapped(value.base, swap))
    if isinstance(value, TensorWrapper):
        return TensorWrapper(_swapped(value.base, swap), value.dtype)
    if isinstance(value, tuple):
        members = [_swapped(v, swap) for v in value]
        return type(value)(*members) if hasattr(value, "_fields") else tuple(members)
    return value


def _extent(a: np.ndarray) -> np.ndarray:
    from minitriton.backends import host_view
    return host_view(a)[0]


def _compare_on_gpu(launch, kernel, args, kwargs, grid, arrays, before, tolerance):
    from minitriton import driver
    copies = {}
    for a, data in zip(arrays, before):
        shift = a.ctypes.data % 256  # keep the host array's alignment, so the same specialization runs
        staged = np.zeros(data.nbytes + shift, np.uint8)
        staged[shift:] = data
        buf = driver.DeviceArray.from_numpy(staged)
        copies[id(a)] = (buf, shift, _GpuArg(buf.data_ptr() + shift, a.dtype))
    swap = lambda a: copies[id(a)][2]
    saved = os.environ.get("MINITRITON_INTERPRET")
    os.environ["MINITRITON_INTERPRET"] = "0"
    try:
        launch(kernel, *[_swapped(a, swap) for a in args], grid=grid,
               **{k: _swapped(v, swap) for k, v in kwargs.items()})
        driver.synchronize()
    finally:
        if saved is None:
            del os.environ["MINITRITON_INTERPRET"]
        else:
            os.environ["MINITRITON_INTERPRET"] = saved
    for a in arrays:
        buf, shift, _ = copies[id(a)]
        got = buf.numpy()[shift:].view(a.dtype)
        want = _extent(a).view(a.dtype)
        if np.issubdtype(a.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=tolerance[0], atol=tolerance[1], equal_nan=True,
                                       err_msg=f"{kernel.__name__}: GPU and interpreter differ")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{kernel.__name__}: GPU and interpreter differ")


class _GpuArg:
    """A device pointer with a numpy dtype: what a launch needs to know of an array argument."""

    shape = (1,)

    def __init__(self, address: int, dtype):
        self.__cuda_array_interface__ = {"shape": (1,), "typestr": np.dtype(dtype).str,
                                         "data": (address, False), "version": 3}
# --8<-- [end:differential]


class Device:
    """Where a test's kernels run: "interpreter" (numpy arrays) or "cuda" (device arrays)."""

    def __init__(self, name: str):
        self.name = name

    def array(self, x: np.ndarray):
        if self.name == "interpreter":
            return x
        from minitriton.driver import DeviceArray
        return DeviceArray.from_numpy(np.ascontiguousarray(x))

    def numpy(self, a) -> np.ndarray:
        return a if isinstance(a, np.ndarray) else a.numpy()


@pytest.fixture(params=["interpreter", pytest.param("cuda", marks=pytest.mark.gpu)])
def device(request, monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1" if request.param == "interpreter" else "0")
    return Device(request.param)
