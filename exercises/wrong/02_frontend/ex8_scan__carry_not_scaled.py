"""Exercise 2.8 (a kernel): a linear recurrence along each row, by a scan with a combine of your own.

A wrong solution, for the tests to catch: the carried h is added to each step instead of being mapped by it.
"""
import minitriton as triton
import minitriton.language as tl


@triton.jit
def compose(a1, b1, a2, b2):
    """Step (a1, b1), then step (a2, b2): h -> a2 * (a1 * h + b1) + b2."""
    return a1 * a2, b1 * a2 + b2


@triton.jit
def recurrence_kernel(a_ptr, b_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0) * stride
    h = 0.0
    for start in range(0, n, BLOCK):
        t = start + tl.arange(0, BLOCK)
        inside = t < n
        # a masked-off step is the identity map (1, 0), so it changes nothing it is composed with
        a = tl.load(a_ptr + row + t, mask=inside, other=1.0)
        b = tl.load(b_ptr + row + t, mask=inside, other=0.0)
        steps_a, steps_b = tl.associative_scan((a, b), 0, compose)
        out = h + steps_b
        tl.store(out_ptr + row + t, out, mask=inside)
        h = tl.sum(tl.where(t == start + BLOCK - 1, out, 0.0), 0)  # the tile's last h
