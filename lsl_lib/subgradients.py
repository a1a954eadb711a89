r"""Lecture 01: subgradient descent and step sizes.

Two tiny demonstrations of the lecture ``notebooks/01_subgradients.ipynb``, in numpy
only (a stream of numbers, a full batch of a few dozen points: nothing to compile).

*SGD for a mean.* Minimise :math:`F(w) = \mathbb{E}[(w - x)^2]/2` from a stream
:math:`x_1, x_2, \dots`: the gradient of :math:`(w - x_t)^2/2` at :math:`w_{t-1}` is an
unbiased estimate of :math:`F'(w_{t-1})`, and one step per sample reads

.. math::

    w_t = w_{t-1} - \eta_t\,(w_{t-1} - x_t).

*Full-batch subgradient descent* on the regularised empirical risk of
:mod:`lsl_lib.losses`,

.. math::

    w_t = w_{t-1} - \eta_t\, g_t,\qquad
    g_t = \lambda w_{t-1}
          + \frac1n\sum_{i=1}^n \partial_s\ell(y_i, \langle w_{t-1}, x_i\rangle)\, x_i
    \in \partial f(w_{t-1}),

with the step sizes :math:`\eta_t = c,\ c/\sqrt t,\ c/t` or :math:`c/t^2`.

========================================================  ===========================  ========
Formula                                                   Reference                    Compiled
========================================================  ===========================  ========
:math:`\eta_t = c / t^p`, :math:`p \in \{0, 1/2, 1, 2\}`  :func:`step_sizes`           none
:math:`w_t = w_{t-1} - \eta_t (w_{t-1} - x_t)`            :func:`sgd_mean`             none
:math:`w_t = w_{t-1} - \eta_t g_t`                        :func:`subgradient_descent`  none
========================================================  ===========================  ========

No compiled twin: these loops run a few hundred steps on a few dozen numbers.

References
----------
Robbins, Monro. A stochastic approximation method. Annals of Mathematical
Statistics 22(3), 400-407, 1951.

Boyd, Xiao, Mutapcic. Subgradient methods. Lecture notes, Stanford EE392o, 2003.
"""
import numpy as np

from lsl_lib.losses import get_loss

__all__ = ["STEP_SCHEDULES", "step_sizes", "sgd_mean", "primal_objectives",
           "subgradient_descent"]


def __dir__():
    return __all__


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

    that is :func:`lsl_lib.losses.primal_objective` for each row of ``W``: the values along a
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
        A binary or regression loss of :data:`lsl_lib.losses.LOSSES`.
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
