"""Figures of ``notebooks/15_scaling_out.ipynb``: averaged parallel SGD against one machine,
times and errors against the number of workers, and the memory of out-of-core training."""
import numpy as np
from matplotlib.ticker import (
    EngFormatter,
    FixedLocator,
    FuncFormatter,
    LogLocator,
    NullFormatter,
    NullLocator,
)

from lsl_lib._plotting._base import (
    AXIS_LABELS,
    _legend_below,
    _readable_log_ticks,
    _trace_axis,
    new_figure,
)

__all__ = ["plot_averaging", "plot_out_of_core", "plot_scaling"]

#: Labels of the columns these figures draw beside the trace columns of AXIS_LABELS.
_LABELS = {
    "seconds": "wall-clock time",
    "model_bytes": "model memory",
    "n_rounds": "communication rounds",
}


def _column(trace, name, label):
    if name not in trace:
        raise ValueError(f"the trace of {label!r} has no column {name!r}; it has {sorted(trace)}.")
    return np.asarray(trace[name], dtype=float)


def _legend_under_panels(fig, axes, ncols):
    """One legend for all the panels, under them (out of the way of the lines and of the axis
    labels, whatever their size): each label once."""
    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=ncols,
               fontsize="small", frameon=False)


def _from_zero(ax):
    """A linear axis of errors from 0 to a little above the largest value drawn."""
    top = max((np.nanmax(line.get_ydata()) for line in ax.get_lines()
               if np.any(np.isfinite(line.get_ydata()))), default=0.0)
    ax.set_ylim(0, 1.08 * top if top > 0 else 1.0)


def plot_averaging(runs, x="epoch", y=("objective", "test_error"), reference=None, title=None):
    r"""Objective and test error of averaged parallel SGD against the work done.

    One panel per column in ``y``, one line per run, a marker at every recorded point: for a
    :class:`lsl_lib.distributed.ParallelPegasosClassifier` each point of its ``history_`` is a
    communication round (an averaging), so the markers count the rounds. A label's line has
    the same colour in every panel; the legend sits under the panels.

    Parameters
    ----------
    runs : dict
        Label -> trace (a dict of 1-D arrays with the columns ``x`` and ``y``), such as the
        ``history_`` of a ``ParallelPegasosClassifier`` fitted with ``eval_set``, or a trace
        put together from several one-shot runs of growing length.
    x : str, default='epoch'
        The column on the x-axis: ``'epoch'`` (each worker's passes over its partition, so
        the passes of all the workers together over the data) or ``'round'``.
    y : str or sequence of str, default=('objective', 'test_error')
    reference : float, optional
        The optimal objective :math:`f(w^*)` of the problem (from an exact solver). Given,
        the ``'objective'`` panel draws the suboptimality :math:`f(\bar w) - f(w^*)` on a
        log scale, where a run that stalls above the optimum (a bias) stands out from one
        that keeps converging.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``runs`` is empty or a trace lacks a column or has columns of different lengths.
    """
    if not runs:
        raise ValueError("runs must hold at least one trace, got none.")
    ys = [y] if isinstance(y, str) else list(y)
    fig, axes = new_figure(len(ys), width=5.2, height=3.8)
    for ax, column in zip(axes, ys, strict=True):
        gap = column == "objective" and reference is not None
        for k, (label, trace) in enumerate(runs.items()):
            xs, values = _column(trace, x, label), _column(trace, column, label)
            if xs.shape != values.shape:
                raise ValueError(f"the trace of {label!r} has {len(xs)} values of {x!r} and "
                                 f"{len(values)} of {column!r}.")
            if gap:  # at or below the optimum (rounding): off the log axis
                values = values - reference
                values = np.where(values > 0, values, np.nan)
            ax.plot(xs, values, "o-", ms=4, lw=1.8, color=f"C{k}", label=label)
        _trace_axis(ax, x, "suboptimality" if gap else column, logx=False, logy=gap)
        if gap:
            _readable_log_ticks(ax.yaxis)
        elif column == "test_error":
            _from_zero(ax)
        if x == "round":
            ax.set_xlabel(_LABELS["n_rounds"])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    _legend_under_panels(fig, axes, ncols=1 if len(runs) > 2 else len(runs))
    if title:
        fig.suptitle(title)
    return fig


