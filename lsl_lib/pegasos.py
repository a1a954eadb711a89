r"""Pegasos: primal estimated sub-gradient solver for SVM, and its other losses.

Pegasos minimises the regularised empirical risk of :mod:`lsl_lib.losses`,

.. math::

    f(w) = \frac{\lambda}{2}\|w\|^2 + \frac{1}{n}\sum_{i=1}^n \ell(y_i, \langle w, x_i\rangle),

by stochastic subgradient steps with step size :math:`\eta_t = 1/(\lambda t)`. At
iteration :math:`t` it draws a mini-batch :math:`A_t` of :math:`k` examples and sets

.. math::

    w_{t+\frac12} = (1 - \eta_t\lambda)\, w_t
        - \frac{\eta_t}{k}\sum_{i\in A_t} \partial_s\ell(y_i, \langle w_t, x_i\rangle)\, x_i,
    \qquad
    w_{t+1} = \min\Bigl(1, \frac{1/\sqrt{\lambda}}{\|w_{t+\frac12}\|}\Bigr) w_{t+\frac12}.

For the hinge loss the sum runs over the margin violators
:math:`A_t^+ = \{i \in A_t : y_i\langle w_t, x_i\rangle < 1\}` and adds
:math:`\frac{\eta_t}{k} y_i x_i`. The subgradient is evaluated at :math:`w_t`; the
shrink :math:`1 - \eta_t\lambda` is applied first. At :math:`t = 1` it is exactly
0, so :math:`w_2` is the first mini-batch's step alone: shrinking after the step
would throw that step away. The projection onto the ball of radius
:math:`1/\sqrt{\lambda}` (which contains the optimum of the hinge problem) is
optional. Multiclass losses use a weight matrix :math:`W \in \mathbb{R}^{K\times d}`
and the Frobenius norm; it is one problem, not K one-vs-rest problems.

With sample weights :math:`s_i \ge 0` the risk is the weighted mean
:math:`\frac{1}{\sum_i s_i}\sum_i s_i\,\ell(y_i, \langle w, x_i\rangle)`, the risk of the
data in which row i is repeated :math:`s_i` times; :func:`weighted_sample_indices`
draws the examples in proportion to :math:`s_i` (integer weights: exactly as the
scheme draws the repeated data), so the subgradient of a step stays an unbiased
estimate and the iterations themselves do not change.

Two paths run the iterations on the same index array (:mod:`lsl_lib._core.sampling`):
:func:`pegasos_numpy_chunk`, the readable reference, and :func:`pegasos_numba_chunk`,
the compiled loop, which stores :math:`w = a\,v` so that the shrink costs O(1) and a
step costs O(nnz(x_i)), as in Shalev-Shwartz et al. (2011, Section 4) and
scikit-learn's ``SGDClassifier``.

References
----------
Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
solver for SVM. Mathematical Programming 127(1), 3-30, 2011.

Rakhlin, Shamir, Sridharan. Making gradient descent optimal for strongly convex
stochastic optimization. ICML 2012 (suffix averaging).
"""
import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import softmax
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import _check_partial_fit_first_call
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import compiled_arrays, jit, resolve_backend
from lsl_lib._core.random import check_random_state
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.scores import labels_from_scores, one_vs_rest_probabilities
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import (ITERATIVE_CONSTRAINTS, add_intercept_column,
                                      check_batch_size, check_n_classes, check_sample_weight,
                                      clipped_batch_size, signed_binary_labels)
from lsl_lib._core.loss_derivatives import score_subgradient_numba
from lsl_lib.losses import get_loss, primal_objective

AVERAGING = ("none", "uniform", "suffix")

#: Largest expanded data (sum of integer weights) that 'permutation' and 'reshuffle'
#: permute: 2**27 positions are 1 GiB of int64.
MAX_EXPANDED_PERMUTATION = 2**27

#: The default run's cap on the examples kT (``n_iter=None``): 30/lam for tiny lam would
#: draw 3e13 indices at lam=1e-12.
MAX_DEFAULT_EXAMPLES = 10**7


def weighted_sample_indices(sample_weight, n_iter, batch_size, sampling, rng):
    r"""Mini-batches drawn in proportion to the sample weights.

    Row i stands for :math:`s_i` copies of itself. With integer weights the scheme
    (:func:`lsl_lib._core.sampling.sample_indices`) runs on the expanded data of
    :math:`N = \sum_i s_i` rows, row i holding positions
    :math:`[S_{i-1}, S_i)` of it (:math:`S` the cumulative sums), and each drawn
    position is mapped back to its row. The result is exactly the index sequence of
    the same scheme, with the same generator, on ``np.repeat(X, s, axis=0)``: integer
    weights are repeated rows and zero weights are dropped rows, iterate for iterate.
    Non-integer weights have no expanded data; their draws are i.i.d. with
    :math:`P(i) = s_i/\sum_j s_j` (a uniform position in :math:`[0, S_n)`), so only
    ``sampling='iid'`` is defined for them.

    Parameters
    ----------
    sample_weight : ndarray of shape (n,)
        Non-negative weights, not all zero.
    n_iter, batch_size, sampling, rng
        As :func:`lsl_lib._core.sampling.sample_indices` takes them.

    Returns
    -------
    indices : ndarray of shape (n_iter, batch_size), dtype int64
    """
    cumulative = np.cumsum(sample_weight)
    if np.array_equal(sample_weight, np.round(sample_weight)):
        if sampling != "iid" and cumulative[-1] > MAX_EXPANDED_PERMUTATION:
            raise ValueError(
                f"sampling={sampling!r} permutes the {cumulative[-1]:.0f} rows of the expanded "
                f"data (the sum of the integer sample weights), more than "
                f"{MAX_EXPANDED_PERMUTATION}; scale the weights down or use sampling='iid'.")
        positions = sample_indices(int(cumulative[-1]), n_iter, batch_size, sampling, rng)
    elif sampling == "iid":
        positions = cumulative[-1] * rng.random((n_iter, batch_size))
    else:
        raise ValueError(
            f"sampling={sampling!r} needs integer sample weights (a permutation of the rows "
            "repeated s_i times); use sampling='iid' with non-integer sample_weight or "
            "class_weight.")
    return np.searchsorted(cumulative, positions, side="right").astype(np.int64)


