"""minitriton's version, and the Triton version it answers to: one home for both.

`VERSION` is minitriton's own: the package's (pyproject.toml reads it) and the kernel cache's key.
`__version__`, what `triton.__version__` is after `import minitriton as triton`, answers the
question code written for Triton asks with it: which Triton language is this? Libraries choose
code paths with `triton.__version__ >= "3.0.0"` or `version.parse(triton.__version__)`, so it names
the Triton release whose language minitriton follows, with minitriton's own version as the local
part (PEP 440's `+`), as PyTorch's builds of Triton carry their commit: "3.6.0+minitriton.0.1.0".
"""
VERSION = "0.1.0"
TRITON_VERSION = "3.6.0"
__version__ = f"{TRITON_VERSION}+minitriton.{VERSION}"
