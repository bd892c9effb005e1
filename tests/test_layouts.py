"""Layout arithmetic: the laws every layout keeps, and hand-checked cases from Triton and the PTX ISA."""
from __future__ import annotations

import itertools
import math
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minitriton.layouts import (
    BlockedLayout,
    DotOperandLayout,
    MmaLayout,
    PermutedLayout,
    SharedLayout,
    SliceLayout,
    default_blocked,
    draw,
    fma_operand_swizzle,
    mma_operand_swizzle,
)

LAWS = settings(max_examples=150, deadline=None, derandomize=True)
POSITION_BUDGET = 1 << 12  # warps * lanes * registers enumerated per example


# -- strategies ----------------------------------------------------------------------------------

def split(total: int, rank: int):
    """Powers of two, one per dimension, whose product is `total`."""
    return st.lists(st.integers(0, rank - 1), min_size=total.bit_length() - 1,
                    max_size=total.bit_length() - 1).map(lambda dims: tuple(2 ** dims.count(d) for d in range(rank)))


@st.composite
def blocked_layouts(draw_, rank=None):
    rank = rank or draw_(st.integers(1, 3))
    num_warps = draw_(st.sampled_from([1, 2, 4, 8]))
    return BlockedLayout(
        size_per_thread=tuple(draw_(st.sampled_from([1, 2, 4])) for _ in range(rank)),
        threads_per_warp=draw_(split(32, rank)),
        warps_per_cta=draw_(split(num_warps, rank)),
        order=tuple(draw_(st.permutations(range(rank)))),
    )


@st.composite
def mma_layouts(draw_):
    return MmaLayout(draw_(st.sampled_from([1, 2, 4, 8]).flatmap(lambda n: split(n, 2))))


@st.composite
def wgmma_layouts(draw_):
    """Version 3: warpgroups (4 warps down M) side by side along N, each warp 16 rows of a tile."""
    warps = (4 * draw_(st.sampled_from([1, 2])), draw_(st.sampled_from([2, 4])))
    return MmaLayout(warps, version=3, instr_shape=(16, draw_(st.sampled_from([8, 16, 64, 256]))))


@st.composite
def dot_layouts(draw_):
    return DotOperandLayout(draw_(st.sampled_from([0, 1])), draw_(mma_layouts()), draw_(st.sampled_from([1, 2, 4])))


@st.composite
def slice_layouts(draw_):
    parent = draw_(st.one_of(blocked_layouts(rank=draw_(st.integers(2, 3))), mma_layouts(), wgmma_layouts()))
    return SliceLayout(draw_(st.integers(0, parent.rank - 1)), parent)


@st.composite
def permuted_layouts(draw_):
    """A transposed view of any other kind (`tl.trans` of an mma accumulator, of a slice)."""
    parent = draw_(st.one_of(blocked_layouts(rank=draw_(st.integers(2, 3))), mma_layouts(), wgmma_layouts(),
                             dot_layouts(), slice_layouts()))
    return PermutedLayout(parent, tuple(draw_(st.permutations(range(parent.rank)))))


any_layout = st.one_of(blocked_layouts(), mma_layouts(), wgmma_layouts(), dot_layouts(), slice_layouts(),
                       permuted_layouts())


def positions(layout, shape) -> int:
    return layout.num_warps * layout.warp_size * layout.registers_per_thread(shape)


@st.composite
def layout_and_shape(draw_, layouts=any_layout):
    """A layout and a shape of 1..256 per dimension, halved where enumerating it would be slow."""
    layout = draw_(layouts)
    shape = [2 ** draw_(st.integers(0, 8)) for _ in range(layout.rank)]
    while positions(layout, shape) > POSITION_BUDGET and max(shape) > 1:
        shape[shape.index(max(shape))] //= 2
    return layout, tuple(shape)


def holders(layout, shape) -> dict[tuple, list]:
    """index -> every (warp, lane, register) whose element it is, by walking all threads."""
    table = defaultdict(list)
    for warp in range(layout.num_warps):
        for lane in range(layout.warp_size):
            for register, index in enumerate(layout.elements(warp, lane, shape)):
                table[index].append((warp, lane, register))
    return table


def all_indices(shape):
    return list(itertools.product(*(range(s) for s in shape)))


# -- laws of every distributed layout ------------------------------------------------------------

