"""The figures of the random-kitchen-sinks lecture (lsl_lib/_plotting/kitchen_sinks.py)."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from lsl_lib.plotting import (plot_box_effect, plot_kitchen_sinks_fit, plot_oracle_inequality,
                              plot_sink_families)

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")

def test_plot_kitchen_sinks_fit_marks_the_box_and_the_weights_on_it():
    x = np.linspace(-1, 1, 50)
    coef = np.array([-0.5, -0.2, 0.1, 0.5, 0.5])
    fig = plot_kitchen_sinks_fit(x, x, x, x, x, coef, 0.5, feature="fourier",
                                 train_error=0.1, test_error=0.2)
    right = fig.axes[1]
    assert "3 of 5 on the box" in right.get_title()
    # the l1 budget C = K · C/K
    assert "Σ|αₖ| = 1.8 of the budget C = 2.5" in right.get_title()
    on_box = [line for line in right.get_lines() if line.get_label() == "on the box"][0]
    assert_allclose(np.sort(on_box.get_ydata()), [-0.5, 0.5, 0.5])
    assert sorted(line.get_ydata()[0] for line in right.get_lines()
                  if line.get_linestyle() == ":") == [-0.5, 0.5]
    free = plot_kitchen_sinks_fit(x, x, x, x, x, coef, None)
    assert "unconstrained" in free.axes[1].get_title()


def test_plot_oracle_inequality_fits_the_slopes_in_log_log():
    n = np.array([100, 200, 400, 800])
    K = np.array([4, 8, 16])
    fig = plot_oracle_inequality(n, 3.0 / n, 64, K, 2.0 / np.sqrt(K), 1000,
                                 bound_n=10 / np.sqrt(n), bound_K=10 / np.sqrt(K))
    labels = [[line.get_label() for line in ax.get_lines()] for ax in fig.axes[:2]]
    assert "least-squares fit: slope -1.0" in labels[0]
    assert "least-squares fit: slope -0.5" in labels[1]
    assert all(ax.get_xscale() == ax.get_yscale() == "log" for ax in fig.axes[:2])
    assert "estimation ∝ n^(−1/2) + approximation (constant here)" in labels[0][-1]
    assert "approximation ∝ K^(−1/2) + estimation (constant here)" in labels[1][-1]


def test_plot_oracle_inequality_with_seeds_and_the_trivial_level():
    """Several seeds: the slope is their mean ± its standard error (loglog_slope); the trivial
    level (C + ‖f*‖∞)² is drawn on both panels."""
    n = np.array([100, 200, 400, 800])
    K = np.array([4, 8, 16])
    excess_n = np.array([3.0 / n, 5.0 / n ** 1.2])
    fig = plot_oracle_inequality(n, excess_n, 64, K, [2.0 / np.sqrt(K), 3.0 / np.sqrt(K)], 1000,
                                 trivial=36.0)
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert "least-squares fit: slope -1.10 ± 0.10 (s.e.)" in labels
    assert "trivial bound (C + ‖f*‖∞)² = 36" in labels
    measured = fig.axes[0].get_lines()[0]
    assert_allclose(measured.get_ydata(), np.sqrt(excess_n[0] * excess_n[1]))  # geometric mean
    right_labels = [line.get_label() for line in fig.axes[1].get_lines()]
    assert "trivial bound (C + ‖f*‖∞)² = 36" in right_labels


def test_plot_sink_families_and_box_effect_draw_one_panel_per_family_and_both_curves():
    x = np.linspace(-1, 1, 30)
    curves = {f: dict(features=np.cos(np.outer(x, [1, 2])), fit=x, test_error=0.1)
              for f in ("fourier", "bump", "binning")}
    fig = plot_sink_families(x, x, x, x, curves)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert [t.split("\n")[0] for t in titles] == ["fourier", "bump", "binning"]
    right_axes = [ax for ax in fig.axes if ax.get_ylabel().startswith("features")]
    assert len(right_axes) == 3  # every panel labels its feature axis
    fig = plot_box_effect([1, 10, 100], [0.3, 0.1, 0.0], [0.3, 0.2, 0.25], [10, 5, 2], 10,
                          [10, 100], [0.2, 0.1], [0.25, 0.15])
    right = fig.axes[1]
    assert_allclose(right.get_lines()[0].get_ydata(), [0.2, 0.1])
    assert_allclose(right.get_lines()[1].get_ydata(), [0.25, 0.15])
    # seeds: the mean with a band; the CV error and the chosen C on the left
    fig = plot_box_effect([1, 10, 100], [[0.3, 0.1, 0.0], [0.5, 0.1, 0.0]], [0.3, 0.2, 0.25],
                          [10, 5, 2], 10, [10, 100], [[0.2, 0.1], [0.4, 0.3]], [0.25, 0.15],
                          cv_error=[0.3, 0.2, 0.22], chosen_C=10, right_title="box against l2")
    left, right = fig.axes[0], fig.axes[1]
    labels = [line.get_label() for line in left.get_lines()]
    assert labels[0] == "training error (mean of 2)" and "C chosen by CV: 10" in labels
    assert_allclose(left.get_lines()[0].get_ydata(), [0.4, 0.1, 0.0])
    assert_allclose(right.get_lines()[0].get_ydata(), [0.3, 0.2])
    assert right.get_title() == "box against l2"
