"""Figures: each plotting function returns a Figure with the expected axes and lines, and
never goes through pyplot (no global figure left behind when a widget redraws)."""
import io

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from lsl_lib.datasets import two_gaussian_blobs  # noqa: E402

from lsl_lib.losses import LOSSES, get_loss  # noqa: E402
from lsl_lib.subgradients import sgd_mean, subgradient_descent  # noqa: E402
from lsl_lib.pegasos import PegasosClassifier  # noqa: E402
from lsl_lib.plotting import (new_figure, plot_convergence, plot_decision_boundary,  # noqa: E402
                              plot_losses,
                              plot_minibatch, plot_step_sizes,
                              plot_subdifferentials, plot_subgradient, plot_subgradient_descent,
                              plot_training_set_size, plot_weight_images)


pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def _labels(ax):
    return ax.get_legend_handles_labels()[1]


def _dashed(ax):
    return [line for line in ax.get_lines() if line.get_linestyle() == "--"]


def test_plot_subdifferentials():
    fig = plot_subdifferentials()
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    ax_abs, ax_hinge = fig.axes
    assert len(_dashed(ax_abs)) == 5 and len(_dashed(ax_hinge)) == 3  # slopes in [-1, 1], [-1, 0]
    for ax, kink in ((ax_abs, 0.0), (ax_hinge, 1.0)):
        for line in _dashed(ax):  # every supporting line passes through the kink
            x, y = line.get_data()
            slope = (y[-1] - y[0]) / (x[-1] - x[0])
            assert np.interp(kink, x, y) == pytest.approx(0.0, abs=1e-12)
            assert -1.0 - 1e-12 <= slope <= 1.0 + 1e-12


def test_plot_losses():
    fig = plot_losses()
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    top_left, top_right, bottom_left, bottom_right = fig.axes
    assert _labels(top_left) == ["0–1 loss (not convex)", "hinge", "log"]
    assert _labels(top_right) == ["squared", "epsilon_insensitive"]
    assert _labels(bottom_left) == ["hinge", "log"]
    assert _labels(bottom_right) == ["squared", "epsilon_insensitive"]
    fig = plot_losses(losses=LOSSES, zero_one=False)  # multiclass losses join the margin panels
    assert _labels(fig.axes[0]) == ["hinge", "log", "smoothed_hinge", "multiclass_hinge",
                                     "softmax"]


def test_plot_subgradient_kink_and_tangent():
    fig = plot_subgradient("hinge", 1.0)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    labels = _labels(fig.axes[0])
    assert "left slope -1.00" in labels and "right slope 0.00" in labels
    fig = plot_subgradient("log", 0.0)
    assert [label for label in _labels(fig.axes[0]) if label.startswith("tangent")] == [
        "tangent, slope -0.50"]
    fig = plot_subgradient(get_loss("epsilon_insensitive", epsilon=0.5), -0.5)
    labels = _labels(fig.axes[0])
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
    assert _labels(ax) == ["1/t", "1/t^2", "true mean 2"]
    assert len(ax.get_lines()) == 3 and ax.get_xscale() == "log"
    assert ax.get_lines()[0].get_xdata()[0] == 1  # t = 0 is not drawn on a log axis
    runs = sgd_mean(np.tile(x, (5, 1)), "constant", c=0.1)
    fig = plot_step_sizes({"c = 0.1": runs}, logx=False, title="five runs")
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 5 and _labels(ax) == ["c = 0.1"] and ax.get_title() == "five runs"


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
    assert _labels(ax_c) == ["1/t", "minimiser $w^*$"]
    assert ax_f.get_yscale() == "log" and ax_f.get_ylim() == pytest.approx((1e-3, 10))


# Lecture 02: Pegasos

def _renders(fig):
    fig.savefig(io.BytesIO(), format="png")


def _bands(ax):
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def _history(values, n=None):
    values = np.asarray(values, dtype=float)
    x = np.arange(len(values)) if n is None else n
    return {"iteration": x, "epoch": x / 10, "suboptimality": values, "test_error": values / 10}


