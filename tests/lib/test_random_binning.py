"""Random binning features: the pitch law and the hat function behind the Laplacian kernel,
the unbiased estimate (and the bias of a fixed width), the sparse one-hot output, the cell
ids (an independent pure-Python hash, dense == CSR, numpy == numba), seeds and bad input
(scikit-learn's contract: test_common.py).

Monte Carlo tolerances: each grid is a Bernoulli variable with p = k(x, y) (x and y share a
cell or not), so the mean of P grids has the standard deviation sqrt(k(1 - k) / P); the
tests allow N_SD = 5 of them."""
import numpy as np
import pytest
import scipy.integrate
import scipy.sparse as sp
import scipy.stats
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import lsl_lib.random_binning as rb
from lsl_lib._core.backend import numba_available
from lsl_lib.kernels import kernel_matrix
from lsl_lib.random_binning import RandomBinningFeatures, bin_indices, draw_grids, grid_widths
from lsl_lib.random_features import kernel_approximation_error
from estimator_support import with_inf, with_nan

N_SD = 5
needs_numba = pytest.mark.skipif(not numba_available(), reason="numba is not available")


def _points_at(kernel_values, gamma, d, seed=0):
    """x_0 = 0 and, for each value k, a point x_j with exp(-gamma ||x_j||_1) = k, its
    L1 length spread over the d coordinates with random signs and weights."""
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.ones(d), size=len(kernel_values))
    signs = rng.choice([-1.0, 1.0], size=weights.shape)
    lengths = -np.log(kernel_values) / gamma
    return np.vstack([np.zeros(d), lengths[:, None] * weights * signs])


# ---------------------------------------------------------------- the mathematics

def test_pitches_are_gamma_and_shifts_uniform_within_the_pitch():
    gamma = 0.7
    pitches, shifts = draw_grids(3, 2000, gamma, np.random.default_rng(0))
    assert pitches.shape == shifts.shape == (2000, 3)
    assert pitches.dtype == shifts.dtype == np.float64
    # Kolmogorov-Smirnov on the 6000 i.i.d. draws, at level 1e-3
    law = scipy.stats.gamma(a=2, scale=1 / gamma)
    assert scipy.stats.kstest(pitches.ravel(), law.cdf).pvalue > 1e-3
    assert np.all((shifts >= 0) & (shifts < pitches))
    assert scipy.stats.kstest((shifts / pitches).ravel(), "uniform").pvalue > 1e-3


@pytest.mark.parametrize("gamma", [0.3, 2.0])
@pytest.mark.parametrize("delta", [0.05, 0.5, 1.0, 3.0])
def test_hat_function_averaged_over_the_pitch_law_is_the_laplacian(gamma, delta):
    """int_0^inf max(0, 1 - |D|/d) gamma^2 d exp(-gamma d) dd = exp(-gamma |D|)."""
    density = scipy.stats.gamma(a=2, scale=1 / gamma).pdf
    value, _ = scipy.integrate.quad(lambda p: (1 - delta / p) * density(p), delta, np.inf)
    np.testing.assert_allclose(value, np.exp(-gamma * delta), rtol=1e-8)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=needs_numba)])
def test_sharing_a_cell_of_a_fixed_pitch_has_the_hat_probability(backend):
    """One axis, pitch 1, P uniform shifts: x and x + D share a cell with probability
    max(0, 1 - |D|)."""
    P = 20000
    rng = np.random.default_rng(0)
    pitches = np.ones((P, 1))
    shifts = rng.random((P, 1))
    offsets = np.array([0.0, 0.1, 0.5, 0.9, 1.0, 1.7])
    x = 0.3
    ids = bin_indices(np.concatenate([[x], x + offsets])[:, None], pitches, shifts,
                      backend=backend)
    shared = (ids[1:] == ids[0]).mean(axis=1)
    expected = np.maximum(0.0, 1.0 - offsets)
    sd = np.sqrt(expected * (1 - expected) / P)
    np.testing.assert_array_less(np.abs(shared - expected), N_SD * sd + 1e-12)
    assert shared[0] == 1.0 and shared[-2] == shared[-1] == 0.0


