"""Linking NVIDIA's libdevice into a kernel's LLVM module, as Triton does, before NVPTX codegen.

Place in the pipeline: inside `codegen/ptx.py`'s `llvm_to_ptx`, between parsing the kernel's module
and optimizing it. A kernel that calls libdevice (`tl.extra.libdevice`) has a declaration such as
`declare float @__nv_sinf(float)` for each function it uses. NVIDIA ships their bodies as LLVM
bitcode, `libdevice.10.bc` (about 500 functions): llvmlite parses it, the linker copies it into the
kernel's module, and every function but the kernel becomes `internal`. LLVM's optimizer then inlines
what the kernel calls (libdevice's functions are `alwaysinline`) and deletes the rest, so the PTX
holds only the math the kernel uses. libdevice asks `__nvvm_reflect("__CUDA_FTZ")` whether to
flush subnormals to zero; NVPTX's own NVVMReflect pass answers from the module flag
`nvvm-reflect-ftz`, which minitriton leaves unset: 0, subnormals kept, as numpy and the
interpreter keep them (Triton sets it to 1). Chapter: 08-llvm.
"""
from __future__ import annotations

import functools
import hashlib
import os

import llvmlite.binding as llvm

from . import toolkit

LIBDEVICE_PREFIX = "__nv_"


class LibraryNotFound(RuntimeError):
    """A kernel calls a library function, and the bitcode that defines it is not on this machine."""


@functools.cache
def _bitcode(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# --8<-- [start:link]
def link_libraries(module: llvm.ModuleRef, libraries: tuple[str, ...] = (),
                   libdevice: str | None = None) -> list[str]:
    """Link libdevice (when the module calls it: the file `libdevice`, else NVIDIA's) and
    `libraries` (paths of other bitcode files) into `module`, leaving only the kernels visible.
    Returns the paths linked."""
    calls = sorted(f.name for f in module.functions if f.is_declaration
                   and f.name.startswith(LIBDEVICE_PREFIX))
    paths = list(libraries)
    if calls:
        libdevice = libdevice or toolkit.libdevice_path()
        if libdevice is None:
            raise LibraryNotFound(
                f"the kernel calls libdevice ({', '.join(calls)}), but libdevice.10.bc was not found "
                f"(looked in {toolkit.where_libdevice_was_looked_for()}): install the nvidia-nvvm "
                f"wheel (pip install nvidia-nvvm) or a CUDA toolkit, or set CUDA_HOME to one")
        paths.insert(0, libdevice)
    if not paths:
        return []
    for path in libraries:
        if not os.path.isfile(path):
            raise LibraryNotFound(f"the kernel links {path} (tl.extern_elementwise's lib_path, or "
                                  "extern_libs), which does not exist")
    kernels = {f.name for f in module.functions if not f.is_declaration}
    own_globals = {g.name for g in module.global_variables}
    for path in paths:
        try:
            library = llvm.parse_bitcode(_bitcode(path))
        except RuntimeError as error:
            raise LibraryNotFound(f"{path} is not LLVM bitcode that this LLVM can read ({error})") from None
        library.triple, library.data_layout = module.triple, module.data_layout  # as the kernel's
        module.link_in(library)
    for function in module.functions:
        if not function.is_declaration and function.name not in kernels:
            function.linkage = "internal"  # unused ones are deleted by the optimizer
    for variable in module.global_variables:
        if variable.name not in own_globals:
            variable.linkage = "internal"  # libdevice's tables (sinf's 2/pi digits)
    return paths
# --8<-- [end:link]


def fingerprint(libraries: tuple[tuple[str, str], ...]) -> list[list[str]]:
    """(name, SHA-256 of the file) of each library a launch names: what the disk cache keys them by,
    so that a library rebuilt in place recompiles the kernels that link it."""
    return [[name, hashlib.sha256(_bitcode(path)).hexdigest()] for name, path in libraries]
