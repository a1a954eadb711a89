r"""Random Fourier features, orthogonal random features (ORF, SORF), and their error.

**Bochner's theorem.** A continuous shift-invariant kernel with :math:`k(0) = 1` is
positive definite exactly when it is the characteristic function of a probability
density p, :math:`k(x - y) = \mathbb{E}_{w \sim p}[\cos(w^\top (x - y))]`; so averaging
:math:`\cos(w_i^\top(x - y))` over frequencies :math:`w_i \sim p` is an unbiased estimate of k.

The kernels of :mod:`lsl_lib.kernels` and their frequency densities p:

=============  ========================================  =========================================
``kernel``     :math:`k(\delta)`                         frequencies :math:`w \sim p`
=============  ========================================  =========================================
``gaussian``   :math:`\exp(-\gamma\|\delta\|_2^2)`       :math:`\mathcal N(0, 2\gamma I)`
``laplacian``  :math:`\exp(-\gamma\|\delta\|_1)`         i.i.d. Cauchy, scale :math:`\gamma`
``cauchy``     :math:`\prod_j 1/(1 + \gamma\delta_j^2)`  i.i.d. Laplace, scale :math:`\sqrt\gamma`
=============  ========================================  =========================================

Two feature maps turn m frequencies (the columns of :math:`W \in \mathbb R^{d\times m}`)
into an output of width D with :math:`z(x)^\top z(y) \approx k(x, y)`:

.. math::

    \text{'sincos'}: \; z(x) = \sqrt{1/m}\,\big[\cos(W^\top x), \sin(W^\top x)\big],
    \; D = 2m; \qquad
    \text{'cos'}: \; z(x) = \sqrt{2/D}\,\cos(W^\top x + b), \; b_i \sim U[0, 2\pi),\; D = m.

Both are unbiased; at equal D the sin-cos map has the lower variance (Sutherland and
Schneider 2015), :math:`(1 + k(2\delta) - 2k(\delta)^2)/D` against
:math:`(1 + k(2\delta)/2 - k(\delta)^2)/D` (:func:`rff_variance`).

**Orthogonal random features** (Yu et al. 2016) keep the Gaussian kernel's marginal
:math:`w_i \sim \mathcal N(0, I/\sigma^2)`, :math:`\sigma = 1/\sqrt{2\gamma}`, but make the
frequencies of each block of d orthogonal, :math:`W_b^\top = \sigma^{-1} S Q` (Q Haar
orthogonal, S a diagonal of independent :math:`\chi(d)` lengths): negatively correlated
terms, a lower variance (:func:`orf_variance`). SORF replaces S Q by the structured
:math:`\sqrt{d'}\, H D_1 H D_2 H D_3` (H the normalised Walsh-Hadamard matrix, :math:`D_i`
random signs, d padded to the power of two d'), applied in :math:`O(d \log d)`. Any number
m of frequencies is drawn as whole blocks and a last block cut to its first m mod d rows
(rows of an orthogonal matrix: still orthogonal, each still Gaussian).

**Two paths.** The projections :math:`W^\top x` are one BLAS product (SORF: three
:func:`fwht`); the trigonometric map of them has a numpy reference and a compiled twin
that give the same numbers to 2 ulp (:mod:`lsl_lib._core.trig`):

=======================================  ===========================  ========================
the paper's line                         reference                    compiled
=======================================  ===========================  ========================
Rahimi and Recht, Alg. 1:                :func:`trig_features_numpy`  ``_trig_features_numba``
z(x) = √(2/D) cos(Wx + b) (and sin-cos)
Yu et al., SORF: √d' H D1 H D2 H D3 x    :func:`sorf_projections`     ``fwht_rows_numba``
(three Walsh-Hadamard transforms)                                     (``_core.hadamard``)
=======================================  ===========================  ========================

References
----------
Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

Sutherland, Schneider. On the error of random Fourier features. UAI 2015.

Yu, Suresh, Choromanski, Holtmann-Rice, Kumar. Orthogonal random features. NIPS 2016.
"""
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from scipy.special import hyp1f1
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.features import (
    FEATURE_MAP_CONSTRAINTS,
    FEATURE_VARIANTS,
    block_sizes,
    check_block_features,
    n_frequencies,
)
from lsl_lib._core.hadamard import fwht, next_power_of_two
from lsl_lib._core.random import check_random_state
from lsl_lib._core.trig import cos_scaled_numba, cos_sin_scaled_numba
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    KERNEL_CONSTRAINTS,
    feature_map_dtype,
    memory_named,
)
from lsl_lib.kernels import check_kernel_params, kernel_matrix

__all__ = ["RandomFourierFeatures", "OrthogonalRandomFeatures", "draw_frequencies",
           "draw_orthogonal_frequencies", "sorf_projections", "trig_features_numpy",
           "kernel_approximation_error", "rff_variance", "orf_variance", "RFF_KERNELS"]


