"""Exercise 10.1, wrong on purpose: each iteration copies ahead into the stage it has just read,
not the one the previous iteration read, so later reads find the wrong tile.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/10_performance/ex1_stage_schedule.py.
"""


def schedule(iterations: int, stages: int) -> list[tuple[str, int, int]]:
    if stages == 1:
        return [event for i in range(iterations) for event in (("copy", i, 0), ("read", i, 0))]
    events = [("copy", i, i) for i in range(stages - 1)]
    for i in range(iterations):
        events.append(("read", i, i % stages))
        events.append(("copy", i + stages - 1, i % stages))
    return events
