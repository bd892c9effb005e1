"""The JIT front: specialization and the in-memory cache, grids, warmup, launch options, cache keys."""
import ctypes
import importlib
import linecache
import re
import sys

import numpy as np
import pytest

import minitriton as triton
import minitriton.compiler
from minitriton import launcher
import minitriton.language as tl
from minitriton.kernel import CompiledKernel
from minitriton.errors import GlobalChanged, LaunchError
from minitriton.specialize import launch_key


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


@pytest.fixture(autouse=True)
def fresh_caches():
    """Each test starts with empty in-memory caches, so it sees every compile it causes."""
    for kernel in (scale_kernel, grid_kernel, unspecialized_kernel):
        kernel.cache.clear()
        kernel.__dict__.pop("_binder", None)  # the launch fast path's own table goes with it


@pytest.fixture
def compiles(monkeypatch):
    """The specializations compiled for the interpreter, in order (GPU targets are not counted)."""
    seen = []
    original = minitriton.compiler.compile

    def counting(src, target=None, options=None):
        if target == "interpreter":
            seen.append((src.fn.__name__, dict(src.specs), dict(src.constants)))
        return original(src, target, options)

    monkeypatch.setattr(minitriton.compiler, "compile", counting)
    return seen


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr, SQUARE: tl.constexpr = False):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if SQUARE:
        x = x * x
    tl.store(out_ptr + offs, x * factor, mask=m)


def _run(x, n=None, factor=2.0, block=16, **kwargs):
    n = x.size if n is None else n
    out = np.full(x.size, np.nan, x.dtype)
    scale_kernel[(triton.cdiv(n, block),)](x, out, n, factor, BLOCK=block, **kwargs)
    return out


# ------------------------------------------------------------------------ the in-memory cache

