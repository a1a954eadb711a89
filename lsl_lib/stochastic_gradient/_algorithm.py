"""SGD, SVRG, SARAH and SARAH+: the numpy references, their compiled twins and the
functional core :func:`stochastic_gradient`.

The mathematics and the table of pairs are in the package's docstring
(:mod:`lsl_lib.stochastic_gradient`); the estimators are in ``_estimators.py``.
"""
import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils.extmath import row_norms

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.loss_derivatives import score_derivative_numba
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import row_axpy_numba, row_dot_numba, row_view
from lsl_lib._core.run_loop import run_chunks
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import check_batch_size
from lsl_lib.losses import Loss, get_loss, primal_objective

METHODS = ("sgd", "svrg", "sarah", "sarah+")
_SGD, _SVRG, _SARAH, _SARAH_PLUS = range(4)  # METHODS.index(method): codes in compiled loops
_OUTPUTS = ("last", "random")


_SMOOTH_LOSSES = ("log", "squared", "smoothed_hinge")


def get_smooth_loss(loss):
    """The :class:`~lsl_lib.losses.Loss` named ``loss``, one of :data:`_SMOOTH_LOSSES`."""
    if isinstance(loss, Loss) and loss.name in _SMOOTH_LOSSES:
        return loss
    if loss not in _SMOOTH_LOSSES:
        raise ValueError(f"loss must be one of {_SMOOTH_LOSSES}, got {loss!r}.")
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
    r"""SGD steps :math:`w \leftarrow w - \eta_t g_{A_t}(w)`, one per row of ``indices``
    (shape (T, k)) with the steps ``eta`` (shape (T,)); ``w`` is updated in place."""
    for A_t, eta_t in zip(indices, eta, strict=True):
        w -= eta_t * objective.batch_gradient(w, A_t)


def variance_reduced_numpy_chunk(objective, w, indices, method, eta, m, gamma, t_out, lengths):
    r"""Outer loops of SVRG, SARAH or SARAH+: the readable numpy reference.

    Parameters
    ----------
    objective : FiniteSumObjective
    w : ndarray of shape (d,)
        :math:`\tilde w`, replaced in place by the output of each outer loop.
    indices : ndarray of shape (T, k)
        Mini-batches, consumed in order (at most m - 1 per outer loop).
    method : {'svrg', 'sarah', 'sarah+'}
    eta : float
    m : int
        Inner-loop length: the iterates are :math:`w_0, \dots, w_m` (fewer if SARAH+ stops).
    gamma : float
        SARAH+'s threshold on :math:`\|v_{t-1}\|^2 / \|v_0\|^2`.
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
def _mean_gradient_numba(data, cols, indptr, y, w, rows, lam, loss_code, g):
    r"""Write :math:`\frac1k\sum_{i\in\mathrm{rows}}\ell'(y_i, \langle w, x_i\rangle)x_i
    + \lambda w` into ``g``; ``rows = arange(n)`` gives the full gradient.

    ``X`` comes as its row view ``(data, cols, indptr)``
    (:func:`lsl_lib._core.rows.row_view`), dense or CSR alike.
    """
    d = w.shape[0]
    for j in range(d):
        g[j] = 0.0
    for i in rows:
        c = score_derivative_numba(loss_code, y[i], row_dot_numba(data, cols, indptr, i, w), 0.0)
        row_axpy_numba(data, cols, indptr, i, c, g)
    k = rows.shape[0]
    for j in range(d):
        g[j] = g[j] / k + lam * w[j]


@jit
def _sgd_numba_chunk(data, cols, indptr, y, w, indices, eta, lam, loss_code):
    """The steps of :func:`sgd_numpy_chunk`, compiled."""
    g = np.empty(w.shape[0])
    for it in range(indices.shape[0]):
        _mean_gradient_numba(data, cols, indptr, y, w, indices[it], lam, loss_code, g)
        for j in range(w.shape[0]):
            w[j] -= eta[it] * g[j]


@jit
def _variance_reduced_numba_chunk(data, cols, indptr, y, w, indices, method, lam, loss_code, eta, m,
                                 gamma, t_out, lengths):
    """The outer loops of :func:`variance_reduced_numpy_chunk`, compiled (``method`` is
    _SVRG, _SARAH or _SARAH_PLUS); returns the rows of ``indices`` consumed."""
    d = w.shape[0]
    all_rows = np.arange(y.shape[0])
    mu, v, g_new, g_old = np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    w_tilde, w_prev, w_out = np.empty(d), np.empty(d), np.empty(d)
    pos = 0
    for s in range(t_out.shape[0]):
        _mean_gradient_numba(data, cols, indptr, y, w, all_rows, lam, loss_code, mu)  # v_0
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
            if method == _SARAH_PLUS:
                norm2 = 0.0
                for j in range(d):
                    norm2 += v[j] * v[j]
                if norm2 <= gamma * v0_norm2:
                    break
            _mean_gradient_numba(data, cols, indptr, y, w, indices[pos], lam, loss_code, g_new)
            if method == _SVRG:
                _mean_gradient_numba(data, cols, indptr, y, w_tilde, indices[pos], lam, loss_code,
                                     g_old)
                for j in range(d):
                    v[j] = g_new[j] - g_old[j] + mu[j]
            else:
                _mean_gradient_numba(data, cols, indptr, y, w_prev, indices[pos], lam, loss_code,
                                     g_old)
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
    r"""Where a run stands.

    Attributes
    ----------
    w : ndarray of shape (d,)
        The current point (:math:`\tilde w` between outer loops).
    t : int
        Updates of w so far (``iteration`` in the trace).
    epoch : int
        Outer loops done (for SGD: epochs of :math:`\lceil n/k\rceil` steps).
    n_gradients : int
        Gradients :math:`\nabla f_i` evaluated so far; ``/ n`` gives effective passes.
    inner_loop_lengths : list of int
        Index of the last iterate of each outer loop (m unless SARAH+ stopped early;
        :math:`\lceil n/k\rceil` per epoch for SGD).
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


