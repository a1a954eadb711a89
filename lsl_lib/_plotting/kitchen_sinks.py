r"""Figures of lecture 12 (notebooks/12_random_kitchen_sinks.ipynb): what the random features of
each family look like and what a weighted sum of them fits; the fitted weights against their
box :math:`|\alpha_k| \le C/K`; the test error against C and against K (beside another learner);
the excess risk against n and K on log-log axes under the bound of Rahimi and Recht."""
import numpy as np
from matplotlib.ticker import NullFormatter

from lsl_lib._plotting._base import _legend_below, _readable_log_ticks, new_figure
from lsl_lib.theory import loglog_slope

__all__ = ["plot_box_effect", "plot_kitchen_sinks_fit", "plot_oracle_inequality",
           "plot_sink_families"]


def _data_and_fit(ax, x, target, X_train, y_train, fit, label="weighted sum f(x)"):
    ax.scatter(X_train, y_train, s=9, color="0.55", linewidths=0, label="training data")
    ax.plot(x, target, color="k", ls="--", lw=1.5, label="target f*")
    ax.plot(x, fit, color="C3", lw=2.2, label=label)
    ax.set_xlabel("x")
    ax.grid(True, alpha=0.3)


def plot_sink_families(x, target, X_train, y_train, curves):
    """For each feature family, a few of its random features and the weighted sum fitted.

    Parameters
    ----------
    x : array-like of shape (m,)
        The 1-D grid on which the curves are evaluated.
    target : array-like of shape (m,)
        The function that generated the data.
    X_train, y_train : array-like of shape (n,)
        The training data (1-D inputs).
    curves : dict
        One entry per family, in panel order: ``name -> dict(features=(m, s) array, a few
        features φ(x; w_k) on the grid, fit=(m,) array, test_error=float)``.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per family: the features (right axis, [-1, 1], labelled on every panel;
        0/1 indicators drawn as steps), the data, the target and the fit.
    """
    fig, axes = new_figure(ncols=len(curves), width=2.85, height=3.5)
    for ax, (name, c) in zip(axes, curves.items(), strict=True):
        twin = ax.twinx()
        features = np.asarray(c["features"])
        twin.plot(x, features, color="C0", lw=1.8, alpha=0.75, drawstyle="steps-mid"
                  if np.all(np.isin(features, (0.0, 1.0))) else "default")
        twin.set_ylim(-1.3, 1.3)  # 0/1 indicators stay clear of the frame
        twin.set_yticks([-1, 0, 1])
        twin.tick_params(axis="y", colors="C0", labelsize="small")
        twin.set_ylabel("features φ(x; wₖ)", color="C0", fontsize="small")
        ax.set_zorder(twin.get_zorder() + 1)
        ax.patch.set_visible(False)
        _data_and_fit(ax, x, target, X_train, y_train, c["fit"])
        ax.set_title(f"{name}\ntest MSE {c['test_error']:.3f}", fontsize="medium")
    axes[0].set_ylabel("y")
    handles = axes[0].get_legend_handles_labels()
    fig.legend(*handles, loc="outside lower center", ncols=3, fontsize="small", frameon=False)
    return fig


