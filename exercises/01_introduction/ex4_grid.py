"""Exercise 1.4 (a compiler piece): the launch grid, as `kernel[grid](...)` reads it.

`launch_grid(grid, meta)` turns what a user wrote between the brackets into three program counts
(x, y, z). `grid` is an int, a tuple of one to three ints, or a callable that takes `meta` (the
launch's arguments by name, constexprs included) and returns an int or such a tuple. Missing
dimensions are 1. A grid of zero or more than three dimensions, or a negative count, is a mistake:
raise `minitriton.LaunchError` with a message that shows the grid.

`program_ids(grid)` lists every program id (x, y, z) of a three-dimensional grid in the order the
interpreter runs them: x fastest, then y, then z.
"""
from minitriton import LaunchError  # noqa: F401  (you will raise it)


def launch_grid(grid, meta: dict) -> tuple[int, int, int]:
    raise NotImplementedError("exercise 1.4: normalize the grid to (x, y, z)")


def program_ids(grid: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    raise NotImplementedError("exercise 1.4: list the program ids, x fastest")
