"""Every exercise test is honest: it fails on the untouched stub, passes on the reference solution,
and catches the wrong solutions, whose mistakes a learner could make.

pytest runs over `exercises/` in subprocesses, once per implementation (`exercises/_impl.py` picks it
by MINITRITON_SOLUTIONS), and the JUnit reports are compared test by test. A test that passes on a
stub checks nothing the learner writes; one that fails on the solution is wrong; one that cannot
even be collected or set up would not tell the learner what to do. Each wrong solution
(`exercises/wrong/<chapter>/<exercise>__<mistake>.py`) runs against its own exercise's test file
only, and must fail at least one test there: a wrong solution that passes is a hole in the tests.
The wrong solutions run in rounds, one process each, with one wrong solution per exercise a round,
and a test file stops at its first failure (exercises/conftest.py).

The stubs are checked as committed: a learner works in copies under `my_exercises/`, which this
check never reads, so solving exercises cannot turn `make test` red.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
CHAPTERS = sorted(p for p in EXERCISES.iterdir() if p.is_dir() and p.name[:2].isdigit())


def exercise_names() -> list[str]:
    """Every exercise, as `_impl.load` names it: "NN_chapter/exN_name"."""
    return [f"{chapter.name}/{stub.stem}" for chapter in CHAPTERS for stub in sorted(chapter.glob("ex*_*.py"))]


def wrong_solutions() -> dict[str, list[str]]:
    """exercise -> its wrong solutions ("NN_chapter/exN_name__mistake"), from exercises/wrong/."""
    found: dict[str, list[str]] = {}
    for path in sorted((EXERCISES / "wrong").glob("*/*__*.py")):
        variant = f"{path.parent.name}/{path.stem}"
        found.setdefault(exercise_of_variant(variant), []).append(variant)
    return found


def wrong_rounds() -> list[list[str]]:
    """The wrong solutions in rounds: round r holds each exercise's r-th wrong solution, so that one
    process can load a whole round."""
    found = list(wrong_solutions().values())
    return [[variants[r] for variants in found if len(variants) > r] for r in range(max(map(len, found), default=0))]


def exercise_of_variant(variant: str) -> str:
    return variant.split("__")[0]


def file_of_tests(exercise: str) -> Path:
    chapter, stem = exercise.split("/")
    return EXERCISES / chapter / f"test_{stem}.py"


def outcomes(report: Path) -> dict[str, str]:
    """test id -> "passed", "failed", "error" or "skipped", from a JUnit XML report."""
    result = {}
    for case in ElementTree.parse(report).iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}.get(min(kinds, default=""), "passed")
        result[f"{case.get('classname')}::{case.get('name')}"] = outcome
    return result


def exercise_of(test_id: str) -> str:
    """"exercises.04_layouts.test_ex1_owner::test_x" -> "04_layouts/ex1_owner"."""
    *_, chapter, module = test_id.split("::")[0].split(".")
    return f"{chapter}/{module.removeprefix('test_')}"


def start_pytest(choice: str, paths: list[Path], report: Path) -> subprocess.Popen:
    env = {**os.environ, "MINITRITON_SOLUTIONS": choice, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
               f"--junitxml={report}", *map(str, paths)]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(processes: dict[str, tuple[subprocess.Popen, Path]]) -> dict[str, tuple[dict[str, str], str]]:
    """Wait for each run; its outcomes by test id, and its output."""
    results = {}
    for which, (process, report) in processes.items():
        output, _ = process.communicate(timeout=600)
        assert report.exists(), f"pytest on the {which} wrote no report:\n{output[-3000:]}"
        results[which] = outcomes(report), output
    return results


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Run the exercise tests on the stubs, on the solutions and on every round of wrong solutions,
    all at once. "stubs" and "solutions": (outcomes, output); "wrong": (variants, outcomes, output)
    per round."""
    folder = tmp_path_factory.mktemp("exercises")
    processes = {which: (start_pytest(choice, [EXERCISES], folder / f"{which}.xml"), folder / f"{which}.xml")
                 for which, choice in (("stubs", "stubs"), ("solutions", "1"))}
    rounds = wrong_rounds()
    for r, variants in enumerate(rounds):
        report = folder / f"wrong{r}.xml"
        paths = [file_of_tests(exercise_of_variant(variant)) for variant in variants]
        processes[f"wrong{r}"] = (start_pytest("wrong:" + ",".join(variants), paths, report), report)
    results = finish(processes)
    return {"stubs": results["stubs"], "solutions": results["solutions"],
            "wrong": [(variants, *results[f"wrong{r}"]) for r, variants in enumerate(rounds)]}


