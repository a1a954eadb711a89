r"""The fast Walsh-Hadamard transform and Fastfood.

**The Walsh-Hadamard transform.** The Hadamard matrices of Sylvester's construction,

.. math::

    H_1 = (1), \qquad H_{2n} = \begin{pmatrix} H_n & H_n \\ H_n & -H_n \end{pmatrix},

have entries :math:`\pm 1` and orthogonal rows, :math:`H_d H_d = d I`. The block form
gives a recursion: :math:`H_{2n} (x_1, x_2) = (H_n x_1 + H_n x_2, H_n x_1 - H_n x_2)`,
so :math:`H_d x` takes :math:`\log_2 d` stages of :math:`d/2` butterflies
:math:`(a, b) \mapsto (a + b, a - b)`: :math:`O(d \log d)` instead of :math:`O(d^2)`,
and no matrix is stored (:func:`fwht`).

**Fastfood** (Le, Sarlós, Smola 2013) replaces the dense Gaussian matrix of random
Fourier features by a product of diagonal matrices, a permutation and two
Walsh-Hadamard transforms, for the Gaussian kernel
:math:`k(x, y) = \exp(-\gamma\|x - y\|^2)`, :math:`\sigma = 1/\sqrt{2\gamma}`:

.. math::

    V = \frac{1}{\sigma\sqrt{d'}}\, S H G \Pi H B \in \mathbb{R}^{d' \times d'},

on x padded with zeros to :math:`d'`, the next power of two :math:`\ge d`. Each row of
V is distributed as a row of the dense :math:`N(0, \sigma^{-2} I)` matrix (see
:class:`Fastfood`), but V costs :math:`O(d')` memory and :math:`Vx` costs
:math:`O(d' \log d')` time instead of :math:`O(d'^2)`. Independent blocks are stacked
for more than :math:`d'` frequencies, the last one cut to the rows that the width asks
for.

**Two paths.** :class:`Fastfood` has a numpy reference, :func:`fastfood_numpy` (the
projections :func:`fastfood_project_numpy`, then numpy's trigonometric functions), and a
compiled twin that fuses the steps row by row and gives the same numbers:

===============================  ======================  ====================
the paper's line                 reference               compiled
===============================  ======================  ====================
Le et al.: the features z(x) of  :func:`fastfood_numpy`  ``_fastfood_numba``
V x = S H G Π H B x / (σ √d')
H: the Walsh-Hadamard transform  :func:`fwht_numpy`      ``fwht_row_numba``
                                                         (``_core.hadamard``)
===============================  ======================  ====================

References
----------
Le, Sarlós, Smola. Fastfood — approximating kernel expansions in loglinear time.
ICML 2013.

Fino, Algazi. Unified matrix treatment of the fast Walsh-Hadamard transform.
IEEE Transactions on Computers C-25(11), 1976.
"""
import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.features import FEATURE_MAP_CONSTRAINTS, check_block_features, n_frequencies
from lsl_lib._core.hadamard import DTYPES, fwht, fwht_numpy, fwht_row_numba, next_power_of_two
from lsl_lib._core.linalg import BLOCK_ELEMENTS
from lsl_lib._core.random import check_random_state
from lsl_lib._core.trig import cos_scaled_numba, cos_sin_scaled_numba
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    KERNEL_CONSTRAINTS,
    feature_map_dtype,
    memory_named,
)
from lsl_lib.kernels import check_kernel_params

__all__ = ["Fastfood", "fastfood_numpy", "fastfood_project_numpy", "fwht", "fwht_numpy",
           "next_power_of_two"]


def __dir__():
    return __all__


def fastfood_project_numpy(X, B, P, G, S, out):
    r"""The Fastfood projections :math:`V x` of the rows of X, numpy reference.

    For each block: pad X with zeros to d' columns times B, :func:`fwht`, permute
    (:math:`(\Pi u)_k = u_{P_k}`), times G, :func:`fwht`, times S, written into the
    block's d' columns of ``out`` (the last block's first columns, if ``out`` ends there).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    B, G : ndarray of shape (n_blocks, d')
        The diagonals of B (entries +-1) and G, in the dtype of ``out``.
    P : ndarray of shape (n_blocks, d'), int
        The permutations.
    S : ndarray of shape (n_blocks, d')
        The diagonal of S already divided by :math:`\sigma\sqrt{d'}`.
    out : ndarray of shape (n, m), (n_blocks - 1) d' < m <= n_blocks d'
        Receives :math:`(V x_i)_j`, j < m (may be a view of a wider array).
    """
    n, d = X.shape
    n_blocks, d_padded = B.shape
    padded = np.empty((n, d_padded), dtype=out.dtype)
    for b in range(n_blocks):
        np.multiply(X, B[b, :d], out=padded[:, :d])
        padded[:, d:] = 0.0
        fwht_numpy(padded)
        mixed = np.take(padded, P[b], axis=1)
        mixed *= G[b]
        fwht_numpy(mixed)
        start = b * d_padded
        stop = min(start + d_padded, out.shape[1])
        np.multiply(mixed[:, :stop - start], S[b, :stop - start], out=out[:, start:stop])
    return out


