"""Wrong launches, and the errors people get for them, in the interpreter and the compiled path.

One family per test: read-only arrays, grids, launch options, arguments of the wrong kind,
compile-time arguments, pointers that walk out of their array, and the rule every one of them
follows: a `CompilationError`, `LaunchError` or `InterpreterError` that names what is wrong, shown
at the user's line without minitriton's frames (MINITRITON_DEBUG=1 keeps them). The compiled
path is checked as far as it runs without a GPU: everything before the driver call (the grid,
the options, the binder, the compile).
"""
import inspect
import mmap
import os
import re
import traceback

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.errors import ArgumentKindError, CompilationError, InterpreterError, LaunchError
from minitriton.kernel import GRID_LIMITS, grid3


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


@pytest.fixture
def compiled(monkeypatch):
    """The compiled path on this machine: no interpreter, and (in CI) no GPU behind it."""
    monkeypatch.delenv("MINITRITON_INTERPRET", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)


@triton.jit
def update_kernel(out_ptr, n, HOW: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    if HOW == "store":
        tl.store(out_ptr + offsets, offsets.to(tl.float32), mask=mask)
    elif HOW == "atomic_add":
        tl.atomic_add(out_ptr + offsets, 1.0, mask=mask)
    elif HOW == "atomic_xchg":
        tl.atomic_xchg(out_ptr + offsets, 3.0, mask=mask)
    else:
        tl.atomic_cas(out_ptr + offsets * 0, 0.0, 5.0)


def poisoned(n=37, dtype=np.float32):
    return np.full(n, np.nan, dtype)


# ------------------------------------------------------------------------------- read-only arrays

def read_only(kind: str, values: np.ndarray, tmp_path) -> np.ndarray:
    """`values` as an array the caller cannot write: flagged read-only, a read-only memmap of a
    file, or a view of an immutable bytes object."""
    if kind == "flag":
        array = values.copy()
        array.flags.writeable = False
        return array
    if kind == "memmap":
        path = tmp_path / "values.bin"
        path.write_bytes(values.tobytes())
        return np.memmap(path, values.dtype, "r", shape=values.shape)
    if kind == "mmap":
        path = tmp_path / "values.bin"
        path.write_bytes(values.tobytes())
        with open(path, "rb") as f:
            return np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), values.dtype)
    assert kind == "bytes"
    return np.frombuffer(values.tobytes(), values.dtype)


READ_ONLY_KINDS = ["flag", "memmap", "mmap", "bytes"]


@pytest.mark.parametrize("how", ["store", "atomic_add", "atomic_xchg", "atomic_cas"])
@pytest.mark.parametrize("kind", READ_ONLY_KINDS)
def test_a_read_only_output_is_refused_and_left_untouched(kind, how, tmp_path):
    values = np.random.default_rng(0).standard_normal(37).astype(np.float32)
    values[0] = 0.0  # what atomic_cas compares with
    frozen = read_only(kind, values, tmp_path)
    before = bytes(frozen.tobytes())
    with pytest.raises(InterpreterError, match=r"out_ptr, which the caller made read-only") as info:
        update_kernel[(1,)](frozen, 37, HOW=how, BLOCK=64)
    assert info.value.loc.function == "update_kernel" and info.value.hint
    assert frozen.tobytes() == before
    if kind in ("memmap", "mmap"):
        assert (tmp_path / "values.bin").read_bytes() == values.tobytes()


@pytest.mark.parametrize("kind", READ_ONLY_KINDS)
def test_read_only_inputs_are_read_and_masked_lanes_never_write(kind, tmp_path):
    x = np.random.default_rng(1).standard_normal(37).astype(np.float32)
    out = poisoned()
    copy_kernel[(3,)](read_only(kind, x, tmp_path), out, 37, BLOCK=16)
    np.testing.assert_array_equal(out, x * 2)
    frozen = read_only(kind, x, tmp_path)
    update_kernel[(1,)](frozen, 0, HOW="store", BLOCK=64)  # every lane masked off: nothing written
    np.testing.assert_array_equal(frozen, x)


