"""Exercise 9.1, wrong on purpose: the parts are sorted by name, but the keys of dicts inside them
keep the order they came in.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/09_ptx_driver_cache/ex1_cache_key.py.
"""
import hashlib
import json


def cache_key(**parts) -> str:
    canonical = json.dumps(sorted(parts.items()), separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
