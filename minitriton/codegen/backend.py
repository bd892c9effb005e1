"""The CUDA backend: tile IR -> layouts -> shared memory -> barriers -> LLVM -> PTX -> cubin -> launch.

`compile` runs the GPU passes on simplified tile IR, keeps each stage's text in `asm`, and gives the
compiled kernel a loader: the first launch (or `_init_handles()`) loads the cubin with the driver
onto the current GPU and prepares the launch. With `target="sm_90"` (or any arch) no GPU is
needed: `kernel.warmup(..., target="sm_90")` shows the PTX a GPU would run, and loading it needs a
GPU of that arch. The on-disk cache keeps the PTX and cubin of every specialization.
Chapter: 09-ptx-driver-cache.
"""
from __future__ import annotations

import contextlib
import functools
import warnings

from .. import cache, driver, exercise_hooks, ir, launcher
from ..dtypes import FACTS
from ..errors import CompilationError, LaunchError, OutOfResources, SlowCompileWarning
from ..kernel import CompiledKernel, KernelMetadata
from ..passes.barriers import insert_barriers
from ..passes.coalesce import coalesce
from ..passes.layout import assign_layouts
from ..passes.pipeline import pipeline
from ..passes.prefetch import prefetch
from ..passes.shared import assign_shared
from ..specialize import NoStableKey, key_json
from . import link, llvm, ptx, toolkit

NO_GPU = ("no NVIDIA GPU or CUDA driver here: set MINITRITON_INTERPRET=1 to run kernels in the numpy "
          "interpreter, or warmup(..., target='sm_90') to compile without running")


