"""Every notebook, run in JupyterLab in headless Chromium, the way a student runs it.

For each ``notebooks/*.ipynb`` (parametrized in conftest.py): open it in JupyterLab, clear the
outputs and Run All, check that no cell raised and every widget rendered, then move each
ipywidgets control once and check that the figure it drives is redrawn. A full-page screenshot
goes to ``tests/course/screenshots/<notebook>.png`` at the end (every output, the controls
moved), also when the test fails (then of the notebook as the failure left it).

    python -m pytest -m browser tests/course/test_browser.py
    LSL_NOTEBOOKS_DIR=/some/folder python -m pytest -m browser tests/course/test_browser.py

Needs Chromium (``/usr/bin/chromium`` or ``$LSL_CHROMIUM``) and Playwright, else it skips.
The notebooks run on a temporary copy; the committed files are never modified. Each worker
loads JupyterLab once, in one page, and opens the notebooks in it in turn (after a failure, the
next notebook gets a freshly loaded JupyterLab).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
VIEWPORT = {"width": 1400, "height": 1000}
UI_TIMEOUT_MS = 30_000  # page load, kernel start, widget views rendering
RUN_TIMEOUT_MS = 180_000  # Run All, per notebook
WIDGET_TIMEOUT_MS = 60_000  # one control's callback, which may refit a model
MAX_SCREENSHOT_HEIGHT = 30_000  # px; a taller notebook is cut

# --- JavaScript run in the page -------------------------------------------------------------------
# The notebook panel, reachable because conftest.py starts JupyterLab with
# `--LabApp.expose_app_in_browser` (window.jupyterapp).
PANEL_JS = "window.jupyterapp.shell.currentWidget"
KERNEL_IDLE_JS = f"() => {PANEL_JS}.sessionContext.session?.kernel?.status === 'idle'"
# Numbers (1-based, as in JupyterLab's status bar) of the non-empty code cells without an
# execution count, i.e. not run.
NOT_RUN_JS = f"""() => {PANEL_JS}.content.widgets.flatMap((cell, i) =>
    cell.model.type === 'code' && cell.model.sharedModel.getSource().trim()
    && cell.model.executionCount === null ? [i + 1] : [])"""
# Every error output (exception) of the notebook: in cells, and in the Output widgets nested in
# their outputs (where widget callbacks print). Read from the output models, because the DOM
# renders a traceback like stderr (warnings). Cells tagged `raises-exception` may raise, as under
# nbval (and JupyterLab's Run All goes on after them).
ERRORS_JS = r"""() => {
    const errors = [];
    const collect = (widget, where) => {
        if (widget.hasClass('jp-OutputArea'))
            for (const output of widget.model.toJSON())
                if (output.output_type === 'error')
                    errors.push(`${where}: `
                        + output.traceback.join('\n').replace(/\x1b\[[0-9;]*m/g, ''));
        for (const child of widget.children()) collect(child, where);
    };
    window.jupyterapp.shell.currentWidget.content.widgets.forEach((cell, i) => {
        const tags = cell.model.getMetadata('tags') ?? [];
        if (cell.model.type === 'code' && !tags.includes('raises-exception'))
            collect(cell.outputArea, `cell ${i + 1}`);
    });
    return errors;
}"""
# Outputs showing an ipywidgets view: their text is "Loading widget..." until the view is
# rendered, "Error displaying widget..." if that failed.
WIDGET_VIEWS = (
    ".jp-Notebook .jp-OutputArea-output"
    '[data-mime-type="application/vnd.jupyter.widget-view+json"]'
)
WIDGETS_LOADED_JS = f"""() => [...document.querySelectorAll('{WIDGET_VIEWS}')]
    .every(view => view.textContent !== 'Loading widget...')"""
# What the controls of a cell drive, as a list of strings: the `src` of every image in the cell's
# output (matplotlib figures are PNGs), or, when it has no image, the text of its Output widgets.
DRIVEN_OUTPUT_JS = """cell => {
    const area = cell.querySelector('.jp-Cell-outputArea');
    const images = [...area.querySelectorAll('img')].map(img => img.src);
    if (images.length) return images;
    return [...area.querySelectorAll('.widget-output')].map(o => o.innerText).filter(t => t.trim());
}"""
# Wait condition after moving a control: its cell's driven output changed, or something raised.
CHANGED_JS = f"""([cell, before]) => {{
    const now = ({DRIVEN_OUTPUT_JS})(cell);
    return (now.length > 0 && JSON.stringify(now) !== JSON.stringify(before))
        || ({ERRORS_JS})().length > 0;
}}"""
# Height (px) of the notebook hidden below the fold, measured once JupyterLab's layout has caught
# up with the window size (it updates on animation frames).
HIDDEN_HEIGHT_JS = """async () => {
    await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const scroller = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
    return scroller ? scroller.scrollHeight - scroller.clientHeight : 0;
}"""


# --- ipywidgets controls --------------------------------------------------------------------------
# How to move each kind of ipywidgets 8 control: CSS selector of the widget's root element ->
# action changing its value once (one commit, so one callback, even with continuous_update=False).
def _move_slider(control):
    # noUiSlider's handle: PageUp moves it 5 steps; PageDown if it is already at the maximum.
    handle = control.locator(".noUi-handle").first
    before = handle.get_attribute("aria-valuenow")
    handle.press("PageUp")
    if handle.get_attribute("aria-valuenow") == before:
        handle.press("PageDown")


def _move_dropdown(control):
    select = control.locator("select")
    n_options = select.locator("option").count()
    select.select_option(index=(select.evaluate("s => s.selectedIndex") + 1) % n_options)


def _move_number_box(control):
    # Arrow keys step an <input type=number> and fire `change`, which ipywidgets commits.
    box = control.locator("input[type=number]")
    before = box.input_value()
    box.press("ArrowUp")
    if box.input_value() == before:
        box.press("ArrowDown")


def _toggle_checkbox(control):
    control.locator("input[type=checkbox]").click()


def _pick_other_button(control):
    control.locator("button:not(.mod-active)").first.click()


def _pick_other_radio(control):
    control.locator("input[type=radio]:not(:checked)").first.check()


CONTROLS = {
    ".widget-slider": _move_slider,  # Int/Float/FloatLog/Selection(Range)Slider
    ".widget-dropdown": _move_dropdown,
    ".widget-checkbox": _toggle_checkbox,
    ".widget-toggle-buttons": _pick_other_button,
    ".widget-radio": _pick_other_radio,  # RadioButtons
    ".widget-text:has(input[type=number])": _move_number_box,  # Int/Float/Bounded*Text
}


def _label(control) -> str:
    """The control's description (a checkbox has it in its own label, and a zero-width space in
    its `.widget-label`)."""
    return control.evaluate(
        r"""el => [...el.querySelectorAll('.widget-label, .widget-label-basic')]
            .map(label => label.textContent.replace(/\u200b/g, '').trim()).find(Boolean) ?? ''"""
    )


# --- helpers --------------------------------------------------------------------------------------
def _wait(page, condition_js: str, arg=None, timeout: int = UI_TIMEOUT_MS) -> bool:
    """Wait until the JavaScript function `condition_js` returns truthy; False on timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(condition_js, arg=arg, polling=100, timeout=timeout)
    except PlaywrightTimeoutError:
        return False
    return True


