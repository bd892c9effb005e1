"""Chapter 1's host side: the compiled kernel a launch returns, read and launched as Triton's
softmax tutorial does it.

Run it from the repository root with `.venv/bin/python chapters/examples/host_api.py`; no GPU is
needed (the interpreter's kernel has no registers and no shared memory, so the numbers it prints
are zeros; on a GPU, without MINITRITON_INTERPRET, they are the driver's).
"""
import os

os.environ.setdefault("MINITRITON_INTERPRET", "1")  # read at every launch: run kernels on the CPU

import numpy as np  # noqa: E402

import minitriton as triton  # noqa: E402
from minitriton.examples.tutorials import softmax_kernel  # noqa: E402


# --8<-- [start:softmax]
def softmax(x: np.ndarray, programs: int = 4) -> np.ndarray:
    n_rows, n_cols = x.shape
    y = np.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    # Compile without running, to read what the compiled kernel needs before choosing the grid.
    kernel = softmax_kernel.warmup(y, x, n_cols, n_cols, n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                   num_stages=2, num_warps=8, grid=(1,))
    kernel._init_handles()  # load it onto the GPU (nothing to do in the interpreter)
    print(f"{kernel.name}: {kernel.n_regs} registers per thread, {kernel.n_spills} spilled, "
          f"{kernel.metadata.shared} bytes of shared memory, {kernel.metadata.num_warps} warps")
    # Launch the compiled kernel itself: every argument, the constexprs too, over a persistent grid.
    kernel[(programs, 1, 1)](y, x, n_cols, n_cols, n_rows, n_cols, BLOCK_SIZE, 2)
    return y
# --8<-- [end:softmax]


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((37, 300)).astype(np.float32)
    y = softmax(x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    print(f"37 rows by 4 programs, as numpy within 1e-6: {np.allclose(y, e / e.sum(axis=1, keepdims=True), atol=1e-6)}")
    compiled = softmax_kernel.warmup(y, x, 300, 300, 37, 300, BLOCK_SIZE=512, num_stages=2, num_warps=8, grid=(1,))
    print("its metadata:")
    for name, value in compiled.metadata.items():
        print(f"  {name} = {value!r}")


if __name__ == "__main__":
    main()
