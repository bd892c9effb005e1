"""`python -m minitriton bench`: minitriton's kernels timed beside torch (cuBLAS) and Triton, in one run.

Not a stage of the compiler: it measures what the whole pipeline produces. Eight benchmarks:

- `vector_add` (fp32, 2^12..2^28 elements), with a device-to-device copy as the bandwidth ceiling;
- `softmax` (fp32 and fp16, 4096 rows of 256..16384 columns);
- `layernorm`: layer norm (the tutorial's kernels, its backward under locks) and RMSNorm, forward
  and backward, on 4096 fp16 rows of 1024..16384, each beside a copy of the bytes it moves;
- `matmul`: fp16 and bf16 with fp32 accumulation, square 512..8192 and skinny (8192x8192x512,
  16x8192x8192, ...); fp32 with input_precision="ieee" at 4096 against cuBLAS SGEMM with TF32 off;
  fp32 with "tf32" against cuBLAS with TF32 on; fp8 e4m3 against torch._scaled_mm. Each over a
  few block configurations;
- `grouped_gemm`: tutorial 08's grouped GEMM (a table of pointers), 4 products N x N x N, against
  torch.matmul once per product;
- `attention`: a fused attention forward in tutorial 06's style (fp16 and bf16, head dim 64 and
  128, causal or not, N = 1024..16384) against torch's scaled_dot_product_attention under each of
  its backends (FlashAttention, cuDNN, memory-efficient);
- `launch`: the host time of one launch of a cached 4-argument kernel;
- `compile`: the matmul kernel's cold compile in a new process, and its load from the disk cache.

Every implementation's result is first checked against a float64 reference on random inputs, into
a NaN-poisoned output; one that is wrong is reported and never timed. The implementations at
one point are then timed together, run by run on the same inputs, by `testing.do_bench_interleaved`
(CUDA events; the L2 cache is flushed before every run, so inputs that would fit in it are read
from memory all the same), and each gets the median of the means of pairs of its runs: a drift or
an alternation of the GPU's speed falls on all of them alike. Triton runs the very same kernel
sources: `twin()` compiles each minitriton kernel's own lines again with `triton.jit`. Results are
GB/s or TFLOP/s, with minitriton's ratio to every other implementation measured in the same run
(and to the fastest SDPA backend); they go to `<out>/<bench>.csv` and `<out>/<bench>.png`, and a
table with the GPU's name ends the output.

The package: `kernels` (sizes, configurations, the Triton twins), `harness` (checking, timing,
tables, files), the benchmarks by family (`memory`, `matmuls`, `attention`, `host`) and `runs`
(`main`). Chapter: 10-performance.
"""
from .attention import *  # noqa: F401,F403
from .harness import *  # noqa: F401,F403
from .host import *  # noqa: F401,F403
from .kernels import *  # noqa: F401,F403
from .matmuls import *  # noqa: F401,F403
from .memory import *  # noqa: F401,F403
from .runs import *  # noqa: F401,F403
