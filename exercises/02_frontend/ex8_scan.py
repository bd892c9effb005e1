"""Exercise 2.8 (a kernel): a linear recurrence along each row, by a scan with a combine of your own.

Each row holds n steps (a[t], b[t]); the recurrence h[t] = a[t] * h[t - 1] + b[t], from h[-1] = 0,
is what `recurrence_kernel` writes to out[row, t]. In numpy, one row at a time:

    h, out = 0.0, np.empty(n)
    for t in range(n):
        h = a[t] * h + b[t]
        out[t] = h

A loop over t is sequential; a scan is not. A step (a, b) is the map h -> a * h + b, and doing
step (a1, b1) then step (a2, b2) is again a step: (a1 * a2, b1 * a2 + b2). That composition is
associative, so `tl.associative_scan((a, b), 0, combine)` with it as `combine` (a @jit function
taking the left step's two values, then the right's, and returning two) gives at each t the
composition (A[t], B[t]) of steps 0..t of the tile, and h[t] = A[t] * h_before + B[t], where
h_before is the h just before the tile's first step (chapter 2: the combine function becomes the
scan's region).

Program `row` handles row `row`: element t of a, b and out is at `row * stride + t`. A row may be
longer than BLOCK: walk it BLOCK steps at a time and carry h from the end of one tile to the start
of the next (a loop-carried fp32 scalar; a tile has no indexing, but `tl.sum(tl.where(positions ==
p, tile, 0.0), 0)` is its element at position p). Elements at or past n are neither read nor
written; they may hold anything, NaN included.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def recurrence_kernel(a_ptr, b_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    tl.static_assert(False, "exercise 2.8: recurrence_kernel is not written yet")
