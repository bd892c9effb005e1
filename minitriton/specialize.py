"""Specialization: what a launch's arguments tell the compiler, and the key a launch is found by.

A kernel is compiled once per *specialization*: the facts about its runtime arguments that the
compiled code may depend on. An array is a pointer to its dtype, aligned to 16 bytes or not; an
int is 32 or 64 bits wide, a multiple of 16 or not, equal to 1 or not (a stride of 1 becomes the
constant 1); a float is fp32. `specialize` reads those facts (Triton's signature strings: `*fp16`,
`i32`), `arg_spec` turns them into the frontend's `ArgSpec`. A tuple argument (a namedtuple too)
is specialized member by member, and so is a `TensorDescriptor` (its base, shape and strides, with
its block shape): a member that is None, a `tl.constexpr`, a dtype or a function is a compile-time
constant of the kernel, as a constexpr argument is, and every other member becomes a runtime
argument of its own, named by its path (`t.0`, `X.shape.1`, `desc.base`).

A launch finds its compiled kernel by a cheaper *launch key*, read at every launch:
`launch_key(value)` is, per argument, at least as fine as its specialization (two arguments with
one key have one specialization) and gives the value the launch passes (an array's address, read
once). The JIT's binder calls it for every runtime argument; `launcher.c` reads a torch tensor and
an int the same way in C and calls `launch_key` for anything else, and a test holds the two equal.
Chapter: 02-frontend (specialization), 09-ptx-driver-cache (the launch key).
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import json
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .dtypes import DType, array_address, dtype_of_array, dtype_of_signature, pointer_type
from .errors import LaunchError
from .language.core import constexpr_value
from .tools.tensor_descriptor import TensorDescriptor


# --8<-- [start:argspec]
@dataclass(frozen=True)
class ArgSpec:
    """What a launch tells the compiler about one runtime argument (Triton's specialization)."""

    dtype: DType  # pointer_type(fp32), int32, int64, fp32, int1, ...
    divisible_by_16: bool = False  # pointers: address % 16 == 0; integers: value % 16 == 0
    equals_one: bool = False  # integers equal to 1 become the constant 1 (strides of contiguous dims)

    def __str__(self) -> str:
        flags = "".join((" d16" if self.divisible_by_16 else "", " =1" if self.equals_one else ""))
        return f"{self.dtype.short}{flags}"
# --8<-- [end:argspec]


# --8<-- [start:aggregate-spec]
@dataclass(frozen=True)
class Constant:
    """A member of a tuple argument known at compile time (None, a tl.constexpr, a dtype, a @jit
    function): the kernel sees the value itself, and each value is a specialization of its own."""

    value: Any


@dataclass(frozen=True)
class AggregateSpec:
    """A tuple (or namedtuple) argument, or a TensorDescriptor: the specialization of each
    member."""

    kind: type  # tuple, a namedtuple class, or TensorDescriptor
    # the members': "0", "1", ...; a namedtuple's fields; "base", "shape", "strides"
    names: tuple[str, ...]
    members: tuple  # an ArgSpec, a Constant or an AggregateSpec for each
    fixed: tuple = ()  # a descriptor's block shape and padding


DESCRIPTOR_MEMBERS = ("base", "shape", "strides")  # what a launch passes of a TensorDescriptor


def runtime_values(bound: dict[str, Any], names: list[str]) -> list:
    """What a launch passes for the runtime arguments `names`: a parameter's value, or a member of
    one, by the path that names it (`t.0`, `X.shape.1`, `desc.base`)."""
    return members_of(tuple(names))(bound)


@functools.lru_cache(maxsize=None)
def members_of(names: tuple[str, ...]) -> Callable[[dict], list]:
    """`runtime_values` for `names`, with the paths split once: a launch reads the members only."""
    paths = [(param, [int(p) if p.isdigit() else p for p in path])
             for param, *path in (name.split(".") for name in names)]

    def read(bound: dict) -> list:
        values = []
        for param, path in paths:
            value = bound[param]
            for part in path:
                value = value[part] if part.__class__ is int else getattr(value, part)
            values.append(value)
        return values
    return read


# --8<-- [end:aggregate-spec]


# --8<-- [start:key-json]
class NoStableKey(TypeError):
    """A compile-time value known only by where it lives in this process (an object without a
    plain form): a kernel that depends on one is compiled anew in each process, never found on disk."""


def key_json(value):
    """A compile-time value as plain JSON, for the disk cache's key: a specialization, a constexpr,
    or a module-level value a kernel reads. None, bools, ints and strings stay as they are (JSON
    tells 1, True and "1" apart) and a tuple becomes a list; any other value becomes a one-key
    object naming its kind: a float by its repr, a list, dict or set by its members, a dtype by its
    name, a @jit function by the hash of its source and of what it reads, a class or a builtin by
    its qualified name, a Python function by its source, any other object by its fields. A value
    with none of these forms raises NoStableKey."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if type(value) is tuple:
        return [key_json(v) for v in value]
    if isinstance(value, float):
        return {"float": repr(value)}  # a float's repr is exact, and nan equals nan
    if isinstance(value, (list, tuple)):  # a namedtuple by its class
        return {_qualified(type(value)): [key_json(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": sorted(([key_json(k), key_json(v)] for k, v in value.items()), key=_canonical)}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((key_json(v) for v in value), key=_canonical)}
    if type(value).__name__ == "constexpr":  # minitriton's, or Triton's
        return {"constexpr": key_json(value.value)}
    if isinstance(value, DType):
        return {"dtype": value.name}
    if isinstance(value, np.generic):
        return {f"numpy.{value.dtype.name}": key_json(value.item())}
    if isinstance(value, enum.Enum):
        return {"enum": f"{_qualified(type(value))}.{value.name}"}
    if isinstance(value, type):
        return {"type": _qualified(value)}
    if hasattr(value, "cache_key"):  # a @jit function
        return {"jit": value.cache_key}
    function = getattr(value, "fn", getattr(value, "__func__", value))  # a constexpr_function, a method
    if inspect.isfunction(function):
        try:
            return {"function": inspect.getsource(function)}
        except (OSError, TypeError):
            raise NoStableKey(f"the source of {value!r} cannot be read") from None
    if inspect.isroutine(value):  # a builtin (math.sqrt)
        return {"builtin": _qualified(value)}
    if dataclasses.is_dataclass(value):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {_qualified(type(value)): key_json(fields)}
    if hasattr(value, "__dict__"):  # an object holding its fields (a config object, a namespace)
        return {_qualified(type(value)): key_json(vars(value))}
    raise NoStableKey(f"{value!r} (a {type(value).__name__}) has no value that another process "
                      f"could compare")


def _qualified(value) -> str:
    name = getattr(value, '__qualname__', getattr(value, '__name__', '?'))
    return f"{getattr(value, '__module__', None)}.{name}"


def _canonical(key) -> str:
    return json.dumps(key, sort_keys=True)
# --8<-- [end:key-json]


class _Missing:
    """A parameter the launch did not give (the slow path says which)."""

    def __repr__(self):
        return "<missing>"


MISSING = _Missing()


class ArgumentOverflow(LaunchError, OverflowError):
    """An int argument that no 64-bit type holds (an OverflowError, as Triton raises)."""


# --8<-- [start:constant]
def constant(name: str, value):
    """A compile-time argument (a `tl.constexpr` parameter's, or None) as the compiler sees it and
    the kernel's cache keys it: a numpy number as the Python number it holds (`BLOCK=np.int64(16)`
    is 16), a list as a tuple. An array, or anything unhashable, is a LaunchError: the value is
    part of the compiled kernel."""
    value = constexpr_value(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        value = tuple(constant(f"{name}[{i}]", v) for i, v in enumerate(value))
    if _is_array(value):
        raise LaunchError(f"argument `{name}` is a tl.constexpr, a value the kernel is compiled "
                          f"for, but got an array ({type(value).__name__}); pass a number, a string, "
                          f"a dtype or a tuple of them, or drop the tl.constexpr annotation to pass "
                          f"the array at run time")
    try:
        hash(value)
    except TypeError:
        raise LaunchError(f"argument `{name}` is a tl.constexpr, a value the kernel is compiled (and "
                          f"cached) for, so it must be hashable; got a {type(value).__name__}: pass a "
                          f"number, a string, a dtype or a tuple of them") from None
    return value
# --8<-- [end:constant]


def _is_array(value) -> bool:
    try:
        return dtype_of_array(value) is not None
    except LaunchError:  # an array of elements minitriton has no dtype for
        return True


# --8<-- [start:specialize]
def specialize(name: str, value, specialized: bool = True) -> tuple:
    """The facts about one runtime argument that the compiled code may depend on (the cache key).
    With `specialized` False (`do_not_specialize`), an int tells only its width."""
    if isinstance(value, np.generic):  # np.int64(5), np.float32(0.5): a number, not an array
        value = value.item()
    if isinstance(value, bool):
        return ("i1",)
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            kind = "i32"
        elif -2**63 <= value < 2**63:
            kind = "i64"
        elif 0 <= value < 2**64:
            kind = "u64"
        else:
            raise ArgumentOverflow(f"argument `{name}` = {value} is out of range: it does not fit "
                                   f"in 64 bits (-2**63 to 2**64 - 1; integer to be specialized too "
                                   f"large to represent)")
        return (kind, value % 16 == 0, value == 1) if specialized else (kind, False, False)
    if isinstance(value, float):
        return ("fp32",)
    # a namedtuple keeps its class; any other tuple (torch.Size) is a tuple
    if isinstance(value, tuple):
        kind = type(value) if hasattr(type(value), "_fields") else tuple
        return ("tuple", kind,
                tuple(_member(f"{name}[{i}]", v, specialized) for i, v in enumerate(value)))
    if isinstance(value, TensorDescriptor):
        members = (value.base, tuple(value.shape), tuple(value.strides))
        return ("tensordesc", tuple(value.block_shape), value.padding,
                tuple(specialize(f"{name}.{n}", v) for n, v in zip(DESCRIPTOR_MEMBERS, members)))
    dtype = dtype_of_array(value)
    if dtype is None:
        raise LaunchError(f"argument `{name}` is a {type(value).__name__}; expected an array (torch "
                          f"tensor, numpy array, DeviceArray), an int, a float or a bool")
    return (pointer_type(dtype).signature, array_address(value) % 16 == 0)


def _member(name: str, value, specialized: bool) -> tuple:
    """A tuple member's specialization: ("constexpr", value) for one known at compile time."""
    if _known_member(value):
        return ("constexpr", value)
    return specialize(name, value, specialized)


def _known_member(value) -> bool:
    """Whether a tuple member is known at compile time (its value is part of the specialization)."""
    return (value is None or isinstance(value, (str, DType)) or type(value).__name__ == "constexpr"
            or callable(value))


def arg_spec(key: tuple):
    """The frontend's view of one specialization: an ArgSpec, or for a tuple or a descriptor an
    AggregateSpec (a Constant for each of its compile-time members)."""
    if key[0] == "constexpr":
        return Constant(key[1])
    if key[0] == "tuple":
        kind, members = key[1], key[2]
        names = kind._fields if hasattr(kind, "_fields") else tuple(str(i) for i in range(len(members)))
        return AggregateSpec(kind, tuple(names), tuple(arg_spec(m) for m in members))
    if key[0] == "tensordesc":
        return AggregateSpec(TensorDescriptor, DESCRIPTOR_MEMBERS, tuple(arg_spec(m) for m in key[3]),
                             (key[1], key[2]))
    dtype = dtype_of_signature(key[0])
    if dtype.is_ptr():
        return ArgSpec(dtype, divisible_by_16=key[1])
    if len(key) == 3:
        return ArgSpec(dtype, divisible_by_16=key[1], equals_one=key[2])
    return ArgSpec(dtype)
# --8<-- [end:specialize]


# --8<-- [start:launch-key]
def launch_key(value) -> tuple:
    """(key, value to launch with) of one runtime argument. The key is at least as fine as
    `specialize`; an array's device address is read once, for both the key and the launch.
    launcher.c's `read_arg` reads a torch tensor and an int as this does, in C."""
    cls = value.__class__
    if cls is int:
        return (value == 1, value & 15 == 0, -2147483648 <= value < 2147483648, value < 2**63), value
    if cls is float or cls is bool or value is None:
        return cls, value
    if isinstance(value, np.generic):
        return launch_key(value.item())[0], value
    if isinstance(value, TensorDescriptor):  # its members' keys: the base's, each size's and stride's
        return (TensorDescriptor, tuple(value.block_shape), value.padding, launch_key(value.base)[0],
                tuple(launch_key(int(x))[0] for x in (*value.shape, *value.strides))), value
    if isinstance(value, tuple):  # its members' keys (an array's device too), and its class
        return ("tuple", value.__class__, tuple(("constexpr", m) if _known_member(m) else launch_key(m)[0]
                                                for m in value)), value
    address = getattr(value, "data_ptr", None)
    if address is not None:  # a torch tensor or a DeviceArray; the device is checked on a new key
        pointer = address()
        device = getattr(value, "get_device", None)
        return (value.dtype, pointer & 15 == 0, device() if device is not None else None), pointer
    interface = getattr(value, "__cuda_array_interface__", None)  # CuPy: by dtype and alignment
    if interface is not None:
        pointer = interface["data"][0]
        return (interface["typestr"], pointer & 15 == 0, "cuda"), pointer
    # numpy: a host array, refused on a new key
    interface = getattr(value, "__array_interface__", None)
    if interface is not None:
        return (interface["typestr"], interface["data"][0] & 15 == 0, "host"), value
    if value is MISSING:
        return value, value
    try:
        hash(value)
    except TypeError:
        return repr(value), value
    if isinstance(value, (str, DType)):
        return value, value
    return specialize("argument", value), value


def plain_key(value):
    """The key of a `do_not_specialize` argument: its class, or for an int whether it fits in 32
    bits (its width is all `specialize` keeps of it). launcher.c mirrors this too."""
    return value.__class__ if value.__class__ is not int else (-2147483648 <= value < 2147483648)
# --8<-- [end:launch-key]