def test_same_key_compiles_once(compiles):
    x = np.arange(40, dtype=np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(_run(x), 2 * x)
    np.testing.assert_array_equal(_run(x, factor=3.0), 3 * x)  # another float value: same key
    assert len(compiles) == 1


def test_each_specialization_compiles_once(compiles):
    x = np.arange(64, dtype=np.float32)
    _run(x, n=40)
    _run(x, n=40, block=32)  # another constexpr
    _run(x, n=40, SQUARE=True)  # a constexpr given its default value's alternative
    _run(x.astype(np.float16), n=40)  # another dtype
    _run(x, n=48)  # n divisible by 16
    _run(x, n=1)  # n equal to 1
    _run(x, n=5, factor=0.5)  # another n and factor with the same facts as n=40: no compile
    keys = [(tuple(sorted(s.items())), tuple(sorted(c.items()))) for _, s, c in compiles]
    assert len(keys) == len(set(keys)) == 6
    before = len(compiles)
    _run(x, n=40)
    _run(x, n=39)  # same facts as 40: neither divisible by 16 nor 1
    _run(x, n=48 + 16)
    _run(x, n=40, SQUARE=False)  # the default, given explicitly
    assert len(compiles) == before


def test_specialization_facts(compiles):
    x = np.zeros(64, np.float32)
    _run(x, n=48)
    _run(x, n=1)
    _run(x, n=33)
    n_specs = [specs["n"] for _, specs, _ in compiles]
    assert n_specs == [("i32", True, False), ("i32", False, True), ("i32", False, False)]
    assert compiles[0][1]["x_ptr"] == ("*fp32", True)  # numpy's allocations are 16-byte aligned
    assert compiles[0][1]["factor"] == ("fp32",)


def test_misaligned_pointer_is_another_specialization(compiles):
    base = np.arange(65, dtype=np.float32)
    x = base[1:]  # 4 bytes past an aligned address
    assert x.ctypes.data % 16 != 0
    np.testing.assert_array_equal(_run(x), 2 * x)
    np.testing.assert_array_equal(_run(base[:64]), 2 * base[:64])
    assert [specs["x_ptr"] for _, specs, _ in compiles] == [("*fp32", False), ("*fp32", True)]
    kernel = scale_kernel.warmup(base[:64], base[:64], 64, 1.0, BLOCK=16, grid=(1,))
    assert "x_ptr: !ptr<f32> {divisibility=16}" in kernel.asm["ttir"]


def test_alignment_is_checked_at_every_launch(compiles):
    """Two arrays with equal contents, one 16-byte aligned and one not, are two specializations."""
    storage = np.zeros(80, np.float32)
    aligned, misaligned = storage[:64], storage[1:65]
    out = np.zeros(64, np.float32)
    scale_kernel[(4,)](aligned, out, 64, 1.0, BLOCK=16)
    scale_kernel[(4,)](misaligned, out, 64, 1.0, BLOCK=16)
    assert [specs["x_ptr"] for _, specs, _ in compiles] == [("*fp32", True), ("*fp32", False)]


def test_integer_width_specialization(compiles):
    x = np.zeros(4, np.float32)
    _run(x, n=4)
    out = np.zeros(4, np.float32)
    scale_kernel[(1,)](x, out, 2 ** 40, 1.0, BLOCK=4)  # n is an int64: its own compile
    assert [specs["n"][0] for _, specs, _ in compiles] == ["i32", "i64"]


def test_equal_to_one_becomes_a_constant():
    """An integer argument equal to 1 is folded: the IR reads the constant, not the argument."""
    x = np.zeros(16, np.float32)
    text_one = scale_kernel.warmup(x, x, 1, 1.0, BLOCK=16, grid=(1,)).asm["ttir"]
    text_many = scale_kernel.warmup(x, x, 7, 1.0, BLOCK=16, grid=(1,)).asm["ttir"]
    uses = lambda text: text.split(") {\n", 1)[1].count("%n")  # in the body, after the header
    assert uses(text_many) > 0 and uses(text_one) == 0


@triton.jit(do_not_specialize=["n"])
def unspecialized_kernel(out_ptr, n):
    tl.store(out_ptr, n + 1)


def test_do_not_specialize(compiles):
    out = np.zeros(1, np.int32)
    for n in (1, 16, 17):
        unspecialized_kernel[(1,)](out, n)
        assert out[0] == n + 1
    assert len(compiles) == 1


def test_cache_is_per_function():
    @triton.jit
    def first(out_ptr):
        tl.store(out_ptr, 1)

    @triton.jit
    def second(out_ptr):
        tl.store(out_ptr, 2)

    out = np.zeros(1, np.int32)
    first[(1,)](out)
    second[(1,)](out)
    assert out[0] == 2
    assert [key[-1].target for key in first.cache if key[-1].target == "interpreter"] == ["interpreter"]
    assert [key[-1].target for key in second.cache if key[-1].target == "interpreter"] == ["interpreter"]


# ---------------------------------------------------------------------------------------- grids

@triton.jit
def grid_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs + tl.program_id(1) * 1000, mask=offs < n)


def test_grid_tuple_int_and_callable():
    out = np.full(50, -1, np.int32)
    grid_kernel[(4,)](out, 50, BLOCK=16)
    np.testing.assert_array_equal(out, np.arange(50))
    out[:] = -1
    grid_kernel[4](out, 50, BLOCK=16)
    np.testing.assert_array_equal(out, np.arange(50))
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    out[:] = -1
    grid_kernel[grid](out, 50, BLOCK=8)
    np.testing.assert_array_equal(out, np.arange(50))
    assert seen[0]["BLOCK"] == 8 and seen[0]["n"] == 50 and seen[0]["out_ptr"] is out


def test_grid_lambda_like_the_tutorials():
    out = np.full(50, -1, np.int32)
    grid_kernel[lambda META: (triton.cdiv(50, META["BLOCK"]), 1, 1)](out, 50, BLOCK=32)
    np.testing.assert_array_equal(out, np.arange(50))


def test_launch_returns_the_compiled_kernel():
    out = np.zeros(16, np.int32)
    kernel = grid_kernel[(1,)](out, 16, BLOCK=16)
    assert isinstance(kernel, CompiledKernel)
    assert kernel.runtime_args == ["out_ptr", "n"]
    out[:] = 0
    kernel[(1, 1, 1)](out, 16)  # the compiled kernel launches by itself too
    np.testing.assert_array_equal(out, np.arange(16))


# --------------------------------------------------------------------------------------- warmup

