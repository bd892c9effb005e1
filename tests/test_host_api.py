"""Triton's host API, without a GPU: `triton.runtime.driver`, compiled kernels as Triton's, and the
launch options `maxnreg`, `launch_cooperative_grid` and `launch_pdl`.

The CUDA driver is replaced by a fake that answers device attributes, loads nothing and records
launches, so every path a GPU takes is exercised here; GPU runs of the same are in test_gpu.py.
"""
import functools
import os
import sys
import types

import numpy as np
import pytest
from cuda.bindings import driver as cuda

import minitriton as triton
import minitriton.language as tl
from minitriton import driver, launcher
from minitriton.codegen import backend as cuda_backend
from minitriton.codegen import ptx
from minitriton.errors import LaunchError
from minitriton.examples.tutorials import matmul_kernel, softmax_kernel
from minitriton.kernel import CompiledKernel, GPUTarget, KernelMetadata
from minitriton.runtime import driver as runtime_driver
from minitriton.frontend.source import dependencies
from minitriton.kernel import INTERPRETER_TARGET, interpreting

needs_ptxas = pytest.mark.skipif(ptx.ptxas_path() is None, reason="ptxas is not installed here")
OK = cuda.CUresult.CUDA_SUCCESS

# What the fake GPU answers, by the driver's attribute names: an H100's numbers.
H100 = {"COMPUTE_CAPABILITY_MAJOR": 9, "COMPUTE_CAPABILITY_MINOR": 0, "MULTIPROCESSOR_COUNT": 132,
        "MAX_THREADS_PER_BLOCK": 1024, "MAX_SHARED_MEMORY_PER_BLOCK": 49152,
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448, "L2_CACHE_SIZE": 52428800, "WARP_SIZE": 32,
        "MAX_REGISTERS_PER_BLOCK": 65536, "CLOCK_RATE": 1980000, "MEMORY_CLOCK_RATE": 2619000,
        "GLOBAL_MEMORY_BUS_WIDTH": 5120}


class FakeCuda:
    """The part of cuda.bindings.driver that device properties and the context read."""

    CUdevice_attribute = cuda.CUdevice_attribute
    CUresult = cuda.CUresult

    def __init__(self, attributes):
        self.attributes = attributes

    def cuDeviceGet(self, ordinal):
        return OK, ordinal

    def cuDeviceGetAttribute(self, attribute, device):
        return OK, self.attributes[attribute.name.removeprefix("CU_DEVICE_ATTRIBUTE_")]

    def cuDeviceGetName(self, length, device):
        return OK, b"Fake H100\0" + b"\0" * (length - 10)

    def cuCtxGetCurrent(self):
        return OK, 1  # a context is current

    def cuCtxGetDevice(self):
        return OK, 0


@pytest.fixture
def fake_gpu(monkeypatch):
    """A GPU with `H100`'s attributes, as far as minitriton's driver module can tell."""
    def install(attributes=H100):
        fake = FakeCuda(attributes)
        monkeypatch.setattr(driver, "is_available", lambda: True)
        monkeypatch.setattr(driver, "_initialized", lambda: fake)
        monkeypatch.setattr(driver, "_device_properties", functools.lru_cache()(driver._device_properties.__wrapped__))
        return fake
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    return install


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(driver, "is_available", lambda: False)
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)


@pytest.fixture
def fake_torch(monkeypatch):
    """torch, as far as get_active_torch_device needs it."""
    torch = types.SimpleNamespace(device=lambda kind, index=None: (kind, index))
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


# ----------------------------------------------------------------------------- triton.runtime.driver

def test_device_properties_under_tritons_names(fake_gpu):
    fake_gpu()
    properties = triton.runtime.driver.active.utils.get_device_properties(0)
    assert properties == {"max_shared_mem": 232448, "max_num_regs": 65536, "multiprocessor_count": 132,
                          "warpSize": 32, "sm_clock_rate": 1980000, "mem_clock_rate": 2619000,
                          "mem_bus_width": 5120}
    assert driver.device_properties(0).capability == 90


