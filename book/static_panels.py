"""Static panels: a lecture's widget panel as pre-rendered figures for the site (issue 26).

Every lecture ends with a cell ``panel(plot, name=control, ...)`` (``lsl_lib/widgets.py``). On the
static site no kernel runs it, so :func:`render_panels` runs each notebook's code cells up to that
cell (in a fresh process, with ``panel`` recording its arguments instead of building widgets),
draws ``plot(**values)`` over a grid of control values into compressed PNG frames, and returns an
HTML fragment whose controls (``_static/static_panel.js``) flip between the frames.
``book.build`` puts the fragment in place of the panel cell's widget output.

Which controls vary is the table :data:`GRID`: every value of the lecture's main control, the
others at their notebook defaults or over a few values where the lecture's point needs them, within
a budget of :data:`MAX_FRAMES` frames and :data:`MAX_BYTES` bytes of frames per page.
"""
import concurrent.futures
import contextlib
import decimal
import hashlib
import html
import importlib.util
import io
import itertools
import json
import math
import multiprocessing
import os
import re
import shutil
from pathlib import Path

#: A control of a :data:`GRID` row that takes every value of its widget.
ALL = "all"

# One row per lecture: the controls that vary on the site, each over ALL its widget's values or
# over the listed values (a subset, named here: nothing is subsampled silently). The controls not
# listed are held at the notebook's defaults and shown as text.
GRID = {
    # λ, the control the landing page asks to try (T held at 2000).
    "00_start_here": {"lam": ALL},
    # The point z has 121 values and c 20: too many with anything else. The loss (the left plot is
    # the loss table's subgradients) and the step schedule (the right plot's streams) are the
    # lecture's two subjects; z, c and averaging stay at their defaults.
    "01_subgradients": {"loss": ALL, "schedule": ALL},
    # λ (21 values) and the batch size k at its two ends, one example and the largest batch (all
    # 9 values of k would be 189 frames).
    "02_pegasos": {"lam": ALL, "batch_size": (1, 256)},
    # The kernel width γ (a fit per frame; the kernel, λ and T at their defaults).
    "03_kernel_pegasos": {"gamma": ALL},
    # The model: one update rule, eight models, the lecture's point (C, η, γ at their defaults).
    "04_online_kernel_learning": {"model": ALL},
    # The method, its output w̃, and the step η × L at four values (its 30 values with the
    # 8 method/output pairs would be 240 frames).
    "05_sarah": {"method": ALL, "output": ALL, "eta_factor": (0.1, 0.25, 0.5, 1.0)},
    # The box C (a dual CD run per frame; the block size and order at their defaults).
    "06_coordinate_descent": {"C": ALL},
    # The output width D (the kernel, the variant, γ and the seed at their defaults).
    "07_random_fourier_features": {"n_components": ALL},
    # The number of blocks m/d, the lecture's point (‖δ‖/σ at its default).
    "08_orthogonal_random_features": {"blocks": ALL},
    # The number of landmarks m, with uniform and leverage sampling.
    "09_nystroem": {"m": ALL, "sampling": ALL},
    # The width D; the input dimension d (255 values) at the two values the text discusses.
    "10_fastfood": {"n_components": ALL, "n_features": (20, 200)},
    # The number of hidden nodes L (the activation, C and the scale at their defaults).
    "11_extreme_learning_machines": {"n_hidden": ALL},
    # The number of sinks K for each feature family.
    "12_random_kitchen_sinks": {"K": ALL, "feature": ALL},
    # The step θ (ν, B, |b| and θ′ at their defaults).
    "13_doubly_stochastic_gradients": {"theta": ALL},
    # The budget B (20 values, 5 to 100; maintenance, λ and γ at their defaults).
    "14_budgeted_kernel_machines": {"budget": ALL},
    # The averaging period a with both partitions (K = 8 workers): each frame runs a cluster.
    "15_scaling_out": {"average_every": ALL, "partition": ALL},
}

#: At most this many frames per panel.
MAX_FRAMES = 80
#: At most this many bytes of frames per panel.
MAX_BYTES = 3_000_000
#: Resolution of the frames: the notebooks' committed figures are drawn at 100 dpi too
#: (matplotlib's default), so the text reads at the size the lecture's figures show it...
FRAME_DPI = 100
#: ...unless the figure is wider than this many pixels (the page's text column is about
#: 800-900 px wide): then it is drawn this wide, and its text a little smaller.
FRAME_WIDTH = 860

