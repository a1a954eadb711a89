"""Figures of the kernel Pegasos lecture (03): what each draws, and no pyplot."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.datasets import concentric_circles
from lsl_lib.kernel_pegasos import KernelPegasosClassifier
from lsl_lib.plotting import (plot_cache_effect, plot_feature_count, plot_kernel_pegasos,
                              plot_kernels, plot_suboptimality, plot_violation_counts)
from plotting_support import legend_labels, renders

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


@pytest.fixture(scope="module")
def circles():
    return concentric_circles(120, noise=0.1, random_state=0)


def test_plot_kernels_one_column_per_kernel():
    x = np.linspace(-2, 2, 41)
    profiles = {"gaussian": np.exp(-(x - 1) ** 2), "linear": x}
    matrices = {"gaussian": np.eye(4), "linear": np.ones((4, 4))}
    fig = plot_kernels(x, profiles, matrices, anchor=1.0, matrix_label="points")
    assert isinstance(fig, Figure)
    images = [ax for ax in fig.axes if ax.images]
    profile_axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in profile_axes] == ["gaussian", "linear"]
    assert len(images) == 2 and len(fig.axes) == 6  # two profiles, two heatmaps, two colorbars
    np.testing.assert_array_equal(images[0].images[0].get_array(), np.eye(4))
    np.testing.assert_allclose(profile_axes[1].get_lines()[0].get_ydata(), x)
    assert any(line.get_linestyle() == ":" and line.get_xdata()[0] == 1.0
               for line in profile_axes[0].get_lines())  # the anchor b
    renders(fig)
    assert len(plot_kernels(x, profiles).axes) == 2  # profiles only


def test_plot_feature_count_log_log_with_marks():
    d = np.array([1, 10, 100])
    fig = plot_feature_count(d, {"p = 2": [3, 66, 5151], "p = 3": [4, 286, 176851]},
                             marks={"digits": (64, 47905)}, title="D")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert legend_labels(ax) == ["p = 2", "p = 3", "digits: D = 47,905"]
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[1].get_ydata(), [4, 286, 176851])
    assert lines[2].get_marker() == "*" and lines[2].get_xdata()[0] == 64
    renders(fig)


def test_plot_cache_effect_one_axis_per_column():
    sizes = [0, 1, 2]
    runs = {"iid": dict(hit_rate=[0.0, 0.4, 0.9], kernel_evaluations=[10, 6, 1]),
            "permutation": dict(hit_rate=[0.0, 0.0, 0.9], kernel_evaluations=[8, 8, 1])}
    fig = plot_cache_effect(sizes, runs, full_cache=1.5, title="cache")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    hits, evaluations = fig.axes
    assert legend_labels(hits) == ["iid", "permutation", "all n rows fit"]
    np.testing.assert_allclose(hits.get_lines()[1].get_ydata(), [0.0, 0.0, 0.9])
    np.testing.assert_allclose(evaluations.get_lines()[0].get_ydata(), [10e-6, 6e-6, 1e-6])
    assert "millions" in evaluations.get_ylabel()  # no "1e6" offset text above the axis
    assert hits.get_lines()[2].get_xdata()[0] == 1.5
    assert hits.get_ylim()[1] <= 1.05 and evaluations.get_ylim()[0] == 0
    renders(fig)
    fig = plot_cache_effect(sizes, {"a": dict(seconds=[3.0, 2.0, 1.0])}, columns="seconds")
    assert len(fig.axes) == 1 and fig.axes[0].get_ylabel() == "time (s)"


def test_plot_suboptimality_draws_the_curve_and_t_times_it_without_fitting():
    t = np.array([0, 10, 20, 40, 80, 160, 320, 640, 1280])
    exact = np.r_[np.nan, 5.0 / t[1:]]  # exactly 5/t; t = 0 cannot be drawn on a log axis
    fig = plot_suboptimality({"exact": dict(iteration=t, suboptimality=exact)},
                             slopes={"exact": (-1.0, 0.0)}, fit_from=100, title="1/t")
    assert len(fig.axes) == 2 and fig.get_suptitle() == "1/t"
    curve, scaled = fig.axes
    for ax in (curve, scaled):
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), t[1:])
    np.testing.assert_allclose(curve.get_lines()[0].get_ydata(), 5.0 / t[1:])
    np.testing.assert_allclose(scaled.get_lines()[0].get_ydata(), 5.0)  # 1/t: flat at c = 5
    assert len(curve.get_lines()) == 1  # no guide fitted through the curve
    shaded = [p for p in curve.patches if p.get_alpha()]  # the fitted range, from 100 to the end
    from conftest import x_extent

    assert len(shaded) == 1 and np.allclose(x_extent(shaded[0]), (100, 1280))
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert legend == ["exact: slope −1.00 ± 0.00", "slopes fitted here"]
    fig.canvas.draw()
    ticks = [label.get_text() for label in curve.get_xticklabels() if label.get_text()]
    assert {"20", "50", "100", "200", "500", "1,000"} <= set(ticks)  # more than one x-tick
    renders(fig)


def test_plot_suboptimality_several_seeds_mean_and_band():
    t = np.array([0, 10, 100, 1000])
    runs = [dict(iteration=t, suboptimality=np.r_[1.0, c / t[1:]]) for c in (1.0, 3.0)]
    fig = plot_suboptimality({"λ": runs}, scaled=False)
    (ax,) = fig.axes
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 2.0 / t[1:])  # the mean of the seeds
    assert len(ax.collections) == 1  # the band between the percentiles
    assert [text.get_text() for text in fig.legends[0].get_texts()] == ["λ (2 seeds)"]
    renders(fig)


def test_plot_violation_counts_scatter():
    margins, fractions = np.array([-0.5, 0.8, 1.0, 2.5]), np.array([1.0, 1.0, 0.5, 0.0])
    fig = plot_violation_counts(margins, fractions, title="KKT")
    ax = fig.axes[0]
    points = [c for c in ax.collections if c.get_offsets().shape[0] == 4][0]
    np.testing.assert_allclose(points.get_offsets(), np.column_stack([margins, fractions]))
    assert "support examples (4)" in legend_labels(ax) and ax.get_title() == "KKT"
    renders(fig)


def test_plot_kernel_pegasos_marks_the_support_by_alpha(circles):
    X, y = circles
    clf = KernelPegasosClassifier(lam=1e-2, n_iter=600, gamma=1.0, record_every=100,
                                  reference_objective="auto", random_state=0).fit(X, y)
    alpha = clf.alpha_.copy()
    fig = plot_kernel_pegasos(clf, X, y, clf.history_, resolution=40, title="panel")
    np.testing.assert_array_equal(clf.alpha_, alpha)  # evaluated, never refitted
    assert isinstance(fig, Figure) and len(fig.axes) == 3  # regions, convergence, its twin
    regions, convergence, twin = fig.axes
    support = [c for c in regions.collections
               if c.get_offsets().shape[0] == len(clf.support_)][-1]
    np.testing.assert_allclose(support.get_offsets(), clf.support_vectors_)
    sizes = support.get_sizes()  # dual_coef_ = alpha_j y_j / (lam T): area follows alpha_j
    np.testing.assert_allclose(sizes, 8.0 + 152.0 * alpha / alpha.max())
    assert f"α ≠ 0: {len(clf.support_)} of {len(y)} (area ∝ |α|)" in legend_labels(regions)
    assert convergence.get_xscale() == "log" and convergence.get_yscale() == "log"
    first, guide = convergence.get_lines()[:2]
    assert first.get_xdata()[0] > 0  # t = 0 is left out of the log axis
    late = (first.get_xdata() * first.get_ydata())[len(first.get_xdata()) // 2:]
    c = float(f"{np.median(late):.2g}")  # the legend's c, to two significant digits
    np.testing.assert_allclose(guide.get_ydata() * guide.get_xdata(), c)
    assert f"c / t, c = {c:,g}" in legend_labels(convergence)
    np.testing.assert_allclose(twin.get_lines()[0].get_ydata(), clf.history_["n_support"])
    assert fig.get_suptitle() == "panel"
    renders(fig)


def test_plot_kernel_pegasos_without_history_takes_svc(circles):
    from sklearn.svm import SVC

    X, y = circles
    svc = SVC(C=1.0, gamma=1.0).fit(X, y)
    fig = plot_kernel_pegasos(svc, X, y, resolution=30)
    assert len(fig.axes) == 1
    assert f"α ≠ 0: {len(svc.support_)} of {len(y)} (area ∝ |α|)" in legend_labels(fig.axes[0])
    sizes = [c for c in fig.axes[0].collections if c.get_offsets().shape[0] == len(svc.support_)]
    np.testing.assert_allclose(sizes[-1].get_sizes().max(), 160.0)  # the largest |dual_coef_|
    renders(fig)
