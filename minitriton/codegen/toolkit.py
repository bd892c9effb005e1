"""Where NVIDIA's tools are: `ptxas` (PTX -> cubin) and `libdevice.10.bc` (the math library's bitcode).

Place in the pipeline: beside `codegen/ptx.py`, which asks here for both. A system CUDA toolkit is
used where one is installed (`ptxas` on PATH, `$CUDA_HOME`, `/usr/local/cuda`); a machine without
one gets both from NVIDIA's wheels, which minitriton depends on: `nvidia-cuda-nvcc` has `bin/ptxas`,
`nvidia-nvvm` has `nvvm/libdevice/libdevice.10.bc` (CUDA 12's `nvidia-cuda-nvcc-cu12` has both).
What was found, and ptxas's version, go into the kernel cache's key (`versions`): another ptxas or
another libdevice is another compiler. Chapter: 09-ptx-driver-cache.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
from importlib import metadata

LIBDEVICE = os.path.join("nvvm", "libdevice", "libdevice.10.bc")
WHEELS = ("nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-nvcc-cu12")  # newest first


def _cuda_roots() -> list[str]:
    return [root for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda") if root]


@functools.cache
def from_wheels(suffix: str) -> str | None:
    """The file of an installed NVIDIA wheel whose path ends with `suffix` (`bin/ptxas`), if any."""
    for name in WHEELS:
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            continue
        for file in files:
            if file.as_posix().endswith(suffix):
                path = str(file.locate())
                if os.path.exists(path):
                    return path
    return None


# --8<-- [start:find]
def ptxas_path() -> str | None:
    """`ptxas`: on PATH, in $CUDA_HOME/bin, in /usr/local/cuda/bin, else from the nvidia-cuda-nvcc
    wheel."""
    found = shutil.which("ptxas")
    if found:
        return found
    for root in _cuda_roots():
        if os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return os.path.join(root, "bin", "ptxas")
    wheel = from_wheels("bin/ptxas")
    return wheel if wheel and os.access(wheel, os.X_OK) else None


def libdevice_path() -> str | None:
    """`libdevice.10.bc`: in $CUDA_HOME or /usr/local/cuda, else from the nvidia-nvvm wheel."""
    for root in _cuda_roots():
        if os.path.isfile(os.path.join(root, LIBDEVICE)):
            return os.path.join(root, LIBDEVICE)
    return from_wheels(LIBDEVICE.replace(os.sep, "/"))
# --8<-- [end:find]


def where_libdevice_was_looked_for() -> str:
    places = [os.path.join(root, LIBDEVICE) for root in _cuda_roots()]
    return ", ".join(places + [f"the {' or '.join(WHEELS[1:2] + WHEELS[:1])} wheel"])


@functools.cache
def ptxas_version(path: str) -> str:
    """The last line of `ptxas --version` ("Build cuda_13.0.r13.0/compiler.36424714_0")."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        return f"unusable ({error})"
    lines = done.stdout.strip().splitlines()
    return lines[-1] if lines else f"unusable (exit {done.returncode})"


@functools.cache
def file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def versions() -> dict[str, str]:
    """What the cache key needs of the toolkit: which ptxas (and its version), which libdevice."""
    ptxas, libdevice = ptxas_path(), libdevice_path()
    return {"ptxas": f"{ptxas} {ptxas_version(ptxas)}" if ptxas else "none",
            "libdevice": f"{libdevice} {file_digest(libdevice)}" if libdevice else "none"}
