"""book/static_panels.py: the grids of the panels' controls, the frames, the HTML, the cache."""
import json
import math
from html.parser import HTMLParser
from pathlib import Path

import ipywidgets
import matplotlib.pyplot as plt
import pytest
from PIL import Image

from book import static_panels as sp
from lsl_lib import widgets

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- the grids

def accepts(widget, values):
    """Whether the widget takes every value unchanged (its validation clamps the others)."""
    for value in values:
        widget.value = value
        if widget.value != value:
            return False
    return True


def test_lam_slider_grid_is_every_position_of_the_slider():
    widget = widgets.lam_slider(1e-2, -5, 0)
    values, labels, kind = sp.control_grid("lam", widget)
    assert kind == "range"
    assert len(values) == 21  # -5 to 0 by 0.25
    assert [math.log10(v) for v in values] == pytest.approx([-5 + k / 4 for k in range(21)])
    assert accepts(widget, values)
    # d3's ".0e" (checked against d3-format 3): no zero padding, "+" on non-negative exponents
    assert labels[0] == "1e-5" and labels[12] == "1e-2" and labels[-1] == "1e+0"
    assert labels[1] == "2e-5" and labels[3] == "6e-5"


def test_lam_slider_two_significant_digits():
    widget = widgets.lam_slider(1.0, -1, 1, readout_format=".2g")
    values, labels, _ = sp.control_grid("gamma_factor", widget)
    assert labels == ["0.10", "0.18", "0.32", "0.56", "1.0", "1.8", "3.2", "5.6", "10"]
    assert accepts(widget, values)


def test_selection_sliders_and_dropdowns_keep_the_widgets_options():
    values, labels, kind = sp.control_grid("k", widgets.batch_size_slider(4))
    assert (values, labels, kind) == ([1, 2, 4, 8, 16, 32, 64, 128, 256],
                                      ["1", "2", "4", "8", "16", "32", "64", "128", "256"],
                                      "range")
    values, labels, _ = sp.control_grid("D", widgets.width_slider(64, 4, 7))
    assert values == [16, 32, 64, 128] and labels == ["16", "32", "64", "128"]
    widget = widgets.choice([0.0, 0.001, 1.0], 0.001, "decay")
    values, labels, kind = sp.control_grid("decay", widget)
    assert (values, labels, kind) == ([0.0, 0.001, 1.0], ["0.0", "0.001", "1.0"], "select")
    assert accepts(widget, values)
    assert sp.control_grid("sampling", widgets.sampling_dropdown())[:2] == (
        ["iid", "permutation", "reshuffle"], ["iid", "permutation", "reshuffle"])


def test_int_slider_grid_runs_min_to_max_by_step():
    widget = widgets.int_slider(300, 300, 15000, 300, "T")
    values, labels, kind = sp.control_grid("n_iter", widget)
    assert values == list(range(300, 15001, 300)) and kind == "range"
    assert labels[0] == "300" and labels[-1] == "15000"
    assert accepts(widget, values)


def test_float_slider_grid_is_exact_decimals_with_the_widgets_readout():
    widget = widgets.float_slider(1.0, -3.0, 3.0, 0.05, "point z")
    values, labels, _ = sp.control_grid("point", widget)
    assert len(values) == 121
    assert values[1] == -2.95 and values[60] == 0.0 and values[63] == 0.15 and values[-1] == 3.0
    assert accepts(widget, values)
    # d3 writes a negative number with the minus sign U+2212, and no sign on zero
    assert labels[0] == "\u22123.00" and labels[60] == "0.00" and labels[-1] == "3.00"
    widget = widgets.float_slider(5.0, 0.5, 20.0, 0.5, "s", readout_format=".1f")
    values, labels, _ = sp.control_grid("s", widget)
    assert values == [k / 2 for k in range(1, 41)] and labels[:3] == ["0.5", "1.0", "1.5"]


def test_toggle_grid_and_unknown_control():
    assert sp.control_grid("avg", widgets.toggle(True, "average")) == (
        [False, True], ["False", "True"], "checkbox")
    with pytest.raises(sp.PanelError, match="control 'name': no static form for a Text"):
        sp.control_grid("name", ipywidgets.Text())


def test_d3_format_rejects_other_formats():
    with pytest.raises(ValueError, match="readout_format ',.2%'"):
        sp.d3_format(",.2%", 0.5)


