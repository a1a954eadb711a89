"""Figures shared by the kernel-approximation lectures (notebooks 07-10: random Fourier
features, orthogonal features, Nyström, Fastfood): error curves against the output
width, matrices side by side, kernel spectra, variances beside their closed forms."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.ticker import NullFormatter

from lsl_lib._plotting._base import _mean_and_band, _readable_log_ticks, new_figure

__all__ = ["plot_error_curves", "plot_matrices", "plot_spectrum", "plot_variance"]


def plot_error_curves(x, curves, *, xlabel="output width D",
                      ylabel="relative error ‖ZZᵀ − K‖_F / ‖K‖_F", guide=-0.5,
                      guide_label="∝ 1/√D", band=(0, 100), logx=True, logy=True, ax=None,
                      title=None):
    """Curves against a size (output width D, landmarks m, input dimension d), one per label.

    A label holds one value per point of ``x``, or one row per random seed: then its mean
    is drawn with a band between two percentiles of the seeds. A dashed guide of slope
    ``guide`` on the log-log axes (the Monte Carlo rate :math:`D^{-1/2}` by default) starts
    at the first curve's first point.

    Parameters
    ----------
    x : array-like of shape (n_points,)
    curves : dict
        Label -> array of shape (n_points,) or (n_seeds, n_points).
    xlabel, ylabel : str
    guide : float or None, default=-0.5
        Slope of the guide line on log-log axes; None draws none.
    guide_label : str, default='∝ 1/√D'
    band : (float, float), default=(0, 100)
        Percentiles of the seeds bounding the band (0, 100: the smallest and largest).
    logx, logy : bool, default=True
    ax : matplotlib Axes, optional
        Draw into it (then the returned figure is its figure).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure() if ax is None else (ax.figure, (ax,))
    x = np.asarray(x, dtype=float)
    first = None
    for label, values in curves.items():
        mean, low, high, n_runs = _mean_and_band(values, band)
        line, = ax.plot(x, mean, marker="o", ms=4,
                        label=f"{label} (mean of {n_runs})" if n_runs > 1 else label)
        if n_runs > 1:
            ax.fill_between(x, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
        if first is None:
            first = mean[0]
    if guide is not None and first is not None:
        ax.plot(x, first * (x / x[0]) ** guide, color="0.4", ls="--", lw=1, label=guide_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log")
        if len(x) <= 12:  # label the sizes themselves, not only the powers of ten
            ax.set_xticks(x, [f"{v:g}" for v in x])
            ax.xaxis.set_minor_formatter(NullFormatter())
    if logy:
        ax.set_yscale("log")
        low, high = ax.get_ylim()
        if high <= 1000 * low:  # up to three decades: 0.02, 0.05, 0.1 rather than 2×10⁻²
            _readable_log_ticks(ax.yaxis)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def plot_matrices(matrices, *, symmetric=False, shared_scale=True, cmap=None, width=3.4,
                  ncols=None, title=None):
    """Matrices side by side as heatmaps: an exact kernel matrix beside its approximations,
    a difference, a Hadamard matrix, the factors of a structured transform.

    Parameters
    ----------
    matrices : dict
        Panel title -> 2-D array.
    symmetric : bool, default=False
        A colour scale symmetric about 0 (for differences and ±1 matrices), diverging
        colormap.
    shared_scale : bool, default=True
        One colour scale (and one colour bar) for all panels, so that equal colours mean
        equal values; else one colour bar per panel.
    cmap : str, optional
        Default 'RdBu_r' when ``symmetric``, else 'viridis'.
    width : float, default=3.4
        Width of one panel, in inches.
    ncols : int, optional
        Panels per row; more panels wrap onto further rows (two rows of two are readable
        on a laptop where four in a row are not). Default: all in one row.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    arrays = {name: np.asarray(m, dtype=float) for name, m in matrices.items()}
    cmap = cmap or ("RdBu_r" if symmetric else "viridis")

    def limits(values):
        if symmetric:
            top = max(float(np.max(np.abs(v))) for v in values) or 1.0
            return -top, top
        return min(float(v.min()) for v in values), max(float(v.max()) for v in values)

    ncols = len(arrays) if ncols is None else min(ncols, len(arrays))
    nrows = -(-len(arrays) // ncols)
    fig = Figure(figsize=(width * ncols, width * nrows), layout="constrained")
    grid = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in grid[len(arrays):]:  # the last row's empty places
        ax.set_axis_off()
    axes = grid[:len(arrays)]
    shared = limits(arrays.values()) if shared_scale else None
    for ax, (name, values) in zip(axes, arrays.items(), strict=True):
        vmin, vmax = shared or limits([values])
        image = ax.imshow(values, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(name, fontsize="medium")
        ax.set_xticks([])
        ax.set_yticks([])
        if not shared_scale:
            fig.colorbar(image, ax=ax, shrink=0.75)
    if shared_scale:
        fig.colorbar(image, ax=list(axes), shrink=0.75)
    if title:
        fig.suptitle(title)
    return fig


def plot_spectrum(eigenvalues, *, n_show=None, relative=True, ax=None, title=None):
    r"""Eigenvalues of kernel matrices in decreasing order, on a log scale.

    The faster they decay, the better a rank-m approximation (Nyström) can do: the best
    rank-m error in Frobenius norm is :math:`(\sum_{i>m}\lambda_i^2)^{1/2}`.

    Parameters
    ----------
    eigenvalues : dict
        Label -> 1-D array of eigenvalues (any order; negative round-off is dropped).
    n_show : int, optional
        Draw the first ``n_show`` eigenvalues only.
    relative : bool, default=True
        Divide by the largest, :math:`\lambda_i/\lambda_1`.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure() if ax is None else (ax.figure, (ax,))
    for label, values in eigenvalues.items():
        values = np.sort(np.asarray(values, dtype=float))[::-1][:n_show]
        values = values[values > 0]
        if relative:
            values = values / values[0]
        ax.plot(np.arange(1, len(values) + 1), values, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("index i")
    ax.set_ylabel("λ_i / λ_1" if relative else "eigenvalue λ_i")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def plot_variance(x, measured, theory, *, x_theory=None, xlabel="distance ‖δ‖/σ",
                  ylabel="variance of the estimate × D", ax=None, title=None):
    """Measured variances (markers) beside their closed forms (lines), one colour per label.

    Parameters
    ----------
    x : array-like of shape (n_points,)
        Where the variances were measured.
    measured : dict
        Label -> array of shape (n_points,): the Monte Carlo variances (or ratios).
    theory : dict
        Label -> array of shape (len(x_theory),): the closed form (a label absent from
        ``measured`` is drawn alone).
    x_theory : array-like, optional
        Where the closed forms are evaluated (a finer grid); default ``x``.
    xlabel, ylabel : str
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure() if ax is None else (ax.figure, (ax,))
    x = np.asarray(x, dtype=float)
    x_theory = x if x_theory is None else np.asarray(x_theory, dtype=float)
    labels = list(dict.fromkeys([*theory, *measured]))
    entries = []  # one legend entry per label: its line and its markers side by side
    for k, label in enumerate(labels):
        color = f"C{k}"
        artists = []
        if label in theory:
            artists += ax.plot(x_theory, np.asarray(theory[label], dtype=float), color=color,
                               label=f"{label}: theory")
        if label in measured:
            artists += ax.plot(x, np.asarray(measured[label], dtype=float), color=color, ls="none",
                               marker="o", ms=4, label=f"{label}: measured")
        entries.append(tuple(artists))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    # read from the back of a lecture hall: half as many entries as artists, at the axis' font size
    ax.legend(entries, labels, handler_map={tuple: HandlerTuple(ndivide=None)}, fontsize="medium",
              title="lines: theory · dots: measured", title_fontsize="medium", loc="upper center",
              bbox_to_anchor=(0.5, -0.15), ncols=2, frameon=False)
    if title:
        ax.set_title(title)
    return fig