def weighted_objective(W, X, y, lam, loss, sample_weight=None):
    r""":math:`\frac{\lambda}{2}\|W\|_F^2 + \frac{1}{\sum_i s_i}\sum_i s_i \ell(y_i, W x_i)`;
    :func:`lsl_lib.losses.primal_objective` when ``sample_weight`` is None."""
    if sample_weight is None:
        return primal_objective(W, X, y, lam, loss)
    s = np.asarray(X @ W.T)
    values = loss.value(y, s if loss.task == "multiclass" else s[:, 0])
    return 0.5 * lam * float(np.vdot(W, W)) + float(np.average(values, weights=sample_weight))


class PegasosState:
    """Where a Pegasos run stands: the iterate, the running sum for averaging, t.

    Attributes
    ----------
    W : ndarray of shape (K, d)
        The last iterate :math:`w_{t+1}`.
    W_sum : ndarray of shape (K, d)
        Sum of the iterates averaged so far; ``n_averaged`` of them.
    t : int
        Iterations done; the next one is t + 1, with step 1/(lam (t+1)).
    v, U, carry : ndarray
        The compiled loop's own form of the iterate and the sum, :math:`w = a v` and
        :math:`\\sum w = U + A v`, with ``carry = [a, ||v||^2, A, m, live]``
        (:func:`pegasos_numba_chunk`): carried from one chunk to the next, so that the
        iterates do not depend on where the chunks end. Setting ``W`` starts them anew.
    """

    def __init__(self, n_outputs, n_features):
        self.W_sum = np.zeros((n_outputs, n_features))
        self.v = np.zeros((n_outputs, n_features))
        self.U = np.zeros((n_outputs, n_features))
        self.carry = np.zeros(5)
        self.W = np.zeros((n_outputs, n_features))
        self.n_averaged = 0
        self.t = 0

    @property
    def W(self):
        return self._W

    @W.setter
    def W(self, value):
        self._W = value
        self.carry[4] = 0.0  # the compiled loop reads w (and the sum) afresh

    @property
    def coef(self):
        """The output iterate: the average when one is kept, else the last."""
        return self.W_sum / self.n_averaged if self.n_averaged else self.W


def pegasos_numpy_chunk(X, y, W, W_sum, indices, t0, lam, loss, radius2, average_from,
                        step_offset=0.0):
    """Run iterations t0+1, ..., t0+T of Pegasos: the readable numpy reference.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y : ndarray of shape (n,)
        Labels in {-1, +1}, targets, or class indices (as floats).
    W : ndarray of shape (K, d)
        The iterate :math:`w_{t_0+1}`, updated in place.
    W_sum : ndarray of shape (K, d)
        Running sum of averaged iterates, updated in place.
    indices : ndarray of shape (T, k)
        The mini-batches :math:`A_t`.
    t0 : int
        Iterations already done.
    lam : float
    loss : lsl_lib.losses.Loss
    radius2 : float
        Squared radius of the projection ball (:func:`projection_radius2`); ``inf``
        for no projection.
    average_from : int
        Iterates :math:`w_{t+1}` with :math:`t \\ge` ``average_from`` are added to ``W_sum``.
    step_offset : float, default=0
        :math:`t_0` in :math:`\\eta_t = 1/(\\lambda (t + t_0))`; 0 is Pegasos.

    Returns
    -------
    n_averaged : int
        How many iterates were added to ``W_sum``.
    """
    k = indices.shape[1]
    n_averaged = 0
    for t, A_t in enumerate(indices, start=t0 + 1):
        eta_t = 1.0 / (lam * (t + step_offset))
        s = np.asarray(X[A_t] @ W.T)  # scores at w_t, shape (k, K)
        if loss.task == "multiclass":
            G = loss.subgradient(y[A_t], s)
        else:
            G = loss.subgradient(y[A_t], s[:, 0])[:, None]
        W *= 1.0 - eta_t * lam  # shrink first: 0 at t = 1 ...
        W -= (eta_t / k) * np.asarray(X[A_t].T @ G).T  # ... then the subgradient step
        norm2 = np.vdot(W, W)
        if norm2 > radius2:
            W *= np.sqrt(radius2 / norm2)
        if t >= average_from:
            W_sum += W
            n_averaged += 1
    return n_averaged


