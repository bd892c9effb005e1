"""Exercise 4.4 (a puzzle): write the blocked layouts that match three descriptions.

The reference solution. The task, in full, is in exercises/04_layouts/ex4_layout_puzzles.py.
"""
from minitriton.layouts import BlockedLayout

PUZZLE_A = BlockedLayout([4], [32], [2], [0])
PUZZLE_B = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
PUZZLE_C = BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
