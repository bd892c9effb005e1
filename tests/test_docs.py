"""The book builds, and what it shows is what the code does.

- `mkdocs build --strict` succeeds: every page, link and included snippet section exists.
- The figures and listings in chapters/figures/ are fresh: `scripts/figures.py` would write exactly
  the committed files, and each SVG was drawn from the Graphviz source beside it.
- The chapters' example scripts run, and the README's taste of a kernel is the tutorial's kernel.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "chapters" / "figures"


def load_figures_script():
    spec = importlib.util.spec_from_file_location("figures_script", ROOT / "scripts" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_book_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (`make test` installs them)")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "03-tile-ir" / "index.html").exists()


def test_figures_and_listings_are_fresh():
    figures = load_figures_script()
    expected = figures.sources()
    stale = [name for name, text in expected.items()
             if not (FIGURES / name).exists() or (FIGURES / name).read_text() != text]
    generated = {p.name for p in FIGURES.iterdir() if p.suffix in (".gv", ".txt")}
    leftovers = sorted(generated - set(expected))
    assert not stale and not leftovers, (
        f"chapters/figures/ is out of date (stale: {stale}, no longer made: {leftovers}); "
        "run `python scripts/figures.py` and commit the result")
    for name, source in expected.items():
        if name.endswith(".gv"):
            svg = FIGURES / name.replace(".gv", ".svg")
            assert svg.exists() and figures.svg_stamp(source) in svg.read_text(), (
                f"{svg.name} was not drawn from the current {name}; run `python scripts/figures.py`")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_figure_sources_render():
    for source in FIGURES.glob("*.gv"):
        done = subprocess.run(["dot", "-Tsvg", str(source)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "<svg" in done.stdout, f"{source.name}: {done.stderr}"


@pytest.mark.parametrize("script", ["first_kernel.py", "hand_built_ir.py", "host_api.py", "access_picture.py"])
def test_chapter_examples_run(script):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "chapters" / "examples" / script)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_taste_runs(tmp_path):
    readme = (ROOT / "README.md").read_text()
    taste = re.search(r"## A taste\n\n```python\n(.*?)```", readme, re.S).group(1)
    (tmp_path / "taste.py").write_text(taste)
    done = subprocess.run([sys.executable, str(tmp_path / "taste.py")], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_shows_the_tutorial_kernel():
    readme = (ROOT / "README.md").read_text()
    source = (ROOT / "minitriton" / "examples" / "tutorials.py").read_text()
    kernel = re.search(r"# --8<-- \[start:add\]\n(.*?)# --8<-- \[end:add\]", source, re.S).group(1)
    assert kernel.strip() in readme, "README.md's vector add differs from minitriton/examples/tutorials.py"
