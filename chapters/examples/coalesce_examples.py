"""Kernels for chapter 5 (coalescing): the same gather written without and with a hint."""
import minitriton as triton
import minitriton.language as tl


# --8<-- [start:gather_rows]
@triton.jit
def gather_rows(x_ptr, starts_ptr, out_ptr, BLOCK: tl.constexpr):
    """out[pid, :] = x[starts[pid] : starts[pid] + BLOCK]: each row starts where an index array says."""
    pid = tl.program_id(0)
    start = tl.load(starts_ptr + pid)
    cols = tl.arange(0, BLOCK)
    row = tl.load(x_ptr + start + cols)
    tl.store(out_ptr + pid * BLOCK + cols, row)
# --8<-- [end:gather_rows]


# --8<-- [start:gather_rows_hinted]
@triton.jit
def gather_rows_hinted(x_ptr, starts_ptr, out_ptr, BLOCK: tl.constexpr):
    """The same, promising that every start is a multiple of 4 elements (16 bytes of fp32)."""
    pid = tl.program_id(0)
    start = tl.multiple_of(tl.load(starts_ptr + pid), 4)
    cols = tl.arange(0, BLOCK)
    row = tl.load(x_ptr + start + cols)
    tl.store(out_ptr + pid * BLOCK + cols, row)
# --8<-- [end:gather_rows_hinted]
