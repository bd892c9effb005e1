"""Where the host time of one launch goes (developer probe): each piece of the launch path timed
alone on the host clock, on a GPU with torch."""
import ctypes
import functools
import os
import time

import torch

from minitriton import driver, launcher
from minitriton.examples.tutorials import add_kernel
from minitriton.specialize import launch_key

x = torch.rand(1024, device="cuda")
grid = (1,)
k = add_kernel[grid](x, x, x, 1024, BLOCK_SIZE=1024)
torch.cuda.synchronize()


def clock(name, fn, batch=100, rounds=200):
    """Median host time of one call over rounds of `batch` calls, the GPU drained between rounds
    (untimed), so a launch never waits for a full launch queue."""
    for _ in range(batch):
        fn()
    times = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(batch):
            fn()
        times.append((time.perf_counter() - t) / batch * 1e6)
    times.sort()
    print(f"{name:44s} {times[len(times) // 2]:6.2f} us", flush=True)


clock("add_kernel[grid](x, x, x, n, BLOCK_SIZE=1024)", lambda: add_kernel[grid](x, x, x, 1024, BLOCK_SIZE=1024))
clock("add_kernel.run(..., grid=grid)", lambda: add_kernel.run(x, x, x, 1024, grid=grid, BLOCK_SIZE=1024))
binder = add_kernel._binder
python_binder = getattr(binder, "fallback", binder)
print("compiled fast path:", python_binder.fast is not None, launcher.compiled_launcher()[1])
clock("binder(grid, ...)", lambda: binder(grid, x, x, x, 1024, BLOCK_SIZE=1024))
clock("Python binder(grid, ...)", lambda: python_binder(grid, x, x, x, 1024, BLOCK_SIZE=1024))
fast = python_binder.fast
if fast is not None:
    clock("the compiled fast path alone", lambda: fast(grid, (1024, 4, 3, 1), x, x, x, 1024))
prepared = k.prepared([0, 1, 2, 3], [x, x, x, 1024]).launch
p = x.data_ptr()
clock("the key's prepared launch (Python)", lambda: prepared((1, 1, 1), p, p, p, 1024))
address = launcher.launch_kernel_address
launcher.launch_kernel_address = lambda: None  # the binder in Python, for comparison
del add_kernel._binder
clock("add_kernel[grid](...), binder in Python", lambda: add_kernel[grid](x, x, x, 1024, BLOCK_SIZE=1024))
launcher.launch_kernel_address = address
del add_kernel._binder
clock("launch_key(tensor)", lambda: launch_key(x))
clock("launch_key(int)", lambda: launch_key(1024))
clock("os.environ.get", lambda: os.environ.get("MINITRITON_INTERPRET"))
clock("functools.partial", lambda: functools.partial(binder, grid))
clock("current_stream((x,))", lambda: driver.current_stream((x,)))
clock("stream_getter((x,))()", driver.stream_getter((x,)))
clock("pointer_of(x)", lambda: driver.pointer_of(x))
clock("x.data_ptr()", x.data_ptr)
clock("x.get_device()", x.get_device)
clock("x.dtype", lambda: x.dtype)
function = k.launcher.module.function
cu = driver._cuda()
storage = ctypes.create_string_buffer(32)
slots = (ctypes.c_void_p * 4)(*(ctypes.addressof(storage) + 8 * i for i in range(4)))
params = ctypes.addressof(slots)
ctypes.memmove(storage, (ctypes.c_uint64 * 4)(x.data_ptr(), x.data_ptr(), x.data_ptr(), 1024), 32)
clock("cuLaunchKernel, cuda-python", lambda: cu.cuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, 0, params, 0))
libcuda = ctypes.CDLL("libcuda.so.1")
raw = libcuda.cuLaunchKernel
raw.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
raw.restype = ctypes.c_int
handle = int(function)
clock("cuLaunchKernel, ctypes", lambda: raw(handle, 1, 1, 1, 128, 1, 1, 0, 0, params, None))
stream = torch.cuda.current_stream().cuda_stream
clock("cuLaunchKernel, ctypes, torch stream", lambda: raw(handle, 1, 1, 1, 128, 1, 1, 0, stream, params, None))
clock("torch.add(x, x, out=x)", lambda: torch.add(x, x, out=x))
try:
    from minitriton.bench import triton_kernels
    triton_add = triton_kernels()["add"]
    clock("triton add_kernel[grid](...)", lambda: triton_add[grid](x, x, x, 1024, BLOCK_SIZE=1024))
except ImportError as e:
    print("triton not importable:", e)

# the driver's own cost, from C, on the same kernel
import shutil, subprocess, tempfile  # noqa: E401,E402
if shutil.which("gcc"):
    with tempfile.TemporaryDirectory() as folder:
        cubin = os.path.join(folder, "add.cubin")
        with open(cubin, "wb") as f:
            f.write(k.asm["cubin"])
        binary = os.path.join(folder, "launch_floor")
        subprocess.run(["gcc", "-O2", "-o", binary, os.path.join(os.path.dirname(__file__), "launch_floor.c"),
                        "-ldl"], check=True)
        print(subprocess.run([binary, cubin, k.name], capture_output=True, text=True).stdout.strip())