_PANEL_CALL = re.compile(r"(?<![\w.])panel\(")
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                     "NUMBA_NUM_THREADS")


class PanelError(RuntimeError):
    """A notebook's panel cannot be rendered: the message names the notebook."""


# ---------------------------------------------------------------------------- control values

def d3_format(spec, x):
    """Format a number as the widgets' readout does (d3-format 3, the types e, f, g and d).

    Parameters
    ----------
    spec : str
        A d3 format such as ``".0e"``, ``".2f"``, ``".2g"`` or ``"d"``.
    x : float
        The number.

    Returns
    -------
    str
        The readout: JavaScript's ``toExponential``, ``toFixed`` or ``toPrecision`` (ties away
        from zero, exponents without zero padding: ``1e-2``), a negative sign as "−" (U+2212).
    """
    match = re.fullmatch(r"(?:\.(\d+))?([efgd])", spec)
    if match is None:
        raise ValueError(f"readout_format {spec!r} is not one of the d3 formats .Ne, .Nf, .Ng, d.")
    precision, kind = int(match.group(1) or 0), match.group(2)
    value = decimal.Decimal(x)
    negative = value < 0
    value = abs(value)
    if kind == "d":
        text = str(value.quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP))
    elif kind == "f":
        text = _fixed(value, precision)
    elif kind == "e":
        text = _exponential(value, precision)
    else:
        digits = max(precision, 1)
        exponent = _exponent(value, digits - 1)
        text = (_exponential(value, digits - 1) if exponent < -6 or exponent >= digits
                else _fixed(value, digits - 1 - exponent))
    # d3 writes no sign for a value that rounds to zero
    negative = negative and any(c in "123456789" for c in text.split("e")[0])
    return ("\u2212" if negative else "") + text


def _fixed(value, decimals):
    return f"{value.quantize(decimal.Decimal(1).scaleb(-decimals), decimal.ROUND_HALF_UP):f}"


def _exponent(value, decimals):
    """The decimal exponent of ``value`` once rounded to ``decimals`` digits after the first."""
    if value == 0:
        return 0
    exponent = value.adjusted()
    mantissa = value.scaleb(-exponent).quantize(decimal.Decimal(1).scaleb(-decimals),
                                                decimal.ROUND_HALF_UP)
    return exponent + 1 if mantissa >= 10 else exponent


def _exponential(value, decimals):
    exponent = _exponent(value, decimals)
    mantissa = _fixed(value.scaleb(-exponent), decimals)
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _steps(low, high, step):
    """``low, low + step, ...`` up to ``high``, in decimal arithmetic (0.15, not 0.150...02)."""
    low, high, step = (decimal.Decimal(repr(float(v))) for v in (low, high, step))
    count = int((high - low) / step + decimal.Decimal("0.5")) + 1
    return [float(low + k * step) for k in range(count) if low + k * step <= high]


def control_grid(name, widget):
    """Every value a panel's control takes, its labels as the widget shows them, its kind.

    Parameters
    ----------
    name : str
        The control's keyword in the ``panel`` call (for the error message).
    widget : ipywidgets.ValueWidget
        A control built by ``lsl_lib.widgets``.

    Returns
    -------
    values : list
        The values, in the widget's order.
    labels : list of str
        The widget's readout (or option label) of each value.
    kind : {"range", "select", "checkbox"}
        The HTML control of the static page: a range input for a slider, a select for a
        dropdown, a checkbox for a checkbox.
    """
    import ipywidgets as widgets

    if isinstance(widget, widgets.FloatLogSlider):
        values = [float(widget.base) ** e for e in _steps(widget.min, widget.max, widget.step)]
        return values, [d3_format(widget.readout_format, v) for v in values], "range"
    if isinstance(widget, (widgets.SelectionSlider, widgets.Dropdown)):
        kind = "range" if isinstance(widget, widgets.SelectionSlider) else "select"
        return list(widget._options_values), list(widget._options_labels), kind
    if isinstance(widget, widgets.IntSlider):
        values = list(range(widget.min, widget.max + 1, widget.step))
        return values, [d3_format(widget.readout_format, v) for v in values], "range"
    if isinstance(widget, widgets.FloatSlider):
        values = _steps(widget.min, widget.max, widget.step)
        return values, [d3_format(widget.readout_format, v) for v in values], "range"
    if isinstance(widget, widgets.Checkbox):
        return [False, True], ["False", "True"], "checkbox"
    raise PanelError(f"control {name!r}: no static form for a {type(widget).__name__} "
                     "(known: FloatLogSlider, SelectionSlider, Dropdown, IntSlider, FloatSlider, "
                     "Checkbox).")


