"""Grouped GEMM, written for minitriton in the style of Triton's tutorial 08: many matrix products
of different sizes in one launch, their operands found through tables of pointers in memory.

A fixed number of programs walks every output tile of every product: program p takes tiles p,
p + NUM_PROGRAMS, ... of the concatenated list. For each tile it finds its product by walking the
table of sizes, loads that product's three addresses (64-bit integers in memory, made pointers
with `.to(tl.pointer_type(...))`) and computes the tile as a blocked matmul. In the interpreter
the table holds the same addresses as on the GPU: the arrays' own. Chapter: 10-performance.
"""
import numpy as np

import minitriton as triton
import minitriton.language as tl
from minitriton.dtypes import array_address


# --8<-- [start:grouped]
@triton.jit
def grouped_matmul_kernel(a_ptrs, b_ptrs, c_ptrs, sizes, leading, group_count, NUM_PROGRAMS: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """sizes: (M, N, K) per product; leading: the row strides of A, B and C per product."""
    first_tile = 0  # the first tile of product g in the concatenated list
    for g in range(group_count):
        M = tl.load(sizes + 3 * g)
        N = tl.load(sizes + 3 * g + 1)
        K = tl.load(sizes + 3 * g + 2)
        tiles_n = tl.cdiv(N, BLOCK_N)
        tile_count = tl.cdiv(M, BLOCK_M) * tiles_n
        # This program's first tile at or after first_tile.
        tile = first_tile + (tl.program_id(0) - first_tile % NUM_PROGRAMS + NUM_PROGRAMS) % NUM_PROGRAMS
        a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
        b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
        c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float16))
        lda = tl.load(leading + 3 * g)
        ldb = tl.load(leading + 3 * g + 1)
        ldc = tl.load(leading + 3 * g + 2)
        while tile < first_tile + tile_count:
            rows = ((tile - first_tile) // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
            cols = ((tile - first_tile) % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
            ks = tl.arange(0, BLOCK_K)
            acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
            for k in range(0, K, BLOCK_K):
                a_tile = tl.load(a + rows[:, None] * lda + (k + ks)[None, :],
                                 mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)
                b_tile = tl.load(b + (k + ks)[:, None] * ldb + cols[None, :],
                                 mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
                acc = tl.dot(a_tile, b_tile, acc)
            tl.store(c + rows[:, None] * ldc + cols[None, :], acc.to(tl.float16),
                     mask=(rows[:, None] < M) & (cols[None, :] < N))
            tile += NUM_PROGRAMS
        first_tile += tile_count
# --8<-- [end:grouped]


def run_grouped_matmul(shapes=((100, 90, 70), (33, 128, 64), (64, 17, 200), (1, 1, 16)), programs: int = 5,
                       block: int = 32, seed: int = 0, to_device=np.asarray, to_host=np.asarray):
    """C_g = A_g @ B_g for each (M, N, K) in `shapes`, in one launch: (the Cs, their references)."""
    rng = np.random.default_rng(seed)
    a_list = [rng.standard_normal((m, k)).astype(np.float16) for m, n, k in shapes]
    b_list = [rng.standard_normal((k, n)).astype(np.float16) for m, n, k in shapes]
    a_dev, b_dev = [to_device(a) for a in a_list], [to_device(b) for b in b_list]
    c_dev = [to_device(np.full((m, n), np.nan, np.float16)) for m, n, k in shapes]
    table = lambda arrays: to_device(np.array([array_address(x) for x in arrays], np.int64))
    sizes = to_device(np.array(shapes, np.int32).reshape(-1))
    leading = to_device(np.array([(k, n, n) for m, n, k in shapes], np.int32).reshape(-1))
    grouped_matmul_kernel[(programs,)](table(a_dev), table(b_dev), table(c_dev), sizes, leading, len(shapes),
                                       NUM_PROGRAMS=programs, BLOCK_M=block, BLOCK_N=block, BLOCK_K=block)
    references = [(a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16) for a, b in zip(a_list, b_list)]
    return [to_host(c) for c in c_dev], references
