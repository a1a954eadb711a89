"""Every topic module shows its public API and nothing else (CONTRIBUTING.md §1).

``dir(module)`` (and Jupyter's tab completion) lists ``__all__``; every function, class or
constant a module defines without a leading underscore is in it; every name of ``__all__``
exists. Compiled loops are private (``_..._numba...``) and no topic module imports another
topic module's underscored names or a later lecture's module.
"""
import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

import lsl_lib

LIBRARY = Path(lsl_lib.__file__).parent
# the lectures' order (CONTRIBUTING.md §1); datasets and theory may be used by every topic
ORDER = ["losses", "subgradients", "pegasos", "kernels", "kernel_pegasos", "online_kernel",
         "stochastic_gradient", "coordinate_descent", "random_features", "nystroem", "fastfood",
         "elm", "random_binning", "kitchen_sinks", "doubly_stochastic", "budgeted", "distributed"]
TOPICS = [name for name in lsl_lib._SUBMODULES if name not in ("plotting", "widgets")]


def _files(name):
    path = LIBRARY / name
    return sorted(path.glob("*.py")) if path.is_dir() else [LIBRARY / f"{name}.py"]


@pytest.mark.parametrize("name", TOPICS)
def test_dir_lists_the_public_api_only(name):
    module = importlib.import_module(f"lsl_lib.{name}")
    assert set(dir(module)) == set(module.__all__)
    assert len(module.__all__) == len(set(module.__all__))
    for public in module.__all__:
        assert hasattr(module, public), public


@pytest.mark.parametrize("name", ["plotting", "widgets"])
def test_the_figure_and_panel_layers_list_their_api_only(name):
    module = importlib.import_module(f"lsl_lib.{name}")
    assert set(dir(module)) == set(module.__all__)
    assert all(callable(getattr(module, public)) or public == "AXIS_LABELS"
               for public in module.__all__)
    defined = [value for value in vars(module).values()
               if getattr(value, "__module__", None) == module.__name__]
    assert all(value.__name__ in module.__all__ for value in defined
               if not value.__name__.startswith("_"))


def test_each_figure_module_lists_its_figures_and_plotting_has_them_all():
    import lsl_lib.plotting
    for path in sorted((LIBRARY / "_plotting").glob("[!_]*.py")) + [LIBRARY / "_plotting/_base.py"]:
        module = importlib.import_module(f"lsl_lib._plotting.{path.stem}")
        defined = {name for name, value in vars(module).items() if not name.startswith("_")
                   and inspect.isfunction(value) and value.__module__ == module.__name__}
        assert defined <= set(module.__all__) <= set(lsl_lib.plotting.__all__), path.name


@pytest.mark.parametrize("name", TOPICS)
def test_every_public_definition_is_exported(name):
    module = importlib.import_module(f"lsl_lib.{name}")
    for attribute, value in vars(module).items():
        if attribute.startswith("_") or inspect.ismodule(value):
            continue
        defined_in = getattr(value, "__module__", None)
        if defined_in is not None and (defined_in == module.__name__
                                       or defined_in.startswith(module.__name__ + ".")):
            assert attribute in module.__all__, f"{name}.{attribute} is public but not exported"


# references that keep the bare name the lecture teaches them by (CONTRIBUTING.md §2)
LECTURE_NAMES = {"block_features", "predict_blocks", "lambda_and_penalty"}


def _table_rows(docstring):
    """(reference, compiled) cells of the rows of the RST simple tables of a docstring: its
    last two columns, cut where the table's border puts them."""
    border = re.compile(r"=+( +=+)+")
    table = []
    for line in (docstring or "").splitlines() + [""]:
        if table and not line.strip():
            starts = [m.start() for m in re.finditer(r"=+", table[-1])]
            edges = [i for i, row in enumerate(table) if border.fullmatch(row)]
            for row in table[edges[-2] + 1:edges[-1]]:
                yield row[starts[-2]:starts[-1]].strip(), row[starts[-1]:].strip()
            table = []
        elif table or border.fullmatch(line):
            table.append(line)


