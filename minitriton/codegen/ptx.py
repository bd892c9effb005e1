"""The last codegen stage: LLVM IR text -> PTX -> cubin.

It reads the per-thread LLVM IR that `codegen/llvm.py` writes (text, one module, one kernel) and
produces, first, PTX through LLVM's own NVPTX back end (llvmlite), then, when NVIDIA's `ptxas` is
installed, a cubin together with the resources the kernel uses: registers per thread, bytes spilled
to local memory, stack frame and static shared memory. The cubin is what the driver loads; without
`ptxas` the driver can load the PTX itself and compile it when the module loads. Both steps
reject broken input with a `BackendError` that names the stage and points at the offending line.
Chapter: 09-ptx-driver-cache.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, fields

import llvmlite.binding as llvm

from ..errors import TritonError
from .link import LibraryNotFound, link_libraries
from .toolkit import ptxas_path

TRIPLE = "nvptx64-nvidia-cuda"
OPT_LEVEL = 3

# --8<-- [start:ptx-version]
# The PTX ISA version asked of LLVM for each GPU it may target: the lowest version that has the
# target, and 8.0 at least, because `wgmma` (which sm_90a kernels use through inline PTX) first
# appears in PTX 8.0; Hopper's 8.1, for the vector atomic adds (`atom.add.v8.bf16`). Lower is
# better: an older driver can still load the PTX. An arch LLVM does
# not know, or a version below its minimum, aborts the whole process inside LLVM, so an arch must
# be in this table before a target machine is made for it.
PTX_VERSION = {
    "sm_75": 80, "sm_80": 80, "sm_86": 80, "sm_87": 80, "sm_89": 80, "sm_90": 81, "sm_90a": 81,
    "sm_100": 86, "sm_100a": 86, "sm_103": 88, "sm_103a": 88,
    "sm_120": 87, "sm_120a": 87, "sm_121": 88, "sm_121a": 88,
}
# --8<-- [end:ptx-version]


class BackendError(TritonError, RuntimeError):
    """LLVM or ptxas rejected a module, or a library it calls is missing. `stage` says which step:
    "llvm-parse", "llvm-verify", "libdevice", "ptxas"; the message quotes the tool's own words and
    the line they name."""

    def __init__(self, stage: str, message: str):
        self.stage = stage
        super().__init__(f"[{stage}] {message}")


# --8<-- [start:switches]
@functools.lru_cache(maxsize=None)
def _initialize_llvm() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    # Two switches of LLVM's NVPTX back end, read when a target machine is made (Triton's back
    # end sets both). An address `base + 2 * (i32 offset)` becomes one `mad.wide.s32` (ptxas: one
    # IMAD.WIDE), not a `mul.wide` and a 64-bit add (three instructions); LLVM leaves this off by
    # default since version 21. And pointers into shared memory are 32 bits wide (its window
    # is far smaller than 4 GB): one register each, not two. A grouped GEMM loop holding 64 of
    # them spilled 240 bytes a thread without the two, 112 with them.
    llvm.set_option("minitriton", "-nvptx-mad-wide-opt")
    llvm.set_option("minitriton", "-nvptx-short-ptr")
# --8<-- [end:switches]


@functools.lru_cache(maxsize=None)
def target_machine(arch: str) -> llvm.TargetMachine:
    """The NVPTX target machine for `arch` ("sm_80", "sm_90a", ...), made once per arch."""
    if arch not in PTX_VERSION:
        raise ValueError(f"unknown GPU arch {arch!r}; minitriton targets {', '.join(PTX_VERSION)}")
    _initialize_llvm()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=f"+ptx{PTX_VERSION[arch]}", opt=OPT_LEVEL)


def _quote_line(text: str, line: int) -> str:
    """Line `line` (1-based) of `text`, numbered as an editor would show it."""
    lines = text.splitlines()
    return f"  {line:5d} | {lines[line - 1]}" if 1 <= line <= len(lines) else ""


# --8<-- [start:llvm-to-ptx]
def llvm_to_ptx(llir: str, arch: str, libraries: tuple[str, ...] = (), libdevice: str | None = None) -> str:
    """Parse and verify `llir`, link libdevice (NVIDIA's, or the file `libdevice`) and `libraries`
    into it where it calls them, optimize it with LLVM's -O3 pipeline, and print it as PTX."""
    tm = target_machine(arch)
    try:
        module = llvm.parse_assembly(llir)
    except RuntimeError as error:  # LLVM's message already quotes the line, with a caret
        raise BackendError("llvm-parse", f"LLVM could not parse the module:\n{error}") from None
    try:
        module.verify()
    except RuntimeError as error:
        raise BackendError("llvm-verify", f"the LLVM module is not valid IR:\n{error}") from None
    module.triple = TRIPLE
    module.data_layout = str(tm.target_data)
    try:
        link_libraries(module, libraries, libdevice)
    except LibraryNotFound as error:
        raise BackendError("libdevice", str(error)) from None

    tuning = llvm.create_pipeline_tuning_options(speed_level=OPT_LEVEL)
    passes = llvm.create_pass_builder(tm, tuning)
    passes.getModulePassManager().run(module, passes)
    return tm.emit_assembly(module)
# --8<-- [end:llvm-to-ptx]


@dataclass(frozen=True)
class ResourceUsage:
    """What one kernel uses, as `ptxas -v` reports it. Sizes are bytes per thread, except
    `shared_bytes` (static shared memory per block; dynamic shared memory is not counted)."""

    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    stack_frame: int = 0
    shared_bytes: int = 0

    def __str__(self) -> str:
        return (f"{self.registers} registers, {self.spill_stores} B spill stores, "
                f"{self.spill_loads} B spill loads, {self.stack_frame} B stack, "
                f"{self.shared_bytes} B static smem")


# --8<-- [start:resource-usage]
_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_resource_usage(report: str) -> dict[str, ResourceUsage]:
    """The `ptxas -v` report, per entry function (kernel). Device functions that a kernel calls
    get their own "Function properties" lines; only entries are kept."""
    found: dict[str, dict[str, int]] = {}
    entry = properties_of = None
    for line in report.splitlines():
        if m := _ENTRY.search(line):
            entry = m[1]
            found[entry] = {}
        elif m := _PROPERTIES.search(line):
            properties_of = m[1]
        elif (m := _FRAME.search(line)) and properties_of in found:
            found[properties_of].update(stack_frame=int(m[1]), spill_stores=int(m[2]),
                                        spill_loads=int(m[3]))
        elif (m := _USED.search(line)) and entry is not None:
            smem = _SMEM.search(line)
            found[entry].update(registers=int(m[1]), shared_bytes=int(smem[1]) if smem else 0)
    return {name: ResourceUsage(**usage) for name, usage in found.items()}
# --8<-- [end:resource-usage]


def _largest(usages: list[ResourceUsage]) -> ResourceUsage:
    """Field by field, the most any of `usages` needs (a module here holds one kernel)."""
    return ResourceUsage(**{f.name: max((getattr(u, f.name) for u in usages), default=0)
                            for f in fields(ResourceUsage)})


# --8<-- [start:ptx-to-cubin]
def ptx_to_cubin(ptx: str, arch: str) -> tuple[bytes, ResourceUsage]:
    """Assemble `ptx` for `arch` with `ptxas -v`; return the cubin and the kernel's resource
    usage."""
    ptxas = ptxas_path()
    if ptxas is None:
        raise BackendError("ptxas", "ptxas was not found on PATH, in $CUDA_HOME/bin, in "
                                    "/usr/local/cuda/bin or in the nvidia-cuda-nvcc wheel; install "
                                    "that wheel or the CUDA toolkit, or load the PTX itself with the "
                                    "driver")
    with tempfile.TemporaryDirectory(prefix="minitriton-") as folder:
        source, cubin = os.path.join(folder, "kernel.ptx"), os.path.join(folder, "kernel.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        done = subprocess.run([ptxas, f"-arch={arch}", "-v", source, "-o", cubin],
                              capture_output=True, text=True)
        report = (done.stdout + done.stderr).replace(source, "kernel.ptx")
        if done.returncode != 0:
            raise BackendError("ptxas", _explain_ptxas_failure(report, ptx, arch))
        with open(cubin, "rb") as f:
            image = f.read()
    return image, _largest(list(parse_resource_usage(report).values()))
# --8<-- [end:ptx-to-cubin]


# --8<-- [start:register-cap]
REGISTERS_PER_SM = 65536  # every arch from sm_75 to sm_120
THREADS_PER_SM = 2048  # sm_80 and sm_90 (fewer elsewhere: then the cap below is only lower)


def register_cap(registers: int, threads: int) -> int:
    """The most registers a thread may have (a multiple of 8, at most 255) with as many blocks of
    `threads` fitting an SM's registers as with `registers`."""
    allocated = max(8, -(-registers // 8) * 8)  # registers are handed out 8 at a time
    blocks = min(THREADS_PER_SM // threads, REGISTERS_PER_SM // (allocated * threads))
    return min(255, REGISTERS_PER_SM // (max(blocks, 1) * threads) // 8 * 8)


def assemble(ptx: str, arch: str, threads: int, capped: bool = False) -> tuple[str, bytes, ResourceUsage]:
    """Assemble `ptx`; then, unless it is `capped` already (`.maxnreg`) or spills, again with
    `.maxnreg` at `register_cap`, kept if it does not spill either. Left alone, ptxas gives a
    kernel the fewest registers it can and schedules within them: layer norm's forward at 8
    warps got 103, and its loads went out two at a time, each pair after the uses of the one
    before. With the cap (128: still two blocks of 256 threads an SM) it takes 114 and issues
    all 8 of a loop at once. Returns the PTX the cubin was made from, the cubin and its
    resources."""
    image, usage = ptx_to_cubin(ptx, arch)
    cap = register_cap(usage.registers, threads)
    if capped or cap <= usage.registers or usage.spill_stores:
        return ptx, image, usage
    with_cap = re.sub(r"^(\.maxntid .*)$", rf"\1\n.maxnreg {cap}", ptx, count=1, flags=re.MULTILINE)
    if with_cap == ptx:  # no `.maxntid` line to put it after
        return ptx, image, usage
    image_with_cap, usage_with_cap = ptx_to_cubin(with_cap, arch)
    if usage_with_cap.spill_stores:
        return ptx, image, usage
    return with_cap, image_with_cap, usage_with_cap
# --8<-- [end:register-cap]


def _explain_ptxas_failure(report: str, ptx: str, arch: str) -> str:
    """ptxas's messages, each error followed by the PTX line it names ("kernel.ptx, line N; ...")."""
    lines = []
    for message in report.strip().splitlines():
        lines.append("  " + message)
        if where := re.search(r"kernel\.ptx, line (\d+);", message):
            lines.append(_quote_line(ptx, int(where[1])))
    if "llvm." in "\n".join(lines):
        # LLVM turns a call to an intrinsic it does not know into a call to an external function,
        # so a misspelt intrinsic first shows up here.
        lines.append("  hint: a name starting with 'llvm.' in the PTX is an intrinsic LLVM did not "
                     "recognize; check its spelling and its operand types")
    return f"ptxas rejected the PTX for {arch}:\n" + "\n".join(lines)
