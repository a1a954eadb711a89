"""Exact kernels against scikit-learn's, kernel ridge against scikit-learn's, the
explicit polynomial map against the kernel, and the compiled kernel_raw_numba, kernel_finish_numba,
kernel_column_numba and exp_numba, and the kernel caches' sizing and LRU slot choice."""
import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics import pairwise

import lsl_lib.kernels as kernels_module
from lsl_lib._core.kernel_loops import (
    check_sparse_kernel,
    exp_numba,
    kernel_column_numba,
    kernel_finish_numba,
    kernel_raw_numba,
    row_kernel_column_numba,
    row_kernel_raw_numba,
    sparse_kernel_column_numba,
    sparse_kernel_raw_numba,
    take_lru_slot_numba,
)
from lsl_lib._core.linalg import squared_row_norms
from lsl_lib._core.rows import row_clear_numba, row_to_dense_numba, row_view
from lsl_lib.datasets import load_shared
from lsl_lib.kernels import (
    INNER_PRODUCT_KERNELS,
    KERNELS,
    KernelRidge,
    PolynomialFeatureMap,
    cache_slots,
    check_kernel_params,
    fitted_gamma,
    kernel_matrix,
    multiset_rank_tables,
    n_polynomial_features,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 5))
Y = rng.normal(size=(25, 5))


def _cauchy(A, B, gamma):
    return np.prod(1.0 / (1.0 + gamma * (A[:, None, :] - B[None, :, :]) ** 2), axis=2)


@pytest.mark.parametrize("kernel,reference", [
    ("linear", lambda A, B: pairwise.linear_kernel(A, B)),
    ("polynomial", lambda A, B: pairwise.polynomial_kernel(A, B, degree=3, gamma=1.0, coef0=1.5)),
    ("gaussian", lambda A, B: pairwise.rbf_kernel(A, B, gamma=0.3)),
    ("laplacian", lambda A, B: pairwise.laplacian_kernel(A, B, gamma=0.3)),
    ("cauchy", lambda A, B: _cauchy(A, B, 0.3)),
])
def test_kernel_matrix_matches_references(kernel, reference):
    K = kernel_matrix(X, Y, kernel=kernel, gamma=0.3, degree=3, coef0=1.5)
    np.testing.assert_allclose(K, reference(X, Y), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel_matrix(X, kernel=kernel, gamma=0.3, degree=3, coef0=1.5),
                               reference(X, X), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel", KERNELS)
def test_blocks_give_the_same_matrix(kernel, monkeypatch):
    whole = kernel_matrix(X, Y, kernel=kernel, gamma=0.2)
    monkeypatch.setattr(kernels_module, "BLOCK_ELEMENTS", 7)  # one row per block
    # BLAS rounds a product of row blocks differently from the whole product
    np.testing.assert_allclose(kernel_matrix(X, Y, kernel=kernel, gamma=0.2), whole, rtol=1e-12)


def test_gamma_none_is_one_over_d():
    np.testing.assert_allclose(kernel_matrix(X, kernel="gaussian"),
                               pairwise.rbf_kernel(X, gamma=1 / 5), rtol=1e-12)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_kernel_raw_then_finish_equals_kernel_matrix(kernel, backend):
    code, gamma, degree, coef0 = check_kernel_params(kernel, 0.3, 3, 1.5)
    raw = kernel_raw_numba if backend == "numba" else kernel_raw_numba.py_func
    finish = kernel_finish_numba if backend == "numba" else kernel_finish_numba.py_func
    K = kernel_matrix(X[:6], Y[:7], kernel=kernel, gamma=0.3, degree=3, coef0=1.5)
    for i in range(6):
        row = np.array([raw(code, X[i], Y[j], gamma) for j in range(7)])
        finish(code, row, gamma, degree, coef0)
        np.testing.assert_allclose(row, K[i], rtol=1e-12)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_exp_inplace_matches_numpy(backend):
    z = np.concatenate([np.linspace(-708, 709, 20001), -np.logspace(-12, 2.5, 500), [0.0]])
    out = z.copy()
    (exp_numba if backend == "numba" else exp_numba.py_func)(out)
    np.testing.assert_allclose(out, np.exp(z), rtol=2e-15, atol=0)
    clamped = np.array([-1000.0])
    exp_numba(clamped)
    assert clamped[0] == pytest.approx(np.exp(-708.0), rel=2e-15)  # clamped, not a subnormal


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_kernel_column_equals_kernel_matrix(kernel, backend):
    code, gamma, degree, coef0 = check_kernel_params(kernel, 0.3, 3, 1.5)
    func = kernel_column_numba if backend == "numba" else kernel_column_numba.py_func
    Xt = np.ascontiguousarray(X.T)
    for i in range(3):
        out = np.empty(len(X))
        func(code, Xt, Y[i], gamma, degree, coef0, out)
        np.testing.assert_allclose(out, kernel_matrix(X, Y[[i]], kernel, 0.3, 3, 1.5)[:, 0],
                                   rtol=1e-13, atol=1e-15)


def test_cache_slots_counts_whole_rows_of_float64():
    assert cache_slots(200, 5000) == 5000  # 191 MB: every row
    assert cache_slots(200, 100_000) == 262  # 200 * 2**20 // 800 000
    assert cache_slots(100, 300) == 300
    assert cache_slots(0.01, 5000) == 0 and cache_slots(0, 300) == 0


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_take_lru_slot_fills_empty_slots_first_then_evicts_the_least_recent(backend):
    take = take_lru_slot_numba if backend == "numba" else take_lru_slot_numba.py_func
    slot_of = np.full(6, -1, dtype=np.int64)
    owner = np.full(3, -1, dtype=np.int64)
    last_used = np.full(3, -1, dtype=np.int64)
    for clock, i in enumerate([4, 0, 5]):  # three empty slots, taken in order
        s = take(i, slot_of, owner, last_used)
        last_used[s] = clock
        assert s == clock
    last_used[0] = 7  # example 4 used again: example 0 (slot 1) is now the least recent
    assert take(2, slot_of, owner, last_used) == 1
    assert list(owner) == [4, 2, 5] and list(slot_of) == [-1, -1, 1, -1, 0, 2]


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian", "cauchy", "polynomial", "linear"])
def test_kernel_ridge_matches_scikit_learn(kernel):
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=len(X))
    params = dict(gamma=0.3, degree=2, coef0=1.0)
    ours = KernelRidge(lam=0.5, kernel=kernel, **params).fit(X, y)
    sk_kernel = {"gaussian": "rbf", "cauchy": lambda a, b: _cauchy(a[None], b[None], 0.3)[0, 0]}
    sk_params = params | ({"gamma": 1.0} if kernel == "polynomial" else {})  # (gamma <x,y> + c)^p
    theirs = SkKernelRidge(alpha=0.5, kernel=sk_kernel.get(kernel, kernel), **sk_params).fit(X, y)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.predict(Y), theirs.predict(Y), rtol=1e-8, atol=1e-10)


