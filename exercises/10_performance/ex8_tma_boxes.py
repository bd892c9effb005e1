"""Exercise 10.8 (a compiler piece): the TMA boxes of a wgmma operand.

On Hopper one thread can have the tensor memory accelerator copy a whole box of a tensor into
shared memory (chapter 10, "The tensor memory accelerator"). The engine swizzles what it writes
over 32, 64 or 128 bytes: a 16-byte chunk's address bits 4-6 are XORed with bits 7-9 (for 128).
That is the swizzle of wgmma's canonical layouts (`geometry.WgmmaOperand`), so a block bound for a
wgmma operand arrives ready to be read if each box is a part of the operand the layout keeps
together. A box is `inner` elements of each of `outer` lines (inner fastest, at most 256 of each).

Write `tma_boxes(lines, k_length, bits, k_major)`: the boxes of an operand of `lines` lines (A's
rows, B's columns) and `k_length` elements of K, `bits` bits each, as the tuple
`(inner, outer, swizzle, count, stride)`: the box, its swizzle in bytes, how many boxes, and the
bytes from one box's place in the buffer to the next's. None where no box fits.

- K-major (`k_major`): a line holds its K elements. A line of 32 or 64 bytes is one swizzle atom
  of that width; a longer one is cut into blocks of 128 bytes of K (it must then be a whole
  number of them), block j holding bytes 128 j to 128 j + 127 of every line, the blocks one after
  another in the buffer. A box is one block of every line.
- M- or N-major (16-bit only: `bits` is 16): atoms of 64 lines hold 8 k-rows of 128 bytes each,
  the atoms for the next 8 k-rows after them, and those for the next 64 lines after all of K. A box
  is one atom column: 64 lines (inner) by every k-row (outer), 128-byte swizzled. `lines` must be
  a multiple of 64.
"""


def tma_boxes(lines: int, k_length: int, bits: int, k_major: bool) -> tuple[int, int, int, int, int] | None:
    raise NotImplementedError("exercise 10.8: tma_boxes")
