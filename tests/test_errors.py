"""Mistakes in kernels and launches, and the errors people get for them.

Each kernel below has one mistake, on the line marked `# <-`. The error must be a `CompilationError`
(exactly that type) whose text starts with this file's path and that line, shows the line with a
caret under the right column, says what went wrong and, where one helps, what to write instead.
No compiler frames are left in its traceback: the message is the whole story.
"""
import inspect
import linecache
import re
import traceback

import numpy as np
import pytest

import minitriton as triton
import minitriton.language as tl
from minitriton.errors import CompilationError, LaunchError


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("MINITRITON_INTERPRET", "1")


X = np.zeros(16, np.float32)


def expect_error(kernel, *args, match: str, hint: str | None = None, at: str | None = None,
                 marked_in=None, **kwargs):
    """Launch `kernel` and check the CompilationError against the line marked `# <-` in its source
    (or in the source of `marked_in`, a helper it calls)."""
    with pytest.raises(CompilationError) as info:
        kernel[(1,)](*args, **kwargs)
    err = info.value
    assert type(err) is CompilationError
    lines, first = inspect.getsourcelines((marked_in or kernel).fn)
    marked = [first + i for i, text in enumerate(lines) if "# <-" in text]
    assert len(marked) == 1, "mark exactly one line of the kernel with `# <-`"
    line = marked[0]
    text = str(err)
    assert text.startswith(f"{__file__}:{line}:{err.loc.col + 1}"), text
    assert err.loc.line == line and err.loc.file == __file__
    source = linecache.getline(__file__, line).rstrip("\n")
    shown = text.splitlines()
    assert shown[1] == f"    {source}", text
    assert shown[2] == "    " + " " * err.loc.col + "^", text
    indent = len(source) - len(source.lstrip())
    assert err.loc.col >= indent
    if at is not None:
        assert err.loc.col == source.index(at), f"caret at column {err.loc.col}, expected under {at!r}\n{text}"
    assert re.search(match, err.message), text
    if hint is not None:
        assert err.hint is not None and re.search(hint, err.hint), text
        assert shown[-1].startswith("  hint: ")
    # The compiler's own frames are cut: what is left is the launch and the line that re-raises.
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "minitriton" in f.filename]
    assert len(frames) <= 2, frames
    cause = err.__cause__  # the language's error, as Triton chains it: its message, none of its frames
    assert cause is None or cause.__traceback__ is None or not type(cause).__module__.startswith("minitriton.language")
    if type(cause).__name__ == "SemanticError":
        assert str(cause) in err.message
    return err


# ----------------------------------------------------------------------- unsupported constructs

@triton.jit
def with_kernel(x_ptr):
    with open("f") as f:  # <-
        pass


@triton.jit
def try_kernel(x_ptr):
    try:  # <-
        tl.store(x_ptr, 1.0)
    except ValueError:
        pass


@triton.jit
def lambda_kernel(x_ptr):
    f = lambda v: v + 1  # <-
    tl.store(x_ptr, f(1.0))


@triton.jit
def listcomp_kernel(x_ptr, n):
    values = [i * 2 for i in range(n)]  # <-
    tl.store(x_ptr, values[0])


@triton.jit
def break_kernel(x_ptr, n):
    for i in range(n):
        if i > 3:
            break  # <-
        tl.store(x_ptr + i, 1.0)


@triton.jit
def continue_kernel(x_ptr, n):
    for i in range(n):
        if i > 3:
            continue  # <-
        tl.store(x_ptr + i, 1.0)


@triton.jit
def nested_def_kernel(x_ptr):
    def helper(v):  # <-
        return v
    tl.store(x_ptr, helper(1.0))


@triton.jit
def class_kernel(x_ptr):
    class Point:  # <-
        pass


@triton.jit
def import_kernel(x_ptr):
    import math  # <-
    tl.store(x_ptr, math.pi)


@triton.jit
def raise_kernel(x_ptr, n):
    if n > 3:
        raise ValueError("too big")  # <-


COUNTER = 0


@triton.jit
def global_kernel(x_ptr):
    global COUNTER  # <-
    tl.store(x_ptr, 1.0)


