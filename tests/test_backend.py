"""The CUDA backend end to end, without a GPU: every stage's text, the disk cache, resource limits.

Kernels are compiled for a named target (`warmup(..., target="sm_90")`), which runs the whole
pipeline down to ptxas; numpy arrays stand in for device arrays. GPU runs are in test_gpu.py.
"""
import multiprocessing
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import cache
from minitriton.codegen import ptx
from minitriton.errors import OutOfResources
from minitriton.examples.tutorials import add_kernel, matmul_kernel, softmax_kernel

needs_ptxas = pytest.mark.skipif(ptx.ptxas_path() is None, reason="ptxas is not installed here")


def aligned(n, dtype=np.float32):
    """A 1-D array whose data starts on a 16-byte boundary (so the 'divisible by 16' key holds)."""
    raw = np.zeros(n * np.dtype(dtype).itemsize + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    return raw[start:start + n * np.dtype(dtype).itemsize].view(dtype)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_every_stage_is_kept(fresh_cache):
    x = aligned(4096)
    kernel = add_kernel.warmup(x, x, x, 4096, BLOCK_SIZE=1024, grid=(4,), target="sm_90")
    assert set(kernel.asm) >= {"ttir", "layout", "llir", "ptx"}
    assert "func @add_kernel" in kernel.asm["ttir"] and "#blocked" in kernel.asm["layout"]
    assert "ptx_kernel" in kernel.asm["llir"] and ".visible .entry add_kernel" in kernel.asm["ptx"]
    assert ".target sm_90" in kernel.asm["ptx"]
    if ptx.ptxas_path():
        assert kernel.asm["cubin"][:4] == b"\x7fELF"
        assert kernel.metadata["registers"] > 0


def test_dump_prints_the_named_stages(fresh_cache, monkeypatch, capsys):
    monkeypatch.setenv("MINITRITON_DUMP", "ttir,ptx")
    x = aligned(256)
    add_kernel.warmup(x, x, x, 256, BLOCK_SIZE=256, grid=(1,), target="sm_80")
    err = capsys.readouterr().err
    assert "add_kernel: ttir" in err and "add_kernel: ptx" in err and "add_kernel: llir" not in err


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_tutorial_kernels_assemble(arch, fresh_cache):
    x2 = np.zeros((64, 64), np.float32)
    k = softmax_kernel.warmup(x2, x2, 64, 64, 64, 64, BLOCK_SIZE=64, num_stages=2, grid=(1,), target=arch)
    assert k.asm["cubin"]
    a = np.zeros((128, 128), np.float16)
    k = matmul_kernel.warmup(a, a, a, 128, 128, 128, 128, 1, 128, 1, 128, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                             BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", num_stages=3, grid=(4,), target=arch)
    text = k.asm["ptx"]
    assert "mma.sync.aligned.m16n8k16" in text and "ldmatrix" in text and "cp.async" in text


def test_pipelining_follows_num_stages(fresh_cache):
    a = aligned(128 * 128, np.float16).reshape(128, 128)
    compile_ = lambda stages: matmul_kernel.warmup(
        a, a, a, 128, 128, 128, 128, 1, 128, 1, 128, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
        GROUP_SIZE_M=8, ACTIVATION="", num_stages=stages, grid=(4,), target="sm_90")
    one, three = compile_(1), compile_(3)
    assert "cp.async" not in one.asm["ptx"] and "cp.async.wait_group 1" in three.asm["ptx"]
    assert three.metadata["shared_bytes"] > one.metadata["shared_bytes"]


def test_aligned_pointers_give_vector_loads(fresh_cache):
    x = aligned(4097)
    vector = add_kernel.warmup(x, x, x, 4096, BLOCK_SIZE=1024, grid=(4,), target="sm_90").asm["ptx"]
    scalar = add_kernel.warmup(x[1:], x, x, 4096, BLOCK_SIZE=1024, grid=(4,), target="sm_90").asm["ptx"]
    assert "ld.global.v4.b32" in vector
    assert scalar.count("ld.global.b32") > 0


# -- the disk cache ----------------------------------------------------------------------------------

HELPER_SOURCE = '''
import minitriton as triton
import minitriton.language as tl

@triton.jit
def helper(x):
    return x * {factor}

@triton.jit
def kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, helper(tl.load(x_ptr + offs)))
'''


def _compile_in_new_process(module_dir, cache_dir) -> str:
    """Compile `kernel` of module_dir/kernels.py in a new process; print whether it was compiled."""
    script = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {str(module_dir)!r})
        import minitriton.codegen.backend as backend
        from minitriton import cache
        calls = []
        original = cache.get_or_compile
        def counting(key, fn, *a, **k):
            def build():
                calls.append(key)
                return fn()
            return original(key, build, *a, **k)
        cache.get_or_compile = counting
        import kernels
        x = np.zeros(16, np.float32)
        k = kernels.kernel.warmup(x, x, grid=(1,), target="sm_90")
        print("compiled" if calls else "cached", len(k.asm["ptx"]) > 0)
    """)
    env = dict(os.environ, MINITRITON_CACHE_DIR=str(cache_dir), PYTHONPATH=os.getcwd())
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_disk_cache_hits_and_editing_a_helper_recompiles(tmp_path):
    (tmp_path / "kernels.py").write_text(HELPER_SOURCE.format(factor=2))
    cache_dir = tmp_path / "cache"
    assert _compile_in_new_process(tmp_path, cache_dir) == "compiled True"
    assert _compile_in_new_process(tmp_path, cache_dir) == "cached True"
    (tmp_path / "kernels.py").write_text(HELPER_SOURCE.format(factor=3))  # only the called helper changes
    assert _compile_in_new_process(tmp_path, cache_dir) == "compiled True"


@pytest.mark.parametrize("damage", ["truncate", "garble", "delete_manifest"])
def test_a_broken_entry_is_recompiled(tmp_path, damage):
    (tmp_path / "kernels.py").write_text(HELPER_SOURCE.format(factor=2))
    cache_dir = tmp_path / "cache"
    assert _compile_in_new_process(tmp_path, cache_dir) == "compiled True"
    entry = next(p for p in cache_dir.rglob("manifest.json")).parent
    ptx_file = next(p for p in entry.iterdir() if p.name.startswith("ptx"))
    if damage == "truncate":
        ptx_file.write_bytes(ptx_file.read_bytes()[:100])
    elif damage == "garble":
        data = bytearray(ptx_file.read_bytes())
        data[len(data) // 2] ^= 0xFF
        ptx_file.write_bytes(bytes(data))
    else:
        (entry / "manifest.json").unlink()
    assert _compile_in_new_process(tmp_path, cache_dir) == "compiled True"
    assert _compile_in_new_process(tmp_path, cache_dir) == "cached True"


def _compile_worker(args):
    module_dir, cache_dir = args
    return _compile_in_new_process(module_dir, cache_dir)


def test_eight_processes_compile_the_same_kernel_at_once(tmp_path):
    (tmp_path / "kernels.py").write_text(HELPER_SOURCE.format(factor=5))
    cache_dir = tmp_path / "cache"
    with multiprocessing.get_context("spawn").Pool(8) as pool:
        results = pool.map(_compile_worker, [(tmp_path, cache_dir)] * 8)
    assert all(r.endswith("True") for r in results), results
    manifests = list(cache_dir.rglob("manifest.json"))
    assert len(manifests) == 1
    assert cache.FileCache(cache_dir).get(manifests[0].parent.name) is not None
    assert _compile_in_new_process(tmp_path, cache_dir) == "cached True"


def test_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("MINITRITON_CACHE", "0")
    x = aligned(256)
    add_kernel.warmup(x, x, x, 256, BLOCK_SIZE=256, grid=(1,), target="sm_80")
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").rglob("manifest.json"))


# -- resources ------------------------------------------------------------------------------------------

@triton.jit
def big_reduce_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs[:, None] * BLOCK + offs[None, :])
    tl.store(out_ptr + offs[:, None] * BLOCK + offs[None, :], tl.trans(x))


def test_shared_memory_past_the_device_limit_is_a_clear_error(fresh_cache):
    from minitriton.passes.shared import Buffer, allocate
    buffers = [Buffer(None, 64 * 1024, 0, 3), Buffer(None, 64 * 1024, 2, 5), Buffer(None, 32 * 1024, 6, 7)]
    assert allocate(buffers) == 128 * 1024
    assert buffers[2].offset == 0  # not live with the others: shares their space
    x = np.zeros(512 * 512, np.float32)
    kernel = big_reduce_kernel.warmup(x, x, BLOCK=512, grid=(1,), target="sm_90", num_warps=8)
    needed = kernel.metadata["shared_bytes"]
    assert needed >= 512 * 512 * 4  # the transpose goes through shared memory
    from minitriton.passes.shared import assign_shared
    with pytest.raises(OutOfResources, match="shared memory needs"):
        fn = _layout_ir(big_reduce_kernel, x, 512)
        assign_shared(fn, limit=227 * 1024)


def _layout_ir(kernel, x, block):
    from minitriton.kernel import Options
    from minitriton.frontend import generate
    from minitriton.specialize import arg_spec, specialize
    from minitriton.passes.coalesce import coalesce
    from minitriton.passes.layout import assign_layouts
    from minitriton.passes.simplify import simplify
    specs = {"x_ptr": arg_spec(specialize("x_ptr", x)), "out_ptr": arg_spec(specialize("out_ptr", x))}
    fn = simplify(generate(kernel, specs, {"BLOCK": block}))
    assign_layouts(fn, Options(num_warps=8).num_warps, coalesce(fn, 8))
    return fn


def test_wgmma_operands_stay_live_until_the_dot_reads_them(fresh_cache):
    """Unaligned strides: no pipelining, so each operand is converted into shared memory by its own
    op; both must stay there (disjoint bytes) until the dot's wgmma has read them."""
    a = np.zeros((301, 130), np.float16)
    b = np.zeros((130, 203), np.float16)
    c = np.zeros((301, 203), np.float16)
    kernel = matmul_kernel.warmup(a, b, c, 301, 203, 130, 130, 1, 203, 1, 203, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                  BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", num_warps=4, num_stages=3,
                                  grid=(1,), target="sm_90a")
    assert "wgmma.mma_async" in kernel.asm["ptx"]
    import re
    ranges = [tuple(map(int, r)) for r in re.findall(r"smem_reads=\[\[(\d+), (\d+)\], \[(\d+), (\d+)\]\]",
                                                       kernel.asm["layout"])[0]]
    (a0, a1, b0, b1) = ranges
    assert a1 <= b0 or b1 <= a0, "A and B share bytes while the dot reads both"


def test_an_operand_is_stored_where_it_is_loaded(fresh_cache):
    """The grouped GEMM's operands come by plain loads (its rows have no known alignment): each is
    stored into shared memory right after its load (`passes.shared.store_operands_early`), so B's
    load comes after A's store and one tile at a time is held in registers. Not so when a store
    to global memory lies between: the conversion stays where the layout pass put it."""
    from minitriton.examples.grouped_gemm import grouped_matmul_kernel
    from minitriton.ir import Block, Op, Value, float16, tile
    from minitriton.layouts import MmaLayout, SharedOperandLayout
    from minitriton.passes.shared import store_operands_early
    table, sizes = np.zeros(4, np.int64), np.zeros(12, np.int32)
    kernel = grouped_matmul_kernel.warmup(table, table, table, sizes, sizes, 4, NUM_PROGRAMS=132, BLOCK_M=128,
                                          BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3, target="sm_90a")
    inner = kernel.asm["layout"].split("tile<128x128xf32> #mma0\n", 1)[1].split("yield", 1)[0]
    steps = [word for line in inner.splitlines() for word in ("load", "convert_layout", "barrier", "dot")
             if f" {word} " in f" {line.strip()} " or line.strip() == word]
    assert steps == ["load", "barrier", "convert_layout", "load", "convert_layout", "dot"], steps

    def op(name, operands, result=True):
        made = Op(name, operands, [], {}, [])
        made.results = [Value(tile((16, 16), float16), made)] if result else []
        return made
    load = op("load", [])
    store = op("store", [load.result], result=False)
    add = op("add", [load.result, load.result])
    convert = op("convert_layout", [load.result])
    convert.result.layout = SharedOperandLayout(0, MmaLayout((4, 1), version=3, instr_shape=(16, 16)))
    block = Block([], [load, store, add, convert])
    store_operands_early(block)
    assert [o.name for o in block.ops] == ["load", "store", "add", "convert_layout"]
    block.ops = [load, add, convert]
    store_operands_early(block)
    assert [o.name for o in block.ops] == ["load", "convert_layout", "add"]


def test_the_warp_number_comes_from_lane_0(fresh_cache):
    """A warpgroup's wgmma descriptors are computed from the warp's number shuffled from lane 0
    (`Lowering.uniform_warp`), so ptxas knows every lane has the same and keeps them in uniform
    registers. It is the only shuffle of a matmul, which reduces nothing."""
    a = np.zeros((256, 256), np.float16)
    kernel = matmul_kernel.warmup(a, a, a, 256, 256, 256, 256, 1, 256, 1, 256, 1, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
                                  BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3, grid=(1,),
                                  target="sm_90a")
    import re
    text = kernel.asm["ptx"]
    shuffles = re.findall(r"shfl\.sync\.\w+\.b32\s+%r\d+, %r(\d+), (\d+), 31, -1;", text)
    assert len(shuffles) == 1 and shuffles[0][1] == "0", shuffles
    assert re.search(rf"shr\.u32\s+%r{shuffles[0][0]}, %r\d+, 5;", text)  # tid / 32


# ------------------------------------------------------------------------- a conversion's padded rows

def test_an_accumulator_stored_row_major_meets_in_four_banks():
    """A warp's store of one register of an mma accumulator covers 8 rows, 4 lanes a row: with rows of
    512 bytes, all in the same 4 banks (8 passes); a 16-byte pad puts each row 4 banks further on
    (1 pass). The 16-byte reads of the blocked side pass as often either way."""
    from minitriton.layouts import MmaLayout, default_blocked
    from minitriton.passes.geometry import bank_passes
    shape, plain, padded = (128, 256), (256, 1), (264, 1)
    mma = MmaLayout((8, 1), version=3, instr_shape=(16, 256))
    registers = len(set(map(tuple, mma.register_offsets(shape))))
    assert bank_passes(mma, shape, plain, 2) == 8 * registers
    assert bank_passes(mma, shape, padded, 2) == registers
    blocked = default_blocked(shape, 8, size_per_thread=(1, 8))
    assert bank_passes(blocked, shape, plain, 2) == bank_passes(blocked, shape, padded, 2)


def test_the_epilogue_conversion_pads_its_rows(fresh_cache):
    """The tutorial matmul's epilogue (128 x 256 fp16 on 8 warps) writes rows 264 elements apart: a
    thread's stores 8 rows apart are 8 x 528 bytes apart, and the buffer holds 128 such rows."""
    import re

    a = aligned(1024 * 1024, np.float16).reshape(1024, 1024)
    kernel = matmul_kernel.warmup(a, a, a, 1024, 1024, 1024, 1024, 1, 1024, 1, 1024, 1, BLOCK_SIZE_M=128,
                                  BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, ACTIVATION="", num_warps=8,
                                  num_stages=3, grid=(1,), target="sm_90a")
    convert = [line for line in kernel.asm["layout"].splitlines()
               if "convert_layout" in line and "tile<128x256xf16>" in line and "smem_bytes" in line]
    assert len(convert) == 1 and f"smem_bytes={128 * 528}" in convert[0], convert
    offsets = {int(x) for x in re.findall(r"st\.shared\.b32 \t\[%r\w+\+(\d+)\]", kernel.asm["ptx"])}
    assert 8 * 528 in offsets and 8 * 512 not in offsets


# ------------------------------------------------------------------------- dot on CUDA cores (fp32)

@pytest.mark.parametrize("num_warps, worst", [(4, 2), (8, 1)])
def test_transposed_a_is_written_across_the_banks(num_warps, worst):
    """The FMA dot writes A (128 x 32, loaded 4 k to a lane) transposed; with its swizzle, a warp's
    32 stores of one register land in distinct banks, or at most 2 per bank where only two bits
    qualify. Unswizzled, 8 lanes share each bank."""
    from types import SimpleNamespace

    from minitriton.codegen.dot import _transposed_swizzle
    from minitriton.layouts import BlockedLayout
    from minitriton.passes.layout import fma_layout
    a = SimpleNamespace(shape=(128, 32), layout=BlockedLayout((1, 4), (4, 8), (num_warps, 1), (1, 0)))
    acc = SimpleNamespace(shape=(128, 128), layout=fma_layout((128, 128), num_warps))
    width = _transposed_swizzle(a, acc)

    def most_per_bank(width):
        mask = ((1 << width) - 1) << 2
        per_register = [[] for _ in a.layout.elements(0, 0, a.shape)]
        for lane in range(32):
            for r, (row, k) in enumerate(a.layout.elements(0, lane, a.shape)):
                per_register[r].append((k * 128 + (row ^ (k & mask))) % 32)
        return max(max(banks.count(b) for b in banks) for banks in per_register)
    assert most_per_bank(0) == 8
    assert most_per_bank(width) == worst


@needs_ptxas
def test_fp32_dot_on_cuda_cores_assembles_without_spills(fresh_cache):
    """The ieee fp32 matmul of the benchmark's configs: FMAs from shared memory, with 16-byte reads,
    and no register spilled. Pipelined, the operands come by cp.async into rings; with one stage,
    the dot stages them itself (B with 16-byte stores)."""
    a = aligned(128 * 128).reshape(128, 128)
    for bm, bn, bk, warps, stages in ((128, 128, 32, 4, 4), (128, 64, 32, 4, 4), (64, 64, 32, 4, 3),
                                      (128, 128, 64, 8, 3), (128, 64, 32, 4, 1)):
        kernel = triton.jit(matmul_kernel.fn).warmup(
            a, a, a, 128, 128, 128, 128, 1, 128, 1, 128, 1, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
            GROUP_SIZE_M=8, ACTIVATION="", INPUT_PRECISION="ieee", num_warps=warps, num_stages=stages, grid=(1,),
            target="sm_90a")
        ptx_text = kernel.asm["ptx"]
        assert ptx_text.count("fma.rn.f32") >= bm * bn // (32 * warps)
        assert "ld.shared.v4.b32" in ptx_text
        if stages > 1:
            assert "cp.async.cg.shared.global [%r" in ptx_text and "st.shared.v4.b32" not in \
                ptx_text.split("fma.rn.f32")[0]
        else:
            assert "st.shared.v4.b32" in ptx_text and "cp.async" not in ptx_text
        assert kernel.metadata["spill_stores"] == 0, (bm, bn, bk, warps, stages)


@triton.jit
def exp_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.exp(tl.load(x_ptr + offs)))


