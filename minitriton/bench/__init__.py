"""`python -m minitriton bench`: minitriton's kernels timed beside torch (cuBLAS) and Triton, in one run.

Not a stage of the compiler: it measures what the whole pipeline produces. Five benchmarks:

- `vector_add` (fp32, 2^12..2^28 elements), with a device-to-device copy as the bandwidth ceiling;
- `softmax` (fp32 and fp16, 4096 rows of 256..16384 columns);
- `matmul` (fp16 and bf16 with fp32 accumulation, square 512..8192; fp32 with input_precision="ieee"
  at 4096 against cuBLAS SGEMM with TF32 off), over a few block configurations;
- `launch`: the host time of one launch of a cached 4-argument kernel;
- `compile`: the matmul kernel's cold compile in a new process, and its load from the disk cache.

Every implementation's result is first checked against a float64 reference on fresh random inputs,
into a NaN-poisoned output; one that is wrong is reported and never timed. The implementations at
one point are then timed together, run by run on the same inputs, by `testing.do_bench_interleaved`
(CUDA events; the L2 cache is flushed before every run, so inputs that would fit in it are read
from memory all the same), and each gets the median of the means of pairs of its runs: a drift or
an alternation of the GPU's speed falls on all of them alike. Triton runs the very same kernel
sources: `twin()` compiles each minitriton kernel's own lines again with `triton.jit`. Results are
GB/s or TFLOP/s, with minitriton's ratio to every other implementation measured in the same run;
they go to `<out>/<bench>.csv` and `<out>/<bench>.png`, and a table with the GPU's name ends the
output.

The package: `kernels` (sizes, configurations, the Triton twins), `harness` (checking, timing,
tables, files) and `runs` (the five benchmarks, and `main`). Chapter: 10-performance.
"""
from .harness import *  # noqa: F401,F403
from .kernels import *  # noqa: F401,F403
from .runs import *  # noqa: F401,F403