def test_warmup_compiles_without_running(compiles):
    out = np.full(16, -1, np.int32)
    kernel = grid_kernel.warmup(out, 16, BLOCK=16, grid=(1,))
    assert isinstance(kernel, CompiledKernel)
    assert (out == -1).all()
    text = kernel.asm["ttir"]
    assert text.startswith("func @grid_kernel(") and "program_id" in text and "store" in text
    assert len(compiles) == 1
    grid_kernel[(1,)](out, 16, BLOCK=16)  # the launch finds the warmed-up kernel
    assert len(compiles) == 1 and (out == np.arange(16)).all()


def test_warmup_accepts_types_and_launch_options():
    x = np.zeros(8, np.float32)
    kernel = scale_kernel.warmup(x, x, 8, 1.0, BLOCK=8, SQUARE=True, num_warps=2, grid=(1,))
    assert kernel.metadata["num_warps"] == 2
    assert "mul" in kernel.asm["ttir"]


# -------------------------------------------------------------------------------- launch options

@pytest.mark.no_gpu_diff  # it counts which backend each launch chooses
def test_interpret_is_read_at_each_launch(monkeypatch):
    targets = []
    import minitriton.backends as backends
    original = backends.backend_for

    def recording(target):
        if target in ("interpreter", "cuda"):  # not the test harness's extra sm_80 / sm_90 compiles
            targets.append(target)
        if target == "cuda":
            raise RuntimeError("stop: the CUDA backend was chosen")
        return original(target)

    monkeypatch.setattr(minitriton.compiler, "backend_for", recording)
    out = np.zeros(16, np.int32)
    grid_kernel[(1,)](out, 16, BLOCK=16)
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    with pytest.raises(RuntimeError, match="CUDA backend was chosen"):
        grid_kernel[(1,)](out, 16, BLOCK=16)
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    grid_kernel[(1,)](out, 16, BLOCK=16)
    assert targets == ["interpreter", "cuda"]  # the second interpreted launch hit the cache


def test_num_warps_and_num_stages_are_part_of_the_key(compiles):
    out = np.zeros(16, np.int32)
    grid_kernel[(1,)](out, 16, BLOCK=16, num_warps=4)
    grid_kernel[(1,)](out, 16, BLOCK=16, num_warps=8)
    grid_kernel[(1,)](out, 16, BLOCK=16, num_warps=8, num_stages=2)
    grid_kernel[(1,)](out, 16, BLOCK=16, num_warps=8, num_stages=2)
    assert len(compiles) == 3


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8, 16, 32])
def test_valid_num_warps(num_warps):
    kernel = grid_kernel.warmup(np.zeros(16, np.int32), 16, BLOCK=16, num_warps=num_warps, grid=(1,))
    assert kernel.metadata["num_warps"] == num_warps


def test_num_warps_validation():
    with pytest.raises(LaunchError, match=r"num_warps must be a power of 2 from 1 to 32 .*, got 6"):
        grid_kernel[(1,)](np.zeros(16, np.int32), 16, BLOCK=16, num_warps=6)


def test_constexprs_positionally_and_by_keyword():
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    scale_kernel[(1,)](x, out, 8, 1.0, 8, True)
    np.testing.assert_array_equal(out, x * x)
    scale_kernel[(1,)](x, out, 8, 1.0, SQUARE=False, BLOCK=8)
    np.testing.assert_array_equal(out, x)


def test_none_and_dtype_arguments_are_compile_time():
    @triton.jit
    def optional_bias(x_ptr, bias_ptr, out_ptr, DTYPE: tl.constexpr):
        offs = tl.arange(0, 4)
        x = tl.load(x_ptr + offs).to(DTYPE)
        if bias_ptr is not None:
            x += tl.load(bias_ptr + offs)
        tl.store(out_ptr + offs, x)

    x = np.array([1.5, 2.5, 3.5, 4.5], np.float32)
    out = np.zeros(4, np.float32)
    optional_bias[(1,)](x, None, out, DTYPE=tl.int32)
    np.testing.assert_array_equal(out, [1, 2, 3, 4])
    optional_bias[(1,)](x, x, out, tl.float32)
    np.testing.assert_array_equal(out, 2 * x)


# ------------------------------------------------------------------------------------ cache keys

HELPER_SOURCE = '''
import minitriton as triton
import minitriton.language as tl

OFFSET: tl.constexpr = {offset}


@triton.jit
def helper(x):
    return x + {amount}


@triton.jit
def unrelated(x):
    return x * {unrelated}


@triton.jit
def kernel(out_ptr):
    tl.store(out_ptr, helper(1) + OFFSET)
'''