def test_plot_minibatch_one_line_per_budget_with_bands():
    k = [1, 2, 4, 8]
    runs = np.array([[1.0, 1.0, 2.0, 8.0], [3.0, 1.0, 2.0, 4.0]])  # two seeds
    fig = plot_minibatch(k, {1_024: runs, 4_096: runs[0] / 10})
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert _labels(ax) == ["kT = 1,024", "kT = 4,096"]
    first, second = ax.get_lines()
    np.testing.assert_allclose(first.get_xdata(), k)
    np.testing.assert_allclose(first.get_ydata(), runs.mean(axis=0))
    assert len(_bands(ax)) == 1  # a band only where there are several runs
    np.testing.assert_allclose(second.get_ydata(), runs[0] / 10)
    _renders(fig)


def test_plot_minibatch_drops_non_positive_values_on_the_log_axis():
    fig = plot_minibatch([1, 2, 4], {100: np.array([1.0, 0.0, -1e-12])})
    y = fig.axes[0].get_lines()[0].get_ydata()
    assert y[0] == 1.0 and np.isnan(y[1:]).all()


def test_plot_convergence_of_several_runs_draws_the_mean_and_a_percentile_band():
    a, b, c = _history([1.0, 0.1, 0.01]), _history([3.0, 0.3, 0.03]), _history([2.0, 0.2, 0.02])
    fig = plot_convergence({"iid": [a, b, c], "reshuffle": a}, x="epoch",
                           y=("suboptimality", "test_error"), title="sampling")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    assert _labels(left) == ["iid (mean of 3)", "reshuffle"]
    assert left.get_yscale() == "log" and right.get_yscale() == "linear"
    assert left.get_xlabel().startswith("epochs")
    mean = left.get_lines()[0]
    np.testing.assert_allclose(mean.get_xdata(), a["epoch"])
    np.testing.assert_allclose(mean.get_ydata(), [2.0, 0.2, 0.02])
    assert len(_bands(left)) == 1 and len(_bands(right)) == 1
    band = _bands(left)[0].get_paths()[0].vertices[:, 1]  # between the quartiles: 1.5 .. 2.5 at t=0
    assert band.min() == pytest.approx(0.015) and band.max() == pytest.approx(2.5)
    assert fig._suptitle.get_text() == "sampling"
    _renders(fig)


def test_plot_convergence_band_percentiles_are_a_parameter():
    runs = [_history([v, v / 10]) for v in (1.0, 2.0, 3.0, 4.0, 5.0)]
    fig = plot_convergence({"iid": runs}, y="suboptimality", band=(0, 100))
    band = _bands(fig.axes[0])[0].get_paths()[0].vertices[:, 1]
    assert band.min() == pytest.approx(0.1) and band.max() == pytest.approx(5.0)


def test_plot_training_set_size_marks_unreached_targets_at_the_budget():
    sizes = [1_000, 2_000, 4_000]
    fig = plot_training_set_size(sizes, {"target 8%": [900, 500, 300],
                                         "target 7%": [np.inf, 1_500, 700]}, budget=2_000)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert _labels(ax) == ["target 8%", "target 7%", "budget T = 2,000 (×: not reached)"]
    line_8, line_7, cross, budget = ax.get_lines()
    np.testing.assert_allclose(line_8.get_ydata(), [900, 500, 300])
    assert np.isnan(line_7.get_ydata()[0]) and line_7.get_ydata()[1] == 1_500
    assert cross.get_marker() == "x" and cross.get_color() == line_7.get_color()
    np.testing.assert_allclose(cross.get_ydata(), [2_000])
    assert cross.get_xdata()[0] == pytest.approx(1_000, rel=0.1)
    np.testing.assert_allclose(budget.get_ydata(), [2_000, 2_000])
    _renders(fig)


def test_plot_training_set_size_without_budget():
    fig = plot_training_set_size([10, 100], {"t": [5.0, np.inf]})
    assert len(fig.axes[0].get_lines()) == 1