@pytest.mark.parametrize("d", [1, 4])
def test_estimate_is_unbiased_for_the_laplacian_kernel(d):
    """(ZZ')[0, j] averages P Bernoulli(k) variables: within 5 sd of k = exp(-gamma ||x||_1)."""
    gamma, P = 0.5, 20000
    k = np.array([0.95, 0.8, 0.5, 0.2, 0.05])
    X = _points_at(k, gamma, d)
    np.testing.assert_allclose(kernel_matrix(X, kernel="laplacian", gamma=gamma)[0, 1:], k)
    Z = RandomBinningFeatures(n_grids=P, gamma=gamma, random_state=0).fit_transform(X)
    estimate = (Z[1:] @ Z[0].T).toarray().ravel()
    np.testing.assert_array_less(np.abs(estimate - k), N_SD * np.sqrt(k * (1 - k) / P))


def test_gram_matrix_approaches_the_kernel_matrix():
    X = np.random.default_rng(3).normal(size=(40, 6))
    K = kernel_matrix(X, kernel="laplacian", gamma=0.2)
    P = 10000
    Z = RandomBinningFeatures(n_grids=P, gamma=0.2, random_state=1).fit_transform(X)
    error = np.abs((Z @ Z.T).toarray() - K)
    # every entry within 5 sd; the sd of an entry is at most 1 / (2 sqrt(P)) = 0.005
    assert np.all(error <= N_SD * np.sqrt(K * (1 - K) / P) + 1e-12)
    # the lectures' error measure reads the sparse output and the transformer's kernel
    errors = kernel_approximation_error(
        RandomBinningFeatures(n_grids=P, gamma=0.2, random_state=1), X)
    assert errors["max_absolute"] == pytest.approx(error.max(), abs=1e-12)


def test_fixed_width_has_the_bias_of_its_collisions():
    """Each grid hashes into w own columns: two distinct cells collide with probability 1/w,
    so E[z(x).z(y)] = k + (1 - k)/w (w = 4 here)."""
    gamma, P, w = 0.5, 20000, 4
    k = np.array([0.8, 0.5, 0.2])
    X = _points_at(k, gamma, 3, seed=1)
    Z = RandomBinningFeatures(n_grids=P, gamma=gamma, n_components=w * P,
                              random_state=0).fit_transform(X)
    estimate = (Z[1:] @ Z[0].T).toarray().ravel()
    expected = k + (1 - k) / w
    np.testing.assert_array_less(np.abs(estimate - expected),
                                 N_SD * np.sqrt(expected * (1 - expected) / P))
    # the bias (0.05 to 0.2) is seen: half of it is above 5 sd (< 0.018)
    assert np.all(estimate - k > (1 - k) / w / 2)


def test_grid_widths_split_the_output_width():
    widths, offsets = grid_widths(23, 5)
    np.testing.assert_array_equal(widths, [5, 5, 5, 4, 4])
    np.testing.assert_array_equal(offsets, [0, 5, 10, 15, 19, 23])


# ---------------------------------------------------------------- the output

@pytest.mark.parametrize("n_components", [None, 250, 257])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_output_is_csr_with_exactly_p_entries_of_one_over_root_p(n_components, dtype):
    X = np.random.default_rng(0).normal(size=(60, 5))
    P = 25
    est = RandomBinningFeatures(n_grids=P, n_components=n_components, dtype=dtype,
                                random_state=0)
    Z = est.fit_transform(X)
    assert sp.issparse(Z) and Z.format == "csr"
    assert Z.indices.dtype == np.int32 and Z.data.dtype == dtype
    assert Z.shape == (60, est.n_components_)
    if n_components is not None:
        assert est.n_components_ == n_components
    np.testing.assert_array_equal(np.diff(Z.indptr), P)
    np.testing.assert_allclose(Z.data, 1 / np.sqrt(P), rtol=1e-7)
    assert Z.has_sorted_indices
    # one entry per grid, inside the grid's own columns
    grid_of_column = np.searchsorted(est.grid_offsets_, Z.indices, side="right") - 1
    np.testing.assert_array_equal(grid_of_column.reshape(60, P), np.tile(np.arange(P), (60, 1)))
    np.testing.assert_allclose((Z @ Z.T).diagonal(), 1.0, rtol=1e-6)


