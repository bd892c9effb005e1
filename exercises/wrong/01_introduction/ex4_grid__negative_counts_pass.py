"""Exercise 1.4, wrong on purpose: only the number of dimensions is checked, so a negative count
passes as a grid.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/01_introduction/ex4_grid.py.
"""
from minitriton import LaunchError


def launch_grid(grid, meta: dict) -> tuple[int, int, int]:
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise LaunchError(f"the grid must have 1 to 3 dimensions, got {grid}")
    return grid + (1,) * (3 - len(grid))


def program_ids(grid: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
