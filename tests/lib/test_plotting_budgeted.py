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


def test_support_growth_support_left_kernel_evaluations_right_budget_line():
    T = [1000, 2000, 4000]
    runs = {"kernel Pegasos": dict(iteration=T, n_support=[200, 410, 800],
                                   kernel_evaluations=[1e5, 4e5, 1.6e6]),
            "BSGD": dict(iteration=T, n_support=[200, 300, 300])}
    fig = plot_support_growth(runs, budget=300, title="why")
    assert isinstance(fig, Figure)
    ax_m, ax_k = fig.axes
    pegasos, bsgd, budget = ax_m.get_lines()
    np.testing.assert_allclose(pegasos.get_ydata(), [200, 410, 800])
    np.testing.assert_allclose(bsgd.get_xdata(), T)
    assert list(budget.get_ydata()) == [300, 300]
    assert ax_m.get_legend_handles_labels()[1] == ["kernel Pegasos", "BSGD", "budget B = 300"]
    (counted,) = ax_k.get_lines()  # only the run that was counted
    np.testing.assert_allclose(counted.get_ydata(), [1e5, 4e5, 1.6e6])
    assert counted.get_color() == pegasos.get_color()
    assert ax_k.yaxis.get_major_formatter()(4e5, 0) == "400 k"
    assert "kernel evaluations" in ax_k.get_ylabel() and "per prediction" in ax_m.get_title()
    assert ax_m.get_xlabel() == ax_k.get_xlabel() == "iterations T"
    assert fig.get_suptitle() == "why"
    # no run counted: one panel
    fig = plot_support_growth({"BSGD": dict(iteration=T, n_support=[1, 2, 3])})
    assert len(fig.axes) == 1 and len(fig.axes[0].get_lines()) == 1


def _histories():
    t = np.array([0, 100, 200, 300])
    return {"removal": dict(iteration=t, n_support=[0, 5, 10, 10], gradient_error=[0, 0, 50, 150],
                            degradation=[0.0, 0.0, 0.3, 0.9], objective=[1, 0.5, 0.4, 0.3]),
            "merging": dict(iteration=t, n_support=[0, 5, 10, 10], gradient_error=[0, 0, 2, 3],
                            degradation=[0.0, 0.0, 0.01, 0.02], objective=[1, 0.4, 0.3, 0.2])}


