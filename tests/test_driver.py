"""driver: dtypes, pointers and argument packing on the CPU; loading and launching on a GPU.

The CPU tests replace `cuLaunchKernel` with a stand-in that reads the kernelParams array the way
the driver does, so the packed layout is checked without a GPU. The `gpu` tests load the
hand-written kernels of test_ptx.py (as PTX, and as a cubin where ptxas is installed).
"""
import ctypes
import struct
import types

import numpy as np
import pytest
from cuda.bindings import driver as cuda

from minitriton import driver, ir, launcher
from minitriton.codegen import ptx
from minitriton.driver import DeviceArray, LaunchError
from minitriton.errors import OutOfResources
from test_ptx import SHARED_REVERSE_IR, VECTOR_ADD_IR


def cdiv(a, b):
    return (a + b - 1) // b


# ----------------------------------------------------------------------------- CPU: dtypes

@pytest.mark.parametrize("numpy_dtype, name", [
    (np.bool_, "int1"), (np.int8, "int8"), (np.int16, "int16"), (np.int32, "int32"),
    (np.int64, "int64"), (np.uint8, "uint8"), (np.uint16, "uint16"), (np.uint32, "uint32"),
    (np.uint64, "uint64"), (np.float16, "fp16"), (np.float32, "fp32"), (np.float64, "fp64"),
])
def test_dtype_of_numpy_arrays(numpy_dtype, name):
    assert driver.dtype_of(np.zeros(3, numpy_dtype)) == name


class FakeCudaArray:
    """What CuPy (or Numba, or JAX) offers: only `__cuda_array_interface__`."""

    def __init__(self, address, typestr, shape=(7,)):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (address, False),
                                         "strides": None, "version": 3}


def test_cuda_array_interface_gives_dtype_and_pointer():
    array = FakeCudaArray(0x7F0000001000, "<f2")
    assert driver.dtype_of(array) == "fp16"
    assert driver.pointer_of(array) == 0x7F0000001000
    assert driver.dtype_of(FakeCudaArray(0, "=f4")) == "fp32"  # native order, spelt differently


def test_unknown_dtypes_are_launch_errors():
    with pytest.raises(LaunchError, match="no dtype for array elements of type '<c8'"):
        driver.dtype_of(np.zeros(2, np.complex64))
    with pytest.raises(LaunchError, match="not an array"):
        driver.dtype_of(3.0)


def test_a_numpy_array_is_not_device_memory():
    with pytest.raises(LaunchError) as caught:
        driver.pointer_of(np.zeros((4, 5), np.float32))
    message = str(caught.value)
    assert "is a host array (numpy)" in message
    assert "DeviceArray.from_numpy(x) or a torch tensor on cuda" in message
    assert "(4, 5)" in message


def test_pointer_of_other_things():
    assert driver.pointer_of(0x1000) == 0x1000  # a raw device address
    with pytest.raises(LaunchError, match="a str cannot be a pointer argument"):
        driver.pointer_of("x")


def test_no_driver_is_not_an_error():
    assert isinstance(driver.is_available(), bool)
    assert driver.current_stream([1, 2.0]) == 0


def test_check_returns_values_and_raises_with_the_error_name():
    ok = cuda.CUresult.CUDA_SUCCESS
    assert driver.check((ok,)) is None
    assert driver.check((ok, 5)) == 5
    assert driver.check((ok, 1, 2)) == (1, 2)
    with pytest.raises(driver.CudaError, match="cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY") as caught:
        driver.check((cuda.CUresult.CUDA_ERROR_OUT_OF_MEMORY, None), "cuMemAlloc")
    assert caught.value.name == "CUDA_ERROR_OUT_OF_MEMORY"
    assert isinstance(caught.value, RuntimeError)


# ----------------------------------------------------------------------------- CPU: argument packing

def fake_kernel(**overrides):
    fields = dict(name="k", function=object(), max_threads_per_block=1024, shared_bytes=0,
                  static_shared_bytes=0)
    return types.SimpleNamespace(**{**fields, **overrides})


@pytest.fixture
def launches(monkeypatch):
    """Replaces cuLaunchKernel; records each call with the parameter addresses it was given."""
    calls = []

    def cu_launch_kernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        calls.append(dict(grid=(gx, gy, gz), block=(bx, by, bz), shared=shared, stream=stream,
                          params=params, extra=extra))
        return (cuda.CUresult.CUDA_SUCCESS,)

    monkeypatch.setattr(cuda, "cuLaunchKernel", cu_launch_kernel)
    return calls


