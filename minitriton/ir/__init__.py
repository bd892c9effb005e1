"""Tile IR: the program every stage after the frontend reads and rewrites.

Chapter: 03-tile-ir.

- `core`: types, values, ops, blocks, functions, `walk_block` and `loop_parts`;
- `ops`: the op table (every op's typing rule), the op traits, and the `Builder`;
- `attrs`: every attribute key an op or a function carries, who writes it and who reads it;
- `printer`: the text a person reads; `verify`: the checks every pass leaves true.

`from minitriton import ir` gives all of it, and the element types of `dtypes` (`ir.float32`).
"""
from ..dtypes import (FORMATS, DType, SCALAR_DTYPES, bfloat16, dtype_from_numpy, dtype_named, float8e4b8,  # noqa: F401
                      float8e4b15, float8e4nv, float8e5, float8e5b16, float16, float32, float64, int1, int8,
                      int16, int32, int64, pointer_type, uint8, uint16, uint32, uint64)
from ..errors import Loc, VerificationError  # noqa: F401
from .attrs import ATTRS  # noqa: F401
from .core import Block, Function, LoopParts, Op, Type, Value, is_zero, loop_parts, scalar, tile, walk_block  # noqa: F401
from .ops import (ARITHMETIC, BACKEND_OPS, BITWISE, CHEAP, EFFECTS, ELEMENTWISE, MATH, OPS, REDUCE_KINDS,  # noqa: F401
                  REGION_OPS, SPECIAL_REGISTERS, TERMINATORS, Builder)
from .printer import Printer, print_function  # noqa: F401
from .verify import verify  # noqa: F401