@LAWS
@given(layout_and_shape())
def test_every_register_holds_an_element_inside_the_shape(case):
    layout, shape = case
    for warp in range(layout.num_warps):
        for lane in range(layout.warp_size):
            held = layout.elements(warp, lane, shape)
            assert len(held) == layout.registers_per_thread(shape)
            assert all(0 <= i < s for index in held for i, s in zip(index, shape))


@LAWS
@given(layout_and_shape())
def test_elements_decompose_into_register_lane_and_warp_offsets(case):
    layout, shape = case
    offsets = layout.register_offsets(shape)
    lane_fields, warp_fields = layout.lane_fields(shape), layout.warp_fields(shape)
    for warp in range(layout.num_warps):
        warp_at = layout.warp_offset(warp, shape)
        assert warp_at == tuple(sum(f.value(warp) for f in warp_fields if f.dim == d) for d in range(layout.rank))
        for lane in range(layout.warp_size):
            lane_at = layout.lane_offset(lane, shape)
            assert lane_at == tuple(sum(f.value(lane) for f in lane_fields if f.dim == d) for d in range(layout.rank))
            expected = [tuple((r + l + w) % s for r, l, w, s in zip(reg, lane_at, warp_at, shape)) for reg in offsets]
            assert layout.elements(warp, lane, shape) == expected
            # The parts never share a bit, so the sum is also their or, and needs no modulo.
            assert expected == [tuple(r | l | w for r, l, w in zip(reg, lane_at, warp_at)) for reg in offsets]


@LAWS
@given(layout_and_shape())
def test_owner_is_the_inverse_of_elements_and_replication_is_uniform(case):
    layout, shape = case
    table = holders(layout, shape)
    assert set(table) == set(all_indices(shape)), "every element has an owner"
    for index, owners in table.items():
        assert layout.owner(index, shape) == sorted(owners)
    assert len({len(owners) for owners in table.values()}) == 1, "every element has as many copies"
    copies = len(next(iter(table.values())))
    assert copies * math.prod(shape) == positions(layout, shape)


@LAWS
@given(any_layout)
def test_bases_cover_the_cta_tile_exactly_once(layout):
    ones = (1,) * layout.rank
    bases = layout._tile_register_bases() + layout._lane_bases() + layout._warp_bases()
    assert layout._register_bases_unreduced(ones) == layout._tile_register_bases()
    for d, size in enumerate(layout.cta_tile):
        steps = sorted(b[d] for b in bases if b[d])
        assert steps == [1 << k for k in range(size.bit_length() - 1)]
        assert all(sum(1 for v in b if v) <= 1 for b in bases), "a basis steps along one dimension"


@LAWS
@given(layout_and_shape(blocked_layouts()))
def test_blocked_contiguity_is_what_vector_loads_may_use(case):
    layout, shape = case
    fastest = layout.order[0]
    contig = layout.contig_per_thread(shape)
    assert contig == min(layout.size_per_thread[fastest], shape[fastest])
    held = layout.elements(0, 0, shape)
    for start in range(0, len(held), contig):
        for j in range(contig):
            expected = list(held[start])
            expected[fastest] += j
            assert held[start + j] == tuple(expected)


@LAWS
@given(any_layout)
def test_per_dimension_queries_agree_with_the_bases(layout):
    assert math.prod(layout.threads_per_warp) <= layout.warp_size
    assert math.prod(layout.warps_per_cta) <= layout.num_warps
    assert sorted(layout.order) == list(range(layout.rank))
    if isinstance(layout, BlockedLayout):
        assert layout._per_dim(layout._lane_bases()) == layout.threads_per_warp
        assert layout._per_dim(layout._warp_bases()) == layout.warps_per_cta
        assert layout.cta_tile == tuple(s * t * w for s, t, w in zip(
            layout.size_per_thread, layout.threads_per_warp, layout.warps_per_cta))


# -- slices: where a reduction leaves its result ---------------------------------------------------

@LAWS
@given(layout_and_shape(slice_layouts()))
def test_slice_holds_the_reduction_of_what_the_thread_held(case):
    layout, shape = case
    full = shape[: layout.dim] + (4,) + shape[layout.dim:]
    for warp in range(layout.num_warps):
        for lane in range(layout.warp_size):
            dropped = {index[: layout.dim] + index[layout.dim + 1:]
                       for index in layout.parent.elements(warp, lane, full)}
            assert set(layout.elements(warp, lane, shape)) == dropped


