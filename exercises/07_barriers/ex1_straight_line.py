"""Exercise 7.1 (a compiler piece): the barrier walk over one block without loops.

Every op with a shared-memory buffer has a byte range, `[op.attrs["smem_offset"],
op.attrs["smem_offset"] + op.attrs["smem_bytes"])` (ops without one have no "smem_bytes"). Such an
op writes its range, waits at a barrier of its own, and reads it back (chapter 7). So the hazard
between ops is one: an op writing bytes that an earlier op's threads may still be reading.

Write `insert_barriers(block)`: walk `block.ops` in order with the set of *pending* ranges (reads
that may still be going on since the last barrier), starting empty.

- Before an op whose range overlaps a pending range, insert a new barrier op,
  `ir.Op("barrier", [], [])`, and empty the set. (Ranges [a, b) and [c, d) overlap when a < d and
  c < b.)
- After an op with a range, the set is just that op's range: its own barrier ordered everything
  before it.
- A `barrier` op already in the block empties the set.

Rewrite `block.ops` with the barriers in place and return how many you inserted. The block has no
loops or ifs. Then the tests compile kernels without loops with your walk placing their barriers
(exercise mode, `minitriton.exercise_hooks`).
"""
from minitriton import ir


def insert_barriers(block: ir.Block) -> int:
    raise NotImplementedError("exercise 7.1: insert_barriers")
