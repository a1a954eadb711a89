r"""Dual coordinate descent for linear SVMs (Hsieh et al. 2008); the mathematics and the
table of pairs are in :mod:`lsl_lib.coordinate_descent`."""
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import row_axpy_numba, row_dot_numba, row_view
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.sampling import SCHEMES
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    check_n_classes,
    check_sample_weight,
    signed_binary_labels,
)
from lsl_lib.coordinate_descent._common import (
    _CD_CONSTRAINTS,
    _DRAW_SIZE,
    _warn_not_converged,
)

_DUAL_CD_LOSSES = ("hinge", "squared_hinge")
#: The order of an epoch (``sampling``) as the compiled loop reads it: a new random
#: permutation each epoch (liblinear), one permutation drawn once, uniform draws with
#: replacement (SDCA).
_RESHUFFLE, _PERMUTATION, _IID = range(3)
_SAMPLING_CODES = {"reshuffle": _RESHUFFLE, "permutation": _PERMUTATION, "iid": _IID}


def dual_cd_numpy_epochs(X, bias, y, QD, U, D, alpha, w, orders, tol):
    r"""Epochs of dual CD, Hsieh et al. (2008), Algorithm 1 (no shrinking): the reference.

    ``X`` is (n, d), dense or CSR; ``bias`` the value B of a constant feature whose
    weight is ``w[d]``; ``QD`` holds :math:`\bar Q_{ii} = \|x_i\|^2 + B^2 + D_{ii}`;
    ``U`` and ``D`` hold the per-example :math:`U_i` and :math:`D_{ii}`. ``alpha`` and
    :math:`w = \sum_i \alpha_i y_i (x_i, B)` are updated in place. Epoch e visits the
    coordinates ``orders[e]`` in turn (drawn by :func:`dual_cd`, see its ``sampling``);
    the run stops after the first epoch whose projected gradients span at most ``tol``
    (liblinear's test :math:`\max PG - \min PG \le` tol).

    Returns
    -------
    epochs : int
        Epochs run.
    converged : bool
        Whether the last one passed the test.
    """
    d = X.shape[1]
    for epoch, order in enumerate(orders, start=1):
        PG_max, PG_min = -np.inf, np.inf
        for i in order:
            if sp.issparse(X):
                cols = X.indices[X.indptr[i]:X.indptr[i + 1]]
                x_i = X.data[X.indptr[i]:X.indptr[i + 1]]
            else:
                cols, x_i = slice(0, d), X[i]
            G = y[i] * (x_i @ w[cols] + bias * w[d]) - 1.0 + D[i] * alpha[i]  # (a)
            if alpha[i] == 0.0:  # (b) the projected gradient
                PG = min(G, 0.0)
            elif alpha[i] == U[i]:
                PG = max(G, 0.0)
            else:
                PG = G
            PG_max, PG_min = max(PG_max, PG), min(PG_min, PG)
            if abs(PG) > 1e-12:  # (c) the exact minimum along alpha_i, clipped to [0, U_i]
                alpha_old = alpha[i]
                # Q_ii = 0: x_i = 0 (hinge, no intercept), so G = -1 and the minimum is at U_i
                alpha[i] = min(max(alpha_old - G / QD[i], 0.0), U[i]) if QD[i] > 0.0 else U[i]
                w[cols] += (alpha[i] - alpha_old) * y[i] * x_i
                w[d] += (alpha[i] - alpha_old) * y[i] * bias
        if PG_max - PG_min <= tol:
            return epoch, True
    return len(orders), False


def _fisher_yates(index, m, uniforms, pos):
    """Shuffle ``index[:m]`` in place with the uniforms ``uniforms[pos:pos + m]``:
    entry s swaps with one of the entries s .. m - 1 (liblinear's new order each epoch).
    One function for both paths: :func:`_fisher_yates_numba` is its compiled twin."""
    for s in range(m):
        k = min(s + int(uniforms[pos + s] * (m - s)), m - 1)
        index[s], index[k] = index[k], index[s]


_fisher_yates_numba = jit(_fisher_yates)


