r"""Kernel Pegasos: Pegasos in a reproducing kernel Hilbert space, by its recurrence.

With a feature map :math:`\varphi` and :math:`k(a, b) = \langle\varphi(a), \varphi(b)\rangle`,
Pegasos (k = 1, no projection) on :math:`f(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i
\max(0, 1 - y_i\langle w, \varphi(x_i)\rangle)` has iterates (lecture 02, exercise 1)

.. math::

    w_{t+1} = \frac{1}{\lambda t}\sum_{j=1}^n \alpha_{t+1}[j]\, y_j\, \varphi(x_j),

where :math:`\alpha_{t+1}[j]` counts how often example j was a margin violator in the
first t iterations. So :math:`w` never needs to be formed: at iteration t, with
example :math:`i_t`,

.. math::

    \text{if}\quad y_{i_t}\,\frac{1}{\lambda (t-1)}\sum_j \alpha_t[j]\, y_j\, k(x_{i_t}, x_j) < 1
    \quad\text{then}\quad \alpha_{t+1}[i_t] = \alpha_t[i_t] + 1,

(at t = 1, w = 0 and the first example is a violator). The α are *unsigned*
violation counts and the label enters the sum once, as :math:`y_j`: the paper's
Figure 3 writes the condition with :math:`\alpha_t[j]\, y_{i_t}` inside the sum, a
wrong label index (:math:`y_{i_t}` where :math:`y_j` belongs). The output is
:math:`f(x) = \frac{1}{\lambda T}\sum_j \alpha_j y_j k(x_j, x)`.

Each iteration costs O(m), m the number of support examples (α > 0): the sum runs
over them only, and the kernel values :math:`k(x_i, x_j)` come from a bounded cache
of kernel rows (least recently used rows are evicted). A cached row of example i
holds its kernel values with the support examples in the order they joined; when the
support has grown since, only the new values are computed.

The two paths run the same iterations on the same index array
(:mod:`lsl_lib._core.sampling`), with the same cache hits and misses (i is
:math:`i_t`, and the inner product is the kernel sum above):

===================================  ==============================  ===============================
Figure 3 of the paper                reference                       compiled
===================================  ==============================  ===============================
if y_i ⟨w_t, φ(x_i)⟩ < 1: α[i] += 1  ``kernel_pegasos_numpy_chunk``  ``_kernel_pegasos_numba_chunk``
===================================  ==============================  ===============================

The compiled loop reads its kernel values from :mod:`lsl_lib._core.kernel_loops`
(whose reference is :func:`lsl_lib.kernels.kernel_matrix`).

References
----------
Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
solver for SVM. Mathematical Programming 127(1), 2011, Section 4 and Figure 3.

Joachims. Making large-scale SVM learning practical. Advances in Kernel Methods,
1999 (kernel caching).
"""
import warnings
from collections import OrderedDict
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.kernel_loops import (
    INNER_PRODUCT_KERNELS,
    check_sparse_kernel,
    kernel_finish_numba,
    row_kernel_raw_numba,
    take_lru_slot_numba,
)
from lsl_lib._core.linalg import squared_row_norms
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import row_clear_numba, row_to_dense_numba, row_view
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    LEARNER_KERNEL_CONSTRAINTS,
    check_n_classes,
    signed_binary_labels,
)
from lsl_lib.kernels import (
    DEFAULT_KERNEL_EVALUATIONS,
    cache_slots,
    check_kernel_params,
    fitted_gamma,
    kernel_matrix,
    kernel_scores,
)

__all__ = [
    "KernelPegasosState", "kernel_pegasos_numpy_chunk", "kernel_pegasos", "dual_coefficients",
    "primal_objective", "optimal_objective", "KernelPegasosClassifier",
]


def __dir__():
    return __all__


#: ``max_evaluations`` that never stops a run.
_NO_LIMIT = np.iinfo(np.int64).max


