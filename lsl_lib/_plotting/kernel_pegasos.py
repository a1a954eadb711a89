"""Figures of lecture 03 (notebooks/03_kernel_pegasos.ipynb): kernels, the explicit feature
count, the kernel cache, violation counts, kernel Pegasos' decision boundary."""
import numpy as np
from matplotlib.figure import Figure

from lsl_lib._plotting._base import (
    AXIS_LABELS,
    _count_on_twin_axis,
    _legend_below,
    _mark_support,
    _mean_and_band,
    _readable_log_ticks,
    _trace_axis,
    new_figure,
)
from lsl_lib._plotting.pegasos import plot_decision_boundary

__all__ = [
    "plot_kernels", "plot_feature_count", "plot_cache_effect", "plot_suboptimality",
    "plot_violation_counts", "plot_kernel_pegasos",
]

AXIS_LABELS.update({
    "n_support": "support size m (examples with α > 0)",
    "kernel_evaluations": "kernel evaluations (cumulative)",
    "cache_hits": "cache hits (cumulative)",
    "cache_misses": "cache misses (cumulative)",
    "hit_rate": "cache hit rate (hits / iterations)",
})


def _one_over_t_constant(t, suboptimality):
    r"""c of the guide :math:`c/t` through a run's suboptimality: the median of
    :math:`t\,(f(w_t) - f(w^*))` over the second half of the records (robust to the jitter of
    the last iterate), to two significant digits. ``t`` and ``suboptimality`` hold positive
    values only."""
    product = np.asarray(t, dtype=float) * np.asarray(suboptimality, dtype=float)
    return float(f"{np.median(product[len(product) // 2:]):.2g}")