def _epoch_order(sampling, index, uniforms, pos, check_all):
    """The coordinates of the next epoch, drawn from the stream of uniforms as
    :func:`_dual_cd_numba_epochs` draws them when nothing is shrunk.

    Returns the order, the new position in the stream, and whether the order sweeps all
    n coordinates (only a sweep of all of them may end the run).
    """
    n = len(index)
    if sampling == _PERMUTATION:
        return index, pos, True
    if sampling == _RESHUFFLE:
        _fisher_yates(index, n, uniforms, pos)
        return index, pos + n, True
    if check_all:  # an epoch of draws passed the test: sweep all n (its uniforms unused)
        return index, pos + n, True
    return index[np.minimum((uniforms[pos:pos + n] * n).astype(np.int64), n - 1)], pos + n, False


@jit
def _dual_cd_numba_epochs(data, cols, indptr, bias, y, QD, upper, diag, alpha, w, index, active,
                          pg_max_old, pg_min_old, uniforms, pos, n_epochs, tol, shrinking,
                          sampling, check_all):
    r"""Up to ``n_epochs`` epochs of :func:`dual_cd_numpy_epochs`, compiled, with
    liblinear's shrinking (Hsieh et al., Algorithm 3) and the draw of each epoch's order.

    X comes as its row view ``(data, cols, indptr)``
    (:func:`~lsl_lib._core.rows.row_view`), dense or CSR alike. ``index`` (a
    permutation whose first ``active`` entries are the active set) is updated in place;
    ``pg_max_old``, ``pg_min_old`` are the shrinking thresholds :math:`\bar M, \bar m`:
    with ``shrinking``, an :math:`\alpha_i` at a bound whose gradient lies beyond them
    leaves the active set.

    ``sampling`` orders an epoch: ``_RESHUFFLE`` shuffles the active set by Fisher-Yates
    (:func:`_fisher_yates_numba`), with ``active`` numbers of the stream ``uniforms``
    from ``pos`` on; ``_PERMUTATION`` sweeps ``index`` as it stands; ``_IID`` (SDCA) visits
    ``index[floor(u * active)]`` for ``active`` numbers u of the stream (with
    replacement), and so sees only part of the coordinates: when its projected gradients
    pass the test, the next epoch sweeps all n (``check_all``) before stopping. Passing
    the test with part of the coordinates shrunk also sweeps all n again. It stops when
    :math:`\max PG - \min PG \le` ``tol`` over a sweep of all n coordinates, or when
    the stream runs short (the driver refills it).

    Returns
    -------
    epochs, visits, converged, active, pg_max_old, pg_min_old, pos, check_all
        Epochs run, coordinates visited, whether converged, and the new state.
    """
    n = y.shape[0]
    d = w.shape[0] - 1
    w_x = w[:d]  # the weights of x's features (a view): w[d] weighs the bias
    epochs = 0
    visits = 0
    converged = False
    while epochs < n_epochs and (sampling == _PERMUTATION or pos + active <= uniforms.shape[0]):
        iid = sampling == _IID and not check_all
        if sampling == _RESHUFFLE:
            _fisher_yates_numba(index, active, uniforms, pos)
        draws = active
        t = 0
        s = 0
        if sampling != _PERMUTATION:
            pos += active
        pg_max_new = -np.inf
        pg_min_new = np.inf
        while (t < draws and active > 0) if iid else s < active:
            if iid:
                s = min(int(uniforms[pos - draws + t] * active), active - 1)
                t += 1
            i = index[s]
            visits += 1
            score = row_dot_numba(data, cols, indptr, i, w_x) + bias * w[d]
            G = y[i] * score - 1.0 + diag[i] * alpha[i]
            if (alpha[i] == 0.0 and shrinking and G > pg_max_old) or \
                    (alpha[i] == upper[i] and shrinking and G < pg_min_old):
                active -= 1  # at its bound and likely to stay: shrink
                index[s], index[active] = index[active], index[s]
                continue
            pg = min(G, 0.0) if alpha[i] == 0.0 else (max(G, 0.0) if alpha[i] == upper[i] else G)
            pg_max_new = max(pg_max_new, pg)
            pg_min_new = min(pg_min_new, pg)
            if abs(pg) > 1e-12:
                old = alpha[i]
                alpha[i] = min(max(old - G / QD[i], 0.0), upper[i]) if QD[i] > 0.0 else upper[i]
                step = (alpha[i] - old) * y[i]
                row_axpy_numba(data, cols, indptr, i, step, w_x)
                w[d] += step * bias
            if not iid:
                s += 1
        epochs += 1
        check_all = False
        if pg_max_new - pg_min_new <= tol:
            if active == n and not iid:
                converged = True
                break
            active, pg_max_old, pg_min_old = n, np.inf, -np.inf  # unshrink, check them all
            check_all = True
            continue
        pg_max_old = pg_max_new if pg_max_new > 0.0 else np.inf
        pg_min_old = pg_min_new if pg_min_new < 0.0 else -np.inf
    return epochs, visits, converged, active, pg_max_old, pg_min_old, pos, check_all