class KernelPegasosState:
    """Where a run stands: the counts α, the support in order of arrival, t, the cache.

    Attributes
    ----------
    alpha : ndarray of shape (n,), int64
        Violation counts.
    support : ndarray of shape (n,), int64
        ``support[:m]`` are the examples with α > 0, in the order they joined.
    m : int
    t : int
        Iterations done.
    counters : ndarray of shape (3,), int64
        Cache hits, cache misses, kernel evaluations.
    """

    def __init__(self, n_samples, n_slots, compiled):
        self.alpha = np.zeros(n_samples, dtype=np.int64)
        self.support = np.zeros(n_samples, dtype=np.int64)
        self.m = 0
        self.t = 0
        self.counters = np.zeros(3, dtype=np.int64)
        self.n_slots = n_slots
        if compiled:  # the cache as arrays (see _kernel_pegasos_numba_chunk)
            self.slots = np.empty((n_slots, n_samples))
            self.slot_of = np.full(n_samples, -1, dtype=np.int64)
            self.owner = np.full(n_slots, -1, dtype=np.int64)
            self.filled = np.zeros(n_slots, dtype=np.int64)
            self.last_used = np.zeros(n_slots, dtype=np.int64)
            self.coef = np.zeros(n_samples)  # alpha_j y_j in support order
            self.position = np.zeros(n_samples, dtype=np.int64)
            self.scratch = np.empty(n_samples)
        else:  # example -> list of its kernel values, least recently used first
            self.rows = OrderedDict()


def kernel_pegasos_numpy_chunk(X, y, state, indices, lam, kernel, gamma, degree, coef0,
                               max_evaluations=_NO_LIMIT):
    """Iterations ``state.t + 1, ...`` of kernel Pegasos, one per entry of ``indices``,
    until the kernel evaluations ``state.counters[2]`` reach ``max_evaluations``.

    The readable reference: an ``OrderedDict`` is the least-recently-used row cache.
    Returns the number of iterations run.
    """
    for done, i in enumerate(indices):
        if state.counters[2] >= max_evaluations:
            return done
        t = state.t + 1
        support = state.support[:state.m]
        row = state.rows.pop(i, None)
        if row is None:
            state.counters[1] += 1  # miss
            row = []
            if len(state.rows) >= state.n_slots > 0:
                state.rows.popitem(last=False)  # evict the least recently used row
        else:
            state.counters[0] += 1  # hit
        new = support[len(row):]
        row.extend(kernel_matrix(X[[i]], X[new], kernel, gamma, degree, coef0)[0])
        state.counters[2] += len(new)
        if state.n_slots > 0:
            state.rows[i] = row
        score = np.dot(state.alpha[support] * y[support], row)  # = lam (t - 1) <w_t, phi(x_i)>
        if t == 1 or y[i] * score < lam * (t - 1):
            if state.alpha[i] == 0:
                state.support[state.m] = i
                state.m += 1
            state.alpha[i] += 1
        state.t = t
    return len(indices)


@jit
def _kernel_pegasos_numba_chunk(data, cols, indptr, sq_norms, buffer, y, alpha,
                                support, m, t0, indices, lam, kernel_code, gamma, degree, coef0,
                                slots, slot_of, owner, filled, last_used, counters, coef,
                                position, scratch, max_evaluations):
    """The same iterations as :func:`kernel_pegasos_numpy_chunk`, compiled.

    X comes as its row view ``(data, cols, indptr)`` (:func:`lsl_lib._core.rows.row_view`)
    with its squared row norms ``sq_norms``; a CSR row i is scattered into the dense
    ``buffer`` (length d, zeros) and met with each support row's non-zeros
    (:func:`lsl_lib._core.kernel_loops.row_kernel_raw_numba`).

    The cache is ``slots`` (one row per slot), ``slot_of`` (example -> slot or -1),
    ``owner`` (slot -> example), ``filled`` (values computed in a slot) and
    ``last_used`` (the iteration of its last use: the least recent is evicted). New
    kernel values are computed raw, then finished together in a vectorised loop.
    ``coef[k] = alpha[j] y[j]`` for ``j = support[k]`` (``position[j] = k``), so the
    score is a contiguous dot product; ``scratch`` holds the row when there is no
    cache. The loop stops before an iteration once ``counters[2]`` (the kernel
    evaluations) has reached ``max_evaluations``. Returns the new size m of the support
    and the number of iterations run.
    """
    n_slots = slots.shape[0]
    for it in range(indices.shape[0]):
        if counters[2] >= max_evaluations:
            return m, it
        i = indices[it]
        t = t0 + it + 1
        slot = slot_of[i]
        if slot >= 0:
            counters[0] += 1
        else:
            counters[1] += 1
            if n_slots > 0:
                slot = take_lru_slot_numba(i, slot_of, owner, last_used)
                filled[slot] = 0
        # the row's missing kernel values: raw parts first, then one vectorised finish
        row = slots[slot] if slot >= 0 else scratch
        start = filled[slot] if slot >= 0 else 0
        x = row_to_dense_numba(data, cols, indptr, i, buffer)
        row_kernel_raw_numba(kernel_code, data, cols, indptr, sq_norms, x, i, support[start:m],
                             gamma, row[start:m])
        row_clear_numba(cols, indptr, i, buffer)
        kernel_finish_numba(kernel_code, row[start:m], gamma, degree, coef0)
        counters[2] += m - start
        if slot >= 0:
            last_used[slot] = t
            filled[slot] = m
        score = 0.0
        for k in range(m):
            score += coef[k] * row[k]
        if t == 1 or y[i] * score < lam * (t - 1):
            if alpha[i] == 0:
                position[i] = m
                support[m] = i
                m += 1
            alpha[i] += 1
            coef[position[i]] += y[i]
    return m, indices.shape[0]