def test_vocabulary_holds_the_cells_of_the_training_set():
    X = np.random.default_rng(0).normal(size=(80, 3))
    est = RandomBinningFeatures(n_grids=7, gamma=1.0, random_state=0).fit(X)
    ids = bin_indices(X, est.pitches_, est.shifts_)
    for p in range(7):
        vocabulary = est.vocabulary_[est.grid_offsets_[p]:est.grid_offsets_[p + 1]]
        np.testing.assert_array_equal(vocabulary, np.unique(ids[:, p]))
    assert est.n_components_ == len(est.vocabulary_) == est.grid_offsets_[-1]


def test_transform_of_the_training_set_reproduces_the_fit_time_bins():
    X = np.random.default_rng(0).normal(size=(50, 4))
    est = RandomBinningFeatures(n_grids=30, random_state=0)
    Z_fit = est.fit_transform(X)
    Z = est.transform(X)
    assert (Z != Z_fit).nnz == 0
    np.testing.assert_array_equal(Z.indices, Z_fit.indices)
    # two training points share a column of grid p exactly when they share a cell
    ids = bin_indices(X, est.pitches_, est.shifts_)
    columns = Z.indices.reshape(50, 30)
    np.testing.assert_array_equal(columns[:, None, :] == columns[None, :, :],
                                  ids[:, None, :] == ids[None, :, :])


def test_unseen_cells_get_no_entry_and_leave_the_estimate_against_training_points():
    """z(x).z(x_i) = (1/P) #{p: x and x_i share a cell of grid p} for new points x too."""
    rng = np.random.default_rng(0)
    X_train, X_new = rng.normal(size=(40, 3)), rng.normal(size=(15, 3)) * 1.5
    P = 50
    est = RandomBinningFeatures(n_grids=P, gamma=1.0, random_state=0).fit(X_train)
    Z_train, Z_new = est.transform(X_train), est.transform(X_new)
    ids_train = bin_indices(X_train, est.pitches_, est.shifts_)
    ids_new = bin_indices(X_new, est.pitches_, est.shifts_)
    expected = (ids_new[:, None, :] == ids_train[None, :, :]).mean(axis=2)
    np.testing.assert_allclose((Z_new @ Z_train.T).toarray(), expected, rtol=1e-12)
    seen = np.array([[np.isin(ids_new[i, p], ids_train[:, p]) for p in range(P)]
                     for i in range(15)])
    np.testing.assert_array_equal(np.diff(Z_new.indptr), seen.sum(axis=1))
    assert seen.sum() < seen.size  # some cells are unseen
    far = est.transform(np.full((1, 3), 1e6))
    assert far.nnz == 0


def test_hashed_width_gives_every_point_p_entries():
    X_train, X_new = np.random.default_rng(0).normal(size=(2, 30, 3))
    est = RandomBinningFeatures(n_grids=10, n_components=200, random_state=0).fit(X_train)
    np.testing.assert_array_equal(np.diff(est.transform(X_new).indptr), 10)
    np.testing.assert_array_equal(np.diff(est.transform(np.full((1, 3), 1e6)).indptr), 10)


