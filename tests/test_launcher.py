"""The compiled fast path (launcher.c), without a GPU: a recording cuLaunchKernel stands in for the
driver's, and a small class for torch's tensors."""
import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minitriton import launcher
from minitriton.errors import LaunchError
from minitriton.jit import grid3
from minitriton.kernel import GRID_LIMITS
from minitriton.specialize import launch_key, plain_key

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_KERNEL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p,
                                 ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p)
C_TYPES = {"P": ctypes.c_uint64, "i": ctypes.c_int32, "q": ctypes.c_int64, "f": ctypes.c_float,
           "d": ctypes.c_double, "?": ctypes.c_bool, "B": ctypes.c_uint8, "h": ctypes.c_int16}


class Tensor:
    """What the fast path reads of a torch tensor."""

    def __init__(self, address, dtype="float32", device=0):
        self.address, self.dtype, self.device = address, dtype, device

    def data_ptr(self):
        return self.address

    def get_device(self):
        return self.device


class CudaArray:
    def __init__(self, address):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (address, False), "version": 3}


@pytest.fixture
def module():
    module, why = launcher.compiled_launcher()
    if module is None:
        pytest.skip(f"the compiled fast path cannot be built here: {why}")
    return module


class Driver:
    """A recording cuLaunchKernel: each call's function, grid, block, shared bytes, stream and values."""

    def __init__(self, codes, error=0):
        self.codes, self.error, self.calls = codes, error, []
        self.callback = LAUNCH_KERNEL(self.launch)
        self.address = ctypes.cast(self.callback, ctypes.c_void_p).value

    def launch(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        values = [C_TYPES[c].from_address(params[i]).value for i, c in enumerate(self.codes)]
        self.calls.append((function, (gx, gy, gz), (bx, by, bz), shared, stream or 0, values))
        return self.error


ARGUMENTS = [Tensor(0x1000), Tensor(0x1004, "float16", 1), Tensor(0x2000, device=-1), 0, 1, 16, 17, -5,
             2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, 2**63, 2**64 - 1, -2**63 - 1, 2.5, True, False,
             None, np.float32(1.5), np.int64(16), CudaArray(0x3000), CudaArray(0x3008), "text", [1, 2]]


@pytest.mark.parametrize("value", ARGUMENTS, ids=repr)
def test_the_compiled_key_is_launch_keys_key(module, value):
    fast = module.FastPath(0, Tensor, launch_key, grid3, "s")
    assert fast.key(("c",), value) == (launch_key(value)[0], ("c",))
    plain = module.FastPath(0, Tensor, launch_key, grid3, "p")
    assert plain.key((), value) == (plain_key(value), ())


def test_a_hit_packs_each_value_and_launches(module):
    fake = Driver("PiqfdP")
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "ssssss")
    values = (Tensor(0x1000), 17, 2**40, 0.5, 0.25, CudaArray(0x3000))
    key = fast.key((4,), *values)
    assert fast((2, 3), (4,), *values) == key  # a miss returns the key, for the binder to add
    fast.add(key, "kernel", 0xF00D, 128, 1024, "PiqfdP", (0, 1, 2, 3, 4, 5), lambda: 9, None, None)
    assert fast((2, 3), (4,), *values) == "kernel"
    assert fake.calls == [(0xF00D, (2, 3, 1), (128, 1, 1), 1024, 9, [0x1000, 17, 2**40, 0.5, 0.25, 0x3000])]
    assert fast.entries() == 1


def test_a_hit_whose_globals_changed_is_a_miss(module):
    """An entry holds (globals, name, value) for each module-level value its kernel read; a hit
    launches only while each name holds that very object (the Python binder compares values)."""
    fake = Driver("i")
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "s")
    scope, scale = {"SCALE": 2.0, "OTHER": 1}, 2.0
    scope["SCALE"] = scale
    key = fast.key((), 5)
    fast.add(key, "kernel", 1, 32, 0, "i", (0,), lambda: 0, None, None, ((scope, "SCALE", scale),))
    assert fast((1,), (), 5) == "kernel"
    scope["OTHER"] = 2  # a name the kernel does not read
    assert fast((1,), (), 5) == "kernel"
    for changed in (3.0, float("2.0"), None):  # another value; the same value in another object
        scope["SCALE"] = changed
        assert fast((1,), (), 5) == key
    del scope["SCALE"]
    assert fast((1,), (), 5) == key
    scope["SCALE"] = scale
    assert fast((1,), (), 5) == "kernel" and len(fake.calls) == 3
    with pytest.raises(TypeError, match="globals dict, name, value"):
        fast.add(key, "kernel", 1, 32, 0, "i", (0,), lambda: 0, None, None, (("SCALE", 2.0),))


