"""Figures of lecture 12 (notebooks/12_random_kitchen_sinks.ipynb): what the random features of
each family look like and what a weighted sum of them fits; the fitted weights against their
box :math:`|\\alpha_k| \\le C/K`; the test error against C and against K (beside RFF + ridge);
the excess risk against n and K on log-log axes under the bound of Rahimi and Recht."""
import numpy as np
from matplotlib.ticker import NullFormatter

from lsl_lib._plotting._base import _legend_below, _readable_log_ticks, new_figure

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
        One panel per family: the features thin and pale (right axis, [-1, 1]), the data, the
        target and the fit.
    """
    fig, axes = new_figure(ncols=len(curves), width=2.85, height=3.3)
    for ax, (name, c) in zip(axes, curves.items()):
        twin = ax.twinx()
        twin.plot(x, np.asarray(c["features"]), color="C0", lw=0.9, alpha=0.55)
        twin.set_ylim(-1.05, 1.05)
        twin.tick_params(axis="y", colors="C0", labelsize="small")
        ax.set_zorder(twin.get_zorder() + 1)
        ax.patch.set_visible(False)
        _data_and_fit(ax, x, target, X_train, y_train, c["fit"])
        ax.set_title(f"{name}\ntest MSE {c['test_error']:.3f}", fontsize="medium")
    axes[-1].figure.axes[-1].set_ylabel("features φ(x; wₖ)", color="C0")
    axes[0].set_ylabel("y")
    handles = axes[0].get_legend_handles_labels()
    fig.legend(*handles, loc="outside lower center", ncols=3, fontsize="small", frameon=False)
    return fig


def plot_kitchen_sinks_fit(x, target, X_train, y_train, fit, coef, bound, *, feature="",
                           train_error=None, test_error=None):
    """One weighted sum of kitchen sinks: the fit (left) and its weights against the box (right).

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
        C/K, drawn as two horizontal lines; None: unconstrained.
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
        right.set_title(f"α sorted: {active.sum()} of {len(coef)} on the box "
                        f"(C/K = {bound:.3g})", fontsize="medium")
    right.vlines(k, 0, coef[order], color=np.where(active, "C3", "C0"), lw=1.6)
    right.plot(k[active], coef[order][active], "o", color="C3", ms=3.5, label="on the box")
    right.plot(k[~active], coef[order][~active], "o", color="C0", ms=3.5, label="inside")
    right.axhline(0, color="0.4", lw=0.8)
    right.set_xlabel("feature k (sorted by αₖ)")
    right.set_ylabel("weight αₖ")
    right.grid(True, alpha=0.3)
    _legend_below(right)
    return fig


def plot_box_effect(C_values, train_error, test_error, n_active, n_components, K_values,
                    rks_error, rff_error, *, rks_label="kitchen sinks (box C)",
                    rff_label="RFF + ridge"):
    """What the box buys: errors and active constraints against C (left); test error against
    K beside RFF + ridge (right).

    Parameters
    ----------
    C_values : array-like
        The radii C tried (log axis).
    train_error, test_error : array-like, same length
        Error rates at each C.
    n_active : array-like of int, same length
        How many :math:`\\alpha_k` sit on the box (right-hand axis, out of K).
    n_components : int
        K of the left panel.
    K_values : array-like
        Numbers of features of the right panel (log axis).
    rks_error, rff_error : array-like, same length as ``K_values``
        Test error rates.
    rks_label, rff_label : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (left, right) = new_figure(ncols=2, width=5.2, height=3.7)
    left.plot(C_values, train_error, "o-", color="C0", label="training error")
    left.plot(C_values, test_error, "s-", color="C3", label="test error")
    left.set_xscale("log")
    left.set_xticks(C_values, [f"{c:,g}" for c in C_values])
    left.xaxis.set_minor_formatter(NullFormatter())
    left.set_xlabel("C (box |αₖ| ≤ C/K)")
    left.set_ylabel("error rate")
    left.set_ylim(bottom=0)
    left.grid(True, which="both", alpha=0.3)
    twin = left.twinx()
    twin.plot(C_values, n_active, "^--", color="C2", lw=1.2, label="αₖ on the box")
    twin.set_ylim(0, n_components * 1.05)
    twin.set_ylabel(f"αₖ on the box (of K = {n_components})", color="C2")
    twin.tick_params(axis="y", colors="C2")
    handles = [a + b for a, b in zip(left.get_legend_handles_labels(),
                                     twin.get_legend_handles_labels())]
    _legend_below(left, handles)
    left.set_title(f"the box, K = {n_components}", fontsize="medium")
    right.plot(K_values, rks_error, "o-", color="C3", label=rks_label)
    right.plot(K_values, rff_error, "s--", color="C0", label=rff_label)
    right.set_xscale("log")
    right.set_xticks(K_values, [f"{k:,}" for k in K_values])
    right.xaxis.set_minor_formatter(NullFormatter())
    right.set_xlabel("number of random features K")
    right.set_ylabel("test error rate")
    right.set_ylim(bottom=0)
    right.grid(True, which="both", alpha=0.3)
    _legend_below(right, ncols=2)
    right.set_title("weighted sums against RFF + ridge", fontsize="medium")
    return fig


def _loglog_panel(ax, x, excess, bound, xlabel, fixed):
    x, excess = np.asarray(x, dtype=float), np.asarray(excess, dtype=float)
    slope, intercept = np.polyfit(np.log(x), np.log(excess), 1)
    ax.loglog(x, excess, "o", color="C3", ms=6, label="measured excess risk")
    ax.loglog(x, np.exp(intercept) * x ** slope, color="C3", lw=1.3,
              label=f"least-squares fit: slope {slope:.1f}")
    if bound is not None:
        ax.loglog(x, bound, color="k", ls="--", lw=1.6,
                  label="bound of Theorem 1 (slope −1/2)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("excess risk R[f̂] − R[f*]")
    _readable_log_ticks(ax.xaxis)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(fixed, fontsize="medium")
    _legend_below(ax, ncols=1)


def plot_oracle_inequality(n_values, excess_n, n_components, K_values, excess_K, n_samples, *,
                           bound_n=None, bound_K=None):
    """The excess risk of random kitchen sinks against n (K fixed) and against K (n fixed),
    on log-log axes, with least-squares lines (their slopes in the legend) and the bound.

    Parameters
    ----------
    n_values, excess_n : array-like
        Training-set sizes and the excess risk measured at each (K = ``n_components``).
    n_components : int
    K_values, excess_K : array-like
        Numbers of features and the excess risk at each (n = ``n_samples``).
    n_samples : int
    bound_n, bound_K : array-like, optional
        The bound (:func:`lsl_lib.theory.kitchen_sinks_bound`) at the same points.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (left, right) = new_figure(ncols=2, width=5.2, height=4.0)
    _loglog_panel(left, n_values, excess_n, bound_n, "training examples n",
                  f"against n (K = {n_components})")
    _loglog_panel(right, K_values, excess_K, bound_K, "random features K",
                  f"against K (n = {n_samples:,})")
    return fig