@pytest.fixture(scope="module")
def blobs():
    return two_gaussian_blobs(120, random_state=0)


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
    assert _labels(ax_hinge) == ["y = -1", "y = 1"]
    # hinge: sign shading, the boundary and both margins; log: probability shading and 0.5 level
    hinge_levels = sorted(v for c in ax_hinge.collections if hasattr(c, "levels")
                          for v in c.levels)
    assert {-1.0, 0.0, 1.0} <= set(hinge_levels)
    assert any(hasattr(c, "levels") and list(c.levels) == [0.5] for c in ax_log.collections)
    _renders(fig)
    fig = plot_decision_boundary(multi, X, y3, resolution=50, title="three classes")
    assert len(fig.axes) == 1 and _labels(fig.axes[0]) == ["y = 0", "y = 1", "y = 2"]
    _renders(fig)


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
    _renders(fig)


def test_plot_weight_images_hides_unused_axes():
    fig = plot_weight_images(np.ones((3, 4)), (2, 2), ncols=2)
    images = [ax for ax in fig.axes if ax.images]
    assert len(images) == 3 and [ax.get_title() for ax in images] == ["0", "1", "2"]


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
    assert _labels(left) == ["a", "b"]
    assert np.isnan(left.lines[0].get_ydata()[2])  # a zero cannot sit on a log axis
    assert left.get_ylabel() == "primal suboptimality f(w) − f(w*)"
    _renders(fig)


# Lecture 03: kernel Pegasos

from lsl_lib.datasets import concentric_circles  # noqa: E402
from lsl_lib.kernel_pegasos import KernelPegasosClassifier  # noqa: E402
from lsl_lib.plotting import (plot_cache_effect, plot_feature_count, plot_kernel_pegasos,  # noqa: E402
                              plot_kernels, plot_suboptimality, plot_violation_counts)


@pytest.fixture(scope="module")
def circles():
    return concentric_circles(120, noise=0.1, random_state=0)


def test_plot_decision_boundary_into_one_axis_of_a_larger_figure(blobs):
    X, y = blobs
    clf = PegasosClassifier(lam=0.1, n_iter=200, random_state=0).fit(X, y)
    fig, axes = new_figure(2)
    assert plot_decision_boundary(clf, X, y, resolution=30, title="one panel", ax=axes[1]) is fig
    assert len(fig.axes) == 2 and not axes[0].collections and axes[1].collections
    assert axes[1].get_title() == "one panel" and fig._suptitle is None
    with pytest.raises(ValueError, match="one estimator"):
        plot_decision_boundary({"a": clf, "b": clf}, X, y, ax=axes[0])


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
    _renders(fig)
    assert len(plot_kernels(x, profiles).axes) == 2  # profiles only


def test_plot_feature_count_log_log_with_marks():
    d = np.array([1, 10, 100])
    fig = plot_feature_count(d, {"p = 2": [3, 66, 5151], "p = 3": [4, 286, 176851]},
                             marks={"digits": (64, 47905)}, title="D")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert _labels(ax) == ["p = 2", "p = 3", "digits: D = 47,905"]
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[1].get_ydata(), [4, 286, 176851])
    assert lines[2].get_marker() == "*" and lines[2].get_xdata()[0] == 64
    _renders(fig)


def test_plot_cache_effect_one_axis_per_column():
    sizes = [0, 1, 2]
    runs = {"iid": dict(hit_rate=[0.0, 0.4, 0.9], kernel_evaluations=[10, 6, 1]),
            "permutation": dict(hit_rate=[0.0, 0.0, 0.9], kernel_evaluations=[8, 8, 1])}
    fig = plot_cache_effect(sizes, runs, full_cache=1.5, title="cache")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    hits, evaluations = fig.axes
    assert _labels(hits) == ["iid", "permutation", "all n rows fit"]
    np.testing.assert_allclose(hits.get_lines()[1].get_ydata(), [0.0, 0.0, 0.9])
    np.testing.assert_allclose(evaluations.get_lines()[0].get_ydata(), [10e-6, 6e-6, 1e-6])
    assert "millions" in evaluations.get_ylabel()  # no "1e6" offset text above the axis
    assert hits.get_lines()[2].get_xdata()[0] == 1.5
    assert hits.get_ylim()[1] <= 1.05 and evaluations.get_ylim()[0] == 0
    _renders(fig)
    fig = plot_cache_effect(sizes, {"a": dict(seconds=[3.0, 2.0, 1.0])}, columns="seconds")
    assert len(fig.axes) == 1 and fig.axes[0].get_ylabel() == "time (s)"


