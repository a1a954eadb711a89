r"""Stochastic gradient methods for smooth finite sums: SGD, SVRG, SARAH and SARAH+.

The problem is a smooth, :math:`\lambda`-strongly convex finite sum

.. math::

    f(w) = \frac1n\sum_{i=1}^n f_i(w), \qquad
    f_i(w) = \ell(y_i, \langle w, x_i\rangle) + \frac{\lambda}{2}\|w\|^2,

with the logistic loss (``'log'``), the squared loss :math:`\frac12(s - y)^2`
(``'squared'``, ridge regression) or the smoothed hinge (``'smoothed_hinge'``,
:class:`lsl_lib.losses.SmoothedHinge`). Each :math:`f_i` is :math:`L`-smooth with
:math:`L = c\max_i\|x_i\|^2 + \lambda`, where :math:`c` bounds :math:`\ell''`:
1/4 (logistic), 1 (squared), 1 (smoothed hinge). Let :math:`g_A(w)` be the mean of
:math:`\nabla f_i(w) = \ell'(y_i, \langle w, x_i\rangle)\,x_i + \lambda w` over a
mini-batch :math:`A` of :math:`k` examples.

- **SGD**: :math:`w_{t+1} = w_t - \eta_t\, g_{A_t}(w_t)`, with
  :math:`\eta_t = 1/(\lambda t + L)` by default (Pegasos' step with offset
  :math:`L/\lambda`: :math:`\eta_1 < 1/L`) or a constant :math:`\eta`.
- **SVRG** (Johnson and Zhang 2013), outer loop :math:`s`: snapshot
  :math:`\tilde w`, :math:`\mu = \nabla f(\tilde w)`, then
  :math:`w_{t+1} = w_t - \eta v_t` with
  :math:`v_t = g_{A_t}(w_t) - g_{A_t}(\tilde w) + \mu`.
- **SARAH** (Nguyen et al. 2017, Algorithm 1), outer loop :math:`s`:
  :math:`w_0 = \tilde w`, :math:`v_0 = \nabla f(w_0)`, :math:`w_1 = w_0 - \eta v_0`,
  and for :math:`t = 1, \dots, m-1`

  .. math::

      v_t = g_{A_t}(w_t) - g_{A_t}(w_{t-1}) + v_{t-1}, \qquad w_{t+1} = w_t - \eta v_t,

  the *same* mini-batch :math:`A_t` in both gradients. The recursive :math:`v_t` is a
  biased estimate of :math:`\nabla f(w_t)`, but its error vanishes as the inner
  loop converges, unlike SVRG's.
- **SARAH+** (Algorithm 2): SARAH whose inner loop stops as soon as
  :math:`\|v_{t-1}\|^2 \le \gamma\|v_0\|^2` (squared norms, :math:`\gamma = 1/8`),
  or at :math:`t = m`.

Both SVRG and SARAH start the inner loop with :math:`w_1 = w_0 - \eta\nabla f(w_0)`
(for SVRG, :math:`w_0 = \tilde w` makes the correction vanish: the iterates are
those of Johnson and Zhang's Algorithm 1 with :math:`m` inner steps), so an outer
loop makes :math:`m` updates and costs :math:`n + 2k(m-1)` gradient evaluations of
single examples. Traces count them in **effective passes** (evaluations / n): SGD
costs :math:`k/n` per step. The new outer point :math:`\tilde w` is the last
iterate :math:`w_m` (``output='last'``, what is used in practice) or, as in the
papers' analysis, :math:`w_t` with :math:`t` uniform on :math:`\{0, \dots, m\}`
(``output='random'``).

Two paths run the iterations on the same index array
(:mod:`lsl_lib._core.sampling`): the readable numpy reference
(:func:`sgd_numpy_chunk`, :func:`variance_reduced_numpy_chunk`, written with
:class:`FiniteSumObjective`) and the compiled loops (:func:`sgd_numba_chunk`,
:func:`variance_reduced_numba_chunk`). Each step costs :math:`O(d + k\,\mathrm{nnz}(x))`:
the dense vectors :math:`w, v` are updated in full (no lazy updates, for clarity).

References
----------
Johnson, Zhang. Accelerating stochastic gradient descent using predictive variance
reduction. NIPS 2013.

Nguyen, Liu, Scheinberg, Takáč. SARAH: a novel method for machine learning problems
using stochastic recursive gradient. ICML 2017.

Shalev-Shwartz, Zhang. Stochastic dual coordinate ascent methods for regularized
loss minimization. JMLR 14, 2013 (the smoothed hinge, Section 5.3).

Bottou, Curtis, Nocedal. Optimization methods for large-scale machine learning.
SIAM Review 60(2), 2018 (Sections 4 and 5.3).
"""
import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import row_norms
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import compiled_arrays, jit, resolve_backend
from lsl_lib._core.random import check_random_state
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import (ITERATIVE_CONSTRAINTS, add_intercept_column,
                                      check_batch_size, check_n_classes, clipped_batch_size,
                                      signed_binary_labels)
from lsl_lib._core.loss_derivatives import score_derivative_numba
from lsl_lib.losses import Loss, get_loss, primal_objective
from lsl_lib.pegasos import reference_solution

METHODS = ("sgd", "svrg", "sarah", "sarah+")
SGD, SVRG, SARAH, SARAH_PLUS = range(4)  # METHODS.index(method): codes in compiled loops
OUTPUTS = ("last", "random")


SMOOTH_LOSSES = ("log", "squared", "smoothed_hinge")


def get_smooth_loss(loss):
    """The :class:`~lsl_lib.losses.Loss` named ``loss``, one of :data:`SMOOTH_LOSSES`."""
    if isinstance(loss, Loss) and loss.name in SMOOTH_LOSSES:
        return loss
    if loss not in SMOOTH_LOSSES:
        raise ValueError(f"loss must be one of {SMOOTH_LOSSES}, got {loss!r}.")
    return get_loss(loss)


