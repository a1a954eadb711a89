"""Shared pytest configuration.

The browser tests (marker ``browser``, tests/course/test_browser.py) use what is defined here:

* ``notebook_path``: a test taking this argument is parametrized over the notebooks,
  ``<notebooks dir>/*.ipynb`` globbed at collection time (so new notebooks are covered);
* ``notebooks_dir``: that folder, ``<repo>/notebooks`` unless the environment variable
  ``LSL_NOTEBOOKS_DIR`` points elsewhere (handy to try the browser test on scratch notebooks);
* ``lab_server``: one JupyterLab server for the session, serving a temporary copy of that folder;
* ``browser``: one headless Chromium for the session (Debian's, at ``/usr/bin/chromium`` unless
  ``LSL_CHROMIUM`` says otherwise); tests using it skip if Chromium or Playwright is missing.

The bad-input tests use ``forbid``: ``forbid(module, *names)`` replaces each named function of
``module`` (or class) with one raising ``AssertionError("<module>.<name> ran")``, for the rest of
the test, so that an error must be raised before that code runs.

The figure tests (tests/lib/test_plotting*.py) use ``no_pyplot_figures``: a plotting function must
build its Figure without pyplot, so none is left behind when a widget redraws.

With numba missing or disabled (``LSL_NUMBA=0``), a test that asks for ``backend='numba'``
is reported as skipped, not failed: the rest of the suite then checks the numpy path alone.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

# One BLAS thread per process: set by the repository's root conftest.py, before numpy loads.
import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = Path(os.environ.get("LSL_NOTEBOOKS_DIR", REPO_ROOT / "notebooks")).resolve()
CHROMIUM = Path(os.environ.get("LSL_CHROMIUM", "/usr/bin/chromium"))

LAB_START_TIMEOUT_S = 60

# JupyterLab user settings, keyed by plugin: no news or update-check prompts, no autosave, every
# cell attached to the DOM (the default windowing mode skips rendering cells outside the viewport),
# and no blank space after the last cell (so a screenshot can be sized to the notebook).
LAB_USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none", "scrollPastEnd": False},
}


def pytest_generate_tests(metafunc):
    # Globbed at collection time; with no notebook, pytest reports the test as skipped ("empty
    # parameter set") and test_browser.py::test_notebooks_exist fails.
    if "notebook_path" in metafunc.fixturenames:
        notebooks = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
        metafunc.parametrize("notebook_path", notebooks, ids=[nb.stem for nb in notebooks])


@pytest.fixture(scope="session")
def notebooks_dir() -> Path:
    return NOTEBOOKS_DIR


@dataclass(frozen=True)
class LabServer:
    url: str  # http://127.0.0.1:<port>, no trailing slash
    token: str

    def api(self, method: str, path: str):
        """Call the server's REST API (``path`` like ``/api/sessions``); return the decoded JSON."""
        request = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory, notebooks_dir) -> LabServer:
    """A JupyterLab server isolated from the user's Jupyter setup and from the repository.

    It serves a copy of the notebooks folder, so running them never modifies the committed files,
    and keeps its config, runtime files, settings and workspaces in a temporary directory.
    """
    tmp = tmp_path_factory.mktemp("jupyterlab")
    root = tmp / "root"
    shutil.copytree(notebooks_dir, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    settings_dir = tmp / "config" / "lab" / "user-settings"
    for plugin, settings in LAB_USER_SETTINGS.items():
        path = settings_dir / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))

    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_DATA_DIR=str(tmp / "data"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(settings_dir),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
        IPYTHONDIR=str(tmp / "ipython"),
        # The kernels import lsl_lib from the repository: no bytecode written into it. numba's
        # cache stays where the nbval run and a user's session keep it (lsl_lib/**/__pycache__):
        # a notebook's fast paths are compiled once per test run, not once more here.
        PYTHONDONTWRITEBYTECODE="1",
    )
    port, token = _free_port(), secrets.token_hex(24)
    command = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        # no network: no news feed, no update check
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # window.jupyterapp, so that tests can run JupyterLab commands and read the kernel's state
        "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    log_path = tmp / "jupyterlab.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, env=env, cwd=tmp, stdout=log, stderr=subprocess.STDOUT)
    server = LabServer(url=f"http://127.0.0.1:{port}", token=token)
    try:
        deadline = time.monotonic() + LAB_START_TIMEOUT_S
        while True:
            try:
                server.api("GET", "/api/status")  # needs the token, so this also checks it
                break
            except OSError:  # not listening yet (URLError, ConnectionError, timeout)
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        f"JupyterLab did not start within {LAB_START_TIMEOUT_S} s (exit code "
                        f"{process.poll()}); its log:\n{log_path.read_text()[-5000:]}"
                    )
                time.sleep(0.2)
        yield server
    finally:
        stop_process(process)


