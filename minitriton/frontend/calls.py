"""Calls in the frontend: language builtins, Python's builtins, and other @jit functions, inlined.

A call to a `tl` function builds IR through `language.semantic`; a call to another @jit function
is inlined: its body is generated in place, with its parameters bound to the arguments (a
constexpr parameter must receive a compile-time value). `tl.reduce` and `tl.associative_scan`
inline their combine function once, as the region of a `reduce` or `scan` op. Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import builtins
import inspect

from .. import ir
from ..language import core as tl
from ..language import semantic
from ..language.debug import device_print
from ..language.reduction import associative_scan, reduce
from .source import KernelFunction


def _describe(x) -> str:
    if isinstance(x, tl.tensor):
        return f"a tensor ({x.type})"
    name = getattr(x, "__name__", None)
    return f"`{name}`" if name else repr(x)



class Calls:
    """The `CodeGenerator`'s methods for calls (a mixin: see generator.py)."""

    # -- calls ----------------------------------------------------------------------------------------
    # --8<-- [start:call]
    def visit_Call(self, node: ast.Call):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self.visit(a.value)
                if isinstance(value, tl.tensor):
                    raise self.error(a, "cannot unpack a tensor into arguments")
                args.extend(value)
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            value = self.visit(k.value)
            if k.arg is not None:
                kwargs[k.arg] = value
            elif isinstance(value, dict):  # f(**options), options a dict built at compile time
                kwargs.update(value)
            else:
                raise self.error(k, f"cannot unpack {_describe(value)} into keyword arguments")
        if fn is reduce or fn is associative_scan:
            return self.combine(fn, args, kwargs, node)
        if isinstance(fn, KernelFunction):
            return self.inline(fn, args, kwargs, node)
        if tl.is_builtin(fn) or isinstance(fn, type) and issubclass(fn, (tl.range, tl.static_range,
                                                                        tl.constexpr)):
            return fn(*args, **kwargs)
        if fn is builtins.print:  # print("x", x) is device_print("x", x), as in Triton
            return device_print(*args) if args else None
        if fn is builtins.range:
            return tl.range(*args, **kwargs)
        if fn in (builtins.min, builtins.max) and any(isinstance(a, tl.tensor) for a in args):
            combine = tl.minimum if fn is builtins.min else tl.maximum
            result = args[0]
            for a in args[1:]:
                result = combine(result, a)
            return result
        if fn is builtins.abs and args and isinstance(args[0], tl.tensor):
            return tl.abs(args[0])
        if any(isinstance(a, tl.tensor) for a in [*args, *kwargs.values()]):
            raise self.error(node, f"cannot call {_describe(fn)} with tensor arguments",
                             "kernels can call tl.* functions and other @jit functions")
        if not callable(fn):
            raise self.error(node, f"{_describe(fn)} is not callable")
        return fn(*args, **kwargs)  # a plain Python function of compile-time values
    # --8<-- [end:call]

    # --8<-- [start:combine]
    def combine(self, fn, args: list, kwargs: dict, node: ast.Call):
        """tl.reduce / tl.associative_scan: the combine function, inlined on two scalars, becomes
        the region of a `reduce` or `scan` op with kind "combine"."""
        bound = inspect.signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        x, axis, combine = (tl._unwrap(bound.arguments[k]) for k in ("input", "axis", "combine_fn"))
        if isinstance(x, (tuple, list)):
            raise self.error(node, "combining several tensors at once is not supported",
                             "reduce each tensor on its own, or pack them into one")
        if not isinstance(combine, KernelFunction):
            raise self.error(node, "combine_fn must be a @jit function of two values")
        value = tl._value(x)
        if not value.type.is_tile:
            raise self.error(node, f"cannot reduce or scan a scalar ({value.type})")
        if axis is None and fn is reduce:
            value, axis = semantic.reshape(value, (value.type.numel,)), 0
        axis = tl._const_int(axis, "the axis") % len(value.shape)
        region = ir.Block([ir.Value(ir.scalar(value.dtype)), ir.Value(ir.scalar(value.dtype))])
        saved, self.builder.block = self.builder.block, region
        try:
            result = self.inline(combine, [tl.tensor(a) for a in region.args], {}, node)
            result = semantic.cast(tl._value(result), value.dtype)
            if result.type.is_tile:
                raise self.error(node, "combine_fn must return one scalar value")
            self.builder.create("yield", [result])
        finally:
            self.builder.block = saved
        if fn is reduce:
            shape = value.shape[:axis] + value.shape[axis + 1:]
            op = self.builder.region_op("reduce", [value], [ir.Type(shape, value.dtype)], [region],
                                        {"axis": axis, "kind": "combine"})
            out = op.result
            if tl._unwrap(bound.arguments["keep_dims"]):
                out = semantic.expand_dims(out, axis)
            return tl.tensor(out)
        op = self.builder.region_op("scan", [value], [value.type], [region],
                                    {"axis": axis, "kind": "combine",
                                     "reverse": bool(tl._unwrap(bound.arguments["reverse"]))})
        return tl.tensor(op.result)
    # --8<-- [end:combine]

    # --8<-- [start:inline]
    def inline(self, callee, args: list, kwargs: dict, node: ast.Call):
        """Generate the body of a called @jit function in place, with its parameters bound to the args."""
        if self.depth > 64:
            raise self.error(node, "calls nest too deeply (a @jit function calling itself?)",
                             "@jit functions are inlined, so they cannot recurse")
        try:
            bound = callee.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"bad call to {callee.__name__}(): {e}") from None
        bound.apply_defaults()
        parsed = callee.parsed
        for name in sorted(callee.constexpr_names):
            if isinstance(bound.arguments.get(name), tl.tensor):
                raise self.error(node, f"argument `{name}` of {callee.__name__}() is a tl.constexpr but "
                                 "received a value only known at run time",
                                 "pass a literal or another constexpr")
        scope = {k: tl._unwrap(v) for k, v in bound.arguments.items()}
        generator = type(self)(parsed, self.builder, scope, self.depth + 1)
        generator.run_body(parsed.tree.body)
        return generator.scope.get("$ret")
    # --8<-- [end:inline]