def test_plot_suboptimality_draws_the_curve_and_t_times_it_without_fitting():
    t = np.array([0, 10, 20, 40, 80, 160, 320, 640, 1280])
    exact = np.r_[np.nan, 5.0 / t[1:]]  # exactly 5/t; t = 0 cannot be drawn on a log axis
    fig = plot_suboptimality({"exact": dict(iteration=t, suboptimality=exact)},
                             slopes={"exact": (-1.0, 0.0)}, fit_from=100, title="1/t")
    assert len(fig.axes) == 2 and fig._suptitle.get_text() == "1/t"
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
    _renders(fig)


def test_plot_suboptimality_several_seeds_mean_and_band():
    t = np.array([0, 10, 100, 1000])
    runs = [dict(iteration=t, suboptimality=np.r_[1.0, c / t[1:]]) for c in (1.0, 3.0)]
    fig = plot_suboptimality({"λ": runs}, scaled=False)
    (ax,) = fig.axes
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 2.0 / t[1:])  # the mean of the seeds
    assert len(ax.collections) == 1  # the band between the percentiles
    assert [text.get_text() for text in fig.legends[0].get_texts()] == ["λ (2 seeds)"]
    _renders(fig)


def test_plot_violation_counts_scatter():
    margins, fractions = np.array([-0.5, 0.8, 1.0, 2.5]), np.array([1.0, 1.0, 0.5, 0.0])
    fig = plot_violation_counts(margins, fractions, title="KKT")
    ax = fig.axes[0]
    points = [c for c in ax.collections if c.get_offsets().shape[0] == 4][0]
    np.testing.assert_allclose(points.get_offsets(), np.column_stack([margins, fractions]))
    assert "support examples (4)" in _labels(ax) and ax.get_title() == "KKT"
    _renders(fig)


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
    assert f"α ≠ 0: {len(clf.support_)} of {len(y)} (area ∝ |α|)" in _labels(regions)
    assert convergence.get_xscale() == "log" and convergence.get_yscale() == "log"
    first, guide = convergence.get_lines()[:2]
    assert first.get_xdata()[0] > 0  # t = 0 is left out of the log axis
    late = (first.get_xdata() * first.get_ydata())[len(first.get_xdata()) // 2:]
    c = float(f"{np.median(late):.2g}")  # the legend's c, to two significant digits
    np.testing.assert_allclose(guide.get_ydata() * guide.get_xdata(), c)
    assert f"c / t, c = {c:,g}" in _labels(convergence)
    np.testing.assert_allclose(twin.get_lines()[0].get_ydata(), clf.history_["n_support"])
    assert fig._suptitle.get_text() == "panel"
    _renders(fig)


def test_plot_kernel_pegasos_without_history_takes_svc(circles):
    from sklearn.svm import SVC

    X, y = circles
    svc = SVC(C=1.0, gamma=1.0).fit(X, y)
    fig = plot_kernel_pegasos(svc, X, y, resolution=30)
    assert len(fig.axes) == 1
    assert f"α ≠ 0: {len(svc.support_)} of {len(y)} (area ∝ |α|)" in _labels(fig.axes[0])
    sizes = [c for c in fig.axes[0].collections if c.get_offsets().shape[0] == len(svc.support_)]
    np.testing.assert_allclose(sizes[-1].get_sizes().max(), 160.0)  # the largest |dual_coef_|
    _renders(fig)


# Lecture 04: online kernel learning

from lsl_lib.online_kernel import OnlineKernelClassifier  # noqa: E402
from lsl_lib.plotting import (plot_coefficients, plot_margin_losses,  # noqa: E402
                              plot_online_convergence, plot_online_kernel, plot_support)


@pytest.fixture(scope="module")
def online_fit():
    from lsl_lib.datasets import concentric_circles as circles_data

    X, y = circles_data(120, noise=0.1, random_state=0)
    X_test, y_test = circles_data(60, noise=0.1, random_state=1)
    clf = OnlineKernelClassifier(model="l2_svm", C=10.0, eta=0.05, gamma=2.0, bias=True,
                                 n_epochs=5, record_every=60, random_state=0)
    return X, y, clf.fit(X, y, eval_set=(X_test, y_test))


def _support_markers(ax, n_support):
    return [c for c in ax.collections if c.get_offsets().shape[0] == n_support][-1]


def test_plot_margin_losses_one_line_per_loss_psi_where_given():
    z = np.linspace(-2, 3, 51)
    losses = {"hinge": np.maximum(0, 1 - z), "squared": 0.5 * (1 - z) ** 2}
    fig = plot_margin_losses(z, losses, {"hinge": (z < 1).astype(float)}, title="losses")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    ax_loss, ax_psi = fig.axes
    assert _labels(ax_loss) == ["hinge", "squared"] and _labels(ax_psi) == ["hinge"]
    np.testing.assert_allclose(ax_loss.get_lines()[1].get_ydata(), losses["squared"])
    np.testing.assert_allclose(ax_psi.get_lines()[0].get_ydata(), (z < 1).astype(float))
    assert ax_loss.get_lines()[0].get_linewidth() > ax_loss.get_lines()[1].get_linewidth()
    assert len(ax_loss.patches) == len(ax_psi.patches) == 1  # shaded: beyond the margin
    legend, = fig.legends  # under both axes, off the curves
    assert [text.get_text() for text in legend.get_texts()] == ["hinge", "squared"]
    assert fig._suptitle.get_text() == "losses"
    _renders(fig)
    assert not plot_margin_losses(z, losses, {}, margin=None).axes[1].patches


def test_plot_support_circles_the_support_by_abs_alpha(online_fit):
    X, y, clf = online_fit
    alpha = clf.alpha_.copy()
    fig = plot_support({"a": clf, "b": clf}, X, y, resolution=30, title="supports")
    np.testing.assert_array_equal(clf.alpha_, alpha)  # evaluated, never refitted
    three = plot_support({"a": clf, "b": clf, "c": clf}, X, y, resolution=10)
    assert len({round(ax.get_position().y0, 6) for ax in three.axes}) == 1  # one row, no empty slot
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert [ax.get_title() for ax in fig.axes] == ["a", "b"]
    markers = _support_markers(fig.axes[0], len(clf.support_))
    np.testing.assert_allclose(markers.get_offsets(), clf.support_vectors_)
    sizes, magnitude = markers.get_sizes(), np.abs(clf.dual_coef_)
    assert sizes[np.argmax(magnitude)] == pytest.approx(160.0)
    assert np.argmin(sizes) == np.argmin(magnitude)
    label = f"α ≠ 0: {len(clf.support_)} of {len(y)} (area ∝ |α|)"
    assert label in _labels(fig.axes[0])
    assert fig._suptitle.get_text() == "supports"
    _renders(fig)


def test_plot_support_with_svc_and_with_an_empty_support(online_fit):
    from sklearn.svm import SVC

    X, y, _ = online_fit
    svc = SVC(C=1.0, gamma=2.0).fit(X, y)  # dual_coef_ of shape (1, n_SV)
    empty = OnlineKernelClassifier(model="l1_svm_l1", C=0.5, n_epochs=1, random_state=0).fit(X, y)
    assert len(empty.support_) == 0
    fig = plot_support({"svc": svc, "empty": empty}, X, y, resolution=20)
    np.testing.assert_allclose(_support_markers(fig.axes[0], len(svc.support_)).get_offsets(),
                               svc.support_vectors_)
    assert "α ≠ 0: none" in _labels(fig.axes[1])
    _renders(fig)


def test_plot_coefficients_sorted_magnitudes_and_counts():
    alphas = {"sparse": np.array([0.0, -2.0, 0.5, 0.0]), "dense": np.array([1.0, -0.1, 3.0, 0.2])}
    fig = plot_coefficients(alphas, title="sparsity")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_title() == "sparsity"
    assert _labels(ax) == ["sparse: 2 of 4 non-zero", "dense: 4 of 4 non-zero"]
    sparse_line = ax.get_lines()[0]
    np.testing.assert_allclose(sparse_line.get_xdata(), [1, 2])
    np.testing.assert_allclose(sparse_line.get_ydata(), [2.0, 0.5])
    assert ax.get_ylim()[0] == pytest.approx(0.1 / 3)  # room under the smallest non-zero
    _renders(fig)
    assert len(plot_coefficients({"zero": np.zeros(3)}).axes) == 1  # nothing to draw: no error


def test_plot_online_kernel_regions_errors_and_support_size(online_fit):
    X, y, clf = online_fit
    history = clf.history_
    fig = plot_online_kernel(clf, X, y, history, message="careful", resolution=30, title="panel")
    assert isinstance(fig, Figure) and len(fig.axes) == 3  # regions, errors, the support size
    regions, errors, twin = fig.axes
    np.testing.assert_allclose(_support_markers(regions, len(clf.support_)).get_offsets(),
                               clf.support_vectors_)
    assert "careful" in [text.get_text() for text in regions.texts]
    train, test = errors.get_lines()[:2]
    np.testing.assert_allclose(train.get_xdata(), history["epoch"])
    np.testing.assert_allclose(train.get_ydata(), history["train_error"])
    np.testing.assert_allclose(test.get_ydata(), history["test_error"])
    np.testing.assert_allclose(twin.get_lines()[0].get_ydata(), history["n_nonzero"])
    assert errors.get_ylim()[0] == 0 and twin.get_ylim()[1] == pytest.approx(1.05 * len(y))
    assert fig._suptitle.get_text() == "panel"
    _renders(fig)


def test_plot_online_convergence_objective_and_errors(online_fit):
    _, _, clf = online_fit
    history = clf.history_
    fig = plot_online_convergence({"a": history, "b": history}, title="J")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    fig.canvas.draw()
    assert len({round(ax.get_position().y0, 6) for ax in fig.axes}) == 1  # one row of three
    objective, train, test = fig.axes
    assert objective.get_ylabel() == "J(α) = ½ αᵀKα + C Σᵢ ℓ(zᵢ)"
    assert objective.get_xscale() == objective.get_yscale() == "log"
    assert train.get_yscale() == "linear" and train.get_ylim()[0] == 0
    later = history["epoch"] > 0  # epoch 0 cannot be drawn on the log axis
    np.testing.assert_allclose(objective.get_lines()[0].get_xdata(), history["epoch"][later])
    np.testing.assert_allclose(objective.get_lines()[0].get_ydata(),
                               history["rkhs_objective"][later])
    np.testing.assert_allclose(test.get_lines()[1].get_ydata(), history["test_error"][later])
    legend, = fig.legends
    assert [text.get_text() for text in legend.get_texts()] == ["a", "b"]
    assert fig._suptitle.get_text() == "J"
    _renders(fig)
    assert len(plot_online_convergence({"a": history}, columns="objective").axes) == 1


def test_plot_online_kernel_without_history_or_without_a_model(online_fit):
    X, y, clf = online_fit
    fig = plot_online_kernel(clf, X, y, resolution=20)
    assert len(fig.axes) == 1 and fig.axes[0].collections
    fig = plot_online_kernel(None, X, y, history={"epoch": [0, 1], "train_error": [0.5, 0.1]},
                             message="diverged")
    regions, errors = fig.axes
    assert regions.get_title() == "no model" and "diverged" in [t.get_text() for t in regions.texts]
    assert sum(c.get_offsets().shape[0] for c in regions.collections) == len(y)  # the data only
    assert _labels(errors) == ["training error"]
    _renders(fig)
    fig = plot_online_kernel(None, X, y, history={"epoch": [], "train_error": []})
    empty = fig.axes[1]
    assert empty.get_xlim() == (0, 1) and empty.texts[0].get_text() == "nothing recorded"


# --- Coordinate descent lecture -------------------------------------------------------------

from lsl_lib.plotting import (AXIS_LABELS, plot_duality_gap, plot_lasso_path,  # noqa: E402
                              plot_residuals, plot_suboptimality_and_gap)


def test_cd_axis_labels_are_registered():
    for column in ("duality_gap", "dual_objective", "n_active", "relative_residual"):
        assert column in AXIS_LABELS


def test_plot_duality_gap_draws_the_gap_and_its_two_parts():
    history = {"epoch": np.arange(4.0), "objective": np.array([4.0, 3.0, 2.5, 2.4]),
               "dual_objective": np.array([0.0, 1.0, 2.0, 2.4]),
               "duality_gap": np.array([4.0, 2.0, 0.5, 0.0])}
    fig = plot_duality_gap(history, p_star=2.4, title="gap")
    ax, = fig.axes
    gap, primal, dual = ax.get_lines()
    np.testing.assert_allclose(gap.get_ydata()[:3], history["duality_gap"][:3])
    np.testing.assert_allclose(primal.get_ydata()[:3], [1.6, 0.6, 0.1])  # P(w) - P*
    np.testing.assert_allclose(dual.get_ydata()[:3], [2.4, 1.4, 0.4])  # P* - D(alpha)
    for line in (gap, primal, dual):  # 0 cannot be drawn on a log axis
        assert np.isnan(line.get_ydata()[-1])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "duality gap P(w) − D(α)", "primal suboptimality P(w) − P*",
        "dual suboptimality P* − D(α)"]
    assert ax.get_yscale() == "log" and ax.get_title() == "gap"
    _renders(fig)
    fig = plot_duality_gap(history)  # no P*: the gap alone
    assert len(fig.axes[0].get_lines()) == 1