def svm_objectives(X, y, w, alpha, C, loss="hinge", bias=0.0, sample_weight=None):
    r"""Primal and dual objectives in liblinear's scaling (their difference: the duality gap).

    With per-example weights :math:`s_i` (``sample_weight``, ones by default),

    .. math::

        P(w) = \tfrac12\|w\|^2 + C\sum_i s_i \xi_i, \qquad
        D(\alpha) = e^\top\alpha - \tfrac12\|w\|^2 - \tfrac12\alpha^\top D\alpha,

    with :math:`w = \sum_i \alpha_i y_i (x_i, B)` (``w[d]`` weighs the constant feature
    ``bias``) and :math:`D_{ii} = 1/(2Cs_i)` for the squared hinge (:math:`\alpha_i = 0`
    where :math:`s_i = 0`); :math:`P(w) \ge P^* = D^* \ge D(\alpha)` for every feasible α.
    """
    d = X.shape[1]
    s = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    xi = np.maximum(0.0, 1.0 - y * (np.asarray(X @ w[:d]).ravel() + bias * w[d]))
    half_ww = 0.5 * float(w @ w)
    if loss == "hinge":
        return half_ww + C * (s @ xi), alpha.sum() - half_ww
    weighted = s > 0
    quad = (alpha[weighted] ** 2 / s[weighted]).sum() / (4.0 * C)
    return half_ww + C * (s @ (xi * xi)), alpha.sum() - half_ww - quad


