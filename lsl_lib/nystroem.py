r"""The Nyström method: a kernel feature map from m landmark points.

Choose m landmarks :math:`l_1, \dots, l_m` among the training points, write
:math:`k_m(x) = (k(x, l_1), \dots, k(x, l_m))` and :math:`K_{mm} = (k(l_i, l_j))_{ij}`.
The Nyström feature map and the kernel it approximates are

.. math::

    z(x) = K_{mm}^{-1/2}\, k_m(x) \in \mathbb{R}^m, \qquad
    \langle z(x), z(y)\rangle = k_m(x)^\top K_{mm}^{+}\, k_m(y),
    \qquad Z Z^\top = K_{nm} K_{mm}^{+} K_{mn} \approx K,

the projection of the features :math:`\varphi(x)` on the span of the
:math:`\varphi(l_j)`: exact on the landmarks, and exact everywhere when every
training point is a landmark. Unlike random features, it adapts to the data and
works for any kernel; its quality depends on which landmarks are chosen:

- ``'uniform'``: m points drawn uniformly without replacement (Williams and Seeger 2001);
- ``'leverage'``: m points drawn with probabilities proportional to approximate
  λ-ridge leverage scores (Alaoui and Mahoney 2015; Musco and Musco 2017),

.. math::

    \tau_i(\lambda) = \big(K (K + \lambda I)^{-1}\big)_{ii} \in [0, 1),

the importance of point i for a ridge regression in the feature space. A tight
cluster of c points far from the others is, nearly, an eigenvector of K of
eigenvalue c, and its points' scores add up to about :math:`c/(c + \lambda)`: a share
of the landmarks that does not shrink with c/n, whereas a uniform sample of m misses
the cluster with probability :math:`(1 - c/n)^m`.

**One path.** No numba path: the work is kernel blocks (numpy products) and one
eigendecomposition of :math:`K_{mm}` (LAPACK), already compiled code.

===============================  ===========================  ===================
the paper's line                 reference                    compiled
===============================  ===========================  ===================
Williams and Seeger:             :class:`Nystroem`,           none (BLAS, LAPACK)
z(x) = K_mm^{-1/2} k_m(x)        :func:`inverse_square_root`
Musco and Musco: ridge leverage  ``sampling='leverage'``      none (BLAS, LAPACK)
scores from a uniform sketch
===============================  ===========================  ===================

References
----------
Williams, Seeger. Using the Nyström method to speed up kernel machines. NIPS 2001.

Alaoui, Mahoney. Fast randomized kernel ridge regression with statistical
guarantees. NIPS 2015.

Musco, Musco. Recursive sampling for the Nyström method. NIPS 2017.

Efraimidis, Spirakis. Weighted random sampling with a reservoir. Information
Processing Letters 97(5), 2006.
"""
import math
import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.kernel_loops import INNER_PRODUCT_KERNELS
from lsl_lib._core.linalg import (
    dense_rows,
    row_blocks,
    squared_row_norms,
    zero_eigenvalue_threshold,
)
from lsl_lib._core.random import check_random_state
from lsl_lib._core.validation import ITERATIVE_CONSTRAINTS, KERNEL_CONSTRAINTS
from lsl_lib.kernels import check_kernel_params, kernel_matrix

__all__ = ["Nystroem", "inverse_square_root"]


def __dir__():
    return __all__


#: How :class:`Nystroem` draws its landmarks.
_SAMPLINGS = ("uniform", "leverage")


def _kernel_diagonal(X, kernel, degree, coef0):
    """:math:`k(x_i, x_i)`: 1 for the Gaussian, Laplacian and Cauchy kernels."""
    if kernel in ("linear", "polynomial"):
        sq = squared_row_norms(X)
        return sq if kernel == "linear" else (sq + coef0) ** degree
    return np.ones(X.shape[0])


