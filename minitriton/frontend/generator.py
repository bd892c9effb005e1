"""AST capture: a `@jit` function's Python source -> tile IR.

`generate` walks the kernel's syntax tree once, evaluating every expression. Compile-time values
(constexpr arguments, literals, dtypes, anything computed only from them) stay plain Python values
and fold away; values known only when the kernel runs are `tl.tensor`s whose operations append IR
through `language.semantic`. The `CodeGenerator` here handles statements and expressions; control
flow (`control.py`) and calls (`calls.py`) are its other two parts. Every mistake is a
`CompilationError` pointing at the kernel's line. Chapter: 02-frontend.
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import operator
from typing import Any

import numpy as np

from .. import ir
from ..errors import CompilationError, Loc
from ..language import core as tl
from ..language import semantic
from ..language.debug import device_assert
from ..language.semantic import SemanticError
from ..language.blocks import make_tensor_descriptor
from ..specialize import AggregateSpec, ArgSpec, Constant
from ..tools.tensor_descriptor import TensorDescriptor
from .calls import Calls, Method, _describe
from .control import ControlFlow, _OnlyInOneBranch, _always_returns, _contains_return
from .source import KernelFunction, ParsedFunction

# Python builtins a kernel may use; everything else from `builtins` is refused with a clear error.
_PY_BUILTINS = {"range", "min", "max", "print", "len", "int", "float", "bool", "abs", "isinstance",
                "tuple", "list", "enumerate", "zip", "getattr", "hasattr", "str", "round", "divmod",
                "reversed", "any", "all", "sum", "type", "repr"}

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
           ast.MatMult: operator.matmul}


def _sequences(compare):
    """`compare` as a kernel applies it: a tuple equals a list of the same values
    (`desc.block_shape == [M, N]`), as Triton's `tl.tuple` does; anything else as in Python."""
    def apply(a, b):
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
            return compare(tuple(a), tuple(b))
        return compare(a, b)
    return apply


_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Eq: _sequences(operator.eq), ast.NotEq: _sequences(operator.ne),
           ast.Is: operator.is_, ast.IsNot: operator.is_not,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_UNSUPPORTED = {
    ast.With: "`with` blocks are", ast.Try: "try/except is", ast.ClassDef: "class definitions are",
    ast.FunctionDef: "nested function definitions are", ast.Lambda: "lambdas are",
    ast.Import: "imports are", ast.ImportFrom: "imports are", ast.Global: "`global` is",
    ast.Nonlocal: "`nonlocal` is", ast.Delete: "`del` is", ast.DictComp: "dict comprehensions are",
    ast.SetComp: "set comprehensions are", ast.Yield: "`yield` is", ast.Await: "`await` is",
    ast.Raise: "`raise` is", ast.Break: "`break` is", ast.Continue: "`continue` is",
    ast.AsyncFunctionDef: "async functions are", ast.Set: "set literals are", ast.NamedExpr: "`:=` is",
}
_UNSUPPORTED_HINTS = {
    ast.Break: "give the loop a condition (a while loop) or mask the remaining iterations",
    ast.Continue: "wrap the rest of the body in an if, or mask it",
    ast.FunctionDef: "define it at module level with @jit and call it",
    ast.Lambda: "define a @jit function at module level and call it",
    ast.Raise: "use tl.static_assert (compile time) or tl.device_assert (run time)",
    ast.Import: "import at module level: a kernel sees the names of its module",
    ast.ImportFrom: "import at module level: a kernel sees the names of its module",
}



# --8<-- [start:generate]
def _bare(error: SemanticError) -> SemanticError:
    """The language's error as the cause of the CompilationError that points at the user's line, as
    Triton chains them (code reads `err.__cause__`), without the compiler's frames or context."""
    error.__traceback__, error.__suppress_context__ = None, True
    return error