def dual_cd(X, y, C, *, loss="hinge", tol=1e-4, max_iter=1000, shrinking=True, bias=0.0,
            sample_weight=None, sampling="reshuffle", record_every=None, backend="auto",
            random_state=None, verbose=False):
    r"""Dual coordinate descent for the linear SVM on prepared arrays.

    The functional core of :class:`DualCDClassifier` (labels already in {-1, +1}).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d), float64
    y : ndarray of shape (n,), in {-1, +1}
    C : float > 0
    loss : {'hinge', 'squared_hinge'}, default='hinge'
    tol : float, default=1e-4
        Stop when the projected gradients of an epoch over all n coordinates span at
        most tol (liblinear's test). If ``max_iter`` epochs end first, a
        ``ConvergenceWarning`` is raised only when the duality gap is above
        ``tol`` :math:`\cdot P(w)` too: a relative gap that small already certifies w.
    max_iter : int, default=1000
        Maximum number of epochs.
    shrinking : bool, default=True
        Drop from the active set the :math:`\alpha_i` at a bound whose gradient lies
        beyond the previous epoch's extreme projected gradients; check them all again
        before stopping. The compiled path's optimisation: ``backend='numpy'`` runs the
        reference, Algorithm 1 without shrinking, whatever this says (other iterates,
        the same solution to ``tol``).
    bias : float, default=0
        Value B of a constant feature whose (regularised) weight is the intercept.
    sample_weight : ndarray of shape (n,) or None, default=None
        Weights :math:`s_i \ge 0` of the losses, as liblinear's: the box of
        :math:`\alpha_i` becomes :math:`[0, C s_i]` (hinge) and :math:`D_{ii} = 1/(2Cs_i)`
        (squared hinge). Examples of weight 0 are left out (:math:`\alpha_i = 0`), so that
        they change nothing, not even the random order of the others.
    sampling : {'reshuffle', 'permutation', 'iid'}, default='reshuffle'
        The order of an epoch: a new random permutation each epoch (liblinear), one
        random permutation drawn once (shrinking moves the shrunk coordinates to its
        end), or as many coordinates as are active drawn uniformly with replacement,
        which is SDCA (Shalev-Shwartz and Zhang 2013) with its closed-form step.
    record_every : int or None, default=None
        Record the trace every that many epochs (and at the start and the end).
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numpy'`` runs :func:`dual_cd_numpy_epochs` (no shrinking), ``'numba'`` its
        compiled twin; without shrinking the two give the same iterates.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the order, drawn from one stream of uniforms: the same for both backends,
        any ``record_every`` and wherever the run loop ends its chunks (the stream is
        refilled where it runs short, not where a chunk ends).
    verbose : bool, default=False
        A progress bar over the epochs for runs longer than a few seconds.

    Returns
    -------
    w : ndarray of shape (d + 1,)
        ``w[d]`` is the weight of the constant feature.
    alpha : ndarray of shape (n,)
    n_iter : int
        Epochs run.
    history : dict of ndarray
        ``iteration`` (coordinates visited), ``epoch``, ``seconds``, ``objective``
        (primal), ``dual_objective``, ``duality_gap``, ``n_active``.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, at the end of the running chunk of epochs
        (:func:`~lsl_lib._core.run_loop.run_chunks`). Every step is an exact minimisation
        (no step size): no divergence check.
    """
    if loss not in _DUAL_CD_LOSSES:
        raise ValueError(f"loss must be one of {_DUAL_CD_LOSSES}, got {loss!r}.")
    if sampling not in SCHEMES:
        raise ValueError(f"sampling must be one of {SCHEMES}, got {sampling!r}.")
    if not C > 0:
        raise ValueError(f"C must be > 0, got {C}.")
    if not (tol >= 0 and max_iter >= 1):
        raise ValueError(f"tol must be >= 0 and max_iter >= 1, got {tol} and {max_iter}.")
    n_all = X.shape[0]
    s = np.ones(n_all) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if s.shape != (n_all,) or not np.all(s >= 0):
        raise ValueError(f"sample_weight must be {n_all} non-negative numbers.")
    path = resolve_backend(backend)
    rng = check_random_state(random_state)
    y = np.ascontiguousarray(y, dtype=np.float64)
    kept = np.flatnonzero(s > 0)
    if len(kept) < n_all:  # weight 0: alpha_i = 0 for good
        X, y, s = X[kept], y[kept], s[kept]
    n, d = X.shape
    upper, diag = (C * s, np.zeros(n)) if loss == "hinge" else (np.full(n, np.inf), 0.5 / (C * s))
    if sp.issparse(X):  # row sums of squares, as a product (faster than np.bincount)
        QD = sp.csr_matrix((X.data * X.data, X.indices, X.indptr), shape=X.shape) @ np.ones(d)
    else:
        QD = np.einsum("ij,ij->i", X, X)
    QD += bias * bias + diag
    alpha, w = np.zeros(n), np.zeros(d + 1)
    index_type = np.uint32 if n < 2 ** 32 else np.int64  # as row_view's indices
    index = rng.permutation(n).astype(index_type) if sampling == "permutation" else \
        np.arange(n, dtype=index_type)
    active, pg_max, pg_min, check_all = n, np.inf, -np.inf, False
    code = _SAMPLING_CODES[sampling]
    uniforms, pos = (rng.random(n + _DRAW_SIZE) if code != _PERMUTATION else np.empty(0)), 0
    epochs = visits = 0
    converged = False
    if path == "numba":
        data, cols, indptr = row_view(X)
    trace = Trace()

    def objectives():
        return svm_objectives(X, y, w, alpha, C, loss, bias, s)

    def record():
        primal, dual = objectives()
        trace.record(iteration=visits, epoch=epochs, seconds=trace.seconds, objective=primal,
                     dual_objective=dual, duality_gap=primal - dual, n_active=active)

    def step(start, stop):  # epochs start .. stop - 1; True once converged
        nonlocal pos, epochs, visits, converged, active, pg_max, pg_min, check_all
        while epochs < stop and not converged:
            if code != _PERMUTATION and len(uniforms) - pos < active:  # keep the unused,
                left = len(uniforms) - pos  # draw the next
                uniforms[:left] = uniforms[pos:]
                rng.random(out=uniforms[left:])
                pos = 0
            if path == "numba":
                out = _dual_cd_numba_epochs(
                    data, cols, indptr, bias, y, QD, upper, diag, alpha, w, index, active,
                    pg_max, pg_min, uniforms, pos, stop - epochs, float(tol), bool(shrinking),
                    code, check_all)
                done, n_visits, converged, active, pg_max, pg_min, pos, check_all = out
            else:  # Algorithm 1, an epoch at a time, in the order the compiled loop draws
                order, pos, full = _epoch_order(code, index, uniforms, pos, check_all)
                done, passed = dual_cd_numpy_epochs(X, bias, y, QD, upper, diag, alpha, w,
                                                    [order], float(tol))
                n_visits, converged, check_all = len(order), passed and full, passed and not full
            epochs, visits = epochs + done, visits + n_visits
        return converged

    run_chunks(trace, max_iter, step, record_every=record_every, record=record, verbose=verbose,
               desc="dual CD", unit="epoch")
    if not converged:
        primal, dual = objectives()
        if primal - dual > tol * abs(primal):
            _warn_not_converged(f"Dual coordinate descent (max_iter={max_iter}, duality gap "
                                f"{primal - dual:.2e} > tol * P(w) = {tol * abs(primal):.2e})")
    if len(kept) < n_all:
        alpha_all = np.zeros(n_all)
        alpha_all[kept] = alpha
        alpha = alpha_all
    return w, alpha, epochs, trace.history()