def plot_kitchen_sinks_fit(x, target, X_train, y_train, fit, coef, bound, *, feature="",
                           train_error=None, test_error=None):
    r"""One weighted sum of kitchen sinks: the fit (left) and its weights against the box (right).

    Parameters
    ----------
    x, target : array-like of shape (m,)
        Grid and target function.
    X_train, y_train : array-like of shape (n,)
    fit : array-like of shape (m,)
        The fitted f on the grid.
    coef : array-like of shape (K,)
        α.
    bound : float or None
        C/K, drawn as two horizontal lines; None: unconstrained. The title gives the
        number of weights on the box and :math:`\sum_k|\alpha_k|` against its largest
        value C (the box is an :math:`\ell_\infty` ball of radius C/K inside the
        :math:`\ell_1` ball of radius C).
    feature : str
        The family, for the title.
    train_error, test_error : float, optional
        Mean squared errors, written in the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (left, right) = new_figure(ncols=2, width=5.2, height=3.6)
    _data_and_fit(left, x, target, X_train, y_train, fit)
    left.set_ylabel("y")
    title = f"{feature}: K = {len(coef)}"
    if train_error is not None:
        title += f", train MSE {train_error:.3f}, test MSE {test_error:.3f}"
    left.set_title(title, fontsize="medium")
    _legend_below(left)
    coef = np.asarray(coef, dtype=float)
    order = np.argsort(coef, kind="stable")
    k = np.arange(1, len(coef) + 1)
    if bound is None:
        active = np.zeros(len(coef), dtype=bool)
        right.set_title("α, unconstrained (C = None)", fontsize="medium")
    else:
        active = np.abs(coef[order]) >= bound * (1 - 1e-6)
        right.axhline(bound, color="k", ls=":", lw=1.4)
        right.axhline(-bound, color="k", ls=":", lw=1.4, label="box ±C/K")
        budget = bound * len(coef)
        right.set_title(f"α sorted: {active.sum()} of {len(coef)} on the box (C/K = {bound:.3g})\n"
                        f"Σ|αₖ| = {np.abs(coef).sum():.3g} of the budget C = {budget:.3g}",
                        fontsize="medium")
    right.vlines(k, 0, coef[order], color=np.where(active, "C3", "C0"), lw=1.6)
    right.plot(k[active], coef[order][active], "o", color="C3", ms=3.5, label="on the box")
    right.plot(k[~active], coef[order][~active], "o", color="C0", ms=3.5, label="inside")
    right.axhline(0, color="0.4", lw=0.8)
    right.set_xlabel("feature k (sorted by αₖ)")
    right.set_ylabel("weight αₖ")
    right.grid(True, alpha=0.3)
    _legend_below(right)
    return fig


def _mean_with_band(ax, x, values, fmt, color, label, **style):
    """The mean over seeds (rows) of ``values`` and, with several seeds, a band from the
    smallest to the largest."""
    values = np.atleast_2d(np.asarray(values, dtype=float))
    if values.shape[0] > 1:
        label = f"{label} (mean of {values.shape[0]})"
        ax.fill_between(x, values.min(axis=0), values.max(axis=0), color=color, alpha=0.18,
                        linewidth=0)
    ax.plot(x, values.mean(axis=0), fmt, color=color, label=label, **style)


def plot_box_effect(C_values, train_error, test_error, n_active, n_components, K_values,
                    rks_error, rff_error, *, rks_label="kitchen sinks (box C)",
                    rff_label="RFF + ridge", cv_error=None, chosen_C=None,
                    right_title="weighted sums against RFF + ridge"):
    r"""What the box buys: errors and active constraints against C (left); test error against
    K beside another learner (right).

    Parameters
    ----------
    C_values : array-like
        The radii C tried (log axis).
    train_error, test_error : array-like of shape (n_C,) or (n_seeds, n_C)
        Error rates at each C; with several seeds, the mean and a band (smallest to largest).
    n_active : array-like of int, shape (n_C,) or (n_seeds, n_C)
        How many :math:`\alpha_k` sit on the box (right-hand axis, out of K; the mean).
    n_components : int
        K of the left panel.
    K_values : array-like
        Numbers of features of the right panel (log axis).
    rks_error, rff_error : array-like of shape (n_K,) or (n_seeds, n_K)
        Test error rates of the two learners of the right panel.
    rks_label, rff_label : str
    cv_error : array-like of shape (n_C,), optional
        A cross-validation error on the training part, dashed: what C is chosen on.
    chosen_C : float, optional
        The C chosen (dotted vertical line).
    right_title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (left, right) = new_figure(ncols=2, width=5.2, height=3.9)
    _mean_with_band(left, C_values, train_error, "o-", "C0", "training error")
    _mean_with_band(left, C_values, test_error, "s-", "C3", "test error")
    if cv_error is not None:
        left.plot(C_values, cv_error, "d--", color="C1", lw=1.6, label="CV error (training part)")
    if chosen_C is not None:
        left.axvline(chosen_C, color="k", ls=":", lw=1.4, label=f"C chosen by CV: {chosen_C:g}")
    left.set_xscale("log")
    left.set_xticks(C_values, [f"{c:,g}" for c in C_values])
    left.xaxis.set_minor_formatter(NullFormatter())
    left.set_xlabel("C (box |αₖ| ≤ C/K)")
    left.set_ylabel("error rate")
    left.set_ylim(bottom=0)
    left.grid(True, which="both", alpha=0.3)
    twin = left.twinx()
    active = np.atleast_2d(np.asarray(n_active, dtype=float)).mean(axis=0)
    twin.plot(C_values, active, "^--", color="C2", lw=1.2, label="αₖ on the box")
    twin.set_ylim(0, n_components * 1.05)
    twin.set_ylabel(f"αₖ on the box (of K = {n_components})", color="C2")
    twin.tick_params(axis="y", colors="C2")
    handles = [a + b for a, b in zip(left.get_legend_handles_labels(),
                                     twin.get_legend_handles_labels(), strict=True)]
    _legend_below(left, handles, ncols=2)
    left.set_title(f"the box, K = {n_components}", fontsize="medium")
    _mean_with_band(right, K_values, rks_error, "o-", "C3", rks_label)
    _mean_with_band(right, K_values, rff_error, "s--", "C0", rff_label)
    right.set_xscale("log")
    right.set_xticks(K_values, [f"{k:,}" for k in K_values])
    right.xaxis.set_minor_formatter(NullFormatter())
    right.set_xlabel("number of random features K")
    right.set_ylabel("test error rate")
    right.set_ylim(bottom=0)
    right.grid(True, which="both", alpha=0.3)
    _legend_below(right, ncols=1)
    right.set_title(right_title, fontsize="medium")
    return fig


