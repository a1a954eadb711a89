"""The scikit-learn estimators of doubly stochastic gradients: a classifier (hinge or log
loss, one-vs-rest on shared blocks) and a regressor (squared loss, an intercept)."""
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.random import check_random_state
from lsl_lib._core.run_loop import unfitted_on_interrupt
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    LEARNER_KERNEL_CONSTRAINTS,
    check_n_classes,
    check_sample_weight,
    clipped_batch_size,
)
from lsl_lib.doubly_stochastic._reference import _STEPS
from lsl_lib.doubly_stochastic._solver import DSGState, doubly_stochastic, predict_scores
from lsl_lib.kernels import fitted_gamma
from lsl_lib.random_features import RFF_KERNELS


class _BaseDoublyStochastic(BaseEstimator):
    """Parameters, validation, the fitting loop and prediction shared by both estimators."""

    _parameter_constraints = {
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "block_size": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions(set(RFF_KERNELS))],
        "gamma": LEARNER_KERNEL_CONSTRAINTS["gamma"],
        "nu": [Interval(Real, 0, None, closed="left")],
        "theta": [Interval(Real, 0, None, closed="neither"), None],
        "theta_prime": [Interval(Real, 0, None, closed="left")],
        "step": [StrOptions(set(_STEPS))],
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
    }

    def _prepare(self, X, y, reset):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             y_numeric=isinstance(self, RegressorMixin), reset=reset)
        return X, y

    def _sample_weight(self, X, sample_weight):
        """Validated weights, or None when none are given."""
        return None if sample_weight is None else check_sample_weight(sample_weight, X)

    def _batch_size(self, n_samples):
        """|b| = ``batch_size``, clipped to the n rows at hand."""
        return clipped_batch_size(self.batch_size, n_samples)

    def _resolved_theta(self):
        """theta, or its default: the full Newton step 1, or the class's gradient step."""
        if self.theta is not None:
            return float(self.theta)
        return 1.0 if self.step == "newton" else self._gradient_theta

    def _check_steps(self):
        first = self._resolved_theta() * self.nu / (1.0 + self.theta_prime)
        if first > 1.0:
            raise ValueError(
                f"theta * nu / (1 + theta_prime) = {first:.3g} > 1: the first shrink "
                f"1 - gamma_1 nu would be negative and flip the sign of f; lower theta or nu.")

    def _run(self, X, Y, n_iter, eval_set, continuing, sample_weight=None):
        """Run the solver on prepared arrays and store the fitted attributes.

        A ``KeyboardInterrupt`` of a continued run (``partial_fit``) leaves the model of the
        last whole chunk of steps; ``fit`` is left unfitted (:func:`unfitted_on_interrupt`).
        """
        if not continuing:
            self._rng = check_random_state(self.random_state)
            self._state = DSGState(self._rng.integers(0, 2**63), self.block_size, Y.shape[1])
            self.gamma_ = fitted_gamma(self.gamma, X, sample_weight)
        self.theta_ = self._resolved_theta()
        monitor = None
        if eval_set is not None:  # validated once, then scored at each record point
            X_eval = validate_data(self, eval_set[0], accept_sparse="csr", dtype=np.float64,
                                   reset=False)
            y_eval = np.asarray(eval_set[1])

            def monitor(state):
                scores = predict_scores(X_eval, state, self.kernel, self.gamma_, self.backend)
                return {self._eval_name: self._eval_metric(scores, y_eval)}

        try:
            _, history = doubly_stochastic(
                X, Y, n_iter, loss=self.loss, batch_size=self._batch_size(X.shape[0]),
                block_size=self.block_size, kernel=self.kernel, gamma=self.gamma_, nu=self.nu,
                theta=self.theta_, theta_prime=self.theta_prime, step=self.step,
                sampling=self.sampling, sample_weight=sample_weight,
                record_every=self.record_every, monitor=monitor, backend=self.backend,
                random_state=self._rng, state=self._state, verbose=self.verbose)
        except KeyboardInterrupt:
            self._set_model()
            raise
        self._set_model()
        self.n_iter_ = n_iter
        if continuing and history and self.history_:
            history = {k: np.concatenate([self.history_[k], v]) for k, v in history.items()}
        self.history_ = history
        return self

    def _set_model(self):
        """The fitted attributes from ``_state``."""
        self.seed_ = self._state.seed
        self.alpha_ = self._state.alpha.reshape(-1, self._state.alpha.shape[2])
        self.t_ = self._state.t

    def _scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return predict_scores(X, self._state, self.kernel, self.gamma_, self.backend)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags



