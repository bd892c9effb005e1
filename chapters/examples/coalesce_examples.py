"""Kernels for chapter 5 (coalescing): the same gather written without and with a hint, a block
read and written through a block pointer, and a masked tile copied through 2-D offsets."""
import minitriton as triton
import minitriton.language as tl


# --8<-- [start:gather_rows]
@triton.jit
def gather_rows(x_ptr, starts_ptr, out_ptr, BLOCK: tl.constexpr):
    """out[pid, :] = x[starts[pid] : starts[pid] + BLOCK]: each row starts where an index array
    says."""
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


# --8<-- [start:scale_block]
@triton.jit
def scale_block(x_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Double this program's block of x, which may cross the array's edges."""
    block = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, 1),
                              offsets=(tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(block, tl.load(block, boundary_check=(0, 1)) * 2, boundary_check=(0, 1))
# --8<-- [end:scale_block]


# --8<-- [start:copy_tile]
@triton.jit
def copy_tile(x_ptr, y_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Copy this program's BLOCK_M x BLOCK_N tile of an M x N matrix whose rows are `stride`
    elements apart, masked at the matrix's edges."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offsets = rows[:, None] * stride + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)
# --8<-- [end:copy_tile]
