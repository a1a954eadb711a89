"""Figures of lecture 04 (notebooks/04_online_kernel_learning.ipynb): margin losses, support
vectors, coefficients, the online kernel learner."""
import numpy as np

from lsl_lib._plotting._base import (
    AXIS_LABELS,
    MAX_WIDTH,
    _count_on_twin_axis,
    _legend_below,
    _mark_support,
    _readable_log_ticks,
    _trace_axis,
    new_figure,
)
from lsl_lib._plotting.pegasos import plot_decision_boundary

__all__ = [
    "plot_margin_losses", "plot_support", "plot_coefficients", "plot_online_kernel",
    "plot_online_convergence",
]

AXIS_LABELS.update({
    "rkhs_objective": "J(α) = ½ αᵀKα + C Σᵢ ℓ(zᵢ)",
    "train_error": "training error",
    "n_nonzero": "non-zero coefficients (α ≠ 0)",
})


def _one_row(ncols, widest):
    """The width of a panel, at most ``widest`` inches, such that ``ncols`` panels stand in one
    row of :data:`MAX_WIDTH` (floored to a hundredth: 11.5 / 3 must not round up and wrap)."""
    return min(widest, np.floor(100 * MAX_WIDTH / max(ncols, 1)) / 100)


def plot_margin_losses(z, losses, psis, margin=1.0, title=None):
    r"""Margin losses :math:`\ell(z)` (left) and step factors :math:`\psi(z) = -\ell'(z)` (right).

    In the unified online kernel learner an example with margin :math:`z = y\,o(x)` moves
    its coefficient by :math:`\Lambda = \eta C y\,\psi(z)`: where :math:`\psi = 0` it is not
    touched, where :math:`\psi < 0` it is pushed back towards the margin. The region
    :math:`z \ge` ``margin`` (examples beyond the margin) is shaded on both axes.

    Parameters
    ----------
    z : ndarray of shape (m,)
        Margins, on the x-axis.
    losses : dict
        Label -> :math:`\ell(z)`, ndarray of shape (m,).
    psis : dict
        Label -> :math:`\psi(z)`, same labels (a label missing here is not drawn on the right).
    margin : float or None, default=1.0
        Where the shaded region starts (None: no shading).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_loss, ax_psi) = new_figure(2, width=5.4, height=4.6)
    z = np.asarray(z, dtype=float)
    for j, (label, loss) in enumerate(losses.items()):
        # later lines thinner and dashed on every other line, so that coinciding pieces
        # (the squared hinge's and the squared loss's psi below the margin) stay visible
        style = dict(color=f"C{j % 10}", ls="--" if j % 2 else "-",
                     lw=max(3.4 - 0.35 * j, 1.2))
        ax_loss.plot(z, np.asarray(loss, dtype=float), label=label, **style)
        if label in psis:
            ax_psi.plot(z, np.asarray(psis[label], dtype=float), label=label, **style)
    ax_loss.set(title="margin losses ℓ(z)", ylabel="ℓ(z)", ylim=(-0.3, 4.2))
    ax_psi.set(title="step factors ψ(z) = −ℓ′(z):  Λ = ηCy·ψ(z)", ylabel="ψ(z)",
               ylim=(-1.2, 3.2))
    for ax in (ax_loss, ax_psi):
        if margin is not None:
            ax.axvspan(margin, z[-1], color="0.85", alpha=0.5, linewidth=0, zorder=0)
            ax.axvline(margin, color="0.4", ls=":", lw=1)
        ax.axhline(0, color="0.6", lw=0.8)
        ax.axvline(0, color="0.6", lw=0.8)
        ax.set_xlim(z[0], z[-1])
        ax.set_xlabel("margin z = y·o(x)")
        ax.grid(True, alpha=0.3)
    fig.legend(*ax_loss.get_legend_handles_labels(), loc="outside lower center", ncols=3,
               frameon=False)
    if margin is not None:
        ax_psi.text(margin + 0.05, 3.0, "beyond the margin", fontsize="small", va="top",
                    color="0.3")
    if title:
        fig.suptitle(title)
    return fig


def plot_support(estimators, X, y, resolution=150, title=None):
    r"""Decision boundaries of fitted kernel classifiers with their support vectors marked.

    One panel per estimator: the regions of :func:`plot_decision_boundary` (boundary solid,
    margins :math:`o(x) = \pm 1` dashed) and a circle around every training example with a
    non-zero coefficient, of area proportional to :math:`|\alpha_j|`; the legend counts them.

    Parameters
    ----------
    estimators : fitted classifier or dict
        A classifier, or label -> classifier, each with ``decision_function``,
        ``support_vectors_`` and ``dual_coef_`` (signed coefficients of the support vectors,
        as :class:`lsl_lib.online_kernel.OnlineKernelClassifier` and ``sklearn.svm.SVC`` have).
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    resolution : int, default=150
        Grid points per side of the decision regions.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(estimators, dict):
        estimators = {"": estimators}
    # one row on a projector: three panels share MAX_WIDTH rather than wrapping onto a second row
    fig, axes = new_figure(len(estimators), width=_one_row(len(estimators), 4.3), height=4.3)
    for ax, (label, est) in zip(axes, estimators.items(), strict=True):
        plot_decision_boundary(est, X, y, resolution=resolution, ax=ax)
        _mark_support(ax, est, n_samples=len(X))
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2,
                  frameon=False)
        if label:
            ax.set_title(label, fontsize="medium")
    if title:
        fig.suptitle(title)
    return fig


