"""Figures of the Nyström lecture (09), and its downstream figure shared with 10: what each
draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.plotting import new_figure, plot_accuracy_and_time, plot_landmarks, plot_nystroem

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")

X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])


def test_landmarks_grey_points_and_circled_landmarks():
    fig = plot_landmarks(X, [3, 0], title="uniform")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(fig.axes) == 1  # no colour bar without values
    points, circles = ax.collections
    np.testing.assert_allclose(points.get_offsets(), X)
    np.testing.assert_allclose(circles.get_offsets(), X[[3, 0]])
    assert ax.get_legend_handles_labels()[1] == ["landmarks (m = 2)"]
    assert ax.get_title() == "uniform"


def test_landmarks_coloured_by_values_on_a_given_scale():
    values = np.array([0.1, 0.9, 0.5, 0.0])
    fig, axes = new_figure(2)
    out = plot_landmarks(X, values=values, value_label="score", value_range=(0.0, 2.0),
                         ax=axes[1])
    assert out is fig and not axes[0].collections
    points = axes[1].collections[0]
    # drawn in increasing order of value, so the largest are on top
    np.testing.assert_allclose(points.get_array(), np.sort(values))
    np.testing.assert_allclose(points.get_offsets(), X[np.argsort(values)])
    assert points.get_clim() == (0.0, 2.0)
    assert axes[1].get_legend() is None  # no landmarks, no legend
    colour_bar = [ax for ax in fig.axes if ax not in axes]
    assert len(colour_bar) == 1 and colour_bar[0].get_ylabel() == "score"


def test_nystroem_two_panels_residual_scale_and_marker():
    residuals = np.array([0.0, 0.2, 0.4, 1.0])
    m = np.array([2, 4, 8])
    errors = {"uniform": np.array([[0.3, 0.2, 0.1], [0.5, 0.2, 0.1]]),
              "leverage": [0.2, 0.05, 0.01]}
    fig = plot_nystroem(X, [0, 1], residuals, m, errors, current=4, title="t")
    points_ax = [ax for ax in fig.axes if ax.collections][0]
    points, circles = points_ax.collections
    assert points.get_clim() == (0.0, 1.0)
    np.testing.assert_allclose(circles.get_offsets(), X[[0, 1]])
    err_ax = [ax for ax in fig.axes if ax.get_lines()][0]
    assert err_ax.get_xscale() == err_ax.get_yscale() == "log"
    labels = err_ax.get_legend_handles_labels()[1]
    assert labels == ["uniform (mean of 2)", "leverage", "m = 4 (left)"]  # no 1/√D guide
    np.testing.assert_allclose(err_ax.get_lines()[0].get_ydata(), [0.4, 0.2, 0.1])
    assert list(err_ax.get_lines()[-1].get_xdata()) == [4, 4]
    assert fig.get_suptitle() == "t"
    # a residual above 1 widens the colour scale
    fig = plot_nystroem(X, [0], residuals * 3, m, errors)
    points = [ax for ax in fig.axes if ax.collections][0].collections[0]
    assert points.get_clim() == (0.0, 3.0)


def test_accuracy_and_time_two_panels_bands_and_reference():
    D = np.array([16, 64, 256])
    accuracy = {"Nyström": np.array([[0.90, 0.95, 0.99], [0.92, 0.97, 0.99]]),
                "RFF": [0.80, 0.90, 0.98]}
    seconds = {"Nyström": np.array([[0.1, 0.2, 0.4], [0.3, 0.2, 0.6]]), "RFF": [0.05, 0.1, 0.3]}
    fig = plot_accuracy_and_time(D, accuracy, seconds, reference={"exact SVM": (0.99, 0.25)},
                                 title="digits")
    ax_acc, ax_time = fig.axes
    assert ax_acc.get_xscale() == ax_time.get_xscale() == "log"
    assert ax_acc.get_yscale() == "linear" and ax_time.get_yscale() == "log"
    assert [t.get_text() for t in ax_acc.get_xticklabels()] == ["16", "64", "256"]
    assert ax_acc.get_legend_handles_labels()[1] == ["Nyström (mean of 2)", "RFF", "exact SVM"]
    # the mean of the seeds in each panel, with one band per seeded curve, one colour per label
    nys_acc, rff_acc, ref_acc = ax_acc.get_lines()
    nys_time, rff_time, ref_time = ax_time.get_lines()
    np.testing.assert_allclose(nys_acc.get_ydata(), [0.91, 0.96, 0.99])
    np.testing.assert_allclose(nys_time.get_ydata(), [0.2, 0.2, 0.5])
    np.testing.assert_allclose(rff_time.get_xdata(), D)
    assert (nys_acc.get_color() == nys_time.get_color()
            != rff_acc.get_color() == rff_time.get_color())
    assert len(ax_acc.collections) == len(ax_time.collections) == 1
    # the exact machine: a horizontal line at its accuracy and at its time
    assert list(ref_acc.get_ydata()) == [0.99, 0.99] and list(ref_time.get_ydata()) == [0.25, 0.25]
    formatter = ax_acc.yaxis.get_major_formatter()  # accuracy in per cent, no digit too many
    assert [formatter(v, 0) for v in (0.95, 0.975, 1.0)] == ["95%", "97.5%", "100%"]
    assert ax_time.yaxis.get_major_formatter()(0.2, 0) == "0.2"  # seconds, not 2 × 10⁻¹
    assert fig.get_suptitle() == "digits"


def test_accuracy_and_time_widths_per_label_and_label_check():
    widths = {"Nyström": [16, 64], "Fastfood": [128, 256, 512]}
    accuracy = {"Nyström": [0.9, 0.95], "Fastfood": [0.9, 0.95, 0.97]}
    seconds = {"Nyström": [0.1, 0.2], "Fastfood": [0.1, 0.2, 0.3]}
    fig = plot_accuracy_and_time(widths, accuracy, seconds)
    ax_acc, ax_time = fig.axes
    np.testing.assert_allclose(ax_time.get_lines()[1].get_xdata(), [128, 256, 512])
    assert [t.get_text() for t in ax_acc.get_xticklabels()] == ["16", "64", "128", "256", "512"]
    assert ax_time.get_ylabel() == "time to fit and predict (s)"
    with pytest.raises(ValueError, match="same labels"):
        plot_accuracy_and_time(widths, accuracy, {"Nyström": [0.1, 0.2]})
