"""Every command that the book and the READMEs print runs as printed, in a fresh clone after `make demo`.

The commands are the lines of the `bash` blocks of chapters/*.md, README.md and exercises/**/README.md,
and their inline code that starts with a command (`make`, `python`, `pytest`, `.venv/bin/...`, after
any `NAME=value` settings). Each must

- take Python and its tools from the virtual environment that `make` sets up (`.venv/bin/python`,
  `.venv/bin/pytest`): the system's python has none of minitriton's dependencies;
- name `make` targets the Makefile has, and for `make exercise`, a chapter and exercise that exist;
- name files that exist, kernels (`file.py:name`) defined in them, and modules that import;
- hold no placeholder (`...`); a usage line may show its choices in brackets (`[--quick]`).

A command may pipe its output into a system filter (`| grep -E "..."`) or write it to a file outside
the clone (`> /tmp/add.ptx`); only the command before them is checked. A program given by a command
substitution (`"$(.venv/bin/python -c '...')" -v`) is checked as the command inside.

`python -m minitriton show` commands are run, in this process.
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import io
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(ROOT.glob("chapters/*.md")) + [ROOT / "README.md"] + sorted(ROOT.glob("exercises/**/README.md"))
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
SHELL_BLOCKS = ("bash", "sh", "shell", "console")
PROGRAMS = ("make", "python", "python3", "pytest", "pip", "pip3", "mkdocs", "bash", "sh")
ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")


def shell_lines(body: str) -> list[tuple[int, str]]:
    """The commands of a shell block with the line each starts on: continuations joined, comments
    and prompts dropped."""
    commands, pending, start = [], "", 0
    for number, line in enumerate(body.splitlines()):
        if not pending:
            start = number
        pending += line.removeprefix("$ ")
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        words = shlex.split(pending, comments=True)
        if words:
            commands.append((start, shlex.join(words)))
        pending = ""
    return commands


def is_command(text: str) -> bool:
    words = [w for w in text.split() if not ASSIGNMENT.match(w)]
    return bool(words) and (words[0] in PROGRAMS or words[0].startswith(".venv/"))


def printed_commands() -> list[tuple[str, str]]:
    """(where, command) for every command in the docs; where is "file:line"."""
    found = []
    for doc in DOCS:
        text = doc.read_text()
        name = doc.relative_to(ROOT)
        for block in FENCE.finditer(text):
            if block["lang"] in SHELL_BLOCKS:
                first = text.count("\n", 0, block.start("body")) + 1
                found += [(f"{name}:{first + n}", c) for n, c in shell_lines(block["body"])]
        prose = FENCE.sub(lambda m: "\n" * m[0].count("\n"), text)  # keep the line numbers
        for span in re.finditer(r"(?<!`)`([^`]+)`(?!`)", prose):
            command = " ".join(span[1].split())
            if is_command(command):
                found.append((f"{name}:{prose.count(chr(10), 0, span.start()) + 1}", command))
    return found


def make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", (ROOT / "Makefile").read_text(), re.M))


def exercise_tests(chapter: str | None, exercise: str | None) -> list[Path]:
    """The test files `make exercise CH=.. EX=..` runs (the Makefile's rule, in Python)."""
    folders = f"{int(chapter):02d}_*" if chapter else "[0-9][0-9]_*"
    return sorted(ROOT.glob(f"exercises/{folders}/test_ex{exercise or '*'}_*.py"))


def venv_tools() -> set[str]:
    """What `make` installs into .venv/bin: Python, pip, and the console scripts of the packages."""
    return {"python", "python3", "pip"} | {e.name for e in importlib.metadata.entry_points(group="console_scripts")}


def path_problems(word: str) -> list[str]:
    """A word that names a file of the clone (it has a slash): the file must exist, and
    `file.py:name` must define `name`."""
    if "/" not in word or word.startswith(("-", "http", "/")) or "=" in word:
        return []
    path, _, name = word.partition(":")
    matches = sorted(ROOT.glob(path))
    if not matches:
        return [f"{path} does not exist"]
    if name and not re.search(rf"^(def {re.escape(name)}\b|{re.escape(name)}\s*=)", matches[0].read_text(), re.M):
        return [f"{path} defines no {name}"]
    return []


def python_problems(arguments: list[str]) -> list[str]:
    """`-m module ...`: the module imports, and minitriton's command line takes the arguments (a
    script's path is checked with every other word)."""
    if arguments[:1] != ["-m"]:
        return []
    module, rest = arguments[1], arguments[2:]
    if importlib.util.find_spec(module) is None:
        return [f"no module {module}"]
    if module != "minitriton":
        return []
    from minitriton import __main__ as cli
    from minitriton.bench import runs
    parse = runs.parser().parse_args if rest[:1] == ["bench"] else cli.parser().parse_args
    try:
        with contextlib.redirect_stderr(io.StringIO()) as errors:
            parse(rest[1:] if rest[:1] == ["bench"] else rest)
    except SystemExit:
        return [f"minitriton refuses the arguments: {errors.getvalue().strip()}"]
    return []


def own_words(words: list[str]) -> list[str]:
    """The words of a command before any pipe or redirection of its output."""
    ends = [i for i, w in enumerate(words) if w in ("|", ">", ">>")]
    return words[:ends[0]] if ends else words


def problems(command: str) -> list[str]:
    """What stops `command` from running as printed in a fresh clone after `make demo`."""
    words = own_words([w for w in shlex.split(re.sub(r"\[[^\]]*\]", "", command)) if w])
    if words and words[0].startswith("$(") and words[0].endswith(")"):
        return problems(" ".join([words[0][2:-1]])) + [p for w in words[1:] for p in path_problems(w)]
    settings = {}
    while words and ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        settings[name] = value
    if "..." in words:
        return ["a placeholder (...): not runnable as printed"]
    program, arguments = words[0], words[1:]
    if program in PROGRAMS and program not in ("make", "bash", "sh"):
        return [f"`{program}` is the system's, without minitriton's dependencies: write `.venv/bin/{program}` "
                f"(which `make demo` sets up) or a make target"]
    found = [p for w in arguments for p in path_problems(w)]
    if program == "make":
        targets = [w for w in arguments if "=" not in w]
        variables = dict(w.split("=", 1) for w in arguments if "=" in w)
        found += [f"the Makefile has no target {t}" for t in targets if t not in make_targets()]
        if "exercise" in targets and not exercise_tests(variables.get("CH"), variables.get("EX")):
            found.append(f"no exercise matches CH={variables.get('CH')} EX={variables.get('EX')}")
    elif program.startswith(".venv/bin/"):
        tool = program.removeprefix(".venv/bin/")
        if tool not in venv_tools():
            found.append(f"`make` puts no {tool} in .venv/bin")
        elif tool.startswith("python"):
            found += python_problems(arguments)
        elif tool == "pytest":
            found += [f"{w} does not exist" for w in arguments
                      if not w.startswith("-") and not (ROOT / w.split("::")[0]).exists()]
    return found


COMMANDS = printed_commands()


def test_the_docs_print_commands():
    """The scan finds what it is for: the set-up commands and an exercise command at least."""
    commands = {command for _, command in COMMANDS}
    assert {"make demo", "make test", "make exercise CH=1"} <= commands, sorted(commands)


@pytest.mark.parametrize("where, command", COMMANDS, ids=[where for where, _ in COMMANDS])
def test_every_command_runs_as_printed(where, command):
    found = problems(command)
    assert not found, f"{where}: `{command}`: " + "; ".join(found)


@pytest.mark.parametrize("command", sorted({c for _, c in COMMANDS if " -m minitriton show " in c}))
def test_the_show_commands_print_their_stage(command, monkeypatch):
    from minitriton.__main__ import main
    arguments = own_words(shlex.split(command))
    arguments = arguments[arguments.index("show"):]
    monkeypatch.chdir(ROOT)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(arguments) in (0, None)
    assert printed.getvalue().strip(), f"`{command}` printed nothing"


@pytest.mark.parametrize("command, wrong", [
    ("pytest exercises/01_introduction", "system's"),
    ("python -m minitriton demo", "system's"),
    ("make exercises", "no target"),
    ("make exercise CH=11", "no exercise"),
    (".venv/bin/pytest exercises/01_introduction/test_ex9_nothing.py", "does not exist"),
    (".venv/bin/python -m minitriton show minitriton/examples/tutorials.py:no_kernel", "defines no"),
    (".venv/bin/python -m minitriton show ... --stage ptx", "placeholder"),
    (".venv/bin/python -m minitriton show chapters/nothing.py:kernel", "does not exist"),
    (".venv/bin/python -m minitriton show chapters/examples/first_kernel.py:main --stage everything", "refuses"),
    (".venv/bin/nothing", "no nothing"),
    (".venv/bin/pytest exercise", "does not exist"),
    (".venv/bin/python -m minitriton show chapters/nothing.py:kernel | grep -E x", "does not exist"),
    ("\"$(python -c 'print(1)')\" -v", "system's"),
])
def test_the_check_catches_a_wrong_command(command, wrong):
    assert any(wrong in problem for problem in problems(command)), problems(command)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("chapter, exercise", [("1", None), ("4", "1"), ("10", None), (None, None)])
def test_make_exercise_runs_the_tests_it_is_asked_for(chapter, exercise):
    """The Makefile's choice of test files, read from a dry run, is `exercise_tests`'s."""
    settings = [f"CH={chapter}"] * bool(chapter) + [f"EX={exercise}"] * bool(exercise)
    dry_run = subprocess.run(["make", "-n", "exercise", *settings, "STAMP=", "BIN=.venv/bin"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60).stdout
    ran = [line for line in dry_run.splitlines() if "-m pytest" in line]
    assert len(ran) == 1, dry_run
    assert sorted(ROOT / word for word in ran[0].split() if word.startswith("exercises/")) == \
        exercise_tests(chapter, exercise)