def plot_coefficients(coefficients, title=None):
    r"""The coefficients of several models, sorted by magnitude: how sparse is each solution?

    One line per model: :math:`|\alpha|` sorted in decreasing order against the rank, on a
    log scale, so that exact zeros (which a log axis cannot show) end a line early; the
    legend counts the non-zeros.

    Parameters
    ----------
    coefficients : dict
        Label -> ndarray of shape (n,): all the coefficients :math:`\alpha` of a model
        (``alpha_``), zeros included.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=6.0, height=3.8)
    smallest = np.inf
    for j, (label, alpha) in enumerate(coefficients.items()):
        magnitude = np.sort(np.abs(np.asarray(alpha, dtype=float)))[::-1]
        nonzero = magnitude[magnitude > 0]
        rank = np.arange(1, len(magnitude) + 1)
        ax.plot(rank[:len(nonzero)], nonzero, color=f"C{j % 10}", lw=2,
                label=f"{label}: {len(nonzero)} of {len(magnitude)} non-zero")
        if len(nonzero):
            ax.plot([len(nonzero)], [nonzero[-1]], "o", color=f"C{j % 10}", ms=5)
            smallest = min(smallest, nonzero.min())
    ax.set_yscale("log")
    if np.isfinite(smallest):
        ax.set_ylim(bottom=max(smallest / 3, 1e-12))
    ax.set_xlabel("rank (largest |α| first)")
    ax.set_ylabel("|α_j|  (log scale; exact zeros not drawn)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def plot_online_kernel(estimator, X, y, history=None, message=None, resolution=150, title=None):
    r"""A fitted online kernel classifier on 2-D data and, if given, its error curves.

    Left: the regions of :func:`plot_decision_boundary` (boundary solid, margins
    :math:`o(x) = \pm 1` dashed) with the examples of non-zero coefficient circled, area
    :math:`\propto |\alpha_j|`, as in :func:`plot_support`. Right: the training error and, if
    recorded, the test error against the epochs, with the number of non-zero coefficients on
    a right-hand axis (dashed).

    Parameters
    ----------
    estimator : fitted binary classifier or None
        With ``decision_function``, ``support_vectors_`` and ``dual_coef_``. None (a run that
        failed, say) draws the data only.
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    history : dict of ndarray, optional
        ``history_`` with ``epoch`` and ``train_error``; ``test_error`` and ``n_nonzero``
        are drawn when present.
    message : str, optional
        A warning written in a box over the left panel (e.g. "the run diverged").
    resolution : int, default=150
        Grid points per side of the decision regions.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(1 if history is None else 2, width=5.2, height=4.3)
    ax = axes[0]
    if estimator is not None:
        plot_decision_boundary(estimator, X, y, resolution=resolution, ax=ax)
        _mark_support(ax, estimator, n_samples=len(X))
        ax.set_title("decision boundary (solid), margins o(x) = ±1 (dashed)", fontsize="medium")
    else:
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        # strict=False: a binary palette; a sample of one class leaves the second colour unused
        for c, color in zip(np.unique(y), ["tab:blue", "tab:red"], strict=False):
            ax.scatter(X[y == c, 0], X[y == c, 1], s=14, color=color, edgecolors="white",
                       linewidths=0.4, label=f"y = {c}")
        ax.set(xlabel="$x_1$", ylabel="$x_2$")
        ax.set_title("no model", fontsize="medium")
    _legend_below(ax, ncols=2)
    if message:
        ax.text(0.5, 0.5, message, transform=ax.transAxes, ha="center", va="center",
                fontsize="medium", color="darkred", wrap=True,
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="darkred", alpha=0.9))
    if history is not None:
        ax = axes[1]
        epoch = np.asarray(history["epoch"], dtype=float)
        marker = "." if len(epoch) < 40 else None
        for column, color in (("train_error", "C0"), ("test_error", "C3")):
            if column in history:
                ax.plot(epoch, np.asarray(history[column], dtype=float), color=color,
                        marker=marker, label=AXIS_LABELS[column])
        ax.set_ylim(bottom=0)
        if len(epoch) == 0:  # nothing recorded (a run that failed): an empty frame, not a dot
            ax.set(xlim=(0, 1), ylim=(0, 0.55))
            ax.text(0.5, 0.5, "nothing recorded", transform=ax.transAxes, ha="center",
                    va="center", color="0.4")
        ax.set_xlabel(AXIS_LABELS["epoch"])
        ax.set_ylabel("classification error")
        ax.grid(True, alpha=0.3)
        handles = ax.get_legend_handles_labels()
        if "n_nonzero" in history:
            handles = _count_on_twin_axis(ax, epoch, history["n_nonzero"], "α ≠ 0 (right axis)",
                                          AXIS_LABELS["n_nonzero"], top=1.05 * len(X))
        _legend_below(ax, handles)
        ax.set_title("errors along the epochs", fontsize="medium")
    if title:
        fig.suptitle(title)
    return fig


