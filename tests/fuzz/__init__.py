"""A differential fuzzer: random tile programs, run by minitriton and checked against Triton's rules.

`generate.generate(seed)` writes a random @triton.jit kernel (elementwise ops over every integer
and float type with masks and `other=`, comparisons, `tl.where`, casts, min/max, bitwise ops and
shifts, math functions, reductions, scans, reshapes and transposes, broadcasting, small dots) and
computes what it must store from Triton 3.6's documented rules, in numpy (`rules.py`), never by
running minitriton. `run.check` runs it in the interpreter and compiles it through ptxas for each
architecture, and on a GPU machine runs it on the GPU too. `python -m tests.fuzz` runs a batch
and prints a table; tests/test_fuzz.py runs a fixed-seed batch in CI.

    python -m tests.fuzz --count 200 --seed 0          # interpreter + ptxas (sm_80, sm_90a)
    python -m tests.fuzz --gpu --count 500 --seed 0    # ... and the GPU, against both
"""
