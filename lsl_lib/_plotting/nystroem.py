r"""Figures of lecture 09 (notebooks/09_nystroem.ipynb): the landmarks a Nyström map picks among
2-D points, the points coloured by a per-point quantity (a leverage score, the residual
:math:`k(x, x) - \|z(x)\|^2`), beside the error against the number of landmarks; and the
downstream figure of lectures 09 and 10: a linear learner on kernel features, its test
accuracy and time against the output width D, beside an exact kernel machine."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from lsl_lib._plotting._base import _mean_and_band, _readable_log_ticks, new_figure
from lsl_lib._plotting.kernel_approximation import plot_error_curves

__all__ = ["plot_accuracy_and_time", "plot_landmarks", "plot_nystroem"]


def plot_landmarks(X, landmarks=None, *, values=None, value_label=None, value_range=None,
                   landmark_label="landmarks", ax=None, title=None):
    """2-D points, optionally coloured by one value each, with the chosen landmarks circled.

    Parameters
    ----------
    X : array-like of shape (n, 2)
        The points (the first two columns are drawn).
    landmarks : array-like of int, optional
        Rows of X that are landmarks (``Nystroem.component_indices_``), drawn as red
        circles around their points; their number goes into the legend.
    values : array-like of shape (n,), optional
        One value per point (leverage scores, residuals), drawn as its colour with a colour
        bar; the points are grey without it.
    value_label : str, optional
        Label of the colour bar.
    value_range : (float, float), optional
        The colour scale's limits (default: the range of ``values``), so that several
        panels can share one scale.
    landmark_label : str, default='landmarks'
    ax : matplotlib Axes, optional
        Draw into it (then the returned figure is its figure).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=4.6, height=4.0) if ax is None else (ax.figure, (ax,))
    X = np.asarray(X, dtype=float)
    if values is None:
        ax.scatter(X[:, 0], X[:, 1], s=8, color="0.6", linewidths=0)
    else:
        values = np.asarray(values, dtype=float)
        vmin, vmax = value_range if value_range is not None else (values.min(), values.max())
        order = np.argsort(values, kind="stable")  # the largest values drawn last, on top
        points = ax.scatter(X[order, 0], X[order, 1], c=values[order], s=10, cmap="viridis",
                            vmin=vmin, vmax=vmax, linewidths=0)
        bar = fig.colorbar(points, ax=ax, shrink=0.85)
        if value_label:
            bar.set_label(value_label)
    if landmarks is not None:
        idx = np.asarray(landmarks, dtype=int)
        ax.scatter(X[idx, 0], X[idx, 1], s=70, facecolors="none", edgecolors="red",
                   linewidths=1.4, label=f"{landmark_label} (m = {len(idx)})")
        ax.legend(fontsize="small", loc="upper right")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x₁")
    ax.set_ylabel("x₂")
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title, fontsize="medium")
    return fig


