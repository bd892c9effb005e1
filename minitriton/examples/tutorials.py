"""The Triton tutorials' kernels, unmodified but for the imports: what the demo, the tests and the
benchmarks run.

vector add (01), fused softmax (02), matmul with a @jit activation chosen by a constexpr string (03),
seeded dropout (04), layer norm forward (05), and matmul with block pointers (the block-pointer
tutorial, 08 in Triton 2). The matmul has two more constexprs, with defaults,
so the benchmarks time this very kernel for fp16, bf16 and fp32: the dot's `INPUT_PRECISION`, and
C is stored in its own dtype (the tutorial's fp16, when C is fp16). Each has a `run_*` function that makes inputs with a
fixed seed, launches the kernel as the tutorial does and returns (result, reference) as numpy arrays.
`to_device` turns a numpy array into what the kernel is given (the array itself for the interpreter,
a `DeviceArray` on a GPU) and `to_host` brings a result back.
"""
import numpy as np

import minitriton as triton
import minitriton.language as tl


# --8<-- [start:add]
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
# --8<-- [end:add]


# --8<-- [start:softmax]
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)
# --8<-- [end:softmax]


# --8<-- [start:matmul]
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr = "", INPUT_PRECISION: tl.constexpr = None):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)
# --8<-- [end:matmul]


# --8<-- [start:matmul-block-ptr]
@triton.jit
def matmul_block_ptr_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                            stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                            BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                    offsets=(pid_m * BLOCK_SIZE_M, 0),
                                    block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_K),
                                    order=(1, 0))
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                    offsets=(0, pid_n * BLOCK_SIZE_N),
                                    block_shape=(BLOCK_SIZE_K, BLOCK_SIZE_N),
                                    order=(1, 0))
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a = tl.load(a_block_ptr, boundary_check=(0, 1))
        b = tl.load(b_block_ptr, boundary_check=(0, 1))
        accumulator = tl.dot(a, b, accumulator)
        a_block_ptr = tl.advance(a_block_ptr, (0, BLOCK_SIZE_K))
        b_block_ptr = tl.advance(b_block_ptr, (BLOCK_SIZE_K, 0))
    c = accumulator.to(c_ptr.dtype.element_ty)

    c_block_ptr = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                    offsets=(pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N),
                                    block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_N), order=(1, 0))
    tl.store(c_block_ptr, c, boundary_check=(0, 1))
# --8<-- [end:matmul-block-ptr]


# --8<-- [start:dropout]
@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)
# --8<-- [end:dropout]


# --8<-- [start:layernorm]
@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)
# --8<-- [end:layernorm]


# ---------------------------------------------------------------------------------------------------
# Launching each kernel the way its tutorial does, on inputs made with a fixed seed.
# ---------------------------------------------------------------------------------------------------

def _poisoned(shape, dtype) -> np.ndarray:
    """An output array full of NaN, so an element the kernel forgets to write shows up."""
    return np.full(shape, np.nan, dtype)


def run_add(n: int = 98_432, block: int = 1024, seed: int = 0, to_device=np.asarray, to_host=np.asarray):
    rng = np.random.default_rng(seed)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    out = to_device(_poisoned(n, np.float32))
    add_kernel[(triton.cdiv(n, block),)](to_device(x), to_device(y), out, n, BLOCK_SIZE=block)
    return to_host(out), x + y


def run_softmax(n_rows: int = 37, n_cols: int = 300, programs: int = 8, seed: int = 0,
                to_device=np.asarray, to_host=np.asarray):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_rows, n_cols)).astype(np.float32)
    y = _poisoned((n_rows, n_cols), np.float32)
    out = to_device(y)
    softmax_kernel[(programs,)](out, to_device(x), x.strides[0] // 4, y.strides[0] // 4, n_rows, n_cols,
                                BLOCK_SIZE=triton.next_power_of_2(n_cols), num_stages=2)
    reference = np.exp(x - x.max(axis=1, keepdims=True))
    return to_host(out), reference / reference.sum(axis=1, keepdims=True)


def run_matmul(M: int = 100, N: int = 90, K: int = 70, dtype=np.float16, activation: str = "leaky_relu",
               block: int = 32, seed: int = 0, to_device=np.asarray, to_host=np.asarray):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = _poisoned((M, N), np.float16)
    out = to_device(c)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_kernel[grid](to_device(a), to_device(b), out, M, N, K, a.strides[0] // a.itemsize,
                        a.strides[1] // a.itemsize, b.strides[0] // b.itemsize, b.strides[1] // b.itemsize,
                        c.strides[0] // c.itemsize, c.strides[1] // c.itemsize, BLOCK_SIZE_M=block,
                        BLOCK_SIZE_N=block, BLOCK_SIZE_K=block, GROUP_SIZE_M=4, ACTIVATION=activation)
    reference = a.astype(np.float32) @ b.astype(np.float32)
    if activation == "leaky_relu":
        reference = np.where(reference >= 0, reference, 0.01 * reference)
    return to_host(out), reference.astype(np.float16)


def run_dropout(n: int = 1000, p: float = 0.5, seed: int = 123, block: int = 256,
                to_device=np.asarray, to_host=np.asarray):
    """The reference checks the result's form: each element is x / (1 - p) or 0. Which ones are kept
    depends on the random numbers, which the tests check against Philox on their own."""
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    out = to_device(_poisoned(n, np.float32))
    _seeded_dropout[(triton.cdiv(n, block),)](to_device(x), out, n, p, seed, BLOCK_SIZE=block)
    result = to_host(out)
    return result, np.where(result != 0, x / (1 - p), 0.0).astype(np.float32)


def run_layer_norm(M: int = 7, N: int = 300, eps: float = 1e-5, block: int = 128, seed: int = 0,
                   to_device=np.asarray, to_host=np.asarray):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((M, N)).astype(np.float32)
    w, b = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    y = to_device(_poisoned((M, N), np.float32))
    mean, rstd = to_device(_poisoned(M, np.float32)), to_device(_poisoned(M, np.float32))
    _layer_norm_fwd_fused[(M,)](to_device(x), y, to_device(w), to_device(b), mean, rstd, N, N, eps,
                                BLOCK_SIZE=block)
    mu, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    return to_host(y), (x - mu) / np.sqrt(var + eps) * w + b


# --8<-- [start:matmul_configs]
# The configurations the benchmark tries for matmul (the best one is reported): large tiles for
# wgmma on Hopper, smaller ones for mma.sync and for the CUDA-core (fp32 "ieee") path.
MATMUL_CONFIGS = [
    triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}, num_warps=8,
                  num_stages=3),
    triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}, num_warps=8,
                  num_stages=3),
    triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=4,
                  num_stages=4),
    triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=4,
                  num_stages=3),
    triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=4,
                  num_stages=4),
    triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=8,
                  num_stages=3),
]
# --8<-- [end:matmul_configs]
