r"""Losses and their subgradients with respect to the score.

Every learner of the course minimises a regularised empirical risk

.. math::

    f(w) = \frac{\lambda}{2}\|w\|^2 + \frac{1}{n}\sum_{i=1}^n \ell(y_i, \langle w, x_i\rangle),

and every stochastic method needs one thing from the loss: a subgradient
:math:`\partial_s \ell(y, s)` with respect to the score :math:`s`; by the chain
rule the subgradient with respect to :math:`w` is :math:`\partial_s\ell(y, s)\, x`.

Binary losses take labels :math:`y \in \{-1, +1\}`, regression losses real targets,
multiclass losses an integer class index :math:`y \in \{0, \dots, K-1\}` and a score
vector :math:`s \in \mathbb{R}^K` (one row of weights per class; Crammer and
Singer 2001 for the multiclass hinge).

All values are numerically stable at margins of :math:`\pm 10^4`: the logistic
loss uses ``logaddexp`` and the softmax a shifted log-sum-exp.

Each loss class's ``subgradient`` is the vectorised reference; the compiled loops of
the later lectures evaluate one example at a time with the compiled twins in
:mod:`lsl_lib._core.loss_derivatives`, selected by the class's integer ``code``:

==============================================  ================  =======================
Formula                                         Reference         Compiled
==============================================  ================  =======================
:math:`\partial_s \ell(y, s)`, scalar score     Loss.subgradient  score_derivative_numba
:math:`\partial_s \ell(y, s) \in \mathbb{R}^K`  Loss.subgradient  score_subgradient_numba
==============================================  ================  =======================

Lecture 01's demonstrations (step sizes, SGD for a mean, full-batch subgradient
descent) are in :mod:`lsl_lib.subgradients`.

References
----------
Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
solver for SVM. Mathematical Programming 127, 2011 (Section 5: other losses).

Crammer, Singer. On the algorithmic implementation of multiclass kernel-based
vector machines. JMLR 2, 2001.
"""
import numpy as np
from scipy.special import expit, logsumexp, softmax

from lsl_lib._core.loss_derivatives import (
    EPSILON_INSENSITIVE,
    HINGE,
    LOG,
    MULTICLASS_HINGE,
    SMOOTHED_HINGE,
    SOFTMAX,
    SQUARED,
)

__all__ = ["Loss", "Hinge", "Log", "SmoothedHinge", "Squared", "EpsilonInsensitive",
           "MulticlassHinge", "Softmax", "LOSSES", "get_loss", "loss_table", "primal_objective",
           "HINGE", "LOG", "SQUARED", "EPSILON_INSENSITIVE", "MULTICLASS_HINGE", "SOFTMAX",
           "SMOOTHED_HINGE"]


def __dir__():
    return __all__


