"""pytest's settings for every run from the repository: one BLAS/OpenMP thread per process.

One BLAS/OpenMP thread in each test process and in the kernels it starts (nbval's, the
browser test's JupyterLab): the tests run one worker per core (pytest-xdist), and a second
BLAS thread on a core that another process keeps busy makes BLAS-heavy notebooks several
times slower (binder/start sets the same, for the same reason). Set before numpy is
imported; a value already in the environment wins.

Here, at the root, rather than in ``tests/conftest.py`` (the tests' fixtures): pytest reads
this file for any path it is given, so ``python -m pytest notebooks/<one>.ipynb`` gets it
too (lecture 11's model selection took 9 s there with two threads, 3 to 6 s with one).
"""
import os
from collections import Counter

import pytest

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed notebook cell's report shows what the cell put out in this run.

    nbval names only the kind of output that differs ("Unexpected output fields from running
    code: {'stderr'}"); a failure on another machine (CI, a student's laptop) is then
    explained by the text itself: a warning, a message from a library's background thread.
    """
    outcome = yield
    report = outcome.get_result()
    outputs = getattr(item, "test_outputs", None)
    if report.when == "call" and report.failed and outputs:
        report.sections.append(("what the cell put out in this run",
                                "\n".join(_describe_output(output) for output in outputs)))


def _describe_output(output):
    if output.get("output_type") == "stream":
        return f"[{output['name']}]\n{output['text']}"
    if output.get("output_type") == "error":
        return f"[error] {output['ename']}: {output['evalue']}"
    data = output.get("data", {})
    text = data.get("text/plain", "")
    return f"[{output.get('output_type')}: {', '.join(sorted(data))}]\n{text[:2000]}"


# The parts of a whole run, by where their tests live (the first prefix that matches); the
# rest are the library's tests, its doctests and the tools' tests.
PARTS = (
    ("tests/test_browser.py", "browser test"),
    ("tests/test_site.py", "site"),
    ("tests/test_homework", "homework"),
    ("homework/", "homework"),
    ("notebooks/", "lectures under nbval"),
)


def pytest_terminal_summary(terminalreporter):
    """Where a run's time went: the seconds of each part's tests (setup, call and teardown,
    summed over the workers), printed when more than one part ran.

    CI runs every part on two cores, and what each costs says what CI's time is made of (see
    CONTRIBUTING.md, "Running the checks").
    """
    seconds = Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                part = next((name for prefix, name in PARTS if report.nodeid.startswith(prefix)),
                            "library and tools")
                seconds[part] += report.duration
    if len(seconds) > 1:
        terminalreporter.write_sep("-", "seconds in tests by part, summed over the workers")
        terminalreporter.write_line(", ".join(f"{part} {time:.0f}"
                                              for part, time in seconds.most_common())
                                    + f"; in all {sum(seconds.values()):.0f}")
