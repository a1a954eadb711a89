r"""Budgeted kernel machines: models whose size is capped by a budget B.

The adaptive multi-hyperplane machine (AMM, Wang et al. 2011) keeps at most B linear
hyperplanes per class and scores a class by its best one,

.. math::

    g(i, x) = \max_{j} w_{ij}^\top x, \qquad f(x) = \arg\max_i g(i, x),

a piecewise-linear classifier trained by Pegasos-style steps. The low-rank linearized
SVM (LLSVM, Zhang et al. 2012) maps the data through the Nyström features of B
landmarks, :math:`z(x) = K_{BB}^{-1/2} k_B(x)`, and trains a linear SVM on them. Both
are in the BudgetedSVM toolbox (Djuric et al. 2013) that the lecture notes present.

References
----------
Wang, Djuric, Crammer, Vucetic. Trading representability for scalability: adaptive
multi-hyperplane machine for nonlinear classification. KDD 2011.

Zhang, Lan, Wang, Moerchen. Scaling up kernel SVM on limited resources: a low-rank
linearization approach. AISTATS 2012.

Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
JMLR 14, 2013.
"""
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import compiled_arrays, jit, resolve_backend
from lsl_lib._core.random import check_random_state
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import (ITERATIVE_CONSTRAINTS, add_intercept_column,
                                      check_n_classes)
from lsl_lib.coordinate_descent import dual_cd
from lsl_lib.kernels import (_LEARNER_KERNEL_CONSTRAINTS, INNER_PRODUCT_KERNELS, fitted_gamma,
                             kernel_matrix)
from lsl_lib.nystroem import _dense_rows, _row_blocks, inverse_square_root

# ---- AMM: adaptive multi-hyperplane machine ----

AMM_MODES = ("batch", "online")


def _dense_row(X, i):
    """Row i of a dense or CSR X as a 1-D float64 array."""
    row = X[i]
    return np.asarray(row.toarray() if sp.issparse(row) else row, dtype=np.float64).ravel()


def amm_numpy_chunk(X, y, W, active, z, indices, t0, lam, online):
    r"""Run AMM iterations t0+1, ..., t0+T: the readable numpy reference.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y : ndarray of shape (n,), int
        Class indices 0..K-1.
    W : ndarray of shape (K, B, d)
        The hyperplanes: slot (i, j) holds :math:`w_{ij}` where ``active[i, j]``, else 0.
        Updated in place.
    active : ndarray of shape (K, B), bool
        Which slots hold a hyperplane (at least one per class). Updated in place.
    z : ndarray of shape (n,), int
        The fixed assignments of batch mode (slot of class :math:`y_n`; -1: none); the
        slot of a hyperplane created by example n is written into ``z[n]``. Unused online.
    indices : ndarray of shape (T,), int
        The example of each iteration.
    t0 : int
        Iterations already done.
    lam : float
    online : bool
        Assign each example to its best true-class hyperplane at every step (online),
        or keep ``z`` (batch).
    """
    K, B, _ = W.shape
    for t, i in enumerate(indices, start=t0 + 1):
        eta_t = 1.0 / (lam * t)
        x = _dense_row(X, i)
        s = np.where(active, W @ x, -np.inf)  # s[i, j] = w_ij^T x at w_t, shape (K, B)
        c = y[i]
        j = int(np.argmax(s[c]))  # the best true-class hyperplane ...
        if not online and z[i] >= 0 and active[c, z[i]]:
            j = z[i]  # ... or the fixed assignment
        wrong = s.copy()
        wrong[c] = -np.inf
        r, q = np.unravel_index(np.argmax(wrong), wrong.shape)  # the best wrong hyperplane
        W *= 1.0 - eta_t * lam  # shrink first: 0 at t = 1
        if 1.0 + wrong[r, q] - s[c, j] > 0.0:
            W[r, q] -= eta_t * x
            if s[c, j] <= 0.0 and active[c].sum() < B:  # a fresh zero hyperplane scores more
                j = int(np.argmin(active[c]))  # the first free slot
                active[c, j] = True
                z[i] = j
            W[c, j] += eta_t * x