def test_a_read_only_view_of_a_writable_array_only_refuses_its_own_writes():
    out = poisoned()
    view = out.view()
    view.flags.writeable = False
    copy_kernel[(3,)](view, out, 37, BLOCK=16)  # reads through the view, writes through out: fine
    assert np.isnan(out).all()  # NaN * 2
    x = np.arange(37, dtype=np.float32)
    with pytest.raises(InterpreterError, match="store writes out_ptr, which the caller made read-only"):
        copy_kernel[(3,)](x, view, 37, BLOCK=16)


def test_the_gpu_path_takes_no_host_array_read_only_or_not():
    from minitriton.driver import pointer_of
    frozen = np.zeros(4, np.float32)
    frozen.flags.writeable = False
    for array in (frozen, np.zeros(4, np.float32)):
        with pytest.raises(LaunchError, match="is a host array"):
            pointer_of(array)


# ----------------------------------------------------------------------------------------- grids

BAD_GRIDS = [
    ((2.7,), r"size x is a float, not an int.*triton.cdiv"),
    ("12", r"got str '12'"),
    (None, r"got NoneType None"),
    (lambda meta: None, r"got NoneType None"),
    (lambda meta: (meta["n"] / 16,), r"size x is a float"),
    (((2,),), r"size x is a tuple"),
    ((), r"got \(\)"),
    ((1, 1, 1, 1), r"got \(1, 1, 1, 1\)"),
    ((-1,), r"size x is -1"),
    ((4, -2), r"size y is -2"),
    ((True,), r"size x is a bool"),
    ((np.bool_(True),), r"size x is a bool"),
    (2.0, r"got float 2.0"),
    ((GRID_LIMITS[0] + 1,), r"at most \(2147483647, 65535, 65535\).*size x is 2147483648"),
    ((2**40,), r"size x is 1099511627776"),
    ((1, 65536), r"size y is 65536"),
    ((1, 1, 65536), r"size z is 65536"),
    ((1, 1, 2**70), r"size z is"),
]


@pytest.mark.parametrize("path", ["interpreter", "compiled"])
@pytest.mark.parametrize("grid, match", BAD_GRIDS)
def test_a_bad_grid_is_refused_before_anything_runs(grid, match, path, request):
    """The grid is checked before either backend runs (a grid of 2**40 programs never starts) and
    before the kernel compiles, so without a GPU the compiled path says the same."""
    if path == "compiled":
        request.getfixturevalue("compiled")
    out = poisoned()
    with pytest.raises(LaunchError, match=r"the grid must be 1 to 3 non-negative sizes") as info:
        copy_kernel[grid](np.ones(37, np.float32), out, 37, BLOCK=16)
    assert type(info.value) is LaunchError
    assert np.isnan(out).all()
    assert re.search(match, str(info.value)), str(info.value)


@pytest.mark.parametrize("grid", [(3,), [3], 3, (np.int64(3),), np.array([3]), (np.int32(3), 1),
                                  lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),), (3, 1, 1)])
def test_grids_of_ints_launch(grid):
    x = np.random.default_rng(2).standard_normal(37).astype(np.float32)
    out = poisoned()
    copy_kernel[grid](x, out, 37, BLOCK=16)
    np.testing.assert_array_equal(out, x * 2)


@pytest.mark.parametrize("grid", [(0,), (3, 0), (3, 2, 0), 0])
def test_a_grid_with_a_zero_launches_nothing(grid):
    out = poisoned()
    copy_kernel[grid](np.ones(37, np.float32), out, 37, BLOCK=16)
    assert np.isnan(out).all()


def test_cuda_grid_limits_are_the_largest_grid():
    assert grid3(GRID_LIMITS) == GRID_LIMITS
    assert grid3([GRID_LIMITS[0]]) == (GRID_LIMITS[0], 1, 1)
    for axis in range(3):
        too_big = [1, 1, 1]
        too_big[axis] = GRID_LIMITS[axis] + 1
        with pytest.raises(LaunchError, match=f"size {'xyz'[axis]} is {GRID_LIMITS[axis] + 1}"):
            grid3(tuple(too_big))


def test_a_compiled_kernel_checks_its_grid_too():
    compiled = copy_kernel.warmup(np.ones(16, np.float32), poisoned(16), 16, BLOCK=16, grid=(1,))
    for grid in [(2**31,), (1, 70000), (1.5,), None]:
        with pytest.raises(LaunchError, match="the grid must be"):
            compiled[grid]


