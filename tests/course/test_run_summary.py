"""The summary of a whole run: the seconds of each part's tests (the root ``conftest.py``)."""
import importlib.util
from pathlib import Path

import pytest

ROOT_CONFTEST = Path(__file__).resolve().parents[2] / "conftest.py"


def _root_conftest():
    # under a name of its own: pytest has loaded the file as a plugin, and tests/ has a
    # conftest.py too
    spec = importlib.util.spec_from_file_location("lsl_root_conftest", ROOT_CONFTEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Reporter:
    """What the hook uses of pytest's terminal reporter: its reports, and two ways to print."""

    def __init__(self, reports):
        self.stats, self.lines = {}, []
        for report in reports:  # as pytest files them: a passed setup or teardown under ""
            category = report.outcome if report.when == "call" else ""
            self.stats.setdefault(category, []).append(report)
        self.stats.setdefault("warnings", []).append("a warning: not a test's report")

    def write_sep(self, sep, title):
        self.lines.append(f"{sep * 3} {title} {sep * 3}")

    def write_line(self, line):
        self.lines.append(line)


def _report(nodeid, when, duration, outcome="passed"):
    path = nodeid.split("::")[0]
    return pytest.TestReport(nodeid, (path, 0, nodeid), {}, outcome, None, when, duration=duration)


def test_each_part_gets_the_seconds_of_its_own_tests():
    browser = "tests/course/test_browser.py::test_notebook_in_jupyterlab[02_pegasos]"
    reports = [
        _report(browser, "setup", 2.0),
        _report(browser, "call", 40.0),
        _report("tests/course/test_site.py::test_the_site_holds_the_course", "setup", 300.0),
        _report("tests/course/test_site.py::test_the_site_holds_the_course", "call", 1.0, "failed"),
        _report("tests/course/test_homework_class.py::test_a_class", "call", 100.0),
        _report("homework/masters/hw1_rademacher.ipynb::Cell 3", "call", 4.0),
        _report("notebooks/02_pegasos.ipynb::Cell 1", "call", 5.5),
        _report("notebooks/02_pegasos.ipynb::Cell 2", "call", 0.25, "skipped"),
        _report("tests/lib/test_losses.py::test_hinge", "call", 0.5),
        _report("lsl_lib/kernels.py::lsl_lib.kernels.rbf", "call", 0.25),
        _report("tests/lib/test_losses.py::test_hinge", "teardown", 0.25),
    ]
    reporter = _Reporter(reports)
    _root_conftest().pytest_terminal_summary(reporter)
    assert reporter.lines == [
        "--- seconds in tests by part, summed over the workers ---",
        "site 301, homework 104, browser test 42, lectures under nbval 6, library and tools 1;"
        " in all 454",
    ]


def test_a_run_of_one_part_prints_no_summary():
    reporter = _Reporter([_report("tests/lib/test_losses.py::test_hinge", "call", 3.0)])
    _root_conftest().pytest_terminal_summary(reporter)
    assert reporter.lines == []