@jit
def amm_numba_chunk(data, cols, indptr, y, W, active, z, indices, t0, lam, online):
    """The same iterations as :func:`amm_numpy_chunk`, compiled.

    ``X`` comes as CSR arrays ``(data, cols, indptr)``, or dense as ``data = X.ravel()``
    with empty ``cols`` and ``indptr``. The hyperplanes are kept as :math:`W = a V`, so the
    shrink of all of them costs O(1) and an iteration O(K B nnz(x)).
    """
    K, B, d = W.shape
    dense = indptr.shape[0] == 0
    V = W.copy()
    a = 1.0
    s = np.empty((K, B))
    for it in range(indices.shape[0]):
        t = t0 + it + 1
        eta_t = 1.0 / (lam * t)
        i = indices[it]
        start = i * d if dense else indptr[i]
        stop = start + d if dense else indptr[i + 1]
        for r in range(K):
            for q in range(B):
                if not active[r, q]:
                    s[r, q] = -np.inf
                    continue
                acc = 0.0
                for p in range(start, stop):
                    acc += data[p] * V[r, q, p - start if dense else cols[p]]
                s[r, q] = a * acc
        c = y[i]
        j = -1
        for q in range(B):
            if active[c, q] and (j < 0 or s[c, q] > s[c, j]):
                j = q
        if not online and z[i] >= 0 and active[c, z[i]]:
            j = z[i]
        rb, qb = -1, -1
        for r in range(K):
            if r == c:
                continue
            for q in range(B):
                if active[r, q] and (rb < 0 or s[r, q] > s[rb, qb]):
                    rb, qb = r, q
        shrink = 1.0 - eta_t * lam
        if shrink <= 0.0:  # t = 1: W becomes 0 exactly
            V[:] = 0.0
            a = 1.0
        else:
            a *= shrink
        if 1.0 + s[rb, qb] - s[c, j] > 0.0:
            if s[c, j] <= 0.0:
                n_active = 0
                free = -1
                for q in range(B):
                    if active[c, q]:
                        n_active += 1
                    elif free < 0:
                        free = q
                if n_active < B:
                    j = free
                    active[c, j] = True
                    z[i] = j
            step = eta_t / a
            for p in range(start, stop):
                col = p - start if dense else cols[p]
                V[rb, qb, col] -= step * data[p]
                V[c, j, col] += step * data[p]
        if a < 1e-9:  # fold the scale back into V before it underflows
            V *= a
            a = 1.0
    for r in range(K):
        for q in range(B):
            for col in range(d):
                W[r, q, col] = a * V[r, q, col]


def prune_hyperplanes(W, active, t, lam, prune_c):
    r"""Remove the smallest hyperplanes whose squared norms add up to at most
    :math:`(c/(\lambda t))^2`, never the last one of a class.

    The hyperplanes are visited by increasing norm (ties in slot order); each is removed
    while the running sum of the removed :math:`\|w_{ij}\|^2` stays within the threshold,
    skipping the last hyperplane of a class. A step moves a hyperplane by
    :math:`\|x\|/(\lambda t)`: the removed ones together weigh at most c such steps of
    an example of norm 1 (the pruning of Wang et al. 2011, as BudgetedSVM's ``-c`` runs it).

    Parameters
    ----------
    W : ndarray of shape (K, B, d)
        Updated in place: removed slots are set to 0.
    active : ndarray of shape (K, B), bool
        Updated in place.
    t : int
        The iteration.
    lam : float
    prune_c : float
        The pruning parameter c.

    Returns
    -------
    removed : ndarray of shape (n_removed, 2), int
        The (class, slot) pairs removed, in the order removed.
    """
    K, B, _ = W.shape
    threshold = (prune_c / (lam * t)) ** 2
    norms2 = np.einsum("kbd,kbd->kb", W, W)
    slots = np.flatnonzero(active.ravel())
    remaining = active.sum(axis=1)
    removed, total = [], 0.0
    for flat in slots[np.argsort(norms2.ravel()[slots], kind="stable")]:
        k, b = divmod(int(flat), B)
        if remaining[k] == 1:
            continue
        if total + norms2[k, b] > threshold:
            break
        total += norms2[k, b]
        active[k, b] = False
        W[k, b] = 0.0
        remaining[k] -= 1
        removed.append((k, b))
    return np.array(removed, dtype=np.int64).reshape(-1, 2)