def _load_module(path, **values):
    path.write_text(HELPER_SOURCE.format(**values))
    linecache.checkcache(str(path))
    name = path.stem
    if name in sys.modules:
        return importlib.reload(sys.modules[name])
    return importlib.import_module(name)


def test_cache_key_follows_called_helpers(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "jit_key_module.py"
    try:
        module = _load_module(path, amount=1, unrelated=2, offset=0)
        key = module.kernel.cache_key
        assert len(key) == 64
        out = np.zeros(1, np.int32)
        module.kernel[(1,)](out)
        assert out[0] == 2
        assert _load_module(path, amount=1, unrelated=3, offset=0).kernel.cache_key == key
        changed = _load_module(path, amount=5, unrelated=2, offset=0)
        assert changed.kernel.cache_key != key  # the helper's source changed
        changed.kernel[(1,)](out)
        assert out[0] == 6
        assert _load_module(path, amount=1, unrelated=2, offset=10).kernel.cache_key != key  # a global
        assert _load_module(path, amount=1, unrelated=2, offset=0).kernel.cache_key == key
    finally:
        sys.modules.pop("jit_key_module", None)


def test_dependencies_list_helpers_once():
    from minitriton.frontend import dependencies

    @triton.jit
    def leaf(x):
        return x + 1

    @triton.jit
    def middle(x):
        return leaf(x) + leaf(x)

    @triton.jit
    def top(out_ptr):
        tl.store(out_ptr, middle(1) + leaf(2))

    # Nested functions see each other through the closure, as module-level ones through globals.
    sources = dependencies(top).sources
    assert sum("def leaf" in s for s in sources) == 1
    assert sum("def middle" in s for s in sources) == 1
    assert "def top" in sources[0]


def test_numpy_scalars_are_numbers():
    """np.int64 from numpy arithmetic and np.float32 constants are passed as numbers, not arrays."""
    x = np.arange(10, dtype=np.float32)
    for n, factor in [(np.int64(10), np.float32(2.0)), (np.int32(10), np.float64(2.0)), (10, 2.0)]:
        out = np.full(10, np.nan, np.float32)
        scale_kernel[(1,)](x, out, n, factor, BLOCK=16)
        np.testing.assert_array_equal(out, 2 * x)
    assert len(scale_kernel.cache) >= 1


@triton.jit
def no_argument_kernel():
    tl.static_assert(True)


def test_a_kernel_without_arguments_launches():
    no_argument_kernel[(2,)]()
    no_argument_kernel[(1,)](num_warps=1)


def test_num_ctas_is_accepted_as_triton_launches_pass_it():
    out = np.zeros(16, np.int32)
    grid_kernel[(1,)](out, 16, BLOCK=16, num_ctas=1)
    np.testing.assert_array_equal(out, np.arange(16))
    assert grid_kernel.warmup(out, 16, BLOCK=16, num_ctas=1, grid=(1,)).asm["ttir"]
    with pytest.raises(LaunchError, match="num_ctas=2"):
        grid_kernel[(1,)](out, 16, BLOCK=16, num_ctas=2)


# ------------------------------------------------------------------------- the GPU launch path
# On a GPU, a launch whose key was seen goes straight to the kernel's prepared launch. Here the
# compile and the driver are replaced by recorders, so the path itself is tested without a GPU.

class CudaArray:
    """What CuPy hands a kernel: a device address and a dtype, through __cuda_array_interface__."""

    def __init__(self, address: int, typestr: str = "<f4"):
        self.__cuda_array_interface__ = {"shape": (64,), "typestr": typestr, "data": (address, False),
                                         "version": 3}


class RecordingLauncher:
    def __init__(self, record, codes, attributes=()):
        self.record, self.codes, self.attributes = record, codes, attributes

    def __call__(self, grid, args):  # the slow way: CompiledKernel.launch
        self.record.append(("slow", grid, list(args)))

    def prepared(self, positions, args):
        way = "fast-ex" if self.attributes else "fast"  # a launch with attributes: cuLaunchKernelEx

        def launch(grid, *values):
            self.record.append((way, grid, [values[i] for i in positions]))
        return launcher.Prepared(launch, FUNCTION, 128, 0, self.codes(len(positions)), tuple(positions),
                               lambda: 0, lambda code, grid: LaunchError(f"driver error {code}"),
                               self.attributes)


FUNCTION = 0xF00D
C_TYPES = {"P": ctypes.c_uint64, "i": ctypes.c_int32, "q": ctypes.c_int64, "f": ctypes.c_float}
LAUNCH_KERNEL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p,
                                 ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p)


