"""Figures of the subgradients lecture (01): what each draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.losses import LOSSES, get_loss
from lsl_lib.plotting import (new_figure, plot_losses, plot_step_sizes, plot_subdifferentials,
                              plot_subgradient, plot_subgradient_descent)
from lsl_lib.subgradients import sgd_mean, subgradient_descent
from plotting_support import dashed_lines, legend_labels

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_plot_subdifferentials():
    fig = plot_subdifferentials()
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    ax_abs, ax_hinge = fig.axes
    # slopes in [-1, 1] and in [-1, 0]
    assert len(dashed_lines(ax_abs)) == 5 and len(dashed_lines(ax_hinge)) == 3
    for ax, kink in ((ax_abs, 0.0), (ax_hinge, 1.0)):
        for line in dashed_lines(ax):  # every supporting line passes through the kink
            x, y = line.get_data()
            slope = (y[-1] - y[0]) / (x[-1] - x[0])
            assert np.interp(kink, x, y) == pytest.approx(0.0, abs=1e-12)
            assert -1.0 - 1e-12 <= slope <= 1.0 + 1e-12


def test_plot_losses():
    fig = plot_losses()
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    top_left, top_right, bottom_left, bottom_right = fig.axes
    assert legend_labels(top_left) == ["0–1 loss (not convex)", "hinge", "log"]
    assert legend_labels(top_right) == ["squared", "epsilon_insensitive"]
    assert legend_labels(bottom_left) == ["hinge", "log"]
    assert legend_labels(bottom_right) == ["squared", "epsilon_insensitive"]
    fig = plot_losses(losses=LOSSES, zero_one=False)  # multiclass losses join the margin panels
    assert legend_labels(fig.axes[0]) == ["hinge", "log", "smoothed_hinge", "multiclass_hinge",
                                     "softmax"]


def test_plot_subgradient_kink_and_tangent():
    fig = plot_subgradient("hinge", 1.0)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    labels = legend_labels(fig.axes[0])
    assert "left slope -1.00" in labels and "right slope 0.00" in labels
    fig = plot_subgradient("log", 0.0)
    assert [label for label in legend_labels(fig.axes[0]) if label.startswith("tangent")] == [
        "tangent, slope -0.50"]
    fig = plot_subgradient(get_loss("epsilon_insensitive", epsilon=0.5), -0.5)
    labels = legend_labels(fig.axes[0])
    assert "left slope -1.00" in labels and "right slope 0.00" in labels


def test_plot_subgradient_lines_stay_visible_where_they_touch_the_loss():
    """At the hinge's kink the left line lies on the loss for z < 1: it must be drawn
    over the loss, which must not hide it (a translucent band, wider than the line)."""
    ax = plot_subgradient("hinge", 1.0).axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    loss = lines["hinge"]
    for label in ("left slope -1.00", "right slope 0.00"):
        assert lines[label].get_zorder() > loss.get_zorder()
        assert lines[label].get_linewidth() < loss.get_linewidth()
        assert lines[label].get_linestyle() != "-"
    assert loss.get_alpha() < 1


@pytest.mark.parametrize("name", LOSSES)
def test_plot_subgradient_every_loss_on_a_given_axis(name):
    fig, axes = new_figure(2)
    assert plot_subgradient(name, 0.3, ax=axes[1]) is fig
    assert not axes[0].get_lines() and axes[1].get_lines()


def test_plot_step_sizes():
    x = np.linspace(1.0, 3.0, 101)
    fig = plot_step_sizes({"1/t": sgd_mean(x, "1/t"), "1/t^2": sgd_mean(x, "1/t^2")}, mean=2.0)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert legend_labels(ax) == ["1/t", "1/t^2", "true mean 2"]
    assert len(ax.get_lines()) == 3 and ax.get_xscale() == "log"
    assert ax.get_lines()[0].get_xdata()[0] == 1  # t = 0 is not drawn on a log axis
    runs = sgd_mean(np.tile(x, (5, 1)), "constant", c=0.1)
    fig = plot_step_sizes({"c = 0.1": runs}, logx=False, title="five runs")
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 5 and legend_labels(ax) == ["c = 0.1"]
    assert ax.get_title() == "five runs"


def test_plot_subgradient_descent():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -0.5]])
    y = np.array([1.0, 1.0, -1.0])
    runs = {"const": subgradient_descent(X, y, n_iter=10, schedule="constant", c=0.1),
            "1/t": subgradient_descent(X, y, n_iter=10)}
    fig = plot_subgradient_descent(runs)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert fig.axes[0].get_yscale() == "linear" and len(fig.axes[0].get_lines()) == 2
    w1, w2 = np.linspace(-1, 1, 5), np.linspace(-1, 1, 4)
    F = np.add.outer(w2 ** 2, w1 ** 2)
    fig = plot_subgradient_descent(runs, f_star=0.0, contours=(w1, w2, F), paths=["1/t"],
                                   w_star=[0.0, 0.0], ylim=(1e-3, 10))
    ax_c, ax_f = fig.axes
    assert legend_labels(ax_c) == ["1/t", "minimiser $w^*$"]
    assert ax_f.get_yscale() == "log" and ax_f.get_ylim() == pytest.approx((1e-3, 10))
