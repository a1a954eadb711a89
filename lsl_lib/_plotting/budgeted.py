"""Figures of lecture 14 (notebooks/14_budgeted_kernel_machines.ipynb): why budgets (kernel
Pegasos' support and its training's kernel evaluations against T), what BSGD's budget
maintenance costs (the gradient error of Wang et al.'s Theorem 1, the weight degradation, the
objective), AMM's piecewise-linear decision regions, counted costs against N and B beside the
orders of the complexity table, and a budgeted kernel machine on 2-D data (the panel's figure)."""
import numpy as np
from matplotlib.colors import to_rgb
from matplotlib.ticker import EngFormatter, FuncFormatter, NullFormatter

from lsl_lib._plotting._base import (
    AXIS_LABELS,
    _legend_below,
    _mark_support,
    _readable_log_ticks,
    _trace_axis,
    new_figure,
)
from lsl_lib._plotting.pegasos import plot_decision_boundary

__all__ = ["plot_budgeted_model", "plot_complexity", "plot_degradation", "plot_hyperplanes",
           "plot_support_growth"]

AXIS_LABELS.update({
    "degradation": "weight degradation Σ‖Δ_s‖² (cumulative)",
    "mean_gradient_error": "average gradient error Ē_t",
    "kernel_evaluations": "kernel evaluations of training (cumulative)",
})


def _column(history, column):
    """A trace column; ``mean_gradient_error`` is the running mean of the gradient error,
    the cumulative ``gradient_error`` over the iteration (0 at iteration 0)."""
    if column == "mean_gradient_error":
        t = np.asarray(history["iteration"], dtype=float)
        total = np.asarray(history["gradient_error"], dtype=float)
        return np.divide(total, t, out=np.zeros_like(total), where=t > 0)
    return np.asarray(history[column], dtype=float)


def _thousands(axis):
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))


def _budget_filled(history, budget):
    """The first recorded iteration at which the support reached ``budget`` (None if never)."""
    n_support = np.asarray(history["n_support"], dtype=float)
    full = np.flatnonzero(n_support >= budget)
    return float(np.asarray(history["iteration"], dtype=float)[full[0]]) if len(full) else None


