"""Coordinate descent: the two paths agree, the solutions are scikit-learn's (LinearSVC,
Lasso) and the exact kernel ridge, the certificates (duality gaps, KKT conditions) hold,
and the estimators reject bad input first (scikit-learn's contract: test_common.py)."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso
from sklearn.linear_model import lasso_path as sklearn_lasso_path
from sklearn.metrics import r2_score
from sklearn.svm import LinearSVC
from sklearn.utils.class_weight import compute_class_weight

from lsl_lib._core.backend import resolve_backend
from lsl_lib.coordinate_descent import (BlockCDKernelRidge, DualCDClassifier, LassoCD,
                                        _block_kernel_ridge, _dual_cd, _lasso,
                                        block_cd_kernel_ridge, dual_cd, dual_cd_numpy_epochs,
                                        gap_safe_screen, lasso_cd, lasso_duality_gap, lasso_path,
                                        svm_objectives)
from lsl_lib.datasets import two_gaussian_blobs
from lsl_lib.kernels import KernelRidge, kernel_matrix
from lsl_lib.coordinate_descent._dual_cd import _RESHUFFLE
from estimator_support import with_inf, with_nan


def _svm_problem(n=300, d=10, density=None, seed=0):
    """Centred features, noisy linear labels; sparse when ``density`` is given."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if density is not None:
        X *= rng.random((n, d)) < density
    y = np.sign(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n))
    y[y == 0] = 1.0
    return X, y


def _variants(X):
    csr = sp.csr_matrix(X)
    csr64 = sp.csr_matrix((csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64)),
                          shape=csr.shape)
    return {"dense": X, "csr": csr, "csr_int64": csr64}


def _lasso_problem(n=200, d=40, k=5, rho=0.3, seed=0):
    """Equicorrelated features, k of them active."""
    rng = np.random.default_rng(seed)
    X = np.sqrt(1 - rho) * rng.normal(size=(n, d)) + np.sqrt(rho) * rng.normal(size=(n, 1))
    w = np.zeros(d)
    w[:k] = rng.normal(size=k) * 2
    return X, X @ w + 0.3 * rng.normal(size=n) + 1.5


def _class_weights(class_weight, y, sample_weight):
    """Each example's class weight; 'balanced' counts the classes with the weights."""
    classes = np.unique(y)
    per_class = compute_class_weight(class_weight, classes=classes, y=y,
                                     sample_weight=sample_weight)
    return per_class[np.searchsorted(classes, y)]


def _projected_gradient(X, y, w, alpha, C, loss, bias=0.0):
    upper, diag = (C, 0.0) if loss == "hinge" else (np.inf, 0.5 / C)
    G = y * (np.asarray(X @ w[:-1]).ravel() + bias * w[-1]) - 1 + diag * alpha
    return np.where(alpha == 0, np.minimum(G, 0), np.where(alpha == upper, np.maximum(G, 0), G))


# ---------------------------------------------------------------- dual CD for SVMs

@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("bias", [0.0, 1.0])
@pytest.mark.parametrize("sampling", ["reshuffle", "permutation", "iid"])
@pytest.mark.parametrize("weighted", [False, True])
def test_dual_cd_compiled_without_shrinking_is_algorithm_1(loss, bias, sampling, weighted):
    """The compiled loop with shrinking off gives the iterates of the reference, Hsieh et
    al.'s Algorithm 1, on the same orders (the numpy backend never shrinks: shrinking=True
    changes nothing there)."""
    X, y = _svm_problem(density=0.4)
    sample_weight = np.random.default_rng(1).integers(0, 4, len(y)) * 0.5 if weighted else None
    for name, Xv in _variants(X).items():
        kwargs = dict(loss=loss, bias=bias, tol=1e-12, max_iter=30, sample_weight=sample_weight,
                      sampling=sampling, record_every=4, random_state=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            w_ref, a_ref, it_ref, h_ref = dual_cd(Xv, y, 0.5, backend="numpy", shrinking=False,
                                                  **kwargs)
            w, a, it, h = dual_cd(Xv, y, 0.5, backend="numba", shrinking=False, **kwargs)
            w_on, a_on, _, h_on = dual_cd(Xv, y, 0.5, backend="numpy", shrinking=True, **kwargs)
        np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(a, a_ref, rtol=1e-10, atol=1e-12, err_msg=name)
        assert it == it_ref == 30
        np.testing.assert_array_equal(h["n_active"], h_ref["n_active"])
        np.testing.assert_array_equal(h["iteration"], h_ref["iteration"])
        np.testing.assert_allclose(h["duality_gap"], h_ref["duality_gap"], rtol=1e-8, atol=1e-10)
        np.testing.assert_array_equal(w_on, w_ref)
        np.testing.assert_array_equal(a_on, a_ref)
        n_kept = len(y) if sample_weight is None else np.count_nonzero(sample_weight)
        assert np.all(h_on["n_active"] == n_kept)  # nothing shrunk


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("sampling", ["reshuffle", "permutation", "iid"])
@pytest.mark.parametrize("sparse", [False, True])
def test_dual_cd_shrinking_reaches_the_references_solution(loss, sampling, sparse):
    """With shrinking on, the compiled loop takes other steps than the reference but stops
    at the same solution: both certified by their duality gaps, their objectives within the
    certificate of each other, w = sum_i alpha_i y_i x_i and alpha in its box. The reference
    is the compiled loop without shrinking, which is Algorithm 1 step for step (the test
    above); the numpy loop would take it the same thousands of epochs, in Python."""
    X, y = _svm_problem(n=300, d=10, density=0.5 if sparse else None, seed=4)
    Xv = sp.csr_matrix(X) if sparse else X
    C, tol = 0.5, 1e-8
    kwargs = dict(loss=loss, tol=tol, max_iter=100_000, bias=1.0, sampling=sampling,
                  record_every=1, random_state=0)
    w, alpha, _, h = dual_cd(Xv, y, C, shrinking=True, backend="numba", **kwargs)
    w_ref, alpha_ref, _, _ = dual_cd(Xv, y, C, shrinking=False, backend="numba", **kwargs)
    assert h["n_active"].min() < len(y)  # shrinking happened
    P, D = svm_objectives(Xv, y, w, alpha, C, loss, 1.0)
    P_ref, D_ref = svm_objectives(Xv, y, w_ref, alpha_ref, C, loss, 1.0)
    assert -1e-12 * P <= P - D <= 1e-6 * P and -1e-12 * P <= P_ref - D_ref <= 1e-6 * P
    assert P == pytest.approx(P_ref, rel=1e-6)
    np.testing.assert_allclose(w[:-1], Xv.T @ (alpha * y), atol=1e-10)
    upper = C if loss == "hinge" else np.inf
    assert np.all(alpha >= 0) and np.all(alpha <= upper)
    pg = _projected_gradient(Xv, y, w, alpha, C, loss, bias=1.0)
    assert np.abs(pg).max() <= 100 * tol


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_dual_cd_stops_at_the_same_epoch_on_both_paths_and_any_record_every(backend):
    X, y = _svm_problem()
    ref = dual_cd(X, y, 1.0, tol=1e-3, shrinking=False, backend="numpy", random_state=0)
    for record_every in (None, 1, 7):
        w, alpha, it, _ = dual_cd(X, y, 1.0, tol=1e-3, shrinking=False, backend=backend,
                                  random_state=0, record_every=record_every)
        assert it == ref[2] < 1000
        np.testing.assert_allclose(w, ref[0], rtol=1e-10, atol=1e-12)


def test_dual_cd_permutations_follow_the_seed():
    X, y = _svm_problem()
    with pytest.warns(ConvergenceWarning):
        a = dual_cd(X, y, 1.0, max_iter=3, tol=0.0, shrinking=False, random_state=5)[1]
        b = dual_cd(X, y, 1.0, max_iter=3, tol=0.0, shrinking=False, random_state=5)[1]
        c = dual_cd(X, y, 1.0, max_iter=3, tol=0.0, shrinking=False, random_state=6)[1]
        g = dual_cd(X, y, 1.0, max_iter=3, tol=0.0, shrinking=False,
                    random_state=np.random.default_rng(5))[1]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, g)
    assert not np.array_equal(a, c)


