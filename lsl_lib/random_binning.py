r"""Random binning features (Rahimi and Recht 2007, Algorithm 2) of the Laplacian kernel.

Random Fourier features (:mod:`lsl_lib.random_features`) approximate a shift-invariant
kernel by smooth, dense, global features; random binning is Rahimi and Recht's second map,
built for kernels that are not smooth at 0, such as the Laplacian kernel of
:mod:`lsl_lib.kernels`,

.. math::

    k(x, y) = \exp(-\gamma \|x - y\|_1) = \prod_{j=1}^d e^{-\gamma |x_j - y_j|}.

**One grid.** Cut every axis j into cells of pitch :math:`\delta_j`, shifted by
:math:`u_j`: a point falls into the cell with integer coordinates
:math:`c_j(x) = \lfloor (x_j - u_j)/\delta_j \rfloor`. With :math:`u_j \sim U[0, \delta_j)`,
two numbers at distance :math:`|\Delta|` fall into the same interval with probability
:math:`\max(0, 1 - |\Delta|/\delta_j)`, the hat function. Drawing the pitch from
:math:`p(\delta) = \gamma^2 \delta e^{-\gamma\delta}`, a Gamma(2, 1/γ) law (the density
:math:`\delta\, k''(\delta)` of Rahimi and Recht's Algorithm 2), gives

.. math::

    \int_0^\infty \max\Big(0, 1 - \frac{|\Delta|}{\delta}\Big)\,\gamma^2 \delta
    e^{-\gamma\delta}\, d\delta = e^{-\gamma|\Delta|},

and the axes are independent: x and y share a cell of the grid with probability k(x, y).

**P grids.** The feature vector z(x) has one block per grid, a one-hot indicator of x's
cell, scaled by :math:`1/\sqrt P`:

.. math::

    z(x)^\top z(y) = \frac1P \sum_{p=1}^P \mathbb 1[x, y \text{ share a cell of grid } p],
    \qquad \mathbb E[z(x)^\top z(y)] = k(x, y),

an average of P Bernoulli variables with mean k(x, y): its variance is
:math:`k(1 - k)/P`. The output is sparse, exactly P non-zeros per row, whatever the
number of cells the data occupy.

Random binning is a module of its own, not part of :mod:`lsl_lib.random_features`: it
draws no frequencies, evaluates no trigonometric function and returns sparse one-hot
indicators instead of dense features; nothing but the goal (an unbiased estimate of a
shift-invariant kernel) is shared with the Fourier maps.

**Cell ids.** A cell is a vector of d integers; :func:`bin_indices` hashes it to one 64-bit
id per grid, as a sum modulo :math:`2^{64}` over the coordinates,

.. math::

    h_p(c) = \sum_{j=1}^d g_p(j, c_j) \bmod 2^{64}, \qquad
    g_p(j, c) = \mathrm{mix}\big(c + (pd + j + 1)\varphi \bmod 2^{64}\big)
    \quad (p = 0, \dots, P - 1;\ j = 0, \dots, d - 1),

with mix the 64-bit finaliser of SplitMix64 (a bijection of the 64-bit integers: xor-shifts
and odd multiplications) and :math:`\varphi` the odd constant ``0x9E3779B97F4A7C15``: the
output of SplitMix64 seeded at the cell coordinate, with a key of its own for every grid
and feature. The arithmetic is that of unsigned 64-bit integers, the same on every platform
and in numpy and numba. A sum makes the id of a sparse row cheap: an absent coordinate sits
in the cell :math:`\lfloor -u_j/\delta_j \rfloor` (= -1 unless :math:`u_j = 0`), so the id
is that of the zero vector corrected over the row's non-zeros only, O(nnz) per grid instead
of O(d). The key of the grid matters: the same pair of cells recurs in many grids (the
origin is in cell -1 of almost every axis of every grid), and one hash for all grids would
make their collisions in a fixed width (``n_components`` of :class:`RandomBinningFeatures`)
one event instead of independent ones.

Collisions. For one coordinate (d = 1) :math:`g_p` is injective, so there are none.
Otherwise, with :math:`g_p` behaving like a random function, two distinct cells of a grid
share an id with probability :math:`2^{-64} \approx 5.4\times 10^{-20}`, and among the M
distinct cells the data occupy in a grid, some two collide with probability at most
:math:`M(M-1)/2^{65}`: below :math:`3\times 10^{-8}` per grid for a million cells (a million
training points). A collision would only make two far-apart cells look shared in that one
grid, a change of 1/P to a kernel estimate whose standard deviation is
:math:`\sqrt{k(1-k)/P}`.

**Two paths.** :func:`bin_indices` runs a numpy reference (blocks of rows, or of grids for
CSR) or its compiled twin (one loop over rows, grids and features); the ids are equal:

======================================  ==============================  ===========================
the paper's line                        reference                       compiled
======================================  ==============================  ===========================
Rahimi and Recht, Alg. 2: the cell      :func:`bin_hashes_dense_numpy`  ``_bin_hashes_dense_numba``
⌊(x − u)/δ⌋ of x in every grid, hashed
the same for a CSR X, O(nnz) per grid   :func:`bin_hashes_csr_numpy`    ``_bin_hashes_csr_numba``
======================================  ==============================  ===========================

References
----------
Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007 (Section 4,
Algorithm 2, and the "Binning + LS" column of Table 1).

Steele, Lea, Flood. Fast splittable pseudorandom number generators. OOPSLA 2014 (the
SplitMix64 finaliser).
"""
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.features import FEATURE_MAP_CONSTRAINTS
from lsl_lib._core.random import (
    SPLITMIX_GOLDEN,
    check_random_state,
    splitmix64_numba,
    splitmix64_numpy,
)
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    KERNEL_CONSTRAINTS,
    feature_map_dtype,
    memory_named,
)
from lsl_lib.kernels import check_kernel_params