def test_positions_leave_out_what_the_kernel_does_not_take(module):
    fake = Driver("Pi")
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "sss")
    values = (Tensor(0x1000), None, 5)
    fast.add(fast.key((), *values), "kernel", 1, 32, 0, "Pi", (0, 2), lambda: 0, None, None)
    fast((1,), (), *values)
    assert fake.calls[0][5] == [0x1000, 5]


@pytest.mark.parametrize("grid, expected", [((3,), (3, 1, 1)), ((3, 2), (3, 2, 1)), ((3, 2, 4), (3, 2, 4)),
                                            ((np.int64(3),), (3, 1, 1)), (GRID_LIMITS, GRID_LIMITS)])
def test_grids(module, grid, expected):
    fake = Driver("P")
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "s")
    fast.add(fast.key((), Tensor(16)), "kernel", 1, 32, 0, "P", (0,), lambda: 0, None, None)
    fast(grid, (), Tensor(16))
    assert fake.calls[0][1] == expected


def test_an_empty_grid_launches_nothing_and_a_bad_one_says_so(module):
    fake = Driver("P")
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "s")
    fast.add(fast.key((), Tensor(16)), "kernel", 1, 32, 0, "P", (0,), lambda: 0, None, None)
    assert fast((0,), (), Tensor(16)) == "kernel" and fake.calls == []
    with pytest.raises(LaunchError, match="non-negative"):
        fast((-1,), (), Tensor(16))
    with pytest.raises(LaunchError, match="1 to 3"):
        fast((1, 1, 1, 1), (), Tensor(16))


@pytest.mark.parametrize("grid", [(GRID_LIMITS[0] + 1,), (1, 65536), (1, 1, 65536), (2**40, 1, 1), (2.5,),
                                  (True,), ((2,),), None])
def test_a_grid_the_gpu_cannot_launch_is_refused_before_the_driver(module, grid):
    """C reads a grid within CUDA's limits itself and hands any other to grid3, which says why."""
    fake = Driver("P")
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "s")
    fast.add(fast.key((), Tensor(16)), "kernel", 1, 32, 0, "P", (0,), lambda: 0, None, None)
    with pytest.raises(LaunchError, match="the grid must be 1 to 3 non-negative sizes"):
        fast(grid, (), Tensor(16))
    assert fake.calls == []


def test_what_c_does_not_pack_goes_through_the_python_launch(module):
    """An fp16 scalar ('*'), and a value outside its kind's range, are the Python launch's to pack
    or to refuse with the clear error."""
    fake, python = Driver("P"), []
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "ss")

    def launch(grid, *values):
        python.append((grid, values))
    for codes, value in (("P*", 0.5), ("Pi", 3.5), ("Pf", 1e300)):
        fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "ss")
        fast.add(fast.key((), Tensor(16), value), "kernel", 1, 32, 0, codes, (0, 1), lambda: 0, launch, None)
        assert fast((2,), (), Tensor(16), value) == "kernel"
    assert python == [((2, 1, 1), (16, 0.5)), ((2, 1, 1), (16, 3.5)), ((2, 1, 1), (16, 1e300))]
    assert fake.calls == []


def test_a_driver_error_raises_the_entrys_exception(module):
    fake = Driver("P", error=700)
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "s")
    failure = lambda code, grid: LaunchError(f"code {code} on grid {grid}")  # noqa: E731
    fast.add(fast.key((), Tensor(16)), "kernel", 1, 32, 0, "P", (0,), lambda: 0, None, failure)
    with pytest.raises(LaunchError, match=r"code 700 on grid \(5, 1, 1\)"):
        fast((5,), (), Tensor(16))


def test_wrong_counts_are_refused(module):
    fast = module.FastPath(0, Tensor, launch_key, grid3, "ss")
    with pytest.raises(TypeError, match="expected 2 runtime arguments, got 1"):
        fast((1,), (), 1)
    with pytest.raises(ValueError, match="one kind and one position"):
        fast.add((), "kernel", 1, 32, 0, "PP", (0,), lambda: 0, None, None)
    with pytest.raises(ValueError, match="outside"):
        fast.add((), "kernel", 1, 32, 0, "P", (5,), lambda: 0, None, None)