def test_slice_of_a_row_reduction():
    parent = BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
    rows = SliceLayout(1, parent)
    assert str(rows) == ("#slice<{dim=1, parent=#blocked<{sizePerThread=[1,4], threadsPerWarp=[2,16], "
                         "warpsPerCTA=[4,1], order=[1,0]}>}>")
    assert rows.order == (0,) and rows.threads_per_warp == (2,) and rows.warps_per_cta == (4,)
    assert rows.elements(1, 17, [16]) == [(3,), (11,)]  # lane 17: second row of warp 1's pair
    assert rows.owner((3,), [16]) == [(1, lane, 0) for lane in range(16, 32)]
    assert parent.lane_masks_along(1, [16, 64]) == [1, 2, 4, 8] and parent.warp_masks_along(1, [16, 64]) == []
    assert parent.lane_masks_along(0, [16, 64]) == [16] and parent.warp_masks_along(0, [16, 64]) == [1, 2]


# -- default_blocked against Triton's own output ----------------------------------------------------

@pytest.mark.parametrize("shape, num_warps, spt, expected", [
    ([128], 4, None, ([1], [32], [4], [0])),
    ([64, 64], 4, [1, 4], ([1, 4], [2, 16], [4, 1], [1, 0])),
    ([16, 16], 4, None, ([1, 1], [2, 16], [4, 1], [1, 0])),          # tt.dot operand, 4 warps
    ([128, 32], 4, [1, 8], ([1, 8], [8, 4], [4, 1], [1, 0])),        # matmul A tile
    ([32, 128], 4, [1, 8], ([1, 8], [2, 16], [4, 1], [1, 0])),       # matmul B tile
    ([128, 32], 4, None, ([1, 1], [1, 32], [4, 1], [1, 0])),
    ([64, 2, 32], 4, None, ([1, 1, 1], [1, 1, 32], [2, 2, 1], [2, 1, 0])),
    ([32, 64, 2], 4, None, ([1, 1, 1], [1, 16, 2], [1, 4, 1], [2, 1, 0])),
    ([16], 4, None, ([1], [32], [4], [0])),                          # smaller than the CTA: replicas
    ([8, 2], 4, None, ([1, 1], [16, 2], [4, 1], [1, 0])),
])
def test_default_blocked_matches_triton(shape, num_warps, spt, expected):
    layout = default_blocked(shape, num_warps, size_per_thread=spt)
    assert layout == BlockedLayout(*expected)


def test_default_blocked_replicates_small_shapes():
    layout = default_blocked([16], 4)
    assert layout.owner((5,), [16]) == [(w, lane, 0) for w in range(4) for lane in (5, 21)]
    assert layout.registers_per_thread([16]) == 1


@LAWS
@given(st.integers(1, 3).flatmap(lambda rank: st.tuples(
    st.lists(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256]), min_size=rank, max_size=rank),
    st.sampled_from([1, 2, 4, 8]), st.permutations(range(rank)))))
def test_default_blocked_uses_every_thread_once_when_the_shape_is_big_enough(case):
    shape, num_warps, order = case
    layout = default_blocked(shape, num_warps, order=order)
    assert math.prod(layout.threads_per_warp) == 32 and math.prod(layout.warps_per_cta) == num_warps
    if math.prod(shape) >= 32 * num_warps:
        assert layout.owner((0,) * len(shape), shape) == [(0, 0, 0)]


# -- mma.sync m16n8k16: the PTX ISA fragment tables ---------------------------------------------------
# groupID = lane >> 2, threadID_in_group = lane % 4 (PTX ISA, "Matrix Fragments for mma.m16n8k16
# with floating point type").

def ptx_accumulator(lane):  # c0..c3
    g, t = lane >> 2, lane % 4
    return [(g + 8 * (i >= 2), t * 2 + (i & 1)) for i in range(4)]


def ptx_a_f16(lane):  # a0..a7
    g, t = lane >> 2, lane % 4
    return [(g if (0 <= i < 2 or 4 <= i < 6) else g + 8, t * 2 + (i & 1) + 8 * (i >= 4)) for i in range(8)]


def ptx_b_f16(lane):  # b0..b3
    g, t = lane >> 2, lane % 4
    return [(t * 2 + (i & 1) + 8 * (i >= 2), g) for i in range(4)]