CTYPES = {"int1": ctypes.c_bool, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
          "int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8,
          "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
          "fp16": ctypes.c_uint16, "bf16": ctypes.c_uint16, "fp32": ctypes.c_float,
          "fp64": ctypes.c_double, "ptr": ctypes.c_uint64}


def read_params(params, signature):
    """The values behind a kernelParams array, read as the driver reads them."""
    pointers = (ctypes.c_void_p * len(signature)).from_address(params)
    values = []
    for kind, address in zip(signature, pointers):
        kind = "ptr" if kind.startswith("*") else kind
        assert address % ctypes.sizeof(CTYPES[kind]) == 0, f"{kind} slot at {address:#x} is misaligned"
        values.append(CTYPES[kind].from_address(address).value)
    return values


def test_arguments_are_packed_as_the_kernel_reads_them(launches):
    signature = ["int1", "int8", "fp16", "int64", "fp64", "ptr", "bf16", "uint32", "*fp32", "fp32"]
    launch = launcher.make_launcher(fake_kernel(), signature)
    launch((3, 2, 1), 128, 1024, 7,
           True, -5, 1.5, -2**40, 3.25, FakeCudaArray(0xABC000, "<f4"), 1.0, 2**32 - 1, 0x5000, 0.1)
    (call,) = launches
    assert (call["grid"], call["block"], call["shared"], call["stream"], call["extra"]) == \
        ((3, 2, 1), (128, 1, 1), 1024, 7, 0)
    values = read_params(call["params"], signature)
    assert values[:2] == [True, -5]
    assert values[2] == int(np.array(1.5, np.float16).view(np.uint16))
    assert values[3:6] == [-2**40, 3.25, 0xABC000]
    assert values[6] == 0x3F80  # bfloat16 1.0
    assert values[7:9] == [2**32 - 1, 0x5000]
    assert values[9] == pytest.approx(0.1, rel=1e-7)


def test_the_buffer_is_refilled_on_every_launch(launches):
    launch = launcher.make_launcher(fake_kernel(), ["ptr", "int32"])
    launch((1, 1, 1), 32, 0, 0, 0x10, 1)
    first = read_params(launches[0]["params"], ["ptr", "int32"])
    launch((1, 1, 1), 32, 0, 0, 0x20, 2)
    assert first == [0x10, 1]
    assert read_params(launches[1]["params"], ["ptr", "int32"]) == [0x20, 2]


def test_a_kernel_without_arguments(launches):
    launcher.make_launcher(fake_kernel(), [])((1, 1, 1), 32, 0, 0)
    assert len(launches) == 1


def test_wrong_argument_count_is_a_launch_error(launches):
    launch = launcher.make_launcher(fake_kernel(name="vector_add"), ["ptr", "ptr", "ptr", "int32"])
    with pytest.raises(LaunchError, match=r"vector_add\(ptr, ptr, ptr, int32\) takes 4 arguments, got 3"):
        launch((1, 1, 1), 128, 0, 0, 1, 2, 3)
    assert launches == []


@pytest.mark.parametrize("position, value, words", [
    (0, np.zeros(3), "argument 0 of kernel k(ptr, int32, fp32): a numpy array"),
    (1, 1.5, "argument 1 of kernel k(ptr, int32, fp32) should be int32, got 1.5"),
    (1, 2**31, "argument 1 of kernel k(ptr, int32, fp32) should be int32, got 2147483648"),
    (2, "x", "argument 2 of kernel k(ptr, int32, fp32) should be fp32, got 'x'"),
])
def test_a_wrong_argument_is_named(launches, position, value, words):
    launch = launcher.make_launcher(fake_kernel(), ["ptr", "int32", "fp32"])
    arguments = [0x1000, 4, 1.0]
    arguments[position] = value
    with pytest.raises(LaunchError) as caught:
        launch((1, 1, 1), 128, 0, 0, *arguments)
    assert words in str(caught.value)
    launch((1, 1, 1), 128, 0, 0, 0x1000, 4, 1.0)  # the lock was released: the next launch goes
    assert len(launches) == 1