def _folder_in_place(path: Path):
    path.unlink()
    (path / "inside").mkdir(parents=True)


DAMAGE = {
    "garbage": lambda path: path.write_bytes(b"not a shared object"),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[:4096]),
    "empty": lambda path: path.write_bytes(b""),
    "a folder in its place": _folder_in_place,
    "its folder a file": lambda path: (shutil.rmtree(path.parent), path.parent.write_text("x")),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_the_launcher_is_built_once_and_a_damaged_one_again(tmp_path, module, damage):
    """Built into the cache folder; a damaged file there is built again by the next process."""
    env = {**os.environ, "MINITRITON_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    load = [sys.executable, "-c", "from minitriton import launcher; m, why = launcher.compiled_launcher(); "
            "print(m is not None, why)"]
    assert subprocess.run(load, env=env, capture_output=True, text=True).stdout.split() == ["True"]
    [path] = (tmp_path / "launcher").glob("*.so")
    built = path.stat().st_mtime_ns
    assert subprocess.run(load, env=env, capture_output=True, text=True).stdout.split() == ["True"]
    assert path.stat().st_mtime_ns == built  # loaded, not built again
    DAMAGE[damage](path)
    done = subprocess.run(load, env=env, capture_output=True, text=True)
    assert done.stdout.split() == ["True"], done.stderr
    assert path.read_bytes()[:4] == b"\x7fELF"


def test_the_launcher_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("MINITRITON_C_LAUNCHER", "0")
    launcher.compiled_launcher.cache_clear()
    try:
        assert launcher.compiled_launcher() == (None, "MINITRITON_C_LAUNCHER=0")
    finally:
        launcher.compiled_launcher.cache_clear()


# --- the binder in C ------------------------------------------------------------------------------

MISSING = object()


def binder_for(module, fake, monkeypatch):
    """binder(grid, x, n, BLOCK=64, scale=1.0, *, num_warps=4) in C over a fast path with one entry
    (x a tensor at 0x1000, n = 17, BLOCK = 64, the rest defaults); the Python binder it falls back to
    records its calls."""
    monkeypatch.delenv("MINITRITON_TEST_INTERPRET", raising=False)
    monkeypatch.delenv("TRITON_TEST_INTERPRET", raising=False)
    fast = module.FastPath(fake.address, Tensor, launch_key, grid3, "sss")
    fallbacks = []

    def fallback(grid, *args, **kwargs):
        fallbacks.append((grid, args, kwargs))
        return "python"
    binder = module.Binder(fast, ("x", "n", "BLOCK", "scale"), (False, False, True, False),
                           (MISSING, MISSING, 64, 1.0), ("num_warps",), (4,), MISSING, fallback,
                           "MINITRITON_TEST_INTERPRET", "TRITON_TEST_INTERPRET")
    key = fast.key((64, 4), Tensor(0x1000), 17, 1.0)
    fast.add(key, "kernel", 0xF00D, 128, 0, "Pif", (0, 1, 2), lambda: 0, None, None)
    return binder, fallbacks


@pytest.mark.parametrize("call", [
    lambda b, x: b((2,), x, 17),
    lambda b, x: b((2,), x, 17, 64, 1.0),
    lambda b, x: b((2,), x, n=17, BLOCK=64),
    lambda b, x: b((2,), scale=1.0, num_warps=4, n=17, x=x),
])
def test_the_c_binder_binds_a_hit_as_python_would(module, monkeypatch, call):
    fake = Driver("Pif")
    binder, fallbacks = binder_for(module, fake, monkeypatch)
    assert call(binder, Tensor(0x1000)) == "kernel"
    assert fallbacks == [] and fake.calls[0][1] == (2, 1, 1) and fake.calls[0][5] == [0x1000, 17, 1.0]


@pytest.mark.parametrize("call", [
    lambda b, x: b((2,), x),                          # n missing
    lambda b, x: b((2,), x, 17, 64, 1.0, 5),          # one positional too many
    lambda b, x: b((2,), x, 17, BLOK=64),             # an unknown keyword
    lambda b, x: b((2,), x, 17, n=17),                # n twice
    lambda b, x: b(lambda meta: (2,), x, 17),         # a grid to call with the arguments
    lambda b, x: b((2,), x, 16),                      # a key not seen yet (16 is divisible by 16)
    lambda b, x: b((2,), x, 17, num_warps=8),         # another option is another key
])
def test_the_c_binder_hands_everything_else_to_the_python_binder(module, monkeypatch, call):
    fake = Driver("Pif")
    binder, fallbacks = binder_for(module, fake, monkeypatch)
    assert call(binder, Tensor(0x1000)) == "python"
    assert len(fallbacks) == 1 and fake.calls == []