def fastfood_numpy(X, B, P, G, S, offsets, scale, out):
    r"""Fastfood features of every row of X, numpy reference: ``out`` =
    :math:`s\,[\cos(Vx), \sin(Vx)]` (``offsets`` empty: the sin-cos variant) or
    :math:`s\cos(Vx + b)`.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    B, P, G, S : ndarray of shape (n_blocks, d')
        As in :func:`fastfood_project_numpy`.
    offsets : ndarray of shape (m,) or (0,)
        The phases b ('cos'), or nothing ('sincos').
    scale : float
        s, :math:`\sqrt{2/m}` ('cos') or :math:`\sqrt{1/m}` ('sincos').
    out : ndarray of shape (n, m) ('cos') or (n, 2m) ('sincos')
        Receives the features.

    Returns
    -------
    out : ndarray
    """
    m = out.shape[1] // 2 if offsets.shape[0] == 0 else out.shape[1]
    projection = fastfood_project_numpy(X, B, P, G, S, out[:, :m])
    if offsets.shape[0] == 0:
        np.sin(projection, out=out[:, m:])
        np.cos(projection, out=projection)
    else:
        projection += offsets
        np.cos(projection, out=projection)
    out *= scale
    return out


@jit
def _fastfood_numba(X, B, P, G, S, offsets, scale, out):
    r""":func:`fastfood_numpy` in one compiled loop.

    Per row and block, the steps of :func:`fastfood_project_numpy` fused in two
    buffers of d' entries, the projections kept in a buffer of ``n_blocks`` d' entries of
    which the first m (``out``'s width, halved for sin-cos) are used; then
    ``out[i] = scale [cos(Vx), sin(Vx)]`` (``offsets`` empty: the sin-cos variant)
    or ``out[i] = scale cos(Vx + offsets)``. The projections are rounded to the dtype
    of ``out`` as on the numpy path, so both give the same numbers (the
    trigonometric functions, :mod:`lsl_lib._core.trig`, are within 2 ulp of numpy's).
    """
    n, d = X.shape
    n_blocks, d_padded = B.shape
    m = out.shape[1] // 2 if offsets.shape[0] == 0 else out.shape[1]
    padded = np.empty(d_padded, dtype=out.dtype)
    mixed = np.empty(d_padded, dtype=out.dtype)
    projection = np.empty(n_blocks * d_padded, dtype=out.dtype)
    for i in range(n):
        for b in range(n_blocks):
            for k in range(d):
                padded[k] = X[i, k] * B[b, k]
            padded[d:] = 0.0
            fwht_row_numba(padded)
            for k in range(d_padded):
                mixed[k] = padded[P[b, k]] * G[b, k]
            fwht_row_numba(mixed)
            start = b * d_padded
            for k in range(d_padded):
                projection[start + k] = mixed[k] * S[b, k]
        if offsets.shape[0] == 0:
            cos_sin_scaled_numba(projection[:m], scale, out[i, :m], out[i, m:])
        else:
            for j in range(m):
                projection[j] += offsets[j]
            cos_scaled_numba(projection[:m], scale, out[i])