def plot_support_growth(runs, *, budget=None, title=None):
    """Why budgets: the support size and the kernel evaluations of training against T.

    Left, the number of support vectors m after T iterations, which is also the number of
    kernel evaluations a prediction costs; right (when the runs carry it), the kernel
    evaluations the T iterations of training made, counted by the learner: an iteration
    evaluates the example against the current support. An unbudgeted learner (kernel
    Pegasos) grows its support linearly with T on noisy data, so its training count grows
    quadratically; a budgeted one stops the support at B and grows the count linearly.

    Parameters
    ----------
    runs : dict
        Label -> dict of 1-D arrays: ``iteration`` (T), ``n_support`` (m after T iterations)
        and, optionally, ``kernel_evaluations`` (of the T iterations, cumulative). A label
        has the same colour in both panels.
    budget : int, optional
        The budget B, drawn as a dashed horizontal line in the left panel.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    counted = [label for label, run in runs.items() if "kernel_evaluations" in run]
    fig, axes = new_figure(2 if counted else 1, width=5.4, height=3.9)
    for k, (label, run) in enumerate(runs.items()):
        T = np.asarray(run["iteration"], dtype=float)
        style = dict(color=f"C{k}", marker="o", ms=4, lw=2, label=label)
        axes[0].plot(T, np.asarray(run["n_support"], dtype=float), **style)
        if "kernel_evaluations" in run:
            axes[1].plot(T, np.asarray(run["kernel_evaluations"], dtype=float), **style)
    if budget is not None:
        axes[0].axhline(budget, color="0.3", ls="--", lw=1.2, label=f"budget B = {budget:,}")
    axes[0].set_ylabel("support vectors m")
    axes[0].set_ylim(bottom=0)
    if counted:
        axes[0].set_title("the support: kernel evaluations per prediction", fontsize="medium")
        axes[1].set_title("kernel evaluations of the T training steps", fontsize="medium")
        axes[1].set_ylabel(AXIS_LABELS["kernel_evaluations"])
        axes[1].yaxis.set_major_formatter(EngFormatter(sep=" "))
        axes[1].set_ylim(bottom=0)
    for ax in axes:
        ax.set_xlabel("iterations T")
        _thousands(ax.xaxis)
        ax.set_xlim(left=0)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize="small", loc="upper left")
    if title:
        fig.suptitle(title)
    return fig


def plot_degradation(histories, *, budget=None,
                     columns=("mean_gradient_error", "degradation", "objective"),
                     reference=None, title=None):
    r"""What budget maintenance costs, one panel per trace column against the iteration.

    By default: the average gradient error :math:`\bar E_t = \frac1t\sum_{s \le t}
    \|\Delta_s\|/\eta_s`, the quantity of Wang, Crammer and Vucetic's Theorem 1 (the
    objective along the run comes within :math:`2U\bar E` of the optimum's); the cumulative
    weight degradation :math:`\sum_s \|\Delta_s\|^2`, which weights a maintenance by
    :math:`\eta_s^2` and so flattens as the steps shrink whatever the maintenances do; and the
    primal objective. Log scale on the y axes; values of 0 (nothing maintained yet) are not
    drawn. With ``budget``, a dotted vertical line marks the first record where the support
    reached B, when maintenance starts.

    Parameters
    ----------
    histories : dict
        Label (a maintenance strategy) -> ``history_`` of a fitted
        ``BudgetedKernelSGDClassifier`` with ``iteration``, ``n_support`` and the columns
        (``mean_gradient_error`` is computed from ``gradient_error``).
    budget : int, optional
    columns : sequence of str, default=('mean_gradient_error', 'degradation', 'objective')
    reference : dict, optional
        Label -> a history with some of the columns (e.g. unbudgeted kernel Pegasos'
        ``objective``), drawn dashed in grey on the panels of the columns it has.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    columns = [columns] if isinstance(columns, str) else list(columns)
    fig, axes = new_figure(len(columns), width=3.8 if len(columns) > 2 else 5.4, height=3.9)
    filled = None
    for k, (label, history) in enumerate(histories.items()):
        t = np.asarray(history["iteration"], dtype=float)
        for ax, column in zip(axes, columns, strict=True):
            values = _column(history, column)
            values = np.where(values > 0, values, np.nan)  # 0 (nothing degraded yet): not drawn
            ax.plot(t, values, color=f"C{k}", lw=2, marker="." if len(t) < 30 else None,
                    label=label)
        if budget is not None and filled is None:
            filled = _budget_filled(history, budget)
    for label, history in (reference or {}).items():
        for ax, column in zip(axes, columns, strict=True):
            if column in history or (column == "mean_gradient_error" and
                                     "gradient_error" in history):
                ax.plot(np.asarray(history["iteration"], dtype=float), _column(history, column),
                        color="k", ls="--", lw=1.4, zorder=3, label=label)
    for ax, column in zip(axes, columns, strict=True):
        _trace_axis(ax, "iteration", column, logx=False, logy=True)
        _thousands(ax.xaxis)
        low, high = ax.get_ylim()
        if high / low < 100:  # under two decades: 0.2, 0.5, 1 rather than 2×10⁻¹, 5×10⁻¹
            _readable_log_ticks(ax.yaxis)
        if filled is not None:
            ax.axvline(filled, color="0.3", ls=":", lw=1.4,
                       label=f"support reaches B = {budget:,}")
    handles = axes[-1].get_legend_handles_labels()
    if reference is None:
        handles = axes[0].get_legend_handles_labels()
    if len(axes) > 2:  # one legend for the row, under it
        fig.legend(*handles, loc="outside lower center", ncols=min(3, len(handles[0])),
                   fontsize="small", frameon=False)
    else:
        _legend_below(axes[0], handles, ncols=min(3, len(handles[0])))
    if title:
        fig.suptitle(title)
    return fig