class CUDABackend:
    def __init__(self, target: str):
        self.target = target  # "cuda" (the GPU that is here) or an arch such as "sm_90"

    def arch(self) -> str:
        if self.target != "cuda":
            return self.target
        if not driver.is_available():
            raise LaunchError(NO_GPU)
        return driver.current_target().cuda_arch

    # --8<-- [start:stages]
    def compile(self, jit_fn, tile_ir, specs, constexprs, options):
        arch = self.arch()
        try:
            key = cache.make_key(source=jit_fn.cache_key,
                                 signature=[[n, key_json(k)] for n, k in specs.items()],
                                 constexprs=[[n, key_json(v)] for n, v in constexprs.items()],
                                 options=[options.num_warps, options.num_stages, options.maxnreg,
                                          options.enable_fp_fusion], target=arch,
                                 toolkit=toolkit.versions(), libraries=link.fingerprint(options.extern_libs))
        except NoStableKey:
            key = None  # it depends on an object another process could not compare: never on disk
        artifacts = cache.get_or_compile(key, lambda: self.build(tile_ir(), options, arch))
        meta = {**artifacts.metadata, **options.recorded()}
        kernel = CompiledKernel(meta["name"], dict(artifacts.asm), meta["runtime_args"], meta,
                                arg_names=list(jit_fn.arg_names))
        kernel.loader = functools.partial(self.launcher, kernel.name, kernel.asm, kernel.metadata)
        return kernel

    def build(self, fn: ir.Function, options, arch: str) -> cache.Artifacts:
        """The GPU stages, in order, from simplified tile IR to a cubin; each stage's text is kept."""
        asm = {"ttir": ir.print_function(fn)}
        metadata = {"name": fn.name, "runtime_args": [a.name for a in fn.args],
                    "signature": [a.dtype.name for a in fn.args], "num_warps": options.num_warps,
                    "arch": arch}
        check_types(fn, arch)
        with internal_errors(fn, arch):
            vectors = coalesce(fn, options.num_warps)
            assign_layouts(fn, options.num_warps, vectors, arch)
            warn_of_long_straight_lines(fn, options.num_warps)
            pipeline(fn, options.num_stages, arch)
            prefetch(fn, options.num_stages, options.num_warps)
            assign_shared(fn)
            insert_barriers(fn)
            asm["layout"] = ir.print_function(fn)
            asm["llir"] = llvm.lower(fn, options.num_warps, arch, maxnreg=options.maxnreg)
        # the descriptors TMA copies read are passed again, after the arguments, as tensor maps
        maps = fn.attrs.get("tensormaps", {})
        metadata["tensormaps"] = [[name, m["dtype"], m["box"], m["swizzle"]] for name, m in maps.items()]
        metadata["runtime_args"] += list(maps)
        libraries = {op.attrs["libpath"] for op in fn.walk() if "libpath" in op.attrs}
        chosen = dict(options.extern_libs)  # Triton's extern_libs: "libdevice" replaces NVIDIA's
        libdevice = chosen.pop("libdevice", None)
        linked = tuple(sorted(libraries | set(chosen.values())))
        asm["ptx"] = ptx.llvm_to_ptx(asm["llir"], arch, linked, libdevice)
        metadata["shared_bytes"] = fn.attrs.get("shared_bytes", 0)
        if ptx.ptxas_path():
            asm["ptx"], asm["cubin"], usage = ptx.assemble(asm["ptx"], arch, 32 * options.num_warps,
                                                           capped=options.maxnreg is not None)
            metadata.update(registers=usage.registers, spill_stores=usage.spill_stores,
                            spill_loads=usage.spill_loads, stack_frame=usage.stack_frame)
        return cache.Artifacts(asm, metadata)
    # --8<-- [end:stages]


    # --8<-- [start:launcher]
    def launcher(self, name: str, asm: dict, metadata: KernelMetadata):
        """Load the module onto the current GPU; each launch converts the arguments and calls the
        prepared launch (through cuLaunchKernelEx where the options ask for launch attributes)."""
        check_device(metadata)
        shared = metadata.shared_bytes
        try:
            module = driver.load_module(asm.get("cubin") or asm["ptx"], name, shared)
        except driver.CudaError:
            if "cubin" not in asm:
                raise
            # a cubin from a ptxas newer than this driver: the driver assembles the PTX itself
            module = driver.load_module(asm["ptx"], name, shared)
        signature = [ir.dtype_named(dtype) for dtype in metadata.signature]
        kinds = ["ptr" if d.is_ptr() else d.name for d in signature] + ["tensormap"] * len(metadata.tensormaps)
        encoders = [functools.partial(driver.encode_tensormap, dtype=dtype, box=box, swizzle=swizzle)
                    for _, dtype, box, swizzle in metadata.tensormaps]
        block = 32 * metadata.num_warps
        attributes = tuple(a for a in launcher.LAUNCH_ATTRIBUTES if metadata[a])
        launch = launcher.make_launcher(module, kinds, attributes=attributes, tensormaps=encoders)
        bound = launcher.make_launcher(module, kinds, block_x=block, shared_bytes=shared,
                                       attributes=attributes, tensormaps=encoders)

        def check(args):
            for arg, dtype in zip(args, signature):
                if dtype.is_ptr():
                    driver.pointer_of(arg, check_device=True)

        def run(grid, args, stream=None):
            check(args)
            if grid[0] and grid[1] and grid[2]:  # an empty grid launches nothing
                launch(grid, block, shared, driver.current_stream(args) if stream is None else stream, *args)

        def prepared(positions, args):
            """One launch key's fast path: `bound` with the stream `args` call for (checked by
            `run` on the key's first launch), taking the values at `positions`."""
            return launcher.prepare(bound, positions, args)

        run.prepared = prepared
        run.module = module
        return run
    # --8<-- [end:launcher]


# LLVM's and ptxas's time on straight-line code grows with the square of its length: on one core,
# 2048 registers per thread take about 40 s to compile, 8192 about 9 minutes (Triton 3.6: 2.8 times
# as long at 2048).
SLOW_REGISTERS = 2048


