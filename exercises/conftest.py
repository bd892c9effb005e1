"""The exercises run their kernels in the numpy interpreter: no GPU is needed to do them.

When a test fails after launching a kernel, its report shows the access picture of the last
launch (which elements each program loaded and stored, which lanes were masked off: chapter 1),
and the path of the same picture as an SVG to open in a browser.

With a wrong solution loaded (MINITRITON_SOLUTIONS=wrong:..., see _impl.py), one failing test is
all the honesty check asks of a test file: the file's remaining tests are skipped, which keeps the
check quick.
"""
import os
import re
import tempfile
from pathlib import Path

import pytest

os.environ["MINITRITON_INTERPRET"] = "1"
WRONG_SOLUTIONS = os.environ.get("MINITRITON_SOLUTIONS", "").startswith("wrong:")
caught = set()  # the test files that have failed on the wrong solution they test

from minitriton.interpreter import record_accesses  # noqa: E402


@pytest.fixture(autouse=True)
def _access_picture(request):
    with record_accesses() as accesses:
        request.node.accesses = accesses
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if WRONG_SOLUTIONS and report.failed:
        caught.add(item.path)
    accesses = getattr(item, "accesses", None)
    if report.when == "call" and report.failed and accesses is not None and accesses.launches:
        launch = accesses.last
        name = re.sub(r"\W+", "_", item.nodeid) + ".svg"
        svg = Path(tempfile.gettempdir()) / "minitriton-accesses" / name
        svg.parent.mkdir(exist_ok=True)
        svg.write_text(launch.svg())
        report.sections.append(("access picture of the last launch", f"{launch.text()}\n\nas SVG: {svg}"))
    return report


def pytest_runtest_setup(item):
    if item.path in caught:
        pytest.skip("the wrong solution is caught already")
