"""Pegasos' iterations: the numpy reference, its compiled twin and the functional core.

The mathematics and the table of pairs are in the package's docstring
(:mod:`lsl_lib.pegasos`); the estimators are in ``_estimators.py``.
"""
import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.loss_derivatives import score_subgradient_numba
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import row_column_numba, row_dot_numba, row_span_numba, row_view
from lsl_lib._core.run_loop import run_chunks
from lsl_lib._core.sampling import sample_indices, weighted_sample_indices
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import check_batch_size
from lsl_lib.losses import get_loss, primal_objective

_AVERAGING = ("none", "uniform", "suffix")


def weighted_objective(W, X, y, lam, loss, sample_weight=None):
    r""":math:`\frac{\lambda}{2}\|W\|_F^2 + \frac{1}{\sum_i s_i}\sum_i s_i \ell(y_i, W x_i)`;
    :func:`lsl_lib.losses.primal_objective` when ``sample_weight`` is None."""
    if sample_weight is None:
        return primal_objective(W, X, y, lam, loss)
    s = np.asarray(X @ W.T)
    values = loss.value(y, s if loss.task == "multiclass" else s[:, 0])
    return 0.5 * lam * float(np.vdot(W, W)) + float(np.average(values, weights=sample_weight))


class PegasosState:
    r"""Where a Pegasos run stands: the iterate, the running sum for averaging, t.

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
        :math:`\sum w = U + A v`, with ``carry = [a, ||v||^2, A, m, live]``
        (:func:`_pegasos_numba_chunk`): carried from one chunk to the next, so that the
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
    r"""Run iterations t0+1, ..., t0+T of Pegasos: the readable numpy reference.

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
        Iterates :math:`w_{t+1}` with :math:`t \ge` ``average_from`` are added to ``W_sum``.
    step_offset : float, default=0
        :math:`t_0` in :math:`\eta_t = 1/(\lambda (t + t_0))`; 0 is Pegasos.

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
def _pegasos_numba_chunk(data, cols, indptr, y, W, W_sum, v, U, carry, indices, t0, lam, loss_code,
                        epsilon, radius2, average_from, step_offset):
    r"""The same iterations as :func:`pegasos_numpy_chunk`, compiled.

    ``X`` comes as its row view ``(data, cols, indptr)``
    (:func:`~lsl_lib._core.rows.row_view`), dense or CSR alike. The iterate is kept as
    :math:`w = a v`: the shrink multiplies the scalar ``a``, a step adds to ``v`` only
    where ``x_i`` is non-zero, and :math:`\|v\|^2` is updated along, so one iteration
    costs O(k nnz(x) K).
    The average is kept lazily as :math:`\sum w = A v + U`:
    changing v by :math:`\delta` subtracts :math:`A\delta` from U; when early
    projections have shrunk ``a`` so much that :math:`A v` and U would cancel, A v
    is folded into U. ``v``, ``U`` and ``carry = [a, ||v||^2, A, m, live]`` go on from
    one chunk to the next (read from ``W`` and ``W_sum`` when ``live`` is 0); ``W`` and
    ``W_sum`` are written at the end, :math:`a v` and :math:`U + A v`.
    """
    T, k = indices.shape
    K, d = W.shape
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
                s[r] = a * row_dot_numba(data, cols, indptr, i, v[r])
            score_subgradient_numba(loss_code, y[i], s, epsilon, g)
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
            start, stop = row_span_numba(indptr, d, i)
            for r in range(K):
                c = -(eta_t / k) * G[b, r] / a
                if c == 0.0:
                    continue
                for p in range(start, stop):
                    j = row_column_numba(cols, indptr, p, start)
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
        Non-negative weights :math:`s_i`, drawn in proportion (:mod:`lsl_lib`); f takes
        the weighted mean of the losses. None: every weight 1.
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
    if averaging not in _AVERAGING:
        raise ValueError(f"averaging must be one of {_AVERAGING}, got {averaging!r}.")
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
        data, cols, indptr = row_view(X)
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
            n_avg = _pegasos_numba_chunk(data, cols, indptr, y_float, state.W, state.W_sum,
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
