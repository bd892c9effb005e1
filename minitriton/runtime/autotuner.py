"""`triton.runtime.autotuner`: the autotuner where Triton's host code imports it from (`autotune.py`).
Chapter: 10-performance."""
from ..autotune import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from ..errors import OutOfResources  # noqa: F401
