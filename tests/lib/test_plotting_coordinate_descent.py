"""Figures of the coordinate descent lecture (06): what each draws, and no pyplot."""

import numpy as np
import pytest

from lsl_lib.plotting import (AXIS_LABELS, new_figure, plot_duality_gap, plot_lasso_path,
                              plot_residuals, plot_suboptimality_and_gap)
from plotting_support import legend_labels, renders

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


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
    renders(fig)
    fig = plot_duality_gap(history)  # no P*: the gap alone
    assert len(fig.axes[0].get_lines()) == 1


def test_plot_suboptimality_and_gap_leaves_primal_methods_out_of_the_gap_panel():
    runs = {"Pegasos": {"epoch": [0, 1, 2], "suboptimality": [1.0, 0.3, 0.2]},
            "SDCA": {"epoch": [0, 1, 2], "suboptimality": [1.0, 0.1, 0.0],
                     "duality_gap": [2.0, 0.2, 0.01]}}
    fig = plot_suboptimality_and_gap(runs, title="Pegasos vs SDCA")
    sub, gap = fig.axes
    assert legend_labels(sub) == ["Pegasos", "SDCA"] and legend_labels(gap) == ["SDCA"]
    assert sub.get_lines()[1].get_color() == gap.get_lines()[0].get_color()  # one colour a method
    assert np.isnan(sub.get_lines()[1].get_ydata()[-1])
    assert sub.get_yscale() == gap.get_yscale() == "log"
    assert fig.get_suptitle() == "Pegasos vs SDCA"
    renders(fig)


def test_plot_duality_gap_and_residuals_share_a_figure():
    fig, axes = new_figure(2)
    history = {"epoch": [0, 1], "objective": [2.0, 1.0], "dual_objective": [0.5, 0.9],
               "duality_gap": [1.5, 0.1]}
    assert plot_duality_gap(history, ax=axes[0]) is fig
    runs = {"b = 10": {"epoch": [0, 1, 2], "relative_residual": [1.0, 0.1, 0.01]},
            "b = 50": {"epoch": [0, 1, 2], "relative_residual": [1.0, 0.01, 0.0]}}
    assert plot_residuals(runs, ax=axes[1], title="residuals") is fig
    assert legend_labels(axes[1]) == ["b = 10", "b = 50"]
    assert np.isnan(axes[1].get_lines()[1].get_ydata()[-1])
    assert axes[1].get_yscale() == "log" and axes[1].get_ylabel() == "relative residual ‖r‖ / ‖y‖"
    renders(fig)


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
    assert fig.get_suptitle() == "path"
    renders(fig)
