"""The exercises run their kernels in the numpy interpreter: no GPU is needed to do them."""
import os

os.environ["MINITRITON_INTERPRET"] = "1"
