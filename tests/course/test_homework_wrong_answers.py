"""Every typical wrong answer listed for homework 2 and 3 costs its own question only.

``tests/course/wrong_answers/<name>.py`` lists them (the review's tables and a few more); each
becomes a submission (the solutions with that one change), and the class is graded with
``grade-class``.
Homework 1's are graded in tests/course/test_homework_class.py.
"""
import nbformat
import pytest

pytest.importorskip("otter", reason="the homework needs otter-grader (requirements.txt)")

from homework_support import (  # noqa: E402
    NAMES, assignment, build, with_wrong_answer, without_experiments, wrong_answers)

pytestmark = pytest.mark.homework
HW = "hw1_rademacher"


@pytest.mark.parametrize("name", [name for name in NAMES if name != HW])
def test_typical_wrong_answers_cost_their_own_question_only(name, tmp_path):
    """Every wrong answer listed for the assignment, graded as a class (homework 1's are above)."""
    result = build.assign(name, tmp_path / "result", run_tests=False)
    # the solutions without the figures and experiments, which no test needs (faster to grade)
    base = without_experiments(
        nbformat.read(result / "autograder" / f"{name}.ipynb", as_version=4))
    folder = tmp_path / "submissions"
    folder.mkdir()
    expected = {}
    for number, (description, question, old, new) in enumerate(wrong_answers(name)):
        nbformat.write(with_wrong_answer(base, old, new), folder / f"wrong_{number:02d}.ipynb")
        expected[f"wrong_{number:02d}"] = (description, question)
    rows = build.grade_class(name, folder, tmp_path / "grades", jobs=2, term_seed=0)
    points = {q.name: q.points for q in assignment(name).questions if not q.manual}
    for row in rows:
        description, question = expected[row["student"]]
        for other, full in points.items():
            score = float(row[other])
            assert (score < full) if other == question else (score == full), \
                (description, other, row)