def ptx_a_tf32(lane):  # m16n8k8 .tf32: a0..a3
    g, t = lane >> 2, lane % 4
    return [(g + 8 * (i in (1, 3)), t + 4 * (i >= 2)) for i in range(4)]


def ptx_b_tf32(lane):  # m16n8k8 .tf32: b0, b1
    g, t = lane >> 2, lane % 4
    return [(t + 4 * i, g) for i in range(2)]


def ptx_a_s8(lane):  # m16n8k32 .s8: a0..a15
    g, t = lane >> 2, lane % 4
    return [(g if (i < 4 or 8 <= i < 12) else g + 8, t * 4 + (i & 3) + 16 * (i >= 8)) for i in range(16)]


def ptx_b_s8(lane):  # m16n8k32 .s8: b0..b7
    g, t = lane >> 2, lane % 4
    return [(t * 4 + (i & 3) + 16 * (i >= 4), g) for i in range(8)]


def test_mma_lane_5_owns_rows_1_and_9_columns_2_and_3():
    mma = MmaLayout([1, 1])
    assert mma.elements(0, 5, [16, 8]) == [(1, 2), (1, 3), (9, 2), (9, 3)]
    assert mma.owner((9, 3), [16, 8]) == [(0, 5, 3)]


@pytest.mark.parametrize("lane", range(32))
def test_fragments_match_the_ptx_isa(lane):
    mma = MmaLayout([1, 1])
    assert mma.elements(0, lane, [16, 8]) == ptx_accumulator(lane)
    assert DotOperandLayout(0, mma).elements(0, lane, [16, 16]) == ptx_a_f16(lane)
    assert DotOperandLayout(1, mma).elements(0, lane, [16, 8]) == ptx_b_f16(lane)
    assert DotOperandLayout(0, mma, k_width=1).elements(0, lane, [16, 8]) == ptx_a_tf32(lane)
    assert DotOperandLayout(1, mma, k_width=1).elements(0, lane, [8, 8]) == ptx_b_tf32(lane)
    assert DotOperandLayout(0, mma, k_width=4).elements(0, lane, [16, 32]) == ptx_a_s8(lane)
    assert DotOperandLayout(1, mma, k_width=4).elements(0, lane, [32, 8]) == ptx_b_s8(lane)