def test_unknown_signature_entries_are_refused():
    with pytest.raises(ValueError, match="unknown argument type 'float'"):
        launcher.make_launcher(fake_kernel(), ["ptr", "float"])


# ----------------------------------------------------------------------------- GPU

def load(ir_text, name, form, shared_bytes=0):
    """Compile hand-written IR for this GPU and load it as PTX or as a cubin."""
    arch = driver.device_properties().arch
    if arch not in ptx.PTX_VERSION:
        pytest.skip(f"minitriton does not target {arch}")
    text = ptx.llvm_to_ptx(ir_text, arch)
    if form == "cubin":
        if ptx.ptxas_path() is None:
            pytest.skip("ptxas is not installed")
        image, _ = ptx.ptx_to_cubin(text, arch)
    else:
        image = text
    return driver.load_module(image, name, shared_bytes)


@pytest.mark.gpu
def test_device_properties():
    props = driver.device_properties()
    assert props.arch.startswith("sm_") and props["arch"] == props.arch
    assert props.warp_size == 32
    assert props.multiprocessor_count > 0 and props.l2_cache_bytes > 0
    assert props.max_shared_memory_per_block_optin >= props.max_shared_memory_per_block == 48 * 1024
    assert props.name


@pytest.mark.gpu
def test_a_context_is_current_after_use():
    ordinal = driver.current_device()
    assert 0 <= ordinal < driver.check(cuda.cuDeviceGetCount())
    assert int(driver.check(cuda.cuCtxGetCurrent())) != 0
    assert driver.current_device() == ordinal


@pytest.mark.gpu
@pytest.mark.parametrize("form", ["ptx", "cubin"])
def test_vector_add_runs(form):
    kernel = load(VECTOR_ADD_IR, "vector_add", form)
    assert kernel.num_regs > 0 and kernel.local_bytes == 0 and kernel.max_threads_per_block >= 128
    rng = np.random.default_rng(0)
    n, block = 100_003, 128  # not a multiple of the block; 782 blocks
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    poison = np.full(n + 77, np.nan, np.float32)  # past n: must stay untouched
    dx, dy, out = DeviceArray.from_numpy(x), DeviceArray.from_numpy(y), DeviceArray.from_numpy(poison)
    launch = launcher.make_launcher(kernel, ["ptr", "ptr", "ptr", "int32"])
    launch((cdiv(n, block), 1, 1), block, 0, 0, dx, dy, out, n)
    driver.synchronize()
    result = out.numpy()
    np.testing.assert_array_equal(result[:n], x + y)
    assert np.isnan(result[n:]).all()

    # Raw addresses work the same, and a second launch overwrites the first's output.
    again = DeviceArray.from_numpy(poison)
    launch((cdiv(n, block), 1, 1), block, 0, 0, dx.data_ptr(), dy.data_ptr(), again.data_ptr(), n)
    driver.synchronize()
    np.testing.assert_array_equal(again.numpy()[:n], x + y)


@pytest.mark.gpu
def test_more_than_48kb_of_dynamic_shared_memory():
    limit = driver.device_properties().max_shared_memory_per_block_optin
    shared = min(100 * 1024, limit)
    if shared <= 48 * 1024:
        pytest.skip("this GPU offers no more than 48 KB of shared memory per block")
    kernel = load(SHARED_REVERSE_IR, "shared_reverse", "ptx", shared)
    attribute = cuda.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    assert driver.check(cuda.cuFuncGetAttribute(attribute, kernel.function)) == shared

    rng = np.random.default_rng(1)
    n, block = 5000, 256  # 19 full blocks and a partial one
    x = rng.standard_normal(n, dtype=np.float32)
    dx, out = DeviceArray.from_numpy(x), DeviceArray.from_numpy(np.full(n, np.nan, np.float32))
    offset = shared - 4 * block  # the block's slots sit at the very end, past 48 KB
    launch = launcher.make_launcher(kernel, ["ptr", "ptr", "int32", "int32"])
    launch((cdiv(n, block), 1, 1), block, shared, 0, dx, out, n, offset)
    driver.synchronize()
    padded = np.zeros(cdiv(n, block) * block, np.float32)
    padded[:n] = x
    expected = padded.reshape(-1, block)[:, ::-1].reshape(-1)[:n]
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.gpu
def test_too_much_shared_memory_is_out_of_resources():
    limit = driver.device_properties().max_shared_memory_per_block_optin
    with pytest.raises(OutOfResources, match="shared_reverse") as caught:
        load(SHARED_REVERSE_IR, "shared_reverse", "ptx", limit + 1)
    assert (caught.value.required, caught.value.limit) == (limit + 1, limit)


