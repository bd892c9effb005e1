"""What a compile is asked for and what it gives: `Options` in, a `CompiledKernel` out.

Plain data between the JIT, the compiler and the backends. `Options` are the launch options a
kernel is compiled and launched with. A `CompiledKernel` holds one specialization of a kernel:
the text (or bytes) of every stage it went through, in `asm`, the names of the parameters it is
launched with, its `KernelMetadata`, and the backend's `launcher`, made (the module loaded) the
first time it is needed. It answers what Triton's compiled kernel answers (`n_regs`, `n_spills`,
`metadata.shared`, `_init_handles()`, `kernel[grid](*args)`), so host code written for Triton,
such as the occupancy arithmetic of Triton's softmax tutorial, runs on it.
Chapter: 01-introduction (the kernel a launch returns), 09-ptx-driver-cache (handles, registers).
"""
from __future__ import annotations

import dataclasses
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import specialize
from .errors import LaunchError, user_facing

WARP_SIZE = 32

# os.environ's own dictionary, read directly: `os.environ.get` encodes the name and decodes the
# value on every call, a tenth of a launch's host time
_ENVIRON = getattr(os.environ, "_data", None)
INTERPRET_VARIABLES = ("MINITRITON_INTERPRET", "TRITON_INTERPRET")  # the C binder reads them too
_KEYS = tuple(os.environ.encodekey(k) if _ENVIRON is not None else k for k in INTERPRET_VARIABLES)
_OFF = (None, "", "0", b"", b"0")


def interpreting() -> bool:
    """MINITRITON_INTERPRET=1 (or Triton's TRITON_INTERPRET=1, when ours is not set) runs kernels in
    the numpy interpreter; read at every launch."""
    environ = _ENVIRON if _ENVIRON is not None else os.environ
    ours = environ.get(_KEYS[0])
    return (ours if ours is not None else environ.get(_KEYS[1])) not in _OFF


