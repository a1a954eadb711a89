"""The homework: generated from the masters, handed out without answers, graded safely.

For each master ``homework/masters/<name>.ipynb`` (found by glob, so a new assignment is tested as
soon as it is added), ``otter assign`` is run once into a temporary folder, and then:

* the generated student notebook is exactly the committed ``homework/student/<name>/`` (a master
  changed without ``python homework/build.py`` fails here);
* the student bundle that ``generate`` writes holds no solution, no rubric and no hidden test;
* the master's own solutions get full marks from the grader (``homework/grading.py``), and the
  unanswered student notebook gets zero, without a crash;
* the term's seed changes the data the setup cells draw.

Then the grader's parts (the wire format, Landlock) and build.py's commands. A whole class is graded
in tests/course/test_homework_class.py, the listed wrong answers in
tests/course/test_homework_wrong_answers.py.
"""
import json
import os
import re
import sys
import textwrap
from pathlib import Path

import nbformat
import numpy as np
import pytest

pytest.importorskip("otter", reason="the homework needs otter-grader (requirements.txt)")

from homework_support import NAMES, ROOT, build, grading, sandbox  # noqa: E402
from homework_support import assignment as _assignment  # noqa: E402

pytestmark = pytest.mark.homework
HW = "hw1_rademacher"


def test_there_are_masters():
    assert "hw1_rademacher" in NAMES


@pytest.fixture(scope="module", params=NAMES)
def generated(request, tmp_path_factory):
    """(name, folder of a fresh `otter assign` of the master)."""
    name = request.param
    result = build.assign(name, tmp_path_factory.mktemp(name) / "result", run_tests=False)
    return name, result


@pytest.mark.parametrize("name", NAMES)
def test_master_mixes_derivations_and_code_with_rubrics(name):
    questions = _assignment(name).questions
    assert 4 <= len(questions) <= 7, [q.name for q in questions]
    assert any(q.manual for q in questions), "no written derivation (manual: true)"
    assert all(q.tests for q in questions if not q.manual), "an autograded question has no test"
    for question in questions:
        if question.manual:
            assert question.rubric.startswith(f"**Rubric ({question.points:g} points"), \
                question.name
        assert re.search(rf"{question.points:g} points?\b", question.prompt), \
            f"{question.name}'s heading does not show its {question.points:g} points"


@pytest.mark.parametrize("name", NAMES)
def test_master_has_a_term_seed_and_it_changes_the_data(name):
    def arrays(seed):
        namespace = grading._setup_namespace(_assignment(name, seed))
        return {key: value for key, value in namespace.items() if isinstance(value, np.ndarray)}
    first, second = arrays(0), arrays(1)
    assert first, "the setup cells define no data"
    assert any(key not in second or first[key].shape != second[key].shape
               or not np.array_equal(first[key], second[key]) for key in first)


def test_committed_student_version_is_up_to_date(generated):
    name, result = generated
    fresh, committed = result / "student", build.STUDENT / name
    fresh_files = sorted(p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file())
    committed_files = sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
    hint = f"homework/student/{name} is out of date: run `python homework/build.py generate {name}`"
    assert committed_files == fresh_files, hint
    for path in fresh_files:
        assert (committed / path).read_bytes() == (fresh / path).read_bytes(), f"{path}: {hint}"
    assert (build.STUDENT / "README.md").read_text() == build.STUDENT_README


def _secrets(name):
    """Lines of the master that a student must not see: solutions, rubrics, hidden tests."""
    nb = nbformat.read(build.MASTERS / f"{name}.ipynb", as_version=4)
    secrets, public, block = set(), set(), None
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw" and head in ("# BEGIN SOLUTION", "# BEGIN TESTS"):
            block = head
        elif cell.cell_type == "raw" and head in ("# END SOLUTION", "# END TESTS"):
            block = None
        elif cell.cell_type != "raw":
            lines = cell.source.splitlines()
            if block == "# BEGIN TESTS" and lines and lines[0].strip() == "# HIDDEN":
                secrets.update(lines[1:])
            elif block == "# BEGIN TESTS":          # a public test: the student sees it
                public.update(line.strip() for line in lines)
            elif block == "# BEGIN SOLUTION" and cell.cell_type == "markdown":
                secrets.update(lines)
            elif block == "# BEGIN SOLUTION":
                inside = False
                for line in lines:
                    if "# BEGIN SOLUTION" in line:
                        inside = True
                    elif "# END SOLUTION" in line:
                        inside = False
                    elif inside or line.rstrip().endswith("# SOLUTION"):
                        secrets.add(line.split("# SOLUTION")[0])
                    else:                               # given code around the solution
                        public.add(line.strip())
        if block is None and cell.cell_type != "raw":
            public.update(line.strip() for line in cell.source.splitlines())
    # short or generic lines (imports, `return x`, a bracket) say nothing, nor lines that the
    # master's given cells show anyway: keep the telling ones
    return {line.strip() for line in secrets
            if len(line.strip()) >= 30 and not line.strip().startswith(("import ", "from ", "#"))
            and line.strip() not in "\n".join(public)}


