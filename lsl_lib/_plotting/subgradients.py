"""Figures of lecture 01 (notebooks/01_subgradients.ipynb): losses, subdifferentials,
subgradient descent, step sizes."""
import numpy as np
from matplotlib.figure import Figure

from lsl_lib._plotting._base import new_figure

__all__ = [
    "plot_subdifferentials", "plot_losses", "plot_subgradient", "plot_step_sizes",
    "plot_subgradient_descent",
]

_KINK_PROBE = 1e-7  # half-width of the window in which one-sided slopes are read


def _loss_on_line(loss, z):
    """Values and a subgradient of a loss as functions of one real number z.

    Binary losses: the margin z = y s (y = +1, s = z). Regression losses: the
    residual z = s - y (y = 0, s = z). Multiclass losses: two classes, true class
    0, scores (z, 0), so that z = s_y - s_other. Returns (value, d/dz).
    """
    from lsl_lib.losses import get_loss

    loss = get_loss(loss)
    z = np.atleast_1d(np.asarray(z, dtype=float))
    if loss.task == "multiclass":
        s = np.column_stack([z, np.zeros_like(z)])
        y = np.zeros(len(z), dtype=np.intp)
        return loss.value(y, s), loss.subgradient(y, s)[:, 0]
    y = np.ones_like(z) if loss.task == "binary" else np.zeros_like(z)
    return loss.value(y, z), loss.subgradient(y, z)


def _line_label(loss):
    """The x-axis label of :func:`_loss_on_line`."""
    return {"binary": "margin z = y·s",
            "regression": "residual r = s − y",
            "multiclass": "margin z = s_y − s_other (2 classes)"}[loss.task]


def plot_subdifferentials():
    r"""The two kinks of the lecture and the supporting lines through them.

    Left, :math:`f(x) = |x|`: every line :math:`g x` with :math:`g \in [-1, 1]`
    stays below f and touches it at 0, so :math:`\partial f(0) = [-1, 1]`. Right,
    the hinge :math:`\max(0, 1 - z)` of the margin :math:`z = ys`: the lines
    through :math:`(1, 0)` with slopes in :math:`[-1, 0]`. The shaded fans are the
    union of the supporting lines.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_abs, ax_hinge) = new_figure(2)
    cases = [
        (ax_abs, np.linspace(-2, 2, 401), np.abs, 0.0, (-1.0, -0.5, 0.0, 0.5, 1.0),
         "f(x) = |x|", "x", r"$\partial f(0) = [-1,\ 1]$"),
        (ax_hinge, np.linspace(-1, 3, 401), lambda z: np.maximum(0.0, 1.0 - z), 1.0,
         (-1.0, -0.5, 0.0), "hinge ℓ(z) = max(0, 1 − z)", "margin z = y·s",
         r"$\partial \ell(1) = [-1,\ 0]$"),
    ]
    for ax, x, f, kink, slopes, title, xlabel, text in cases:
        lines = np.array([g * (x - kink) for g in slopes])
        ax.fill_between(x, lines.min(axis=0), lines.max(axis=0), color="C1", alpha=0.12,
                        linewidth=0)
        for i, (g, line) in enumerate(zip(slopes, lines, strict=True)):
            ax.plot(x, line, color=f"C{i + 1}", lw=1.4, ls="--")
            ax.text(x[-1] - 0.05, line[-1], f"g = {g:g}", color=f"C{i + 1}", ha="right",
                    va="bottom" if g > 0 else "top", fontsize=10)
        ax.plot(x, f(x), color="k", lw=2.5)
        ax.plot([kink], [0.0], "o", color="k", ms=7, zorder=5)
        ax.text(0.5, 0.95, text, transform=ax.transAxes, ha="center", va="top", fontsize=13,
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="0.7"))
        ax.set(title=title + "\nand supporting lines of slope g (dashed)", xlabel=xlabel,
               xlim=(x[0], x[-1]), ylim=(-2.3, 2.3))
        ax.axhline(0, color="0.6", lw=0.8, zorder=0)
        ax.grid(True, alpha=0.3)
    return fig


def plot_losses(losses=("hinge", "log", "squared", "epsilon_insensitive"), epsilon=0.5,
                zero_one=True):
    r"""The losses of the lecture's table (top) and their subgradients (bottom).

    Classification losses against the margin :math:`z = ys` (left), regression
    losses against the residual :math:`r = s - y` (right). In the bottom row a jump
    of the subgradient is drawn as a vertical segment: that segment is the
    subdifferential at the kink.

    Parameters
    ----------
    losses : sequence of str or Loss
        Names of :data:`lsl_lib.losses.LOSSES` (a multiclass loss is drawn with two
        classes, dashed: it coincides with its binary counterpart).
    epsilon : float, default=0.5
        Width of the insensitive tube of ``'epsilon_insensitive'``.
    zero_one : bool, default=True
        Also draw the 0-1 loss :math:`\mathbb{1}[z \le 0]`, the non-convex loss
        that the classification losses replace.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lsl_lib.losses import LOSSES, get_loss

    fig = Figure(figsize=(10.0, 6.6), layout="constrained")
    axes = fig.subplots(2, 2, sharex="col")
    z = np.linspace(-3, 3, 1201)
    if zero_one:
        axes[0, 0].plot(z, (z <= 0).astype(float), color="0.5", lw=1.5, ls=":",
                        label="0–1 loss (not convex)")
    for loss in losses:
        loss = get_loss(loss, epsilon)
        column = 1 if loss.task == "regression" else 0
        color = f"C{LOSSES.index(loss.name) % 4}"
        style = "--" if loss.task == "multiclass" else "-"
        value, grad = _loss_on_line(loss, z)
        axes[0, column].plot(z, value, color=color, ls=style, lw=2, label=loss.name)
        axes[1, column].plot(z, grad, color=color, ls=style, lw=2, label=loss.name)
    for column, what in enumerate(["classification", "regression"]):
        name = _line_label(get_loss("hinge" if column == 0 else "squared"))
        axes[0, column].set(title=f"{what} losses", ylabel="loss", ylim=(-0.2, 4.2))
        axes[1, column].set(title="their subgradients", xlabel=name, ylabel="subgradient",
                            ylim=(-3.2, 3.2))
        for ax in axes[:, column]:
            ax.axhline(0, color="0.6", lw=0.8)
            ax.axvline(0, color="0.6", lw=0.8)
            ax.grid(True, alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize="small")
    return fig


