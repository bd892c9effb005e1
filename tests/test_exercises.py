"""Every exercise test is honest: it fails on the untouched stub and passes on the reference solution.

pytest runs over `exercises/` twice in subprocesses, once per implementation (`exercises/_impl.py`
picks it by MINITRITON_SOLUTIONS), and the JUnit reports are compared test by test. A test that
passes on a stub checks nothing the learner writes; one that fails on the solution is wrong; one
that cannot even be collected or set up would not tell the learner what to do.
"""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
CHAPTERS = sorted(p for p in EXERCISES.iterdir() if p.is_dir() and p.name[:2].isdigit())


def outcomes(report: Path) -> dict[str, str]:
    """test id -> "passed", "failed", "error" or "skipped", from a JUnit XML report."""
    result = {}
    for case in ElementTree.parse(report).iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}.get(min(kinds, default=""), "passed")
        result[f"{case.get('classname')}::{case.get('name')}"] = outcome
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict[str, str]]:
    """Run the exercise tests on the stubs and on the solutions at once; return each run's outcomes."""
    folder = tmp_path_factory.mktemp("exercises")
    processes = {}
    for which, flag in (("stubs", "0"), ("solutions", "1")):
        env = {**os.environ, "MINITRITON_SOLUTIONS": flag, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                   f"--junitxml={folder / which}.xml", str(EXERCISES)]
        processes[which] = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True)
    results = {}
    for which, process in processes.items():
        output, _ = process.communicate(timeout=600)
        report = folder / f"{which}.xml"
        assert report.exists(), f"pytest on the {which} wrote no report:\n{output[-3000:]}"
        results[which] = outcomes(report)
        results[which + " output"] = output
    return results


def test_every_chapter_has_three_exercises_with_tests_and_solutions():
    assert [c.name[:2] for c in CHAPTERS][:3] == ["01", "02", "03"]
    for chapter in CHAPTERS:
        stubs = sorted(p.name for p in chapter.glob("ex*_*.py"))
        assert len(stubs) >= 3, f"{chapter.name} has {len(stubs)} exercises; each chapter needs three or more"
        for stub in stubs:
            assert (chapter / f"test_{stub}").exists(), f"{chapter.name}/{stub} has no test file"
            assert (EXERCISES / "solutions" / chapter.name / stub).exists(), f"{chapter.name}/{stub} has no solution"


def test_solutions_pass_every_test(runs):
    solutions = runs["solutions"]
    assert solutions, f"no exercise tests ran:\n{runs['solutions output'][-3000:]}"
    not_passing = {test: outcome for test, outcome in solutions.items() if outcome != "passed"}
    assert not not_passing, f"tests that do not pass on the reference solutions: {not_passing}\n" \
                            f"{runs['solutions output'][-3000:]}"


def test_stubs_fail_every_test(runs):
    stubs, solutions = runs["stubs"], runs["solutions"]
    assert set(stubs) == set(solutions), "the stubs and the solutions were tested by different tests: " \
                                         f"{sorted(set(stubs) ^ set(solutions))}"
    not_failing = {test: outcome for test, outcome in stubs.items() if outcome != "failed"}
    assert not not_failing, ("every test must FAIL on an untouched stub (an error in collection or "
                             f"setup does not count): {not_failing}\n{runs['stubs output'][-3000:]}")


def test_every_exercise_file_has_tests(runs):
    tested = {test.split("::")[0].rsplit(".", 1)[-1] for test in runs["solutions"]}
    for chapter in CHAPTERS:
        for test_file in chapter.glob("test_ex*_*.py"):
            assert test_file.stem in tested, f"{chapter.name}/{test_file.name} ran no tests"
