"""A class of homework 1, graded with the one command (``build.py grade-class``).

Forty-odd submissions: correct (two folder layouts), empty, every typical wrong answer of
``tests/course/wrong_answers/hw1_rademacher.py``, loops (in a cell, in a question's function, one
that ignores the interrupt), a crash, the review's tamper attempts (numpy, otter, the library,
reading the hidden tests, writing outside its folder, a process left running), a submission that
puts the hidden inputs into its errors, an unreadable file and a notebook of another assignment.
Checked: ``grades.csv`` (every score as expected, derivations left to the hand), the feedback files
(no hidden test's code), the flags, nothing written outside, nothing left running.
"""
import csv
import re
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("otter", reason="the homework needs otter-grader (requirements.txt)")

from homework_support import (  # noqa: E402
    NAMES, assignment, build, with_wrong_answer, without_experiments, wrong_answers)

pytestmark = pytest.mark.homework
HW = "hw1_rademacher"
MARKER = "lsl-grading-test-daemon-4242"


def _code_cell(nb, text):
    return next(i for i, cell in enumerate(nb.cells)
                if cell.cell_type == "code" and text in cell.source)


def _class(solutions, folder):
    """Write the class into ``folder``: {student: (expected {question: full?} or None, check)}."""
    base = nbformat.read(solutions, as_version=4)
    master = str(build.MASTERS / f"{HW}.ipynb")
    expected = {}

    def write(student, nb, full, layout="file"):
        target = folder / f"{student}.ipynb" if layout == "file" else \
            folder / student / f"{HW}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        expected[student] = full

    def copy(lean=False):
        """The solutions; ``lean``: without the cells that no test needs."""
        return without_experiments(base) if lean else nbformat.reads(nbformat.writes(base), 4)

    def after(nb, text, code):
        nb.cells.insert(_code_cell(nb, text) + 1, nbformat.v4.new_code_cell(code))
        return nb

    every = {q.name for q in assignment(HW).questions if not q.manual}
    write("correct", copy(), every)
    write("correct_in_a_folder", copy(), every, layout="folder")
    write("empty", nbformat.read(build.STUDENT / HW / f"{HW}.ipynb", as_version=4), set())
    for number, (_description, question, old, new) in enumerate(wrong_answers(HW)):
        write(f"wrong_{number:02d}", with_wrong_answer(copy(lean=True), old, new),
              every - {question})
    # a top-level loop (stopped at the cell limit), a loop inside q4's function, a loop that
    # ignores the interrupt (killed, restarted), a crash of the process after q5's cell
    write("loop_cell", after(copy(lean=True), "def rademacher_bound", "while True:\n    pass"),
          every)
    nb = copy(lean=True)
    index = _code_cell(nb, "def complexity_curve")
    nb.cells[index].source = re.sub(r"(def complexity_curve\(.*\):\n)", r"\1    while True: pass\n",
                                    nb.cells[index].source)
    write("loop_q4", nb, every - {"q4"})
    write("loop_ignores_interrupt", after(copy(lean=True), "def rademacher_bound",
                                          "import time\nwhile True:\n    try:\n"
                                          "        time.sleep(0.2)\n"
                                          "    except BaseException:\n        pass"), every)
    write("crash", after(copy(), "def sup_over_ball", "import os\nos._exit(3)"), every)
    # tampering: each also answers q2 wrongly, which is all it may lose
    wrong_q2 = "def rademacher_bound(K, c):\n    return 0.0\n"
    write("tamper_numpy", after(copy(lean=True), "def rademacher_bound",
                                "import numpy\nnumpy.isclose = lambda *a, **k: True\n"
                                "numpy.allclose = lambda *a, **k: True\n" + wrong_q2),
          every - {"q2"})
    write("tamper_otter", after(copy(lean=True), "def rademacher_bound",
                                "import otter.test_files.ok_test as ok\n"
                                "ok.OKTestFile.run = lambda self, env: None\n" + wrong_q2),
          every - {"q2"})
    write("tamper_library", after(copy(lean=True), "def rademacher_bound",
                                  "import lsl_lib.theory as t\nt.kernel_rademacher_bound = "
                                  "lambda K, c: 0.0\n" + wrong_q2), every - {"q2"})
    write("lazy_library", after(copy(lean=True), "def rademacher_bound",
                                "from lsl_lib.theory import kernel_rademacher_bound\n"
                                "def rademacher_bound(K, c):\n"
                                "    return kernel_rademacher_bound(K, c)\n"),
          every - {"q2", "q4"})     # q4's curve calls the student's q2, which raises while grading
    # reading the hidden tests or writing outside its folder: if it could, it answers q2 wrongly
    outside = folder.parent / "written_by_a_submission.txt"
    write("read_hidden_tests", after(copy(lean=True), "def rademacher_bound",
                                     f"try:\n    open({master!r}).read()\n" + "    " +
                                     wrong_q2.replace("\n", "\n    ") +
                                     "\nexcept OSError:\n    pass"),
          every)
    write("write_outside", after(copy(lean=True), "def rademacher_bound",
                                 f"try:\n    open({str(outside)!r}, 'w').write('x')\n" + "    " +
                                 wrong_q2.replace("\n", "\n    ") + "\nexcept OSError:\n    pass"),
          every)
    write("leak_inputs", after(copy(lean=True), "def rademacher_bound",
                               "def rademacher_bound(K, c):\n"
                               "    raise ValueError(f'LEAK {K.tolist()}')\n"),
          every - {"q2", "q4"})
    write("daemon", after(copy(), "def rademacher_bound",
                          "import subprocess\n"
                          f"subprocess.Popen(['sh', '-c', 'sleep 600 # {MARKER}'], "
                          "start_new_session=True)"), every)
    (folder / "unreadable.ipynb").write_text("this is not a notebook")
    expected["unreadable"] = set()
    other = next(name for name in NAMES if name != HW)
    write("other_assignment", nbformat.read(build.STUDENT / other / f"{other}.ipynb", as_version=4),
          set())
    return expected, outside


