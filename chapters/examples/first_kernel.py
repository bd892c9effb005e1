"""Chapter 1's first kernel: the tutorial's vector add, launched in the numpy interpreter.

Run it from the repository root with `.venv/bin/python chapters/examples/first_kernel.py`; no GPU
is needed.
"""
import os

os.environ.setdefault("MINITRITON_INTERPRET", "1")  # read at every launch: run kernels on the CPU

import numpy as np  # noqa: E402

import minitriton as triton  # noqa: E402
from minitriton.examples.tutorials import add_kernel  # noqa: E402


# --8<-- [start:launch]
def add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    n = out.size
    # One program per block of BLOCK_SIZE elements; the grid may depend on the constexprs.
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out
# --8<-- [end:launch]


# --8<-- [start:main]
def main() -> None:
    rng = np.random.default_rng(0)
    n = 98_432  # not a multiple of 1024: the last program's mask switches off 896 lanes
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = add(x, y)
    print(f"{n} elements, {triton.cdiv(n, 1024)} programs, "
          f"largest difference from numpy: {np.abs(out - (x + y)).max()}")
# --8<-- [end:main]


if __name__ == "__main__":
    main()
