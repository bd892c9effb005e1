"""Exercise 5.4 (a kernel): a row copy whose every access is 16 bytes wide.

Write `scale_rows`: program `row` computes out[row, c] = scale * x[row, c] for c < n_cols, where
element (row, c) of both x and out is at `row * row_stride + c` (fp32). Columns at or past n_cols
are neither read nor written. BLOCK >= n_cols, one program per row.

The callers guarantee that `n_cols` and `row_stride` are multiples of 4, but they are not multiples
of 16 (a launch passes n_cols = 500, row_stride = 516), so the specialization (chapter 2) records
nothing about them, and without help every access would be scalar. Make every load and store of x
and out a 16-byte `ld.global.v4.b32` / `st.global.v4.b32` on sm_90: the tests compile your kernel
with `warmup(..., target="sm_90")` and read the PTX. (Chapter 5: which facts limit the width here,
and which hint gives them.)
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def scale_rows(x_ptr, out_ptr, n_cols, row_stride, scale, BLOCK: tl.constexpr):
    tl.static_assert(False, "exercise 5.4: scale_rows is not written yet")
