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
HINGE, LOG, SQUARED, EPSILON_INSENSITIVE, MULTICLASS_HINGE, SOFTMAX, SMOOTHED_HINGE = range(7)


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
def score_derivative(code, y, s, epsilon):
    """:math:`\\partial_s \\ell(y, s)` of one example, for the losses with a scalar score.

    Same arithmetic as the vectorised :meth:`Loss.subgradient` of each class above.
    """
    if code == HINGE:
        return -y if y * s < 1.0 else 0.0
    if code == LOG:
        z = -y * s  # -y * sigma(z), evaluated without overflow
        if z >= 0.0:
            return -y / (1.0 + math.exp(-z))
        e = math.exp(z)
        return -y * e / (1.0 + e)
    if code == SQUARED:
        return s - y
    if code == EPSILON_INSENSITIVE:
        r = s - y
        return 1.0 if r > epsilon else (-1.0 if r < -epsilon else 0.0)
    if code == SMOOTHED_HINGE:
        return -y * min(max(1.0 - y * s, 0.0), 1.0)
    raise ValueError("score_derivative: not a loss with a scalar score")


@jit
def score_subgradient(code, y, s, epsilon, g):
    """Write a subgradient of one example's loss into ``g`` (compiled loops).

    ``s`` and ``g`` have length K (1 unless the loss is multiclass); ``y`` is the
    label, the target, or the class index as a float.
    """
    if code == MULTICLASS_HINGE:
        label = int(y)
        best = -1
        for r in range(s.shape[0]):
            g[r] = 0.0
            if r != label and (best < 0 or s[r] > s[best]):
                best = r
        if 1.0 + s[best] - s[label] > 0.0:
            g[best] = 1.0
            g[label] = -1.0
    elif code == SOFTMAX:
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
    else:
        g[0] = score_derivative(code, y, s[0], epsilon)


# ---------------------------------------------------------------------------
# Lecture 1: subgradient descent and step sizes. Tiny demonstrations (a stream of
# numbers, a full batch of a few dozen points): numpy only, no compiled path.

#: Step-size schedules :math:`\eta_t`, t = 1, 2, ... (each multiplied by a constant c).
STEP_SCHEDULES = ("constant", "1/sqrt(t)", "1/t", "1/t^2")


def _check_finite_real(name, value, positive=False):
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    ok = ok and bool(np.isfinite(value)) and (value > 0 if positive else True)
    if not ok:
        expected = "a finite real number > 0" if positive else "a finite real number"
        raise ValueError(f"{name} must be {expected}, got {value!r}.")
    return float(value)


def step_sizes(schedule, n_iter, c=1.0):
    r"""The steps :math:`\eta_1, \dots, \eta_T` of a schedule.

    .. math::

        \eta_t = c,\quad \frac{c}{\sqrt t},\quad \frac{c}{t}\quad\text{or}\quad \frac{c}{t^2}.

    Only :math:`c/t` meets both conditions of Robbins and Monro,
    :math:`\sum_t \eta_t = \infty` (the iterate can travel any distance) and
    :math:`\sum_t \eta_t^2 < \infty` (the noise of the steps dies out).

    Parameters
    ----------
    schedule : {'constant', '1/sqrt(t)', '1/t', '1/t^2'}
    n_iter : int
        Number of steps T (>= 1).
    c : float, default=1.0
        The constant in front (> 0).

    Returns
    -------
    eta : ndarray of shape (n_iter,)
        ``eta[t - 1]`` is :math:`\eta_t`.

    References
    ----------
    Robbins, Monro. A stochastic approximation method. Annals of Mathematical
    Statistics 22(3), 400-407, 1951.

    Examples
    --------
    >>> step_sizes("1/t", 4, c=2.0)
    array([2.        , 1.        , 0.66666667, 0.5       ])
    """
    if schedule not in STEP_SCHEDULES:
        raise ValueError(f"schedule must be one of {STEP_SCHEDULES}, got {schedule!r}.")
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or n_iter < 1:
        raise ValueError(f"n_iter must be an int >= 1, got {n_iter!r}.")
    c = _check_finite_real("c", c, positive=True)
    t = np.arange(1, n_iter + 1, dtype=np.float64)
    power = {"constant": 0.0, "1/sqrt(t)": 0.5, "1/t": 1.0, "1/t^2": 2.0}[schedule]
    return c / t ** power


