"""Where the host time of one launch goes (developer probe)."""
import ctypes
import time

import torch

import minitriton as triton
from minitriton import driver
from minitriton.examples.tutorials import add_kernel

N = 20000
s = torch.rand(1024, device="cuda")
k = add_kernel[(1,)](s, s, s, 1024, BLOCK_SIZE=1024)
torch.cuda.synchronize()


def clock(name, fn):
    fn()
    t = time.perf_counter()
    for _ in range(N):
        fn()
    torch.cuda.synchronize()
    print(f"{name:40s} {(time.perf_counter() - t) / N * 1e6:6.2f} us")


clock("full launch", lambda: add_kernel[(1,)](s, s, s, 1024, BLOCK_SIZE=1024))
binder = add_kernel._binder
clock("binder (grid given)", lambda: binder(s, s, s, 1024, 1024, grid=(1,)))
clock("kernel.launch_fast", lambda: k.launch_fast((1, 1, 1), (s, s, s, 1024)))
clock("launcher(grid, args)", lambda: k.launcher((1, 1, 1), (s, s, s, 1024)))
clock("current_stream", lambda: driver.current_stream((s,)))
clock("pointer_of", lambda: driver.pointer_of(s))
clock("torch.cuda.current_device", torch.cuda.current_device)
clock("tensor.data_ptr", s.data_ptr)
launch = k.launcher.__closure__
fn = k.launcher.module.function
cu = driver._cuda()
params = (ctypes.c_void_p * 4)()
clock("cuLaunchKernel (cuda-python, no args)", lambda: cu.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0))
libcuda = ctypes.CDLL("libcuda.so.1")
raw = libcuda.cuLaunchKernel
raw.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 6 + [ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
handle = int(fn)
clock("cuLaunchKernel (ctypes, no args)", lambda: raw(handle, 1, 1, 1, 128, 1, 1, 0, None, None, None))