def plot_online_convergence(histories, columns=("rkhs_objective", "train_error", "test_error"),
                            title=None):
    r"""Convergence of online kernel learners: the objective and the errors against the epochs.

    One axis per column, one line per model, epochs on a log scale; the objective
    (``rkhs_objective``, :math:`J(\alpha) = \frac12\alpha^\top K\alpha + C\sum_i\ell(z_i)`,
    the function whose :math:`K^{-1}`-preconditioned coordinate steps the update rule takes) on
    a log scale too. Both log axes carry ticks at 1, 2 and 5 times the powers of ten, and the
    legend sits under the axes, off the curves.

    Parameters
    ----------
    histories : dict
        Label -> ``history_`` of a fitted :class:`lsl_lib.online_kernel.OnlineKernelClassifier`
        (columns ``epoch`` and those of ``columns``; ``test_error`` needs ``eval_set``).
    columns : sequence of str, default=('rkhs_objective', 'train_error', 'test_error')
        The columns to draw, one axis each; those ending in ``objective`` on a log scale.
        Records at epoch 0 are left out (the log axis cannot draw them).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    columns = [columns] if isinstance(columns, str) else list(columns)
    # one row: three panels share MAX_WIDTH rather than leaving a 2 x 2 grid with an empty slot
    fig, axes = new_figure(len(columns), width=_one_row(len(columns), 4.6), height=4.0)
    for ax, column in zip(axes, columns, strict=True):
        logy = column.endswith("objective")
        for j, (label, history) in enumerate(histories.items()):
            epoch = np.asarray(history["epoch"], dtype=float)
            values = np.asarray(history[column], dtype=float)
            keep = epoch > 0
            if logy:
                keep &= values > 0
            ax.plot(epoch[keep], values[keep], color=f"C{j % 10}", lw=1.4, label=label)
        _trace_axis(ax, "epoch", column, True, logy)
        _readable_log_ticks(ax.xaxis)
        if logy:
            _readable_log_ticks(ax.yaxis)
        else:
            ax.set_ylim(bottom=0)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center",
               ncols=min(len(histories), 5), frameon=False)
    if title:
        fig.suptitle(title)
    return fig