def _active_scores(X, W, active):
    """Row blocks of X with the scores of the active hyperplanes, shape (rows, H), and the
    class and slot of each of the H columns (the inactive slots cost nothing)."""
    classes, slots = np.nonzero(active)
    hyperplanes = W[classes, slots]
    for rows in _row_blocks(X.shape[0], len(classes)):
        yield rows, np.asarray(X[rows] @ hyperplanes.T), classes, slots


def amm_class_scores(X, W, active):
    r"""The class scores :math:`g(i, x) = \max_j w_{ij}^\top x`, shape (n, K)."""
    K = W.shape[0]
    out = np.full((X.shape[0], K), -np.inf)
    for rows, s, classes, _ in _active_scores(X, W, active):
        for k in range(K):
            out[rows, k] = s[:, classes == k].max(axis=1)
    return out


def amm_assignments(X, y, W, active):
    r"""The batch assignments :math:`z_n = \arg\max_j w_{y_n j}^\top x_n` (first slot on ties)."""
    z = np.empty(X.shape[0], dtype=np.int64)
    for rows, s, classes, slots in _active_scores(X, W, active):
        s[classes[None, :] != y[rows, None]] = -np.inf  # only the true class's hyperplanes
        z[rows] = slots[s.argmax(axis=1)]
    return z


def amm_objective(X, y, W, active, lam):
    r"""The AMM objective with the best assignments,

    .. math::

        P(W) = \frac{\lambda}{2}\sum_{ij}\|w_{ij}\|^2 + \frac1n\sum_n
            \max\bigl(0,\ 1 + \max_{i\ne y_n} g(i, x_n) - g(y_n, x_n)\bigr).
    """
    g = amm_class_scores(X, W, active)
    rows = np.arange(len(y))
    true = g[rows, y]
    g[rows, y] = -np.inf
    hinge = np.maximum(0.0, 1.0 + g.max(axis=1) - true)
    return 0.5 * lam * float(np.vdot(W, W)) + float(hinge.mean())