def test_student_bundle_holds_no_solution_rubric_or_hidden_test(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "AUTOGRADER", tmp_path / "autograder")
    bundle = tmp_path / "student"
    build.generate(run_tests=False, out=bundle, make_zip=True)
    files = sorted(path for path in bundle.rglob("*") if path.is_file())
    assert [path.relative_to(bundle).as_posix() for path in files] == sorted(
        ["README.md"] + [f"{name}/{name}.ipynb" for name in NAMES])
    text = "\n".join(path.read_text(errors="replace") for path in files)
    for marker in ("# HIDDEN", "BEGIN SOLUTION", "END SOLUTION", "**Rubric", "**Solution",
                   "'hidden': True", '"hidden": true'):
        assert marker not in text, marker
    for name in NAMES:
        nb = nbformat.read(bundle / name / f"{name}.ipynb", as_version=4)
        for cell in nb.cells:
            assert not cell.get("outputs"), cell.source[:200]
        readable = "\n".join(cell.source for cell in nb.cells) + json.dumps(nb.metadata)
        leaked = [line for line in _secrets(name) if line in readable]
        assert not leaked, (name, leaked[:5])
    import zipfile
    with zipfile.ZipFile(tmp_path / "student.zip") as archive:
        assert sorted(n for n in archive.namelist() if n.endswith(".ipynb")) == \
            [f"student/{name}/{name}.ipynb" for name in NAMES]


def test_autograder_zip_installs_lsl_lib_for_otter_grade(generated):
    import zipfile

    name, result = generated
    (zip_path,) = (result / "autograder").glob(f"{name}-autograder_*.zip")
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
        # otter's image installs its pip list
        requirements = archive.read("environment.yml").decode()
    assert "files/lsl/lsl_lib/__init__.py" in names and "files/lsl/pyproject.toml" in names
    for package in ("numpy", "scipy", "scikit-learn", "numba", "/autograder/source/files/lsl"):
        assert package in requirements, package


def _grade(name, notebook, **limits):
    limits = grading.Limits(**limits) if limits else grading.Limits()
    return build.grade(name, notebook, term_seed=0, limits=limits)


def test_master_solutions_get_full_marks(generated):
    name, result = generated
    scores = _grade(name, result / "autograder" / f"{name}.ipynb")
    autograded = {q.name for q in _assignment(name).questions if not q.manual}
    assert set(scores) == autograded
    for question, (score, possible) in scores.items():
        assert possible > 0 and score == possible, (question, score, possible,
                                                    build.grade.last_result["cases"][question])
    assert build.grade.last_result["status"] == "ok"


def test_unanswered_student_version_scores_zero(generated):
    name, _ = generated
    scores = _grade(name, build.STUDENT / name / f"{name}.ipynb")
    for question, (score, possible) in scores.items():
        assert possible > 0 and score == 0, (question, score, possible)
    assert build.grade.last_result["status"] == "ok"


# ------------------------------------------------------------------------------------------------
# the wire between grader and submission

def test_read_notebook_reads_format_4_as_json_and_converts_older_ones(tmp_path):
    """Format 4 as nbformat reads it (sources joined, tags kept); format 3 converted by
    nbformat; a file that is not JSON is a ValueError (a row "unreadable notebook")."""
    cell = nbformat.v4.new_code_cell("a = 1\nb = 2", metadata={"tags": ["grader-setup"]})
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), tmp_path / "v4.ipynb")
    read = grading.read_notebook(tmp_path / "v4.ipynb")
    assert [(c.cell_type, c.source, c.metadata) for c in read.cells] == \
        [(c.cell_type, c.source, c.metadata)
         for c in nbformat.read(tmp_path / "v4.ipynb", as_version=4).cells]
    old = nbformat.v3.new_notebook(worksheets=[nbformat.v3.new_worksheet(
        cells=[nbformat.v3.new_code_cell(input="x = 3")])])
    nbformat.write(old, tmp_path / "v3.ipynb", version=3)
    assert [c.source for c in grading.read_notebook(tmp_path / "v3.ipynb").cells] == ["x = 3"]
    (tmp_path / "text.ipynb").write_text("this is not a notebook")
    with pytest.raises(ValueError):
        grading.read_notebook(tmp_path / "text.ipynb")