def test_a_bug_in_a_gpu_stage_is_reported_at_the_kernels_line_not_as_a_traceback(monkeypatch, tmp_path):
    """An exception inside codegen (here a rule made to fail) is a CompilationError at the op being
    lowered, saying it is the compiler's bug and what to do meanwhile; the cause is kept."""
    from minitriton.codegen import elementwise
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path))

    def broken(lw, op, dtype, x):
        raise KeyError("no such register")
    monkeypatch.setitem(elementwise.REGISTER_RULES, "exp", broken)
    with pytest.raises(triton.CompilationError) as caught:
        exp_kernel.warmup(aligned(64), BLOCK=64, grid=(1,), target="sm_90")
    error = caught.value
    assert "internal compiler error while compiling for sm_90: KeyError" in str(error)
    assert "tl.exp(tl.load(x_ptr + offs))" in str(error) and "bug in minitriton" in error.hint
    assert isinstance(error.__cause__, KeyError)


@triton.jit
def _wide_row_kernel(x_ptr, y_ptr, N: tl.constexpr):
    """A row of 16384 floats kept whole: at 16 warps each thread holds 32 of them, and more for
    the exp and the sum."""
    r = tl.arange(0, N)
    v = tl.load(x_ptr + r)
    w = tl.exp(v) * tl.sum(v * v, 0)
    tl.store(y_ptr + r, w / tl.sum(w, 0))


