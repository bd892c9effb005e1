"""Exercise 10.1, wrong on purpose: the copies of iterations past the end are left out of the
schedule (the real loop issues them, masked off).

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/10_performance/ex1_stage_schedule.py.
"""


def schedule(iterations: int, stages: int) -> list[tuple[str, int, int]]:
    if stages == 1:
        return [event for i in range(iterations) for event in (("copy", i, 0), ("read", i, 0))]
    events = [("copy", i, i) for i in range(stages - 1)]
    for i in range(iterations):
        events.append(("read", i, i % stages))
        if i + stages - 1 < iterations:
            events.append(("copy", i + stages - 1, (i - 1) % stages))
    return events
