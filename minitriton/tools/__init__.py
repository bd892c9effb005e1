"""Host-side helpers a launch passes to kernels, as `triton.tools` offers them: `tensor_descriptor`."""
from . import tensor_descriptor  # noqa: F401