def warn_of_long_straight_lines(fn: ir.Function, num_warps: int) -> None:
    """Warn, at the first such line, of tiles that put SLOW_REGISTERS elements or more in each thread."""
    long = [(op.loc, v, count) for op in fn.walk() for v in op.results
            if v.type.is_tile and v.layout is not None
            and (count := v.layout.registers_per_thread(v.shape)) >= SLOW_REGISTERS]
    if not long:
        return
    loc, v, count = min(long, key=lambda found: found[0].line if found[0] else 1 << 30)
    warnings.warn_explicit(
        f"{f'{loc}: ' if loc else ''}this {'x'.join(map(str, v.shape))} tile puts {count} elements in "
        f"each of the {32 * num_warps} threads, a register each in straight-line code, whose compile "
        f"time grows with the square of that count (about 40 s at 2048, 9 minutes at 8192)\n"
        f"  hint: loop over smaller tiles, or raise num_warps",
        SlowCompileWarning, loc.file if loc else "<kernel>", loc.line if loc else 0)


@contextlib.contextmanager
def internal_errors(fn: ir.Function, arch: str):
    """A failure inside the GPU stages is the compiler's bug, not the kernel's: it becomes a
    CompilationError at the op being lowered (or the kernel's first line) that says so and how to
    go on, with the compiler's own traceback kept as its cause."""
    try:
        yield
    except (CompilationError, OutOfResources):
        raise
    except Exception as error:
        loc = getattr(error, "minitriton_loc", None) or fn.loc
        pieces = ", ".join(name for name, _ in exercise_hooks.installed())
        hint = (f"the compiler ran your own {pieces} (exercise mode): look there first" if pieces else
                "the kernel may well be correct: this is a bug in minitriton. The interpreter "
                "(MINITRITON_INTERPRET=1) runs it meanwhile; another num_warps or num_stages may "
                "avoid the failing path")
        raise CompilationError(loc, f"internal compiler error while compiling for {arch}: "
                               f"{type(error).__name__}: {error}", hint) from error


# --8<-- [start:check-device]
def check_device(metadata: KernelMetadata) -> None:
    """Refuse, before the driver does, to load a kernel where it cannot run: no GPU, a GPU of
    another arch than the code's, or launch options this GPU does not have."""
    if not driver.is_available():
        raise LaunchError(f"kernel {metadata.name} was compiled for {metadata.arch}; running it needs "
                          f"a GPU: {NO_GPU}")
    here = driver.device_properties().arch
    if metadata.arch.rstrip("a") != here:
        raise LaunchError(f"kernel {metadata.name} was compiled for {metadata.arch} and this GPU is "
                          f"{here}; compile it for this GPU (leave out warmup's target)")
    if metadata.launch_pdl and int(here[3:]) < 90:
        raise LaunchError(f"launch_pdl=True: programmatic dependent launch needs sm_90 or newer, and "
                          f"this GPU is {here}; leave launch_pdl out")
# --8<-- [end:check-device]


# --8<-- [start:check-types]
def check_types(fn: ir.Function, arch: str) -> None:
    """Refuse an element type this arch does not have (the dtype table's `cuda` column: fp8e4nv
    needs sm_89, AMD's fp8s no NVIDIA GPU has), at the first op or argument that uses it."""
    number = int(arch[3:].rstrip("a"))
    supported = tuple(sorted(r.signature for r in FACTS.values() if r.dtype.is_fp8() and r.cuda is not None
                             and r.cuda <= number))
    uses = [(v, fn.loc) for v in fn.args] + [(v, op.loc) for op in fn.walk() for v in op.results]
    for value, loc in uses:
        dtype = value.dtype.element_ty
        oldest = FACTS[dtype.name].cuda if dtype.kind != "ptr" else 0
        if oldest is None or oldest > number:
            where = "no NVIDIA GPU" if oldest is None else f"sm_{oldest} and newer GPUs"
            raise CompilationError(loc, f"type {dtype} not supported in this architecture ({arch}). The supported "
                                   f"fp8 dtypes are {supported}", f"{dtype} exists on {where}; the interpreter "
                                   "(MINITRITON_INTERPRET=1) runs it anywhere")
# --8<-- [end:check-types]
