"""`tl.extra`: functions of one GPU vendor's library, as `triton.language.extra` has them.

Chapter: 02-frontend.

- `libdevice`: every function of NVIDIA's libdevice that Triton 3.6 offers (`libdevice.tanh(x)`);
- `cuda`: what only NVIDIA GPUs have (`smid`, `globaltimer`, `num_warps`...), and `libdevice` again.
"""
from . import cuda, libdevice  # noqa: F401
