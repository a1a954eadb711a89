r"""Exact kernels, exact kernel ridge regression, and the explicit polynomial map.

The kernels of the course, :math:`k(a, b) = \langle\varphi(a), \varphi(b)\rangle`:

==============  ==========================================================
``linear``      :math:`\langle a, b\rangle`
``polynomial``  :math:`(\langle a, b\rangle + c_0)^p`  (``coef0``, ``degree``)
``gaussian``    :math:`\exp(-\gamma\|a - b\|_2^2)`
``laplacian``   :math:`\exp(-\gamma\|a - b\|_1)`
``cauchy``      :math:`\prod_{j=1}^d 1/(1 + \gamma (a_j - b_j)^2)`
==============  ==========================================================

They are what every approximation of the later lectures (random features,
Nyström, Fastfood) is measured against, and :class:`KernelRidge` is the exact
solver those approximations stand in for.

Sparse (CSR) input works with the inner-product kernels (linear, polynomial,
Gaussian): :func:`kernel_matrix` computes them from the product :math:`XY^\top`.

:func:`kernel_matrix` is the numpy reference of the compiled kernel engine
(:mod:`lsl_lib._core.kernel_loops`) that the learners of lectures 03, 04 and 14 call
inside their loops, one entry, row or column at a time; the two agree to rounding:

=====================================  ===========================  ==============================
formula                                reference                    compiled
=====================================  ===========================  ==============================
:math:`k(a, b)`, one entry             :func:`kernel_matrix`        ``kernel_raw_numba``, then
                                                                    ``kernel_finish_numba``
:math:`K(:, x) = (k(x_j, x))_j`        :func:`kernel_matrix`        ``kernel_column_numba``
the same from CSR rows                 :func:`kernel_matrix` (CSR)  ``sparse_kernel_raw_numba``,
                                                                    ``sparse_kernel_column_numba``
the same from a row view of X          :func:`kernel_matrix`        ``row_kernel_raw_numba``,
                                                                    ``row_kernel_column_numba``
=====================================  ===========================  ==============================

References
----------
Schölkopf, Smola. Learning with Kernels. MIT Press, 2002 (Chapters 2 and 4).

Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007 (the
Laplacian and Cauchy kernels with their spectral densities).
"""
import math
from itertools import chain, combinations_with_replacement
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.kernel_loops import (
    CAUCHY,
    GAUSSIAN,
    INNER_PRODUCT_KERNELS,
    KERNELS,
    LAPLACIAN,
    LINEAR,
    POLYNOMIAL,
)
from lsl_lib._core.linalg import BLOCK_ELEMENTS, squared_row_norms
from lsl_lib._core.validation import KERNEL_CONSTRAINTS, LEARNER_KERNEL_CONSTRAINTS, memory_named

__all__ = [
    "KERNELS", "INNER_PRODUCT_KERNELS", "DEFAULT_KERNEL_EVALUATIONS",
    "check_kernel_params", "kernel_matrix", "kernel_scores", "cache_slots", "fitted_gamma",
    "KernelRidge",
    "n_polynomial_features", "multiset_rank_tables", "PolynomialFeatureMap",
]


def __dir__():
    return __all__