def test_the_c_binder_reads_the_interpreter_switch_at_every_call(module, monkeypatch):
    fake = Driver("Pif")
    binder, fallbacks = binder_for(module, fake, monkeypatch)
    for value, way in (("1", "python"), ("0", "kernel"), ("", "kernel"), ("yes", "python")):
        monkeypatch.setenv("MINITRITON_TEST_INTERPRET", value)
        assert binder((1,), Tensor(0x1000), 17) == way
    assert binder.fallback(None) == "python"
    # Triton's variable counts only where ours is unset, as jit.interpreting() reads them
    monkeypatch.setenv("TRITON_TEST_INTERPRET", "1")
    monkeypatch.setenv("MINITRITON_TEST_INTERPRET", "0")
    assert binder((1,), Tensor(0x1000), 17) == "kernel"
    monkeypatch.delenv("MINITRITON_TEST_INTERPRET")
    assert binder((1,), Tensor(0x1000), 17) == "python"
    monkeypatch.setenv("TRITON_TEST_INTERPRET", "0")
    assert binder((1,), Tensor(0x1000), 17) == "kernel"


def test_binder_subscripted_with_a_grid_calls_it_first(module, monkeypatch):
    fake = Driver("Pif")
    binder, fallbacks = binder_for(module, fake, monkeypatch)
    launch = binder[(3, 2)]
    assert launch(Tensor(0x1000), 17) == "kernel" and fake.calls[0][1] == (3, 2, 1)
    assert launch(*[Tensor(0x1000), 17]) == "kernel"  # no spare slot before the arguments: copied
    many = [Tensor(0x1000)] + [17] * 200
    assert launch(*many) == "python" and fallbacks[0][1] == tuple(many)
    assert launch(Tensor(0x1000), n=17, BLOCK=64) == "kernel" and len(fake.calls) == 3


def test_subscript_is_the_binders_subscript_in_c(module, monkeypatch):
    """JITFunction.__getitem__ in C: binder[grid] where the instance's `_binder` is a compiled
    Binder, else the Python __getitem__ it was made with (also when there is no binder yet)."""
    fake = Driver("Pif")
    binder, fallbacks = binder_for(module, fake, monkeypatch)
    slow = []

    class Kernel:
        def python_getitem(self, grid):
            slow.append(grid)
            return "python getitem"
        __getitem__ = module.Subscript(python_getitem)

    kernel = Kernel()
    assert kernel[(2,)] == "python getitem" and slow == [(2,)], "no binder yet"
    kernel._binder = lambda grid, *args: None
    assert kernel[(3,)] == "python getitem" and slow == [(2,), (3,)], "the binder in Python"
    kernel._binder = binder
    launch = kernel[(4, 2)]
    assert type(launch).__name__ == "Bound" and len(slow) == 2
    assert launch(Tensor(0x1000), 17) == "kernel" and fake.calls[0][1] == (4, 2, 1)
    assert kernel.__getitem__((5,))(Tensor(0x1000), 17) == "kernel" and fake.calls[1][1] == (5, 1, 1)
    assert Kernel.__dict__["__getitem__"] is Kernel.__getitem__ and Kernel.__getitem__.fallback is Kernel.python_getitem
    assert Kernel.__getitem__(kernel, (6,))(Tensor(0x1000), 17) == "kernel"


@pytest.mark.no_gpu_diff  # its "driver" only records launches
def test_a_jit_function_builds_its_c_binder_where_a_driver_is_found(module, monkeypatch):
    """The wiring between jit.py and launcher.c, without a GPU: with a (recording) driver found, a
    kernel's binder is the C one, and with the interpreter switched on it hands launches to Python."""
    import minitriton as triton
    import minitriton.language as tl

    @triton.jit
    def double(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    fake = Driver("Pi")
    monkeypatch.setattr(launcher, "launch_kernel_address", lambda: fake.address)
    binder = double._make_binder()
    assert type(binder).__name__ == "Binder"
    x = np.arange(8, dtype=np.float32)
    for variable in ("MINITRITON_INTERPRET", "TRITON_INTERPRET"):
        monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
        monkeypatch.setenv(variable, "1")
        double[(1,)](x, 8, BLOCK=8)
    np.testing.assert_array_equal(x, np.arange(8) * 4)
    assert fake.calls == []
