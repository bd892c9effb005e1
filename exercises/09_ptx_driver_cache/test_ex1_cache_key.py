"""Tests for exercise 9.1: run with `make exercise CH=9 EX=1`."""
import itertools
import re

import pytest
from _impl import load

impl = load("09_ptx_driver_cache/ex1_cache_key")

VECTOR_ADD = {  # the parts the CUDA backend hashes for vector add (chapter 9)
    "constexprs": [["BLOCK_SIZE", "512"]],
    "options": [4, 3],
    "signature": [["x_ptr", ["*fp32", True]], ["y_ptr", ["*fp32", True]], ["output_ptr", ["*fp32", True]],
                  ["n_elements", ["i32", True, False]]],
    "source": "d3dc319cb07709c3d5e01702c77a5616cace09f98271e3310e6acb6407986fbb",
    "target": "sm_90",
}


def test_a_sha256_digest():
    assert re.fullmatch(r"[0-9a-f]{64}", impl.cache_key(**VECTOR_ADD))


def test_the_order_of_the_parts_does_not_matter():
    keys = {impl.cache_key(**dict(order)) for order in itertools.permutations(VECTOR_ADD.items())}
    assert len(keys) == 1


def test_the_order_of_nested_dict_keys_does_not_matter():
    assert impl.cache_key(meta={"a": 1, "b": {"x": [1, 2], "y": None}}) == \
        impl.cache_key(meta={"b": {"y": None, "x": [1, 2]}, "a": 1})


@pytest.mark.parametrize("first, second", [
    (dict(n=1), dict(n=1.0)), (dict(n=1), dict(n="1")), (dict(n=1), dict(n=True)), (dict(n=0), dict(n=False)),
    (dict(n=[1, 2]), dict(n=[2, 1])), (dict(n=None), dict()), (dict(n=[]), dict(n={})),
    (dict(a="1,b=2"), dict(a="1", b="2")), (dict(a="x"), dict(b="x")),
    (dict(VECTOR_ADD, target="sm_80"), VECTOR_ADD), (dict(VECTOR_ADD, options=[8, 3]), VECTOR_ADD),
], ids=str)
def test_different_parts_give_different_keys(first, second):
    assert impl.cache_key(**first) != impl.cache_key(**second)


def test_the_same_parts_give_the_same_key_every_time():
    assert impl.cache_key(**VECTOR_ADD) == impl.cache_key(**{k: v for k, v in VECTOR_ADD.items()})
