"""Figures of lecture 05 (notebooks/05_sarah.ipynb): convergence beside the linear rate."""
import numpy as np

from lsl_lib._plotting._base import AXIS_LABELS, plot_convergence

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