@jit
def pegasos_numba_chunk(data, cols, indptr, y, W, W_sum, v, U, carry, indices, t0, lam, code,
                        epsilon, radius2, average_from, step_offset):
    """The same iterations as :func:`pegasos_numpy_chunk`, compiled.

    ``X`` comes as CSR arrays ``(data, cols, indptr)``; a dense C-ordered X comes as
    ``data = X.ravel()`` with empty ``cols`` and ``indptr``, row i being
    ``data[i*d:(i+1)*d]``. The iterate is kept as :math:`w = a v`: the shrink
    multiplies the scalar ``a``, a step adds to ``v`` only where ``x_i`` is non-zero,
    and :math:`\\|v\\|^2` is updated along, so one iteration costs O(k nnz(x) K).
    The average is kept lazily as :math:`\\sum w = A v + U`:
    changing v by :math:`\\delta` subtracts :math:`A\\delta` from U; when early
    projections have shrunk ``a`` so much that :math:`A v` and U would cancel, A v
    is folded into U. ``v``, ``U`` and ``carry = [a, ||v||^2, A, m, live]`` go on from
    one chunk to the next (read from ``W`` and ``W_sum`` when ``live`` is 0); ``W`` and
    ``W_sum`` are written at the end, :math:`a v` and :math:`U + A v`.
    """
    T, k = indices.shape
    K, d = W.shape
    dense = indptr.shape[0] == 0
    if carry[4] == 0.0:
        a = 1.0
        v_norm2 = 0.0
        for r in range(K):
            for j in range(d):
                v[r, j] = W[r, j]
                U[r, j] = W_sum[r, j]
                v_norm2 += v[r, j] * v[r, j]
        A = 0.0  # sum of the scales a of the averaged iterates since the last fold ...
        m = 0  # ... and their number
    else:
        a, v_norm2, A, m = carry[0], carry[1], carry[2], int(carry[3])
    s = np.empty(K)
    g = np.empty(K)
    G = np.empty((k, K))
    n_averaged = 0
    for it in range(T):
        t = t0 + it + 1
        eta_t = 1.0 / (lam * (t + step_offset))
        # subgradients at w_t
        for b in range(k):
            i = indices[it, b]
            for r in range(K):
                acc = 0.0
                if dense:  # contiguous row: no index array, so the loop vectorises
                    for j in range(d):
                        acc += data[i * d + j] * v[r, j]
                else:
                    for p in range(indptr[i], indptr[i + 1]):
                        acc += data[p] * v[r, cols[p]]
                s[r] = a * acc
            score_subgradient_numba(code, y[i], s, epsilon, g)
            for r in range(K):
                G[b, r] = g[r]
        # shrink first
        shrink = 1.0 - eta_t * lam
        if shrink <= 0.0:  # t = 1 (and t_0 = 0): w becomes 0 exactly; fold A v into U first
            for r in range(K):
                for j in range(d):
                    U[r, j] += A * v[r, j]
                    v[r, j] = 0.0
            a, A, m, v_norm2 = 1.0, 0.0, 0, 0.0
        else:
            a *= shrink
        # then the subgradient step, in v's scale
        for b in range(k):
            i = indices[it, b]
            start = i * d if dense else indptr[i]
            stop = start + d if dense else indptr[i + 1]
            for r in range(K):
                c = -(eta_t / k) * G[b, r] / a
                if c == 0.0:
                    continue
                for p in range(start, stop):
                    j = p - start if dense else cols[p]
                    delta = c * data[p]
                    old = v[r, j]
                    v[r, j] = old + delta
                    v_norm2 += delta * (2.0 * old + delta)
                    U[r, j] -= A * delta
        if a * a * v_norm2 > radius2:
            a *= np.sqrt(radius2 / (a * a * v_norm2))
        if a < 1e-9:  # fold the scale back into v before it underflows
            v_norm2 = 0.0
            for r in range(K):
                for j in range(d):
                    v[r, j] *= a
                    v_norm2 += v[r, j] * v[r, j]
            A /= a
            a = 1.0
        if t >= average_from:
            A += a
            m += 1
            n_averaged += 1
            if A > 64.0 * a * m:  # A v would cancel against U: fold it in (rare, O(Kd))
                for r in range(K):
                    for j in range(d):
                        U[r, j] += A * v[r, j]
                A, m = 0.0, 0
    for r in range(K):
        for j in range(d):
            W[r, j] = a * v[r, j]
            W_sum[r, j] = U[r, j] + A * v[r, j]
    carry[0], carry[1], carry[2], carry[3], carry[4] = a, v_norm2, A, m, 1.0
    return n_averaged


def projection_radius2(y, lam, loss, n_outputs=1, sample_weight=None):
    r"""Squared radius of a ball that contains the minimiser :math:`w^*` of f.

    For the hinge loss it is :math:`1/\lambda` (Shalev-Shwartz et al. 2011,
    Theorem 1, by strong duality; the argument holds for a weighted mean of hinges).
    For any other loss, :math:`\frac{\lambda}{2}\|w^*\|^2 \le f(w^*) \le f(0)` gives
    :math:`2 f(0)/\lambda`, f(0) being the (weighted) mean loss at w = 0.
    """
    if loss.name == "hinge":
        return 1.0 / lam
    zero_scores = np.zeros((len(y), n_outputs)) if loss.task == "multiclass" else np.zeros(len(y))
    return 2.0 * float(np.average(loss.value(y, zero_scores), weights=sample_weight)) / lam


def auto_step_offset(X, lam, loss, sample_weight=None):
    r"""The offset :math:`t_0 = L/\lambda`, with :math:`L = c \max_i \|x_i\|^2` the
    smoothness of the loss in w (``c = loss.curvature``); 0 for a non-smooth loss.
    The maximum runs over the rows that can be drawn (non-zero weight).

    Then :math:`\eta_1 = 1/(\lambda + L) < 1/L`: without it, the first Pegasos steps
    :math:`1/(\lambda t)` of a smooth loss with small :math:`\lambda` overshoot
    wildly, as the lecture shows.
    """
    if not loss.smooth:
        return 0.0
    row_norms2 = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) \
        else np.einsum("ij,ij->i", X, X)
    if sample_weight is not None:
        row_norms2 = row_norms2[sample_weight > 0]
    return float(loss.curvature * row_norms2.max() / lam)