def amm(X, y, lam, n_classes, budget, *, mode="online", n_epochs=5, prune_every=10_000,
        prune_c=10.0, sampling="reshuffle", record_every=None, backend="auto",
        random_state=None):
    r"""Train an adaptive multi-hyperplane machine on prepared arrays.

    The functional core of :class:`AdaptiveMultiHyperplaneClassifier` (no label mapping,
    no bias column): T = ``n_epochs`` n iterations of one example each.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y : ndarray of shape (n,), int
        Class indices 0..K-1.
    lam : float
    n_classes : int
        K.
    budget : int
        B, the largest number of hyperplanes of a class.
    mode : {'online', 'batch'}, default='online'
    n_epochs : int, default=5
    prune_every : int or None, default=10000
        Prune (:func:`prune_hyperplanes`) after every that many iterations; None: never.
    prune_c : float, default=10.0
    sampling : {'reshuffle', 'permutation', 'iid'}, default='reshuffle'
    record_every : int or None, default=None
        Record the trace every that many iterations (and at the start and the end).
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    W : ndarray of shape (K, B, d)
    active : ndarray of shape (K, B), bool
    history : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective`` (:func:`amm_objective`),
        ``n_hyperplanes`` (in all classes); empty when ``record_every`` is None.
    """
    if mode not in AMM_MODES:
        raise ValueError(f"mode must be one of {AMM_MODES}, got {mode!r}.")
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam}.")
    if not (budget >= 1 and n_epochs >= 1):
        raise ValueError(f"budget and n_epochs must be >= 1, got {budget} and {n_epochs}.")
    path = resolve_backend(backend)
    n, d = X.shape
    n_iter = n_epochs * n
    rng = check_random_state(random_state)
    indices = sample_indices(n, n_iter, 1, sampling, rng)[:, 0]
    y = np.ascontiguousarray(y, dtype=np.int64)
    W = np.zeros((n_classes, budget, d))
    active = np.zeros((n_classes, budget), dtype=np.bool_)
    active[:, 0] = True  # every class starts with one zero hyperplane
    z = np.full(n, -1, dtype=np.int64)
    # the chunks end where the trace records, where pruning runs, and (batch) at epochs
    stops = {n_iter}
    for every in (record_every, prune_every, n if mode == "batch" else None):
        if every is not None:
            stops.update(range(every, n_iter, every))
    if path == "numba":
        data, cols, indptr = compiled_arrays(X)
    trace = Trace()

    def record(t):
        trace.record(iteration=t, epoch=t / n, seconds=trace.seconds,
                     objective=amm_objective(X, y, W, active, lam),
                     n_hyperplanes=int(active.sum()))

    if record_every is not None:
        record(0)
    start = 0
    for stop in sorted(stops):
        online = mode == "online" or stop <= n  # batch starts with one online epoch
        trace.start()
        if not online and start % n == 0:  # a new batch epoch: recompute z, fixed in it
            z = amm_assignments(X, y, W, active)
        if path == "numba":
            amm_numba_chunk(data, cols, indptr, y, W, active, z, indices[start:stop], start,
                            float(lam), online)
        else:
            amm_numpy_chunk(X, y, W, active, z, indices[start:stop], start, lam, online)
        if prune_every is not None and stop % prune_every == 0:
            for k, b in prune_hyperplanes(W, active, stop, lam, prune_c):
                z[(y == k) & (z == b)] = -1  # a pruned hyperplane's examples: reassigned
        trace.stop()
        if record_every is not None and (stop % record_every == 0 or stop == n_iter):
            record(stop)
        start = stop
    return W, active, trace.history()