def generate(jit_fn: KernelFunction, specs: dict[str, ArgSpec], constexprs: dict[str, Any],
             name: str | None = None, num_warps: int = 4) -> ir.Function:
    """Compile one specialization of a @jit kernel to tile IR.

    `specs` describes each runtime argument; `constexprs` gives the value of every other parameter
    (a parameter in neither takes its default value); `num_warps` is the launch's, which a kernel
    may read as a constant (`tl.extra.cuda.num_warps()`).
    """
    parsed = jit_fn.parsed
    jit_fn.check_kernel_parameters()
    builder = ir.Builder()
    args, arg_attrs, scope = [], [], {}
    loc = Loc(parsed.file, parsed.first_line, parsed.col_offset, parsed.name)
    fn = ir.Function(name or parsed.name, args, builder.block, arg_attrs, loc)
    for param in sorted(jit_fn.constexpr_names & set(jit_fn.do_not_specialize)):
        raise CompilationError(loc, f"{param} marked as constexpr and listed in do_not_specialize",
                               "a constexpr is compiled for each of its values; leave it out of "
                               "do_not_specialize")
    with semantic.building(builder, num_warps):
        for param in jit_fn.arg_names:
            if param in constexprs or param not in specs:
                default = jit_fn.signature.parameters[param].default
                value = constexprs[param] if param in constexprs else default
                scope[param] = tl._unwrap(value)
                continue
            annotation = jit_fn.signature.parameters[param].annotation
            const = tl.is_const(annotation)  # x_ptr: tl.const, read-only
            spec, dtype = specs[param], tl.annotated_dtype(annotation)
            if dtype is not None and isinstance(spec, ArgSpec) and not spec.dtype.is_ptr():
                spec = ArgSpec(dtype)  # v: tl.int8: a parameter of that type, the launch converts to it
            try:
                scope[param] = argument(param, spec, args, arg_attrs, const)
            except SemanticError as e:  # a descriptor argument the language refuses
                raise CompilationError(loc, f"argument `{param}`: {e}", e.hint) from _bare(e)
        CodeGenerator(parsed, builder, scope, depth=0).run_body(parsed.tree.body)
    ir.verify(fn)
    return fn


def argument(name: str, spec, args: list[ir.Value], arg_attrs: list[dict], const: bool = False):
    """The value a kernel sees for one runtime argument (`const`: its pointers are read-only). A
    scalar or an array is an argument of the IR function; a tuple or a descriptor is rebuilt from
    its members, each runtime member an argument of its own, named by its path (`t.0`,
    `X.shape.1`, `desc.base`)."""
    if isinstance(spec, Constant):
        return tl._unwrap(spec.value)
    if isinstance(spec, AggregateSpec):
        first = len(args)
        members = [argument(f"{name}.{n}", m, args, arg_attrs, const)
                   for n, m in zip(spec.names, spec.members)]
        if spec.kind is TensorDescriptor:
            # a descriptor's strides but the last are multiples of 16 bytes (checked on the host)
            elements = 16 // spec.members[0].dtype.pointee.itemsize
            for value, attrs in zip(args[first:], arg_attrs[first:]):
                if value.name.startswith(f"{name}.strides.") and attrs.get("divisibility", 1) < elements:
                    attrs["divisibility"] = elements
            return dataclasses.replace(make_tensor_descriptor(*members, *spec.fixed), argument=name)
        return spec.kind(*members) if hasattr(spec.kind, "_fields") else spec.kind(members)
    read_only = const and spec.dtype.is_ptr()
    dtype = ir.pointer_type(spec.dtype.pointee, const=True) if read_only else spec.dtype
    value = ir.Value(ir.scalar(dtype), name=name)
    args.append(value)
    arg_attrs.append({"divisibility": 16} if spec.divisible_by_16 else {})
    return 1 if spec.equals_one else tl.tensor(value)
# --8<-- [end:generate]