def test_dual_cd_epoch_is_a_fisher_yates_permutation():
    """One epoch of the compiled loop from alpha = 0 visits every coordinate once, in the
    order Fisher-Yates draws from the uniforms (so a new order each epoch), as in liblinear;
    the reference, given that order, takes the same steps."""
    resolve_backend("numba")  # without numba: reported as skipped (see conftest.py)
    X, y = _svm_problem(n=50)
    QD = np.einsum("ij,ij->i", X, X)
    uniforms = np.random.default_rng(0).random(100)
    index = np.arange(50, dtype=np.uint32)
    expected = np.arange(50)
    for s in range(50):
        k = s + int(uniforms[s] * (50 - s))
        expected[s], expected[k] = expected[k], expected[s]
    alpha, w = np.zeros(50), np.zeros(11)
    no_index = np.empty(0, dtype=np.uint32)
    state = (alpha, w, index, 50, np.inf, -np.inf, uniforms)
    out = _dual_cd._dual_cd_numba_epochs(X.ravel(), no_index, no_index, 0.0, y, QD, np.ones(50),
                                         np.zeros(50), *state, 0, 1, 0.0, False, _RESHUFFLE, False)
    np.testing.assert_array_equal(index, expected)
    assert out[0] == 1 and out[1] == 50 and out[6] == 50  # one epoch, 50 visits, 50 used
    alpha_ref, w_ref = np.zeros(50), np.zeros(11)
    assert dual_cd_numpy_epochs(X, 0.0, y, QD, np.ones(50), np.zeros(50), alpha_ref, w_ref,
                                [expected], 0.0) == (1, False)
    np.testing.assert_allclose(alpha_ref, alpha, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(w_ref, w, rtol=1e-12, atol=1e-15)
    out = _dual_cd._dual_cd_numba_epochs(X.ravel(), no_index, no_index, 0.0, y, QD, np.ones(50),
                                         np.zeros(50), *state, 60, 1, 0.0, False, _RESHUFFLE,
                                         False)
    assert out[0] == 0  # not enough uniforms left for a whole epoch: hand back to the driver


def test_dual_cd_iid_epoch_draws_coordinates_with_replacement():
    """sampling='iid' (SDCA): an epoch visits index[floor(u n)] for n uniforms u of the
    stream; from alpha = 0 every visited alpha_i moves off 0, the others stay."""
    X, y = _svm_problem(n=80)
    with pytest.warns(ConvergenceWarning):
        alpha = dual_cd(X, y, 1.0, max_iter=1, tol=0.0, shrinking=False, sampling="iid",
                        random_state=4)[1]
    drawn = np.unique((np.random.default_rng(4).random(80) * 80).astype(int))
    assert 30 < len(drawn) < 70  # about (1 - 1/e) n distinct coordinates
    assert set(np.flatnonzero(alpha)) <= set(drawn)
    assert np.all(alpha[np.setdiff1d(np.arange(80), drawn)] == 0)


@pytest.mark.parametrize("sampling", ["reshuffle", "permutation", "iid"])
@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_dual_cd_every_order_reaches_liblinear_objective(sampling, shrinking, backend):
    X, y = _svm_problem(n=300, d=12, seed=5)
    ref = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=1_000_000, random_state=0).fit(X, y)
    clf = DualCDClassifier(C=0.5, sampling=sampling, shrinking=shrinking, tol=1e-8,
                           max_iter=100_000, backend=backend, random_state=0).fit(X, y)
    w_ref = np.append(ref.coef_[0], ref.intercept_[0])
    w = np.append(clf.coef_[0], clf.intercept_[0])
    P_ref = svm_objectives(X, y, w_ref, np.zeros(len(y)), 0.5, bias=1.0)[0]
    P = svm_objectives(X, y, w, clf.alpha_, 0.5, bias=1.0)[0]
    assert P == pytest.approx(P_ref, rel=1e-7)
    assert -1e-12 * P <= clf.duality_gap_ <= 1e-6 * P


@pytest.mark.parametrize("sampling", ["reshuffle", "iid"])
@pytest.mark.parametrize("sparse", [False, True])
def test_dual_cd_zero_weight_is_a_dropped_row(sampling, sparse):
    """Weight 0 leaves the example out, random order included: the same iterates."""
    X, y = _svm_problem(n=200, d=8, density=0.6 if sparse else None, seed=6)
    sw = np.ones(len(y))
    sw[::7] = 0.0
    keep = sw > 0
    Xv = sp.csr_matrix(X) if sparse else X
    kwargs = dict(C=0.8, sampling=sampling, tol=1e-4, max_iter=300, random_state=1)
    with warnings.catch_warnings():  # the same number of epochs, converged or not
        warnings.simplefilter("ignore", ConvergenceWarning)
        weighted = DualCDClassifier(**kwargs).fit(Xv, y, sample_weight=sw)
        dropped = DualCDClassifier(**kwargs).fit(Xv[keep], y[keep])
    np.testing.assert_array_equal(weighted.coef_, dropped.coef_)
    np.testing.assert_array_equal(weighted.alpha_[keep], dropped.alpha_)
    assert np.all(weighted.alpha_[~keep] == 0) and weighted.n_iter_ == dropped.n_iter_


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_dual_cd_integer_weights_are_repeated_rows(loss):
    """The primal is the same function of w (strongly convex: one minimiser), so both
    solvers land on the same w to their tolerance, though the duals differ."""
    X, y = _svm_problem(n=150, d=6, seed=7)
    sw = np.random.default_rng(0).integers(0, 4, len(y))
    kwargs = dict(C=0.3, loss=loss, tol=1e-10, max_iter=100_000, random_state=0)
    weighted = DualCDClassifier(**kwargs).fit(X, y, sample_weight=sw)
    repeated = DualCDClassifier(**kwargs).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-7, atol=1e-9)
    # the same optimum value: P with weights s_i is P over the repeated rows
    P_weighted = svm_objectives(X, y, np.append(weighted.coef_, weighted.intercept_),
                                weighted.alpha_, 0.3, loss, 1.0, sw)[0]
    P_repeated = svm_objectives(np.repeat(X, sw, axis=0), np.repeat(y, sw),
                                np.append(repeated.coef_, repeated.intercept_),
                                repeated.alpha_, 0.3, loss, 1.0)[0]
    assert P_weighted == pytest.approx(P_repeated, rel=1e-9)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("class_weight", [None, "balanced", {-1.0: 3.0, 1.0: 0.5}])
def test_dual_cd_weights_reach_liblinears_objective(loss, class_weight):
    X, y = _svm_problem(n=300, d=10, density=0.7, seed=8)
    y[np.flatnonzero(y < 0)[:60]] = 1.0  # unbalanced classes
    sw = np.random.default_rng(2).uniform(0.0, 3.0, len(y))
    sw[:20] = 0.0
    for Xv in (X, sp.csr_matrix(X)):
        ref = LinearSVC(C=0.7, loss=loss, class_weight=class_weight, tol=1e-10,
                        max_iter=1_000_000, random_state=0).fit(Xv, y, sample_weight=sw)
        clf = DualCDClassifier(C=0.7, loss=loss, class_weight=class_weight, tol=1e-9,
                               max_iter=100_000, random_state=0).fit(Xv, y, sample_weight=sw)
        s = sw * (_class_weights(class_weight, y, sw) if class_weight else 1.0)
        P_ref = svm_objectives(Xv, y, np.append(ref.coef_, ref.intercept_), np.zeros(len(y)),
                               0.7, loss, 1.0, s)[0]
        P = svm_objectives(Xv, y, np.append(clf.coef_, clf.intercept_), clf.alpha_, 0.7, loss,
                           1.0, s)[0]
        assert P == pytest.approx(P_ref, rel=1e-7)
        assert -1e-12 * P <= clf.duality_gap_ <= 1e-7 * P
        np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-4, atol=1e-5)
        upper = 0.7 * s if loss == "hinge" else np.where(s > 0, np.inf, 0.0)
        assert np.all(clf.alpha_ >= 0) and np.all(clf.alpha_ <= upper * (1 + 1e-12))


