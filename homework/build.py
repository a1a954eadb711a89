#!/usr/bin/env python
"""Generate the homework from its masters, and grade a submission (otter-grader).

    python homework/build.py                      # every master -> student notebook + autograder
    python homework/build.py generate hw1_rademacher [--no-run-tests]
    python homework/build.py grade hw1_rademacher path/to/submission.ipynb

``generate`` runs ``otter assign`` on each master ``homework/masters/<name>.ipynb`` (all of them
when no name is given) and writes

* ``homework/student/<name>/``: the student notebook (solutions replaced by prompts, public
  tests in its metadata, no outputs) and the data files the master lists; committed, so that a
  student on Binder opens it;
* ``homework/autograder/<name>/<name>-autograder_<timestamp>.zip``: the autograder (public and
  hidden tests), with ``<name>.ipynb``, the master's solutions without the tests. Git-ignored:
  it holds the hidden tests and a timestamp, and one command rebuilds it.

By default ``otter assign`` also runs every test against the solutions, so a master whose
solution fails its own tests is not generated; ``--no-run-tests`` skips that.

Otter gives the cells it adds (the init cell, the ``grader.check`` cells, the answer cells)
random ids; they are replaced by ids derived from the cell's position and content, so that
generating twice gives the same files and the committed student notebooks can be compared
with a fresh generation (``tests/test_homework.py`` does).

``grade`` runs ``otter run`` (no Docker: the submission runs in this Python environment) on a
submitted notebook against the assignment's autograder, generating the autograder first if it
is missing, and prints the score of each autograded question and the total. Written answers
(questions with ``manual: true``) are graded by a person and are not in that total.
"""
import argparse
import contextlib
import hashlib
import io
import re
import shutil
import tempfile
import warnings
from pathlib import Path

import nbformat

HOMEWORK = Path(__file__).resolve().parent
MASTERS = HOMEWORK / "masters"
STUDENT = HOMEWORK / "student"
AUTOGRADER = HOMEWORK / "autograder"


def masters():
    """The assignment names, one per master notebook ``homework/masters/<name>.ipynb``, sorted."""
    return sorted(path.stem for path in MASTERS.glob("*.ipynb"))


def _master(name):
    path = MASTERS / f"{name}.ipynb"
    if not path.is_file():
        raise SystemExit(f"no master {path.relative_to(HOMEWORK.parent)}; "
                         f"the masters are: {', '.join(masters()) or 'none'}")
    return path


TERM_SEED_LINE = re.compile(r"^TERM_SEED = \d+", re.M)


def with_term_seed(master, seed, folder):
    """Copy of the master notebook ``master`` in ``folder`` with its term's seed set to ``seed``.

    The master's cell tagged ``grader-setup`` that holds the line ``TERM_SEED = <int>`` derives
    the term's data and parameters from it; this rewrites that integer, so that a lecturer's
    seed gives a variant whose numbers differ from every other term's.
    """
    nb = nbformat.read(master, as_version=4)
    found = [cell for cell in nb.cells
             if cell.cell_type == "code" and TERM_SEED_LINE.search(cell.source)]
    if len(found) != 1:
        raise SystemExit(f"{master.name}: expected one code cell with a line 'TERM_SEED = <int>', "
                         f"found {len(found)}")
    found[0].source = TERM_SEED_LINE.sub(f"TERM_SEED = {int(seed)}", found[0].source, count=1)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / master.name)
    return folder / master.name


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
    master = _master(name)
    with contextlib.ExitStack() as stack:
        if term_seed is not None:
            master = with_term_seed(master, term_seed, stack.enter_context(tempfile.TemporaryDirectory()))
        log = stack.enter_context(_quiet_otter())
        try:
            otter_assign(str(master), str(result), no_pdfs=True, no_run_tests=not run_tests)
        except Exception as error:
            raise RuntimeError(f"otter assign failed on {name}: {error}\n"
                               f"{log.getvalue()}") from error
    normalise_ids(result / "student" / f"{name}.ipynb")
    return result


def generate(names=None, run_tests=True, term_seed=None):
    """Write ``homework/student/<name>/`` and ``homework/autograder/<name>/`` for each name."""
    for name in names or masters():
        with tempfile.TemporaryDirectory() as tmp:
            result = assign(name, Path(tmp) / name, run_tests=run_tests, term_seed=term_seed)
            for source, target in [(result / "student", STUDENT / name),
                                   (result / "autograder", AUTOGRADER / name)]:
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target)
        print(f"{name}: {(STUDENT / name).relative_to(HOMEWORK.parent)}/, "
              f"{autograder_zip(name).relative_to(HOMEWORK.parent)}")


def autograder_zip(name):
    """The autograder zip of ``name``, generated if missing."""
    zips = sorted((AUTOGRADER / name).glob(f"{name}-autograder_*.zip"))
    if not zips:
        generate([name], run_tests=False)
        zips = sorted((AUTOGRADER / name).glob(f"{name}-autograder_*.zip"))
    return zips[-1]


def grade(name, submission, autograder=None):
    """Grade the notebook ``submission`` with otter's autograder of ``name`` (``otter run``).

    Returns ``{question: (score, possible)}`` over the autograded questions. The submission
    runs in a fresh kernel of this environment; a cell that raises does not stop the run
    (its question scores what its tests give, usually 0).
    """
    from otter.run import main as otter_run

    autograder = Path(autograder) if autograder is not None else autograder_zip(name)
    with _quiet_otter() as log:
        results = otter_run(str(Path(submission).resolve()), autograder=str(autograder),
                            output_dir=None, no_logo=True)
    if results.catastrophic_error is not None:
        raise RuntimeError(f"otter run could not grade {submission}: "
                           f"{results.catastrophic_error}\n{log.getvalue()}")
    return {question: (float(test.score), float(test.possible))
            for question, test in sorted(results.results.items())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command")
    gen = commands.add_parser("generate", help="master(s) -> student notebook(s) + autograder(s)")
    gen.add_argument("names", nargs="*", help="assignments (default: every master)")
    gen.add_argument("--no-run-tests", action="store_true",
                     help="do not check the master's solutions against its tests")
    gen.add_argument("--term-seed", type=int, default=None,
                     help="the term's seed (the masters' TERM_SEED line; default: as in the master)")
    grd = commands.add_parser("grade", help="grade one submitted notebook")
    grd.add_argument("name", help="the assignment, e.g. hw1_rademacher")
    grd.add_argument("submission", help="the submitted notebook (.ipynb)")
    args = parser.parse_args(argv)

    if args.command == "grade":
        _master(args.name)
        scores = grade(args.name, args.submission)
        for question, (score, possible) in scores.items():
            print(f"{question}: {score:g} / {possible:g}")
        total = sum(score for score, _ in scores.values())
        possible = sum(possible for _, possible in scores.values())
        print(f"total (autograded questions): {total:g} / {possible:g}")
    else:
        names = getattr(args, "names", None) or None
        for name in names or []:
            _master(name)
        generate(names, run_tests=not getattr(args, "no_run_tests", False),
                 term_seed=getattr(args, "term_seed", None))


if __name__ == "__main__":
    main()