def unpaired_compiled_loops(sources):
    """The compiled loops of one topic (the sources of its files) that break CONTRIBUTING.md
    §2: public ones, and ``_<stem>_numba<suffix>`` ones with no ``<stem>_numpy<suffix>``
    in the topic, no lecture name ``<stem><suffix>``, and no row of a docstring table
    whose reference is "no reference", "none: ..." or a ``Class.method`` of the topic."""
    trees = [ast.parse(source) for source in sources]
    defined, compiled, references = set(), [], {}
    for tree in trees:
        for reference, twin in _table_rows(ast.get_docstring(tree)):
            references[twin.split()[0].strip("`") if twin else ""] = reference
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                defined.update(f"{node.name}.{item.name}" for item in node.body
                               if isinstance(item, ast.FunctionDef))
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
            decorators = [getattr(d, "id", getattr(d, "attr", None))
                          for d in getattr(node, "decorator_list", [])]
            if isinstance(node, ast.FunctionDef) and "jit" in decorators:
                compiled.append(node.name)
    unpaired = []
    for name in compiled:
        match = re.fullmatch(r"_(\w+?)_numba(\w*)", name)
        if match is None:
            unpaired.append(name)
            continue
        stem, suffix = match.groups()
        reference = re.sub(r"^:\w+:|`", "", references.get(name, ""))
        if not (f"{stem}_numpy{suffix}" in defined
                or f"{stem}{suffix}" in LECTURE_NAMES & defined
                or reference.startswith(("no reference", "none:"))
                or ("." in reference and reference in defined)):
            unpaired.append(name)
    return unpaired


@pytest.mark.parametrize("name", TOPICS)
def test_compiled_loops_are_private_and_named_for_their_twin(name):
    sources = [path.read_text(encoding="utf-8") for path in _files(name)]
    assert unpaired_compiled_loops(sources) == []


def test_the_pairing_check_finds_a_compiled_loop_without_a_twin():
    loop = "from lsl_lib._core.backend import jit\n@jit\ndef _step_numba_chunk(w):\n    pass\n"
    table = ("==========  ============  ====================\n"
             "paper       reference     compiled\n"
             "==========  ============  ====================\n"
             "line 3      {}  ``_step_numba_chunk``\n"
             "==========  ============  ====================\n")
    assert unpaired_compiled_loops([loop]) == ["_step_numba_chunk"]
    assert unpaired_compiled_loops([loop, "def step_numpy_chunk(w):\n    pass\n"]) == []
    assert unpaired_compiled_loops([loop, "def step_chunk(w):\n    pass\n"]) == [
        "_step_numba_chunk"]  # a bare name only for the lectures' names
    assert unpaired_compiled_loops([f'"""{table.format("no reference")}"""\n' + loop]) == []
    assert unpaired_compiled_loops([f'"""{table.format("``step``    ")}"""\n' + loop]) == [
        "_step_numba_chunk"]
    assert unpaired_compiled_loops(["@jit\ndef step_numba(w):\n    pass\n"]) == ["step_numba"]


def test_the_lectures_names_are_the_ones_contributing_lists():
    contributing = (LIBRARY.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for name in LECTURE_NAMES:
        assert f"`{name}`" in contributing, name


@pytest.mark.parametrize("name", TOPICS)
def test_imports_go_down_the_lectures_and_never_to_private_names(name):
    rank = ORDER.index(name) if name in ORDER else None
    for path in _files(name):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module
                    and node.module.startswith("lsl_lib.")):
                continue
            other = node.module.split(".")[1]
            if other in ("_core", name) or other not in ORDER:
                continue
            private = [alias.name for alias in node.names if alias.name.startswith("_")]
            assert not private, (path.name, node.module, private)
            if rank is not None:
                assert ORDER.index(other) <= rank, f"{path.name} imports the later lecture {other}"


def test_no_library_file_is_much_above_800_lines():
    for path in LIBRARY.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 850, f"{path.relative_to(LIBRARY)}: {lines} lines"


def test_core_imports_no_topic_module():
    for path in (LIBRARY / "_core").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lsl_lib."):
                assert node.module.startswith("lsl_lib._core"), (path.name, node.module)