def _screenshot(page, name: str) -> None:
    """Save a screenshot of the whole notebook; best effort, as it also runs when a test fails.

    JupyterLab scrolls inside the notebook panel, not the page, so a plain full-page screenshot
    would only show the viewport: grow the viewport to the notebook's height first.
    """
    try:
        SCREENSHOTS.mkdir(exist_ok=True)
        height = VIEWPORT["height"]
        for _ in range(5):  # the layout follows the viewport, and may take a few rounds to settle
            hidden = page.evaluate(HIDDEN_HEIGHT_JS)
            if hidden <= 1 or height >= MAX_SCREENSHOT_HEIGHT:
                break
            height = min(height + hidden, MAX_SCREENSHOT_HEIGHT)
            page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
        page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)
        page.set_viewport_size(VIEWPORT)
    except Exception as error:  # noqa: BLE001 - must not hide the test's own failure
        warnings.warn(f"screenshot {name}.png failed: {error}", stacklevel=2)


def _open(page, lab_server, name: str) -> None:
    """Open the notebook in the session's JupyterLab page and wait for its kernel to be idle.

    The page loads JupyterLab once (with ``?reset``: an empty workspace); each notebook then
    opens in it as a student opens one from the file browser, so that the application's
    scripts are not loaded and run again for every notebook (seconds of the browser's CPU).
    """
    if not page.url.startswith(f"{lab_server.url}/lab"):
        page.goto(f"{lab_server.url}/lab?reset&token={lab_server.token}")
        # the app object appears some time after the page has loaded: guard every step
        page.wait_for_function("() => window.jupyterapp?.commands")
        page.evaluate("async () => { await window.jupyterapp.restored; }")
    page.evaluate("name => window.jupyterapp.commands.execute('docmanager:open', {path: name})",
                  name)
    page.wait_for_function(
        "name => window.jupyterapp?.shell?.currentWidget?.context?.path === name", arg=name)
    page.evaluate(
        f"async () => {{ await {PANEL_JS}.context.ready; await {PANEL_JS}.sessionContext.ready; }}"
    )
    page.wait_for_function(KERNEL_IDLE_JS)
    # more room for the notebook in the screenshots: collapse the file browser
    page.evaluate(
        """() => window.jupyterapp.shell.leftCollapsed
            || window.jupyterapp.commands.execute('application:toggle-left-area')"""
    )


