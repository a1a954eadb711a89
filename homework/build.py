#!/usr/bin/env python
"""Build the homework from its masters, grade a class's submissions, prepare the hand grading.

    python homework/build.py                                    # every master -> the student bundle
    python homework/build.py generate hw1_rademacher [--term-seed N] [--masters DIR] [--out DIR]
                                                     [--zip]
    python homework/build.py grade-class hw1_rademacher submissions/ [--out grades/] [--jobs 2]
    python homework/build.py grade hw1_rademacher submission.ipynb
    python homework/build.py extract hw1_rademacher submissions/ [--out answers/]
    python homework/build.py docker-image [--tag lsl-homework]

``generate`` runs ``otter assign`` on each master ``<masters>/<name>.ipynb`` (default
``homework/masters/``; a lecturer keeps a private copy and passes ``--masters``) and writes

* the **student bundle** ``<out>/`` (default ``homework/student/``): per assignment the student
  notebook (solutions replaced by prompts, public tests only, no outputs) and the data files its
  master lists, and a ``README.md`` on how to work and hand in. Nothing in it holds a solution, a
  rubric or a hidden test (``tests/course/test_homework.py`` checks). ``--zip`` also writes
  ``<out>.zip``;
* the **lecturer's side** ``homework/autograder/<name>/`` (git-ignored): otter's autograder zip
  (public and hidden tests; its requirements install ``lsl_lib``, so that otter's own
  ``otter grade`` can build its Docker image), the solutions notebook, and ``term.json`` with the
  term's seed, which the grading commands then use.

``--term-seed N`` rewrites the masters' line ``TERM_SEED = <int>`` first: the data and parameters
drawn from it change, so a new term's numbers differ from the published ones. By default
``otter assign`` also runs every test against the solutions and refuses a master that fails them
(``--no-run-tests`` skips that). Otter's random cell ids are replaced by ids derived from each
cell, so that generating twice gives the same files.

``grade-class`` grades every notebook of a folder (``<student>.ipynb`` or ``<student>/<any>.ipynb``)
with ``homework/grading.py``: each submission in its own process, in a sandbox (Linux Landlock, or
a Docker container with ``--docker``), with time limits, the tests run by the grader, not by the
submission. It writes ``grades.csv`` and ``feedback/<student>.md``. ``grade`` does the same for one
file and prints it. ``extract`` writes, per hand-graded question, one Markdown file with the
question, its rubric and every student's answer.
"""
import argparse
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import re
import shutil
import tomllib
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import nbformat

HOMEWORK = Path(__file__).resolve().parent
ROOT = HOMEWORK.parent
# the masters: homework/masters/, or a lecturer's private copy (LSL_HOMEWORK_MASTERS or --masters)
MASTERS = Path(os.environ.get("LSL_HOMEWORK_MASTERS", HOMEWORK / "masters")).resolve()
STUDENT = HOMEWORK / "student"
AUTOGRADER = HOMEWORK / "autograder"

STUDENT_README = """\
# Homework: oracle inequalities

One folder per assignment, each with its notebook `<assignment>.ipynb`.

**Work.** Open the notebook in JupyterLab (on your machine after
`python -m pip install -r requirements.txt`, or on Binder). Answer the written derivations in the
markdown cell under each question; for a code question replace the `raise NotImplementedError(...)`
by your code and run the cell `grader.check("qN")` under it: it runs the public tests. The grader
also runs hidden tests, with other inputs: a solution that passes the public tests only by luck or
by special cases does not pass them.

**Rules.** Write the computations the questions ask for. Calling `lsl_lib.theory` (the library's
versions of these results) in place of the asked computation earns nothing: those functions are
switched off while grading. Grading runs your notebook in a restricted process: it cannot read or
write files outside its own folder; code that tries to change the grading is recorded and read by
the teaching staff.

**Hand in.**
1. Keep the file name `<assignment>.ipynb` (the public tests read it).
2. Restart the kernel and run all cells, top to bottom, once: the grader runs them in that order.
3. Save. On Binder, download the notebook (File > Download): a Binder session is temporary, and
   your work is lost when it ends.
4. Hand in that one `.ipynb` file as your course says (the course's upload page, or a folder named
   after you).

Each question shows its points. Written derivations are graded by hand with a rubric; code
questions are graded by the tests, each test an equal share of its question's points.
"""


def _load(name):
    """``homework/<name>.py`` as a module (the homework folder is not a package)."""
    module_name = f"lsl_homework_{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, HOMEWORK / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def masters():
    """The assignment names, one per master notebook ``<masters>/<name>.ipynb``, sorted."""
    return sorted(path.stem for path in MASTERS.glob("*.ipynb"))