def _position(values, value):
    """The index of ``value`` in ``values`` (floats to 1e-9 relative), or None."""
    for i, v in enumerate(values):
        if v == value or (isinstance(v, float) and isinstance(value, (int, float))
                          and math.isclose(v, value, rel_tol=1e-9)):
            return i
    return None


def _label(widget, values, labels):
    """The widget's readout of its current value."""
    if hasattr(widget, "readout_format"):
        return d3_format(widget.readout_format, widget.value)
    if hasattr(widget, "_options_labels"):
        return widget._options_labels[widget.index]  # `label` is '' until the index changes
    return labels[_position(values, widget.value)]


def plan(stem, controls, row):
    """The static panel's controls: which vary over which values, which stay fixed.

    Parameters
    ----------
    stem : str
        The notebook's stem (for the error messages).
    controls : dict
        The ``panel`` call's keyword controls.
    row : dict
        The notebook's :data:`GRID` row: control name → :data:`ALL` or a tuple of values.

    Returns
    -------
    varying : list of dict
        One per varying control, in the row's order: ``name``, ``description``, ``kind``,
        ``values``, ``labels`` (the grid) and ``default`` (the index of the notebook's value).
    fixed : list of dict
        One per other control: ``name``, ``description``, ``value``, ``label``.
    """
    unknown = sorted(set(row) - set(controls))
    if unknown:
        raise PanelError(f"{stem}: the GRID row names {unknown}, which the panel does not have "
                         f"(its controls: {sorted(controls)}).")
    varying, fixed = [], []
    for name, widget in controls.items():
        values, labels, kind = control_grid(name, widget)
        description = widget.description or name
        if name not in row:
            fixed.append(dict(name=name, description=description, value=widget.value,
                              label=_label(widget, values, labels)))
            continue
        if row[name] != ALL:
            keep = [_position(values, v) for v in row[name]]
            if None in keep:
                raise PanelError(f"{stem}: GRID values {row[name]} of control {name!r} are not "
                                 f"all among the widget's values {values}.")
            values, labels = [values[i] for i in keep], [labels[i] for i in keep]
        default = _position(values, widget.value)
        if default is None and row[name] == ALL and kind == "range":
            # a slider may start off its steps (θ = 4 on a log slider by quarter decades): the
            # notebook shows that value first, so the page offers it too, in its place
            default = sum(v < widget.value for v in values)
            values = values[:default] + [widget.value] + values[default:]
            labels = labels[:default] + [_label(widget, values, labels)] + labels[default:]
        if default is None:
            raise PanelError(f"{stem}: control {name!r}'s notebook value {widget.value!r} is not "
                             f"among its grid values {values}, so the page cannot start on it.")
        varying.append(dict(name=name, description=description, kind=kind, values=values,
                            labels=labels, default=default))
    varying.sort(key=lambda control: list(row).index(control["name"]))
    frames = math.prod(len(control["values"]) for control in varying)
    if frames > MAX_FRAMES:
        raise PanelError(f"{stem}: the grid {' × '.join(str(len(c['values'])) for c in varying)}"
                         f" = {frames} frames is over the budget of MAX_FRAMES = {MAX_FRAMES}.")
    return varying, fixed


# ---------------------------------------------------------------------------- the worker

def panel_cell(nb):
    """The index in ``nb["cells"]`` of the code cell calling ``panel(``, or None."""
    found = [i for i, cell in enumerate(nb["cells"])
             if cell["cell_type"] == "code" and _PANEL_CALL.search("".join(cell["source"]))]
    return found[0] if found else None


