"""Block-parallel doubly stochastic gradients: K models with their own seeds, one per
worker, their scores averaged."""
from numbers import Integral

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
    _fit_context,
    clone,
    is_classifier,
)
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.random import check_random_state
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.validation import check_n_classes, check_sample_weight
from lsl_lib.distributed._cluster import _SchedulerParameter, get_client
from lsl_lib.doubly_stochastic import DoublyStochasticClassifier, DoublyStochasticRegressor


def _fit_member(estimator, data):
    """A task: fit one worker's model on the data it holds, ``(X, y, sample_weight)``."""
    X, y, sample_weight = data
    if sample_weight is None:
        return estimator.fit(X, y)
    return estimator.fit(X, y, sample_weight=sample_weight)


def _member_output(estimator, X, method):
    """A task: one worker's model evaluated on X."""
    return getattr(estimator, method)(X)


class _ParallelDoublyStochastic(_SchedulerParameter, MetaEstimatorMixin, BaseEstimator):
    """Fitting and combining shared by the classifier and the regressor."""

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_workers": [Interval(Integral, 1, None, closed="left")],
        "scheduler": [None, str, HasMethods(["submit", "gather", "scatter"])],
        "random_state": [None, Interval(Integral, 0, None, closed="left"), np.random.Generator,
                         np.random.RandomState],
    }

    def __init__(self, estimator=None, n_workers=2, scheduler=None, random_state=None):
        self.estimator = estimator
        self.n_workers = n_workers
        self.scheduler = scheduler
        self.random_state = random_state

    def _fit(self, X, y, sample_weight=None):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             y_numeric=isinstance(self, RegressorMixin))
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        if self.n_workers > X.shape[0]:
            raise ValueError(
                f"n_workers={self.n_workers} is more than the {X.shape[0]} samples: each of "
                "the K models is fitted on all of them, K fits in all; n_workers is at most "
                "the number of samples.")
        if is_classifier(self):
            check_classification_targets(y)
            check_n_classes(np.unique(y), None, ())
        rng = check_random_state(self.random_state)
        base = self._default() if self.estimator is None else self.estimator
        members = [clone(base).set_params(random_state=int(s))
                   for s in rng.integers(0, 2**31 - 1, size=self.n_workers)]
        if hasattr(members[0], "_validate_params"):  # its parameters, here, not on K workers
            members[0]._validate_params()
        client = get_client(self.scheduler)
        data = client.scatter((X, y, sample_weight), broadcast=True, hash=False)
        futures = [client.submit(_fit_member, member, data, pure=False) for member in members]
        self.estimators_ = client.gather(futures)
        return self

    def _average(self, X, method):
        r""":math:`\frac1K \sum_k` of the workers' ``method`` on X, each computed by a task."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        client = get_client(self.scheduler)
        X_future = client.scatter(X, broadcast=True, hash=False)
        futures = [client.submit(_member_output, member, X_future, method, pure=False)
                   for member in self.estimators_]
        return np.mean(client.gather(futures), axis=0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class ParallelDoublyStochasticClassifier(ClassifierMixin, _ParallelDoublyStochastic):
    r"""Doubly stochastic gradients on K workers, their scores averaged.

    Worker k fits a :class:`~lsl_lib.doubly_stochastic.DoublyStochasticClassifier` with its
    own seed and the classifier's scores are :math:`f(x) = \frac1K\sum_k f_k(x)`.

    Parameters
    ----------
    estimator : DoublyStochasticClassifier or None, default=None
        The model each worker trains (its ``random_state`` is replaced by the worker's own
        seed); ``None``: ``DoublyStochasticClassifier()``, its defaults.
    n_workers : int, default=2
        K, the number of models, each with its own feature seeds (at most the number of
        samples).
    scheduler : None, str or distributed.Client, default=None
        Where the tasks run (:func:`get_client`), for fitting and predicting alike. A Client
        is shared by the estimator's clones and pickled as its scheduler's address.
    random_state : None, int or numpy.random.Generator, default=None
        Draws the K seeds: the same seed gives the same models on any cluster.

    Attributes
    ----------
    estimators_ : list of K fitted models
        Model k holds :math:`T B` coefficients and its seed ``seed_``, nothing else.
    n_features_in_ : int

    Notes
    -----
    Every worker sees all the examples (the data are sent to each once) and differs by its
    seed: its mini-batches and, above all, its blocks of random features. The average of the
    K functions is a kernel machine with K times the features of one, trained in the time
    of one on K workers; predicting regenerates each worker's blocks where its coefficients
    live. X, y, their classes and the estimator's parameters are validated before anything
    is sent. A worker that dies during ``fit`` costs only time: every worker holds the data,
    so Dask reruns its task on another.

    References
    ----------
    Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
    gradients. NIPS 2014 (section 5: each machine its own block of features).
    """

    def _default(self):
        return DoublyStochasticClassifier()

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Fit the K models in parallel, each with its own seed, on all of (X, y), with the
        base estimator's ``sample_weight`` (examples drawn in proportion to the weights)."""
        self._fit(X, y, sample_weight)
        self.classes_ = self.estimators_[0].classes_
        return self

    def decision_function(self, X):
        """The average of the K models' scores."""
        return self._average(X, "decision_function")

    def predict(self, X):
        return labels_from_scores(self.decision_function(X), self.classes_)

    def _has_proba(self):
        return hasattr(self.estimators_[0] if hasattr(self, "estimators_") else
                       (self.estimator or self._default()), "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """The average of the K models' probabilities (loss 'log')."""
        return self._average(X, "predict_proba")


class ParallelDoublyStochasticRegressor(RegressorMixin, _ParallelDoublyStochastic):
    r"""Doubly stochastic gradients on K workers, their predictions averaged.

    Worker k fits a :class:`~lsl_lib.doubly_stochastic.DoublyStochasticRegressor` with its
    own seed and the prediction is :math:`f(x) = \frac1K\sum_k f_k(x)`.

    Parameters
    ----------
    estimator : DoublyStochasticRegressor or None, default=None
        The model each worker trains (its ``random_state`` is replaced by the worker's own
        seed); ``None``: ``DoublyStochasticRegressor()``, its defaults.
    n_workers : int, default=2
        K, the number of models, each with its own feature seeds (at most the number of
        samples).
    scheduler : None, str or distributed.Client, default=None
        Where the tasks run (:func:`get_client`), for fitting and predicting alike. A Client
        is shared by the estimator's clones and pickled as its scheduler's address.
    random_state : None, int or numpy.random.Generator, default=None
        Draws the K seeds: the same seed gives the same models on any cluster.

    Attributes
    ----------
    estimators_ : list of K fitted models
        Model k holds :math:`T B` coefficients and its seed ``seed_``, nothing else.
    n_features_in_ : int

    Notes
    -----
    Every worker sees all the examples (the data are sent to each once) and differs by its
    seed: its mini-batches and, above all, its blocks of random features. The average of the
    K functions is a kernel machine with K times the features of one, trained in the time
    of one on K workers; predicting regenerates each worker's blocks where its coefficients
    live. X, y and the estimator's parameters are validated before anything is sent. A
    worker that dies during ``fit`` costs only time: every worker holds the data, so Dask
    reruns its task on another.

    References
    ----------
    Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
    gradients. NIPS 2014 (section 5: each machine its own block of features).
    """

    def _default(self):
        return DoublyStochasticRegressor()

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Fit the K models in parallel, each with its own seed, on all of (X, y), with the
        base estimator's ``sample_weight`` (examples drawn in proportion to the weights)."""
        return self._fit(X, y, sample_weight)

    def predict(self, X):
        """The average of the K models' predictions."""
        return self._average(X, "predict")
