"""`triton.language.extra.cuda`: NVIDIA's libdevice and what only NVIDIA GPUs have.

Chapter: 02-frontend.

- `libdevice`: the same module as `tl.extra.libdevice`;
- `utils`: `smid`, `globaltimer`, `num_warps`, `num_threads`, `gdc_wait`, `gdc_launch_dependents`,
  `convert_custom_float8_sm80/_sm70`.
"""
from . import libdevice  # noqa: F401
from .utils import (convert_custom_float8_sm70, convert_custom_float8_sm80, gdc_launch_dependents,  # noqa: F401
                    gdc_wait, globaltimer, num_threads, num_warps, smid)
