"""The scikit-learn estimators of SGD, SVRG, SARAH and SARAH+:
:class:`StochasticGradientClassifier` and :class:`StochasticGradientRegressor`.

They validate the data, map the labels, add the intercept column and call the
functional core :func:`lsl_lib.stochastic_gradient.stochastic_gradient` (``_algorithm.py``).
"""
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.run_loop import unfitted_on_interrupt
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    add_intercept_column,
    check_n_classes,
    clipped_batch_size,
    signed_binary_labels,
)
from lsl_lib.losses import primal_objective
from lsl_lib.pegasos import reference_solution
from lsl_lib.stochastic_gradient._algorithm import (
    _OUTPUTS,
    METHODS,
    FiniteSumObjective,
    StochasticGradientState,
    get_smooth_loss,
    stochastic_gradient,
)


class _BaseStochasticGradient(BaseEstimator):
    """Parameters, validation and the fitting loop shared by both estimators."""

    _parameter_constraints = {
        "method": [StrOptions(set(METHODS))],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "eta": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "inner_loop": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "output": [StrOptions(set(_OUTPUTS))],
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
        r"""Validated X's scores :math:`\langle w, x\rangle + b`: shape (n,), or (n, K) for
        the K rows of a one-vs-rest ``coef_``."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class StochasticGradientClassifier(ScoreClassifierMixin, _BaseStochasticGradient):
    r"""Linear classifier trained by SGD, SVRG, SARAH or SARAH+.

    Minimises :math:`\frac1n\sum_i \ell(y_i, \langle w, x_i\rangle) + \frac{\lambda}{2}\|w\|^2`
    with labels mapped to -1/+1 and back; more than two classes are learnt one-vs-rest
    (one binary model per class, as ``LinearSVC`` and ``SGDClassifier``;
    :class:`~lsl_lib._core.classifier.ScoreClassifierMixin`).

    Parameters
    ----------
    loss : {'log', 'smoothed_hinge'}, default='log'
        Logistic regression, or the smoothed hinge of :class:`lsl_lib.losses.SmoothedHinge`.

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
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
        w; with more than two classes, one row per class of ``classes_``.
    intercept_ : float or ndarray of shape (n_classes,)
    t_ : int
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
        ``grad_norm2``, and ``suboptimality`` / ``test_error`` when asked for (``eval_set``).
    n_features_in_ : int
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of StochasticGradientClassifier or None
        With more than two classes, the binary model of each class of ``classes_``
        (fitted on ``y == class``); their ``smoothness_``, ``effective_passes_`` and
        ``inner_loop_lengths_`` are theirs. None for two classes.

    Notes
    -----
    The defaults (SARAH, :math:`\lambda = 10^{-4}`, :math:`\eta = 1/(2L)`, m = n, 10
    outer loops: about 30 effective passes) were measured against scikit-learn's
    classifiers with their own defaults: benchmarks/README.md, §"SGD, SVRG, SARAH: the
    estimators' defaults". ``method='sgd'`` with its ``'auto'`` step is the lecture's
    baseline, not a recommendation: while :math:`\lambda t < L` its step is about
    :math:`1/L`, and its last iterate sits at the noise floor of that step. The step follows
    the longest row: standardise the features first.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".
    Ctrl-C waits for the running outer loop of SVRG or SARAH; with more than two classes, an
    interrupted ``partial_fit`` leaves the classes done so far having seen the chunk, the
    others not.

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
        r"""One SGD pass over the rows of (X, y) in the order given.

        Available with ``method='sgd'`` only (an ``AttributeError`` naming ``method``
        otherwise: the variance-reduced methods need full gradients).

        The pass makes :math:`\lceil n/k\rceil` steps on mini-batches of k consecutive
        rows (the last one wraps around to the first rows; k is clipped to the n rows of a
        shorter chunk), continuing the step count t of the previous calls (or of ``fit``):
        :math:`\eta_t = 1/(\lambda t + L)`, L the largest over the chunks seen.
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
        r"""Scores :math:`\langle w, x\rangle + b`: of ``classes_[1]``, shape (n,), for two
        classes; one column per class otherwise."""
        return self._scores(X)

    def _has_proba(self):
        return self.loss == "log"

    def _eval_metric(self, scores, y):
        return float(np.mean(labels_from_scores(scores, self.classes_) != y))


class StochasticGradientRegressor(RegressorMixin, _BaseStochasticGradient):
    r"""Ridge regression trained by SGD, SVRG, SARAH or SARAH+.

    Minimises
    :math:`\frac1n\sum_i \frac12(\langle w, x_i\rangle - y_i)^2 + \frac{\lambda}{2}\|w\|^2`.

    Parameters
    ----------
    loss : {'squared'}, default='squared'

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
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    t_ : int
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
        ``grad_norm2``, and ``suboptimality`` / ``test_mse`` when asked for (``eval_set``).
    n_features_in_ : int

    Notes
    -----
    The defaults are measured as for :class:`StochasticGradientClassifier`
    (benchmarks/README.md). The step follows the longest row: on features that span
    orders of magnitude, :math:`1/(2L)` is tiny and 10 outer loops leave w near 0;
    standardise first.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".

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
