"""Figures of the ELM lecture (11): what each draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.plotting import (plot_accuracy_against_width, plot_activations, plot_break_points,
                             plot_elm_fit, plot_solver_times)

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_activations_one_panel_per_node_with_its_formula():
    z = np.linspace(-2, 2, 5)
    values = {"relu": np.maximum(z, 0), "tanh": np.tanh(z), "cosine": np.cos(z)}
    fig = plot_activations(z, values, formulas={"relu": "max(0, z)"})
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    assert [ax.get_title() for ax in fig.axes] == ["relu\nmax(0, z)", "tanh", "cosine"]
    np.testing.assert_allclose(fig.axes[0].get_lines()[0].get_ydata(), np.maximum(z, 0))


def test_solver_times_against_n_over_l_with_the_crossing():
    n = np.array([50, 100, 200, 400])
    seconds = {"primal": [[0.2, 0.2, 0.3, 0.4], [0.4, 0.2, 0.3, 0.6]],
               "dual": [0.01, 0.1, 0.3, 1.0]}
    fig = plot_solver_times(n, seconds, 100, title="t")
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    primal, dual, crossing = ax.get_lines()
    np.testing.assert_allclose(primal.get_xdata(), [0.5, 1, 2, 4])
    np.testing.assert_allclose(primal.get_ydata(), [0.3, 0.2, 0.3, 0.5])  # the median of runs
    assert list(crossing.get_xdata()) == [1, 1]
    assert ax.get_legend_handles_labels()[1] == ["primal", "dual", "N = L"]
    assert "L = 100" in ax.get_xlabel() and ax.get_title() == "t"


def test_elm_fit_curves_left_errors_right():
    x = np.linspace(-1, 1, 11)
    fits = {"L = 4": x ** 2, "L = 8": x}
    errors = {"train": [[0.3, 0.1, 0.01], [0.5, 0.1, 0.03]], "test": [0.4, 0.2, 0.3]}
    fig = plot_elm_fit(x, np.sin(x), x[::2], np.sin(x[::2]), fits, [2, 4, 8], errors, current=4,
                       title="t")
    fit_ax, err_ax = fig.axes
    labels = fit_ax.get_legend_handles_labels()[1]
    assert labels == ["training sample", "true f", "L = 4", "L = 8"]
    np.testing.assert_allclose(fit_ax.collections[0].get_offsets(), np.c_[x[::2], np.sin(x[::2])])
    assert err_ax.get_xscale() == err_ax.get_yscale() == "log"
    assert err_ax.get_legend_handles_labels()[1] == ["train (mean of 2)", "test", "L = 4"]
    np.testing.assert_allclose(err_ax.get_lines()[0].get_ydata(), [0.4, 0.1, 0.02])
    assert fig.get_suptitle() == "t"
    # a fit that runs wild leaves the frame, the data stay in it
    wild = plot_elm_fit(x, np.sin(x), x, np.sin(x), {"wild": 100 * x}, [2], {"test": [1.0]})
    low, high = wild.axes[0].get_ylim()
    assert low < -np.sin(1) and high > np.sin(1) and high < 5


def test_elm_fit_draws_the_noise_level():
    x = np.linspace(-1, 1, 11)
    fig = plot_elm_fit(x, x, x, x, {"L = 4": x}, [2, 4, 8], {"test": [0.4, 0.2, 0.3]},
                       noise_level=0.04)
    err_ax = fig.axes[1]
    noise = [line for line in err_ax.get_lines() if line.get_label().startswith("noise")]
    assert len(noise) == 1 and list(noise[0].get_ydata()) == [0.04, 0.04]
    assert noise[0].get_label() == "noise σ² = 0.04"


def test_break_points_histogram_counts_only_the_window():
    points = np.array([-0.5, 0.0, 0.1, 0.2, 5.0, -7.0, 0.9, 2.5])
    fig = plot_break_points(points, window=3.0, bins=6, title="t")
    ax = fig.axes[0]
    from conftest import x_extent

    bars = [patch for patch in ax.patches if np.diff(x_extent(patch))[0] < 2]  # not the span
    heights = [patch.get_height() for patch in bars]
    assert sum(heights) == 6  # the two points beyond ±3 are left out, and said so
    assert "25% beyond ±3" in ax.get_legend_handles_labels()[1][1]
    assert ax.get_xlim() == (-3.0, 3.0) and ax.get_title() == "t"


def test_accuracy_against_width_mean_and_standard_error():
    accuracy = {"a": [[0.90, 0.95], [0.92, 0.97]], "b": [0.80, 0.85]}
    fig = plot_accuracy_against_width([32, 64], accuracy, xlabel="L")
    ax = fig.axes[0]
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[0].get_ydata(), [91.0, 96.0])
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "L"
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["a (mean ± s.e. of 2 seeds)", "b"]
    bars = ax.containers[0].lines[2][0].get_segments()  # the error bars of "a": ± 1
    np.testing.assert_allclose([seg[1, 1] - seg[0, 1] for seg in bars], [2.0, 2.0])