def _shades(color, n):
    """``n`` shades of ``color``, from the colour itself to a light tint (one per hyperplane)."""
    base = np.array(to_rgb(color))
    return [tuple(base + (1.0 - base) * f) for f in np.linspace(0.0, 0.55, n)] if n > 1 \
        else [tuple(base)]


def plot_hyperplanes(X, y, weights, hyperplane_classes, *, intercepts=None, resolution=200,
                     ax=None, title=None):
    r"""A multi-hyperplane machine on 2-D data: which hyperplane wins where.

    AMM scores class i by :math:`g(i, x) = \max_j w_{ij}^\top x` and predicts the class of the
    largest score, so the plane is cut into convex cells, one per winning hyperplane (each a
    polyhedron: the boundaries are linear), and the class boundary is piecewise linear. Each cell
    is shaded in a tint of its class' colour; the class boundary is drawn solid black, the
    boundaries between two hyperplanes of the same class dotted (dark, thick enough to read
    on a projector).

    Parameters
    ----------
    X : array-like of shape (n, 2)
    y : array-like of shape (n,)
    weights : array-like of shape (n_hyperplanes, 2)
        The hyperplanes :math:`w_{ij}` (rows).
    hyperplane_classes : array-like of shape (n_hyperplanes,)
        The class of each row of ``weights`` (values of ``y``).
    intercepts : array-like of shape (n_hyperplanes,), optional
        :math:`b_{ij}` in :math:`w_{ij}^\top x + b_{ij}` (the weight of a constant bias
        feature); 0 when omitted.
    resolution : int, default=200
        Grid points per side.
    ax : matplotlib Axes, optional
        Draw there (a panel of a larger figure); a new figure otherwise.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    W = np.asarray(weights, dtype=float)
    owner = np.asarray(hyperplane_classes)
    if W.ndim != 2 or W.shape[1] != 2:
        raise ValueError(f"weights must have shape (n_hyperplanes, 2), got {W.shape}.")
    if owner.shape != (len(W),):
        raise ValueError(f"hyperplane_classes must have one entry per row of weights "
                         f"({len(W)}), got shape {owner.shape}.")
    b = np.zeros(len(W)) if intercepts is None else np.asarray(intercepts, dtype=float)
    fig, (ax,) = new_figure(width=5.6, height=4.6) if ax is None else (ax.figure, (ax,))
    pad = 0.1 * (X.max(axis=0) - X.min(axis=0)) + 1e-9
    low, high = X.min(axis=0) - pad, X.max(axis=0) + pad
    g0, g1 = np.meshgrid(np.linspace(low[0], high[0], resolution),
                         np.linspace(low[1], high[1], resolution))
    scores = (np.column_stack([g0.ravel(), g1.ravel()]) @ W.T + b).reshape(*g0.shape, len(W))
    winner = np.argmax(scores, axis=-1)
    classes = np.unique(np.concatenate([y, owner]))
    palette = ["tab:blue", "tab:red"] if len(classes) == 2 else \
        [f"C{i % 10}" for i in range(len(classes))]
    cell_colors = [None] * len(W)
    for c, color in zip(classes, palette, strict=True):
        rows = np.flatnonzero(owner == c)
        # strict=False: a class that owns no hyperplane has no rows, but _shades gives one shade
        for row, shade in zip(rows, _shades(color, len(rows)), strict=False):
            cell_colors[row] = shade
    ax.contourf(g0, g1, winner, levels=np.arange(len(W) + 1) - 0.5, colors=cell_colors,
                alpha=0.45)
    # Boundaries as zero levels of piecewise-linear margins, exact lines rather than the
    # staircase of a label grid: a hyperplane's cell is where its score beats every other one,
    # a class' region where its best score g(i, x) beats every other class' best.
    for j in range(len(W)):
        margin = scores[..., j] - np.delete(scores, j, axis=-1).max(axis=-1, initial=-np.inf)
        if len(W) > 1 and margin.min() < 0 < margin.max():
            ax.contour(g0, g1, margin, levels=[0], colors="0.15", linewidths=1.6,
                       linestyles="dotted")
    best = np.stack([scores[..., owner == c].max(axis=-1) if np.any(owner == c)
                     else np.full(g0.shape, -np.inf) for c in classes], axis=-1)
    for i in range(len(classes) if len(classes) > 2 else 1):
        margin = best[..., i] - np.delete(best, i, axis=-1).max(axis=-1)
        if np.isfinite(margin).all() and margin.min() < 0 < margin.max():
            ax.contour(g0, g1, margin, levels=[0], colors="k", linewidths=1.8)
    for c, color in zip(classes, palette, strict=True):
        mask = y == c
        n_planes = int(np.sum(owner == c))
        ax.scatter(X[mask, 0], X[mask, 1], s=14, color=color, edgecolors="white",
                   linewidths=0.4,
                   label=f"y = {c}: {n_planes} hyperplane{'s' if n_planes != 1 else ''}")
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    _legend_below(ax, ncols=2)
    if title:
        ax.set_title(title, fontsize="medium")
    return fig


def plot_complexity(x, seconds, *, orders=None, colors=None, xlabel="training-set size N",
                    ylabel="training time (s)", tail=None, ax=None, title=None):
    r"""Measured costs (counts or times) against a size (N or B) on log-log axes, beside the
    orders of the table.

    One line per method; for a method in ``orders`` a dotted guide :math:`c\,x^p` with the
    exponent of its complexity, through the geometric mean of its points, so that the slope
    of the measurement can be read against the slope of the O(·).

    Parameters
    ----------
    x : array-like of shape (n_points,) or dict
        The sizes, shared by every method, or label -> its own sizes.
    seconds : dict
        Label -> costs (kernel evaluations, seconds...), shape (n_points,); ``nan`` where a
        method was not run.
    orders : dict, optional
        Label -> ``(p, text)``: the exponent of x in the method's complexity and its
        O(·) as written in the table (e.g. ``(2, "O(N²)")``), shown in the legend.
    colors : dict, optional
        Label -> colour, so that a method keeps its colour across panels (default: the
        colour cycle in the order of ``seconds``).
    xlabel, ylabel : str
    tail : float in (0, 1], optional
        Anchor each guide at the geometric mean of the points whose log x lies in the last
        ``tail`` of the range (where :func:`lsl_lib.theory.loglog_slope` reads the measured
        slope), so that a guide and a curve whose asymptotic slopes agree overlap there; the
        guide is still drawn over all the points. None: through all the points.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=5.4, height=4.0) if ax is None else (ax.figure, (ax,))
    ticks = set()
    for k, (label, values) in enumerate(seconds.items()):
        xs = np.asarray(x[label] if isinstance(x, dict) else x, dtype=float)
        values = np.asarray(values, dtype=float)
        ok = np.isfinite(values) & (values > 0)
        ticks.update(xs[ok].tolist())
        color = (colors or {}).get(label, f"C{k}")
        ax.plot(xs[ok], values[ok], "o-", ms=4, lw=2, color=color, label=label)
        if orders and label in orders and ok.sum() >= 2:
            p, text = orders[label]
            logx = np.log(xs[ok])
            anchor = np.ones(len(logx), dtype=bool) if tail is None else \
                logx >= logx.max() - tail * (logx.max() - logx.min())
            c = np.exp(np.mean(np.log(values[ok])[anchor] - p * logx[anchor]))
            ax.plot(xs[ok], c * xs[ok] ** p, ":", lw=1.8, color=color,
                    label=f"{text}: slope {p:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = sorted(ticks)
    if 0 < len(ticks) <= 8:
        ax.set_xticks(ticks, [f"{v:,.0f}" for v in ticks])
        ax.xaxis.set_minor_formatter(NullFormatter())
    _readable_log_ticks(ax.yaxis)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    if title:
        ax.set_title(title, fontsize="medium")
    return fig


def plot_budgeted_model(estimator, X, y, *, history=None, budget=None, resolution=150,
                        title=None):
    r"""A budgeted kernel machine on 2-D data and, if given, what its maintenance cost.

    Left: the decision regions of :func:`~lsl_lib.plotting.plot_decision_boundary` (boundary
    solid, margins dashed) with the support vectors circled, area :math:`\propto |\alpha_j|`
    (with merging they are new points, not training examples). Right: the cumulative weight
    degradation :math:`\sum_s\|\Delta_s\|^2` (log scale, left axis) and the average
    gradient error :math:`\bar E_t = \frac1t\sum_{s\le t}\|\Delta_s\|/\eta_s` of Wang
    et al.'s Theorem 1 (right axis) against the iteration, with a dotted line where the
    support first reached B.

    Parameters
    ----------
    estimator : fitted binary classifier
        With ``support_vectors_``, ``dual_coef_`` and ``decision_function``
        (``BudgetedKernelSGDClassifier``, kernel Pegasos, ``SVC``).
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    history : dict of ndarray, optional
        ``history_`` with ``iteration``, ``degradation``, ``gradient_error`` and
        ``n_support``.
    budget : int, optional
        B, for the dotted line.
    resolution : int, default=150
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(1 if history is None else 2, width=5.2, height=4.3)
    ax = axes[0]
    plot_decision_boundary(estimator, X, y, resolution=resolution, ax=ax)
    _mark_support(ax, estimator)
    _legend_below(ax, ncols=3)
    ax.set_title("decision boundary (solid), margins ±1 (dashed)", fontsize="medium")
    if history is not None:
        ax = axes[1]
        t = np.asarray(history["iteration"], dtype=float)
        degradation = np.asarray(history["degradation"], dtype=float)
        shown = degradation > 0
        ax.plot(t[shown], degradation[shown], color="C3", lw=2, label="Σ‖Δ_s‖² (left, log)")
        ax.set_yscale("log")
        _readable_log_ticks(ax.yaxis)
        ax.set_ylabel(AXIS_LABELS["degradation"], color="C3")
        ax.tick_params(axis="y", colors="C3")
        ax.set_xlabel("iteration t")
        _thousands(ax.xaxis)
        ax.grid(True, which="both", alpha=0.3)
        twin = ax.twinx()
        if not shown.any():  # nothing degraded: say so rather than draw empty axes
            ax.text(0.5, 0.6, "no maintenance yet:\nthe support never exceeded B",
                    transform=ax.transAxes, ha="center", va="center", fontsize="medium")
            ax.set_yscale("linear")
            ax.set_yticks([])
            twin.set_yticks([])
        else:
            twin.plot(t, _column(history, "mean_gradient_error"), color="C0", lw=2,
                      label="Ē_t (right)")
            twin.set_ylabel("average gradient error Ē_t", color="C0")
            twin.tick_params(axis="y", colors="C0")
            twin.set_ylim(bottom=0)
        filled = None if budget is None else _budget_filled(history, budget)
        if filled is not None:
            ax.axvline(filled, color="0.3", ls=":", lw=1.4, label=f"support reaches B = {budget:,}")
        handles = [a + b for a, b in zip(ax.get_legend_handles_labels(),
                                         twin.get_legend_handles_labels(), strict=True)]
        _legend_below(ax, handles, ncols=2)
        ax.set_title("what maintenance cost", fontsize="medium")
    if title:
        fig.suptitle(title)
    return fig