class DoublyStochasticClassifier(ScoreClassifierMixin, _BaseDoublyStochastic):
    r"""Kernel classifier trained by doubly stochastic gradients (Dai et al. 2014).

    Step i = 1, ..., T draws a mini-batch :math:`b_i` of examples and regenerates block i
    of B random Fourier features from the seed; with :math:`\gamma_i = \theta/(1 + \theta' i)`
    and the earlier blocks shrunk, :math:`\alpha_j \leftarrow (1 - \gamma_i\nu)\,\alpha_j`
    (j < i), the new block's coefficients are set by a Newton step of the mini-batch's loss
    in them (``step='newton'``, the default) or by the paper's gradient step
    (``step='gradient'``),

    .. math::

        \alpha_i = -\frac{\gamma_i}{|b_i|}\sum_{(x, y) \in b_i} \ell'(f_{i-1}(x), y)\,
        \phi_{\omega_i}(x),

    and :math:`f(x) = \sum_j \alpha_j^\top\phi_{\omega_j}(x)` is evaluated by regenerating
    every block (:mod:`lsl_lib.doubly_stochastic`). Labels of any type; several classes
    are learnt one-vs-rest on the *same* features: :math:`\alpha_j` is a B × K matrix,
    one column per class, so K classes cost one feature evaluation, not K.

    Parameters
    ----------
    loss : {'hinge', 'log'}, default='hinge'
        The SVM's hinge or logistic regression's log loss (one-vs-rest per class); 'log'
        gives ``predict_proba``.
    n_iter : int, default=32
        T, the number of steps; the model has T blocks.
    batch_size : int, default=2048
        |b|, examples per step, clipped to the rows at hand: on fewer rows (a small
        training set, a short last ``partial_fit`` chunk) each step takes them all.
    block_size : int, default=64
        B, random features per step; the model has D = T B features in all.
    kernel : {'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
        The shift-invariant kernel, as in :class:`lsl_lib.random_features.RandomFourierFeatures`.
    gamma : float > 0, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d \operatorname{Var}(X))`
        (:func:`lsl_lib.kernels.fitted_gamma`; the rows weighted by ``sample_weight``),
        ``None`` is 1/d.
    nu : float >= 0, default=1e-4
        :math:`\nu`, the weight of :math:`\frac{\nu}{2}\|f\|^2`; each step shrinks the earlier
        coefficients by :math:`1 - \gamma_i\nu`. Chosen with the other defaults on real
        data (benchmarks/README.md, §Doubly stochastic gradients).
    theta : float > 0 or None, default=None
        :math:`\theta` in the step :math:`\gamma_i = \theta/(1 + \theta' i)`. ``None``:
        1 (the full Newton step) with ``step='newton'``, where :math:`\theta > 1`
        overshoots; 4.0 with ``step='gradient'``. For the gradient step: the
        losses are Lipschitz, the log loss 1/4-smooth: long first steps are safe and learn
        faster.
    theta_prime : float >= 0, default=0.01
        :math:`\theta'`: the steps stay near :math:`\theta` for the first :math:`1/\theta'`
        steps, then decay like :math:`1/i` (0: a constant step).
    step : {'newton', 'gradient'}, default='newton'
        How the new block's coefficients are set: one Newton step of the mini-batch's
        regularised loss in the block (:func:`lsl_lib.doubly_stochastic.newton_block_numpy`; the
        module's docstring), or Dai et al.'s gradient step (the paper's Algorithm 1,
        lecture 13). The Newton step wants mini-batches of thousands, many times B: the
        block is fitted to its mini-batch, and on a small one it fits that batch's noise;
        keep it for ``batch_size`` of a few hundred or more, and take ``step='gradient'``
        with small mini-batches. In its regime it is the better choice (measured against
        the gradient step and against RFF + a linear SVM in benchmarks/README.md, §Doubly
        stochastic gradients).
        With the log loss keep ``nu > 0`` unless the mini-batches are large: where a block
        separates its mini-batch, the curvature vanishes and the step is unbounded (IRLS
        on separable data).
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
        How mini-batches are drawn (:mod:`lsl_lib._core.sampling`).
    record_every : int or None, default=None
        Record ``history_`` every that many steps; ``None`` records nothing.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numba'``: the compiled loops; ``'numpy'``: the reference; the same seed gives the
        same model on both (to rounding).
    random_state : None, int or numpy.random.Generator, default=None
        Draws the model's seed (``seed_``), then the mini-batches.
    verbose : bool, default=False
        A progress bar over the steps for fits longer than a few seconds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (t_ * block_size, n_outputs)
        The coefficients of the blocks, block j in rows ``j*B .. (j+1)*B - 1``; one column
        for two classes (that of ``classes_[1]``), one per class otherwise.
    seed_ : int
        The seed from which every block's frequencies are regenerated
        (:func:`block_frequencies_numpy`).
    gamma_ : float
        The kernel width used.
    theta_ : float
        The :math:`\theta` used (``theta`` or its default).
    t_ : int
        Steps done in total (``partial_fit`` continues from it: step, step size and block).
    n_iter_ : int
        Steps of the last call.
    history_ : dict of ndarray
        ``iteration``, ``examples``, ``seconds`` (solver time), ``minibatch_loss`` (mean
        loss of the model on each mini-batch just before its step, over the steps since
        the previous record: a progressive validation loss), and with ``eval_set`` the
        held-out ``test_error``.
    n_features_in_ : int

    See Also
    --------
    lsl_lib.random_features.RandomFourierFeatures : the same features, stored.
    lsl_lib.kernel_pegasos.KernelPegasosClassifier : exact kernel, support vectors stored.

    Notes
    -----
    *Defaults*, chosen on real data so that a user who sets nothing lands near random
    Fourier features + a linear SVM: the Newton step, 32 blocks of 64 features (D = 2 048),
    mini-batches of 2 048 (65 536 examples seen). They are measured against
    ``RBFSampler() + LinearSVC()`` and RFF + LinearSVC on ijcnn1, a9a, usps and covtype in
    benchmarks/README.md, §Doubly stochastic gradients. There is no intercept (the paper
    has none): the kernel's feature space carries it.

    *Memory.* The model is :math:`\alpha` and one integer, 8 (T B K + 1) bytes
    (:func:`model_nbytes`); RFF with the same D = T B features stores also its d D
    frequencies, and a feature matrix of the training set n D. A run keeps the frequencies of
    its blocks while it lasts (up to :data:`_FREQUENCY_CACHE_BYTES`), the model none.

    *Time.* Step i evaluates the i - 1 earlier blocks on its mini-batch,
    :math:`O(i B d |b|)`, so T steps cost :math:`O(T^2 B d |b|)` and a prediction
    :math:`O(T B d)` per example; a ``partial_fit`` pass over n rows of a model of t blocks
    costs :math:`O(t B d n)`, as predicting those rows does: each call is slower than the
    last, by the algorithm's own count (Algorithm 1 scores every mini-batch with the whole
    model). The shrink multiplies every earlier :math:`\alpha_j` (O(i B K) per step,
    negligible beside the scoring), so no running scale factor is kept.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators". A step is the
    smallest chunk and step i evaluates i - 1 blocks: after some hundreds of steps Ctrl-C
    waits more than a second (``t_`` counts the steps kept).

    *Sample weights* are drawn in proportion: each mini-batch takes example i with
    probability :math:`s_i/\sum_j s_j` (integer weights: exactly the mini-batches of the
    rows repeated :math:`s_i` times), so the steps estimate the gradient of the weighted
    risk, the algorithm unchanged.

    X enters only by rows (mini-batches, predictions), so CSR input is accepted.

    References
    ----------
    Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
    gradients. NIPS 2014.

    Examples
    --------
    >>> from lsl_lib.datasets import concentric_circles
    >>> from lsl_lib.doubly_stochastic import DoublyStochasticClassifier, model_nbytes
    >>> X, y = concentric_circles(1000, random_state=0)
    >>> clf = DoublyStochasticClassifier(random_state=0).fit(X, y)
    >>> round(clf.score(X, y), 2), clf.alpha_.shape, model_nbytes(clf)
    (1.0, (2048, 1), 16392)
    """

    _parameter_constraints = {**_BaseDoublyStochastic._parameter_constraints,
                              "loss": [StrOptions({"hinge", "log"})]}
    _eval_name = "test_error"
    _gradient_theta = 4.0

    def __init__(self, loss="hinge", n_iter=32, batch_size=2048, block_size=64,
                 kernel="gaussian", gamma="scale", nu=1e-4, theta=None, theta_prime=0.01,
                 step="newton", sampling="iid", record_every=None, backend="auto",
                 random_state=None, verbose=False):
        self.loss = loss
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.block_size = block_size
        self.kernel = kernel
        self.gamma = gamma
        self.nu = nu
        self.theta = theta
        self.theta_prime = theta_prime
        self.step = step
        self.sampling = sampling
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _binary_only(self):
        return False  # its own multiclass form: K outputs on shared blocks

    def _has_proba(self):
        return self.loss == "log"

    def _encode(self, y):
        """-1/+1 per class, shape (n, 1) for two classes (that of ``classes_[1]``)."""
        return self._binarizer.transform(y).astype(np.float64)

    def _set_classes(self, classes):
        self.classes_ = np.asarray(classes)
        check_n_classes(self.classes_, self.loss, ())
        self._binarizer = LabelBinarizer(neg_label=-1, pos_label=1).fit(self.classes_)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        r"""Fit by ``n_iter`` steps from f = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i`, drawn in proportion (:mod:`lsl_lib`);
            ``gamma='scale'`` weighs the rows too.
        eval_set : tuple (X_test, y_test), optional
            Held-out data whose error is recorded in ``history_['test_error']``.
        """
        X, y = self._prepare(X, y, reset=True)
        check_classification_targets(y)
        self._set_classes(np.unique(y))
        sample_weight = self._sample_weight(X, sample_weight)
        if sample_weight is not None:  # the weights may leave a single class
            check_n_classes(np.unique(y[sample_weight > 0]), self.loss, ())
        self._check_steps()
        return self._run(X, self._encode(y), self.n_iter, eval_set, continuing=False,
                         sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        r"""One pass over (X, y): :math:`\lceil n/|b| \rceil` steps, continuing the step
        counter, the step sizes and the blocks (seeds) of the previous calls; a chunk
        shorter than ``batch_size`` makes one step of all its rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, required on the first call
            All the labels that will ever appear.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit` (``gamma='scale'`` is set by the first call's rows).
        """
        first = _check_partial_fit_first_call(self, classes)
        X, y = self._prepare(X, y, reset=first)
        if first:
            check_classification_targets(y)
            self._set_classes(self.classes_)
        self._check_labels(y)
        self._check_steps()
        return self._run(X, self._encode(y), -(-X.shape[0] // self._batch_size(X.shape[0])),
                         None, continuing=not first,
                         sample_weight=self._sample_weight(X, sample_weight))

    def _decision_scores(self, X):
        """:math:`f(x)`, shape (n,) for two classes (score of ``classes_[1]``), else (n, K)."""
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def _eval_metric(self, scores, y):
        return float(np.mean(labels_from_scores(scores, self.classes_) != y))



class DoublyStochasticRegressor(RegressorMixin, _BaseDoublyStochastic):
    r"""Kernel ridge regression by doubly stochastic gradients (Dai et al. 2014).

    The steps of :class:`DoublyStochasticClassifier` with the squared loss
    :math:`\ell(f, y) = \frac12 (f - y)^2`, :math:`\ell' = f - y`, on the centred targets
    :math:`y - b`: a stochastic approximation of kernel ridge regression with
    :math:`\lambda = \nu` and an unpenalised intercept b, the mean target. With the Newton
    step (the default) each block is the least-squares fit, ridge :math:`\nu`, of what the
    earlier ones left on its mini-batch.

    Parameters
    ----------
    loss : {'squared'}, default='squared'
    n_iter : int, default=32
        T, the number of steps; the model has T blocks.
    batch_size : int, default=2048
        |b|, examples per step, clipped to the rows at hand: on fewer rows (a small
        training set, a short last ``partial_fit`` chunk) each step takes them all.
    block_size : int, default=64
        B, random features per step; the model has D = T B features in all.
    kernel : {'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
        The shift-invariant kernel, as in :class:`lsl_lib.random_features.RandomFourierFeatures`.
    gamma : float > 0, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d \operatorname{Var}(X))`
        (:func:`lsl_lib.kernels.fitted_gamma`; the rows weighted by ``sample_weight``),
        ``None`` is 1/d.
    nu : float >= 0, default=3e-3
        :math:`\nu`, the weight of :math:`\frac{\nu}{2}\|f\|^2`; each step shrinks the earlier
        coefficients by :math:`1 - \gamma_i\nu`. Chosen with the other defaults on real
        regression sets (benchmarks/README.md, §Doubly stochastic gradients).
    theta : float > 0 or None, default=None
        :math:`\theta` in the step :math:`\gamma_i = \theta/(1 + \theta' i)`. ``None``:
        1 (the full Newton step) with ``step='newton'``, where :math:`\theta > 1`
        overshoots; 1.0 with ``step='gradient'``. For the gradient step: the
        squared loss is 1-smooth in f and k(x, x) = 1: steps beyond 2 overshoot.
    theta_prime : float >= 0, default=0.01
        :math:`\theta'`: the steps stay near :math:`\theta` for the first :math:`1/\theta'`
        steps, then decay like :math:`1/i` (0: a constant step).
    step : {'newton', 'gradient'}, default='newton'
        How the new block's coefficients are set: one Newton step of the mini-batch's
        regularised loss in the block (:func:`lsl_lib.doubly_stochastic.newton_block_numpy`; the
        module's docstring), or Dai et al.'s gradient step (the paper's Algorithm 1,
        lecture 13). The Newton step wants mini-batches of thousands, many times B: the
        block is fitted to its mini-batch, and on a small one it fits that batch's noise;
        keep it for ``batch_size`` of a few hundred or more, and take ``step='gradient'``
        with small mini-batches. In its regime it is the better choice (measured against
        the gradient step and against RFF + a linear SVM in benchmarks/README.md, §Doubly
        stochastic gradients).
    fit_intercept : bool, default=True
        Fit :math:`b + f` with b the (weighted) mean of the targets of ``fit``, or of the
        first ``partial_fit`` call, and the blocks fit :math:`y - b`; ``False``: b = 0, the
        paper's model (the kernel's feature space must then carry the targets' mean, and
        does so poorly: benchmarks/README.md, §Doubly stochastic gradients).
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
        How mini-batches are drawn (:mod:`lsl_lib._core.sampling`).
    record_every : int or None, default=None
        Record ``history_`` every that many steps; ``None`` records nothing.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numba'``: the compiled loops; ``'numpy'``: the reference; the same seed gives the
        same model on both (to rounding).
    random_state : None, int or numpy.random.Generator, default=None
        Draws the model's seed (``seed_``), then the mini-batches.
    verbose : bool, default=False
        A progress bar over the steps for fits longer than a few seconds.

    Attributes
    ----------
    alpha_ : ndarray of shape (t_ * block_size,)
        The coefficients of the blocks, block j in entries ``j*B .. (j+1)*B - 1``.
    intercept_ : float
        b.
    seed_ : int
        The seed from which every block's frequencies are regenerated
        (:func:`block_frequencies_numpy`).
    gamma_ : float
        The kernel width used.
    theta_ : float
        The :math:`\theta` used (``theta`` or its default).
    t_ : int
        Steps done in total (``partial_fit`` continues from it: step, step size and block).
    n_iter_ : int
        Steps of the last call.
    history_ : dict of ndarray
        ``iteration``, ``examples``, ``seconds`` (solver time), ``minibatch_loss`` (mean
        loss of the model on each mini-batch just before its step, over the steps since
        the previous record: a progressive validation loss), and with ``eval_set`` the
        held-out ``test_mse``.
    n_features_in_ : int

    See Also
    --------
    lsl_lib.kernels.KernelRidge : the exact solution of the same problem.

    Notes
    -----
    *Defaults*, chosen on real data: the Newton step, 32 blocks of 64 features, mini-batches
    of 2 048, :math:`\nu = 3 \cdot 10^{-3}`, the targets centred. They are measured against
    scikit-learn's ``Ridge()`` and the exact kernel ridge regression
    :class:`lsl_lib.kernels.KernelRidge` on cpu_act, cpu_small, houses and house_16H in
    benchmarks/README.md, §Doubly stochastic gradients.

    *Memory.* The model is :math:`\alpha` and one integer, 8 (T B K + 1) bytes
    (:func:`model_nbytes`); RFF with the same D = T B features stores also its d D
    frequencies, and a feature matrix of the training set n D. A run keeps the frequencies of
    its blocks while it lasts (up to :data:`_FREQUENCY_CACHE_BYTES`), the model none.

    *Time.* Step i evaluates the i - 1 earlier blocks on its mini-batch,
    :math:`O(i B d |b|)`, so T steps cost :math:`O(T^2 B d |b|)` and a prediction
    :math:`O(T B d)` per example; a ``partial_fit`` pass over n rows of a model of t blocks
    costs :math:`O(t B d n)`, as predicting those rows does: each call is slower than the
    last, by the algorithm's own count (Algorithm 1 scores every mini-batch with the whole
    model). The shrink multiplies every earlier :math:`\alpha_j` (O(i B K) per step,
    negligible beside the scoring), so no running scale factor is kept.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators". A step is the
    smallest chunk and step i evaluates i - 1 blocks: after some hundreds of steps Ctrl-C
    waits more than a second (``t_`` counts the steps kept).

    *Sample weights* are drawn in proportion: each mini-batch takes example i with
    probability :math:`s_i/\sum_j s_j` (integer weights: exactly the mini-batches of the
    rows repeated :math:`s_i` times), so the steps estimate the gradient of the weighted
    risk, the algorithm unchanged.

    X enters only by rows (mini-batches, predictions), so CSR input is accepted.

    References
    ----------
    Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
    gradients. NIPS 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.doubly_stochastic import DoublyStochasticRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(2000, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=2000)
    >>> reg = DoublyStochasticRegressor(random_state=0).fit(X, y)
    >>> round(reg.score(X, y), 2)
    0.98
    """

    _parameter_constraints = {**_BaseDoublyStochastic._parameter_constraints,
                              "loss": [StrOptions({"squared"})],
                              "fit_intercept": ["boolean"]}
    _eval_name = "test_mse"
    _gradient_theta = 1.0

    def __init__(self, loss="squared", n_iter=32, batch_size=2048, block_size=64,
                 kernel="gaussian", gamma="scale", nu=3e-3, theta=None, theta_prime=0.01,
                 step="newton", fit_intercept=True, sampling="iid", record_every=None,
                 backend="auto", random_state=None, verbose=False):
        self.loss = loss
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.block_size = block_size
        self.kernel = kernel
        self.gamma = gamma
        self.nu = nu
        self.theta = theta
        self.theta_prime = theta_prime
        self.step = step
        self.fit_intercept = fit_intercept
        self.sampling = sampling
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _targets(self, y, sample_weight, first):
        """The targets the blocks fit, :math:`y - b` as a column; the first call sets the
        intercept b (the weighted mean of its targets, or 0 without ``fit_intercept``)."""
        if first:
            self.intercept_ = (float(np.average(y, weights=sample_weight))
                               if self.fit_intercept else 0.0)
        return (y.astype(np.float64) - self.intercept_)[:, None]

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit by ``n_iter`` steps from f = 0 (``sample_weight`` and ``eval_set`` as in
        :meth:`DoublyStochasticClassifier.fit`, recorded as ``history_['test_mse']``)."""
        X, y = self._prepare(X, y, reset=True)
        sample_weight = self._sample_weight(X, sample_weight)
        self._check_steps()
        return self._run(X, self._targets(y, sample_weight, True), self.n_iter, eval_set,
                         continuing=False, sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        r"""One pass over (X, y): :math:`\lceil n/|b| \rceil` steps, continuing the step
        counter, the step sizes and the blocks; the intercept is the first call's
        (``sample_weight`` as in :meth:`fit`)."""
        first = not hasattr(self, "t_")
        X, y = self._prepare(X, y, reset=first)
        sample_weight = self._sample_weight(X, sample_weight)
        self._check_steps()
        return self._run(X, self._targets(y, sample_weight, first),
                         -(-X.shape[0] // self._batch_size(X.shape[0])), None,
                         continuing=not first, sample_weight=sample_weight)

    def _set_model(self):
        super()._set_model()
        self.alpha_ = self.alpha_[:, 0]

    def predict(self, X):
        """:math:`b + f(x)`."""
        scores = self._scores(X)
        return self.intercept_ + scores[:, 0]

    def _eval_metric(self, scores, y):
        return float(np.mean((self.intercept_ + scores[:, 0] - y) ** 2))
