"""NVIDIA's libdevice as minitriton knows it: which functions a kernel may call, and what they compute.

Chapter: 02-frontend (the functions) and 08-llvm (linking NVIDIA's bitcode).

- `table`: every function of Triton's `libdevice` module, its symbols and their dtypes;
- `twins`: a numpy twin of every symbol, which the interpreter runs (`special`: the Bessel
  functions, erfinv and their kin without scipy; `rounding`: IEEE's directed rounding modes).
"""
