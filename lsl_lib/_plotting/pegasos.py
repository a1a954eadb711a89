"""Figures of lecture 02 (notebooks/02_pegasos.ipynb): mini-batches, training-set size,
decision boundaries, weight images."""
import numpy as np
from matplotlib.figure import Figure

from lsl_lib._plotting._base import AXIS_LABELS, _mean_and_band, _readable_log_ticks, new_figure

__all__ = [
    "plot_minibatch", "plot_training_set_size", "plot_decision_boundary", "plot_weight_images",
]


def plot_minibatch(batch_sizes, suboptimality, band=(0, 100), title=None):
    """Suboptimality at a fixed budget kT against the mini-batch size k.

    The mini-batch figure of Shalev-Shwartz et al. (2011, Section 7): one line per
    budget kT (examples processed), log-log axes. Several runs per point (seeds) are
    drawn as their mean with a shaded band (by default from the min to the max).

    Parameters
    ----------
    batch_sizes : sequence of int
        The mini-batch sizes k, on the x-axis.
    suboptimality : dict
        Budget kT -> array of shape (len(batch_sizes),), or (n_runs, len(batch_sizes))
        for several seeds: :math:`f(w) - f(w^*)` of the output after T = kT/k iterations.
    band : (float, float), default=(0, 100)
        Percentiles of the runs bounding the shaded band.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure()
    k = np.asarray(batch_sizes, dtype=float)
    for budget, values in suboptimality.items():
        mean, low, high, n_runs = _mean_and_band(values, band)
        label = f"kT = {budget:,}" if isinstance(budget, (int, np.integer)) else f"kT = {budget}"
        line, = ax.plot(k, np.where(mean > 0, mean, np.nan), marker="o", label=label)
        if n_runs > 1:
            ax.fill_between(k, np.where(low > 0, low, np.nan), np.where(high > 0, high, np.nan),
                            color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(k, [f"{int(v)}" for v in k])
    ax.set_xlabel("mini-batch size k (budget kT fixed per line)")
    ax.set_ylabel(AXIS_LABELS["suboptimality"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", title="examples processed", title_fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def plot_training_set_size(n_samples, iterations, budget=None, title=None):
    """Iterations needed to reach a target test error against the training-set size n.

    The experiment of Shalev-Shwartz and Srebro (2008): with more data, a stochastic
    solver reaches a fixed test error in fewer iterations. One line per target;
    a target not reached within ``budget`` iterations is marked by a cross on the
    dashed budget line.

    Parameters
    ----------
    n_samples : sequence of int
        Training-set sizes, on the x-axis.
    iterations : dict
        Label (the target) -> array of shape (len(n_samples),) of iteration counts,
        ``inf`` (or nan) where the target was not reached.
    budget : int, optional
        The iterations each run had; drawn as a dashed line.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=7.5)
    n = np.asarray(n_samples, dtype=float)
    for j, (label, values) in enumerate(iterations.items()):
        values = np.asarray(values, dtype=float)
        reached = np.isfinite(values)
        line, = ax.plot(n, np.where(reached, values, np.nan), marker="o", label=label)
        if budget is not None and not reached.all():
            shift = 1.07 ** (j - (len(iterations) - 1) / 2)  # crosses of several lines side by side
            ax.plot(n[~reached] * shift, np.full((~reached).sum(), float(budget)),
                    linestyle="none", marker="x", markersize=8, markeredgewidth=2,
                    color=line.get_color())
    if budget is not None:
        ax.axhline(budget, color="0.4", linestyle="--", linewidth=1,
                   label=f"budget T = {budget:,} (×: not reached)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(n, [f"{int(v):,}" for v in n])
    _readable_log_ticks(ax.yaxis, subs=(1.0, 2.0, 3.0, 5.0))
    ax.minorticks_off()
    ax.set_xlabel("training-set size n")
    ax.set_ylabel("iterations to reach the target")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    if title:
        ax.set_title(title)
    return fig


def plot_decision_boundary(estimators, X, y, resolution=200, title=None, ax=None):
    """Decision regions of fitted classifiers on 2-D data, one axis per estimator.

    A binary classifier with ``predict_proba`` is shaded by the probability of
    ``classes_[1]`` (the 0.5 level drawn); one without is shaded by the sign of its
    ``decision_function``, with the boundary (solid) and the margins at -1 and +1
    (dashed). A multiclass classifier is shaded by its predicted class. The
    estimators are only evaluated on a grid, never fitted.

    Parameters
    ----------
    estimators : fitted classifier or dict
        A classifier, or label -> classifier (one axis each, the label as title).
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    resolution : int, default=200
        Grid points per side.
    title : str, optional
        The figure's title (with ``ax``: that axis' title).
    ax : matplotlib Axes, optional
        Draw the (single) estimator there, one panel of a larger figure; a new
        figure otherwise.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(estimators, dict):
        estimators = {"": estimators}
    if ax is not None and len(estimators) != 1:
        raise ValueError(f"ax draws one estimator, got {len(estimators)}.")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns to draw decision regions, got shape {X.shape}.")
    pad = 0.1 * (X.max(axis=0) - X.min(axis=0)) + 1e-9
    low, high = X.min(axis=0) - pad, X.max(axis=0) + pad
    g0, g1 = np.meshgrid(np.linspace(low[0], high[0], resolution),
                         np.linspace(low[1], high[1], resolution))
    grid = np.column_stack([g0.ravel(), g1.ravel()])
    classes = np.unique(y)
    colors = ["tab:blue", "tab:red"] if len(classes) == 2 else \
        [f"C{i % 10}" for i in range(len(classes))]
    in_panel = ax is not None
    if in_panel:
        fig, axes = ax.figure, [ax]
    else:
        fig, axes = new_figure(len(estimators), width=4.2, height=3.8)
    for ax, (label, est) in zip(axes, estimators.items(), strict=True):
        n_classes = len(getattr(est, "classes_", classes))
        if n_classes == 2 and hasattr(est, "predict_proba"):
            Z = est.predict_proba(grid)[:, 1].reshape(g0.shape)
            ax.contourf(g0, g1, Z, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.5)
            ax.contour(g0, g1, Z, levels=[0.5], colors="k", linewidths=1.5)
        elif n_classes == 2:
            Z = est.decision_function(grid).reshape(g0.shape)
            ax.contourf(g0, g1, np.sign(Z), levels=[-2, 0, 2], colors=["tab:blue", "tab:red"],
                        alpha=0.15)
            if Z.min() < 0 < Z.max():
                ax.contour(g0, g1, Z, levels=[0], colors="k", linewidths=1.5)
            margins = [v for v in (-1, 1) if Z.min() < v < Z.max()]
            if margins:
                ax.contour(g0, g1, Z, levels=margins, colors="k", linewidths=1,
                           linestyles="dashed")
        else:
            Z = np.searchsorted(est.classes_, est.predict(grid)).reshape(g0.shape)
            ax.contourf(g0, g1, Z, levels=np.arange(n_classes + 1) - 0.5,
                        colors=colors[:n_classes], alpha=0.2)
        for c, color in zip(classes, colors, strict=True):
            mask = y == c
            ax.scatter(X[mask, 0], X[mask, 1], s=14, color=color, edgecolors="white",
                       linewidths=0.4, label=f"y = {c}")
        ax.set_xlim(low[0], high[0])
        ax.set_ylim(low[1], high[1])
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
        if label:
            ax.set_title(label)
    axes[0].legend(fontsize="small", loc="best")
    if title and in_panel:
        axes[0].set_title(title)
    elif title:
        fig.suptitle(title)
    return fig


def plot_weight_images(coef, image_shape, labels=None, ncols=5, title=None):
    """The rows of a weight matrix drawn as images: one template per class.

    For a multiclass linear model on images (the 8x8 digits), row r of ``coef`` is
    what class r's score looks for: red pixels vote for the class, blue against.

    Parameters
    ----------
    coef : ndarray of shape (K, prod(image_shape))
    image_shape : tuple (height, width)
    labels : sequence of K labels, optional
        Titles of the images (default: the row indices).
    ncols : int, default=5
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    coef = np.atleast_2d(np.asarray(coef, dtype=float))
    n_rows = -(-coef.shape[0] // ncols)
    ncols = min(ncols, coef.shape[0])
    fig = Figure(figsize=(1.6 * ncols + 0.8, 1.7 * n_rows + (0.4 if title else 0.0)),
                 layout="constrained")
    axes = np.atleast_1d(fig.subplots(n_rows, ncols, squeeze=False).ravel())
    labels = list(range(coef.shape[0])) if labels is None else list(labels)
    vmax = np.abs(coef).max() or 1.0
    image = None
    for ax in axes:
        ax.set_axis_off()
    for ax, row, label in zip(axes, coef, labels, strict=False):  # the last row's empty places
        image = ax.imshow(row.reshape(image_shape), cmap="RdBu_r", vmin=-vmax, vmax=vmax)
        ax.set_title(str(label), fontsize="medium")
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="weight")
    if title:
        fig.suptitle(title)
    return fig