def test_plot_suboptimality_and_gap_leaves_primal_methods_out_of_the_gap_panel():
    runs = {"Pegasos": {"epoch": [0, 1, 2], "suboptimality": [1.0, 0.3, 0.2]},
            "SDCA": {"epoch": [0, 1, 2], "suboptimality": [1.0, 0.1, 0.0],
                     "duality_gap": [2.0, 0.2, 0.01]}}
    fig = plot_suboptimality_and_gap(runs, title="Pegasos vs SDCA")
    sub, gap = fig.axes
    assert _labels(sub) == ["Pegasos", "SDCA"] and _labels(gap) == ["SDCA"]
    assert sub.get_lines()[1].get_color() == gap.get_lines()[0].get_color()  # one colour a method
    assert np.isnan(sub.get_lines()[1].get_ydata()[-1])
    assert sub.get_yscale() == gap.get_yscale() == "log"
    assert fig._suptitle.get_text() == "Pegasos vs SDCA"
    _renders(fig)


def test_plot_duality_gap_and_residuals_share_a_figure():
    fig, axes = new_figure(2)
    history = {"epoch": [0, 1], "objective": [2.0, 1.0], "dual_objective": [0.5, 0.9],
               "duality_gap": [1.5, 0.1]}
    assert plot_duality_gap(history, ax=axes[0]) is fig
    runs = {"b = 10": {"epoch": [0, 1, 2], "relative_residual": [1.0, 0.1, 0.01]},
            "b = 50": {"epoch": [0, 1, 2], "relative_residual": [1.0, 0.01, 0.0]}}
    assert plot_residuals(runs, ax=axes[1], title="residuals") is fig
    assert _labels(axes[1]) == ["b = 10", "b = 50"]
    assert np.isnan(axes[1].get_lines()[1].get_ydata()[-1])
    assert axes[1].get_yscale() == "log" and axes[1].get_ylabel() == "relative residual ‖r‖ / ‖y‖"
    _renders(fig)


