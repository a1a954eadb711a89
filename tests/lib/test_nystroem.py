import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.kernel_approximation import Nystroem as SklearnNystroem
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import lsl_lib.nystroem as ny
from lsl_lib.datasets import load_digits
from lsl_lib._core.kernel_loops import INNER_PRODUCT_KERNELS, KERNELS
from lsl_lib.kernels import kernel_matrix
from lsl_lib.nystroem import Nystroem
from lsl_lib.random_features import kernel_approximation_error

#: Kernel parameters small enough for tight tolerances (polynomial of low degree).
PARAMS = dict(gamma=0.3, degree=2, coef0=1.0)


def _points(n=60, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def _sparse_points(n=80, d=12, seed=0):
    rng = np.random.default_rng(seed)
    return sp.random_array((n, d), density=0.3, format="csr", rng=rng, dtype=np.float64)


def _relative_error(Z, K):
    return np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K)


# ---------------------------------------------------------------- the approximation

@pytest.mark.parametrize("sampling", ["uniform", "leverage"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_every_point_a_landmark_reproduces_the_kernel(kernel, sampling):
    # K_nn K_nn^+ K_nn = K: exact up to rounding, also for the linear kernel whose K has
    # rank d = 3 < n (the zero eigenvalues are dropped, not inverted).
    X = _points()
    est = Nystroem(n_components=X.shape[0], kernel=kernel, sampling=sampling, random_state=0,
                   **PARAMS).fit(X)
    assert sorted(est.component_indices_) == list(range(X.shape[0]))
    K = kernel_matrix(X, kernel=kernel, **PARAMS)
    Z = est.transform(X)
    assert Z.shape == (60, 60)
    assert_allclose(Z @ Z.T, K, rtol=0, atol=1e-11 * np.abs(K).max())


def test_linear_kernel_with_more_landmarks_than_features_is_exact():
    # m = 20 landmarks span R^5, so K_nm K_mm^+ K_mn = X X^T although K_mm has rank 5.
    X = _points(n=200, d=5)
    est = Nystroem(n_components=20, kernel="linear", random_state=0).fit(X)
    assert np.linalg.matrix_rank(est.normalization_) == 5
    Z = est.transform(X)
    assert_allclose(Z @ Z.T, X @ X.T, rtol=0, atol=1e-11 * np.abs(X @ X.T).max())


def test_normalization_is_the_inverse_square_root_of_K_mm():
    X = _points(n=100)
    est = Nystroem(n_components=25, random_state=0, **PARAMS).fit(X)
    K_mm = kernel_matrix(est.components_, gamma=PARAMS["gamma"])
    N = est.normalization_
    assert_allclose(N, N.T, atol=1e-12)
    assert_allclose(N @ K_mm @ N, np.eye(25), atol=1e-9)
    assert_allclose(est.components_, X[est.component_indices_])


def _sklearn_kernel(kernel):
    """scikit-learn's name and parameters of the same kernel (ours has no gamma in the
    polynomial kernel; the Cauchy kernel as a callable)."""
    if kernel == "cauchy":
        def cauchy(a, b):
            return kernel_matrix(a[None], b[None], kernel="cauchy", gamma=PARAMS["gamma"])[0, 0]
        return dict(kernel=cauchy)
    name = {"gaussian": "rbf"}.get(kernel, kernel)
    params = dict(polynomial=dict(gamma=1.0, degree=PARAMS["degree"], coef0=PARAMS["coef0"]),
                  linear={}).get(kernel, dict(gamma=PARAMS["gamma"]))
    return dict(kernel=name, **params)


@pytest.mark.parametrize("kernel", KERNELS)
def test_matches_scikit_learn_given_the_same_landmarks(kernel):
    X = _points(n=120, d=4)
    ours = Nystroem(n_components=15, kernel=kernel, random_state=0, **PARAMS).fit(X)
    theirs = SklearnNystroem(n_components=15, **_sklearn_kernel(kernel)).fit(ours.components_)
    Z, Z_sk = ours.transform(X), theirs.transform(X)
    tolerance = 1e-9
    if kernel == "linear":
        # 15 landmarks in R^4: K_mm has rank 4, and Z Z^T is X X^T exactly (the landmarks span
        # R^4). Ours cuts K_mm's rounding-level eigenvalues; scikit-learn clamps them at 1e-12,
        # which amplifies their rounding to 5e-9 to 1.4e-8 of the scale, depending on the CPU's
        # BLAS kernels: ours is held to the exact value, scikit-learn's to its own accuracy.
        exact = X @ X.T
        assert_allclose(Z @ Z.T, exact, rtol=0, atol=1e-12 * np.abs(exact).max())
        tolerance = 1e-7
    assert_allclose(Z @ Z.T, Z_sk @ Z_sk.T, rtol=0, atol=tolerance * np.abs(Z_sk @ Z_sk.T).max())


# ---------------------------------------------------------------- leverage sampling

def _far_cluster(n_main=500, n_far=8, seed=0):
    """A broad cluster and, 12 away, a tight cluster of 8 points that a uniform sample of
    20 out of 508 misses with probability (500/508)^20 ~ 0.73."""
    rng = np.random.default_rng(seed)
    far = rng.normal(scale=0.1, size=(n_far, 2)) + [12.0, 0.0]
    return np.vstack([rng.normal(size=(n_main, 2)), far])


def test_leverage_sampling_beats_uniform_on_a_far_small_cluster():
    X = _far_cluster()
    K = kernel_matrix(X, gamma=0.1)
    errors = {}
    for sampling in ("uniform", "leverage"):
        errors[sampling] = np.array([
            _relative_error(Nystroem(n_components=20, gamma=0.1, sampling=sampling,
                                     random_state=seed).fit_transform(X), K)
            for seed in range(20)])
    gain = errors["uniform"] - errors["leverage"]  # paired: the same seeds
    # Lower mean error by more than 3 standard errors of the mean paired difference.
    assert gain.mean() > 3 * gain.std(ddof=1) / math.sqrt(gain.size)


def test_leverage_scores_are_exact_when_the_sketch_is_every_point():
    # With m = n the estimate is tau_i = (K (K + lam I)^{-1})_ii itself, and
    # lam = sum_{j > k} sigma_j(K) / k with k = ceil(n / (4 ln n)) (Musco and Musco's choice).
    X = _points(n=80)
    est = Nystroem(n_components=80, sampling="leverage", random_state=0, **PARAMS).fit(X)
    K = kernel_matrix(X, gamma=PARAMS["gamma"])
    sigma = np.linalg.eigvalsh(K)[::-1]
    k = math.ceil(80 / (4 * math.log(80)))
    assert_allclose(est.lam_, sigma[k:].sum() / k, rtol=1e-10)
    tau = np.diag(K @ np.linalg.inv(K + est.lam_ * np.eye(80)))
    assert_allclose(est.leverage_scores_, tau, rtol=1e-8, atol=1e-12)
    assert est.leverage_scores_.sum() <= 2 * k  # the effective dimension bound


def test_leverage_scores_from_a_quarter_sketch_are_close_to_the_exact_ones():
    # A uniform sketch of m = n/4 points of a smooth kernel is a (1 +- eps) spectral
    # approximation of K (reweighted by n/m), so each estimate is within a factor
    # 1/(1 +- eps) of tau_i(lam); over seeds 0-4 the ratios stay in [0.79, 1.33].
    X = _points(n=400)
    est = Nystroem(n_components=100, sampling="leverage", random_state=0, **PARAMS).fit(X)
    K = kernel_matrix(X, gamma=PARAMS["gamma"])
    tau = np.diag(K @ np.linalg.inv(K + est.lam_ * np.eye(400)))
    ratio = est.leverage_scores_ / tau
    assert 2 / 3 < ratio.min() and ratio.max() < 3 / 2
    assert_allclose(est.leverage_scores_.sum(), tau.sum(), rtol=0.1)


def test_leverage_sampling_takes_the_only_informative_rows():
    # Linear kernel, 27 zero rows and e_1, e_2, e_3: the zero rows have score 0 and the
    # three others positive scores, so 3 landmarks are always those three and Nyström is
    # exact. Some seeds draw a sketch of zero rows only (a vanishing K_SS, lam_ = 0).
    X = np.vstack([np.zeros((27, 3)), np.eye(3)])
    lams = []
    for seed in range(10):
        est = Nystroem(n_components=3, kernel="linear", sampling="leverage",
                       random_state=seed).fit(X)
        assert set(est.component_indices_) == {27, 28, 29}
        assert_allclose(est.transform(X) @ est.transform(X).T, X @ X.T, atol=1e-14)
        lams.append(est.lam_)
    assert 0.0 in lams and max(lams) > 0


def test_weighted_sampling_first_draw_is_proportional_to_the_weights():
    weights = np.array([1.0, 2.0, 3.0, 4.0])
    rng = np.random.default_rng(0)
    first = np.array([ny._weighted_sample_without_replacement(weights, 2, rng)[0]
                      for _ in range(4000)])
    p = weights / weights.sum()
    freq = np.bincount(first, minlength=4) / first.size
    # Within 4 binomial standard errors sqrt(p(1-p)/n) of the probabilities.
    assert np.all(np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / first.size))


def test_weighted_sampling_takes_zero_weights_last_in_random_order():
    weights = np.array([0.0, 0.0, 1.0, 1.0])
    rng = np.random.default_rng(0)
    draws = [ny._weighted_sample_without_replacement(weights, 3, rng) for _ in range(200)]
    assert all(set(d[:2]) == {2, 3} for d in draws)
    assert {d[2] for d in draws} == {0, 1}


# ---------------------------------------------------------------- input, output, seeds

@pytest.mark.parametrize("sampling", ["uniform", "leverage"])
def test_float32_in_float32_out(sampling):
    X = _points(n=100)
    est = Nystroem(n_components=30, sampling=sampling, random_state=0, **PARAMS)
    Z32 = est.fit(X.astype(np.float32)).transform(X.astype(np.float32))
    Z64 = est.fit(X).transform(X)
    assert Z32.dtype == np.float32 and Z64.dtype == np.float64
    assert_allclose(Z32, Z64, rtol=1e-4, atol=1e-5)  # float32 rounding of X, then of Z


@pytest.mark.parametrize("sampling", ["uniform", "leverage"])
def test_same_seed_same_landmarks(sampling):
    X = _points(n=200)

    def fit(seed):
        return Nystroem(n_components=20, sampling=sampling, random_state=seed).fit(X)

    a, b, c = fit(3), fit(3), fit(4)
    assert_array_equal(a.component_indices_, b.component_indices_)
    assert_array_equal(a.transform(X), b.transform(X))
    assert set(a.component_indices_) != set(c.component_indices_)
    assert len(set(a.component_indices_)) == 20  # without replacement


def test_more_components_than_samples_warns_and_caps():
    X = _points(n=30)
    with pytest.warns(UserWarning, match="n_components=50"):
        Z = Nystroem(n_components=50, random_state=0).fit_transform(X)
    assert Z.shape == (30, 30)
    with pytest.warns(UserWarning, match="n_components=50") as record:
        Nystroem(n_components=50, random_state=0).fit(X)
    assert record[0].filename == __file__  # the warning names the caller's line


def test_gamma_none_is_one_over_d():
    est = Nystroem(n_components=5, random_state=0).fit(_points(n=20, d=4))
    assert est.gamma_ == 0.25 and est.n_features_in_ == 4


@pytest.mark.parametrize("sampling", ["uniform", "leverage"])
@pytest.mark.parametrize("kernel", INNER_PRODUCT_KERNELS)
def test_sparse_input_gives_the_dense_result(kernel, sampling):
    X = _sparse_points()
    est = Nystroem(n_components=15, kernel=kernel, sampling=sampling, random_state=0, **PARAMS)
    Z_sparse = est.fit(X).transform(X)
    indices = est.component_indices_
    Z_dense = est.fit(X.toarray()).transform(X.toarray())
    assert_array_equal(est.component_indices_, indices)
    assert_allclose(Z_sparse, Z_dense, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kernel", ["laplacian", "cauchy"])
def test_sparse_input_with_a_coordinatewise_kernel_is_refused(kernel):
    with pytest.raises(TypeError, match=f"sparse X.*kernel='{kernel}'"):
        Nystroem(kernel=kernel).fit(_sparse_points())
    est = Nystroem(n_components=5, kernel=kernel).fit(_sparse_points().toarray())
    with pytest.raises(TypeError, match="sparse X"):
        est.transform(_sparse_points())


_X = _points(n=40)
_X_nan = _X.copy()
_X_nan[3, 1] = np.nan


@pytest.mark.parametrize("make,X,match", [
    (lambda: Nystroem(n_components=0), _X, "n_components"),
    (lambda: Nystroem(n_components=2.5), _X, "n_components"),
    (lambda: Nystroem(kernel="rbf"), _X, "kernel"),
    (lambda: Nystroem(gamma=0.0), _X, "gamma"),
    (lambda: Nystroem(gamma=-1.0), _X, "gamma"),
    (lambda: Nystroem(degree=0), _X, "degree"),
    (lambda: Nystroem(sampling="greedy"), _X, "sampling"),
    (lambda: Nystroem(random_state="seed"), _X, "random_state"),
    (lambda: Nystroem(), _X_nan, "NaN"),
    (lambda: Nystroem(sampling="leverage"), _X_nan, "NaN"),
])
def test_bad_input_is_named_before_any_kernel_is_computed(make, X, match, forbid):
    forbid(ny, "kernel_matrix", "_ridge_leverage_scores", "inverse_square_root")
    with pytest.raises(ValueError, match=match):
        make().fit(X)


def test_transform_checks_the_number_of_features_first(monkeypatch):
    est = Nystroem(n_components=10, random_state=0).fit(_X)
    monkeypatch.setattr(ny, "kernel_matrix", lambda *a, **k: pytest.fail("kernel ran"))
    with pytest.raises(ValueError, match="features"):
        est.transform(_points(n=5, d=4))
    with pytest.raises(ValueError, match="NaN"):
        est.transform(_X_nan)


def test_refit_with_uniform_sampling_drops_the_leverage_attributes():
    est = Nystroem(n_components=5, sampling="leverage", random_state=0).fit(_X)
    assert est.leverage_scores_.shape == (len(_X),) and est.lam_ > 0
    est.set_params(sampling="uniform").fit(_X)
    assert not hasattr(est, "leverage_scores_") and not hasattr(est, "lam_")


def test_defaults_are_scikit_learns_and_as_good_on_digits():
    """A user who reads nothing gets scikit-learn's ``Nystroem``: 100 uniform landmarks and the
    Gaussian kernel with gamma = 1/d; on the digits, as small a kernel error and as accurate a
    linear SVM on the features (means over three draws of the landmarks)."""
    ours, theirs = Nystroem().get_params(), SklearnNystroem().get_params()
    assert ours["n_components"] == theirs["n_components"] == 100
    assert ours["gamma"] is None and theirs["gamma"] is None  # both 1/d
    assert (ours["kernel"], theirs["kernel"], ours["sampling"]) == ("gaussian", "rbf", "uniform")
    X_train, X_test, y_train, y_test = load_digits(test_size=0.3, random_state=0)
    gamma = 1.0 / X_train.shape[1]
    errors, accuracy = {}, {}
    for name, make in (("lsl", Nystroem), ("sklearn", SklearnNystroem)):
        errors[name] = np.mean([kernel_approximation_error(
            make(random_state=seed), X_train, kernel="gaussian", gamma=gamma, degree=3, coef0=1.0)
            ["relative_frobenius"] for seed in range(3)])
        accuracy[name] = np.mean([
            make_pipeline(make(random_state=seed), LinearSVC(C=1.0, random_state=0))
            .fit(X_train, y_train).score(X_test, y_test) for seed in range(3)])
    assert errors["lsl"] < 0.01  # 100 landmarks of 1257 points: within 1 % of ||K||_F
    assert errors["lsl"] == pytest.approx(errors["sklearn"], rel=0.1)
    assert accuracy["lsl"] > 0.95
    assert accuracy["lsl"] >= accuracy["sklearn"] - 0.005