def plot_scaling(n_workers, runs, y=("seconds", "test_error"), ideal_speedup=True, cores=None,
                 title=None):
    r"""Time, error or memory against the number of workers K: one panel per column in ``y``.

    Time and memory are drawn on log scales, where the ideal speed-up of the first run,
    :math:`T(K) = T(K_0) K_0 / K`, is a dotted straight line; errors and objectives on a
    linear scale from 0.

    Parameters
    ----------
    n_workers : array-like of int
        The values of K, increasing.
    runs : dict
        Label -> dict of 1-D arrays, one value per K, with the columns in ``y``
        (``'seconds'``, ``'test_error'``, ``'objective'``, ``'model_bytes'``, ...). A run
        that lacks a column is left out of its panel.
    y : str or sequence of str, default=('seconds', 'test_error')
    ideal_speedup : bool, default=True
        Draw the ideal speed-up of the first run in the ``'seconds'`` panel (for a fixed
        amount of work split over K workers; not for work that grows with K).
    cores : int, optional
        The cores of the machine: a grey band marks K beyond them, where the workers share
        the cores and no further speed-up is possible.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``runs`` is empty, a run has a column whose length is not that of ``n_workers``,
        or no run has a column of ``y``.
    """
    if not runs:
        raise ValueError("runs must hold at least one run, got none.")
    K = np.asarray(n_workers, dtype=float)
    if K.ndim != 1 or len(K) == 0 or np.any(K < 1) or np.any(np.diff(K) <= 0):
        raise ValueError(f"n_workers must be increasing integers >= 1, got {n_workers!r}.")
    ys = [y] if isinstance(y, str) else list(y)
    fig, axes = new_figure(len(ys), width=5.2, height=3.8)
    for ax, column in zip(axes, ys, strict=True):
        drawn = [(k, label, np.asarray(run[column], dtype=float))
                 for k, (label, run) in enumerate(runs.items()) if column in run]
        if not drawn:
            raise ValueError(f"no run has the column {column!r}.")
        for k, label, values in drawn:
            if values.shape != K.shape:
                raise ValueError(f"{label!r} has {len(values)} values of {column!r} for "
                                 f"{len(K)} values of n_workers.")
            ax.plot(K, values, "o-", ms=5, lw=1.8, color=f"C{k}", label=label)
        log = column in ("seconds", "model_bytes")
        if log:
            ax.set_yscale("log")
            if column == "seconds":
                # 1, 2, 5 times the powers of ten; within a factor of 20, 1, 1.5, 2, 3, 4, 5, 7,
                # so that the top and the bottom of a short range both have a label
                values = np.concatenate([v[v > 0] for _, _, v in drawn])
                short = values.size and values.max() / values.min() < 20
                subs = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0) if short else (1.0, 2.0, 5.0)
                ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
                ax.yaxis.set_major_formatter(EngFormatter(unit="s"))
                ax.yaxis.set_minor_formatter(NullFormatter())
            else:
                _bytes_axis(ax.yaxis)
        if column == "seconds" and ideal_speedup:
            _, label, values = drawn[0]
            ax.plot(K, values[0] * K[0] / K, ":", color="0.35", lw=1.5,
                    label=f"ideal speed-up of {label}")
        if not log:
            _from_zero(ax)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(K))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        if cores is not None and K[-1] > cores:
            ax.axvspan(cores, K[-1] * 1.15, color="0.85", alpha=0.6, lw=0,
                       label=f"K > {cores} cores: workers share them")
            ax.set_xlim(K[0] / 1.15, K[-1] * 1.15)
        ax.set_xlabel("workers K")
        ax.set_ylabel(_LABELS.get(column, AXIS_LABELS.get(column, column)))
        ax.grid(True, which="major", alpha=0.3)
    _legend_under_panels(fig, axes, ncols=2)
    if title:
        fig.suptitle(title)
    return fig


def _bytes(value, digits=1):
    """Bytes in the binary unit that reads best: '1.9 MiB', '308.2 MiB', '512 B'."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= size:
            return f"{value / size:,.{digits}f} {unit}"
    return f"{value:,.0f} B"


def _bytes_axis(axis):
    """A log axis of bytes ticked at the powers of 4 (1 KiB, 4 KiB, ..., 1 MiB, 4 MiB, ...),
    labelled in the binary units of the bars' own labels."""
    axis.set_major_locator(LogLocator(base=4, numticks=30))
    axis.set_major_formatter(FuncFormatter(lambda v, _: _bytes(v, digits=0)))
    axis.set_minor_formatter(NullFormatter())
    axis.set_minor_locator(NullLocator())


_OUT_OF_CORE_BARS = (("data_bytes", "the data (X, y) in memory", "C0"),
                     ("memory_budget", "memory budget", "C2"),
                     ("peak_bytes", "measured peak of the run", "C3"),
                     ("chunk_bytes", "one chunk", "C1"))


def plot_out_of_core(reports, title=None):
    """What out-of-core training holds in memory, against the data it streams.

    For each run a group of bars on a log scale: the bytes of the data had they been loaded
    at once, the memory budget, the peak measured during the run and one chunk, each bar
    labelled with its size.

    Parameters
    ----------
    reports : OutOfCoreReport or sequence of them
        What :func:`lsl_lib.distributed.fit_out_of_core` returned (any objects with the
        attributes ``data_bytes``, ``memory_budget``, ``peak_bytes`` and ``chunk_bytes``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``reports`` is empty or a size is not positive.
    """
    reports = [reports] if hasattr(reports, "data_bytes") else list(reports)
    if not reports:
        raise ValueError("reports must hold at least one OutOfCoreReport, got none.")
    values = np.array([[float(getattr(r, name)) for name, _, _ in _OUT_OF_CORE_BARS]
                       for r in reports])
    if np.any(values <= 0):
        raise ValueError("every size of a report must be positive (bytes), got "
                         f"{values.tolist()}.")
    n_bars = len(_OUT_OF_CORE_BARS)
    fig, (ax,) = new_figure(1, width=max(6.5, 2.2 * len(reports) + 3.0), height=4.2)
    width = 0.8 / n_bars
    groups = np.arange(len(reports))
    for j, (_, label, color) in enumerate(_OUT_OF_CORE_BARS):
        positions = groups + (j - (n_bars - 1) / 2) * width
        ax.bar(positions, values[:, j], width=width * 0.92, color=color, label=label)
        for position, value in zip(positions, values[:, j], strict=True):
            ax.text(position, value * 1.12, _bytes(value), ha="center", va="bottom",
                    fontsize="small", rotation=90 if len(reports) > 2 else 0)
    ax.set_yscale("log")
    ax.set_ylim(values.min() / 3, values.max() * 12)
    _bytes_axis(ax.yaxis)
    ax.set_ylabel("bytes (log scale)")
    ax.set_xticks(groups, [f"{_bytes(r.data_bytes)} streamed\nin {r.n_chunks} chunks"
                           if hasattr(r, "n_chunks") else _bytes(r.data_bytes) for r in reports])
    ax.grid(True, axis="y", which="major", alpha=0.3)
    _legend_below(ax, ncols=2)
    if title:
        ax.set_title(title)
    return fig
