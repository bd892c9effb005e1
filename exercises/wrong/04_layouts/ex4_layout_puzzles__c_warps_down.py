"""Exercise 4.4, wrong on purpose: puzzle C's warps go down the columns (warps_per_cta (4, 1)),
not across them.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex4_layout_puzzles.py.
"""
from minitriton.layouts import BlockedLayout

PUZZLE_A = BlockedLayout([4], [32], [2], [0])
PUZZLE_B = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
PUZZLE_C = BlockedLayout([4, 1], [8, 4], [4, 1], [0, 1])