def test_dot_operand_fragments_of_lanes_0_and_5():
    mma = MmaLayout([1, 1])
    a, b = DotOperandLayout(0, mma), DotOperandLayout(1, mma)
    assert a.elements(0, 0, [16, 16]) == [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    assert a.elements(0, 5, [16, 16]) == [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]
    assert b.elements(0, 0, [16, 8]) == [(0, 0), (1, 0), (8, 0), (9, 0)]
    assert b.elements(0, 5, [16, 8]) == [(2, 1), (3, 1), (10, 1), (11, 1)]
    assert a.contig_per_thread([16, 16]) == 2 and b.contig_per_thread([16, 8]) == 2


def test_mma_warps_are_row_major_and_repeat():
    mma = MmaLayout([2, 2])
    assert mma.cta_tile == (32, 16)
    assert mma.elements(1, 0, [32, 16]) == [(0, 8), (0, 9), (8, 8), (8, 9)]     # warp 1: right of warp 0
    assert mma.elements(2, 0, [32, 16]) == [(16, 0), (16, 1), (24, 0), (24, 1)]  # warp 2: below warp 0
    # A 64x32 tile repeats the 32x16 arrangement twice along M and N, N first.
    assert mma.elements(0, 0, [64, 32])[4:8] == [(0, 16), (0, 17), (8, 16), (8, 17)]
    assert mma.elements(0, 0, [64, 32])[8:12] == [(32, 0), (32, 1), (40, 0), (40, 1)]
    assert mma.lane_fields([32, 16])[0].dim == 1  # lane bits 0-1 pick the column pair


def test_wgmma_warpgroups_side_by_side_take_column_halves():
    """8 warps over a 64x128 wgmma accumulator: warps 0-3 (warpgroup 0) are rows 0-63 of columns
    0-63, one m64n64 each; warps 4-7 the same rows of columns 64-127."""
    mma = MmaLayout([4, 2], version=3, instr_shape=[16, 64])
    assert mma.cta_tile == (64, 128) and mma.registers_per_thread([64, 128]) == 32
    assert mma.elements(1, 0, [64, 128])[:4] == [(16, 0), (16, 1), (24, 0), (24, 1)]   # warp 1: 16 rows down
    assert mma.elements(4, 0, [64, 128])[:4] == [(0, 64), (0, 65), (8, 64), (8, 65)]   # warp 4: the right half
    assert mma.elements(0, 5, [64, 128])[4:8] == [(1, 10), (1, 11), (9, 10), (9, 11)]  # c4..c7: 8 columns on
    assert mma.elements(0, 0, [128, 128])[32:36] == [(64, 0), (64, 1), (72, 0), (72, 1)]  # repeats along M
    # with one warpgroup along N, version 2's (num_warps, 1) is the same arrangement
    v2, v3 = MmaLayout([8, 1]), MmaLayout([8, 1], version=3, instr_shape=[16, 64])
    assert all(v2.elements(w, lane, [128, 64]) == v3.elements(w, lane, [128, 64]) for w in range(8) for lane in range(32))
    assert str(mma) == "#mma<{versionMajor=3, warpsPerCTA=[4,2], instrShape=[16,64]}>"
    with pytest.raises(ValueError, match="version 2 MmaLayout"):
        DotOperandLayout(0, mma)
    with pytest.raises(ValueError, match="whole warpgroups"):
        MmaLayout([2, 4], version=3, instr_shape=[16, 64])


def test_warps_along_n_share_a_and_warps_along_m_share_b():
    mma = MmaLayout([2, 2])
    a, b = DotOperandLayout(0, mma), DotOperandLayout(1, mma)
    for lane in range(32):
        assert a.elements(0, lane, [32, 32]) == a.elements(1, lane, [32, 32])
        assert a.elements(0, lane, [32, 32]) != a.elements(2, lane, [32, 32])
        assert b.elements(0, lane, [32, 16]) == b.elements(2, lane, [32, 16])
        assert b.elements(0, lane, [32, 16]) != b.elements(1, lane, [32, 16])
    assert a.warps_per_cta == (2, 1) and b.warps_per_cta == (1, 2)
    assert a.threads_per_warp == (8, 4) and b.threads_per_warp == (4, 8)
    assert len(a.owner((0, 0), [32, 32])) == 2


# -- shared memory and its swizzle ---------------------------------------------------------------

@st.composite
def shared_and_shape(draw_):
    rank = draw_(st.integers(1, 3))
    vec, per_phase, max_phase = (2 ** draw_(st.integers(0, 3)) for _ in range(3))
    layout = SharedLayout(vec, per_phase, max_phase, tuple(draw_(st.permutations(range(rank)))))
    shape = [2 ** draw_(st.integers(0, 5)) for _ in range(rank)]
    shape[layout.order[0]] = vec * max_phase * 2 ** draw_(st.integers(0, 2))
    return layout, tuple(shape)


@LAWS
@given(shared_and_shape())
def test_shared_offset_is_a_bijection_and_index_of_inverts_it(case):
    layout, shape = case
    offsets = [layout.offset(index, shape) for index in all_indices(shape)]
    assert sorted(offsets) == list(range(math.prod(shape)))
    for index, offset in zip(all_indices(shape), offsets):
        assert layout.index_of(offset, shape) == index


def test_shared_swizzle_matches_the_triton_picture():
    # vec=2, perPhase=2: rows 2 and 3 store A[r,2] A[r,3] A[r,0] A[r,1].
    layout = SharedLayout(2, 2, 2, [1, 0])
    assert [layout.index_of(2 * 4 + o, [4, 4]) for o in range(4)] == [(2, 2), (2, 3), (2, 0), (2, 1)]
    assert [layout.index_of(o, [4, 4]) for o in range(4)] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert str(layout) == "#shared<{vec=2, perPhase=2, maxPhase=2, order=[1,0]}>"


def ldmatrix_bank_groups(layout, shape, element_bits, first_row, chunk):
    """The 16-byte bank group (of 8) each of the 8 rows of one ldmatrix 8x8 read falls in."""
    per_chunk = 128 // element_bits
    groups = []
    for row in range(first_row, first_row + 8):
        index = [0, 0]
        index[layout.order[1]], index[layout.order[0]] = row, chunk * per_chunk
        start = layout.offset(index, shape) * element_bits // 8
        index[layout.order[0]] += per_chunk - 1
        assert layout.offset(index, shape) * element_bits // 8 == start + 16 - element_bits // 8, "16 contiguous bytes"
        groups.append(start // 16 % 8)
    return groups


@pytest.mark.parametrize("element_bits", [8, 16, 32])
@pytest.mark.parametrize("row_length_bytes", [16, 32, 64, 128, 256, 512])
@pytest.mark.parametrize("op_idx", [0, 1])
def test_mma_swizzle_puts_the_rows_of_an_ldmatrix_in_distinct_bank_groups(element_bits, row_length_bytes, op_idx):
    row_length = row_length_bytes * 8 // element_bits
    order = (1, 0) if op_idx == 0 else (0, 1)  # K contiguous: the rows ldmatrix reads
    layout = mma_operand_swizzle(row_length, element_bits, op_idx, order)
    assert layout.vec * element_bits == 128, "one swizzled chunk is one 16-byte ldmatrix row"
    shape = [0, 0]
    shape[order[0]], shape[order[1]] = row_length, 64
    for first_row in range(0, 64, 8):
        for chunk in range(row_length * element_bits // 128):
            assert sorted(ldmatrix_bank_groups(layout, shape, element_bits, first_row, chunk)) == list(range(8))


def test_without_the_swizzle_ldmatrix_rows_collide():
    plain = SharedLayout(1, 1, 1, (1, 0))
    assert ldmatrix_bank_groups(plain, [64, 64], 16, 0, 0) == [0] * 8  # 8-way bank conflict


@pytest.mark.parametrize("row_length, element_bits, op_idx, order, expected", [
    (64, 16, 0, (1, 0), (8, 1, 8)),
    (32, 16, 0, (1, 0), (8, 2, 4)),
    (16, 16, 0, (1, 0), (8, 4, 2)),
    (8, 16, 0, (1, 0), (8, 8, 1)),
    (128, 16, 1, (1, 0), (8, 1, 8)),
    (32, 32, 0, (1, 0), (4, 1, 8)),
    (32, 32, 1, (1, 0), (8, 1, 4)),
    (64, 8, 0, (0, 1), (1, 1, 1)),   # transposed 8-bit operand: no swizzle
])
def test_mma_swizzle_follows_triton_rule(row_length, element_bits, op_idx, order, expected):
    layout = mma_operand_swizzle(row_length, element_bits, op_idx, order)
    assert (layout.vec, layout.per_phase, layout.max_phase) == expected and layout.order == order


# -- printing, drawing, errors ----------------------------------------------------------------------

def test_layouts_print_like_triton_and_are_hashable():
    blocked = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    assert str(blocked) == "#blocked<{sizePerThread=[1,4], threadsPerWarp=[8,4], warpsPerCTA=[4,1], order=[1,0]}>"
    mma = MmaLayout(warps_per_cta=[2, 2])
    assert str(mma) == "#mma<{versionMajor=2, warpsPerCTA=[2,2], instrShape=[16,8]}>"
    assert str(DotOperandLayout(1, mma)) == f"#dot_op<{{opIdx=1, parent={mma}, kWidth=2}}>"
    assert {blocked: 1}[BlockedLayout((1, 4), (8, 4), (4, 1), (1, 0))] == 1
    assert hash(SliceLayout(0, mma)) == hash(SliceLayout(0, MmaLayout((2, 2))))


def test_draw_gives_one_cell_per_element_coloured_by_what_it_shows():
    from minitriton.layouts.draw import PALETTE

    mma = MmaLayout([2, 1])
    dot = draw(mma, [32, 8], num_warps=2)
    assert dot.startswith("digraph layout {") and dot.rstrip().endswith("}")
    swatches = 2  # the legend's: one colour a warp
    assert dot.count("<TD BGCOLOR=") == 32 * 8 + swatches
    # by warp: the cell reads lane and register; element (0, 3) is lane 1's register 1 in warp 0
    assert f'<TD BGCOLOR="{PALETTE[0]}">t1:r1</TD>' in dot and f'<TD BGCOLOR="{PALETTE[1]}">t0:r0</TD>' in dot
    assert "colour: warp" in dot and "cell: t&lt;lane&gt;:r&lt;register&gt;" in dot
    by_register = draw(mma, [32, 8], color_by="register")
    # element (8, 3): lane 1 holds it in register c3 (row l/4 + 8, column 2 (l%4) + 1)
    assert f'<TD BGCOLOR="{PALETTE[3]}">w0:t1</TD>' in by_register and "colour: register" in by_register
    replicated = draw(MmaLayout([1, 1]), [8, 8])  # rows 8-15 wrap onto rows 0-7: every element twice
    assert "held 2 times" in replicated and " x2<" not in replicated
    shared = draw(mma_operand_swizzle(16, 16), [8, 16])
    assert shared.count("<TD BGCOLOR=") > 8 * 16 and ">0</TD>" in shared and "colour: bank group" in shared
    with pytest.raises(ValueError, match="color_by is one of warp, lane, register"):
        draw(mma, [32, 8], color_by="thread")
    with pytest.raises(ValueError, match="spreads over 2 warps, not 4"):
        draw(mma, [32, 8], num_warps=4)
    with pytest.raises(ValueError, match="1-D and 2-D"):
        draw(BlockedLayout([1] * 3, [1, 1, 32], [1, 1, 1], [2, 1, 0]), [2, 2, 2])


def test_mistakes_are_reported_in_words():
    with pytest.raises(ValueError, match="powers of two"):
        BlockedLayout([3], [32], [1], [0])
    with pytest.raises(ValueError, match="permutation"):
        BlockedLayout([1, 1], [4, 8], [1, 1], [1, 1])
    with pytest.raises(ValueError, match="one entry per dimension"):
        BlockedLayout([1, 1], [32], [1], [0])
    with pytest.raises(ValueError, match="rank 2"):
        MmaLayout([1, 1]).elements(0, 0, [16])
    with pytest.raises(ValueError, match="powers of two"):
        MmaLayout([1, 1]).owner((0, 0), [16, 6])
    with pytest.raises(ValueError, match="outside the shape"):
        MmaLayout([1, 1]).owner((16, 0), [16, 8])
    with pytest.raises(ValueError, match="k_width"):
        DotOperandLayout(0, MmaLayout([1, 1]), k_width=3)
    with pytest.raises(ValueError, match="multiple of vec"):
        SharedLayout(8, 1, 8, (1, 0)).offset((0, 0), [8, 32])


# --- the rings of a dot on CUDA cores -------------------------------------------------------------

def _most_addresses_per_bank(shared: SharedLayout, acc, acc_shape, k: int) -> int:
    """The worst number of distinct 16-byte addresses one bank serves when a warp reads a row of
    A (4 steps of k, fp32) per accumulator row it holds, over every row and chunk of k."""
    m = acc_shape[0]
    worst = 0
    for row in sorted({o[0] for o in acc.register_offsets(acc_shape)}):
        for chunk in range(k // 4):
            banks = defaultdict(set)
            for lane in range(32):
                r = row | acc.lane_offset(lane, acc_shape)[0]
                address = shared.offset((r, chunk * 4), (m, k)) * 4
                for word in range(4):
                    banks[(address // 4 + word) % 32].add(address)
            worst = max(worst, max(len(a) for a in banks.values()))
    return worst


def test_the_fma_ring_swizzle_spreads_a_warps_row_reads_over_the_banks():
    from minitriton.passes.layout import fma_layout
    for (m, n), warps in (((128, 64), 4), ((128, 128), 8), ((64, 64), 4)):
        acc = fma_layout((m, n), warps)
        a = fma_operand_swizzle(0, (m, 32), 32, acc, (m, n))
        assert _most_addresses_per_bank(a, acc, (m, n), 32) == 1, (m, n, a)
        assert _most_addresses_per_bank(SharedLayout(4, 1, 1, (1, 0)), acc, (m, n), 32) == 4  # unswizzled
        # the phase bits are thread bits only: every register row of a thread has the same phase
        for row in {o[0] for o in acc.register_offsets((m, n))}:
            assert (row // a.per_phase) % a.max_phase == 0
    assert fma_operand_swizzle(1, (32, 64), 32, acc, (64, 64)) == SharedLayout(4, 1, 1, (1, 0))


def test_a_permuted_layout_keeps_each_element_in_its_thread_and_register():
    """trans of a 64 x 16 mma accumulator: thread (warp, lane)'s register r holds element (j, i)
    of the 16 x 64 result exactly where it held (i, j)."""
    parent = MmaLayout((4, 1))
    view = PermutedLayout(parent, (1, 0))
    for warp in range(4):
        for lane in range(32):
            assert view.elements(warp, lane, (16, 64)) == [(j, i) for i, j in parent.elements(warp, lane, (64, 16))]
    assert view.order == (0, 1) and str(view).startswith("#permuted<")
