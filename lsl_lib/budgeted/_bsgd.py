r"""BSGD, budgeted stochastic gradient descent (Wang, Crammer and Vucetic 2012).

Kernel Pegasos with real coefficients and at most B support vectors. Each step shrinks
the coefficients by :math:`(1 - 1/t)` and a margin violator joins the support with
:math:`\eta_t y_t`, :math:`\eta_t = 1/(\lambda t)`; when the support exceeds B, *budget
maintenance* changes :math:`w` by a small :math:`\Delta_t` to bring it back to B: remove
the smallest support vector, project it onto the others, or merge it with another into
one new point (:mod:`lsl_lib.budgeted._maintenance`). Wang et al. treat
:math:`E_t = \Delta_t/\eta_t` as an error of the gradient step (their Theorem 1): the
average objective along the run comes within :math:`2U\bar E` of the optimum's,
:math:`\bar E = \frac1T\sum_t\|E_t\|` the average gradient error (recorded as
``gradient_error_``).

============================================  ========================  =====================
Wang, Crammer, Vucetic (2012), Alg. 1         reference                 compiled
============================================  ========================  =====================
steps: shrink, margin test, a violator joins  :func:`bsgd_numpy_chunk`  ``_bsgd_numba_chunk``
maintenance when m > B: removal               :func:`removal_numpy`     ``_removal_numba``
maintenance when m > B: projection            :func:`projection_numpy`  ``_projection_numba``
maintenance when m > B: merging               :func:`merging_numpy`     ``_merging_numba``
============================================  ========================  =====================

References
----------
Wang, Crammer, Vucetic. Breaking the curse of kernelization: budgeted stochastic
gradient descent for large-scale SVM training. JMLR 13, 2012, 3103-3131.

Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
JMLR 14, 2013, 3813-3817.
"""
import math
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.kernel_loops import (
    INNER_PRODUCT_KERNELS,
    check_sparse_kernel,
    kernel_column_numba,
)
from lsl_lib._core.linalg import dense_rows
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import row_clear_numba, row_to_dense_numba, row_view
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.sampling import MAX_INDICES, sample_indices, weighted_sample_indices
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    LEARNER_KERNEL_CONSTRAINTS,
    check_n_classes,
    check_sample_weight,
)
from lsl_lib.budgeted._checks import _check_iterations, warn_if_kernel_is_flat
from lsl_lib.budgeted._maintenance import (
    _MAINTENANCES,
    _PROJECTION,
    _REMOVAL,
    _merging_numba,
    _projection_numba,
    _removal_numba,
    count_kernel_evaluations,
    merging_numpy,
    projection_numpy,
    removal_numpy,
)
from lsl_lib.kernels import check_kernel_params, fitted_gamma, kernel_matrix, kernel_scores

__all__ = ["BudgetedKernelSGDClassifier", "BudgetedSGDState", "bsgd", "bsgd_numpy_chunk",
           "bsgd_objective", "support_and_coefficients"]


class BudgetedSGDState:
    r"""Where a BSGD run stands. Coefficients are stored unscaled:

    .. math:: w_{t+1} = \frac{1}{\lambda t}\sum_{j \le m} A_j\,\varphi(s_j),

    so the shrink :math:`(1 - 1/t)` of every step is the change of the scalar
    :math:`1/(\lambda t)`, a violator adds :math:`\pm 1` to A, and the margin test
    :math:`y f(x) < 1` reads :math:`y\,A^\top k < \lambda (t-1)`, as in kernel Pegasos.

    Attributes
    ----------
    sv : ndarray of shape (budget + 1, d)
        ``sv[:m]`` are the support vectors (dense rows, also for CSR X).
    svT : ndarray of shape (d, budget + 1)
        Their transpose, kept by the numba path: a kernel row is then a loop along the
        support that the compiler vectorises
        (:func:`lsl_lib._core.kernel_loops.kernel_column_numba`).
    A : ndarray of shape (budget + 1, n_columns)
        Unscaled coefficients: one column (binary) or one per class (Crammer-Singer).
    source : ndarray of shape (budget + 1,), int64
        The training example a support vector is, or -1 for a merged point.
    position : ndarray of shape (n,), int64
        The slot of training example i in the support, or -1.
    m, t : int
        Support size and iterations done.
    degradation : float
        :math:`\sum_t \|\Delta_t\|^2`, the squared weight degradations of all maintenances.
    gradient_error : float
        :math:`\sum_t \|E_t\|`, :math:`E_t = \Delta_t/\eta_t` the gradient error of
        Wang et al.'s Theorem 1: the unscaled change :math:`\|\Delta A\|_K` of a
        maintenance, since :math:`\Delta_t = \Delta A/(\lambda t)` and
        :math:`\eta_t = 1/(\lambda t)`.
    kernel_evaluations : int
        Kernel values computed, counted as :func:`count_kernel_evaluations` says (the same
        count on both paths).
    n_maintenance : int
    """

    def __init__(self, n_samples, n_features, n_columns, budget):
        self.sv = np.zeros((budget + 1, n_features))
        self.svT = np.zeros((n_features, budget + 1))  # the compiled path's copy, by columns
        self.A = np.zeros((budget + 1, n_columns))
        self.source = np.full(budget + 1, -1, dtype=np.int64)
        self.position = np.full(n_samples, -1, dtype=np.int64)
        self.m = 0
        self.t = 0
        self.degradation = 0.0
        self.gradient_error = 0.0
        self.kernel_evaluations = 0
        self.n_maintenance = 0


