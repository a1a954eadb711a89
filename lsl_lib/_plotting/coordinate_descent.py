"""Figures of lecture 06 (notebooks/06_coordinate_descent.ipynb): duality gaps, residuals,
the Lasso path."""
import numpy as np

from lsl_lib._plotting._base import AXIS_LABELS, new_figure, _trace_axis

AXIS_LABELS.update({
    "duality_gap": "duality gap P(w) − D(α)",
    "dual_objective": "dual objective D(α)",
    "n_active": "active coordinates",
    "relative_residual": "relative residual ‖r‖ / ‖y‖",
})


def plot_duality_gap(history, ax=None, title=None):
    """Primal objective, dual objective and their gap against the epochs, on a log scale.

    The primal :math:`P(w)` falls and the dual :math:`D(\\alpha)` rises towards the same
    optimum; the gap :math:`P - D \\ge P - P^*` certifies how far the run still is.

    Parameters
    ----------
    history : dict of ndarray
        ``history_`` with ``epoch``, ``objective``, ``dual_objective`` and ``duality_gap``
        (e.g. :class:`lsl_lib.coordinate_descent.DualCDClassifier`).
    ax : matplotlib Axes, optional
        Draw there; by default on a new figure.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure() if ax is None else (ax.figure, (ax,))
    epoch = np.asarray(history["epoch"], dtype=float)
    marker = "." if len(epoch) < 30 else None
    for column, color, style in (("objective", "C0", "-"), ("dual_objective", "C1", "-"),
                                 ("duality_gap", "C3", "--")):
        values = np.asarray(history[column], dtype=float)
        ax.plot(epoch, np.where(values > 0, values, np.nan), color=color, ls=style,
                marker=marker, label=AXIS_LABELS[column])
    _trace_axis(ax, "epoch", "duality_gap", False, True)
    ax.set_ylabel("objective values and gap (log scale)")
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    return fig


def plot_residuals(histories, column="relative_residual", ax=None, title=None):
    """A trace column (by default the relative residual) against the epochs, log scale.

    Parameters
    ----------
    histories : dict
        Label -> ``history_`` with ``epoch`` and ``column``.
    column : str, default='relative_residual'
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure() if ax is None else (ax.figure, (ax,))
    for j, (label, history) in enumerate(histories.items()):
        epoch = np.asarray(history["epoch"], dtype=float)
        values = np.asarray(history[column], dtype=float)
        ax.plot(epoch, np.where(values > 0, values, np.nan), color=f"C{j % 10}",
                marker="." if len(epoch) < 30 else None, label=label)
    _trace_axis(ax, "epoch", column, False, True)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    return fig


def plot_lasso_path(alphas, coefs, names=None, n_labels=5, title=None):
    """The Lasso's regularisation path: each coefficient against α (log scale, decreasing).

    Left: the coefficients :math:`w_j(\\alpha)`, α decreasing from left to right, the
    ``n_labels`` largest at the smallest α named at the right end. Right: the number of
    non-zero coefficients.

    Parameters
    ----------
    alphas : ndarray of shape (n_alphas,)
    coefs : ndarray of shape (n_features, n_alphas)
    names : sequence of str, optional
        Feature names; default ``x0, x1, ...``.
    n_labels : int, default=5
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    alphas = np.asarray(alphas, dtype=float)
    coefs = np.asarray(coefs, dtype=float)
    names = [f"x{j}" for j in range(len(coefs))] if names is None else list(names)
    order = np.argsort(alphas)[::-1]
    alphas, coefs = alphas[order], coefs[:, order]
    fig, (ax, count) = new_figure(2, width=5.2)
    for j, coef in enumerate(coefs):
        ax.plot(alphas, coef, color=f"C{j % 10}", lw=1.5)
    labelled = [j for j in np.argsort(-np.abs(coefs[:, -1]))[:n_labels] if coefs[j, -1] != 0]
    labelled.sort(key=lambda j: coefs[j, -1])
    gap = 0.06 * max(np.ptp(coefs), 1e-12)  # spread the names apart: they must not overlap
    positions = []
    for j in labelled:
        positions.append(coefs[j, -1] if not positions else max(coefs[j, -1], positions[-1] + gap))
    for j, position in zip(labelled, positions):
        ax.annotate(names[j], (alphas[-1], coefs[j, -1]), xytext=(alphas[-1] * 0.85, position),
                    textcoords="data", va="center", fontsize="small", color=f"C{j % 10}")
    count.step(alphas, np.count_nonzero(coefs, axis=0), where="post", color="k")
    for a in (ax, count):
        a.set_xscale("log")
        a.set_xlim(alphas[0], alphas[-1])  # decreasing α: from w = 0 to the least regularised
        a.set_xlabel("α (log scale, decreasing →)")
        a.grid(True, which="both", alpha=0.3)
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_ylabel("coefficient $w_j$")
    ax.set_title("coefficients along the path", fontsize="medium")
    count.set_ylabel("non-zero coefficients")
    count.set_ylim(0, len(coefs) + 0.5)
    count.set_title("sparsity along the path", fontsize="medium")
    if title:
        fig.suptitle(title)
    return fig
