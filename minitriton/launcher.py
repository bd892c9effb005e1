"""The launch: a kernel's arguments packed as its parameters and `cuLaunchKernel` called.

`make_launcher` prepares the launch of one loaded kernel for one signature: the arguments' layout
is worked out once, so a launch only packs the values into a buffer that is already laid out and
calls `cuLaunchKernel`. `prepare` binds it to one launch key's block size, shared memory and
stream: what the JIT's binder calls on a hit. Where a C compiler is here, `launcher.c` does the
same in C (`compiled_launcher` builds and loads it once per machine; `fast_path` makes its table
for one kernel), and reads the launch key of each argument as `specialize.launch_key` does.
Chapter: 09-ptx-driver-cache.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .cache import cache_dir, make_folder, remove
from .driver import DEFAULT_SHARED_LIMIT, CudaError, Kernel, _cuda, pointer_of, stream_getter
from .dtypes import FACTS, POINTER_FACTS
from .errors import LaunchError
from .floats import bf16_bits


def _bf16_parameter(value) -> int:
    """A bf16 parameter's 16 bits: `value` rounded as every stage rounds it (`floats.bf16_bits`)."""
    return int(bf16_bits(value))


def _slot(kind: str) -> str:
    """A signature entry, normalized: "ptr" for any pointer ("ptr", "*fp32"), else a dtype name."""
    if kind == "ptr" or kind.startswith("*"):
        return "ptr"
    if kind == "tensormap":  # a TensorDescriptor's TMA tensor map: 128 bytes (`codegen/tma`)
        return kind
    if kind not in FACTS:
        raise ValueError(f"unknown argument type {kind!r}; expected 'ptr', '*<dtype>' or one of "
                         f"{', '.join(FACTS)}")
    return kind


def _struct_code(slot: str) -> str:
    if slot == "tensormap":
        return "128s"
    return POINTER_FACTS.struct if slot == "ptr" else FACTS[slot].struct


def _convert(slot: str, value):
    """What `struct` packs for one argument."""
    if slot == "ptr":
        return pointer_of(value)
    return _bf16_parameter(value) if slot == "bf16" else value


_PACK_ERRORS = (struct.error, OverflowError, TypeError, ValueError)

# --8<-- [start:attributes]
# The launch options that are launch attributes (`kernel.Options`): the driver's attribute for each,
# and the field of its value that turns it on. A launch with any of them goes through
# cuLaunchKernelEx, which takes them in its CUlaunchConfig; every other launch, cuLaunchKernel.
LAUNCH_ATTRIBUTES = {
    # every program of the grid resident at once, so programs may wait for each other
    "launch_cooperative_grid": ("CU_LAUNCH_ATTRIBUTE_COOPERATIVE", "cooperative"),
    # programmatic dependent launch: the kernel may start while the one before it on the stream
    # finishes, and waits for it where it says so (griddepcontrol.wait)
    "launch_pdl": ("CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION",
                   "programmaticStreamSerializationAllowed"),
}


def launch_config(attributes: tuple[str, ...]) -> Callable:
    """`configure(grid, block_x, shared_bytes, stream)`, which fills in and returns one
    CUlaunchConfig, made once with the attributes named (keys of LAUNCH_ATTRIBUTES) turned on.
    One config serves every launch: the launch holds its lock while it fills and uses it."""
    cuda = _cuda()
    chosen = []
    for option in attributes:
        name, field = LAUNCH_ATTRIBUTES[option]
        attribute = cuda.CUlaunchAttribute()
        attribute.id = getattr(cuda.CUlaunchAttributeID, name)
        setattr(attribute.value, field, 1)
        chosen.append(attribute)
    config = cuda.CUlaunchConfig()
    config.attrs, config.numAttrs = chosen, len(chosen)
    config.blockDimY = config.blockDimZ = 1

    def configure(grid, block_x: int, shared_bytes: int, stream: int):
        config.gridDimX, config.gridDimY, config.gridDimZ = grid
        config.blockDimX, config.sharedMemBytes, config.hStream = block_x, shared_bytes, stream
        return config

    return configure
# --8<-- [end:attributes]


