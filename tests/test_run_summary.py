"""The summary of a whole run: the seconds of each part's tests (root ``conftest.py``).

Each run is a pytest of its own, in a subprocess: its test files have the names of the suite's
(``test_browser.py``), which this process may have imported already."""
from pathlib import Path

pytest_plugins = "pytester"

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def test_each_part_gets_the_seconds_of_its_own_tests(pytester):
    pytester.makeconftest(ROOT_CONFTEST.read_text(encoding="utf-8"))
    pytester.mkdir("tests")
    pytester.mkdir("notebooks")
    slow = "import time\n\ndef test_slow():\n    time.sleep(1.2)\n"
    pytester.makepyfile(**{"tests/test_browser": slow,
                           "notebooks/test_cells": "def test_cell():\n    pass\n",
                           "tests/test_losses": slow + "\ndef test_fast():\n    pass\n"})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=4)
    lines = result.stdout.lines
    line = lines[next(i for i, text in enumerate(lines)
                      if "seconds in tests by part, summed over the workers" in text) + 1]
    parts = dict(part.rsplit(" ", 1) for part in line.split("; ")[0].split(", "))
    assert set(parts) == {"browser test", "library and tools", "lectures under nbval"}
    assert parts["browser test"] == "1" and parts["library and tools"] == "1"
    assert parts["lectures under nbval"] == "0"
    assert line.endswith("; in all 2")


def test_a_run_of_one_part_prints_no_summary(pytester):
    pytester.makeconftest(ROOT_CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1)
    assert "seconds in tests by part" not in result.stdout.str()
