"""Figures of the online kernel learning lecture (04): what each draws, and no pyplot."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.datasets import concentric_circles
from lsl_lib.online_kernel import OnlineKernelClassifier
from lsl_lib.plotting import (plot_coefficients, plot_margin_losses, plot_online_convergence,
                              plot_online_kernel, plot_support)
from plotting_support import legend_labels, renders

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


@pytest.fixture(scope="module")
def online_fit():
    X, y = concentric_circles(120, noise=0.1, random_state=0)
    X_test, y_test = concentric_circles(60, noise=0.1, random_state=1)
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
    assert legend_labels(ax_loss) == ["hinge", "squared"] and legend_labels(ax_psi) == ["hinge"]
    np.testing.assert_allclose(ax_loss.get_lines()[1].get_ydata(), losses["squared"])
    np.testing.assert_allclose(ax_psi.get_lines()[0].get_ydata(), (z < 1).astype(float))
    assert ax_loss.get_lines()[0].get_linewidth() > ax_loss.get_lines()[1].get_linewidth()
    assert len(ax_loss.patches) == len(ax_psi.patches) == 1  # shaded: beyond the margin
    legend, = fig.legends  # under both axes, off the curves
    assert [text.get_text() for text in legend.get_texts()] == ["hinge", "squared"]
    assert fig.get_suptitle() == "losses"
    renders(fig)
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
    assert label in legend_labels(fig.axes[0])
    assert fig.get_suptitle() == "supports"
    renders(fig)


def test_plot_support_with_svc_and_with_an_empty_support(online_fit):
    from sklearn.svm import SVC

    X, y, _ = online_fit
    svc = SVC(C=1.0, gamma=2.0).fit(X, y)  # dual_coef_ of shape (1, n_SV)
    empty = OnlineKernelClassifier(model="l1_svm_l1", C=0.5, n_epochs=1, random_state=0).fit(X, y)
    assert len(empty.support_) == 0
    fig = plot_support({"svc": svc, "empty": empty}, X, y, resolution=20)
    np.testing.assert_allclose(_support_markers(fig.axes[0], len(svc.support_)).get_offsets(),
                               svc.support_vectors_)
    assert "α ≠ 0: none" in legend_labels(fig.axes[1])
    renders(fig)


def test_plot_coefficients_sorted_magnitudes_and_counts():
    alphas = {"sparse": np.array([0.0, -2.0, 0.5, 0.0]), "dense": np.array([1.0, -0.1, 3.0, 0.2])}
    fig = plot_coefficients(alphas, title="sparsity")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_title() == "sparsity"
    assert legend_labels(ax) == ["sparse: 2 of 4 non-zero", "dense: 4 of 4 non-zero"]
    sparse_line = ax.get_lines()[0]
    np.testing.assert_allclose(sparse_line.get_xdata(), [1, 2])
    np.testing.assert_allclose(sparse_line.get_ydata(), [2.0, 0.5])
    assert ax.get_ylim()[0] == pytest.approx(0.1 / 3)  # room under the smallest non-zero
    renders(fig)
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
    assert fig.get_suptitle() == "panel"
    renders(fig)


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
    assert fig.get_suptitle() == "J"
    renders(fig)
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
    assert legend_labels(errors) == ["training error"]
    renders(fig)
    fig = plot_online_kernel(None, X, y, history={"epoch": [], "train_error": []})
    empty = fig.axes[1]
    assert empty.get_xlim() == (0, 1) and empty.texts[0].get_text() == "nothing recorded"