class Loss:
    r"""A loss :math:`\ell(y, s)` and a subgradient in the score ``s``.

    Attributes
    ----------
    name : str
        The name estimators accept (``loss=name``).
    task : {'binary', 'regression', 'multiclass'}
        What ``y`` is.
    code : int
        The integer code of the loss in compiled loops.
    formula, subgradient_formula : str
        LaTeX of the loss and of its subgradient, for the lecture's table.
    smooth : bool
        Whether the loss is differentiable (then the subgradient is the gradient).
    curvature : float
        Bound on the second derivative in the score (on the Hessian's largest
        eigenvalue for a multiclass loss), so that the loss of example i is
        :math:`L_i`-smooth in w with :math:`L_i` = curvature * ||x_i||^2; 0 if not smooth.
    """

    name = task = formula = subgradient_formula = None
    code = None
    smooth = False
    curvature = 0.0

    def value(self, y, s):
        """Loss of each example: ``y`` of shape (n,), ``s`` of shape (n,) or (n, K)."""
        raise NotImplementedError

    def subgradient(self, y, s):
        """A subgradient in ``s`` of each example's loss, shaped like ``s``."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class Hinge(Loss):
    name, task, code = "hinge", "binary", HINGE
    formula = r"\max(0,\ 1 - y s)"
    subgradient_formula = r"-y\,\mathbb{1}[y s < 1]"

    def value(self, y, s):
        return np.maximum(0.0, 1.0 - y * s)

    def subgradient(self, y, s):
        return np.where(y * s < 1.0, -y, 0.0)


class Log(Loss):
    name, task, code, smooth, curvature = "log", "binary", LOG, True, 0.25
    formula = r"\log(1 + e^{-y s})"
    subgradient_formula = r"-y\,\sigma(-y s), \quad \sigma(z) = 1/(1+e^{-z})"

    def value(self, y, s):
        return np.logaddexp(0.0, -y * s)

    def subgradient(self, y, s):
        return -y * expit(-y * s)


class Squared(Loss):
    name, task, code, smooth, curvature = "squared", "regression", SQUARED, True, 1.0
    formula = r"\tfrac12 (s - y)^2"
    subgradient_formula = r"s - y"

    def value(self, y, s):
        return 0.5 * (s - y) ** 2

    def subgradient(self, y, s):
        return s - y


class EpsilonInsensitive(Loss):
    name, task, code = "epsilon_insensitive", "regression", EPSILON_INSENSITIVE
    formula = r"\max(0,\ \lvert s - y\rvert - \varepsilon)"
    subgradient_formula = (r"\operatorname{sign}(s - y)\,"
                           r"\mathbb{1}[\lvert s - y\rvert > \varepsilon]")

    def __init__(self, epsilon=0.1):
        if not epsilon >= 0:
            raise ValueError(f"epsilon must be >= 0, got {epsilon}.")
        self.epsilon = float(epsilon)

    def value(self, y, s):
        return np.maximum(0.0, np.abs(s - y) - self.epsilon)

    def subgradient(self, y, s):
        r = s - y
        return np.where(r > self.epsilon, 1.0, np.where(r < -self.epsilon, -1.0, 0.0))

    def __repr__(self):
        return f"EpsilonInsensitive(epsilon={self.epsilon})"


class SmoothedHinge(Loss):
    r"""The quadratically smoothed hinge of Shalev-Shwartz and Zhang (2013), z = y s:
    0 for :math:`z \ge 1`, :math:`\frac12(1 - z)^2` for :math:`0 < z < 1`,
    :math:`\frac12 - z` for :math:`z \le 0`. The hinge's margin with a 1-smooth
    derivative, so that variance-reduced methods minimise it linearly fast."""

    name, task, code, smooth, curvature = "smoothed_hinge", "binary", SMOOTHED_HINGE, True, 1.0
    formula = (r"\tfrac12 (1 - ys)^2 \text{ on } 0 < ys < 1,\ \tfrac12 - ys \text{ below},\ "
               r"0 \text{ above}")
    subgradient_formula = r"-y \min(1, \max(0, 1 - y s))"

    def value(self, y, s):
        z = y * s
        return np.where(z >= 1.0, 0.0, np.where(z <= 0.0, 0.5 - z, 0.5 * (1.0 - z) ** 2))

    def subgradient(self, y, s):
        return -y * np.clip(1.0 - y * s, 0.0, 1.0)


def _true_and_best_other(y, s):
    """Score of the true class and index of the highest-scoring other class."""
    y = np.asarray(y, dtype=np.intp)
    rows = np.arange(len(y))
    true = s[rows, y]
    others = s.astype(np.float64, copy=True)
    others[rows, y] = -np.inf
    return rows, y, true, others.argmax(axis=1)


class MulticlassHinge(Loss):
    name, task, code = "multiclass_hinge", "multiclass", MULTICLASS_HINGE
    formula = r"\max(0,\ 1 + \max_{r \neq y} s_r - s_y)"
    subgradient_formula = (r"(e_{r^*} - e_y)\,\mathbb{1}[\text{loss} > 0], "
                           r"\quad r^* = \arg\max_{r\neq y} s_r")

    def value(self, y, s):
        rows, _, true, best = _true_and_best_other(y, s)
        return np.maximum(0.0, 1.0 + s[rows, best] - true)

    def subgradient(self, y, s):
        rows, y, true, best = _true_and_best_other(y, s)
        active = 1.0 + s[rows, best] - true > 0.0
        g = np.zeros(s.shape)
        g[rows[active], best[active]] = 1.0
        g[rows[active], y[active]] = -1.0
        return g


class Softmax(Loss):
    name, task, code, smooth, curvature = "softmax", "multiclass", SOFTMAX, True, 0.5
    formula = r"\log \sum_{r} e^{s_r} - s_y"
    subgradient_formula = r"\operatorname{softmax}(s) - e_y"

    def value(self, y, s):
        y = np.asarray(y, dtype=np.intp)
        return logsumexp(s, axis=1) - s[np.arange(len(y)), y]

    def subgradient(self, y, s):
        y = np.asarray(y, dtype=np.intp)
        g = softmax(s, axis=1)
        g[np.arange(len(y)), y] -= 1.0
        return g


_LOSSES = {cls.name: cls for cls in (Hinge, Log, SmoothedHinge, Squared, EpsilonInsensitive,
                                     MulticlassHinge, Softmax)}
LOSSES = tuple(_LOSSES)


def get_loss(loss, epsilon=0.1):
    """The :class:`Loss` named ``loss`` (``epsilon`` for ``'epsilon_insensitive'``)."""
    if isinstance(loss, Loss):
        return loss
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}.")
    return EpsilonInsensitive(epsilon) if loss == "epsilon_insensitive" else _LOSSES[loss]()


def loss_table():
    r"""The lecture's table of losses and subgradients, as Markdown.

    One row per loss: name, task, :math:`\ell(y, s)`, :math:`\partial_s \ell(y, s)`
    and whether it is smooth.
    """
    lines = [
        "| loss | task | $\\ell(y, s)$ | subgradient $\\partial_s \\ell(y, s)$ | smooth |",
        "|---|---|---|---|---|",
    ]
    for cls in _LOSSES.values():
        lines.append(
            f"| `{cls.name}` | {cls.task} | ${cls.formula}$ | ${cls.subgradient_formula}$ "
            f"| {'yes' if cls.smooth else 'no'} |"
        )
    return "\n".join(lines)


def _scores(W, X):
    """Scores ``X @ W.T`` of shape (n, K); ``X`` dense or sparse."""
    return np.asarray(X @ W.T)


def primal_objective(W, X, y, lam, loss):
    r"""Regularised empirical risk
    :math:`\frac{\lambda}{2}\|W\|_F^2 + \frac1n\sum_i \ell(y_i, W x_i)`.

    Parameters
    ----------
    W : ndarray of shape (K, d)
        Weights, one row per score (K = 1 for binary and regression losses).
    X : ndarray or sparse matrix of shape (n, d)
    y : ndarray of shape (n,)
        Labels in {-1, +1}, real targets, or class indices, as the loss expects.
    lam : float
        Regularisation strength :math:`\lambda`.
    loss : Loss
    """
    s = _scores(W, X)
    if loss.task != "multiclass":
        s = s[:, 0]
    return 0.5 * lam * float(np.vdot(W, W)) + float(np.mean(loss.value(y, s)))
