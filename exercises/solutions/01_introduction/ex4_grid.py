"""Exercise 1.4 (a compiler piece): the launch grid, as `kernel[grid](...)` reads it.

`launch_grid(grid, meta)` turns what a user wrote between the brackets into three program counts
(x, y, z). `grid` is an int, a tuple of one to three ints, or a callable that takes `meta` (the
launch's arguments by name, constexprs included) and returns an int or such a tuple. Missing
dimensions are 1. A grid of zero or more than three dimensions, or a negative count, is a mistake:
raise `minitriton.LaunchError` with a message that shows the grid.

`program_ids(grid)` lists every program id (x, y, z) of a three-dimensional grid in the order the
interpreter runs them: x fastest, then y, then z.
"""
from minitriton import LaunchError


def launch_grid(grid, meta: dict) -> tuple[int, int, int]:
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 0 for g in grid):
        raise LaunchError(f"the grid must be 1 to 3 non-negative sizes, got {grid}")
    return grid + (1,) * (3 - len(grid))


def program_ids(grid: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
