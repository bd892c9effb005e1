"""Exercise 8.2, wrong on purpose: each result register takes the last operand register holding
its element, not the first.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/08_llvm/ex2_broadcast_map.py.
"""


def broadcast_register_map(src_layout, src_shape: tuple[int, ...], dst_layout,
                           dst_shape: tuple[int, ...]) -> list[int] | None:
    stretched = {d for d, (s, t) in enumerate(zip(src_shape, dst_shape)) if s != t}

    def to_src(index):
        return tuple(0 if d in stretched else i for d, i in enumerate(index))

    for kind in ("lane_bases", "warp_bases"):
        dst_bases, src_bases = getattr(dst_layout, kind)(dst_shape), getattr(src_layout, kind)(src_shape)
        if [to_src(b) for b in dst_bases] != [tuple(b) for b in src_bases]:
            return None
    first: dict[tuple, int] = {}
    for register, offset in enumerate(src_layout.register_offsets(src_shape)):
        first[tuple(offset)] = register
    mapping = [first.get(to_src(offset)) for offset in dst_layout.register_offsets(dst_shape)]
    return None if None in mapping else mapping
