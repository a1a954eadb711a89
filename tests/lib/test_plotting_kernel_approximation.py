"""Figures of the kernel-approximation lectures: what each draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.plotting import (new_figure, plot_error_curves, plot_matrices, plot_spectrum,
                              plot_variance)
from plotting_support import legend_labels

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_error_curves_mean_band_and_guide():
    D = np.array([16, 64, 256, 1024])
    seeds = np.array([[0.4, 0.2, 0.1, 0.05], [0.6, 0.3, 0.1, 0.07]])
    fig = plot_error_curves(D, {"RFF": seeds, "Nyström": [0.3, 0.1, 0.01, 0.001]},
                            title="error")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert legend_labels(ax) == ["RFF (mean of 2)", "Nyström", "∝ 1/√D"]
    rff, _, guide = ax.get_lines()
    np.testing.assert_allclose(rff.get_ydata(), seeds.mean(axis=0))
    # the guide starts at the first curve's first point with slope -1/2 on log-log axes
    np.testing.assert_allclose(guide.get_ydata(), 0.5 * (D / 16.0) ** -0.5)
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() == pytest.approx(0.05) and band.max() == pytest.approx(0.6)


def test_error_curves_into_an_axis_without_guide():
    fig, axes = new_figure(2)
    out = plot_error_curves([1, 2, 4], {"t": [1.0, 2.0, 4.0]}, guide=None, logy=False,
                            xlabel="d", ylabel="seconds", ax=axes[1])
    assert out is fig and len(axes[1].get_lines()) == 1 and not axes[0].get_lines()
    assert axes[1].get_yscale() == "linear" and axes[1].get_xlabel() == "d"


def test_matrices_share_one_scale_or_get_their_own():
    K = np.array([[1.0, 0.5], [0.5, 1.0]])
    fig = plot_matrices({"K": K, "approximation": K + 0.2})
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == 2 and len(fig.axes) == 3  # two panels and one colour bar
    assert all(im.get_clim() == pytest.approx((0.5, 1.2)) for im in images)
    fig = plot_matrices({"K̃ − K": np.array([[0.1, -0.3], [0.2, 0.0]])}, symmetric=True,
                        shared_scale=False)
    image = fig.axes[0].images[0]
    assert image.get_clim() == pytest.approx((-0.3, 0.3))
    assert image.get_cmap().name == "RdBu_r"


def test_matrices_wrap_onto_rows():
    K = np.eye(3)
    fig = plot_matrices({"a": K, "b": 2 * K, "c": 3 * K}, ncols=2, width=3.0)
    panels = [ax for ax in fig.axes if ax.images]
    assert [(ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start)
            for ax in panels] == [(0, 0), (0, 1), (1, 0)]
    assert tuple(fig.get_size_inches()) == pytest.approx((6.0, 6.0))
    assert all(im.get_clim() == pytest.approx((0.0, 3.0)) for ax in panels for im in ax.images)
    assert len([ax for ax in fig.axes if ax.axison]) == 4  # three panels, one colour bar
    one_row = plot_matrices({"a": K, "b": K}, ncols=5)
    assert tuple(one_row.get_size_inches()) == pytest.approx((6.8, 3.4))


def test_spectrum_is_sorted_relative_and_positive():
    fig = plot_spectrum({"γ = 1": [0.5, 2.0, 1e-20, -1e-15, 1.0]}, n_show=4)
    line = fig.axes[0].get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), [1.0, 0.5, 0.25, 0.5e-20])
    np.testing.assert_array_equal(line.get_xdata(), [1, 2, 3, 4])
    assert fig.axes[0].get_yscale() == "log"


def test_variance_draws_theory_lines_and_measured_markers_in_one_colour():
    x, fine = np.linspace(0, 2, 5), np.linspace(0, 2, 50)
    fig = plot_variance(x, {"RFF": x ** 2 + 0.01}, {"RFF": fine ** 2, "ORF": fine ** 2 / 2},
                        x_theory=fine)
    ax = fig.axes[0]
    assert legend_labels(ax) == ["RFF: theory", "RFF: measured", "ORF: theory"]
    theory, measured, _ = ax.get_lines()
    np.testing.assert_array_equal(theory.get_xdata(), fine)
    np.testing.assert_array_equal(measured.get_xdata(), x)
    assert theory.get_color() == measured.get_color()
    assert measured.get_linestyle() == "None" and measured.get_marker() == "o"


def test_variance_legend_has_one_readable_entry_per_label():
    # for a projector: the line and the markers of a label share one entry, at the axis' font size
    x, fine = np.linspace(0, 2, 5), np.linspace(0, 2, 50)
    fig = plot_variance(x, {"RFF": x ** 2, "SORF": x}, {"RFF": fine ** 2, "ORF": fine ** 2 / 2},
                        x_theory=fine)
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["RFF", "ORF", "SORF"]
    assert legend.get_title().get_text() == "lines: theory · dots: measured"
    assert min(t.get_fontsize() for t in legend.get_texts()) >= ax.xaxis.label.get_fontsize()