def test_dual_cd_class_weight_is_the_matching_sample_weight():
    """'balanced' counts the classes with the sample weights (as LinearSVC): integer
    weights then balance as the repeated rows would."""
    X, y = _svm_problem(n=200, d=5, seed=9)
    y[np.flatnonzero(y < 0)[:50]] = 1.0
    labels = np.where(y > 0, "pos", "neg")
    sw = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    for class_weight in ("balanced", {"pos": 0.2, "neg": 5.0}):
        by_class = DualCDClassifier(C=0.1, class_weight=class_weight, random_state=0).fit(
            X, labels, sample_weight=sw)
        by_sample = DualCDClassifier(C=0.1, random_state=0).fit(
            X, labels, sample_weight=sw * _class_weights(class_weight, labels, sw))
        np.testing.assert_array_equal(by_class.coef_, by_sample.coef_)
        np.testing.assert_array_equal(by_class.alpha_, by_sample.alpha_)


def test_dual_cd_warns_only_when_the_gap_is_above_tol():
    """liblinear's projected-gradient test can fail while the duality gap already
    certifies w to tol (relative): no warning then; a warning while the gap is large."""
    X, y = _svm_problem(n=400, d=10, seed=10)
    tol = 1e-3
    full = DualCDClassifier(C=1.0, tol=tol, max_iter=100_000, record_every=1,
                            random_state=0).fit(X, y)
    h = full.history_
    relative = h["duality_gap"] / h["objective"]
    certified = np.flatnonzero((relative <= tol) & (h["epoch"] < full.n_iter_))
    assert certified.size and relative[1] > tol  # both sides exist on this problem
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = DualCDClassifier(C=1.0, tol=tol, max_iter=int(h["epoch"][certified[0]]),
                               random_state=0).fit(X, y)
    assert clf.n_iter_ < full.n_iter_ and clf.duality_gap_ <= tol * h["objective"][certified[0]]
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        DualCDClassifier(C=1.0, tol=tol, max_iter=1, random_state=0).fit(X, y)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_dual_cd_reaches_liblinear_objective(loss, fit_intercept, sparse):
    X, y = _svm_problem(n=400, d=15, density=0.5 if sparse else None, seed=1)
    Xv = sp.csr_matrix(X) if sparse else X
    ref = LinearSVC(C=0.5, loss=loss, dual=True, fit_intercept=fit_intercept, tol=1e-10,
                    max_iter=1_000_000, random_state=0).fit(Xv, y)
    clf = DualCDClassifier(C=0.5, loss=loss, fit_intercept=fit_intercept, tol=1e-8,
                           max_iter=100_000, random_state=0).fit(Xv, y)
    bias = 1.0 if fit_intercept else 0.0
    w_ref = np.append(ref.coef_[0], ref.intercept_[0] if fit_intercept else 0.0)
    w = np.append(clf.coef_[0], clf.intercept_[0])
    P_ref = svm_objectives(Xv, y, w_ref, np.zeros(len(y)), 0.5, loss, bias)[0]
    P = svm_objectives(Xv, y, w, clf.alpha_, 0.5, loss, bias)[0]
    assert P == pytest.approx(P_ref, rel=1e-6)
    assert -1e-12 * P <= clf.duality_gap_ <= 1e-6 * P


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("shrinking", [True, False])
def test_dual_cd_certificates_gap_and_kkt(loss, shrinking):
    X, y = _svm_problem(n=300, d=8, seed=2)
    C, tol = 2.0, 1e-8
    w, alpha, it, h = dual_cd(X, y, C, loss=loss, tol=tol, shrinking=shrinking,
                              max_iter=100_000, record_every=1, random_state=0)
    scale = h["objective"][0]
    assert np.all(h["duality_gap"] >= -1e-12 * scale)  # weak duality along the way
    assert np.all(np.diff(h["dual_objective"]) >= -1e-12 * scale)  # each step is exact
    assert h["duality_gap"][-1] < 1e-6 * scale < h["duality_gap"][1]
    primal, dual = svm_objectives(X, y, w, alpha, C, loss)
    assert primal - dual == pytest.approx(h["duality_gap"][-1])
    # w is sum_i alpha_i y_i x_i, alpha feasible, projected gradient ~ 0
    np.testing.assert_allclose(w[:-1], X.T @ (alpha * y), atol=1e-10)
    upper = C if loss == "hinge" else np.inf
    assert np.all(alpha >= 0) and np.all(alpha <= upper)
    pg = _projected_gradient(X, y, w, alpha, C, loss)
    assert np.abs(pg).max() <= 100 * tol  # tol bounds the spread seen during the last epoch
    if loss == "hinge":
        assert np.any(alpha == C) and np.any(alpha == 0)  # both bounds are active


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_dual_cd_rows_of_zeros(backend):
    """x_i = 0 with the hinge and no intercept: Q_ii = 0, the minimum is at alpha_i = C."""
    X, y = _svm_problem(n=60, d=5)
    X[[3, 17]] = 0.0
    for Xv in (X, sp.csr_matrix(X)):
        clf = DualCDClassifier(C=0.7, fit_intercept=False, tol=1e-8, max_iter=100_000,
                               backend=backend, random_state=0).fit(Xv, y)
        np.testing.assert_array_equal(clf.alpha_[[3, 17]], 0.7)
        assert clf.duality_gap_ < 1e-6


def test_dual_cd_estimator_history_labels_and_intercept():
    X, y = two_gaussian_blobs(400, random_state=1)
    names = np.where(y > 0, "spam", "ham")
    clf = DualCDClassifier(C=1.0, record_every=2, random_state=0).fit(X, names)
    assert set(clf.predict(X)) <= {"spam", "ham"} and clf.score(X, names) > 0.9
    h = clf.history_
    assert set(h) == {"iteration", "epoch", "seconds", "objective", "dual_objective",
                      "duality_gap", "n_active"}
    assert h["epoch"][0] == 0 and h["epoch"][-1] == clf.n_iter_
    assert h["objective"][0] == pytest.approx(1.0 * 400)  # C * sum of hinge losses at w = 0
    assert np.all(np.diff(h["seconds"]) >= 0) and np.all(np.diff(h["iteration"]) >= 0)
    assert clf.intercept_[0] != 0.0  # the blobs are offset: the constant feature matters
    np.testing.assert_allclose(clf.decision_function(X),
                               X @ clf.coef_[0] + clf.intercept_[0])
    assert DualCDClassifier().fit(X, y).history_ == {}


# ---------------------------------------------------------------- Lasso

