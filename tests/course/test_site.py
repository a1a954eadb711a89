"""The course's website, built by ``python -m book.build`` and read in headless Chromium.

The site is built once per session (the build is incremental: a second run reuses the static
panels' frames and Sphinx's environment), served by a plain HTTP server on 127.0.0.1, and opened
in Chromium with every request that leaves localhost blocked and counted. Every page must load
with no console error, no blocked or failed request, its math typeset and every image loaded;
every static panel's control must change the figure shown. Screenshots go to
``tests/course/screenshots/site_*.png`` beside the JupyterLab test's.

    python -m pytest -m browser tests/course/test_site.py

Needs Chromium and Playwright (else it skips, as the other browser tests do) and npm (the build
installs MathJax, require.js and the widget manager from the npm registry into the site).
"""
from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "book" / "_build" / "html"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
VIEWPORT = {"width": 1400, "height": 1000}
# The build prints a line per phase and per static panel rendered: a period this long without
# one, it has stalled. Its total time is not bounded here: it depends on the machine's load (CI
# runs other tests beside it); the build's time alone is measured and reported, not tested.
BUILD_STALL_S = 600
LOAD_TIMEOUT_MS = 30_000
LECTURES = sorted(path.stem for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
STUDENT_NOTEBOOKS = sorted(
    path.stem for path in (ROOT / "homework" / "student").glob("*/*.ipynb")
)
MASTERS = sorted(path.stem for path in (ROOT / "homework" / "masters").glob("*.ipynb"))

# What is left of a page's text once code, outputs and typeset math are removed: TeX that MathJax
# did not typeset shows there as a backslash command (\frac, \lambda, \mathbb, ...).
UNTYPESET_TEX_JS = r"""() => {
    const main = document.querySelector('main') ?? document.body;
    const copy = main.cloneNode(true);
    copy.querySelectorAll('pre, code, script, style, mjx-container, .highlight, '
                          + '.lsl-static-panel').forEach(node => node.remove());
    return [...new Set(copy.textContent.match(/\\[A-Za-z]{2,}[^\s]{0,20}/g) ?? [])];
}"""
# Math nodes of the page (Sphinx marks them `math`) and how many of them MathJax typeset.
MATH_JS = """() => {
    const nodes = [...document.querySelectorAll('.math')];
    return {
        total: nodes.length,
        typeset: nodes.filter(node => node.querySelector('mjx-container')).length,
        errors: document.querySelectorAll('mjx-merror').length,
    };
}"""
# The saved widget views of the notebooks (tqdm's progress bars): each is rendered by the widget
# manager into the `widget-subarea` that precedes its script; the number not rendered.
UNRENDERED_WIDGETS_JS = """() => [...document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]')]
    .filter(script => !(script.previousElementSibling?.classList.contains('widget-subarea')
                        && script.previousElementSibling.childElementCount > 0)).length"""
BROKEN_IMAGES_JS = """() => [...document.images]
    .filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src)"""
MATHJAX_DONE_JS = """() => !window.MathJax || !window.MathJax.startup
    || window.MathJax.startup.promise.then(() => true)"""


def _run_while_it_talks(command, stall_s=BUILD_STALL_S) -> tuple[int | None, str]:
    """Run ``command`` from the repository; (its exit code, or None if it stalled, its output).

    Its output is watched in periods of ``stall_s`` seconds: a command that prints nothing through
    a whole period is killed (after one to two periods of silence)."""
    process = subprocess.Popen(command, cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines, heard = [], threading.Event()

    def read():
        for line in process.stdout:
            lines.append(line)
            heard.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while True:
        reader.join(stall_s)
        if not reader.is_alive():  # the end of its output: it exits
            try:
                return process.wait(stall_s), "".join(lines)
            except subprocess.TimeoutExpired:
                break
        if not heard.is_set():
            break
        heard.clear()
    process.kill()
    process.wait()
    reader.join()
    return None, "".join(lines)


@pytest.fixture(scope="session")
def site(browser) -> Path:
    """The built site (``browser`` first: without Chromium the test skips before building)."""
    if shutil.which("npm") is None:
        pytest.skip("npm not found: the site's build installs MathJax and the widget manager "
                    "with npm (Node.js)")
    code, output = _run_while_it_talks([sys.executable, "-m", "book.build"])
    if code is None:
        pytest.fail(f"python -m book.build printed nothing for {BUILD_STALL_S} s (stalled); its "
                    f"output:\n{output[-6000:]}")
    if code != 0:
        pytest.fail(f"python -m book.build exited with {code}:\n{output[-6000:]}")
    assert (SITE / "index.html").is_file(), output[-6000:]
    return SITE


@pytest.fixture(scope="session")
def site_url(site):
    """Serve the site on 127.0.0.1 (a free port) for the session."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class Visit:
    """One browser context in which every request leaving localhost is blocked and recorded,
    with the console errors, page errors and failed requests of the pages opened in it."""

    def __init__(self, browser):
        self.blocked: list[str] = []
        self.problems: list[str] = []
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.route("**/*", self._route)

    def _route(self, route):
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def open(self, url: str):
        page = self.context.new_page()
        name = url.rsplit("/", 1)[-1]
        page.on("console", lambda message: message.type == "error" and self.problems.append(
            f"{name}: console error: {message.text}"))
        page.on("pageerror", lambda error: self.problems.append(f"{name}: page error: {error}"))
        page.on("requestfailed", lambda request: self.problems.append(
            f"{name}: request failed: {request.url} ({request.failure})"))
        page.on("response", lambda response: response.status >= 400 and self.problems.append(
            f"{name}: HTTP {response.status} for {response.url}"))
        page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        page.wait_for_function(MATHJAX_DONE_JS, timeout=LOAD_TIMEOUT_MS)
        return page

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser):
    visit = Visit(browser)
    yield visit
    visit.close()


def _pages(site: Path) -> list[str]:
    """Every HTML page of the site, as a path relative to its root."""
    return sorted(
        path.relative_to(site).as_posix() for path in site.rglob("*.html")
        if not path.relative_to(site).parts[0].startswith("_")
    )


def _page_of(site: Path, stem: str) -> str:
    """The page of a notebook (lecture 00 is the landing page, index.html)."""
    if stem == LECTURES[0]:
        return "index.html"
    found = [page for page in _pages(site) if Path(page).stem == stem]
    assert len(found) == 1, f"{len(found)} pages for {stem}: {_pages(site)}"
    return found[0]


def _screenshot(page, name: str, element=None) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    (element or page).screenshot(path=SCREENSHOTS / f"site_{name}.png")


def test_a_build_that_stops_printing_is_stopped_and_one_that_talks_is_not():
    """The build's stall guard: silent past its limit, killed (None); printing, left to finish."""
    import time

    start = time.monotonic()
    silent = "print('started', flush=True); import time; time.sleep(60)"
    assert _run_while_it_talks([sys.executable, "-c", silent], stall_s=1) == (None, "started\n")
    assert time.monotonic() - start < 30
    talking = "import time\nfor i in range(4):\n    print(i, flush=True); time.sleep(0.6)"
    assert _run_while_it_talks([sys.executable, "-c", talking], stall_s=1) == (0, "0\n1\n2\n3\n")

def test_the_site_holds_the_course_and_no_master(site):
    """Lecture 00 as the landing page, the lectures in order, the students' homework only."""
    pages = _pages(site)
    stems = [Path(page).stem for page in pages]
    for stem in LECTURES[1:] + STUDENT_NOTEBOOKS:
        assert stem in stems, f"no page for {stem}; pages: {pages}"
    index = (site / "index.html").read_text()
    assert "00 · Start here" in index, "index.html is not lecture 00"
    # the navigation of the landing page lists every lecture, in order
    positions = [index.find(f"{stem}.html") for stem in LECTURES[1:]]
    assert -1 not in positions, f"the landing page's navigation misses a lecture: {positions}"
    assert positions == sorted(positions), "the lectures are not in order in the navigation"
    # the masters (solutions and hidden tests) are never published, in a page or as a download
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".ipynb", ".txt", ".js", ".md"):
            text = path.read_text(errors="replace")
            for marker in ("BEGIN SOLUTION", "BEGIN TESTS"):
                assert marker not in text, f"{path.relative_to(site)} holds a master ({marker})"


def _check_page(visit, url: str, path: str):
    """Open the page ``path`` and add what is wrong with it to ``visit.problems``: the math not
    all typeset (or a MathJax error), TeX left untypeset in the text, a saved widget view not
    rendered by the widget manager, an image not loaded (console errors and failed requests are
    recorded by ``visit`` itself). Returns the page and whether it holds math and saved widget
    views."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # only where it exists

    page = visit.open(f"{url}/{path}")
    math = page.evaluate(MATH_JS)
    if math["typeset"] != math["total"] or math["errors"]:
        visit.problems.append(f"{path}: {math['typeset']} of {math['total']} math nodes "
                              f"typeset, {math['errors']} MathJax errors")
    raw = page.evaluate(UNTYPESET_TEX_JS)
    if raw:
        visit.problems.append(f"{path}: TeX left untypeset: {raw[:5]}")
    page.wait_for_function("() => [...document.images].every(img => img.complete)",
                           timeout=LOAD_TIMEOUT_MS)
    widgets = False
    try:
        page.wait_for_function(f"() => ({UNRENDERED_WIDGETS_JS})() === 0",
                               timeout=LOAD_TIMEOUT_MS)
        widgets = page.evaluate("""() => document.querySelectorAll(
            'script[type="application/vnd.jupyter.widget-view+json"]').length > 0""")
    except PlaywrightTimeout:
        visit.problems.append(f"{path}: {page.evaluate(UNRENDERED_WIDGETS_JS)} saved "
                              "widget views not rendered by the widget manager")
    broken = page.evaluate(BROKEN_IMAGES_JS)
    if broken:
        visit.problems.append(f"{path}: images not loaded: {broken[:5]}")
    return page, math["total"] > 0, widgets


def test_every_other_page_loads_offline_with_math_and_figures(site, site_url, visit):
    """Every page but the lectures' (each checked with its static panel, below): no console
    error, no blocked request, no failed request, the math typeset, the saved widget views
    rendered, every figure loaded."""
    pages = _pages(site)
    assert len(pages) >= len(LECTURES) + len(STUDENT_NOTEBOOKS), pages
    lectures = {_page_of(site, stem) for stem in LECTURES}
    others = [path for path in pages if path not in lectures]
    assert any(Path(path).stem in STUDENT_NOTEBOOKS for path in others), others
    for path in others:
        page, _, _ = _check_page(visit, site_url, path)
        page.close()
    assert not visit.blocked, f"{len(visit.blocked)} requests left localhost: {visit.blocked[:10]}"
    assert not visit.problems, "\n".join(visit.problems)


@pytest.mark.parametrize("stem", LECTURES)
def test_lecture_page_loads_offline_and_its_static_panel_flips(site, site_url, visit, stem):
    """A lecture's page passes the checks of every page, holds typeset math, and its static
    panel shows another pre-rendered figure when any of its controls is moved."""
    path = _page_of(site, stem)
    page, has_math, has_widgets = _check_page(visit, site_url, path)
    assert has_math, f"{path}: no math found"
    if stem in ("07_random_fourier_features", "15_scaling_out"):  # they show progress bars
        assert has_widgets, f"{path}: no saved widget view (the widget manager did not run?)"
    if stem in (LECTURES[0], "07_random_fourier_features"):
        _screenshot(page, Path(path).stem)
    panels = page.locator(".lsl-static-panel")
    assert panels.count() == 1, f"{stem}: {panels.count()} static panels"
    panel = panels.first
    panel.scroll_into_view_if_needed()
    figure = panel.locator("img.lsl-static-figure")
    controls = panel.locator(".lsl-static-control")
    assert controls.count() >= 1, f"{stem}: the static panel has no control"
    assert panel.locator(".lsl-static-note").count() == 1
    _screenshot(page, f"{stem}_panel", panel)
    for i in range(controls.count()):
        control = controls.nth(i)
        name = control.get_attribute("data-name")
        before = figure.get_attribute("src")
        if control.evaluate("node => node.tagName") == "SELECT":
            options = control.locator("option")
            current = control.evaluate("node => node.selectedIndex")
            control.select_option(index=(current + 1) % options.count())
        else:
            at_max = control.evaluate("node => node.value === node.max")
            control.focus()
            page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
        page.wait_for_function(
            "([img, before]) => img.getAttribute('src') !== before && img.complete",
            arg=[figure.element_handle(), before], timeout=LOAD_TIMEOUT_MS)
        assert figure.evaluate("img => img.naturalWidth") > 0, f"{stem}: {name}'s frame is broken"
    _screenshot(page, f"{stem}_panel_moved", panel)
    assert not visit.blocked, visit.blocked
    assert not visit.problems, "\n".join(visit.problems)