class FiniteSumObjective:
    r""":math:`f(w) = \frac1n\sum_i f_i(w)`, :math:`f_i(w) = \ell(y_i, \langle w, x_i\rangle)
    + \frac{\lambda}{2}\|w\|^2`: values and gradients, in numpy.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y : ndarray of shape (n,)
        Labels in {-1, +1} or real targets, as the loss expects.
    lam : float
        :math:`\lambda > 0`.
    loss : {'log', 'squared', 'smoothed_hinge'} or Loss

    Attributes
    ----------
    L : float
        Smoothness of every :math:`f_i`: :math:`c\max_i\|x_i\|^2 + \lambda`, with
        ``c = loss.curvature``, so that
        :math:`\|\nabla f_i(u) - \nabla f_i(v)\| \le L\|u - v\|`.
    """

    def __init__(self, X, y, lam, loss):
        self.X, self.y, self.lam = X, np.asarray(y, dtype=np.float64), float(lam)
        self.loss = get_smooth_loss(loss)
        self.n_samples = X.shape[0]
        self.L = self.loss.curvature * float(row_norms(X, squared=True).max()) + self.lam

    def value(self, w):
        """:math:`f(w)`."""
        return primal_objective(w[None, :], self.X, self.y, self.lam, self.loss)

    def _mean_gradient(self, X, y, w):
        derivatives = self.loss.subgradient(y, np.asarray(X @ w))  # l'(y_i, <w, x_i>)
        return np.asarray(X.T @ derivatives).ravel() / len(y) + self.lam * w

    def gradient(self, w):
        r"""The full gradient :math:`\nabla f(w) = \frac1n\sum_i \nabla f_i(w)`: n evaluations."""
        return self._mean_gradient(self.X, self.y, w)

    def batch_gradient(self, w, batch):
        r""":math:`g_A(w) = \frac1k\sum_{i\in A}\nabla f_i(w)` for the k indices ``batch``."""
        return self._mean_gradient(self.X[batch], self.y[batch], w)

    def example_gradient(self, w, i):
        r""":math:`\nabla f_i(w) = \ell'(y_i, \langle w, x_i\rangle)\, x_i + \lambda w`."""
        return self.batch_gradient(w, np.array([i]))


# ---------------------------------------------------------------------------
# The numpy reference: the pseudo-code, line by line.

def sgd_numpy_chunk(objective, w, indices, eta):
    """SGD steps :math:`w \\leftarrow w - \\eta_t g_{A_t}(w)`, one per row of ``indices``
    (shape (T, k)) with the steps ``eta`` (shape (T,)); ``w`` is updated in place."""
    for A_t, eta_t in zip(indices, eta):
        w -= eta_t * objective.batch_gradient(w, A_t)


def variance_reduced_numpy_chunk(objective, w, indices, method, eta, m, gamma, t_out, lengths):
    """Outer loops of SVRG, SARAH or SARAH+: the readable numpy reference.

    Parameters
    ----------
    objective : FiniteSumObjective
    w : ndarray of shape (d,)
        :math:`\\tilde w`, replaced in place by the output of each outer loop.
    indices : ndarray of shape (T, k)
        Mini-batches, consumed in order (at most m - 1 per outer loop).
    method : {'svrg', 'sarah', 'sarah+'}
    eta : float
    m : int
        Inner-loop length: the iterates are :math:`w_0, \\dots, w_m` (fewer if SARAH+ stops).
    gamma : float
        SARAH+'s threshold on :math:`\\|v_{t-1}\\|^2 / \\|v_0\\|^2`.
    t_out : ndarray of int, shape (S,)
        Which iterate each of the S outer loops outputs (``m``: the last).
    lengths : ndarray of int, shape (S,)
        Filled with the index t of the last iterate of each outer loop.

    Returns
    -------
    n_rows : int
        Rows of ``indices`` consumed.
    """
    pos = 0
    for s in range(len(t_out)):
        w_tilde = w.copy()  # w_0
        mu = objective.gradient(w_tilde)  # v_0 = grad f(w_0): a full pass
        v, v0_norm2 = mu.copy(), np.dot(mu, mu)
        w_out = w_tilde
        w_prev, w_t, t = w_tilde, w_tilde - eta * v, 1  # w_1 = w_0 - eta v_0
        if t_out[s] == 1:
            w_out = w_t
        while t < m:
            if method == "sarah+" and np.dot(v, v) <= gamma * v0_norm2:
                break
            A_t = indices[pos]
            pos += 1
            if method == "svrg":
                v = objective.batch_gradient(w_t, A_t) - objective.batch_gradient(w_tilde, A_t) + mu
            else:  # the same mini-batch at w_t and w_{t-1}
                v = objective.batch_gradient(w_t, A_t) - objective.batch_gradient(w_prev, A_t) + v
            w_prev, w_t, t = w_t, w_t - eta * v, t + 1
            if t == t_out[s]:
                w_out = w_t
        lengths[s] = t
        w[:] = w_out if t_out[s] < t else w_t
    return pos


# ---------------------------------------------------------------------------
# The numba fast path: the same arithmetic, in compiled loops.

