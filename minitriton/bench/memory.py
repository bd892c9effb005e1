"""The benchmarks bound by memory: vector add, softmax, and the norms (layer norm and RMSNorm,
forward and backward), each beside a device-to-device copy of as many bytes as it moves.

Chapter: 10-performance.
"""
from __future__ import annotations

import math

from .. import cdiv, next_power_of_2

from .harness import COPY, TORCH, Candidate, Point, Session, element_strides
from .kernels import (ADD_BLOCK, NORM_ROWS, SOFTMAX_ROWS, norm_columns, norm_groups, row_warps, softmax_columns,
                      vector_add_sizes)

NORM_EPS = 1e-5
NORM_CASES = ("layer norm fwd", "layer norm bwd", "rms norm fwd", "rms norm bwd")


def run_vector_add(s: Session) -> None:
    torch = s.torch
    for n in vector_add_sizes(s.quick):
        point = Point("vector_add", "fp32", n, "fp32", "GB/s")
        grid = (cdiv(n, ADD_BLOCK),)

        def fresh():
            x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
            return x, y, torch.full_like(x, math.nan)

        def total(x, y, out):
            return x.double() + y.double()

        def add(kernel):
            def run(x, y, out):
                kernel[grid](x, y, out, n, BLOCK_SIZE=ADD_BLOCK)
                return out
            return run

        moved = 3 * 4 * n
        s.measure(point, [*(Candidate(name, add(kernels["add"]), total, moved)
                            for name, kernels in s.kernels().items()),
                          Candidate(TORCH, lambda x, y, out: torch.add(x, y, out=out), total, moved),
                          Candidate(COPY, lambda x, y, out: out.copy_(x), lambda x, y, out: x.double(),
                                    2 * 4 * n)],
                  fresh)


def run_softmax(s: Session) -> None:
    torch = s.torch
    for dtype_name, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
        for cols in softmax_columns(s.quick):
            point = Point("softmax", dtype_name, cols, dtype_name, "GB/s")
            block = next_power_of_2(cols)
            moved = 2 * SOFTMAX_ROWS * cols * dtype.itemsize  # the input read once, the output written once

            def fresh():
                x = torch.randn(SOFTMAX_ROWS, cols, device="cuda", dtype=dtype)
                return x, torch.full_like(x, math.nan)

            def reference(x, y):
                return torch.softmax(x.double(), dim=-1)

            # One program per row for both compilers (4096 rows fill the GPU); the tutorial sizes a
            # persistent grid from each compiler's register report instead.
            def softmax(kernel):
                def run(x, y):
                    kernel[(SOFTMAX_ROWS,)](y, x, x.stride(0), y.stride(0), SOFTMAX_ROWS, cols,
                                            BLOCK_SIZE=block, num_stages=2,
                                            num_warps=row_warps(block * dtype.itemsize))
                    return y
                return run

            s.measure(point, [*(Candidate(name, softmax(kernels["softmax"]), reference, moved)
                                for name, kernels in s.kernels().items()),
                              Candidate(TORCH, lambda x, y: torch.softmax(x, dim=-1), reference, moved)],
                      fresh)


# ----------------------------------------------------------------------------- layer norm and RMSNorm

# --8<-- [start:norm-bytes]
def norm_bytes(case: str, rows: int, cols: int) -> int:
    """The fewest bytes a pass of fp16 rows must move: the forward reads x and writes y (plus
    the weights, and the fp32 statistics it saves per row); the backward reads x and dy and
    writes dx (plus the weights, the statistics, and dw and db). Partial sums are the kernels'
    own business."""
    layer = case.startswith("layer")
    matrices, vectors = (2, 2 if layer else 1) if case.endswith("fwd") else (3, 3 if layer else 2)
    statistics = 2 if layer else 1  # mean and rstd, or rstd
    return 2 * (matrices * rows * cols + vectors * cols) + 4 * statistics * rows
# --8<-- [end:norm-bytes]


