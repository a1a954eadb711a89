"""The common ground of the lecture figures: axis labels, new figures, traces."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter, FuncFormatter, LogLocator, NullFormatter

__all__ = ["AXIS_LABELS", "new_figure", "plot_convergence"]

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


#: Widest row of panels, in inches: about 1 100 pixels, a little more than a JupyterLab cell
#: on a laptop with the file browser open, or on a projector. A wider figure is shrunk to
#: fit, and its text with it; two panels of up to 5.75 inches still stand side by side.
MAX_WIDTH = 11.5


def new_figure(ncols=1, width=5.0, height=3.6):
    """``ncols`` axes of ``width`` x ``height`` inches each, sized for a projector and a laptop.

    The axes stand side by side while the row stays within :data:`MAX_WIDTH`; more
    wrap onto further rows (four panels of 5 inches make two rows of two), so that no
    figure is shrunk into unreadable text.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : ndarray of Axes, shape (ncols,)
        In reading order.
    """
    per_row = max(1, min(ncols, int(MAX_WIDTH // width)))
    nrows = -(-ncols // per_row)
    fig = Figure(figsize=(width * per_row, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, per_row, squeeze=False).ravel()
    for ax in axes[ncols:]:
        fig.delaxes(ax)
    return fig, axes[:ncols]


def _trace_axis(ax, x, column, logx, logy):
    """Label and scale an axis that draws the trace column ``column`` against ``x``."""
    ax.set_xlabel(AXIS_LABELS.get(x, x))
    ax.set_ylabel(AXIS_LABELS.get(column, column))
    if x == "seconds":  # runs of microseconds to seconds: "20 ms", not "0.00002" run together
        ax.xaxis.set_major_formatter(EngFormatter(unit="s"))
        ax.set_xlabel("time")  # the unit is on every tick
    if logy:
        ax.set_yscale("log")
    if logx:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels overlap on short ranges
    ax.grid(True, which="both", alpha=0.3)


def _readable_log_ticks(axis, subs=(1.0, 2.0, 5.0)):
    """Major ticks at ``subs`` times the powers of ten, labelled as plain numbers (200, 1,000,
    5,000, 0.02) rather than 2×10²: several labels even on an axis shorter than two decades."""
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:.3g}"))
    axis.set_minor_formatter(NullFormatter())


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
    return [a + b for a, b in zip(ax.get_legend_handles_labels(), twin.get_legend_handles_labels(),
                                  strict=True)]


def _mark_support(ax, estimator, n_samples=None, max_area=160.0):
    r"""Circle a kernel classifier's support vectors, area :math:`\propto |\alpha_j|`.

    ``estimator`` has ``support_vectors_`` and signed coefficients ``dual_coef_``
    (kernel Pegasos, the online kernel learner, ``sklearn.svm.SVC`` whose array is
    (1, n_SV)); the legend counts them, out of ``n_samples`` when given.
    """
    support = np.asarray(estimator.support_vectors_, dtype=float)
    coef = np.ravel(np.asarray(estimator.dual_coef_, dtype=float))
    if len(support) == 0:
        ax.plot([], [], "o", mfc="none", mec="k", label="α ≠ 0: none")
        return
    largest = np.max(np.abs(coef))
    sizes = 8.0 + (max_area - 8.0) * np.abs(coef) / (largest if largest > 0 else 1.0)
    of = f" of {n_samples}" if n_samples is not None else ""
    ax.scatter(support[:, 0], support[:, 1], s=sizes, facecolors="none", edgecolors="k",
               linewidths=0.8, label=f"α ≠ 0: {len(support)}{of} (area ∝ |α|)")


def _percent_curves(ax, x, curves, spread, **style):
    """One line per label of ``curves``, in percent: the mean over runs of rates in [0, 1]
    (shape (runs, points), or (points,) for one run), and, over several runs, their spread:
    ``'se'`` error bars of one standard error, ``'range'`` a band from the smallest run to
    the largest. Line k has the colour ``'Ck'``; ``style`` goes to the line."""
    for k, (label, rates) in enumerate(curves.items()):
        values = 100 * np.atleast_2d(np.asarray(rates, dtype=float))
        n_runs = values.shape[0]
        if spread == "se":
            error = values.std(axis=0, ddof=1) / np.sqrt(n_runs) if n_runs > 1 else None
            ax.errorbar(x, values.mean(axis=0), yerr=error, color=f"C{k}", **style,
                        label=f"{label} (mean ± s.e. of {n_runs} seeds)" if n_runs > 1
                        else label)
            continue
        mean, low, high, _ = _mean_and_band(values, (0, 100))  # the smallest, the largest
        line, = ax.plot(x, mean, color=f"C{k}", **style,
                        label=f"{label} (mean of {n_runs})" if n_runs > 1 else label)
        if n_runs > 1:
            ax.fill_between(x, low, high, color=line.get_color(), alpha=0.2, linewidth=0)


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
    for ax, column in zip(axes, ys, strict=True):
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