@triton.jit
def for_else_kernel(x_ptr, n):
    for i in range(n):  # <-
        tl.store(x_ptr + i, 1.0)
    else:
        pass


@triton.jit
def starred_kernel(x_ptr):
    a, *rest = (1, 2, 3)  # <-
    tl.store(x_ptr, a)


@pytest.mark.parametrize("kernel, match, hint, args", [
    (with_kernel, r"`with` blocks are not supported", None, (X,)),
    (try_kernel, r"try/except is not supported", None, (X,)),
    (lambda_kernel, r"lambdas are not supported", r"@jit function at module level", (X,)),
    (listcomp_kernel, r"a comprehension is unrolled at compile time", r"loop over range", (X, 4)),
    (break_kernel, r"`break` is not supported", r"while loop|mask", (X, 8)),
    (continue_kernel, r"`continue` is not supported", r"wrap the rest", (X, 8)),
    (nested_def_kernel, r"nested function definitions are not supported", r"module level with @jit", (X,)),
    (class_kernel, r"class definitions are not supported", None, (X,)),
    (import_kernel, r"imports are not supported", r"module level", (X,)),
    (raise_kernel, r"`raise` is not supported", r"static_assert|device_assert", (X, 8)),
    (global_kernel, r"`global` is not supported", None, (X,)),
    (for_else_kernel, r"for \.\.\. else is not supported", None, (X, 8)),
    (starred_kernel, r"`\*` unpacking is not supported", None, (X,)),
], ids=lambda v: getattr(v, "__name__", None))
def test_unsupported_constructs(kernel, match, hint, args):
    expect_error(kernel, *args, match=match, hint=hint)


# ----------------------------------------------------------------------------------------- names

@triton.jit
def unknown_name_kernel(x_ptr):
    tl.store(x_ptr, undefined_value)  # <-


@triton.jit
def unknown_tl_kernel(x_ptr):
    tl.store(x_ptr, tl.no_such_function(1.0))  # <-


@triton.jit
def unsupported_builtin_kernel(x_ptr):
    tl.store(x_ptr, sorted((3, 1))[0])  # <-


def test_unknown_name():
    expect_error(unknown_name_kernel, X, match=r"name `undefined_value` is not defined",
                 hint="arguments|module-level", at="undefined_value")


def test_unknown_language_function():
    expect_error(unknown_tl_kernel, X, match=r"no attribute `no_such_function`", at="tl.no_such")


def test_unsupported_python_builtin():
    expect_error(unsupported_builtin_kernel, X, match=r"builtin `sorted` is not supported", at="sorted")


# ----------------------------------------------------------------------- compile-time constants

@triton.jit
def runtime_arange_kernel(x_ptr, n):
    offs = tl.arange(0, n)  # <-
    tl.store(x_ptr + offs, 1.0)


@triton.jit
def runtime_zeros_kernel(x_ptr, n):
    z = tl.zeros((n,), dtype=tl.float32)  # <-
    tl.store(x_ptr, z)


@triton.jit
def arange_not_power_of_two_kernel(x_ptr):
    offs = tl.arange(0, 10)  # <-
    tl.store(x_ptr + offs, 1.0)


@triton.jit
def constexpr_from_runtime_kernel(x_ptr, n):
    SIZE: tl.constexpr = n * 2  # <-
    tl.store(x_ptr, SIZE)


@triton.jit
def _needs_constexpr(x, BLOCK: tl.constexpr):
    return x + tl.sum(tl.arange(0, BLOCK))  # <- the callee's line: where a constant is needed


@triton.jit
def helper_constexpr_kernel(x_ptr, n):
    tl.store(x_ptr, _needs_constexpr(1.0, n))


@triton.jit
def static_assert_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")  # <-


def test_arange_with_runtime_bound():
    expect_error(runtime_arange_kernel, X, 8, match=r"arange's end must be a compile-time constant",
                 hint="tl.constexpr", at="tl.arange")


def test_zeros_with_runtime_shape():
    expect_error(runtime_zeros_kernel, X, 8, match=r"shape must be a compile-time constant",
                 hint="tl.constexpr", at="tl.zeros")


def test_arange_not_power_of_two():
    expect_error(arange_not_power_of_two_kernel, X, match=r"10 elements: its range must be a power of 2",
                 hint="next_power_of_2")


