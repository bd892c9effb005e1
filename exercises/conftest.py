"""The exercises run their kernels in the numpy interpreter: no GPU is needed to do them.

With a wrong solution loaded (MINITRITON_SOLUTIONS=wrong:..., see _impl.py), one failing test is
all the honesty check asks of a test file: the file's remaining tests are skipped, which keeps the
check quick.
"""
import os

import pytest

os.environ["MINITRITON_INTERPRET"] = "1"
WRONG_SOLUTIONS = os.environ.get("MINITRITON_SOLUTIONS", "").startswith("wrong:")
caught = set()  # the test files that have failed on the wrong solution they test


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if WRONG_SOLUTIONS and report.failed:
        caught.add(item.path)
    return report


def pytest_runtest_setup(item):
    if item.path in caught:
        pytest.skip("the wrong solution is caught already")
