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

References
----------
Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
solver for SVM. Mathematical Programming 127, 2011 (Section 5: other losses).

Crammer, Singer. On the algorithmic implementation of multiclass kernel-based
vector machines. JMLR 2, 2001.
"""
import math

import numpy as np
from scipy.special import expit, logsumexp, softmax

from lsl_lib._core.backend import jit

# Integer codes of the losses inside compiled loops.
HINGE, LOG, SQUARED, EPSILON_INSENSITIVE, MULTICLASS_HINGE, SOFTMAX = range(6)


class Loss:
    """A loss :math:`\\ell(y, s)` and a subgradient in the score ``s``.

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
    subgradient_formula = r"\operatorname{sign}(s - y)\,\mathbb{1}[\lvert s - y\rvert > \varepsilon]"

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
    subgradient_formula = r"(e_{r^*} - e_y)\,\mathbb{1}[\text{loss} > 0], \quad r^* = \arg\max_{r\neq y} s_r"

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


_LOSSES = {cls.name: cls for cls in (Hinge, Log, Squared, EpsilonInsensitive, MulticlassHinge, Softmax)}
LOSSES = tuple(_LOSSES)


def get_loss(loss, epsilon=0.1):
    """The :class:`Loss` named ``loss`` (``epsilon`` for ``'epsilon_insensitive'``)."""
    if isinstance(loss, Loss):
        return loss
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}.")
    return EpsilonInsensitive(epsilon) if loss == "epsilon_insensitive" else _LOSSES[loss]()


def loss_table():
    """The lecture's table of losses and subgradients, as Markdown.

    One row per loss: name, task, :math:`\\ell(y, s)`, :math:`\\partial_s \\ell(y, s)`
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


def scores(W, X):
    """Scores ``X @ W.T`` of shape (n, K); ``X`` dense or sparse."""
    return np.asarray(X @ W.T)


def primal_objective(W, X, y, lam, loss):
    r"""Regularised empirical risk :math:`\frac{\lambda}{2}\|W\|_F^2 + \frac1n\sum_i \ell(y_i, W x_i)`.

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
    s = scores(W, X)
    if loss.task != "multiclass":
        s = s[:, 0]
    return 0.5 * lam * float(np.vdot(W, W)) + float(np.mean(loss.value(y, s)))


@jit
def score_subgradient(code, y, s, epsilon, g):
    """Write a subgradient of one example's loss into ``g`` (compiled loops).

    ``s`` and ``g`` have length K (1 unless the loss is multiclass); ``y`` is the
    label, the target, or the class index as a float. Same arithmetic as the
    vectorised :meth:`Loss.subgradient` of each class above.
    """
    if code == HINGE:
        g[0] = -y if y * s[0] < 1.0 else 0.0
    elif code == LOG:
        z = -y * s[0]  # -y * sigma(z), evaluated without overflow
        if z >= 0.0:
            g[0] = -y / (1.0 + math.exp(-z))
        else:
            e = math.exp(z)
            g[0] = -y * e / (1.0 + e)
    elif code == SQUARED:
        g[0] = s[0] - y
    elif code == EPSILON_INSENSITIVE:
        r = s[0] - y
        g[0] = 1.0 if r > epsilon else (-1.0 if r < -epsilon else 0.0)
    elif code == MULTICLASS_HINGE:
        label = int(y)
        best = -1
        for r in range(s.shape[0]):
            g[r] = 0.0
            if r != label and (best < 0 or s[r] > s[best]):
                best = r
        if 1.0 + s[best] - s[label] > 0.0:
            g[best] = 1.0
            g[label] = -1.0
    else:  # SOFTMAX
        label = int(y)
        top = s[0]
        for r in range(1, s.shape[0]):
            top = max(top, s[r])
        total = 0.0
        for r in range(s.shape[0]):
            g[r] = math.exp(s[r] - top)
            total += g[r]
        for r in range(s.shape[0]):
            g[r] /= total
        g[label] -= 1.0