def inverse_square_root(K):
    r"""The pseudo-inverse square root :math:`K^{+1/2} = U_r S_r^{-1/2} U_r^\top` of a PSD matrix.

    From the symmetric eigendecomposition :math:`K = U S U^\top` in float64; the
    eigenvalues at or below :math:`\sigma_{max}\, m\, \epsilon` (zero up to rounding)
    are dropped with their directions, so :math:`K K^{+1/2} K^{+1/2} K = K` up to rounding
    even when K is singular (duplicate landmarks, a linear kernel with d < m).

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite.

    Returns
    -------
    K_inv_sqrt : ndarray of shape (m, m), float64
        Symmetric, of rank r (the number of eigenvalues kept).

    Notes
    -----
    NumPy's LAPACK (``numpy.linalg.eigh``), not SciPy's: the kernel blocks are NumPy
    products, and alternating between the two OpenBLAS builds, each with its own
    thread pool, makes the pools spin against each other (benchmarks/README.md,
    §Kernel approximation).
    """
    s, U = np.linalg.eigh(np.asarray(K, dtype=np.float64))
    keep = s > zero_eigenvalue_threshold(s)
    U = U[:, keep]
    return (U / np.sqrt(s[keep])) @ U.T


def _ridge_leverage_scores(X, sketch, kernel, gamma, degree, coef0):
    r"""Approximate λ-ridge leverage scores of all n points from a uniform sketch S.

    Returns ``(scores, lam)``; see :class:`Nystroem`, Notes, for the estimator and λ.
    One eigendecomposition :math:`K_{SS} = U \Sigma U^\top` gives both λ and
    :math:`k^\top (K_{SS} + \lambda_S I)^{-1} k = \|(\Sigma + \lambda_S I)^{-1/2} U^\top k\|^2`.
    """
    n, m = X.shape[0], sketch.shape[0]
    sigma, U = np.linalg.eigh(kernel_matrix(sketch, sketch, kernel, gamma, degree, coef0))
    sigma = np.clip(sigma[::-1], 0.0, None)  # decreasing; rounding can make some < 0
    U = U[:, ::-1]
    residual = _kernel_diagonal(X, kernel, degree, coef0)
    if sigma[0] == 0.0:
        # The kernel vanishes on the sketch, hence k_S(x) = 0 for every x (Cauchy-Schwarz):
        # the scores' limit as lam -> 0, 1 where k(x, x) > 0 (e.g. a linear kernel, zero rows).
        return (residual > 0).astype(np.float64), 0.0
    k = 1 if m == 1 else math.ceil(m / (4 * math.log(m)))
    lam_sketch = max(sigma[k:].sum() / k, zero_eigenvalue_threshold(sigma))
    W = U / np.sqrt(sigma + lam_sketch)
    for rows in row_blocks(n, m):
        V = kernel_matrix(X[rows], sketch, kernel, gamma, degree, coef0) @ W
        residual[rows] -= np.einsum("ij,ij->i", V, V)
    lam = n / m * lam_sketch
    return np.clip(residual / lam, 0.0, 1.0), lam


def _weighted_sample_without_replacement(weights, size, rng):
    r"""Efraimidis-Spirakis: the ``size`` smallest keys :math:`E_i / w_i`, :math:`E_i \sim
    \mathrm{Exp}(1)`. Same law as drawing one index at a time with probability
    proportional to w among those left; indices of weight 0 come last, in random order."""
    E = rng.standard_exponential(weights.shape[0])
    with np.errstate(divide="ignore"):
        keys = E / weights
    return np.lexsort((E, keys))[:size]


