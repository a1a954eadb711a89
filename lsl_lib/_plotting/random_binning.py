"""Figures of the random binning section of lecture 12 (notebooks/12_random_kitchen_sinks.ipynb):
how random grids estimate the Laplacian kernel (the pitch density, the hat function and its
average, the estimate of P grids), and binning against Fourier features as the training set
grows, beside the published and the benchmarked results."""
import numpy as np
from matplotlib.ticker import NullFormatter

from lsl_lib._plotting._base import _percent_curves, _readable_log_ticks, new_figure

__all__ = ["plot_binning_kernel", "plot_binning_against_fourier"]


def _label_panel(ax, xlabel, ylabel, title, ncols):
    """Labels, title and grid of a panel, and its legend under the axis, low enough to clear
    a two-line tick-and-label strip."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=ncols,
              frameon=False)


def plot_binning_kernel(delta, gamma, pitches, estimates, *, hat_pitches=None):
    r"""Random binning of one axis, in three panels of one row.

    Left: the pitch density :math:`p(\delta) = \gamma^2\delta e^{-\gamma\delta}` (the
    :math:`\delta k''(\delta)` of :math:`k(\Delta) = e^{-\gamma|\Delta|}`) over a histogram of the
    drawn pitches. Middle: the probability that two points at distance :math:`|\Delta|` share
    a cell of one grid of pitch :math:`\delta`, the hat :math:`\max(0, 1 - |\Delta|/\delta)`, for
    a few pitches, and its average over the drawn pitches against the kernel. Right: the
    estimates :math:`z(0)^\top z(\Delta)` of P grids against the kernel.

    Parameters
    ----------
    delta : array-like of shape (m,)
        Distances :math:`\Delta` (one axis), the x-axis of the middle and right panels.
    gamma : float
        The kernel width.
    pitches : array-like of shape (n_pitches,)
        Drawn pitches (``draw_grids``).
    estimates : dict
        Label ('P = 10', ...) -> :math:`z(0)^\top z(\Delta)` at ``delta``, shape (m,).
    hat_pitches : sequence of float, optional
        The pitches whose hats are drawn; default :math:`(0.5, 2, 5)/\gamma`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    delta = np.asarray(delta, dtype=float)
    pitches = np.asarray(pitches, dtype=float)
    kernel = np.exp(-gamma * np.abs(delta))
    fig, (left, middle, right) = new_figure(3, width=3.8, height=3.7)

    grid = np.linspace(0, np.quantile(pitches, 0.995), 300)
    left.hist(pitches, bins=50, range=(0, grid[-1]), density=True, color="C0", alpha=0.45,
              label=f"{len(pitches):,} drawn pitches")
    left.plot(grid, gamma ** 2 * grid * np.exp(-gamma * grid), color="k", lw=2,
              label="p(δ) = γ²δ e^(−γδ) = δ k″(δ)")
    _label_panel(left, "pitch δ", "density", "pitch density: Gamma(2, 1/γ)", ncols=1)

    hat_pitches = (0.5 / gamma, 2.0 / gamma, 5.0 / gamma) if hat_pitches is None else hat_pitches
    for k, pitch in enumerate(hat_pitches):
        middle.plot(delta, np.maximum(0.0, 1.0 - np.abs(delta) / pitch), color=f"C{k + 1}", lw=1.8,
                    label=f"one grid, δ = {pitch:.2g}")
    mix = np.maximum(0.0, 1.0 - np.abs(delta)[:, None] / pitches[None, :]).mean(axis=1)
    middle.plot(delta, mix, color="C0", lw=3.2, label="average over the drawn δ")
    middle.plot(delta, kernel, color="k", ls="--", lw=1.8, label="e^(−γ|Δ|)")
    _label_panel(middle, "distance Δ on one axis", "P(same cell)",
                 "hat functions and their average", ncols=2)

    for k, (label, values) in enumerate(estimates.items()):
        right.plot(delta, np.asarray(values, dtype=float), color=f"C{k + 4}", lw=2.2 - 0.4 * k,
                   drawstyle="steps-mid", label=label)
    right.plot(delta, kernel, color="k", ls="--", lw=1.8, label="e^(−γ|Δ|)")
    _label_panel(right, "distance Δ on one axis", "z(0)ᵀz(Δ)",
                 "P grids: the share of cells in common", ncols=2)
    for ax in (middle, right):
        ax.set_ylim(-0.03, 1.05)
    return fig


def plot_binning_against_fourier(n_values, errors, *, references=None, title=None):
    """Test error against the number of training rows, one line per feature map (the mean over
    seeds, with a band from the smallest to the largest), and results measured elsewhere (a
    benchmark's runs, a paper's table) as labelled markers, dotted between the points of one
    reference.

    Parameters
    ----------
    n_values : array-like of shape (n_points,)
        Training-set sizes (log axis).
    errors : dict
        Label -> test error rates in [0, 1], shape (n_seeds, n_points) or (n_points,).
    references : list of (label, n, error, color), optional
        Results at n training rows: n and error are numbers, or sequences of the same length
        (one curve); ``color`` matches a reference to its line ('C0', ...).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    n_values = np.asarray(n_values, dtype=float)
    fig, (ax,) = new_figure(width=9.0, height=5.6)
    _percent_curves(ax, n_values, errors, "range", marker="o", ms=5, lw=2.2)
    markers = iter("s^Dvp*")
    for label, n, error, color in references or ():
        ax.plot(np.atleast_1d(n), 100 * np.atleast_1d(np.asarray(error, dtype=float)),
                marker=next(markers, "o"), ms=8, ls=":", lw=1.4, color=color,
                markeredgecolor="k", label=label)
    ax.set_xscale("log")
    _readable_log_ticks(ax.xaxis)
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("training rows n")
    ax.set_ylabel("test error (%)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.13), ncols=2,
              frameon=False)  # below the axis: the curves fill its lower left
    if title:
        ax.set_title(title)
    return fig