def test_degradation_gradient_error_degradation_objective_and_budget_marker():
    histories = _histories()
    reference = {"kernel Pegasos": dict(iteration=[0, 150, 300], objective=[1, 0.3, 0.15])}
    fig = plot_degradation(histories, budget=10, reference=reference, title="BSGD")
    ax_e, ax_d, ax_f = fig.axes
    assert ax_e.get_yscale() == ax_d.get_yscale() == ax_f.get_yscale() == "log"
    removal, merging, filled = ax_e.get_lines()
    # the running mean of the gradient error; 0 (nothing maintained yet) left out
    np.testing.assert_allclose(removal.get_ydata(), [np.nan, np.nan, 0.25, 0.5])
    np.testing.assert_allclose(merging.get_ydata(), [np.nan, np.nan, 0.01, 0.01])
    assert "Ē_t" in ax_e.get_ylabel()
    removal, merging, filled = ax_d.get_lines()
    np.testing.assert_allclose(removal.get_ydata(), [np.nan, np.nan, 0.3, 0.9])
    assert list(filled.get_xdata()) == [200, 200]  # the first record with m = B
    # the reference only where it has the column: the objective
    lines = ax_f.get_lines()
    assert len(lines) == 4 and lines[2].get_label() == "kernel Pegasos"
    np.testing.assert_allclose(lines[2].get_ydata(), [1, 0.3, 0.15])
    assert "degradation" in ax_d.get_ylabel() and ax_f.get_ylabel() == "primal objective f(w)"
    # the objective spans one decade: plain tick labels; the degradation two: powers of ten
    assert ax_f.yaxis.get_major_formatter()(0.5, 0) == "0.5"
    assert ax_d.yaxis.get_major_formatter()(0.5, 0) != "0.5"
    # one legend for the row, under it, with the reference
    (legend,) = fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["removal", "merging", "kernel Pegasos", "support reaches B = 10"]
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert fig.get_suptitle() == "BSGD"
    # two columns: the legend under the first; without a budget no marker, nor when never reached
    fig = plot_degradation(histories, columns=("degradation", "objective"), budget=10)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == \
        ["removal", "merging", "support reaches B = 10"]
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
    assert ax.get_legend_handles_labels()[1] == ["SVC", "O(N²): slope 2", "BSGD"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1,000", "2,000", "4,000"]
    assert ax.get_xlabel() == "training-set size N" and ax.get_title() == "t"
    # sizes per label
    fig = plot_complexity({"a": [50, 100], "b": [10, 20, 40]}, {"a": [1, 2], "b": [1, 2, 4]},
                          xlabel="budget B")
    np.testing.assert_allclose(fig.axes[0].get_lines()[1].get_xdata(), [10, 20, 40])
    # anchored on the tail: a curve of slope 1 that bends at the start meets its guide there
    curve = np.array([1.0, 4.0, 8.0, 16.0])  # slope 2, then 1, then 1
    fig = plot_complexity([1, 2, 4, 8], {"BSGD": curve}, orders={"BSGD": (1, "O(N)")}, tail=0.5)
    _, guide = fig.axes[0].get_lines()
    np.testing.assert_allclose(guide.get_ydata(), [2.0, 4.0, 8.0, 16.0])
    # a method keeps the colour it is given, its guide too
    fig = plot_complexity(N, seconds, orders={"SVC": (2, "O(N²)")}, colors={"SVC": "C5"})
    svc, guide, bsgd = fig.axes[0].get_lines()
    assert svc.get_color() == guide.get_color() == "C5" and bsgd.get_color() == "C1"


def test_budgeted_model_boundary_support_and_trace():
    X, y = concentric_circles(80, random_state=0)
    clf = KernelPegasosClassifier(lam=1e-2, gamma=2.0, n_iter=400, random_state=0).fit(X, y)
    history = dict(iteration=np.array([0, 200, 400]), n_support=np.array([0, 20, 20]),
                   degradation=np.array([0.0, 0.1, 0.4]), gradient_error=np.array([0, 20, 60]))
    fig = plot_budgeted_model(clf, X, y, history=history, budget=20, title="B = 20")
    ax_model, ax_trace, twin = fig.axes
    circles = ax_model.collections[-1]
    np.testing.assert_allclose(circles.get_offsets(), clf.support_vectors_)
    assert ax_model.get_legend().get_texts()[-1].get_text().startswith(
        f"α ≠ 0: {len(clf.support_)} (area")
    degradation, filled = ax_trace.get_lines()
    np.testing.assert_allclose(degradation.get_ydata(), [0.1, 0.4])  # 0 left out of the log axis
    assert list(filled.get_xdata()) == [200, 200]
    (mean_error,) = twin.get_lines()
    np.testing.assert_allclose(mean_error.get_ydata(), [0.0, 0.1, 0.15])  # (1/t) Σ ‖E_s‖
    assert "gradient error" in twin.get_ylabel()
    assert [t.get_text() for t in ax_trace.get_legend().get_texts()] == \
        ["Σ‖Δ_s‖² (left, log)", "support reaches B = 20", "Ē_t (right)"]
    assert fig.get_suptitle() == "B = 20"
    # nothing degraded: the trace says so instead of drawing an empty log axis
    history["degradation"] = np.zeros(3)
    fig = plot_budgeted_model(clf, X, y, history=history)
    assert "no maintenance yet" in fig.axes[1].texts[0].get_text()
    assert len(plot_budgeted_model(clf, X, y).axes) == 1
