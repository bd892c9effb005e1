"""Op lists built by hand for chapter 7's exercises: shared-memory ops, other ops, loops and ifs.

Only what the barrier walk reads is filled in: an op's name, its byte range (`smem_offset`,
`smem_bytes`) and its regions. `render` writes a block as a line of text: a shared-memory op by its
label, `|` for a barrier, `.` for any other op, `for(...)` and `if(... ; ...)` for regions.
"""
import random

from minitriton import ir


def shared(label: str, start: int, end: int) -> ir.Op:
    """An op that uses bytes [start, end) of shared memory (it writes them, waits, reads them)."""
    return ir.Op("convert_layout", [], [], {"smem_offset": start, "smem_bytes": end - start, "label": label})


def other() -> ir.Op:
    return ir.Op("add", [], [])


def barrier() -> ir.Op:
    return ir.Op("barrier", [], [])


def for_loop(*body: ir.Op) -> ir.Op:
    return ir.Op("for", [], [], {}, [ir.Block([], list(body) + [ir.Op("yield", [], [])])])


def if_else(then: list[ir.Op], otherwise: list[ir.Op]) -> ir.Op:
    return ir.Op("if", [], [], {}, [ir.Block([], list(then) + [ir.Op("yield", [], [])]),
                                    ir.Block([], list(otherwise) + [ir.Op("yield", [], [])])])


def block(*ops: ir.Op) -> ir.Block:
    return ir.Block([], list(ops))


def render(b: ir.Block) -> str:
    words = []
    for op in b.ops:
        if op.name == "barrier":
            words.append("|")
        elif "label" in op.attrs:
            words.append(op.attrs["label"])
        elif op.name == "for":
            words.append(f"for({render(op.regions[0])})")
        elif op.name == "if":
            words.append(f"if({render(op.regions[0])} ; {render(op.regions[1])})")
        elif op.name != "yield":
            words.append(".")
    return " ".join(words)


def random_program(seed: int, loops: bool) -> ir.Block:
    """A random block of shared-memory ops over a few overlapping ranges, other ops, barriers and,
    if `loops`, nested loops and ifs."""
    rng = random.Random(seed)
    ranges = [(0, 16), (0, 64), (16, 32), (64, 128), (96, 160)]
    labels = iter(f"s{i}" for i in range(1000))

    def ops(depth: int) -> list[ir.Op]:
        out = []
        for _ in range(rng.randint(0, 5)):
            kind = rng.random()
            if loops and depth < 3 and kind < 0.15:
                out.append(for_loop(*ops(depth + 1)))
            elif loops and depth < 3 and kind < 0.25:
                out.append(if_else(ops(depth + 1), ops(depth + 1)))
            elif kind < 0.35:
                out.append(barrier())
            elif kind < 0.55:
                out.append(other())
            else:
                out.append(shared(next(labels), *rng.choice(ranges)))
        return out

    return block(*ops(0))