def test_values_cross_the_wire_and_objects_stay_behind():
    refs = []

    def keep(obj):
        refs.append(obj)
        return {"t": "ref", "id": len(refs) - 1, "type": type(obj).__name__}

    value = {"a": [1, 2.5, None, True, "s"], 3: (np.arange(6.0).reshape(2, 3), np.float32(1.5)),
             "f": len}
    wire = json.loads(json.dumps(sandbox.encode(value, keep)))
    back = sandbox.decode(wire, lambda item: ("ref", item["id"]))
    assert back["a"] == [1, 2.5, None, True, "s"]
    np.testing.assert_array_equal(back[3][0], np.arange(6.0).reshape(2, 3))
    assert back[3][1] == np.float32(1.5) and back[3][1].dtype == np.float32
    assert back["f"] == ("ref", 0) and refs == [len]


def test_the_submissions_builtin_errors_keep_their_class():
    error = grading.student_error("ValueError: target 0.1 is out of reach")
    assert isinstance(error, ValueError) and isinstance(error, grading.StudentError)
    assert str(error) == "ValueError: target 0.1 is out of reach"
    with pytest.raises(ValueError, match="out of reach"):
        raise error
    own = grading.student_error("MyError: something")
    assert type(own) is grading.StudentError and not isinstance(own, ValueError)


def test_decode_refuses_objects_and_forged_arrays():
    with pytest.raises(ValueError, match="dtype"):
        sandbox.decode({"t": "nd", "dtype": "|O", "shape": [1], "b64": ""}, None)
    with pytest.raises(ValueError, match="shape"):
        sandbox.decode({"t": "nd", "dtype": "<f8", "shape": [1000], "b64": "AAAAAAAAAAA="}, None)
    with pytest.raises(ValueError, match="kind"):
        sandbox.decode({"t": "pickle", "v": "..."}, None)


def test_a_grader_past_the_time_limit_is_replaced_and_a_dead_one_reports_why(tmp_path):
    """A class reuses one grader process per job (``grading.py serve``): a grader that passes the
    time limit of a whole submission is killed, one that dies gives its last words as the row's
    status, and the next submission gets a new grader. Here the grader is a stand-in speaking the
    same protocol, told by each submission what to do."""
    script = tmp_path / "grader.py"
    script.write_text(textwrap.dedent("""
        import json, os, sys, time
        for line in sys.stdin:
            path, output = json.loads(line)
            what = open(path).read()
            if what == "stall":
                time.sleep(600)
            if what == "die":
                sys.exit("the grader crashed")
            open(output, "w").write(json.dumps({"status": "ok", "pid": os.getpid()}))
            print("done", flush=True)
    """))
    grader = grading._Grader(tmp_path / "master.ipynb", 0, grading.Limits(), None)
    assert grader.command[2:4] == ["serve", str(tmp_path / "master.ipynb")]
    grader.command = [sys.executable, str(script)]

    def grade(what, timeout=60.0):
        (tmp_path / what).write_text(what)
        return grader.grade(tmp_path / what, tmp_path / f"{what}.json", timeout)

    try:
        first = grade("ok")["pid"]
        assert grade("ok")["pid"] == first                       # the same process, reused
        assert grade("stall", timeout=1.0) == {
            "status": "stopped after 1 s for the whole submission"}
        with pytest.raises(ProcessLookupError):                  # killed (and reaped)
            os.kill(first, 0)
        second = grade("ok")["pid"]
        assert second != first
        died = grade("die")
        assert died["status"].startswith("grader error") and "the grader crashed" in died["status"]
        assert grade("ok")["pid"] not in (first, second)
    finally:
        grader.stop()
    assert grader.process is None