# ------------------------------------------------------------------------------- launch options

BAD_OPTIONS = [
    ("num_warps", True), ("num_warps", 3), ("num_warps", 0), ("num_warps", 64), ("num_warps", "4"),
    ("num_warps", 4.0), ("num_warps", np.bool_(True)),
    ("num_stages", "3"), ("num_stages", 2.5), ("num_stages", -1), ("num_stages", True), ("num_stages", [3]),
    ("maxnreg", 0), ("maxnreg", "64"),
]
RULES = {"num_warps": r"num_warps must be a power of 2 from 1 to 32", "num_stages": r"num_stages must be an int >= 0",
         "maxnreg": r"maxnreg must be a positive int"}


@pytest.mark.parametrize("where", ["launch", "compiled launch", "warmup", "autotune config"])
@pytest.mark.parametrize("option, value", BAD_OPTIONS)
def test_a_bad_launch_option_is_refused(option, value, where, request):
    x, out = np.ones(16, np.float32), poisoned(16)
    with pytest.raises(LaunchError, match=RULES[option] + r".*got " + re.escape(repr(value))):
        if where == "launch":
            copy_kernel[(1,)](x, out, 16, BLOCK=16, **{option: value})
        elif where == "compiled launch":
            request.getfixturevalue("compiled")
            copy_kernel[(1,)](x, out, 16, BLOCK=16, **{option: value})
        elif where == "warmup":
            copy_kernel.warmup(x, out, 16, BLOCK=16, grid=(1,), target="sm_80", **{option: value})
        else:  # refused where the config is written, not when a launch times it
            triton.Config({"BLOCK": 16}, **{option: value})
    assert np.isnan(out).all()


@pytest.mark.parametrize("options, recorded", [
    ({"num_warps": np.int64(8)}, (8, 3)), ({"num_stages": np.int32(2)}, (4, 2)), ({"num_stages": 0}, (4, 0)),
    ({"num_stages": 1}, (4, 1)), ({"num_stages": None, "num_warps": None}, (4, 3)),
])
def test_options_triton_takes_are_taken(options, recorded):
    """A numpy integer is a count; None is the default, as Triton's parse_options reads it."""
    x = np.random.default_rng(3).standard_normal(37).astype(np.float32)
    out = poisoned()
    kernel = copy_kernel[(3,)](x, out, 37, BLOCK=16, **options)
    np.testing.assert_array_equal(out, x * 2)
    assert (kernel.metadata.num_warps, kernel.metadata.num_stages) == recorded
    warm = copy_kernel.warmup(x, out, 37, BLOCK=16, grid=(3,), target="sm_80", **options)
    assert (warm.metadata.num_warps, warm.metadata.num_stages) == recorded


def test_an_autotune_config_with_none_launches_with_the_default():
    @triton.autotune(configs=[triton.Config({"BLOCK": 16}, num_warps=None, num_stages=None)], key=["n"])
    @triton.jit
    def tuned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)

    x, out = np.arange(37, dtype=np.float32), poisoned()
    kernel = tuned[(3,)](x, out, 37)
    np.testing.assert_array_equal(out, x)
    assert (kernel.metadata.num_warps, kernel.metadata.num_stages) == (4, 3)


# ----------------------------------------------------------------------- arguments of the wrong kind

@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(out_ptr + offsets, x * alpha, mask=offsets < n)


@triton.jit
def strided_kernel(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets * stride))


X37 = np.arange(37, dtype=np.float32)

WRONG_KINDS = [  # (kernel, arguments, the argument at fault, what it is, the kernel line that uses it)
    ("scale", (X37, None, 2.0, 37), "out_ptr", r"is None, but the kernel uses it as a pointer", "tl.store"),
    ("scale", (X37, 1.5, 2.0, 37), "out_ptr", r"is the float 1.5, but the kernel uses it as a pointer", "tl.store"),
    ("scale", (X37, 7, 2.0, 37), "out_ptr", r"is the int 7, but the kernel uses it as a pointer", "tl.store"),
    ("scale", (True, poisoned(), 2.0, 37), "x_ptr", r"is the bool True, but the kernel uses it as a pointer", "x = "),
    ("scale", (None, poisoned(), 2.0, 37), "x_ptr", r"is None, but the kernel uses it as a pointer", "x = "),
    ("scale", (X37, poisoned(), np.array(2.0), 37), "alpha", r"is a 0-d array.*uses it as a number", "tl.store"),
    ("strided", (X37, poisoned(16), np.array(2)), "stride", r"is a 0-d array.*uses it as a number", "tl.load"),
    ("strided", (X37, poisoned(16), np.arange(4)), "stride", r"is an array of shape \(4,\).*uses it as a number",
     "tl.load"),
]