def check_kernel_params(kernel, gamma=None, degree=3, coef0=1.0, n_features=None):
    """Validate a kernel and its parameters; return ``(code, gamma, degree, coef0)``.

    ``gamma=None`` means :math:`1/d` (scikit-learn's convention) for the kernels
    that have a width; ``n_features`` is d.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")
    if gamma is None:
        gamma = 1.0 / n_features if n_features else 1.0
    if not (isinstance(gamma, Real) and gamma > 0):
        raise ValueError(f"gamma must be a number > 0, got {gamma!r}.")
    if not (isinstance(degree, Integral) and degree >= 1):
        raise ValueError(f"degree must be an int >= 1, got {degree!r}.")
    if not (isinstance(coef0, Real) and coef0 >= 0):
        raise ValueError(f"coef0 must be a number >= 0, got {coef0!r}.")
    return KERNELS.index(kernel), float(gamma), int(degree), float(coef0)


def _block(A, B, kernel_code, gamma, degree, coef0):
    """The kernel between the rows of two blocks (dense float64, or CSR for the
    inner-product kernels), finished in place in the one (rows, m) array of products."""
    if kernel_code in (LINEAR, POLYNOMIAL, GAUSSIAN):
        G = A @ B.T
        G = G.toarray() if sp.issparse(G) else np.asarray(G, dtype=np.float64)
        if kernel_code == POLYNOMIAL:
            G += coef0
            G **= degree
        elif kernel_code == GAUSSIAN:  # ||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b, rounded at >= 0
            G *= -2.0
            G += squared_row_norms(A)[:, None]
            G += squared_row_norms(B)[None, :]
            np.maximum(G, 0.0, out=G)
            G *= -gamma
            np.exp(G, out=G)
        return G
    diff = A[:, None, :] - B[None, :, :]
    if kernel_code == LAPLACIAN:
        return np.exp(-gamma * np.abs(diff).sum(axis=2))
    return np.exp(-np.log1p(gamma * diff * diff).sum(axis=2))  # CAUCHY: a product of d factors


def _as_kernel_input(A, name, kernel):
    """A as :func:`kernel_matrix` reads it: CSR float64 (inner-product kernels) or dense."""
    if sp.issparse(A):
        if kernel in KERNELS and kernel not in INNER_PRODUCT_KERNELS:
            raise TypeError(f"sparse {name} is supported with kernel in {INNER_PRODUCT_KERNELS} "
                            f"(computed from inner products); kernel={kernel!r} needs it dense.")
        A = sp.csr_matrix(A, dtype=np.float64)
        values = A.data
    else:
        A = values = np.asarray(A, dtype=np.float64)
    return A, values


def kernel_matrix(X, Y=None, kernel="gaussian", gamma=None, degree=3, coef0=1.0):
    r"""The kernel matrix :math:`K_{ij} = k(x_i, y_j)`, computed in row blocks.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n, d)
        Sparse input is accepted by the inner-product kernels (linear, polynomial,
        Gaussian): they are computed from :math:`XY^\top`.
    Y : array-like or sparse matrix of shape (m, d), default=None
        ``None`` means ``Y = X``.
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float > 0, default=None
        Width of the Gaussian, Laplacian and Cauchy kernels; ``None`` is 1/d.
    degree : int >= 1, default=3
        :math:`p` of the polynomial kernel.
    coef0 : float >= 0, default=1.0
        :math:`c_0` of the polynomial kernel.

    Returns
    -------
    K : ndarray of shape (n, m), float64

    Notes
    -----
    Rows of X are processed in blocks so that no temporary array exceeds
    ``BLOCK_ELEMENTS`` entries (the Laplacian and Cauchy kernels need the
    (block, m, d) array of coordinate differences): memory beyond K stays bounded
    however large n is. The inner-product kernels finish each block in place, from
    the products :math:`XY^\top`, with no further temporary.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kernels import kernel_matrix
    >>> kernel_matrix(np.array([[0.0, 0.0], [1.0, 1.0]]), kernel="laplacian", gamma=0.5)
    array([[1.        , 0.36787944],
           [0.36787944, 1.        ]])
    """
    X, x_values = _as_kernel_input(X, "X", kernel)
    Y, y_values = (X, x_values) if Y is None else _as_kernel_input(Y, "Y", kernel)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must be 2-D with the same number of columns, got shapes "
                         f"{X.shape} and {Y.shape}.")
    if not (np.isfinite(x_values).all() and np.isfinite(y_values).all()):
        raise ValueError("X and Y must not contain NaN or infinity.")
    code, gamma, degree, coef0 = check_kernel_params(kernel, gamma, degree, coef0, X.shape[1])
    n, m = X.shape[0], Y.shape[0]
    per_row = m * (X.shape[1] if code in (LAPLACIAN, CAUCHY) else 1)
    rows = max(1, BLOCK_ELEMENTS // max(per_row, 1))
    K = np.empty((n, m))
    for start in range(0, n, rows):
        K[start:start + rows] = _block(X[start:start + rows], Y, code, gamma, degree, coef0)
    return K


def kernel_scores(X, support_vectors, dual_coef, kernel="gaussian", gamma=None, degree=3,
                  coef0=1.0):
    r""":math:`K(X, S)\,c` in row blocks, so that the n x m kernel matrix is never formed:
    the scores :math:`f(x) = \sum_j c_j k(s_j, x)` of a kernel expansion (``dual_coef`` of
    shape (m,), or (m, K) for K expansions on the same support vectors)."""
    n = X.shape[0]
    out = np.zeros((n,) + dual_coef.shape[1:])
    if len(dual_coef) == 0:
        return out
    rows = max(1, BLOCK_ELEMENTS // len(dual_coef))
    for start in range(0, n, rows):
        out[start:start + rows] = kernel_matrix(X[start:start + rows], support_vectors, kernel,
                                                gamma, degree, coef0) @ dual_coef
    return out


#: Kernel evaluations after which the default length of kernel Pegasos and of the online
#: kernel learner stops (``n_iter=None``, ``n_epochs=None``): about half a minute of their
#: compiled loops on one core (benchmarks/README.md, §Kernel learning online).
DEFAULT_KERNEL_EVALUATIONS = 5 * 10**8


def cache_slots(cache_size, n_samples):
    """How many kernel rows (or columns) of ``n_samples`` float64 values fit in
    ``cache_size`` megabytes; at most ``n_samples``."""
    return min(n_samples, int(cache_size * 2 ** 20) // (8 * n_samples))


def fitted_gamma(gamma, X, sample_weight=None):
    r"""The kernel width a learner uses on training data X: ``gamma`` itself if a number,
    :math:`1/d` for ``None``, and for ``'scale'`` scikit-learn's ``SVC`` default

    .. math:: \gamma = \frac{1}{d\,\operatorname{Var}(X)},

    the variance over all n d entries of X (dense or sparse); 1 if X is constant (to the
    rounding of its mean).
    With it, :math:`\gamma\|x - x'\|^2` is about 2 on average over pairs of
    examples whatever the scale of the features, where :math:`1/d` assumes features of
    unit variance. With ``sample_weight`` the entries of row i count :math:`s_i` times,
    so that a zero weight is a dropped row (bit for bit: those rows are left out of the sums)
    and an integer weight a repeated one.
    """
    if not (isinstance(gamma, str) and gamma == "scale"):
        return check_kernel_params("linear", gamma, n_features=X.shape[1])[1]
    if sample_weight is None:
        s = np.ones(X.shape[0])
    else:  # rows of zero weight are dropped, not summed with weight 0: the same bits as without
        s = np.asarray(sample_weight, np.float64)
        if not s.all():
            kept = s > 0
            X, s = X[kept], s[kept]
    total = s.sum() * X.shape[1]
    mean = s @ np.asarray(X.sum(axis=1), dtype=np.float64).ravel() / total
    eps = np.finfo(np.float64).eps
    # a constant X gives a variance of the order of its rounding, not 0
    if sp.issparse(X):  # E x^2 - m^2: rounding of the order of eps E x^2
        second_moment = s @ np.asarray(X.multiply(X).sum(axis=1), np.float64).ravel() / total
        variance = second_moment - mean**2
        constant = variance <= 8 * eps * second_moment
    else:  # deviations from the mean: rounding of the order of (eps m)^2
        deviations = np.asarray(X, dtype=np.float64) - mean
        variance = s @ np.einsum("ij,ij->i", deviations, deviations) / total
        constant = variance <= (8 * eps * mean) ** 2
    return 1.0 if constant else 1.0 / (X.shape[1] * variance)


class KernelRidge(RegressorMixin, BaseEstimator):
    r"""Exact kernel ridge regression: :math:`\alpha = (K + \lambda I)^{-1} y` by Cholesky.

    The problem of :class:`sklearn.kernel_ridge.KernelRidge`, with the course's defaults:
    ``lam`` is scikit-learn's ``alpha`` on the same scale (it weighs the *sum* of squared
    errors, not their mean, so it is not the :math:`\lambda = 1/(Cn)` of the Pegasos-type
    learners); the default kernel is the Gaussian with ``gamma='scale'`` (scikit-learn's is
    the linear kernel), and the kernels are the course's, by their names (including the
    Laplacian on :math:`\|a - b\|_1` and the Cauchy kernel). Both solve by a Cholesky
    factorisation; this one raises ``numpy.linalg.LinAlgError`` when :math:`K + \lambda I`
    is not numerically positive definite, where scikit-learn warns and falls back to least
    squares. Use this one in the lectures and as the exact solution that the approximations
    of :mod:`lsl_lib` are measured against; use scikit-learn's for precomputed or callable
    kernels, sample weights or one penalty per target.

    It minimises :math:`\|y - K\alpha\|^2 + \lambda\,\alpha^\top K \alpha` over
    :math:`f = \sum_i \alpha_i k(x_i, \cdot)` and predicts
    :math:`f(x) = \sum_i \alpha_i k(x_i, x)`. It costs :math:`O(n^2)` memory and
    :math:`O(n^3)` time: the baseline that the approximations of the later lectures make
    affordable.

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation :math:`\lambda > 0` (scikit-learn's ``alpha``).
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d\,\operatorname{Var}(X))` as in
        scikit-learn's ``SVC`` (:func:`fitted_gamma`), ``None`` is 1/d.
    degree : int, default=3
    coef0 : float, default=1.0

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        :math:`\alpha`.
    X_fit_ : ndarray or CSR matrix of shape (n_samples, n_features)
        Sparse input works with the inner-product kernels, as in :func:`kernel_matrix`.
    gamma_ : float
        The kernel width used.
    n_features_in_ : int

    See Also
    --------
    sklearn.kernel_ridge.KernelRidge : the same problem (``alpha`` = ``lam``), linear
        kernel by default.

    Notes
    -----
    The defaults are what a user who reads nothing gets. A Gaussian kernel with
    ``gamma='scale'`` adapts the width to the spread of the data, where scikit-learn's
    default linear kernel and the width 1/d underfit. Measured against its peers in
    benchmarks/README.md, §Exact kernel ridge: the defaults.

    References
    ----------
    Saunders, Gammerman, Vovk. Ridge regression learning algorithm in dual
    variables. ICML 1998.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kernels import KernelRidge
    >>> X = np.linspace(0, 6, 50)[:, None]
    >>> model = KernelRidge(lam=1e-3, gamma=1.0).fit(X, np.sin(X[:, 0]))
    >>> float(np.round(model.predict([[np.pi / 2]])[0], 3))
    1.0
    """

    _parameter_constraints = {"lam": [Interval(Real, 0, None, closed="neither")],
                              **LEARNER_KERNEL_CONSTRAINTS}

    def __init__(self, lam=1.0, kernel="gaussian", gamma="scale", degree=3, coef0=1.0):
        self.lam = lam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def _kernel(self, X, Y=None):
        return kernel_matrix(X, Y, self.kernel, self.gamma_, self.degree, self.coef0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             multi_output=True, y_numeric=True)
        self.gamma_ = fitted_gamma(self.gamma, X)
        K = self._kernel(X)
        K[np.diag_indices_from(K)] += self.lam
        self.dual_coef_ = scipy.linalg.cho_solve(scipy.linalg.cho_factor(K, lower=True),
                                                 y.astype(np.float64))
        self.X_fit_ = X
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._kernel(X, self.X_fit_) @ self.dual_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        return tags


def n_polynomial_features(n_features, degree):
    r"""Output width :math:`D = \binom{p + d}{p}` of :class:`PolynomialFeatureMap`."""
    return math.comb(degree + n_features, degree)


def multiset_rank_tables(n_items, degree):
    r"""Tables that rank a monomial among those of its degree, in the order of
    ``itertools.combinations_with_replacement(range(n_items), degree)``.

    A monomial of degree p is a sorted tuple :math:`c_1 \le \dots \le c_p` of items
    :math:`0, \dots, m - 1`. The tuples before it in lexicographic order are counted
    position by position: at position q, every item v with :math:`c_{q-1} \le v < c_q`
    (:math:`c_0 = 0`) starts :math:`N(m - v, p - q)` tuples, where
    :math:`N(k, r) = \binom{k + r - 1}{r}` counts the multisets of size r from k items.
    With the prefix sums :math:`P_q[c] = \sum_{v < c} N(m - v, p - q)`,

    .. math:: \operatorname{rank}(c) = \sum_{q=1}^p P_q[c_q] - P_q[c_{q-1}].

    Returns
    -------
    P : ndarray of shape (degree, n_items), int64
        Row q - 1 holds :math:`P_q`.
    """
    P = np.zeros((degree, n_items), dtype=np.int64)
    for q in range(1, degree + 1):
        counts = [math.comb(n_items - v + degree - q - 1, degree - q) for v in range(n_items - 1)]
        P[q - 1, 1:] = np.cumsum(counts)
    return P


class PolynomialFeatureMap(TransformerMixin, BaseEstimator):
    r"""The explicit feature map of the polynomial kernel ("kernel untricking").

    With :math:`\tilde x = (\sqrt{c_0}, x_1, \dots, x_d)`, the multinomial theorem gives

    .. math::

        (\langle x, y\rangle + c_0)^p = \sum_{|m| = p} \binom{p}{m}
            \prod_{j=0}^d \tilde x_j^{m_j}\, \tilde y_j^{m_j}
        = \langle\varphi(x), \varphi(y)\rangle,
        \qquad \varphi_m(x) = \sqrt{\tbinom{p}{m}} \prod_j \tilde x_j^{m_j},

    one feature per multi-index :math:`m \in \mathbb{N}^{d+1}` with :math:`|m| = p`:
    :math:`D = \binom{p+d}{p}` of them. The kernel trick computes the same inner
    product in :math:`O(d)`; the explicit map costs :math:`O(D)`, which explodes with d and p.

    Dense X gives a dense map, built a block of rows at a time by p - 1 products of
    gathered columns (:math:`O(npD)`). CSR X gives a CSR map of only the monomials of a
    row's nonzero entries (and of the constant :math:`\sqrt{c_0}`): a row with k nonzeros
    has :math:`\binom{k + p}{p}` of them, however large D is (degree 2 on a9a: about 120
    per row of D = 7 750), each placed at its column by :func:`multiset_rank_tables`.
    With a linear SVM on top this is the "Poly2 SVM" of the BudgetedSVM comparisons.

    Parameters
    ----------
    degree : int, default=2
    coef0 : float, default=1.0

    Attributes
    ----------
    n_output_features_ : int
        D.
    monomials_ : ndarray of shape (D, degree), int64
        Column k of the map is the monomial :math:`\prod_q \tilde x_{c_q}` of the sorted
        indices ``monomials_[k]`` of :math:`\tilde x` (0 the constant, j the feature
        :math:`x_j`), times its weight; the multi-index m counts each index's repeats.
    n_features_in_ : int

    See Also
    --------
    sklearn.preprocessing.PolynomialFeatures : the monomials without the weights.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from lsl_lib.kernels import PolynomialFeatureMap, kernel_matrix
    >>> X = np.array([[1.0, 2.0], [0.5, -1.0]])
    >>> Z = PolynomialFeatureMap(degree=3).fit_transform(X)
    >>> Z.shape[1], np.allclose(Z @ Z.T, kernel_matrix(X, kernel="polynomial", degree=3))
    (10, True)
    >>> Zs = PolynomialFeatureMap(degree=3).fit_transform(sp.csr_matrix(X))
    >>> sp.issparse(Zs), np.allclose(Zs.toarray(), Z)
    (True, True)
    """

    _parameter_constraints = {"degree": KERNEL_CONSTRAINTS["degree"],
                              "coef0": KERNEL_CONSTRAINTS["coef0"]}

    def __init__(self, degree=2, coef0=1.0):
        self.degree = degree
        self.coef0 = coef0

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        r"""The monomials of :math:`\tilde x` and their weights; only X's width is used."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        m, p = X.shape[1] + 1, self.degree
        D = n_polynomial_features(X.shape[1], p)
        with memory_named("degree", p):
            self.monomials_ = np.fromiter(
                chain.from_iterable(combinations_with_replacement(range(m), p)),
                dtype=np.int64, count=D * p).reshape(D, p)
            self._weights = np.sqrt(self._multinomials(self.monomials_))
        self._rank_tables = multiset_rank_tables(m, p)
        self.n_output_features_ = D
        return self

    @staticmethod
    def _multinomials(monomials):
        r""":math:`\binom{p}{m} = p!/\prod_j m_j!` of sorted index tuples (rows), from the
        lengths of their runs of equal indices."""
        p = monomials.shape[1]
        coef = np.full(monomials.shape[0], float(math.factorial(p)))
        run = np.ones(monomials.shape[0])
        for q in range(1, p):
            run = np.where(monomials[:, q] == monomials[:, q - 1], run + 1.0, 1.0)
            coef /= run
        return coef

    def transform(self, X):
        r""":math:`\varphi(X)`, shape (n, D): dense for dense X, CSR for CSR X."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if sp.issparse(X):
            return self._sparse_transform(X)
        n, D = X.shape[0], self.n_output_features_
        with memory_named("degree", self.degree):
            Z = np.empty((n, D))
        rows = max(1, BLOCK_ELEMENTS // D)
        for start in range(0, n, rows):
            X_tilde = np.hstack([np.full((min(rows, n - start), 1), math.sqrt(self.coef0)),
                                 X[start:start + rows]])
            Z_block = Z[start:start + rows]
            np.take(X_tilde, self.monomials_[:, 0], axis=1, out=Z_block)
            for q in range(1, self.degree):
                Z_block *= X_tilde[:, self.monomials_[:, q]]
            Z_block *= self._weights
        return Z

    def _sparse_transform(self, X):
        r"""The CSR map: the monomials of each row's nonzero entries of :math:`\tilde x`,
        grown one degree at a time (each partial monomial extended by every entry of its
        row at or after its last one: the tuples stay sorted and, row by row, in the
        order of their columns), placed by the rank tables, weighted by the multinomial
        coefficient from the runs of equal indices."""
        if not X.has_canonical_format or np.any(X.data == 0):  # the user's X stays as it is
            X = X.copy()
            X.sum_duplicates()
            X.eliminate_zeros()
        n, p = X.shape[0], self.degree
        lengths = np.diff(X.indptr)
        if self.coef0 > 0:  # the constant sqrt(c0) is entry 0 of every row
            lengths = lengths + 1
            indptr = np.concatenate([[0], np.cumsum(lengths)])
            first = indptr[:-1]
            cols, data = np.empty(indptr[-1], dtype=np.int64), np.empty(indptr[-1])
            features = np.ones(indptr[-1], dtype=bool)
            features[first] = False
            cols[first], data[first] = 0, math.sqrt(self.coef0)
            cols[features], data[features] = X.indices + 1, X.data
        else:
            indptr = X.indptr.astype(np.int64)
            cols, data = X.indices.astype(np.int64) + 1, X.data
        row = np.repeat(np.arange(n), lengths)
        row_end = indptr[1:][row]
        pos = np.arange(indptr[-1])
        value, rank = data.copy(), self._rank_tables[0][cols]
        coef, run = np.full(len(pos), float(math.factorial(p))), np.ones(len(pos))
        for q in range(1, p):
            counts = row_end - pos  # entries at or after pos in its row
            total = int(counts.sum())
            with memory_named("degree", p):
                parent = np.repeat(np.arange(len(pos)), counts)
                offset = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            new_pos = pos[parent] + offset
            run = np.where(offset == 0, run[parent] + 1.0, 1.0)
            coef = coef[parent] / run
            value = value[parent] * data[new_pos]
            table = self._rank_tables[q]
            rank = rank[parent] + table[cols[new_pos]] - table[cols[pos[parent]]]
            row, row_end, pos = row[parent], row_end[parent], new_pos
        value *= np.sqrt(coef)
        out_indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=n))])
        Z = sp.csr_matrix((value, rank, out_indptr), shape=(n, self.n_output_features_))
        Z.has_sorted_indices = True
        return Z

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
