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
for. :class:`Fastfood` has a numpy reference
(:func:`fastfood_project_numpy` then numpy's trigonometric functions) and a compiled
path (:func:`fastfood_numba`) that gives the same numbers.

References
----------
Le, Sarlós, Smola. Fastfood — approximating kernel expansions in loglinear time.
ICML 2013.

Fino, Algazi. Unified matrix treatment of the fast Walsh-Hadamard transform.
IEEE Transactions on Computers C-25(11), 1976.
"""
import numpy as np
import scipy.sparse as sp
from sklearn.base import (BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                          _fit_context)
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.random import check_random_state
from lsl_lib._core.trig import cos_scaled, cos_sin_scaled
from lsl_lib._core.validation import (FEATURE_MAP_CONSTRAINTS, ITERATIVE_CONSTRAINTS,
                                     check_block_features, feature_map_dtype, memory_named,
                                     n_frequencies)
from lsl_lib.kernels import _KERNEL_CONSTRAINTS, BLOCK_ELEMENTS, check_kernel_params

DTYPES = (np.float64, np.float32)


def _check_fwht_input(a):
    """Raise unless ``a`` is a C-contiguous float array whose last axis is a power of two."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"a must be a numpy.ndarray (fwht works in place), got {type(a).__name__}.")
    if a.dtype not in DTYPES:
        raise ValueError(f"a must have dtype float32 or float64, got {a.dtype}.")
    if a.ndim == 0:
        raise ValueError("a must have at least one axis, got a 0-d array.")
    if not a.flags.writeable:
        raise ValueError("a must be writeable (fwht works in place), got a read-only array.")
    if not a.flags.c_contiguous:
        raise ValueError("a must be C-contiguous (fwht works in place); "
                         "pass np.ascontiguousarray(a).")
    d = a.shape[-1]
    if d < 1 or d & (d - 1):
        raise ValueError(f"the last axis of a must have a power-of-two length, got {d}.")


def fwht_numpy(a):
    """:func:`fwht` in numpy: one vectorised stage per butterfly width h = 1, 2, 4, ...

    At width h, the rows are cut into pieces of 2h entries; the first half of each
    piece is ``top``, the second ``bottom``, and ``(top, bottom) <- (top + bottom,
    top - bottom)``, all pieces of all rows at once (views of ``a``).
    """
    d = a.shape[-1]
    h = 1
    while h < d:
        pieces = a.reshape(-1, d // (2 * h), 2, h)
        top, bottom = pieces[:, :, 0, :], pieces[:, :, 1, :]
        old_top = top.copy()
        top += bottom
        np.subtract(old_top, bottom, out=bottom)
        h *= 2
    return a


@jit
def fwht_row(x):
    """:func:`fwht` of one contiguous 1-D array, in place (a compiled loop).

    The butterflies of widths 1 and 2 are done together, four entries at a time
    (a radix-4 step), because their inner loops would be too short to vectorise;
    each wider stage runs an inner loop over two slices of h contiguous entries,
    which the compiler vectorises (slices, unlike ``x[j + h]``, tell it that the
    two halves do not overlap).
    """
    d = x.shape[0]
    h = 1
    if d >= 4:
        for i in range(0, d, 4):
            a0 = x[i] + x[i + 1]
            a1 = x[i] - x[i + 1]
            a2 = x[i + 2] + x[i + 3]
            a3 = x[i + 2] - x[i + 3]
            x[i] = a0 + a2
            x[i + 1] = a1 + a3
            x[i + 2] = a0 - a2
            x[i + 3] = a1 - a3
        h = 4
    while h < d:
        for i in range(0, d, 2 * h):
            top = x[i:i + h]
            bottom = x[i + h:i + 2 * h]
            for j in range(h):
                u = top[j]
                v = bottom[j]
                top[j] = u + v
                bottom[j] = u - v
        h *= 2


@jit
def fwht_rows(a):
    """:func:`fwht_row` of every row of a C-contiguous 2-D array (a compiled loop)."""
    for r in range(a.shape[0]):
        fwht_row(a[r])


def fwht(a, backend="auto"):
    r"""The fast Walsh-Hadamard transform of every row, in place: :math:`x \leftarrow H_d x`.

    .. math::

        (H_d x)_i = \sum_{j=0}^{d-1} (-1)^{\langle i, j\rangle} x_j,

    where :math:`\langle i, j\rangle` counts the bits that i and j share: the
    unnormalised transform in Sylvester's (natural) ordering, the same as
    ``scipy.linalg.hadamard(d) @ x``, in :math:`O(d \log d)` operations and no
    extra memory.

    Parameters
    ----------
    a : ndarray of shape (..., d), float32 or float64, C-contiguous
        Transformed along its last axis (every row of a 2-D array), in place;
        d must be a power of two.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numba'`` runs the compiled :func:`fwht_rows`; ``'numpy'`` the vectorised
        reference :func:`fwht_numpy`.

    Returns
    -------
    a : ndarray
        The same array, transformed.

    Raises
    ------
    ValueError
        If the last axis is not a power of two long, or ``a`` is not a writeable,
        C-contiguous float32/float64 array (checked before any compiled code runs).
    TypeError
        If ``a`` is not a numpy array.

    Notes
    -----
    Applying it twice multiplies by d (:math:`H_d H_d = d I`); ``H / sqrt(d)``
    is orthogonal. Fastfood and SORF use it as the fast stand-in for a dense
    Gaussian matrix.

    References
    ----------
    Fino, Algazi. Unified matrix treatment of the fast Walsh-Hadamard transform.
    IEEE Transactions on Computers C-25(11), 1976.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.fastfood import fwht
    >>> fwht(np.array([1.0, 0.0, 1.0, 0.0]))
    array([2., 2., 0., 0.])
    """
    _check_fwht_input(a)
    if resolve_backend(backend) == "numpy":
        return fwht_numpy(a)
    fwht_rows(a.reshape(-1, a.shape[-1]))
    return a


# ---------------------------------------------------------------- Fastfood

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


@jit
def fastfood_numba(X, B, P, G, S, offsets, scale, out):
    r"""Fastfood features of every row of X, in one compiled loop.

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
            fwht_row(padded)
            for k in range(d_padded):
                mixed[k] = padded[P[b, k]] * G[b, k]
            fwht_row(mixed)
            start = b * d_padded
            for k in range(d_padded):
                projection[start + k] = mixed[k] * S[b, k]
        if offsets.shape[0] == 0:
            cos_sin_scaled(projection[:m], scale, out[i, :m], out[i, m:])
        else:
            for j in range(m):
                projection[j] += offsets[j]
            cos_scaled(projection[:m], scale, out[i])


def next_power_of_two(d):
    """The smallest power of two >= d (d >= 1)."""
    return 1 << (int(d) - 1).bit_length()


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
        Compiled loop (:func:`fastfood_numba`) or numpy reference
        (:func:`fastfood_project_numpy`); the same numbers either way.
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
        "gamma": _KERNEL_CONSTRAINTS["gamma"],
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
        if compiled and not sparse:
            fastfood_numba(X, *factors, offsets, scale, Z)
            return Z
        rows = max(1, BLOCK_ELEMENTS // (2 * self.n_padded_))
        for start in range(0, X.shape[0], rows):
            chunk, X_rows = Z[start:start + rows], X[start:start + rows]
            if sparse:  # a dense copy of these rows only
                X_rows = np.ascontiguousarray(X_rows.toarray(), dtype=dtype)
            if compiled:
                fastfood_numba(X_rows, *factors, offsets, scale, chunk)
                continue
            projection = fastfood_project_numpy(X_rows, *factors, chunk[:, :m])
            if self.variant == "sincos":
                np.sin(projection, out=chunk[:, m:])
                np.cos(projection, out=projection)
            else:
                projection += offsets
                np.cos(projection, out=projection)
        if not compiled:
            Z *= scale
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
