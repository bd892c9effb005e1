"""minitriton's version: one home, read by the package, the kernel cache's key and pyproject.toml."""
__version__ = "0.1.0"