__all__ = ["RandomBinningFeatures", "draw_grids", "bin_indices", "bin_hashes_dense_numpy",
           "bin_hashes_csr_numpy", "grid_widths"]


def __dir__():
    return __all__


#: Elements of the largest temporary array a block of the numpy reference builds.
_BLOCK_ELEMENTS = 2 ** 21


def draw_grids(n_features, n_grids, gamma, rng):
    r"""P random grids for the Laplacian kernel :math:`\exp(-\gamma\|x - y\|_1)`, in float64.

    Pitch :math:`\delta_{pj} \sim \mathrm{Gamma}(2, 1/\gamma)` (density
    :math:`\gamma^2\delta e^{-\gamma\delta}`, mean :math:`2/\gamma`) and shift
    :math:`u_{pj} \sim U[0, \delta_{pj})`, independently for every grid p and feature j.
    The pitches are drawn first, then the shifts, so that a seed gives the same pitches
    whatever happens to the shifts.

    Parameters
    ----------
    n_features : int
        d.
    n_grids : int
        P.
    gamma : float > 0
        The kernel width.
    rng : numpy.random.Generator

    Returns
    -------
    pitches, shifts : ndarray of shape (n_grids, n_features)
    """
    pitches = rng.gamma(shape=2.0, scale=1.0 / gamma, size=(n_grids, n_features))
    shifts = pitches * rng.random(size=(n_grids, n_features))
    return pitches, shifts


def _keys(n_grids, n_features):
    r""":math:`(pd + j + 1)\varphi \bmod 2^{64}`, shape (P, d): the offset that makes
    :math:`g_p(j, c)` differ by grid and feature."""
    keys = np.arange(n_grids * n_features, dtype=np.uint64) + np.uint64(1)
    return (keys * SPLITMIX_GOLDEN).reshape(n_grids, n_features)


def _cells(x, shifts, pitches):
    r"""The cell coordinates :math:`\lfloor (x - u)/\delta \rfloor` as unsigned 64-bit
    integers (two's complement of the int64 coordinates)."""
    return np.floor((x - shifts) / pitches).astype(np.int64).view(np.uint64)


def _zero_cell_hashes(pitches, shifts, keys):
    r""":math:`g_p(j, \lfloor -u_{pj}/\delta_{pj}\rfloor)`, shape (P, d): the terms of an
    absent (zero) coordinate, and their sums over j, shape (P,): the id of the zero vector."""
    terms = splitmix64_numpy(_cells(0.0, shifts, pitches) + keys)
    return terms, terms.sum(axis=1, dtype=np.uint64)