def compiled_launcher():
    module, why = launcher.compiled_launcher()
    if module is None:
        pytest.skip(f"the compiled fast path cannot be built here: {why}")
    return module


@pytest.fixture(params=["python", "c"])
def gpu_path(monkeypatch, request):
    """Launches as on a GPU: [(way, grid, values)], and the specializations compiled; with the
    binder in Python, and with the compiled one calling a recording cuLaunchKernel. The compile
    makes a kernel whose launches are recorded; the JIT around it is the real one."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    record, compiled, codes = [], [], {}
    if request.param == "c":
        compiled_launcher()

        def launch_kernel(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
            assert (function, bx, by, bz, shared, stream, extra) == (FUNCTION, 128, 1, 1, 0, None, None)
            kinds = codes["last"]
            record.append(("fast", (gx, gy, gz), [C_TYPES[k].from_address(params[i]).value
                                                  for i, k in enumerate(kinds)]))
            return 0

        callback = LAUNCH_KERNEL(launch_kernel)
        monkeypatch.setattr(launcher, "launch_kernel_address",
                            lambda: ctypes.cast(callback, ctypes.c_void_p).value)
    else:
        monkeypatch.setattr(launcher, "launch_kernel_address", lambda: None)
    for kernel in (scale_kernel, grid_kernel, optional_kernel, globals_kernel):
        monkeypatch.delattr(kernel, "_binder", raising=False)  # made again, with this fast path
        kernel.cache.clear()

    def compile(src, target=None, options=None):
        compiled.append(dict(src.specs))
        kernel = CompiledKernel(src.fn.__name__, {}, list(src.specs), options.recorded())
        kinds = "".join({"fp32": "f", "i32": "i", "i64": "q"}.get(spec[0], "P") for spec in src.specs.values())
        codes["last"] = kinds
        kernel.launcher = RecordingLauncher(record, lambda count: kinds,
                                            tuple(a for a in launcher.LAUNCH_ATTRIBUTES if getattr(options, a)))
        return kernel

    monkeypatch.setattr(minitriton.compiler, "compile", compile)
    yield record, compiled
    for kernel in (scale_kernel, grid_kernel, optional_kernel, globals_kernel):
        kernel.cache.clear()  # its kernels launch nothing anywhere else


def test_a_seen_key_goes_to_the_prepared_launch_with_addresses(gpu_path):
    record, compiled = gpu_path
    x, out = CudaArray(0x1000), CudaArray(0x2000)
    for n in (100, 100, 200):
        scale_kernel[(4,)](x, out, n, 2.0, BLOCK=32)
    assert [way for way, _, _ in record] == ["slow", "fast", "fast"]
    assert record[1][1:] == ((4, 1, 1), [0x1000, 0x2000, 100, 2.0])
    assert record[2][2] == [0x1000, 0x2000, 200, 2.0]
    assert len(compiled) == 1


def test_each_launch_option_is_part_of_the_key(gpu_path):
    """Two launches that differ in one launch option never share an entry, in either binder."""
    record, compiled = gpu_path
    x, out = CudaArray(0x1000), CudaArray(0x2000)
    launches = [{}, {"maxnreg": 32}, {"maxnreg": 32}, {"maxnreg": 64}, {"num_warps": 8},
                {"launch_cooperative_grid": True}, {"launch_pdl": True}, {}]
    kernels = [scale_kernel[(4,)](x, out, 100, 2.0, BLOCK=32, **options) for options in launches]
    assert len(compiled) == 6
    assert [k.metadata.maxnreg for k in kernels] == [None, 32, 32, 64, None, None, None, None]
    assert [k.metadata.num_warps for k in kernels] == [4, 4, 4, 4, 8, 4, 4, 4]
    assert kernels[5].metadata.launch_cooperative_grid and kernels[6].metadata.launch_pdl
    assert kernels[1] is kernels[2] and kernels[0] is kernels[7]
    assert [way for way, _, _ in record] == ["slow", "slow", "fast", "slow", "slow", "slow", "slow", "fast"]


def test_a_launch_with_attributes_stays_on_the_python_launch(gpu_path):
    """launch.c calls cuLaunchKernel, which takes no attributes: such a key's hits go through the
    Python launch (cuLaunchKernelEx), in both binders."""
    record, _ = gpu_path
    for _ in range(3):
        scale_kernel[(4,)](CudaArray(0x1000), CudaArray(0x2000), 100, 2.0, BLOCK=32, launch_pdl=True)
    assert [way for way, _, _ in record] == ["slow", "fast-ex", "fast-ex"]


@pytest.mark.parametrize("first, second, same", [
    (0x1000, 0x1010, True),            # both 16-byte aligned
    (0x1000, 0x1004, False),           # alignment is part of the key, read at every launch
])
def test_the_key_follows_the_address(gpu_path, first, second, same):
    record, _ = gpu_path
    for address in (first, second):
        scale_kernel[(1,)](CudaArray(address), CudaArray(0x2000), 64, 1.0, BLOCK=32)
    assert record[1][0] == ("fast" if same else "slow")
    first_value = record[1][2][0]  # the slow way passes the array, the fast way its address
    assert (first_value if same else first_value.__cuda_array_interface__["data"][0]) == second


@pytest.mark.parametrize("first, second, same", [
    (17, 33, True), (1, 17, False), (16, 17, False), (17, 2**31, False), (2**31, 2**63, False),
])
def test_the_key_follows_the_integer_facts(gpu_path, first, second, same):
    """The binders key an int as `launch_key` does: a new fact is a new key."""
    record, _ = gpu_path
    assert (launch_key(first)[0] == launch_key(second)[0]) == same
    for n in (first, second):
        scale_kernel[(1,)](CudaArray(0x1000), CudaArray(0x2000), n, 1.0, BLOCK=32)
    assert record[1][0] == ("fast" if same else "slow")


def test_grids_on_the_fast_path(gpu_path):
    record, _ = gpu_path
    x = CudaArray(0x1000)
    grids = [(3,), 3, (3, 2), (3, 2, 1), lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)]
    for grid in grids:
        grid_kernel[grid](x, 96, BLOCK=32)
    assert [g for _, g, _ in record] == [(3, 1, 1), (3, 1, 1), (3, 2, 1), (3, 2, 1), (3, 1, 1)]
    assert [way for way, _, _ in record] == ["slow"] + ["fast"] * 4


def test_a_none_argument_is_left_out_of_the_fast_launch(gpu_path):
    record, _ = gpu_path
    for _ in range(2):
        optional_kernel[(1,)](CudaArray(0x1000), None, 5)
    assert record[0] == ("slow", (1, 1, 1), [record[0][2][0], 5])
    assert record[1] == ("fast", (1, 1, 1), [0x1000, 5])


@pytest.mark.parametrize("call, words", [
    (lambda: scale_kernel[(1,)](CudaArray(0x1000), CudaArray(0x2000), 64, BLOCK=32),
     "missing a required argument: 'factor'"),
    (lambda: scale_kernel[(1,)](CudaArray(0x1000), CudaArray(0x2000), 64, 1.0, 32, False, 7),
     "too many positional arguments"),
    (lambda: scale_kernel[(1,)](CudaArray(0x1000), CudaArray(0x2000), 64, 1.0, BLOCK=32, BLOK=3),
     "unexpected keyword argument 'BLOK'"),
])
def test_a_wrong_call_on_the_fast_path_names_the_parameters(gpu_path, call, words):
    for _ in range(2):  # the second time too: a wrong call never reaches the table
        with pytest.raises(LaunchError) as caught:
            call()
        assert words in str(caught.value) and "its parameters are (x_ptr, out_ptr, n, factor" in str(caught.value)
    assert gpu_path[0] == []


@triton.jit
def optional_kernel(x_ptr, y_ptr, n):
    if y_ptr is not None:
        tl.store(y_ptr, n)
    tl.store(x_ptr, n)


SCALE = 2.0
CFG = {"size": 2}


@triton.jit
def globals_kernel(x_ptr, n):
    tl.store(x_ptr, n * SCALE * CFG["size"])


THIS = sys.modules[__name__]


@pytest.mark.parametrize("change, words", [
    (lambda patch: patch.setattr(THIS, "SCALE", 3.0), "SCALE has changed since we compiled this kernel, from 2.0 to 3.0"),
    (lambda patch: patch.setitem(CFG, "size", 3), "CFG has changed since we compiled this kernel, from {'size': 2} to {'size': 3}"),
    (lambda patch: patch.delattr(THIS, "SCALE"), "SCALE has changed since we compiled this kernel, from 2.0 to nothing"),
    (lambda patch: patch.setattr(THIS, "SCALE", float("2.0")), None),  # another object, the same value
    (lambda patch: patch.setattr(THIS, "CFG", {"size": 2}), None),
])
def test_a_launch_after_a_global_changed_says_so_in_both_binders(gpu_path, change, words, monkeypatch):
    """As Triton 3.6: the compiled kernel holds the old value, so a launch raises (a RuntimeError,
    with Triton's words) rather than run it; put back, the kernel launches again."""
    record, compiled = gpu_path
    x = CudaArray(0x1000)
    for _ in range(2):
        globals_kernel[(1,)](x, 5)
    with monkeypatch.context() as patch:
        change(patch)
        for _ in range(2):  # the fast path holds no stale entry either
            if words is None:
                globals_kernel[(1,)](x, 5)
            else:
                with pytest.raises(RuntimeError, match=f"Global variable {re.escape(words)}") as caught:
                    globals_kernel[(1,)](x, 5)
                assert isinstance(caught.value, GlobalChanged) and "define the kernel again" in str(caught.value)
    globals_kernel[(1,)](x, 5)
    assert [way for way, _, _ in record] == ["slow"] + ["fast"] * (2 if words else 4)
    assert len(compiled) == 1


def test_the_binder_takes_the_fast_path_asked_for(gpu_path, request):
    scale_kernel[(1,)](CudaArray(0x1000), CudaArray(0x2000), 64, 1.0, BLOCK=32)
    binder = scale_kernel._binder
    compiled = request.node.callspec.params["gpu_path"] == "c"
    assert (type(binder).__name__ == "Binder") == compiled  # launcher.c binds a hit itself
    python = getattr(binder, "fallback", binder)  # the binder in Python: a plain closure
    assert python.__class__.__name__ == "function" and python.__name__ == "scale_kernel"
    # kernel[grid] is the compiled binder with its grid, or the Python one's partial
    assert type(scale_kernel[(1,)]).__name__ == ("Bound" if compiled else "partial")
    if compiled:
        assert type(triton.JITFunction.__dict__["__getitem__"]).__name__ == "Subscript"


def test_tritons_interpret_variable_is_honoured_unless_ours_says_otherwise(monkeypatch):
    jit_module = importlib.import_module("minitriton.jit")  # the module (`minitriton.jit` is the decorator)
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert jit_module.interpreting()
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    assert not jit_module.interpreting()
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    assert jit_module.interpreting()


@pytest.mark.parametrize("value, kind", [(-1, "i32"), (2**31 - 1, "i32"), (2**31, "i64"), (2**32, "i64"),
                                         (-2**63, "i64"), (2**63, "u64"), (2**64 - 1, "u64")])
def test_a_kernel_named_from_its_specialization(value, kind):
    """`@jit(repr=...)`, Triton's: the callback gets each argument's type and the constants
    (constexprs and ints equal to 1) and names the compiled kernel."""
    def name(spec):
        ones = "_".join(k for k, v in spec.constants.items() if v == 1)
        return f"kernel_{spec.signature['value']}_{ones}_{spec.signature['BLOCK']}"

    @triton.jit(repr=name)
    def kernel(value, is_one, x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), value, tl.float32))

    x = np.zeros(4, np.float32)
    compiled = kernel.warmup(value, 1, x, BLOCK=4, grid=(1,))
    assert compiled.name == f"kernel_{kind}_is_one_constexpr"
    compiled = kernel.warmup(value, 1, x, BLOCK=4, grid=(1,), target="sm_90")
    assert f".entry kernel_{kind}_is_one_constexpr(" in compiled.asm["ptx"]


@pytest.mark.parametrize("value", [2**64, -2**63 - 1])
def test_an_int_no_64_bit_type_holds_is_an_overflow_error(value):
    @triton.jit
    def kernel(value, x_ptr):
        tl.store(x_ptr, value)

    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        kernel[(1,)](value, np.zeros(1, np.float32))