def test_kernel_ridge_interpolates_as_lam_vanishes_and_takes_several_targets():
    y2 = np.column_stack([np.sin(X[:, 0]), np.cos(X[:, 1])])
    model = KernelRidge(lam=1e-10, gamma=0.5).fit(X, y2)
    np.testing.assert_allclose(model.predict(X), y2, atol=1e-6)


@pytest.mark.parametrize("degree,coef0", [(1, 0.0), (2, 1.0), (3, 0.5), (4, 2.0)])
def test_polynomial_map_reproduces_the_kernel(degree, coef0):
    Z = PolynomialFeatureMap(degree=degree, coef0=coef0).fit(X)
    A, B = Z.transform(X[:10]), Z.transform(Y)
    K = kernel_matrix(X[:10], Y, kernel="polynomial", degree=degree, coef0=coef0)
    np.testing.assert_allclose(A @ B.T, K, rtol=1e-10, atol=1e-10)
    assert A.shape[1] == Z.n_output_features_ == n_polynomial_features(5, degree)
    expected = list(itertools.combinations_with_replacement(range(6), degree))
    np.testing.assert_array_equal(Z.monomials_, np.array(expected).reshape(-1, degree))


@pytest.mark.parametrize("n_items,degree", [(1, 3), (3, 2), (5, 3), (4, 4), (6, 1), (7, 5)])
def test_rank_tables_give_the_position_in_itertools_order(n_items, degree):
    P = multiset_rank_tables(n_items, degree)
    for k, combo in enumerate(itertools.combinations_with_replacement(range(n_items), degree)):
        previous = np.array([0, *combo[:-1]])
        assert np.sum(P[np.arange(degree), combo] - P[np.arange(degree), previous]) == k