def test_constexpr_annotation_on_runtime_value():
    expect_error(constexpr_from_runtime_kernel, X, 8, match=r"SIZE is annotated tl.constexpr")


def test_runtime_value_for_helper_constexpr():
    """Bound as it is (as Triton binds it); the error comes where the callee needs a constant."""
    expect_error(helper_constexpr_kernel, X, 8, match=r"arange's end must be a compile-time constant",
                 hint="tl.constexpr", marked_in=_needs_constexpr)


def test_static_assert():
    expect_error(static_assert_kernel, X, BLOCK=24, match=r"static_assert failed: BLOCK must be a multiple")


# -------------------------------------------------------------------------------- types, shapes

@triton.jit
def shape_mismatch_kernel(x_ptr):
    a = tl.arange(0, 8)
    b = tl.arange(0, 16)
    tl.store(x_ptr + a, a + b)  # <-


@triton.jit
def float_bitwise_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = x & 1  # <-
    tl.store(x_ptr + tl.arange(0, 8), y)


@triton.jit
def load_non_pointer_kernel(x_ptr, n):
    v = tl.load(n + tl.arange(0, 8))  # <-
    tl.store(x_ptr, v)


@triton.jit
def store_shape_mismatch_kernel(x_ptr):
    offs = tl.arange(0, 8)
    value = tl.zeros((16,), dtype=tl.float32)
    tl.store(x_ptr + offs, value)  # <-


@triton.jit
def store_to_scalar_kernel(x_ptr):
    f = tl.load(x_ptr)
    tl.store(f, 1.0)  # <-


@triton.jit
def dot_shapes_kernel(x_ptr):
    a = tl.zeros((16, 32), dtype=tl.float16)
    b = tl.zeros((16, 32), dtype=tl.float16)
    c = tl.dot(a, b)  # <-
    tl.store(x_ptr, tl.sum(tl.sum(c, axis=1), axis=0))


@triton.jit
def dot_small_kernel(x_ptr):
    a = tl.zeros((16, 8), dtype=tl.float16)
    b = tl.zeros((8, 16), dtype=tl.float16)
    c = tl.dot(a, b)  # <-
    tl.store(x_ptr, tl.sum(tl.sum(c, axis=1), axis=0))


@triton.jit
def dot_1d_kernel(x_ptr):
    a = tl.zeros((16,), dtype=tl.float16)
    c = tl.dot(a, a)  # <-
    tl.store(x_ptr, c)


@triton.jit
def reshape_numel_kernel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.reshape(a, (4, 8))  # <-
    tl.store(x_ptr, tl.sum(tl.sum(b, axis=1), axis=0))


@triton.jit
def pointer_plus_float_kernel(x_ptr):
    p = x_ptr + 1.5  # <-
    tl.store(p, 1.0)


@triton.jit
def index_tile_kernel(x_ptr):
    a = tl.arange(0, 16)
    tl.store(x_ptr, a[3])  # <-


@triton.jit
def matmul_operator_kernel(x_ptr):
    a = tl.zeros((16, 16), dtype=tl.float16)
    c = a @ a  # <-
    tl.store(x_ptr, tl.sum(tl.sum(c, axis=1), axis=0))


@triton.jit
def bitcast_width_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = x.to(tl.int16, bitcast=True)  # <-
    tl.store(x_ptr + tl.arange(0, 8), y)


@triton.jit
def other_without_mask_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8), other=0.0)  # <-
    tl.store(x_ptr + tl.arange(0, 8), x)


