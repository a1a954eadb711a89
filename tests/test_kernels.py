"""Exact kernels against scikit-learn's, kernel ridge against scikit-learn's, the
explicit polynomial map against the kernel, and the compiled kernel_raw, kernel_finish,
kernel_column and exp_inplace, and the kernel caches' sizing and LRU slot choice."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics import pairwise
from sklearn.utils.estimator_checks import parametrize_with_checks

import lsl_lib.kernels as kernels_module
from lsl_lib.kernels import (INNER_PRODUCT_KERNELS, KERNELS, KernelRidge, PolynomialFeatureMap,
                             cache_slots, check_kernel_params, exp_inplace, kernel_column,
                             kernel_finish, kernel_matrix, kernel_raw, n_polynomial_features,
                             take_lru_slot)

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
    raw = kernel_raw if backend == "numba" else kernel_raw.py_func
    finish = kernel_finish if backend == "numba" else kernel_finish.py_func
    K = kernel_matrix(X[:6], Y[:7], kernel=kernel, gamma=0.3, degree=3, coef0=1.5)
    for i in range(6):
        row = np.array([raw(code, X[i], Y[j], gamma) for j in range(7)])
        finish(code, row, gamma, degree, coef0)
        np.testing.assert_allclose(row, K[i], rtol=1e-12)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_exp_inplace_matches_numpy(backend):
    z = np.concatenate([np.linspace(-708, 709, 20001), -np.logspace(-12, 2.5, 500), [0.0]])
    out = z.copy()
    (exp_inplace if backend == "numba" else exp_inplace.py_func)(out)
    np.testing.assert_allclose(out, np.exp(z), rtol=2e-15, atol=0)
    clamped = np.array([-1000.0])
    exp_inplace(clamped)
    assert clamped[0] == pytest.approx(np.exp(-708.0), rel=2e-15)  # clamped, not a subnormal


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_kernel_column_equals_kernel_matrix(kernel, backend):
    code, gamma, degree, coef0 = check_kernel_params(kernel, 0.3, 3, 1.5)
    func = kernel_column if backend == "numba" else kernel_column.py_func
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
    take = take_lru_slot if backend == "numba" else take_lru_slot.py_func
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
    assert np.all(Z.powers_.sum(axis=1) == degree)


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


@parametrize_with_checks([KernelRidge(), KernelRidge(kernel="laplacian", lam=0.1),
                          PolynomialFeatureMap(degree=2)])
def test_scikit_learn_contract(estimator, check):
    check(estimator)


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