class DualCDClassifier(ScoreClassifierMixin, BaseEstimator):
    r"""Linear SVM trained by dual coordinate descent (liblinear's solver).

    Minimises :math:`\frac12\|w\|^2 + C\sum_i \xi_i` (hinge or squared hinge) by exact
    coordinate steps on the dual (see :mod:`lsl_lib.coordinate_descent`), visiting the
    coordinates in a new random order every epoch, with optional shrinking. More than
    two classes are learnt one-vs-rest, as ``LinearSVC`` does: one binary SVM per class
    (:class:`~lsl_lib._core.classifier.ScoreClassifierMixin`), the class's examples
    weighted by its ``class_weight``, the others by 1.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the losses; :math:`C = 1/(\lambda n)` in Pegasos' scaling.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
        Hinge: :math:`U = C, D = 0`; squared hinge: :math:`U = \infty, D_{ii} = 1/(2C)`.
    tol : float, default=1e-4
        Stop when the projected gradients of an epoch span at most tol (liblinear's
        test). After ``max_iter`` epochs without it, a ``ConvergenceWarning`` is raised
        only if the duality gap is above tol times the primal objective as well.
    max_iter : int, default=1000
        Maximum number of epochs (as ``LinearSVC``'s ``max_iter``).
    shrinking : bool, default=True
        Shrink the active set (Hsieh et al. 2008, Algorithm 3).
    fit_intercept : bool, default=True
        Learn an intercept as the weight of a constant feature 1, regularised like the
        others (as liblinear and ``LinearSVC`` with ``intercept_scaling=1``).
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C for the examples of each class, as ``LinearSVC``'s; 'balanced' uses
        n / (n_classes n_class) with n and n_class counted with the sample weights
        (:func:`sklearn.utils.class_weight.compute_class_weight`) for two classes.
    sampling : {'reshuffle', 'permutation', 'iid'}, default='reshuffle'
        The order of the coordinates in an epoch: a new random permutation each epoch
        (liblinear), one permutation drawn once, or uniform draws with replacement
        (SDCA, Shalev-Shwartz and Zhang 2013).
    record_every : int or None, default=None
        Record ``history_`` every that many epochs; ``None`` records nothing.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numpy'``: the reference, Algorithm 1 without shrinking (see :func:`dual_cd`).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the order; the same seed gives the same iterates on both backends (without
        shrinking, which only the compiled path does).
    verbose : bool, default=False
        A progress bar over the epochs for fits longer than a few seconds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        One row for two classes, else one per class of ``classes_``.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        The dual variables :math:`\alpha_i \in [0, U]`; support vectors have
        :math:`\alpha_i > 0`. One row per class for more than two classes.
    n_iter_ : int
        Epochs run (the largest over the classes, as ``LinearSVC``'s).
    duality_gap_ : float or ndarray of shape (n_classes,)
        :math:`P(w) - D(\alpha)`, an upper bound on :math:`P(w) - P^*` (one per class).
    estimators_ : list of DualCDClassifier or None
        With more than two classes, the binary SVM of each class of ``classes_``
        (fitted on ``y == class``); None for two classes.
    history_ : dict of ndarray
        See :func:`dual_cd` (one row per class for more than two classes, or the list
        of the classes' columns where their lengths differ).
    n_features_in_ : int

    See Also
    --------
    sklearn.svm.LinearSVC : liblinear, the same solver (``dual=True``).
    lsl_lib.pegasos.PegasosClassifier : stochastic subgradient on the same primal.

    Notes
    -----
    ``C``, ``tol``, ``max_iter`` and the intercept are ``LinearSVC``'s defaults; the loss
    is the hinge of the lecture (``LinearSVC`` defaults to the squared hinge). Measured
    against ``LinearSVC()`` in benchmarks/README.md, §Coordinate descent.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".
    Ctrl-C waits for the running epoch.

    References
    ----------
    Hsieh, Chang, Lin, Keerthi, Sundararajan. A dual coordinate descent method for
    large-scale linear SVM. ICML 2008.

    Shalev-Shwartz, Zhang. Stochastic dual coordinate ascent methods for regularized
    loss minimization. JMLR 14, 2013.

    Examples
    --------
    >>> from lsl_lib.datasets import two_gaussian_blobs
    >>> from lsl_lib.coordinate_descent import DualCDClassifier
    >>> X, y = two_gaussian_blobs(500, random_state=0)
    >>> clf = DualCDClassifier(C=1.0, random_state=0).fit(X, y)
    >>> round(clf.score(X, y), 2), bool(clf.duality_gap_ < 1e-2)
    (0.96, True)
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "loss": [StrOptions(set(_DUAL_CD_LOSSES))],
        "shrinking": ["boolean"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "sampling": ITERATIVE_CONSTRAINTS["sampling"],
        "verbose": ["boolean"],
        **_CD_CONSTRAINTS,
    }

    def __init__(self, C=1.0, loss="hinge", tol=1e-4, max_iter=1000, shrinking=True,
                 fit_intercept=True, class_weight=None, sampling="reshuffle",
                 record_every=None, backend="auto", random_state=None, verbose=False):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.sampling = sampling
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the SVM; ``sample_weight`` (n,) multiplies C per example, as in liblinear.

        More than two classes: one binary SVM per class, fitted on ``y == class`` with
        the same ``random_state`` (``estimators_``).
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        if sp.issparse(X) and not X.has_canonical_format:  # duplicate entries: sum them
            X = X.copy()
            X.sum_duplicates()
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        check_n_classes(self.classes_, self.loss, ())
        self.estimators_ = None
        if self._needs_one_vs_rest(self.classes_):
            self._fit_one_vs_rest(X, y, sample_weight)
            self.alpha_ = np.vstack([e.alpha_ for e in self.estimators_])
            self.duality_gap_ = np.array([e.duality_gap_ for e in self.estimators_])
            self.n_iter_ = max(e.n_iter_ for e in self.estimators_)
            return self
        sample_weight = check_sample_weight(sample_weight, X)
        label = np.searchsorted(self.classes_, y)
        if np.count_nonzero(np.bincount(label, weights=sample_weight)) < 2:
            raise ValueError("sample_weight leaves one class of positive weight; a classifier "
                             "needs two classes.")
        if self.class_weight is not None:  # 'balanced' from weighted counts, as LinearSVC
            per_class = compute_class_weight(self.class_weight, classes=self.classes_, y=y,
                                             sample_weight=sample_weight)
            sample_weight = sample_weight * per_class[label]
        y = signed_binary_labels(y, self.classes_)
        bias = 1.0 if self.fit_intercept else 0.0
        w, self.alpha_, self.n_iter_, self.history_ = dual_cd(
            X, y, self.C, loss=self.loss, tol=self.tol, max_iter=self.max_iter,
            shrinking=self.shrinking, bias=bias, sample_weight=sample_weight,
            sampling=self.sampling, record_every=self.record_every, backend=self.backend,
            random_state=self.random_state, verbose=self.verbose)
        self.coef_, self.intercept_ = w[None, :-1], np.array([bias * w[-1]])
        primal, dual = svm_objectives(X, y, w, self.alpha_, self.C, self.loss, bias,
                                      sample_weight)
        self.duality_gap_ = primal - dual
        return self

    def _decision_scores(self, X):
        r"""Scores :math:`w^\top x + b`: of ``classes_[1]``, shape (n,), for two classes;
        one column per class otherwise."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