# ---- the numpy reference ----

def bsgd_numpy_chunk(X, y, state, indices, lam, budget, maintenance, kernel, gamma, degree,
                     coef0):
    """Iterations ``state.t + 1, ...`` of BSGD, one per entry of ``indices``.

    ``y`` holds ±1 (binary, one column of A) or class indices 0..K-1 (K columns).
    """
    multiclass = state.A.shape[1] > 1
    for i in indices:
        t = state.t + 1
        m = state.m
        row = kernel_matrix(X[[i]], state.sv[:m], kernel, gamma, degree, coef0)[0]
        state.kernel_evaluations += m
        scores = row @ state.A[:m]  # = lam (t - 1) f(x_i)
        if multiclass:
            yi = int(y[i])
            wrong = scores.copy()
            wrong[yi] = -np.inf
            r = int(np.argmax(wrong))
            violation = t == 1 or scores[yi] - scores[r] < lam * (t - 1)
        else:
            violation = t == 1 or y[i] * scores[0] < lam * (t - 1)
        if violation:
            j = state.position[i]
            if j < 0:
                j = state.position[i] = m
                state.sv[j] = dense_rows(X, [i])[0]
                state.source[j] = i
                state.m = m + 1
            if multiclass:
                state.A[j, yi] += 1.0
                state.A[j, r] -= 1.0
            else:
                state.A[j, 0] += y[i]
            if state.m > budget:
                state.kernel_evaluations += count_kernel_evaluations(maintenance, state.m)
                if maintenance == _REMOVAL:
                    degradation = removal_numpy(state, kernel, gamma, degree, coef0)
                elif maintenance == _PROJECTION:
                    degradation = projection_numpy(state, kernel, gamma, degree, coef0)
                else:
                    degradation = merging_numpy(state, gamma)
                # ||Delta A||^2 unscaled: Delta_t = Delta A / (lam t), E_t = Delta_t / eta_t
                state.degradation += degradation / (lam * t) ** 2
                state.gradient_error += math.sqrt(max(degradation, 0.0))
                state.n_maintenance += 1
        state.t = t


# ---- the numba fast path: the same arithmetic, compiled ----

