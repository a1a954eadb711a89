"""The common ground of the figures: panels wrap onto rows so no figure is shrunk unreadable."""
import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from lsl_lib._plotting._base import MAX_WIDTH  # noqa: E402
from lsl_lib.plotting import new_figure  # noqa: E402

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
