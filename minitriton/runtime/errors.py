"""`triton.runtime.errors`: the errors a launch or the interpreter raises (`errors.py`).
Chapter: 01-introduction."""
from ..errors import InterpreterError, OutOfResources  # noqa: F401