def pegasos(X, y, lam, n_iter, *, n_outputs=1, loss="hinge", epsilon=0.1, batch_size=1,
            sampling="iid", projection=False, averaging="none", suffix_fraction=0.5,
            step_offset=0, sample_weight=None, record_every=None, reference_objective=None,
            monitor=None, backend="auto", random_state=None, state=None, verbose=False):
    r"""Run Pegasos for ``n_iter`` iterations on prepared arrays.

    This is the functional core of :class:`PegasosClassifier` and
    :class:`PegasosRegressor`: no label mapping, no intercept column, no input
    checks beyond the algorithm's own. Use the estimators on raw data.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y : ndarray of shape (n,)
        Labels in {-1, +1}, real targets, or class indices 0..K-1, as ``loss`` expects.
    lam : float
        Regularisation :math:`\lambda > 0`.
    n_iter : int
        Number of iterations T.
    n_outputs : int, default=1
        K, the number of score rows (the number of classes for a multiclass loss).
    loss : str or Loss, default='hinge'
    epsilon : float, default=0.1
        Width of the insensitive zone of ``'epsilon_insensitive'``.
    batch_size : int, default=1
        Mini-batch size k.
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
    projection : bool, default=False
        Project onto a ball that contains :math:`w^*` after each step: radius
        :math:`1/\sqrt{\lambda}` for the hinge, :math:`\sqrt{2f(0)/\lambda}` otherwise
        (:func:`projection_radius2`).
    averaging : {'none', 'uniform', 'suffix'}, default='none'
        Return the last iterate, the average of all iterates, or the average of the
        last ``suffix_fraction`` of this run's iterates.
    suffix_fraction : float in (0, 1], default=0.5
    step_offset : float or 'auto', default=0
        :math:`t_0` in :math:`\eta_t = 1/(\lambda(t + t_0))`. 0 is Pegasos; ``'auto'``
        is :math:`L/\lambda` for a smooth loss (:func:`auto_step_offset`), so that no
        step is longer than :math:`1/L`.
    sample_weight : ndarray of shape (n,) or None, default=None
        Non-negative weights :math:`s_i`, not all zero: f takes the weighted mean of the
        losses and the examples are drawn in proportion to :math:`s_i`
        (:func:`weighted_sample_indices`). None: every weight 1.
    record_every : int or None, default=None
        Record the trace every that many iterations (and at the start and the end).
    reference_objective : float or None, default=None
        :math:`f(w^*)`; when given, the trace has a ``'suboptimality'`` column.
    monitor : callable or None, default=None
        ``monitor(coef) -> dict`` of extra columns evaluated at each record point.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
    state : PegasosState or None, default=None
        Continue from this state (t goes on); a new one starts at w = 0.
    verbose : bool, default=False
        A progress bar for runs longer than a few seconds.

    Returns
    -------
    state : PegasosState
        ``state.coef`` is the solution.
    history : dict of ndarray
        Columns ``iteration``, ``epoch``, ``seconds``, ``objective`` (of
        ``state.coef``) and the optional ones; empty when ``record_every`` is None.

    Raises
    ------
    ValueError
        When the weights' norm overflows or grows by
        :data:`~lsl_lib._core.run_loop.DIVERGENCE_GROWTH` over its first value.
    KeyboardInterrupt
        On Ctrl-C, within a chunk's length (:func:`~lsl_lib._core.run_loop.run_chunks`);
        ``state`` is then that of the last whole chunk.
    """
    loss = get_loss(loss, epsilon)
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam}.")
    if not n_iter >= 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}.")
    if averaging not in AVERAGING:
        raise ValueError(f"averaging must be one of {AVERAGING}, got {averaging!r}.")
    path = resolve_backend(backend)
    n_samples, n_features = X.shape
    check_batch_size(batch_size, n_samples)
    rng = check_random_state(random_state)
    if sample_weight is None:
        indices = sample_indices(n_samples, n_iter, batch_size, sampling, rng)
    else:
        indices = weighted_sample_indices(sample_weight, n_iter, batch_size, sampling, rng)
    if state is None:
        state = PegasosState(n_outputs, n_features)
    t_start = state.t
    if averaging == "none":
        average_from = np.iinfo(np.int64).max
    elif averaging == "uniform":
        average_from = 1
    else:
        average_from = t_start + n_iter - max(1, int(round(suffix_fraction * n_iter))) + 1
    radius2 = projection_radius2(y, lam, loss, n_outputs, sample_weight) if projection else np.inf
    if step_offset == "auto":
        step_offset = auto_step_offset(X, lam, loss, sample_weight)
    if path == "numba":
        data, cols, indptr = compiled_arrays(X)
        y_float = np.ascontiguousarray(y, dtype=np.float64)

    trace = Trace()

    def record():
        coef = state.coef
        row = dict(iteration=state.t - t_start, epoch=(state.t - t_start) * batch_size / n_samples,
                   seconds=trace.seconds,
                   objective=weighted_objective(coef, X, y, lam, loss, sample_weight))
        if reference_objective is not None:
            row["suboptimality"] = row["objective"] - reference_objective
        if monitor is not None:
            row.update(monitor(coef))
        trace.record(**row)

    def step(start, stop):
        if path == "numba":
            n_avg = pegasos_numba_chunk(data, cols, indptr, y_float, state.W, state.W_sum,
                                        state.v, state.U, state.carry,
                                        indices[start:stop], state.t, float(lam), loss.code,
                                        float(getattr(loss, "epsilon", 0.0)), radius2,
                                        average_from, float(step_offset))
        else:
            n_avg = pegasos_numpy_chunk(X, y, state.W, state.W_sum, indices[start:stop], state.t,
                                        lam, loss, radius2, average_from, step_offset)
            state.carry[4] = 0.0  # W changed in place: a compiled chunk reads it afresh
        state.n_averaged += n_avg
        state.t += stop - start

    def diverged(done):
        return (f"Pegasos diverged: the weights' norm overflowed or grew by orders of magnitude "
                f"by iteration {t_start + done}. Early steps 1/(lam t) are too long for "
                f"loss={loss.name!r} on these features; use a larger lam, step_offset='auto', "
                "projection=True, or standardised features.")

    run_chunks(trace, n_iter, step, record_every=record_every, record=record,
               norm=lambda: math.sqrt(np.einsum("ij,ij->", state.W, state.W)), diverged=diverged,
               verbose=verbose, desc="Pegasos")
    return state, trace.history()


