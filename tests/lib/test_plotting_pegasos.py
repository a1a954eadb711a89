"""Figures of the Pegasos lecture (02): what each draws, and no pyplot."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.datasets import two_gaussian_blobs
from lsl_lib.pegasos import PegasosClassifier
from lsl_lib.plotting import (new_figure, plot_decision_boundary,
                              plot_minibatch, plot_training_set_size, plot_weight_images)
from plotting_support import bands, legend_labels, renders

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


@pytest.fixture(scope="module")
def blobs():
    return two_gaussian_blobs(120, random_state=0)


def test_plot_minibatch_one_line_per_budget_with_bands():
    k = [1, 2, 4, 8]
    runs = np.array([[1.0, 1.0, 2.0, 8.0], [3.0, 1.0, 2.0, 4.0]])  # two seeds
    fig = plot_minibatch(k, {1_024: runs, 4_096: runs[0] / 10})
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert legend_labels(ax) == ["kT = 1,024", "kT = 4,096"]
    first, second = ax.get_lines()
    np.testing.assert_allclose(first.get_xdata(), k)
    np.testing.assert_allclose(first.get_ydata(), runs.mean(axis=0))
    assert len(bands(ax)) == 1  # a band only where there are several runs
    np.testing.assert_allclose(second.get_ydata(), runs[0] / 10)
    renders(fig)


def test_plot_minibatch_drops_non_positive_values_on_the_log_axis():
    fig = plot_minibatch([1, 2, 4], {100: np.array([1.0, 0.0, -1e-12])})
    y = fig.axes[0].get_lines()[0].get_ydata()
    assert y[0] == 1.0 and np.isnan(y[1:]).all()


def test_plot_training_set_size_marks_unreached_targets_at_the_budget():
    sizes = [1_000, 2_000, 4_000]
    fig = plot_training_set_size(sizes, {"target 8%": [900, 500, 300],
                                         "target 7%": [np.inf, 1_500, 700]}, budget=2_000)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert legend_labels(ax) == ["target 8%", "target 7%", "budget T = 2,000 (×: not reached)"]
    line_8, line_7, cross, budget = ax.get_lines()
    np.testing.assert_allclose(line_8.get_ydata(), [900, 500, 300])
    assert np.isnan(line_7.get_ydata()[0]) and line_7.get_ydata()[1] == 1_500
    assert cross.get_marker() == "x" and cross.get_color() == line_7.get_color()
    np.testing.assert_allclose(cross.get_ydata(), [2_000])
    assert cross.get_xdata()[0] == pytest.approx(1_000, rel=0.1)
    np.testing.assert_allclose(budget.get_ydata(), [2_000, 2_000])
    renders(fig)


def test_plot_training_set_size_without_budget():
    fig = plot_training_set_size([10, 100], {"t": [5.0, np.inf]})
    assert len(fig.axes[0].get_lines()) == 1


def test_plot_decision_boundary_hinge_log_and_multiclass(blobs):
    X, y = blobs
    hinge = PegasosClassifier(lam=0.1, n_iter=500, random_state=0).fit(X, y)
    log = PegasosClassifier(lam=0.1, loss="log", n_iter=500, random_state=0).fit(X, y)
    y3 = np.where(X[:, 1] > 2, 2, (y > 0).astype(int))
    multi = PegasosClassifier(lam=0.1, loss="multiclass_hinge", n_iter=500,
                              random_state=0).fit(X, y3)
    coef = hinge.coef_.copy()
    fig = plot_decision_boundary({"hinge": hinge, "log": log}, X, y, resolution=50)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    np.testing.assert_array_equal(hinge.coef_, coef)  # evaluated, never refitted
    ax_hinge, ax_log = fig.axes
    assert ax_hinge.get_title() == "hinge" and ax_log.get_title() == "log"
    assert legend_labels(ax_hinge) == ["y = -1", "y = 1"]
    # hinge: sign shading, the boundary and both margins; log: probability shading and 0.5 level
    hinge_levels = sorted(v for c in ax_hinge.collections if hasattr(c, "levels")
                          for v in c.levels)
    assert {-1.0, 0.0, 1.0} <= set(hinge_levels)
    assert any(hasattr(c, "levels") and list(c.levels) == [0.5] for c in ax_log.collections)
    renders(fig)
    fig = plot_decision_boundary(multi, X, y3, resolution=50, title="three classes")
    assert len(fig.axes) == 1 and legend_labels(fig.axes[0]) == ["y = 0", "y = 1", "y = 2"]
    renders(fig)


def test_plot_decision_boundary_needs_two_features(blobs):
    X, y = blobs
    clf = PegasosClassifier(lam=0.1, n_iter=10, random_state=0).fit(np.c_[X, X[:, 0]], y)
    with pytest.raises(ValueError, match="2 columns"):
        plot_decision_boundary(clf, np.c_[X, X[:, 0]], y)


def test_plot_weight_images_one_image_per_row_and_a_colorbar():
    coef = np.arange(10 * 64, dtype=float).reshape(10, 64) - 320
    fig = plot_weight_images(coef, (8, 8), labels=[f"digit {i}" for i in range(10)],
                             title="templates")
    assert isinstance(fig, Figure)
    images = [ax for ax in fig.axes if ax.images]
    assert len(images) == 10 and len(fig.axes) == 11  # ten images and the colorbar
    assert [ax.get_title() for ax in images] == [f"digit {i}" for i in range(10)]
    np.testing.assert_array_equal(images[3].images[0].get_array(), coef[3].reshape(8, 8))
    low, high = images[0].images[0].get_clim()
    assert low == -high == -np.abs(coef).max()  # symmetric: white is a zero weight
    renders(fig)


def test_plot_weight_images_hides_unused_axes():
    fig = plot_weight_images(np.ones((3, 4)), (2, 2), ncols=2)
    images = [ax for ax in fig.axes if ax.images]
    assert len(images) == 3 and [ax.get_title() for ax in images] == ["0", "1", "2"]


def test_plot_decision_boundary_into_one_axis_of_a_larger_figure(blobs):
    X, y = blobs
    clf = PegasosClassifier(lam=0.1, n_iter=200, random_state=0).fit(X, y)
    fig, axes = new_figure(2)
    assert plot_decision_boundary(clf, X, y, resolution=30, title="one panel", ax=axes[1]) is fig
    assert len(fig.axes) == 2 and not axes[0].collections and axes[1].collections
    assert axes[1].get_title() == "one panel" and fig.get_suptitle() == ""
    with pytest.raises(ValueError, match="one estimator"):
        plot_decision_boundary({"a": clf, "b": clf}, X, y, ax=axes[0])