def _run_all(page, name: str) -> None:
    """Clear the outputs (so saved ones cannot pass for fresh ones), Run All, wait for the
    widget views."""
    result = page.evaluate(
        """async timeout => {
            const { commands, shell } = window.jupyterapp;
            const run = async () => {
                await commands.execute('notebook:clear-all-cell-outputs');
                await commands.execute('notebook:run-all-cells');
                // Run All returns at the first exception, but after a cell tagged raises-exception
                // the kernel goes on with the next cells: wait for an empty request queued behind.
                const kernel = shell.currentWidget.sessionContext.session.kernel;
                await kernel.requestExecute({ code: '', silent: true, store_history: false }).done;
            };
            const timer = new Promise(resolve => setTimeout(() => resolve('timeout'), timeout));
            return await Promise.race([run(), timer]);
        }""",
        RUN_TIMEOUT_MS,
    )
    if result == "timeout":
        pytest.fail(f"{name}: Run All did not finish within {RUN_TIMEOUT_MS // 1000} s")
    if not _wait(page, WIDGETS_LOADED_JS):
        pytest.fail(f"{name}: widgets still 'Loading widget...' after {UI_TIMEOUT_MS // 1000} s")


def _check_run(page, name: str) -> None:
    errors = page.evaluate(ERRORS_JS)
    assert not errors, f"{name}: a cell raised:\n\n" + "\n\n".join(errors)
    not_run = page.evaluate(NOT_RUN_JS)
    assert not not_run, f"{name}: Run All did not run the cells {not_run}"
    broken = page.locator(WIDGET_VIEWS, has_text="Error displaying widget")
    assert not broken.count(), f"{name}: a widget failed to display: {broken.first.inner_text()!r}"


def _check_controls(page, name: str) -> None:
    """Move each control once; the figure in its cell must change (and nothing raise)."""
    cells = page.locator(".jp-Notebook .jp-Cell")
    for c in range(cells.count()):
        cell = cells.nth(c).element_handle()
        for selector, move in CONTROLS.items():
            controls = cells.nth(c).locator(f".jp-Cell-outputArea {selector}")
            for k in range(controls.count()):
                control = controls.nth(k)
                label = _label(control) or f"{selector} #{k + 1}"
                where = f"{name}, cell {c + 1}: control {label!r}"
                before = cell.evaluate(DRIVEN_OUTPUT_JS)
                if not before:
                    pytest.fail(f"{where} drives no figure nor text in its cell")
                move(control)
                if not _wait(page, CHANGED_JS, arg=[cell, before], timeout=WIDGET_TIMEOUT_MS):
                    pytest.fail(
                        f"{where}: moving it did not change the figure "
                        f"within {WIDGET_TIMEOUT_MS // 1000} s"
                    )
                if not _wait(page, KERNEL_IDLE_JS, timeout=WIDGET_TIMEOUT_MS):  # callback done
                    pytest.fail(f"{where}: the kernel is still busy after moving it")
                errors = page.evaluate(ERRORS_JS)
                assert not errors, f"{where}: moving it raised:\n\n" + "\n\n".join(errors)


# --- tests ----------------------------------------------------------------------------------------
# Closes every notebook of the page without saving (a notebook that was run is modified, and
# closing it through the command would ask whether to save).
CLOSE_ALL_JS = """() => {
    for (const widget of [...window.jupyterapp.shell.widgets('main')]) {
        if (widget.context) widget.context.model.dirty = false;
        widget.dispose();
    }
}"""


@pytest.fixture(scope="session")
def lab_page(browser, lab_server):
    """The session's JupyterLab page (one per worker), in which the notebooks open in turn."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    yield page
    context.close()


@pytest.fixture
def page(lab_page, lab_server, request):
    """The JupyterLab page, its notebook closed and kernels shut down after the test; after a
    failure, the page is blanked so that the next notebook starts from a fresh JupyterLab."""
    failures = request.session.testsfailed
    yield lab_page
    failed = request.session.testsfailed > failures   # the call's report is counted by now
    try:
        lab_page.evaluate(CLOSE_ALL_JS)
        lab_page.set_viewport_size(VIEWPORT)
    except Exception:  # noqa: BLE001 - a page left broken by the test is reloaded below
        failed = True
    if failed:
        lab_page.goto("about:blank")
    for session in lab_server.api("GET", "/api/sessions"):
        lab_server.api("DELETE", f"/api/sessions/{session['id']}")


@pytest.mark.browser
def test_notebooks_exist(notebooks_dir):
    """Guards the parametrized test below, which would otherwise pass vacuously."""
    assert sorted(notebooks_dir.glob("*.ipynb")), f"no notebook found in {notebooks_dir}"


@pytest.mark.browser
def test_notebook_in_jupyterlab(notebook_path, page, lab_server):
    name = notebook_path.name
    try:
        _open(page, lab_server, name)
        _run_all(page, name)
        _check_run(page, name)
        _check_controls(page, name)
    finally:
        # one full-page shot (each costs Chromium 1-2 s of a page up to 30 000 px tall): at the
        # end it holds every output with the controls moved, and after a failure the state the
        # failure left
        _screenshot(page, notebook_path.stem)