def reference_solution(X, y, lam, loss, n_outputs=1, epsilon=0.1, tol=1e-8, sample_weight=None):
    r"""A tight minimiser of :math:`f`, to measure Pegasos' suboptimality against.

    Non-smooth losses use liblinear through scikit-learn with
    :math:`C = 1/(\lambda n)` (dividing f by :math:`\lambda` gives liblinear's
    :math:`\frac12\|w\|^2 + C\sum_i \ell_i`; with weights,
    :math:`C = 1/(\lambda\sum_i s_i)` and liblinear's own ``sample_weight``):
    ``LinearSVC`` for the hinge and the Crammer-Singer hinge, ``LinearSVR`` for the
    epsilon-insensitive loss. Smooth losses minimise f itself by L-BFGS.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
    y : ndarray of shape (n,)
        As :func:`pegasos` takes it: -1/+1, targets, or class indices.
    lam : float
    loss : str or Loss
    n_outputs : int, default=1
        K (the number of classes for a multiclass loss; all must occur in y).
    epsilon : float, default=0.1
        For ``'epsilon_insensitive'``.
    tol : float, default=1e-8
        liblinear's tolerance, and L-BFGS's on the gradient.
    sample_weight : ndarray of shape (n,) or None, default=None
        Weights of the weighted mean in f (as :func:`pegasos` takes them).

    Returns
    -------
    W : ndarray of shape (K, d)
    """
    from sklearn.svm import LinearSVC, LinearSVR

    loss = get_loss(loss, epsilon)
    n_samples, n_features = X.shape
    if sp.issparse(X) and X.indices.dtype != np.int32 and X.nnz < np.iinfo(np.int32).max:
        # liblinear takes 32-bit indices only; load_svmlight_file returns 64-bit ones
        X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                          shape=X.shape)
    weights = np.ones(n_samples) if sample_weight is None else np.asarray(sample_weight, float)
    C = 1.0 / (lam * weights.sum())
    liblinear = dict(C=C, fit_intercept=False, tol=tol, max_iter=100_000, dual=True,
                     random_state=0)  # liblinear's coordinate order: reproducible f*
    if loss.name == "hinge":
        return LinearSVC(loss="hinge", **liblinear).fit(X, y, sample_weight).coef_.copy()
    if loss.name == "multiclass_hinge":
        model = LinearSVC(multi_class="crammer_singer", **liblinear).fit(X, y.astype(np.intp),
                                                                        sample_weight)
        if n_outputs == 2:  # scikit-learn returns w_1 - w_0; the minimum-norm W is +-half of it
            return np.vstack([-model.coef_, model.coef_]) / 2
        return model.coef_.copy()
    if loss.name == "epsilon_insensitive":
        model = LinearSVR(loss="epsilon_insensitive", epsilon=loss.epsilon, **liblinear)
        return model.fit(X, y, sample_weight).coef_[None, :].copy()

    def f_and_grad(w):
        W = w.reshape(n_outputs, n_features)
        s = np.asarray(X @ W.T)
        if loss.task == "multiclass":
            value, G = loss.value(y, s), loss.subgradient(y, s)
        else:
            value, G = loss.value(y, s[:, 0]), loss.subgradient(y, s[:, 0])[:, None]
        grad = lam * W + np.asarray(X.T @ (weights[:, None] * G)).T / weights.sum()
        return 0.5 * lam * np.vdot(W, W) + np.average(value, weights=weights), grad.ravel()

    result = minimize(f_and_grad, np.zeros(n_outputs * n_features), jac=True, method="L-BFGS-B",
                      options=dict(maxiter=10_000, ftol=1e-15, gtol=tol))
    return result.x.reshape(n_outputs, n_features)


def encode_labels(y, classes, loss):
    """Labels as ``loss`` reads them: -1/+1 for 'hinge' and 'log', else class indices
    0..K-1 as floats."""
    if loss in ("hinge", "log"):
        return signed_binary_labels(y, classes)
    return np.searchsorted(classes, y).astype(np.float64)


