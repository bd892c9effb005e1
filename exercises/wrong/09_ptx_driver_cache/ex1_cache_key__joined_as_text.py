"""Exercise 9.1, wrong on purpose: the parts are joined as name=value text, so 1 and "1"
read the same, and a comma inside a string looks like two parts.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/09_ptx_driver_cache/ex1_cache_key.py.
"""
import hashlib


def cache_key(**parts) -> str:
    text = ",".join(f"{name}={value}" for name, value in sorted(parts.items()))
    return hashlib.sha256(text.encode()).hexdigest()