@pytest.mark.parametrize("path", ["interpreter", "warmup sm_80"])
@pytest.mark.parametrize("which, args, name, match, used_at", WRONG_KINDS)
def test_an_argument_of_the_wrong_kind_is_named_at_its_use(which, args, name, match, used_at, path):
    """None or a number where the kernel uses a pointer, an array (a 0-d one too) where it uses a
    number: the launch's mistake, named, at the kernel line that shows the use. It is both a
    LaunchError and a CompilationError (what Triton raises for it)."""
    kernel = {"scale": scale_kernel, "strided": strided_kernel}[which]
    with pytest.raises(ArgumentKindError) as info:
        if path == "interpreter":
            kernel[(1,)](*args, BLOCK=16)
        else:
            kernel.warmup(*args, BLOCK=16, grid=(1,), target="sm_80")
    err = info.value
    assert isinstance(err, LaunchError) and isinstance(err, CompilationError)
    assert f"argument `{name}` of {kernel.__name__}" in err.message
    assert re.search(match, err.message), err.message
    lines, first = inspect.getsourcelines(kernel.fn)
    assert err.loc.file == __file__ and used_at in lines[err.loc.line - first]
    assert err.hint.startswith("pass a number" if "number" in match else "pass an array")
    if "0-d" in match:
        assert f"{name}.item()" in err.hint


@triton.jit
def pointer_sum_kernel(x_ptr, y_ptr, out_ptr, n, FORM: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    if FORM == "load":
        tl.store(out_ptr + offsets, tl.load(x_ptr + y_ptr + offsets))  # <-
    elif FORM == "store":
        tl.store(out_ptr + x_ptr + offsets, offsets.to(tl.float32))  # <-
    else:
        tl.store(out_ptr + offsets, tl.load(y_ptr + (x_ptr + offsets), mask=offsets < n))  # <-


@pytest.mark.parametrize("path", ["interpreter", "warmup sm_80"])
@pytest.mark.parametrize("form", ["load", "store", "offsets_first"])
def test_adding_two_pointer_arguments_is_the_kernels_mistake(form, path):
    """Either pointer made a number would compile, so no launch argument explains the failure:
    the language's own error, at the line that adds them, in Triton's words."""
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError) as info:
        if path == "interpreter":
            pointer_sum_kernel[(1,)](x, x, poisoned(16), 16, FORM=form, BLOCK=16)
        else:
            pointer_sum_kernel.warmup(x, x, x, 16, FORM=form, BLOCK=16, grid=(1,), target="sm_80")
    err = info.value
    assert not isinstance(err, LaunchError), err
    assert "cannot add pointers together" in err.message
    lines, first = inspect.getsourcelines(pointer_sum_kernel.fn)
    assert err.loc.file == __file__ and lines[err.loc.line - first].rstrip().endswith("# <-")


@triton.jit
def optional_bias_kernel(x_ptr, bias_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offsets, mask=offsets < n)
    tl.store(out_ptr + offsets, x, mask=offsets < n)


@triton.jit
def total_kernel(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.atomic_add(total_ptr, tl.sum(tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)))


def test_none_and_0d_arrays_where_the_kernel_means_them_are_no_mistake():
    x, bias = np.arange(20, dtype=np.float32), np.full(20, 0.5, np.float32)
    for b, expected in [(None, x), (bias, x + bias)]:
        out = poisoned(20)
        optional_bias_kernel[(1,)](x, b, out, 20, BLOCK=32)
        np.testing.assert_array_equal(out, expected)
    total = np.zeros((), np.float32)  # a 0-d array used as a pointer to its one element
    total_kernel[(1,)](x, total, 20, BLOCK=32)
    assert total == x.sum()


