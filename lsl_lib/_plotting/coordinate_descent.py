"""Figures of lecture 06 (notebooks/06_coordinate_descent.ipynb): duality gaps, residuals,
the Lasso path."""
import numpy as np

from lsl_lib._plotting._base import AXIS_LABELS, _trace_axis, new_figure

__all__ = ["plot_duality_gap", "plot_suboptimality_and_gap", "plot_residuals", "plot_lasso_path"]

AXIS_LABELS.update({
    "duality_gap": "duality gap P(w) − D(α)",
    "dual_objective": "dual objective D(α)",
    "n_active": "active coordinates",
    "relative_residual": "relative residual ‖r‖ / ‖y‖",
})


def plot_duality_gap(history, p_star=None, ax=None, title=None):
    r"""The duality gap and, given :math:`P^*`, the primal and dual suboptimalities.

    Weak duality splits the gap into two non-negative parts,
    :math:`P(w) - D(\alpha) = (P(w) - P^*) + (P^* - D(\alpha))`: the gap, which the solver
    can compute, bounds the primal suboptimality :math:`P(w) - P^*`, which it cannot.
    Differences, not the objectives themselves, go on the log axis: both objectives
    approach :math:`P^*` and would merge into one flat line.

    Parameters
    ----------
    history : dict of ndarray
        ``history_`` with ``epoch``, ``objective`` (:math:`P(w)`), ``dual_objective`` and
        ``duality_gap`` (e.g. :class:`lsl_lib.coordinate_descent.DualCDClassifier`).
    p_star : float, optional
        The optimum :math:`P^*` (from a tight solve); without it only the gap is drawn.
    ax : matplotlib Axes, optional
        Draw there; by default on a new figure.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure() if ax is None else (ax.figure, (ax,))
    epoch = np.asarray(history["epoch"], dtype=float)
    lines = [("duality gap P(w) − D(α)", np.asarray(history["duality_gap"], dtype=float),
              "C3", "-", 2.5)]
    if p_star is not None:
        lines += [("primal suboptimality P(w) − P*",
                   np.asarray(history["objective"], dtype=float) - p_star, "C0", "--", 2.0),
                  ("dual suboptimality P* − D(α)",
                   p_star - np.asarray(history["dual_objective"], dtype=float), "C1", ":", 2.0)]
    marker = "." if len(epoch) < 30 else None
    for label, values, color, style, width in lines:
        ax.plot(epoch, np.where(values > 0, values, np.nan), color=color, ls=style, lw=width,
                marker=marker, label=label)
    _trace_axis(ax, "epoch", "duality_gap", False, True)
    ax.set_ylabel("gap and suboptimality (log scale)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    return fig


def plot_suboptimality_and_gap(histories, logx=False, title=None):
    """Solvers of one problem side by side: primal suboptimality (left) and duality gap
    (right, for the solvers that have one), both on a log scale against the epochs.

    Parameters
    ----------
    histories : dict
        Label -> dict with ``epoch``, ``suboptimality`` and, for a primal-dual method,
        ``duality_gap`` (in the same scaling as the suboptimality).
    logx : bool, default=False
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (sub, gap) = new_figure(2, width=5.4, height=3.9)
    for j, (label, history) in enumerate(histories.items()):
        epoch = np.asarray(history["epoch"], dtype=float)
        style = dict(color=f"C{j % 10}", lw=2.0, marker="." if len(epoch) < 30 else None,
                     label=label)
        for ax, column in ((sub, "suboptimality"), (gap, "duality_gap")):
            if column in history:
                values = np.asarray(history[column], dtype=float)
                ax.plot(epoch, np.where(values > 0, values, np.nan), **style)
    for ax, column in ((sub, "suboptimality"), (gap, "duality_gap")):
        _trace_axis(ax, "epoch", column, logx, True)
        ax.grid(True, which="major", alpha=0.3)
    sub.set_title("primal suboptimality (every method)", fontsize="medium")
    gap.set_title("duality gap (dual methods only)", fontsize="medium")
    gap.set_ylabel("duality gap (an upper bound on the left)")
    sub.legend(fontsize="small")
    if gap.get_lines():
        gap.legend(fontsize="small")
    if title:
        fig.suptitle(title)
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
    r"""The Lasso's regularisation path: each coefficient against α (log scale, decreasing).

    Left: the coefficients :math:`w_j(\alpha)`, α decreasing from left to right, the
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
    for j, position in zip(labelled, positions, strict=True):
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