@triton.jit
def signedness_kernel(x_ptr, u_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    u = tl.load(u_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), x // u)  # <-


@triton.jit
def program_id_axis_kernel(x_ptr):
    tl.store(x_ptr, tl.program_id(3))  # <-


@triton.jit
def reduce_scalar_kernel(x_ptr):
    v = tl.load(x_ptr)
    tl.store(x_ptr, tl.sum(v, axis=0))  # <-


@triton.jit
def broadcast_to_kernel(x_ptr):
    a = tl.arange(0, 8)
    b = tl.broadcast_to(a, (4, 16))  # <-
    tl.store(x_ptr, tl.sum(tl.sum(b, axis=1), axis=0))


def test_shape_mismatch_in_binary_op():
    expect_error(shape_mismatch_kernel, X, match=r"cannot broadcast shapes \[8\] and \[16\]",
                 hint="must match or one of them be 1", at="a + b")


def test_bitwise_op_on_floats():
    expect_error(float_bitwise_kernel, X, match=r"invalid operands of type fp32", hint="integers", at="x & 1")


def test_load_from_non_pointer():
    expect_error(load_non_pointer_kernel, X, 8, match=r"tl.load needs a pointer", hint=r"x_ptr \+ offsets",
                 at="tl.load")


def test_store_value_shape_mismatch():
    expect_error(store_shape_mismatch_kernel, X, match=r"cannot store a value of shape \[16\] through "
                 r"pointers of shape \[8\]", at="tl.store")


def test_store_to_non_pointer():
    expect_error(store_to_scalar_kernel, X, match=r"tl.store needs a pointer")


def test_dot_wrong_shapes():
    expect_error(dot_shapes_kernel, X, match=r"inner dimensions differ \(\[16, 32\] @ \[16, 32\]\)",
                 hint="columns must equal", at="tl.dot")


def test_dot_too_small():
    expect_error(dot_small_kernel, X, match=r"M >= 1, N >= 1 and K >= 16, got K=8", hint="at least 16")


def test_dot_on_1d_tiles():
    expect_error(dot_1d_kernel, X, match=r"Both inputs must be either 2D or 3D")


def test_reshape_wrong_numel():
    expect_error(reshape_numel_kernel, X, match=r"cannot reshape \[16\] \(16 elements\) to \[4, 8\]")


def test_pointer_plus_float():
    expect_error(pointer_plus_float_kernel, X, match=r"pointer offsets must be integers")


def test_indexing_a_tile():
    expect_error(index_tile_kernel, X, match=r"unsupported tensor index: 3", hint=r"x\[:, None\]|tl.load")


def test_matmul_operator():
    expect_error(matmul_operator_kernel, X, match=r"`@` is not supported", hint="tl.dot")


def test_bitcast_width():
    expect_error(bitcast_width_kernel, X, match=r"cannot bitcast fp32 \(32 bits\) to int16",
                 hint="one width")


def test_other_without_mask():
    expect_error(other_without_mask_kernel, X, match=r"`other` needs a `mask`", hint="mask=")


def test_division_with_mixed_signedness():
    expect_error(signedness_kernel, np.zeros(8, np.int32), np.ones(8, np.uint32),
                 match=r"different signedness", hint="cast")


def test_program_id_axis():
    expect_error(program_id_axis_kernel, X, match=r"axis must be 0, 1, or 2 but got 3")


def test_reduce_a_scalar():
    expect_error(reduce_scalar_kernel, X, match=r"cannot reduce a scalar", hint="tiles")


def test_broadcast_to_incompatible_shape():
    expect_error(broadcast_to_kernel, X, match=r"cannot broadcast shape \[1, 8\] to \[4, 16\]",
                 hint="size 1", at="tl.broadcast_to")


# ------------------------------------------------------------------------------- control flow

@triton.jit
def loop_type_change_kernel(x_ptr, n):
    acc = 0.0
    for i in range(n):
        acc = acc + tl.load(x_ptr + tl.arange(0, 8))  # <-
    tl.store(x_ptr + tl.arange(0, 8), acc)


@triton.jit
def loop_dtype_change_kernel(x_ptr, n):
    acc = 0
    for i in range(n):
        acc += 0.5  # <-
    tl.store(x_ptr, acc)


@triton.jit
def one_branch_kernel(x_ptr, n):
    if n > 0:
        y = 1.0
    tl.store(x_ptr, y)  # <-


@triton.jit
def branch_types_kernel(x_ptr, n):
    if n > 0:
        y = tl.zeros((8,), dtype=tl.float32)
    else:
        y = tl.zeros((16,), dtype=tl.float32)  # <-
    tl.store(x_ptr, tl.sum(y, axis=0))


@triton.jit
def tile_condition_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    if x > 0:  # <-
        tl.store(x_ptr, 1.0)


@triton.jit
def tile_and_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = tl.load(x_ptr + 8 + tl.arange(0, 8))
    if x and y:  # <-
        tl.store(x_ptr, 1.0)


@triton.jit
def tile_while_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    while x < 10:  # <-
        x = x + 1
    tl.store(x_ptr + tl.arange(0, 8), x)


@triton.jit
def tensor_truth_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    if bool(x):  # <-
        tl.store(x_ptr, 1.0)


@triton.jit
def return_value_kernel(x_ptr):
    return tl.load(x_ptr)  # <-


@triton.jit
def return_in_loop_kernel(x_ptr, n):
    for i in range(n):
        if i == 2:
            return  # <-
        tl.store(x_ptr + i, 1.0)


@triton.jit
def _recurse(x, depth):
    return _recurse(x + 1, depth - 1)  # <-


@triton.jit
def recursion_kernel(x_ptr):
    tl.store(x_ptr, _recurse(1.0, 3))


@triton.jit
def _two_args(a, b):
    return a + b


@triton.jit
def helper_arity_kernel(x_ptr):
    tl.store(x_ptr, _two_args(1.0))  # <-


@triton.jit
def loop_over_tensor_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    for v in x:  # <-
        tl.store(x_ptr, v)


@triton.jit
def fstring_kernel(x_ptr, n):
    tl.static_print(f"n is {n}")  # <-


def test_loop_carried_type_change_suggests_zeros():
    expect_error(loop_type_change_kernel, X, 3, match=r"loop-carried variable `acc` is f32 before the loop "
                 r"but tile<8xf32> after", hint=r"tl\.zeros\(\[8\], dtype=tl\.float32\)", at="acc =")


def test_loop_carried_dtype_change():
    expect_error(loop_dtype_change_kernel, X, 3, match=r"`acc` is i32 before the loop but f32",
                 hint=r"0\.0 for a float")


def test_name_defined_in_one_branch():
    expect_error(one_branch_kernel, X, 3, match=r"`y` is defined only in one branch of the if at line",
                 hint="define it before", at="y)")


def test_branches_with_different_types():
    expect_error(branch_types_kernel, X, 3, match=r"`y` is tile<8xf32> in the then branch but tile<16xf32>",
                 hint="same type", at="y =")


def test_if_on_a_tile():
    expect_error(tile_condition_kernel, X, match=r"the condition is a tile", hint="tl.where", at="x > 0")


def test_and_of_tiles_as_condition():
    expect_error(tile_and_kernel, np.zeros(16, np.float32), match=r"the condition is a tile", hint="tl.where")


def test_while_on_a_tile():
    expect_error(tile_while_kernel, X, match=r"the condition is a tile")


def test_tensor_truth_value():
    expect_error(tensor_truth_kernel, X, match=r"cannot call `bool` with tensor arguments|truth value")


def test_kernel_returning_a_value():
    expect_error(return_value_kernel, X, match=r"a kernel cannot return a value", hint="tl.store")


def test_return_inside_a_loop():
    expect_error(return_in_loop_kernel, X, 4, match=r"return inside a loop is not supported")


def test_recursion():
    expect_error(recursion_kernel, X, match=r"calls nest too deeply", hint="cannot recurse", marked_in=_recurse,
                 at="_recurse(x + 1")


def test_helper_called_with_wrong_arguments():
    expect_error(helper_arity_kernel, X, match=r"bad call to _two_args\(\): missing a required argument: 'b'")


def test_loop_over_a_tensor():
    expect_error(loop_over_tensor_kernel, X, match=r"cannot loop over", hint="range")


def test_fstring_with_runtime_value():
    expect_error(fstring_kernel, X, 3, match=r"f-strings can only format compile-time values",
                 hint="device_print")


def test_helper_errors_point_into_the_helper():
    """A mistake in an inlined helper points at the helper's line, not the call."""
    @triton.jit
    def caller(x_ptr):
        tl.store(x_ptr, _bad_helper(1.0))

    with pytest.raises(CompilationError) as info:
        caller[(1,)](X)
    lines, first = inspect.getsourcelines(_bad_helper.fn)
    assert info.value.loc.line == first + 2 and "in _bad_helper()" in str(info.value)


@triton.jit
def _bad_helper(x):
    return x + tl.arange(0, 3)


# ------------------------------------------------------------------------------------ launches

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n),
             mask=offs < n)


