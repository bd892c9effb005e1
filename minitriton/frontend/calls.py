"""Calls in the frontend: language builtins, Python's builtins, and other @jit functions, inlined.

A call to a `tl` function builds IR through `language.semantic`; a call to another @jit function
is inlined: its body is generated in place, with its parameters bound to the arguments (a
constexpr parameter must receive a compile-time value). `tl.reduce` and `tl.associative_scan`
inline their combine function once, as the region of a `reduce` or `scan` op. Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
from dataclasses import dataclass

from .. import ir
from ..errors import CompilationError
from ..language import core as tl
from ..language import semantic, tiles
from ..language.debug import device_print
from ..language.elementwise import broadcast_all, map_elementwise
from ..language.reduction import associative_scan, reduce
from .source import KernelFunction


LIBRARY = tl.__name__.rpartition(".")[0] + "."  # the language's own @jit functions (tl.sort, tl.rand...)


@dataclass
class Method:
    """A @jit function reached through a tensor (`x.softmax()`): called with the tensor first."""

    function: KernelFunction
    tensor: tl.tensor


@functools.cache
def _signature(fn) -> inspect.Signature:
    return inspect.signature(fn)


def _describe(x) -> str:
    if isinstance(x, tl.tensor):
        return f"a tensor ({x.type})"
    name = getattr(x, "__name__", None)
    return f"`{name}`" if name else repr(x)



class Calls:
    """The `CodeGenerator`'s methods for calls (a mixin: see generator.py)."""

    # -- calls ----------------------------------------------------------------------------------------
    # --8<-- [start:call]
    # --8<-- [start:rebind]
    def rebind(self, old: tl.tensor, new: tl.tensor) -> None:
        """Every variable that holds `old` holds `new` from here on. A hint (`tl.multiple_of(x,
        16)`) is a fact about `x` itself in Triton, even as a statement whose result nobody keeps
        (tutorial 08 hints its pointers so, in its loop): as if each name were assigned the hint's
        result. Where that happens inside an if or a loop, the name is merged or carried as any
        assignment there is."""
        for name, value in list(self.scope.items()):
            if isinstance(value, tl.tensor) and value.handle is old.handle:
                self.scope[name] = new
    # --8<-- [end:rebind]

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
        # x.reduce(axis, combine)
        if inspect.ismethod(fn) and fn.__func__ in (reduce, associative_scan):
            fn, args = fn.__func__, [fn.__self__, *args]
        if fn is reduce or fn is associative_scan:
            return self.combine(fn, args, kwargs, node)
        if fn is map_elementwise:
            return self.map_elementwise(args, kwargs, node)
        if isinstance(fn, KernelFunction):
            return self.inline(fn, args, kwargs, node)
        if tl.is_builtin(fn) or isinstance(fn, type) and issubclass(fn, (tl.range, tl.static_range,
                                                                        tl.constexpr)):
            self.check_arguments(fn, args, kwargs, node)
            result = fn(*args, **kwargs)
            if getattr(fn, "marks_its_input", False) and args and isinstance(args[0], tl.tensor):
                self.rebind(args[0], result)
            return result
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
        if fn in (builtins.isinstance, builtins.hasattr, builtins.getattr, builtins.type, builtins.callable):
            return fn(*args, **kwargs)  # questions about a value, answered at compile time
        if any(isinstance(a, tl.tensor) for a in [*args, *kwargs.values()]):
            raise self.error(node, f"cannot call {_describe(fn)} with tensor arguments",
                             "kernels can call tl.* functions and other @jit functions")
        if not callable(fn):
            raise self.error(node, f"{_describe(fn)} is not callable")
        return fn(*args, **kwargs)  # a plain Python function of compile-time values
    # --8<-- [end:call]

    def check_arguments(self, fn, args: list, kwargs: dict, node: ast.Call) -> None:
        """A call that does not fit a language function's parameters is the kernel's mistake: it is
        said with the parameters, before the function runs (Python's TypeError would come from
        inside the language)."""
        signature = _signature(fn)
        try:
            signature.bind(*args, **kwargs)
        except TypeError as e:
            shown = signature.replace(parameters=[p for p in signature.parameters.values()
                                                  if not p.name.startswith("_")])
            name = getattr(fn, "__name__", "the function")
            raise self.error(node, f"bad call to {name}(): {e}", f"its parameters are {name}{shown}") from None

    # --8<-- [start:combine]
    def combine(self, fn, args: list, kwargs: dict, node: ast.Call):
        """tl.reduce / tl.associative_scan: the combine function, inlined on scalars, becomes the
        region of a `reduce` or `scan` op with kind "combine". The input may be a tuple of tiles of
        one shape (values and their indices, Welford's mean and count...): the combine function then
        takes the left elements and then the right ones, and returns one value for each tile. A
        reduction over every axis (axis=None) reduces them one after another, the last first."""
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
        if fn is reduce:
            keep_dims = bool(tl._unwrap(bound.arguments["keep_dims"]))
            axes = reversed(range(rank)) if axis is None else [tl._const_int(axis, "the axis") % rank]
            for d in axes:
                shape = values[0].shape[:d] + values[0].shape[d + 1:]
                op = self.builder.region_op("reduce", values, [ir.Type(shape, v.dtype) for v in values],
                                            [self.combine_region(combine, values, node)],
                                            {"axis": d, "kind": "combine"})
                values = [tiles.expand_dims(r, d) if keep_dims else r for r in op.results]
        else:
            if axis is None:
                raise self.error(node, "tl.associative_scan needs an axis")
            op = self.builder.region_op("scan", values, [v.type for v in values],
                                        [self.combine_region(combine, values, node)],
                                        {"axis": tl._const_int(axis, "the axis") % rank, "kind": "combine",
                                         "reverse": bool(tl._unwrap(bound.arguments["reverse"]))})
            values = list(op.results)
        return tuple(tl.tensor(v) for v in values) if several else tl.tensor(values[0])

    def combine_region(self, combine: KernelFunction, values: list, node: ast.Call) -> ir.Block:
        """The combine function inlined on scalars: the left partial's elements, then the right's."""
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
        return region
    # --8<-- [end:combine]

    # --8<-- [start:map]
    def map_elementwise(self, args: list, kwargs: dict, node: ast.Call):
        """tl.map_elementwise(fn, *tiles, pack=1): `fn`, inlined once on scalars, becomes the region
        of a `map_elementwise` op. It takes `pack` scalars of each tile, one tile after another, and
        returns `pack` scalars of each result, one result after another; the results' types are
        what it returns."""
        bound = inspect.signature(map_elementwise).bind(*args, **kwargs)
        scalar_fn, inputs = bound.arguments["scalar_fn"], bound.arguments.get("args", ())
        pack = tl._const_int(bound.arguments.get("pack", 1), "map_elementwise's pack")
        if not isinstance(scalar_fn, KernelFunction):
            raise self.error(node, "map_elementwise's scalar_fn must be a @jit function")
        if not inputs:
            raise self.error(node, "map_elementwise must have at least 1 input tensor")
        if pack < 1:
            raise self.error(node, f"map_elementwise's pack must be at least 1, got {pack}")
        values = broadcast_all([tl._value(x) for x in inputs])
        region = ir.Block([ir.Value(ir.scalar(v.dtype)) for v in values for _ in range(pack)])
        saved, self.builder.block = self.builder.block, region
        try:
            result = self.inline(scalar_fn, [tl.tensor(a) for a in region.args], {}, node)
            single = not isinstance(result, (tuple, list))
            results = [tl._value(r) for r in ([result] if single else result)]
            if any(r.type.is_tile for op in ir.walk_block(region) for r in op.results) or \
                    any(r.type.is_tile for r in results):
                raise self.error(node, "map_elementwise's scalar_fn must return scalars: it maps one element "
                                       "at a time, and makes no tiles")
            dtypes = tuple(r.dtype for r in results[::pack])
            if len(results) % pack or any(tuple(r.dtype for r in results[k::pack]) != dtypes
                                          for k in range(pack)):
                types = [str(r.dtype) for r in results]
                raise self.error(node, f"with pack={pack}, scalar_fn must return {pack} scalars of "
                                 f"one type for each result, got {len(results)} of types {types}")
            self.builder.create("yield", results)
        finally:
            self.builder.block = saved
        shape = values[0].shape
        op = self.builder.region_op("map_elementwise", values, [ir.Type(shape, d) for d in dtypes], [region],
                                    {"dtypes": dtypes, "pack": pack})
        outs = tuple(tl.tensor(r) for r in op.results)
        return outs[0] if single else outs
    # --8<-- [end:map]

    # --8<-- [start:inline]
    def inline(self, callee, args: list, kwargs: dict, node: ast.Call):
        """Generate the body of a called @jit function in place, with its parameters bound to the
        args."""
        if self.depth > 64:
            raise self.error(node, "calls nest too deeply (a @jit function calling itself?)",
                             "@jit functions are inlined, so they cannot recurse")
        try:
            bound = callee.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"bad call to {callee.__name__}(): {e}") from None
        bound.apply_defaults()
        parsed = callee.parsed
        # As in Triton, a call's values decide what is constant, not the callee's annotations: a
        # run-time value given for a `tl.constexpr` parameter is bound as it is (tutorial 06 does this).
        scope = {k: tl._unwrap(v) for k, v in bound.arguments.items()}
        generator = type(self)(parsed, self.builder, scope, self.depth + 1)
        try:
            generator.run_body(parsed.tree.body)
        except CompilationError as e:
            if not callee.__module__.startswith(LIBRARY):
                raise
            raise self.error(node, e.message, e.hint) from e.__cause__  # tl.sort's mistake is its caller's
        return generator.scope.get("$ret")
    # --8<-- [end:inline]
