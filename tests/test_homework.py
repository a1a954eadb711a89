"""The homework: every master under homework/masters/ generates, and grades, as committed.

For each master ``homework/masters/<name>.ipynb`` (found by glob, so a new assignment is tested
as soon as it is added), ``otter assign`` is run once into a temporary folder, and then:

* the generated student notebook is exactly the committed ``homework/student/<name>/`` (a
  master changed without ``python homework/build.py`` fails here);
* the master's own solutions, graded by the generated autograder with ``otter run``, get full
  marks on every autograded question;
* the committed student notebook, unanswered, grades to zero on every question, without a crash.

Then build.py itself, on a one-question master: it refuses a master whose solution fails its
tests, generates the same files twice, and its grade command prints each question's score.

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
def test_master_has_four_to_seven_questions_mixing_derivation_and_code(name):
    questions = _questions(name)
    assert 4 <= len(questions) <= 7, questions
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


def _tiny_master(folder, answer):
    """A one-question master whose solution sets x = answer; its test asks x == 2."""
    from nbformat.v4 import new_code_cell, new_notebook, new_raw_cell

    cells = [new_raw_cell("# ASSIGNMENT CONFIG\nname: tiny\nexport_cell: false\n"
                          "generate:\n  pdf: false\ntests:\n  files: false"),
             new_raw_cell("# BEGIN QUESTION\nname: q1\npoints: 1"),
             new_raw_cell("# BEGIN SOLUTION"),
             new_code_cell(f"x = {answer}  # SOLUTION"),
             new_raw_cell("# END SOLUTION"),
             new_raw_cell("# BEGIN TESTS"),
             new_code_cell("assert x == 2"),
             new_raw_cell("# END TESTS"),
             new_raw_cell("# END QUESTION")]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "tiny.ipynb")


def test_assign_refuses_a_master_whose_solution_fails_its_tests(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "MASTERS", tmp_path / "masters")
    _tiny_master(tmp_path / "masters", answer=3)
    failed = "otter assign failed on tiny: Some autograder tests failed"
    with pytest.raises(RuntimeError, match=failed):
        build.assign("tiny", tmp_path / "result", run_tests=True)


def test_generation_is_deterministic(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "MASTERS", tmp_path / "masters")
    _tiny_master(tmp_path / "masters", answer=2)
    first = build.assign("tiny", tmp_path / "first", run_tests=False) / "student" / "tiny.ipynb"
    second = build.assign("tiny", tmp_path / "second", run_tests=False) / "student" / "tiny.ipynb"
    assert first.read_bytes() == second.read_bytes()
    student = nbformat.read(first, as_version=4)
    assert any(cell.source == "x = ..." for cell in student.cells)


def test_grade_command_prints_each_question_and_the_total(monkeypatch, capsys):
    scores = {"q2": (2.0, 2.0), "q3": (1.5, 3.0)}
    monkeypatch.setattr(build, "grade", lambda name, submission: scores)
    build.main(["grade", "hw1_rademacher", "submission.ipynb"])
    assert capsys.readouterr().out.splitlines() == [
        "q2: 2 / 2", "q3: 1.5 / 3", "total (autograded questions): 3.5 / 5"]


def test_unknown_assignment_is_refused_with_the_list_of_masters():
    with pytest.raises(SystemExit, match="no master .*hw1_rademacher"):
        build.main(["grade", "hw9_nothing", "submission.ipynb"])
