"""Exercise 9.2, wrong on purpose: each argument follows the previous one with no padding, as if
values needed no alignment.

The tests must catch it (tests/test_exercises.py checks that they do). The task is in
exercises/09_ptx_driver_cache/ex2_arguments.py.
"""
import struct

FORMATS = {"int1": "?", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "fp16": "e", "bf16": "H",
           "int32": "i", "uint32": "I", "fp32": "f", "int64": "q", "uint64": "Q", "fp64": "d", "ptr": "Q"}


def argument_layout(signature: list[str]) -> tuple[list[int], int]:
    offsets, end, widest = [], 0, 1
    for kind in signature:
        size = struct.calcsize(FORMATS[kind])
        offsets.append(end)
        end += size
        widest = max(widest, size)
    return offsets, (end + widest - 1) // widest * widest


def pack(signature: list[str], values: list) -> bytes:
    offsets, size = argument_layout(signature)
    buffer = bytearray(size)
    for kind, offset, value in zip(signature, offsets, values):
        struct.pack_into("<" + FORMATS[kind], buffer, offset, value)
    return bytes(buffer)