def _run_cells(path, nb, index):
    """Run the code cells of ``nb`` up to ``index`` in an IPython shell; return ``panel``'s
    arguments and the shell."""
    import matplotlib.pyplot as plt
    from IPython.core.interactiveshell import InteractiveShell

    import lsl_lib.widgets

    recorded = {}

    def record(plot, **controls):
        recorded.update(plot=plot, controls=controls)

    lsl_lib.widgets.panel = record
    shell = InteractiveShell.instance()
    shell.enable_gui = lambda gui=None: None  # `%matplotlib inline` asks for a GUI loop
    for i, cell in enumerate(nb["cells"][:index + 1]):
        if cell["cell_type"] != "code":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result = shell.run_cell("".join(cell["source"]), store_history=False)
        plt.close("all")
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            tail = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())[-2000:]
            raise PanelError(f"{path.name}: cell {i} failed: {error!r}\n{tail}")
    if "plot" not in recorded:
        raise PanelError(f"{path.name}: cell {index} did not call lsl_lib.widgets.panel.")
    return recorded, shell


def _frame_name(varying, combination):
    return "_".join(f"{c['name']}-{i}" for c, i in zip(varying, combination, strict=True)) + ".png"


def _save_frame(fig, path, dpi=FRAME_DPI):
    """Write ``fig`` as a 256-colour PNG at ``dpi``, at most ``FRAME_WIDTH`` pixels wide, in its
    tight bounding box (as the notebooks show figures), with no metadata.

    Returns the dpi used: a panel's frames share their size, so the caller passes it back for
    the next frame, which is then drawn once instead of twice (drawing is most of a frame's cost).
    """
    from PIL import Image

    image = _draw(fig, dpi)
    if image.width > FRAME_WIDTH:
        # the box's size in inches is known only once drawn (a layout engine moves the labels)
        dpi = dpi * (FRAME_WIDTH - 1) / image.width  # - 1: pixels round up
        image = _draw(fig, dpi)
    # octree keeps a colour map's colours (median cut shifted viridis' ends) and weighs less
    image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(
        path, format="png", optimize=True)
    return dpi


