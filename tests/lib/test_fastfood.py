"""Fastfood: the Walsh-Hadamard transform is scipy's Hadamard matrix, the two paths agree,
the features are built as the paper says and estimate the Gaussian kernel without bias,
and the transformer rejects bad input first (scikit-learn's contract: test_common.py)."""
import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone

import lsl_lib._core.hadamard as hadamard
import lsl_lib.fastfood as ff
from lsl_lib.fastfood import Fastfood, fastfood_project_numpy, fwht
from lsl_lib.kernels import kernel_matrix

BACKENDS = ["numpy", "numba"]
SIZES = [1, 2, 4, 8, 32, 128, 1024]


def _tolerance(dtype):
    # float32 accumulates log2(d) roundings of sums of up to d terms of size ~1
    return dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-10)


# ---------------------------------------------------------------- the Walsh-Hadamard transform

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("d", SIZES)
def test_fwht_is_multiplication_by_scipy_hadamard(d, dtype, backend):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(3, d)).astype(dtype)
    expected = X.astype(np.float64) @ scipy.linalg.hadamard(d).T
    rows = X.copy()
    assert fwht(rows, backend=backend) is rows  # in place, returned
    assert rows.dtype == dtype
    np.testing.assert_allclose(rows, expected, **_tolerance(dtype))
    vector = X[1].copy()
    fwht(vector, backend=backend)
    np.testing.assert_allclose(vector, expected[1], **_tolerance(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("d", SIZES)
def test_fwht_numpy_equals_numba(d, dtype):
    X = np.random.default_rng(1).normal(size=(5, d)).astype(dtype)
    # the same butterflies in a different order: equal up to the rounding of a few sums
    np.testing.assert_allclose(fwht(X.copy(), "numba"), fwht(X.copy(), "numpy"),
                               **_tolerance(dtype))


def test_fwht_numpy_equals_numba_exactly_on_integers():
    # integers in float64 have exact sums: any ordering of the butterflies gives the same bits
    X = np.random.default_rng(2).integers(-1000, 1000, size=(4, 256)).astype(np.float64)
    np.testing.assert_array_equal(fwht(X.copy(), "numba"), fwht(X.copy(), "numpy"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_fwht_twice_is_d_times_the_input(backend):
    d = 64
    X = np.random.default_rng(3).normal(size=(7, d))
    np.testing.assert_allclose(fwht(fwht(X.copy(), backend), backend), d * X, rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fwht_of_a_3d_array_transforms_every_last_axis_row(backend):
    X = np.random.default_rng(4).normal(size=(2, 3, 16))
    expected = X @ scipy.linalg.hadamard(16).T
    np.testing.assert_allclose(fwht(X.copy(), backend), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("a,error,match", [
    (np.zeros((2, 3)), ValueError, "power-of-two"),
    (np.zeros((2, 12)), ValueError, "power-of-two"),
    (np.zeros((2, 0)), ValueError, "power-of-two"),
    (np.zeros((8, 8))[:, ::2], ValueError, "C-contiguous"),
    (np.asfortranarray(np.zeros((8, 4))), ValueError, "C-contiguous"),
    (np.zeros((2, 8), dtype=np.int64), ValueError, "dtype"),
    (np.zeros(8, dtype=np.complex128), ValueError, "dtype"),
    (np.zeros(()), ValueError, "axis"),
    (np.lib.stride_tricks.as_strided(np.zeros(8), writeable=False), ValueError, "writeable"),
    ([1.0, 2.0], TypeError, "numpy.ndarray"),
])
@pytest.mark.parametrize("backend", BACKENDS)
def test_fwht_rejects_bad_input_before_compiled_code_runs(a, error, match, backend, forbid):
    forbid(hadamard, "fwht_rows_numba", "fwht_row_numba", "fwht_numpy")
    with pytest.raises(error, match=match):
        fwht(a, backend=backend)


def test_fwht_rejects_an_unknown_backend():
    with pytest.raises(ValueError, match="backend"):
        fwht(np.zeros(4), backend="cuda")


# ---------------------------------------------------------------- Fastfood: the construction

def _dense_V(fastfood):
    r"""The stacked blocks :math:`V = S H G \Pi H B / (\sigma\sqrt{d'})` as dense matrices."""
    d_padded = fastfood.n_padded_
    H = scipy.linalg.hadamard(d_padded)
    sigma = 1.0 / np.sqrt(2.0 * fastfood.gamma_)
    blocks = []
    for B, P, G, S in zip(fastfood.B_, fastfood.P_, fastfood.G_, fastfood.S_, strict=True):
        Pi = np.eye(d_padded)[P]  # (Pi u)_k = u_{P_k}
        blocks.append(np.diag(S) @ H @ np.diag(G) @ Pi @ H @ np.diag(B)
                      / (sigma * np.sqrt(d_padded)))
    return np.vstack(blocks)


def _projection_matrix(fastfood, n_columns):
    """V[:, :n_columns] by the transform's projection applied to the identity."""
    sigma = 1.0 / np.sqrt(2.0 * fastfood.gamma_)
    out = np.empty((n_columns, fastfood.B_.size))
    fastfood_project_numpy(np.eye(n_columns), fastfood.B_, fastfood.P_, fastfood.G_,
                           fastfood.S_ / (sigma * np.sqrt(fastfood.n_padded_)), out)
    return out.T


def test_factors_have_the_papers_shapes_and_laws():
    d, D = 12, 2 * 16 * 3  # d' = 16, m = 48 frequencies: 3 blocks
    f = Fastfood(n_components=D, gamma=0.3, random_state=0).fit(np.zeros((4, d)))
    assert f.n_padded_ == 16 and f.n_features_in_ == d and f.gamma_ == 0.3
    for name in ("B_", "P_", "G_", "S_"):
        assert getattr(f, name).shape == (3, 16)  # O(D) memory: no dense D x d matrix
    assert set(np.unique(f.B_)) == {-1.0, 1.0}
    np.testing.assert_array_equal(np.sort(f.P_, axis=1), np.tile(np.arange(16), (3, 1)))
    assert not hasattr(f, "offsets_")
    assert Fastfood(n_components=48, variant="cos", random_state=0).fit(
        np.zeros((4, d))).offsets_.shape == (48,)
    assert Fastfood(gamma=None, n_components=D).fit(np.zeros((4, d))).gamma_ == 1.0 / d


def test_projection_is_the_dense_product_and_rows_have_length_s_over_sigma():
    d = 12
    f = Fastfood(n_components=2 * 16 * 3, gamma=0.3, random_state=1).fit(np.zeros((4, d)))
    V = _dense_V(f)
    np.testing.assert_allclose(_projection_matrix(f, 16), V, rtol=1e-12, atol=1e-12)
    # ||v_i||^2 = s_i^2 / sigma^2 exactly, with s_i = S_i ||G||_F: the rows of H G Pi H B
    # have squared norm d' ||G||_F^2
    s = f.S_ * np.linalg.norm(f.G_, axis=1, keepdims=True)
    np.testing.assert_allclose(np.sum(V ** 2, axis=1), (s ** 2).ravel() * 2 * 0.3, rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_transform_is_the_trig_map_of_the_dense_projection(variant, backend):
    d = 12
    X = np.random.default_rng(2).normal(size=(30, d))
    f = Fastfood(n_components=2 * 16 * 2 if variant == "sincos" else 32, gamma=0.3,
                 variant=variant, backend=backend, random_state=3).fit(X)
    projection = np.hstack([X, np.zeros((30, 4))]) @ _dense_V(f).T
    m = projection.shape[1]
    if variant == "sincos":
        expected = np.sqrt(1.0 / m) * np.hstack([np.cos(projection), np.sin(projection)])
    else:
        expected = np.sqrt(2.0 / m) * np.cos(projection + f.offsets_)
    # dense products and fwht sum in different orders: projections agree to ~1e-15 absolute
    np.testing.assert_allclose(f.transform(X), expected, rtol=1e-10, atol=1e-13)


def test_entries_of_V_have_variance_2_gamma_and_lengths_are_chi():
    # E[v_ij^2] = 1/sigma^2 = 2 gamma for every column j (also the d real ones, so
    # E||v_i[:d]||^2 = d / sigma^2), and s_i^2 ~ chi^2(d') has mean d'. Blocks are
    # independent: the standard error comes from the spread of the block means.
    d, gamma, n_blocks = 5, 0.7, 2000
    f = Fastfood(n_components=2 * 8 * n_blocks, gamma=gamma, random_state=4).fit(np.zeros((2, d)))
    squares = _projection_matrix(f, d) ** 2  # (m, d): the columns of the real features
    per_block = squares.reshape(n_blocks, 8 * d).mean(axis=1)
    standard_error = per_block.std(ddof=1) / np.sqrt(n_blocks)
    assert abs(per_block.mean() - 2 * gamma) < 4 * standard_error
    s2 = ((f.S_ * np.linalg.norm(f.G_, axis=1, keepdims=True)) ** 2).mean(axis=1)
    assert abs(s2.mean() - 8) < 4 * s2.std(ddof=1) / np.sqrt(n_blocks)


@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_kernel_estimate_is_unbiased(variant):
    # One fit with many independent blocks; the estimate of k(x, y) is the mean over the
    # frequencies, its standard error that of the block means (4 standard errors: a fixed
    # seed, and a 6e-5 chance per pair of a false alarm). d = 5 is padded to d' = 8.
    d, gamma, n_blocks = 5, 0.5, 1000
    rng = np.random.default_rng(6)
    x = rng.normal(size=d)
    directions = rng.normal(size=(3, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    targets = np.array([0.9, 0.5, 0.1])
    Y = x + directions * np.sqrt(-np.log(targets) / gamma)[:, None]  # k(x, y_i) = targets[i]
    m = 8 * n_blocks
    f = Fastfood(n_components=2 * m if variant == "sincos" else m, gamma=gamma, variant=variant,
                 random_state=7).fit(np.zeros((2, d)))
    Z = f.transform(np.vstack([x, Y]))
    if variant == "sincos":  # per frequency: cos(v.x) cos(v.y) + sin(v.x) sin(v.y) = cos(v.(x - y))
        terms = m * (Z[0, :m] * Z[1:, :m] + Z[0, m:] * Z[1:, m:])
    else:  # per frequency: 2 cos(v.x + b) cos(v.y + b)
        terms = m * Z[0] * Z[1:]
    block_means = terms.reshape(3, n_blocks, 8).mean(axis=2)
    standard_errors = block_means.std(axis=1, ddof=1) / np.sqrt(n_blocks)
    np.testing.assert_allclose(kernel_matrix(x[None], Y, gamma=gamma)[0], targets)
    assert np.all(np.abs(block_means.mean(axis=1) - targets) < 4 * standard_errors)


# ---------------------------------------------------------------- any width: a cut last block

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("D,variant", [(38, "sincos"), (21, "cos"), (2, "sincos"), (1, "cos")])
def test_cut_block_is_the_first_rows_of_the_dense_product(D, variant, backend):
    """d = 12, d' = 16: m = 19 (a whole block and 3 rows), 21 (16 + 5), 1. The features are
    the trig map of the first m rows of the stacked V, scaled by the m actually used."""
    d = 12
    X = np.random.default_rng(2).normal(size=(30, d))
    f = Fastfood(n_components=D, gamma=0.3, variant=variant, backend=backend,
                 random_state=3).fit(X)
    m = D // 2 if variant == "sincos" else D
    assert f.n_frequencies_ == m and f.G_.shape == (-(-m // 16), 16)
    projection = np.hstack([X, np.zeros((30, 4))]) @ _dense_V(f)[:m].T
    if variant == "sincos":
        expected = np.sqrt(1.0 / m) * np.hstack([np.cos(projection), np.sin(projection)])
    else:
        assert f.offsets_.shape == (m,)
        expected = np.sqrt(2.0 / m) * np.cos(projection + f.offsets_)
    Z = f.transform(X)
    assert Z.shape == (30, D)
    np.testing.assert_allclose(Z, expected, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_same_seed_same_features_at_a_cut_width(variant):
    """A cut width is as reproducible as a whole one, and a cut block's factors have the
    laws of a whole block's (P a permutation, B signs)."""
    X = np.random.default_rng(3).normal(size=(8, 5))
    D = 2 * 11 if variant == "sincos" else 11
    a = Fastfood(n_components=D, variant=variant, random_state=5).fit(X)
    b = Fastfood(n_components=D, variant=variant, random_state=5).fit(X)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    np.testing.assert_array_equal(np.sort(a.P_, axis=1), np.tile(np.arange(8), (2, 1)))
    assert set(np.unique(a.B_)) == {-1.0, 1.0}


@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_cut_block_is_unbiased(variant):
    """m = 3 rows of one block (d = 5, d' = 8): every row of V is N(0, I/sigma^2), so the
    mean of z(x).z(y) over 2000 seeds is k(x, y), within 4 SE."""
    d, gamma = 5, 0.5
    rng = np.random.default_rng(6)
    directions = rng.normal(size=(3, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    targets = np.array([0.9, 0.5, 0.1])
    X = np.vstack([np.zeros(d), directions * np.sqrt(-np.log(targets) / gamma)[:, None]])
    D = 6 if variant == "sincos" else 3
    est = np.empty((2000, 3))
    for seed in range(2000):
        Z = Fastfood(n_components=D, gamma=gamma, variant=variant,
                     random_state=seed).fit_transform(X)
        est[seed] = Z[1:] @ Z[0]
    se = est.std(axis=0, ddof=1) / np.sqrt(len(est))
    assert np.all(np.abs(est.mean(axis=0) - targets) < 4 * se)


@pytest.mark.parametrize("D,variant", [(38, "sincos"), (21, "cos")])
def test_feature_names_out_and_named_pipelines(D, variant):
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    f = Fastfood(n_components=D, variant=variant, random_state=0).fit(_X)
    names = f.get_feature_names_out()
    assert list(names) == [f"fastfood{i}" for i in range(D)]
    pipe = make_pipeline(clone(f), Ridge()).fit(_X, np.arange(len(_X), dtype=float))
    np.testing.assert_array_equal(pipe[:-1].get_feature_names_out(), names)


def test_set_output_pandas_gives_named_columns():
    pd = pytest.importorskip("pandas")
    f = Fastfood(n_components=21, variant="cos", random_state=0).set_output(transform="pandas")
    frame = f.fit_transform(_X)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(f.get_feature_names_out())


# ---------------------------------------------------------------- Fastfood: paths, seeds, dtypes

@pytest.mark.parametrize("variant,D", [("sincos", 96), ("cos", 48), ("sincos", 70), ("cos", 35)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numpy_and_numba_give_the_same_features(variant, D, dtype, monkeypatch):
    X = np.random.default_rng(8).normal(size=(50, 12))

    def features(backend):
        return Fastfood(n_components=D, gamma=0.3, variant=variant, dtype=dtype, backend=backend,
                        random_state=9).fit(X).transform(X)

    compiled = features("numba")
    reference = features("numpy")
    monkeypatch.setattr(ff, "BLOCK_ELEMENTS", 2 * 16 * 7)  # the numpy path in chunks of 7 rows
    chunked = features("numpy")
    assert compiled.dtype == reference.dtype == chunked.dtype == dtype
    np.testing.assert_array_equal(chunked, reference)
    # Same projections bit for bit; the trigonometric functions differ by a few ulp
    # (float32: numpy's float32 cos and sin against the float64 ones rounded).
    np.testing.assert_allclose(compiled, reference, rtol=1e-10 if dtype == np.float64 else 1e-6)


def test_same_seed_same_features_and_float32_draws_the_same_factors():
    X = np.random.default_rng(10).normal(size=(20, 6))
    first = Fastfood(n_components=64, random_state=11).fit(X)
    again = Fastfood(n_components=64, random_state=11).fit(X)
    other = Fastfood(n_components=64, random_state=12).fit(X)
    single = Fastfood(n_components=64, dtype=np.float32, random_state=11).fit(X)
    np.testing.assert_array_equal(first.transform(X), again.transform(X))
    assert not np.allclose(first.transform(X), other.transform(X))
    for name in ("B_", "P_", "G_", "S_"):
        np.testing.assert_array_equal(getattr(single, name), getattr(first, name))
    Z32 = single.transform(X)
    assert Z32.dtype == np.float32
    # float32 projections of size ~3 carry ~1e-6 absolute error; the features ~1/sqrt(32)
    np.testing.assert_allclose(Z32, first.transform(X), rtol=0, atol=1e-5)
    generator = Fastfood(n_components=64, random_state=np.random.default_rng(11)).fit(X)
    np.testing.assert_array_equal(generator.transform(X), first.transform(X))


@pytest.mark.parametrize("variant, D", [("sincos", 64), ("cos", 21)])
def test_default_dtype_follows_the_input_as_rbf_sampler(variant, D):
    """Float32 in, float32 out by default (dtype=None), as RBFSampler; float64
    results are those of dtype=np.float64, bit for bit."""
    from sklearn.kernel_approximation import RBFSampler
    X = np.random.default_rng(10).normal(size=(20, 6))
    X32 = X.astype(np.float32)
    default = Fastfood(n_components=D, variant=variant, random_state=11).fit(X)
    explicit = Fastfood(n_components=D, variant=variant, dtype=np.float64, random_state=11)
    np.testing.assert_array_equal(default.transform(X), explicit.fit(X).transform(X))
    single = Fastfood(n_components=D, variant=variant, random_state=11).fit(X32)
    explicit32 = Fastfood(n_components=D, variant=variant, dtype=np.float32,
                          random_state=11).fit(X32)
    assert (default.dtype_, single.dtype_) == (np.float64, np.float32)
    np.testing.assert_array_equal(single.transform(X32), explicit32.transform(X32))
    for fitted, fit_X in ((default, X), (single, X32)):
        sampler = RBFSampler(n_components=4, random_state=0).fit(fit_X)
        for Xt in (X, X32):
            assert fitted.transform(Xt).dtype == sampler.transform(Xt).dtype
    assert set(default.__sklearn_tags__().transformer_tags.preserves_dtype) == {
        "float64", "float32"}


def test_absurd_n_components_names_n_components():
    """A MemoryError names the parameter that asked for the memory, not only a shape."""
    with pytest.raises(MemoryError, match=r"n_components=1000000000000 asks for more memory "
                                          r"than there is \(Unable to allocate"):
        Fastfood(n_components=10**12).fit(np.zeros((5, 3)))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("variant, D", [("sincos", 64), ("cos", 21)])
def test_sparse_input_gives_the_dense_features(backend, variant, D, monkeypatch):
    """A CSR X (a9a, ijcnn1 come so) is made dense a chunk of rows at a time: the same
    arithmetic per row, so the same numbers, across several chunks."""
    import scipy.sparse as sp
    monkeypatch.setattr(ff, "BLOCK_ELEMENTS", 7 * 2 * 8)  # 7 rows per chunk of d' = 8
    X = sp.random(30, 6, density=0.4, random_state=0, format="csr")
    make = lambda: Fastfood(n_components=D, variant=variant, backend=backend,  # noqa: E731
                            random_state=0)
    fitted = make().fit(X)
    np.testing.assert_array_equal(fitted.transform(X), make().fit(X.toarray()).transform(
        X.toarray()))
    assert fitted.transform(X.astype(np.float32)).dtype == np.float64  # fitted on float64
    assert fitted.__sklearn_tags__().input_tags.sparse


def test_kernel_error_is_comparable_to_dense_random_fourier_features():
    # Every row of V is distributed as a row of RFF's Gaussian W; only the correlations
    # within a block of d' rows add variance (Le et al. 2013 bound the excess). Here
    # (d = 30, d' = 32, D = 512, gamma = 1/d) the 5-seed mean errors come out at about
    # 1.16x (sincos) and 1.05x (cos) RFF's, with a seed-to-seed spread of ~4% of the mean:
    # 1.5x leaves room for that excess and for the spread of a 5-seed mean.
    from lsl_lib.random_features import RandomFourierFeatures, kernel_approximation_error

    X = np.random.default_rng(13).normal(size=(200, 30))
    for variant in ("sincos", "cos"):
        ours = np.mean([kernel_approximation_error(
            Fastfood(n_components=512, variant=variant, random_state=s), X)["relative_frobenius"]
            for s in range(5)])
        dense = np.mean([kernel_approximation_error(
            RandomFourierFeatures(n_components=512, variant=variant, random_state=s),
            X)["relative_frobenius"] for s in range(5)])
        assert ours < 1.5 * dense


# ---------------------------------------------------------------- Fastfood: bad input

_X = np.random.default_rng(14).normal(size=(10, 12))


@pytest.mark.parametrize("make,X,match", [
    (lambda: Fastfood(n_components=0), _X, "n_components"),
    (lambda: Fastfood(gamma=0.0, n_components=32), _X, "gamma"),
    (lambda: Fastfood(gamma=-1.0, n_components=32), _X, "gamma"),
    (lambda: Fastfood(variant="sin", n_components=32), _X, "variant"),
    (lambda: Fastfood(n_components=33), _X,
     "n_components must be even .*n_components=33; use n_components=34 or variant='cos'"),
    (lambda: Fastfood(n_components=2.0), _X, "n_components"),
    (lambda: Fastfood(n_components=32), _X[:, :1], "n_features=1"),
    (lambda: Fastfood(n_components=32), np.where(_X > 1, np.nan, _X), "NaN"),
    (lambda: Fastfood(n_components=32, backend="cuda"), _X, "backend"),
    (lambda: Fastfood(n_components=32, dtype=np.float16), _X, "dtype"),
    (lambda: Fastfood(n_components=32, random_state=-1), _X, "random_state"),
])
def test_bad_input_is_named_before_any_transform_runs(make, X, match, forbid):
    forbid(ff, "_fastfood_numba", "fastfood_numpy", "fastfood_project_numpy", "fwht_numpy")
    forbid(hadamard, "fwht_rows_numba", "fwht_numpy")
    with pytest.raises(ValueError, match=match):
        make().fit_transform(X)


@pytest.mark.parametrize("X,match", [(_X[:, :8], "12 features"),
                                     (np.where(_X > 1, np.inf, _X), "infinity")])
def test_bad_input_at_transform_is_named_before_any_transform_runs(X, match, forbid):
    f = Fastfood(n_components=32, random_state=0).fit(_X)
    forbid(ff, "_fastfood_numba", "fastfood_numpy", "fastfood_project_numpy", "fwht_numpy")
    forbid(hadamard, "fwht_rows_numba", "fwht_numpy")
    with pytest.raises(ValueError, match=match):
        f.transform(X)


@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_fastfood_defaults_to_one_block(variant):
    X = np.random.default_rng(3).normal(size=(20, 12))
    est = Fastfood(variant=variant, random_state=0)
    Z = est.fit_transform(X)
    assert est.n_components is None and est.n_padded_ == 16 and est.G_.shape == (1, 16)
    assert Z.shape == (20, 32 if variant == "sincos" else 16)
