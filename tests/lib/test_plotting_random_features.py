"""Figures of the random-feature lectures (07, 08): what each draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.plotting import new_figure, plot_estimate_distribution, plot_kernel_approximation
from plotting_support import legend_labels

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_kernel_approximation_panels_scales_and_marker():
    K = np.array([[1.0, 0.5], [0.5, 1.0]])
    K_approx = np.array([[1.0, 0.7], [0.2, 1.0]])
    D = np.array([16, 64, 256])
    errors = np.array([[0.4, 0.2, 0.1], [0.6, 0.3, 0.1]])
    fig = plot_kernel_approximation(K, K_approx, D, {"RFF": errors}, current=64,
                                    approx_label="RFF, D = 64", title="t")
    assert isinstance(fig, Figure)
    with_images = [ax for ax in fig.axes if ax.images]
    assert len(with_images) == 3
    exact, approx, diff = (ax.images[0] for ax in with_images)
    # one scale for K and K̃, a symmetric one for the difference
    assert exact.get_clim() == approx.get_clim() == pytest.approx((0.2, 1.0))
    assert diff.get_clim() == pytest.approx((-0.3, 0.3))
    np.testing.assert_allclose(diff.get_array(), K_approx - K)
    assert [ax.get_title() for ax in with_images] == ["exact K", "RFF, D = 64",
                                                       "K̃ − K (max |·| = 0.3)"]
    err_ax = [ax for ax in fig.axes if ax.get_lines()][0]
    assert err_ax.get_xscale() == err_ax.get_yscale() == "log"
    assert legend_labels(err_ax) == ["RFF (mean of 2)", "∝ 1/√D", "D = 64 (shown)"]
    mean, _, marker = err_ax.get_lines()
    np.testing.assert_allclose(mean.get_ydata(), errors.mean(axis=0))
    assert list(marker.get_xdata()) == [64, 64]
    assert fig.get_suptitle() == "t"
    assert len(fig.axes) == 6  # four panels and two colour bars
    # two rows of two panels (readable beside a file browser): K, K̃ above; K̃ − K, error below
    rows = [ax.get_subplotspec().rowspan.start for ax in (*with_images, err_ax)]
    cols = [ax.get_subplotspec().colspan.start for ax in (*with_images, err_ax)]
    assert rows == [0, 0, 1, 1] and cols == [0, 1, 0, 1]
    width, height = fig.get_size_inches()
    assert width <= 10.5 and height >= 0.7 * width


def test_difference_colour_bar_ends_at_the_maximum_in_the_title():
    rng = np.random.default_rng(0)
    K = np.eye(5)
    K_approx = K + rng.normal(scale=0.05, size=(5, 5))
    top = np.abs(K_approx - K).max()
    fig = plot_kernel_approximation(K, K_approx, [1, 2], {"a": [1.0, 0.5]})
    diff_ax = [ax for ax in fig.axes if ax.images][2]
    bar = diff_ax.images[0].colorbar
    ticks = bar.get_ticks()
    assert ticks.min() == pytest.approx(-top) and ticks.max() == pytest.approx(top)
    labels = [t.get_text() for t in bar.ax.get_yticklabels()]
    assert labels[0] == f"−{top:.2g}" and labels[-1] == f"{top:.2g}"
    assert diff_ax.get_title() == f"K̃ − K (max |·| = {top:.2g})"


def test_kernel_approximation_without_marker():
    K = np.eye(3)
    fig = plot_kernel_approximation(K, K, [1, 2], {"a": [1.0, 0.5]})
    err_ax = [ax for ax in fig.axes if ax.get_lines()][0]
    assert legend_labels(err_ax) == ["a", "∝ 1/√D"]
    diff = [ax for ax in fig.axes if ax.images][2].images[0]
    assert diff.get_clim() == pytest.approx((-1.0, 1.0))  # an exact match: a unit scale


def test_estimate_distribution_histograms_and_true_value():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.6, 0.1, 500), rng.normal(0.6, 0.03, 500)
    fig = plot_estimate_distribution({"RFF": a, "ORF": b}, 0.6, bins=20, title="z = 1")
    ax = fig.axes[0]
    assert legend_labels(ax) == [f"RFF: mean {a.mean():.3f}, sd {a.std(ddof=1):.3f}",
                           f"ORF: mean {b.mean():.3f}, sd {b.std(ddof=1):.3f}",
                           "exact k = 0.600"]
    rff, orf = ax.patches  # one outline per label
    # densities: each outline encloses area 1 over the shared bins
    for patch in (rff, orf):
        xy = patch.get_xy()
        assert xy[:, 0].min() == pytest.approx(min(a.min(), b.min()))
        assert xy[:, 0].max() == pytest.approx(max(a.max(), b.max()))
    heights = [np.histogram(v, bins=np.linspace(min(a.min(), b.min()), max(a.max(), b.max()),
                                                21), density=True)[0].max() for v in (a, b)]
    assert rff.get_xy()[:, 1].max() == pytest.approx(heights[0])
    assert orf.get_xy()[:, 1].max() == pytest.approx(heights[1])
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == [0.6, 0.6]
    assert ax.get_title() == "z = 1"


def test_estimate_distribution_into_an_axis_constant_estimates_no_truth():
    fig, axes = new_figure(2)
    out = plot_estimate_distribution({"one HD block": np.full(10, 0.54)}, ax=axes[1])
    assert out is fig and not axes[0].patches and len(axes[1].patches) == 1
    assert legend_labels(axes[1]) == ["one HD block: mean 0.540, sd 0.000"]
    assert not axes[1].get_lines()
