"""`triton.language.extra.libdevice`: one builtin per function of NVIDIA's libdevice.

Each is made from its row of the table (`libdevice/table.py`): it takes Triton's arguments
(`arg0`, `arg1`, ...) and calls `extern.call`, which picks the version for the arguments' dtypes
and emits an `extern_elementwise` op. The table has 197 functions, so they are made by a loop rather
than written out: `libdevice.tanh(x)` is `_function("tanh", ...)`, listed in `__all__`.
Chapter: 02-frontend.
"""
from __future__ import annotations

import inspect

from ...libdevice.table import FUNCTIONS, Variant
from .. import core, extern
from ..semantic import SemanticError


def _function(name: str, variants: tuple[Variant, ...]):
    versions = extern.versions_of(variants)
    arity = len(variants[0].args)
    signature = inspect.Signature([inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                   for i in range(arity)])

    def function(*args, _builder=None, _semantic=None, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise SemanticError(f"libdevice.{name}{signature}: {error}") from None
        operands = [core._operand(a) for a in bound.args]
        return core.tensor(extern.call(f"libdevice.{name}", versions, operands))

    function.__name__ = function.__qualname__ = name
    function.__signature__ = signature
    function.__doc__ = (f"libdevice's {name}, element by element: "
                        + "; ".join(f"({', '.join(map(str, v.args))}) -> {v.result} by {v.symbol}" for v in variants))
    return core.builtin(function)


for _name, _variants in FUNCTIONS.items():
    globals()[_name] = _function(_name, _variants)

__all__ = list(FUNCTIONS)
