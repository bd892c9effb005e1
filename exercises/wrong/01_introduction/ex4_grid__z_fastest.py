"""Exercise 1.4, wrong on purpose: program ids listed with z varying fastest (C order), not x.

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
    if not 1 <= len(grid) <= 3 or any(g < 0 for g in grid):
        raise LaunchError(f"the grid must be 1 to 3 non-negative sizes, got {grid}")
    return grid + (1,) * (3 - len(grid))


def program_ids(grid: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    return [(x, y, z) for x in range(grid[0]) for y in range(grid[1]) for z in range(grid[2])]