class Nystroem(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Nyström feature map :math:`z(x) = K_{mm}^{-1/2} k_m(x)` from m landmarks.

    .. math::

        z(x) = K_{mm}^{-1/2} \big(k(x, l_1), \dots, k(x, l_m)\big)^\top, \qquad
        Z Z^\top = K_{nm} K_{mm}^{+} K_{mn} \approx K,

    with the landmarks :math:`l_j` drawn from the training points, uniformly or by
    approximate ridge leverage scores.
    The defaults (100 uniform landmarks, the Gaussian kernel with gamma = 1/d) are those
    of scikit-learn's ``Nystroem``, and so is the map given the same landmarks.

    Parameters
    ----------
    n_components : int, default=100
        The number m of landmarks, which is also the output width D. Capped at
        n_samples (with a ``UserWarning``).
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
        A kernel of :mod:`lsl_lib.kernels`.
    gamma : float > 0 or None, default=None
        Width of the Gaussian, Laplacian and Cauchy kernels; ``None`` is 1/d.
    degree : int >= 1, default=3
        :math:`p` of the polynomial kernel :math:`(\langle a, b\rangle + c_0)^p`.
    coef0 : float >= 0, default=1.0
        :math:`c_0` of the polynomial kernel.
    sampling : {'uniform', 'leverage'}, default='uniform'
        How the landmarks are drawn: uniformly without replacement, or without
        replacement with probabilities proportional to approximate ridge leverage
        scores (see Notes).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the landmark draws.

    Attributes
    ----------
    components_ : ndarray of shape (m, n_features), float64
        The landmarks :math:`l_1, \dots, l_m` (dense even when X is sparse).
    component_indices_ : ndarray of shape (m,)
        Their rows in the training X, in the order drawn.
    normalization_ : ndarray of shape (m, m), float64
        :math:`K_{mm}^{-1/2}` (a pseudo-inverse square root, symmetric; see Notes).
    gamma_ : float
        The kernel width used (``gamma`` resolved: ``None`` is 1/d).
    leverage_scores_ : ndarray of shape (n_samples,)
        With ``sampling='leverage'``: the approximate ridge leverage scores
        :math:`\tilde\tau_i(\lambda) \in [0, 1]` of the training points.
    lam_ : float
        With ``sampling='leverage'``: the ridge parameter λ of those scores (0 when
        the kernel vanishes on the sketch: then the scores are 1 where
        :math:`k(x_i, x_i) > 0`, their limit as λ -> 0, and 0 elsewhere).
    n_features_in_ : int

    See Also
    --------
    sklearn.kernel_approximation.Nystroem : the same map with uniform landmarks.
    lsl_lib.kernels.kernel_matrix : the exact kernel.

    Notes
    -----
    **Factoring** :math:`K_{mm}`. The symmetric eigendecomposition
    :math:`K_{mm} = U S U^\top` is computed in float64; eigenvalues at or below
    :math:`\sigma_{max}\, m\, \epsilon` are zero up to rounding and their directions are
    dropped: ``normalization_`` is :math:`U_r S_r^{-1/2} U_r^\top`, so
    :math:`ZZ^\top = K_{nm} K_{mm}^{+} K_{mn}` also when :math:`K_{mm}` is singular. The
    output width stays m: the r features are rotated by :math:`U_r` into m columns.
    (scikit-learn's ``Nystroem`` factors :math:`K_{mm}` by an SVD and raises the
    singular values below 1e-12 to 1e-12, an absolute threshold whatever the scale
    of K; on a well-conditioned :math:`K_{mm}` the two maps are the same.)

    **Leverage sampling** in two passes, the last level of Musco and Musco's recursive
    algorithm started from a uniform sample:

    1. a uniform sketch S of m points (without replacement);
    2. λ from the sketch's eigenvalues :math:`\sigma_1 \ge \dots \ge \sigma_m` of
       :math:`K_{SS}`, which estimate :math:`(m/n)\,\sigma_j(K)`:
       :math:`\lambda = \frac{n}{m}\,\frac1k \sum_{j > k} \sigma_j` with
       :math:`k = \lceil m / (4 \ln m)\rceil`, as in Musco and Musco's code: then the
       effective dimension is :math:`\sum_i \tau_i(\lambda) \le 2k` (as
       :math:`\sigma_j/(\sigma_j + \lambda) \le \min(1, \sigma_j/\lambda)`), and
       :math:`m \approx 4k\ln m` is the :math:`O(d_{eff}\log d_{eff})` sample size their
       guarantee asks for; no parameter to tune (when :math:`K_{SS}` has rank at most k,
       the sum is floored at the zero-eigenvalue threshold above);
    3. for every training point, Musco and Musco's estimator of :math:`\tau_i(\lambda)`
       (exact when S holds every point, close when S reweighted by n/m is a spectral
       approximation of K):

       .. math::

           \tilde\tau_i(\lambda) = \frac1\lambda \Big(k(x_i, x_i) - k_S(x_i)^\top
               \big(K_{SS} + \tfrac{m}{n}\lambda I\big)^{-1} k_S(x_i)\Big),

       clipped to [0, 1]: a point far from the sketch keeps almost all of
       :math:`k(x_i, x_i)` and gets the largest score, :math:`k(x_i, x_i)/\lambda`
       (a Nyström-feature estimate
       :math:`z_S(x_i)^\top(Z_S^\top Z_S + \lambda I)^{-1} z_S(x_i)` would give it 0);
    4. m landmarks drawn without replacement, one at a time with probability
       proportional to :math:`\tilde\tau_i` among the points left (drawn at once by
       Efraimidis and Spirakis' keys :math:`E_i/\tilde\tau_i`), as Musco and Musco's
       code draws its final sample.

    Leverage sampling costs one more pass over the data at fit time:
    :math:`O(nmd + nm^2)` instead of :math:`O(m^2 d + m^3)` for uniform sampling.
    ``transform`` costs :math:`O(nmd + nm^2)`, in row blocks of bounded memory.

    **Sparse X** (CSR) is accepted with the linear, polynomial and Gaussian
    kernels, computed from the sparse product :math:`X L^\top` with the dense landmarks
    L; the Laplacian and Cauchy kernels need every coordinate difference and refuse it
    with a ``TypeError``. Float32 input gives float32 output; the kernel blocks and
    :math:`K_{mm}^{-1/2}` are computed in float64.

    References
    ----------
    Williams, Seeger. Using the Nyström method to speed up kernel machines. NIPS 2001.

    Alaoui, Mahoney. Fast randomized kernel ridge regression with statistical
    guarantees. NIPS 2015.

    Musco, Musco. Recursive sampling for the Nyström method. NIPS 2017
    (arXiv:1605.07583).

    Efraimidis, Spirakis. Weighted random sampling with a reservoir. Information
    Processing Letters 97(5), 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kernels import kernel_matrix
    >>> from lsl_lib.nystroem import Nystroem
    >>> X = np.random.default_rng(0).normal(size=(300, 4))
    >>> Z = Nystroem(n_components=60, gamma=0.25, random_state=0).fit_transform(X)
    >>> Z.shape
    (300, 60)
    >>> K = kernel_matrix(X, gamma=0.25)
    >>> float(np.round(np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K), 3))
    0.046
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        **KERNEL_CONSTRAINTS,
        "sampling": [StrOptions(set(_SAMPLINGS))],
        "random_state": ITERATIVE_CONSTRAINTS["random_state"],
    }

    def __init__(self, n_components=100, kernel="gaussian", gamma=None, degree=3, coef0=1.0,
                 sampling="uniform", random_state=None):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.sampling = sampling
        self.random_state = random_state

    def _validate_X(self, X, reset):
        if sp.issparse(X) and self.kernel not in INNER_PRODUCT_KERNELS:
            raise TypeError(f"sparse X is supported with kernel in {INNER_PRODUCT_KERNELS} "
                            f"(computed from X @ landmarks.T); kernel={self.kernel!r} needs a "
                            f"dense X.")
        return validate_data(self, X, reset=reset, accept_sparse="csr",
                             dtype=[np.float64, np.float32])

    def _kernel(self, X, landmarks):
        return kernel_matrix(X, landmarks, self.kernel, self.gamma_, self.degree, self.coef0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the landmarks from X and factor :math:`K_{mm}`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : Nystroem
        """
        X = self._validate_X(X, reset=True)
        n = X.shape[0]
        _, self.gamma_, _, _ = check_kernel_params(self.kernel, self.gamma, self.degree,
                                                   self.coef0, X.shape[1])
        m = self.n_components
        if m > n:
            warnings.warn(f"n_components={m} is larger than n_samples={n}; using "
                          f"n_components={n}: every sample is a landmark.", UserWarning,
                          stacklevel=3)  # the caller of fit, above _fit_context
            m = n
        rng = check_random_state(self.random_state)
        if self.sampling == "uniform":
            indices = rng.choice(n, m, replace=False)
            for stale in ("leverage_scores_", "lam_"):  # from an earlier fit with 'leverage'
                self.__dict__.pop(stale, None)
        else:
            sketch = dense_rows(X, rng.choice(n, m, replace=False))
            self.leverage_scores_, self.lam_ = _ridge_leverage_scores(
                X, sketch, self.kernel, self.gamma_, self.degree, self.coef0)
            indices = _weighted_sample_without_replacement(self.leverage_scores_, m, rng)
        self.component_indices_ = indices
        self.components_ = dense_rows(X, indices)
        self.normalization_ = inverse_square_root(self._kernel(self.components_, self.components_))
        return self

    def transform(self, X):
        """The features :math:`z(x) = K_{mm}^{-1/2} k_m(x)` of every row of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, m), the dtype of X (float32 or float64)
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        m = self.normalization_.shape[0]
        Z = np.empty((X.shape[0], m), dtype=X.dtype)
        for rows in row_blocks(X.shape[0], m):
            K = self._kernel(X[rows], self.components_)
            if Z.dtype == np.float64:
                np.matmul(K, self.normalization_, out=Z[rows])
            else:  # float64 product, rounded once to float32
                Z[rows] = K @ self.normalization_
        return Z

    @property
    def _n_features_out(self):
        return self.normalization_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