@jit
def mean_gradient_numba(data, cols, indptr, y, w, rows, lam, code, g):
    """Write :math:`\\frac1k\\sum_{i\\in\\mathrm{rows}}\\ell'(y_i, \\langle w, x_i\\rangle)x_i
    + \\lambda w` into ``g``; ``rows = arange(n)`` gives the full gradient.

    ``X`` comes as CSR arrays ``(data, cols, indptr)``, or dense as ``data = X.ravel()``
    with empty ``cols`` and ``indptr`` (as in :func:`lsl_lib.pegasos.pegasos_numba_chunk`).
    """
    d = w.shape[0]
    dense = indptr.shape[0] == 0
    for j in range(d):
        g[j] = 0.0
    for i in rows:
        s = 0.0
        if dense:
            for j in range(d):
                s += data[i * d + j] * w[j]
            c = score_derivative_numba(code, y[i], s, 0.0)
            for j in range(d):
                g[j] += c * data[i * d + j]
        else:
            for p in range(indptr[i], indptr[i + 1]):
                s += data[p] * w[cols[p]]
            c = score_derivative_numba(code, y[i], s, 0.0)
            for p in range(indptr[i], indptr[i + 1]):
                g[cols[p]] += c * data[p]
    k = rows.shape[0]
    for j in range(d):
        g[j] = g[j] / k + lam * w[j]


@jit
def sgd_numba_chunk(data, cols, indptr, y, w, indices, eta, lam, code):
    """The steps of :func:`sgd_numpy_chunk`, compiled."""
    g = np.empty(w.shape[0])
    for it in range(indices.shape[0]):
        mean_gradient_numba(data, cols, indptr, y, w, indices[it], lam, code, g)
        for j in range(w.shape[0]):
            w[j] -= eta[it] * g[j]


@jit
def variance_reduced_numba_chunk(data, cols, indptr, y, w, indices, method, lam, code, eta, m,
                                 gamma, t_out, lengths):
    """The outer loops of :func:`variance_reduced_numpy_chunk`, compiled (``method`` is
    SVRG, SARAH or SARAH_PLUS); returns the rows of ``indices`` consumed."""
    d = w.shape[0]
    all_rows = np.arange(y.shape[0])
    mu, v, g_new, g_old = np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    w_tilde, w_prev, w_out = np.empty(d), np.empty(d), np.empty(d)
    pos = 0
    for s in range(t_out.shape[0]):
        mean_gradient_numba(data, cols, indptr, y, w, all_rows, lam, code, mu)  # v_0
        v0_norm2 = 0.0
        for j in range(d):
            v0_norm2 += mu[j] * mu[j]
            v[j] = mu[j]
            w_tilde[j] = w_out[j] = w_prev[j] = w[j]
            w[j] = w[j] - eta * v[j]  # w_1
        t = 1
        if t_out[s] == 1:
            w_out[:] = w
        while t < m:
            if method == SARAH_PLUS:
                norm2 = 0.0
                for j in range(d):
                    norm2 += v[j] * v[j]
                if norm2 <= gamma * v0_norm2:
                    break
            mean_gradient_numba(data, cols, indptr, y, w, indices[pos], lam, code, g_new)
            if method == SVRG:
                mean_gradient_numba(data, cols, indptr, y, w_tilde, indices[pos], lam, code, g_old)
                for j in range(d):
                    v[j] = g_new[j] - g_old[j] + mu[j]
            else:
                mean_gradient_numba(data, cols, indptr, y, w_prev, indices[pos], lam, code, g_old)
                for j in range(d):
                    v[j] = g_new[j] - g_old[j] + v[j]
            pos += 1
            for j in range(d):
                w_prev[j] = w[j]
                w[j] = w[j] - eta * v[j]
            t += 1
            if t == t_out[s]:
                w_out[:] = w
        lengths[s] = t
        if t_out[s] < t:
            w[:] = w_out
    return pos


# ---------------------------------------------------------------------------
# The functional driver.

class StochasticGradientState:
    """Where a run stands.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The current point (:math:`\\tilde w` between outer loops).
    t : int
        Updates of w so far (``iteration`` in the trace).
    epoch : int
        Outer loops done (for SGD: epochs of :math:`\\lceil n/k\\rceil` steps).
    n_gradients : int
        Gradients :math:`\\nabla f_i` evaluated so far; ``/ n`` gives effective passes.
    inner_loop_lengths : list of int
        Index of the last iterate of each outer loop (m unless SARAH+ stopped early;
        :math:`\\lceil n/k\\rceil` per epoch for SGD).
    """

    def __init__(self, n_features):
        self.w = np.zeros(n_features)
        self.t = self.epoch = self.n_gradients = 0
        self.inner_loop_lengths = []


def _check_positive(name, value, auto=False):
    ok = (auto and isinstance(value, str) and value == "auto") or (
        isinstance(value, Real) and not isinstance(value, bool) and value > 0)
    if not ok:
        raise ValueError(f"{name} must be {'auto or ' if auto else ''}a number > 0, got {value!r}.")


