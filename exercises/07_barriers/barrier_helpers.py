"""Op lists built by hand for chapter 7's exercises: shared-memory ops, other ops, loops and ifs.

Only what the barrier walk reads is filled in: an op's name, its byte range (`smem_offset`,
`smem_bytes`) and its regions. `render` writes a block as a line of text: a shared-memory op by its
label, `|` for a barrier, `.` for any other op, `for(...)` and `if(... ; ...)` for regions.
`races` checks a block, hand-built or a real kernel's, for a race that a barrier is missing at.
"""
import itertools
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


def every_block(b: ir.Block):
    """`b` and every block nested in it."""
    yield b
    for op in b.ops:
        for region in op.regions:
            yield from every_block(region)


def _range(op: ir.Op):
    return (op.attrs["smem_offset"], op.attrs["smem_offset"] + op.attrs["smem_bytes"]) if "smem_bytes" in op.attrs \
        else None


def _runs(ops: list[ir.Op]) -> set[tuple]:
    """Every sequence of shared-memory ops (name, start, end) and barriers (None) that one run of
    `ops` may meet: each `if` either way, each `for` body 0, 1 or 2 times with the trips chosen
    independently. Two trips are enough: what a trip leaves pending depends on that trip alone
    once it touches shared memory or waits, and on what came before it otherwise."""
    runs = {()}
    for op in ops:
        if op.name == "for":
            body = _runs(op.regions[0].ops)
            choices = {()} | body | {a + b for a, b in itertools.product(body, repeat=2)}
        elif op.name == "if":
            choices = set().union(*(_runs(region.ops) for region in op.regions))
        elif op.name == "barrier":
            choices = {(None,)}
        elif (where := _range(op)) is not None:
            choices = {((op.name, *where),)}
        else:
            continue
        runs = {run + choice for run, choice in itertools.product(runs, choices)}
    return runs


def races(b: ir.Block) -> list[str]:
    """The races of `b`, found path by path rather than by a walk: on some run, an op writes bytes
    that an earlier op's threads may still be reading (no barrier since, and no shared-memory op in
    between, whose own barrier would have ordered them)."""
    found = set()
    for run in _runs(b.ops):
        reading = None
        for event in run:
            if event is not None and reading is not None and event[1] < reading[2] and reading[1] < event[2]:
                found.add(f"{event[0]} writes [{event[1]}, {event[2]}) while {reading[0]} may still read "
                          f"[{reading[1]}, {reading[2]})")
            reading = event
    return sorted(found)