def _draw(fig, dpi):
    """``fig`` drawn at ``dpi`` on white and cropped to its tight bounding box padded by 0.1 inch,
    as ``savefig(bbox_inches="tight")`` gives it, in one drawing instead of that option's two
    (measuring the box after the drawing costs little: the text's extents are cached). Where
    something is drawn outside the figure (a legend placed beside it), ``savefig`` draws it
    again on a canvas grown to hold it, as the notebook shows it."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = FigureCanvasAgg(fig)
    fig.set_dpi(dpi)
    fig.patch.set_facecolor("white")
    canvas.draw()
    width, height = canvas.get_width_height(physical=True)
    box = fig.get_tightbbox(canvas.get_renderer()).transformed(fig.dpi_scale_trans)
    if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, facecolor="white", bbox_inches="tight")
        return Image.open(buffer)
    # the 0.1 inch pad may reach past the figure's edge: white there, as savefig adds it
    pad = int(np.ceil(0.1 * dpi))
    pixels = np.pad(np.asarray(canvas.buffer_rgba()), ((pad, pad), (pad, pad), (0, 0)),
                    constant_values=255)
    padded = box.padded(0.1 * dpi)
    left, right = int(np.floor(padded.x0)) + pad, int(np.ceil(padded.x1)) + pad
    top, bottom = height - int(np.ceil(padded.y1)) + pad, height - int(np.floor(padded.y0)) + pad
    return Image.fromarray(pixels[top:bottom, left:right]).convert("RGB")


def _close_clusters(namespace):
    """Close the Dask clients, then clusters, a notebook left open, so its process can end."""
    for kind in ("Client", "LocalCluster"):
        for value in list(namespace.values()):
            if type(value).__module__.startswith("distributed") and type(value).__name__ == kind:
                value.close()


def _render_notebook(path, index, row, out_dir):
    """Worker: run ``path`` up to its panel cell, write the frames to ``out_dir``.

    Returns
    -------
    varying, fixed : list of dict
        As :func:`plan`.
    frames : dict
        ``"i,j,..."`` (the varying controls' indices) → frame file name.
    """
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    nb = json.loads(path.read_text(encoding="utf-8"))
    os.chdir(path.parent)
    recorded, shell = _run_cells(path, nb, index)
    try:
        varying, fixed = plan(path.stem, recorded["controls"], row)
        base = {c["name"]: c["value"] for c in fixed}
        frames, size, dpi = {}, 0, FRAME_DPI
        for combination in itertools.product(*(range(len(c["values"])) for c in varying)):
            values = dict(base, **{c["name"]: c["values"][i]
                                   for c, i in zip(varying, combination, strict=True)})
            with contextlib.redirect_stdout(io.StringIO()):  # what the plot prints
                fig = recorded["plot"](**values)
            if not isinstance(fig, Figure):
                raise PanelError(f"{path.name}: plot({values}) returned {type(fig).__name__}, "
                                 "not a matplotlib Figure.")
            name = _frame_name(varying, combination)
            dpi = _save_frame(fig, out_dir / name, dpi)
            plt.close("all")
            size += (out_dir / name).stat().st_size
            if size > MAX_BYTES:
                raise PanelError(f"{path.name}: the frames pass the budget of MAX_BYTES = "
                                 f"{MAX_BYTES} bytes after {len(frames) + 1} frames.")
            frames[",".join(map(str, combination))] = name
    finally:
        _close_clusters(shell.user_ns)
    return varying, fixed, frames


# ---------------------------------------------------------------------------- the HTML

def panel_html(stem, varying, fixed, frames, url):
    """The static panel's HTML fragment (the contract of ``static_panel.js``).

    Parameters
    ----------
    stem : str
        The notebook's stem.
    varying, fixed : list of dict
        As returned by :func:`plan`.
    frames : dict
        ``"i,j,..."`` → frame file name.
    url : str
        The frames' folder as the page sees it.

    Returns
    -------
    str
    """
    esc = html.escape
    parts = [f'<div class="lsl-static-panel" data-notebook="{esc(stem)}">',
             '<div class="lsl-static-controls">']
    for c in varying:
        name, label, default = esc(c["name"]), esc(c["description"]), c["default"]
        if c["kind"] == "range":
            control = (f'<input type="range" class="lsl-static-control" data-name="{name}" '
                       f'min="0" max="{len(c["values"]) - 1}" step="1" value="{default}">'
                       f'<output class="lsl-static-readout">{esc(c["labels"][default])}</output>')
        elif c["kind"] == "select":
            options = "".join(f'<option value="{i}"{" selected" if i == default else ""}>'
                              f"{esc(text)}</option>" for i, text in enumerate(c["labels"]))
            control = f'<select class="lsl-static-control" data-name="{name}">{options}</select>'
        else:
            control = (f'<input type="checkbox" class="lsl-static-control" data-name="{name}"'
                       f'{" checked" if default else ""}>')
        parts.append(f'<label class="lsl-static-label">{label} {control}</label>')
    for c in fixed:
        parts.append(f'<span class="lsl-static-fixed">{esc(c["description"])}: '
                     f'{esc(c["label"])}</span>')
    parts.append("</div>")
    first = ",".join(str(c["default"]) for c in varying)
    alt = f"Figure of the panel of {stem} for " + ", ".join(
        f'{c["description"]} = {c["labels"][c["default"]]}' for c in varying)
    parts.append(f'<img class="lsl-static-figure" src="{esc(url)}/{esc(frames[first])}" '
                 f'alt="{esc(alt)}">')
    parts.append('<p class="lsl-static-note">Pre-rendered: this figure was computed for these '
                 "values when the site was built. The notebook (Binder, or a local install) "
                 "recomputes it for any value of every control.</p>")
    data = {"stem": stem,
            "controls": [dict(name=c["name"], description=c["description"], labels=c["labels"])
                         for c in varying],
            "frames": {key: f"{url}/{name}" for key, name in frames.items()}}
    text = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    parts.append(f'<script type="application/json" class="lsl-static-frames">{text}</script>')
    parts.append("</div>")
    return "\n".join(parts)


# ---------------------------------------------------------------------------- the entry point

def _cache_key(nb, index, row, frames_url):
    """A hash of everything a notebook's frames and HTML depend on."""
    import matplotlib

    digest = hashlib.sha256()
    library = Path(importlib.util.find_spec("lsl_lib").origin).parent
    for file in sorted(library.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            digest.update(str(file.relative_to(library)).encode() + b"\0" + file.read_bytes())
    code = ["".join(c["source"]) for c in nb["cells"][:index + 1] if c["cell_type"] == "code"]
    parts = [code, repr(row), Path(__file__).read_text(encoding="utf-8"),
             matplotlib.__version__, frames_url]
    digest.update(json.dumps(parts).encode())
    return digest.hexdigest()[:20]


def render_panels(notebooks, frames_root, frames_url, cache_dir, jobs=2):
    """Render the widget panel of each notebook into frames and an HTML fragment.

    Each notebook runs in a fresh process (``jobs`` at a time, one thread each, the matplotlib
    backend Agg), from its own folder; the results are cached in ``cache_dir``, keyed by the
    notebook's code up to the panel, ``lsl_lib``'s files, its :data:`GRID` row, this module and
    matplotlib's version. The workers import this module as ``book.static_panels``: spawned,
    they get the parent's ``sys.path``, on which the repository's root is (``python -m
    book.build`` runs from there; under pytest, the root's ``conftest.py`` puts it there).

    Parameters
    ----------
    notebooks : list of pathlib.Path
        The notebooks; those without a ``panel(`` cell are skipped.
    frames_root : pathlib.Path
        The frames of notebook ``<stem>`` are written to ``frames_root/<stem>/``.
    frames_url : str
        The URL of ``frames_root`` as the pages see it.
    cache_dir : pathlib.Path
        The cache folder.
    jobs : int, default=2
        Number of worker processes.

    Returns
    -------
    dict
        Notebook stem → (index of the panel cell in ``nb["cells"]``, the HTML fragment).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got jobs={jobs!r}.")
    # absolute: the workers run from their notebook's folder
    frames_root, cache_dir = Path(frames_root), Path(cache_dir).resolve()
    results, pending = {}, {}
    for path in map(Path, notebooks):
        nb = json.loads(path.read_text(encoding="utf-8"))
        index = panel_cell(nb)
        if index is None:
            continue
        if path.stem not in GRID:
            raise PanelError(f"{path.stem}: no row in static_panels.GRID says which of its "
                             "panel's controls vary.")
        row = GRID[path.stem]
        entry = cache_dir / f"{path.stem}-{_cache_key(nb, index, row, frames_url)}"
        if not (entry / "panel.html").exists():
            pending[path] = (index, row, entry)
        results[path.stem] = (index, entry)
    if pending:
        _render_pending(pending, frames_url, jobs)
    output = {}
    for stem, (index, entry) in results.items():
        target = frames_root / stem
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for frame in entry.glob("*.png"):
            shutil.copyfile(frame, target / frame.name)
        output[stem] = (index, (entry / "panel.html").read_text(encoding="utf-8"))
    return output


def _render_pending(pending, frames_url, jobs):
    """Run the notebooks missing from the cache in worker processes and fill the cache."""
    saved = {name: os.environ.get(name) for name in (*_THREAD_VARIABLES, "MPLBACKEND")}
    os.environ.update(dict.fromkeys(_THREAD_VARIABLES, "1"), MPLBACKEND="Agg")
    try:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context,
                                                    max_tasks_per_child=1) as pool:
            futures = {}
            for path, (index, row, entry) in pending.items():
                scratch = entry.with_name(entry.name + ".tmp")
                shutil.rmtree(scratch, ignore_errors=True)
                scratch.mkdir(parents=True)
                futures[pool.submit(_render_notebook, path.resolve(), index, row, scratch)] = path
            print(f"static panels: {len(pending)} to render, {jobs} at a time", flush=True)
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                path = futures[future]
                index, row, entry = pending[path]
                try:
                    varying, fixed, frames = future.result()
                except BaseException:
                    pool.shutdown(cancel_futures=True)
                    raise
                print(f"  {path.stem}: {len(frames)} frames ({done}/{len(pending)})", flush=True)
                scratch = entry.with_name(entry.name + ".tmp")
                url = f"{frames_url}/{path.stem}"
                (scratch / "panel.html").write_text(panel_html(path.stem, varying, fixed, frames,
                                                               url), encoding="utf-8")
                for old in entry.parent.glob(f"{path.stem}-*"):
                    if old != scratch:
                        shutil.rmtree(old)
                scratch.rename(entry)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