def _loglog_panel(ax, x, excess, bound, xlabel, fixed, bound_label, trivial):
    x = np.asarray(x, dtype=float)
    excess = np.atleast_2d(np.asarray(excess, dtype=float))
    n_seeds = excess.shape[0]
    slope, standard_error, _ = loglog_slope(x, excess, tail=1.0)
    mean_log = np.log(excess).mean(axis=0)
    intercept = mean_log.mean() - slope * np.log(x).mean()
    points = np.exp(mean_log)
    if n_seeds > 1:
        ax.fill_between(x, excess.min(axis=0), excess.max(axis=0), color="C3", alpha=0.18,
                        linewidth=0)
        label = f"measured excess risk (geometric mean of {n_seeds} seeds)"
        fit = f"least-squares fit: slope {slope:.2f} ± {standard_error:.2f} (s.e.)"
    else:
        label, fit = "measured excess risk", f"least-squares fit: slope {slope:.1f}"
    ax.loglog(x, points, "o", color="C3", ms=6, label=label)
    ax.loglog(x, np.exp(intercept) * x ** slope, color="C3", lw=1.3, label=fit)
    if bound is not None:
        ax.loglog(x, bound, color="k", ls="--", lw=1.6, label=bound_label)
    if trivial is not None:
        ax.axhline(trivial, color="0.45", ls=":", lw=1.6,
                   label=f"trivial bound (C + ‖f*‖∞)² = {trivial:g}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("excess risk R[f̂] − R[f*]")
    _readable_log_ticks(ax.xaxis)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(fixed, fontsize="medium")
    _legend_below(ax, ncols=1)


def plot_oracle_inequality(n_values, excess_n, n_components, K_values, excess_K, n_samples, *,
                           bound_n=None, bound_K=None, trivial=None):
    r"""The excess risk of random kitchen sinks against n (K fixed) and against K (n fixed),
    on log-log axes, with least-squares lines (their slopes in the legend) and the bound.

    Parameters
    ----------
    n_values, excess_n : array-like
        Training-set sizes and the excess risk measured at each (K = ``n_components``):
        shape (n_points,), or (n_seeds, n_points) (then the geometric mean is drawn with a
        band, and the slope is the mean of the seeds' slopes ± its standard error,
        :func:`lsl_lib.theory.loglog_slope`).
    n_components : int
    K_values, excess_K : array-like
        Numbers of features and the excess risk at each (n = ``n_samples``), shaped as
        ``excess_n``.
    n_samples : int
    bound_n, bound_K : array-like, optional
        The bound (:func:`lsl_lib.theory.kitchen_sinks_bound`) at the same points. At fixed K
        its approximation term is a constant, so its log-log slope against n is flatter than
        -1/2 (and likewise against K): the legend says which term moves.
    trivial : float, optional
        A level no excess risk of a function of the class can exceed, such as
        :math:`(C + \|f^\star\|_\infty)^2` for the squared loss (dotted): where the bound
        lies above it, it says nothing.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (left, right) = new_figure(ncols=2, width=5.2, height=4.3)
    _loglog_panel(left, n_values, excess_n, bound_n, "training examples n",
                  f"against n (K = {n_components})",
                  "bound: estimation ∝ n^(−1/2) + approximation (constant here)", trivial)
    _loglog_panel(right, K_values, excess_K, bound_K, "random features K",
                  f"against K (n = {n_samples:,})",
                  "bound: approximation ∝ K^(−1/2) + estimation (constant here)", trivial)
    return fig