def test_a_linear_model_on_the_features_learns_a_nonlinear_rule():
    """XOR of the signs of two coordinates: no linear rule beats chance, a linear SVM on
    the binning features (a Laplacian-kernel machine) learns it, in a Pipeline."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(4000, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    train, test = slice(0, 3000), slice(3000, None)
    linear = LinearSVC().fit(X[train], y[train]).score(X[test], y[test])
    binned = make_pipeline(RandomBinningFeatures(n_grids=100, gamma=2.0, random_state=0),
                           LinearSVC()).fit(X[train], y[train]).score(X[test], y[test])
    assert linear < 0.6 and binned > 0.95


# ---------------------------------------------------------------- the cell ids

_M64 = 2 ** 64


def _mix_python(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % _M64
    return z ^ (z >> 31)


def _id_python(x, pitches, shifts, p):
    """The module's hash of grid p in Python integers:
    sum_j mix(c_j + (p d + j + 1) phi) mod 2^64."""
    total, d = 0, len(x)
    for j, (xj, pitch, shift) in enumerate(zip(x, pitches, shifts, strict=True)):
        c = int(np.floor((xj - shift) / pitch)) % _M64  # two's complement
        key = (p * d + j + 1) * 0x9E3779B97F4A7C15
        total = (total + _mix_python((c + key) % _M64)) % _M64
    return total - _M64 if total >= 2 ** 63 else total


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=needs_numba)])
def test_ids_are_the_documented_hash_of_the_cell_coordinates(backend):
    """An independent computation in Python's unbounded integers: the ids depend on no
    platform detail (word size, overflow behaviour)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 4)) * 10
    pitches, shifts = draw_grids(4, 3, 0.5, rng)
    ids = bin_indices(X, pitches, shifts, backend=backend)
    expected = [[_id_python(x, pitches[p], shifts[p], p) for p in range(3)] for x in X]
    np.testing.assert_array_equal(ids, np.array(expected, dtype=np.int64))


def test_distinct_cells_get_distinct_ids():
    """Every cell of a 700 x 700 block of a 2-d grid (490 000 cells), and of a line of
    cells (one axis: the hash is injective), has its own id."""
    pitches, shifts = np.array([[1.0, 1.0]]), np.array([[0.5, 0.5]])
    a = np.arange(-350, 350) + 0.75
    X = np.stack(np.meshgrid(a, a), axis=-1).reshape(-1, 2)
    assert len(np.unique(bin_indices(X, pitches, shifts))) == len(X)
    line = np.arange(-10 ** 6, 10 ** 6, dtype=np.float64)[:, None] + 0.75
    assert len(np.unique(bin_indices(line, pitches[:, :1], shifts[:, :1]))) == len(line)


def _sparse_data(seed=0, n=120, d=9):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 2
    X[rng.random((n, d)) < 0.6] = 0.0
    X[5] = 0.0  # an empty row
    return X


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=needs_numba)])
def test_dense_and_csr_input_give_the_same_ids(backend):
    X = _sparse_data()
    pitches, shifts = draw_grids(9, 40, 0.8, np.random.default_rng(1))
    dense = bin_indices(X, pitches, shifts, backend=backend)
    np.testing.assert_array_equal(bin_indices(sp.csr_matrix(X), pitches, shifts,
                                              backend=backend), dense)
    # explicit zeros, unsorted and duplicated indices: the same row values, the same ids
    rows, cols = np.nonzero(X)
    half = X[rows, cols] / 2
    rows = np.concatenate([rows, rows, [0, 1]])
    cols = np.concatenate([cols, cols, [0, 0]])
    vals = np.concatenate([half, half, [0.0, 0.0]])
    order = np.random.default_rng(2).permutation(len(rows))
    messy = sp.csr_matrix(sp.coo_matrix((vals[order], (rows[order], cols[order])),
                                        shape=X.shape))
    messy.has_canonical_format = False
    np.testing.assert_array_equal(bin_indices(messy, pitches, shifts, backend=backend),
                                  bin_indices(X.copy(), pitches, shifts, backend=backend))
    np.testing.assert_array_equal(bin_indices(messy, pitches, shifts, backend=backend), dense)


@needs_numba
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numpy_and_numba_give_the_same_ids(sparse, dtype):
    X = _sparse_data(seed=3).astype(dtype)
    X = sp.csr_matrix(X) if sparse else X
    pitches, shifts = draw_grids(9, 60, 0.3, np.random.default_rng(4))
    np.testing.assert_array_equal(bin_indices(X, pitches, shifts, backend="numba"),
                                  bin_indices(X, pitches, shifts, backend="numpy"))


def test_numpy_reference_is_the_same_in_any_block_size(monkeypatch):
    X = _sparse_data(seed=5)
    pitches, shifts = draw_grids(9, 30, 0.5, np.random.default_rng(6))
    dense, csr = (bin_indices(X, pitches, shifts, backend="numpy"),
                  bin_indices(sp.csr_matrix(X), pitches, shifts, backend="numpy"))
    monkeypatch.setattr(rb, "_BLOCK_ELEMENTS", 100)  # blocks of one row / one grid
    np.testing.assert_array_equal(bin_indices(X, pitches, shifts, backend="numpy"), dense)
    np.testing.assert_array_equal(bin_indices(sp.csr_matrix(X), pitches, shifts,
                                              backend="numpy"), csr)


