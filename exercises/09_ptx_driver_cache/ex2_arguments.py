"""Exercise 9.2 (a compiler piece): where each kernel argument goes in the parameter buffer.

`cuLaunchKernel` reads each argument from memory laid out as the kernel's `.param` space expects:
every value at an offset that is a multiple of its own size (its natural alignment), in order, like
the fields of a C struct. The launcher (chapter 9) lays out one buffer per signature once.

Sizes: "int1", "int8", "uint8": 1 byte; "int16", "uint16", "fp16", "bf16": 2; "int32", "uint32",
"fp32": 4; "int64", "uint64", "fp64", "ptr": 8.

1. `argument_layout(signature)` -> (offsets, size): the offset of each argument, and the size of
   the whole buffer as C's `sizeof` gives it for such a struct (rounded up to a multiple of the
   largest alignment; 0 for no arguments).
2. `pack(signature, values)` -> bytes: the buffer, little-endian, padding bytes zero. A "ptr" value
   is an int (a device address); "int1" is a bool; "fp16" is a float (`struct` format "e"); "bf16"
   is given as its raw 16 bits, an int.
"""


def argument_layout(signature: list[str]) -> tuple[list[int], int]:
    raise NotImplementedError("exercise 9.2: argument_layout")


def pack(signature: list[str], values: list) -> bytes:
    raise NotImplementedError("exercise 9.2: pack")
