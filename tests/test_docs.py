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


# The listings that are an exercise's answer. A chapter shows each only folded away (a collapsed
# `??? note`), after saying what the exercise asks: the reader meets the exercise before its answer.
ANSWERS = {
    "2.1 broadcast": "minitriton/language/semantic.py:broadcast-shapes",
    "2.2 promotion": "minitriton/language/semantic.py:promotion",
    "2.3 specialize": "minitriton/specialize.py:specialize",
    "4.2 default_blocked": "minitriton/layouts/blocked.py:default-blocked",
    "5.1 add_rule": "minitriton/passes/axis_info.py:add",
    "5.2 vector_width": "minitriton/passes/coalesce.py:decide",
    "5.3 mask_constancy": "minitriton/passes/axis_info.py:cmp",
    "6.1 first_fit": "minitriton/passes/shared.py:allocate",
    "6.2 swizzle": "minitriton/layouts/shared.py:swizzle",
    "7.1 straight_line, 7.2 loops": "minitriton/passes/barriers.py:walk",
    "8.2 broadcast_map": "minitriton/passes/geometry.py:register_map",
    "9.1 cache_key": "minitriton/cache.py:key",
    "9.3 ptxas_report": "minitriton/codegen/ptx.py:resource-usage",
}


def folded_includes(markdown: str) -> dict[str, list[bool]]:
    """For each snippet a page includes, whether each inclusion sits inside a collapsed `??? ` block."""
    found: dict[str, list[bool]] = {}
    opener_indent = None  # the indentation of the `??? ` line whose block we are in
    for line in markdown.splitlines():
        indent = len(line) - len(line.lstrip())
        if line.strip() and opener_indent is not None and indent <= opener_indent:
            opener_indent = None
        if line.lstrip().startswith("??? "):
            opener_indent = indent
        if match := re.search(r'--8<-- "([^"]+)"', line):
            found.setdefault(match[1], []).append(opener_indent is not None)
    return found


def test_an_exercises_answer_is_folded_away():
    pages = {page.name: folded_includes(page.read_text()) for page in (ROOT / "chapters").glob("*.md")}
    for exercise, snippet in ANSWERS.items():
        shown = [(name, folded) for name, page in pages.items() for folded in page.get(snippet, [])]
        assert shown, f"{snippet}, the answer to exercise {exercise}, is in no chapter (or ANSWERS is stale)"
        for name, folded in shown:
            assert folded, f"{name} shows {snippet}, the answer to exercise {exercise}: fold it into a " \
                           f"collapsed `??? note \"The compiler's version\"` block after the exercise is named"


def test_the_fold_check_can_fail():
    page = '```python\n--8<-- "a.py:x"\n```\n\n??? note "The compiler\'s version"\n\n    ```python\n' \
           '    --8<-- "a.py:y"\n    ```\n\nAfter.\n\n--8<-- "a.py:z"\n\n???+ note "Open"\n\n    --8<-- "a.py:w"\n'
    assert folded_includes(page) == {"a.py:x": [False], "a.py:y": [True], "a.py:z": [False], "a.py:w": [False]}


# Every listing says where it comes from, and every output listing how to make it again.

FENCE = re.compile(r"^(\s*)```(\w*)(?: title=\"([^\"]*)\")?\s*$")


def fenced_blocks(markdown: str) -> list[tuple[str, str | None, list[str]]]:
    """(language, title, lines) of each fenced block of a page, in order, the lines unindented."""
    blocks, lines, i = [], markdown.splitlines(), 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening and opening[2]:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            indent = len(opening[1])
            blocks.append((opening[2], opening[3], [line[indent:] for line in lines[i + 1:end]]))
            i = end
        i += 1
    return blocks


def included_files(lines: list[str]) -> list[str]:
    """The files a block's snippet lines include, each once, in order."""
    found = [m for line in lines for m in re.findall(r'--8<-- "([^":]+)', line)]
    return list(dict.fromkeys(found))


def pages() -> dict[str, str]:
    return {page.name: page.read_text() for page in sorted((ROOT / "chapters").glob("*.md"))}


def test_every_listing_names_its_file():
    for name, text in pages().items():
        for language, title, lines in fenced_blocks(text):
            files = included_files(lines)
            if files:
                assert title == ", ".join(files), \
                    f"{name}: a {language} listing of {files} must be titled with its file: " \
                    f'```{language} title="{", ".join(files)}"'


def run_command(command: str) -> str:
    """What a chapter's command prints: `python -m minitriton show ...`, run in this process, with
    an optional `| grep -E "..."` applied to its lines."""
    import contextlib
    import io
    import shlex

    from minitriton.__main__ import main

    command, _, grep = command.replace("\\\n", "").partition(" | grep -E ")
    argv = shlex.split(command)
    assert argv[:4] == [".venv/bin/python", "-m", "minitriton", "show"], command
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv[3:]) == 0, command
    lines = out.getvalue().expandtabs(8).rstrip().splitlines()
    if grep:
        lines = [line for line in lines if re.search(shlex.split(grep)[0], line)]
    return "\n".join(line.rstrip() for line in lines)


def test_every_output_listing_has_the_command_that_makes_it(monkeypatch):
    monkeypatch.chdir(ROOT)  # the commands are run from the repository's root, as the book says
    checked = 0
    for name, text in pages().items():
        blocks = fenced_blocks(text)
        for before, (language, title, lines) in zip([None] + blocks, blocks):
            made = re.fullmatch(r"chapters/figures/([\w.]+)\.txt", title or "")
            if not made:
                continue
            assert before is not None and before[0] == "bash", \
                f"{name}: the output {title} must follow the command that prints it (a bash listing)"
            command = "\n".join(before[2])
            listing = made[1]
            if command.startswith(".venv/bin/python scripts/figures.py "):
                assert command.split()[-1] == listing, f"{name}: `{command}` does not print {title}"
            elif command.startswith(".venv/bin/python chapters/examples/"):
                assert listing == Path(command.split()[-1]).stem + ".output", \
                    f"{name}: `{command}` does not print {title}"  # scripts/figures.py runs the script
            else:
                expected = "\n".join(line.rstrip() for line in (ROOT / title).read_text().rstrip().splitlines())
                assert run_command(command) == expected, f"{name}: `{command}` does not print {title}"
            checked += 1
    assert checked >= 40, "the book's output listings were not found: is fenced_blocks() stale?"


def test_the_listing_checks_can_fail():
    page = '```python title="a.py"\n--8<-- "b.py:x"\n```\n\n    ```text\n    --8<-- "c.txt"\n    ```\n'
    assert fenced_blocks(page) == [("python", "a.py", ['--8<-- "b.py:x"']), ("text", None, ['--8<-- "c.txt"'])]
    assert included_files(['--8<-- "b.py:x"', '--8<-- "b.py:y"']) == ["b.py"]