@jit
def _bsgd_numba_chunk(data, cols, indptr, buffer, y, sv, svT, A, source, position, m, t0,
                      indices, lam, budget, strategy, kernel_code, gamma, degree, coef0, row,
                      scores, totals):
    """The iterations of :func:`bsgd_numpy_chunk`, compiled. X comes as its row view
    (:func:`lsl_lib._core.rows.row_view`); a CSR row is scattered into ``buffer`` (length d).
    ``totals`` accumulates [Σ‖Δ_t‖², number of maintenances, Σ‖E_t‖, kernel evaluations]
    (:func:`count_kernel_evaluations`). The maintenance is the compiled twin of the
    reference that ``strategy`` names. Returns the new m."""
    n_columns = A.shape[1]
    multiclass = n_columns > 1
    for it in range(indices.shape[0]):
        i = indices[it]
        t = t0 + it + 1
        x = row_to_dense_numba(data, cols, indptr, i, buffer)
        # all B + 1 columns, m of them in use: a contiguous loop the compiler vectorises
        kernel_column_numba(kernel_code, svT, x, gamma, degree, coef0, row)
        totals[3] += m  # the m values in use (the loop fills all B + 1 columns)
        for c in range(n_columns):
            s = 0.0
            for k in range(m):
                s += row[k] * A[k, c]
            scores[c] = s
        yi, r = 0, 0
        if multiclass:
            yi = int(y[i])
            best = -np.inf
            for c in range(n_columns):
                if c != yi and scores[c] > best:
                    best, r = scores[c], c
            violation = t == 1 or scores[yi] - scores[r] < lam * (t - 1)
        else:
            violation = t == 1 or y[i] * scores[0] < lam * (t - 1)
        if violation:
            j = position[i]
            if j < 0:
                j = m
                position[i] = j
                sv[j, :] = x
                svT[:, j] = x
                source[j] = i
                m += 1
            if multiclass:
                A[j, yi] += 1.0
                A[j, r] -= 1.0
            else:
                A[j, 0] += y[i]
            if m > budget:
                if strategy == _REMOVAL:
                    totals[3] += 1
                    m, degradation = _removal_numba(sv, svT, A, source, position, m, kernel_code,
                                                    gamma, degree, coef0)
                elif strategy == _PROJECTION:
                    totals[3] += (m - 1) * m // 2 + m
                    m, degradation = _projection_numba(sv, svT, A, source, position, m, kernel_code,
                                                       gamma, degree, coef0)
                else:
                    totals[3] += m
                    m, degradation = _merging_numba(sv, svT, A, source, position, m, gamma)
                totals[0] += degradation / (lam * t) ** 2
                totals[1] += 1.0
                totals[2] += math.sqrt(max(degradation, 0.0))
        row_clear_numba(cols, indptr, i, buffer)
    return m


# ---- the driver, the objective, the estimator ----

def _check_maintenance(maintenance, kernel, budget):
    if maintenance not in _MAINTENANCES:
        raise ValueError(f"maintenance must be one of {_MAINTENANCES}, got {maintenance!r}.")
    if maintenance == "merging" and kernel != "gaussian":
        raise ValueError(f"maintenance='merging' needs kernel='gaussian' (the merged point of "
                         f"two Gaussian support vectors lies on the segment between them), got "
                         f"kernel={kernel!r}; use maintenance='removal' or 'projection'.")
    if not (isinstance(budget, Integral) and budget >= 1):
        raise ValueError(f"budget must be an int >= 1, got {budget!r}.")