def _sgd_step(objective, state, indices, steps, batch_size, steps_per_epoch, compiled):
    """SGD's ``step(start, stop)`` for :func:`~lsl_lib._core.run_loop.run_chunks`: the steps
    start .. stop - 1, of sizes ``steps``, on the mini-batches ``indices``; w is the whole
    state. ``compiled``: the arrays of X and y for ``_sgd_numba_chunk``, or None (numpy)."""

    def step(start, stop):
        if compiled is None:
            sgd_numpy_chunk(objective, state.w, indices[start:stop], steps[start:stop])
        else:
            _sgd_numba_chunk(*compiled, state.w, indices[start:stop], steps[start:stop],
                             objective.lam, objective.loss.code)
        state.t += stop - start
        state.n_gradients += (stop - start) * batch_size
        epochs_done = stop // steps_per_epoch - start // steps_per_epoch
        state.inner_loop_lengths.extend([steps_per_epoch] * epochs_done)
        state.epoch += epochs_done

    return step


def _variance_reduced_step(objective, state, indices, method, eta, m, gamma, t_out, batch_size,
                           compiled):
    """The ``step(start, stop)`` of SVRG, SARAH or SARAH+ for
    :func:`~lsl_lib._core.run_loop.run_chunks`: the outer loops start .. stop - 1, which
    consume the rows of ``indices`` in order. ``compiled``: the arrays of X and y for
    ``_variance_reduced_numba_chunk``, or None (numpy)."""
    n_samples, first_epoch = objective.n_samples, state.epoch
    pos = 0  # rows of `indices` consumed by the outer loops so far

    def step(start, stop):
        nonlocal pos
        lengths = np.zeros(stop - start, dtype=np.int64)
        if compiled is None:
            pos += variance_reduced_numpy_chunk(objective, state.w, indices[pos:], method, eta,
                                                m, gamma, t_out[start:stop], lengths)
        else:
            pos += _variance_reduced_numba_chunk(
                *compiled, state.w, indices[pos:], METHODS.index(method), objective.lam,
                objective.loss.code, eta, m, float(gamma), t_out[start:stop], lengths)
        state.t += int(lengths.sum())
        state.n_gradients += int(np.sum(n_samples + 2 * batch_size * (lengths - 1)))
        state.epoch = first_epoch + stop
        state.inner_loop_lengths.extend(int(length) for length in lengths)

    return step


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
    if output not in _OUTPUTS or (output == "random" and method not in ("svrg", "sarah")):
        raise ValueError(f"output must be one of {_OUTPUTS} ('random' only with method='svrg' "
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
    compiled = None  # the arrays of X and y the compiled loops read
    if path == "numba":
        compiled = (*row_view(X), np.ascontiguousarray(y, dtype=np.float64))
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
        t = np.arange(state.t + 1, state.t + n_rows + 1, dtype=np.float64)
        steps = 1.0 / (lam * t + L) if eta == "auto" else np.full(n_rows, float(eta))
        step = _sgd_step(objective, state, indices, steps, batch_size, steps_per_epoch, compiled)
        run_chunks(trace, n_rows, step,
                   record_every=None if record_every is None else record_every * steps_per_epoch,
                   record=record, norm=norm, diverged=diverged, verbose=verbose, desc="SGD",
                   unit="step")
    else:  # one unit an outer loop: it starts afresh from w~ with a full gradient
        eta = 1.0 / (2.0 * L) if eta == "auto" else float(eta)
        t_out = rng.integers(0, m + 1, size=n_epochs) if output == "random" \
            else np.full(n_epochs, m, dtype=np.int64)
        step = _variance_reduced_step(objective, state, indices, method, eta, m, gamma, t_out,
                                      batch_size, compiled)
        run_chunks(trace, n_epochs, step, record_every=record_every,
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