@pytest.mark.parametrize("n_components", [None, 300])
def test_estimator_dense_csr_backends_and_dtypes_agree(n_components):
    X = _sparse_data(seed=7)
    make = lambda **kw: RandomBinningFeatures(n_grids=20, n_components=n_components,  # noqa: E731
                                              random_state=0, **kw)
    Z = make(backend="numpy").fit_transform(X)
    others = [make().fit_transform(sp.csr_matrix(X)),
              make(backend="numpy").fit(sp.csr_matrix(X)).transform(X),
              make(dtype=np.float32).fit_transform(X.astype(np.float32))]
    if numba_available():
        others.append(make(backend="numba").fit_transform(X))
    for other in others:
        np.testing.assert_array_equal(other.indices, Z.indices)
        np.testing.assert_array_equal(other.indptr, Z.indptr)


# ---------------------------------------------------------------- seeds and names

def test_same_random_state_same_output_and_another_seed_another():
    X = np.random.default_rng(0).normal(size=(30, 4))
    a = RandomBinningFeatures(n_grids=20, random_state=3).fit(X)
    b = RandomBinningFeatures(n_grids=20, random_state=3).fit(X)
    c = RandomBinningFeatures(n_grids=20, random_state=4).fit(X)
    np.testing.assert_array_equal(a.pitches_, b.pitches_)
    np.testing.assert_array_equal(a.shifts_, b.shifts_)
    assert (a.transform(X) != b.transform(X)).nnz == 0
    assert not np.array_equal(a.pitches_, c.pitches_)
    generator = RandomBinningFeatures(n_grids=20,
                                      random_state=np.random.default_rng(3)).fit(X)
    np.testing.assert_array_equal(generator.pitches_, a.pitches_)


def test_gamma_none_is_one_over_d():
    X = np.ones((3, 8))
    assert RandomBinningFeatures(n_grids=2).fit(X).gamma_ == 1 / 8
    assert RandomBinningFeatures(n_grids=2, gamma=3).fit(X).gamma_ == 3.0


def test_feature_names():
    X = np.random.default_rng(0).normal(size=(10, 2))
    names = RandomBinningFeatures(n_grids=3, n_components=5).fit(X).get_feature_names_out()
    np.testing.assert_array_equal(names, [f"randombinningfeatures{i}" for i in range(5)])
    est = RandomBinningFeatures(n_grids=3, random_state=0).fit(X)
    assert len(est.get_feature_names_out()) == est.n_components_


@pytest.mark.parametrize("n_components", [None, 250])
def test_default_dtype_follows_the_input(n_components):
    """Float32 in, float32 values out by default (dtype=None); float64 results
    are those of dtype=np.float64."""
    X = np.random.default_rng(0).normal(size=(40, 4))
    X32 = X.astype(np.float32)
    make = lambda **kw: RandomBinningFeatures(n_grids=20, n_components=n_components,  # noqa
                                              random_state=0, **kw)
    default, explicit = make().fit(X), make(dtype=np.float64).fit(X)
    assert (default.transform(X) != explicit.transform(X)).nnz == 0
    assert default.transform(X).dtype == default.transform(X32).dtype == np.float64
    single = make().fit(X32)
    assert single.dtype_ == np.float32
    assert single.transform(X32).dtype == single.fit_transform(X32).dtype == np.float32
    assert single.transform(X).dtype == np.float64
    assert (single.transform(X32) != make(dtype=np.float32).fit(X32).transform(X32)).nnz == 0


def test_absurd_n_grids_names_n_grids():
    """A MemoryError names the parameter that asked for the memory, not only a shape."""
    with pytest.raises(MemoryError, match=r"n_grids=1000000000000 asks for more memory "
                                          r"than there is \(Unable to allocate"):
        RandomBinningFeatures(n_grids=10**12).fit(np.zeros((5, 3)))