def _master(name):
    path = MASTERS / f"{name}.ipynb"
    if not path.is_file():
        raise SystemExit(f"no master {path}; the masters are: {', '.join(masters()) or 'none'}")
    return path


def _check_submissions_folder(folder):
    """Stop the command, saying what it looked for, unless ``folder`` holds a submission."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"no folder {folder}: give the folder of the submitted notebooks")
    if not _load("grading").submissions(folder):
        raise SystemExit(f"no submission in {folder}: a submission is <student>.ipynb or "
                         "<student>/<any>.ipynb")


def with_term_seed(master, seed, folder):
    """Copy of the master notebook ``master`` in ``folder`` with its term's seed set to ``seed``.

    The master's cell tagged ``grader-setup`` that holds the line ``TERM_SEED = <int>`` derives
    the term's data and parameters from it; this rewrites that integer, so that a lecturer's
    seed gives a variant whose numbers differ from every other term's.
    """
    term_seed_line = _load("grading").TERM_SEED_LINE
    nb = nbformat.read(master, as_version=4)
    found = [cell for cell in nb.cells
             if cell.cell_type == "code" and term_seed_line.search(cell.source)]
    if len(found) != 1:
        raise SystemExit(f"{master.name}: expected one code cell with a line 'TERM_SEED = <int>', "
                         f"found {len(found)}")
    found[0].source = term_seed_line.sub(f"TERM_SEED = {int(seed)}", found[0].source, count=1)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / master.name)
    return folder / master.name


def _with_otter_requirements(master):
    """Add to the master's ``# ASSIGNMENT CONFIG`` what otter's Docker image needs: ``lsl_lib``.

    The autograder zip then carries ``lsl_lib``'s source (``files/lsl``) and a requirements file
    that installs it with its dependencies and numba (pyproject.toml), so that
    ``otter grade`` (Docker) and Gradescope can run the notebooks.
    """
    folder = master.parent
    source = folder / "lsl"
    shutil.copytree(ROOT / "lsl_lib", source / "lsl_lib",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    shutil.copy(ROOT / "pyproject.toml", source / "pyproject.toml")
    shutil.copy(ROOT / "README.md", source / "README.md")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["fast"]
    (folder / "requirements.txt").write_text(
        "\n".join(requirements + ["/autograder/source/files/lsl"]) + "\n")
    nb = nbformat.read(master, as_version=4)
    config = nb.cells[0]
    config.source = config.source.rstrip() + "\nrequirements: requirements.txt\nfiles:\n  - lsl\n"
    nbformat.write(nb, master)
    return master


def normalise_ids(path):
    """Give every cell of the notebook at ``path`` an id derived from its position and content."""
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        digest = hashlib.sha1(f"{index}\0{cell.cell_type}\0{cell.source}".encode())
        cell.id = digest.hexdigest()[:8]
    nbformat.write(nb, path)


@contextlib.contextmanager
def _quiet_otter():
    """Capture what otter prints (returned, for error messages) and silence its deprecation."""
    with contextlib.redirect_stdout(io.StringIO()) as log, warnings.catch_warnings():
        # otter 7.0's summary table calls DataFrame.drop(inplace=True), deprecated in pandas 3.1
        warnings.filterwarnings("ignore", message="The inplace keyword in DataFrame.drop")
        yield log


def assign(name, result, run_tests=True, term_seed=None):
    """Run ``otter assign`` on the master ``name`` into the directory ``result``.

    ``result`` receives otter's ``student/`` and ``autograder/`` folders, the student
    notebook with deterministic cell ids. With ``term_seed``, the master's ``TERM_SEED`` is set
    to it first (:func:`with_term_seed`). Raises ``RuntimeError`` with otter's output if it
    fails, for instance when a solution fails its own tests.
    """
    from otter.assign import main as otter_assign

    result = Path(result).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        master = Path(tmp) / "master" / f"{name}.ipynb"
        master.parent.mkdir()
        if term_seed is not None:
            with_term_seed(_master(name), term_seed, master.parent)
        else:
            shutil.copy(_master(name), master)
        _with_otter_requirements(master)
        with _quiet_otter() as log:
            try:
                otter_assign(str(master), str(result), no_pdfs=True, no_run_tests=not run_tests)
            except Exception as error:
                raise RuntimeError(f"otter assign failed on {name}: {error}\n"
                                   f"{log.getvalue()}") from error
    # otter copies the listed files to the students too: lsl_lib is for the autograder only
    shutil.rmtree(result / "student" / "lsl")
    normalise_ids(result / "student" / f"{name}.ipynb")
    return result


def generate(names=None, run_tests=True, term_seed=None, out=None, make_zip=False):
    """Write the student bundle ``out/<name>/`` and ``homework/autograder/<name>/`` for each
    name."""
    out = Path(out) if out is not None else STUDENT
    for name in names or masters():
        with tempfile.TemporaryDirectory() as tmp:
            result = assign(name, Path(tmp) / name, run_tests=run_tests, term_seed=term_seed)
            for source, target in [(result / "student", out / name),
                                   (result / "autograder", AUTOGRADER / name)]:
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target)
        (AUTOGRADER / name / "term.json").write_text(json.dumps({"term_seed": term_seed}))
        print(f"{name}: {out / name}/, {autograder_zip(name)}")
    (out / "README.md").write_text(STUDENT_README)
    if make_zip:
        archive = shutil.make_archive(str(out), "zip", root_dir=out.parent, base_dir=out.name)
        print(f"student bundle: {archive}")


def autograder_zip(name):
    """The autograder zip of ``name`` (for ``otter grade``), generated if missing."""
    zips = sorted((AUTOGRADER / name).glob(f"{name}-autograder_*.zip"))
    if not zips:
        generate([name], run_tests=False, out=Path(tempfile.mkdtemp()))
        zips = sorted((AUTOGRADER / name).glob(f"{name}-autograder_*.zip"))
    return zips[-1]


def term_seed_of(name, given=None):
    """The term's seed to grade with: ``given``, else the one of the last ``generate``, else
    None."""
    if given is not None:
        return given
    recorded = AUTOGRADER / name / "term.json"
    return json.loads(recorded.read_text())["term_seed"] if recorded.exists() else None


def grade(name, submission, term_seed=None, docker_image=None, limits=None):
    """Grade one notebook; returns ``{question: (score, possible)}`` over autograded questions.

    Same grading as :func:`grade_class` (sandbox, time limits, tests in the grader), in this
    process; the full result (cases, cells, flags) is in ``grade.last_result``.
    """
    grading = _load("grading")
    assignment = grading.load_assignment(_master(name), term_seed_of(name, term_seed))
    with tempfile.TemporaryDirectory(prefix="lsl-grade-") as workdir:
        copy = Path(workdir) / Path(submission).name
        shutil.copyfile(submission, copy)
        result = grading.grade_submission(assignment, copy, workdir, limits or grading.Limits(),
                                          docker_image)
    grade.last_result = result
    return {question: tuple(score) for question, score in result["questions"].items()}


def grade_class(name, folder, out, jobs=2, term_seed=None, docker_image=None, limits=None,
                timeout=1800.0):
    """Grade every submission in ``folder`` into ``out/grades.csv`` and ``out/feedback/``."""
    grading = _load("grading")
    return grading.grade_class(_master(name), folder, out, jobs=jobs,
                               term_seed=term_seed_of(name, term_seed),
                               limits=limits or grading.Limits(), docker_image=docker_image,
                               timeout=timeout)


def extract(name, folder, out):
    """Per hand-graded question, ``out/<question>.md``: the question, its rubric, every answer.

    The answers are the markdown (and any code) cells that otter marks as answer cells
    (``otter_answer_cell``) between the question's markers; the files open in JupyterLab,
    which renders their mathematics.
    """
    grading = _load("grading")
    assignment = grading.load_assignment(_master(name))
    manual = [question for question in assignment.questions if question.manual]
    answers = {question.name: [] for question in manual}
    for student, path in grading.submissions(folder).items():
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception as error:  # noqa: BLE001 (an unreadable file is reported, not fatal)
            for question in manual:
                answers[question.name].append((student, f"_(unreadable notebook: {error})_"))
            continue
        found = _answers_by_question(nb, [question.name for question in manual])
        for question in manual:
            answers[question.name].append((student, found.get(question.name) or "_(no answer)_"))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for question in manual:
        lines = [f"# {name}, {question.name}: {len(answers[question.name])} answers", "",
                 "## The question", "", question.prompt, "", "## Rubric", "",
                 question.rubric or "_(no rubric in the master)_", ""]
        for student, answer in answers[question.name]:
            lines += ["---", "", f"## {student}", "", answer, ""]
        (out / f"{question.name}.md").write_text("\n".join(lines))
    return sorted(out.glob("*.md"))


def _answers_by_question(nb, names):
    """``{question: answer text}``: answer cells, assigned to the question whose heading
    precedes."""
    found, current = {}, None
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown" and "otter_answer_cell" not in tags:
            match = re.search(r"\*\*Question (\d+)", cell.source)
            if match:
                current = f"q{match.group(1)}"
        elif "otter_answer_cell" in tags and current in names:
            text = cell.source if cell.cell_type == "markdown" else f"```python\n{cell.source}\n```"
            found[current] = (found.get(current, "") + "\n\n" + text).strip()
    return found


def docker_image(tag="lsl-homework"):
    """Build the grading image (``homework/Dockerfile``): Python, the requirements, ``lsl_lib``."""
    subprocess.run(["docker", "build", "-f", str(HOMEWORK / "Dockerfile"), "-t", tag, str(ROOT)],
                   check=True)
    return tag


def _print_result(name, scores, result):
    for question, (score, possible) in scores.items():
        print(f"{question}: {score:g} / {possible:g}")
    total = sum(score for score, _ in scores.values())
    possible = sum(possible for _, possible in scores.values())
    print(f"total (autograded questions): {total:g} / {possible:g}")
    if result is not None and (result["status"] != "ok" or result["flags"]):
        print(f"status: {result['status']}; flags: {', '.join(result['flags']) or 'none'}")


def main(argv=None):
    global MASTERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command")

    def command(name, help):
        sub = commands.add_parser(name, help=help)
        sub.add_argument("--masters", type=Path, default=None,
                         help="the folder of the masters (default: homework/masters)")
        return sub

    gen = command("generate", "master(s) -> student bundle + autograder(s)")
    gen.add_argument("names", nargs="*", help="assignments (default: every master)")
    gen.add_argument("--no-run-tests", action="store_true",
                     help="do not check the master's solutions against its tests")
    gen.add_argument("--term-seed", type=int, default=None,
                     help="the term's seed (the masters' TERM_SEED line; "
                          "default: as in the master)")
    gen.add_argument("--out", type=Path, default=None,
                     help="the bundle (default: homework/student)")
    gen.add_argument("--zip", action="store_true", help="also write <out>.zip")
    limits = argparse.ArgumentParser(add_help=False)
    limits.add_argument("--term-seed", type=int, default=None,
                        help="default: the seed of the last generate")
    limits.add_argument("--docker", metavar="IMAGE", default=None,
                        help="run each submission in a container of IMAGE (build-docker-image)")
    limits.add_argument("--cell-timeout", type=float, default=300.0, help="seconds per cell")
    limits.add_argument("--call-timeout", type=float, default=120.0,
                        help="seconds per call of a test into the submission")
    grd = commands.add_parser("grade", help="grade one submitted notebook", parents=[limits])
    grd.add_argument("--masters", type=Path, default=None)
    grd.add_argument("name", help="the assignment, e.g. hw1_rademacher")
    grd.add_argument("submission", help="the submitted notebook (.ipynb)")
    cls = commands.add_parser("grade-class", help="grade a folder of submissions", parents=[limits])
    cls.add_argument("--masters", type=Path, default=None)
    cls.add_argument("name")
    cls.add_argument("folder", help="<student>.ipynb or <student>/<any>.ipynb files")
    cls.add_argument("--out", type=Path, default=Path("grades"), help="default: ./grades")
    cls.add_argument("--jobs", type=int, default=2, help="submissions graded at once")
    cls.add_argument("--timeout", type=float, default=1800.0, help="seconds per submission")
    ext = command("extract", "the hand-graded answers, one file per question")
    ext.add_argument("name")
    ext.add_argument("folder")
    ext.add_argument("--out", type=Path, default=Path("answers"), help="default: ./answers")
    img = commands.add_parser("docker-image", help="build the grading image (needs Docker)")
    img.add_argument("--tag", default="lsl-homework")
    args = parser.parse_args(argv)

    if getattr(args, "masters", None) is not None:
        MASTERS = args.masters.resolve()
    if args.command in ("grade", "grade-class"):
        grading = _load("grading")
        limit = grading.Limits(cell=args.cell_timeout, call=args.call_timeout)
    if args.command == "grade":
        _master(args.name)
        scores = grade(args.name, args.submission, args.term_seed, args.docker, limit)
        _print_result(args.name, scores, grade.last_result)
    elif args.command == "grade-class":
        _master(args.name)
        _check_submissions_folder(args.folder)
        rows = grade_class(args.name, args.folder, args.out, args.jobs, args.term_seed, args.docker,
                           limit, args.timeout)
        print(f"{len(rows)} submissions graded: {args.out / 'grades.csv'}, "
              f"{args.out / 'feedback'}/")
    elif args.command == "extract":
        _master(args.name)
        _check_submissions_folder(args.folder)
        for path in extract(args.name, args.folder, args.out):
            print(path)
    elif args.command == "docker-image":
        print(docker_image(args.tag))
    else:
        names = getattr(args, "names", None) or None
        for name in names or []:
            _master(name)
        generate(names, run_tests=not getattr(args, "no_run_tests", False),
                 term_seed=getattr(args, "term_seed", None), out=getattr(args, "out", None),
                 make_zip=getattr(args, "zip", False))


if __name__ == "__main__":
    main()
