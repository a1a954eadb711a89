"""What the homework tests share: homework/build.py and its grader, loaded from their files.

``homework/`` is not a package; its modules are loaded by path, once (``build._load``).
"""
import importlib.util
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]


def module(name, path):
    """The Python file ``path`` as a module called ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


build = module("homework_build", ROOT / "homework" / "build.py")
grading = build._load("grading")
sandbox = build._load("sandbox")
NAMES = build.masters()


def assignment(name, term_seed=None):
    """The master ``name`` as the grader reads it."""
    return grading.load_assignment(build.MASTERS / f"{name}.ipynb", term_seed)


def wrong_answers(name):
    """``[(description, question, old, new)]`` of ``tests/course/wrong_answers/<name>.py``."""
    return module(f"wrong_answers_{name}",
                  Path(__file__).parent / "wrong_answers" / f"{name}.py").WRONG_ANSWERS


def with_wrong_answer(nb, old, new):
    """A copy of the notebook ``nb`` with ``old`` replaced by ``new`` in the code cell holding
    it."""
    nb = nbformat.reads(nbformat.writes(nb), as_version=4)
    index = next(i for i, cell in enumerate(nb.cells)
                 if cell.cell_type == "code" and old in cell.source)
    nb.cells[index].source = nb.cells[index].source.replace(old, new)
    return nb


def without_experiments(nb):
    """A copy of the solutions notebook ``nb`` without the code cells that no test needs: after
    the first solution cell, only the solution cells and the ``grader-setup`` cells are kept (the
    figures and the experiments go). A submission that differs from the solutions only in an
    answer cell is graded the same, faster."""
    nb = nbformat.reads(nbformat.writes(nb), as_version=4)
    first = next(i for i, cell in enumerate(nb.cells) if _solution(cell))
    nb.cells = [cell for i, cell in enumerate(nb.cells) if cell.cell_type != "code"
                or i < first or _solution(cell) or "grader-setup" in cell.metadata.get("tags", [])]
    return nb


def _solution(cell):
    return "otter_assign_solution_cell" in cell.metadata.get("tags", [])