def stochastic_gradient(X, y, lam, n_epochs, *, method="sarah", loss="log", eta="auto",
                        inner_loop="auto", batch_size=1, sampling="iid", output="last",
                        gamma=0.125, record_every=None, reference_objective=None, monitor=None,
                        backend="auto", random_state=None, state=None, smoothness=None,
                        verbose=False):
    r"""Minimise :math:`f` by SGD, SVRG, SARAH or SARAH+ from w = 0, on prepared arrays.

    The functional core of :class:`StochasticGradientClassifier` and
    :class:`StochasticGradientRegressor` (no label mapping, no intercept column).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y : ndarray of shape (n,)
        Labels in {-1, +1} (``'log'``, ``'smoothed_hinge'``) or targets (``'squared'``).
    lam : float
        :math:`\lambda > 0`.
    n_epochs : int
        Outer loops S (for SGD: epochs of :math:`\lceil n/k\rceil` steps).
    method : {'sgd', 'svrg', 'sarah', 'sarah+'}, default='sarah'
    loss : {'log', 'squared', 'smoothed_hinge'}, default='log'
    eta : float or 'auto', default='auto'
        A constant step :math:`\eta`; ``'auto'`` is :math:`1/(2L)` for the
        variance-reduced methods and :math:`\eta_t = 1/(\lambda t + L)` for SGD.
    inner_loop : int or 'auto', default='auto'
        m, the number of updates per outer loop; ``'auto'`` is :math:`\lceil n/k\rceil`
        (m = n for k = 1), so that the inner loop samples about n examples.
    batch_size : int, default=1
        k; SVRG and SARAH use the same mini-batch in both of their gradients.
    sampling : {'iid', 'permutation', 'reshuffle', 'in_order'}, default='iid'
        A scheme of :mod:`lsl_lib._core.sampling`, or ``'in_order'``: the rows 0, 1, ...,
        n - 1 as given, in mini-batches of k consecutive rows, wrapping around after row
        n - 1 (what ``partial_fit`` runs, one pass per call).
    output : {'last', 'random'}, default='last'
        The new :math:`\tilde w` of SVRG and SARAH: :math:`w_m`, or :math:`w_t` with t
        uniform on {0, ..., m} (the papers' analysed option). SARAH+ outputs its last
        iterate, as in the paper; SGD has no outer point.
    gamma : float in (0, 1), default=1/8
        SARAH+ stops its inner loop once :math:`\|v_{t-1}\|^2 \le \gamma\|v_0\|^2`.
    record_every : int or None, default=None
        Record the trace every that many outer loops (and at the start).
    reference_objective : float or None, default=None
        :math:`f(w^*)`, for a ``'suboptimality'`` column.
    monitor : callable or None, default=None
        ``monitor(w) -> dict`` of extra columns at each record point.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
    state : StochasticGradientState or None, default=None
        Continue this run (updated in place): its w, its counts, and SGD's step
        :math:`\eta_t` from its t. None starts from w = 0.
    smoothness : float or None, default=None
        The L of the ``'auto'`` steps; None takes :math:`c\max_i\|x_i\|^2 + \lambda`
        over these rows (``partial_fit`` passes the maximum over every chunk seen).
    verbose : bool, default=False
        A progress bar for runs longer than a few seconds
        (:func:`~lsl_lib._core.run_loop.run_chunks`).

    Returns
    -------
    state : StochasticGradientState
        ``state.w`` is the solution.
    history : dict of ndarray
        ``effective_passes``, ``iteration``, ``epoch``, ``seconds``, ``objective``,
        ``grad_norm2`` (:math:`\|\nabla f(w)\|^2`) and the optional columns; empty when
        ``record_every`` is None.

    Raises
    ------
    ValueError
        On bad arguments, before any step; when the norm of w overflows or grows by
        :data:`~lsl_lib._core.run_loop.DIVERGENCE_GROWTH` over its first value (a constant
        ``eta`` too long): the message names ``eta``.
    KeyboardInterrupt
        On Ctrl-C, at the end of the running chunk
        (:func:`~lsl_lib._core.run_loop.run_chunks`); ``state`` is then that of the last
        whole chunk.

    Notes
    -----
    The run loop ends its chunks where wall time says; the iterates do not depend on where:
    SGD's state is w alone (a chunk is any run of steps), and an outer loop of SVRG or
    SARAH starts afresh from :math:`\tilde w` (a chunk is a run of outer loops, the
    mini-batches consumed in order). Ctrl-C therefore waits for the running outer loop at
    most: about three passes over the data.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    loss = get_smooth_loss(loss)
    _check_positive("lam", lam)
    if isinstance(n_epochs, bool) or not isinstance(n_epochs, Integral) or n_epochs < 1:
        raise ValueError(f"n_epochs must be an int >= 1, got {n_epochs!r}.")
    _check_positive("eta", eta, auto=True)
    if not (inner_loop == "auto" or isinstance(inner_loop, Integral) and inner_loop >= 1):
        raise ValueError(f"inner_loop must be 'auto' or an int >= 1, got {inner_loop!r}.")
    if output not in OUTPUTS or (output == "random" and method not in ("svrg", "sarah")):
        raise ValueError(f"output must be one of {OUTPUTS} ('random' only with method='svrg' "
                         f"or 'sarah'), got output={output!r} with method={method!r}.")
    if not 0 < gamma < 1:
        raise ValueError(f"gamma must be in (0, 1), got {gamma!r}.")
    path = resolve_backend(backend)
    n_samples, n_features = X.shape
    check_batch_size(batch_size, n_samples)
    if state is None:
        state = StochasticGradientState(n_features)
    elif state.w.shape != (n_features,):
        raise ValueError(f"state.w has shape {state.w.shape}, X has {n_features} features.")
    rng = check_random_state(random_state)
    objective = FiniteSumObjective(X, y, lam, loss)
    L = objective.L if smoothness is None else float(smoothness)
    steps_per_epoch = -(-n_samples // batch_size)
    m = steps_per_epoch if inner_loop == "auto" else int(inner_loop)
    n_rows = n_epochs * (steps_per_epoch if method == "sgd" else m - 1)
    if sampling == "in_order":
        indices = (np.arange(n_rows * batch_size, dtype=np.int64) % n_samples).reshape(
            n_rows, batch_size)
    else:
        indices = sample_indices(n_samples, n_rows, batch_size, sampling, rng) if n_rows \
            else np.empty((0, batch_size), dtype=np.int64)
    if method == "sgd":
        t = np.arange(state.t + 1, state.t + n_rows + 1, dtype=np.float64)
        steps = 1.0 / (lam * t + L) if eta == "auto" else np.full(n_rows, float(eta))
    else:
        eta = 1.0 / (2.0 * L) if eta == "auto" else float(eta)
        t_out = rng.integers(0, m + 1, size=n_epochs) if output == "random" \
            else np.full(n_epochs, m, dtype=np.int64)
    if path == "numba":
        data, cols, indptr = compiled_arrays(X)
        y_float = np.ascontiguousarray(y, dtype=np.float64)
    first_epoch, t_start = state.epoch, state.t
    trace = Trace()

    def record():
        w = state.w
        row = dict(effective_passes=state.n_gradients / n_samples, iteration=state.t,
                   epoch=state.epoch, seconds=trace.seconds, objective=objective.value(w))
        if reference_objective is not None:
            row["suboptimality"] = row["objective"] - reference_objective
        gradient = objective.gradient(w)
        row["grad_norm2"] = float(np.dot(gradient, gradient))
        if monitor is not None:
            row.update(monitor(w))
        trace.record(**row)

    pos = 0  # rows of `indices` consumed by the outer loops so far

    def sgd_step(start, stop):  # SGD steps start .. stop - 1: w is the whole state
        if path == "numba":
            sgd_numba_chunk(data, cols, indptr, y_float, state.w, indices[start:stop],
                            steps[start:stop], float(lam), loss.code)
        else:
            sgd_numpy_chunk(objective, state.w, indices[start:stop], steps[start:stop])
        state.t += stop - start
        state.n_gradients += (stop - start) * batch_size
        epochs_done = stop // steps_per_epoch - start // steps_per_epoch
        state.inner_loop_lengths.extend([steps_per_epoch] * epochs_done)
        state.epoch += epochs_done

    def variance_reduced_step(start, stop):  # outer loops start .. stop - 1
        nonlocal pos
        lengths = np.zeros(stop - start, dtype=np.int64)
        if path == "numba":
            pos += variance_reduced_numba_chunk(
                data, cols, indptr, y_float, state.w, indices[pos:], METHODS.index(method),
                float(lam), loss.code, eta, m, float(gamma), t_out[start:stop], lengths)
        else:
            pos += variance_reduced_numpy_chunk(objective, state.w, indices[pos:], method, eta,
                                                m, gamma, t_out[start:stop], lengths)
        state.t += int(lengths.sum())
        state.n_gradients += int(np.sum(n_samples + 2 * batch_size * (lengths - 1)))
        state.epoch = first_epoch + stop
        state.inner_loop_lengths.extend(int(length) for length in lengths)

    def diverged(done):
        where = (f"step {t_start + done}" if method == "sgd"
                 else f"outer loop {first_epoch + done}")
        return (f"{method} diverged: the weights overflowed or grew by orders of magnitude by "
                f"{where}; use a smaller eta (or eta='auto', the step 1/(2L) of the "
                "variance-reduced methods and 1/(lam t + L) of SGD).")

    def norm():
        with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN are divergence
            return math.sqrt(np.dot(state.w, state.w))

    if method == "sgd":  # one unit a step: w is all the state, any step can end a chunk
        run_chunks(trace, n_rows, sgd_step,
                   record_every=None if record_every is None else record_every * steps_per_epoch,
                   record=record, norm=norm, diverged=diverged, verbose=verbose, desc="SGD",
                   unit="step")
    else:  # one unit an outer loop: it starts afresh from w~ with a full gradient
        run_chunks(trace, n_epochs, variance_reduced_step, record_every=record_every,
                   record=record, norm=norm, diverged=diverged, verbose=verbose,
                   desc=method.upper(), unit="outer loop")
    return state, trace.history()


def sgd(X, y, lam, n_epochs, **kwargs):
    r"""SGD, :math:`w_{t+1} = w_t - \eta_t\,g_{A_t}(w_t)`, :math:`\eta_t = 1/(\lambda t + L)`
    by default: :func:`stochastic_gradient` with ``method='sgd'``.

    With :math:`\eta_t = 1/(\lambda(t + t_0))` the suboptimality decreases as
    :math:`O(1/t)` only: the variance of :math:`g_{A_t}` at :math:`w^*` never vanishes.
    """
    return stochastic_gradient(X, y, lam, n_epochs, method="sgd", **kwargs)


def svrg(X, y, lam, n_epochs, **kwargs):
    r"""SVRG (Johnson and Zhang 2013): :func:`stochastic_gradient` with ``method='svrg'``.

    .. math:: v_t = g_{A_t}(w_t) - g_{A_t}(\tilde w) + \nabla f(\tilde w),
              \qquad w_{t+1} = w_t - \eta v_t.
    """
    return stochastic_gradient(X, y, lam, n_epochs, method="svrg", **kwargs)


def sarah(X, y, lam, n_epochs, **kwargs):
    r"""SARAH (Nguyen et al. 2017, Algorithm 1): ``method='sarah'`` of :func:`stochastic_gradient`.

    .. math:: v_0 = \nabla f(w_0),\quad v_t = g_{A_t}(w_t) - g_{A_t}(w_{t-1}) + v_{t-1},
              \qquad w_{t+1} = w_t - \eta v_t.
    """
    return stochastic_gradient(X, y, lam, n_epochs, method="sarah", **kwargs)


def sarah_plus(X, y, lam, n_epochs, **kwargs):
    r"""SARAH+ (Nguyen et al. 2017, Algorithm 2): :func:`stochastic_gradient`, ``method='sarah+'``.

    SARAH's inner loop, stopped at the first t with
    :math:`\|v_{t-1}\|^2 \le \gamma\|v_0\|^2` (``gamma=1/8``) or at t = m.
    """
    return stochastic_gradient(X, y, lam, n_epochs, method="sarah+", **kwargs)


# ---------------------------------------------------------------------------
# The estimators.

class _BaseStochasticGradient(BaseEstimator):
    """Parameters, validation and the fitting loop shared by both estimators."""

    _parameter_constraints = {
        "method": [StrOptions(set(METHODS))],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "eta": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "inner_loop": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "output": [StrOptions(set(OUTPUTS))],
        "fit_intercept": ["boolean"],
        "reference_objective": [Real, StrOptions({"auto"}), None],
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
    }

    def __init__(self, method="sarah", loss="log", lam=1e-4, eta="auto", inner_loop="auto",
                 n_epochs=10, batch_size=1, sampling="iid", output="last", fit_intercept=True,
                 record_every=None, reference_objective=None, backend="auto", random_state=None,
                 verbose=False):
        self.method = method
        self.loss = loss
        self.lam = lam
        self.eta = eta
        self.inner_loop = inner_loop
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.sampling = sampling
        self.output = output
        self.fit_intercept = fit_intercept
        self.record_every = record_every
        self.reference_objective = reference_objective
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _validate(self, X, y, reset):
        """Validated float X and y; errors name the input."""
        return validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32],
                             order="C", y_numeric=isinstance(self, RegressorMixin), reset=reset)

    def _with_intercept(self, X):
        return add_intercept_column(X) if self.fit_intercept else X

    def _run(self, X, y, eval_set, partial=None):
        """Run the solver on prepared X and encoded y, and store the fitted attributes.

        ``partial``: None for ``fit`` (from w = 0); ``'first'`` or ``'continue'`` for
        ``partial_fit``: one SGD pass over the rows in order, from w = 0 or from the
        fitted w and t, with L the largest over every chunk seen. A ``KeyboardInterrupt``
        of ``partial_fit`` leaves the model of the last whole chunk of steps; ``fit`` is
        left unfitted (:func:`~lsl_lib._core.run_loop.unfitted_on_interrupt`).
        """
        loss = get_smooth_loss(self.loss)
        smoothness = FiniteSumObjective(X, y, self.lam, loss).L
        n_epochs, sampling = self.n_epochs, self.sampling
        if partial is not None:
            n_epochs, sampling = 1, "in_order"
        state = StochasticGradientState(X.shape[1])
        if partial == "continue":
            smoothness = max(smoothness, self.smoothness_)
            state.w = np.append(self.coef_, self.intercept_) if self.fit_intercept \
                else self.coef_.copy()
            state.t = self.t_
        reference = self.reference_objective
        if reference == "auto":
            reference = primal_objective(reference_solution(X, y, self.lam, loss, tol=1e-10), X,
                                         y, self.lam, loss)
        monitor = None
        if eval_set is not None:  # validated once here, then scored at each record point
            X_eval = self._with_intercept(self._validate(*eval_set, reset=False)[0])
            y_eval = np.asarray(eval_set[1])

            def monitor(w):
                return {self._eval_name: self._eval_metric(np.asarray(X_eval @ w), y_eval)}

        t_before = state.t
        try:
            _, history = stochastic_gradient(
                X, y, self.lam, n_epochs, method=self.method, loss=loss, eta=self.eta,
                inner_loop=self.inner_loop,
                batch_size=clipped_batch_size(self.batch_size, X.shape[0]), sampling=sampling,
                output=self.output, record_every=self.record_every, reference_objective=reference,
                monitor=monitor, backend=self.backend, random_state=self.random_state,
                state=state, smoothness=smoothness, verbose=self.verbose)
        except KeyboardInterrupt:  # partial_fit keeps the last whole chunk's model
            self._store(state, smoothness, X.shape[0], t_before)
            raise
        self._store(state, smoothness, X.shape[0], t_before)
        self.history_ = history
        return self

    def _store(self, state, smoothness, n_samples, t_before):
        """The fitted attributes from the solver's state (``t_before``: its t at the start)."""
        w = state.w
        self.coef_ = (w[:-1] if self.fit_intercept else w).copy()
        self.intercept_ = float(w[-1]) if self.fit_intercept else 0.0
        self.n_iter_ = state.t - t_before
        self.t_ = state.t
        self.smoothness_ = smoothness
        self.effective_passes_ = state.n_gradients / n_samples
        self.inner_loop_lengths_ = np.asarray(state.inner_loop_lengths)

    def _is_online(self):
        """``partial_fit`` exists for SGD alone: the other methods need full gradients."""
        if self.method != "sgd":
            raise AttributeError(
                f"partial_fit needs method='sgd', got method={self.method!r}: SVRG, SARAH and "
                "SARAH+ take a full gradient over the whole training set in every outer "
                "loop, which a stream of chunks does not give; use fit.")
        return True

    def _scores(self, X):
        """Validated X's scores :math:`\\langle w, x\\rangle + b`: shape (n,), or (n, K) for
        the K rows of a one-vs-rest ``coef_``."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_PARAMETERS_DOC = r"""
    method : {'sgd', 'svrg', 'sarah', 'sarah+'}, default='sarah'
        The algorithm (see :mod:`lsl_lib.stochastic_gradient`).
    lam : float, default=1e-4
        Regularisation :math:`\lambda > 0`.
    eta : float or 'auto', default='auto'
        A constant step. ``'auto'``: :math:`1/(2L)` for SVRG, SARAH and SARAH+;
        :math:`\eta_t = 1/(\lambda t + L)` for SGD (the Pegasos step
        :math:`1/(\lambda(t + t_0))` with :math:`t_0 = L/\lambda`, so that
        :math:`\eta_1 < 1/L`), with :math:`L = c\max_i\|x_i\|^2 + \lambda`.
    inner_loop : int or 'auto', default='auto'
        m, the updates per outer loop; ``'auto'``: :math:`\lceil n/k\rceil` (m = n for k = 1).
    n_epochs : int, default=10
        Outer loops (for SGD, epochs of :math:`\lceil n/k\rceil` steps).
    batch_size : int, default=1
        k; SVRG and SARAH use the same mini-batch in both their gradients. A k larger
        than the rows at hand (the training set, or a ``partial_fit`` chunk) is clipped
        to their number n: a mini-batch of at most n rows.
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
        How mini-batches are drawn (see :mod:`lsl_lib._core.sampling`).
    output : {'last', 'random'}, default='last'
        New outer point of SVRG and SARAH: the last inner iterate (the practice), or
        one drawn uniformly among :math:`w_0, \dots, w_m` (the papers' analysis).
    fit_intercept : bool, default=True
        Learn an intercept as the weight of a constant feature 1 (regularised, as in
        :mod:`lsl_lib.pegasos`).
    record_every : int or None, default=None
        Record ``history_`` every that many outer loops; None records nothing.
    reference_objective : float, 'auto' or None, default=None
        :math:`f(w^*)` for ``history_['suboptimality']``; ``'auto'`` minimises f by
        L-BFGS (:func:`lsl_lib.pegasos.reference_solution`, gradient tolerance 1e-10).
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the sampling; the same seed gives the same iterates on both backends.
    verbose : bool, default=False
        A progress bar for fits longer than a few seconds.

    Attributes
    ----------
{coef}    t_ : int
        Updates of w in total (``partial_fit`` continues the step count from it).
    n_iter_ : int
        Updates of w in the last call to ``fit`` or ``partial_fit``.
    smoothness_ : float
        L of the ``'auto'`` steps, :math:`c\max_i\|x_i\|^2 + \lambda` (the intercept's
        constant feature included); after ``partial_fit``, the largest over the chunks.
    effective_passes_ : float
        Gradient evaluations / n in the last call: a full gradient costs 1, a step of
        SVRG or SARAH 2k/n.
    inner_loop_lengths_ : ndarray of int
        Updates in each outer loop (m, or fewer when SARAH+ stops early).
    history_ : dict of ndarray
        ``effective_passes``, ``iteration``, ``epoch``, ``seconds``, ``objective``,
        ``grad_norm2``, and ``suboptimality`` / ``{eval}`` when asked for (``eval_set``).
    n_features_in_ : int
"""


class StochasticGradientClassifier(ScoreClassifierMixin, _BaseStochasticGradient):
    __doc__ = r"""Linear classifier trained by SGD, SVRG, SARAH or SARAH+.

    Minimises :math:`\frac1n\sum_i \ell(y_i, \langle w, x_i\rangle) + \frac{\lambda}{2}\|w\|^2`
    with labels mapped to -1/+1 and back; more than two classes are learnt one-vs-rest
    (one binary model per class, as ``LinearSVC`` and ``SGDClassifier``;
    :class:`~lsl_lib._core.classifier.ScoreClassifierMixin`).

    Parameters
    ----------
    loss : {'log', 'smoothed_hinge'}, default='log'
        Logistic regression, or the smoothed hinge of :class:`lsl_lib.losses.SmoothedHinge`.
    """ + _PARAMETERS_DOC.replace("{eval}", "test_error").replace("{coef}", """\
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
        w; with more than two classes, one row per class of ``classes_``.
    intercept_ : float or ndarray of shape (n_classes,)
""") + r"""    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of StochasticGradientClassifier or None
        With more than two classes, the binary model of each class of ``classes_``
        (fitted on ``y == class``); their ``smoothness_``, ``effective_passes_`` and
        ``inner_loop_lengths_`` are theirs. None for two classes.

    Notes
    -----
    The defaults (SARAH, :math:`\lambda = 10^{-4}`, :math:`\eta = 1/(2L)`, m = n, 10
    outer loops: about 30 effective passes) were measured against scikit-learn with
    its own defaults. On 3 000 rows of a9a (the test split held out) they score 84.3 %,
    against 84.5 % for ``LogisticRegression()`` and 84.1 % for
    ``SGDClassifier(loss='log_loss')``; on a linear teacher, the same accuracy as
    ``LogisticRegression()``. Trained on the whole of a9a and ijcnn1 and scored on their
    test splits: 84.99 % and 91.62 %, against 84.94 % and 91.78 % for ``LinearSVC()``.
    ``method='sgd'`` with its ``'auto'`` step is the lecture's baseline, not a
    recommendation: while :math:`\lambda t < L` its step is about :math:`1/L`, and its last
    iterate sits at the noise floor of that step (83.5 % on a9a, 4 to 7 points below on
    linear teachers). The step follows the longest row: standardise the features first.

    *Interrupting.* Ctrl-C (or Jupyter's interrupt) stops a fit at the end of the running
    chunk of the run loop (:func:`~lsl_lib._core.run_loop.run_chunks`), within about 0.1 s
    (an outer loop of SVRG or SARAH is never cut: on data where one takes longer, the stop
    waits for it). ``fit`` leaves the estimator unfitted; ``partial_fit`` leaves the model
    of its last whole chunk of steps (with more than two classes: the classes done so far
    have seen the chunk, the others not).

    See Also
    --------
    StochasticGradientRegressor
    lsl_lib.pegasos.PegasosClassifier : stochastic subgradients, also for the hinge.
    sklearn.linear_model.LogisticRegression : its ``'sag'``/``'saga'`` solvers are
        variance-reduced too.

    References
    ----------
    Nguyen, Liu, Scheinberg, Takáč. SARAH: a novel method for machine learning problems
    using stochastic recursive gradient. ICML 2017.

    Johnson, Zhang. Accelerating stochastic gradient descent using predictive variance
    reduction. NIPS 2013.

    Examples
    --------
    >>> from lsl_lib.datasets import two_gaussian_blobs
    >>> from lsl_lib.stochastic_gradient import StochasticGradientClassifier
    >>> X, y = two_gaussian_blobs(500, random_state=0)
    >>> clf = StochasticGradientClassifier(lam=1e-2, random_state=0).fit(X, y)
    >>> round(clf.score(X, y), 2)
    0.95
    """

    _parameter_constraints = {
        **_BaseStochasticGradient._parameter_constraints,
        "loss": [StrOptions({"log", "smoothed_hinge"})],
    }
    _eval_name = "test_error"

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, eval_set=None):
        """Fit from w = 0; ``eval_set=(X_test, y_test)`` adds ``history_['test_error']``.

        More than two classes: one binary model per class, each fitted on ``y == class``
        with the same ``random_state`` (``estimators_``).
        """
        X, y = self._validate(X, y, reset=True)
        check_classification_targets(y)  # before np.unique: continuous y is refused by name
        self.classes_ = np.unique(y)
        check_n_classes(self.classes_, self.loss, ())
        self.estimators_ = None
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, eval_set=eval_set)
        return self._run(self._with_intercept(X), signed_binary_labels(y, self.classes_),
                         eval_set)

    @available_if(_BaseStochasticGradient._is_online)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None):
        """One SGD pass over the rows of (X, y) in the order given.

        Available with ``method='sgd'`` only (an ``AttributeError`` naming ``method``
        otherwise: the variance-reduced methods need full gradients).

        The pass makes :math:`\\lceil n/k\\rceil` steps on mini-batches of k consecutive
        rows (the last one wraps around to the first rows; k is clipped to the n rows of a
        shorter chunk), continuing the step count t of the previous calls (or of ``fit``):
        :math:`\\eta_t = 1/(\\lambda t + L)`, L the largest over the chunks seen.
        ``sampling``, ``n_epochs`` and ``random_state`` play no part. Calls on consecutive
        chunks of ``X[perm]``, each a multiple of k rows long, therefore give the iterates
        of one ``fit`` with ``sampling='permutation'``, ``n_epochs=1``, when ``perm`` is
        that fit's permutation and L is the same (the first chunk holds the longest row,
        or a constant ``eta``). More than two classes: each binary model of
        ``estimators_`` makes its pass.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, required on the first call
            All the labels that will ever appear.

        Returns
        -------
        self
        """
        first = _check_partial_fit_first_call(self, classes)
        X, y = self._validate(X, y, reset=first)
        self._check_labels(y)
        if first:
            self.estimators_ = None
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, partial=True)
        return self._run(self._with_intercept(X), signed_binary_labels(y, self.classes_), None,
                         partial="first" if first else "continue")

    def _decision_scores(self, X):
        """Scores :math:`\\langle w, x\\rangle + b`: of ``classes_[1]``, shape (n,), for two
        classes; one column per class otherwise."""
        return self._scores(X)

    def _has_proba(self):
        return self.loss == "log"

    def _eval_metric(self, scores, y):
        return float(np.mean(labels_from_scores(scores, self.classes_) != y))


class StochasticGradientRegressor(RegressorMixin, _BaseStochasticGradient):
    __doc__ = r"""Ridge regression trained by SGD, SVRG, SARAH or SARAH+.

    Minimises
    :math:`\frac1n\sum_i \frac12(\langle w, x_i\rangle - y_i)^2 + \frac{\lambda}{2}\|w\|^2`.

    Parameters
    ----------
    loss : {'squared'}, default='squared'
    """ + _PARAMETERS_DOC.replace("{eval}", "test_mse").replace("{coef}", """\
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
""") + r"""
    Notes
    -----
    The defaults, measured as for :class:`StochasticGradientClassifier`: on
    cpu_small and California housing, standardised, the held-out :math:`R^2` is that of
    ``Ridge()`` to 0.001 (0.710 and 0.627). The step follows the longest row: on raw
    cpu_small, whose features span six orders of magnitude, :math:`1/(2L)` is tiny and 10
    outer loops leave w near 0 (``SGDRegressor`` overflows there); standardise first.

    *Interrupting.* As for :class:`StochasticGradientClassifier`: ``fit`` leaves the
    estimator unfitted, ``partial_fit`` the model of its last whole chunk of steps.

    See Also
    --------
    StochasticGradientClassifier
    sklearn.linear_model.Ridge : the closed form, with ``alpha`` = :math:`\lambda n`
        when ``fit_intercept=False``.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.stochastic_gradient import StochasticGradientRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)); y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=2000)
    >>> reg = StochasticGradientRegressor(lam=1e-3, random_state=0).fit(X, y)
    >>> np.round(reg.coef_, 2)
    array([ 1. , -2. ,  0.5])
    """

    _parameter_constraints = {
        **_BaseStochasticGradient._parameter_constraints,
        "loss": [StrOptions({"squared"})],
    }
    _eval_name = "test_mse"

    def __init__(self, method="sarah", loss="squared", lam=1e-4, eta="auto", inner_loop="auto",
                 n_epochs=10, batch_size=1, sampling="iid", output="last", fit_intercept=True,
                 record_every=None, reference_objective=None, backend="auto", random_state=None,
                 verbose=False):
        super().__init__(method=method, loss=loss, lam=lam, eta=eta, inner_loop=inner_loop,
                         n_epochs=n_epochs, batch_size=batch_size, sampling=sampling,
                         output=output, fit_intercept=fit_intercept, record_every=record_every,
                         reference_objective=reference_objective, backend=backend,
                         random_state=random_state, verbose=verbose)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, eval_set=None):
        """Fit from w = 0; ``eval_set=(X_test, y_test)`` adds ``history_['test_mse']``."""
        X, y = self._validate(X, y, reset=True)
        return self._run(self._with_intercept(X), y.astype(np.float64), eval_set)

    @available_if(_BaseStochasticGradient._is_online)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y):
        """One SGD pass over the rows of (X, y) in the order given (``method='sgd'`` only),
        t and L continuing: as :meth:`StochasticGradientClassifier.partial_fit`."""
        first = not hasattr(self, "t_")
        X, y = self._validate(X, y, reset=first)
        return self._run(self._with_intercept(X), y.astype(np.float64), None,
                         partial="first" if first else "continue")

    def predict(self, X):
        return self._scores(X)

    def _eval_metric(self, scores, y):
        return float(np.mean((scores - y) ** 2))
