"""Figures of the Nyström lecture (09): what each draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.plotting import new_figure, plot_landmarks, plot_nystroem

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")

X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])


def test_landmarks_grey_points_and_circled_landmarks():
    fig = plot_landmarks(X, [3, 0], title="uniform")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(fig.axes) == 1  # no colour bar without values
    points, circles = ax.collections
    np.testing.assert_allclose(points.get_offsets(), X)
    np.testing.assert_allclose(circles.get_offsets(), X[[3, 0]])
    assert ax.get_legend_handles_labels()[1] == ["landmarks (m = 2)"]
    assert ax.get_title() == "uniform"


def test_landmarks_coloured_by_values_on_a_given_scale():
    values = np.array([0.1, 0.9, 0.5, 0.0])
    fig, axes = new_figure(2)
    out = plot_landmarks(X, values=values, value_label="score", value_range=(0.0, 2.0),
                         ax=axes[1])
    assert out is fig and not axes[0].collections
    points = axes[1].collections[0]
    # drawn in increasing order of value, so the largest are on top
    np.testing.assert_allclose(points.get_array(), np.sort(values))
    np.testing.assert_allclose(points.get_offsets(), X[np.argsort(values)])
    assert points.get_clim() == (0.0, 2.0)
    assert axes[1].get_legend() is None  # no landmarks, no legend
    colour_bar = [ax for ax in fig.axes if ax not in axes]
    assert len(colour_bar) == 1 and colour_bar[0].get_ylabel() == "score"


def test_nystroem_two_panels_residual_scale_and_marker():
    residuals = np.array([0.0, 0.2, 0.4, 1.0])
    m = np.array([2, 4, 8])
    errors = {"uniform": np.array([[0.3, 0.2, 0.1], [0.5, 0.2, 0.1]]),
              "leverage": [0.2, 0.05, 0.01]}
    fig = plot_nystroem(X, [0, 1], residuals, m, errors, current=4, title="t")
    points_ax = [ax for ax in fig.axes if ax.collections][0]
    points, circles = points_ax.collections
    assert points.get_clim() == (0.0, 1.0)
    np.testing.assert_allclose(circles.get_offsets(), X[[0, 1]])
    err_ax = [ax for ax in fig.axes if ax.get_lines()][0]
    assert err_ax.get_xscale() == err_ax.get_yscale() == "log"
    labels = err_ax.get_legend_handles_labels()[1]
    assert labels == ["uniform (mean of 2)", "leverage", "m = 4 (left)"]  # no 1/√D guide
    np.testing.assert_allclose(err_ax.get_lines()[0].get_ydata(), [0.4, 0.2, 0.1])
    assert list(err_ax.get_lines()[-1].get_xdata()) == [4, 4]
    assert fig.get_suptitle() == "t"
    # a residual above 1 widens the colour scale
    fig = plot_nystroem(X, [0], residuals * 3, m, errors)
    points = [ax for ax in fig.axes if ax.collections][0].collections[0]
    assert points.get_clim() == (0.0, 3.0)