# --8<-- [start:binder]
@functools.lru_cache(maxsize=None)
def _binder(slots: tuple[str, ...], bound: bool = False, extended: bool = False) -> tuple[str, Any]:
    """The source of `launch` for one signature, and its compiled code. Each argument becomes one
    expression in a single `pack_into` call; pointers that are already ints skip the conversion.
    `bound`: the block size and shared bytes are the namespace's, the stream comes from calling
    `stream_of`, and an empty grid launches nothing (the JIT's fast path, one per launch key).
    `extended`: the launch has attributes, and goes through cuLaunchKernelEx."""
    names = [f"a{i}" for i in range(len(slots))]
    maps = [i for i, slot in enumerate(slots) if slot == "tensormap"]  # each encoded by its own
    converted = [f"{a} if {a}.__class__ is int else _pointer_of({a})" if slot == "ptr"
                 else f"_bf16_parameter({a})" if slot == "bf16"
                 else f"_tensormaps[{maps.index(i)}]({a})" if slot == "tensormap" else a
                 for i, (a, slot) in enumerate(zip(names, slots))]
    arguments = ",\n                  ".join(converted)  # one a line, under the first
    if bound:
        head = (f"def launch(stream_of, grid, {''.join(a + ', ' for a in names)}):\n"
                "    if not (grid[0] and grid[1] and grid[2]):\n"
                "        return\n")
        values = f"({''.join(a + ', ' for a in names)})"
        block_x, shared_bytes, stream = "_block_x", "_shared_bytes", "stream_of()"
    else:
        head = ("def launch(grid, block_x, shared_bytes, stream, *values):\n"
                f"    if len(values) != {len(slots)}:\n"
                "        raise _wrong_count(values)\n"
                + (f"    {', '.join(names)}, = values\n" if names else ""))
        values, block_x, shared_bytes, stream = "values", "block_x", "shared_bytes", "stream"
    source = (
        head +
        "    with _lock:\n"
        "        try:\n"
        f"            _pack(_storage, 0,\n                  {arguments})\n"
        "        except _PACK_ERRORS:\n"
        f"            raise _bad_arguments({values}) from None\n"
        + (f"        err, = _cuLaunchKernelEx(_configure(grid, {block_x}, {shared_bytes}, {stream}),\n"
           f"                                 _function, _params, 0)\n" if extended else
           f"        err, = _cuLaunchKernel(_function, grid[0], grid[1], grid[2], {block_x}, 1, 1,\n"
           f"                               {shared_bytes}, {stream}, _params, 0)\n") +
        "    if err:\n"
        f"        raise _launch_failure(err, grid, {block_x}, {shared_bytes})\n"
    )
    return source, compile(source, f"<launcher ({', '.join(slots)})>", "exec")
# --8<-- [end:binder]


# --8<-- [start:parameter-layout]
def parameter_layout(signature: list[str]) -> tuple[struct.Struct, list[int]]:
    """The kernel's parameter buffer for `signature`, laid out as a C struct of the same fields
    (each value at the next multiple of its own size, as `.param` space expects; a tensor map's
    128 bytes anywhere, since the driver copies each parameter from its own pointer): its `struct`
    layout and the offset of each argument."""
    codes = [_struct_code(_slot(kind)) for kind in signature]
    layout = struct.Struct("@" + "".join(codes))
    offsets = [struct.calcsize("@" + "".join(codes[:i + 1])) - struct.calcsize("@" + codes[i])
               for i in range(len(codes))]
    return layout, offsets
# --8<-- [end:parameter-layout]


ONLY_LAUNCH_PACKS = ("fp16", "bf16", "tensormap")  # slots the compiled fast path leaves to `launch`


