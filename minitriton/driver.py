"""The CUDA driver: the device, its context, arrays on it, and compiled kernels loaded into it.

This is where the pipeline meets the GPU. It loads what `codegen/ptx.py` produces (a cubin, or PTX
that the driver compiles when it loads) and says what the driver reports about the kernel; it
finds the address of every kind of array a kernel is given (torch tensors, CuPy arrays, anything
with `__cuda_array_interface__`, or the small `DeviceArray` defined here) and the stream to launch
on. Launching itself is `launcher.py`'s. Every driver call is checked: a failure is a `CudaError`
with the driver's own error name. `cuda.bindings` is imported on first use, so this module imports
on machines without a GPU. Chapter: 09-ptx-driver-cache.
"""
from __future__ import annotations

import ctypes
import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .dtypes import FACTS, TensorWrapper, dtype_of_array
from .errors import LaunchError, OutOfResources
from .kernel import INTERPRETER_TARGET, GPUTarget, interpreting


def _cuda():
    """The `cuda.bindings.driver` module, imported the first time it is needed."""
    from cuda.bindings import driver
    return driver


# --8<-- [start:check]
class CudaError(RuntimeError):
    """A CUDA driver call failed. `name` is the driver's name for the error (CUDA_ERROR_...)."""

    def __init__(self, code, call: str = ""):
        self.code = code
        self.name, self.text = _error_words(code)
        super().__init__(f"{call + ': ' if call else ''}{self.name}: {self.text}")


def _error_words(code) -> tuple[str, str]:
    """The driver's name and description of an error code; the enum's own name when the driver
    cannot be asked (its library is missing) or does not know the code."""
    try:
        cuda = _cuda()
        (err, name), (err2, text) = cuda.cuGetErrorName(code), cuda.cuGetErrorString(code)
        if not err and not err2:
            return name.decode(), text.decode()
    except RuntimeError:  # cuda.pathfinder's "driver library not found" is a RuntimeError
        pass
    return getattr(code, "name", str(code)), "no description from the driver"


def check(result: tuple, call: str = ""):
    """Check a `cuda.bindings` result `(CUresult, *values)`: raise `CudaError` unless it is
    CUDA_SUCCESS, else return the value (None if there is none, a tuple if there are several)."""
    if result[0]:  # CUresult is an int enum and CUDA_SUCCESS is 0
        raise CudaError(result[0], call)
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]
# --8<-- [end:check]


# ----------------------------------------------------------------------------- device and context

@functools.lru_cache(maxsize=None)
def is_available() -> bool:
    """True when the driver library loads, initializes, and sees at least one GPU."""
    try:
        cuda = _cuda()
        check(cuda.cuInit(0), "cuInit")
        return check(cuda.cuDeviceGetCount(), "cuDeviceGetCount") > 0
    except Exception:  # no driver library, no device, or a broken install: all mean "no GPU here"
        return False


def current_target() -> GPUTarget | None:
    """What a compile that names no target is for (Triton's `driver.active.get_current_target()`):
    the current GPU; without one, under MINITRITON_INTERPRET=1, the interpreter's stand-in
    `INTERPRETER_TARGET`; else None, and the caller says what is missing."""
    if is_available():
        properties = device_properties()
        return GPUTarget("cuda", properties.capability, properties.warp_size)
    return INTERPRETER_TARGET if interpreting() else None


@functools.lru_cache(maxsize=None)
def _initialized():
    """The driver module, after cuInit (once: a failed cuInit raises and is tried again next time)."""
    cuda = _cuda()
    check(cuda.cuInit(0), "cuInit")
    return cuda


_primary_contexts: dict[int, Any] = {}  # device ordinal -> primary context retained by us


def _preferred_ordinal() -> int:
    """The device to use when no context is current: torch's current device if torch has started
    CUDA (so both work on the same GPU), else device 0."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return torch.cuda.current_device()
    return 0


# --8<-- [start:context]
def current_device() -> int:
    """The ordinal of the GPU whose context is current on this thread. With no current context
    (nothing, torch included, has used CUDA on this thread yet) the device's primary context, the
    one the CUDA runtime and torch share, is retained and made current."""
    cuda = _initialized()
    context = check(cuda.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if context is None or int(context) == 0:
        _use_primary_context(_preferred_ordinal())
    return int(check(cuda.cuCtxGetDevice(), "cuCtxGetDevice"))


def _use_primary_context(ordinal: int) -> None:
    cuda = _initialized()
    if ordinal not in _primary_contexts:
        device = check(cuda.cuDeviceGet(ordinal), "cuDeviceGet")
        _primary_contexts[ordinal] = check(cuda.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(_primary_contexts[ordinal]), "cuCtxSetCurrent")
# --8<-- [end:context]


def set_current_device(ordinal: int) -> None:
    """Make GPU `ordinal` current on this thread: through torch when torch is here (so both use
    it), else by making its primary context current."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.cuda.set_device(ordinal)
    else:
        _use_primary_context(ordinal)


