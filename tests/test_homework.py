"""The homework: every master under homework/masters/ generates, and grades, as committed.

For each master ``homework/masters/<name>.ipynb`` (found by glob, so a new assignment is tested
as soon as it is added), ``otter assign`` is run once into a temporary folder, and then:

* the generated student notebook is exactly the committed ``homework/student/<name>/`` (a
  master changed without ``python homework/build.py`` fails here);
* the master's own solutions, graded by the generated autograder with ``otter run``, get full
  marks on every autograded question;
* the committed student notebook, unanswered, grades to zero on every question, without a crash.

The masters themselves run under nbval (``homework/masters`` is in pytest's testpaths), which
also runs their test cells against their solutions.
"""
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("otter", reason="the homework needs otter-grader (requirements.txt)")

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("homework_build", ROOT / "homework" / "build.py")
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)

NAMES = build.masters()


def _questions(name):
    """(name, manual) of each question of the master, from its '# BEGIN QUESTION' raw cells."""
    nb = nbformat.read(build.MASTERS / f"{name}.ipynb", as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            question = re.search(r"^name:\s*(\S+)", cell.source, re.M).group(1)
            manual = re.search(r"^manual:\s*true", cell.source, re.M) is not None
            found.append((question, manual))
    return found


def test_there_are_masters():
    assert "hw1_rademacher" in NAMES


@pytest.fixture(scope="module", params=NAMES)
def generated(request, tmp_path_factory):
    """(name, folder of a fresh `otter assign` of the master)."""
    name = request.param
    result = build.assign(name, tmp_path_factory.mktemp(name) / "result", run_tests=False)
    return name, result


@pytest.mark.parametrize("name", NAMES)
def test_master_has_four_to_six_questions_mixing_derivation_and_code(name):
    questions = _questions(name)
    assert 4 <= len(questions) <= 6, questions
    assert any(manual for _, manual in questions), "no written derivation (manual: true)"
    assert any(not manual for _, manual in questions), "no autograded question"


def test_committed_student_version_is_up_to_date(generated):
    name, result = generated
    fresh, committed = result / "student", build.STUDENT / name
    fresh_files = sorted(p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file())
    committed_files = sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
    hint = f"homework/student/{name} is out of date: run `python homework/build.py generate {name}`"
    assert committed_files == fresh_files, hint
    for path in fresh_files:
        assert (committed / path).read_bytes() == (fresh / path).read_bytes(), f"{path}: {hint}"


@pytest.mark.parametrize("name", NAMES)
def test_student_version_has_no_solutions_hidden_tests_or_outputs(name):
    nb = nbformat.read(build.STUDENT / name / f"{name}.ipynb", as_version=4)
    for cell in nb.cells:
        assert "SOLUTION" not in cell.source, cell.source[:200]
        assert not cell.get("outputs"), cell.source[:200]
    cases = [case for test in nb.metadata["otter"]["tests"].values()
             for suite in test["suites"] for case in suite["cases"]]
    assert cases and not any(case["hidden"] for case in cases)


def _autograder(result, name):
    (zip_path,) = (result / "autograder").glob(f"{name}-autograder_*.zip")
    return zip_path


def test_master_solutions_get_full_marks(generated):
    name, result = generated
    scores = build.grade(name, result / "autograder" / f"{name}.ipynb",
                         autograder=_autograder(result, name))
    autograded = {question for question, manual in _questions(name) if not manual}
    assert set(scores) == autograded
    for question, (score, possible) in scores.items():
        assert possible > 0 and score == possible, (question, score, possible)


def test_unanswered_student_version_scores_zero(generated):
    name, result = generated
    scores = build.grade(name, build.STUDENT / name / f"{name}.ipynb",
                         autograder=_autograder(result, name))
    autograded = {question for question, manual in _questions(name) if not manual}
    assert set(scores) == autograded
    for question, (score, possible) in scores.items():
        assert possible > 0 and score == 0, (question, score, possible)