@needs_ptxas
@pytest.mark.parametrize("num_warps", [4, 16, 32])
def test_registers_fit_every_thread_of_the_block(fresh_cache, num_warps):
    """The PTX bounds the block (`.maxntid`; Triton's, `.reqntid`), so ptxas never gives a thread more
    registers than the block's threads can share (65536 of them; at most 255 a thread). Before, a
    16-warp layer norm backward took 146 registers a thread, and its launch was refused."""
    x = aligned(16384)
    kernel = _wide_row_kernel.warmup(x, x, N=16384, grid=(1,), target="sm_90a", num_warps=num_warps)
    assert f".maxntid {32 * num_warps}" in kernel.asm["ptx"]
    assert kernel.metadata["registers"] <= min(255, 65536 // (32 * num_warps))


@triton.jit
def wide_copy_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)


@pytest.mark.parametrize("block, num_warps, slow", [(65536, 1, True), (65536, 4, False), (2048, 1, False)])
def test_a_tile_of_thousands_of_registers_per_thread_is_warned_of_at_its_line(block, num_warps, slow):
    """The check runs on the kernel's layouts, before the long LLVM and ptxas steps it warns of."""
    from minitriton.codegen.backend import warn_of_long_straight_lines
    from minitriton.compiler import ASTSource, tile_ir
    from minitriton.errors import SlowCompileWarning
    from minitriton.passes.coalesce import coalesce
    from minitriton.passes.layout import assign_layouts
    from minitriton.kernel import launch_options
    src = ASTSource(wide_copy_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32"}, constexprs={"BLOCK": block})
    fn = tile_ir(src, launch_options(num_warps=num_warps))
    assign_layouts(fn, num_warps, coalesce(fn, num_warps), "sm_90a")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_of_long_straight_lines(fn, num_warps)
    assert [w.category for w in caught] == ([SlowCompileWarning] if slow else [])
    if slow:
        line = wide_copy_kernel.fn.__code__.co_firstlineno + 2  # offs = tl.arange(0, BLOCK)
        assert (caught[0].filename, caught[0].lineno) == (__file__, line)
        assert "65536 tile puts 2048 elements in each of the 32 threads" in str(caught[0].message)


@pytest.mark.parametrize("columns, warps", [(1024, 4), (16384, 16)])
def test_an_accumulator_started_from_zeros_takes_its_loads_layout(columns, warps):
    """Layer norm's `_mean = tl.zeros([BLOCK])` then `_mean += x` in a loop: the accumulator takes
    the layout `x` is loaded in (8 halves a thread), so nothing goes through shared memory but the
    reductions' few partial sums. With the zeros' default layout (one element a thread) every
    iteration converted the whole loaded row: 64 KB of shared memory at 16384 columns."""
    from minitriton.examples.tutorials import _layer_norm_fwd_fused
    x, w, stats = np.zeros((8, columns), np.float16), np.zeros(columns, np.float16), np.zeros(8, np.float32)
    kernel = _layer_norm_fwd_fused.warmup(x, x, w, w, stats, stats, columns, columns, 1e-5, BLOCK_SIZE=columns,
                                          grid=(1,), target="sm_90a", num_warps=warps)
    assert "convert_layout" not in kernel.asm["layout"]
    assert kernel.metadata.shared_bytes <= 4 * warps
