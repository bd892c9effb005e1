"""`triton.language.extra.cuda.libdevice`: the same functions as `tl.extra.libdevice` (Triton keeps
NVIDIA's under this name, and `tl.extra.libdevice` dispatches to it). Chapter: 02-frontend."""
from ..libdevice import *  # noqa: F401,F403
from ..libdevice import __all__  # noqa: F401
