"""The random kitchen sinks estimators: a classifier and a regressor over the feature
families and the box-constrained fits (see :mod:`lsl_lib.kitchen_sinks`)."""
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.random import check_random_state
from lsl_lib._core.run_loop import unfitted_on_error
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    check_n_classes,
    check_sample_weight,
    signed_binary_labels,
)
from lsl_lib.kitchen_sinks._features import FEATURES, draw_features, feature_matrix, kernel_exponent
from lsl_lib.kitchen_sinks._solvers import fit_hinge, fit_log, fit_squared

#: The losses, by task.
_CLASSIFIER_LOSSES = ("hinge", "log")
_REGRESSOR_LOSSES = ("squared",)

#: ``C='auto'``: the box is this many times the targets' scale (1 for the classifier's
#: +-1 labels, the standard deviation of y for the regressor), |alpha_k| <= _AUTO_BOX * scale / K.
_AUTO_BOX = 1000.0

#: A fit with at least this share of its weights on the box warns (:class:`BoxLimitedWarning`).
_BOX_LIMITED_SHARE = 0.9

#: A built-in family whose kernel exponent at a typical pair of training inputs exceeds this
#: (gamma E||x - x'||^2; gamma E||x - x'||_1 for ``binning``) warns: its sinks are noise there.
_NOISE_EXPONENT = 1000.0


class BoxLimitedWarning(UserWarning):
    r"""At least :data:`_BOX_LIMITED_SHARE` of the weights sit on the box :math:`|\alpha_k| = C/K`:
    the box, not the data, shaped the fit (raise ``C``, or ``C=None`` removes the box)."""