def test_every_chapter_has_three_exercises_with_tests_and_solutions():
    assert [c.name[:2] for c in CHAPTERS][:3] == ["01", "02", "03"]
    for chapter in CHAPTERS:
        stubs = sorted(p.name for p in chapter.glob("ex*_*.py"))
        assert len(stubs) >= 3, f"{chapter.name} has {len(stubs)} exercises; each chapter needs three or more"
        for stub in stubs:
            assert (chapter / f"test_{stub}").exists(), f"{chapter.name}/{stub} has no test file"
            assert (EXERCISES / "solutions" / chapter.name / stub).exists(), f"{chapter.name}/{stub} has no solution"


def test_every_exercise_has_a_wrong_solution():
    wrong = wrong_solutions()
    missing = [name for name in exercise_names() if name not in wrong]
    assert not missing, ("each exercise needs at least one wrong solution, "
                         f"exercises/wrong/<chapter>/<exercise>__<mistake>.py: none for {missing}")
    strays = sorted(set(wrong) - set(exercise_names()))
    assert not strays, f"wrong solutions of exercises that do not exist: {[wrong[s] for s in strays]}"
    unnamed = sorted(p.name for p in (EXERCISES / "wrong").rglob("*.py") if "__" not in p.stem)
    assert not unnamed, f"a wrong solution's name says its mistake, <exercise>__<mistake>.py: {unnamed}"


def test_solutions_pass_every_test(runs):
    solutions, output = runs["solutions"]
    assert solutions, f"no exercise tests ran:\n{output[-3000:]}"
    not_passing = {test: outcome for test, outcome in solutions.items() if outcome != "passed"}
    assert not not_passing, f"tests that do not pass on the reference solutions: {not_passing}\n{output[-3000:]}"


def test_stubs_fail_every_test(runs):
    (stubs, output), (solutions, _) = runs["stubs"], runs["solutions"]
    assert set(stubs) == set(solutions), "the stubs and the solutions were tested by different tests: " \
                                         f"{sorted(set(stubs) ^ set(solutions))}"
    not_failing = {test: outcome for test, outcome in stubs.items() if outcome != "failed"}
    assert not not_failing, (
        "every test must FAIL on an untouched stub (an error in collection or setup does not count): "
        f"{not_failing}\n(the stubs in exercises/ are not for editing: work in your copies in "
        f"my_exercises/, and `git checkout exercises/` restores the stubs)\n{output[-3000:]}")


def test_every_wrong_solution_is_caught(runs):
    uncaught, output = [], ""
    for variants, results, round_output in runs["wrong"]:
        caught = {exercise_of(test) for test, outcome in results.items() if outcome == "failed"}
        missed = [variant for variant in variants if exercise_of_variant(variant) not in caught]
        uncaught += missed
        output += round_output[-3000:] if missed else ""
    assert runs["wrong"] and not uncaught, ("wrong solutions that fail no test of their exercise (an error in "
                                            f"loading one does not count): {uncaught}\n{output}")


def test_every_exercise_file_has_tests(runs):
    tested = {exercise_of(test) for test in runs["solutions"][0]}
    missing = [name for name in exercise_names() if name not in tested]
    assert not missing, f"exercises whose test file ran no tests: {missing}"


def test_solving_exercises_in_your_copies_leaves_the_check_alone(tmp_path, monkeypatch):
    """A learner's day, in a copy of `exercises/`: exercise 1.1 solved in my_exercises/ is what its
    tests load, exercise 1.4 gets its copy made from the stub when its tests first load it, and the
    honesty check's run (MINITRITON_SOLUTIONS=stubs) still loads both untouched stubs."""
    shutil.copytree(EXERCISES, tmp_path / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    spec = importlib.util.spec_from_file_location("copied_impl", tmp_path / "exercises" / "_impl.py")
    impl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(impl)
    solved = tmp_path / "my_exercises" / "01_introduction" / "ex1_axpy.py"
    solved.parent.mkdir(parents=True)
    shutil.copyfile(EXERCISES / "solutions" / "01_introduction" / "ex1_axpy.py", solved)

    monkeypatch.setenv("MINITRITON_SOLUTIONS", "0")
    assert impl.chosen_file("01_introduction/ex1_axpy")[0] == solved
    made = impl.chosen_file("01_introduction/ex4_grid")[0]
    assert made == tmp_path / "my_exercises" / "01_introduction" / "ex4_grid.py"
    assert made.read_text() == (EXERCISES / "01_introduction" / "ex4_grid.py").read_text()

    monkeypatch.setenv("MINITRITON_SOLUTIONS", "stubs")
    for name in ("01_introduction/ex1_axpy", "01_introduction/ex4_grid"):
        assert impl.chosen_file(name)[0] == tmp_path / "exercises" / f"{name}.py"
        assert impl.chosen_file(name)[0].read_text() == (EXERCISES / f"{name}.py").read_text()
