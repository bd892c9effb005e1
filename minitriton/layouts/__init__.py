"""Layouts: how one program's tile is spread over its warps, lanes and registers.

Chapter: 04-layouts.

Place in the pipeline: plain arithmetic, no IR. `passes/layout.py` gives every tile value one of
these; codegen asks them which elements a thread holds and how to compute their indices; the book
draws them with `draw`. Nothing here knows about ops or types.

- `base`: what every register layout answers, from its bases (`DistributedLayout`);
- `blocked`: `BlockedLayout`, `SliceLayout`, `PermutedLayout` (a transposed view of any other),
  `default_blocked`, and the layouts of join and split;
- `mma`: `MmaLayout`, `DotOperandLayout`, `SharedOperandLayout`;
- `shared`: `SharedLayout` and the swizzles; `draw`: the pictures.
"""
from .base import BitField, DistributedLayout, Index, Owner  # noqa: F401
from .blocked import (BlockedLayout, PermutedLayout, SliceLayout, default_blocked, merged_pairs, with_pairs,  # noqa: F401
                      without_pairs)
from .draw import draw  # noqa: F401
from .mma import DotOperandLayout, MmaLayout, SharedOperandLayout  # noqa: F401
from .shared import SharedLayout, fma_operand_swizzle, mma_operand_swizzle  # noqa: F401