def run_layernorm(s: Session) -> None:
    """Layer norm (the tutorial's kernels) and RMSNorm, forward and backward, on NORM_ROWS fp16
    rows. The inputs of a point are made once and its float64 truth computed once, by torch's own
    layer_norm / rms_norm and autograd; every implementation writes into NaN-poisoned outputs."""
    torch = s.torch
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for case in NORM_CASES:
        for cols in norm_columns(s.quick):
            point = Point("layernorm", case, cols, "fp16", "GB/s")
            inputs = norm_inputs(torch, NORM_ROWS, cols, with_graph=case.endswith("bwd"))
            truth = norm_truth(torch, case, inputs)
            fresh = lambda: (*inputs, *poisoned_outputs(torch, case, NORM_ROWS, cols))
            moved = norm_bytes(case, NORM_ROWS, cols)
            block = next_power_of_2(cols)
            warps = row_warps(block * 2)
            options = {"BLOCK": block, "warps": warps, "groups": norm_groups(cols),
                       "programs": sms * max(1, 16 // warps)}
            launch = NORM_LAUNCHES[case]
            s.measure(point, [*(Candidate(name, launch(torch, kernels, options), lambda *a: truth, moved)
                                for name, kernels in s.kernels().items()),
                              Candidate(TORCH, TORCH_NORMS[case](torch), lambda *a: truth, moved),
                              copy_of(torch, moved)],
                      fresh)


def norm_inputs(torch, rows: int, cols: int, with_graph: bool) -> tuple:
    """x (around -2.3, so that subtracting the mean matters), w and b, dy, and the fp32 mean and
    rstd of each row; for a backward pass also torch's forward graphs of both norms, for torch's
    own backward to be timed alone."""
    x = (-2.3 + 0.5 * torch.randn(rows, cols, device="cuda", dtype=torch.float16)).requires_grad_(with_graph)
    w, b = (torch.rand(cols, device="cuda", dtype=torch.float16).requires_grad_(with_graph) for _ in range(2))
    dy = 0.1 * torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    x64 = x.detach().double()
    mean = x64.mean(dim=1).float()
    rstd = (x64.var(dim=1, unbiased=False) + NORM_EPS).rsqrt().float()
    rms_rstd = ((x64 * x64).mean(dim=1) + NORM_EPS).rsqrt().float()
    graphs = ()
    if with_graph:
        F = torch.nn.functional
        graphs = (F.layer_norm(x, (cols,), w, b, NORM_EPS), F.rms_norm(x, (cols,), w, NORM_EPS))
    return (x, w, b, dy, mean, rstd, rms_rstd, *graphs)


def norm_truth(torch, case: str, inputs: tuple) -> tuple:
    """The float64 result of `case` by torch: (y,) forward, (dx, dw[, db]) backward."""
    F = torch.nn.functional
    x, w, b, dy = (t.detach().double().requires_grad_() for t in inputs[:4])
    cols = x.shape[1]
    y = F.layer_norm(x, (cols,), w, b, NORM_EPS) if case.startswith("layer") else F.rms_norm(x, (cols,), w, NORM_EPS)
    if case.endswith("fwd"):
        return (y.detach(),)
    wanted = (x, w, b) if case.startswith("layer") else (x, w)
    return tuple(g.detach() for g in torch.autograd.grad(y, wanted, dy))


def poisoned_outputs(torch, case: str, rows: int, cols: int) -> tuple:
    """NaN-filled outputs: y (forward), or dx, dw and db (backward)."""
    shapes = [(rows, cols)] if case.endswith("fwd") else [(rows, cols), (cols,), (cols,)]
    return tuple(torch.full(shape, math.nan, device="cuda", dtype=torch.float16) for shape in shapes)


def layer_norm_fwd(torch, kernels, o):
    def run(x, w, b, dy, mean, rstd, rms_rstd, y):
        kernels["layer_norm_fwd"][(x.shape[0],)](x, y, w, b, torch.empty_like(mean), torch.empty_like(rstd),
                                                 element_strides(x)[0], x.shape[1], NORM_EPS, BLOCK_SIZE=o["BLOCK"],
                                                 num_warps=o["warps"])
        return (y,)
    return run


def layer_norm_bwd(torch, kernels, o):
    """dx with the partial sums of dw and db under the tutorial's locks, then the partial rows summed."""
    def run(x, w, b, dy, mean, rstd, rms_rstd, layer_graph, rms_graph, dx, dw, db):
        rows, cols = x.shape
        partial_w, partial_b = (torch.zeros((o["groups"], cols), device="cuda", dtype=torch.float32)
                                for _ in range(2))
        locks = torch.zeros(o["groups"], device="cuda", dtype=torch.int32)
        kernels["layer_norm_bwd_dx"][(rows,)](dx, dy, partial_w, partial_b, x, w, mean, rstd, locks,
                                              element_strides(x)[0], cols, GROUPS=o["groups"], BLOCK_N=o["BLOCK"],
                                              num_warps=o["warps"])
        kernels["layer_norm_bwd_dwdb"][(cdiv(cols, 128),)](partial_w, partial_b, dw, db, o["groups"], cols,
                                                           BLOCK_G=32, BLOCK_N=128)
        return dx, dw, db
    return run


def rms_norm_fwd(torch, kernels, o):
    def run(x, w, b, dy, mean, rstd, rms_rstd, y):
        kernels["rms_norm_fwd"][(x.shape[0],)](x, y, w, torch.empty_like(rms_rstd), element_strides(x)[0], x.shape[1],
                                               NORM_EPS, BLOCK_N=o["BLOCK"], num_warps=o["warps"])
        return (y,)
    return run


def rms_norm_bwd(torch, kernels, o):
    """dx by `programs` programs, 16 warps to an SM (more would write more partial rows of dw, each
    as long as a row of x, for the second kernel to read), then their partial rows summed."""
    def run(x, w, b, dy, mean, rstd, rms_rstd, layer_graph, rms_graph, dx, dw, db):
        rows, cols = x.shape
        partial = torch.empty((o["programs"], cols), device="cuda", dtype=torch.float32)
        kernels["rms_norm_bwd"][(o["programs"],)](dx, dy, partial, x, w, rms_rstd, element_strides(x)[0], rows, cols,
                                                  BLOCK_N=o["BLOCK"], num_warps=o["warps"])
        kernels["column_sum"][(cdiv(cols, 128),)](partial, dw, o["programs"], cols, BLOCK_R=32, BLOCK_N=128)
        return dx, dw
    return run


NORM_LAUNCHES = {"layer norm fwd": layer_norm_fwd, "layer norm bwd": layer_norm_bwd,
                 "rms norm fwd": rms_norm_fwd, "rms norm bwd": rms_norm_bwd}


def torch_layer_norm_fwd(torch):
    F = torch.nn.functional
    return lambda x, w, b, dy, mean, rstd, rms_rstd, y: (F.layer_norm(x, (x.shape[1],), w, b, NORM_EPS),)


def torch_rms_norm_fwd(torch):
    F = torch.nn.functional
    return lambda x, w, b, dy, mean, rstd, rms_rstd, y: (F.rms_norm(x, (x.shape[1],), w, NORM_EPS),)


def torch_layer_norm_bwd(torch):
    """torch's backward alone, through autograd on the graph made with the inputs."""
    def run(x, w, b, dy, mean, rstd, rms_rstd, layer_graph, rms_graph, dx, dw, db):
        return torch.autograd.grad(layer_graph, (x, w, b), dy, retain_graph=True)
    return run


def torch_rms_norm_bwd(torch):
    def run(x, w, b, dy, mean, rstd, rms_rstd, layer_graph, rms_graph, dx, dw, db):
        return torch.autograd.grad(rms_graph, (x, w), dy, retain_graph=True)
    return run


TORCH_NORMS = {"layer norm fwd": torch_layer_norm_fwd, "layer norm bwd": torch_layer_norm_bwd,
               "rms norm fwd": torch_rms_norm_fwd, "rms norm bwd": torch_rms_norm_bwd}


def copy_of(torch, moved: int) -> Candidate:
    """A device-to-device copy of moved / 2 bytes (as many read as written): the ceiling."""
    source = torch.randn(moved // 4, device="cuda", dtype=torch.float16)
    target = torch.empty_like(source)
    return Candidate(COPY, lambda *args: target.copy_(source), lambda *args: source.double(), moved)
