"""The exercises run their kernels in the numpy interpreter: no GPU is needed to do them.

When a test fails after launching a kernel, its report shows the access picture of the last
launch (which elements each program loaded and stored, which lanes were masked off: chapter 1),
and the path of the same picture as an SVG to open in a browser.
"""
import os
import re
import tempfile
from pathlib import Path

import pytest

os.environ["MINITRITON_INTERPRET"] = "1"

from minitriton.interpreter import record_accesses  # noqa: E402


@pytest.fixture(autouse=True)
def _access_picture(request):
    with record_accesses() as accesses:
        request.node.accesses = accesses
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    accesses = getattr(item, "accesses", None)
    if report.when == "call" and report.failed and accesses is not None and accesses.launches:
        launch = accesses.last
        svg = Path(tempfile.gettempdir()) / "minitriton-accesses" / (re.sub(r"\W+", "_", item.nodeid) + ".svg")
        svg.parent.mkdir(exist_ok=True)
        svg.write_text(launch.svg())
        report.sections.append(("access picture of the last launch", f"{launch.text()}\n\nas SVG: {svg}"))