def kernel_pegasos(X, y, lam, n_iter, *, kernel="gaussian", gamma=None, degree=3, coef0=1.0,
                   sampling="iid", cache_size=100, max_kernel_evaluations=None, record_every=None,
                   reference_objective=None, backend="auto", random_state=None, verbose=False):
    r"""Run kernel Pegasos for ``n_iter`` iterations on labels in {-1, +1}.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
        Sparse X works with the inner-product kernels (linear, polynomial, Gaussian),
        as in :func:`lsl_lib.kernels.kernel_matrix`; the compiled path reads X through
        its row view (:func:`lsl_lib._core.rows.row_view`).
    y : ndarray of shape (n,)
        Labels -1.0 / +1.0.
    lam : float
        :math:`\lambda > 0`.
    n_iter : int
        T.
    kernel, gamma, degree, coef0
        As in :func:`lsl_lib.kernels.kernel_matrix`.
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
    cache_size : float, default=100
        Megabytes of kernel rows to keep (0: no cache).
    max_kernel_evaluations : int or None, default=None
        Stop before ``n_iter`` once this many kernel values have been computed (the
        ``kernel_evaluations`` counter: the same iteration on both paths); ``state.t``
        is then the number of iterations run.
    record_every : int or None, default=None
    reference_objective : float or None, default=None
        :math:`f(w^*)`, for a ``'suboptimality'`` column.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
    verbose : bool, default=False
        A progress bar for a run longer than a few seconds.

    Returns
    -------
    state : KernelPegasosState
    history : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective``, ``n_support``,
        ``cache_hits``, ``cache_misses``, ``kernel_evaluations`` (cumulative), and
        ``suboptimality`` when a reference is given; empty without ``record_every``.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, within a chunk's length (:func:`~lsl_lib._core.run_loop.run_chunks`).
        The iterations run in chunks of about 0.1 s; the counts, the support, the cache
        and its counters carry from one chunk to the next, so the iterates do not depend
        on where the chunks end.
    """
    n_samples = X.shape[0]
    kernel_code, gamma, degree, coef0 = check_kernel_params(kernel, gamma, degree, coef0,
                                                            X.shape[1])
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam}.")
    if not n_iter >= 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}.")
    if not cache_size >= 0:
        raise ValueError(f"cache_size must be >= 0 megabytes, got {cache_size}.")
    if max_kernel_evaluations is None:
        max_kernel_evaluations = _NO_LIMIT
    elif not max_kernel_evaluations >= 1:
        raise ValueError(f"max_kernel_evaluations must be None or >= 1, got "
                         f"{max_kernel_evaluations}.")
    path = resolve_backend(backend)
    indices = sample_indices(n_samples, n_iter, 1, sampling, check_random_state(random_state))[:, 0]
    state = KernelPegasosState(n_samples, cache_slots(cache_size, n_samples), path == "numba")
    y = np.ascontiguousarray(y, dtype=np.float64)
    check_sparse_kernel(X, kernel)
    if not sp.issparse(X):
        X = np.ascontiguousarray(X, dtype=np.float64)
    rows = (*row_view(X), squared_row_norms(X))
    buffer = np.zeros(X.shape[1])  # a scattered sparse row
    trace = Trace()

    def record():
        dual_coef, support = dual_coefficients(state, y, lam)
        row = dict(iteration=state.t, epoch=state.t / n_samples, seconds=trace.seconds,
                   objective=primal_objective(X, y, lam, X[support], dual_coef, kernel, gamma,
                                              degree, coef0),
                   n_support=state.m, cache_hits=state.counters[0],
                   cache_misses=state.counters[1], kernel_evaluations=state.counters[2])
        if reference_objective is not None:
            row["suboptimality"] = row["objective"] - reference_objective
        trace.record(**row)

    def step(start, stop):
        if path == "numba":
            state.m, done = _kernel_pegasos_numba_chunk(
                *rows, buffer, y, state.alpha, state.support, state.m, state.t,
                indices[start:stop], float(lam), kernel_code, gamma, degree, coef0, state.slots,
                state.slot_of, state.owner, state.filled, state.last_used, state.counters,
                state.coef, state.position, state.scratch, int(max_kernel_evaluations))
            state.t += done
        else:
            done = kernel_pegasos_numpy_chunk(X, y, state, indices[start:stop], lam, kernel,
                                              gamma, degree, coef0, max_kernel_evaluations)
        return done < stop - start  # the evaluation budget is spent

    run_chunks(trace, n_iter, step, record_every=record_every, record=record, verbose=verbose,
               desc="kernel Pegasos")
    return state, trace.history()