class _BasePegasos(BaseEstimator):
    """Parameters, validation and the fitting loop shared by both estimators."""

    _parameter_constraints = {
        "lam": [Interval(Real, 0, None, closed="neither")],
        "n_iter": [Interval(Integral, 1, None, closed="left"), None],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "projection": ["boolean"],
        "averaging": [StrOptions(set(AVERAGING))],
        "suffix_fraction": [Interval(Real, 0, 1, closed="right")],
        "step_offset": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "fit_intercept": ["boolean"],
        "reference_objective": [Real, StrOptions({"auto"}), None],
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
    }

    def _validate(self, X, y, reset):
        """Validated float X and y; errors name the input."""
        return validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32],
                             order="C", y_numeric=isinstance(self, RegressorMixin), reset=reset)

    def _prepare(self, X, y, reset):
        """Validated float X (plus the intercept column) and y."""
        X, y = self._validate(X, y, reset)
        return self._with_intercept(X), y

    def _with_intercept(self, X):
        return add_intercept_column(X) if self.fit_intercept else X

    def _n_iter(self, n_samples):
        """``n_iter``, or by default :math:`kT = \\max(5n, \\min(30/\\lambda, 10^7))` examples
        (see Notes), in mini-batches of k = :meth:`_batch_size`."""
        if self.n_iter is not None:
            return self.n_iter
        examples = max(5 * n_samples, min(math.ceil(30.0 / self.lam), MAX_DEFAULT_EXAMPLES))
        return -(-examples // self._batch_size(n_samples))

    def _batch_size(self, n_samples):
        """k = ``batch_size``, clipped to the n rows at hand."""
        return clipped_batch_size(self.batch_size, n_samples)

    def _sample_weight(self, X, sample_weight, y=None, class_weight=None):
        """Validated weights (``class_weight`` folded in), or None when all are 1."""
        if sample_weight is None and class_weight is None:
            return None
        sample_weight = check_sample_weight(sample_weight, X)
        if class_weight is not None:
            sample_weight = sample_weight * compute_sample_weight(class_weight, y)
        return sample_weight

    def _run(self, X, y, n_iter, n_outputs, eval_set, continuing, sample_weight=None):
        """Run the solver on prepared arrays and store the fitted attributes.

        A ``KeyboardInterrupt`` of a continued run (``partial_fit``) leaves the model of the
        last whole chunk; ``fit`` is left unfitted (:func:`unfitted_on_interrupt`).
        """
        if not continuing:
            self._state = PegasosState(n_outputs, X.shape[1])
            self._rng = check_random_state(self.random_state)
        loss = get_loss(self.loss, getattr(self, "epsilon", 0.1))
        reference = self.reference_objective
        if reference == "auto":
            reference = weighted_objective(
                reference_solution(X, y, self.lam, loss, n_outputs, sample_weight=sample_weight),
                X, y, self.lam, loss, sample_weight)
        monitor = None
        if eval_set is not None:  # validated once here, then scored directly at each record
            X_eval, y_eval = eval_set
            X_eval = self._prepare(X_eval, y_eval, reset=False)[0]
            y_eval = np.asarray(y_eval)

            def monitor(coef):
                return {self._eval_name: self._eval_metric(np.asarray(X_eval @ coef.T), y_eval)}

        try:
            self._state, history = pegasos(
                X, y, self.lam, n_iter, n_outputs=n_outputs, loss=loss,
                batch_size=self._batch_size(X.shape[0]), sampling=self.sampling,
                projection=self.projection, averaging=self.averaging,
                suffix_fraction=self.suffix_fraction, step_offset=self.step_offset,
                sample_weight=sample_weight, record_every=self.record_every,
                reference_objective=reference, monitor=monitor, backend=self.backend,
                random_state=self._rng, state=self._state, verbose=self.verbose)
        except KeyboardInterrupt:
            self._set_coef(self._state.coef)
            self.t_ = self._state.t
            raise
        self._set_coef(self._state.coef)
        self.t_ = self._state.t
        self.n_iter_ = n_iter
        if continuing and history and self.history_:
            history = {k: np.concatenate([self.history_[k], v]) for k, v in history.items()}
        self.history_ = history
        return self

    def _set_coef(self, W):
        if self.fit_intercept:
            self.coef_, self.intercept_ = W[:, :-1].copy(), W[:, -1].copy()
        else:
            self.coef_, self.intercept_ = W.copy(), np.zeros(W.shape[0])

    def _scores(self, X):
        """Validated X's scores :math:`XW^\\top + b`, shape (n, K)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class PegasosClassifier(ScoreClassifierMixin, _BasePegasos):
    r"""Linear classifier trained by Pegasos (stochastic subgradient, step 1/(λt)).

    Minimises :math:`\frac{\lambda}{2}\|W\|^2 + \frac1n\sum_i \ell(y_i, W x_i)`
    by the iterations of :mod:`lsl_lib.pegasos`. Labels of any type; binary losses
    map them to -1/+1 internally and learn more than two classes one-vs-rest (one binary
    model per class, as ``LinearSVC``; :class:`~lsl_lib._core.classifier.ScoreClassifierMixin`),
    multiclass losses learn one row of weights per class jointly.

    Parameters
    ----------
    lam : float, default=1e-4
        Regularisation :math:`\lambda > 0`; :math:`C = 1/(\lambda n)` in liblinear's scaling.
    n_iter : int or None, default=None
        Number of iterations T. ``None``: enough for :math:`\lambda k T \ge 30` and at
        least five epochs, :math:`T = \lceil \max(5n, \min(30/\lambda, 10^7))/k \rceil`
        (see Notes).
    batch_size : int, default=1
        Mini-batch size k; clipped to n when the data (or a ``partial_fit`` chunk) have
        fewer rows.
    loss : {'hinge', 'log', 'multiclass_hinge', 'softmax'}, default='hinge'
        ``'hinge'``: the SVM; ``'log'``: logistic regression; ``'multiclass_hinge'``:
        Crammer-Singer multiclass SVM; ``'softmax'``: multinomial logistic regression.
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
        How mini-batches are drawn (see :mod:`lsl_lib._core.sampling`).
    projection : bool, default=False
        Project onto the ball of radius :math:`1/\sqrt{\lambda}` (hinge) or
        :math:`\sqrt{2f(0)/\lambda}` (other losses) after each step.
    averaging : {'none', 'uniform', 'suffix'}, default='suffix'
        Output the last iterate (``'none'``, the paper's Algorithm 1), the average of
        all iterates, or of the last ``suffix_fraction`` of them (see Notes).
    suffix_fraction : float in (0, 1], default=0.5
    step_offset : float or 'auto', default=0
        :math:`t_0` in the step :math:`\eta_t = 1/(\lambda(t + t_0))`. 0 is Pegasos;
        ``'auto'`` sets :math:`t_0 = L/\lambda` for the smooth losses (log, softmax),
        so no step is longer than 1/L (:func:`auto_step_offset`).
    fit_intercept : bool, default=True
        Learn an intercept as the weight of an extra constant feature equal to 1.
        Like liblinear's, this intercept is regularised; ``False`` is the problem of
        the Pegasos paper.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies each example's weight by the weight of its class: ``{label: w}``,
        or ``'balanced'``, :math:`n / (K n_c)` (``sklearn.utils.class_weight``). Same
        as passing the product as ``sample_weight`` to :meth:`fit`.
    record_every : int or None, default=None
        Record ``history_`` every that many iterations; ``None`` records nothing
        and costs nothing.
    reference_objective : float, 'auto' or None, default=None
        :math:`f(w^*)` for the ``'suboptimality'`` column of ``history_``; ``'auto'``
        computes it with :func:`reference_solution` (liblinear for the hinge losses,
        L-BFGS for the smooth ones) on the training data.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numba'``: the compiled loop; ``'numpy'``: the readable reference; ``'auto'``:
        numba when importable (and ``LSL_NUMBA`` is not 0).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the sampling; the same seed gives the same iterates on both backends.
    verbose : bool, default=False
        Show a progress bar when a fit takes more than a few seconds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    estimators_ : list of PegasosClassifier
        One-vs-rest (a binary loss and more than two classes): the binary model of each
        class of ``classes_``, fitted on ``y == class``; ``coef_`` stacks theirs and each
        ``history_`` column has one row per class.
    t_ : int
        Iterations done in total (``partial_fit`` continues from it).
    n_iter_ : int
        Iterations of the last call.
    history_ : dict of ndarray
        The trace: ``iteration``, ``epoch``, ``seconds``, ``objective`` (primal f of
        the output iterate, intercept column included), and ``suboptimality``,
        ``test_error`` when asked for.
    n_features_in_ : int

    See Also
    --------
    sklearn.linear_model.SGDClassifier : SGD with ``learning_rate='optimal'``, the
        same step 1/(alpha (t + t0)) with an offset.
    sklearn.svm.LinearSVC : dual coordinate descent on the same hinge problem.

    Notes
    -----
    The defaults are chosen so that a user who sets nothing gets a good model.

    *Averaging.* The paper's analysis bounds the *average* iterate
    (Shalev-Shwartz et al. 2011, Theorem 1, :math:`O(\log T/(\lambda T))`); its
    experiments output the last one, which keeps jumping: a step
    :math:`\eta_t = 1/(\lambda t)` on a violator moves w by :math:`\|x\|/(\lambda t)`.
    The uniform average drags the long early steps along. Averaging the last half
    (Rakhlin, Shamir and Sridharan 2012) attains the optimal :math:`O(1/(\lambda T))`
    rate and costs nothing, hence ``averaging='suffix'``.

    *Length.* Those rates are in :math:`\lambda T`, not in epochs: after five epochs of
    3 000 rows of a9a with ``lam=1e-4`` (:math:`\lambda T = 1.5`) even the suffix
    average has 3 times the optimal objective. Its ratio :math:`f(\bar w)/f^*` is 1.17,
    1.04 and 1.01 at :math:`\lambda T` = 10, 30 and 100 (1.36, 1.06, 1.01 on a
    30-feature Gaussian problem), so the default runs :math:`\lambda k T \ge 30`
    (k examples per step), and at least five epochs: 0.1 s for the compiled loop at
    the default ``lam``.

    On a9a (123 features, LIBSVM's Adult), ``lam=1e-4``, test accuracy against
    scikit-learn's ``LinearSVC()`` (C = 1; two seeds per subset):

    =====================  ===========  =========  ===========  ===========
    5 epochs of            last iter.   uniform    suffix       LinearSVC
    =====================  ===========  =========  ===========  ===========
    3 000 rows (3 sets)    62-82 %      83-84 %    83.9-84.3 %  84.2-84.4 %
    32 561 rows (all)      83.6 %       84.6 %     85.0 %       84.9 %
    =====================  ===========  =========  ===========  ===========

    With the default length, the suffix average on the first subset reaches 84.4 %
    (LinearSVC 84.4 %) and 1.04 f*. ``lam`` between 1e-5 and 1e-4 changes the
    accuracy by less than 0.1 point; ``lam=1e-4`` is :math:`C = 1/(\lambda n)` = 1
    for n = 10 000, liblinear's default on a problem of that size. The lectures set
    the paper's settings (``averaging='none'``, a number of epochs) explicitly where
    they teach Algorithm 1.

    With ``eval_set=(X_test, y_test)`` passed to ``fit`` and ``record_every`` set,
    ``history_['test_error']`` follows the test error along the iterations.

    *Interrupting.* Ctrl-C (or Jupyter's interrupt) stops a fit within a fraction of a second
    (:func:`~lsl_lib._core.run_loop.run_chunks`): ``fit`` leaves the estimator unfitted,
    ``partial_fit`` leaves the model of its last whole chunk of iterations.

    References
    ----------
    Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
    solver for SVM. Mathematical Programming 127(1), 2011.

    Rakhlin, Shamir, Sridharan. Making gradient descent optimal for strongly convex
    stochastic optimization. ICML 2012.

    Examples
    --------
    >>> from lsl_lib.datasets import two_gaussian_blobs
    >>> from lsl_lib.pegasos import PegasosClassifier
    >>> X, y = two_gaussian_blobs(500, random_state=0)
    >>> clf = PegasosClassifier(lam=1e-2, random_state=0).fit(X, y)
    >>> round(clf.score(X, y), 2)
    0.95
    """

    _parameter_constraints = {
        **_BasePegasos._parameter_constraints,
        "loss": [StrOptions({"hinge", "log", "multiclass_hinge", "softmax"})],
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }
    _eval_name = "test_error"

    def __init__(self, lam=1e-4, n_iter=None, batch_size=1, loss="hinge", sampling="iid",
                 projection=False, averaging="suffix", suffix_fraction=0.5, step_offset=0,
                 fit_intercept=True, class_weight=None, record_every=None,
                 reference_objective=None, backend="auto", random_state=None, verbose=False):
        self.lam = lam
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.loss = loss
        self.sampling = sampling
        self.projection = projection
        self.averaging = averaging
        self.suffix_fraction = suffix_fraction
        self.step_offset = step_offset
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.record_every = record_every
        self.reference_objective = reference_objective
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _binary_only(self):
        return self.loss in ("hinge", "log")

    def _encode(self, y):
        return encode_labels(y, self.classes_, self.loss)

    def _n_outputs(self):
        return 1 if self._binary_only() else len(self.classes_)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit by ``n_iter`` Pegasos iterations from w = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i` (times ``class_weight``): the risk becomes
            :math:`\\frac{1}{\\sum_i s_i}\\sum_i s_i\\ell_i` and examples are drawn in
            proportion to :math:`s_i` (:func:`weighted_sample_indices`). Integer weights
            give exactly the iterates of the rows repeated :math:`s_i` times (zero: dropped)
            for the same ``n_iter``; ``n_iter=None`` and ``partial_fit`` count passes in
            rows, not in total weight.
        eval_set : tuple (X_test, y_test), optional
            Held-out data whose error is recorded in ``history_['test_error']``.
        """
        X, y = self._validate(X, y, reset=True)
        self.classes_ = np.unique(y)
        self._check_labels(y)
        self.estimators_ = None
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, sample_weight, eval_set=eval_set)
        sample_weight = self._sample_weight(X, sample_weight, y, self.class_weight)
        if sample_weight is not None:  # the weights may leave a single class
            check_n_classes(np.unique(y[sample_weight > 0]), self.loss, ())
        X = self._with_intercept(X)
        return self._run(X, self._encode(y), self._n_iter(X.shape[0]), self._n_outputs(),
                         eval_set, continuing=False, sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over (X, y): :math:`\\lceil n/k \\rceil` iterations, t continuing.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, required on the first call
            All the labels that will ever appear.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit`. A ``class_weight`` dict applies; ``'balanced'`` needs
            the whole data and is refused here, as ``SGDClassifier`` refuses it.
        """
        if self.class_weight == "balanced":
            raise ValueError(
                "class_weight='balanced' is computed from the whole data, which partial_fit "
                "never sees; pass class_weight=dict(zip(classes, compute_class_weight("
                "'balanced', classes=classes, y=y_all))) instead.")
        first = _check_partial_fit_first_call(self, classes)
        X, y = self._validate(X, y, reset=first)
        self._check_labels(y)
        if first:
            self.estimators_ = None
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, sample_weight, partial=True)
        sample_weight = self._sample_weight(X, sample_weight, y, self.class_weight)
        X = self._with_intercept(X)
        return self._run(X, self._encode(y), -(-X.shape[0] // self._batch_size(X.shape[0])),
                         self._n_outputs(), None, continuing=not first,
                         sample_weight=sample_weight)

    def _decision_scores(self, X):
        """Scores :math:`\\langle w, x\\rangle + b`, shape (n, K); (n,) for two classes.

        With two classes the score is that of ``classes_[1]``: :math:`s` for a binary
        loss, :math:`s_1 - s_0` for a multiclass loss (same sign, same probabilities).
        """
        s = self._scores(X)
        if s.shape[1] == 1:
            return s[:, 0]
        return s[:, 1] - s[:, 0] if s.shape[1] == 2 else s

    def _has_proba(self):
        return self.loss in ("log", "softmax")

    def _proba_from_scores(self, scores):
        """Class probabilities: :math:`\\sigma(s)` for ``'log'`` (one-vs-rest normalised),
        softmax for ``'softmax'``."""
        if scores.ndim == 1 or self.loss == "log":
            return one_vs_rest_probabilities(scores)
        return softmax(scores, axis=1)

    def _eval_metric(self, scores, y):
        """Error rate of the scores (n, K) of the current iterate on held-out labels."""
        return float(np.mean(labels_from_scores(scores, self.classes_) != y))



class PegasosRegressor(RegressorMixin, _BasePegasos):
    r"""Linear regression trained by Pegasos' iterations.

    Minimises :math:`\frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i \ell(y_i, \langle w, x_i\rangle)`
    with the squared loss (ridge regression) or the epsilon-insensitive loss
    (linear support vector regression), by stochastic subgradient steps
    :math:`\eta_t = 1/(\lambda t)`.

    Parameters
    ----------
    lam : float, default=1e-4
    n_iter : int or None, default=None
        Number of iterations T; ``None``: :math:`\lceil \max(5n, 30/\lambda)/k \rceil`, as in
        :class:`PegasosClassifier`.
    batch_size : int, default=1
    loss : {'squared', 'epsilon_insensitive'}, default='squared'
    epsilon : float, default=0.1
        Half-width of the insensitive zone of ``'epsilon_insensitive'``.
    projection : bool, default=True
        Project onto the ball of radius :math:`\sqrt{2 f(0)/\lambda}`, which contains
        :math:`w^*`. On by default here: with the squared loss, the first steps
        :math:`1/(\lambda t)` are far longer than :math:`1/L` and the unprojected
        iterates can overflow.
    step_offset : float or 'auto', default='auto'
        :math:`t_0` in :math:`\eta_t = 1/(\lambda(t + t_0))`; ``'auto'`` is
        :math:`L/\lambda` for the squared loss (L = max ||x_i||^2) and 0 for the
        epsilon-insensitive loss, which is Lipschitz.
    averaging : {'none', 'uniform', 'suffix'}, default='suffix'
        As in :class:`PegasosClassifier`. With the defaults (squared loss, suffix
        average, :math:`\lambda T \ge 30`, standardised features) the test :math:`R^2` on
        cpu_act (Delve, 21 features) is 0.721 against least squares' 0.721, and on
        California housing 0.627 against 0.627; the last iterate gives 0.710 and 0.619.
    sampling, suffix_fraction, fit_intercept, record_every, \
reference_objective, backend, random_state, verbose
        As in :class:`PegasosClassifier`.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    t_, n_iter_, history_, n_features_in_
        As in :class:`PegasosClassifier` (``history_['test_mse']`` with ``eval_set``).

    See Also
    --------
    PegasosClassifier
    sklearn.linear_model.SGDRegressor
    sklearn.svm.LinearSVR

    References
    ----------
    Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
    solver for SVM. Mathematical Programming 127(1), 2011, Section 5.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.pegasos import PegasosRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)); y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=2000)
    >>> reg = PegasosRegressor(lam=1e-3, averaging='suffix', random_state=0).fit(X, y)
    >>> np.round(reg.coef_, 1)
    array([ 1. , -2. ,  0.5])
    """

    _parameter_constraints = {
        **_BasePegasos._parameter_constraints,
        "loss": [StrOptions({"squared", "epsilon_insensitive"})],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }
    _eval_name = "test_mse"

    def __init__(self, lam=1e-4, n_iter=None, batch_size=1, loss="squared", epsilon=0.1,
                 sampling="iid", projection=True, averaging="suffix", suffix_fraction=0.5,
                 step_offset="auto", fit_intercept=True, record_every=None, reference_objective=None,
                 backend="auto", random_state=None, verbose=False):
        self.lam = lam
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.loss = loss
        self.epsilon = epsilon
        self.sampling = sampling
        self.projection = projection
        self.averaging = averaging
        self.suffix_fraction = suffix_fraction
        self.step_offset = step_offset
        self.fit_intercept = fit_intercept
        self.record_every = record_every
        self.reference_objective = reference_objective
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit by ``n_iter`` iterations from w = 0 (``sample_weight`` and ``eval_set`` as
        in :meth:`PegasosClassifier.fit`)."""
        X, y = self._prepare(X, y, reset=True)
        return self._run(X, y.astype(np.float64), self._n_iter(X.shape[0]), 1, eval_set,
                         continuing=False, sample_weight=self._sample_weight(X, sample_weight))

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        """One pass over (X, y): :math:`\\lceil n/k \\rceil` iterations, t continuing
        (``sample_weight`` as in :meth:`fit`)."""
        first = not hasattr(self, "t_")
        X, y = self._prepare(X, y, reset=first)
        n_iter = -(-X.shape[0] // self._batch_size(X.shape[0]))
        return self._run(X, y.astype(np.float64), n_iter, 1, None, continuing=not first,
                         sample_weight=self._sample_weight(X, sample_weight))

    def _set_coef(self, W):
        super()._set_coef(W)
        self.coef_, self.intercept_ = self.coef_[0], float(self.intercept_[0])

    def predict(self, X):
        return self._scores(X)

    def _eval_metric(self, scores, y):
        """Mean squared error of the scores (n, 1) of the current iterate."""
        return float(np.mean((scores[:, 0] - y) ** 2))
