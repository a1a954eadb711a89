"""Every lecture and homework master seeds what it draws: the same run, the same numbers.

A call to a function or estimator whose ``random_state`` defaults to None draws a new seed
at each run; its printed results then change from run to run, and nbval fails at random on
the lecturer's, the student's or CI's machine. Lecture 15's reference SVM (dual coordinate
descent, no seed) needed 1 354 to 6 175 epochs to reach its tolerance, depending on the
permutation drawn, and now and then more than its 10 000, when it printed a
ConvergenceWarning that its committed output does not have.

The check reads each notebook's code (:func:`unseeded_calls`). scikit-learn's estimators are
left out: those the lectures use (SVC, Ridge, LogisticRegression with their default solvers)
use their ``random_state`` only in options the lectures do not take.
"""
import ast
import importlib
import inspect
import json

import pytest

from conftest import REPO_ROOT

NOTEBOOKS = sorted([*REPO_ROOT.glob("notebooks/*.ipynb"),
                    *REPO_ROOT.glob("homework/masters/*.ipynb")])


def _code(notebook):
    """The notebook's code cells as one module, IPython's magics and shell lines left out."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join(line for cell in cells if cell["cell_type"] == "code"
                     for line in "".join(cell["source"]).splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def _random_state_defaults_to_none(target):
    try:
        parameter = inspect.signature(target).parameters.get("random_state")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.default is None


FITS = ("fit", "partial_fit", "fit_transform", "fit_predict")


def unseeded_calls(source):
    """``(line, call)`` of each draw in ``source`` left to ``random_state=None``.

    A draw is a call to a function of lsl_lib whose ``random_state`` defaults to None, or a
    fit of such an estimator: ``Estimator(...).fit(...)``, or ``model = Estimator(...)`` and
    ``model.fit(...)`` later. An estimator that is only a template, which a wrapper clones
    and seeds (``ParallelDoublyStochasticClassifier(template, random_state=0)``), draws
    nothing itself. A call that passes ``random_state`` or ``**parameters`` is seeded.
    """
    nodes = list(ast.walk(ast.parse(source)))
    imported = {alias.asname or alias.name: getattr(importlib.import_module(node.module),
                                                    alias.name)
                for node in nodes
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lsl_lib")
                for alias in node.names}
    # name -> whether it is an estimator (drawing when fitted) rather than a function
    unseeded = {name: inspect.isclass(target) for name, target in imported.items()
                if _random_state_defaults_to_none(target)}
    fitted = [node.func.value for node in nodes
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in FITS]
    fitted_names = {node.id for node in fitted if isinstance(node, ast.Name)}
    fitted_calls = {id(node) for node in fitted} | {
        id(node.value) for node in nodes
        if isinstance(node, ast.Assign) and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name) and node.targets[0].id in fitted_names}
    return sorted((node.lineno, ast.get_source_segment(source, node)) for node in nodes
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in unseeded
                  and (not unseeded[node.func.id] or id(node) in fitted_calls)
                  and not any(keyword.arg in ("random_state", None)
                              for keyword in node.keywords))


def test_the_check_finds_an_unseeded_call_and_passes_a_seeded_one():
    source = ("from lsl_lib.coordinate_descent import DualCDClassifier\n"
              "from lsl_lib.datasets import linear_teacher\n"
              "from lsl_lib.distributed import ParallelDoublyStochasticClassifier\n"
              "from lsl_lib.doubly_stochastic import DoublyStochasticClassifier\n"
              "X, y = linear_teacher(100, 2)\n"
              "a = DualCDClassifier(C=1.0).fit(X, y)\n"
              "b = DualCDClassifier(C=1.0)\n"
              "b.fit(X, y)\n"
              "c = DualCDClassifier(C=1.0, random_state=0).fit(X, y)\n"
              "d = DualCDClassifier(**params).fit(X, y)\n"
              "template = DoublyStochasticClassifier(n_iter=10)\n"
              "e = ParallelDoublyStochasticClassifier(template, random_state=0).fit(X, y)\n"
              "f = linear_teacher(100, 2, random_state=0)\n")
    assert [line for line, _ in unseeded_calls(source)] == [5, 6, 7]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_every_random_draw_of_the_notebook_is_seeded(notebook):
    assert unseeded_calls(_code(notebook)) == []
