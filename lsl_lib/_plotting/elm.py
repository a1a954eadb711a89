"""Figures of ``notebooks/11_extreme_learning_machines.ipynb``: the hidden nodes, the two
closed forms' cost, an ELM's fit of a 1-D function, where random sigmoids bend, and the
accuracy of two random feature maps against their width."""
import numpy as np
from matplotlib.ticker import NullFormatter

from lsl_lib._plotting._base import _mean_and_band, _percent_curves, _readable_log_ticks, new_figure

__all__ = [
    "plot_activations", "plot_solver_times", "plot_elm_fit", "plot_break_points",
    "plot_accuracy_against_width",
]


def _log_axis_ticks(axis, values):
    """Plain-number ticks (0.05, 0.1, 0.2) on a log axis spanning less than three decades;
    powers of ten beyond, where 1, 2, 5 per decade would crowd the axis."""
    values = np.asarray([v for v in np.ravel(values) if v > 0], dtype=float)
    if values.size and values.max() < 1e3 * values.min():
        _readable_log_ticks(axis)


def plot_activations(z, values, *, formulas=None, xlabel="a·x + b   (RBF: x − a, b = 1)"):
    r"""One small panel per hidden node, :math:`g` against its argument.

    Parameters
    ----------
    z : array-like of shape (n_points,)
        The argument: the pre-activation :math:`a^\top x + b` of an additive node, the
        offset :math:`x - a` from the centre of an RBF node.
    values : dict
        Activation name -> :math:`G` at ``z``, shape (n_points,).
    formulas : dict, optional
        Activation name -> the formula, written under the name.
    xlabel : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    z = np.asarray(z, dtype=float)
    fig, axes = new_figure(len(values), width=2.8, height=2.3)
    for k, (ax, (name, g)) in enumerate(zip(axes, values.items(), strict=True)):
        ax.plot(z, np.asarray(g, dtype=float), color=f"C{k}", lw=2.2)
        ax.axhline(0.0, color="0.6", lw=0.8)
        ax.axvline(0.0, color="0.6", lw=0.8)
        title = name if formulas is None or name not in formulas else f"{name}\n{formulas[name]}"
        ax.set_title(title, fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.set_xlabel(xlabel, fontsize="small")
    return fig


def plot_solver_times(n_samples, seconds, n_hidden, *, ylabel="time of the solve (s)", title=None):
    """Time of each closed form against N/L, on log-log axes, with the crossing N = L marked.

    Parameters
    ----------
    n_samples : array-like of shape (n_points,)
        N, the number of training rows.
    seconds : dict
        Label ('primal (L × L system)', ...) -> times in seconds, shape (n_points,) or
        (n_repeats, n_points) (then the median is drawn, with the range as a band).
    n_hidden : int
        L, the number of hidden nodes, fixed.
    ylabel : str, default='time of the solve (s)'
        Say what was timed (wall-clock or CPU time).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    ratio = np.asarray(n_samples, dtype=float) / n_hidden
    fig, (ax,) = new_figure(width=6.4, height=4.0)
    for label, values in seconds.items():
        values = np.atleast_2d(np.asarray(values, dtype=float))
        line, = ax.plot(ratio, np.median(values, axis=0), marker="o", ms=5, lw=2, label=label)
        if values.shape[0] > 1:
            ax.fill_between(ratio, values.min(axis=0), values.max(axis=0),
                            color=line.get_color(), alpha=0.2, linewidth=0)
    ax.axvline(1.0, color="k", ls="--", lw=1.2, label="N = L")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ratio, [f"{v:g}" for v in ratio])
    ax.xaxis.set_minor_formatter(NullFormatter())
    _log_axis_ticks(ax.yaxis, np.concatenate([np.ravel(v) for v in seconds.values()]))
    ax.set_xlabel(f"N / L   (training rows per hidden node, L = {n_hidden})")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    if title:
        ax.set_title(title)
    return fig


