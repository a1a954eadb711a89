"""The common ground of the figures: panels wrap onto rows so no figure is shrunk unreadable;
convergence curves of several runs, with their bands."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib._plotting._base import MAX_WIDTH
from lsl_lib.plotting import new_figure, plot_convergence
from plotting_support import bands, legend_labels, renders

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


@pytest.mark.parametrize("ncols, width, rows, per_row", [
    (1, 5.0, 1, 1), (2, 5.0, 1, 2), (3, 5.0, 2, 2), (4, 5.0, 2, 2), (5, 5.0, 3, 2),
    (3, 3.4, 1, 3), (4, 3.4, 2, 3), (2, 12.0, 2, 1),
])
def test_new_figure_wraps_panels_within_the_cell_width(ncols, width, rows, per_row):
    fig, axes = new_figure(ncols, width=width, height=3.0)
    assert len(axes) == ncols
    assert len(fig.axes) == ncols  # no empty slot left on the last row
    fig_width, fig_height = fig.get_size_inches()
    assert fig_width == pytest.approx(width * per_row)
    assert fig_height == pytest.approx(3.0 * rows)
    assert fig_width <= max(MAX_WIDTH, width)
    # reading order: left to right, then top to bottom
    positions = [ax.get_subplotspec().get_geometry()[2] for ax in axes]
    assert positions == list(range(ncols))


def test_time_axes_use_engineering_prefixes():
    """Seconds of a fast run read "200 µs", "1 ms", not "0.000000.00020" run together."""
    import numpy as np
    from lsl_lib.plotting import plot_convergence

    history = {"seconds": np.linspace(0.0, 2e-3, 20), "objective": np.linspace(2.0, 1.0, 20)}
    fig = plot_convergence({"run": history}, x="seconds", y="objective")
    ax = fig.axes[0]
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all(label.endswith("s") for label in labels), labels
    assert any("ms" in label for label in labels), labels
    assert ax.get_xlabel() == "time"


def test_log_axes_of_a_few_decades_read_as_plain_numbers():
    """An error curve from 0.3 down to 0.015 is labelled 0.02, 0.05, 0.1, 0.2, not 2×10⁻²."""
    import numpy as np
    from lsl_lib.plotting import plot_error_curves

    widths = np.array([16, 64, 256, 1024, 4096])
    fig = plot_error_curves(widths, {"RFF": 0.3 * (widths / 16.0) ** -0.5})
    ax = fig.axes[0]
    fig.canvas.draw()
    low, high = ax.get_ylim()
    labels = [t.get_text() for t in ax.get_yticklabels()
              if t.get_text() and low <= t.get_position()[1] <= high]
    assert {"0.02", "0.05", "0.1", "0.2"} <= set(labels), labels
    assert not any("^" in label or "times" in label for label in labels), labels  # no 2×10⁻²


def _history(values, n=None):
    values = np.asarray(values, dtype=float)
    x = np.arange(len(values)) if n is None else n
    return {"iteration": x, "epoch": x / 10, "suboptimality": values, "test_error": values / 10}


def test_plot_convergence_of_several_runs_draws_the_mean_and_a_percentile_band():
    a, b, c = _history([1.0, 0.1, 0.01]), _history([3.0, 0.3, 0.03]), _history([2.0, 0.2, 0.02])
    fig = plot_convergence({"iid": [a, b, c], "reshuffle": a}, x="epoch",
                           y=("suboptimality", "test_error"), title="sampling")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    assert legend_labels(left) == ["iid (mean of 3)", "reshuffle"]
    assert left.get_yscale() == "log" and right.get_yscale() == "linear"
    assert left.get_xlabel().startswith("epochs")
    mean = left.get_lines()[0]
    np.testing.assert_allclose(mean.get_xdata(), a["epoch"])
    np.testing.assert_allclose(mean.get_ydata(), [2.0, 0.2, 0.02])
    assert len(bands(left)) == 1 and len(bands(right)) == 1
    band = bands(left)[0].get_paths()[0].vertices[:, 1]  # between the quartiles: 1.5 .. 2.5 at t=0
    assert band.min() == pytest.approx(0.015) and band.max() == pytest.approx(2.5)
    assert fig.get_suptitle() == "sampling"
    renders(fig)


def test_plot_convergence_band_percentiles_are_a_parameter():
    runs = [_history([v, v / 10]) for v in (1.0, 2.0, 3.0, 4.0, 5.0)]
    fig = plot_convergence({"iid": runs}, y="suboptimality", band=(0, 100))
    band = bands(fig.axes[0])[0].get_paths()[0].vertices[:, 1]
    assert band.min() == pytest.approx(0.1) and band.max() == pytest.approx(5.0)


def test_plot_convergence_one_axis_per_column_one_line_per_run():
    histories = {
        "a": dict(iteration=np.arange(5), suboptimality=np.array([1.0, 0.5, 0.0, 0.1, 0.01]),
                  test_error=np.linspace(0.5, 0.1, 5)),
        "b": dict(iteration=np.arange(5), suboptimality=np.ones(5), test_error=np.ones(5)),
    }
    fig = plot_convergence(histories, y=("suboptimality", "test_error"), logx=True)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    assert left.get_yscale() == "log" and right.get_yscale() == "linear"
    assert left.get_xscale() == "log"
    assert legend_labels(left) == ["a", "b"]
    assert np.isnan(left.lines[0].get_ydata()[2])  # a zero cannot sit on a log axis
    assert left.get_ylabel() == "primal suboptimality f(w) − f(w*)"
    renders(fig)