def test_plan_fixes_the_others_and_enforces_the_budget():
    controls = dict(lam=widgets.lam_slider(2.0, -1, 1), k=widgets.batch_size_slider(1),
                    avg=widgets.toggle(False, "average"),
                    width=widgets.width_slider(16, 4, 6, "D"), kind=widgets.choice("ab", "b"))
    varying, fixed = sp.plan("nb", controls, {"k": (1, 16, 256)})
    assert [(c["name"], c["values"], c["labels"], c["default"]) for c in varying] == [
        ("k", [1, 16, 256], ["1", "16", "256"], 0)]
    # λ = 2 lies between the slider's positions: held fixed, it reads as the widget shows it
    assert [(c["name"], c["description"], c["value"], c["label"]) for c in fixed] == [
        ("lam", "λ", 2.0, "2e+0"), ("avg", "average", False, "False"), ("width", "D", 16, "16"),
        ("kind", "kind", "b", "b")]
    # varying over all its positions, the slider's starting value joins them, in its place
    (lam,), _ = sp.plan("nb", controls, {"lam": sp.ALL})
    assert lam["values"][lam["default"]] == 2.0 and lam["labels"][lam["default"]] == "2e+0"
    assert lam["values"] == sorted(lam["values"]) and len(lam["values"]) == 9 + 1
    assert lam["labels"][lam["default"] - 1:lam["default"] + 2] == ["2e+0", "2e+0", "3e+0"]
    with pytest.raises(sp.PanelError, match=r"nb: control 'k'.s notebook value 1 is not"):
        sp.plan("nb", controls, {"k": (16, 256)})
    with pytest.raises(sp.PanelError, match=r"nb: GRID values \(3,\) of control 'k'"):
        sp.plan("nb", controls, {"k": (3,)})
    with pytest.raises(sp.PanelError, match=r"nb: the GRID row names \['x'\]"):
        sp.plan("nb", controls, {"x": sp.ALL})
    big = dict(T=widgets.int_slider(1, 1, 200), avg=widgets.toggle())
    with pytest.raises(sp.PanelError, match="nb: the grid 200 × 2 = 400 frames is over"):
        sp.plan("nb", big, {"T": sp.ALL, "avg": sp.ALL})


# ---------------------------------------------------------------------------- render_panels

PLOT = '''\
%matplotlib inline
from matplotlib.figure import Figure

with open("marker.txt", "a") as marker:  # one line per run of this cell
    marker.write("ran\\n")

def plot(a, b):  # a Figure without pyplot, as lsl_lib's plotting functions make
    fig = Figure(figsize=(4, 2), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1], [0, a], color="C1" if b else "C0")
    ax.set_title(f"a = {a}, b = {b}")
    return fig
'''
PANEL = '''\
from lsl_lib.widgets import choice, panel, toggle

panel(plot, a=choice([1, 2, 3]), b=toggle())
'''


def write_notebook(path, *sources):
    """A notebook with a markdown cell, then one code cell per source."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# a lecture"]}]
    cells += [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
               "source": source.splitlines(keepends=True)} for source in sources]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))
    return path


class Tags(HTMLParser):
    """Each start tag's (name, attributes), and the text inside each tag."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.text, self.open = [], {}, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in ("input", "img"):
            self.open.append(len(self.tags) - 1)

    def handle_endtag(self, tag):
        self.open.pop()

    def handle_data(self, data):
        for i in self.open:
            self.text[i] = self.text.get(i, "") + data

    def find(self, tag, **attrs):
        return [(i, a) for i, (t, a) in enumerate(self.tags)
                if t == tag and all(a.get(k.rstrip("_").replace("_", "-")) == v
                                    for k, v in attrs.items())]


