"""Exercise 4.4, wrong on purpose: puzzle B's layout has order (0, 1), so consecutive elements
of a thread go down a column instead of along the row.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/04_layouts/ex4_layout_puzzles.py.
"""
from minitriton.layouts import BlockedLayout

PUZZLE_A = BlockedLayout([4], [32], [2], [0])
PUZZLE_B = BlockedLayout([1, 8], [4, 8], [4, 1], [0, 1])
PUZZLE_C = BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