# --8<-- [start:options]
@dataclass(frozen=True)
class Options:
    """How a kernel is compiled and launched: Triton's launch options, and where it runs."""

    num_warps: int = 4  # threads per program = 32 * num_warps
    num_stages: int = 3  # how far ahead a loop's loads are issued (software pipelining)
    num_ctas: int = 1  # thread blocks per program (Triton's clusters); minitriton launches one
    maxnreg: int | None = None  # at most this many registers per thread (PTX .maxnreg)
    launch_cooperative_grid: bool = False  # every program resident at once (cooperative launch)
    launch_pdl: bool = False  # may start before the previous kernel on the stream ends (PDL)
    extern_libs: tuple[tuple[str, str], ...] = ()  # (name, bitcode path): "libdevice" replaces NVIDIA's
    enable_fp_fusion: bool = True  # the GPU may fuse a float multiply and add into one fma (Triton's default)
    target: str = "cuda"  # "interpreter", "cuda" (the GPU that is here) or an arch such as "sm_90"

    def recorded(self) -> dict[str, Any]:
        """The options a compiled kernel's metadata records (all but the target)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "target"}
# --8<-- [end:options]


def launch_options(num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, launch_cooperative_grid=False,
                   launch_pdl=False, extern_libs=None, enable_fp_fusion=True) -> Options:
    """The launch options, checked, as the compiler takes them (the target is the caller's to fill).
    An option given as None takes its default, as in Triton; a count may be a numpy integer."""
    num_warps = _count("num_warps", num_warps, 4, lambda n: 1 <= n <= 32 and not n & (n - 1))
    num_stages = _count("num_stages", num_stages, 3, lambda n: n >= 0)
    maxnreg = _count("maxnreg", maxnreg, None, lambda n: n >= 1)
    return Options(num_warps=num_warps, num_stages=num_stages, num_ctas=1 if num_ctas is None else num_ctas,
                   maxnreg=maxnreg, launch_cooperative_grid=bool(launch_cooperative_grid),
                   launch_pdl=bool(launch_pdl), extern_libs=_libraries(extern_libs),
                   enable_fp_fusion=True if enable_fp_fusion is None else bool(enable_fp_fusion))


def _libraries(extern_libs) -> tuple[tuple[str, str], ...]:
    """Triton's `extern_libs={"libdevice": path}` as sorted (name, path) pairs, each path a file."""
    if not extern_libs:
        return ()
    pairs = extern_libs.items() if isinstance(extern_libs, Mapping) else extern_libs
    try:
        pairs = sorted((str(name), os.fspath(path)) for name, path in pairs)
    except (TypeError, ValueError):
        raise LaunchError(f"extern_libs must map a library's name to its bitcode file, such as "
                          f"{{'libdevice': '/path/libdevice.10.bc'}}, got {extern_libs!r}") from None
    for name, path in pairs:
        if not os.path.isfile(path):
            raise LaunchError(f"extern_libs[{name!r}] is {path!r}, which is not a file: give the path of "
                              f"the library's LLVM bitcode (.bc)")
    return tuple(pairs)


# What each option that counts something must be, in the words of its error (Triton's for num_warps).
COUNTS = {"num_warps": "a power of 2 from 1 to 32 (a program is num_warps warps of 32 threads)",
          "num_stages": "an int >= 0 (0 or 1: loads are not pipelined)",
          "maxnreg": "a positive int (registers per thread) or None"}


def _count(name: str, value, default, valid: Callable[[int], bool]):
    """An option that counts something, as a Python int: an int or a numpy integer, never a bool
    (True is no number of warps), for which `valid` holds; None is the default."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not valid(int(value)):
        raise LaunchError(f"{name} must be {COUNTS[name]}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class GPUTarget:
    """What a kernel is compiled for, as Triton names it: `GPUTarget("cuda", 90, 32)`."""

    backend: str
    arch: int | str  # the compute capability as one number (90 for sm_90)
    warp_size: int

    @property
    def cuda_arch(self) -> str:
        """The arch the code is for, as Triton names it: from Hopper on, the arch's own
        instructions (`sm_90a`: wgmma) are used, so the name takes the `a`."""
        if self.backend != "cuda" or not isinstance(self.arch, int):
            raise LaunchError(f"{self}: minitriton compiles for NVIDIA GPUs only, GPUTarget(\"cuda\", 90, 32) say")
        return f"sm_{self.arch}{'a' if self.arch >= 90 else ''}"


# What the interpreter reports as its target on a machine without a GPU: it runs Triton's CUDA
# semantics, so host code that picks its configurations by target (`is_cuda()`) takes the CUDA
# path, and the arch is the oldest minitriton compiles for.
INTERPRETER_TARGET = GPUTarget("cuda", 80, WARP_SIZE)


# --8<-- [start:metadata]
@dataclass(frozen=True)
class KernelMetadata(Mapping):
    """What the compiler recorded about one compiled kernel. Read a field as an attribute
    (`metadata.num_warps`, Triton's way) or as an item (`metadata["shared_bytes"]`); Triton's
    own names `shared`, `target` and `warp_size` are attributes too. What a backend does not know
    (the interpreter's registers, or a kernel compiled without ptxas) is None."""

    name: str
    backend: str = "cuda"  # "cuda" or "interpreter"
    arch: str | None = None  # the arch the code is for ("sm_90a"); None in the interpreter
    runtime_args: tuple[str, ...] = ()  # the parameters passed at launch, in order
    signature: tuple[str, ...] = ()  # the dtype of each of them ("ptr<fp32>", "int32", ...)
    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    maxnreg: int | None = None  # the register limit asked for, or None
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    extern_libs: tuple[tuple[str, str], ...] = ()
    enable_fp_fusion: bool = True
    shared_bytes: int = 0  # dynamic shared memory per program
    registers: int | None = None  # per thread, as ptxas reports it
    spill_stores: int | None = None  # bytes per thread stored to local memory for lack of registers
    spill_loads: int | None = None
    stack_frame: int | None = None  # local memory per thread: spills and the stack
    # the descriptor parameters passed (after the others) as TMA tensor maps: (name, dtype, box, swizzle)
    tensormaps: tuple[tuple[str, str, tuple[int, int], int], ...] = ()

    def __post_init__(self):
        for name in ("runtime_args", "signature"):  # lists when read back from the disk cache
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "tensormaps", tuple((name, dtype, tuple(box), swizzle)
                                                     for name, dtype, box, swizzle in self.tensormaps))
        object.__setattr__(self, "extern_libs", tuple(tuple(pair) for pair in self.extern_libs))

    @property
    def shared(self) -> int:
        """Triton's name for `shared_bytes`."""
        return self.shared_bytes

    @property
    def warp_size(self) -> int:
        return WARP_SIZE

    @property
    def target(self) -> GPUTarget | None:
        """The arch as Triton's GPUTarget (None in the interpreter)."""
        if self.arch is None:
            return None
        return GPUTarget("cuda", int(self.arch[3:].rstrip("a")), WARP_SIZE)

    def replace(self, **changes) -> KernelMetadata:
        return dataclasses.replace(self, **changes)

    def __getitem__(self, key: str):
        if key not in _METADATA_FIELDS:
            raise KeyError(f"{key!r}: compiled kernels' metadata has {', '.join(_METADATA_FIELDS)}")
        return getattr(self, key)

    def __iter__(self):
        return iter(_METADATA_FIELDS)

    def __len__(self) -> int:
        return len(_METADATA_FIELDS)
# --8<-- [end:metadata]


_METADATA_FIELDS = tuple(f.name for f in dataclasses.fields(KernelMetadata))


# --8<-- [start:grid]
# The most programs CUDA launches along each axis of a grid (gridDim.x, .y, .z).
GRID_LIMITS = (2**31 - 1, 65535, 65535)


def grid3(grid) -> tuple[int, int, int]:
    """`grid` as (x, y, z), checked before any backend runs it: an int, or a tuple (a list, a
    1-d numpy array) of 1 to 3 ints, each at least 0 (a grid with a 0 launches nothing, as in
    Triton) and at most CUDA's limit for its axis. The common `(n,)` is answered first."""
    if grid.__class__ is tuple and len(grid) == 1 and grid[0].__class__ is int \
            and 0 <= grid[0] <= GRID_LIMITS[0]:
        return (grid[0], 1, 1)
    if isinstance(grid, numbers.Integral) and not isinstance(grid, bool):
        grid = (grid,)
    if not isinstance(grid, (tuple, list, np.ndarray)) \
            or np.ndim(grid) > 1 and isinstance(grid, np.ndarray) or not 1 <= len(grid) <= 3:
        raise LaunchError(f"the grid must be 1 to 3 non-negative sizes, got {_shown(grid)}; write a tuple "
                          f"of ints, or a function of the launch's arguments that returns one: "
                          f"lambda meta: (triton.cdiv(n, meta['BLOCK']),)")
    for axis, size in enumerate(grid):
        if isinstance(size, bool) or not isinstance(size, numbers.Integral):
            raise LaunchError(f"the grid must be 1 to 3 non-negative sizes, got {_shown(grid)}: size "
                              f"{'xyz'[axis]} is a {type(size).__name__}, not an int; count programs "
                              f"with triton.cdiv(n, BLOCK), an int (n / BLOCK is a float)")
        if not 0 <= size <= GRID_LIMITS[axis]:
            raise LaunchError(f"the grid must be 1 to 3 non-negative sizes, at most {GRID_LIMITS} (CUDA's "
                              f"limits), got {_shown(grid)}: size {'xyz'[axis]} is {int(size)}; give each "
                              f"program more of the work, or put the largest size first")
    return tuple(int(size) for size in grid) + (1,) * (3 - len(grid))
# --8<-- [end:grid]


def _shown(grid) -> str:
    return repr(grid) if isinstance(grid, (tuple, list)) else f"{type(grid).__name__} {grid!r}"


@dataclass
class CompiledKernel:
    """One specialization of a kernel, compiled: its stages' text and a way to launch it.

    `launcher(grid, args)` (or `(grid, args, stream)`) runs it; a backend that loads code onto a
    device gives a `loader` instead, which makes the launcher the first time one is needed
    (`_init_handles`, as Triton's compiled kernels load lazily)."""

    name: str
    asm: dict[str, Any]
    runtime_args: list[str]  # the parameters passed at launch, in order
    metadata: KernelMetadata | dict | None = None
    launcher: Any = None
    loader: Callable[[], Any] | None = None
    arg_names: list[str] = field(default_factory=list)  # every parameter, constexprs included
    globals_read: tuple = ()  # the module-level values it was compiled with (frontend.GlobalRead)

    def __post_init__(self):
        if not isinstance(self.metadata, KernelMetadata):
            self.metadata = KernelMetadata(**{"name": self.name, "runtime_args": tuple(self.runtime_args),
                                              **(self.metadata or {})})

    # --8<-- [start:init-handles]
    def _init_handles(self) -> None:
        """Load the kernel onto the current GPU unless it is loaded (Triton's name for this)."""
        if self.launcher is None and self.loader is not None:
            self.launcher = self.loader()

    def launch(self, grid: tuple[int, int, int], args: list, stream: int | None = None) -> None:
        if self.launcher is None:
            self._init_handles()
        if stream is None:
            self.launcher(grid, args)
        else:
            self.launcher(grid, args, stream)
    # --8<-- [end:init-handles]

    def prepared(self, positions: list[int], args: list) -> Any:
        """The JIT's fast path for one key (a `launcher.Prepared`): `.launch(grid, *values)`, `values`
        being the launch's non-constexpr parameters in order, of which `positions` are this
        kernel's (a None argument became a constant and is left out); `args` are the first
        launch's arguments. None where the backend has no such path (the interpreter)."""
        prepare = getattr(self.launcher, "prepared", None)
        return prepare(positions, args) if prepare is not None else None

    # --8<-- [start:subscript]
    def __getitem__(self, grid):
        """`compiled[grid](*args, stream=None)`, as Triton's: `args` are the runtime arguments, or
        every argument the kernel takes (constexprs included, and left out here)."""
        grid = grid3(grid)
        return user_facing(lambda *args, stream=None: self.launch(grid, self.runtime_values(args), stream))

    def runtime_values(self, args: tuple) -> list:
        if len(args) == len(self.runtime_args):
            return list(args)
        if self.arg_names and len(args) == len(self.arg_names):
            return specialize.runtime_values(dict(zip(self.arg_names, args)), self.runtime_args)
        every = f" or all {len(self.arg_names)} ({', '.join(self.arg_names)})" if self.arg_names else ""
        raise LaunchError(f"compiled kernel {self.name} takes its {len(self.runtime_args)} runtime "
                          f"arguments ({', '.join(self.runtime_args)}){every}; got {len(args)}")
    # --8<-- [end:subscript]

    # --8<-- [start:handles]
    # Triton's names for what the driver reports once the kernel is loaded; before that (or
    # without a GPU) what ptxas reported, and 0 where nothing is known (the interpreter).
    @property
    def n_regs(self) -> int:
        """Registers per thread."""
        loaded = self._loaded()
        return loaded.num_regs if loaded is not None else self.metadata.registers or 0

    @property
    def n_spills(self) -> int:
        """Local memory per thread in 4-byte words (spilled registers), as Triton counts them."""
        loaded = self._loaded()
        return (loaded.local_bytes if loaded is not None else self.metadata.stack_frame or 0) // 4

    @property
    def n_max_threads(self) -> int:
        """The most threads a program of this kernel may have."""
        loaded = self._loaded()
        return loaded.max_threads_per_block if loaded is not None else self.metadata.num_warps * WARP_SIZE

    @property
    def module(self) -> int | None:
        """The CUmodule handle (an int), once loaded; None in the interpreter."""
        loaded = self._loaded()
        return int(loaded.module) if loaded is not None else None

    @property
    def function(self) -> int | None:
        """The CUfunction handle (an int), once loaded; None in the interpreter."""
        loaded = self._loaded()
        return int(loaded.function) if loaded is not None else None

    def _loaded(self):
        """The driver's loaded kernel (`driver.Kernel`) behind the launcher, if there is one."""
        return getattr(self.launcher, "module", None)
    # --8<-- [end:handles]