def bin_hashes_dense_numpy(X, pitches, shifts, keys, out):
    r"""The cell ids :math:`h_p(c(x_i))` of the rows of a dense X (numpy reference): the
    (rows, P, d) terms of blocks of rows at once, summed over d into ``out`` (n, P)."""
    n, d = X.shape
    P = pitches.shape[0]
    rows = max(1, _BLOCK_ELEMENTS // (P * d))
    for start in range(0, n, rows):
        block = X[start:start + rows, None, :]
        terms = splitmix64_numpy(_cells(block, shifts, pitches) + keys)  # (rows, P, d)
        out[start:start + rows] = terms.sum(axis=2, dtype=np.uint64)


def bin_hashes_csr_numpy(data, indices, indptr, pitches, shifts, keys, zero_terms, zero_ids,
                         out):
    r"""The cell ids of the rows of a CSR X (numpy reference). Per grid: the zero vector's
    id plus, over the non-zeros of a row, :math:`g_p(j, c_j) - g_p(j, c_j(0))`; the row sums
    are differences of a cumulative sum (modulo :math:`2^{64}`, exact in any order)."""
    P = pitches.shape[0]
    grids = max(1, _BLOCK_ELEMENTS // max(1, len(data)))
    for start in range(0, P, grids):
        sl = slice(start, start + grids)
        cells = _cells(data[:, None], shifts[sl, indices].T, pitches[sl, indices].T)
        terms = splitmix64_numpy(cells + keys[sl, indices].T) - zero_terms[sl, indices].T
        cumulative = np.zeros((len(data) + 1, terms.shape[1]), dtype=np.uint64)
        np.cumsum(terms, axis=0, dtype=np.uint64, out=cumulative[1:])
        out[:, sl] = zero_ids[sl] + (cumulative[indptr[1:]] - cumulative[indptr[:-1]])


@jit
def _bin_hashes_dense_numba(X, pitches, shifts, keys, out):
    """:func:`bin_hashes_dense_numpy` in one compiled loop over rows, grids and features."""
    n, d = X.shape
    P = pitches.shape[0]
    for i in range(n):
        for p in range(P):
            h = np.uint64(0)
            for j in range(d):
                c = np.int64(np.floor((X[i, j] - shifts[p, j]) / pitches[p, j]))
                h += splitmix64_numba(np.uint64(c) + keys[p, j])
            out[i, p] = h


@jit
def _bin_hashes_csr_numba(data, indices, indptr, pitches, shifts, keys, zero_terms, zero_ids,
                          out):
    """:func:`bin_hashes_csr_numpy` in one compiled loop over rows, grids and non-zeros."""
    n = indptr.shape[0] - 1
    P = pitches.shape[0]
    for i in range(n):
        for p in range(P):
            h = zero_ids[p]
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                c = np.int64(np.floor((data[k] - shifts[p, j]) / pitches[p, j]))
                h += splitmix64_numba(np.uint64(c) + keys[p, j]) - zero_terms[p, j]
            out[i, p] = h


def bin_indices(X, pitches, shifts, backend="auto"):
    r"""The cell id of every row of X in every grid: 64-bit hashes of the integer cell
    coordinates :math:`c_{pj}(x) = \lfloor (x_j - u_{pj})/\delta_{pj} \rfloor`.

    Two points share a cell of grid p exactly when their ids in column p are equal (up to
    the collisions of the module's hash, at most :math:`M(M-1)/2^{65}` for M cells; none
    for d = 1). The ids are the same on every platform, for a dense or a CSR X of the same
    values, and for both backends.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
        Finite values (not checked here: the estimator validates them). Computed in
        float64. A sparse X is read as CSR, without densifying: an absent coordinate is a
        0, in the cell :math:`\lfloor -u/\delta \rfloor`, and costs nothing (O(nnz · P)).
    pitches, shifts : ndarray of shape (P, d)
        From :func:`draw_grids`.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        The compiled loop or the numpy reference (blocks of rows, or of grids for CSR).

    Returns
    -------
    ids : ndarray of shape (n, P), int64
        The 64-bit hash of each cell (unsigned arithmetic, returned as int64).

    Notes
    -----
    The cell coordinates must fit an int64, :math:`|x_j - u_j|/\delta_j < 2^{63}`: the
    case for any finite X of sensible scale (the pitches are of order :math:`1/\gamma`).

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.random_binning import bin_indices
    >>> pitches, shifts = np.array([[1.0, 2.0]]), np.array([[0.5, 0.0]])
    >>> ids = bin_indices(np.array([[0.6, 0.1], [1.4, 1.9], [1.6, 0.1]]), pitches, shifts)
    >>> ids.shape, bool(ids[0, 0] == ids[1, 0]), bool(ids[0, 0] == ids[2, 0])
    ((3, 1), True, False)
    """
    pitches = np.ascontiguousarray(pitches, dtype=np.float64)
    shifts = np.ascontiguousarray(shifts, dtype=np.float64)
    if pitches.ndim != 2 or pitches.shape != shifts.shape:
        raise ValueError(f"pitches and shifts must be arrays of the same shape (n_grids, "
                         f"n_features), got {pitches.shape} and {shifts.shape}.")
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if not X.has_canonical_format:  # sum duplicates in a copy, not in the caller's X
            X = X.copy()
            X.sum_duplicates()
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != pitches.shape[1]:
        raise ValueError(f"X must have shape (n, {pitches.shape[1]}) to match the grids, "
                         f"got {X.shape}.")
    path = resolve_backend(backend)
    keys = _keys(*pitches.shape)
    out = np.empty((X.shape[0], pitches.shape[0]), dtype=np.uint64)
    if sp.issparse(X):
        zero_terms, zero_ids = _zero_cell_hashes(pitches, shifts, keys)
        loop = _bin_hashes_csr_numba if path == "numba" else bin_hashes_csr_numpy
        loop(X.data, X.indices, X.indptr, pitches, shifts, keys, zero_terms, zero_ids, out)
    else:
        loop = _bin_hashes_dense_numba if path == "numba" else bin_hashes_dense_numpy
        loop(X, pitches, shifts, keys, out)
    return out.view(np.int64)


def grid_widths(n_components, n_grids):
    """The columns each grid owns when hashing to a fixed width D: D // P, the first
    D mod P grids one more. Returns ``(widths, offsets)``, offsets of shape (P + 1,)."""
    widths = np.full(n_grids, n_components // n_grids, dtype=np.int64)
    widths[:n_components % n_grids] += 1
    return widths, np.concatenate([[0], np.cumsum(widths)])


class RandomBinningFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Random binning features (Rahimi and Recht 2007) of the Laplacian kernel.

    P random grids (pitch :math:`\delta \sim \mathrm{Gamma}(2, 1/\gamma)`, shift
    :math:`u \sim U[0, \delta)` per axis, :func:`draw_grids`); z(x) is the one-hot indicator
    of x's cell in every grid, scaled by :math:`1/\sqrt P`:

    .. math::

        z(x)^\top z(y) = \frac1P \sum_{p=1}^P \mathbb 1[c_p(x) = c_p(y)], \qquad
        \mathbb E[z(x)^\top z(y)] = e^{-\gamma\|x - y\|_1},

    with variance :math:`k(1 - k)/P` (see :mod:`lsl_lib.random_binning`).

    Parameters
    ----------
    n_grids : int, default=100
        P, the number of grids: the number of non-zeros of every training row.
    gamma : float > 0, default=None
        Width of the Laplacian kernel :math:`\exp(-\gamma\|x - y\|_1)`; ``None`` is 1/d,
        as in :class:`~lsl_lib.random_features.RandomFourierFeatures`. (No ``'scale'``:
        the learners' ``'scale'`` is calibrated on squared Euclidean distances, not on
        :math:`\|x - y\|_1`.) The pitches have mean :math:`2/\gamma`.
    n_components : int >= n_grids, default=None
        ``None``: one column per cell that the training set occupies, grid by grid (a
        vocabulary learnt by ``fit``; the width is known after ``fit``). An int D: a fixed
        width without vocabulary, grid p owning its own D // P columns (the first D mod P
        grids one more) into which its cell ids are hashed (see Notes).
    dtype : {numpy.float64, numpy.float32} or None, default=None
        Type of the output's values; None: X's, float32 kept as float32 and anything else
        float64 (as scikit-learn's ``RBFSampler``): float32 out when ``fit`` and
        ``transform`` both get float32. The cells are computed in float64 either way.
    sparse_output : bool, default=True
        Return a CSR matrix (P non-zeros per row); ``False`` returns a dense ndarray of
        n_samples x ``n_components_`` floats, mostly zeros, which ``set_output(transform=
        'pandas')`` needs (a sparse output with pandas output is refused, as scikit-learn's
        ``OneHotEncoder`` refuses it). Mind the width: with ``n_components=None`` it is the
        number of occupied cells of all grids, easily thousands of columns.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        Path of :func:`bin_indices`, the loop over rows, grids and features.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the grids.

    Attributes
    ----------
    pitches_, shifts_ : ndarray of shape (n_grids, n_features_in_), float64
        :math:`\delta_{pj}` and :math:`u_{pj}`.
    gamma_ : float
        The kernel width used.
    vocabulary_ : ndarray of shape (n_components_,), int64
        (``n_components=None`` only.) The cell ids seen at fit, grid by grid, each grid's
        sorted: column ``grid_offsets_[p] + r`` is the r-th smallest id of grid p.
    grid_offsets_ : ndarray of shape (n_grids + 1,), int64
        The first column of each grid (and the width at the end).
    n_components_ : int
        The output width.
    dtype_ : numpy.dtype
        ``dtype``, or the fit's X's (float32 or float64).
    n_features_in_ : int

    See Also
    --------
    lsl_lib.random_features.RandomFourierFeatures : the dense Fourier map (with
        ``kernel='laplacian'``, Cauchy frequencies) of the same kernel.
    bin_indices : the cell ids.

    Notes
    -----
    *Exactly P non-zeros per row.* Every row of ``fit_transform(X)`` (and of
    ``transform`` of any point whose cells were all seen at fit, or of any point with a
    fixed ``n_components``) has one entry :math:`1/\sqrt P` per grid, so
    :math:`\|z(x)\|^2 = 1 = k(x, x)` and the output has indices sorted within each row.

    *Cells unseen at fit* (``n_components=None``). A transform-time point in a cell of grid
    p that no training point occupies gets no entry for grid p. That cell is shared with no
    training point, so :math:`z(x)^\top z(x_i)` against every training point is exactly the
    value of the map with all cells: a linear model fitted on the training features predicts
    what it would with the full map. Only two new points that share an unseen cell lose
    that 1/P of their estimate, and :math:`\|z(x)\|^2` is the fraction of x's cells seen
    at fit.

    *Fixed width* (``n_components=D``). Cell id h of grid p goes to column
    :math:`o_p + (h \bmod w_p)`, :math:`w_p \approx D/P` the grid's own columns. Grids never
    share a column, so every row keeps exactly P entries of :math:`1/\sqrt P` (a single hash
    over all D columns would let two grids of a row land in one column: an entry
    :math:`2/\sqrt P`, fewer non-zeros, :math:`\|z(x)\|^2 \ne 1`). Two distinct cells of a
    grid land in the same column with probability :math:`1/w_p`, so

    .. math::

        \mathbb E[z(x)^\top z(y)] = k + (1 - k)\,\frac1P\sum_p \frac{1}{w_p}
        \approx k + (1 - k)\frac PD,

    a bias of at most :math:`1/\lfloor D/P \rfloor` that vanishes as D/P grows
    (D = 1000 P: at most 0.001).

    Cost: O(n P d) hash evaluations for dense X, O(P · nnz) for CSR X (absent coordinates
    cost nothing); the output holds n P values and indices, against n D floats for a dense
    map of width D.

    References
    ----------
    Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.random_binning import RandomBinningFeatures
    >>> from lsl_lib.kernels import kernel_matrix
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> Z = RandomBinningFeatures(n_grids=20000, gamma=0.5, random_state=0).fit_transform(X)
    >>> Z.format, Z.indices.dtype, np.diff(Z.indptr).tolist()
    ('csr', dtype('int32'), [20000, 20000, 20000, 20000, 20000])
    >>> K = kernel_matrix(X, kernel="laplacian", gamma=0.5)
    >>> bool(np.abs((Z @ Z.T).toarray() - K).max() < 0.02)
    True
    >>> RandomBinningFeatures(n_grids=2, n_components=6).fit(X).get_feature_names_out()
    array(['randombinningfeatures0', 'randombinningfeatures1',
           'randombinningfeatures2', 'randombinningfeatures3',
           'randombinningfeatures4', 'randombinningfeatures5'], dtype=object)
    """

    #: The kernel the map estimates (read as ``transformer.kernel``, as for the Fourier maps).
    kernel = "laplacian"

    _parameter_constraints = {
        "n_grids": [Interval(Integral, 1, None, closed="left")],
        "gamma": KERNEL_CONSTRAINTS["gamma"],
        "n_components": [*FEATURE_MAP_CONSTRAINTS["n_components"], None],
        "dtype": FEATURE_MAP_CONSTRAINTS["dtype"],
        "sparse_output": ["boolean"],
        "backend": ITERATIVE_CONSTRAINTS["backend"],
        "random_state": FEATURE_MAP_CONSTRAINTS["random_state"],
    }

    def __init__(self, n_grids=100, gamma=None, n_components=None, dtype=None,
                 sparse_output=True, backend="auto", random_state=None):
        self.n_grids = n_grids
        self.gamma = gamma
        self.n_components = n_components
        self.dtype = dtype
        self.sparse_output = sparse_output
        self.backend = backend
        self.random_state = random_state

    @property
    def _n_features_out(self):
        """The output width (read by ``get_feature_names_out``)."""
        return self.n_components_

    def _validate(self, X, reset):
        return validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                             reset=reset)

    def _check_output_config(self):
        """Refuse a sparse output where set_output asks for a DataFrame (before any work)."""
        container = _get_output_config("transform", estimator=self)["dense"]
        if container != "default" and self.sparse_output:
            lib = container.capitalize()
            raise ValueError(
                f"{lib} output does not support sparse data. RandomBinningFeatures returns "
                f"a CSR matrix unless sparse_output=False (a dense array of n_samples x "
                f"n_components_ floats); or disable {lib} output via "
                f"set_output(transform='default').")

    def _fit(self, X):
        """Draw the grids (and learn the vocabulary); return the training cell ids."""
        X = self._validate(X, reset=True)
        self.dtype_ = feature_map_dtype(self.dtype, X.dtype)
        if self.n_components is not None and self.n_components < self.n_grids:
            raise ValueError(
                f"n_components must be >= n_grids when hashing to a fixed width (each grid "
                f"owns n_components // n_grids >= 1 columns), got n_components="
                f"{self.n_components} and n_grids={self.n_grids}.")
        resolve_backend(self.backend)
        _, self.gamma_, _, _ = check_kernel_params("laplacian", self.gamma,
                                                   n_features=X.shape[1])
        rng = check_random_state(self.random_state)
        with memory_named("n_grids", self.n_grids):  # P x d grids, n x P cells
            self.pitches_, self.shifts_ = draw_grids(X.shape[1], self.n_grids, self.gamma_,
                                                     rng)
            ids = bin_indices(X, self.pitches_, self.shifts_, backend=self.backend)
        if self.n_components is None:
            vocabularies = [np.unique(ids[:, p]) for p in range(self.n_grids)]
            self.vocabulary_ = np.concatenate(vocabularies)
            self.grid_offsets_ = np.concatenate(
                [[0], np.cumsum([len(v) for v in vocabularies])]).astype(np.int64)
        else:
            _, self.grid_offsets_ = grid_widths(self.n_components, self.n_grids)
        self.n_components_ = int(self.grid_offsets_[-1])
        return ids

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the grids; with ``n_components=None``, record the cells X occupies."""
        self._fit(X)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """``fit(X).transform(X)``, computing the cell ids of X once."""
        self._check_output_config()
        return self._features(self._fit(X), self.dtype_)

    def transform(self, X):
        """The random binning features of X, shape (n_samples, n_components_): CSR, or a
        dense array with ``sparse_output=False``."""
        check_is_fitted(self)
        self._check_output_config()
        X = self._validate(X, reset=False)
        dtype = feature_map_dtype(self.dtype, np.result_type(self.dtype_, X.dtype))
        return self._features(bin_indices(X, self.pitches_, self.shifts_,
                                          backend=self.backend), dtype)

    def _features(self, ids, dtype):
        """The one-hot cells from the cell ids (shape (n, P)): CSR of values ``dtype``, or
        its dense array with ``sparse_output=False``."""
        n, P = ids.shape
        offsets = self.grid_offsets_
        if self.n_components is None:
            columns = np.empty((n, P), dtype=np.int64)
            seen = np.empty((n, P), dtype=bool)
            for p in range(P):
                vocabulary = self.vocabulary_[offsets[p]:offsets[p + 1]]
                rank = np.minimum(np.searchsorted(vocabulary, ids[:, p]), len(vocabulary) - 1)
                seen[:, p] = vocabulary[rank] == ids[:, p]
                columns[:, p] = offsets[p] + rank
            columns = columns[seen]
            indptr = np.concatenate([[0], np.cumsum(seen.sum(axis=1))])
        else:
            widths = np.diff(offsets).astype(np.uint64)
            columns = ((ids.view(np.uint64) % widths).astype(np.int64) + offsets[:-1]).ravel()
            indptr = np.arange(0, n * P + 1, P)
        index_dtype = np.int32 if max(len(columns), self.n_components_) < 2 ** 31 else np.int64
        data = np.full(len(columns), 1.0 / np.sqrt(P), dtype=dtype)
        Z = sp.csr_matrix((data, columns.astype(index_dtype), indptr.astype(index_dtype)),
                          shape=(n, self.n_components_))
        return Z if self.sparse_output else Z.toarray()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = (
            ["float64", "float32"] if self.dtype is None else [np.dtype(self.dtype).name])
        tags.input_tags.sparse = True
        return tags