def dual_coefficients(state, y, lam):
    r"""The support and :math:`\alpha_j y_j / (\lambda t)`, the coefficients of
    :math:`f(x) = \sum_j c_j k(x_j, x)`."""
    support = np.sort(state.support[:state.m])
    if state.t == 0:
        return np.zeros(0), support
    return state.alpha[support] * y[support] / (lam * state.t), support


def primal_objective(X, y, lam, support_vectors, dual_coef, kernel="gaussian", gamma=None,
                     degree=3, coef0=1.0):
    r""":math:`f(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i \max(0, 1 - y_i f(x_i))` for
    :math:`w = \sum_j c_j \varphi(x_j)`: :math:`\|w\|^2 = c^\top K_{SS}\, c`."""
    if len(dual_coef) == 0:
        return 1.0
    K_XS = kernel_matrix(X, support_vectors, kernel, gamma, degree, coef0)
    K_SS = kernel_matrix(support_vectors, None, kernel, gamma, degree, coef0)
    margins = y * (K_XS @ dual_coef)
    return 0.5 * lam * dual_coef @ K_SS @ dual_coef + np.mean(np.maximum(0.0, 1.0 - margins))


def optimal_objective(X, y, lam, kernel="gaussian", gamma=None, degree=3, coef0=1.0, tol=1e-10):
    r""":math:`f(w^*)`, from the dual of the SVM without intercept, solved by L-BFGS-B.

    Dividing f by :math:`\lambda` gives :math:`\frac12\|w\|^2 + C\sum_i \text{hinge}_i`
    with :math:`C = 1/(\lambda n)`, whose dual is
    :math:`\max_{0 \le a \le C} \sum_i a_i - \frac12 a^\top Q a`,
    :math:`Q_{ij} = y_i y_j k(x_i, x_j)`
    (no equality constraint: there is no intercept). By strong duality
    :math:`f(w^*) = \lambda \max_a D(a)`; the value returned is :math:`\lambda D(a)` at
    the solver's :math:`a`, a lower bound of :math:`f(w^*)` tight to about ``tol``.
    It forms the n x n kernel matrix: for lecture-sized problems.
    """
    y = np.asarray(y, dtype=np.float64)
    Q = kernel_matrix(X, None, kernel, gamma, degree, coef0) * np.outer(y, y)
    C = 1.0 / (lam * len(y))

    def negative_dual(a):
        Qa = Q @ a
        return 0.5 * a @ Qa - a.sum(), Qa - 1.0

    result = minimize(negative_dual, np.full(len(y), C / 2), jac=True, method="L-BFGS-B",
                      bounds=[(0.0, C)] * len(y),
                      options=dict(maxiter=100_000, ftol=1e-15, gtol=tol))
    return -lam * result.fun


