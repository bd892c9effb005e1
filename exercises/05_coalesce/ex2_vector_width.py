"""Exercise 5.2 (a compiler piece): how many elements one access may move.

Write `vector_width(contiguity, divisibility, mask_constancy, element_bytes, numel, num_warps)`:
the number of elements each thread moves with one load or store instruction, along the contiguous
dimension of a tile of `numel` elements spread over `num_warps` warps of 32 threads. The facts are
those of the tile of pointers along that dimension: `contiguity` in elements, `divisibility` in
bytes (the alignment of each run's first address); `mask_constancy` is the mask's constancy along
that dimension, or None for an access without a mask.

The width is the largest power of two that is no larger than any of:

- the run of consecutive addresses;
- what the alignment allows: divisibility // element_bytes elements;
- 16 bytes (`ld.global.v4.b32`, the widest access): 16 // element_bytes elements;
- the run of equal mask bits (one predicate guards a whole vector);
- the elements each thread holds when the tile is spread over all the threads,
  numel // (32 * num_warps) (a wider vector would leave threads idle).

It is never less than 1. Then the tests compile real kernels with your function deciding every
access (exercise mode, `minitriton.exercise_hooks`) and read the loads and stores in the PTX.
"""


def vector_width(contiguity: int, divisibility: int, mask_constancy: int | None, element_bytes: int,
                 numel: int, num_warps: int) -> int:
    raise NotImplementedError("exercise 5.2: vector_width")