class AdaptiveMultiHyperplaneClassifier(ClassifierMixin, BaseEstimator):
    r"""Adaptive multi-hyperplane machine (AMM): up to B linear hyperplanes per class.

    The score of class i is that of its best hyperplane, and AMM minimises

    .. math::

        P(W \mid z) = \frac{\lambda}{2}\sum_{i,j}\|w_{ij}\|^2 + \frac1n\sum_n
            \max\bigl(0,\ 1 + \max_{i \ne y_n} g(i, x_n) - w_{y_n z_n}^\top x_n\bigr),
        \qquad g(i, x) = \max_j w_{ij}^\top x,

    where :math:`z_n` assigns example n to one hyperplane of its class, by stochastic
    subgradient steps :math:`\eta_t = 1/(\lambda t)`: at iteration t, with
    :math:`(i^-, j^-)` the best wrong-class hyperplane,

    .. math::

        W \leftarrow (1 - \eta_t\lambda) W; \quad \text{if the hinge is positive:}\quad
        w_{i^- j^-} \leftarrow w_{i^- j^-} - \eta_t x_t, \quad
        w_{y_t z_t} \leftarrow w_{y_t z_t} + \eta_t x_t.

    Parameters
    ----------
    lam : float, default=1e-4
        Regularisation :math:`\lambda > 0` (BudgetedSVM's ``-L`` and its default; see
        Notes for the values that suit a9a and ijcnn1).
    budget : int, default=50
        B, the largest number of hyperplanes of a class (BudgetedSVM's ``-B`` and default).
    mode : {'online', 'batch'}, default='online'
        ``'online'``: :math:`z_t = \arg\max_j w_{y_t j}^\top x_t` at every step
        (BudgetedSVM's default algorithm). ``'batch'``: one online epoch, then at the
        start of every epoch :math:`z_n` is recomputed for all n and kept fixed during the
        epoch (SGD on the convex :math:`P(W \mid z)`), as the paper's batch algorithm.
    n_epochs : int, default=5
        Passes over the data: T = ``n_epochs`` n iterations of one example.
    prune_every : int or None, default=10000
        Prune after every that many iterations (BudgetedSVM's ``-k``); None: never.
    prune_c : float, default=10.0
        Pruning parameter c (BudgetedSVM's ``-c``): the hyperplanes of smallest norm
        whose squared norms add up to at most :math:`(c/(\lambda t))^2` are removed,
        never the last one of a class (:func:`prune_hyperplanes`).
    fit_intercept : bool, default=True
        Append the constant feature 1 to x; its weight, regularised like the others, is
        each hyperplane's intercept (BudgetedSVM's bias term ``-b 1``).
    sampling : {'reshuffle', 'permutation', 'iid'}, default='reshuffle'
        The order of the examples; ``'reshuffle'`` is BudgetedSVM's (a new permutation
        every epoch).
    record_every : int or None, default=None
        Record ``history_`` every that many iterations.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the order; the same seed gives the same model on both backends.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_hyperplanes, n_features)
        All hyperplanes, grouped by class in the order of ``classes_``.
    intercept_ : ndarray of shape (n_hyperplanes,)
    hyperplane_classes_ : ndarray of shape (n_hyperplanes,)
        The class label of each row of ``coef_``.
    n_hyperplanes_ : ndarray of shape (n_classes,)
        How many hyperplanes each class has (1 to B).
    history_ : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective`` (P with the best
        assignments, :func:`amm_objective`), ``n_hyperplanes`` (all classes).
    n_features_in_ : int

    See Also
    --------
    lsl_lib.pegasos.PegasosClassifier : with ``loss='multiclass_hinge'``, AMM with B = 1.
    LowRankLinearizedSVC : the other budgeted model of the toolbox.

    Notes
    -----
    *Hyperplanes.* Every class starts with one zero hyperplane. When an example with a
    positive hinge scores at most 0 on its assigned hyperplane, a fresh zero hyperplane
    would score at least as much (the paper's "infinitely many zero weights"): while its class has
    fewer than B hyperplanes, a new one is created from the example,
    :math:`w = \eta_t x_t`, and the example is assigned to it. When the class is full,
    the step goes to the assigned hyperplane (BudgetedSVM's online AMM skips the true-class
    step); so with B = 1 AMM *is* multiclass (Crammer-Singer) Pegasos on the same
    examples, without projection or averaging. Ties go to the first class and slot.

    *Cost.* An iteration costs :math:`O(KB\,\mathrm{nnz}(x))` (the weights are stored as
    :math:`aV` so the shrink is O(1)); prediction :math:`O(KB\,\mathrm{nnz}(x))`; the
    model holds at most KB hyperplanes of dimension d. The numpy reference
    (``backend='numpy'``) is 75-170 times slower than the compiled loop (5 000 rows of
    ijcnn1, two epochs).

    *Settings.* With the pruning defaults (k = 10 000, c = 10) the model stays small and B
    matters little beyond 10: on ijcnn1 (49 990 training rows, 22 features, 91 701 test
    rows), five epochs keep 11 to 27 hyperplanes in all for every B in 10, 50, 100, 500.
    The test error, mean of three seeds, and the fit time on a shared two-core machine:

    ===============  ==========  ==========  ===========
    lam              mode        error       fit
    ===============  ==========  ==========  ===========
    1e-4 (default)   online      3.42 %      0.3-0.5 s
    1e-4             batch       3.3-3.7 %   0.3-1.3 s
    1e-5             online      2.65 %      0.2-0.7 s
    1e-5             batch       2.8-3.1 %   0.4-1.1 s
    ===============  ==========  ==========  ===========

    (BudgetedSVM's paper reports 2.40 % for AMM batch.) The error of the last iterate
    moves by about half a point from seed to seed. On a9a (UCI Adult), a noisier
    problem, larger :math:`\lambda` is better: 15.1 % at 1e-3, 16.6-17.0 % at 1e-4,
    18-19 % at 1e-5 (online, five epochs). The default is BudgetedSVM's 1e-4; set
    ``lam`` per data set as for any SVM.

    References
    ----------
    Wang, Djuric, Crammer, Vucetic. Trading representability for scalability: adaptive
    multi-hyperplane machine for nonlinear classification. KDD 2011.

    Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
    JMLR 14, 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.budgeted import AdaptiveMultiHyperplaneClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(2000, 2)); y = np.sign(X[:, 0] * X[:, 1])  # XOR
    >>> clf = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=4, random_state=0)
    >>> bool(clf.fit(X, y).score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {
        "lam": [Interval(Real, 0, None, closed="neither")],
        "budget": [Interval(Integral, 1, None, closed="left")],
        "mode": [StrOptions(set(AMM_MODES))],
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "prune_every": [Interval(Integral, 1, None, closed="left"), None],
        "prune_c": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
    }

    def __init__(self, lam=1e-4, budget=50, mode="online", n_epochs=5, prune_every=10_000,
                 prune_c=10.0, fit_intercept=True, sampling="reshuffle", record_every=None,
                 backend="auto", random_state=None):
        self.lam = lam
        self.budget = budget
        self.mode = mode
        self.n_epochs = n_epochs
        self.prune_every = prune_every
        self.prune_c = prune_c
        self.fit_intercept = fit_intercept
        self.sampling = sampling
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit by ``n_epochs`` passes from one zero hyperplane per class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : AdaptiveMultiHyperplaneClassifier
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_, label = np.unique(y, return_inverse=True)
        check_n_classes(self.classes_, None, ())
        if self.fit_intercept:
            X = add_intercept_column(X)
        W, active, self.history_ = amm(
            X, label, self.lam, len(self.classes_), self.budget, mode=self.mode,
            n_epochs=self.n_epochs, prune_every=self.prune_every, prune_c=self.prune_c,
            sampling=self.sampling, record_every=self.record_every, backend=self.backend,
            random_state=self.random_state)
        hyperplanes = W[active]  # (class, slot) in C order: grouped by class
        d = self.n_features_in_
        self.coef_ = hyperplanes[:, :d].copy()
        self.intercept_ = hyperplanes[:, d].copy() if self.fit_intercept \
            else np.zeros(len(hyperplanes))
        self.n_hyperplanes_ = active.sum(axis=1)
        self.hyperplane_classes_ = np.repeat(self.classes_, self.n_hyperplanes_)
        return self

    def _class_scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        s = np.asarray(X @ self.coef_.T) + self.intercept_
        starts = np.concatenate([[0], np.cumsum(self.n_hyperplanes_)[:-1]])
        return np.maximum.reduceat(s, starts, axis=1)

    def decision_function(self, X):
        r"""Class scores :math:`g(i, x) = \max_j (w_{ij}^\top x + b_{ij})`, shape (n, K);
        for two classes, :math:`g(1, x) - g(0, x)`, shape (n,)."""
        g = self._class_scores(X)
        return g[:, 1] - g[:, 0] if g.shape[1] == 2 else g

    def predict(self, X):
        return labels_from_scores(self.decision_function(X), self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# ---- LLSVM: low-rank linearized SVM ----

LANDMARKS = ("random", "kmeans")


class LowRankLinearizedSVC(ClassifierMixin, BaseEstimator):
    r"""Low-rank linearized SVM (LLSVM): Nyström features of B landmarks, then a linear SVM.

    .. math::

        z(x) = K_{BB}^{-1/2}\, k_B(x), \qquad
        \min_w \frac12\|w\|^2 + C\sum_i \max(0,\ 1 - y_i w^\top z(x_i)),

    the kernel SVM with the kernel replaced by its rank-B approximation
    :math:`k_B(x)^\top K_{BB}^{+} k_B(x')`. The map is that of
    :class:`lsl_lib.nystroem.Nystroem` (:func:`lsl_lib.nystroem.inverse_square_root`),
    the SVM is solved by dual coordinate descent (:func:`lsl_lib.coordinate_descent.dual_cd`,
    liblinear's solver); more than two classes are one-vs-rest, as liblinear.

    Parameters
    ----------
    budget : int, default=100
        B, the number of landmarks (capped at n_samples with a ``UserWarning``).
    landmarks : {'random', 'kmeans'}, default='random'
        B training points drawn uniformly without replacement, or the B centres of
        scikit-learn's ``KMeans`` (one k-means++ initialisation), as the paper.
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d\,\mathrm{Var}(X))`, None is 1/d
        (:func:`lsl_lib.kernels.fitted_gamma`).
    degree : int, default=3
    coef0 : float, default=1.0
    C : float, default=1.0
        Weight of the hinge losses; :math:`\lambda = 1/(Cn)` in Pegasos' scaling.
    fit_intercept : bool, default=False
        Append a constant feature 1 to z(x) (its weight is regularised, as liblinear's).
        The paper's model, and the exact kernel SVM it approximates, have none.
    tol : float, default=1e-4
        Stopping tolerance of dual coordinate descent (liblinear's).
    max_iter : int, default=1000
        Maximum number of epochs of dual coordinate descent.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        The path of dual coordinate descent.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the landmarks (or k-means) and the coordinate order.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    landmarks_ : ndarray of shape (B, n_features)
        The landmarks (dense).
    normalization_ : ndarray of shape (B, B)
        :math:`K_{BB}^{-1/2}` (pseudo-inverse square root).
    gamma_ : float
        The kernel width used.
    coef_ : ndarray of shape (1, B) or (n_classes, B)
        The linear SVM(s) on z(x).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : int
        Largest number of epochs of dual coordinate descent (over the classes).
    n_features_in_ : int

    See Also
    --------
    lsl_lib.nystroem.Nystroem : the feature map alone.
    lsl_lib.coordinate_descent.DualCDClassifier : the linear SVM alone.
    AdaptiveMultiHyperplaneClassifier

    Notes
    -----
    With every training point a landmark, :math:`ZZ^\top = K` and LLSVM is the exact
    kernel SVM without intercept. Training costs :math:`O(nBd + nB^2 + B^3)` for the map
    plus the linear SVM on n x B features; prediction :math:`O(Bd + B^2)` per example.

    On ijcnn1 (49 990 training rows, 91 701 test rows, 9.5 % positive), gamma='scale'
    (0.70), C = 32, test error and fit time on a shared two-core machine (with C = 1 the
    error at B = 100 is 5.4 %; gamma = 1 or 2 is worse):

    ===========  ==========  ==========  ==========  ==========
    landmarks    B = 10      B = 50      B = 100     B = 500
    ===========  ==========  ==========  ==========  ==========
    random       9.50 %      8.10 %      3.48 %      1.68 %
    kmeans       9.50 %      9.36 %      3.66 %      1.56 %
    fit          1-2 s       3-11 s      3-8 s       9-43 s
    ===========  ==========  ==========  ==========  ==========

    Below 100 landmarks the rank-B kernel cannot resolve the minority class (9.50 % is
    the all-negative rule; an intercept does not help); k-means landmarks cost more (the
    43 s at B = 500 is mostly k-means) and are not better here, where the centres follow
    the majority class.

    References
    ----------
    Zhang, Lan, Wang, Moerchen. Scaling up kernel SVM on limited resources: a low-rank
    linearization approach. AISTATS 2012.

    Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
    JMLR 14, 2013.

    Examples
    --------
    >>> from lsl_lib.datasets import concentric_circles
    >>> from lsl_lib.budgeted import LowRankLinearizedSVC
    >>> X, y = concentric_circles(400, random_state=0)
    >>> clf = LowRankLinearizedSVC(budget=20, landmarks='kmeans', random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {
        "budget": [Interval(Integral, 1, None, closed="left")],
        "landmarks": [StrOptions(set(LANDMARKS))],
        **_LEARNER_KERNEL_CONSTRAINTS,
        "C": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "backend": ITERATIVE_CONSTRAINTS["backend"],
        "random_state": ITERATIVE_CONSTRAINTS["random_state"],
    }

    def __init__(self, budget=100, landmarks="random", kernel="gaussian", gamma="scale",
                 degree=3, coef0=1.0, C=1.0, fit_intercept=False, tol=1e-4, max_iter=1000,
                 backend="auto", random_state=None):
        self.budget = budget
        self.landmarks = landmarks
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.C = C
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.backend = backend
        self.random_state = random_state

    def _check_sparse(self, X):
        if sp.issparse(X) and self.kernel not in INNER_PRODUCT_KERNELS:
            raise TypeError(f"sparse X is supported with kernel in {INNER_PRODUCT_KERNELS}; "
                            f"kernel={self.kernel!r} needs a dense X.")

    def _features(self, X):
        """:math:`z(x) = K_{BB}^{-1/2} k_B(x)` of every row of X, in row blocks."""
        B = len(self.landmarks_)
        Z = np.empty((X.shape[0], B))
        for rows in _row_blocks(X.shape[0], B):
            K = kernel_matrix(X[rows], self.landmarks_, self.kernel, self.gamma_, self.degree,
                              self.coef0)
            np.matmul(K, self.normalization_, out=Z[rows])
        return Z

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Choose the landmarks, map X, and train the linear SVM(s).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : LowRankLinearizedSVC
        """
        self._check_sparse(X)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_, label = np.unique(y, return_inverse=True)
        check_n_classes(self.classes_, None, ())
        n = X.shape[0]
        B = self.budget
        if B > n:
            warnings.warn(f"budget={B} is larger than n_samples={n}; using budget={n}: "
                          "every sample is a landmark.", UserWarning)
            B = n
        rng = check_random_state(self.random_state)
        self.gamma_ = fitted_gamma(self.gamma, X)
        if self.landmarks == "random":
            self.landmarks_ = _dense_rows(X, rng.choice(n, B, replace=False))
        else:
            seed = int(rng.integers(np.iinfo(np.int32).max))
            kmeans = KMeans(n_clusters=B, n_init=1, random_state=seed).fit(X)
            self.landmarks_ = np.asarray(kmeans.cluster_centers_, dtype=np.float64)
        self.normalization_ = inverse_square_root(
            kernel_matrix(self.landmarks_, None, self.kernel, self.gamma_, self.degree,
                          self.coef0))
        Z = self._features(X)
        bias = 1.0 if self.fit_intercept else 0.0
        n_classes = len(self.classes_)
        problems = [1] if n_classes == 2 else range(n_classes)  # one-vs-rest beyond two
        coef, intercept, self.n_iter_ = [], [], 0
        for k in problems:
            w, _, epochs, _ = dual_cd(Z, np.where(label == k, 1.0, -1.0), self.C, tol=self.tol,
                                      max_iter=self.max_iter, bias=bias, backend=self.backend,
                                      random_state=rng)
            coef.append(w[:-1])
            intercept.append(bias * w[-1])
            self.n_iter_ = max(self.n_iter_, epochs)
        self.coef_, self.intercept_ = np.array(coef), np.array(intercept)
        return self

    def decision_function(self, X):
        r"""Scores :math:`w^\top z(x) + b`: shape (n,) for two classes (that of
        ``classes_[1]``), (n, K) one-vs-rest scores otherwise."""
        check_is_fitted(self)
        self._check_sparse(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        s = self._features(X) @ self.coef_.T + self.intercept_
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        return labels_from_scores(self.decision_function(X), self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        return tags