def plot_elm_fit(x, f, x_train, y_train, predictions, widths, errors, *, current=None,
                 band=(0, 100), noise_level=None, title=None):
    """An ELM's fit of a 1-D function (left) and its errors against the width L (right).

    Parameters
    ----------
    x : array-like of shape (n_points,)
        A grid on which the fits are drawn.
    f : array-like of shape (n_points,)
        The true function on the grid (black, dashed).
    x_train, y_train : array-like of shape (n_train,)
        The training sample (grey dots).
    predictions : dict
        Label ('L = 8', ...) -> the fitted function on the grid.
    widths : array-like of shape (n_widths,)
        The widths L of the right panel.
    errors : dict
        Label ('train', 'test', ...) -> mean squared errors at ``widths``, shape
        (n_widths,), or (n_seeds, n_widths): the mean, with a band between two percentiles
        of the seeds.
    current : int, optional
        A width to mark on the right panel (the L of the left panel's fit).
    band : (float, float), default=(0, 100)
    noise_level : float, optional
        The variance σ² of the noise of the targets: the least test error any model can
        reach, drawn dashed on the right panel.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_fit, ax_err) = new_figure(2, width=5.6, height=4.0)
    x = np.asarray(x, dtype=float)
    ax_fit.scatter(x_train, y_train, s=14, color="0.55", zorder=1, label="training sample")
    ax_fit.plot(x, f, color="k", ls="--", lw=1.6, zorder=3, label="true f")
    for k, (label, values) in enumerate(predictions.items()):
        ax_fit.plot(x, values, lw=2, color=f"C{k}", zorder=2, label=label)
    low = min(np.min(f), np.min(y_train))
    high = max(np.max(f), np.max(y_train))
    pad = 0.25 * (high - low)
    ax_fit.set_ylim(low - pad, high + pad)  # a wild fit leaves the frame, not the data
    ax_fit.set_xlabel("x")
    ax_fit.set_ylabel("y")
    ax_fit.grid(True, alpha=0.3)
    ax_fit.legend(fontsize="small", loc="upper left", ncols=2)

    widths = np.asarray(widths, dtype=float)
    drawn = []
    for label, values in errors.items():
        mean, lo, hi, n_runs = _mean_and_band(values, band)
        drawn.append(np.concatenate([lo, hi]))
        line, = ax_err.plot(widths, mean, marker="o", ms=4, lw=2,
                            label=f"{label} (mean of {n_runs})" if n_runs > 1 else label)
        if n_runs > 1:
            ax_err.fill_between(widths, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
    if noise_level is not None:
        ax_err.axhline(noise_level, color="k", lw=1.4, ls="--",
                       label=f"noise σ² = {noise_level:g}")
        drawn.append(np.array([noise_level]))
    if current is not None:
        ax_err.axvline(current, color="k", lw=1.2, ls=":", label=f"L = {current}")
    ax_err.set_xscale("log")
    ax_err.set_yscale("log")
    _log_axis_ticks(ax_err.yaxis, np.concatenate(drawn))
    ax_err.set_xticks(widths, [f"{v:g}" for v in widths])
    ax_err.xaxis.set_minor_formatter(NullFormatter())
    ax_err.set_xlabel("hidden nodes L")
    ax_err.set_ylabel("mean squared error")
    ax_err.grid(True, which="both", alpha=0.3)
    ax_err.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_break_points(break_points, *, interval=(-1.0, 1.0), window=3.0, bins=60, title=None):
    """Where random sigmoid nodes bend: a histogram of their break points.

    An additive node :math:`g(ax + b)` of one input changes fastest at :math:`x = -b/a`;
    the histogram shows where a random hidden layer puts those points, with the data's
    interval shaded.

    Parameters
    ----------
    break_points : array-like of shape (n_nodes,)
        :math:`-b_j/a_j`.
    interval : (float, float), default=(-1, 1)
        Where the data lie (shaded).
    window : float, default=3
        The histogram covers [-window, window]; the share of points beyond is written in
        the legend.
    bins : int, default=60
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    points = np.asarray(break_points, dtype=float)
    fig, (ax,) = new_figure(width=7.0, height=3.4)
    inside = np.abs(points) <= window
    ax.axvspan(*interval, color="C2", alpha=0.15, label=f"the data: [{interval[0]:g}, "
               f"{interval[1]:g}]")
    ax.hist(points[inside], bins=np.linspace(-window, window, bins + 1), color="C0",
            label=f"break points −b/a ({np.mean(~inside):.0%} beyond ±{window:g})")
    ax.set_xlim(-window, window)
    ax.set_xlabel("x where the node bends, −b/a")
    ax.set_ylabel("number of nodes")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    if title:
        ax.set_title(title)
    return fig


def plot_accuracy_against_width(widths, accuracy, *, xlabel="width", title=None):
    """Test accuracy (in %) against the width of a random feature map, one line per model,
    the mean over seeds with error bars of one standard error.

    Parameters
    ----------
    widths : array-like of shape (n_widths,)
    accuracy : dict
        Label -> accuracies in [0, 1], shape (n_seeds, n_widths) (or (n_widths,): no bars).
    xlabel : str
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    widths = np.asarray(widths, dtype=float)
    fig, (ax,) = new_figure(width=6.4, height=4.0)
    _percent_curves(ax, widths, accuracy, "se", marker="o", ms=5, lw=2, capsize=4)
    ax.set_xscale("log")
    ax.set_xticks(widths, [f"{v:g}" for v in widths])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy (%)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    if title:
        ax.set_title(title)
    return fig