def plot_kernels(x, profiles, matrices=None, anchor=None, profile_label="x",
                 matrix_label=None, title=None):
    """The kernels side by side: a 1-D profile of each (top) and a kernel matrix (bottom).

    Parameters
    ----------
    x : ndarray of shape (n_points,)
        Positions along a line, the x-axis of the profiles.
    profiles : dict
        Kernel name -> ndarray of shape (n_points,): :math:`k(x, b)` at those
        positions, for one fixed point b. One column of the figure per kernel.
    matrices : dict, optional
        Kernel name -> kernel matrix of shape (m, m), drawn as a heatmap under the
        profile of the same name, each with its own colour scale.
    anchor : float, optional
        Position of b on the line, marked by a dotted vertical line.
    profile_label : str, default='x'
        Label of the profiles' x-axis.
    matrix_label : str, optional
        What the rows and columns of the matrices are (e.g. "80 points, sorted by class").
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = list(profiles)
    nrows = 1 if matrices is None else 2
    fig = Figure(figsize=(2.6 * len(names) + 0.4, 2.7 * nrows + (0.3 if title else 0.0)),
                 layout="constrained")
    axes = fig.subplots(nrows, len(names), squeeze=False)
    x = np.asarray(x, dtype=float)
    for j, name in enumerate(names):
        ax = axes[0, j]
        ax.plot(x, np.asarray(profiles[name], dtype=float), color=f"C{j}", lw=2)
        if anchor is not None:
            ax.axvline(anchor, color="0.4", ls=":", lw=1)
        ax.axhline(0, color="0.6", lw=0.8)
        ax.set_title(name)
        ax.set_xlabel(profile_label)
        ax.grid(True, alpha=0.3)
        if j == 0:
            ax.set_ylabel("k(x, b)")
        if matrices is not None:
            ax = axes[1, j]
            image = ax.imshow(np.asarray(matrices[name], dtype=float), cmap="viridis",
                              interpolation="nearest")
            fig.colorbar(image, ax=ax, shrink=0.75)
            ax.set_xticks([])
            ax.set_yticks([])
            if matrix_label:
                ax.set_xlabel(matrix_label, fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_feature_count(n_features, counts, marks=None, title=None):
    r"""Width D of an explicit feature map against the input dimension d (log-log).

    For the polynomial kernel of degree p, :math:`D = \binom{p + d}{p}`
    (:func:`lsl_lib.kernels.n_polynomial_features`): the price of "untricking" the
    kernel. A right-hand axis reads D as the memory of one mapped example in float64.

    Parameters
    ----------
    n_features : sequence of int
        The dimensions d, on the x-axis.
    counts : dict
        Label (e.g. ``'p = 3'``) -> sequence of D, one per d.
    marks : dict, optional
        Text -> (d, D): points to mark (a data set of the course), named in the legend.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=6.5, height=4.0)
    d = np.asarray(n_features, dtype=float)
    for label, values in counts.items():
        ax.plot(d, np.asarray(values, dtype=float), marker="o" if len(d) < 30 else None,
                ms=3, label=label)
    # strict=False: a marker per mark, six at most; fewer marks leave markers unused
    for (text, (d_mark, D_mark)), marker in zip((marks or {}).items(), "*DsP^v", strict=False):
        ax.plot([d_mark], [D_mark], marker=marker, color="k", ms=9 if marker == "*" else 6,
                linestyle="none", zorder=5, label=f"{text}: D = {D_mark:,}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("input dimension d")
    ax.set_ylabel("explicit features D")
    memory = ax.secondary_yaxis("right", functions=(lambda D: 8.0 * D, lambda b: b / 8.0))
    memory.set_ylabel("bytes per mapped example (float64)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    if title:
        ax.set_title(title)
    return fig


def plot_cache_effect(cache_sizes, runs, full_cache=None,
                      columns=("hit_rate", "kernel_evaluations"), title=None):
    """What a cache of kernel rows buys, against its size: one axis per measure.

    Parameters
    ----------
    cache_sizes : sequence of float
        Cache sizes in megabytes, on the x-axis.
    runs : dict
        Label (e.g. the sampling scheme) -> dict of column -> sequence of one value
        per cache size: ``'hit_rate'``, ``'kernel_evaluations'`` (drawn in millions),
        ``'seconds'``...
    full_cache : float, optional
        The size from which every kernel row fits, drawn as a dashed vertical line.
    columns : sequence of str, default=('hit_rate', 'kernel_evaluations')
        The measures to draw, one axis each.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    columns = [columns] if isinstance(columns, str) else list(columns)
    fig, axes = new_figure(len(columns))
    sizes = np.asarray(cache_sizes, dtype=float)
    for ax, column in zip(axes, columns, strict=True):
        scale = 1e6 if column == "kernel_evaluations" else 1.0
        for label, run in runs.items():
            if column in run:
                ax.plot(sizes, np.asarray(run[column], dtype=float) / scale, marker="o", ms=4,
                        label=label)
        if full_cache is not None:
            ax.axvline(full_cache, color="0.4", ls="--", lw=1, label="all n rows fit")
        ax.set_xlabel("cache size (MB)")
        ax.set_ylabel("kernel evaluations (whole run, millions)" if column == "kernel_evaluations"
                      else AXIS_LABELS.get(column, column))
        if column == "hit_rate":
            ax.set_ylim(-0.03, 1.03)
        else:
            ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_suboptimality(histories, slopes=None, fit_from=None, scaled=True, band=(25, 75),
                       title=None):
    r"""Suboptimality of the last iterate against t (log-log) and, beside it, t times it.

    The Pegasos analysis bounds the suboptimality by :math:`\tilde O(1/(\lambda t))`. A rate is
    read on the figure, never from a guide fitted through the same curve (which is parallel to
    it by construction): on the right, :math:`t\,(f(w_t) - f(w^*))` is flat where the curve
    falls like :math:`1/t`, falls where it falls faster and rises where it falls slower. The
    slopes themselves are measured by the caller (e.g. :func:`lsl_lib.theory.loglog_slope`,
    over several seeds) and only written in the legend: this function fits nothing.

    Parameters
    ----------
    histories : dict
        Label (e.g. ``'λ = 1e-03'``) -> ``history_`` with ``iteration`` and ``suboptimality``
        (an estimator fitted with ``reference_objective``), or a list of them (one per seed,
        recorded at the same iterations), drawn as their mean with a band between the
        ``band`` percentiles of the runs. Records at t = 0 or with a suboptimality <= 0 are
        left out (a log axis cannot draw them).
    slopes : dict, optional
        Label -> (slope, standard error): the measured log-log slope, written in the legend.
    fit_from : float, optional
        The t from which the slopes were fitted, shaded on both axes.
    scaled : bool, default=True
        Draw the right-hand axis, :math:`t\,(f(w_t) - f(w^*))`.
    band : (float, float), default=(25, 75)
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(2 if scaled else 1, width=5.4, height=4.0)
    t_max = 0.0
    for j, (label, runs) in enumerate(histories.items()):
        runs = [runs] if isinstance(runs, dict) else list(runs)
        t = np.asarray(runs[0]["iteration"], dtype=float)
        subs = np.array([np.asarray(h["suboptimality"], dtype=float) for h in runs])
        keep = (t > 0) & np.all(subs > 0, axis=0)
        t, subs = t[keep], subs[:, keep]
        t_max = max(t_max, t.max(initial=0.0))
        if slopes is not None and label in slopes:
            slope, se = slopes[label]
            label = f"{label}: slope {f'{slope:+.2f}'.replace('-', '−')} ± {se:.2f}"
        if len(runs) > 1:
            label = f"{label} ({len(runs)} seeds)"
        # strict=False: without ``scaled`` there is one panel, and t (f(w_t) - f(w*)) is not drawn
        for ax, values in zip(axes, (subs, t * subs), strict=False):
            mean, low, high, n_runs = _mean_and_band(values, band)
            ax.plot(t, mean, color=f"C{j % 10}", lw=1.8, label=label)
            if n_runs > 1:
                ax.fill_between(t, low, high, color=f"C{j % 10}", alpha=0.2, linewidth=0)
    ylabels = ("suboptimality $f(w_t) - f(w^*)$", "$t\\,(f(w_t) - f(w^*))$")
    for ax, ylabel in zip(axes, ylabels, strict=False):  # one panel without ``scaled``
        _trace_axis(ax, "iteration", "suboptimality", True, True)
        ax.set_ylabel(ylabel)
        _readable_log_ticks(ax.xaxis)
        if fit_from is not None:  # the fitted range: from fit_from to the last record
            ax.axvspan(fit_from, t_max, color="0.5", alpha=0.1, linewidth=0,
                       label="slopes fitted here" if ax is axes[0] else None)
    axes[0].set_title("suboptimality of the last iterate", fontsize="medium")
    if scaled:
        axes[1].set_title("the same, times t: flat means a 1/t rate", fontsize="medium")
    handles = axes[0].get_legend_handles_labels()
    fig.legend(*handles, loc="outside lower center", ncols=2 if len(handles[0]) > 2 else 1,
               fontsize="medium", frameon=False)
    if title:
        fig.suptitle(title)
    return fig


def plot_violation_counts(margins, fractions, title=None):
    r"""Violation counts of kernel Pegasos against the margins they produced.

    Each support example j is a point: its final margin :math:`y_j f(x_j)` and the
    fraction of its visits in which it violated the margin (:math:`\alpha_j` over
    the number of visits; with ``sampling='permutation'`` every example is visited
    once per epoch). The SVM dual predicts the picture: coefficient C (fraction 1)
    inside the margin, 0 outside, anything in between on it.

    Parameters
    ----------
    margins : ndarray of shape (m,)
    fractions : ndarray of shape (m,)
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax,) = new_figure(width=6.4, height=4.4)
    margins = np.asarray(margins, dtype=float)
    fractions = np.asarray(fractions, dtype=float)
    ax.axvspan(min(margins.min(), 0.0) - 0.2, 1.0, color="tab:orange", alpha=0.08,
               linewidth=0, label="inside the margin: dual coefficient C")
    ax.axvspan(1.0, max(margins.max(), 2.0) + 0.2, color="tab:green", alpha=0.08, linewidth=0,
               label="outside: dual coefficient 0")
    ax.scatter(margins, fractions, s=16, color="k", alpha=0.7,
               label=f"support examples ({len(margins)})")
    ax.axvline(1.0, color="0.3", ls="--", lw=1)
    for level in (0.0, 1.0):
        ax.axhline(level, color="0.6", lw=0.8)
    ax.set_xlim(min(margins.min(), 0.0) - 0.2, max(margins.max(), 2.0) + 0.2)
    ax.set_ylim(-0.05, 1.1)
    ax.set_xlabel("final margin $y_j f(x_j)$")
    ax.set_ylabel("violations / visits  ($\\alpha_j$ / visits)")
    ax.grid(True, alpha=0.3)
    _legend_below(ax, ncols=2)
    if title:
        ax.set_title(title)
    return fig


def plot_kernel_pegasos(estimator, X, y, history=None, resolution=150, title=None):
    r"""A fitted kernel classifier on 2-D data and, if given, its convergence trace.

    Left: the decision regions of :func:`plot_decision_boundary` (boundary solid,
    margins dashed), the support vectors circled, with an area proportional to
    :math:`|\alpha_j|` (``dual_coef_``; for kernel Pegasos :math:`\alpha_j y_j/(\lambda T)`,
    so the violation count). Right: the suboptimality
    :math:`f(w_t) - f(w^*)` against t on log-log axes, with a dotted :math:`c/t`
    guide, and the support size m on a right-hand axis (dashed).

    Parameters
    ----------
    estimator : fitted binary classifier
        With ``support_vectors_``, ``dual_coef_`` and ``decision_function`` (kernel
        Pegasos, ``sklearn.svm.SVC``).
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    history : dict of ndarray, optional
        ``history_`` with ``iteration``, ``suboptimality`` and ``n_support``.
    resolution : int, default=150
        Grid points per side of the decision regions.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(1 if history is None else 2, width=5.2, height=4.2)
    ax = axes[0]
    plot_decision_boundary(estimator, X, y, resolution=resolution, ax=ax)
    _mark_support(ax, estimator, n_samples=len(X))
    _legend_below(ax)
    ax.set_title("decision boundary (solid), margins ±1 (dashed)", fontsize="medium")
    if history is not None:
        ax = axes[1]
        t = np.asarray(history["iteration"], dtype=float)
        sub = np.asarray(history["suboptimality"], dtype=float)
        keep = (t > 0) & (sub > 0)  # log axes: t = 0 and non-positive values cannot be drawn
        ax.plot(t[keep], sub[keep], color="C0", marker="." if keep.sum() < 30 else None,
                label="$f(w_t) - f(w^*)$")
        if keep.sum() >= 2:
            c = _one_over_t_constant(t[keep], sub[keep])
            ax.plot(t[keep], c / t[keep], ":", color="0.3", lw=1.8, label=f"c / t, c = {c:,g}")
        _trace_axis(ax, "iteration", "suboptimality", True, True)
        _readable_log_ticks(ax.xaxis)
        handles = ax.get_legend_handles_labels()
        if "n_support" in history:
            handles = _count_on_twin_axis(ax, t, history["n_support"],
                                          "support size m (right axis)", "support size m")
        _legend_below(ax, handles)
        ax.set_title("convergence", fontsize="medium")
    if title:
        fig.suptitle(title)
    return fig
