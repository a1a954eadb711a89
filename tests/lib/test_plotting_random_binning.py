"""Figures of lecture 12's random binning section: what each draws, and no pyplot."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from lsl_lib.plotting import plot_binning_against_fourier, plot_binning_kernel

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_binning_kernel_three_panels_hat_average_and_estimates():
    gamma = 2.0
    delta = np.linspace(-2, 2, 81)
    pitches = np.random.default_rng(0).gamma(2.0, 1.0 / gamma, size=20000)
    kernel = np.exp(-gamma * np.abs(delta))
    estimates = {"P = 10": kernel + 0.01, "P = 1000": kernel}
    fig = plot_binning_kernel(delta, gamma, pitches, estimates, hat_pitches=(0.5, 1.0))
    left, middle, right = fig.axes
    assert len(fig.axes) == 3 and len({ax.get_position().y0 for ax in fig.axes}) == 1  # one row
    density = left.get_lines()[0]
    grid = density.get_xdata()
    assert_allclose(density.get_ydata(), gamma ** 2 * grid * np.exp(-gamma * grid))
    lines = {line.get_label(): line for line in middle.get_lines()}
    assert_allclose(lines["one grid, δ = 0.5"].get_ydata(), np.maximum(0, 1 - np.abs(delta) / 0.5))
    # the average of the hats over Gamma(2, 1/γ) pitches is the Laplacian kernel (Monte Carlo)
    assert_allclose(lines["average over the drawn δ"].get_ydata(), np.exp(-gamma * np.abs(delta)),
                    atol=0.02)
    labels = [line.get_label() for line in right.get_lines()]
    assert labels == ["P = 10", "P = 1000", "e^(−γ|Δ|)"]


def test_binning_against_fourier_lines_bands_and_references():
    n = [1000, 2000, 4000]
    errors = {"binning": [[0.3, 0.25, 0.2], [0.28, 0.23, 0.2]], "fourier": [0.3, 0.3, 0.29]}
    fig = plot_binning_against_fourier(n, errors, references=[
        ("paper", 522000, 0.022, "C0"), ("benchmark", [9375, 75000], [0.17, 0.09], "C0")],
        title="t")
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert_allclose(lines[0].get_ydata(), [29.0, 24.0, 20.0])  # the mean, in %
    assert_allclose(lines[1].get_ydata(), [30.0, 30.0, 29.0])
    assert_allclose(lines[2].get_xdata(), [522000])
    assert_allclose(lines[2].get_ydata(), [2.2])
    assert_allclose(lines[3].get_xdata(), [9375, 75000])  # a reference curve: two points
    assert_allclose(lines[3].get_ydata(), [17.0, 9.0])
    assert ax.get_legend_handles_labels()[1] == ["binning (mean of 2)", "fourier", "paper",
                                                 "benchmark"]
    assert ax.get_xscale() == "log" and ax.get_title() == "t" and ax.get_ylim()[0] == 0