def test_a_class_is_graded_with_one_command(tmp_path):
    result = build.assign(HW, tmp_path / "result", run_tests=False)
    folder = tmp_path / "submissions"
    folder.mkdir()
    expected, outside = _class(result / "autograder" / f"{HW}.ipynb", folder)
    assert len(expected) >= 20
    out = tmp_path / "grades"
    build.main(["grade-class", HW, str(folder), "--out", str(out), "--jobs", "2",
                "--term-seed", "0", "--cell-timeout", "12", "--call-timeout", "12",
                "--timeout", "600"])

    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) == set(expected)
    questions = assignment(HW).questions
    points = {q.name: q.points for q in questions}
    manual = [q.name for q in questions if q.manual]
    for student, full in expected.items():
        row = rows[student]
        for question in manual:
            assert row[question] == "", (student, question)     # graded by hand
        for question in points.keys() - set(manual):
            score = float(row[question])
            if question in full:
                assert score == points[question], (student, question, row)
            else:
                assert score < points[question], (student, question, row)
        total = sum(float(row[q]) for q in points.keys() - set(manual))
        assert float(row["autograded total"]) == pytest.approx(total, abs=1e-3)
        feedback = (out / "feedback" / f"{student}.md").read_text()
        assert f"autograded questions: **{row['autograded total']} / " in feedback.lower()

    assert rows["correct"]["status"] == "ok" and rows["correct"]["flags"] == ""
    assert rows["unreadable"]["status"].startswith("unreadable notebook")
    other = next(other for other in NAMES if other != HW)
    assert rows["other_assignment"]["status"].startswith(f"submitted for {other}")
    assert "numpy patched" in rows["tamper_numpy"]["flags"]
    assert "otter" in rows["tamper_otter"]["flags"]
    assert "lsl_lib.theory" in rows["lazy_library"]["flags"]
    assert not outside.exists()
    # the stopped cells are named in the feedback; the hidden tests' code is not
    assert "time limit" in (out / "feedback" / "loop_cell.md").read_text()
    assert "died" in (out / "feedback" / "crash.md").read_text()
    leak = (out / "feedback" / "leak_inputs.md").read_text().splitlines()
    hidden_lines = [line for line in leak if line.startswith("- hidden test")]
    assert "- hidden test 3: failed (ValueError)" in hidden_lines       # q2's hidden case
    assert not [line for line in hidden_lines if "LEAK" in line]
    assert [line for line in leak if line.startswith("- public test") and "LEAK" in line]
    hidden = {line.strip() for q in questions for code, is_hidden in q.tests if is_hidden
              for line in code.splitlines() if len(line.strip()) > 30}
    for path in (out / "feedback").iterdir():
        text = path.read_text()
        assert not [line for line in hidden if line in text], path.name
    # nothing the submissions started is left running
    left = [p for p in Path("/proc").glob("[0-9]*/cmdline")
            if MARKER.encode() in _read(p)]
    assert not left


def _read(path):
    try:
        return path.read_bytes()
    except OSError:
        return b""