class Fastfood(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Fastfood random features for the Gaussian kernel, in :math:`O(D \log d)` time.

    Random Fourier features :math:`z(x) = \sqrt{1/m}\,[\cos(Wx), \sin(Wx)]` with
    :math:`W \sim N(0, \sigma^{-2} I)`, :math:`\sigma = 1/\sqrt{2\gamma}`, estimate
    :math:`k(x, y) = \exp(-\gamma\|x - y\|^2)` without bias, but the dense :math:`m \times d`
    matrix W costs :math:`O(md)` memory and time per example. Fastfood stacks
    :math:`\lceil m/d' \rceil` independent blocks (the last one cut to its first
    :math:`m - (\lceil m/d' \rceil - 1) d'` rows)

    .. math::

        V = \frac{1}{\sigma\sqrt{d'}}\, S H G \Pi H B, \qquad
        \|v_i\|^2 = \frac{s_i^2}{\sigma^2},

    with x padded with zeros to :math:`d'`, the next power of two :math:`\ge d`;
    :math:`H` the unnormalised Walsh-Hadamard matrix (:func:`fwht`), :math:`B` a
    diagonal of random signs, :math:`\Pi` a random permutation, :math:`G` a diagonal of
    standard normals, and :math:`S` a diagonal of lengths :math:`s_i \sim \chi(d')`
    divided by :math:`\|G\|_F`. Given :math:`\Pi` and :math:`B`, row i of
    :math:`HG\Pi HB`, :math:`\sum_k H_{ik} G_{kk} (\Pi HB)_k`, combines independent
    normals along orthogonal rows of squared norm :math:`d'`: it is :math:`N(0, d' I)`,
    its direction uniform and its squared norm exactly :math:`d'\|G\|_F^2`. S replaces
    that norm by :math:`s_i\sqrt{d'}`, and :math:`s_i \sim \chi(d')` is the length of a
    standard normal vector of :math:`d'` entries: every row of V is distributed as
    :math:`N(0, \sigma^{-2} I_{d'})`, a row of W, and the kernel estimate stays unbiased.
    The rows of one block are not independent, which makes the variance somewhat
    larger than with W (Le et al. bound the excess, which shrinks as d' grows).

    Parameters
    ----------
    n_components : int or None, default=None
        D, the output width, any integer >= 1 (even for ``'sincos'``, as in
        :class:`~lsl_lib.random_features.RandomFourierFeatures`). The m frequencies (D/2
        for ``'sincos'``, D for ``'cos'``) are the rows of whole blocks of d' and the first
        rows of one more block, each row still :math:`N(0, \sigma^{-2} I)`. None: one
        block (m = d').
    gamma : float or None, default=None
        Kernel width :math:`\gamma > 0`; ``None`` is 1/d.
    variant : {'sincos', 'cos'}, default='sincos'
        ``'sincos'``: :math:`z(x) = \sqrt{1/m}\,[\cos(Vx), \sin(Vx)]`, m = D/2 (D even);
        ``'cos'``: :math:`z(x) = \sqrt{2/D}\cos(Vx + b)`, m = D, :math:`b \sim U[0, 2\pi)`.
    dtype : {np.float64, np.float32} or None, default=None
        The dtype of the output; the projections are computed in it. None: X's, float32
        kept as float32 and anything else float64 (as scikit-learn's ``RBFSampler``):
        float32 out when ``fit`` and ``transform`` both get float32.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        Compiled loop (``_fastfood_numba``) or numpy reference
        (:func:`fastfood_numpy`); the same numbers either way.
    random_state : int, numpy.random.Generator or None, default=None

    Attributes
    ----------
    gamma_ : float
        The :math:`\gamma` used.
    n_features_in_ : int
        d.
    n_padded_ : int
        d', the next power of two :math:`\ge d`.
    n_frequencies_ : int
        m.
    dtype_ : numpy.dtype
        ``dtype``, or the fit's X's (float32 or float64).
    B_ : ndarray of shape (n_blocks, d'), float64
        Diagonals of B (+-1), one row per block; n_blocks = :math:`\lceil m/d' \rceil`.
    P_ : ndarray of shape (n_blocks, d'), int64
        Permutations: :math:`(\Pi u)_k = u_{P_k}`.
    G_ : ndarray of shape (n_blocks, d'), float64
        Diagonals of G.
    S_ : ndarray of shape (n_blocks, d'), float64
        Diagonals of S, :math:`s_i / \|G\|_F`.
    offsets_ : ndarray of shape (m,), float64
        The phases b (``variant='cos'`` only).

    See Also
    --------
    lsl_lib.random_features.RandomFourierFeatures : the dense W, :math:`O(Dd)`.
    lsl_lib.random_features.OrthogonalRandomFeatures : SORF, another structured W.
    sklearn_extra.kernel_approximation.Fastfood : scikit-learn-extra's version.

    Notes
    -----
    Memory is :math:`O(D)` (four numbers per frequency, five with the phases), never
    a dense D x d matrix.
    ``transform`` costs :math:`O(D \log d')` per example (a cut last block costs a whole
    one); the numpy path works on
    chunks of rows so that its temporary arrays stay below ``BLOCK_ELEMENTS``
    entries, the compiled path on one row at a time. A CSR matrix X is accepted (LIBSVM
    sets such as a9a come as one): each chunk of rows is made dense, then padded.
    Fastfood needs d >= 2 (with d = 1 there is nothing to mix: use random Fourier
    features).

    References
    ----------
    Le, Sarlós, Smola. Fastfood — approximating kernel expansions in loglinear time.
    ICML 2013.

    Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.fastfood import Fastfood
    >>> from lsl_lib.kernels import kernel_matrix
    >>> X = np.random.default_rng(0).normal(size=(100, 8))
    >>> Z = Fastfood(n_components=4096, gamma=0.1, random_state=0).fit_transform(X)
    >>> Z.shape
    (100, 4096)
    >>> bool(np.abs(Z @ Z.T - kernel_matrix(X, gamma=0.1)).max() < 0.1)
    True
    >>> Fastfood(n_components=500, random_state=0).fit(X).G_.shape  # 250 = 31 * 8 + 2
    (32, 8)
    """

    kernel = "gaussian"

    _parameter_constraints = {
        **FEATURE_MAP_CONSTRAINTS,
        "n_components": [*FEATURE_MAP_CONSTRAINTS["n_components"], None],
        "gamma": KERNEL_CONSTRAINTS["gamma"],
        "backend": ITERATIVE_CONSTRAINTS["backend"],
    }

    def __init__(self, n_components=None, gamma=None, variant="sincos", dtype=None,
                 backend="auto", random_state=None):
        self.n_components = n_components
        self.gamma = gamma
        self.variant = variant
        self.dtype = dtype
        self.backend = backend
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw B, Π, G and S for the d features of X (X itself is not used further)."""
        X = validate_data(self, X, accept_sparse="csr", dtype=DTYPES)
        d = X.shape[1]
        check_block_features(d, "Fastfood")
        d_padded = next_power_of_two(d)
        m = n_frequencies(self.n_components, self.variant, d_padded)
        self.gamma_ = check_kernel_params("gaussian", self.gamma, n_features=d)[1]
        self.n_padded_ = d_padded
        self.n_frequencies_ = m
        self.dtype_ = feature_map_dtype(self.dtype, X.dtype)
        rng = check_random_state(self.random_state)
        shape = (-(-m // d_padded), d_padded)  # ceil(m / d') blocks, the last one cut
        with memory_named("n_components", self.n_components):
            self.B_ = rng.choice([-1.0, 1.0], size=shape)
            self.P_ = rng.permuted(np.broadcast_to(np.arange(d_padded), shape), axis=1)
            self.G_ = rng.standard_normal(shape)
            lengths = np.sqrt(rng.chisquare(d_padded, size=shape))
            self.S_ = lengths / np.linalg.norm(self.G_, axis=1, keepdims=True)
            if self.variant == "cos":
                self.offsets_ = rng.uniform(0.0, 2 * np.pi, size=m)
        return self

    def transform(self, X):
        """The features :math:`z(x)` of the rows of X, shape (n, n_components)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=DTYPES, reset=False)
        dtype = feature_map_dtype(self.dtype, np.result_type(self.dtype_, X.dtype))
        sparse = sp.issparse(X)
        if not sparse:
            X = np.ascontiguousarray(X, dtype=dtype)
        sigma = 1.0 / np.sqrt(2.0 * self.gamma_)
        factors = (self.B_.astype(dtype), self.P_, self.G_.astype(dtype),
                   (self.S_ / (sigma * np.sqrt(self.n_padded_))).astype(dtype))
        m = self.n_frequencies_
        scale = np.sqrt(1.0 / m) if self.variant == "sincos" else np.sqrt(2.0 / m)
        offsets = (self.offsets_ if self.variant == "cos" else np.empty(0)).astype(dtype)
        with memory_named("n_components", self.n_components):
            Z = np.empty((X.shape[0], 2 * m if self.variant == "sincos" else m), dtype=dtype)
        compiled = resolve_backend(self.backend) == "numba"
        features = _fastfood_numba if compiled else fastfood_numpy
        if compiled and not sparse:  # one row at a time: no temporary to bound
            features(X, *factors, offsets, scale, Z)
            return Z
        rows = max(1, BLOCK_ELEMENTS // (2 * self.n_padded_))
        for start in range(0, X.shape[0], rows):
            chunk, X_rows = Z[start:start + rows], X[start:start + rows]
            if sparse:  # a dense copy of these rows only
                X_rows = np.ascontiguousarray(X_rows.toarray(), dtype=dtype)
            features(X_rows, *factors, offsets, scale, chunk)
        return Z

    @property
    def _n_features_out(self):
        """D, the output width (read by ``get_feature_names_out``)."""
        return 2 * self.n_frequencies_ if self.variant == "sincos" else self.n_frequencies_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = (
            ["float64", "float32"] if self.dtype is None else [np.dtype(self.dtype).name])
        tags.input_tags.sparse = True
        return tags
