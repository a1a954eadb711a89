"""Every topic module shows its public API and nothing else (CONTRIBUTING.md §1).

``dir(module)`` (and Jupyter's tab completion) lists ``__all__``; every function, class or
constant a module defines without a leading underscore is in it; every name of ``__all__``
exists. Compiled loops are private (``_..._numba...``) and no topic module imports another
topic module's underscored names or a later lecture's module.
"""
import ast
import importlib
import inspect
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


@pytest.mark.parametrize("name", TOPICS)
def test_compiled_loops_are_private_and_named_for_their_twin(name):
    for path in _files(name):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            decorators = [getattr(d, "id", getattr(d, "attr", None))
                          for d in getattr(node, "decorator_list", [])]
            if isinstance(node, ast.FunctionDef) and "jit" in decorators:
                assert node.name.startswith("_") and "_numba" in node.name, (path.name, node.name)


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
