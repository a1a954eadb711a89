"""Figures of the lectures: results in, :class:`matplotlib.figure.Figure` out.

Pure functions: they never fit a model (DESIGN.md §1). They build figures with
``matplotlib.figure.Figure`` rather than ``pyplot``, so no global state piles up
when a widget redraws a figure a hundred times; a notebook cell that ends with a
figure displays it once.
"""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

#: Labels of the trace columns (``history_``) on the axes.
AXIS_LABELS = {
    "iteration": "iteration t",
    "epoch": "epochs (passes over the data)",
    "seconds": "time (s)",
    "objective": "primal objective f(w)",
    "suboptimality": "primal suboptimality f(w) − f(w*)",
    "test_error": "test error",
    "test_mse": "test mean squared error",
}


def new_figure(ncols=1, width=5.0, height=3.6):
    """A figure with ``ncols`` axes side by side, sized for a projector."""
    fig = Figure(figsize=(width * ncols, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, axes


def _trace_axis(ax, x, column, logx, logy):
    """Label and scale an axis that draws the trace column ``column`` against ``x``."""
    ax.set_xlabel(AXIS_LABELS.get(x, x))
    ax.set_ylabel(AXIS_LABELS.get(column, column))
    if logy:
        ax.set_yscale("log")
    if logx:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels overlap on short ranges
    ax.grid(True, which="both", alpha=0.3)


def _legend_below(ax, handles=None, ncols=3):
    """A legend centred under the axis, out of the way of the curves."""
    handles = ax.get_legend_handles_labels() if handles is None else handles
    ax.legend(*handles, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.13),
              ncols=ncols, frameon=False)


def _count_on_twin_axis(ax, x, counts, label, ylabel, top=None):
    """Draw a count (support size, non-zero coefficients) dashed on a right-hand axis;
    return the legend handles of both axes."""
    twin = ax.twinx()
    twin.plot(x, np.asarray(counts, dtype=float), color="C2", ls="--", lw=1.2, label=label)
    twin.set_ylabel(ylabel, color="C2")
    twin.tick_params(axis="y", colors="C2")
    twin.set_ylim(0, top)
    return [a + b for a, b in zip(ax.get_legend_handles_labels(), twin.get_legend_handles_labels())]


def _mean_and_band(values, band):
    """Mean over runs and the ``band`` percentiles of a (runs, points) array (1-D: one run)."""
    values = np.atleast_2d(np.asarray(values, dtype=float))
    low, high = np.percentile(values, band, axis=0)
    return values.mean(axis=0), low, high, values.shape[0]


def plot_convergence(histories, x="iteration", y=("suboptimality", "test_error"), logx=False,
                     logy=("suboptimality", "objective"), band=(25, 75), title=None):
    """Convergence curves: one axis per column in ``y``, one line per label.

    A label holds one ``history_``, drawn as it is, or a list of them (one per seed,
    recorded at the same points), drawn as their mean with a shaded band between two
    percentiles of the runs: the figure that compares sampling schemes.

    Parameters
    ----------
    histories : dict
        Label -> ``history_`` of a fitted estimator (a dict of 1-D arrays), or a list
        of them.
    x : str, default='iteration'
        The column on the x-axis ('iteration', 'epoch' or 'seconds').
    y : str or sequence of str
        The columns to draw, one axis each.
    logx : bool, default=False
    logy : sequence of str
        The columns drawn on a log scale.
    band : (float, float), default=(25, 75)
        Percentiles of the runs bounding the band (when a label has several runs).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    ys = [y] if isinstance(y, str) else list(y)
    fig, axes = new_figure(len(ys))
    for ax, column in zip(axes, ys):
        for label, runs in histories.items():
            runs = [runs] if isinstance(runs, dict) else runs
            mean, low, high, n_runs = _mean_and_band([h[column] for h in runs], band)
            if column in logy:  # 0 cannot be drawn on a log axis
                mean, low, high = (np.where(v > 0, v, np.nan) for v in (mean, low, high))
            xs = np.asarray(runs[0][x], dtype=float)
            line, = ax.plot(xs, mean, label=f"{label} (mean of {n_runs})" if n_runs > 1 else label,
                            marker="." if len(xs) < 30 else None)
            if n_runs > 1:
                ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
        _trace_axis(ax, x, column, logx, column in logy)
    axes[0].legend(fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


# ---------------------------------------------------------------------------
# Lecture 01: subgradients, subgradient descent, step sizes.

_KINK_PROBE = 1e-7  # half-width of the window in which one-sided slopes are read


def _loss_on_line(loss, z):
    """Values and a subgradient of a loss as functions of one real number z.

    Binary losses: the margin z = y s (y = +1, s = z). Regression losses: the
    residual z = s - y (y = 0, s = z). Multiclass losses: two classes, true class
    0, scores (z, 0), so that z = s_y - s_other. Returns (value, d/dz).
    """
    from lsl_lib.losses import get_loss

    loss = get_loss(loss)
    z = np.atleast_1d(np.asarray(z, dtype=float))
    if loss.task == "multiclass":
        s = np.column_stack([z, np.zeros_like(z)])
        y = np.zeros(len(z), dtype=np.intp)
        return loss.value(y, s), loss.subgradient(y, s)[:, 0]
    y = np.ones_like(z) if loss.task == "binary" else np.zeros_like(z)
    return loss.value(y, z), loss.subgradient(y, z)


def _line_label(loss):
    """The x-axis label of :func:`_loss_on_line`."""
    return {"binary": "margin z = y·s",
            "regression": "residual r = s − y",
            "multiclass": "margin z = s_y − s_other (2 classes)"}[loss.task]


def plot_subdifferentials():
    """The two kinks of the lecture and the supporting lines through them.

    Left, :math:`f(x) = |x|`: every line :math:`g x` with :math:`g \\in [-1, 1]`
    stays below f and touches it at 0, so :math:`\\partial f(0) = [-1, 1]`. Right,
    the hinge :math:`\\max(0, 1 - z)` of the margin :math:`z = ys`: the lines
    through :math:`(1, 0)` with slopes in :math:`[-1, 0]`. The shaded fans are the
    union of the supporting lines.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_abs, ax_hinge) = new_figure(2)
    cases = [
        (ax_abs, np.linspace(-2, 2, 401), np.abs, 0.0, (-1.0, -0.5, 0.0, 0.5, 1.0),
         "f(x) = |x|", "x", r"$\partial f(0) = [-1,\ 1]$"),
        (ax_hinge, np.linspace(-1, 3, 401), lambda z: np.maximum(0.0, 1.0 - z), 1.0,
         (-1.0, -0.5, 0.0), "hinge ℓ(z) = max(0, 1 − z)", "margin z = y·s",
         r"$\partial \ell(1) = [-1,\ 0]$"),
    ]
    for ax, x, f, kink, slopes, title, xlabel, text in cases:
        lines = np.array([g * (x - kink) for g in slopes])
        ax.fill_between(x, lines.min(axis=0), lines.max(axis=0), color="C1", alpha=0.12,
                        linewidth=0)
        for i, (g, line) in enumerate(zip(slopes, lines)):
            ax.plot(x, line, color=f"C{i + 1}", lw=1.4, ls="--")
            ax.text(x[-1] - 0.05, line[-1], f"g = {g:g}", color=f"C{i + 1}", ha="right",
                    va="bottom" if g > 0 else "top", fontsize=10)
        ax.plot(x, f(x), color="k", lw=2.5)
        ax.plot([kink], [0.0], "o", color="k", ms=7, zorder=5)
        ax.text(0.5, 0.95, text, transform=ax.transAxes, ha="center", va="top", fontsize=13,
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="0.7"))
        ax.set(title=title + "\nand supporting lines of slope g (dashed)", xlabel=xlabel,
               xlim=(x[0], x[-1]), ylim=(-2.3, 2.3))
        ax.axhline(0, color="0.6", lw=0.8, zorder=0)
        ax.grid(True, alpha=0.3)
    return fig