# --8<-- [start:make-launcher]
def make_launcher(kernel: Kernel, signature: list[str], block_x: int | None = None,
                  shared_bytes: int | None = None, attributes: tuple[str, ...] = (),
                  tensormaps: list[Callable] = ()) -> Callable:
    """A prepared `launch(grid, block_x, shared_bytes, stream, *values)` for `kernel`; given
    `block_x` and `shared_bytes`, a bound `launch(stream_of, grid, *values)` instead. `attributes`
    name launch options that are launch attributes (LAUNCH_ATTRIBUTES) to launch with;
    `tensormaps` encode the "tensormap" parameters' descriptors, in order.

    The argument buffer is laid out once: every value gets a slot at its natural alignment, and the
    array of pointers to the slots (what `cuLaunchKernel` wants as kernelParams) is built once and
    passed by address. The driver copies the values during the call, so the buffer is reused; a
    lock keeps two threads from filling it at once. `grid` is a 3-tuple; `launch.source` is the
    generated code."""
    slots = tuple(_slot(kind) for kind in signature)
    layout, offsets = parameter_layout(signature)
    storage = ctypes.create_string_buffer(layout.size)
    pointers = (ctypes.c_void_p * len(slots))(*(ctypes.addressof(storage) + o for o in offsets))
    described = f"{kernel.name}({', '.join(signature)})"

    def wrong_count(values) -> LaunchError:
        return LaunchError(f"kernel {described} takes {len(slots)} arguments, got {len(values)}")

    def bad_arguments(values) -> LaunchError:
        encoders = iter(tensormaps)
        for i, (slot, value) in enumerate(zip(slots, values)):
            if slot == "tensormap":  # a descriptor the driver could not encode says why
                try:
                    next(encoders)(value)
                except _PACK_ERRORS + (AttributeError,) as error:
                    return LaunchError(f"argument {i} of kernel {described} should be a TensorDescriptor "
                                       f"the driver can encode as a TMA tensor map, got {value!r} ({error})")
                continue
            try:
                struct.pack("@" + _struct_code(slot), _convert(slot, value))
            except LaunchError as error:
                return LaunchError(f"argument {i} of kernel {described}: {error}")
            except _PACK_ERRORS as error:
                return LaunchError(f"argument {i} of kernel {described} should be {signature[i]}, "
                                   f"got {value!r} ({error})")
        return LaunchError(f"kernel {described} cannot take the arguments {values!r}")

    def launch_failure(code, grid, block_x, shared_bytes) -> Exception:
        if code == _cuda().CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
            return LaunchError(f"kernel {kernel.name} was launched with launch_cooperative_grid=True "
                               f"over {tuple(grid)} programs, more than fit on the GPU at once; use a "
                               f"grid of at most the multiprocessors times the programs that fit on one")
        if block_x > kernel.max_threads_per_block:
            return LaunchError(f"kernel {kernel.name} was launched with {block_x} threads per block; "
                               f"it allows at most {kernel.max_threads_per_block}")
        if shared_bytes > max(kernel.shared_bytes, DEFAULT_SHARED_LIMIT - kernel.static_shared_bytes):
            return LaunchError(f"kernel {kernel.name} was launched with {shared_bytes} bytes of shared "
                               f"memory but loaded for {kernel.shared_bytes}; pass shared_bytes to "
                               f"load_module")
        return CudaError(code, f"cuLaunchKernel({kernel.name}, grid={tuple(grid)}, block={block_x})")

    namespace = {
        "_pack": layout.pack_into, "_storage": storage, "_params": ctypes.addressof(pointers),
        "_pointers": pointers, "_kernel": kernel, "_function": kernel.function,
        "_cuLaunchKernel": _cuda().cuLaunchKernel, "_lock": threading.Lock(),
        "_pointer_of": pointer_of, "_bf16_parameter": _bf16_parameter, "_PACK_ERRORS": _PACK_ERRORS,
        "_wrong_count": wrong_count, "_bad_arguments": bad_arguments,
        "_launch_failure": launch_failure, "_block_x": block_x, "_shared_bytes": shared_bytes,
        "_tensormaps": list(tensormaps),
    }
    if attributes:
        namespace.update(_cuLaunchKernelEx=_cuda().cuLaunchKernelEx, _configure=launch_config(attributes))
    source, code = _binder(slots, bound=block_x is not None, extended=bool(attributes))
    exec(code, namespace)
    launch = namespace["launch"]
    launch.source, launch.kernel, launch.signature = source, kernel, list(signature)
    launch.block_x, launch.shared_bytes, launch.attributes = block_x, shared_bytes, tuple(attributes)
    launch.failure = lambda code, grid: launch_failure(_cuda().CUresult(code), grid, block_x,
                                                       shared_bytes)
    # what the compiled fast path packs; '*' it leaves to `launch`
    launch.codes = "".join("P" if s == "ptr" else "*" if s in ONLY_LAUNCH_PACKS else _struct_code(s)
                           for s in slots)
    return launch
# --8<-- [end:make-launcher]


# ----------------------------------------------------------------------------- the compiled fast path

# --8<-- [start:prepared]
@dataclass(frozen=True)
class Prepared:
    """One launch key's launch, in both forms the JIT's binder takes: `launch(grid, *values)` in
    Python, and what the compiled fast path (launcher.c) needs to make the same call itself."""

    launch: Callable  # (grid, *values): the runtime values, `positions` of which the kernel takes
    function: int  # the CUfunction's address
    block_x: int
    shared_bytes: int
    codes: str  # one struct code per kernel parameter: 'P' a pointer, '*' one only `launch` packs
    positions: tuple[int, ...]
    stream_of: Callable[[], int]
    failure: Callable  # (driver error code, grid) -> the exception to raise
    attributes: tuple[str, ...] = ()  # launch attributes: only `launch` makes such a launch, not C


def prepare(bound: Callable, positions: list[int], args: list) -> Prepared:
    """The prepared launch of `bound` (a `make_launcher` with block and shared bytes bound) for the
    launches whose first had `args`: the stream comes from those arguments' device."""
    stream_of = stream_getter(args)
    whole = go = functools.partial(bound, stream_of)
    if positions != list(range(len(positions))):
        go = lambda grid, *values: whole(grid, *[values[i] for i in positions])  # noqa: E731
    return Prepared(go, int(bound.kernel.function), bound.block_x, bound.shared_bytes, bound.codes,
                    tuple(positions), stream_of, bound.failure, bound.attributes)