def test_a_kernel_mistake_no_argument_explains_stays_the_kernels():
    @triton.jit
    def wrong(x_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) & 1, mask=offsets < n)  # & on floats

    with pytest.raises(CompilationError) as info:
        wrong[(1,)](np.zeros(16, np.float32), 16, BLOCK=16)
    assert type(info.value) is CompilationError


@triton.jit
def star_args_kernel(x_ptr, *rest):
    tl.store(x_ptr, 1.0)


@triton.jit
def star_kwargs_kernel(x_ptr, **options):
    tl.store(x_ptr, 1.0)


@triton.jit
async def async_kernel(x_ptr):
    tl.store(x_ptr, 1.0)


@pytest.mark.parametrize("kernel, at, match", [
    (star_args_kernel, "rest", r"a kernel cannot take \*rest"),
    (star_kwargs_kernel, "options", r"a kernel cannot take \*\*options"),
    (async_kernel, "async def", r"an async def cannot be a @jit function"),
])
@pytest.mark.parametrize("how", ["launch", "warmup"])
def test_kernels_that_cannot_be_compiled_are_refused_at_their_def(kernel, at, match, how):
    x = np.zeros(4, np.float32)
    with pytest.raises(CompilationError, match=match) as info:
        if how == "launch":
            kernel[(1,)](x)
        else:
            kernel.warmup(x, grid=(1,), target="sm_80")
    lines, first = inspect.getsourcelines(kernel.fn)
    line = next(first + i for i, text in enumerate(lines) if "def " in text)
    assert info.value.loc.file == __file__ and info.value.loc.line == line
    assert lines[line - first][info.value.loc.col:].startswith(at)
    assert info.value.hint


@pytest.mark.parametrize("value, match", [
    (np.arange(16), r"argument `BLOCK` is a tl.constexpr.*got an array"),
    (np.array(16), r"argument `BLOCK` is a tl.constexpr.*got an array"),
    ({"size": 16}, r"argument `BLOCK` is a tl.constexpr.*must be hashable; got a dict"),
    ([np.arange(2)], r"argument `BLOCK\[0\]` is a tl.constexpr.*got an array"),
])
def test_an_unfit_constexpr_is_a_launch_error(value, match):
    with pytest.raises(LaunchError, match=match):
        copy_kernel[(1,)](np.ones(16, np.float32), poisoned(16), 16, BLOCK=value)


@pytest.mark.parametrize("block", [np.int64(16), np.int32(16), np.uint8(16), np.int64(triton.next_power_of_2(np.int64(11)))])
def test_a_numpy_integer_constexpr_is_that_int(block):
    x = np.random.default_rng(4).standard_normal(37).astype(np.float32)
    out = poisoned()
    kernel = copy_kernel[(3,)](x, out, 37, BLOCK=block)
    np.testing.assert_array_equal(out, x * 2)
    assert kernel is copy_kernel[(3,)](x, out, 37, BLOCK=16)  # one specialization: BLOCK = 16
    copy_kernel.warmup(x, out, 37, BLOCK=block, grid=(3,), target="sm_80")


@pytest.mark.parametrize("path", ["interpreter", "warmup sm_80"])
@pytest.mark.parametrize("n", [-2**63 - 1, 2**64, -2**100, 2**100])
def test_an_int_outside_64_bits_is_out_of_range(n, path):
    with pytest.raises(OverflowError, match=r"argument `n` = -?\d+ is out of range") as info:
        if path == "interpreter":
            copy_kernel[(1,)](np.ones(16, np.float32), poisoned(16), n, BLOCK=16)
        else:
            copy_kernel.warmup(np.ones(16, np.float32), poisoned(16), n, BLOCK=16, grid=(1,), target="sm_80")
    assert isinstance(info.value, LaunchError)


