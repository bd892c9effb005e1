"""Exercise 2.4 (a kernel): clamp each element into [lo, hi] with `tl.where`.

out[i] = lo if x[i] < lo, hi if x[i] > hi, else x[i], for i < n (one block per program, masked as
in exercise 1.1). Use `tl.where(condition, a, b)`, which picks per element; `if` cannot, because
its condition must be one scalar. `lo` and `hi` arrive as fp32 scalars while `x` may be fp16: let
the promotion rules of chapter 2 do the work (compare in fp32; `tl.store` converts to the output's
type). A NaN in x is neither below lo nor above hi, so it stays NaN.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def clamp_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    tl.static_assert(False, "exercise 2.4: clamp_kernel is not written yet")