def plot_nystroem(X, landmarks, residuals, x, curves, *, current=None,
                  xlabel="landmarks m", ylabel="relative error ‖ZZᵀ − K‖_F / ‖K‖_F",
                  title=None):
    r"""A Nyström map on 2-D points beside its error against m: one figure, two panels.

    Left, :func:`plot_landmarks` with the points coloured by their residual
    :math:`k(x, x) - \|z(x)\|^2` (the squared distance of :math:`\varphi(x)` to the span of
    the landmarks: 0 on a landmark) on the scale [0, 1], the range for a kernel with
    :math:`k(x, x) = 1` (wider if a residual exceeds 1); right,
    :func:`plot_error_curves` without a guide, a dotted vertical line at ``current``.

    Parameters
    ----------
    X : array-like of shape (n, 2)
    landmarks : array-like of int
        Rows of X that are landmarks.
    residuals : array-like of shape (n,)
        :math:`k(x_i, x_i) - \|z(x_i)\|^2`.
    x : array-like of shape (n_points,)
        The numbers of landmarks of the error curves.
    curves : dict
        Label -> errors of shape (n_points,) or (n_seeds, n_points).
    current : float, optional
        The m of the left panel, marked on the right one.
    xlabel, ylabel : str
        Of the error panel.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = Figure(figsize=(11.0, 4.2), layout="constrained")
    ax_points, ax_err = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.0, 1.1]})
    residuals = np.asarray(residuals, dtype=float)
    plot_landmarks(X, landmarks, values=residuals, value_label="residual k(x, x) − ‖z(x)‖²",
                   value_range=(0.0, max(float(residuals.max()), 1.0)), ax=ax_points)
    plot_error_curves(x, curves, xlabel=xlabel, ylabel=ylabel, guide=None, ax=ax_err)
    if current is not None:
        ax_err.axvline(current, color="0.3", ls=":", lw=1.2, label=f"m = {current:g} (left)")
        ax_err.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_accuracy_and_time(widths, accuracy, seconds, *, reference=None, band=(0, 100),
                           xlabel="output width D",
                           time_label="time to fit and predict (s)", title=None):
    """A linear learner on kernel features: test accuracy and time against the width D.

    Two panels with one colour per feature map: left, the test accuracy (in %); right,
    the time (log scale); both against D on a log axis. A label holds one value per
    width, or one row per random seed: then its mean is drawn with a band between two
    percentiles of the seeds. The exact kernel machine, whose cost does not depend on
    D, is a dashed horizontal line in both panels.

    Parameters
    ----------
    widths : array-like of shape (n_points,) or dict
        The output widths D, shared by every label, or label -> its own widths.
    accuracy : dict
        Label -> test accuracies in [0, 1], of shape (n_points,) or (n_seeds, n_points).
    seconds : dict
        Label -> times in seconds, shaped as ``accuracy``; the same labels.
    reference : dict, optional
        Label -> ``(accuracy, seconds)`` of a model without D (an exact kernel SVM).
    band : (float, float), default=(0, 100)
        Percentiles of the seeds bounding the band (0, 100: the smallest and largest).
    xlabel : str, default='output width D'
    time_label : str, default='time to fit and predict (s)'
        Label of the time axis: say what was timed.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if set(seconds) != set(accuracy):
        raise ValueError(f"accuracy and seconds must have the same labels, got {sorted(accuracy)} "
                         f"and {sorted(seconds)}")
    fig, (ax_acc, ax_time) = new_figure(2, width=5.6, height=4.0)
    all_widths = set()
    for label in accuracy:
        x = np.asarray(widths[label] if isinstance(widths, dict) else widths, dtype=float)
        all_widths.update(x.tolist())
        color = None
        for ax, values in ((ax_acc, accuracy[label]), (ax_time, seconds[label])):
            mean, low, high, n_runs = _mean_and_band(values, band)
            line, = ax.plot(x, mean, marker="o", ms=5, lw=2, color=color,
                            label=f"{label} (mean of {n_runs})" if n_runs > 1 else label)
            color = line.get_color()
            if n_runs > 1:
                ax.fill_between(x, low, high, color=color, alpha=0.2, linewidth=0)
    for k, (label, (acc, sec)) in enumerate((reference or {}).items()):
        style = {"color": "k" if k == 0 else f"{0.25 + 0.25 * k:.2f}", "ls": "--", "lw": 1.6,
                 "label": label}
        ax_acc.axhline(acc, **style)
        ax_time.axhline(sec, **style)
    ticks = sorted(all_widths)
    for ax, ylabel in ((ax_acc, "test accuracy"), (ax_time, time_label)):
        ax.set_xscale("log")
        if len(ticks) <= 12:  # label the widths themselves, not only the powers of ten
            ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    ax_acc.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:.4g}%"))  # 97.5%, 98%
    ax_time.set_yscale("log")
    _readable_log_ticks(ax_time.yaxis)  # 0.1, 0.2, 0.5, 1 s, ...
    ax_acc.legend(fontsize="small", loc="lower right")
    if title:
        fig.suptitle(title)
    return fig