@pytest.mark.parametrize("call, match", [
    (lambda: copy_kernel[(1,)](X37, poisoned(), BLOCK=16), r"missing a required argument: 'n'"),
    (lambda: copy_kernel[(1,)](X37, poisoned(), 37, 16, 3), r"too many positional arguments"),
    (lambda: copy_kernel[(1,)](X37, poisoned(), 37, BLOCK=16, BLOK=16), r"'BLOK'.*did you mean BLOCK\?"),
    (lambda: copy_kernel[(1,)](X37, poisoned(), 37, BLOCK=16, num_warp=4), r"did you mean num_warps\?"),
    (lambda: copy_kernel[(1,)](X37, poisoned(), 37, 16, BLOCK=16), r"multiple values for argument 'BLOCK'"),
])
def test_a_call_that_does_not_fit_the_parameters_names_them(call, match):
    with pytest.raises(LaunchError, match=match) as info:
        call()
    assert "its parameters are (x_ptr, out_ptr, n, BLOCK)" in str(info.value)
    assert "num_warps, num_stages" in str(info.value)


# ------------------------------------------------------------------- pointers stay in their array

@triton.jit
def walking_kernel(x_ptr, out_ptr, steps, BLOCK: tl.constexpr):
    """A pointer carried around a loop: out_ptr advanced a block at a time."""
    pointers = out_ptr + tl.arange(0, BLOCK)
    for _ in range(steps):
        tl.store(pointers, tl.load(x_ptr + tl.arange(0, BLOCK)))
        pointers += BLOCK


@triton.jit
def chosen_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    pointers = tl.where(offsets % 2 == 0, x_ptr + offsets, y_ptr + offsets * 3)
    tl.store(out_ptr + offsets, tl.load(pointers))


def neighbours(layout: str):
    """x (16 floats) and out (16 floats) lying next to each other in one buffer, in either order."""
    buffer = np.full(32, np.nan, np.float32)
    x, out = (buffer[:16], buffer[16:]) if layout == "x first" else (buffer[16:], buffer[:16])
    x[:] = np.arange(16)
    return buffer, x, out


@pytest.mark.parametrize("layout, stride, element, where", [
    ("x first", 2, r"x_ptr\[16\], past the end of its 16 elements", "out_ptr"),
    ("x first", 3, r"x_ptr\[18\], past the end of its 16 elements", "out_ptr"),
    ("out first", -1, r"x_ptr\[-1\], before its first element", "out_ptr"),
])
def test_a_stride_that_walks_into_another_argument_is_caught_and_named(layout, stride, element, where):
    buffer, x, out = neighbours(layout)
    before = buffer.copy()
    with pytest.raises(InterpreterError, match=element + f".*; that address is in {where}, another argument.s array") as info:
        strided_kernel[(1,)](x, out, stride, BLOCK=16)
    lines, first = inspect.getsourcelines(strided_kernel.fn)
    assert "tl.load" in lines[info.value.loc.line - first]
    np.testing.assert_array_equal(buffer, before)


def test_a_pointer_carried_by_a_loop_keeps_its_array():
    buffer, x, out = neighbours("out first")
    walking_kernel[(1,)](x, out, 1, BLOCK=16)
    np.testing.assert_array_equal(out, np.arange(16))
    with pytest.raises(InterpreterError, match=r"store writes out_ptr\[16\], past the end of its 16 elements.*; "
                                               r"that address is in x_ptr"):
        walking_kernel[(1,)](x, out, 2, BLOCK=16)
    np.testing.assert_array_equal(x, np.arange(16))


def test_a_pointer_chosen_between_two_arguments_may_be_in_either():
    x, y, out = np.arange(16, dtype=np.float32), -np.arange(48, dtype=np.float32), poisoned(16)
    chosen_kernel[(1,)](x, y, out, BLOCK=16)
    offsets = np.arange(16)
    np.testing.assert_array_equal(out, np.where(offsets % 2 == 0, x, y[offsets * 3]))
    with pytest.raises(InterpreterError, match=r"y_ptr\[\d+\], past the end of its 40 elements"):
        chosen_kernel[(1,)](x, y[:40], out, BLOCK=16)


def test_one_array_given_for_two_arguments_is_either():
    x = np.arange(37, dtype=np.float32)
    copy_kernel[(3,)](x, x, 37, BLOCK=16)
    np.testing.assert_array_equal(x, np.arange(37) * 2)


# ---------------------------------------------------------------------------------- the error rule

