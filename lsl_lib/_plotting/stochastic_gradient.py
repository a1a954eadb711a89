"""Figures of lecture 05 (notebooks/05_sarah.ipynb): convergence beside the linear rate,
and the theorems' settings beside the practical ones."""
import numpy as np

from lsl_lib._plotting._base import (
    AXIS_LABELS,
    _mean_and_band,
    _trace_axis,
    new_figure,
    plot_convergence,
)

__all__ = ["plot_convergence_bound", "plot_theorems_and_practice"]

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
    # strict=False: a line style per bound, three at most; fewer bounds leave styles unused
    for (label, (column, xs, values)), style in zip(bounds.items(), ("--", ":", "-."),
                                                    strict=False):
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


def plot_theorems_and_practice(panels, x="effective_passes", band=(25, 75), width=5.7,
                               height=4.4, title=None):
    """One axis per theorem: runs in the theorem's settings under its bound, beside
    runs in the practical settings, on a log scale.

    Parameters
    ----------
    panels : list of dict
        One per axis, with keys ``'column'`` (the trace column the theorem bounds,
        e.g. ``'suboptimality'`` or ``'grad_norm2'``), ``'histories'`` (label ->
        ``history_`` or list of them, as in :func:`plot_convergence`: a list is drawn
        as its mean with a band), ``'bounds'`` (label -> ``(xs, values)``, drawn dashed
        black with markers) and ``'title'``.
    x : str, default='effective_passes'
    band : (float, float), default=(25, 75)
        Percentiles of the runs bounding the band.
    width, height : float
        Size of one axis, in inches: by default two axes stand in one row (projector width).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(len(panels), width=width, height=height)
    for ax, panel in zip(axes, panels, strict=True):
        column = panel["column"]
        for label, runs in panel["histories"].items():
            runs = [runs] if isinstance(runs, dict) else runs
            mean, low, high, n_runs = _mean_and_band([h[column] for h in runs], band)
            mean, low, high = (np.where(v > 0, v, np.nan) for v in (mean, low, high))
            xs = np.asarray(runs[0][x], dtype=float)
            line, = ax.plot(xs, mean, marker="o", ms=4, lw=2,
                            label=f"{label} (mean of {n_runs})" if n_runs > 1 else label)
            if n_runs > 1:
                ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
        for label, (xs, values) in panel.get("bounds", {}).items():
            values = np.asarray(values, dtype=float)
            ax.plot(xs, np.where(values > 0, values, np.nan), ls="--", marker="x", color="k",
                    lw=1.5, label=label)
        _trace_axis(ax, x, column, False, True)
        ax.set_title(panel.get("title", ""))
        # under the axis, at the size of the tick labels: read from the back of a lecture hall
        ax.legend(fontsize="medium", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=1,
                  frameon=False)
    if title:
        fig.suptitle(title)
    return fig