def plot_subgradient(loss, point, ax=None, lim=3.0):
    """A loss and its supporting line(s) at a point.

    Where the loss is differentiable the only supporting line is the tangent;
    at a kink the slopes of the supporting lines fill the interval between the
    left and right derivatives (drawn, with the fan of lines between them shaded).
    The loss is drawn as a function of one number: the margin ``z = y·s`` for a
    binary loss, the residual ``r = s - y`` for a regression loss, the margin
    between two classes for a multiclass loss.

    Parameters
    ----------
    loss : str or Loss
        A loss of :data:`lsl_lib.losses.LOSSES` (``'epsilon_insensitive'`` by name
        has epsilon 0.1; pass ``get_loss(name, epsilon)`` for another width).
    point : float
        Where to draw the subgradients.
    ax : matplotlib Axes, optional
        Draw there (one panel of a larger figure); a new figure otherwise.
    lim : float, default=3.0
        Half-width of the plotted range (widened to contain ``point``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from lsl_lib.losses import get_loss

    loss = get_loss(loss)
    point = float(point)
    if ax is None:
        fig, (ax,) = new_figure(1)
    else:
        fig = ax.figure
    z = np.linspace(min(-lim, point - 1.0), max(lim, point + 1.0), 801)
    value, _ = _loss_on_line(loss, z)
    v0, g0 = (a[0] for a in _loss_on_line(loss, point))
    left = _loss_on_line(loss, point - _KINK_PROBE)[1][0]
    right = _loss_on_line(loss, point + _KINK_PROBE)[1][0]
    # a supporting line touches the loss along a whole half-line at a kink (and a tangent
    # may touch a linear piece): the loss is a wide translucent band, the lines dashed on
    # top of it, so that both stay visible where they coincide
    ax.plot(z, value, color="0.2", lw=6, alpha=0.35, solid_capstyle="butt", label=loss.name,
            zorder=2)
    if right - left > 1e-6:  # a kink: a whole interval of subgradients
        lines = np.array([v0 + g * (z - point) for g in (left, right)])
        ax.fill_between(z, lines.min(axis=0), lines.max(axis=0), color="C1", alpha=0.15,
                        linewidth=0, label="other supporting lines")
        ax.plot(z, lines[0], color="C1", lw=2, ls=(0, (4, 3)), label=f"left slope {left:.2f}",
                zorder=3)
        ax.plot(z, lines[1], color="C3", lw=2, ls=(0, (4, 3)), label=f"right slope {right:.2f}",
                zorder=3)
        title = (f"kink: ∂ℓ({point:.2f}) = [{left:.2f}, {right:.2f}]\n"
                 f"(lsl_lib's subgradient picks {g0:.2f})")
    else:
        ax.plot(z, v0 + g0 * (z - point), color="C0", lw=2, ls=(0, (4, 3)),
                label=f"tangent, slope {g0:.2f}", zorder=3)
        title = f"differentiable: ∂ℓ({point:.2f}) = {{{g0:.2f}}}\n(the gradient)"
    ax.plot([point], [v0], "o", color="k", ms=7, zorder=5)
    top = 1.1 * max(float(value.max()), 1.0)
    ax.set(title=title, xlabel=_line_label(loss), ylabel="loss", xlim=(z[0], z[-1]),
           ylim=(-0.25 * top, top))
    ax.axhline(0, color="0.6", lw=0.8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper center")
    return fig


def plot_step_sizes(trajectories, mean=None, ax=None, logx=True, title=None):
    """Estimates :math:`w_t` against t, one colour per step-size schedule.

    Parameters
    ----------
    trajectories : dict
        Label -> trajectory ``w`` of shape (T + 1,) (``w[0]`` the starting point,
        as :func:`lsl_lib.subgradients.sgd_mean` returns) or (n_runs, T + 1) for several
        independent streams, drawn thinner in the same colour.
    mean : float, optional
        The true mean, drawn as a dashed line.
    ax : matplotlib Axes, optional
        Draw there (one panel of a larger figure); a new figure otherwise.
    logx : bool, default=True
        Log scale in t (then t = 0 is not drawn).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        fig, (ax,) = new_figure(1, width=6.0)
    else:
        fig = ax.figure
    start = 1 if logx else 0
    for i, (label, w) in enumerate(trajectories.items()):
        runs = np.atleast_2d(np.asarray(w, dtype=float))
        t = np.arange(runs.shape[1])
        single = len(runs) == 1
        for r, run in enumerate(runs):
            ax.plot(t[start:], run[start:], color=f"C{i}", lw=1.6 if single else 1.0,
                    alpha=1.0 if single else 0.75, label=label if r == 0 else None)
    if mean is not None:
        ax.axhline(mean, color="k", ls="--", lw=1.5, label=f"true mean {mean:g}")
    if logx:
        ax.set_xscale("log")
    ax.set(xlabel="t (samples seen)", ylabel="estimate $w_t$")
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_subgradient_descent(runs, f_star=None, contours=None, paths=None, w_star=None,
                             ylim=None):
    """Subgradient / gradient descent runs: paths over contour lines, and f against t.

    Parameters
    ----------
    runs : dict
        Label -> ``(W, f)`` as :func:`lsl_lib.subgradients.subgradient_descent` returns:
        iterates of shape (T + 1, d) and objective values of shape (T + 1,).
    f_star : float or dict, optional
        The minimum of f (a dict: label -> minimum, when the runs minimise
        different objectives); then :math:`f(w_t) - f^*` is drawn on a log scale.
    contours : tuple (w1, w2, F), optional
        A grid of a two-dimensional objective (``F[j, i]`` its value at
        ``(w1[i], w2[j])``); adds a left panel with the contour lines and paths.
    paths : sequence of str, optional
        Labels of the runs whose 2-D paths are drawn on the contours (default:
        all; leave out a run that minimises another objective).
    w_star : array-like of shape (2,), optional
        The minimiser, marked with a star on the contours.
    ylim : tuple (bottom, top), optional
        Limits of the objective's axis (e.g. to stop a log axis at 1e-10 when a
        run reaches machine precision).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(2 if contours is not None else 1)
    ax_f = axes[-1]
    colors = {label: f"C{i}" for i, label in enumerate(runs)}
    if contours is not None:
        ax_c = axes[0]
        w1, w2, F = contours
        levels = np.quantile(F, np.linspace(0.0, 0.9, 16) ** 2)
        ax_c.contour(w1, w2, F, levels=np.unique(levels), colors="0.55", linewidths=0.8)
        for label in runs if paths is None else paths:
            W = np.asarray(runs[label][0])
            ax_c.plot(W[:, 0], W[:, 1], ".-", color=colors[label], lw=1, ms=3, label=label)
        if w_star is not None:
            ax_c.plot(*np.ravel(w_star)[:2], "*", color="k", ms=13, zorder=1.5,  # under the paths
                      label="minimiser $w^*$")
        ax_c.set(xlabel="$w_1$", ylabel="$w_2$", title="iterates on the contour lines of f",
                 xlim=(w1[0], w1[-1]), ylim=(w2[0], w2[-1]))
        ax_c.legend(fontsize="small")
    for label, (_, f) in runs.items():
        f = np.asarray(f, dtype=float)
        if f_star is not None:
            star = f_star[label] if isinstance(f_star, dict) else f_star
            f = f - star
            f = np.where(f > 0, f, np.nan)  # 0 cannot be drawn on a log axis
        ax_f.plot(np.arange(len(f)), f, color=colors[label], lw=1.3, label=label)
    ax_f.set(xlabel="iteration t",
             ylabel="$f(w_t) - f^*$" if f_star is not None else "$f(w_t)$",
             title="objective along the iterations")
    if f_star is not None:
        ax_f.set_yscale("log")
    if ylim is not None:
        ax_f.set_ylim(ylim)
    ax_f.grid(True, which="both", alpha=0.3)
    ax_f.legend(fontsize="small")
    return fig
