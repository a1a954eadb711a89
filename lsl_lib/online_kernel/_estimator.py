"""The estimator of the online kernel learner (the mathematics is in
:mod:`lsl_lib.online_kernel`)."""
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.kernel_loops import INNER_PRODUCT_KERNELS
from lsl_lib._core.run_loop import unfitted_on_interrupt
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    LEARNER_KERNEL_CONSTRAINTS,
    check_n_classes,
    signed_binary_labels,
)
from lsl_lib.kernels import DEFAULT_KERNEL_EVALUATIONS, fitted_gamma, kernel_scores
from lsl_lib.online_kernel._learner import (
    _ONLINE_SCHEMES,
    _UPDATES,
    OnlineKernelState,
    online_kernel,
)
from lsl_lib.online_kernel._models import MODELS


class OnlineKernelClassifier(ScoreClassifierMixin, BaseEstimator):
    r"""Kernel classifier trained by the unified online kernel learner.

    Learns :math:`o(x) = \sum_j \alpha_j K(x, x_j) + b` by the coordinate-wise
    steps of :mod:`lsl_lib.online_kernel`, with one of its eight models. Labels of
    any type are mapped to -1/+1 (``classes_[1]`` is +1); more than two classes are
    learnt one-vs-rest, one binary model per class (``estimators_``), as ``LinearSVC``
    does. :meth:`fit` makes ``n_epochs`` passes over a training set; :meth:`partial_fit`
    learns from a stream, one pass over each chunk.

    Parameters
    ----------
    model : {'l1_svm', 'l2_svm', 'huber', 'logistic', 'exponential', 'ls_svm', \
'l1_svm_l1', 'l2_svm_l1'}, default='l1_svm'
        The loss and regulariser (table of the module docstring).
    C : float, default=1.0
        Weight :math:`C > 0` of the loss. The :math:`\|\alpha\|_1` models need C > 1.
    eta : float, default=0.1
        Step size :math:`\eta > 0`; keep :math:`\eta C` at about 1 or less.
    eta_decay : float, default=0.0
        Epoch e uses :math:`\eta/(1 + \text{eta\_decay}\cdot e)`; 0 keeps it constant.
        :meth:`partial_fit` is always in epoch 0.
    delta : float, default=0.5
        Width :math:`\delta > 0` of the Huberized hinge.
    bias : bool, default=False
        Learn the bias b (:math:`\beta = 1`); otherwise b = 0.
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
        As in :func:`lsl_lib.kernels.kernel_matrix`.
    gamma : float, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d\,\operatorname{Var}(X))`, scikit-learn's
        ``SVC`` default (:func:`lsl_lib.kernels.fitted_gamma`; with :meth:`partial_fit`,
        from the first chunk); ``None`` is 1/d.
    degree, coef0 : default=3, 1.0
        The polynomial kernel's.
    n_epochs : int or None, default=None
        Epochs of n steps each (:meth:`fit` only); ``None`` runs ten, or fewer: it stops
        once :data:`~lsl_lib.kernels.DEFAULT_KERNEL_EVALUATIONS` (:math:`5\cdot 10^8`)
        kernel values have been computed, with a ``ConvergenceWarning`` (see Notes).
    sampling : {'iid', 'permutation', 'reshuffle', 'worst_violator'}, default='reshuffle'
        How :meth:`fit` draws the examples (:mod:`lsl_lib._core.sampling`), or
        ``'worst_violator'``: at each step the example whose step would be the largest (the
        module docstring; needs ``update='output'``, O(n) per step, no random draw).
        :meth:`partial_fit` takes them in the order given.
    update : {'output', 'naive'}, default='output'
        ``'output'`` keeps the vector of training outputs (the lecture's two
        speed-ups); ``'naive'`` recomputes each :math:`o_i` by a kernel sum (the same
        iterates, slower: for timing the speed-ups).
    cache_size : float, default=200
        Megabytes of cached kernel columns (LRU); too small for one column, every
        column is computed when needed.
    record_every : int or None, default=None
        Record ``history_`` every that many steps of :meth:`fit`; ``None`` records nothing.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the sampling; the same seed gives the same iterates on both backends.
    verbose : bool, default=False
        Show a progress bar when a fit takes more than a few seconds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (n_seen,)
        The signed coefficients of every example learnt from: the training set of
        :meth:`fit`, then the examples of each :meth:`partial_fit` chunk, in order.
    intercept_ : float
        b.
    support_ : ndarray of shape (n_SV,)
        Indices (into ``alpha_``) of the examples with :math:`\alpha_i \neq 0`.
    support_vectors_ : ndarray or CSR matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_SV,)
        ``alpha_[support_]``.
    n_support_ : ndarray of shape (2,)
        Number of support vectors of each class.
    n_iter_ : int
        Steps done: ``n_epochs * n_samples`` by :meth:`fit` (fewer if the default stopped
        early), plus one per example given to :meth:`partial_fit`.
    gamma_ : float
        The kernel width used.
    history_ : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective`` (the diagnostic
        :math:`\frac12\|\alpha\|_2^2 + C\sum_i\ell(y_i o_i)`, or :math:`\|\alpha\|_1 + \dots`),
        ``rkhs_objective`` (:math:`\frac12\alpha^\top K\alpha + C\sum_i\ell(y_i o_i)`, minimised by
        the "w'w" models), ``train_error``,
        ``n_nonzero``, ``kernel_evaluations``, ``cache_hits``, ``cache_misses``, and
        ``test_error`` with ``fit(..., eval_set=(X_test, y_test))``; recorded by
        :meth:`fit` (empty after :meth:`partial_fit` alone); with more than two classes,
        one row per class.
    estimators_ : list of OnlineKernelClassifier or None
        With more than two classes, the binary model of each class of ``classes_`` (its
        labels ``y == classes_[k]``), which hold the attributes above; None for two.
    n_features_in_ : int

    See Also
    --------
    sklearn.svm.SVC : the batch L1 SVM (SMO), with the RKHS regulariser.
    lsl_lib.pegasos.PegasosClassifier : the linear stochastic subgradient solver.
    lsl_lib.budgeted.BudgetedKernelSGDClassifier : a kernel SVM on a support of fixed size,
        for large n.

    Notes
    -----
    X may be a CSR matrix with the inner-product kernels (linear, polynomial,
    Gaussian): kernel columns on CSR rows, in both paths (:func:`online_kernel`).

    **Learning from a stream.** Within :meth:`fit`, the output vector
    :math:`o = K\alpha + b` over the training set is a cache of the outputs of examples
    that will be drawn again. A stream visits each example once, so
    :meth:`partial_fit` keeps no outputs of past examples: a chunk's outputs start
    from the kernel expansion of the support learnt so far,
    :math:`o_i = \sum_{j \in SV} \alpha_j K(x_i, x_j) + b` (one
    :math:`m \times n_{SV}` kernel block), then the chunk's examples are stepped
    through once, in the order given, with the output updates of speed-up #1 inside
    the chunk; those whose :math:`\alpha_i` ends non-zero join the support. So one
    epoch of :meth:`fit` whose sampling visits each example once (``'permutation'``
    or ``'reshuffle'`` with ``n_epochs=1``) and :meth:`partial_fit` over chunks of the
    examples in the same order give the same model: at its single visit an example's
    output is the expansion over the examples visited before it either way. (With
    ``'iid'`` an example drawn twice would be two examples of the stream.) The step
    size of a stream is :math:`\eta` (``eta_decay`` counts epochs of :meth:`fit`).
    With more than two classes each call of :meth:`partial_fit` continues the binary
    model of every class on the same chunk.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators". With more than
    two classes, an interrupted :meth:`partial_fit` leaves the classes before the
    interrupted one having learnt the whole call, those after it nothing of it.

    **Defaults.** ``gamma='scale'`` adapts the width to the data, as ``SVC`` does, where
    γ = 1/d assumes unit-variance features. The L1 SVM (bounded :math:`\psi`) with C = 1,
    as ``SVC``, and :math:`\eta C = 0.1` cannot diverge. Measured against ``SVC()`` in
    benchmarks/README.md, §Kernel learning online.

    **Cost, and large n.** A step that moves a coefficient costs a kernel column of n
    values and an update of the n outputs, O(n) whatever the support; every margin
    violator moves, and so does every :math:`\alpha_i \neq 0` at each visit (the decay
    :math:`\eta\alpha_i`). An epoch costs about :math:`n \cdot n_{SV}` kernel
    evaluations, and the 200 MB column cache holds :math:`200 \cdot 2^{20} / (8n)`
    columns. So ``n_epochs=None`` stops at
    :data:`~lsl_lib.kernels.DEFAULT_KERNEL_EVALUATIONS` = 5·10^8 evaluations, with a
    ``ConvergenceWarning``; ten epochs always fit that budget up to n = 7 000
    (:math:`10 n \cdot n \le 5\cdot 10^8`). The learner is the lecture's; for large n,
    :class:`~lsl_lib.budgeted.BudgetedKernelSGDClassifier` keeps a support of fixed size,
    and :class:`~lsl_lib.nystroem.Nystroem` or random Fourier features followed by a
    linear SVM cost O(D) per example.

    References
    ----------
    See :mod:`lsl_lib.online_kernel`.

    Examples
    --------
    >>> from lsl_lib.datasets import concentric_circles
    >>> from lsl_lib.online_kernel import OnlineKernelClassifier
    >>> X, y = concentric_circles(400, random_state=0)
    >>> clf = OnlineKernelClassifier(model='l2_svm', gamma=2.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.99
    True
    """

    _parameter_constraints = {
        "model": [StrOptions(set(MODELS))],
        "C": [Interval(Real, 0, None, closed="neither")],
        "eta": [Interval(Real, 0, None, closed="neither")],
        "eta_decay": [Interval(Real, 0, None, closed="left")],
        "delta": [Interval(Real, 0, None, closed="neither")],
        "bias": ["boolean"],
        **LEARNER_KERNEL_CONSTRAINTS,
        "n_epochs": [Interval(Integral, 1, None, closed="left"), None],
        "update": [StrOptions(set(_UPDATES))],
        "cache_size": [Interval(Real, 0, None, closed="left")],
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
        "sampling": [StrOptions(set(_ONLINE_SCHEMES))],
    }

    def __init__(self, model="l1_svm", C=1.0, eta=0.1, eta_decay=0.0, delta=0.5, bias=False,
                 kernel="gaussian", gamma="scale", degree=3, coef0=1.0, n_epochs=None,
                 sampling="reshuffle", update="output", cache_size=200.0, record_every=None,
                 backend="auto", random_state=None, verbose=False):
        self.model = model
        self.C = C
        self.eta = eta
        self.eta_decay = eta_decay
        self.delta = delta
        self.bias = bias
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_epochs = n_epochs
        self.sampling = sampling
        self.update = update
        self.cache_size = cache_size
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _step_params(self):
        """The arguments of :func:`online_kernel` that both fit and partial_fit pass."""
        return dict(C=self.C, eta=self.eta, eta_decay=self.eta_decay, delta=self.delta,
                    bias=self.bias, kernel=self.kernel, gamma=self.gamma_, degree=self.degree,
                    coef0=self.coef0, update=self.update, backend=self.backend,
                    verbose=self.verbose)

    def _expansion(self, X):
        r""":math:`\sum_{j \in SV} \alpha_j K(x, x_j)` for the rows of X (validated), in row
        blocks (:func:`lsl_lib.kernels.kernel_scores`)."""
        return kernel_scores(X, self.support_vectors_, self.dual_coef_, self.kernel, self.gamma_,
                             self.degree, self.coef0)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, eval_set=None):
        r"""Fit by ``n_epochs`` epochs of steps from :math:`\alpha = 0, b = 0` (per class,
        one-vs-rest, for more than two classes).

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        eval_set : tuple (X_test, y_test), optional
            Held-out data whose error is recorded in ``history_['test_error']``.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        check_n_classes(self.classes_, self.model, ())
        self.estimators_ = None
        self.gamma_ = fitted_gamma(self.gamma, X)
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, eval_set=eval_set)
        monitor = None
        if eval_set is not None:  # validated once here, then scored directly at each record
            X_eval = validate_data(self, eval_set[0], accept_sparse="csr", dtype=np.float64,
                                   reset=False)
            y_eval = np.asarray(eval_set[1])

            def monitor(alpha, b):
                support = np.flatnonzero(alpha)
                s = kernel_scores(X_eval, X[support], alpha[support], self.kernel, self.gamma_,
                                  self.degree, self.coef0) + b
                return {"test_error": float(np.mean(self.classes_[(s > 0).astype(int)] != y_eval))}

        n, n_epochs = X.shape[0], self.n_epochs if self.n_epochs is not None else 10
        state, self.history_ = online_kernel(
            X, signed_binary_labels(y, self.classes_), self.model, n_epochs=n_epochs,
            sampling=self.sampling, cache_size=self.cache_size,
            max_kernel_evaluations=DEFAULT_KERNEL_EVALUATIONS if self.n_epochs is None else None,
            record_every=self.record_every, monitor=monitor, random_state=self.random_state,
            **self._step_params())
        if state.t < n_epochs * n:
            warnings.warn(
                f"OnlineKernelClassifier stopped after {state.t:,} steps ({state.t / n:.2g} of "
                f"the 10 epochs of n_epochs=None), at the default budget of "
                f"{DEFAULT_KERNEL_EVALUATIONS:.0e} kernel evaluations: a step that moves a "
                f"coefficient costs a kernel column of n = {n:,} values, and "
                f"{np.count_nonzero(state.alpha):,} coefficients move at every visit now. Pass "
                "n_epochs to run longer; for n this large, BudgetedKernelSGDClassifier "
                "(lsl_lib.budgeted) or Nystroem + a linear SVM cost O(budget) per example "
                "instead.", ConvergenceWarning, stacklevel=2)
        self.alpha_ = state.alpha
        self.intercept_ = float(state.b)
        self.support_ = np.flatnonzero(self.alpha_)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = self.alpha_[self.support_]
        self.n_support_ = np.array([np.sum(y[self.support_] == c) for c in self.classes_])
        self.n_iter_ = state.t
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None):
        """One pass over a chunk of a stream, in the order given, continuing the model.

        The chunk's outputs start from the current kernel expansion and bias; each
        example is stepped through once (the Notes say why this is one epoch of
        :meth:`fit` on the same order), and those with a non-zero coefficient join
        the support. ``n_epochs``, ``sampling``, ``random_state`` and
        ``record_every`` are not used. On Ctrl-C the examples stepped through so far
        are kept (Notes).

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            The classes of the whole stream: required on the first call, as in
            scikit-learn, and ignored (if equal) afterwards.
        """
        first_call = _check_partial_fit_first_call(self, classes)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             reset=first_call)
        check_classification_targets(y)
        if first_call:
            check_n_classes(self.classes_, self.model, ())
            self.estimators_ = None
            self.gamma_ = fitted_gamma(self.gamma, X)
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if len(unseen):
            raise ValueError(f"y holds labels {unseen!r} that are not in classes_ "
                             f"{self.classes_!r} (given to the first call of partial_fit).")
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, partial=True)
        if first_call:
            self.alpha_, self.intercept_ = np.zeros(0), 0.0
            self.support_, self.support_vectors_ = np.zeros(0, dtype=np.intp), X[:0]
            self.dual_coef_, self.n_support_ = np.zeros(0), np.zeros(2, dtype=np.intp)
            self.n_iter_, self.history_ = 0, {}
        state = OnlineKernelState(X.shape[0])
        try:
            online_kernel(X, signed_binary_labels(y, self.classes_), self.model,
                          order=np.arange(X.shape[0]), f_init=self._expansion(X),
                          b_init=self.intercept_, cache_size=0, out=state,
                          **self._step_params())  # each column is needed once at most: no cache
        except KeyboardInterrupt:  # keep the examples of the last whole chunk of steps
            self._learn_chunk(X[:state.t], y[:state.t], state.alpha[:state.t], state.b)
            raise
        self._learn_chunk(X, y, state.alpha, state.b)
        return self

    def _learn_chunk(self, X, y, alpha, b):
        """Append the coefficients ``alpha`` of the examples X (labels y), stepped through
        by :meth:`partial_fit`, and the new bias b to the model."""
        new = np.flatnonzero(alpha)
        stack = sp.vstack if sp.issparse(X) or sp.issparse(self.support_vectors_) else np.vstack
        self.support_vectors_ = stack([self.support_vectors_, X[new]])
        if stack is sp.vstack:
            self.support_vectors_ = sp.csr_matrix(self.support_vectors_)
        self.support_ = np.concatenate([self.support_, len(self.alpha_) + new])
        self.alpha_ = np.concatenate([self.alpha_, alpha])
        self.dual_coef_ = self.alpha_[self.support_]
        self.n_support_ = self.n_support_ + [np.sum(y[new] == c) for c in self.classes_]
        self.intercept_ = float(b)
        self.n_iter_ += len(alpha)

    def _decision_scores(self, X):
        r""":math:`o(x) = \sum_{j \in SV} \alpha_j K(x, x_j) + b`; > 0 means ``classes_[1]``."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._expansion(X) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        return tags
