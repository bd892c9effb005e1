"""The author's own code, element by element: `tl.inline_asm_elementwise` and `tl.map_elementwise`.

`inline_asm_elementwise` runs PTX the kernel supplies on `pack` elements of each argument at a
time (arguments narrower than 32 bits packed into 32-bit registers, as Triton does); the GPU
runs it, the interpreter cannot (it says so, as Triton's does). `map_elementwise` applies a @jit
function of scalars to every element, so that it may branch per element; the frontend inlines the
function once as the op's region (`frontend/calls.py`). Chapter: 02-frontend.
"""
from __future__ import annotations

from .. import ir
from .core import _const, _const_int, _dtype, _unwrap, _value, builtin, tensor
from .semantic import SemanticError, broadcast_shapes, broadcast_to, builder


def broadcast_all(values: list[ir.Value]) -> list[ir.Value]:
    """Every value broadcast to the shape of all of them (scalars stay scalars if all are)."""
    shape = ()
    for v in values:
        shape = broadcast_shapes(shape, v.shape)
    return [broadcast_to(v, shape) for v in values]


# --8<-- [start:inline-asm]
@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack) -> tensor:
    """The results of `asm` (PTX with $0, $1... for its registers, results first) run on `pack`
    elements of each of `args` at a time; one tensor per dtype of `dtype` (a dtype or a tuple)."""
    asm, constraints = _const(asm, "the asm"), _const(constraints, "the constraints")
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise SemanticError("inline_asm_elementwise's asm and constraints must be strings",
                            "give the PTX and its constraints as string literals")
    dtype = _unwrap(dtype)
    several = isinstance(dtype, (tuple, list))
    dtypes = tuple(_dtype(d) for d in (dtype if several else (dtype,)))
    if not dtypes:
        raise SemanticError("inline_asm_elementwise must return at least one tensor",
                            "return a dummy tensor of any type and leave it unused")
    pack = _const_int(pack, "inline_asm_elementwise's pack")
    values = broadcast_all([_value(a) for a in _unwrap(args)])
    op = builder().create("inline_asm", values, {"asm": asm, "constraints": constraints, "dtypes": dtypes,
                                                  "pure": bool(_const(is_pure, "is_pure")), "pack": pack})
    results = tuple(tensor(r) for r in op.results)
    return results if several else results[0]
# --8<-- [end:inline-asm]


@builtin
def map_elementwise(scalar_fn, *args, pack=1):
    """`scalar_fn` (a @jit function of scalars) on every element of `args` (broadcast to one
    shape), `pack` elements of each at a time: it takes pack scalars of each argument in turn and
    returns pack scalars of each result. The frontend inlines it as the op's region
    (`CodeGenerator.map_elementwise`)."""
    raise SemanticError("tl.map_elementwise is compiled by the frontend; it cannot be called from here")
