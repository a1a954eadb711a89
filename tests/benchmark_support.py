"""Load a script of ``benchmarks/`` in a test, from its path, without touching ``sys.path``.

A benchmark imports its neighbour ``common`` as a run of ``python benchmarks/<name>.py`` finds
it (beside the script): ``common`` is loaded from its path and offered under its name while the
benchmark loads, and withdrawn after.
"""
import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_benchmark(name):
    """``benchmarks/<name>.py`` as a module named ``name``."""
    saved = sys.modules.get("common")
    sys.modules["common"] = _load("common")
    try:
        return _load(name)
    finally:
        if saved is None:
            del sys.modules["common"]
        else:
            sys.modules["common"] = saved
