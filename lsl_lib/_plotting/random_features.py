"""Figures of lectures 07 and 08 (notebooks/07_random_fourier_features.ipynb,
notebooks/08_orthogonal_random_features.ipynb): an exact kernel matrix, its random-feature
approximation and their difference beside the error against D; the distribution of the
estimate of one kernel value over random draws."""
import numpy as np
from matplotlib.figure import Figure

from lsl_lib._plotting._base import new_figure
from lsl_lib._plotting.kernel_approximation import plot_error_curves

__all__ = ["plot_kernel_approximation", "plot_estimate_distribution"]


def plot_kernel_approximation(K, K_approx, x, curves, *, current=None,
                              approx_label="approximation K̃", xlabel="output width D",
                              ylabel="relative error ‖ZZᵀ − K‖_F / ‖K‖_F", title=None):
    r"""An exact kernel matrix, its approximation and their difference, beside the error
    curves against the output width: one figure, four panels on two rows.

    Top row: K and :math:`\tilde K` on one colour scale (equal colours, equal values).
    Bottom row: the difference, on its own scale symmetric about 0 whose ends are the
    largest :math:`|\tilde K - K|` (the number in its title), and :func:`plot_error_curves`
    (mean and band over seeds, the :math:`1/\sqrt D` guide) with a dotted vertical line at
    the width of the approximation shown. Two rows keep every panel large enough to read
    on a projector and on a laptop beside a file browser.

    Parameters
    ----------
    K, K_approx : array-like of shape (n, n)
        The exact kernel matrix and its approximation :math:`\tilde K = ZZ^\top`.
    x : array-like of shape (n_points,)
        The output widths of the error curves.
    curves : dict
        Label -> errors of shape (n_points,) or (n_seeds, n_points), as in
        :func:`plot_error_curves`.
    current : float, optional
        The width of ``K_approx``, marked on the error panel.
    approx_label : str, default='approximation K̃'
        Title of the second panel.
    xlabel, ylabel : str
        Of the error panel.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    K, K_approx = np.asarray(K, dtype=float), np.asarray(K_approx, dtype=float)
    fig = Figure(figsize=(10.0, 8.4), layout="constrained")
    (ax_k, ax_approx), (ax_diff, ax_err) = fig.subplots(2, 2)
    vmin, vmax = min(K.min(), K_approx.min()), max(K.max(), K_approx.max())
    for ax, values, name in ((ax_k, K, "exact K"), (ax_approx, K_approx, approx_label)):
        image = ax.imshow(values, cmap="viridis", vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(name, fontsize="large")
    fig.colorbar(image, ax=[ax_k, ax_approx], shrink=0.85)
    diff = K_approx - K
    top = float(np.abs(diff).max()) or 1.0
    image = ax_diff.imshow(diff, cmap="RdBu_r", vmin=-top, vmax=top, interpolation="nearest")
    ax_diff.set_title(f"K̃ − K (max |·| = {top:.2g})", fontsize="large")
    bar = fig.colorbar(image, ax=ax_diff, shrink=0.85)
    ticks = np.array([-top, -top / 2, 0.0, top / 2, top])
    # ends = the title's
    bar.set_ticks(ticks, labels=[f"{t:.2g}".replace("-", "−") if t else "0" for t in ticks])
    for ax in (ax_k, ax_approx, ax_diff):
        ax.set_xticks([])
        ax.set_yticks([])
    plot_error_curves(x, curves, xlabel=xlabel, ylabel=ylabel, ax=ax_err)
    if current is not None:
        ax_err.axvline(current, color="0.3", ls=":", lw=1.2, label=f"D = {current:g} (shown)")
        ax_err.legend(fontsize="small")
    for ax in fig.axes:
        ax.tick_params(labelsize="medium")
    if title:
        fig.suptitle(title, fontsize="x-large")
    return fig


def plot_estimate_distribution(estimates, true_value=None, *, bins=30, ax=None,
                               xlabel="estimate z(x)ᵀz(y)", title=None):
    """Histograms of the estimates of one kernel value over random draws, one per label.

    Each label's histogram is drawn as an outline (density scale, common bins), its legend
    entry giving the mean and the standard deviation; a vertical line marks the exact value.

    Parameters
    ----------
    estimates : dict
        Label -> 1-D array, the estimate of each draw (seed).
    true_value : float, optional
        The exact kernel value.
    bins : int, default=30
        Number of bins, shared by all labels over the range of all estimates.
    ax : matplotlib Axes, optional
        Draw into it (then the returned figure is its figure).
    xlabel : str
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure() if ax is None else (ax.figure, (ax,))
    arrays = {label: np.asarray(v, dtype=float).ravel() for label, v in estimates.items()}
    values = np.concatenate(list(arrays.values()) + ([[true_value]] if true_value is not None
                                                     else []))
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-12:  # all equal: a narrow bin around the value
        low, high = low - 0.01, high + 0.01
    edges = np.linspace(low, high, bins + 1)
    for k, (label, v) in enumerate(arrays.items()):
        ax.hist(v, bins=edges, density=True, histtype="step", lw=1.6, color=f"C{k}",
                label=f"{label}: mean {v.mean():.3f}, sd {v.std(ddof=1) if len(v) > 1 else 0:.3f}")
    if true_value is not None:
        ax.axvline(true_value, color="k", ls="--", lw=1.2, label=f"exact k = {true_value:.3f}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density over draws")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    return fig