def test_calling_a_kernel_directly():
    with pytest.raises(LaunchError, match=r"add_kernel is a @jit function: launch it as add_kernel\[grid\]"):
        add_kernel(X, X, X, 16, BLOCK=16)


def test_missing_launch_argument_names_the_parameters():
    with pytest.raises(LaunchError) as info:
        add_kernel[(1,)](X, X, X, BLOCK=16)
    assert type(info.value) is LaunchError
    assert "missing a required argument: 'n'" in str(info.value)
    assert "(x_ptr, y_ptr, out_ptr, n, BLOCK)" in str(info.value)


def test_too_many_launch_arguments():
    parameters = r"\(x_ptr, y_ptr, out_ptr, n, BLOCK\)"
    with pytest.raises(LaunchError, match=r"too many positional arguments.*" + parameters):
        add_kernel[(1,)](X, X, X, 16, 16, 5)


def test_unknown_keyword_argument():
    with pytest.raises(LaunchError, match=r"unexpected keyword argument 'BLOK'"):
        add_kernel[(1,)](X, X, X, 16, BLOCK=16, BLOK=16)


def test_string_where_an_array_is_expected():
    with pytest.raises(LaunchError) as info:
        add_kernel[(1,)](X, "y", X, 16, BLOCK=16)
    assert type(info.value) is LaunchError
    assert "argument `y_ptr`" in str(info.value) and "expected an array" in str(info.value)