def test_the_current_target(fake_gpu):
    fake_gpu({**H100, "COMPUTE_CAPABILITY_MAJOR": 8, "COMPUTE_CAPABILITY_MINOR": 6})
    target = triton.runtime.driver.active.get_current_target()
    assert target == GPUTarget("cuda", 86, 32) and target.backend == "cuda"
    assert triton.runtime.driver.active.get_device_capability() == (8, 6)
    assert triton.runtime.driver.active.get_current_device() == 0


def test_the_active_torch_device(fake_gpu, fake_torch, monkeypatch):
    fake_gpu()
    assert triton.runtime.driver.active.get_active_torch_device() == ("cuda", 0)
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")  # with a GPU here, the interpreter still says cuda
    assert triton.runtime.driver.active.get_active_torch_device() == ("cuda", 0)


def test_the_interpreter_without_a_gpu_runs_on_the_cpu(no_gpu, fake_torch, monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    assert triton.runtime.driver.active.get_active_torch_device() == ("cpu", None)
    assert triton.runtime.driver.active.get_current_target() == INTERPRETER_TARGET
    with pytest.raises(LaunchError, match="under MINITRITON_INTERPRET=1 there is none to ask about"):
        triton.runtime.driver.active.utils.get_device_properties(0)


@pytest.mark.parametrize("call", [
    lambda active: active.get_current_target(),
    lambda active: active.utils.get_device_properties(0),
    lambda active: active.get_current_device(),
    lambda active: active.get_current_stream(),
    lambda active: active.get_device_capability(),
    lambda active: active.set_current_device(0),
])
def test_without_a_gpu_each_call_says_what_is_missing(no_gpu, fake_torch, call):
    with pytest.raises(LaunchError, match="no NVIDIA GPU or CUDA driver here; set MINITRITON_INTERPRET=1"):
        call(triton.runtime.driver.active)


def test_without_torch_the_torch_calls_say_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails
    with pytest.raises(LaunchError, match="torch is not installed; pip install torch"):
        triton.runtime.driver.active.get_active_torch_device()


def test_the_active_driver_can_be_replaced():
    config = runtime_driver.__class__()
    stand_in = object()
    assert config.active is config.default
    config.set_active(stand_in)
    assert config.active is stand_in
    config.reset_active()
    assert config.active is config.default and config.active.get_benchmarker() is triton.testing.do_bench


def test_tritons_module_paths():
    from minitriton.runtime import Autotuner, Config, Heuristics, InterpreterError, OutOfResources  # noqa: F401
    from minitriton.runtime.autotuner import Autotuner as autotuner_class
    from minitriton.runtime.errors import OutOfResources as out_of_resources
    from minitriton.runtime.jit import JITFunction, KernelInterface

    assert autotuner_class is triton.autotune([triton.Config({})], key=[])(matmul_kernel).__class__
    assert out_of_resources is triton.OutOfResources and JITFunction is triton.JITFunction
    assert triton.compiler.CompiledKernel is CompiledKernel
    assert triton.compiler.CompilationError is triton.CompilationError
    for kernel in (matmul_kernel, triton.autotune([triton.Config({})], key=[])(matmul_kernel),
                   triton.heuristics({})(matmul_kernel)):
        assert isinstance(kernel, KernelInterface) and isinstance(kernel, triton.KernelInterface)


# ----------------------------------------------------------------------------- compiled kernels as Triton's

@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, 3 * tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


def test_the_interpreters_compiled_kernel_answers_as_tritons(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    x = np.arange(100, dtype=np.float32)
    out = np.full(100, np.nan, np.float32)
    kernel = scale_kernel.warmup(x, out, 100, BLOCK=32, num_warps=2, num_stages=1, grid=(1,))
    kernel._init_handles()
    kernel._init_handles()  # a no-op
    assert (kernel.n_regs, kernel.n_spills, kernel.metadata.shared) == (0, 0, 0)
    assert kernel.metadata.num_warps == 2 and kernel.metadata.num_stages == 1
    assert kernel.metadata.name == kernel.name == "scale_kernel" and "func @scale_kernel" in kernel.asm["ttir"]
    assert kernel.module is None and kernel.function is None and kernel.metadata.target is None
    kernel[(2, 1, 1)](x, out, 100, 32)  # every argument, constexprs included, as Triton's
    kernel[(4,)](x, out, 100)  # or only the runtime ones
    np.testing.assert_array_equal(out, 3 * x)
    with pytest.raises(LaunchError, match=r"takes its 3 runtime arguments \(x_ptr, out_ptr, n\) or all 4"):
        kernel[(1,)](x, out)
    assert scale_kernel[(4,)](x, out, 100, BLOCK=32) is scale_kernel.warmup(x, out, 100, BLOCK=32, grid=(1,))


def test_tutorial_02s_persistent_launch_in_the_interpreter(monkeypatch):
    """The softmax tutorial warms the kernel up, then launches the compiled kernel with every argument."""
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((37, 300)).astype(np.float32)
    y = np.full_like(x, np.nan)
    kernel = softmax_kernel.warmup(y, x, x.shape[1], y.shape[1], *x.shape, BLOCK_SIZE=512, num_stages=2,
                                   num_warps=8, grid=(1,))
    kernel._init_handles()
    size_smem = kernel.metadata.shared
    assert size_smem == 0 and kernel.n_regs == 0
    kernel[(5, 1, 1)](y, x, x.shape[1], y.shape[1], *x.shape, 512, 2)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_metadata_is_read_as_attributes_or_items():
    metadata = KernelMetadata(name="k", arch="sm_90a", shared_bytes=1024, registers=40, stack_frame=16,
                              runtime_args=["x"])
    assert metadata.shared == metadata["shared_bytes"] == 1024
    assert metadata.target == GPUTarget("cuda", 90, 32) and metadata.warp_size == 32
    assert metadata.get("registers") == 40 and metadata.get("nothing") is None and "arch" in metadata
    assert dict(metadata)["runtime_args"] == ("x",) and list(metadata)[0] == "name"
    with pytest.raises(KeyError, match="compiled kernels' metadata has name, backend"):
        metadata["shared"]  # Triton's names are attributes
    kernel = CompiledKernel("k", {}, ["x"], {"registers": 40, "stack_frame": 16})
    assert (kernel.n_regs, kernel.n_spills, kernel.n_max_threads) == (40, 4, 128)


@needs_ptxas
def test_a_kernel_compiled_for_an_arch_reports_what_ptxas_said(no_gpu):
    x = np.zeros(64, np.float32)
    kernel = scale_kernel.warmup(x, x, 64, BLOCK=64, grid=(1,), target="sm_90")
    assert kernel.n_regs == kernel.metadata.registers > 0 and kernel.n_spills == 0
    assert kernel.metadata.target == GPUTarget("cuda", 90, 32) and kernel.metadata.backend == "cuda"
    assert {"ttir", "layout", "llir", "ptx", "cubin"} <= set(kernel.asm)
    with pytest.raises(LaunchError, match="was compiled for sm_90; running it needs a GPU: no NVIDIA GPU"):
        kernel._init_handles()
    with pytest.raises(LaunchError, match="no NVIDIA GPU"):
        kernel[(1,)](x, x, 64)


# ----------------------------------------------------------------------------- loading, on a fake GPU

def loaded_kernel(name="scale_kernel"):
    """What driver.load_module returns, as far as a compiled kernel reads it."""
    return types.SimpleNamespace(name=name, module=0xAB, function=0xCD, num_regs=37, local_bytes=8,
                                 max_threads_per_block=768, static_shared_bytes=0, shared_bytes=0)


@pytest.fixture
def loads(fake_gpu, monkeypatch):
    """The modules loaded, with the fake GPU in place; cuLaunchKernel(Ex) record their calls."""
    fake_gpu()
    loaded, calls = [], []
    monkeypatch.setattr(driver, "load_module", lambda image, name, shared: loaded.append(name) or loaded_kernel(name))
    monkeypatch.setattr(cuda, "cuLaunchKernel", lambda *args: calls.append(("plain", args)) or (OK,))
    monkeypatch.setattr(cuda, "cuLaunchKernelEx", lambda config, *rest: calls.append(("ex", config, rest)) or (OK,))
    return loaded, calls


def metadata_for(**options):
    return KernelMetadata(name="scale_kernel", arch="sm_90a", runtime_args=("x_ptr", "n"),
                          signature=("ptr<fp32>", "int32"), **options)


def test_handles_are_loaded_once_and_read_from_the_driver(loads):
    loaded, _ = loads
    kernel = CompiledKernel("scale_kernel", {"ptx": ".version 8.0"}, ["x_ptr", "n"], metadata_for(registers=12))
    kernel.loader = functools.partial(cuda_backend.CUDABackend("cuda").launcher, kernel.name, kernel.asm,
                                      kernel.metadata)
    assert kernel.n_regs == 12 and kernel.function is None  # ptxas's count until the driver has it
    kernel._init_handles()
    kernel._init_handles()
    assert loaded == ["scale_kernel"]
    assert (kernel.n_regs, kernel.n_spills, kernel.n_max_threads) == (37, 2, 768)
    assert (kernel.module, kernel.function) == (0xAB, 0xCD)


@pytest.mark.parametrize("gpu, compiled_for, options, words", [
    (9, "sm_80", {}, "was compiled for sm_80 and this GPU is sm_90; compile it for this GPU"),
    (8, "sm_80", {"launch_pdl": True}, "launch_pdl=True: programmatic dependent launch needs sm_90"),
])
def test_loading_where_the_kernel_cannot_run_is_refused(fake_gpu, gpu, compiled_for, options, words):
    fake_gpu({**H100, "COMPUTE_CAPABILITY_MAJOR": gpu})
    with pytest.raises(LaunchError, match=words):
        cuda_backend.check_device(metadata_for(**options).replace(arch=compiled_for))
    cuda_backend.check_device(metadata_for().replace(arch=f"sm_{gpu}0"))  # its own arch loads


def test_a_launch_with_attributes_goes_through_cuLaunchKernelEx(loads):
    _, calls = loads
    run = cuda_backend.CUDABackend("cuda").launcher("scale_kernel", {"ptx": ""},
                                                    metadata_for(num_warps=2, launch_cooperative_grid=True))
    run((3, 2, 1), [0x1000, 7])
    run((3, 2, 1), [0x1000, 7], 99)  # a stream of the caller's
    run((0, 1, 1), [0x1000, 7])  # an empty grid launches nothing
    assert [way for way, *_ in calls] == ["ex", "ex"]
    config = calls[1][1]
    assert (config.gridDimX, config.gridDimY, config.gridDimZ, config.blockDimX, config.blockDimY) == (3, 2, 1, 64, 1)
    assert int(config.hStream) == 99 and config.numAttrs == 1
    assert config.attrs[0].id == cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    assert config.attrs[0].value.cooperative == 1
    prepared = run.prepared([0, 1], [0x1000, 7])
    assert prepared.attributes == ("launch_cooperative_grid",)
    prepared.launch((4, 1, 1), 0x2000, 8)
    assert calls[-1][0] == "ex" and calls[-1][1].gridDimX == 4


def test_a_launch_without_attributes_stays_on_cuLaunchKernel(loads):
    _, calls = loads
    run = cuda_backend.CUDABackend("cuda").launcher("scale_kernel", {"ptx": ""}, metadata_for())
    run((3, 1, 1), [0x1000, 7])
    assert [way for way, *_ in calls] == ["plain"] and run.prepared([0, 1], [0x1000, 7]).attributes == ()


@pytest.mark.parametrize("options, ids", [
    (("launch_pdl",), ["CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION"]),
    (("launch_cooperative_grid", "launch_pdl"),
     ["CU_LAUNCH_ATTRIBUTE_COOPERATIVE", "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION"]),
])
def test_each_option_sets_its_attribute(options, ids, monkeypatch):
    calls = []
    monkeypatch.setattr(cuda, "cuLaunchKernelEx", lambda config, f, params, extra: calls.append(config) or (OK,))
    launch = launcher.make_launcher(loaded_kernel(), ["*fp32", "fp32"], block_x=128, shared_bytes=512,
                                    attributes=options)
    launch(lambda: 5, (2, 1, 1), 0x1000, 0.5)
    config = calls[0]
    assert [a.id.name for a in config.attrs[:config.numAttrs]] == ids
    assert (config.blockDimX, config.sharedMemBytes, int(config.hStream)) == (128, 512, 5)
    assert "_cuLaunchKernelEx(_configure(grid, _block_x, _shared_bytes, stream_of())" in launch.source


def test_a_cooperative_grid_too_large_is_explained(monkeypatch):
    too_large = cuda.CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
    monkeypatch.setattr(cuda, "cuLaunchKernelEx", lambda *args: (too_large,))
    launch = launcher.make_launcher(loaded_kernel(), ["*fp32"], attributes=("launch_cooperative_grid",))
    with pytest.raises(LaunchError, match=r"launch_cooperative_grid=True over \(5000, 1, 1\) programs, more"):
        launch((5000, 1, 1), 128, 0, 0, 0x1000)


# ----------------------------------------------------------------------------- maxnreg

def matmul(**options):
    a = np.zeros((128, 128), np.float32)
    return matmul_kernel.warmup(a, a, a, 128, 128, 128, 128, 1, 128, 1, 128, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", INPUT_PRECISION="ieee", num_stages=1,
                                grid=(4,), target="sm_90", **options)


def without(text: str, words: str) -> str:
    return "\n".join(line for line in text.splitlines() if words not in line)


@needs_ptxas
def test_maxnreg_limits_registers_and_changes_nothing_else(monkeypatch):
    keys = []
    get_or_compile = triton.cache.get_or_compile
    monkeypatch.setattr(triton.cache, "get_or_compile", lambda key, build: keys.append(key) or get_or_compile(key, build))
    free, limited = matmul(), matmul(maxnreg=40)
    assert free.n_regs > 40 >= limited.n_regs and limited.metadata.maxnreg == 40
    assert limited.n_spills > free.n_spills == 0  # what does not fit goes to local memory
    # without the option, ptxas is given the cap that costs no block (`ptx.register_cap`)
    assert ".maxnreg 40" in limited.asm["ptx"] and ".maxnreg 40" not in free.asm["ptx"]
    assert without(limited.asm["ptx"], ".maxnreg") == without(free.asm["ptx"], ".maxnreg")
    code = lambda llir: llir.split("!nvvm.annotations")[0]
    assert code(limited.asm["llir"]) == code(free.asm["llir"])  # the same code, one annotation more:
    assert '!"maxnreg", i32 40' in limited.asm["llir"] and '!"maxnreg"' not in free.asm["llir"]
    assert limited.asm["llir"].count('!"maxntidx", i32 128') == free.asm["llir"].count('!"maxntidx", i32 128') == 1
    assert limited.asm["ttir"] == free.asm["ttir"] and limited.asm["layout"] == free.asm["layout"]
    assert len(set(keys)) == 2 and matmul(maxnreg=40) is limited  # its own entry, on disk and in memory


@pytest.mark.parametrize("value", [0, -4, 2.5, "32", True])
def test_maxnreg_must_be_a_positive_int(value, monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    x = np.zeros(8, np.float32)
    with pytest.raises(LaunchError, match="maxnreg must be a positive int"):
        scale_kernel[(1,)](x, x, 8, BLOCK=8, maxnreg=value)


def test_the_interpreter_accepts_every_launch_option(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    x, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    kernel = scale_kernel[(1,)](x, out, 8, BLOCK=8, maxnreg=64, num_ctas=1, launch_cooperative_grid=True,
                                launch_pdl=True)
    np.testing.assert_array_equal(out, 3 * x)
    assert kernel.metadata.maxnreg == 64 and kernel.metadata.launch_cooperative_grid and kernel.metadata.launch_pdl


# ----------------------------------------------------------------------------- options through autotune

def test_configs_carry_maxnreg_and_num_ctas_as_tritons(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    config = triton.Config({"BLOCK": 8}, 2, 1, 1, 48)  # Triton's order: num_warps, num_stages, num_ctas, maxnreg
    assert (config.num_warps, config.num_stages, config.num_ctas, config.maxnreg) == (2, 1, 1, 48)
    assert str(config) == "BLOCK: 8, num_warps: 2, num_stages: 1, maxnreg: 48"
    assert repr(config) == "Config({'BLOCK': 8}, num_warps=2, num_stages=1, maxnreg=48)"
    assert str(triton.Config({"BLOCK": 8})) == "BLOCK: 8, num_warps: 4, num_stages: 3"
    tuned = triton.autotune([config, triton.Config({"BLOCK": 16}, maxnreg=64)], key=["n"])(scale_kernel)
    x = np.zeros(16, np.float32)
    assert [k.metadata.maxnreg for k in tuned.warmup(x, x, 16)] == [48, 64]
    kernel = tuned[(2,)](x, x, 16)
    assert kernel.metadata.maxnreg == 48 and tuned.best_config is config


def test_a_config_with_clusters_fails_clearly_and_ir_override_is_refused(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    tuned = triton.autotune([triton.Config({"BLOCK": 8}, num_ctas=2), triton.Config({"BLOCK": 16})],
                            key=["n"])(scale_kernel)
    x = np.zeros(16, np.float32)
    assert tuned[(1,)](x, x, 16).metadata.num_ctas == 1
    failures, = tuned.failures.values()
    assert "num_ctas=2: minitriton launches one thread block" in \
        failures["BLOCK: 8, num_warps: 4, num_stages: 3, num_ctas: 2"]
    with pytest.raises(ValueError, match="cannot take IR from a file"):
        triton.Config({}, ir_override="kernel.ttgir")


# -- triton.compile: a kernel compiled for a signature, without launching it ----------------------

@triton.jit
def shift_kernel(x_ptr, out_ptr, n, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + shift, mask=offs < n)


SHIFT_SIGNATURE = {"BLOCK": "constexpr", "shift": "fp32", "n": "i32", "out_ptr": "*fp32", "x_ptr": "*fp32"}
ALIGNED = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}


def test_compile_gives_what_the_first_launch_compiles(monkeypatch):
    """The same specialization, by signature and by a launch's arguments, compiles to the same
    PTX, whatever order the signature names the parameters in (the kernel's own order counts)."""
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    source = triton.compiler.ASTSource(shift_kernel, SHIFT_SIGNATURE, constexprs={"BLOCK": 64}, attrs=ALIGNED)
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 2})
    x, out = np.zeros(100, np.float32), np.zeros(100, np.float32)
    assert x.ctypes.data % 16 == 0 and out.ctypes.data % 16 == 0
    launched = shift_kernel.warmup(x, out, 99, 0.5, BLOCK=64, num_warps=2, grid=(1,), target="sm_90a")
    assert compiled.asm["ptx"] == launched.asm["ptx"]
    assert ".target sm_90a" in compiled.asm["ptx"]
    assert compiled.runtime_args == ["x_ptr", "out_ptr", "n", "shift"]
    assert compiled.metadata.num_warps == 2 and compiled.metadata.target == GPUTarget("cuda", 90, 32)
    unaligned = triton.compile(triton.compiler.ASTSource(shift_kernel, SHIFT_SIGNATURE, {"BLOCK": 64}),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": 2})
    assert compiled.asm["ttir"].count("divisibility=16") == 2  # the attrs: both pointers aligned
    assert "divisibility" not in unaligned.asm["ttir"]


@pytest.mark.parametrize("capability, arch", [(80, "sm_80"), (90, "sm_90a"), (100, "sm_100a")])
def test_compile_names_the_arch_as_triton_does(capability, arch):
    source = triton.compiler.ASTSource(shift_kernel, SHIFT_SIGNATURE, constexprs={"BLOCK": 32})
    compiled = triton.compile(source, target=GPUTarget("cuda", capability, 32))
    assert f".target {arch}\n" in compiled.asm["ptx"] and compiled.metadata.arch == arch


def test_compile_without_a_target_is_for_the_current_one(no_gpu, monkeypatch):
    source = triton.compiler.ASTSource(shift_kernel, SHIFT_SIGNATURE, constexprs={"BLOCK": 32})
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")  # no GPU: the interpreter's stand-in, sm_80
    assert ".target sm_80\n" in triton.compile(source).asm["ptx"]
    monkeypatch.setenv("MINITRITON_INTERPRET", "0")
    with pytest.raises(LaunchError, match="no NVIDIA GPU"):
        triton.compile(source)


@pytest.mark.parametrize("signature, target, options, error, words", [
    ({**SHIFT_SIGNATURE, "n": "int"}, GPUTarget("cuda", 90, 32), None, TypeError, "parameter `n`: unknown type"),
    ({1: "i32"}, GPUTarget("cuda", 90, 32), None, TypeError, "signature keys"),
    (SHIFT_SIGNATURE, GPUTarget("hip", "gfx942", 64), None, LaunchError, "NVIDIA GPUs only"),
    (SHIFT_SIGNATURE, GPUTarget("cuda", 90, 32), {"fast_everything": True}, LaunchError, "compile options are"),
    (SHIFT_SIGNATURE, GPUTarget("cuda", 90, 32), {"num_warps": 3}, LaunchError, "power of 2"),
])
def test_compile_refuses_what_it_cannot_do(signature, target, options, error, words):
    with pytest.raises(error, match=words):
        triton.compile(triton.compiler.ASTSource(shift_kernel, signature, {"BLOCK": 32}), target=target,
                       options=options)


def test_compile_reports_a_kernels_mistake_at_its_line():
    @triton.jit
    def wrong(x_ptr):
        tl.store(x_ptr + tl.arange(0, 12), 1.0)

    with pytest.raises(triton.CompilationError, match=r"test_host_api.py:\d+:\d+ in wrong\(\).*power of 2"):
        triton.compile(triton.compiler.ASTSource(wrong, {"x_ptr": "*fp32"}), target=GPUTarget("cuda", 80, 32))


def test_a_constexpr_that_is_not_specialized_is_refused(monkeypatch):
    @triton.jit(do_not_specialize=["N"])
    def kernel(x_ptr, N: tl.constexpr):
        tl.store(x_ptr, N)

    words = "N marked as constexpr and listed in do_not_specialize"
    with pytest.raises(triton.CompilationError, match=words):
        triton.compile(triton.compiler.ASTSource(kernel, {"x_ptr": "*i32"}, {"N": 5}), target=GPUTarget("cuda", 80, 32))
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    with pytest.raises(triton.CompilationError, match=words):
        kernel[(1,)](np.zeros(1, np.int32), 5)


# -- triton.knobs: views of the variables minitriton reads ---------------------------------------

def test_knobs_read_and_set_minitritons_variables(monkeypatch, tmp_path):
    from minitriton import cache, knobs
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "before"))
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    with knobs.cache.scope(), knobs.runtime.scope():
        assert knobs.cache.dir == str(tmp_path / "before") and knobs.runtime.interpret
        knobs.cache.dir = str(tmp_path / "moved")
        knobs.runtime.interpret = False
        assert cache.cache_dir() == tmp_path / "moved" and not interpreting()
        assert knobs.cache.knobs == {"dir": str(tmp_path / "moved")}
        knobs.cache.dir = None  # unset: the user's cache directory
        assert cache.cache_dir() != tmp_path / "moved" and "MINITRITON_CACHE_DIR" not in os.environ
    assert cache.cache_dir() == tmp_path / "before" and knobs.runtime.interpret  # as they were


def test_the_autotuning_knob_prints_the_choice(monkeypatch, capsys):
    from minitriton import knobs
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    monkeypatch.delenv("MINITRITON_PRINT_AUTOTUNING", raising=False)

    @triton.autotune([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"])
    @triton.jit
    def tuned(x_ptr, out_ptr, n, shift, BLOCK: tl.constexpr):
        shift_kernel(x_ptr, out_ptr, n, shift, BLOCK)

    with knobs.autotuning.scope():
        knobs.autotuning.print = True
        x, out = np.arange(40, dtype=np.float32), np.full(40, np.nan, np.float32)
        tuned[lambda meta: (triton.cdiv(40, meta["BLOCK"]),)](x, out, 40, 1.5)
    np.testing.assert_array_equal(out, x + 1.5)
    printed = capsys.readouterr()
    assert "BLOCK" in printed.out + printed.err and not knobs.autotuning.print


# -- triton.constexpr_function and the dtypes' attributes -----------------------------------------

@triton.constexpr_function
def block_for(n, dtype):
    """The smallest power of two holding n elements, but at least 128 bytes of `dtype`."""
    return max(triton.next_power_of_2(n), 1024 // dtype.primitive_bitwidth)


@triton.jit
def fill_kernel(out_ptr, n, N: tl.constexpr, DTYPE: tl.constexpr):
    BLOCK: tl.constexpr = block_for(N, DTYPE)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full((BLOCK,), BLOCK - 1, DTYPE), mask=offs < n)


@pytest.mark.parametrize("n, dtype, np_dtype, block", [(5, tl.int32, np.int32, 32), (100, tl.float16, np.float16, 128),
                                                        (3, tl.int8, np.int8, 128)])
def test_a_constexpr_function_runs_while_the_kernel_compiles(n, dtype, np_dtype, block, monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    out = np.full(block + 7, -1, np_dtype)
    fill_kernel[(1,)](out, out.size, N=n, DTYPE=dtype)
    np.testing.assert_array_equal(out, np.where(np.arange(out.size) < block, block - 1, -1).astype(np_dtype))
    assert block_for(n, dtype) == block  # from host code, the function itself
    assert any("def block_for" in str(r.key) for r in dependencies(fill_kernel).reads)  # its source keys the cache


def test_a_constexpr_function_takes_no_tensors(monkeypatch):
    @triton.jit
    def kernel(x_ptr):
        tl.store(x_ptr, block_for(tl.load(x_ptr), tl.int32))

    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    with pytest.raises(triton.CompilationError, match="cannot call `block_for` with tensor arguments"):
        kernel[(1,)](np.zeros(1, np.int32))


@pytest.mark.parametrize("dtype", [tl.float16, tl.float32, tl.float64])
def test_float_dtypes_describe_their_encoding_as_numpy_does(dtype):
    info = np.finfo(dtype.np)
    assert dtype.fp_mantissa_width == info.nmant and dtype.exponent_bias == info.maxexp - 1
    assert dtype.primitive_bitwidth == info.bits and dtype.codegen_name() == f"float{info.bits}"


@pytest.mark.parametrize("dtype", [tl.int8, tl.int16, tl.int32, tl.int64, tl.uint8, tl.uint16, tl.uint32, tl.uint64])
def test_integer_dtypes_know_their_range(dtype):
    info = np.iinfo(dtype.np)
    assert (dtype.get_int_min_value(), dtype.get_int_max_value()) == (info.min, info.max)
    assert not hasattr(dtype, "fp_mantissa_width") and dtype.name in tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES


def test_dtype_name_lists_are_tritons():
    assert tl.dtype.SINT_TYPES == ["int8", "int16", "int32", "int64"]
    assert sorted(tl.dtype.UINT_TYPES) == ["int1", "uint16", "uint32", "uint64", "uint8"]
    assert tl.dtype.STANDARD_FP_TYPES == ["fp16", "bf16", "fp32", "fp64"]
    assert len(tl.dtype.FP_TYPES) == 9 and all(tl.dtype(n).is_floating() for n in tl.dtype.FP_TYPES)
    assert tl.float8e4nv.fp_mantissa_width == 3 and tl.float8e4nv.exponent_bias == 7 and tl.int1.get_int_max_value() == 1