# --8<-- [end:prepared]


_C_LAUNCHER = Path(__file__).with_name("launcher.c")


@functools.lru_cache(maxsize=None)
def launch_kernel_address() -> int | None:
    """The address of the driver's cuLaunchKernel, for the compiled fast path; None without a driver."""
    try:
        return ctypes.cast(ctypes.CDLL("libcuda.so.1").cuLaunchKernel, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None


# --8<-- [start:compiled-launcher]
@functools.lru_cache(maxsize=None)
def compiled_launcher() -> tuple[Any, str]:
    """(the `_launcher` module built from launcher.c, "") or (None, why not). Built once per source
    and Python with the system C compiler and kept in the cache folder, as Triton builds its own
    launcher; MINITRITON_C_LAUNCHER=0 leaves the fast path in Python. The hooks given to
    `when_launcher_loads` are called once it is loaded."""
    if os.environ.get("MINITRITON_C_LAUNCHER", "1") == "0":
        return None, "MINITRITON_C_LAUNCHER=0"
    tag = hashlib.sha256(_C_LAUNCHER.read_bytes() + sys.version.encode()).hexdigest()[:16]
    path = cache_dir() / "launcher" / f"_launcher-{tag}{sysconfig.get_config_var('EXT_SUFFIX')}"
    for attempt in range(2):
        if not _intact(path):  # build it: the first time on this machine, source and Python (or damaged)
            why = _build_launcher(path)
            if why:
                return None, why
        try:
            loader = importlib.machinery.ExtensionFileLoader("_launcher", str(path))
            module = importlib.util.module_from_spec(importlib.util.spec_from_loader("_launcher", loader))
            loader.exec_module(module)
        except (ImportError, OSError) as error:  # a damaged file, or a folder in its place:
            remove(path)  # built again, once
            why = f"the built launcher would not load: {error}"
            continue
        for hook in _LOAD_HOOKS:
            hook(module)
        return module, ""
    return None, why


_LOAD_HOOKS: list[Callable] = []


def when_launcher_loads(hook: Callable) -> None:
    """Call `hook(module)` when the compiled launcher loads (at once, if it has loaded already)."""
    _LOAD_HOOKS.append(hook)
    if compiled_launcher.cache_info().currsize:
        module = compiled_launcher()[0]
        if module is not None:
            hook(module)


def _intact(path: Path) -> bool:
    """Whether the launcher built at `path` is whole: loading a truncated shared object can kill the
    process (SIGBUS), so its sha256, written beside it when it was built, is checked first."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == _digest_of(path).read_text()
    except OSError:
        return False


def _digest_of(path: Path) -> Path:
    return path.with_name(f"{path.name}.sha256")


def _build_launcher(path: Path) -> str:
    """Compile launcher.c to `path`; "" on success, else why not."""
    compiler = shutil.which(os.environ.get("CC", "cc"))
    include = sysconfig.get_paths()["include"]
    if compiler is None or not os.path.exists(os.path.join(include, "Python.h")):
        return f"no C compiler or no Python.h in {include}"
    try:
        make_folder(path.parent)
    except OSError as error:
        return f"cannot write {path.parent}: {error}"
    scratch = path.with_name(f".{os.getpid()}-{path.name}")
    built = subprocess.run([compiler, "-O2", "-shared", "-fPIC", f"-I{include}", str(_C_LAUNCHER),
                            "-o", str(scratch)],
                           capture_output=True, text=True)
    if built.returncode:
        return f"{compiler} failed on launcher.c: {built.stderr.strip()[-400:]}"
    _digest_of(scratch).write_text(hashlib.sha256(scratch.read_bytes()).hexdigest())
    os.replace(_digest_of(scratch), _digest_of(path))
    if path.is_dir():  # a folder in its place, which nothing could replace
        remove(path)
    os.replace(scratch, path)  # whole, so another process never loads half a file
    return ""
# --8<-- [end:compiled-launcher]


def fast_path(plain: list[bool], launch_key: Callable, grid3: Callable):
    """The compiled fast path of one @jit function with these runtime parameters (`plain`: not
    specialized), or None where there is no driver or no compiled launcher. It reads a torch
    tensor in C where torch is loaded, and any other argument through `launch_key`."""
    address = launch_kernel_address()
    module = compiled_launcher()[0] if address else None
    if module is None or len(plain) > 64:
        return None
    torch = sys.modules.get("torch")
    tensor_type = torch.Tensor if torch is not None else _NoTensor
    return module.FastPath(address, tensor_type, launch_key, grid3, "".join("p" if p else "s" for p in plain))


class _NoTensor:
    """The tensor type where torch is not loaded: no argument is one."""
