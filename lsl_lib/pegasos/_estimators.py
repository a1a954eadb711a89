"""Pegasos' scikit-learn estimators: :class:`PegasosClassifier`, :class:`PegasosRegressor`.

They validate the data, map the labels, add the intercept column and call the
functional core :func:`lsl_lib.pegasos.pegasos` (``_algorithm.py``).
"""
import math
from numbers import Integral, Real

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import _check_partial_fit_first_call
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.random import check_random_state
from lsl_lib._core.run_loop import unfitted_on_interrupt
from lsl_lib._core.scores import labels_from_scores, one_vs_rest_probabilities
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    add_intercept_column,
    check_n_classes,
    check_sample_weight,
    clipped_batch_size,
    signed_binary_labels,
)
from lsl_lib.losses import get_loss
from lsl_lib.pegasos._algorithm import (
    _AVERAGING,
    PegasosState,
    pegasos,
    reference_solution,
    weighted_objective,
)

#: The default run's cap on the examples kT (``n_iter=None``): 30/lam for tiny lam would
#: draw 3e13 indices at lam=1e-12.
_MAX_DEFAULT_EXAMPLES = 10**7


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
        "averaging": [StrOptions(set(_AVERAGING))],
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
        r"""``n_iter``, or by default :math:`kT = \max(5n, \min(30/\lambda, 10^7))` examples
        (see Notes), in mini-batches of k = :meth:`_batch_size`."""
        if self.n_iter is not None:
            return self.n_iter
        examples = max(5 * n_samples, min(math.ceil(30.0 / self.lam), _MAX_DEFAULT_EXAMPLES))
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
        r"""Validated X's scores :math:`XW^\top + b`, shape (n, K)."""
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

    *Length.* Those rates are in :math:`\lambda T`, not in epochs: five epochs of a few
    thousand rows with ``lam=1e-4`` are :math:`\lambda T` of order 1, where even the suffix
    average is far from :math:`f^*`. The default runs :math:`\lambda k T \ge 30` (k examples
    per step), and at least five epochs. ``lam=1e-4`` is :math:`C = 1/(\lambda n)` = 1 for
    n = 10 000, liblinear's default on a problem of that size. Measured against
    ``LinearSVC`` in benchmarks/README.md, §"Pegasos: averaging, length and the defaults".
    The lectures set the paper's settings (``averaging='none'``, a number of epochs)
    explicitly where they teach Algorithm 1.

    With ``eval_set=(X_test, y_test)`` passed to ``fit`` and ``record_every`` set,
    ``history_['test_error']`` follows the test error along the iterations.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".

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
        r"""Fit by ``n_iter`` Pegasos iterations from w = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i`, drawn in proportion (:mod:`lsl_lib`),
            times ``class_weight``. ``n_iter=None`` and ``partial_fit`` count passes in
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
        r"""One pass over (X, y): :math:`\lceil n/k \rceil` iterations, t continuing.

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
        r"""Scores :math:`\langle w, x\rangle + b`, shape (n, K); (n,) for two classes.

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
        r"""Class probabilities: :math:`\sigma(s)` for ``'log'`` (one-vs-rest normalised),
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
        As in :class:`PegasosClassifier`. With the defaults and standardised features
        the suffix average reaches the test :math:`R^2` of least squares
        (benchmarks/README.md, §"Pegasos: averaging, length and the defaults").
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
                 step_offset="auto", fit_intercept=True, record_every=None,
                 reference_objective=None, backend="auto", random_state=None, verbose=False):
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
        r"""One pass over (X, y): :math:`\lceil n/k \rceil` iterations, t continuing
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