def plot_losses(losses=("hinge", "log", "squared", "epsilon_insensitive"), epsilon=0.5,
                zero_one=True):
    """The losses of the lecture's table (top) and their subgradients (bottom).

    Classification losses against the margin :math:`z = ys` (left), regression
    losses against the residual :math:`r = s - y` (right). In the bottom row a jump
    of the subgradient is drawn as a vertical segment: that segment is the
    subdifferential at the kink.

    Parameters
    ----------
    losses : sequence of str or Loss
        Names of :data:`lsl_lib.losses.LOSSES` (a multiclass loss is drawn with two
        classes, dashed: it coincides with its binary counterpart).
    epsilon : float, default=0.5
        Width of the insensitive tube of ``'epsilon_insensitive'``.
    zero_one : bool, default=True
        Also draw the 0-1 loss :math:`\\mathbb{1}[z \\le 0]`, the non-convex loss
        that the classification losses replace.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lsl_lib.losses import LOSSES, get_loss

    fig = Figure(figsize=(10.0, 6.6), layout="constrained")
    axes = fig.subplots(2, 2, sharex="col")
    z = np.linspace(-3, 3, 1201)
    if zero_one:
        axes[0, 0].plot(z, (z <= 0).astype(float), color="0.5", lw=1.5, ls=":",
                        label="0–1 loss (not convex)")
    for loss in losses:
        loss = get_loss(loss, epsilon)
        column = 1 if loss.task == "regression" else 0
        color = f"C{LOSSES.index(loss.name) % 4}"
        style = "--" if loss.task == "multiclass" else "-"
        value, grad = _loss_on_line(loss, z)
        axes[0, column].plot(z, value, color=color, ls=style, lw=2, label=loss.name)
        axes[1, column].plot(z, grad, color=color, ls=style, lw=2, label=loss.name)
    for column, what in enumerate(["classification", "regression"]):
        name = _line_label(get_loss("hinge" if column == 0 else "squared"))
        axes[0, column].set(title=f"{what} losses", ylabel="loss", ylim=(-0.2, 4.2))
        axes[1, column].set(title="their subgradients", xlabel=name, ylabel="subgradient",
                            ylim=(-3.2, 3.2))
        for ax in axes[:, column]:
            ax.axhline(0, color="0.6", lw=0.8)
            ax.axvline(0, color="0.6", lw=0.8)
            ax.grid(True, alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize="small")
    return fig


def plot_subgradient(loss, point, ax=None, lim=3.0):
    """A loss and its supporting line(s) at a point.

    Where the loss is differentiable the only supporting line is the tangent;
    at a kink the slopes of the supporting lines fill the interval between the
    left and right derivatives (drawn, with the fan of lines between them shaded).
    The loss is drawn as a function of one number: the margin ``z = y·s`` for a
    binary loss, the residual ``r = s - y`` for a regression loss, the margin
    between two classes for a multiclass loss.

    Parameters
    ----------
    loss : str or Loss
        A loss of :data:`lsl_lib.losses.LOSSES` (``'epsilon_insensitive'`` by name
        has epsilon 0.1; pass ``get_loss(name, epsilon)`` for another width).
    point : float
        Where to draw the subgradients.
    ax : matplotlib Axes, optional
        Draw there (one panel of a larger figure); a new figure otherwise.
    lim : float, default=3.0
        Half-width of the plotted range (widened to contain ``point``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lsl_lib.losses import get_loss

    loss = get_loss(loss)
    point = float(point)
    if ax is None:
        fig, (ax,) = new_figure(1)
    else:
        fig = ax.figure
    z = np.linspace(min(-lim, point - 1.0), max(lim, point + 1.0), 801)
    value, _ = _loss_on_line(loss, z)
    v0, g0 = (a[0] for a in _loss_on_line(loss, point))
    left = _loss_on_line(loss, point - _KINK_PROBE)[1][0]
    right = _loss_on_line(loss, point + _KINK_PROBE)[1][0]
    ax.plot(z, value, color="k", lw=2.5, label=loss.name)
    if right - left > 1e-6:  # a kink: a whole interval of subgradients
        lines = np.array([v0 + g * (z - point) for g in (left, right)])
        ax.fill_between(z, lines.min(axis=0), lines.max(axis=0), color="C1", alpha=0.15,
                        linewidth=0, label="other supporting lines")
        ax.plot(z, lines[0], color="C1", lw=1.5, ls="--", label=f"left slope {left:.2f}")
        ax.plot(z, lines[1], color="C3", lw=1.5, ls="--", label=f"right slope {right:.2f}")
        title = (f"kink: ∂ℓ({point:.2f}) = [{left:.2f}, {right:.2f}]\n"
                 f"(lsl_lib's subgradient picks {g0:.2f})")
    else:
        ax.plot(z, v0 + g0 * (z - point), color="C0", lw=1.5, ls="--",
                label=f"tangent, slope {g0:.2f}")
        title = f"differentiable: ∂ℓ({point:.2f}) = {{{g0:.2f}}}\n(the gradient)"
    ax.plot([point], [v0], "o", color="k", ms=7, zorder=5)
    top = 1.1 * max(float(value.max()), 1.0)
    ax.set(title=title, xlabel=_line_label(loss), ylabel="loss", xlim=(z[0], z[-1]),
           ylim=(-0.25 * top, top))
    ax.axhline(0, color="0.6", lw=0.8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper center")
    return fig


def plot_step_sizes(trajectories, mean=None, ax=None, logx=True, title=None):
    """Estimates :math:`w_t` against t, one colour per step-size schedule.

    Parameters
    ----------
    trajectories : dict
        Label -> trajectory ``w`` of shape (T + 1,) (``w[0]`` the starting point,
        as :func:`lsl_lib.losses.sgd_mean` returns) or (n_runs, T + 1) for several
        independent streams, drawn thinner in the same colour.
    mean : float, optional
        The true mean, drawn as a dashed line.
    ax : matplotlib Axes, optional
        Draw there (one panel of a larger figure); a new figure otherwise.
    logx : bool, default=True
        Log scale in t (then t = 0 is not drawn).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        fig, (ax,) = new_figure(1, width=6.0)
    else:
        fig = ax.figure
    start = 1 if logx else 0
    for i, (label, w) in enumerate(trajectories.items()):
        runs = np.atleast_2d(np.asarray(w, dtype=float))
        t = np.arange(runs.shape[1])
        single = len(runs) == 1
        for r, run in enumerate(runs):
            ax.plot(t[start:], run[start:], color=f"C{i}", lw=1.6 if single else 1.0,
                    alpha=1.0 if single else 0.75, label=label if r == 0 else None)
    if mean is not None:
        ax.axhline(mean, color="k", ls="--", lw=1.5, label=f"true mean {mean:g}")
    if logx:
        ax.set_xscale("log")
    ax.set(xlabel="t (samples seen)", ylabel="estimate $w_t$")
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_subgradient_descent(runs, f_star=None, contours=None, paths=None, w_star=None,
                             ylim=None):
    """Subgradient / gradient descent runs: paths over contour lines, and f against t.

    Parameters
    ----------
    runs : dict
        Label -> ``(W, f)`` as :func:`lsl_lib.losses.subgradient_descent` returns:
        iterates of shape (T + 1, d) and objective values of shape (T + 1,).
    f_star : float or dict, optional
        The minimum of f (a dict: label -> minimum, when the runs minimise
        different objectives); then :math:`f(w_t) - f^*` is drawn on a log scale.
    contours : tuple (w1, w2, F), optional
        A grid of a two-dimensional objective (``F[j, i]`` its value at
        ``(w1[i], w2[j])``); adds a left panel with the contour lines and paths.
    paths : sequence of str, optional
        Labels of the runs whose 2-D paths are drawn on the contours (default:
        all; leave out a run that minimises another objective).
    w_star : array-like of shape (2,), optional
        The minimiser, marked with a star on the contours.
    ylim : tuple (bottom, top), optional
        Limits of the objective's axis (e.g. to stop a log axis at 1e-10 when a
        run reaches machine precision).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(2 if contours is not None else 1)
    ax_f = axes[-1]
    colors = {label: f"C{i}" for i, label in enumerate(runs)}
    if contours is not None:
        ax_c = axes[0]
        w1, w2, F = contours
        levels = np.quantile(F, np.linspace(0.0, 0.9, 16) ** 2)
        ax_c.contour(w1, w2, F, levels=np.unique(levels), colors="0.55", linewidths=0.8)
        for label in runs if paths is None else paths:
            W = np.asarray(runs[label][0])
            ax_c.plot(W[:, 0], W[:, 1], ".-", color=colors[label], lw=1, ms=3, label=label)
        if w_star is not None:
            ax_c.plot(*np.ravel(w_star)[:2], "*", color="k", ms=13, zorder=1.5,  # under the paths
                      label="minimiser $w^*$")
        ax_c.set(xlabel="$w_1$", ylabel="$w_2$", title="iterates on the contour lines of f",
                 xlim=(w1[0], w1[-1]), ylim=(w2[0], w2[-1]))
        ax_c.legend(fontsize="small")
    for label, (_, f) in runs.items():
        f = np.asarray(f, dtype=float)
        if f_star is not None:
            star = f_star[label] if isinstance(f_star, dict) else f_star
            f = f - star
            f = np.where(f > 0, f, np.nan)  # 0 cannot be drawn on a log axis
        ax_f.plot(np.arange(len(f)), f, color=colors[label], lw=1.3, label=label)
    ax_f.set(xlabel="iteration t",
             ylabel="$f(w_t) - f^*$" if f_star is not None else "$f(w_t)$",
             title="objective along the iterations")
    if f_star is not None:
        ax_f.set_yscale("log")
    if ylim is not None:
        ax_f.set_ylim(ylim)
    ax_f.grid(True, which="both", alpha=0.3)
    ax_f.legend(fontsize="small")
    return fig


# --- Pegasos lecture (notebooks/02_pegasos.ipynb) ----------------------------------


def plot_minibatch(batch_sizes, suboptimality, band=(0, 100), title=None):
    """Suboptimality at a fixed budget kT against the mini-batch size k.

    The mini-batch figure of Shalev-Shwartz et al. (2011, Section 7): one line per
    budget kT (examples processed), log-log axes. Several runs per point (seeds) are
    drawn as their mean with a shaded band (by default from the min to the max).

    Parameters
    ----------
    batch_sizes : sequence of int
        The mini-batch sizes k, on the x-axis.
    suboptimality : dict
        Budget kT -> array of shape (len(batch_sizes),), or (n_runs, len(batch_sizes))
        for several seeds: :math:`f(w) - f(w^*)` of the output after T = kT/k iterations.
    band : (float, float), default=(0, 100)
        Percentiles of the runs bounding the shaded band.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure()
    k = np.asarray(batch_sizes, dtype=float)
    for budget, values in suboptimality.items():
        mean, low, high, n_runs = _mean_and_band(values, band)
        label = f"kT = {budget:,}" if isinstance(budget, (int, np.integer)) else f"kT = {budget}"
        line, = ax.plot(k, np.where(mean > 0, mean, np.nan), marker="o", label=label)
        if n_runs > 1:
            ax.fill_between(k, np.where(low > 0, low, np.nan), np.where(high > 0, high, np.nan),
                            color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(k, [f"{int(v)}" for v in k])
    ax.set_xlabel("mini-batch size k (budget kT fixed per line)")
    ax.set_ylabel(AXIS_LABELS["suboptimality"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", title="examples processed", title_fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def plot_training_set_size(n_samples, iterations, budget=None, title=None):
    """Iterations needed to reach a target test error against the training-set size n.

    The experiment of Shalev-Shwartz and Srebro (2008): with more data, a stochastic
    solver reaches a fixed test error in fewer iterations. One line per target;
    a target not reached within ``budget`` iterations is marked by a cross on the
    dashed budget line.

    Parameters
    ----------
    n_samples : sequence of int
        Training-set sizes, on the x-axis.
    iterations : dict
        Label (the target) -> array of shape (len(n_samples),) of iteration counts,
        ``inf`` (or nan) where the target was not reached.
    budget : int, optional
        The iterations each run had; drawn as a dashed line.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.ticker import FuncFormatter, LogLocator

    fig, (ax,) = new_figure(width=7.5)
    n = np.asarray(n_samples, dtype=float)
    for j, (label, values) in enumerate(iterations.items()):
        values = np.asarray(values, dtype=float)
        reached = np.isfinite(values)
        line, = ax.plot(n, np.where(reached, values, np.nan), marker="o", label=label)
        if budget is not None and not reached.all():
            shift = 1.07 ** (j - (len(iterations) - 1) / 2)  # crosses of several lines side by side
            ax.plot(n[~reached] * shift, np.full((~reached).sum(), float(budget)),
                    linestyle="none", marker="x", markersize=8, markeredgewidth=2,
                    color=line.get_color())
    if budget is not None:
        ax.axhline(budget, color="0.4", linestyle="--", linewidth=1,
                   label=f"budget T = {budget:,} (×: not reached)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(n, [f"{int(v):,}" for v in n])
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 3.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.minorticks_off()
    ax.set_xlabel("training-set size n")
    ax.set_ylabel("iterations to reach the target")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    if title:
        ax.set_title(title)
    return fig


def plot_decision_boundary(estimators, X, y, resolution=200, title=None, ax=None):
    """Decision regions of fitted classifiers on 2-D data, one axis per estimator.

    A binary classifier with ``predict_proba`` is shaded by the probability of
    ``classes_[1]`` (the 0.5 level drawn); one without is shaded by the sign of its
    ``decision_function``, with the boundary (solid) and the margins at -1 and +1
    (dashed). A multiclass classifier is shaded by its predicted class. The
    estimators are only evaluated on a grid, never fitted.

    Parameters
    ----------
    estimators : fitted classifier or dict
        A classifier, or label -> classifier (one axis each, the label as title).
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    resolution : int, default=200
        Grid points per side.
    title : str, optional
        The figure's title (with ``ax``: that axis' title).
    ax : matplotlib Axes, optional
        Draw the (single) estimator there, one panel of a larger figure; a new
        figure otherwise.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(estimators, dict):
        estimators = {"": estimators}
    if ax is not None and len(estimators) != 1:
        raise ValueError(f"ax draws one estimator, got {len(estimators)}.")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns to draw decision regions, got shape {X.shape}.")
    pad = 0.1 * (X.max(axis=0) - X.min(axis=0)) + 1e-9
    low, high = X.min(axis=0) - pad, X.max(axis=0) + pad
    g0, g1 = np.meshgrid(np.linspace(low[0], high[0], resolution),
                         np.linspace(low[1], high[1], resolution))
    grid = np.column_stack([g0.ravel(), g1.ravel()])
    classes = np.unique(y)
    colors = ["tab:blue", "tab:red"] if len(classes) == 2 else \
        [f"C{i % 10}" for i in range(len(classes))]
    in_panel = ax is not None
    if in_panel:
        fig, axes = ax.figure, [ax]
    else:
        fig, axes = new_figure(len(estimators), width=4.2, height=3.8)
    for ax, (label, est) in zip(axes, estimators.items()):
        n_classes = len(getattr(est, "classes_", classes))
        if n_classes == 2 and hasattr(est, "predict_proba"):
            Z = est.predict_proba(grid)[:, 1].reshape(g0.shape)
            ax.contourf(g0, g1, Z, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.5)
            ax.contour(g0, g1, Z, levels=[0.5], colors="k", linewidths=1.5)
        elif n_classes == 2:
            Z = est.decision_function(grid).reshape(g0.shape)
            ax.contourf(g0, g1, np.sign(Z), levels=[-2, 0, 2], colors=["tab:blue", "tab:red"],
                        alpha=0.15)
            if Z.min() < 0 < Z.max():
                ax.contour(g0, g1, Z, levels=[0], colors="k", linewidths=1.5)
            margins = [v for v in (-1, 1) if Z.min() < v < Z.max()]
            if margins:
                ax.contour(g0, g1, Z, levels=margins, colors="k", linewidths=1,
                           linestyles="dashed")
        else:
            Z = np.searchsorted(est.classes_, est.predict(grid)).reshape(g0.shape)
            ax.contourf(g0, g1, Z, levels=np.arange(n_classes + 1) - 0.5,
                        colors=colors[:n_classes], alpha=0.2)
        for c, color in zip(classes, colors):
            mask = y == c
            ax.scatter(X[mask, 0], X[mask, 1], s=14, color=color, edgecolors="white",
                       linewidths=0.4, label=f"y = {c}")
        ax.set_xlim(low[0], high[0])
        ax.set_ylim(low[1], high[1])
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
        if label:
            ax.set_title(label)
    axes[0].legend(fontsize="small", loc="best")
    if title and in_panel:
        axes[0].set_title(title)
    elif title:
        fig.suptitle(title)
    return fig


def plot_weight_images(coef, image_shape, labels=None, ncols=5, title=None):
    """The rows of a weight matrix drawn as images: one template per class.

    For a multiclass linear model on images (the 8x8 digits), row r of ``coef`` is
    what class r's score looks for: red pixels vote for the class, blue against.

    Parameters
    ----------
    coef : ndarray of shape (K, prod(image_shape))
    image_shape : tuple (height, width)
    labels : sequence of K labels, optional
        Titles of the images (default: the row indices).
    ncols : int, default=5
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    coef = np.atleast_2d(np.asarray(coef, dtype=float))
    n_rows = -(-coef.shape[0] // ncols)
    ncols = min(ncols, coef.shape[0])
    fig = Figure(figsize=(1.6 * ncols + 0.8, 1.7 * n_rows + (0.4 if title else 0.0)),
                 layout="constrained")
    axes = np.atleast_1d(fig.subplots(n_rows, ncols, squeeze=False).ravel())
    labels = list(range(coef.shape[0])) if labels is None else list(labels)
    vmax = np.abs(coef).max() or 1.0
    image = None
    for ax in axes:
        ax.set_axis_off()
    for ax, row, label in zip(axes, coef, labels):
        image = ax.imshow(row.reshape(image_shape), cmap="RdBu_r", vmin=-vmax, vmax=vmax)
        ax.set_title(str(label), fontsize="medium")
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="weight")
    if title:
        fig.suptitle(title)
    return fig


# --- Kernel Pegasos lecture (notebooks/03_kernel_pegasos.ipynb) ----------------------------

AXIS_LABELS.update({
    "n_support": "support size m (examples with α > 0)",
    "kernel_evaluations": "kernel evaluations (cumulative)",
    "cache_hits": "cache hits (cumulative)",
    "cache_misses": "cache misses (cumulative)",
    "hit_rate": "cache hit rate (hits / iterations)",
})


def plot_kernels(x, profiles, matrices=None, anchor=None, profile_label="x",
                 matrix_label=None, title=None):
    """The kernels side by side: a 1-D profile of each (top) and a kernel matrix (bottom).

    Parameters
    ----------
    x : ndarray of shape (n_points,)
        Positions along a line, the x-axis of the profiles.
    profiles : dict
        Kernel name -> ndarray of shape (n_points,): :math:`k(x, b)` at those
        positions, for one fixed point b. One column of the figure per kernel.
    matrices : dict, optional
        Kernel name -> kernel matrix of shape (m, m), drawn as a heatmap under the
        profile of the same name, each with its own colour scale.
    anchor : float, optional
        Position of b on the line, marked by a dotted vertical line.
    profile_label : str, default='x'
        Label of the profiles' x-axis.
    matrix_label : str, optional
        What the rows and columns of the matrices are (e.g. "80 points, sorted by class").
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = list(profiles)
    nrows = 1 if matrices is None else 2
    fig = Figure(figsize=(2.6 * len(names) + 0.4, 2.7 * nrows + (0.3 if title else 0.0)),
                 layout="constrained")
    axes = fig.subplots(nrows, len(names), squeeze=False)
    x = np.asarray(x, dtype=float)
    for j, name in enumerate(names):
        ax = axes[0, j]
        ax.plot(x, np.asarray(profiles[name], dtype=float), color=f"C{j}", lw=2)
        if anchor is not None:
            ax.axvline(anchor, color="0.4", ls=":", lw=1)
        ax.axhline(0, color="0.6", lw=0.8)
        ax.set_title(name)
        ax.set_xlabel(profile_label)
        ax.grid(True, alpha=0.3)
        if j == 0:
            ax.set_ylabel("k(x, b)")
        if matrices is not None:
            ax = axes[1, j]
            image = ax.imshow(np.asarray(matrices[name], dtype=float), cmap="viridis",
                              interpolation="nearest")
            fig.colorbar(image, ax=ax, shrink=0.75)
            ax.set_xticks([])
            ax.set_yticks([])
            if matrix_label:
                ax.set_xlabel(matrix_label, fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_feature_count(n_features, counts, marks=None, title=None):
    """Width D of an explicit feature map against the input dimension d (log-log).

    For the polynomial kernel of degree p, :math:`D = \\binom{p + d}{p}`
    (:func:`lsl_lib.kernels.n_polynomial_features`): the price of "untricking" the
    kernel. A right-hand axis reads D as the memory of one mapped example in float64.

    Parameters
    ----------
    n_features : sequence of int
        The dimensions d, on the x-axis.
    counts : dict
        Label (e.g. ``'p = 3'``) -> sequence of D, one per d.
    marks : dict, optional
        Text -> (d, D): points to mark (a data set of the course), named in the legend.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=6.5, height=4.0)
    d = np.asarray(n_features, dtype=float)
    for label, values in counts.items():
        ax.plot(d, np.asarray(values, dtype=float), marker="o" if len(d) < 30 else None,
                ms=3, label=label)
    for (text, (d_mark, D_mark)), marker in zip((marks or {}).items(), "*DsP^v"):
        ax.plot([d_mark], [D_mark], marker=marker, color="k", ms=9 if marker == "*" else 6,
                linestyle="none", zorder=5, label=f"{text}: D = {D_mark:,}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("input dimension d")
    ax.set_ylabel("explicit features D")
    memory = ax.secondary_yaxis("right", functions=(lambda D: 8.0 * D, lambda b: b / 8.0))
    memory.set_ylabel("bytes per mapped example (float64)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    if title:
        ax.set_title(title)
    return fig


def plot_cache_effect(cache_sizes, runs, full_cache=None,
                      columns=("hit_rate", "kernel_evaluations"), title=None):
    """What a cache of kernel rows buys, against its size: one axis per measure.

    Parameters
    ----------
    cache_sizes : sequence of float
        Cache sizes in megabytes, on the x-axis.
    runs : dict
        Label (e.g. the sampling scheme) -> dict of column -> sequence of one value
        per cache size: ``'hit_rate'``, ``'kernel_evaluations'``, ``'seconds'``...
    full_cache : float, optional
        The size from which every kernel row fits, drawn as a dashed vertical line.
    columns : sequence of str, default=('hit_rate', 'kernel_evaluations')
        The measures to draw, one axis each.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    columns = [columns] if isinstance(columns, str) else list(columns)
    fig, axes = new_figure(len(columns))
    sizes = np.asarray(cache_sizes, dtype=float)
    for ax, column in zip(axes, columns):
        for label, run in runs.items():
            if column in run:
                ax.plot(sizes, np.asarray(run[column], dtype=float), marker="o", ms=4,
                        label=label)
        if full_cache is not None:
            ax.axvline(full_cache, color="0.4", ls="--", lw=1, label="all n rows fit")
        ax.set_xlabel("cache size (MB)")
        ax.set_ylabel("kernel evaluations (whole run)" if column == "kernel_evaluations"
                      else AXIS_LABELS.get(column, column))
        if column == "hit_rate":
            ax.set_ylim(-0.03, 1.03)
        else:
            ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_violation_counts(margins, fractions, title=None):
    """Violation counts of kernel Pegasos against the margins they produced.

    Each support example j is a point: its final margin :math:`y_j f(x_j)` and the
    fraction of its visits in which it violated the margin (:math:`\\alpha_j` over
    the number of visits; with ``sampling='permutation'`` every example is visited
    once per epoch). The SVM dual predicts the picture: coefficient C (fraction 1)
    inside the margin, 0 outside, anything in between on it.

    Parameters
    ----------
    margins : ndarray of shape (m,)
    fractions : ndarray of shape (m,)
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=6.0, height=3.8)
    margins = np.asarray(margins, dtype=float)
    fractions = np.asarray(fractions, dtype=float)
    ax.axvspan(min(margins.min(), 0.0) - 0.2, 1.0, color="tab:orange", alpha=0.08,
               linewidth=0, label="inside the margin: dual coefficient C")
    ax.axvspan(1.0, max(margins.max(), 2.0) + 0.2, color="tab:green", alpha=0.08, linewidth=0,
               label="outside: dual coefficient 0")
    ax.scatter(margins, fractions, s=16, color="k", alpha=0.7,
               label=f"support examples ({len(margins)})")
    ax.axvline(1.0, color="0.3", ls="--", lw=1)
    for level in (0.0, 1.0):
        ax.axhline(level, color="0.6", lw=0.8)
    ax.set_xlim(min(margins.min(), 0.0) - 0.2, max(margins.max(), 2.0) + 0.2)
    ax.set_ylim(-0.05, 1.1)
    ax.set_xlabel("final margin $y_j f(x_j)$")
    ax.set_ylabel("violations / visits  ($\\alpha_j$ / visits)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="center right")
    if title:
        ax.set_title(title)
    return fig


def plot_kernel_pegasos(estimator, X, y, history=None, resolution=150, title=None):
    """A fitted kernel classifier on 2-D data and, if given, its convergence trace.

    Left: the decision regions of :func:`plot_decision_boundary` (boundary solid,
    margins dashed), the support vectors circled, with an area proportional to the
    violation count ``alpha_`` when the estimator has one (kernel Pegasos), equal
    otherwise (``sklearn.svm.SVC``). Right: the suboptimality
    :math:`f(w_t) - f(w^*)` against t on log-log axes, with a dotted :math:`c/t`
    guide, and the support size m on a right-hand axis (dashed).

    Parameters
    ----------
    estimator : fitted binary classifier with ``support_vectors_`` and ``decision_function``
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    history : dict of ndarray, optional
        ``history_`` with ``iteration``, ``suboptimality`` and ``n_support``.
    resolution : int, default=150
        Grid points per side of the decision regions.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(1 if history is None else 2, width=5.2, height=4.2)
    ax = axes[0]
    plot_decision_boundary(estimator, X, y, resolution=resolution, ax=ax)
    support = np.asarray(estimator.support_vectors_, dtype=float)
    alpha = getattr(estimator, "alpha_", None)
    if alpha is not None and len(alpha):
        sizes = 15.0 + 185.0 * np.asarray(alpha, dtype=float) / np.max(alpha)
        label = f"support: {len(support)} (area ∝ α)"
    else:
        sizes, label = 50.0, f"support: {len(support)}"
    ax.scatter(support[:, 0], support[:, 1], s=sizes, facecolors="none", edgecolors="k",
               linewidths=0.8, label=label)
    _legend_below(ax)
    ax.set_title("decision boundary (solid), margins ±1 (dashed)", fontsize="medium")
    if history is not None:
        ax = axes[1]
        t = np.asarray(history["iteration"], dtype=float)
        sub = np.asarray(history["suboptimality"], dtype=float)
        keep = (t > 0) & (sub > 0)  # log axes: t = 0 and non-positive values cannot be drawn
        ax.plot(t[keep], sub[keep], color="C0", marker="." if keep.sum() < 30 else None,
                label="$f(w_t) - f(w^*)$")
        if keep.sum() >= 2:
            late = (t * sub)[keep][keep.sum() // 2:]
            ax.plot(t[keep], np.median(late) / t[keep], ":", color="0.3", label="c / t")
        _trace_axis(ax, "iteration", "suboptimality", True, True)
        handles = ax.get_legend_handles_labels()
        if "n_support" in history:
            handles = _count_on_twin_axis(ax, t, history["n_support"],
                                          "support size m (right axis)", "support size m")
        _legend_below(ax, handles)
        ax.set_title("convergence", fontsize="medium")
    if title:
        fig.suptitle(title)
    return fig


# --- Online kernel learning lecture (notebooks/04_online_kernel_learning.ipynb) -------------

AXIS_LABELS.update({
    "rkhs_objective": "$J_K = \\frac{1}{2}\\alpha^\\top K\\alpha + C\\sum_i \\ell(z_i)$",
    "train_error": "training error",
    "n_nonzero": "non-zero coefficients (α ≠ 0)",
})


def plot_margin_losses(z, losses, psis, margin=1.0, title=None):
    """Margin losses :math:`\\ell(z)` (left) and step factors :math:`\\psi(z) = -\\ell'(z)` (right).

    In the unified online kernel learner an example with margin :math:`z = y\\,o(x)` moves
    its coefficient by :math:`\\Lambda = \\eta C y\\,\\psi(z)`: where :math:`\\psi = 0` it is not
    touched, where :math:`\\psi < 0` it is pushed back towards the margin. The region
    :math:`z \\ge` ``margin`` (examples beyond the margin) is shaded on both axes.

    Parameters
    ----------
    z : ndarray of shape (m,)
        Margins, on the x-axis.
    losses : dict
        Label -> :math:`\\ell(z)`, ndarray of shape (m,).
    psis : dict
        Label -> :math:`\\psi(z)`, same labels (a label missing here is not drawn on the right).
    margin : float or None, default=1.0
        Where the shaded region starts (None: no shading).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_loss, ax_psi) = new_figure(2, width=5.4, height=3.9)
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
    ax_loss.legend(fontsize="small", loc="upper right")
    if margin is not None:
        ax_psi.text(margin + 0.05, 3.0, "beyond the margin", fontsize="small", va="top",
                    color="0.3")
    if title:
        fig.suptitle(title)
    return fig


def _signed_support(estimator):
    """Support vectors and signed coefficients (``support_vectors_``, ``dual_coef_`` raveled)."""
    support = np.asarray(estimator.support_vectors_, dtype=float)
    coef = np.ravel(np.asarray(estimator.dual_coef_, dtype=float))  # SVC's is (1, n_SV)
    return support, coef


def _mark_support(ax, estimator, n_samples=None, max_area=160.0):
    """Circle the support vectors of ``estimator`` on ``ax``, area :math:`\\propto |\\alpha_j|`."""
    support, coef = _signed_support(estimator)
    if len(support) == 0:
        ax.plot([], [], "o", mfc="none", mec="k", label="α ≠ 0: none")
        return
    largest = np.max(np.abs(coef))
    sizes = 8.0 + (max_area - 8.0) * np.abs(coef) / (largest if largest > 0 else 1.0)
    of = f" of {n_samples}" if n_samples is not None else ""
    ax.scatter(support[:, 0], support[:, 1], s=sizes, facecolors="none", edgecolors="k",
               linewidths=0.8, label=f"α ≠ 0: {len(support)}{of} (area ∝ |α|)")


def plot_support(estimators, X, y, resolution=150, title=None):
    """Decision boundaries of fitted kernel classifiers with their support vectors marked.

    One panel per estimator: the regions of :func:`plot_decision_boundary` (boundary solid,
    margins :math:`o(x) = \\pm 1` dashed) and a circle around every training example with a
    non-zero coefficient, of area proportional to :math:`|\\alpha_j|`; the legend counts them.

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
    fig, axes = new_figure(len(estimators), width=4.3, height=4.3)
    for ax, (label, est) in zip(axes, estimators.items()):
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
    """The coefficients of several models, sorted by magnitude: how sparse is each solution?

    One line per model: :math:`|\\alpha|` sorted in decreasing order against the rank, on a
    log scale, so that exact zeros (which a log axis cannot show) end a line early; the
    legend counts the non-zeros.

    Parameters
    ----------
    coefficients : dict
        Label -> ndarray of shape (n,): all the coefficients :math:`\\alpha` of a model
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
    """A fitted online kernel classifier on 2-D data and, if given, its error curves.

    Left: the regions of :func:`plot_decision_boundary` (boundary solid, margins
    :math:`o(x) = \\pm 1` dashed) with the examples of non-zero coefficient circled, area
    :math:`\\propto |\\alpha_j|`, as in :func:`plot_support`. Right: the training error and, if
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
        for c, color in zip(np.unique(y), ["tab:blue", "tab:red"]):
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


# --- Coordinate descent lecture (notebooks/06_coordinate_descent.ipynb) --------------------

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


# --- SARAH lecture (notebooks/05_sarah.ipynb) -----------------------------------------------

AXIS_LABELS.update({
    "effective_passes": "effective passes (gradient evaluations / n)",
    "grad_norm2": "squared gradient norm ‖∇f(w)‖²",
    "outer_loop": "outer loop s",
    "estimator_error": "estimator error ‖v_t − ∇f(w_t)‖²",
    "v_norm2": "squared estimate norm ‖v_t‖²",
})


def plot_convergence_bound(histories, bounds, x="effective_passes",
                           y=("suboptimality", "grad_norm2"), logx=False,
                           logy=("suboptimality", "grad_norm2"), band=(25, 75), title=None):
    """:func:`plot_convergence` with theoretical bounds drawn as dashed black lines.

    A bound that grows (a rate of 1 or more: the theorem says nothing) is drawn
    while it stays within a factor 10 of the data's range, so that it cannot
    squash the measured curves.

    Parameters
    ----------
    histories : dict
        As in :func:`plot_convergence`.
    bounds : dict
        Label -> ``(column, xs, values)``: the bound on ``column`` (one of ``y``) at
        the abscissae ``xs``.
    x, y, logx, logy, band, title
        As in :func:`plot_convergence`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    ys = [y] if isinstance(y, str) else list(y)
    fig = plot_convergence(histories, x=x, y=ys, logx=logx, logy=logy, band=band, title=title)
    for (label, (column, xs, values)), style in zip(bounds.items(), ("--", ":", "-.")):
        ax = fig.axes[ys.index(column)]
        low, high = ax.get_ylim()
        xs, values = np.asarray(xs, dtype=float), np.asarray(values, dtype=float)
        if column in logy:
            values = np.where(values > 0, values, np.nan)
        keep = values <= 10 * high
        ax.plot(xs[keep], values[keep], ls=style, color="k", lw=1.5, label=label)
        finite = values[keep & np.isfinite(values)]
        if finite.size:
            ax.set_ylim(min(low, finite.min()), max(high, finite.max()))
        ax.legend(fontsize="small")
    return fig
