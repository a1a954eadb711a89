"""Figures of ``notebooks/13_doubly_stochastic_gradients.ipynb``."""
import numpy as np
from matplotlib.ticker import EngFormatter, FuncFormatter

from lsl_lib._plotting._base import _legend_below, _trace_axis, new_figure

__all__ = ["plot_dsg_convergence", "plot_model_memory"]


def plot_dsg_convergence(runs, x=("examples", "seconds"), y="test_error", logx=("seconds",),
                         title=None):
    """Test error of several learners against the examples they have seen and against time.

    Parameters
    ----------
    runs : dict
        Label -> a trace (dict of 1-D arrays with the columns in ``x`` and ``y``), such as
        the ``history_`` of a :class:`lsl_lib.doubly_stochastic.DoublyStochasticClassifier`
        fitted with ``eval_set``. A label's line has the same colour in every panel.
    x : sequence of str, default=('examples', 'seconds')
        One panel per column on the x-axis.
    y : str, default='test_error'
    logx : sequence of str, default=('seconds',)
        The x columns drawn on a log scale (times spread over decades); their points at 0
        (a trace's start) are left out. The ``'seconds'`` of a ``history_`` are the
        solver's, without the evaluations of ``eval_set``, and the axis says so.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    xs = [x] if isinstance(x, str) else list(x)
    fig, axes = new_figure(len(xs), width=5.2, height=3.8)
    for ax, column in zip(axes, xs, strict=True):
        for k, (label, trace) in enumerate(runs.items()):
            xv = np.asarray(trace[column], dtype=float)
            yv = np.asarray(trace[y], dtype=float)
            if column in logx:  # a point at time 0 has no place on a log axis: left out
                xv, yv = xv[xv > 0], yv[xv > 0]
            ax.plot(xv, yv, "o-", ms=3, lw=1.8, color=f"C{k}", label=label)
        _trace_axis(ax, column, y, logx=column in logx, logy=False)
        if column == "seconds":  # the log scale replaced the formatter: "20 ms", not 2×10⁻²
            ax.xaxis.set_major_formatter(EngFormatter(unit="s"))
            ax.set_xlabel("solver time, evaluations excluded"
                          + (" (log scale)" if column in logx else ""))
        if column == "examples":
            ax.set_xlabel("examples seen")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_ylim(bottom=0)
    _legend_below(axes[0], ncols=1 if len(runs) > 3 else len(runs))
    if len(axes) > 1:
        axes[1].sharey(axes[0])
    if title:
        fig.suptitle(title)
    return fig


def _bytes(value):
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value:,.0f} B"


def plot_model_memory(sizes, title=None):
    """What each approach keeps in memory, in bytes, on a log scale.

    Parameters
    ----------
    sizes : dict
        Label -> bytes (a model, a feature matrix, a set of support vectors), drawn from
        top to bottom in the given order, each bar labelled with its size.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    labels = list(sizes)
    values = np.array([float(sizes[label]) for label in labels])
    fig, (ax,) = new_figure(1, width=8.0, height=0.55 * len(labels) + 1.4)
    positions = np.arange(len(labels))[::-1]
    ax.barh(positions, values, color=[f"C{k}" for k in range(len(labels))], height=0.6)
    ax.set_xscale("log")
    ax.set_yticks(positions, labels)
    for position, value in zip(positions, values, strict=True):
        ax.text(value * 1.15, position, _bytes(value), va="center", fontsize="medium")
    ax.set_xlim(values.min() / 3, values.max() * 20)
    ax.set_xlabel("bytes (log scale)")
    ax.grid(True, axis="x", which="major", alpha=0.3)
    if title:
        ax.set_title(title)
    return fig
