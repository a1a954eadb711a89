"""Figures of the budgeted kernel machines lecture (14): what each draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.contour import ContourSet
from matplotlib.figure import Figure

from lsl_lib.datasets import concentric_circles
from lsl_lib.kernel_pegasos import KernelPegasosClassifier
from lsl_lib.plotting import (new_figure, plot_budgeted_model, plot_complexity, plot_degradation,
                              plot_hyperplanes, plot_support_growth)

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_support_growth_support_left_prediction_time_right_budget_line():
    T = [1000, 2000, 4000]
    runs = {"kernel Pegasos": dict(iteration=T, n_support=[200, 410, 800],
                                   predict_seconds=[1e-5, 2e-5, 4e-5]),
            "BSGD": dict(iteration=T, n_support=[200, 300, 300])}
    fig = plot_support_growth(runs, budget=300, title="why")
    assert isinstance(fig, Figure)
    ax_m, ax_t = fig.axes
    pegasos, bsgd, budget = ax_m.get_lines()
    np.testing.assert_allclose(pegasos.get_ydata(), [200, 410, 800])
    np.testing.assert_allclose(bsgd.get_xdata(), T)
    assert list(budget.get_ydata()) == [300, 300]
    assert ax_m.get_legend_handles_labels()[1] == ["kernel Pegasos", "BSGD", "budget B = 300"]
    (timed,) = ax_t.get_lines()  # only the run that was timed
    np.testing.assert_allclose(timed.get_ydata(), [1e-5, 2e-5, 4e-5])
    assert timed.get_color() == pegasos.get_color()
    assert ax_t.yaxis.get_major_formatter()(2e-5, 0) == "20 µs"
    assert ax_m.get_xlabel() == ax_t.get_xlabel() == "iterations T"
    assert fig.get_suptitle() == "why"
    # no run timed: one panel
    fig = plot_support_growth({"BSGD": dict(iteration=T, n_support=[1, 2, 3])})
    assert len(fig.axes) == 1 and len(fig.axes[0].get_lines()) == 1


def test_degradation_one_line_per_strategy_log_scale_and_budget_marker():
    t = np.array([0, 100, 200, 300])
    histories = {"removal": dict(iteration=t, n_support=[0, 5, 10, 10],
                                 degradation=[0.0, 0.0, 0.3, 0.9], objective=[1, 0.5, 0.4, 0.3]),
                 "merging": dict(iteration=t, n_support=[0, 5, 10, 10],
                                 degradation=[0.0, 0.0, 0.01, 0.02], objective=[1, 0.4, 0.3, 0.2])}
    fig = plot_degradation(histories, budget=10, title="BSGD")
    ax_d, ax_f = fig.axes
    assert ax_d.get_yscale() == ax_f.get_yscale() == "log"
    removal, merging, filled = ax_d.get_lines()
    # 0 (nothing degraded yet) is left out of the log axis
    np.testing.assert_allclose(removal.get_ydata(), [np.nan, np.nan, 0.3, 0.9])
    np.testing.assert_allclose(merging.get_ydata(), [np.nan, np.nan, 0.01, 0.02])
    assert list(filled.get_xdata()) == [200, 200]  # the first record with m = B
    np.testing.assert_allclose(ax_f.get_lines()[1].get_ydata(), [1, 0.4, 0.3, 0.2])
    assert "degradation" in ax_d.get_ylabel() and ax_f.get_ylabel() == "primal objective f(w)"
    # the objective spans one decade: plain tick labels; the degradation two: powers of ten
    assert ax_f.yaxis.get_major_formatter()(0.5, 0) == "0.5"
    assert ax_d.yaxis.get_major_formatter()(0.5, 0) != "0.5"
    labels = ax_d.get_legend().get_texts()
    assert [t.get_text() for t in labels] == ["removal", "merging", "support reaches B = 10"]
    # without a budget, no marker; a budget never reached, none either
    assert len(plot_degradation(histories).axes[0].get_lines()) == 2
    assert len(plot_degradation(histories, budget=50).axes[0].get_lines()) == 2


def _two_planes_against_one():
    """Class 1 owns x1 > 1 (w = (1, 0), b = -1) and x1 < -1 (w = (-1, 0), b = -1); class 0
    (w = 0) the strip between: a piecewise-linear boundary no single hyperplane draws."""
    X = np.array([[-2.0, 0.0], [0.0, 1.0], [2.0, -1.0], [0.5, 0.0]])
    y = np.array([1, 0, 1, 0])
    W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.0]])
    return X, y, W, np.array([1, 1, 0]), np.array([-1.0, -1.0, 0.0])


def test_hyperplanes_cells_and_class_boundary_where_the_scores_say():
    X, y, W, owner, b = _two_planes_against_one()
    fig = plot_hyperplanes(X, y, W, owner, intercepts=b, resolution=101, title="AMM")
    ax = fig.axes[0]
    cells = ax.collections[0]  # the filled cells: one level per hyperplane
    assert len(cells.get_facecolor()) == len(W)
    # each cell boundary (dotted) and the class boundary (solid) lie on the lines x1 = ±1
    sets = [c for c in ax.collections[1:] if isinstance(c, ContourSet)]
    solid = [c for c in sets if c.get_linestyle()[0][1] is None]
    assert len(solid) == 1 and len(sets) == 1 + len(W)
    for contour in sets:
        vertices = np.concatenate([p.vertices for p in contour.get_paths()])
        np.testing.assert_allclose(np.abs(vertices[:, 0]), 1.0, atol=1e-9)
        assert np.ptp(vertices[:, 1]) > 2  # lines across the plot, not points
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        ["y = 0: 1 hyperplane", "y = 1: 2 hyperplanes"]
    assert ax.get_title() == "AMM"
    # one class everywhere: no class boundary at all, and no error
    fig = plot_hyperplanes(X, y, W[:2], owner[:2], intercepts=b[:2])
    sets = [c for c in fig.axes[0].collections[1:] if isinstance(c, ContourSet)]
    assert len(sets) == 2  # the two cells' common edge x1 = 0, dotted; no solid line
    assert all(c.get_linestyle()[0][1] is not None for c in sets)
    np.testing.assert_allclose(sets[0].get_paths()[0].vertices[:, 0], 0.0, atol=1e-9)


def test_hyperplanes_bad_shapes_and_drawing_into_a_panel():
    X, y, W, owner, b = _two_planes_against_one()
    with pytest.raises(ValueError, match="weights must have shape"):
        plot_hyperplanes(X, y, np.ones((3, 3)), owner)
    with pytest.raises(ValueError, match="hyperplane_classes"):
        plot_hyperplanes(X, y, W, owner[:2])
    fig, axes = new_figure(2)
    assert plot_hyperplanes(X, y, W, owner, intercepts=b, ax=axes[1]) is fig
    assert not axes[0].collections and axes[1].collections


def test_complexity_log_log_with_order_guides_through_the_points():
    N = np.array([1000, 2000, 4000])
    seconds = {"SVC": 1e-7 * N ** 2, "BSGD": [0.1, 0.2, np.nan]}
    fig = plot_complexity(N, seconds, orders={"SVC": (2, "O(N²)")}, title="t")
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    svc, guide, bsgd = ax.get_lines()
    np.testing.assert_allclose(guide.get_ydata(), svc.get_ydata())  # exact N² data: on the guide
    np.testing.assert_allclose(bsgd.get_xdata(), [1000, 2000])  # nan: not run, not drawn
    assert ax.get_legend_handles_labels()[1] == ["SVC", "O(N²) slope", "BSGD"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1,000", "2,000", "4,000"]
    assert ax.get_xlabel() == "training-set size N" and ax.get_title() == "t"
    # sizes per label
    fig = plot_complexity({"a": [50, 100], "b": [10, 20, 40]}, {"a": [1, 2], "b": [1, 2, 4]},
                          xlabel="budget B")
    np.testing.assert_allclose(fig.axes[0].get_lines()[1].get_xdata(), [10, 20, 40])
    # a method keeps the colour it is given, its guide too
    fig = plot_complexity(N, seconds, orders={"SVC": (2, "O(N²)")}, colors={"SVC": "C5"})
    svc, guide, bsgd = fig.axes[0].get_lines()
    assert svc.get_color() == guide.get_color() == "C5" and bsgd.get_color() == "C1"


def test_budgeted_model_boundary_support_and_trace():
    X, y = concentric_circles(80, random_state=0)
    clf = KernelPegasosClassifier(lam=1e-2, gamma=2.0, n_iter=400, random_state=0).fit(X, y)
    history = dict(iteration=np.array([0, 200, 400]), n_support=np.array([0, 20, 20]),
                   degradation=np.array([0.0, 0.1, 0.4]))
    fig = plot_budgeted_model(clf, X, y, history=history, budget=20, title="B = 20")
    ax_model, ax_trace, twin = fig.axes
    circles = ax_model.collections[-1]
    np.testing.assert_allclose(circles.get_offsets(), clf.support_vectors_)
    assert ax_model.get_legend().get_texts()[-1].get_text().startswith(
        f"α ≠ 0: {len(clf.support_)} (area")
    (degradation,) = ax_trace.get_lines()
    np.testing.assert_allclose(degradation.get_ydata(), [0.1, 0.4])  # 0 left out of the log axis
    support, budget = twin.get_lines()
    np.testing.assert_allclose(support.get_ydata(), [0, 20, 20])
    assert list(budget.get_ydata()) == [20, 20]
    assert fig.get_suptitle() == "B = 20"
    # nothing degraded: the trace says so instead of drawing an empty log axis
    history["degradation"] = np.zeros(3)
    fig = plot_budgeted_model(clf, X, y, history=history)
    assert "no maintenance yet" in fig.axes[1].texts[0].get_text()
    assert len(plot_budgeted_model(clf, X, y).axes) == 1