@dataclass(frozen=True)
class DeviceProperties:
    """What the compiler and the launcher need to know about one GPU. Readable as `props.arch` or
    `props["arch"]`."""

    name: str
    arch: str  # "sm_90" for compute capability 9.0
    multiprocessor_count: int
    max_threads_per_block: int
    max_shared_memory_per_block: int  # what a kernel gets without asking
    max_shared_memory_per_block_optin: int  # what it may ask for (the attribute set past 48 KB)
    l2_cache_bytes: int
    warp_size: int
    max_registers_per_block: int  # 32-bit registers all the threads of one block may share
    clock_rate_khz: int  # the multiprocessors' peak clock
    memory_clock_rate_khz: int  # device memory's peak clock
    memory_bus_width: int  # bits

    def __getitem__(self, key: str):
        return getattr(self, key)

    @property
    def capability(self) -> int:
        """The compute capability as one number, as Triton writes it: 90 for sm_90."""
        return int(self.arch[3:])


def device_properties(device: int | None = None) -> DeviceProperties:
    """The properties of GPU `device` (an ordinal; the current device if None)."""
    return _device_properties(current_device() if device is None else device)


@functools.lru_cache(maxsize=None)
def _device_properties(ordinal: int) -> DeviceProperties:
    cuda = _initialized()
    handle = check(cuda.cuDeviceGet(ordinal), "cuDeviceGet")
    attribute = cuda.CUdevice_attribute

    def get(name: str) -> int:
        return check(cuda.cuDeviceGetAttribute(getattr(attribute, name), handle), "cuDeviceGetAttribute")

    name = check(cuda.cuDeviceGetName(256, handle), "cuDeviceGetName")
    major = get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
    minor = get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
    return DeviceProperties(
        name=name.split(b"\0", 1)[0].decode(),
        arch=f"sm_{major}{minor}",
        multiprocessor_count=get("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
        max_threads_per_block=get("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
        max_shared_memory_per_block=get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK"),
        max_shared_memory_per_block_optin=get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        l2_cache_bytes=get("CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE"),
        warp_size=get("CU_DEVICE_ATTRIBUTE_WARP_SIZE"),
        max_registers_per_block=get("CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK"),
        clock_rate_khz=get("CU_DEVICE_ATTRIBUTE_CLOCK_RATE"),
        memory_clock_rate_khz=get("CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE"),
        memory_bus_width=get("CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH"),
    )


def synchronize() -> None:
    """Wait for all work in the current context; an error a kernel hit while running shows here."""
    current_device()
    check(_cuda().cuCtxSynchronize(), "cuCtxSynchronize")


# ----------------------------------------------------------------------------- dtypes and arrays

def _torch_tensor(arg) -> bool:
    torch = sys.modules.get("torch")  # never imported here: a torch tensor means torch is loaded
    return torch is not None and isinstance(arg, torch.Tensor)


def _numpy_dtype(dtype) -> np.dtype:
    """A numpy dtype from a minitriton name ("fp32") or anything numpy takes ("float32", np.int8)."""
    if isinstance(dtype, str) and dtype in FACTS:
        typestr = FACTS[dtype].typestr
        if typestr is None:
            raise TypeError(f"{dtype} has no numpy dtype; allocate it as uint16 (its raw bits)")
        return np.dtype(typestr)
    return np.dtype(dtype)


def dtype_of(arg) -> str:
    """The minitriton dtype name of an array's elements: torch tensors, DeviceArrays, numpy arrays,
    and anything with `__cuda_array_interface__`."""
    dtype = dtype_of_array(arg)
    if dtype is None:
        raise LaunchError(f"a {type(arg).__name__} is not an array; expected a torch tensor, a CuPy "
                          f"array, a DeviceArray, or anything with __cuda_array_interface__")
    return dtype.name


# --8<-- [start:pointer-of]
def pointer_of(arg, check_device: bool = False) -> int:
    """The device address of an array argument. A torch tensor on another GPU than the current
    one is refused when `check_device` (the JIT checks once per launch key, not every launch)."""
    if arg.__class__ is DeviceArray:
        return arg.address
    if isinstance(arg, TensorWrapper):  # `triton.reinterpret`: the same memory, another dtype
        return pointer_of(arg.base, check_device)
    if _torch_tensor(arg):
        if arg.is_cuda and not check_device:
            return arg.data_ptr()
        if arg.get_device() == sys.modules["torch"].cuda.current_device():  # -1 for a CPU tensor
            return arg.data_ptr()
        device, expected = arg.device, current_device()
        if device.type != "cuda" or device.index != expected:
            raise LaunchError(f"a torch tensor on {device}; the kernel runs on cuda:{expected}, "
                              f"move it there with .to('cuda:{expected}')")
        return arg.data_ptr()
    if isinstance(arg, np.ndarray):
        raise LaunchError(f"a numpy array (shape {arg.shape}, {arg.dtype}) is a host array (numpy); "
                          f"the GPU kernel needs device memory: DeviceArray.from_numpy(x) or a "
                          f"torch tensor on cuda")
    interface = getattr(arg, "__cuda_array_interface__", None)
    if interface is not None:
        return interface["data"][0]
    if arg.__class__ is int:  # a raw device address, trusted as given
        return arg
    raise LaunchError(f"a {type(arg).__name__} cannot be a pointer argument; expected a torch tensor "
                      f"on cuda, a CuPy array, a DeviceArray, or anything with __cuda_array_interface__")
# --8<-- [end:pointer-of]


# --8<-- [start:tensormap]
def encode_tensormap(desc, dtype: str, box: tuple[int, int], swizzle: int) -> bytes:
    """The 128-byte tensor map of a 2-D `TensorDescriptor` for TMA copies of `box` (inner
    dimension first; `codegen/tma`) swizzled over `swizzle` bytes, as `cuTensorMapEncodeTiled`
    makes it. The driver's dimensions run from the fastest, its strides are in bytes, and
    elements outside the array read as zeros (or NaN for `padding="nan"`). The same descriptor
    gives the same bytes: they are kept, so a loop of launches encodes once. An empty array has
    no tensor map (the driver takes no zero size): its bytes are zeros, and no block of it is read."""
    if 0 in tuple(desc.shape):
        return bytes(128)
    return _encoded(pointer_of(desc.base), tuple(desc.shape), tuple(desc.strides), dtype, tuple(box), swizzle,
                    desc.padding)


@functools.lru_cache(maxsize=1024)
def _encoded(address: int, shape: tuple, strides: tuple, dtype: str, box: tuple, swizzle: int,
             padding: str) -> bytes:
    cuda = _cuda()
    element = FACTS[dtype].dtype
    kinds = {"fp16": "FLOAT16", "bf16": "BFLOAT16", "fp32": "FLOAT32"}
    kind = kinds.get(dtype) or {1: "UINT8", 2: "UINT16", 4: "UINT32", 8: "UINT64"}[element.itemsize]
    fill = "NAN_REQUEST_ZERO_FMA" if padding == "nan" else "NONE"
    u32, u64 = cuda.cuuint32_t, cuda.cuuint64_t  # the driver's integer types, as the binding wants them
    sizes = [u64(int(s)) for s in reversed(shape)]  # the fastest dimension first
    byte_strides = [u64(int(s) * element.itemsize) for s in reversed(strides[:-1])]
    tensormap = check(cuda.cuTensorMapEncodeTiled(
        getattr(cuda.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{kind}"), u32(len(shape)), address,
        sizes, byte_strides, [u32(b) for b in box], [u32(1)] * len(shape),
        cuda.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(cuda.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{swizzle}B"),
        cuda.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        getattr(cuda.CUtensorMapFloatOOBfill, f"CU_TENSOR_MAP_FLOAT_OOB_FILL_{fill}")),
        f"cuTensorMapEncodeTiled(shape={list(shape)}, strides={list(strides)}, box={list(box)})")
    return ctypes.string_at(int(tensormap.getPtr()), 128)
# --8<-- [end:tensormap]


def current_stream(args=()) -> int:
    """The stream to launch on: torch's current stream when an argument is a torch tensor (so the
    kernel is ordered with torch's own work), else the default stream 0."""
    return stream_getter(args)()


def stream_getter(args=()) -> Callable[[], int]:
    """What to call at each launch for the stream `current_stream(args)` would name: torch's
    current stream of the tensors' device (it may change between launches), else 0."""
    for arg in args:
        if _torch_tensor(arg):
            return functools.partial(sys.modules["torch"]._C._cuda_getCurrentRawStream, arg.get_device())
    return _default_stream


def _default_stream() -> int:
    return 0


class DeviceArray:
    """A small owning buffer in GPU memory, for using minitriton without torch or CuPy.
    Contiguous, row-major; freed with cuMemFree when the last reference goes."""

    def __init__(self, address: int, shape: tuple[int, ...], dtype: np.dtype):
        self.address, self.shape, self.dtype = address, shape, dtype
        # Held here, not looked up at deletion: at interpreter exit module globals may be gone.
        self._free, self._finalizing = _cuda().cuMemFree, sys.is_finalizing

    @classmethod
    def alloc(cls, shape, dtype) -> DeviceArray:
        """Uninitialized device memory for an array of `shape` and `dtype` (a minitriton name,
        or anything numpy accepts as a dtype)."""
        shape = (shape,) if isinstance(shape, int) else tuple(int(n) for n in shape)
        dtype = _numpy_dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        current_device()
        # cuMemAlloc refuses 0 bytes; an empty array has no memory and address 0.
        address = int(check(_cuda().cuMemAlloc(nbytes), "cuMemAlloc")) if nbytes else 0
        return cls(address, shape, dtype)

    @classmethod
    def from_numpy(cls, array: np.ndarray) -> DeviceArray:
        """A device copy of a host array."""
        array = np.ascontiguousarray(array)
        result = cls.alloc(array.shape, array.dtype)
        if result.nbytes:
            check(_cuda().cuMemcpyHtoD(result.address, array.ctypes.data, result.nbytes), "cuMemcpyHtoD")
        return result

    def numpy(self) -> np.ndarray:
        """A host copy (waits for the work before it on the default stream)."""
        array = np.empty(self.shape, self.dtype)
        if self.nbytes:
            check(_cuda().cuMemcpyDtoH(array.ctypes.data, self.address, self.nbytes), "cuMemcpyDtoH")
        return array

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def data_ptr(self) -> int:
        return self.address

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.address, False),
                "strides": None, "version": 3}

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, address={self.address:#x})"

    def __del__(self):
        if self.address and not self._finalizing():
            # At exit the driver may already have torn the context down; nothing is left to free.
            self._free(self.address)


# ----------------------------------------------------------------------------- modules and kernels

# A kernel may use 48 KB of shared memory without asking; past that it must opt in, per function.
DEFAULT_SHARED_LIMIT = 48 * 1024


@dataclass(eq=False)  # two loads of one image are two kernels
class Kernel:
    """A loaded kernel: the module that holds it, its function handle, and what the driver says
    about it. `local_bytes` is local memory per thread (spills and stack)."""

    name: str
    module: Any
    function: Any
    device: int
    num_regs: int
    local_bytes: int
    max_threads_per_block: int
    static_shared_bytes: int
    shared_bytes: int  # dynamic shared memory this kernel was loaded for

    def __post_init__(self):
        self._unload = _cuda().cuModuleUnload  # held for __del__, as in DeviceArray

    def __del__(self):
        if not sys.is_finalizing():
            self._unload(self.module)


# --8<-- [start:load-module]
def load_module(image: bytes | str, name: str, shared_bytes: int = 0) -> Kernel:
    """Load a cubin (or PTX text) into the current context and get kernel `name` from it, ready to
    launch with `shared_bytes` of dynamic shared memory."""
    cuda = _initialized()
    device = current_device()
    if isinstance(image, str):
        image = image.encode()
    if not image.startswith(b"\x7fELF") and not image.endswith(b"\0"):
        image += b"\0"  # the driver reads PTX as a C string
    module = check(cuda.cuModuleLoadData(image), "cuModuleLoadData")
    try:
        function = check(cuda.cuModuleGetFunction(module, name.encode()),
                         f"cuModuleGetFunction({name!r})")
    except CudaError:
        cuda.cuModuleUnload(module)
        raise
    attribute = cuda.CUfunction_attribute

    def get(attr: str) -> int:
        return check(cuda.cuFuncGetAttribute(getattr(attribute, attr), function), "cuFuncGetAttribute")

    kernel = Kernel(name=name, module=module, function=function, device=device,
                    num_regs=get("CU_FUNC_ATTRIBUTE_NUM_REGS"),
                    local_bytes=get("CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES"),
                    max_threads_per_block=get("CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
                    static_shared_bytes=get("CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"),
                    shared_bytes=shared_bytes)
    total = kernel.static_shared_bytes + shared_bytes
    limit = device_properties(device).max_shared_memory_per_block_optin
    if total > limit:
        raise OutOfResources(total, limit, f"the shared memory of kernel {name}")
    if total > DEFAULT_SHARED_LIMIT:
        check(cuda.cuFuncSetAttribute(function,
                                      attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      shared_bytes), "cuFuncSetAttribute")
    return kernel
# --8<-- [end:load-module]