class CodeGenerator(ControlFlow, Calls, ast.NodeVisitor):
    """Walks one function's AST, holding its variables in `scope`; inlined calls get their own."""

    def __init__(self, parsed: ParsedFunction, builder: ir.Builder, scope: dict, depth: int):
        self.parsed, self.builder, self.scope, self.depth = parsed, builder, scope, depth
        self.loop_depth = 0
        self.assigned_at: dict[str, ast.AST] = {}  # where each variable was last assigned, for errors

    # -- locations and errors ---------------------------------------------------------------------
    def loc(self, node: ast.AST) -> Loc:
        return self.parsed.loc(node)

    def error(self, node: ast.AST, message: str, hint: str | None = None) -> CompilationError:
        return CompilationError(self.loc(node), message, hint)

    # --8<-- [start:visit]
    def visit(self, node: ast.AST):
        """Visit a node with its location stamped on every op made; point any error at the node."""
        if type(node) in _UNSUPPORTED:
            raise self.error(node, f"{_UNSUPPORTED[type(node)]} not supported inside a @jit function",
                             _UNSUPPORTED_HINTS.get(type(node)))
        saved = self.builder.loc
        if hasattr(node, "lineno"):
            self.builder.loc = self.loc(node)
        try:
            method = getattr(self, "visit_" + type(node).__name__, None)
            if method is None:
                raise self.error(node, f"{type(node).__name__} is not supported inside a @jit function")
            return method(node)
        except CompilationError:
            raise
        except SemanticError as e:  # the user's mistake: the message says it all, no traceback
            raise self.error(node, str(e), e.hint) from _bare(e)
        except RecursionError as e:
            raise self.error(node, "calls nest too deeply (a @jit function calling itself?)",
                             "@jit functions are inlined, so they cannot recurse") from e
        except ZeroDivisionError as e:  # Python's own arithmetic on compile-time constants
            raise self.error(node, f"{e} (in compile-time constants)",
                             "the divisor is a constant zero here; check the constexpr values") from e
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError,
                AssertionError) as e:
            raise self.error(node, f"{type(e).__name__}: {e}") from e
        finally:
            self.builder.loc = saved
    # --8<-- [end:visit]

    # -- statements -------------------------------------------------------------------------------
    def run_body(self, stmts: list[ast.stmt]) -> None:
        """Run statements in order; an `if` that returns in a branch takes the rest of the body along."""
        for i, stmt in enumerate(stmts):
            if "$ret" in self.scope:
                return  # code after a return never runs
            if isinstance(stmt, ast.If) and _contains_return(stmt) and self.loop_depth == 0:
                rest = stmts[i + 1:]
                then = stmt.body + ([] if _always_returns(stmt.body) else rest)
                orelse = stmt.orelse + ([] if _always_returns(stmt.orelse) else rest)
                self.visit(ast.copy_location(ast.If(stmt.test, then, orelse), stmt))
                return
            self.visit(stmt)

    def visit_Expr(self, node: ast.Expr):
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Return(self, node: ast.Return):
        if self.loop_depth:
            raise self.error(node, "return inside a loop is not supported",
                             "assign the result to a variable and return it after the loop")
        returns_none = node.value is None or isinstance(node.value, ast.Constant) and node.value.value is None
        if self.depth == 0 and not returns_none:
            raise self.error(node, "a kernel cannot return a value", "write results to memory with tl.store")
        self.scope["$ret"] = None if node.value is None else self.visit(node.value)

    def visit_Assign(self, node: ast.Assign):
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            return
        value = self.visit(node.value)
        if tl.is_constexpr(ast.unparse(node.annotation)) and isinstance(value, tl.tensor):
            raise self.error(node, f"{ast.unparse(node.target)} is annotated tl.constexpr but its value "
                             "is only known when the kernel runs")
        self.assign(node.target, value)

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "only variables can be updated in place (x += ...)",
                             "tiles are values: write x = x + y, or store through a pointer")
        current = self.visit(ast.copy_location(ast.Name(node.target.id, ast.Load()), node))
        self.assign(node.target, self.apply_binop(node.op, current, self.visit(node.value), node))

    def assign(self, target: ast.AST, value) -> None:
        value = tl._unwrap(value)
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
            self.assigned_at[target.id] = target
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = next((t for t in target.elts if isinstance(t, ast.Starred)), None)
            if starred is not None:
                raise self.error(starred, "`*` unpacking is not supported inside a @jit function",
                                 "unpack into as many names as there are values")
            if isinstance(value, tl.tensor) or not hasattr(value, "__len__"):
                raise self.error(target, f"cannot unpack {value!r} into {len(target.elts)} names")
            if len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.assign(t, v)
        else:
            raise self.error(target, f"cannot assign to {ast.unparse(target)}",
                             "tiles are values: build a new one with tl.where, or tl.store to memory")

    def visit_Assert(self, node: ast.Assert):
        test = self.visit(node.test)
        msg = "" if node.msg is None else tl._unwrap(self.visit(node.msg))
        if isinstance(msg, tl.tensor):
            raise self.error(node.msg, "an assert's message must be a string, got a tensor",
                             "the message is fixed when the kernel compiles: give a string, and "
                             "tl.device_print the values")
        msg = str(msg)
        if isinstance(test, tl.tensor):
            device_assert(test, msg or ast.unparse(node.test))
        elif not test:
            raise self.error(node, f"assertion failed: {msg or ast.unparse(node.test)}",
                             "this assert's condition is a compile-time value, and it is false")


    # -- expressions --------------------------------------------------------------------------------
    def visit_Constant(self, node: ast.Constant):
        return node.value

    def visit_Name(self, node: ast.Name):
        name = node.id
        if name in self.scope:
            value = self.scope[name]
            if isinstance(value, _OnlyInOneBranch):
                raise self.error(node, f"`{name}` is defined only in {value.where}",
                                 "define it before the if/loop so it exists on every path")
            return value
        if name in self.parsed.globals:
            return self.global_value(node, self.parsed.globals[name])
        if name in _PY_BUILTINS:
            return getattr(builtins, name)
        if hasattr(builtins, name):
            raise self.error(node, f"the Python builtin `{name}` is not supported inside a @jit function")
        raise self.error(node, f"name `{name}` is not defined",
                         "a kernel sees its arguments, its local variables, and module-level names")

    def global_value(self, node, value):
        if isinstance(value, np.generic):  # np.float32(0.5): a number, as a launch takes one
            return value.item()
        if type(value).__module__.startswith(("torch", "numpy", "cupy")) and hasattr(value, "shape"):
            raise self.error(node, f"global `{node.id}` is an array ({type(value).__name__}); kernels "
                             "cannot read host arrays", "pass it to the kernel as an argument")
        return tl._unwrap(value)

    def visit_Attribute(self, node: ast.Attribute):
        base = self.visit(node.value)
        if isinstance(base, (bool, int, float)) and node.attr == "type":
            return tl.constexpr_type(base)  # a number in a kernel is a constexpr, as in Triton
        if isinstance(base, (bool, int, float)) and not hasattr(base, node.attr) and hasattr(tl.tensor, node.attr):
            base = tl.to_tensor(base)  # `x = 1; x.dtype`, `(2.0).to(...)`: a number read as a tensor
        try:
            value = tl._unwrap(getattr(base, node.attr))
        except AttributeError:
            raise self.error(node, f"{_describe(base)} has no attribute `{node.attr}`") from None
        if isinstance(base, tl.tensor) and isinstance(value, KernelFunction):
            return Method(value, base)  # x.softmax(): a @jit function, called with x first
        return value

    def visit_Tuple(self, node: ast.Tuple):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List):
        return [self.visit(e) for e in node.elts]

    def visit_ListComp(self, node: ast.ListComp):
        return self.comprehension(node)

    def visit_GeneratorExp(self, node: ast.GeneratorExp):
        return tuple(self.comprehension(node))

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp) -> list:
        """`[f(x) for x in t if c(x)]`, unrolled at compile time over a tuple, a list or a static
        range (`tl.tuple([v + 1 for v in values])`); its variables are its own, as in Python."""
        saved, results = dict(self.scope), []

        def unroll(generators: list[ast.comprehension]):
            if not generators:
                results.append(self.visit(node.elt))
                return
            first = generators[0]
            iterable = tl._unwrap(self.visit(first.iter))
            if isinstance(iterable, tl.range) and all(isinstance(tl._unwrap(b), int)
                                                      for b in (*iterable.args, iterable.step)):
                iterable = builtins.range(*map(tl._unwrap, iterable.args), tl._unwrap(iterable.step))
            if isinstance(iterable, (tl.tensor, tl.range)):
                raise self.error(first.iter, "a comprehension is unrolled at compile time: it needs a tuple, "
                                 "a list or a range of constants", "write a loop over range(...) instead")
            for item in iterable:
                self.assign(first.target, item)
                if all(self.compile_time_condition(c) for c in first.ifs):
                    unroll(generators[1:])

        try:
            unroll(list(node.generators))
        finally:
            self.scope = saved
        return results

    def compile_time_condition(self, test: ast.expr) -> bool:
        cond = tl._unwrap(self.visit(test))
        if isinstance(cond, tl.tensor):
            raise self.error(test, "a comprehension's condition must be known at compile time",
                             "choose per element with tl.where instead")
        return bool(cond)

    def visit_Dict(self, node: ast.Dict):
        return {self.visit(k): self.visit(v) for k, v in zip(node.keys, node.values)}

    def visit_JoinedStr(self, node: ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                v = self.visit(value.value)
                if isinstance(v, tl.tensor):
                    raise self.error(value, "f-strings can only format compile-time values",
                                     "print runtime values with tl.device_print(prefix, value)")
                spec = "" if value.format_spec is None else self.visit(value.format_spec)
                parts.append(format(v, spec))
        return "".join(parts)

    def visit_FormattedValue(self, node):
        return self.visit_JoinedStr(ast.JoinedStr([node]))

    def visit_Slice(self, node: ast.Slice):
        return slice(*(None if x is None else self.visit(x) for x in (node.lower, node.upper, node.step)))

    def visit_Subscript(self, node: ast.Subscript):
        base = self.visit(node.value)
        index = self.visit(node.slice)
        if isinstance(base, tl.tensor):
            return base[index]
        if isinstance(index, tl.tensor):
            raise self.error(node, f"cannot index {_describe(base)} with a runtime value",
                             "index tuples with constants: t[0], t[-1], t[1:]")
        return tl._unwrap(base[index])

    def apply_binop(self, op: ast.operator, a, b, node):
        a, b = tl._unwrap(a), tl._unwrap(b)
        if type(op) is ast.Pow and (isinstance(a, tl.tensor) or isinstance(b, tl.tensor)):
            return tl.pow(a, b)
        if type(op) is ast.MatMult:
            raise self.error(node, "`@` is not supported on tiles", "use tl.dot(a, b)")
        return _BINOPS[type(op)](a, b)

    def visit_BinOp(self, node: ast.BinOp):
        return self.apply_binop(node.op, self.visit(node.left), self.visit(node.right), node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        x = tl._unwrap(self.visit(node.operand))
        if isinstance(node.op, ast.Not):
            return tl.tensor(semantic.unary("lnot", x.handle)) if isinstance(x, tl.tensor) else not x
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(node.op)](x)

    def visit_BoolOp(self, node: ast.BoolOp):
        """`and`/`or`: Python's meaning on constants; elementwise logic (both sides run) on tensors."""
        result = self.visit(node.values[0])
        for value_node in node.values[1:]:
            if not isinstance(result, tl.tensor):
                if isinstance(node.op, ast.And) and not result or isinstance(node.op, ast.Or) and result:
                    return result
                result = self.visit(value_node)
                continue
            other = tl._operand(self.visit(value_node))
            result = tl.tensor(semantic.logical("and" if isinstance(node.op, ast.And) else "or", result.handle, other))
        return result

    def visit_Compare(self, node: ast.Compare):
        left = tl._unwrap(self.visit(node.left))
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = tl._unwrap(self.visit(right_node))
            if isinstance(op, (ast.In, ast.NotIn)) and (isinstance(left, tl.tensor) or
                                                        isinstance(right, tl.tensor)):
                raise self.error(node, f"`{type(op).__name__.lower()}` needs compile-time values",
                                 "compare tensors with == and !=")
            # `is` and `is not` compare identities at compile time, tensors included, so that
            # `if bias_ptr is not None:` folds whether or not a bias was passed.
            this = _CMPOPS[type(op)](left, right)
            result = this if result is None else (result & this if isinstance(result, tl.tensor) or
                                                  isinstance(this, tl.tensor) else result and this)
            left = right
        return result

    def visit_IfExp(self, node: ast.IfExp):
        """`a if c else b`: a constexpr `c` picks one side; a runtime one runs each side in its own
        region, as an if statement does (only the taken side's loads and stores happen)."""
        cond = self.condition(node.test)
        if not isinstance(cond, tl.tensor):
            return self.visit(node.body if cond else node.orelse)
        target = f"$if_expression_{id(node)}"
        branches = [ast.Assign([ast.Name(target, ast.Store())], side) for side in (node.body, node.orelse)]
        statement = ast.If(ast.Name("$condition", ast.Load()), [branches[0]], [branches[1]])
        for made in [statement, statement.test, *branches, *(b.targets[0] for b in branches)]:
            ast.copy_location(made, node)
        self.scope["$condition"] = cond
        try:
            self.visit_If(statement)
            return self.scope.pop(target, None)  # None where both sides are None (two stores)
        finally:
            self.scope.pop("$condition", None)

    def visit_Starred(self, node):
        raise self.error(node, "`*` unpacking is not supported inside a @jit function")

