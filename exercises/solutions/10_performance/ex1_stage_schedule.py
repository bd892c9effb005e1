"""Solution of exercise 10.1."""


def schedule(iterations: int, stages: int) -> list[tuple[str, int, int]]:
    if stages == 1:
        return [event for i in range(iterations) for event in (("copy", i, 0), ("read", i, 0))]
    events = [("copy", i, i) for i in range(stages - 1)]
    for i in range(iterations):
        events.append(("read", i, i % stages))
        events.append(("copy", i + stages - 1, (i - 1) % stages))
    return events