class _BaseKitchenSinks(BaseEstimator):
    """Parameters, the feature draw and the box shared by the classifier and the regressor."""

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "C": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"}), None],
        "feature": [StrOptions(set(FEATURES)), tuple],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ITERATIVE_CONSTRAINTS["random_state"],
    }

    def _check_pair(self):
        pair = self.feature
        if isinstance(pair, tuple) and not (len(pair) == 2 and all(map(callable, pair))):
            raise ValueError(f"feature must be one of {FEATURES} or a pair (phi, sampler) of "
                             f"callables, got a tuple of {len(pair)} items with types "
                             f"{[type(f).__name__ for f in pair]}.")

    def _draw(self, X):
        """Draw the K feature parameters (the only randomness of the fit)."""
        self._check_pair()
        rng = check_random_state(self.random_state)
        K = self.n_components
        if isinstance(self.feature, tuple):
            self.gamma_ = self.gamma
            self.feature_params_ = self.feature[1](rng, X.shape[1], K)
            return
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        self.feature_params_ = draw_features(self.feature, X, K, self.gamma_, rng)

    def transform_features(self, X):
        r"""The random features :math:`\Phi_{ik} = \phi(x_i; w_k)` of X, shape (n, K)."""
        check_is_fitted(self, "feature_params_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                          reset=False)
        return self._features(X)

    def _features(self, X):
        if not isinstance(self.feature, tuple):
            return feature_matrix(self.feature, X, self.feature_params_)
        Phi = np.asarray(self.feature[0](X, self.feature_params_), dtype=np.float64)
        if Phi.shape != (X.shape[0], self.n_components):
            raise ValueError(f"feature: phi(X, params) must return an array of shape "
                             f"(n_samples, n_components) = {(X.shape[0], self.n_components)}, "
                             f"got {Phi.shape}.")
        if not np.all(np.abs(Phi) <= 1.0):  # also refuses NaN
            raise ValueError("feature: phi must be bounded, |phi(x; w)| <= 1 (the box C/K and "
                             "Rahimi and Recht's bound assume it); rescale phi.")
        return Phi

    def _box_scale(self, targets, sample_weight):
        """The scale of the targets that ``C='auto'`` multiplies: 1 for labels of +-1."""
        return 1.0

    def _fit_outputs(self, X, targets, sample_weight, loss):
        """Draw the features and fit one α per column of ``targets`` under the box."""
        self._draw(X)
        self._warn_if_noise(X)
        Phi = self._features(X)
        self.C_ = (_AUTO_BOX * self._box_scale(targets, sample_weight) if self.C == "auto"
                   else self.C)
        bound = None if self.C_ is None else self.C_ / self.n_components
        fit = {"squared": fit_squared, "log": fit_log, "hinge": fit_hinge}[loss]
        extra = ({"tol": self.tol, "max_iter": self.max_iter} if loss == "log" else
                 {"time_limit": self.time_limit} if loss == "hinge" else {})
        fits = [fit(Phi, t, bound, sample_weight, self.fit_intercept, **extra) for t in targets]
        coefs = np.array([coef for coef, _ in fits])
        self.n_iter_ = np.array([n_iter for _, n_iter in fits])
        if self.fit_intercept:
            coefs, intercepts = coefs[:, :-1], coefs[:, -1]
        else:
            intercepts = np.zeros(len(coefs))
        if bound is not None:  # solvers meet the box to rounding: clip what rounding left
            np.clip(coefs, -bound, bound, out=coefs)
        self.bound_ = bound
        self.n_active_constraints_ = (0 if bound is None else
                                      int(np.sum(np.abs(coefs) >= bound * (1 - 1e-6))))
        if bound is not None and self.n_active_constraints_ >= _BOX_LIMITED_SHARE * coefs.size:
            warnings.warn(
                f"{self.n_active_constraints_} of {coefs.size} weights sit on the box "
                f"|alpha_k| <= C/K = {bound:.3g}: the box, not the data, shaped this fit, whose "
                f"scores are bounded by |f(x) - b| <= C = {self.C_:.3g}. Raise C (C=None "
                f"removes the box)" + ("" if self.fit_intercept else
                                       ", or set fit_intercept=True (b is outside the box)")
                + ".", BoxLimitedWarning, stacklevel=4)
        return coefs, intercepts

    def _warn_if_noise(self, X):
        """Warn when the built-in family's sinks are noise on X (:func:`kernel_exponent`)."""
        if isinstance(self.feature, tuple):
            return
        exponent = kernel_exponent(self.feature, X, self.gamma_)
        if exponent > _NOISE_EXPONENT:
            norm = "||x - x'||_1" if self.feature == "binning" else "||x - x'||^2"
            warnings.warn(
                f"gamma={self.gamma_:.3g} is far too large for the spread of X: gamma E{norm} "
                f"= {exponent:.3g} at a typical pair of training inputs (2 on "
                f"standardised features with the default gamma = 1/n_features), so the "
                f"{self.feature!r} sinks change between any two inputs and the fit is a fit on "
                f"noise. One column of a much larger scale than the others does this. "
                f"Standardise the features (make_pipeline(StandardScaler(), ...)) or lower "
                f"gamma.", UserWarning, stacklevel=5)

    def _scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._features(X) @ self.coef_.T + self.intercept_

    def _sample_weight(self, X, sample_weight):
        return None if sample_weight is None else check_sample_weight(sample_weight, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class RandomKitchenSinksClassifier(ScoreClassifierMixin, _BaseKitchenSinks):
    r"""Weighted sum of random kitchen sinks, a classifier (Rahimi and Recht 2008).

    .. math::

        f(x) = \sum_{k=1}^K \alpha_k \phi(x; w_k) \;(+\, b), \qquad
        w_k \overset{\text{iid}}{\sim} p, \qquad
        \hat\alpha = \operatorname*{arg\,min}_{\|\alpha\|_\infty \le C/K}
        \frac{1}{n}\sum_i c\big(y_i f(x_i)\big),

    with the hinge :math:`c(z) = \max(0, 1 - z)` or the logistic loss
    :math:`c(z) = \log(1 + e^{-z})`, both 1-Lipschitz as Theorem 1 asks. More than two
    classes: one-vs-rest, one α per class on the same features, predicting the class of
    largest score.

    Parameters
    ----------
    n_components : int >= 1, default=300
        K, the number of random features (kitchen sinks); 300 rather than scikit-learn's
        ``RBFSampler``'s 100, chosen on the shared data sets (benchmarks/README.md, §Random
        kitchen sinks). Memory: the n x K features, twice for ``loss='log'`` with an
        intercept.
    C : float > 0, 'auto' or None, default='auto'
        The box: :math:`|\alpha_k| \le C/K`, so that :math:`\|f - b\|_\infty \le C` and
        f - b is a K-term estimate of a member of :math:`\mathcal F_p`. ``None``:
        unconstrained. ``'auto'``: :data:`_AUTO_BOX` (1000) times the scale of the targets,
        1 for the classifier (its scores are margins of labels of +-1) and the standard
        deviation of y for the regressor (about its weighted mean; about 0 when
        ``fit_intercept=False``), so that fitting ``a * y + c`` gives ``a * f + c``. It is
        meant to leave most weights free: the default is the least squares or logistic fit of
        the K sinks, and the box only stops weights that would run off. The value used is
        ``C_``.
    feature : {'fourier', 'bump', 'sigmoid', 'binning'} or (phi, sampler), default='fourier'
        The family (see :mod:`lsl_lib.kitchen_sinks`), or a pair of callables:
        ``sampler(rng, n_features, K) -> params`` draws the parameters from a
        ``numpy.random.Generator``, ``phi(X, params) -> (n_samples, K)`` evaluates them;
        :math:`|\phi| \le 1` is required (checked on every X).
    gamma : float > 0 or None, default=None
        The scale of the family (see :func:`draw_features`); ``None`` is 1/d, made for
        standardised features. A built-in family whose sinks are noise on X (one column of a
        much larger scale than the others: :func:`kernel_exponent` above
        :data:`_NOISE_EXPONENT`) warns. Unused by a pair.
    fit_intercept : bool, default=True
        Add an unconstrained constant b to f. Rahimi and Recht's class has none; without it,
        targets far from 0 (a regression target near 84) or unbalanced classes must be
        built from the sinks inside the box, which bounded sinks of random phase do badly.
    tol : float > 0, default=1e-4
        Projected-gradient tolerance of L-BFGS-B (``loss='log'``), that of scikit-learn's
        ``LogisticRegression``. Near separability the logistic risk is flat in some
        directions: then 1e-12 pins the weights (and which of them sit on the box) to a few
        digits, at several times the iterations.
    max_iter : int >= 1, default=1000
        Iterations of L-BFGS-B (``loss='log'``).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the draw of the features, the only randomness.
    loss : {'log', 'hinge'}, default='log'
        The logistic loss (L-BFGS-B with the box: seconds at a few 10⁴ rows; adds
        :meth:`predict_proba`), or the hinge of the paper's experiments, whose linear program
        is solved exactly but in a time that grows faster than n (a few thousand rows; see
        :func:`fit_hinge`).
    time_limit : float > 0 or None, default=60.0
        Seconds the hinge's LP may run (HiGHS's ``time_limit``; ``loss='hinge'`` only): past
        it, ``fit`` raises ``RuntimeError``. None: no limit. Ctrl-C stops the fit at once
        in any case.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, K) for two classes, else (n_classes, K)
        α, one row per one-vs-rest problem.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        b (zeros when ``fit_intercept=False``).
    feature_params_ : dict or object
        The drawn :math:`w_1, \dots, w_K` (:func:`draw_features`; what ``sampler`` returned
        for a pair).
    gamma_ : float or None
        The scale used.
    C_ : float or None
        The box's C used (``C``, or what ``'auto'`` made of it).
    bound_ : float or None
        C_/K, the box (None when unconstrained).
    n_iter_ : ndarray of shape (n_outputs,)
        The solver's iterations per output (BVLS, L-BFGS-B or HiGHS; 1 for an
        unconstrained least squares).
    n_active_constraints_ : int
        How many :math:`\alpha_k` sit on the box, :math:`|\alpha_k| = C/K` (to a relative
        1e-6), over all outputs.
    n_features_in_ : int

    See Also
    --------
    RandomKitchenSinksRegressor
    lsl_lib.random_features.RandomFourierFeatures : the ``fourier`` features of a kernel.
    lsl_lib.theory.kitchen_sinks_bound : the excess-risk bound of Theorem 1.

    Notes
    -----
    Solvers (each returns the exact constrained minimiser, to solver tolerance, because the
    problem is convex and small in K): squared loss by box-constrained least squares
    (:func:`fit_squared`: a thin QR, then BVLS, an active-set method that terminates at the
    exact solution); log loss by L-BFGS-B (:func:`fit_log`, bounds handled natively, O(nK)
    per iteration, on centred features when there is an intercept); hinge loss by a linear
    program solved by HiGHS (:func:`fit_hinge`, an exact vertex). Squared and log losses
    scale to n of a few 10⁴ and K of 10³; the hinge LP to a few thousand examples (its time
    grows faster than n, hence ``time_limit``). There is no iteration loop of ours to
    compile: the cost is in BLAS and in scipy's solvers, so there is no numba path.

    Ctrl-C, or Jupyter's "interrupt kernel", stops a fit within one step of L-BFGS-B or
    BVLS, and at once during the hinge's LP, which HiGHS solves in a worker thread (the
    abandoned solve runs on to its end or to ``time_limit``, and is dropped). The squared
    loss's QR and least squares are single LAPACK calls of O(nK²), which Ctrl-C waits for. A
    fit interrupted, or failed, leaves the estimator unfitted. The defaults and what they
    reach on real data: benchmarks/README.md, §Random kitchen sinks.

    References
    ----------
    Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
    randomization in learning. NIPS 2008.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from lsl_lib.kitchen_sinks import RandomKitchenSinksClassifier
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> clf = RandomKitchenSinksClassifier(n_components=100, C=50, gamma=2.0,
    ...                                    random_state=0).fit(X, y)
    >>> bool(abs(clf.coef_).max() <= 50 / 100), clf.score(X, y) > 0.95
    (True, True)
    """

    _parameter_constraints = {**_BaseKitchenSinks._parameter_constraints,
                              "loss": [StrOptions(set(_CLASSIFIER_LOSSES))],
                              "time_limit": [Interval(Real, 0, None, closed="neither"), None]}

    def __init__(self, n_components=300, C="auto", feature="fourier", gamma=None, loss="log",
                 fit_intercept=True, tol=1e-4, max_iter=1000, time_limit=60.0,
                 random_state=None):
        self.n_components = n_components
        self.C = C
        self.feature = feature
        self.gamma = gamma
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.random_state = random_state

    @unfitted_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        r"""Draw the K features and fit α under the box, one-vs-rest beyond two classes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            CSR is accepted (the built-in families read X through products, or row by row).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i`: the risk :math:`\sum_i s_i c_i / \sum_i s_i`.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        check_n_classes(self.classes_, self.loss, ())
        sample_weight = self._sample_weight(X, sample_weight)
        if len(self.classes_) == 2:
            targets = [signed_binary_labels(y, self.classes_)]
        else:
            targets = [np.where(y == c, 1.0, -1.0) for c in self.classes_]
        self.coef_, self.intercept_ = self._fit_outputs(X, targets, sample_weight, self.loss)
        return self

    def _binary_only(self):
        return False  # one-vs-rest of its own: the K features are drawn once for all classes

    def _decision_scores(self, X):
        r"""Scores f(x): shape (n,) for two classes (that of ``classes_[1]``), else (n, n_classes).
        With ``loss='log'``, :meth:`predict_proba` is :math:`\sigma(f(x))` for two classes and
        the one-vs-rest probabilities normalised to sum to 1 otherwise (as scikit-learn's
        one-vs-rest logistic regression)."""
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def _has_proba(self):
        return self.loss == "log"


class RandomKitchenSinksRegressor(RegressorMixin, _BaseKitchenSinks):
    r"""Weighted sum of random kitchen sinks, a regressor (Rahimi and Recht 2008).

    .. math::

        f(x) = \sum_{k=1}^K \alpha_k \phi(x; w_k) \;(+\, b), \qquad
        \hat\alpha = \operatorname*{arg\,min}_{\|\alpha\|_\infty \le C/K}
        \frac1n\sum_i \big(y_i - f(x_i)\big)^2.

    The squared loss is Lipschitz on the bounded range that the theorem works on: with
    :math:`|y| \le Y` and :math:`|f| \le C`, :math:`L = 2(Y + C)`.

    Parameters
    ----------
    n_components : int >= 1, default=300
        K, the number of random features (kitchen sinks); 300 rather than scikit-learn's
        ``RBFSampler``'s 100, chosen on the shared data sets (benchmarks/README.md, §Random
        kitchen sinks). Memory: the n x K features, twice for ``loss='log'`` with an
        intercept.
    C : float > 0, 'auto' or None, default='auto'
        The box: :math:`|\alpha_k| \le C/K`, so that :math:`\|f - b\|_\infty \le C` and
        f - b is a K-term estimate of a member of :math:`\mathcal F_p`. ``None``:
        unconstrained. ``'auto'``: :data:`_AUTO_BOX` (1000) times the scale of the targets,
        1 for the classifier (its scores are margins of labels of +-1) and the standard
        deviation of y for the regressor (about its weighted mean; about 0 when
        ``fit_intercept=False``), so that fitting ``a * y + c`` gives ``a * f + c``. It is
        meant to leave most weights free: the default is the least squares or logistic fit of
        the K sinks, and the box only stops weights that would run off. The value used is
        ``C_``.
    feature : {'fourier', 'bump', 'sigmoid', 'binning'} or (phi, sampler), default='fourier'
        The family (see :mod:`lsl_lib.kitchen_sinks`), or a pair of callables:
        ``sampler(rng, n_features, K) -> params`` draws the parameters from a
        ``numpy.random.Generator``, ``phi(X, params) -> (n_samples, K)`` evaluates them;
        :math:`|\phi| \le 1` is required (checked on every X).
    gamma : float > 0 or None, default=None
        The scale of the family (see :func:`draw_features`); ``None`` is 1/d, made for
        standardised features. A built-in family whose sinks are noise on X (one column of a
        much larger scale than the others: :func:`kernel_exponent` above
        :data:`_NOISE_EXPONENT`) warns. Unused by a pair.
    fit_intercept : bool, default=True
        Add an unconstrained constant b to f. Rahimi and Recht's class has none; without it,
        targets far from 0 (a regression target near 84) or unbalanced classes must be
        built from the sinks inside the box, which bounded sinks of random phase do badly.
    tol : float > 0, default=1e-4
        Projected-gradient tolerance of L-BFGS-B (``loss='log'``), that of scikit-learn's
        ``LogisticRegression``. Near separability the logistic risk is flat in some
        directions: then 1e-12 pins the weights (and which of them sit on the box) to a few
        digits, at several times the iterations.
    max_iter : int >= 1, default=1000
        Iterations of L-BFGS-B (``loss='log'``).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the draw of the features, the only randomness.
    loss : {'squared'}, default='squared'

    Attributes
    ----------
    coef_ : ndarray of shape (K,)
        α.
    intercept_ : float
        b (0 when ``fit_intercept=False``).
    feature_params_ : dict or object
        The drawn :math:`w_1, \dots, w_K` (:func:`draw_features`; what ``sampler`` returned
        for a pair).
    gamma_ : float or None
        The scale used.
    C_ : float or None
        The box's C used (``C``, or what ``'auto'`` made of it).
    bound_ : float or None
        C_/K, the box (None when unconstrained).
    n_iter_ : ndarray of shape (n_outputs,)
        The solver's iterations per output (BVLS, L-BFGS-B or HiGHS; 1 for an
        unconstrained least squares).
    n_active_constraints_ : int
        How many :math:`\alpha_k` sit on the box, :math:`|\alpha_k| = C/K` (to a relative
        1e-6), over all outputs.
    n_features_in_ : int

    See Also
    --------
    RandomKitchenSinksClassifier
    lsl_lib.theory.kitchen_sinks_bound : the excess-risk bound of Theorem 1.

    Notes
    -----
    Solvers (each returns the exact constrained minimiser, to solver tolerance, because the
    problem is convex and small in K): squared loss by box-constrained least squares
    (:func:`fit_squared`: a thin QR, then BVLS, an active-set method that terminates at the
    exact solution); log loss by L-BFGS-B (:func:`fit_log`, bounds handled natively, O(nK)
    per iteration, on centred features when there is an intercept); hinge loss by a linear
    program solved by HiGHS (:func:`fit_hinge`, an exact vertex). Squared and log losses
    scale to n of a few 10⁴ and K of 10³; the hinge LP to a few thousand examples (its time
    grows faster than n, hence ``time_limit``). There is no iteration loop of ours to
    compile: the cost is in BLAS and in scipy's solvers, so there is no numba path.

    Ctrl-C, or Jupyter's "interrupt kernel", stops a fit within one step of L-BFGS-B or
    BVLS, and at once during the hinge's LP, which HiGHS solves in a worker thread (the
    abandoned solve runs on to its end or to ``time_limit``, and is dropped). The squared
    loss's QR and least squares are single LAPACK calls of O(nK²), which Ctrl-C waits for. A
    fit interrupted, or failed, leaves the estimator unfitted. The defaults and what they
    reach on real data: benchmarks/README.md, §Random kitchen sinks.

    References
    ----------
    Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
    randomization in learning. NIPS 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kitchen_sinks import RandomKitchenSinksRegressor
    >>> X = np.linspace(-3, 3, 200)[:, None]
    >>> reg = RandomKitchenSinksRegressor(n_components=50, C=20, feature="bump",
    ...                                   gamma=2.0, random_state=0).fit(X, np.sin(X[:, 0]))
    >>> reg.score(X, np.sin(X[:, 0])) > 0.99, bool(abs(reg.coef_).max() <= 20 / 50)
    (True, True)
    """

    _parameter_constraints = {**_BaseKitchenSinks._parameter_constraints,
                              "loss": [StrOptions(set(_REGRESSOR_LOSSES))]}

    def __init__(self, n_components=300, C="auto", feature="fourier", gamma=None, loss="squared",
                 fit_intercept=True, tol=1e-4, max_iter=1000, random_state=None):
        self.n_components = n_components
        self.C = C
        self.feature = feature
        self.gamma = gamma
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    @unfitted_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Draw the K features and fit α by box-constrained least squares.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            CSR is accepted.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i` of the squared errors.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             y_numeric=True)
        sample_weight = self._sample_weight(X, sample_weight)
        coef, intercept = self._fit_outputs(X, [y], sample_weight, self.loss)
        self.coef_, self.intercept_ = coef[0], float(intercept[0])
        return self

    def _box_scale(self, targets, sample_weight):
        """The weighted standard deviation of y about its mean (about 0 without intercept);
        1 for a constant y, which the intercept alone fits."""
        y = targets[0]
        centre = np.average(y, weights=sample_weight) if self.fit_intercept else 0.0
        scale = float(np.sqrt(np.average((y - centre) ** 2, weights=sample_weight)))
        return scale if scale > 0 else 1.0

    def predict(self, X):
        return self._scores(X)
