"""Exercise mode: a reader's piece runs in the compiler's place, only inside `use`, and what it
compiles is never mixed with what the compiler compiles by itself (the JIT's key, the disk cache)."""
import os

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton import exercise_hooks


@triton.jit
def copy_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets))


def aligned(n: int) -> np.ndarray:
    raw = np.zeros(n * 4 + 16, np.uint8)
    start = -raw.ctypes.data % 16
    return raw[start:start + n * 4].view(np.float32)


def one_at_a_time(contiguity, divisibility, mask_constancy, element_bytes, numel, num_warps):
    return 1


def test_a_piece_decides_the_ptx_and_is_kept_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITRITON_CACHE_DIR", str(tmp_path))
    x = aligned(512)
    plain = copy_kernel.warmup(x, x, BLOCK=512, target="sm_90").asm["ptx"]
    with exercise_hooks.use({"coalesce.vector_width": one_at_a_time}):
        narrow = copy_kernel.warmup(x, x, BLOCK=512, target="sm_90").asm["ptx"]
    again = copy_kernel.warmup(x, x, BLOCK=512, target="sm_90").asm["ptx"]
    assert "ld.global.v4.b32" in plain and again == plain
    assert "ld.global.v4.b32" not in narrow and narrow.count("ld.global.b32") == 4
    entries = [root for root, _, files in os.walk(tmp_path) if "manifest.json" in files]
    assert len(entries) == 1, "a kernel compiled with a reader's piece went into the disk cache"


@pytest.mark.no_ptx
def test_an_interpreted_launch_compiles_with_the_piece_once(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")
    calls = []

    def counted(fn):
        calls.append(fn.name)
        return exercise_hooks.POINTS["simplify.remove_dead"](fn)

    x, out = np.arange(64, dtype=np.float32), np.full(64, np.nan, np.float32)
    copy_kernel[(1,)](x, out, BLOCK=64)
    with exercise_hooks.use({"simplify.remove_dead": counted}):
        copy_kernel[(1,)](x, out, BLOCK=64)
        copy_kernel[(1,)](x, out, BLOCK=64)
    copy_kernel[(1,)](x, out, BLOCK=64)
    assert calls == ["copy_kernel"]
    np.testing.assert_array_equal(out, x)


def test_use_restores_what_was_there_and_refuses_unknown_pieces():
    assert exercise_hooks.installed() == ()
    with pytest.raises(ZeroDivisionError):
        with exercise_hooks.use({"coalesce.vector_width": one_at_a_time}):
            assert exercise_hooks.installed() == (("coalesce.vector_width", one_at_a_time),)
            1 / 0
    assert exercise_hooks.installed() == ()
    with pytest.raises(ValueError, match="coalesce.vector_width"):
        with exercise_hooks.use({"coalesce.vectorwidth": one_at_a_time}):
            pass


def test_an_error_in_a_piece_points_at_the_piece():
    def broken(*facts):
        raise KeyError("oops")

    x = aligned(512)
    with exercise_hooks.use({"coalesce.vector_width": broken}):
        with pytest.raises(triton.CompilationError, match="your own coalesce.vector_width"):
            copy_kernel.warmup(x, x, BLOCK=256, target="sm_80")