@pytest.mark.gpu
def test_launch_mistakes_are_reported():
    kernel = load(VECTOR_ADD_IR, "vector_add", "ptx")
    n = 1000
    dx, dy, out = (DeviceArray.alloc(n, "fp32") for _ in range(3))
    launch = launcher.make_launcher(kernel, ["ptr", "ptr", "ptr", "int32"])
    with pytest.raises(LaunchError, match="takes 4 arguments, got 3"):
        launch((8, 1, 1), 128, 0, 0, dx, dy, out)
    with pytest.raises(LaunchError, match="allows at most"):
        launch((1, 1, 1), 4096, 0, 0, dx, dy, out, n)
    with pytest.raises(LaunchError, match="loaded for 0"):
        launch((8, 1, 1), 128, 64 * 1024, 0, dx, dy, out, n)
    launch((8, 1, 1), 128, 0, 0, dx, dy, out, n)  # and the kernel still launches
    driver.synchronize()


@pytest.mark.gpu
def test_driver_errors_carry_the_driver_name():
    with pytest.raises(driver.CudaError) as caught:
        driver.load_module(b"this is not a module", "k")
    assert caught.value.name.startswith("CUDA_ERROR_")
    assert str(caught.value).startswith("cuModuleLoadData: CUDA_ERROR_")
    with pytest.raises(driver.CudaError, match="no_such_kernel.*CUDA_ERROR_NOT_FOUND"):
        load(VECTOR_ADD_IR, "no_such_kernel", "ptx")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int8, np.int64, np.uint16,
                                   np.bool_])
def test_device_array_roundtrip(dtype):
    rng = np.random.default_rng(2)
    host = (rng.standard_normal((3, 1001)) * 50).astype(dtype)
    device = DeviceArray.from_numpy(host)
    assert device.shape == (3, 1001) and device.dtype == np.dtype(dtype)
    assert device.nbytes == host.nbytes and device.size == host.size
    assert driver.dtype_of(device) == driver.dtype_of(host)
    interface = device.__cuda_array_interface__
    assert interface["version"] == 3 and interface["data"] == (device.data_ptr(), False)
    assert interface["shape"] == (3, 1001) and interface["typestr"] == np.dtype(dtype).str
    np.testing.assert_array_equal(device.numpy(), host)


@pytest.mark.gpu
def test_device_array_alloc_empty_and_free():
    assert DeviceArray.alloc((0,), "fp32").numpy().shape == (0,)
    assert DeviceArray.alloc(5, "int32").dtype == np.int32
    size = 256 * 1024 * 1024
    free_before, _ = driver.check(cuda.cuMemGetInfo())
    array = DeviceArray.alloc(size, np.uint8)
    free_during, _ = driver.check(cuda.cuMemGetInfo())
    del array
    free_after, _ = driver.check(cuda.cuMemGetInfo())
    assert free_during <= free_before - size
    assert free_after >= free_during + size


@pytest.mark.gpu
def test_torch_tensors():
    torch = pytest.importorskip("torch")
    kernel = load(VECTOR_ADD_IR, "vector_add", "ptx")
    torch.manual_seed(0)
    n, block = 4097, 256
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full((n,), float("nan"), device="cuda")
    assert driver.dtype_of(x) == "fp32" and driver.pointer_of(x) == x.data_ptr()
    launch = launcher.make_launcher(kernel, ["*fp32", "*fp32", "*fp32", "int32"])
    stream = driver.current_stream([x, y, out, n])
    assert stream == torch.cuda.current_stream().cuda_stream
    launch((cdiv(n, block), 1, 1), block, 0, stream, x, y, out, n)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)
    with pytest.raises(LaunchError, match="a torch tensor on cpu"):
        launch((1, 1, 1), block, 0, stream, x.cpu(), y, out, n)
    assert driver.dtype_of(torch.zeros(1, dtype=torch.bfloat16)) == "bf16"