@pytest.mark.parametrize("selection", ["cyclic", "random"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_lasso_matches_scikit_learn(selection, fit_intercept):
    X, y = _lasso_problem()
    for alpha in (0.5, 0.05, 0.005):
        ref = Lasso(alpha=alpha, fit_intercept=fit_intercept, tol=1e-12, max_iter=100_000,
                    selection=selection, random_state=0).fit(X, y)
        model = LassoCD(alpha=alpha, fit_intercept=fit_intercept, tol=1e-12, max_iter=100_000,
                        selection=selection, random_state=0).fit(X, y)
        np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-6, atol=1e-8)
        assert model.intercept_ == pytest.approx(ref.intercept_, rel=1e-6, abs=1e-8)
        assert 0 <= model.dual_gap_ <= 1e-12 * np.sum((y - y.mean() * fit_intercept) ** 2)


@pytest.mark.parametrize("precompute", [False, True])
def test_lasso_cyclic_iterates_are_scikit_learns(precompute):
    """Same cyclic order, update, gap checks and screening: same epochs, same iterates,
    with the residual or with covariance updates (scikit-learn keeps the residual)."""
    X, y = _lasso_problem(n=300, d=60)
    for tol in (1e-3, 1e-8):
        ref = Lasso(alpha=0.02, tol=tol, max_iter=10_000).fit(X, y)
        model = LassoCD(alpha=0.02, tol=tol, max_iter=10_000, precompute=precompute).fit(X, y)
        assert model.n_iter_ == ref.n_iter_
        np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("selection", ["cyclic", "random"])
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_lasso_covariance_updates_give_the_residual_updates_iterates(selection, backend):
    """q = X'r kept from the Gram matrix: the same iterates, gaps and screening as r."""
    X, y = _lasso_problem(n=200, d=40, seed=4)
    X, y = X - X.mean(axis=0), y - y.mean()
    kwargs = dict(tol=1e-9, max_iter=10_000, selection=selection, record_every=2,
                  backend=backend, random_state=3)
    w_r, gap_r, it_r, h_r = lasso_cd(X, y, 0.02, precompute=False, **kwargs)
    for precompute in (True, "auto", X.T @ X):
        w_q, gap_q, it_q, h_q = lasso_cd(X, y, 0.02, precompute=precompute, **kwargs)
        np.testing.assert_allclose(w_q, w_r, rtol=1e-9, atol=1e-12)
        assert it_q == it_r and gap_q == pytest.approx(gap_r, rel=1e-6, abs=1e-12)
        np.testing.assert_allclose(h_q["objective"], h_r["objective"], rtol=1e-12)
        np.testing.assert_array_equal(h_q["n_active"], h_r["n_active"])


def test_lasso_precompute_auto_is_the_gram_exactly_when_n_exceeds_d(monkeypatch):
    """Covariance updates are the compiled path's; the reference keeps the residual."""
    resolve_backend("numba")  # without numba: reported as skipped (see conftest.py)
    seen = []

    def spy(*args):
        seen.append(args[-1])
        return real(*args)

    real = _lasso._lasso_numba_epochs
    monkeypatch.setattr(_lasso, "_lasso_numba_epochs", spy)
    for n, d, gram in ((50, 10, True), (10, 10, False), (10, 50, False)):
        X, y = _lasso_problem(n=n, d=d, seed=7)
        lasso_cd(X, y - y.mean(), 0.1, backend="numba")
        assert set(seen) == {gram}
        seen.clear()
    real_numpy, shapes = _lasso.lasso_numpy_epochs, []

    def spy_numpy(*args):
        shapes.append(args[0].shape)
        return real_numpy(*args)

    monkeypatch.setattr(_lasso, "lasso_numpy_epochs", spy_numpy)
    X, y = _lasso_problem(n=50, d=10, seed=7)
    lasso_cd(X, y - y.mean(), 0.1, precompute=True, backend="numpy")
    assert set(shapes) == {(10, 50)}  # X', not the Gram matrix


@pytest.mark.parametrize("selection", ["cyclic", "random"])
@pytest.mark.parametrize("screening", [True, False])
@pytest.mark.parametrize("precompute", [False, True])
def test_lasso_numpy_and_numba_give_the_same_iterates(selection, screening, precompute):
    """On dense data, the compiled loop (with covariance updates or the residual) takes the
    steps of the reference (the paper's update on the residual)."""
    X, y = _lasso_problem(seed=1)
    X = np.asfortranarray(X - X.mean(axis=0))
    y = y - y.mean()
    for tol, max_iter in ((0.0, 25), (1e-10, 10_000)):
        kwargs = dict(tol=tol, max_iter=max_iter, selection=selection, screening=screening,
                      precompute=precompute, record_every=3, random_state=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            w_ref, gap_ref, it_ref, h_ref = lasso_cd(X, y, 0.05, backend="numpy", **kwargs)
            w, gap, it, h = lasso_cd(X, y, 0.05, backend="numba", **kwargs)
        np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-13)
        assert it == it_ref
        np.testing.assert_allclose(h["objective"], h_ref["objective"], rtol=1e-10)
        np.testing.assert_array_equal(h["n_active"], h_ref["n_active"])


def _sparse_lasso_problem(n=150, d=60, seed=11):
    """Sparse non-negative features (their means are not zero), 6 of them active."""
    rng = np.random.default_rng(seed)
    X = rng.exponential(size=(n, d)) * (rng.random((n, d)) < 0.2)
    w = np.zeros(d)
    w[:6] = 3 * rng.normal(size=6)
    return X, X @ w + 0.2 * rng.normal(size=n) + 2.0


@pytest.mark.parametrize("selection", ["cyclic", "random"])
@pytest.mark.parametrize("screening", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_lasso_sparse_implicit_centring_gives_the_references_iterates(selection, screening,
                                                                      weighted):
    """The compiled loop on CSC columns centred implicitly takes the steps of the reference,
    which runs on the design centred explicitly (dense)."""
    X, y = _sparse_lasso_problem()
    sw = np.random.default_rng(0).integers(0, 3, len(y)) if weighted else None
    for tol, max_iter in ((0.0, 25), (1e-10, 10_000)):
        kwargs = dict(alpha=0.02, tol=tol, max_iter=max_iter, selection=selection,
                      screening=screening, gap_every=5, precompute=False, record_every=3,
                      random_state=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ref = LassoCD(backend="numpy", **kwargs).fit(sp.csr_matrix(X), y, sample_weight=sw)
            fast = LassoCD(backend="numba", **kwargs).fit(sp.csr_matrix(X), y, sample_weight=sw)
        np.testing.assert_allclose(fast.coef_, ref.coef_, rtol=1e-10, atol=1e-13)
        assert fast.n_iter_ == ref.n_iter_
        np.testing.assert_allclose(fast.history_["objective"], ref.history_["objective"],
                                   rtol=1e-10)
        np.testing.assert_array_equal(fast.history_["n_active"], ref.history_["n_active"])


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("precompute", [False, True])
def test_lasso_sparse_is_dense_and_scikit_learns(fit_intercept, weighted, precompute):
    """CSC columns, centred implicitly (never densified): the dense solution, and
    scikit-learn's Lasso on the same CSR matrix, with or without sample weights."""
    X, y = _sparse_lasso_problem(seed=12)
    sw = np.random.default_rng(1).uniform(0, 2, len(y)) if weighted else None
    csr = sp.csr_matrix(X)
    csr64 = _variants(X)["csr_int64"]  # scikit-learn's Lasso takes 32-bit indices only
    for alpha in (0.1, 0.01):
        kwargs = dict(alpha=alpha, fit_intercept=fit_intercept, tol=1e-12, max_iter=100_000)
        ref = Lasso(**kwargs).fit(csr, y, sample_weight=sw)
        dense = LassoCD(precompute=precompute, **kwargs).fit(X, y, sample_weight=sw)
        sparse = LassoCD(precompute=precompute, **kwargs).fit(csr, y, sample_weight=sw)
        np.testing.assert_allclose(
            LassoCD(precompute=precompute, **kwargs).fit(csr64, y, sample_weight=sw).coef_,
            sparse.coef_, rtol=1e-12, atol=1e-14)
        for model in (dense, sparse):
            np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
            assert model.intercept_ == pytest.approx(ref.intercept_, rel=1e-7, abs=1e-9)
        np.testing.assert_allclose(sparse.predict(csr), dense.predict(X), rtol=1e-8)
        assert 0 <= sparse.dual_gap_ <= 1e-12 * np.sum(y ** 2)


def test_lasso_sparse_screening_drops_features_safely():
    X, y = _sparse_lasso_problem(n=80, d=400, seed=13)
    alpha = 0.1 * np.abs(X.T @ (y - y.mean())).max() / len(y)
    full = LassoCD(alpha=alpha, tol=1e-10, screening=False).fit(sp.csr_matrix(X), y)
    screened = LassoCD(alpha=alpha, tol=1e-10, gap_every=5, record_every=1).fit(
        sp.csr_matrix(X), y)
    assert screened.history_["n_active"][-1] < 400 / 4
    np.testing.assert_allclose(screened.coef_, full.coef_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("sparse", [False, True])
def test_lasso_weights_zero_is_dropped_and_integer_is_repeated(sparse):
    X, y = _sparse_lasso_problem(seed=14)
    sw = np.random.default_rng(2).integers(0, 4, len(y))
    as_input = sp.csr_matrix if sparse else np.asarray
    kwargs = dict(alpha=0.03, tol=1e-12, max_iter=100_000)
    weighted = LassoCD(**kwargs).fit(as_input(X), y, sample_weight=sw)
    repeated = LassoCD(**kwargs).fit(as_input(np.repeat(X, sw, axis=0)), np.repeat(y, sw))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-8, atol=1e-10)
    assert weighted.intercept_ == pytest.approx(repeated.intercept_, rel=1e-8)
    keep = sw > 0
    dropped = LassoCD(**kwargs).fit(as_input(X[keep]), y[keep], sample_weight=sw[keep])
    np.testing.assert_allclose(weighted.coef_, dropped.coef_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="Sample weights"):
        LassoCD().fit(as_input(X), y, sample_weight=np.zeros(len(y)))


def test_weights_that_leave_one_class_are_refused():
    X, y = _svm_problem(n=40, d=3)
    with pytest.raises(ValueError, match="one class of positive weight"):
        DualCDClassifier().fit(X, y, sample_weight=(y > 0).astype(float))
    for Est in (DualCDClassifier, LassoCD):
        with pytest.raises(ValueError, match="Negative values .* `sample_weight`"):
            Est().fit(X, y, sample_weight=-np.ones(len(y)))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_lasso_iterates_do_not_depend_on_record_every(backend):
    X, y = _lasso_problem(seed=2)
    a = lasso_cd(X, y - y.mean(), 0.03, tol=1e-9, selection="random", backend=backend,
                 random_state=0)
    for record_every in (1, 4):
        b = lasso_cd(X, y - y.mean(), 0.03, tol=1e-9, selection="random", backend=backend,
                     random_state=0, record_every=record_every)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[2] == b[2] == b[3]["epoch"][-1]


@pytest.mark.parametrize("selection", ["cyclic", "random"])
def test_lasso_certificates_gap_and_kkt(selection):
    X, y = _lasso_problem(n=150, d=30, seed=3)
    X, y = X - X.mean(axis=0), y - y.mean()
    n, alpha, tol = len(y), 0.05, 1e-12
    w, gap, it, h = lasso_cd(X, y, alpha, tol=tol, max_iter=100_000, selection=selection,
                             record_every=1, random_state=0)
    assert np.all(h["duality_gap"] >= -1e-15)
    assert np.all(np.diff(h["objective"]) <= 1e-15)  # CD never increases the primal
    assert h["duality_gap"][-1] <= tol * (y @ y) / n < h["duality_gap"][1]
    assert gap == pytest.approx(lasso_duality_gap(X, y, w, alpha)[0], abs=1e-14)
    # KKT: |x_j . r| / n <= alpha, with equality and the sign of w_j on the support
    corr = X.T @ (y - X @ w) / n
    support = w != 0
    assert 0 < support.sum() < len(w)
    assert np.all(np.abs(corr) <= alpha * (1 + 1e-6))
    np.testing.assert_allclose(corr[support], alpha * np.sign(w[support]), rtol=1e-5)


def test_lasso_screening_is_safe_and_drops_features():
    """Screening acts when a gap check fails (d > n, correlated features, small alpha)."""
    X, y = _lasso_problem(n=100, d=300, k=10, rho=0.3, seed=0)
    X, y = X - X.mean(axis=0), y - y.mean()
    alpha = 0.02 * np.abs(X.T @ y).max() / len(y)
    w, _, _, h = lasso_cd(X, y, alpha, tol=1e-8, record_every=1)
    w_all, _, _, h_all = lasso_cd(X, y, alpha, tol=1e-8, screening=False, record_every=1)
    np.testing.assert_allclose(w, w_all, rtol=1e-8, atol=1e-12)
    assert h["n_active"][-1] < 50 and np.all(h_all["n_active"] == 300)
    # the rule itself, at an iterate far from the optimum: it never drops the support
    with pytest.warns(ConvergenceWarning):
        w_t = lasso_cd(X, y, alpha, tol=0.0, max_iter=100, screening=False)[0]
    r = y - X @ w_t
    gap = lasso_duality_gap(X, y, w_t, alpha)[0]
    keep = gap_safe_screen(X.T @ r, np.einsum("ij,ij->j", X, X), gap, alpha, len(y))
    assert keep.sum() < 150 and np.all(keep[w != 0])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_lasso_gap_every_screens_early_and_keeps_the_iterates(backend):
    """Checked only where scikit-learn checks it, the gap comes too late to screen much;
    checked every 10 epochs (Fercoq et al.), it certifies most of 1000 features zero long
    before the end, and the epochs and the solution stay those of the unscreened run."""
    X, y = _lasso_problem(n=100, d=1000, k=10, rho=0.3, seed=0)
    X, y = X - X.mean(axis=0), y - y.mean()
    alpha = 0.1 * np.abs(X.T @ y).max() / len(y)
    runs = {every: lasso_cd(X, y, alpha, tol=1e-8, gap_every=every, record_every=1,
                            backend=backend) for every in (None, 10)}
    w_all, _, it_all, _ = lasso_cd(X, y, alpha, tol=1e-8, screening=False, backend=backend)
    for w, _, it, _ in runs.values():
        np.testing.assert_allclose(w, w_all, rtol=1e-8, atol=1e-12)
        assert it == it_all
    h_late, h_early = runs[None][3], runs[10][3]
    assert np.all(h_late["n_active"][:it_all // 2] == 1000)
    assert h_early["n_active"][20] < 100 < h_early["n_active"][9]
    assert h_early["n_active"][-1] <= 2 * np.count_nonzero(w_all)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_lasso_path_warm_starts(backend):
    X, y = _lasso_problem(n=120, d=25, seed=5)
    X, y = X - X.mean(axis=0), y - y.mean()
    alphas, coefs, gaps = lasso_path(X, y, n_alphas=12, eps=1e-2, tol=1e-12, backend=backend)
    alpha_max = np.abs(X.T @ y).max() / len(y)
    assert alphas[0] == pytest.approx(alpha_max) and alphas[-1] == pytest.approx(1e-2 * alpha_max)
    assert np.all(np.diff(alphas) < 0)
    np.testing.assert_array_equal(coefs[:, 0], 0.0)  # w* = 0 at alpha_max ...
    just_below = lasso_cd(X, y, 0.99 * alpha_max, tol=1e-12)[0]
    assert np.count_nonzero(just_below) == 1  # ... and no longer just below it
    for k in (3, 7, 11):  # warm starts and cold starts reach the same solution
        cold = lasso_cd(X, y, alphas[k], tol=1e-12, max_iter=100_000, backend=backend)[0]
        np.testing.assert_allclose(coefs[:, k], cold, rtol=1e-7, atol=1e-10)
    _, sk_coefs, _ = sklearn_lasso_path(X, y, alphas=alphas, tol=1e-12, max_iter=100_000)
    np.testing.assert_allclose(coefs, sk_coefs, rtol=1e-6, atol=1e-9)
    assert np.all(gaps <= 1e-12 * (y @ y) / len(y))


def test_lasso_path_with_given_alphas_and_orthogonal_y():
    X, y = _lasso_problem(n=80, d=10, seed=6)
    alphas, coefs, _ = lasso_path(X, y, alphas=[0.01, 1.0, 0.1])
    np.testing.assert_array_equal(alphas, [1.0, 0.1, 0.01])
    assert coefs.shape == (10, 3)
    alphas, coefs, _ = lasso_path(np.eye(4)[:, :2], np.array([0, 0, 1.0, -1.0]), n_alphas=3)
    np.testing.assert_array_equal(coefs, 0.0)


# ---------------------------------------------------------------- block CD kernel ridge

@pytest.mark.parametrize("order,block_size", [("random", 1), ("random", 37), ("cyclic", 37),
                                              ("random", 100), ("cyclic", 100), ("random", 500),
                                              ("cyclic", 500)])
def test_block_cd_matches_exact_kernel_ridge(order, block_size):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.sin(X).sum(axis=1) + 0.1 * rng.normal(size=300)
    y = y + 2.0  # targets whose mean is not 0
    for fit_intercept in (False, True):  # KernelRidge's model, then on the centred targets
        b = y.mean() if fit_intercept else 0.0
        exact = KernelRidge(lam=0.5, gamma=0.3).fit(X, y - b)
        model = BlockCDKernelRidge(lam=0.5, gamma=0.3, fit_intercept=fit_intercept,
                                   block_size=block_size, order=order, tol=1e-12, n_epochs=2000,
                                   random_state=0).fit(X, y)
        assert model.intercept_ == b and model.gamma_ == 0.3
        np.testing.assert_allclose(model.dual_coef_, exact.dual_coef_, rtol=1e-6,
                                   atol=1e-6 * np.abs(exact.dual_coef_).max())
        np.testing.assert_allclose(model.predict(X[:50]), exact.predict(X[:50]) + b, rtol=1e-6,
                                   atol=1e-8)
        if block_size >= 300:
            assert model.n_iter_ == 1  # one block: the exact solve


def test_block_cd_without_forming_the_kernel_matrix(monkeypatch):
    """When n^2 exceeds BLOCK_ELEMENTS, only n x b column blocks are ever computed."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = np.column_stack([np.cos(X[:, 0]), X[:, 1] ** 2])  # two targets
    shapes = []

    def recording_kernel_matrix(A, B=None, **kwargs):
        shapes.append((len(A), len(A) if B is None else len(B)))
        return kernel_matrix(A, B, **kwargs)

    monkeypatch.setattr(_block_kernel_ridge, "BLOCK_ELEMENTS", 200 * 200 - 1)
    monkeypatch.setattr(_block_kernel_ridge, "kernel_matrix", recording_kernel_matrix)
    for kernel in ("gaussian", "laplacian"):
        exact = KernelRidge(lam=0.2, kernel=kernel, gamma=0.5).fit(X, y)
        shapes.clear()
        model = BlockCDKernelRidge(lam=0.2, kernel=kernel, gamma=0.5, fit_intercept=False,
                                   block_size=64, tol=1e-12, n_epochs=1000,
                                   random_state=0).fit(X, y)
        assert shapes and all(b <= 64 for _, b in shapes)
        np.testing.assert_allclose(model.dual_coef_, exact.dual_coef_, rtol=1e-6, atol=1e-8)


def test_block_cd_residual_objective_and_history():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(250, 3))
    y = X[:, 0] - X[:, 1] ** 2
    lam = 0.1
    alpha, it, h = block_cd_kernel_ridge(X, y, lam, gamma=0.5, block_size=40, n_epochs=5,
                                         tol=0.0, record_every=1, random_state=0)
    A = kernel_matrix(X, gamma=0.5) + lam * np.eye(250)
    r = y - A @ alpha
    assert h["relative_residual"][-1] == pytest.approx(np.linalg.norm(r) / np.linalg.norm(y))
    assert h["objective"][-1] == pytest.approx(0.5 * alpha @ A @ alpha - y @ alpha)
    assert np.all(np.diff(h["objective"]) < 0)  # exact block minimisation: descent
    np.testing.assert_array_equal(h["epoch"], np.arange(6))
    a2, _, _ = block_cd_kernel_ridge(X, y, lam, gamma=0.5, block_size=40, n_epochs=5, tol=0.0,
                                     random_state=0)
    np.testing.assert_array_equal(a2, alpha)  # recording does not change the iterates


# ---------------------------------------------------------------- bad input

_X, _y = two_gaussian_blobs(40, random_state=0)
_X3 = np.vstack([_X, _X[:10] + 5])
_y3 = np.concatenate([_y, np.full(10, 2)])
_NAN = with_nan(_X)
_INF = with_inf(_X)


@pytest.mark.parametrize("make,X,y,match", [
    (DualCDClassifier, _NAN, _y, "NaN"),
    (DualCDClassifier, _INF, _y, "infinity"),
    (DualCDClassifier, _X, _y[:-1], "inconsistent numbers of samples"),
    (DualCDClassifier, _X, np.ones(40), "one class"),
    (lambda: DualCDClassifier(C=0.0), _X, _y, "'C'"),
    (lambda: DualCDClassifier(C=-1.0), _X, _y, "'C'"),
    (lambda: DualCDClassifier(loss="log"), _X, _y, "'loss'"),
    (lambda: DualCDClassifier(tol=-1.0), _X, _y, "'tol'"),
    (lambda: DualCDClassifier(max_iter=0), _X, _y, "'max_iter'"),
    (lambda: DualCDClassifier(record_every=0), _X, _y, "'record_every'"),
    (lambda: DualCDClassifier(backend="cuda"), _X, _y, "'backend'"),
    (DualCDClassifier, np.empty((0, 2)), np.empty(0), "0 sample"),
    (LassoCD, _NAN, _y, "NaN"),
    (LassoCD, _INF, _y, "infinity"),
    (LassoCD, _X, _y[:-1], "inconsistent numbers of samples"),
    (lambda: LassoCD(alpha=-0.1), _X, _y, "'alpha'"),
    (lambda: LassoCD(selection="greedy"), _X, _y, "'selection'"),
    (lambda: LassoCD(max_iter=0), _X, _y, "'max_iter'"),
    (lambda: LassoCD(precompute="yes"), _X, _y, "'precompute'"),
    (lambda: LassoCD(gap_every=0), _X, _y, "'gap_every'"),
    (LassoCD, np.empty((0, 2)), np.empty(0), "0 sample"),
    (BlockCDKernelRidge, _NAN, _y, "NaN"),
    (BlockCDKernelRidge, _X, _y[:-1], "inconsistent numbers of samples"),
    (lambda: BlockCDKernelRidge(block_size=0), _X, _y, "'block_size'"),
    (lambda: BlockCDKernelRidge(order="greedy"), _X, _y, "'order'"),
    (lambda: BlockCDKernelRidge(gamma=0.0), _X, _y, "'gamma'"),
    (lambda: BlockCDKernelRidge(gamma=-1.0), _X, _y, "'gamma'"),
    (lambda: BlockCDKernelRidge(lam=0.0), _X, _y, "'lam'"),
    (lambda: BlockCDKernelRidge(kernel="rbf"), _X, _y, "'kernel'"),
    (lambda: BlockCDKernelRidge(n_epochs=0), _X, _y, "'n_epochs'"),
    (BlockCDKernelRidge, np.empty((0, 2)), np.empty(0), "0 sample"),
])
def test_bad_input_is_named_before_any_solver_runs(make, X, y, match, forbid):
    forbid(_dual_cd, "_dual_cd_numba_epochs", "dual_cd_numpy_epochs")
    forbid(_lasso, "_lasso_numba_epochs", "lasso_numpy_epochs", "_lasso_sparse_numba_epochs")
    forbid(_block_kernel_ridge, "kernel_matrix")
    with pytest.raises(ValueError, match=match):
        make().fit(X, y)


def test_sparse_input_to_the_dense_only_estimators_is_refused():
    with pytest.raises(TypeError, match="dense data is required"):
        BlockCDKernelRidge().fit(sp.csr_matrix(_X), _y)


@pytest.mark.parametrize("call,match", [
    (lambda: dual_cd(_X, _y, 0.0), "C"),
    (lambda: dual_cd(_X, _y, 1.0, loss="log"), "loss"),
    (lambda: dual_cd(_X, _y, 1.0, max_iter=0), "max_iter"),
    (lambda: lasso_cd(_X, _y, -1.0), "alpha"),
    (lambda: lasso_cd(_X, _y, 1.0, selection="greedy"), "selection"),
    (lambda: lasso_cd(_X, _y, 1.0, precompute="yes"), "precompute"),
    (lambda: lasso_cd(_X, _y, 1.0, gap_every=0), "gap_every"),
    (lambda: lasso_cd(_X, _y, 1.0, precompute=np.eye(_X.shape[1] + 1)), "precompute"),
    (lambda: lasso_path(_X, _y[:-1]), "y"),
    (lambda: lasso_path(_X, _y, n_alphas=0), "n_alphas"),
    (lambda: block_cd_kernel_ridge(_X, _y, 1.0, block_size=0), "block_size"),
    (lambda: block_cd_kernel_ridge(_X, _y, 1.0, order="greedy"), "order"),
    (lambda: block_cd_kernel_ridge(_X, _y, 0.0), "lam"),
    (lambda: block_cd_kernel_ridge(_X, _y, 1.0, gamma=0.0), "gamma"),
])
def test_functional_api_names_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_convergence_warnings():
    X, y = _svm_problem()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        DualCDClassifier(max_iter=2, tol=1e-12).fit(X, y)
    X, y = _lasso_problem()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        LassoCD(alpha=0.01, max_iter=1, tol=1e-12).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="n_epochs=1"):
        BlockCDKernelRidge(lam=0.1, block_size=10, n_epochs=1).fit(X, y)


# ---------------------------------------------------------------- defaults on real data

def test_defaults_score_as_scikit_learns_peers_on_real_data():
    """What a user who sets nothing gets: the peers' scores, no warning.
    On a9a, ijcnn1 and w8a, DualCDClassifier() and LinearSVC() agree to 0.1 point of
    test accuracy as well (benchmarks/bench_coordinate_descent.py)."""
    from sklearn.datasets import load_diabetes
    from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge
    from sklearn.model_selection import train_test_split

    from lsl_lib.datasets import load_breast_cancer

    X, X_test, y, y_test = load_breast_cancer(test_size=0.3)
    Xd, yd = load_diabetes(return_X_y=True)
    Xd = (Xd - Xd.mean(axis=0)) / Xd.std(axis=0)
    Xd, Xd_test, yd, yd_test = train_test_split(Xd, yd, test_size=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        svm = DualCDClassifier(random_state=0).fit(X, y)
        lasso = LassoCD().fit(Xd, yd)
        ridge = BlockCDKernelRidge(random_state=0).fit(Xd, yd)
    svm_ref = LinearSVC(random_state=0).fit(X, y)
    assert svm.score(X_test, y_test) >= svm_ref.score(X_test, y_test) - 0.01
    lasso_ref = Lasso().fit(Xd, yd)
    assert lasso.score(Xd_test, yd_test) == pytest.approx(lasso_ref.score(Xd_test, yd_test),
                                                          abs=1e-6)
    # the exact solve of the same model: kernel ridge of the centred targets, the same width
    b = yd.mean()
    ridge_ref = SklearnKernelRidge(kernel="rbf", gamma=ridge.gamma_).fit(Xd, yd - b)
    assert ridge.intercept_ == b and ridge.gamma_ == pytest.approx(1 / (Xd.shape[1] * Xd.var()))
    # stopped at ||r|| <= tol ||y - b||: the fitted values are that close to the exact ones
    assert np.linalg.norm(ridge.predict(Xd) - ridge_ref.predict(Xd) - b) \
        <= 1e-4 * np.linalg.norm(yd - b)
    assert ridge.score(Xd_test, yd_test) == pytest.approx(
        r2_score(yd_test, ridge_ref.predict(Xd_test) + b), abs=1e-3)


@pytest.mark.shared_data
def test_block_cd_kernel_ridge_defaults_on_raw_and_standardised_cpu_act():
    """With gamma = 1/d and no intercept (the old defaults), BlockCDKernelRidge() scores
    R^2 below -10 on raw cpu_act, whose features spread up to 10^6: the kernel matrix is the
    identity and the predictions 0 for targets near 84. gamma='scale' and the intercept
    (centred targets) put it near KernelRidge() and above Ridge(), with and without
    StandardScaler (2 000 rows to train, 2 000 to test)."""
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from lsl_lib.datasets import fetch_cpu_act

    X, y = fetch_cpu_act()
    X, X_test, y, y_test = train_test_split(X, y, train_size=2000, test_size=2000,
                                            random_state=0)
    for scaled in (False, True):
        def score(estimator, scaled=scaled):
            model = make_pipeline(StandardScaler(), estimator) if scaled else estimator
            return model.fit(X, y).score(X_test, y_test)

        ours = score(BlockCDKernelRidge(random_state=0))
        assert ours >= score(Ridge()) + 0.1  # 0.84 against 0.70
        assert ours >= score(KernelRidge()) - 0.02  # 0.84 against 0.86 (raw), 0.66 (scaled)
    old = BlockCDKernelRidge(gamma=None, fit_intercept=False, random_state=0).fit(X, y)
    assert old.score(X_test, y_test) < -10  # the old defaults
    np.testing.assert_allclose(old.predict(X_test), 0.0, atol=1e-6)


# ---------------------------------------------------------------- one-vs-rest, the run loop

def _three_classes():
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), np.array(["setosa", "versicolor", "virginica"])[y]


@pytest.mark.parametrize("class_weight", [None, {"setosa": 3.0, "virginica": 0.5}])
def test_dual_cd_learns_three_classes_one_vs_rest(class_weight):
    """More than two classes, one-vs-rest. Each row is the binary SVM of its
    class (fitted on y == class, the same seed, the class's weight on its examples) and
    reaches the objective LinearSVC reaches on the same one-vs-rest problem."""
    X, y = _three_classes()
    sw = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    params = dict(C=0.5, tol=1e-10, max_iter=100_000, random_state=0)
    model = DualCDClassifier(class_weight=class_weight, **params).fit(X, y, sample_weight=sw)
    assert model.coef_.shape == (3, 4) and model.intercept_.shape == (3,)
    assert model.alpha_.shape == (3, 150) and model.duality_gap_.shape == (3,)
    scores = model.decision_function(X)
    assert scores.shape == (150, 3)
    ref = LinearSVC(C=0.5, loss="hinge", class_weight=class_weight, tol=1e-10,
                    max_iter=1_000_000, random_state=0).fit(X, y, sample_weight=sw)
    for k, label in enumerate(model.classes_):
        weight = (class_weight or {}).get(label, 1.0)
        s = sw * np.where(y == label, weight, 1.0)
        binary = DualCDClassifier(**params).fit(X, y == label, sample_weight=s)
        np.testing.assert_array_equal(model.coef_[k], binary.coef_[0])
        np.testing.assert_array_equal(model.intercept_[k], binary.intercept_[0])
        np.testing.assert_array_equal(model.alpha_[k], binary.alpha_)
        np.testing.assert_allclose(scores[:, k], binary.decision_function(X), rtol=1e-13)
        signs = np.where(y == label, 1.0, -1.0)
        P = svm_objectives(X, signs, np.append(model.coef_[k], model.intercept_[k]),
                           model.alpha_[k], 0.5, bias=1.0, sample_weight=s)[0]
        P_ref = svm_objectives(X, signs, np.append(ref.coef_[k], ref.intercept_[k]),
                               np.zeros(150), 0.5, bias=1.0, sample_weight=s)[0]
        assert P == pytest.approx(P_ref, rel=1e-7)
    assert model.n_iter_ == max(e.n_iter_ for e in model.estimators_)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


def test_class_weight_check_passes_with_enough_epochs():
    """scikit-learn's check_class_weight_classifiers with SDCA (sampling='iid'): at its
    max_iter=1000 the class of weight 1000 is not solved yet; with more epochs it is."""
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split

    X, y = make_blobs(centers=3, random_state=0, cluster_std=20)
    X, X_test, y, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    model = DualCDClassifier(class_weight={0: 1000, 1: 0.0001, 2: 0.0001}, sampling="iid",
                             tol=1e-12, max_iter=100_000, random_state=0).fit(X, y)
    assert np.mean(model.predict(X_test) == 0) > 0.87


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("sampling", ["reshuffle", "permutation", "iid"])
def test_dual_cd_iterates_do_not_depend_on_where_the_chunks_end(sampling, backend, monkeypatch):
    """One epoch a chunk against the run loop's own chunks: the same bits, with shrinking,
    the stream of uniforms refilled (_DRAW_SIZE made small) and the stop."""
    import lsl_lib._core.run_loop as run_loop

    X, y = _svm_problem(n=200, density=0.5)
    monkeypatch.setattr(_dual_cd, "_DRAW_SIZE", 37)  # the stream runs short every epoch or so
    for Xv in (X, sp.csr_matrix(X)):
        kwargs = dict(loss="hinge", tol=1e-6, max_iter=400, bias=1.0, sampling=sampling,
                      backend=backend, random_state=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.1)
            w, alpha, it, _ = dual_cd(Xv, y, 0.7, **kwargs)
            monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # one epoch a chunk
            w1, alpha1, it1, _ = dual_cd(Xv, y, 0.7, **kwargs)
        np.testing.assert_array_equal(w1, w)
        np.testing.assert_array_equal(alpha1, alpha)
        assert it1 == it > 5


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("selection", ["cyclic", "random"])
@pytest.mark.parametrize("kind", ["dense", "gram", "sparse"])
def test_lasso_iterates_do_not_depend_on_where_the_chunks_end(kind, selection, backend,
                                                              monkeypatch):
    import lsl_lib._core.run_loop as run_loop

    X, y = _lasso_problem(n=100, d=150, seed=3)
    X, y = X - X.mean(axis=0), y - y.mean()
    if kind == "sparse":
        X = sp.csc_matrix(X * (np.random.default_rng(0).random(X.shape) < 0.3))
    kwargs = dict(tol=1e-10, max_iter=300, selection=selection, gap_every=7,
                  precompute=kind == "gram", backend=backend, random_state=1)
    monkeypatch.setattr(_lasso, "_DRAW_SIZE", 150 * 5)  # random order: 5 epochs of draws at a time
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        w, gap, it, _ = lasso_cd(X, y, 0.01, **kwargs)
        monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # one epoch a chunk
        w1, gap1, it1, _ = lasso_cd(X, y, 0.01, **kwargs)
    np.testing.assert_array_equal(w1, w)
    assert gap1 == gap and it1 == it > 10


@pytest.mark.parametrize("order", ["random", "cyclic"])
def test_block_cd_iterates_do_not_depend_on_where_the_chunks_end(order, monkeypatch):
    """The run loop's unit is one block (a stop waits for one block, not an epoch): one block
    a chunk gives the bits of the run loop's own chunks."""
    import lsl_lib._core.run_loop as run_loop

    rng = np.random.default_rng(4)
    X = rng.normal(size=(230, 3))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    kwargs = dict(gamma=0.5, block_size=40, order=order, n_epochs=12, tol=1e-9, record_every=5,
                  random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        alpha, it, h = block_cd_kernel_ridge(X, y, 0.3, **kwargs)
        monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # one block a chunk
        alpha1, it1, h1 = block_cd_kernel_ridge(X, y, 0.3, **kwargs)
    np.testing.assert_array_equal(alpha1, alpha)
    np.testing.assert_array_equal(h1["relative_residual"], h["relative_residual"])
    np.testing.assert_array_equal(h["epoch"], [0, 5, 10, 12])
    assert it1 == it == 12


def test_block_cd_intercept_follows_a_shift_of_the_targets():
    """With the intercept, the targets y + c give the predictions + c (as Ridge's); without
    it, the Gaussian kernel fits the shift only as well as lam lets it."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    y = np.cos(X[:, 0]) + 0.1 * rng.normal(size=200)
    X_test = 3 * rng.normal(size=(50, 3))  # far from the training rows too
    kwargs = dict(tol=1e-12, n_epochs=1000, random_state=0)
    base = BlockCDKernelRidge(**kwargs).fit(X, y).predict(X_test)
    shifted = BlockCDKernelRidge(**kwargs).fit(X, y + 100.0).predict(X_test)
    np.testing.assert_allclose(shifted, base + 100.0, rtol=1e-9)
    plain = BlockCDKernelRidge(fit_intercept=False, **kwargs)
    drift = plain.fit(X, y + 100.0).predict(X_test) - plain.fit(X, y).predict(X_test)
    assert np.abs(drift - 100.0).max() > 10.0


def test_verbose_shows_a_progress_bar(monkeypatch, capsys):
    import lsl_lib._core.run_loop as run_loop

    monkeypatch.setattr(run_loop, "PROGRESS_DELAY", 0.0)
    for model, desc in ((DualCDClassifier(verbose=True), "dual CD"),
                        (LassoCD(alpha=0.01, verbose=True), "Lasso CD"),
                        (BlockCDKernelRidge(verbose=True), "block CD")):
        model.fit(_X, _y)
        assert desc in capsys.readouterr().err
    DualCDClassifier().fit(_X, _y)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("estimator", ["DualCDClassifier", "LassoCD", "BlockCDKernelRidge"])
def test_ctrl_c_stops_a_long_fit_within_a_second(estimator):
    """SIGINT to a child process in a fit of a minute or more: it stops within a second and
    leaves the estimator unfitted."""
    import textwrap

    from conftest import assert_sigint_stops_fit

    setup = textwrap.dedent("""
        import numpy as np
        from lsl_lib.coordinate_descent import BlockCDKernelRidge, DualCDClassifier, LassoCD
        rng = np.random.default_rng(0)
    """)
    long_fit = {
        # 20 000 dense features, a hinge problem liblinear's test never closes at tol=0
        "DualCDClassifier": ("X = rng.normal(size=(300, 20_000)); y = rng.integers(0, 2, 300)\n"
                             "DualCDClassifier(max_iter=2).fit(X, y)\n"
                             "model = DualCDClassifier(tol=0.0, max_iter=10**7)"),
        # 2 000 x 2 000 correlated columns, tol=0: a gap never reached
        "LassoCD": ("X = rng.normal(size=(2000, 2000)) + rng.normal(size=(2000, 1))\n"
                    "y = X[:, :20].sum(axis=1) + rng.normal(size=2000)\n"
                    "LassoCD(max_iter=2).fit(X[:50], y[:50])\n"
                    "model = LassoCD(alpha=1e-4, tol=0.0, max_iter=10**6, precompute=False)"),
        # 6 000 rows: the kernel columns of each block recomputed, tol=0
        "BlockCDKernelRidge": ("X = rng.normal(size=(6000, 20)); y = np.sin(X[:, 0])\n"
                               "model = BlockCDKernelRidge(tol=0.0, n_epochs=10**4)"),
    }[estimator]
    assert_sigint_stops_fit(setup + long_fit, "model.fit(X, y)", delay=1.0,
                            after="assert not hasattr(model, 'n_iter_')")