def __dir__():
    return __all__


#: The kernels with a frequency density in this module (the shift-invariant ones).
RFF_KERNELS = ("gaussian", "laplacian", "cauchy")

_FEATURE_CONSTRAINTS = {**FEATURE_MAP_CONSTRAINTS, "gamma": KERNEL_CONSTRAINTS["gamma"],
                        "backend": ITERATIVE_CONSTRAINTS["backend"]}


def draw_frequencies(kernel, gamma, n_features, n_freq, rng):
    """m frequencies from the density of ``kernel`` (see the module's table), in float64.

    Returns
    -------
    W : ndarray of shape (n_features, n_freq)
        One frequency per column.
    """
    shape = (n_features, n_freq)
    if kernel == "gaussian":
        return rng.normal(scale=np.sqrt(2.0 * gamma), size=shape)
    if kernel == "laplacian":
        return gamma * rng.standard_cauchy(size=shape)
    return rng.laplace(scale=np.sqrt(gamma), size=shape)  # cauchy


def draw_orthogonal_frequencies(n_features, n_freq, sigma, rng):
    r"""ORF's frequencies: independent blocks :math:`W_b^\top = \sigma^{-1} S Q`, in float64.

    Q is Haar-distributed: the Q of the QR decomposition of a Gaussian matrix, its columns'
    signs fixed so that R has a positive diagonal (Mezzadri 2007). S scales row i of Q by
    its own :math:`s_i \sim \chi(d)`, the length of a Gaussian vector, so that each row of
    :math:`W_b^\top` is :math:`\mathcal N(0, I/\sigma^2)` on its own.

    When ``n_freq`` is not a multiple of d, the last block is drawn whole and cut to its
    first ``n_freq mod d`` rows: rows of an orthogonal matrix, still orthogonal, each still
    :math:`\mathcal N(0, I/\sigma^2)`. Whole blocks come first and consume the generator as
    they would alone, so a seed gives the same first blocks at every width.

    Returns
    -------
    W : ndarray of shape (n_features, n_freq)
        Column block b (of d columns, the last one possibly fewer) holds :math:`W_b`.
    """
    d = n_features
    W = np.empty((d, n_freq))
    for start in range(0, n_freq, d):
        Q, R = np.linalg.qr(rng.standard_normal((d, d)))
        Q *= np.sign(np.diag(R))
        lengths = np.sqrt(rng.chisquare(d, size=d))
        rows = min(d, n_freq - start)
        W[:, start:start + rows] = (lengths[:rows, None] * Q[:rows]).T / sigma
    return W


def sorf_projections(X, signs, scale):
    r"""The SORF projections :math:`W^\top x` of every row of X, by three :func:`fwht`.

    Per block, :math:`W_b^\top x = c\, H D_1 H D_2 H D_3 \tilde x` with H the
    unnormalised Walsh-Hadamard matrix, :math:`\tilde x` the row padded with zeros to d',
    and :math:`c = \sqrt{d'}/(\sigma d'^{3/2})` (three normalisations :math:`1/\sqrt{d'}`).

    Parameters
    ----------
    X : ndarray of shape (n, d), float32 or float64
    signs : ndarray of shape (n_blocks, 3, d')
        :math:`D_1, D_2, D_3` of each block, entries :math:`\pm 1`, X's dtype.
    scale : float
        c.

    Returns
    -------
    P : ndarray of shape (n, n_blocks * d')
        Column ``b * d' + i`` is row i of block b applied to X; C-contiguous.
    """
    n, d = X.shape
    n_blocks, _, d_pad = signs.shape
    P = np.zeros((n, n_blocks, d_pad), dtype=X.dtype)
    np.multiply(X[:, None, :], signs[None, :, 2, :d], out=P[:, :, :d])
    fwht(P)
    P *= signs[:, 1]
    fwht(P)
    P *= scale * signs[:, 0]
    fwht(P)
    return P.reshape(n, n_blocks * d_pad)


def trig_features_numpy(Z, offsets, scale):
    r"""The trig map of the projections, in place: the numpy reference.

    'cos' (``offsets`` of length m = Z's width): :math:`Z \leftarrow s\cos(Z + b)`;
    'sincos' (``offsets`` empty, the projections in the right half of Z):
    :math:`[Z_{:, :m}, Z_{:, m:}] \leftarrow s\,[\cos Z_{:, m:}, \sin Z_{:, m:}]`.

    Parameters
    ----------
    Z : ndarray of shape (n, m) ('cos') or (n, 2m) ('sincos'), float32 or float64
    offsets : ndarray of shape (m,) ('cos') or (0,) ('sincos')
        The phases b.
    scale : float
        s, :math:`\sqrt{2/m}` ('cos') or :math:`\sqrt{1/m}` ('sincos').

    Returns
    -------
    Z : ndarray, the same array, now the features.
    """
    if offsets.shape[0] > 0:
        Z += offsets
        np.cos(Z, out=Z)
    else:
        m = Z.shape[1] // 2
        np.cos(Z[:, m:], out=Z[:, :m])
        np.sin(Z[:, m:], out=Z[:, m:])
    Z *= scale
    return Z