def test_dense_output_and_pandas_output():
    """set_output(transform='pandas') on the sparse output gave scikit-learn's
    generic error; now a clear one, before any work, and sparse_output=False gives a dense
    array (and so a DataFrame)."""
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(0).normal(size=(30, 3))
    sparse = RandomBinningFeatures(n_grids=10, random_state=0).fit(X)
    dense = RandomBinningFeatures(n_grids=10, sparse_output=False, random_state=0).fit(X)
    Z = dense.transform(X)
    assert isinstance(Z, np.ndarray) and Z.dtype == np.float64
    np.testing.assert_array_equal(Z, sparse.transform(X).toarray())
    np.testing.assert_array_equal(dense.fit_transform(X), Z)
    with pytest.raises(ValueError, match=r"Pandas output does not support sparse data\. "
                                         r"RandomBinningFeatures returns a CSR matrix unless "
                                         r"sparse_output=False"):
        clone(sparse).set_output(transform="pandas").fit_transform(X)
    with pytest.raises(ValueError, match="sparse_output=False"):
        sparse.set_output(transform="pandas").transform(X)
    frame = dense.set_output(transform="pandas").transform(X)
    assert isinstance(frame, pd.DataFrame) and frame.shape == Z.shape
    assert list(frame.columns) == list(dense.get_feature_names_out())
    np.testing.assert_array_equal(frame.to_numpy(), Z)


# ---------------------------------------------------------------- bad input

_X = np.random.default_rng(0).normal(size=(10, 3))
_NAN = with_nan(_X)
_INF = with_inf(_X)


@pytest.fixture
def nothing_may_run(forbid):
    forbid(rb, "draw_grids", "bin_indices")


@pytest.mark.parametrize("make,X,match", [
    (lambda: RandomBinningFeatures(n_grids=0), _X, "'n_grids'"),
    (lambda: RandomBinningFeatures(n_grids=2.5), _X, "'n_grids'"),
    (lambda: RandomBinningFeatures(gamma=0.0), _X, "'gamma'"),
    (lambda: RandomBinningFeatures(gamma=-1.0), _X, "'gamma'"),
    (lambda: RandomBinningFeatures(gamma="scale"), _X, "'gamma'"),
    (lambda: RandomBinningFeatures(n_components=0), _X, "'n_components'"),
    (lambda: RandomBinningFeatures(n_components=2.0), _X, "'n_components'"),
    (lambda: RandomBinningFeatures(n_grids=10, n_components=9), _X,
     "n_components must be >= n_grids .*n_components=9 and n_grids=10"),
    (lambda: RandomBinningFeatures(dtype=np.int64), _X, "'dtype'"),
    (lambda: RandomBinningFeatures(backend="gpu"), _X, "'backend'"),
    (lambda: RandomBinningFeatures(random_state=-1), _X, "'random_state'"),
    (RandomBinningFeatures, _NAN, "NaN"),
    (RandomBinningFeatures, _INF, "infinity"),
    (RandomBinningFeatures, np.empty((0, 3)), "0 sample"),
])
def test_bad_input_is_named_before_anything_is_drawn(make, X, match, nothing_may_run):
    with pytest.raises(ValueError, match=match):
        make().fit(X)


@pytest.mark.parametrize("n_components", [None, 50])
def test_bad_input_at_transform(n_components, forbid):
    fitted = RandomBinningFeatures(n_grids=5, n_components=n_components,
                                   random_state=0).fit(_X)
    forbid(rb, "bin_indices")
    with pytest.raises(ValueError, match="X has 4 features, but .* is expecting 3"):
        fitted.transform(np.ones((2, 4)))
    with pytest.raises(ValueError, match="NaN"):
        fitted.transform(_NAN)


def test_bin_indices_refuses_mismatched_shapes():
    pitches, shifts = draw_grids(3, 4, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="same shape"):
        bin_indices(_X, pitches, shifts[:, :2])
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3\)"):
        bin_indices(_X[:, :2], pitches, shifts)
    with pytest.raises(ValueError, match="backend must be one of"):
        bin_indices(_X, pitches, shifts, backend="gpu")
