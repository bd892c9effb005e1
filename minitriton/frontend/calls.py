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
from dataclasses import dataclass

from .. import ir
from ..language import core as tl
from ..language import semantic
from ..language.debug import device_print
from ..language.reduction import associative_scan, reduce
from .source import KernelFunction


@dataclass
class Method:
    """A @jit function reached through a tensor (`x.softmax()`): called with the tensor first."""

    function: KernelFunction
    tensor: tl.tensor


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
        if isinstance(fn, Method):
            fn, args = fn.function, [fn.tensor, *args]
        if inspect.ismethod(fn) and fn.__func__ in (reduce, associative_scan):  # x.reduce(axis, combine)
            fn, args = fn.__func__, [fn.__self__, *args]
        if fn is reduce or fn is associative_scan:
            return self.combine(fn, args, kwargs, node)
        if isinstance(fn, KernelFunction):
            return self.inline(fn, args, kwargs, node)
        if tl.is_builtin(fn) or isinstance(fn, type) and issubclass(fn, (tl.range, tl.static_range,
                                                                        tl.constexpr)):
            return fn(*args, **kwargs)
        if isinstance(fn, type) and issubclass(fn, tuple):  # a tuple (a namedtuple too) of any values
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
        """tl.reduce / tl.associative_scan: the combine function, inlined on scalars, becomes the
        region of a `reduce` or `scan` op with kind "combine". The input may be a tuple of tiles of
        one shape (values and their indices, Welford's mean and count...): the combine function then
        takes the left elements and then the right ones, and returns one value for each tile."""
        bound = inspect.signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        inputs, axis, combine = (tl._unwrap(bound.arguments[k]) for k in ("input", "axis", "combine_fn"))
        several = isinstance(inputs, (tuple, list))
        values = [tl._value(x) for x in (inputs if several else [inputs])]
        if not isinstance(combine, KernelFunction):
            raise self.error(node, "combine_fn must be a @jit function")
        if not values or any(not v.type.is_tile for v in values):
            raise self.error(node, "tl.reduce and tl.associative_scan take tiles, not scalars")
        if any(v.shape != values[0].shape for v in values):
            shapes = ", ".join(str(list(v.shape)) for v in values)
            raise self.error(node, f"the tiles combined together must have one shape, got {shapes}",
                             "broadcast them to a common shape first")
        rank = len(values[0].shape)
        if axis is None and fn is reduce:
            values, axis = [semantic.reshape(v, (v.type.numel,)) for v in values], 0
        elif axis is None:
            raise self.error(node, "tl.associative_scan needs an axis")
        axis = tl._const_int(axis, "the axis") % len(values[0].shape)
        region = ir.Block([ir.Value(ir.scalar(v.dtype)) for v in values * 2])
        saved, self.builder.block = self.builder.block, region
        try:
            result = self.inline(combine, [tl.tensor(a) for a in region.args], {}, node)
            results = list(result) if isinstance(result, (tuple, list)) else [result]
            if len(results) != len(values):
                raise self.error(node, f"combine_fn must return {len(values)} value(s), one for each "
                                 f"tile combined, but returned {len(results)}")
            results = [semantic.cast(tl._value(r), v.dtype) for r, v in zip(results, values)]
            if any(r.type.is_tile for r in results):
                raise self.error(node, "combine_fn must return scalars: it combines one element at a time")
            self.builder.create("yield", results)
        finally:
            self.builder.block = saved
        if fn is reduce:
            shape = values[0].shape[:axis] + values[0].shape[axis + 1:]
            op = self.builder.region_op("reduce", values, [ir.Type(shape, v.dtype) for v in values],
                                        [region], {"axis": axis, "kind": "combine"})
            outs = list(op.results)
            if tl._unwrap(bound.arguments["keep_dims"]):
                for _ in range(rank if bound.arguments["axis"] is None else 1):
                    outs = [semantic.expand_dims(o, axis) for o in outs]
        else:
            op = self.builder.region_op("scan", values, [v.type for v in values], [region],
                                        {"axis": axis, "kind": "combine",
                                         "reverse": bool(tl._unwrap(bound.arguments["reverse"]))})
            outs = list(op.results)
        return tuple(tl.tensor(o) for o in outs) if several else tl.tensor(outs[0])
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