def stop_process(process):
    """Terminate a server started by a test, and kill it if it does not stop within 15 s."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


#: Ctrl-C must stop a fit within this many seconds.
INTERRUPT_SECONDS = 1.0

# A child started from a background job of a shell script (CI runs a test session so) inherits
# SIGINT ignored, and Python then installs no KeyboardInterrupt handler: the child sets it, as
# an interactive Python or Jupyter's kernel has it.
_SIGINT_CHILD = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from sklearn.utils.validation import check_is_fitted
from sklearn.exceptions import NotFittedError
{setup}
print("ready", flush=True)
try:
    {fit}
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), flush=True)
    {after}
"""


def assert_sigint_stops_fit(setup, fit, after="", delay=0.5, limit=60.0):
    """Run ``setup`` (imports, data, a short warm-up fit that compiles) in a child process,
    then the long ``fit`` statement; send SIGINT ``delay`` seconds after it started and
    assert that the child caught ``KeyboardInterrupt`` within :data:`INTERRUPT_SECONDS`
    (its ``time.monotonic()`` at the catch against ours at the kill) and that the
    ``after`` statements (checks on the estimator) passed. Returns the seconds taken."""
    import signal
    import textwrap

    code = _SIGINT_CHILD.format(setup=textwrap.dedent(setup), fit=fit,
                                after=after or "pass")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "ready", f"the child did not start: {line!r} {child.stderr.read()}"
        time.sleep(delay)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=limit)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    words = out.split()
    assert words[:1] == ["interrupted"], f"the fit was not interrupted: {out!r} {err[-2000:]}"
    assert child.returncode == 0, err[-2000:]
    seconds = float(words[1]) - sent
    assert seconds < INTERRUPT_SECONDS, f"Ctrl-C took {seconds:.2f} s to stop the fit"
    return seconds


def svc_and_estimator_on_shared(name, estimator, n_train=2000, n_test=3000):
    """Test accuracy of ``SVC()`` and of ``estimator``, both fitted on the same random
    ``n_train`` rows of the shared set ``name`` and scored on ``n_test`` rows of its test split."""
    from sklearn.svm import SVC

    from lsl_lib.datasets import load_shared

    X, y = load_shared(name)
    X_test, y_test = load_shared(name, "test")
    rng = np.random.default_rng(0)
    train, test = rng.permutation(X.shape[0])[:n_train], rng.permutation(X_test.shape[0])[:n_test]
    return tuple(model.fit(X[train], y[train]).score(X_test[test], y_test[test])
                 for model in (SVC(), estimator))


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium driven by Playwright (Debian's build: no `playwright install` needed)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed; `pip install playwright` to run browser tests")
    if not CHROMIUM.exists():
        pytest.skip(
            f"Chromium not found at {CHROMIUM}; install Debian's chromium to run browser tests"
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic",
            ],
        )  # fmt: skip
        yield chromium
        chromium.close()


@pytest.fixture
def forbid(monkeypatch):
    """``forbid(module, *names)``: each ``module.name`` raises ``AssertionError`` if it runs
    (restored after the test, as with ``monkeypatch``)."""
    def forbid(module, *names):
        for name in names:
            monkeypatch.setattr(module, name, _must_not_run(module, name))
    return forbid


def _must_not_run(module, name):
    def must_not_run(*args, **kwargs):
        raise AssertionError(f"{module.__name__}.{name} ran")
    return must_not_run


@pytest.fixture
def no_pyplot_figures():
    """Fail a test that leaves a pyplot figure behind (plotting must not use pyplot)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.close("all")
    yield
    assert plt.get_fignums() == []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Report as skipped a test that failed only because numba is unavailable."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None and call.excinfo.errisinstance(ImportError):
        from lsl_lib._core.backend import numba_available
        if not numba_available() and "backend='numba' was requested" in str(call.excinfo.value):
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0,
                               "Skipped: numba is not importable or LSL_NUMBA=0 disables it")


def x_extent(patch):
    """(left, right) of a patch in data coordinates: ``axvspan`` gives a ``Rectangle`` from
    matplotlib 3.9 on and a ``Polygon`` before (3.8, the floor of requirements.txt)."""
    if hasattr(patch, "get_width"):
        return patch.get_x(), patch.get_x() + patch.get_width()
    xs = patch.get_xy()[:, 0]
    return float(xs.min()), float(xs.max())