def test_object_where_an_array_is_expected():
    with pytest.raises(LaunchError, match=r"argument `y_ptr` is a list; expected an array"):
        add_kernel[(1,)](X, [1.0, 2.0], X, 16, BLOCK=16)


def test_integer_too_large():
    with pytest.raises(LaunchError, match=r"argument `n` = .* does not fit in 64 bits"):
        add_kernel[(1,)](X, X, X, 2 ** 70, BLOCK=16)


@pytest.mark.parametrize("num_warps", [0, 3, 64, "4"])
def test_num_warps_validation(num_warps):
    with pytest.raises(LaunchError, match=r"num_warps must be a power of 2 from 1 to 32"):
        add_kernel[(1,)](X, X, X, 16, BLOCK=16, num_warps=num_warps)


@pytest.mark.parametrize("grid", [(1, 1, 1, 1), (-1,), ()])
def test_bad_grid(grid):
    with pytest.raises(LaunchError, match=r"the grid must be 1 to 3 non-negative sizes"):
        add_kernel[grid](X, X, X, 16, BLOCK=16)


def test_out_of_bounds_access_names_the_line():
    """Without the mask, the last program reads past the array: an error at the load's line."""
    @triton.jit
    def unmasked(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, x)

    x = np.zeros(20, np.float32)
    with pytest.raises(triton.InterpreterError) as info:
        unmasked[(2,)](x, np.zeros(32, np.float32), BLOCK=16)
    lines, first = inspect.getsourcelines(unmasked.fn)
    assert info.value.loc.line == first + 3
    assert "x_ptr[20], past the end of its 20 elements" in str(info.value)
    assert "mask" in info.value.hint


@triton.jit
def odd_tile_kernel(x_ptr, SIZE: tl.constexpr):
    zeros = tl.zeros((16, SIZE), tl.float32)  # <-
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(zeros, 1))


@triton.jit
def huge_tile_kernel(x_ptr):
    offsets = tl.arange(0, 1024)
    grid = offsets[:, None] * 2048 + tl.arange(0, 2048)[None, :]  # <-
    tl.store(x_ptr + grid, 0.0)


def test_tile_shapes_are_powers_of_two_and_not_too_large():
    """Triton's limits, with its words: each dimension a power of 2, at most 2**20 elements."""
    expect_error(odd_tile_kernel, X, SIZE=12, match=r"shape element 1 must be a power of 2", hint="next_power_of_2")
    expect_error(huge_tile_kernel, X, match=r"numel \(2097152\) exceeds triton maximum tensor numel \(1048576\)",
                 hint="smaller tiles")