def test_the_student_side_dies_with_its_grader(tmp_path):
    """A grader killed from outside (past the time limit of a whole submission) takes its
    student process with it: nothing of the submission runs on."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the grader's sandbox and this check (/proc) are Linux's")
    import signal
    import subprocess
    import time

    pid_file = tmp_path / "student.pid"
    code = textwrap.dedent(f"""
        import grading  # beside the working directory, homework/
        cells = ["import os; open({str(pid_file)!r}, 'w').write(str(os.getpid()))",
                 "import time; time.sleep(600)"]
        grading.Student(cells, {str(tmp_path)!r}, [], grading.Limits()).start()
    """)
    grader = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT / "homework")
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.1)
        student = int(pid_file.read_text())
        os.kill(student, 0)                                      # running
    finally:
        grader.send_signal(signal.SIGKILL)
        grader.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{student}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    status = Path(f"/proc/{student}/stat")
    # gone, or a zombie waiting for init to reap it
    assert not status.exists() or status.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_the_masters_numba_cache_reaches_each_submission_before_its_first_cell(tmp_path):
    """numba_seed runs the master's code on the student side and keeps the cache it compiled;
    grade_submission copies it into the submission's folder, where the submission's first cell
    finds it (without it, the same cell finds no cache: the check can fail)."""
    fit = ("import numpy as np\n"
           "from lsl_lib.pegasos import PegasosClassifier\n"
           "X = np.random.default_rng(0).normal(size=(40, 3)); y = np.sign(X[:, 0])\n"
           "PegasosClassifier(n_iter=20, random_state=0).fit(X, y)")
    master = grading.Assignment(name="seed", setup=[], questions=[], forbidden=[], code=[fit])
    (tmp_path / "seed").mkdir()
    cache = grading.numba_seed(master, tmp_path / "seed")
    compiled = sorted(path.name for path in cache.rglob("*.nbi"))
    assert compiled, "the master's fit compiled nothing into the cache"
    first_cell = ("import os, pathlib\n"
                  "found = sorted(p.name for p in "
                  "pathlib.Path(os.environ['NUMBA_CACHE_DIR']).rglob('*.nbi'))\n"
                  f"assert found == {compiled!r}, found")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(first_cell)])
    for seeded in (True, False):
        work = tmp_path / f"work_{seeded}"
        work.mkdir()
        nbformat.write(nb, work / "submission.ipynb")
        result = grading.grade_submission(master, work / "submission.ipynb", work,
                                          numba_cache=cache if seeded else None)
        assert (result["cells"] == []) == seeded, result["cells"]


def test_landlock_keeps_the_student_side_in_its_folder(tmp_path):
    if sandbox.landlock_abi() == 0:
        pytest.skip("this kernel has no Landlock: the grader runs without the file-system sandbox "
                    "here (README: use --docker)")
    import subprocess
    import sys

    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    work = tmp_path / "work"
    work.mkdir()
    path = str(ROOT / "homework" / "sandbox.py")
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('sandbox', {path!r})\n"
            "sandbox = importlib.util.module_from_spec(spec); spec.loader.exec_module(sandbox)\n"
            "sandbox.restrict(sandbox.system_read_paths(), [sys.argv[1]])\n"
            f"open(sys.argv[1] + '/ok.txt', 'w').write('x')\n"
            "for action in (lambda: open(sys.argv[2]).read(), lambda: open(sys.argv[3], 'w')):\n"
            "    try:\n        action(); print('allowed')\n"
            "    except PermissionError:\n        print('denied')\n")
    output = subprocess.run([sys.executable, "-c", code, str(work), str(secret),
                             str(tmp_path / "new.txt")], capture_output=True, text=True, check=True)
    assert output.stdout.split() == ["denied", "denied"]
    assert (work / "ok.txt").exists() and not (tmp_path / "new.txt").exists()


# ------------------------------------------------------------------------------------------------
# build.py's own behaviour

def _tiny_master(folder, answer):
    """A one-question master whose solution sets x = answer; its test asks x == 2."""
    from nbformat.v4 import new_code_cell, new_notebook, new_raw_cell

    setup = new_code_cell("TERM_SEED = 0\nimport numpy as np\n"
                          "shift = np.random.default_rng(TERM_SEED).integers(9)")
    setup.metadata["tags"] = ["grader-setup"]
    cells = [new_raw_cell("# ASSIGNMENT CONFIG\nname: tiny\nexport_cell: false\n"
                          "generate:\n  pdf: false\ntests:\n  files: false"),
             setup,
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


def test_generation_is_deterministic_and_takes_the_term_seed(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "MASTERS", tmp_path / "masters")
    _tiny_master(tmp_path / "masters", answer=2)
    first = build.assign("tiny", tmp_path / "first", run_tests=False) / "student" / "tiny.ipynb"
    second = build.assign("tiny", tmp_path / "second", run_tests=False) / "student" / "tiny.ipynb"
    assert first.read_bytes() == second.read_bytes()
    student = nbformat.read(first, as_version=4)
    assert any(cell.source == "x = ..." for cell in student.cells)
    seeded = build.assign("tiny", tmp_path / "seeded", run_tests=False, term_seed=1234)
    sources = [cell.source for cell in nbformat.read(seeded / "student" / "tiny.ipynb", 4).cells]
    assert any(source.startswith("TERM_SEED = 1234\n") for source in sources)


def test_grade_command_prints_each_question_and_the_total(monkeypatch, capsys):
    def fake(name, submission, term_seed, docker, limits):
        build.grade.last_result = {"status": "ok", "flags": []}
        return {"q2": (2.0, 2.0), "q3": (1.5, 3.0)}
    monkeypatch.setattr(build, "grade", fake)
    build.main(["grade", "hw1_rademacher", "submission.ipynb"])
    assert capsys.readouterr().out.splitlines() == [
        "q2: 2 / 2", "q3: 1.5 / 3", "total (autograded questions): 3.5 / 5"]


def test_unknown_assignment_is_refused_with_the_list_of_masters():
    with pytest.raises(SystemExit, match="no master .*hw1_rademacher"):
        build.main(["grade", "hw9_nothing", "submission.ipynb"])


@pytest.mark.parametrize("command", ["grade-class", "extract"])
def test_a_missing_or_empty_folder_of_submissions_is_refused(command, tmp_path):
    out = ["--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit, match="no folder .*missing"):
        build.main([command, HW, str(tmp_path / "missing"), *out])
    (tmp_path / "empty" / "notes").mkdir(parents=True)
    (tmp_path / "empty" / "a.txt").write_text("not a notebook")
    with pytest.raises(SystemExit, match=r"no submission in .*empty.*<student>\.ipynb"):
        build.main([command, HW, str(tmp_path / "empty"), *out])
    assert not (tmp_path / "out").exists()


def test_extract_writes_one_file_per_derivation_with_rubric_and_every_answer(tmp_path):
    name = HW
    folder = tmp_path / "submissions"
    folder.mkdir()
    student = nbformat.read(build.STUDENT / name / f"{name}.ipynb", as_version=4)
    manual = [q for q in _assignment(name).questions if q.manual]
    for who in ("ada", "bo"):
        nb = nbformat.reads(nbformat.writes(student), as_version=4)
        answers = [c for c in nb.cells if "otter_answer_cell" in c.metadata.get("tags", [])
                   and c.cell_type == "markdown"]
        for cell in answers:
            cell.source = f"answer of {who}: $\\sum_i \\sigma_i$"
        nbformat.write(nb, folder / f"{who}.ipynb")
    paths = build.extract(name, folder, tmp_path / "answers")
    assert [p.stem for p in paths] == sorted(q.name for q in manual)
    for question in manual:
        text = (tmp_path / "answers" / f"{question.name}.md").read_text()
        assert question.rubric.strip()[:60] in text
        assert "answer of ada" in text and "answer of bo" in text


def test_docker_mode_runs_the_student_side_in_a_locked_down_container(tmp_path):
    command = grading.sandbox_command("lsl-homework", ["/data"], ["lsl_lib.theory.f"], tmp_path,
                                      "c1")
    assert command[:3] == ["docker", "run", "--rm"]
    for option in ("--network", "none", "--read-only", "--memory", "--pids-limit",
                   f"{tmp_path}:/submission", "lsl-homework", "--forbid=lsl_lib.theory.f"):
        assert option in command, option
    dockerfile = (ROOT / "homework" / "Dockerfile").read_text()
    assert "homework/sandbox.py" in dockerfile and "COPY lsl_lib" in dockerfile


def test_lecturer_side_stays_off_binder():
    post_build = (ROOT / "binder" / "postBuild").read_text()
    assert "rm -rf homework/masters homework/autograder" in post_build
    ci = (ROOT / ".ci" / "run").read_text()
    assert "LSL_KEEP_MASTERS=1 bash binder/postBuild" in ci
    for path in (ROOT / "README.md", ROOT / "notebooks" / "00_start_here.ipynb"):
        text = path.read_text()
        assert "homework/student/" in text, path.name
        assert "urlpath=lab/tree/homework/masters" not in text, path.name