class KernelPegasosClassifier(ScoreClassifierMixin, BaseEstimator):
    r"""Kernel SVM trained by kernel Pegasos (violation counts, O(m) per iteration).

    Minimises :math:`\frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i \max(0, 1 - y_i\langle w,
    \varphi(x_i)\rangle)` (no intercept, as in the paper) by the recurrence of
    :mod:`lsl_lib.kernel_pegasos`. More than two classes are learnt one-vs-rest: one
    binary model per class (``estimators_``), as ``LinearSVC`` does.

    Parameters
    ----------
    lam : float or None, default=None
        :math:`\lambda > 0` (:math:`C = 1/(\lambda n)` in libsvm's scaling); ``None`` is
        :math:`1/n`, that is C = 1, ``SVC``'s default.
    n_iter : int or None, default=None
        Iterations T; ``None`` runs five epochs (5n), or fewer: it stops once
        :data:`~lsl_lib.kernels.DEFAULT_KERNEL_EVALUATIONS` (:math:`5\cdot 10^8`) kernel
        values have been computed, with a ``ConvergenceWarning`` (see Notes).
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d\,\operatorname{Var}(X))`, scikit-learn's
        ``SVC`` default (:func:`lsl_lib.kernels.fitted_gamma`); ``None`` is 1/d.
    degree : int, default=3
    coef0 : float, default=1.0
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
    cache_size : float, default=100
        Megabytes of cached kernel rows (0 turns the cache off). Each row has room
        for n values, so ``cache_size`` MB hold ``cache_size * 2**20 / (8 n)`` rows.
    record_every : int or None, default=None
        Record ``history_`` every that many iterations.
    reference_objective : float, 'auto' or None, default=None
        :math:`f(w^*)` for the ``suboptimality`` column; ``'auto'`` computes it with
        :func:`optimal_objective` (forms the n x n kernel matrix).
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
    verbose : bool, default=False
        Show a progress bar when a fit takes more than a few seconds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_support,)
        Indices of the training examples with α > 0 (two classes).
    support_vectors_ : ndarray of shape (n_support, n_features)
    alpha_ : ndarray of shape (n_support,), int
        Their violation counts.
    dual_coef_ : ndarray of shape (n_support,)
        :math:`\alpha_j y_j / (\lambda T)`:
        :math:`f(x) = \sum_j` ``dual_coef_[j]`` :math:`k(x_j, x)`.
    t_, n_iter_ : int
        Iterations run (of the first class's model with more than two classes).
    lam_, gamma_ : float
        The λ and the kernel width used.
    history_ : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective``, ``n_support``,
        ``cache_hits``, ``cache_misses``, ``kernel_evaluations`` (and ``suboptimality``);
        with more than two classes, one row per class.
    estimators_ : list of KernelPegasosClassifier or None
        With more than two classes, the binary model of each class of ``classes_``
        (its labels ``y == classes_[k]``); None for two classes.
    n_features_in_ : int

    See Also
    --------
    lsl_lib.pegasos.PegasosClassifier : the linear algorithm it reproduces with the linear kernel.
    lsl_lib.budgeted.BudgetedKernelSGDClassifier : the same iterations with at most B support
        vectors: O(B) per iteration, for large n.
    sklearn.svm.SVC : libsvm's SMO on the same problem (with an unregularised intercept).

    Notes
    -----
    X may be a CSR matrix with the inner-product kernels (linear, polynomial, Gaussian):
    kernel values on CSR rows, in both paths (:func:`kernel_pegasos`).

    **Defaults.** They are what a user who reads nothing gets, and they follow ``SVC()``:
    ``gamma='scale'`` adapts the width to the data, where γ = 1/d assumes unit-variance
    features, and λ = 1/n is the same problem as ``SVC``'s C = 1 (the paper's f(w) is
    the SVM objective divided by Cn). A fixed λ would change the problem with n:
    λ = 1e-4 is C = 5 at n = 2 000. Measured against ``SVC()`` in benchmarks/README.md,
    §Kernel learning online.

    **Cost, and large n.** Iteration t costs one kernel evaluation per support vector
    (minus the values a cached row already holds), and the support grows with t: every
    example that was once a margin violator stays in it. T iterations cost about
    :math:`T\,\bar m` kernel evaluations, quadratic in T, and at large n the cache
    cannot help: 100 MB hold :math:`100 \cdot 2^{20} / (8n)` rows, 402 of a9a's
    32 561. So ``n_iter=None`` stops at
    :data:`~lsl_lib.kernels.DEFAULT_KERNEL_EVALUATIONS` = 5·10^8 evaluations, with a
    ``ConvergenceWarning``; five epochs always fit that budget up to n = 10 000
    (:math:`5n \cdot n \le 5\cdot 10^8`). For larger n,
    :class:`~lsl_lib.budgeted.BudgetedKernelSGDClassifier` runs the same iterations on a
    support of fixed size, and :class:`~lsl_lib.nystroem.Nystroem` or random Fourier
    features followed by a linear SVM cost O(D) per example.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".

    References
    ----------
    Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
    solver for SVM. Mathematical Programming 127(1), 2011.

    Examples
    --------
    >>> from lsl_lib.datasets import concentric_circles
    >>> from lsl_lib.kernel_pegasos import KernelPegasosClassifier
    >>> X, y = concentric_circles(400, random_state=0)
    >>> clf = KernelPegasosClassifier(lam=1e-3, gamma=2.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    _parameter_constraints = {
        "lam": [Interval(Real, 0, None, closed="neither"), None],
        "n_iter": [Interval(Integral, 1, None, closed="left"), None],
        **LEARNER_KERNEL_CONSTRAINTS,
        "cache_size": [Interval(Real, 0, None, closed="left")],
        "reference_objective": [Real, StrOptions({"auto"}), None],
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
    }

    def __init__(self, lam=None, n_iter=None, kernel="gaussian", gamma="scale", degree=3, coef0=1.0,
                 sampling="iid", cache_size=100, record_every=None, reference_objective=None,
                 backend="auto", random_state=None, verbose=False):
        self.lam = lam
        self.n_iter = n_iter
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.sampling = sampling
        self.cache_size = cache_size
        self.record_every = record_every
        self.reference_objective = reference_objective
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _kernel_params(self):
        return dict(kernel=self.kernel, gamma=self.gamma_, degree=self.degree, coef0=self.coef0)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit by ``n_iter`` iterations of the recurrence from α = 0 (per class, one-vs-rest,
        for more than two classes)."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        check_n_classes(self.classes_, "hinge", ())
        self.estimators_ = None
        self.gamma_ = fitted_gamma(self.gamma, X)
        n = X.shape[0]
        self.lam_ = self.lam if self.lam is not None else 1.0 / n
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y)
        y_signed = signed_binary_labels(y, self.classes_)
        n_iter = self.n_iter if self.n_iter is not None else 5 * n
        budget = DEFAULT_KERNEL_EVALUATIONS if self.n_iter is None else None
        reference = self.reference_objective
        if reference == "auto":
            reference = optimal_objective(X, y_signed, self.lam_, **self._kernel_params())
        state, self.history_ = kernel_pegasos(
            X, y_signed, self.lam_, n_iter, sampling=self.sampling, cache_size=self.cache_size,
            max_kernel_evaluations=budget, record_every=self.record_every,
            reference_objective=reference, backend=self.backend, random_state=self.random_state,
            verbose=self.verbose, **self._kernel_params())
        if state.t < n_iter:
            warnings.warn(
                f"KernelPegasosClassifier stopped after {state.t:,} iterations "
                f"({state.t / n:.2g} of the 5 epochs of n_iter=None), at the default budget of "
                f"{DEFAULT_KERNEL_EVALUATIONS:.0e} kernel evaluations: an iteration costs one "
                f"per support vector ({state.m:,} of n = {n:,} now). Pass n_iter to run "
                "longer; for n this large, BudgetedKernelSGDClassifier (lsl_lib.budgeted) or "
                "Nystroem + a linear SVM cost O(budget) per example instead.",
                ConvergenceWarning, stacklevel=2)
        self.dual_coef_, self.support_ = dual_coefficients(state, y_signed, self.lam_)
        self.support_vectors_ = X[self.support_]
        self.alpha_ = state.alpha[self.support_]
        self.t_ = self.n_iter_ = state.t
        return self

    def _decision_scores(self, X):
        r""":math:`f(x) = \sum_{j \in \text{support}} c_j k(x_j, x)`: O(m) kernel values per
        row, in row blocks (:func:`lsl_lib.kernels.kernel_scores`)."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return kernel_scores(X, self.support_vectors_, self.dual_coef_, **self._kernel_params())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        return tags