@pytest.mark.parametrize("degree,coef0", [(1, 0.0), (2, 1.0), (2, 0.0), (3, 0.5), (4, 2.0)])
def test_polynomial_map_of_csr_input_is_the_dense_map_in_csr(degree, coef0):
    """CSR in, CSR out: the monomials of each row's nonzeros only, at the dense map's
    columns; empty rows, explicit zeros, duplicate and unsorted entries, and the caller's
    matrix left untouched."""
    A = sp.random(25, 7, density=0.35, random_state=3, format="csr")
    A[4] = 0.0  # an empty row (with coef0 > 0 only the constant's monomial)
    dense = A.toarray()
    model = PolynomialFeatureMap(degree=degree, coef0=coef0).fit(A)
    Z = model.transform(A)
    assert sp.issparse(Z) and Z.format == "csr" and Z.has_sorted_indices
    np.testing.assert_allclose(Z.toarray(), model.transform(dense), rtol=1e-15, atol=0)
    assert Z.nnz == np.count_nonzero(model.transform(dense))  # no stored zeros
    messy = sp.csr_matrix((np.r_[A.data, 0.0, 1.5, -1.5][::-1],
                           np.r_[A.indices, 2, 0, 0][::-1],
                           np.r_[A.indptr[:-1], A.nnz + 3]), shape=A.shape)
    before = (messy.data.copy(), messy.indices.copy())
    np.testing.assert_allclose(model.transform(messy).toarray(),
                               model.transform(messy.toarray()), rtol=1e-15, atol=0)
    np.testing.assert_array_equal(messy.data, before[0])
    np.testing.assert_array_equal(messy.indices, before[1])


def test_polynomial_map_of_sparse_text_like_data_stays_small():
    """Degree 2 on 2 000 columns with 10 nonzeros a row: D = 2 003 001 columns, and
    66 stored entries a row (the binomial (10 + 2, 2)); Z Z^T is the kernel."""
    A = sp.random(40, 2000, density=0.005, random_state=0, format="csr")
    A = A[np.diff(A.indptr) > 0][:20]
    model = PolynomialFeatureMap(degree=2).fit(A)
    Z = model.transform(A)
    assert Z.shape == (20, n_polynomial_features(2000, 2))
    np.testing.assert_array_equal(np.diff(Z.indptr),
                                  [math.comb(k + 2, 2) for k in np.diff(A.indptr)])
    np.testing.assert_allclose((Z @ Z.T).toarray(), kernel_matrix(A, kernel="polynomial",
                                                                   degree=2, coef0=1.0),
                               rtol=1e-12, atol=1e-12)


def test_polynomial_map_width_grows_as_the_binomial():
    assert [n_polynomial_features(d, 2) for d in (1, 2, 10, 100)] == [3, 6, 66, 5151]
    assert n_polynomial_features(100, 5) == math.comb(105, 5)


@pytest.mark.parametrize("kwargs,match", [
    (dict(kernel="sigmoid"), "kernel"), (dict(gamma=0.0), "gamma"), (dict(gamma=-1.0), "gamma"),
    (dict(degree=0), "degree"), (dict(coef0=-1.0), "coef0")])
def test_bad_kernel_parameters_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kernel_matrix(X, **{"kernel": "gaussian", **kwargs})
    with pytest.raises(ValueError, match=match):
        KernelRidge(**{"kernel": "gaussian", **kwargs}).fit(X, X[:, 0])