def sgd_mean(x, schedule="1/t", c=1.0, w0=0.0):
    r"""SGD estimating a mean: minimise :math:`F(w) = \mathbb{E}[(w - x)^2]/2` from a stream.

    The gradient of :math:`(w - x_t)^2/2` at :math:`w_{t-1}` is :math:`w_{t-1} - x_t`,
    an unbiased estimate of :math:`F'(w_{t-1}) = w_{t-1} - \mathbb{E}[x]`; one step
    per sample:

    .. math::

        w_t = w_{t-1} - \eta_t\,(w_{t-1} - x_t), \qquad t = 1, \dots, n.

    With :math:`\eta_t = 1/t` this is the running mean,
    :math:`w_t = (x_1 + \dots + x_t)/t`, whatever :math:`w_0`. A constant step
    keeps a variance floor (:math:`\operatorname{Var} w_t \to c\,\sigma^2/(2 - c)`);
    steps :math:`c/t^2` add up to a finite total, so the iterate freezes before it
    reaches the mean.

    Parameters
    ----------
    x : array-like of shape (n_samples,) or (n_runs, n_samples)
        The stream, e.g. :func:`lsl_lib.datasets.mean_stream`; one independent
        stream per row for several runs at once.
    schedule : {'constant', '1/sqrt(t)', '1/t', '1/t^2'}, default='1/t'
        See :func:`step_sizes`.
    c : float, default=1.0
        Constant of the schedule (> 0).
    w0 : float, default=0.0
        Starting point.

    Returns
    -------
    w : ndarray of shape (n_samples + 1,) or (n_runs, n_samples + 1)
        The trajectory: ``w[0] = w0`` and ``w[t]`` the estimate after t samples
        (``w[r, t]`` for run r).

    References
    ----------
    Robbins, Monro. A stochastic approximation method. Annals of Mathematical
    Statistics 22(3), 400-407, 1951.

    Bottou, Curtis, Nocedal. Optimization methods for large-scale machine learning.
    SIAM Review 60(2), 223-311, 2018 (Section 4).

    Examples
    --------
    >>> sgd_mean([1.0, 2.0, 6.0], schedule="1/t")
    array([0. , 1. , 1.5, 3. ])
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim not in (1, 2) or x.shape[-1] == 0 or not np.all(np.isfinite(x)):
        raise ValueError("x must be a non-empty 1-D array (or 2-D, one stream per row) of "
                         f"finite numbers, got shape {x.shape}.")
    n_samples = x.shape[-1]
    eta = step_sizes(schedule, n_samples, c)
    w = np.empty(x.shape[:-1] + (n_samples + 1,))
    w[..., 0] = _check_finite_real("w0", w0)
    for t in range(1, n_samples + 1):
        w[..., t] = w[..., t - 1] - eta[t - 1] * (w[..., t - 1] - x[..., t - 1])
    return w


def _check_lam(lam):
    lam = _check_finite_real("lam", lam)
    if lam < 0:
        raise ValueError(f"lam must be a finite real number >= 0, got {lam!r}.")
    return lam


def _check_binary_or_regression(loss):
    loss = get_loss(loss)
    if loss.task == "multiclass":
        raise ValueError(f"loss must be a binary or regression loss, got {loss.name!r}.")
    return loss


def _check_Xy(X, y):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError(f"X must be a 2-D array of finite numbers, got shape {X.shape}.")
    if y.shape != (X.shape[0],) or not np.all(np.isfinite(y)):
        raise ValueError(f"y must be a 1-D array of {X.shape[0]} finite numbers (one per row "
                         f"of X), got shape {y.shape}.")
    return X, y


def primal_objectives(W, X, y, lam, loss):
    r"""The regularised empirical risk of many weight vectors at once.

    .. math::

        f(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_{i=1}^n \ell(y_i, \langle w, x_i\rangle),

    that is :func:`primal_objective` for each row of ``W``: the values along a
    trajectory, or on a grid of weights to draw contour lines.

    Parameters
    ----------
    W : array-like of shape (m, d) or (d,)
        One weight vector per row (a single vector is one row).
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    lam : float
        Regularisation :math:`\lambda` (>= 0).
    loss : str or Loss
        A binary or regression loss.

    Returns
    -------
    f : ndarray of shape (m,)
    """
    loss = _check_binary_or_regression(loss)
    X, y = _check_Xy(X, y)
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    if W.ndim != 2 or W.shape[1] != X.shape[1]:
        raise ValueError(f"W must have shape (m, {X.shape[1]}), got {W.shape}.")
    lam = _check_lam(lam)
    S = X @ W.T  # (n, m): the scores of every example under every w
    return 0.5 * lam * np.sum(W ** 2, axis=1) + loss.value(y[:, None], S).mean(axis=0)


def subgradient_descent(X, y, loss="hinge", lam=0.1, n_iter=100, schedule="1/t", c=1.0,
                        w0=None):
    r"""Full-batch subgradient descent on the regularised empirical risk.

    .. math::

        f(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_{i=1}^n \ell(y_i, \langle w, x_i\rangle),
        \qquad
        w_t = w_{t-1} - \eta_t\, g_t,\quad
        g_t = \lambda w_{t-1}
              + \frac1n\sum_{i=1}^n \partial_s\ell(y_i, \langle w_{t-1}, x_i\rangle)\, x_i
        \in \partial f(w_{t-1}).

    With a smooth loss (``'log'``, ``'squared'``) :math:`g_t = \nabla f(w_{t-1})` and
    this is gradient descent: with a constant step :math:`\eta \le 1/L` the value
    decreases at every step. With the hinge, :math:`-g_t` need not be a descent
    direction: :math:`f(w_t)` can go up, and only decreasing steps converge.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Labels in {-1, +1} for a binary loss, real targets for a regression loss.
    loss : str or Loss, default='hinge'
        A binary or regression loss of :data:`LOSSES`.
    lam : float, default=0.1
        Regularisation :math:`\lambda` (>= 0).
    n_iter : int, default=100
        Number of steps T (>= 1).
    schedule : {'constant', '1/sqrt(t)', '1/t', '1/t^2'}, default='1/t'
        See :func:`step_sizes`; ``'1/t'`` with ``c = 1/lam`` is the step of Pegasos.
    c : float, default=1.0
        Constant of the schedule (> 0).
    w0 : array-like of shape (d,), default=None
        Starting point; zeros if None.

    Returns
    -------
    W : ndarray of shape (n_iter + 1, d)
        The iterates :math:`w_0, \dots, w_T`.
    f : ndarray of shape (n_iter + 1,)
        Their objective values :math:`f(w_0), \dots, f(w_T)`.

    References
    ----------
    Boyd, Xiao, Mutapcic. Subgradient methods. Lecture notes, Stanford EE392o, 2003.

    Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
    solver for SVM. Mathematical Programming 127(1), 3-30, 2011.

    Examples
    --------
    >>> W, f = subgradient_descent([[1.0]], [1.0], lam=0.0, n_iter=2, schedule="constant", c=0.5)
    >>> W.ravel(), f
    (array([0. , 0.5, 1. ]), array([1. , 0.5, 0. ]))
    """
    loss = _check_binary_or_regression(loss)
    X, y = _check_Xy(X, y)
    n, d = X.shape
    eta = step_sizes(schedule, n_iter, c)
    W = np.empty((n_iter + 1, d))
    if w0 is None:
        W[0] = 0.0
    else:
        w0 = np.asarray(w0, dtype=np.float64)
        if w0.shape != (d,) or not np.all(np.isfinite(w0)):
            raise ValueError(f"w0 must be None or an array of {d} finite numbers, "
                             f"got shape {w0.shape}.")
        W[0] = w0
    lam = _check_lam(lam)
    for t in range(1, n_iter + 1):
        w = W[t - 1]
        g = lam * w + X.T @ loss.subgradient(y, X @ w) / n
        W[t] = w - eta[t - 1] * g
    return W, primal_objectives(W, X, y, lam, loss)