def test_render_panels_frames_html_and_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sp.GRID, "lecture", {"a": sp.ALL, "b": sp.ALL})
    notebook = write_notebook(tmp_path / "lecture.ipynb", PLOT, PANEL)
    none = write_notebook(tmp_path / "no_panel.ipynb", "x = 1")
    frames_root, cache = tmp_path / "site" / "panels", tmp_path / "cache"
    result = sp.render_panels([notebook, none], frames_root, "../_static/panels", cache, jobs=1)
    assert list(result) == ["lecture"] and result["lecture"][0] == 2
    # a line per panel rendered: the build's progress (the site test's stall guard hears it)
    assert capsys.readouterr().out == ("static panels: 1 to render, 1 at a time\n"
                                       "  lecture: 6 frames (1/1)\n")
    html = result["lecture"][1]
    frames = sorted((frames_root / "lecture").iterdir())
    assert len(frames) == 6  # 3 values of a × 2 of b
    assert (tmp_path / "marker.txt").read_text() == "ran\n"

    page = Tags(html)
    assert page.find("div", class_="lsl-static-panel", data_notebook="lecture")
    (select, attrs), = page.find("select", class_="lsl-static-control")
    assert attrs["data-name"] == "a"
    options = page.find("option")
    assert [page.text[i] for i, _ in options] == ["1", "2", "3"]
    assert [a.get("selected", "no") for _, a in options] == [None, "no", "no"]
    (_, box), = page.find("input", class_="lsl-static-control")
    assert box["type"] == "checkbox" and box["data-name"] == "b" and "checked" not in box
    (_, img), = page.find("img", class_="lsl-static-figure")
    assert img["src"] == "../_static/panels/lecture/a-0_b-0.png"
    (note, _), = page.find("p", class_="lsl-static-note")
    assert "when the site was built" in page.text[note] and "recomputes" in page.text[note]
    (script, attrs), = page.find("script", class_="lsl-static-frames")
    assert attrs["type"] == "application/json"
    data = json.loads(page.text[script])
    assert [c["name"] for c in data["controls"]] == ["a", "b"]
    assert sorted(data["frames"]) == [f"{a},{b}" for a in range(3) for b in range(2)]
    assert sorted(url.rsplit("/", 1)[1] for url in data["frames"].values()) == [
        frame.name for frame in frames]
    assert len({frame.read_bytes() for frame in frames}) == 6  # each combination its figure
    with Image.open(frames[0]) as image:  # 4 × 2 inches at 100 dpi, in its tight bounding box
        assert image.mode == "P" and image.info == {}
        assert 350 < image.width <= 420 and 180 < image.height <= 240
    fig, ax = plt.subplots(figsize=(20, 4), layout="constrained")  # laid out when drawn
    ax.set_ylabel("a label")
    sp._save_frame(fig, tmp_path / "wide.png")
    plt.close(fig)
    with Image.open(tmp_path / "wide.png") as image:  # a wide figure is scaled to the page
        assert sp.FRAME_WIDTH * 0.9 < image.width <= sp.FRAME_WIDTH

    # a second call hits the cache: nothing runs, the frames are copied again
    (frames_root / "lecture" / "a-0_b-0.png").unlink()
    again = sp.render_panels([notebook], frames_root, "../_static/panels", cache, jobs=1)
    assert again == {"lecture": result["lecture"]}
    assert (tmp_path / "marker.txt").read_text() == "ran\n"
    assert sorted(frames_root.joinpath("lecture").iterdir()) == frames

    # a change to the code runs it again, into the same bytes (no timestamp in the PNGs)
    before = {frame.name: frame.read_bytes() for frame in frames}
    write_notebook(notebook, PLOT + "# a comment\n", PANEL)
    sp.render_panels([notebook], frames_root, "../_static/panels", cache, jobs=1)
    assert (tmp_path / "marker.txt").read_text() == "ran\nran\n"
    assert {f.name: f.read_bytes() for f in (frames_root / "lecture").iterdir()} == before
    assert len(list(cache.iterdir())) == 1  # the stale entry is gone


@pytest.mark.parametrize("sources, row, message", [
    ((PLOT, "1 / 0", PANEL), {"a": "all"},
     r"bad.ipynb: cell 2 failed: ZeroDivisionError\('division by zero'\)"),
    ((PLOT, "import ipywidgets\nfrom lsl_lib.widgets import panel\n"
      "panel(plot, a=ipywidgets.Text(), b=False)"), {"a": "all"},
     "control 'a': no static form for a Text"),
    ((PLOT, PANEL.replace("choice([1, 2, 3])", "int_slider(1, 1, 200)").replace(
        "choice,", "choice, int_slider,")), {"a": "all", "b": "all"},
     "bad: the grid 200 × 2 = 400 frames is over the budget of MAX_FRAMES = 80"),
])
def test_render_panels_bad_notebooks(tmp_path, monkeypatch, sources, row, message):
    monkeypatch.setitem(sp.GRID, "bad", row)
    notebook = write_notebook(tmp_path / "bad.ipynb", *sources)
    with pytest.raises(sp.PanelError, match=message):
        sp.render_panels([notebook], tmp_path / "frames", "panels", tmp_path / "cache", jobs=1)


def test_render_panels_needs_a_grid_row_and_workers(tmp_path):
    notebook = write_notebook(tmp_path / "unlisted.ipynb", PLOT, PANEL)
    with pytest.raises(sp.PanelError, match="unlisted: no row in static_panels.GRID"):
        sp.render_panels([notebook], tmp_path / "frames", "panels", tmp_path / "cache")
    with pytest.raises(ValueError, match="jobs must be at least 1, got jobs=0"):
        sp.render_panels([notebook], tmp_path / "frames", "panels", tmp_path / "cache", jobs=0)


def test_every_lecture_has_a_grid_row():
    stems = {path.stem for path in (ROOT / "notebooks").glob("*.ipynb")}
    assert set(sp.GRID) == stems