@jit
def _trig_features_numba(Z, offsets, scale):
    """:func:`trig_features_numpy` compiled, row by row, with the cosines and sines of
    :mod:`lsl_lib._core.trig` (SIMD lanes, within 2 ulp of numpy's); float64 only."""
    n, width = Z.shape
    if offsets.shape[0] > 0:
        for i in range(n):
            for j in range(width):
                Z[i, j] += offsets[j]
            cos_scaled_numba(Z[i], scale, Z[i])
    else:
        m = width // 2
        for i in range(n):
            cos_sin_scaled_numba(Z[i, m:], scale, Z[i, :m], Z[i, m:])


class _FourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What RFF, ORF and SORF share: the trig map of the projections, the feature names
    (``get_feature_names_out``: the class name and the column, as scikit-learn's
    ``RBFSampler``), the tags. X may be CSR: only :math:`XW` reads it (SORF densifies it)."""

    @property
    def _n_features_out(self):
        """D, the output width (read by ``get_feature_names_out``)."""
        return 2 * self.n_frequencies_ if self.variant == "sincos" else self.n_frequencies_

    def _project(self, X, out):
        """Write the projections :math:`XW` into ``out`` (shape (n, m)) and return the
        array that holds them (``out`` unless the subclass cannot use it)."""
        if sp.issparse(X):
            out[...] = X @ self.frequencies_
            return out
        return np.matmul(X, self.frequencies_, out=out)

    def transform(self, X):
        """The random features of X, shape (n_samples, n_components), of type ``dtype``
        (``dtype=None``: float32 when X and the fit's X are float32, else float64)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                          reset=False)
        dtype = feature_map_dtype(self.dtype, np.result_type(self.dtype_, X.dtype))
        X = X.astype(dtype, copy=False)
        n, m = X.shape[0], self.n_frequencies_
        compiled = resolve_backend(self.backend) == "numba" and dtype == np.float64
        with memory_named("n_components", self.n_components):
            Z = np.empty((n, m if self.variant == "cos" else 2 * m), dtype=dtype)
        projections = Z if self.variant == "cos" else Z[:, m:]
        P = self._project(X, projections)
        if P is not projections:  # SORF's own array
            projections[...] = P
        trig_features = _trig_features_numba if compiled else trig_features_numpy
        trig_features(Z, self.offsets_ if self.variant == "cos" else np.empty(0),
                      np.sqrt((2.0 if self.variant == "cos" else 1.0) / m))
        return Z

    def _draw_offsets(self, rng):
        if self.variant == "cos":
            self.offsets_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_frequencies_).astype(
                self.dtype_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = (
            ["float64", "float32"] if self.dtype is None else [np.dtype(self.dtype).name])
        tags.input_tags.sparse = True
        return tags


class RandomFourierFeatures(_FourierFeatures):
    r"""Random Fourier features (Rahimi and Recht 2007) of a shift-invariant kernel.

    Draws m frequencies :math:`w_i` from the density p of the kernel (Bochner's theorem;
    see :mod:`lsl_lib.random_features`) and maps

    .. math::

        \text{'sincos'}: \; z(x) = \sqrt{\tfrac1m}\big[\cos(w_i^\top x)_{i\le m},
        \sin(w_i^\top x)_{i\le m}\big], \qquad
        \text{'cos'}: \; z(x) = \sqrt{\tfrac2D}\big[\cos(w_i^\top x + b_i)\big]_{i\le D},

    so that :math:`\mathbb E[z(x)^\top z(y)] = k(x, y)`: in the sin-cos form
    :math:`z(x)^\top z(y) = \frac1m\sum_i \cos(w_i^\top(x - y))`, an average of m i.i.d.
    terms with mean :math:`k(x - y)`.

    Parameters
    ----------
    n_components : int, default=100
        D, the output width: m = D/2 frequencies for 'sincos' (D must be even: a cos and
        a sin per frequency; an odd D is refused, use 'cos'), m = D for 'cos' (any D).
    kernel : {'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
        The kernel, as in :mod:`lsl_lib.kernels`.
    gamma : float > 0, default=None
        Kernel width; ``None`` is 1/d.
    variant : {'sincos', 'cos'}, default='sincos'
        Cos and sin of the same frequencies (the lower variance at equal D), or cos with a
        random phase (scikit-learn's ``RBFSampler``).
    dtype : {numpy.float64, numpy.float32} or None, default=None
        Type of the output; X @ W and the trig functions are computed in it. None: X's,
        float32 kept as float32 and anything else float64 (as scikit-learn's
        ``RBFSampler``): float32 out when ``fit`` and ``transform`` both get float32.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        The cosines and sines by the compiled loop (``_trig_features_numba``) or by
        numpy (:func:`trig_features_numpy`); the same numbers to 2 ulp. float32 output
        always takes numpy's (already in SIMD lanes).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the frequencies and phases, drawn in float64 (the same numbers for both
        dtypes).

    Attributes
    ----------
    frequencies_ : ndarray of shape (n_features, m), ``dtype_``
        W, one frequency per column.
    offsets_ : ndarray of shape (m,), ``dtype_``
        The phases b ('cos' only).
    n_frequencies_ : int
        m.
    gamma_ : float
        The kernel width used.
    dtype_ : numpy.dtype
        The dtype of the fitted arrays: ``dtype``, or the fit's X's (float32 or float64).
    n_features_in_ : int

    See Also
    --------
    OrthogonalRandomFeatures : orthogonal frequencies, a lower variance (Gaussian kernel).
    sklearn.kernel_approximation.RBFSampler : the 'cos' variant of the Gaussian kernel.
    kernel_approximation_error : how far :math:`ZZ^\top` is from K.
    rff_variance : the variance of the estimate (Gaussian kernel), in closed form.

    Notes
    -----
    Each term is bounded, so the estimate concentrates at rate :math:`1/\sqrt m`; its
    variance at :math:`\delta = x - y` is (Sutherland and Schneider 2015)

    .. math::

        \operatorname{Var}_{\text{sincos}} = \frac{1 + k(2\delta) - 2k(\delta)^2}{D},
        \qquad
        \operatorname{Var}_{\text{cos}} = \frac{1 + \frac12 k(2\delta) - k(\delta)^2}{D}.

    Cost: O(nmd) for the projections and O(nD) trig evaluations; memory O(md). X enters
    only through the product :math:`XW`, so a CSR matrix is accepted (the output is dense).

    References
    ----------
    Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

    Sutherland, Schneider. On the error of random Fourier features. UAI 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.random_features import RandomFourierFeatures
    >>> from lsl_lib.kernels import kernel_matrix
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> Z = RandomFourierFeatures(n_components=20000, gamma=0.5, random_state=0).fit_transform(X)
    >>> Z.shape, bool(np.abs(Z @ Z.T - kernel_matrix(X, gamma=0.5)).max() < 0.03)
    ((5, 20000), True)
    >>> RandomFourierFeatures(n_components=4).fit(X).get_feature_names_out()
    array(['randomfourierfeatures0', 'randomfourierfeatures1',
           'randomfourierfeatures2', 'randomfourierfeatures3'], dtype=object)
    """

    _parameter_constraints = {**_FEATURE_CONSTRAINTS,
                              "kernel": [StrOptions(set(RFF_KERNELS))]}

    def __init__(self, n_components=100, kernel="gaussian", gamma=None, variant="sincos",
                 dtype=None, backend="auto", random_state=None):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.variant = variant
        self.dtype = dtype
        self.backend = backend
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the frequencies (and phases); only X's width is used."""
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        m = n_frequencies(self.n_components, self.variant)
        _, self.gamma_, _, _ = check_kernel_params(self.kernel, self.gamma,
                                                   n_features=X.shape[1])
        rng = check_random_state(self.random_state)
        self.n_frequencies_ = m
        self.dtype_ = feature_map_dtype(self.dtype, X.dtype)
        with memory_named("n_components", self.n_components):
            self.frequencies_ = draw_frequencies(self.kernel, self.gamma_, X.shape[1], m,
                                                 rng).astype(self.dtype_)
            self._draw_offsets(rng)
        return self


class OrthogonalRandomFeatures(_FourierFeatures):
    r"""Orthogonal random features, ORF and SORF (Yu et al. 2016), of the Gaussian kernel.

    The frequencies come in independent blocks of d (padded: d') orthogonal ones, the last
    block cut to the rows that the width asks for:

    .. math::

        \text{ORF}: \; W_b^\top = \frac1\sigma S Q, \qquad
        \text{SORF}: \; W_b^\top = \frac{\sqrt{d'}}{\sigma} H D_1 H D_2 H D_3,
        \qquad \sigma = \frac{1}{\sqrt{2\gamma}},

    with Q a Haar-distributed orthogonal matrix, S diagonal with independent
    :math:`\chi(d)` entries (each row then has the length of a Gaussian vector), H the
    normalised Walsh-Hadamard matrix :math:`H_{d'}/\sqrt{d'}` and :math:`D_i` diagonals of
    random signs. The features are those of :class:`RandomFourierFeatures`.

    Parameters
    ----------
    n_components : int or None, default=None
        D, the output width, any integer >= 1 (even for 'sincos', as in
        :class:`RandomFourierFeatures`). The m frequencies (D/2 for 'sincos', D for 'cos')
        fill :math:`\lfloor m/d \rfloor` whole blocks of d (ORF) or d', the power of two at
        or above d (SORF), and the first m mod d (d') rows of one more block, whose rows are
        still orthogonal. None: one block (m = d or d').
    gamma : float > 0, default=None
        Width of :math:`\exp(-\gamma\|x - y\|^2)`; ``None`` is 1/d.
    structured : bool, default=False
        False: ORF, a dense W (QR per block, O(d^2) per row of output). True: SORF, W
        applied by three fast Walsh-Hadamard transforms (O(d' log d') per block, memory O(D)).
    variant : {'sincos', 'cos'}, default='sincos'
        As in :class:`RandomFourierFeatures`.
    dtype : {numpy.float64, numpy.float32} or None, default=None
        Type of the output and of the computation; None: X's, as in
        :class:`RandomFourierFeatures`.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        As in :class:`RandomFourierFeatures`.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds W (and the phases), drawn in float64.

    Attributes
    ----------
    kernel : str
        ``'gaussian'`` (a class attribute: the only kernel approximated).
    frequencies_ : ndarray of shape (n_features, m), ``dtype_``
        ORF's W, one frequency per column, block b in columns ``b*d`` to ``(b+1)*d``
        (ORF only).
    signs_ : ndarray of shape (ceil(m / d'), 3, d'), ``dtype_``
        SORF's :math:`D_1, D_2, D_3` of each block (SORF only); the last block's
        projections are computed whole and cut to m.
    n_padded_ : int
        d' (SORF only).
    offsets_ : ndarray of shape (m,), ``dtype_``
        The phases ('cos' only).
    n_frequencies_ : int
        m.
    gamma_ : float
    dtype_ : numpy.dtype
        The dtype of the fitted arrays: ``dtype``, or the fit's X's (float32 or float64).
    n_features_in_ : int

    See Also
    --------
    RandomFourierFeatures : i.i.d. frequencies, any shift-invariant kernel of the course.
    lsl_lib.fastfood.Fastfood : another structured stand-in for a Gaussian W.
    orf_variance : ORF's variance, exact and to leading order in 1/d.

    Notes
    -----
    Within a block, the terms :math:`\cos(w_i^\top\delta)` are negatively correlated, so
    the variance drops below RFF's (Yu et al., Theorem 1): with m = d frequencies (one
    block, the sin-cos map) and :math:`z = \|\delta\|/\sigma`,
    :math:`\operatorname{Var}_{ORF} = \operatorname{Var}_{RFF}
    - \frac{d-1}{d}\,\frac{e^{-z^2} z^4}{2d} + O(1/d^2)`, the expansion in 1/d of

    .. math::

        \operatorname{Var}_{ORF} = \frac{(1 - e^{-z^2})^2}{2d}
        + \frac{d-1}{d}\Big({}_1F_1\big(d; \tfrac d2; -\tfrac{z^2}{2}\big) - e^{-z^2}\Big),

    the second term being the covariance of two terms of a block
    (:math:`w_1^\top\delta \pm w_2^\top\delta` has the law of a :math:`\chi(2d)` length
    times a coordinate of a uniform unit vector). A block cut to r < d rows keeps that
    covariance between its rows (:func:`orf_variance` with ``n_components``). ORF is
    unbiased; SORF, whose rows all
    have the length :math:`\sqrt{d'}/\sigma`, has a bias that vanishes as d grows
    (Yu et al., Theorem 3). Both accept a CSR matrix X: ORF reads it only through
    :math:`XW`; SORF, which pads and transforms X itself, makes a dense copy of it, no
    larger than the n x ceil(m/d') d' projections it computes anyway.

    References
    ----------
    Yu, Suresh, Choromanski, Holtmann-Rice, Kumar. Orthogonal random features. NIPS 2016.

    Mezzadri. How to generate random matrices from the classical compact groups.
    Notices of the AMS 54(5), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.random_features import OrthogonalRandomFeatures
    >>> X = np.random.default_rng(0).normal(size=(4, 8))
    >>> orf = OrthogonalRandomFeatures(n_components=32, random_state=0).fit(X)
    >>> W = orf.frequencies_[:, :8]  # one block: orthogonal frequencies
    >>> bool(np.allclose(W.T @ W, np.diag(np.diag(W.T @ W))))
    True
    >>> OrthogonalRandomFeatures(n_components=32, structured=True).fit_transform(X).shape
    (4, 32)
    >>> OrthogonalRandomFeatures(n_components=22, random_state=0).fit(X).frequencies_.shape
    (8, 11)
    """

    kernel = "gaussian"

    _parameter_constraints = {**_FEATURE_CONSTRAINTS, "structured": ["boolean"],
                              "n_components": [*_FEATURE_CONSTRAINTS["n_components"], None]}

    def __init__(self, n_components=None, gamma=None, structured=False, variant="sincos",
                 dtype=None, backend="auto", random_state=None):
        self.n_components = n_components
        self.gamma = gamma
        self.structured = structured
        self.variant = variant
        self.dtype = dtype
        self.backend = backend
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the orthogonal blocks (and phases); only X's width is used."""
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        d = X.shape[1]
        check_block_features(d, type(self).__name__)
        block = next_power_of_two(d) if self.structured else d
        m = n_frequencies(self.n_components, self.variant, block)
        _, self.gamma_, _, _ = check_kernel_params("gaussian", self.gamma, n_features=d)
        rng = check_random_state(self.random_state)
        self.n_frequencies_ = m
        self.dtype_ = feature_map_dtype(self.dtype, X.dtype)
        sigma = 1.0 / np.sqrt(2.0 * self.gamma_)
        with memory_named("n_components", self.n_components):
            if self.structured:
                self.n_padded_ = block
                n_blocks = -(-m // block)  # the last one cut
                self.signs_ = np.where(rng.random((n_blocks, 3, block)) < 0.5, -1.0,
                                       1.0).astype(self.dtype_)
            else:
                self.frequencies_ = draw_orthogonal_frequencies(d, m, sigma, rng).astype(
                    self.dtype_)
            self._draw_offsets(rng)
        return self

    def _project(self, X, out):
        if not self.structured:
            return super()._project(X, out)
        d_pad = self.n_padded_
        sigma = 1.0 / np.sqrt(2.0 * self.gamma_)
        if sp.issparse(X):  # padded in a dense copy, no larger than the projections P
            X = X.toarray()
        P = sorf_projections(X, self.signs_, 1.0 / (sigma * d_pad))
        if P.shape[1] == out.shape[1]:
            return P
        out[...] = P[:, :out.shape[1]]  # the last block cut to its first rows
        return out


def kernel_approximation_error(transformer, X, kernel=None, gamma=None, degree=None,
                               coef0=None):
    r"""How well a feature map's :math:`\hat K = Z Z^\top` approximates the kernel matrix K.

    .. math::

        \frac{\|\hat K - K\|_F}{\|K\|_F}, \qquad \max_{ij} |\hat K_{ij} - K_{ij}|,
        \qquad \frac{1}{n^2}\sum_{ij} (\hat K_{ij} - K_{ij})^2,

    with :math:`Z` = ``transformer.transform(X)`` and K from
    :func:`lsl_lib.kernels.kernel_matrix` (float64, exact).

    Parameters
    ----------
    transformer : a scikit-learn transformer
        Fitted on X first if it is not fitted yet. Its output may be dense or sparse
        (random binning's CSR).
    X : array-like of shape (n, d)
    kernel : str, default=None
        ``None`` is ``transformer.kernel`` (``'gaussian'`` when it has none).
    gamma : float, default=None
        ``None`` is ``transformer.gamma_`` (``None``, i.e. 1/d, when it has none).
    degree, coef0 : default=None
        Of the polynomial kernel; ``None`` is the transformer's own (3 and 1.0 when it
        has none).

    Returns
    -------
    errors : dict
        ``relative_frobenius``, ``max_absolute``, ``mean_squared`` (floats).

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.random_features import RandomFourierFeatures, kernel_approximation_error
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> err = kernel_approximation_error(RandomFourierFeatures(2000, random_state=0), X)
    >>> sorted(err), round(err["relative_frobenius"], 2)
    (['max_absolute', 'mean_squared', 'relative_frobenius'], 0.06)
    """
    try:
        check_is_fitted(transformer)
    except NotFittedError:
        transformer.fit(X)
    Z = transformer.transform(X)
    Z = np.asarray(Z.toarray() if sp.issparse(Z) else Z, dtype=np.float64)
    K = kernel_matrix(
        X, kernel=getattr(transformer, "kernel", "gaussian") if kernel is None else kernel,
        gamma=getattr(transformer, "gamma_", None) if gamma is None else gamma,
        degree=getattr(transformer, "degree", 3) if degree is None else degree,
        coef0=getattr(transformer, "coef0", 1.0) if coef0 is None else coef0)
    E = Z @ Z.T - K
    return {"relative_frobenius": float(np.linalg.norm(E) / np.linalg.norm(K)),
            "max_absolute": float(np.abs(E).max()),
            "mean_squared": float(np.mean(E * E))}


def _check_variance_args(z, variant):
    if variant not in FEATURE_VARIANTS:
        raise ValueError(f"variant must be one of {FEATURE_VARIANTS}, got variant={variant!r}.")
    z = np.asarray(z, dtype=np.float64)
    if np.any(z < 0) or not np.all(np.isfinite(z)):
        raise ValueError("z must hold finite distances z = ||delta|| / sigma >= 0.")
    return z


def rff_variance(z, n_components, variant="sincos"):
    r"""Variance of the random-Fourier-feature estimate of the Gaussian kernel at a distance.

    For a pair x, y at distance :math:`z = \|x - y\|/\sigma` (:math:`\sigma = 1/\sqrt{2\gamma}`,
    so :math:`k(\delta) = e^{-z^2/2}` and :math:`k(2\delta) = e^{-2z^2}`), the estimate
    :math:`z(x)^\top z(y)` of :class:`RandomFourierFeatures` with output width
    D = ``n_components`` has the variance (Sutherland and Schneider 2015)

    .. math::

        \text{'sincos'}: \; \frac{1 + k(2\delta) - 2k(\delta)^2}{D}, \qquad
        \text{'cos'}: \; \frac{1 + \frac12 k(2\delta) - k(\delta)^2}{D}.

    Derivation. 'sincos' averages m = D/2 i.i.d. terms :math:`\cos(w_i^\top\delta)`, each of
    variance :math:`\mathbb E[\cos^2] - k^2 = \frac12 + \frac12 k(2\delta) - k(\delta)^2`;
    divided by m this is the first form. 'cos' averages D i.i.d. terms
    :math:`2\cos(w^\top x + b)\cos(w^\top y + b) = \cos(w^\top\delta) + \cos(w^\top(x + y) + 2b)`;
    the random phase makes the two cosines uncorrelated and gives the second one the mean
    square :math:`\frac12`, so a term has variance
    :math:`\frac12 + \frac12 k(2\delta) + \frac12 - k(\delta)^2`. The 'cos' variance is the
    larger one by :math:`(k(\delta)^2 - \frac12 k(2\delta))/D > 0`.

    Parameters
    ----------
    z : float or array-like
        Distances :math:`\|\delta\|/\sigma \ge 0`.
    n_components : int
        D, the output width (even for 'sincos').
    variant : {'sincos', 'cos'}, default='sincos'

    Returns
    -------
    variance : ndarray of z's shape
        A 0-d array for a scalar z.

    See Also
    --------
    orf_variance : the same for orthogonal random features.

    References
    ----------
    Sutherland, Schneider. On the error of random Fourier features. UAI 2015.

    Examples
    --------
    >>> from lsl_lib.random_features import rff_variance
    >>> round(float(rff_variance(1.0, 100)), 5), round(float(rff_variance(1.0, 100, "cos")), 5)
    (0.004, 0.007)
    """
    z = _check_variance_args(z, variant)
    n_frequencies(n_components, variant)  # 'sincos' needs an even D
    if n_components < 1:
        raise ValueError(f"n_components must be >= 1, got n_components={n_components}.")
    k, k2 = np.exp(-z ** 2 / 2), np.exp(-2 * z ** 2)
    if variant == "sincos":
        return (1 + k2 - 2 * k ** 2) / n_components
    return (1 + k2 / 2 - k ** 2) / n_components


def orf_variance(z, d, variant="sincos", n_blocks=1, leading_order=False, n_components=None):
    r"""Variance of the orthogonal-random-feature estimate of the Gaussian kernel.

    ORF (:class:`OrthogonalRandomFeatures`, ``structured=False``) with ``n_blocks``
    independent blocks of d orthogonal frequencies, m = ``n_blocks`` · d frequencies, output
    width D = 2m ('sincos') or D = m ('cos'), for a pair at distance
    :math:`z = \|\delta\|/\sigma`. One block has the variance

    .. math::

        \operatorname{Var}_{ORF} = \frac{v_1}{d} + \frac{d - 1}{d}\, C, \qquad
        C = {}_1F_1\big(d; \tfrac d2; -\tfrac{z^2}{2}\big) - e^{-z^2},

    with :math:`v_1` the variance of one term (:math:`\frac12 + \frac12 e^{-2z^2} - e^{-z^2}`
    for 'sincos', :math:`1 + \frac12 e^{-2z^2} - e^{-z^2}` for 'cos') and C the covariance of
    the terms of two frequencies of a block, :math:`\operatorname{Cov}(\cos w_1^\top\delta,
    \cos w_2^\top\delta)` (the random phases of 'cos' add none); independent blocks divide
    it by ``n_blocks``.

    Any width. With ``n_components``, m = D/2 ('sincos') or D ('cos') frequencies fill
    blocks of sizes :math:`r_b` (whole blocks of d, then one of m mod d rows, as
    :class:`OrthogonalRandomFeatures` draws them). The rows of a cut block are rows of the
    same Haar matrix, so any two of them still have the covariance C, and the average of the
    m terms has the variance

    .. math::

        \operatorname{Var} = \frac{1}{m^2}\Big(m\,v_1 + C \sum_b r_b (r_b - 1)\Big),

    which is the form above for whole blocks (:math:`r_b = d`).

    Derivation (ours). :math:`w_i = s_i q_i/\sigma` with :math:`(q_1, q_2)` orthonormal and
    Haar-distributed, :math:`s_i \sim \chi(d)` independent. Since
    :math:`\cos a\cos b = \frac12(\cos(a + b) + \cos(a - b))`, and :math:`a \pm b =
    (s_1 q_1 \pm s_2 q_2)^\top\delta/\sigma` has the law of :math:`z\,r\,u_1` with
    :math:`r = (s_1^2 + s_2^2)^{1/2} \sim \chi(2d)` independent of :math:`u_1`, a coordinate of
    a uniform unit vector of :math:`\mathbb R^d` (characteristic function
    :math:`{}_0F_1(; \frac d2; -t^2/4)`), averaging the series term by term over
    :math:`r^2 \sim \chi^2(2d)` gives :math:`\mathbb E[\cos(a \pm b)] =
    {}_1F_1(d; \frac d2; -\frac{z^2}{2})`, hence C. Its expansion in 1/d,
    :math:`C = -e^{-z^2}z^4/(2d) + O(1/d^2)`, is Yu et al.'s Theorem 1: with D = d,

    .. math::

        \operatorname{Var}_{ORF} = \operatorname{Var}_{RFF}
        - \frac{d - 1}{d}\,\frac{e^{-z^2} z^4}{2d} + O\Big(\frac{1}{d^2}\Big),

    negative covariance, a variance below RFF's at equal D for every z > 0.

    Parameters
    ----------
    z : float or array-like
        Distances :math:`\|\delta\|/\sigma \ge 0`.
    d : int >= 2
        The input dimension, the size of a block.
    variant : {'sincos', 'cos'}, default='sincos'
    n_blocks : int >= 1, default=1
        Independent whole blocks (m = ``n_blocks`` · d frequencies).
    leading_order : bool, default=False
        Return Yu et al.'s expansion without its :math:`O(1/d^2)` remainder,
        :math:`(v_1/d - \frac{d-1}{d}\frac{e^{-z^2}z^4}{2d})/n_\text{blocks}`, instead of
        the exact form.
    n_components : int >= 1, default=None
        D, the output width (even for 'sincos'), any multiple of d or not: the blocks are
        those of :class:`OrthogonalRandomFeatures` at that width. ``None``: ``n_blocks``
        whole blocks; give one of the two.

    Returns
    -------
    variance : ndarray of z's shape
        A 0-d array for a scalar z.

    See Also
    --------
    rff_variance : i.i.d. frequencies (the first term alone, :math:`v_1/m`).

    Notes
    -----
    The exact form is a derivation of ours, checked against Monte Carlo in
    ``tests/lib/test_random_features.py``; Yu et al. (2016) state its 1/d expansion (Theorem 1).
    It holds for ORF, whose rows have independent :math:`\chi(d)` lengths; SORF's rows all
    have the same length and its variance differs at small d (Yu et al., Theorem 3).

    References
    ----------
    Yu, Suresh, Choromanski, Holtmann-Rice, Kumar. Orthogonal random features. NIPS 2016.

    Examples
    --------
    >>> from lsl_lib.random_features import orf_variance, rff_variance
    >>> round(float(orf_variance(1.0, 16) / rff_variance(1.0, 32)), 3)  # d = 16, D = 32
    0.158
    >>> round(float(orf_variance(1.0, 16, n_components=40) / rff_variance(1.0, 40)), 3)
    0.292
    """
    z = _check_variance_args(z, variant)
    if not isinstance(d, Integral) or d < 2:
        raise ValueError(f"d must be an integer >= 2 (a block of orthogonal frequencies), "
                         f"got d={d!r}.")
    if not isinstance(n_blocks, Integral) or n_blocks < 1:
        raise ValueError(f"n_blocks must be an integer >= 1, got n_blocks={n_blocks!r}.")
    if n_components is None:
        sizes = [d] * n_blocks
    else:
        if not isinstance(n_components, Integral) or n_components < 1:
            raise ValueError(f"n_components must be an integer >= 1, "
                             f"got n_components={n_components!r}.")
        if n_blocks != 1:
            raise ValueError(f"give n_blocks or n_components, not both (got "
                             f"n_blocks={n_blocks}, n_components={n_components}).")
        sizes = block_sizes(n_frequencies(n_components, variant), d)
    m = sum(sizes)
    k, k2 = np.exp(-z ** 2 / 2), np.exp(-2 * z ** 2)
    one_term = 0.5 + k2 / 2 - k ** 2 if variant == "sincos" else 1 + k2 / 2 - k ** 2
    if leading_order:
        cov = -np.exp(-z ** 2) * z ** 4 / (2 * d)
    else:
        cov = hyp1f1(d, d / 2, -z ** 2 / 2) - np.exp(-z ** 2)
    return (m * one_term + cov * sum(r * (r - 1) for r in sizes)) / m ** 2