def _wrong_launches():
    x = np.zeros(8, np.float32)
    frozen = np.zeros(37, np.float32)
    frozen.flags.writeable = False
    return {
        "out of bounds (interpreter)": lambda: copy_kernel[(1,)](x, poisoned(), 37, BLOCK=64),
        "read-only output (interpreter)": lambda: copy_kernel[(3,)](X37, frozen, 37, BLOCK=16),
        "walks into another array": lambda: strided_kernel[(1,)](*neighbours("x first")[1:], 2, BLOCK=16),
        "bad grid": lambda: copy_kernel[(2.5,)](X37, poisoned(), 37, BLOCK=16),
        "bad option": lambda: copy_kernel[(1,)](X37, poisoned(), 37, BLOCK=16, num_stages="3"),
        "wrong kind": lambda: scale_kernel[(1,)](X37, None, 2.0, 37, BLOCK=16),
        "constexpr array": lambda: copy_kernel[(1,)](X37, poisoned(), 37, BLOCK=np.arange(3)),
        "out of range": lambda: copy_kernel[(1,)](X37, poisoned(), 2**64, BLOCK=16),
        "missing argument": lambda: copy_kernel[(1,)](X37, BLOCK=16),
        "star args": lambda: star_args_kernel[(1,)](x),
        "kernel mistake": lambda: copy_kernel[(1,)](X37, poisoned(), 37, BLOCK=12),
        "warmup": lambda: copy_kernel.warmup(X37, poisoned(), 37, BLOCK=12, grid=(1,), target="sm_80"),
        "autotuned launch": lambda: _tuned[(1,)](x, poisoned(), 2**64),
        "config": lambda: triton.Config({}, num_warps=3),
    }


@triton.autotune(configs=[triton.Config({"BLOCK": 16})], key=["n"])
@triton.jit
def _tuned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


ENTRY_POINTS = {"errors.py", "jit.py"}  # where a user's error leaves minitriton: the entry that re-raises it


@pytest.mark.parametrize("case", list(_wrong_launches()))
def test_a_users_error_shows_the_users_line_and_none_of_minitritons_frames(case):
    with pytest.raises((CompilationError, LaunchError, InterpreterError)) as info:
        _wrong_launches()[case]()
    text = "".join(traceback.format_exception(info.value))
    frames = traceback.extract_tb(info.value.__traceback__)
    inside = [f for f in frames if os.sep + "minitriton" + os.sep in f.filename]
    assert {os.path.basename(f.filename) for f in inside} <= ENTRY_POINTS and len(inside) <= 2, text
    assert "interpreter.py" not in text and "address_space.py" not in text and "frontend" not in text
    ours = [f for f in frames if f.filename == __file__]
    assert ours and ours[-1].name == "<lambda>", text  # the line that launched
    assert "During handling of the above exception" not in text


def test_minitriton_debug_keeps_the_frames_and_the_cause(monkeypatch):
    monkeypatch.setenv("MINITRITON_DEBUG", "1")
    with pytest.raises(InterpreterError) as info:
        _wrong_launches()["out of bounds (interpreter)"]()
    files = {os.path.basename(f.filename) for f in traceback.extract_tb(info.value.__traceback__)}
    assert {"interpreter.py", "address_space.py"} <= files
    with pytest.raises(ArgumentKindError) as info:
        _wrong_launches()["wrong kind"]()
    assert type(info.value.__cause__) is CompilationError


@pytest.mark.parametrize("option", [{"debug": True}, {"waves_per_eu": 2}, {"matrix_instr_nonkdim": 16},
                                    {"grf_mode": "large"}, {"sanitize_overflow": False}], ids=lambda o: next(iter(o)))
def test_the_options_of_tritons_other_backends_are_ignored(option, device):
    """A launch written for several GPUs gives options that Triton's NVIDIA backend drops (AMD's
    waves_per_eu, Intel's grf_mode, debug): here too they change nothing, on either backend, and
    through an autotuner's config as through a launch (copy_kernel doubles what it copies)."""
    x = np.arange(37, dtype=np.float32)
    out = device.array(poisoned())
    copy_kernel[(1,)](device.array(x), out, 37, BLOCK=64, **option)
    np.testing.assert_array_equal(device.numpy(out)[:37], 2 * x)
    tuned = triton.autotune([triton.Config({"BLOCK": 64, **option})], key=[])(copy_kernel)
    out = device.array(poisoned())
    tuned[(1,)](device.array(x), out, 37)
    np.testing.assert_array_equal(device.numpy(out)[:37], 2 * x)
