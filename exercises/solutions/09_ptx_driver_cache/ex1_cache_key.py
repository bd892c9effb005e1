"""Exercise 9.1 (a compiler piece): a canonical cache key.

The reference solution. The task, in full, is in exercises/09_ptx_driver_cache/ex1_cache_key.py.
"""
import hashlib
import json


def cache_key(**parts) -> str:
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
