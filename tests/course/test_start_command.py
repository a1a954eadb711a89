"""README's start command serves the whole repository, so the lectures' links to lsl_lib/ open.

`jupyter lab notebooks/00_start_here.ipynb` alone would serve notebooks/ only (jupyter_server
makes the folder of the file it opens the root); lsl_lib/_jupyter/jupyter_server_config.py,
which requirements.txt installs into the environment, keeps the repository as the root.
"""
import os
import re
import secrets
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import REPO_ROOT, _free_port, stop_process

START_TIMEOUT_S = 60


def _start_command():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"python -m pip install -r requirements\.txt && "
                      r"(jupyter lab [^`\n]*)", readme)
    assert match, "README.md has no start command `... && jupyter lab ...`"
    return shlex.split(match.group(1))


def _status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_readme_start_command_opens_the_start_notebook_and_the_library(tmp_path):
    command = _start_command()
    assert command[-1] == "notebooks/00_start_here.ipynb"
    config = Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.py"
    assert config.is_file(), f"{config} is missing: run `python -m pip install -r requirements.txt`"

    port, token = _free_port(), secrets.token_hex(24)
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    env.update(JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_DATA_DIR=str(tmp_path / "data"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), PYTHONDONTWRITEBYTECODE="1")
    options = ["--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1", f"--port={port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    # `jupyter lab ...` exactly as README.md gives it, with options that keep it quiet and local
    argv = [sys.executable, "-m", "jupyter", *command[1:2], *options, *command[2:]]
    log_path = tmp_path / "jupyterlab.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(argv, cwd=REPO_ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while _status_or_none(f"{base}/api/status?token={token}") != 200:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start (exit code {process.poll()}); its log:\n"
                            f"{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        for path in ("notebooks/00_start_here.ipynb", "lsl_lib/pegasos/_algorithm.py"):
            assert _status(f"{base}/api/contents/{path}?content=0&token={token}") == 200, (
                f"{path} is not served: the server's root is not the repository\n"
                f"{log_path.read_text()[-3000:]}")
    finally:
        stop_process(process)


def _status_or_none(url):
    try:
        return _status(url)
    except OSError:  # not listening yet
        return None


def test_binder_link_is_named_in_pyproject_and_used_by_the_badge_start_here_and_the_site(tmp_path):
    """pyproject.toml's [project.urls] Binder names the repository on GitHub once; 00_start_here's
    link cell and the website read it there, README.md's badge holds the same URL, and the link
    opens a notebook that exists."""
    import tomllib

    import nbformat
    from IPython.display import Markdown

    from book.build import repository

    with open(REPO_ROOT / "pyproject.toml", "rb") as file:
        url = tomllib.load(file)["project"]["urls"]["Binder"]
    match = re.fullmatch(r"https://mybinder\.org/v2/gh/([\w.-]+)/([\w.-]+)/HEAD"
                         r"\?urlpath=lab/tree/(\S+)", url)
    assert match, url
    assert (REPO_ROOT / match.group(3)).is_file()
    assert repository() == f"{match.group(1)}/{match.group(2)}"
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(re.findall(r"mybinder\.org/v2/gh/", readme)) == 1, "one Binder link in README"
    assert re.search(r"^\[binder\]: (\S+)$", readme, re.MULTILINE).group(1) == url, (
        "README.md's [binder] link differs from pyproject.toml's [project.urls] Binder")
    assert "[![Binder](https://mybinder.org/badge_logo.svg)][binder]" in readme
    notebook = nbformat.read(REPO_ROOT / "notebooks" / "00_start_here.ipynb", as_version=4)
    cells = [c for c in notebook.cells if c.cell_type == "code" and "pyproject.toml" in c.source]
    assert len(cells) == 1
    namespace = {}
    cwd = os.getcwd()
    os.chdir(tmp_path)  # from any folder: the browser test runs a copy of the notebooks elsewhere
    try:
        exec(compile(cells[0].source, "00_start_here", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert namespace["binder"] == url
    shown = eval(cells[0].source.strip().splitlines()[-1], namespace)
    assert isinstance(shown, Markdown) and f"]({url})" in shown.data