def test_bad_arrays_are_named():
    with pytest.raises(ValueError, match="same number of columns"):
        kernel_matrix(X, Y[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        kernel_matrix(np.where(X > 2, np.nan, X))
    with pytest.raises(ValueError, match="NaN"):
        KernelRidge().fit(np.where(X > 2, np.nan, X), X[:, 0])


@pytest.mark.parametrize("kernel", INNER_PRODUCT_KERNELS)
def test_kernel_matrix_of_sparse_input_is_the_dense_one(kernel):
    A = sp.random(30, 6, density=0.4, random_state=0, format="csr")
    B = sp.random(9, 6, density=0.4, random_state=1, format="csr")
    params = dict(kernel=kernel, gamma=0.3, degree=2, coef0=1.5)
    dense = kernel_matrix(A.toarray(), B.toarray(), **params)
    for X, Y in ((A, B), (A, B.toarray()), (A.toarray(), B)):
        np.testing.assert_allclose(kernel_matrix(X, Y, **params), dense, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel_matrix(A, **params), kernel_matrix(A.toarray(), **params),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel", ["laplacian", "cauchy"])
def test_kernel_matrix_refuses_sparse_input_to_coordinatewise_kernels(kernel):
    with pytest.raises(TypeError, match=f"sparse X.*kernel='{kernel}'"):
        kernel_matrix(sp.csr_matrix(X), kernel=kernel)
    with pytest.raises(TypeError, match=f"sparse Y.*kernel='{kernel}'"):
        kernel_matrix(X, sp.csr_matrix(Y), kernel=kernel)


@pytest.mark.parametrize("kernel", INNER_PRODUCT_KERNELS)
@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_sparse_kernel_column_and_raw_equal_kernel_matrix(kernel, backend):
    keep = np.ones(30)
    keep[4] = 0.0  # an empty row
    A = sp.diags(keep) @ sp.random(30, 8, density=0.35, random_state=3, format="csr")
    A.eliminate_zeros()
    assert A[4].nnz == 0
    code, gamma, degree, coef0 = check_kernel_params(kernel, 0.3, 3, 1.5)
    data, indices, indptr = row_view(A)
    sq_norms = squared_row_norms(A)
    assert indices.dtype == np.uint32
    column, raw, to_dense, clear, finish = (
        f if backend == "numba" else f.py_func
        for f in (sparse_kernel_column_numba, sparse_kernel_raw_numba, row_to_dense_numba,
                  row_clear_numba, kernel_finish_numba))
    K = kernel_matrix(A.toarray(), kernel=kernel, gamma=0.3, degree=3, coef0=1.5)
    buffer = np.zeros(8)
    for i in (0, 4, 17):
        out = np.empty(30)
        column(code, data, indices, indptr, sq_norms, i, gamma, degree, coef0, buffer, out)
        np.testing.assert_allclose(out, K[:, i], rtol=1e-12, atol=1e-14)
        assert not buffer.any()  # the scattered row is cleared again
        to_dense(data, indices, indptr, i, buffer)
        np.testing.assert_array_equal(buffer, A[[i]].toarray()[0])
        row = np.array([raw(code, data, indices, indptr, sq_norms, j, buffer, sq_norms[i])
                        for j in range(5)])
        clear(indices, indptr, i, buffer)
        finish(code, row, gamma, degree, coef0)
        np.testing.assert_allclose(row, K[i, :5], rtol=1e-12, atol=1e-14)


def test_sparse_input_is_refused_to_coordinatewise_kernels():
    with pytest.raises(TypeError, match="kernel='laplacian'"):
        check_sparse_kernel(sp.csr_matrix(X), "laplacian")
    check_sparse_kernel(X.astype(np.float32), "laplacian")  # dense X: any kernel


@pytest.mark.parametrize("kernel", INNER_PRODUCT_KERNELS)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_row_kernel_column_and_raw_equal_kernel_matrix(kernel, sparse, backend):
    A = sp.random(12, 5, density=0.5, random_state=4, format="csr")
    view, sq_norms = row_view(A if sparse else A.toarray()), squared_row_norms(A)
    Xt = np.ascontiguousarray(A.toarray().T) if not sparse else np.empty((5, 0))
    code, gamma, degree, coef0 = check_kernel_params(kernel, 0.3, 3, 1.5)
    column, raw, to_dense, clear, finish = (
        f if backend == "numba" else f.py_func
        for f in (row_kernel_column_numba, row_kernel_raw_numba, row_to_dense_numba,
                  row_clear_numba, kernel_finish_numba))
    K = kernel_matrix(A.toarray(), kernel=kernel, gamma=0.3, degree=3, coef0=1.5)
    buffer, out = np.zeros(5), np.empty(12)
    for i in (0, 7):
        column(code, *view, sq_norms, Xt, i, gamma, degree, coef0, buffer, out)
        np.testing.assert_allclose(out, K[:, i], rtol=1e-12, atol=1e-14)
        x = to_dense(*view, i, buffer)
        row = np.empty(12)
        raw(code, *view, sq_norms, x, i, np.arange(12), gamma, row)
        clear(view[1], view[2], i, buffer)
        assert not buffer.any()
        finish(code, row, gamma, degree, coef0)
        np.testing.assert_allclose(row, K[i], rtol=1e-12, atol=1e-14)


def test_fitted_gamma_scale_is_scikit_learns():
    from sklearn.svm import SVC

    Z = 3.0 * X + 1.0
    y = (Z[:, 0] > 1).astype(int)
    for data in (Z, sp.csr_matrix(np.where(np.abs(Z) > 2, Z, 0.0))):
        assert fitted_gamma("scale", data) == pytest.approx(SVC().fit(data, y)._gamma, rel=1e-12)
    assert fitted_gamma(None, Z) == pytest.approx(1 / 5)
    assert fitted_gamma(0.7, Z) == 0.7
    assert fitted_gamma("scale", np.ones((4, 3))) == 1.0  # constant X
    model = KernelRidge().fit(Z, Z[:, 0])
    assert model.gamma_ == pytest.approx(1 / (5 * Z.var()), rel=1e-12)


def test_fitted_gamma_with_weights_drops_and_repeats_rows():
    """'scale' with sample weights: a zero weight is a dropped row, an integer weight a
    repeated row, dense or CSR alike; weights leave a number or None alone."""
    X = np.random.default_rng(1).normal(size=(12, 4)) * [1.0, 3.0, 0.1, 10.0]
    w = np.array([0, 1, 2, 3, 0, 1, 1, 2, 0, 1, 4, 1], dtype=float)
    repeated = np.repeat(X, w.astype(int), axis=0)
    expected = fitted_gamma("scale", repeated)
    assert fitted_gamma("scale", X, w) == pytest.approx(expected, rel=1e-12)
    assert fitted_gamma("scale", sp.csr_matrix(X), w) == pytest.approx(expected, rel=1e-12)
    assert fitted_gamma("scale", X, np.ones(12)) == pytest.approx(fitted_gamma("scale", X),
                                                                rel=1e-12)
    for c in (1.0, 0.1, 7.3):  # a constant X: variance 0, not the rounding of its mean
        for weights in (None, np.arange(5.0)):
            assert fitted_gamma("scale", np.full((5, 3), c), weights) == 1.0
            assert fitted_gamma("scale", sp.csr_matrix(np.full((5, 3), c)), weights) == 1.0
    assert fitted_gamma(0.7, X, w) == 0.7 and fitted_gamma(None, X, w) == pytest.approx(0.25)


@pytest.mark.parametrize("kernel", INNER_PRODUCT_KERNELS)
def test_kernel_ridge_on_sparse_input_is_the_dense_one(kernel):
    A = sp.random(40, 6, density=0.4, random_state=4, format="csr")
    y = A.toarray() @ np.arange(1.0, 7.0)
    params = dict(lam=0.3, kernel=kernel, degree=2)
    sparse_model = KernelRidge(**params).fit(A, y)
    dense_model = KernelRidge(**params).fit(A.toarray(), y)
    assert sparse_model.gamma_ == pytest.approx(dense_model.gamma_, rel=1e-12)
    np.testing.assert_allclose(sparse_model.dual_coef_, dense_model.dual_coef_, rtol=1e-10)
    np.testing.assert_allclose(sparse_model.predict(A[:7]), dense_model.predict(A[:7].toarray()),
                               rtol=1e-10, atol=1e-12)


def test_kernel_ridge_defaults_adapt_to_the_feature_scale():
    """Features in thousands (as raw measurements often are): gamma = 1/d makes the
    Gaussian kernel almost diagonal, and KernelRidge() would predict about 0 off the
    training set; 'scale' lands near scikit-learn's KernelRidge given the right width."""
    rng = np.random.default_rng(5)
    Z = 1000.0 * rng.normal(size=(300, 4))
    y = np.sin(Z[:, 0] / 1000.0) + Z[:, 1] / 1000.0 + 0.1 * rng.normal(size=300)
    train, test = slice(0, 200), slice(200, 300)
    ours = KernelRidge().fit(Z[train], y[train]).score(Z[test], y[test])
    width = KernelRidge(gamma=None).fit(Z[train], y[train]).score(Z[test], y[test])
    peer = SkKernelRidge(kernel="rbf", gamma=1 / (4 * Z[train].var())).fit(Z[train], y[train])
    assert ours == pytest.approx(peer.score(Z[test], y[test]), abs=1e-10)
    assert ours > 0.8 and width < 0.1


@pytest.mark.shared_data
def test_kernel_ridge_defaults_on_a9a_beat_scikit_learns_defaults():
    X_train, y_train = load_shared("a9a")
    X_test, y_test = load_shared("a9a", "test")
    X_train, y_train, X_test, y_test = X_train[:2000], y_train[:2000], X_test[:2000], y_test[:2000]
    ours = KernelRidge().fit(X_train, y_train).score(X_test, y_test)
    peer = SkKernelRidge().fit(X_train, y_train).score(X_test, y_test)  # linear kernel
    assert ours > peer
