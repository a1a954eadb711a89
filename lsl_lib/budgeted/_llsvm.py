r"""LLSVM, the low-rank linearized SVM (Zhang, Lan, Wang and Moerchen 2012).

B landmarks, the Nyström map :math:`z(x) = K_{BB}^{-1/2} k_B(x)`, then a linear SVM on
those B features: the kernel SVM with the kernel replaced by its rank-B approximation.
Training costs :math:`O(nBd + nB^2 + B^3)`, prediction :math:`O(Bd + B^2)` per example.
No iterative loop of its own: the map is numpy (:func:`lsl_lib.nystroem.inverse_square_root`)
and the SVM is dual coordinate descent (:func:`lsl_lib.coordinate_descent.dual_cd`, with
its own pair of paths), so this file has no table of pairs.

References
----------
Zhang, Lan, Wang, Moerchen. Scaling up kernel SVM on limited resources: a low-rank
linearization approach. AISTATS 2012.

Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
JMLR 14, 2013, 3813-3817.
"""
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.kernel_loops import INNER_PRODUCT_KERNELS
from lsl_lib._core.linalg import dense_rows, row_blocks
from lsl_lib._core.random import check_random_state
from lsl_lib._core.run_loop import unfitted_on_interrupt
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    LEARNER_KERNEL_CONSTRAINTS,
    check_n_classes,
    check_sample_weight,
)
from lsl_lib.budgeted._checks import warn_if_kernel_is_flat
from lsl_lib.coordinate_descent import dual_cd
from lsl_lib.kernels import fitted_gamma, kernel_matrix
from lsl_lib.nystroem import inverse_square_root

__all__ = ["LowRankLinearizedSVC"]


_LANDMARKS = ("random", "kmeans")


class LowRankLinearizedSVC(ScoreClassifierMixin, BaseEstimator):
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
        B, the number of landmarks (capped at n_samples, of positive weight, with a
        ``UserWarning``).
    landmarks : {'random', 'kmeans'}, default='random'
        B training points drawn uniformly without replacement, or the B centres of
        scikit-learn's ``KMeans`` (one k-means++ initialisation), as the paper. With
        ``sample_weight``: drawn among the rows of positive weight, or the centres of
        ``KMeans`` fitted on them with their weights.
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

    Too few landmarks cannot resolve a small class (the model then predicts the
    majority), and k-means landmarks cost more than random ones without always doing
    better. Measured against its peers in benchmarks/README.md, §Budgeted kernel
    machines (B and the landmarks on ijcnn1).

    *Sample weights* multiply C per example, as liblinear's (the box of :math:`\alpha_i`
    is :math:`[0, C s_i]`); a zero weight is the row removed. Integer weights are the
    rows repeated :math:`s_i` times once the landmarks are the same (with all rows as
    landmarks both reach the same optimum); random landmarks are drawn among distinct
    rows, whatever their weights. ``gamma='scale'`` is computed on the rows of positive
    weight. ``fit`` warns when the kernel is nearly constant on X
    (:func:`warn_if_kernel_is_flat`: constant columns of large value inflate
    ``gamma='scale'``'s variance); it does not rescale the features.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".

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
        "landmarks": [StrOptions(set(_LANDMARKS))],
        **LEARNER_KERNEL_CONSTRAINTS,
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
        for rows in row_blocks(X.shape[0], B):
            K = kernel_matrix(X[rows], self.landmarks_, self.kernel, self.gamma_, self.degree,
                              self.coef0)
            np.matmul(K, self.normalization_, out=Z[rows])
        return Z

    def _binary_only(self):
        return False  # its own one-vs-rest on one feature map (see fit)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Choose the landmarks, map X, and train the linear SVM(s).

        More than two classes are one-vs-rest on the one map z: the K problems share the
        landmarks and the features, and draw their coordinate orders one after the other
        from the one ``random_state``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i`: per-example :math:`C s_i`, as liblinear's
            (see Notes). A zero weight is the row removed.

        Returns
        -------
        self : LowRankLinearizedSVC
        """
        self._check_sparse(X)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_, label = np.unique(y, return_inverse=True)
        check_n_classes(self.classes_, None, ())
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
            check_n_classes(np.unique(y[sample_weight > 0]), None, ())
            kept = np.flatnonzero(sample_weight > 0)
            X, label, sample_weight = X[kept], label[kept], sample_weight[kept]
        n = X.shape[0]
        B = self.budget
        if B > n:
            warnings.warn(f"budget={B} is larger than n_samples={n}"
                          f"{' of positive weight' if sample_weight is not None else ''}; "
                          f"using budget={n}: every sample is a landmark.", UserWarning,
                          stacklevel=4)  # the caller of fit, past its two decorators
            B = n
        rng = check_random_state(self.random_state)
        self.gamma_ = fitted_gamma(self.gamma, X, sample_weight)
        warn_if_kernel_is_flat(X, self.kernel, self.gamma_, self.degree, self.coef0)
        if self.landmarks == "random":
            self.landmarks_ = dense_rows(X, rng.choice(n, B, replace=False))
        else:
            seed = int(rng.integers(np.iinfo(np.int32).max))
            kmeans = KMeans(n_clusters=B, n_init=1, random_state=seed).fit(
                X, sample_weight=sample_weight)
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
                                      max_iter=self.max_iter, bias=bias,
                                      sample_weight=sample_weight, backend=self.backend,
                                      random_state=rng)
            coef.append(w[:-1])
            intercept.append(bias * w[-1])
            self.n_iter_ = max(self.n_iter_, epochs)
        self.coef_, self.intercept_ = np.array(coef), np.array(intercept)
        return self

    def _decision_scores(self, X):
        r"""Scores :math:`w^\top z(x) + b`: shape (n,) for two classes (that of
        ``classes_[1]``), (n, K) one-vs-rest scores otherwise."""
        self._check_sparse(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        s = self._features(X) @ self.coef_.T + self.intercept_
        return s[:, 0] if s.shape[1] == 1 else s

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        return tags
