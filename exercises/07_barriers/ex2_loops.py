"""Exercise 7.2 (a compiler piece): the barrier walk with loops and ifs, to a fixed point.

Extend the walk of exercise 7.1 to blocks with `for` ops (one region: the body) and `if` ops (two
regions: the branches). Write `walk(block, pending, insert)`: walk `block.ops` from the set of
pending ranges `pending`; if `insert`, put barriers into the blocks (as in 7.1); return the set
pending at the end of the block. The rules of 7.1 still hold for every op with a range, and:

- `if`: walk both branches, each from (a copy of) the current set; continue with their union.
- `for`: the body runs zero or more times, each time right after the previous one, so what is
  pending at the end of one trip is pending at the top of the next. Find the set at the top of the
  body: start from `entry`, the set before the loop; walk the body without inserting, from entry;
  if the end set has anything not in entry, add it to entry and walk again; stop when nothing new
  appears. Then walk the body once more from that entry, inserting if `insert`. The set after the
  loop is entry together with the body's end set (the loop may run zero times).

A region's last op is its terminator (`yield`): walk it like any other op without a range.

Then the tests compile softmax, layer norm and matmul with your walk placing their barriers
(exercise mode, `minitriton.exercise_hooks`). (The compiler's pass also knows `while` loops and
the long-lived reads of sm_90a's `wgmma`; the tests' kernels have neither.)
"""
from minitriton import ir


def walk(block: ir.Block, pending: set[tuple[int, int]], insert: bool) -> set[tuple[int, int]]:
    raise NotImplementedError("exercise 7.2: walk")