def bsgd(X, y, lam, n_iter, budget=100, maintenance="merging", *, kernel="gaussian", gamma=None,
         degree=3, coef0=1.0, n_classes=2, sampling="iid", sample_weight=None, record_every=None,
         backend="auto", random_state=None, verbose=False):
    r"""Run BSGD for ``n_iter`` iterations.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
        CSR with the inner-product kernels; support vectors are stored as dense rows.
    y : ndarray of shape (n,)
        ±1 labels when ``n_classes == 2``, else class indices 0, ..., K-1.
    lam : float
    n_iter : int
    budget : int, default=100
        A budget above the number of rows of positive weight is that number: the support
        then never exceeds it (each example holds one slot at most and no maintenance runs),
        so the iterates are the same and only the memory differs.
    maintenance : {'removal', 'projection', 'merging'}, default='merging'
    kernel, gamma, degree, coef0
        As in :func:`lsl_lib.kernels.kernel_matrix`; merging needs the Gaussian kernel.
    n_classes : int, default=2
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
    sample_weight : ndarray of shape (n,) or None, default=None
        Non-negative weights :math:`s_i`, drawn in proportion (:mod:`lsl_lib`). None:
        every weight 1.
    record_every : int or None, default=None
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
    verbose : bool, default=False
        A progress bar (:func:`~lsl_lib._core.run_loop.run_chunks`).

    Returns
    -------
    state : BudgetedSGDState
    history : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective``, ``n_support``, ``degradation``
        (cumulative :math:`\sum_t \|\Delta_t\|^2`), ``gradient_error`` (cumulative
        :math:`\sum_t \|E_t\|`, :math:`E_t = \Delta_t/\eta_t`), ``kernel_evaluations``
        (cumulative, :func:`count_kernel_evaluations`); empty without ``record_every``.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, within a chunk's length (:func:`~lsl_lib._core.run_loop.run_chunks`);
        ``state`` is then that of the last whole chunk.
    """
    n_samples, n_features = X.shape
    kernel_code, gamma, degree, coef0 = check_kernel_params(kernel, gamma, degree, coef0,
                                                            n_features)
    _check_maintenance(maintenance, kernel, budget)
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam}.")
    if not n_iter >= 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}.")
    _check_iterations(n_iter, f"n_iter={n_iter}", MAX_INDICES)
    path = resolve_backend(backend)
    check_sparse_kernel(X, kernel)
    if not sp.issparse(X):
        X = np.ascontiguousarray(X, dtype=np.float64)
    rows = row_view(X)
    strategy = _MAINTENANCES.index(maintenance)
    rng = check_random_state(random_state)
    if sample_weight is None:
        indices = sample_indices(n_samples, n_iter, 1, sampling, rng)[:, 0]
        n_kept = n_samples
    else:
        indices = weighted_sample_indices(sample_weight, n_iter, 1, sampling, rng)[:, 0]
        n_kept = int(np.count_nonzero(sample_weight))
    budget = min(budget, n_kept)
    n_columns = 1 if n_classes == 2 else n_classes
    state = BudgetedSGDState(n_samples, n_features, n_columns, budget)
    y = np.ascontiguousarray(y, dtype=np.float64)
    buffer = np.zeros(n_features)
    row, scores, totals = np.empty(budget + 1), np.empty(n_columns), np.zeros(4)
    params = dict(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
    trace = Trace()

    def record():
        sv, coef = support_and_coefficients(state, lam)
        trace.record(iteration=state.t, epoch=state.t / n_kept, seconds=trace.seconds,
                     objective=bsgd_objective(X, y, lam, sv, coef, sample_weight=sample_weight,
                                              **params),
                     n_support=state.m, degradation=state.degradation,
                     gradient_error=state.gradient_error,
                     kernel_evaluations=state.kernel_evaluations)

    def step(start, stop):
        # every iteration reads and writes the state alone: chunks may end anywhere
        if path == "numba":
            totals[:] = (state.degradation, state.n_maintenance, state.gradient_error,
                         state.kernel_evaluations)
            state.m = _bsgd_numba_chunk(
                *rows, buffer, y, state.sv, state.svT, state.A, state.source, state.position,
                state.m, state.t, indices[start:stop], float(lam), budget, strategy, kernel_code,
                gamma, degree, coef0, row, scores, totals)
            state.t += stop - start
            state.degradation, state.n_maintenance = totals[0], int(totals[1])
            state.gradient_error, state.kernel_evaluations = totals[2], int(totals[3])
        else:
            bsgd_numpy_chunk(X, y, state, indices[start:stop], lam, budget, strategy, kernel,
                             gamma, degree, coef0)

    run_chunks(trace, n_iter, step, record_every=record_every, record=record, verbose=verbose,
               desc="BSGD")
    return state, trace.history()


def support_and_coefficients(state, lam):
    r"""The support vectors and :math:`A/(\lambda t)`: :math:`f(x) = \sum_j c_j k(s_j, x)`
    (shape (m,) for one column, (m, K) for K)."""
    coef = state.A[:state.m] / (lam * state.t) if state.t else state.A[:state.m].copy()
    if coef.shape[1] == 1:
        coef = coef[:, 0]
    return state.sv[:state.m].copy(), coef


def bsgd_objective(X, y, lam, support_vectors, dual_coef, kernel="gaussian", gamma=None,
                   degree=3, coef0=1.0, sample_weight=None):
    r"""The primal objective BSGD descends.

    Binary (``dual_coef`` of shape (m,), y = ±1): :math:`\frac{\lambda}{2}\|w\|^2 +
    \frac1n\sum_i\max(0, 1 - y_i f(x_i))`. Multiclass (shape (m, K), y = class index):
    :math:`\frac{\lambda}{2}\sum_c\|w_c\|^2 + \frac1n\sum_i \max(0, 1 + \max_{r\ne y_i}
    f_r(x_i) - f_{y_i}(x_i))` (Crammer and Singer). :math:`\|w\|^2 = c^\top K_{SS} c`.
    With ``sample_weight`` the mean of the losses is weighted,
    :math:`\frac{1}{\sum_i s_i}\sum_i s_i \ell_i`.
    """
    if len(dual_coef) == 0:
        return 1.0
    K_SS = kernel_matrix(support_vectors, None, kernel, gamma, degree, coef0)
    norm = np.sum(dual_coef * (K_SS @ dual_coef))
    f = kernel_scores(X, support_vectors, dual_coef, kernel, gamma, degree, coef0)
    if dual_coef.ndim == 1:
        loss = np.maximum(0.0, 1.0 - y * f)
    else:
        labels = y.astype(np.int64)
        true = f[np.arange(len(labels)), labels]
        f[np.arange(len(labels)), labels] = -np.inf
        loss = np.maximum(0.0, 1.0 + f.max(axis=1) - true)
    return 0.5 * lam * norm + np.average(loss, weights=sample_weight)


class BudgetedKernelSGDClassifier(ScoreClassifierMixin, BaseEstimator):
    r"""Kernel SVM trained by budgeted stochastic gradient descent (BSGD).

    Kernel Pegasos on :math:`\frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i \ell(w; x_i, y_i)`
    (hinge loss, no intercept; Crammer-Singer's multiclass hinge for K > 2 classes, one
    coefficient per class and support vector) with at most ``budget`` support vectors:

    .. math::

        w_{t+1} = \Big(1 - \frac1t\Big) w_t + \eta_t\,\varphi(x_{i_t})\,\beta_t - \Delta_t,
        \qquad \eta_t = \frac{1}{\lambda t},

    :math:`\beta_t = y_{i_t}` on a margin violation :math:`y f(x) < 1` (multiclass:
    +1 for the true class, -1 for the highest-scoring wrong class r when
    :math:`f_y - f_r < 1`), else 0; :math:`\Delta_t` is the budget maintenance, zero
    until the support exceeds B:

    - ``'removal'``: drop the support vector p of smallest :math:`\|\alpha_p\|`,
      :math:`\|\Delta\|^2 = \|\alpha_p\|^2 k(x_p, x_p)`;
    - ``'projection'``: project it onto the span of the others,
      :math:`\Delta\alpha = K_{RR}^{-1} k_{Rp}\,\alpha_p^\top` (Cholesky of
      :math:`K_{RR}` with a relative ridge of ``PROJECTION_JITTER``; O(B³) per maintenance);
    - ``'merging'`` (Gaussian kernel): replace it and the partner n that degrades w least by
      :math:`z = h x_p + (1-h) x_n`, with :math:`\alpha_z = \alpha_p k(x_p, z) + \alpha_n
      k(x_n, z)` and h maximising :math:`\|\alpha_z\|` by golden-section search; O(B) per
      maintenance.

    Parameters
    ----------
    lam : float or None, default=None
        :math:`\lambda > 0`; ``None`` is :math:`1/n` (C = 1 in libsvm's scaling), as in
        :class:`~lsl_lib.kernel_pegasos.KernelPegasosClassifier`; with ``sample_weight``,
        :math:`1/\sum_i s_i` (``SVC(C=1)`` with the same weights).
    budget : int, default=100
        B, the largest number of support vectors. A budget above the number n of training
        rows (of positive weight) is lowered to n with a ``UserWarning``: the support never
        exceeds n, so nothing else changes.
    maintenance : {'removal', 'projection', 'merging'}, default='merging'
    n_iter : int or None, default=None
        Iterations T; ``None`` runs five epochs (5n, n the rows of positive weight). The
        examples of all T iterations are drawn up front, so T is at most
        :data:`~lsl_lib._core.sampling.MAX_INDICES` (2^30, 8 GiB of indices).
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float, 'scale' or None, default='scale'
        As in :func:`lsl_lib.kernels.fitted_gamma`.
    degree : int, default=3
    coef0 : float, default=1.0
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
    record_every : int or None, default=None
        Record ``history_`` every that many iterations.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
    verbose : bool, default=False
        Show a progress bar for fits longer than a few seconds.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    support_vectors_ : ndarray of shape (n_support, n_features)
        At most ``budget`` rows, dense (also for CSR X); merged points are not training rows.
    dual_coef_ : ndarray of shape (n_support,) or (n_support, K)
        :math:`\alpha`: ``decision_function(X) = kernel_matrix(X, support_vectors_) @ dual_coef_``.
    n_iter_ : int
    lam_, gamma_ : float
    degradation_ : float
        :math:`\sum_t \|\Delta_t\|^2` over the run.
    gradient_error_ : float
        :math:`\bar E = \frac1T\sum_t \|E_t\|`, :math:`E_t = \Delta_t/\eta_t`: the
        average gradient error of Wang, Crammer and Vucetic's Theorem 1 (Notes).
    n_kernel_evaluations_ : int
        Kernel values computed by the run: m per iteration (the example against the
        support) plus each maintenance's (:func:`count_kernel_evaluations`).
    n_maintenance_ : int
        How many budget maintenances ran.
    history_ : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective``, ``n_support``, ``degradation``,
        ``gradient_error`` (:math:`\sum_{s \le t}\|E_s\|`) and ``kernel_evaluations``
        (all cumulative), recorded every ``record_every`` iterations.
    n_features_in_ : int

    See Also
    --------
    lsl_lib.kernel_pegasos.KernelPegasosClassifier : the same iterates without a budget.

    Notes
    -----
    Coefficients are kept unscaled (:math:`\alpha = A/(\lambda t)`): the shrink of all
    coefficients is one scalar, the margin test is kernel Pegasos' own, and an example
    that violates again while it is a support vector adds to its coefficient rather
    than taking a second slot. With ``budget`` at least the number of distinct violators
    no maintenance runs and the iterates are kernel Pegasos'.

    X may be a CSR matrix with the inner-product kernels (linear, polynomial, Gaussian);
    support vectors are then stored as dense rows (a merged point is not a row of X).
    The numpy reference and the numba path consume the same sampled indices and agree
    to rounding; the projection's solve amplifies rounding by the condition number of
    :math:`K_{RR}`, so on nearly coincident support vectors the two drift apart slowly.

    *Stability.* The step :math:`\eta_t = 1/(\lambda t)` with the shrink :math:`(1 - 1/t)`
    makes :math:`w_{t+1} = \frac{1}{\lambda t}\sum_{s \le t} \beta_s\varphi(x_{i_s})` (minus
    the maintenances), so :math:`\|w_t\| \le \max_i \sqrt{k(x_i, x_i)}/\lambda` without
    maintenance, and a projection only shortens w (:math:`\|w'\|^2 = \|w\|^2 - \|\Delta\|^2`):
    no step size makes BSGD diverge, so the run loop watches no norm; the maintenances'
    changes of w are recorded (``degradation_``).

    *What maintenance costs.* Wang, Crammer and Vucetic (2012, Theorem 1) write a
    maintenance as an error of the gradient step, :math:`w_{t+1} = w_t - \eta_t(\nabla_t +
    E_t)` with :math:`E_t = \Delta_t/\eta_t`, and, for :math:`\|\varphi(x)\| \le 1` and
    :math:`\|E_t\| \le 1`, bound the average of the instantaneous objectives along the run:
    :math:`\frac1N\sum_t P_t(w_t) - \frac1N\sum_t P_t(w^*) \le (\lambda U + 2)^2(\ln N +
    1)/(2\lambda N) + 2U\bar E`, :math:`U = 2/\lambda` for :math:`\lambda \le 4`. The last
    term does not shrink with N unless :math:`\bar E` does: BSGD approaches a neighbourhood
    of the optimum whose size the maintenance sets. Removal deletes the smallest
    coefficient, which is one violation's (the newest violator holds one), so that
    :math:`\|E_t\| = 1` at every maintenance (binary, Gaussian kernel) and its
    ``gradient_error_`` is the share of iterations that maintain. The estimator returns
    the last iterate (as the toolbox does): the average of the iterates, which the bound
    covers in expectation, would hold every support vector ever used.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".

    *Scaling.* ``gamma='scale'`` is :math:`1/(d\,\mathrm{Var}(X))`, the variance over all
    entries of X, as ``SVC``'s: columns with a large offset or scale inflate it, and the
    kernel then becomes nearly constant (ten constant columns of 1e3 send the model to the
    majority class). ``fit`` warns when the kernel values on 100 rows of X differ by
    less than ``_FLAT_KERNEL_SPREAD`` of their size (:func:`warn_if_kernel_is_flat`);
    standardise the features or set ``gamma``.

    The defaults are kernel Pegasos' (λ = 1/n, that is C = 1, and ``gamma='scale'``)
    with five epochs and B = 100, merging. Measured against its peers in
    benchmarks/README.md, §Budgeted kernel machines.

    References
    ----------
    Wang, Crammer, Vucetic. Breaking the curse of kernelization: budgeted stochastic
    gradient descent for large-scale SVM training. JMLR 13, 2012, 3103-3131.

    Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
    JMLR 14, 2013.

    Examples
    --------
    >>> from lsl_lib.datasets import concentric_circles
    >>> from lsl_lib.budgeted import BudgetedKernelSGDClassifier
    >>> X, y = concentric_circles(400, random_state=0)
    >>> clf = BudgetedKernelSGDClassifier(budget=20, random_state=0).fit(X, y)
    >>> len(clf.support_vectors_) <= 20, clf.score(X, y) > 0.95
    (True, True)
    """

    _parameter_constraints = {
        "lam": [Interval(Real, 0, None, closed="neither"), None],
        "budget": [Interval(Integral, 1, None, closed="left")],
        "maintenance": [StrOptions(set(_MAINTENANCES))],
        "n_iter": [Interval(Integral, 1, None, closed="left"), None],
        **LEARNER_KERNEL_CONSTRAINTS,
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
    }

    def __init__(self, lam=None, budget=100, maintenance="merging", n_iter=None,
                 kernel="gaussian", gamma="scale", degree=3, coef0=1.0, sampling="iid",
                 record_every=None, backend="auto", random_state=None, verbose=False):
        self.lam = lam
        self.budget = budget
        self.maintenance = maintenance
        self.n_iter = n_iter
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.sampling = sampling
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _binary_only(self):
        return False  # Crammer and Singer's multiclass hinge

    def _kernel_params(self):
        return dict(kernel=self.kernel, gamma=self.gamma_, degree=self.degree, coef0=self.coef0)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        r"""Fit by ``n_iter`` BSGD iterations from w = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i`, drawn in proportion (:mod:`lsl_lib`).
            Integer weights give the decision function of the repeated rows as long as no
            maintenance runs (a repeated row takes one support slot here, several in the
            repeated data). ``n_iter=None`` counts passes in rows of positive weight,
            ``gamma='scale'`` is computed on them.

        Returns
        -------
        self : BudgetedKernelSGDClassifier
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        _check_maintenance(self.maintenance, self.kernel, self.budget)
        self.classes_, labels = np.unique(y, return_inverse=True)
        check_n_classes(self.classes_, "multiclass_hinge", ())
        kept = X
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
            check_n_classes(np.unique(y[sample_weight > 0]), "multiclass_hinge", ())
            kept = X[sample_weight > 0]
        n_classes = len(self.classes_)
        targets = 2.0 * labels - 1.0 if n_classes == 2 else labels.astype(np.float64)
        self.gamma_ = fitted_gamma(self.gamma, X, sample_weight)
        warn_if_kernel_is_flat(kept, **self._kernel_params())
        n = kept.shape[0]
        self.lam_ = self.lam if self.lam is not None else 1.0 / (
            n if sample_weight is None else sample_weight.sum())
        n_iter = self.n_iter if self.n_iter is not None else 5 * n
        budget = self.budget
        if budget > n:
            warnings.warn(f"budget={budget} is larger than n_samples={n}"
                          f"{' of positive weight' if sample_weight is not None else ''}; "
                          f"using budget={n}: the support never exceeds n.", UserWarning,
                          stacklevel=4)  # the caller of fit, past its two decorators
            budget = n
        state, self.history_ = bsgd(
            X, targets, self.lam_, n_iter, budget, self.maintenance, n_classes=n_classes,
            sampling=self.sampling, sample_weight=sample_weight, record_every=self.record_every,
            backend=self.backend, random_state=self.random_state, verbose=self.verbose,
            **self._kernel_params())
        self.support_vectors_, self.dual_coef_ = support_and_coefficients(state, self.lam_)
        self.n_iter_ = state.t
        self.degradation_ = state.degradation
        self.gradient_error_ = state.gradient_error / state.t
        self.n_kernel_evaluations_ = state.kernel_evaluations
        self.n_maintenance_ = state.n_maintenance
        return self

    def _decision_scores(self, X):
        r""":math:`f(x) = \sum_j \alpha_j k(s_j, x)`: at most B kernel values per row; shape
        (n,) for two classes (positive: ``classes_[1]``), (n, K) for K."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return kernel_scores(X, self.support_vectors_, self.dual_coef_, **self._kernel_params())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        return tags
