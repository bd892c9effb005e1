"""Exercise 8.2 (a compiler piece): when is a broadcast only a renumbering of registers?

`broadcast` stretches the dimensions of size 1 of its operand (`src_shape`) to `dst_shape`: element
`index` of the result is element `to_src(index)` of the operand, where `to_src` sets the stretched
dimensions of `index` to 0. If every thread already holds the operand elements its result registers
need, the broadcast costs nothing: each result register is a copy of one of the thread's own operand
registers. Otherwise the elements must go through shared memory.

Write `broadcast_register_map(src_layout, src_shape, dst_layout, dst_shape)`: for each result
register (in order), the number of the operand register of the same thread that holds its element,
or None when some thread lacks an element it needs. With the bases of chapter 4 this is exact:

1. every lane basis of the result, mapped by `to_src`, must equal the operand's lane basis of the
   same bit (`layout.lane_bases(shape)`), and likewise every warp basis: then a thread's lane and
   warp parts of an index map onto its own part of the operand's index;
2. every result register offset (`layout.register_offsets(shape)`, the index register r holds in
   lane 0 of warp 0), mapped by `to_src`, must be the offset of some operand register; take the
   first such register.

Compare bases as tuples.
"""


def broadcast_register_map(src_layout, src_shape: tuple[int, ...], dst_layout,
                           dst_shape: tuple[int, ...]) -> list[int] | None:
    raise NotImplementedError("exercise 8.2: broadcast_register_map")