def test_plot_lasso_path_sorts_alphas_and_counts_nonzeros():
    alphas = np.array([0.01, 1.0, 0.1])  # unsorted on purpose
    coefs = np.array([[2.0, 0.0, 1.0], [0.0, 0.0, 0.0], [-0.5, 0.0, 0.0]])
    fig = plot_lasso_path(alphas, coefs, names=["a", "b", "c"], n_labels=3, title="path")
    ax, count = fig.axes
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), [1.0, 0.1, 0.01])
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [0.0, 1.0, 2.0])
    np.testing.assert_allclose(count.get_lines()[0].get_ydata(), [0, 1, 2])
    assert sorted(t.get_text() for t in ax.texts) == ["a", "c"]  # zero at the end: no label
    assert ax.get_xlim()[0] > ax.get_xlim()[1] and ax.get_xscale() == "log"
    assert fig._suptitle.get_text() == "path"
    _renders(fig)


def test_plot_convergence_bound_draws_bounds_and_clips_growing_ones():
    from lsl_lib.plotting import AXIS_LABELS, plot_convergence_bound

    history = {"effective_passes": [0.0, 3.0, 6.0], "suboptimality": [1.0, 1e-3, 1e-6],
               "grad_norm2": [1.0, 1e-2, 1e-4]}
    bounds = {"σ^s ‖∇f(w̃_0)‖², σ = 0.5": ("grad_norm2", [0.0, 3.0, 6.0], [1.0, 0.5, 0.25]),
              "vacuous, σ = 100": ("grad_norm2", [0.0, 3.0, 6.0], [1.0, 100.0, 1e4])}
    fig = plot_convergence_bound({"SARAH": history}, bounds, title="bound")
    sub, grad = fig.axes
    assert grad.get_yscale() == "log" and sub.get_yscale() == "log"
    assert grad.get_ylabel() == AXIS_LABELS["grad_norm2"]
    assert sub.get_xlabel() == AXIS_LABELS["effective_passes"]
    assert _labels(grad) == ["SARAH", *bounds]
    assert grad.get_lines()[1].get_linestyle() == "--"
    np.testing.assert_allclose(grad.get_lines()[2].get_ydata(), [1.0])  # 100 and 1e4 left out
    assert grad.get_ylim()[1] < 100
    assert fig._suptitle.get_text() == "bound"
    _renders(fig)


