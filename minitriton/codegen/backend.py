"""The CUDA backend: tile IR -> layouts -> shared memory -> barriers -> LLVM -> PTX -> cubin -> launch.

`compile` runs the GPU passes on simplified tile IR, keeps each stage's text in `asm`, and (when a
GPU is here) loads the cubin with the driver and prepares the launch. With `target="sm_90"` (or
any arch) and no GPU, it stops after ptxas: `kernel.warmup(..., target="sm_90")` shows the PTX a
GPU would run. The on-disk cache keeps the PTX and cubin of every specialization. Chapter: 09-ptx-driver-cache.
"""
from __future__ import annotations

from .. import cache, driver, ir, launcher
from ..errors import LaunchError
from ..kernel import CompiledKernel
from ..passes.barriers import insert_barriers
from ..passes.coalesce import coalesce
from ..passes.layout import assign_layouts
from ..passes.pipeline import pipeline
from ..passes.shared import assign_shared
from ..specialize import key_json
from . import llvm, ptx


class CUDABackend:
    def __init__(self, target: str):
        self.target = target  # "cuda" (the GPU that is here) or an arch such as "sm_90"

    def arch(self) -> str:
        if self.target != "cuda":
            return self.target
        if not driver.is_available():
            raise LaunchError("no NVIDIA GPU or CUDA driver here: set MINITRITON_INTERPRET=1 to run "
                              "kernels in the numpy interpreter, or warmup(..., target='sm_90') to "
                              "compile without running")
        arch = driver.device_properties().arch
        return "sm_90a" if arch == "sm_90" else arch  # Hopper's own instructions (wgmma) need sm_90a

    # --8<-- [start:stages]
    def compile(self, jit_fn, tile_ir, specs, constexprs, options):
        arch = self.arch()
        key = cache.make_key(source=jit_fn.cache_key, signature=[[n, key_json(k)] for n, k in specs.items()],
                             constexprs=[[n, repr(v)] for n, v in constexprs.items()],
                             options=[options.num_warps, options.num_stages], target=arch)
        artifacts = cache.get_or_compile(key, lambda: self.build(tile_ir(), options, arch))
        meta = dict(artifacts.metadata)
        kernel = CompiledKernel(meta["name"], dict(artifacts.asm), meta["runtime_args"], meta)
        if self.target == "cuda":
            signature = [ir.dtype_named(name) for name in meta["signature"]]
            kernel.launcher = self.launcher(kernel.name, kernel.asm, meta, signature, options.num_warps)
        return kernel

    def build(self, fn: ir.Function, options, arch: str) -> cache.Artifacts:
        """The GPU stages, in order, from simplified tile IR to a cubin; each stage's text is kept."""
        asm = {"ttir": ir.print_function(fn)}
        metadata = {"name": fn.name, "runtime_args": [a.name for a in fn.args],
                    "signature": [a.dtype.name for a in fn.args], "num_warps": options.num_warps, "arch": arch}
        vectors = coalesce(fn, options.num_warps)
        assign_layouts(fn, options.num_warps, vectors, arch)
        pipeline(fn, options.num_stages)
        assign_shared(fn)
        insert_barriers(fn)
        asm["layout"] = ir.print_function(fn)
        asm["llir"] = llvm.lower(fn, options.num_warps, arch)
        asm["ptx"] = ptx.llvm_to_ptx(asm["llir"], arch)
        metadata["shared_bytes"] = fn.attrs.get("shared_bytes", 0)
        if ptx.ptxas_path():
            asm["cubin"], usage = ptx.ptx_to_cubin(asm["ptx"], arch)
            metadata.update(registers=usage.registers, spill_stores=usage.spill_stores,
                            spill_loads=usage.spill_loads)
        return cache.Artifacts(asm, metadata)
    # --8<-- [end:stages]

    # --8<-- [start:launcher]
    def launcher(self, name: str, asm: dict, metadata: dict, signature: list[ir.DType], num_warps: int):
        """Load the module once; each launch converts the arguments and calls the prepared launch."""
        image = asm.get("cubin") or asm["ptx"]
        shared = metadata["shared_bytes"]
        module = driver.load_module(image, name, shared)
        kinds = ["ptr" if d.is_ptr() else d.name for d in signature]
        block = 32 * num_warps
        launch = launcher.make_launcher(module, kinds)
        bound = launcher.make_launcher(module, kinds, block_x=block, shared_bytes=shared)

        def check(args):
            for arg, dtype in zip(args, signature):
                if dtype.is_ptr():
                    driver.pointer_of(arg, check_device=True)

        def run(grid, args):
            check(args)
            if grid[0] and grid[1] and grid[2]:  # an empty grid launches nothing
                launch(grid, block, shared, driver.current_stream(args), *args)

        def prepared(positions, args):
            """One launch key's fast path: `bound` with the stream `args` call for (checked by
            `run` on the key's first launch), taking the values at `positions`."""
            return launcher.prepare(bound, positions, args)

        run.prepared = prepared
        run.module = module
        return run
    # --8<-- [end:launcher]
