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


# The tests that run minutes, in the order the workers take them up first: the homework's
# (grading whole classes of submissions), each notebook in JupyterLab, each notebook under
# nbval; the many short tests then fill in, so that the workers end together instead of one
# running a long test alone at the end.
LONG_FIRST = ("homework", "browser")

# Test modules whose tests are independent of each other and share no costly fixture: their
# tests are spread over the workers one by one. Every other module is one xdist group.
SPREAD = ("tests/lib/test_common.py",)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Order and group the tests for pytest-xdist's ``--dist loadgroup --no-loadscope-reorder``
    (``addopts`` in pyproject.toml).

    The long tests go first (``LONG_FIRST``, then the notebooks' cells), in a stable order: with
    ``--no-loadscope-reorder`` the groups go out in the order of the collection. Each notebook's
    cells are one group (nbval runs them in order in one kernel), each test module is one group
    (its module and session fixtures are built once: the site is built once), except the
    modules of ``SPREAD``, whose tests go out one by one; each notebook's browser test (the
    tests taking ``notebook_path``) is a group of its own, so that the notebooks open on both
    workers. Runs before xdist's own hook, which reads the groups.
    """
    def rank(item):
        for position, marker in enumerate(LONG_FIRST):
            if item.get_closest_marker(marker) is not None:
                return position
        return len(LONG_FIRST) if item.path.suffix == ".ipynb" else len(LONG_FIRST) + 1

    items.sort(key=rank)
    for item in items:
        where = item.path.relative_to(item.config.rootpath).as_posix()
        if "notebook_path" in getattr(item, "fixturenames", ()):  # one notebook in JupyterLab
            item.add_marker(pytest.mark.xdist_group(item.name))
        elif not where.startswith(SPREAD):
            item.add_marker(pytest.mark.xdist_group(where))
    _mark_shared_data(items)


def _mark_shared_data(items):
    """The tests whose outcome depends on the course's data sets, marked ``shared_data``.

    ``@pytest.mark.shared_data`` on a test that needs them: it skips, naming
    ``LSL_SHARED_DATA``, where that does not name their folder. ``shared_data(required=False)``
    on a test that runs either way and checks something different in each (the notebooks that
    look for the data sets, ``shared_data_dir()``, are marked so here: their committed outputs
    must hold with and without them). ``python -m pytest -m shared_data`` runs them all, as CI
    does with the data sets after the README's command without them.
    """
    from lsl_lib.datasets import shared_data_dir

    missing = pytest.mark.skip(reason="reads the course's data sets: set LSL_SHARED_DATA to "
                                      "their folder")
    looks_for_data = {}
    for item in items:
        if item.path.suffix == ".ipynb":
            if item.path not in looks_for_data:
                looks_for_data[item.path] = "shared_data_dir(" in item.path.read_text()
            if looks_for_data[item.path]:
                item.add_marker(pytest.mark.shared_data(required=False))
        marker = item.get_closest_marker("shared_data")
        if marker is not None and marker.kwargs.get("required", True) and shared_data_dir() is None:
            item.add_marker(missing)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Stop the run if the groups did not take (every test outside ``SPREAD`` has one).

    pytest-xdist carries a test's group to its scheduler as a suffix ``@<group>`` of the node
    id. A pytest whose node ids no longer take that suffix would spread a notebook's cells over
    the workers (its cells then fail for want of the earlier ones) and build every module
    fixture once per worker, without a word.
    """
    lost = [nodeid for nodeid in ids if not nodeid.startswith(SPREAD) and "@" not in nodeid]
    if lost and node.config.getvalue("dist") == "loadgroup":
        pytest.exit(f"pytest-xdist's loadgroup did not take the groups ({lost[0]} has none): this "
                    "pytest and pytest-xdist do not work together; see the pins in pyproject.toml",
                    returncode=pytest.ExitCode.USAGE_ERROR)


# The parts of a whole run, by where their tests live (the first prefix that matches); the
# rest are the library's tests, its doctests and the tools' tests.
PARTS = (
    ("tests/course/test_browser.py", "browser test"),
    ("tests/course/test_site.py", "site"),
    ("tests/course/test_homework", "homework"),
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