def test_plot_theorems_and_practice_one_axis_per_theorem():
    from lsl_lib.plotting import AXIS_LABELS, plot_theorems_and_practice

    passes = [0.0, 21.0, 42.0]
    seeds = [{"effective_passes": passes, "suboptimality": [0.5, 0.05, v]} for v in (1e-3, 3e-3)]
    practice = {"effective_passes": [0.0, 3.0, 6.0], "suboptimality": [0.5, 0.1, 0.0],
                "grad_norm2": [0.07, 0.01, 1e-3]}
    panels = [dict(column="suboptimality", title="SVRG", histories={"theorem": seeds,
                                                                    "practice": practice},
                   bounds={"bound α^s": (passes, [0.5, 0.4, 0.32])}),
              dict(column="grad_norm2", title="SARAH", histories={"practice": practice},
                   bounds={"bound σ^s": (passes, [0.07, 0.04, 0.0])})]
    fig = plot_theorems_and_practice(panels, title="theory and practice")
    left, right = fig.axes
    fig.canvas.draw()
    assert left.get_position().y0 == pytest.approx(right.get_position().y0)  # one row
    assert _labels(left) == ["theorem (mean of 2)", "practice", "bound α^s"]
    np.testing.assert_allclose(left.get_lines()[0].get_ydata(), [0.5, 0.05, 2e-3])  # the mean
    assert len(_bands(left)) == 1 and len(_bands(right)) == 0  # a band for several seeds only
    assert np.isnan(left.get_lines()[1].get_ydata()[-1])  # 0 is not drawn on a log axis
    assert _dashed(left)[0].get_color() == "k" and len(_dashed(right)) == 1
    assert np.isnan(_dashed(right)[0].get_ydata()[-1])
    assert left.get_yscale() == right.get_yscale() == "log"
    assert left.get_ylabel() == AXIS_LABELS["suboptimality"]
    assert right.get_ylabel() == AXIS_LABELS["grad_norm2"]
    assert left.get_xlabel() == AXIS_LABELS["effective_passes"]
    assert (left.get_title(), right.get_title()) == ("SVRG", "SARAH")
    assert fig._suptitle.get_text() == "theory and practice"
    _renders(fig)
