"""Code generation for NVIDIA GPUs: tile IR with layouts -> LLVM IR (llvm.py) -> PTX and cubin (ptx.py)."""
