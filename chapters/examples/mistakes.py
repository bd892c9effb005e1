"""Kernels with a mistake each, for the chapters to show the errors minitriton gives for them.

`scripts/figures.py` compiles (or runs) each one and writes the error text into chapters/figures/.
"""
import minitriton as triton
import minitriton.language as tl


# --8<-- [start:tile_condition]
@triton.jit
def relu(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    if x < 0:
        x = 0.0
    tl.store(x_ptr + offsets, x)
# --8<-- [end:tile_condition]


# --8<-- [start:loop_type]
@triton.jit
def total(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = 0
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + start + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(acc, axis=0))
# --8<-- [end:loop_type]


# --8<-- [start:unmasked]
@triton.jit
def add_unmasked(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, x + y)
# --8<-- [end:unmasked]


# --8<-- [start:wrong_kind]
@triton.jit
def scale(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(out_ptr + offsets, alpha * x, mask=offsets < n)
# --8<-- [end:wrong_kind]


# --8<-- [start:walks_out]
@triton.jit
def first_column(matrix_ptr, out_ptr, stride, ROWS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    tl.store(out_ptr + rows, tl.load(matrix_ptr + rows * stride))
# --8<-- [end:walks_out]
