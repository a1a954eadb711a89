"""The unified online kernel learner: the step of each model by hand, the output
vector against the kernel sum, numpy against numba (iterates and cache counts),
the lecture's sparsity curiosity, and learning against SVC (scikit-learn's contract:
test_common.py)."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import svc_and_estimator_on_shared
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from lsl_lib._core.linalg import squared_row_norms
from lsl_lib._core.rows import row_view
from lsl_lib._core.sampling import sample_indices
from lsl_lib.datasets import checkerboard, concentric_circles, two_gaussian_blobs
from lsl_lib.kernels import INNER_PRODUCT_KERNELS, check_kernel_params, kernel_matrix
from lsl_lib.online_kernel import (
    MODELS,
    ColumnCache,
    OnlineKernelClassifier,
    cached_column_numpy,
    lambda_and_penalty,
    margin_loss,
    online_kernel,
    psi,
    worst_violator_numpy,
)
from lsl_lib.online_kernel._learner import _cached_column_numba
from lsl_lib.online_kernel._models import _lambda_and_penalty_numba, _worst_violator_numba
from estimator_support import with_inf, with_nan

L1_MODELS = ("exponential", "l1_svm_l1", "l2_svm_l1")
Z = [-2.0, 0.3, 0.8, 1.0, 2.5]
# psi(z) at the margins Z, by hand (Huber with delta = 0.5: the linear piece below
# z = 0.5, the quadratic piece on (0.5, 1), zero from 1 on)
PSI_BY_HAND = {
    "l1_svm": [1, 1, 1, 0, 0],
    "l2_svm": [3, 0.7, 0.2, 0, 0],
    "huber": [1, 1, 0.4, 0, 0],
    "logistic": [1 / (1 + math.exp(z)) for z in Z],
    "exponential": [math.exp(-z) for z in Z],
    "ls_svm": [3, 0.7, 0.2, 0, -1.5],
    "l1_svm_l1": [1, 1, 1, 0, 0],
    "l2_svm_l1": [3, 0.7, 0.2, 0, 0],
}


def _compiled(model, *args):
    return _lambda_and_penalty_numba(MODELS.index(model), *args)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("y", [1.0, -1.0])
def test_lambda_and_penalty_by_hand(model, y):
    eta, C, alpha_i = 0.1, 2.0, 0.3 * y
    for z, p in zip(Z, PSI_BY_HAND[model], strict=True):
        Lam, P = lambda_and_penalty(model, z, y, alpha_i, eta, C, 0.5)
        assert Lam == pytest.approx(eta * C * y * p, rel=1e-12, abs=1e-15)
        if model in L1_MODELS:
            a = alpha_i + Lam
            expected_P = (eta if a > 0 else -eta) if abs(a) > eta else a
        else:
            expected_P = eta * alpha_i
        assert P == pytest.approx(expected_P, rel=1e-12)
        assert _compiled(model, z, y, alpha_i, eta, C, 0.5) == pytest.approx((Lam, P), rel=1e-14)


@pytest.mark.parametrize("model", L1_MODELS)
def test_soft_threshold_gives_exact_zeros(model):
    eta = 0.1
    cases = [  # (z, alpha_i, C, new alpha by hand)
        (0.3, 0.0, 0.1, 0.0),  # |Lambda| < eta: stays at 0
        (2.5 if model != "exponential" else 60.0, -0.05, 2.0, 0.0),  # no loss: shrinks to 0
        (2.5 if model != "exponential" else 60.0, -0.3, 2.0, -0.2),  # shrinks by eta
    ]
    for z, alpha_i, C, expected in cases:
        for step in (lambda_and_penalty, _compiled):
            Lam, P = step(model, z, 1.0, alpha_i, eta, C, 0.5)
            new = (alpha_i + Lam) - P
            assert new == pytest.approx(expected, abs=1e-12)
            if expected == 0.0:
                assert new == 0.0  # exactly
    # l1_svm_l1 at z = 0.3: a = 0.05 + 0.2 = 0.25 -> 0.15
    Lam, P = lambda_and_penalty("l1_svm_l1", 0.3, 1.0, 0.05, eta, 2.0)
    assert (Lam, P, (0.05 + Lam) - P) == pytest.approx((0.2, 0.1, 0.15))


def test_psi_is_stable_and_clipped():
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # underflow is fine
        assert psi("logistic", [1e4, -1e4]) == pytest.approx([0.0, 1.0])
        assert psi("exponential", -1e3) == pytest.approx(math.exp(50.0))
        assert _compiled("logistic", 1e4, 1.0, 0.0, 0.1, 1.0, 0.5)[0] == 0.0
        assert _compiled("exponential", -1e3, 1.0, 0.0, 1.0, 1.0, 0.5)[0] == pytest.approx(
            math.exp(50.0))


@pytest.mark.parametrize("model", MODELS)
def test_psi_is_minus_the_derivative_of_the_loss(model):
    z = np.array([-1.7, -0.2, 0.35, 0.7, 0.95, 1.6])  # away from the kinks 0.5 and 1
    h = 1e-6
    numeric = (margin_loss(model, z - h, 0.5) - margin_loss(model, z + h, 0.5)) / (2 * h)
    np.testing.assert_allclose(psi(model, z, 0.5), numeric, rtol=1e-6, atol=1e-8)
    assert margin_loss("huber", [2.0, 0.75, -1.0], 0.5) == pytest.approx([0.0, 0.0625, 1.75])


def _circles(n=80, seed=0):
    X, y = concentric_circles(n, noise=0.15, random_state=seed)
    return X, y.astype(float)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("model", ["l1_svm", "logistic", "ls_svm", "l2_svm_l1"])
def test_output_vector_is_the_kernel_sum_and_naive_gives_the_same_iterates(backend, model):
    X, y = _circles()
    K = kernel_matrix(X, gamma=2.0)
    kw = dict(C=2.0, gamma=2.0, bias=True, n_epochs=6, random_state=1, backend=backend)
    state, _ = online_kernel(X, y, model, **kw)
    np.testing.assert_allclose(state.f, K @ state.alpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(state.outputs, K @ state.alpha + state.b, rtol=1e-10, atol=1e-12)
    naive, _ = online_kernel(X, y, model, update="naive", **kw)
    np.testing.assert_allclose(naive.alpha, state.alpha, rtol=1e-10, atol=1e-12)
    assert naive.b == pytest.approx(state.b, rel=1e-10, abs=1e-12)
    np.testing.assert_allclose(naive.outputs, state.outputs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("cache_size", [200, 0.003, 0])  # all columns, 4 of 80 (LRU), none
def test_numba_and_numpy_give_the_same_iterates_and_cache_counts(model, bias, cache_size):
    X, y = _circles()
    C = 2.0 if model in L1_MODELS else 1.0
    kw = dict(C=C, eta=0.1, gamma=2.0, bias=bias, n_epochs=4, sampling="iid",
              cache_size=cache_size, record_every=37, random_state=5)
    ref, h_ref = online_kernel(X, y, model, backend="numpy", **kw)
    fast, h_fast = online_kernel(X, y, model, backend="numba", **kw)
    np.testing.assert_allclose(fast.alpha, ref.alpha, rtol=1e-10, atol=1e-12)
    assert fast.b == pytest.approx(ref.b, rel=1e-10, abs=1e-12)
    assert set(h_fast) == set(h_ref)
    for name in ("iteration", "n_nonzero", "kernel_evaluations", "cache_hits", "cache_misses",
                 "train_error"):
        np.testing.assert_array_equal(h_fast[name], h_ref[name], err_msg=name)
    np.testing.assert_allclose(h_fast["objective"], h_ref["objective"], rtol=1e-10)
    np.testing.assert_allclose(h_fast["rkhs_objective"], h_ref["rkhs_objective"], rtol=1e-10)
    np.testing.assert_array_equal(fast.cache.slot_of, ref.cache.slot_of)
    if cache_size == 200:  # every column is computed once, then always hit
        assert h_ref["cache_misses"][-1] == np.count_nonzero(ref.cache.slot_of >= 0)
    if cache_size == 0:
        assert h_ref["cache_hits"][-1] == 0


@pytest.mark.parametrize("model", ["l1_svm", "ls_svm"])
def test_estimators_agree_across_backends_with_naive_update(model):
    X, y = _circles(60)
    common = dict(model=model, bias=True, update="naive", cache_size=0.002, n_epochs=3,
                  record_every=50, random_state=3, gamma=2.0)
    a = OnlineKernelClassifier(backend="numpy", **common).fit(X, y)
    b = OnlineKernelClassifier(backend="numba", **common).fit(X, y)
    np.testing.assert_allclose(b.alpha_, a.alpha_, rtol=1e-10, atol=1e-12)
    assert b.intercept_ == pytest.approx(a.intercept_, rel=1e-10)
    for name in ("cache_hits", "cache_misses", "kernel_evaluations"):
        np.testing.assert_array_equal(b.history_[name], a.history_[name])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_lru_cache_evicts_the_least_recently_used(backend):
    X = np.random.default_rng(0).normal(size=(5, 3))
    n_slots = 2
    cache = ColumnCache(X, "gaussian", 0.5, 3, 1.0, cache_size=n_slots * 5 * 8 / 2 ** 20)
    assert cache.slots.shape == (2, 5)
    code = check_kernel_params("gaussian", 0.5)[0]

    def column(i):
        if backend == "numpy":
            return cached_column_numpy(cache, i)
        return _cached_column_numba(*row_view(X), squared_row_norms(X),
                                    np.ascontiguousarray(X.T), np.zeros(3), i, code, 0.5, 3, 1.0,
                                    cache.slots, cache.slot_of, cache.owner,
                                    cache.last_used, cache.counters, cache.scratch)

    K = kernel_matrix(X, gamma=0.5)
    hits = []
    for i in [0, 1, 0, 2, 1, 0, 0]:  # 2 evicts 1 (0 was used later), 1 evicts 0, 0 evicts 2
        before = cache.stats()["cache_hits"]
        np.testing.assert_allclose(column(i), K[:, i], rtol=1e-12)
        hits.append(cache.stats()["cache_hits"] > before)
    assert hits == [False, False, True, False, False, False, True]
    assert cache.stats() == dict(kernel_evaluations=25, cache_hits=2, cache_misses=5)
    assert sorted(cache.owner) == [0, 1] and cache.slot_of[2] == -1


def test_no_cache_computes_every_column():
    X, y = _circles(50)
    state, h = online_kernel(X, y, "ls_svm", cache_size=0, n_epochs=2, record_every=100,
                             random_state=0)
    assert state.cache.slots.shape == (0, 50)
    assert h["cache_hits"][-1] == 0 and h["cache_misses"][-1] == 100  # dense: every step
    assert h["kernel_evaluations"][-1] == 100 * 50


def test_output_update_skips_columns_that_the_naive_update_needs():
    """Speed-up #2: a hinge non-violator with alpha_i = 0 costs O(1), no kernel column."""
    X, y = two_gaussian_blobs(200, separation=3.0, random_state=0)
    kw = dict(C=10.0, gamma=0.1, n_epochs=5, cache_size=0, record_every=1000, random_state=0)
    state, h_out = online_kernel(X, y, "l1_svm", **kw)
    _, h_naive = online_kernel(X, y, "l1_svm", update="naive", **kw)
    assert h_naive["kernel_evaluations"][-1] == 1000 * 200
    assert np.mean(state.alpha == 0) > 0.5
    assert h_out["kernel_evaluations"][-1] < 0.6 * h_naive["kernel_evaluations"][-1]


def test_ls_svm_solves_its_linear_system():
    """Without bias the fixed point is (K + I/C) alpha = y; with eta (C + 1) = 0.75 the
    cyclic sweeps are a relaxed Gauss-Seidel iteration, which converges."""
    X, y = _circles(120)
    C = 0.5
    state, _ = online_kernel(X, y, "ls_svm", C=C, eta=0.5, gamma=2.0, n_epochs=200,
                             sampling="permutation", random_state=0)
    expected = np.linalg.solve(kernel_matrix(X, gamma=2.0) + np.eye(120) / C, y)
    np.testing.assert_allclose(state.alpha, expected, atol=1e-10)


def test_l2_svm_reaches_its_fixed_point():
    X, y = _circles(120)
    state, _ = online_kernel(X, y, "l2_svm", C=1.0, eta=0.2, gamma=2.0, n_epochs=300,
                             sampling="permutation", random_state=0)
    fixed = 1.0 * y * psi("l2_svm", y * state.outputs)
    np.testing.assert_allclose(state.alpha, fixed, atol=1e-10)
    assert 0 < np.count_nonzero(state.alpha) < 120


def test_sparsity_curiosity():
    """L2 SVM: examples that never violate keep alpha_i = 0; LS-SVM: every alpha_i moves;
    the ||alpha||_1 models have exact zeros."""
    X, y = two_gaussian_blobs(300, separation=3.0, random_state=0)  # ~5% of points overlap
    fit = lambda model, C: OnlineKernelClassifier(model=model, C=C, gamma=0.1,  # noqa: E731
                                                  random_state=0).fit(X, y)
    for C in (1.0, 10.0):
        assert np.mean(fit("l2_svm", C).alpha_ == 0.0) > 0.25
        assert np.all(fit("ls_svm", C).alpha_ != 0.0)
    for model in L1_MODELS:
        clf = fit(model, 2.0)
        assert clf.score(X, y) > 0.9 and np.mean(clf.alpha_ == 0.0) > 0.25


@pytest.mark.parametrize("data", ["circles", "checkerboard"])
def test_every_model_learns_about_as_well_as_svc(data):
    if data == "circles":
        make = lambda n, seed: concentric_circles(n, noise=0.15, random_state=seed)  # noqa: E731
    else:
        make = lambda n, seed: checkerboard(n, noise=0.05, random_state=seed)  # noqa: E731
    (Xtr, ytr), (Xte, yte) = make(400, 0), make(1000, 1)
    reference = SVC(C=1.0, gamma=2.0).fit(Xtr, ytr).score(Xte, yte)
    for model in MODELS:
        # ||alpha||_1 models: C > 1 so coefficients leave 0; a decaying step calms them
        kw = dict(C=2.0, eta_decay=0.5) if model in L1_MODELS else dict(C=1.0)
        clf = OnlineKernelClassifier(model=model, gamma=2.0, n_epochs=20, random_state=0, **kw)
        assert clf.fit(Xtr, ytr).score(Xte, yte) > reference - 0.03, model


@pytest.mark.parametrize("model", MODELS)
def test_objectives_decrease_with_a_small_step(model):
    X, y = _circles(200)
    C = 2.0 if model in L1_MODELS else 1.0
    _, h = online_kernel(X, y, model, C=C, eta=0.02, gamma=2.0, n_epochs=40, record_every=400,
                         random_state=0)
    assert h["objective"][-1] < 0.7 * h["objective"][0]
    # the RKHS objective, whose stationary point the iteration seeks, decreases at every record
    assert np.all(np.diff(h["rkhs_objective"]) < 0)


def test_estimator_attributes_and_history():
    X, y = _circles(150)
    Xte, yte = _circles(100, seed=1)
    clf = OnlineKernelClassifier(model="l2_svm", bias=True, gamma=2.0, n_epochs=4,
                                 record_every=100, random_state=0).fit(X, y, eval_set=(Xte, yte))
    h = clf.history_
    assert set(h) == {"iteration", "epoch", "seconds", "objective", "rkhs_objective",
                      "train_error", "n_nonzero", "kernel_evaluations", "cache_hits",
                      "cache_misses", "test_error"}
    np.testing.assert_array_equal(h["iteration"], [0, 100, 200, 300, 400, 500, 600])
    np.testing.assert_allclose(h["epoch"], h["iteration"] / 150)
    assert np.all(np.diff(h["seconds"]) >= 0)
    assert h["objective"][0] == pytest.approx(0.5 * 150)  # squared hinge at o = 0
    np.testing.assert_array_equal(h["kernel_evaluations"], 150 * h["cache_misses"])
    assert h["test_error"][-1] == pytest.approx(1 - clf.score(Xte, yte))
    assert h["train_error"][-1] == pytest.approx(1 - clf.score(X, y))
    assert h["n_nonzero"][-1] == len(clf.support_) == clf.n_support_.sum()
    assert clf.n_iter_ == 600 and clf.alpha_.shape == (150,)
    np.testing.assert_array_equal(clf.support_, np.flatnonzero(clf.alpha_))
    np.testing.assert_array_equal(clf.support_vectors_, X[clf.support_])
    np.testing.assert_array_equal(clf.dual_coef_, clf.alpha_[clf.support_])
    K = kernel_matrix(X, gamma=2.0)
    np.testing.assert_allclose(clf.decision_function(X), K @ clf.alpha_ + clf.intercept_,
                               rtol=1e-10, atol=1e-12)
    assert OnlineKernelClassifier(n_epochs=1).fit(X, y).history_ == {}


def test_labels_are_mapped_and_one_vs_rest_handles_multiclass():
    X, y = _circles(200)
    names = np.where(y > 0, "inner", "outer")
    clf = OnlineKernelClassifier(gamma=2.0, random_state=0).fit(X, names)
    assert set(clf.predict(X)) == {"inner", "outer"} and clf.score(X, names) > 0.9
    assert list(clf.classes_) == ["inner", "outer"]  # decision > 0 means classes_[1]
    assert np.all((clf.decision_function(X) > 0) == (clf.predict(X) == "outer"))
    X3 = np.vstack([X, X[:60] + 4.0])
    y3 = np.concatenate([names, np.full(60, "far")])
    ours = OnlineKernelClassifier(gamma=2.0, random_state=0).fit(X3, y3)
    assert ours.score(X3, y3) > 0.9
    wrapped = OneVsRestClassifier(OnlineKernelClassifier(gamma=2.0, random_state=0)).fit(X3, y3)
    np.testing.assert_array_equal(ours.decision_function(X3), wrapped.decision_function(X3))


@pytest.mark.parametrize("model,bias", [("l1_svm", False), ("ls_svm", True)])
def test_one_vs_rest_is_the_binary_model_of_each_class(model, bias):
    """Three classes: estimators_[k] is the binary model fitted on y == classes_[k] with the
    same seed (fit, with its eval_set), and partial_fit continues each class's model."""
    params = dict(model=model, bias=bias, C=2.0, eta=0.05, gamma=0.5, n_epochs=3,
                  record_every=50, random_state=0)
    model3 = OnlineKernelClassifier(**params).fit(_X3, _y3, eval_set=(_X3, _y3))
    assert model3.decision_function(_X3).shape == (50, 3)
    n_records = len(model3.estimators_[0].history_["iteration"])
    assert model3.history_["test_error"].shape == (3, n_records)
    for k, label in enumerate(model3.classes_):
        binary = OnlineKernelClassifier(**params).fit(_X3, _y3 == label,
                                                      eval_set=(_X3, _y3 == label))
        np.testing.assert_array_equal(model3.estimators_[k].alpha_, binary.alpha_)
        assert model3.estimators_[k].intercept_ == binary.intercept_
        np.testing.assert_array_equal(model3.decision_function(_X3)[:, k],
                                      binary.decision_function(_X3))
        np.testing.assert_array_equal(model3.history_["test_error"][k],
                                      binary.history_["test_error"])
    stream = OnlineKernelClassifier(**params)
    stream.partial_fit(_X3[:20], _y3[:20], classes=[-1, 1, 2]).partial_fit(_X3[20:], _y3[20:])
    binary = OnlineKernelClassifier(**params)
    binary.partial_fit(_X3[:20], _y3[:20] == 2, classes=[False, True])
    binary.partial_fit(_X3[20:], _y3[20:] == 2)
    np.testing.assert_array_equal(stream.estimators_[2].alpha_, binary.alpha_)
    np.testing.assert_array_equal(stream.decision_function(_X3)[:, 2],
                                  binary.decision_function(_X3))
    assert stream.n_iter_ == binary.n_iter_ == 50


def test_same_seed_same_model_and_generator_accepted():
    X, y = _circles(100)
    a = OnlineKernelClassifier(sampling="iid", random_state=11).fit(X, y)
    b = OnlineKernelClassifier(sampling="iid", random_state=11).fit(X, y)
    c = OnlineKernelClassifier(sampling="iid", random_state=12).fit(X, y)
    g = OnlineKernelClassifier(sampling="iid", random_state=np.random.default_rng(11)).fit(X, y)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    np.testing.assert_array_equal(a.alpha_, g.alpha_)
    assert not np.array_equal(a.alpha_, c.alpha_)


def test_divergence_is_an_error_not_nan():
    X, y = _circles(100)
    with pytest.raises(ValueError, match="diverged"):
        OnlineKernelClassifier(model="ls_svm", C=10.0, eta=1.0, bias=True, n_epochs=200,
                               random_state=0).fit(X, y)
    # coefficients still finite (~1e22) but the exponential losses overflow: caught as well
    X, y = concentric_circles(300, noise=0.15, random_state=0)
    with pytest.raises(ValueError, match="diverged"):
        OnlineKernelClassifier(model="exponential", C=10.0, eta=0.05, gamma=2.0, bias=True,
                               n_epochs=30, random_state=0).fit(X, y)


_X, _y = two_gaussian_blobs(40, random_state=0)
_X3 = np.vstack([_X, _X[:10] + 5])
_y3 = np.concatenate([_y, np.full(10, 2)])


@pytest.mark.parametrize("kwargs,X,y,match", [
    ({}, with_nan(_X), _y, "NaN"),
    ({}, with_inf(_X), _y, "infinity"),
    ({}, _X, _y[:-1], "inconsistent numbers of samples"),
    ({}, _X, np.ones(40), "one class"),
    ({}, np.empty((0, 2)), np.empty(0), "0 sample"),
    (dict(C=0.0), _X, _y, "'C'"),
    (dict(C=-1.0), _X, _y, "'C'"),
    (dict(eta=0.0), _X, _y, "'eta'"),
    (dict(eta_decay=-0.1), _X, _y, "'eta_decay'"),
    (dict(delta=0.0), _X, _y, "'delta'"),
    (dict(model="svm"), _X, _y, "'model'"),
    (dict(kernel="rbf"), _X, _y, "'kernel'"),
    (dict(gamma=0.0), _X, _y, "'gamma'"),
    (dict(gamma=-1.0), _X, _y, "'gamma'"),
    (dict(cache_size=-1), _X, _y, "'cache_size'"),
    (dict(n_epochs=0), _X, _y, "'n_epochs'"),
    (dict(sampling="cyclic"), _X, _y, "'sampling'"),
    (dict(update="fast"), _X, _y, "'update'"),
    (dict(backend="cuda"), _X, _y, "'backend'"),
    (dict(record_every=0), _X, _y, "'record_every'"),
])
def test_bad_input_is_named(kwargs, X, y, match, forbid):
    import lsl_lib.online_kernel._learner as module

    forbid(module, "_online_kernel_numba_chunk", "online_kernel_numpy_chunk")
    with pytest.raises(ValueError, match=match):
        OnlineKernelClassifier(**kwargs).fit(X, y)


@pytest.mark.parametrize("kwargs,match", [
    (dict(model="svm"), "model"), (dict(C=0.0), "C"), (dict(eta=-1.0), "eta"),
    (dict(eta_decay=-1.0), "eta_decay"), (dict(delta=0.0), "delta"),
    (dict(cache_size=-1.0), "cache_size"), (dict(n_epochs=0), "n_epochs"),
    (dict(sampling="cyclic"), "sampling"), (dict(update="fast"), "update"),
    (dict(kernel="rbf"), "kernel"), (dict(gamma=0.0), "gamma"),
    (dict(record_every=0), "record_every"),
])
def test_functional_api_names_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        online_kernel(_X, _y.astype(float), **kwargs)
    with pytest.raises(ValueError, match="labels -1 and \\+1"):
        online_kernel(_X, np.where(_y > 0, 1.0, 0.0))


def _sparse_problem(n=150, d=25, seed=0):
    A = sp.random(n, d, density=0.25, random_state=seed, format="csr")
    w = np.random.default_rng(seed).normal(size=d)
    return A, np.where(A @ w > np.median(A @ w), 1.0, -1.0)


@pytest.mark.parametrize("kernel", INNER_PRODUCT_KERNELS)
@pytest.mark.parametrize("model", ["l1_svm", "ls_svm", "l2_svm_l1"])
@pytest.mark.parametrize("update,cache_size", [("output", 200), ("output", 0.004),
                                               ("naive", 0)])
def test_sparse_input_numpy_numba_and_dense_agree(kernel, model, update, cache_size):
    """CSR rows give the iterates of dense rows, on both paths (int64 indices accepted)."""
    A, y = _sparse_problem()
    wide = A.copy()
    wide.indices, wide.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    kw = dict(C=2.0, eta=0.05, gamma=0.5, degree=2, kernel=kernel, bias=True, n_epochs=3,
              update=update, cache_size=cache_size, sampling="iid", record_every=100,
              random_state=2)
    dense, h_dense = online_kernel(A.toarray(), y, model, backend="numba", **kw)
    for X, backend in [(A, "numpy"), (wide, "numba"), (A, "numba")]:
        state, h = online_kernel(X, y, model, backend=backend, **kw)
        np.testing.assert_allclose(state.alpha, dense.alpha, rtol=1e-10, atol=1e-12)
        assert state.b == pytest.approx(dense.b, rel=1e-10, abs=1e-12)
        np.testing.assert_allclose(state.f, dense.f, rtol=1e-10, atol=1e-12)
        for name in ("kernel_evaluations", "cache_hits", "cache_misses", "n_nonzero"):
            np.testing.assert_array_equal(h[name], h_dense[name], err_msg=name)
        np.testing.assert_allclose(h["objective"], h_dense["objective"], rtol=1e-10)
    assert np.count_nonzero(dense.alpha) > 0


def test_estimator_on_sparse_input_is_the_dense_estimator():
    A, y = _sparse_problem(seed=1)
    sparse_fit = OnlineKernelClassifier(bias=True, random_state=0).fit(A, y, eval_set=(A, y))
    dense_fit = OnlineKernelClassifier(bias=True, random_state=0).fit(A.toarray(), y)
    np.testing.assert_allclose(sparse_fit.alpha_, dense_fit.alpha_, rtol=1e-10, atol=1e-12)
    assert sp.issparse(sparse_fit.support_vectors_)
    np.testing.assert_allclose(sparse_fit.decision_function(A),
                               dense_fit.decision_function(A.toarray()), rtol=1e-10, atol=1e-12)
    assert sparse_fit.history_ == {}  # eval_set alone records nothing
    with pytest.raises(TypeError, match="kernel='laplacian'"):
        OnlineKernelClassifier(kernel="laplacian").fit(A, y)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("model,bias", [("l1_svm", False), ("ls_svm", True),
                                        ("l2_svm_l1", True), ("logistic", True)])
@pytest.mark.parametrize("sampling", ["permutation", "reshuffle"])
def test_partial_fit_over_chunks_is_one_epoch_of_fit_in_the_same_order(backend, model, bias,
                                                                        sampling):
    """One epoch of fit visits each example once, in the order of one permutation;
    partial_fit over chunks of the examples in that order gives the same model."""
    X, y = _circles(120)
    kw = dict(model=model, bias=bias, C=2.0, gamma=2.0, n_epochs=1, sampling=sampling,
              random_state=3, backend=backend)
    fitted = OnlineKernelClassifier(**kw).fit(X, y)
    order = sample_indices(120, 120, 1, sampling, np.random.default_rng(3))[:, 0]
    streamed = OnlineKernelClassifier(**kw)
    for k, chunk in enumerate(np.array_split(order, [1, 30, 31, 77])):  # sizes 1, 29, 1, 46, 43
        streamed.partial_fit(X[chunk], y[chunk], classes=[-1.0, 1.0] if k == 0 else None)
    np.testing.assert_allclose(streamed.alpha_, fitted.alpha_[order], rtol=1e-10, atol=1e-12)
    assert streamed.intercept_ == pytest.approx(fitted.intercept_, rel=1e-10, abs=1e-12)
    np.testing.assert_array_equal(streamed.support_, np.flatnonzero(streamed.alpha_))
    np.testing.assert_array_equal(fitted.support_[np.argsort(np.argsort(order)[fitted.support_])],
                                  order[streamed.support_])
    np.testing.assert_array_equal(streamed.n_support_, fitted.n_support_)
    assert streamed.n_iter_ == fitted.n_iter_ == 120
    X_test, _ = _circles(50, seed=1)
    np.testing.assert_allclose(streamed.decision_function(X_test),
                               fitted.decision_function(X_test), rtol=1e-10, atol=1e-12)


def test_partial_fit_on_sparse_chunks_and_after_fit():
    A, y = _sparse_problem(seed=2)
    dense = OnlineKernelClassifier(gamma=0.5, random_state=0)
    sparse = OnlineKernelClassifier(gamma=0.5, random_state=0)
    for chunk in np.array_split(np.arange(150), 4):
        dense.partial_fit(A[chunk].toarray(), y[chunk], classes=[-1.0, 1.0])
        sparse.partial_fit(A[chunk], y[chunk], classes=[-1.0, 1.0])
    assert sp.issparse(sparse.support_vectors_)
    np.testing.assert_allclose(sparse.alpha_, dense.alpha_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sparse.decision_function(A), dense.decision_function(A),
                               rtol=1e-10, atol=1e-12)
    # after fit: the new chunk starts from the fitted expansion, the support grows
    clf = OnlineKernelClassifier(gamma=0.5, random_state=0).fit(A[:100], y[:100])
    before = clf.decision_function(A[100:])
    n_sv = len(clf.support_)
    clf.partial_fit(A[100:101], y[100:101])
    assert clf.alpha_.shape == (101,) and clf.n_iter_ == 10 * 100 + 1
    if y[100] * before[0] < 1:  # a margin violator joins the support with alpha = eta C y
        assert len(clf.support_) == n_sv + 1 and clf.alpha_[100] == pytest.approx(0.1 * y[100])
        expected = before + 0.1 * y[100] * kernel_matrix(A[100:], A[100:101], gamma=0.5)[:, 0]
    else:
        assert len(clf.support_) == n_sv and clf.alpha_[100] == 0.0
        expected = before
    np.testing.assert_allclose(clf.decision_function(A[100:]), expected, rtol=1e-10, atol=1e-12)


def test_partial_fit_checks_classes_labels_and_features():
    X, y = _circles(60)
    clf = OnlineKernelClassifier()
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        clf.partial_fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        OnlineKernelClassifier().partial_fit(X, y, classes=[1])
    clf.partial_fit(X[:30], y[:30], classes=np.unique(y))
    assert clf.gamma_ == pytest.approx(1 / (2 * X[:30].var()))  # from the first chunk
    with pytest.raises(ValueError, match="not in classes_"):
        clf.partial_fit(X[30:], np.where(y[30:] > 0, 2.0, -1.0))
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[30:, :1], y[30:])
    assert clf.history_ == {}


def test_defaults_adapt_to_the_feature_scale():
    """Generated data in small units (coordinates of about 0.02): with gamma = 1/d the
    kernel is almost constant over the data and the model no better than chance; the
    defaults land beside SVC()'s."""
    X, y = concentric_circles(600, noise=0.1, random_state=2)
    X = 0.02 * X
    X_train, y_train, X_test, y_test = X[:400], y[:400], X[400:], y[400:]
    peer = SVC().fit(X_train, y_train).score(X_test, y_test)
    ours = OnlineKernelClassifier(random_state=0).fit(X_train, y_train)
    assert ours.score(X_test, y_test) >= peer - 0.02 and peer > 0.9
    narrow = OnlineKernelClassifier(gamma=None, random_state=0).fit(X_train, y_train)
    assert narrow.score(X_test, y_test) < 0.6


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["a9a", "ijcnn1"])
def test_defaults_land_within_a_point_of_svc_on_real_data(name):
    peer, ours = svc_and_estimator_on_shared(name, OnlineKernelClassifier(random_state=0))
    assert ours >= peer - 0.01


# --- the run loop (chunks, divergence, Ctrl-C), the budget of n_epochs=None ------------

@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("update,cache_size", [("output", 0.002), ("naive", 0.002),
                                               ("output", 0)])
def test_the_iterates_do_not_depend_on_where_the_chunks_end(backend, update, cache_size,
                                                            monkeypatch):
    """One step per chunk gives the coefficients, outputs, bias, cache and counters of
    the default chunks (0.002 MB hold 3 of the 80 columns: evictions across chunk ends;
    eta_decay: the step size of each epoch)."""
    import lsl_lib._core.run_loop as run_loop

    X, y = _circles()
    kw = dict(C=2.0, eta=0.1, eta_decay=0.5, gamma=2.0, bias=True, n_epochs=3, update=update,
              cache_size=cache_size, sampling="iid", record_every=70, random_state=4,
              backend=backend)
    default, h_default = online_kernel(X, y, "l2_svm", **kw)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # one step a chunk
    single, h_single = online_kernel(X, y, "l2_svm", **kw)
    np.testing.assert_array_equal(single.alpha, default.alpha)
    np.testing.assert_array_equal(single.f, default.f)
    assert single.b == default.b and single.t == default.t == 240
    for name in ("slot_of", "owner", "last_used", "counters"):
        np.testing.assert_array_equal(getattr(single.cache, name), getattr(default.cache, name))
    for name in ("objective", "train_error", "kernel_evaluations", "cache_hits"):
        np.testing.assert_array_equal(h_single[name], h_default[name])


@pytest.mark.parametrize("update", ["output", "naive"])
def test_the_evaluation_budget_stops_both_paths_at_the_same_step(update, monkeypatch):
    import lsl_lib._core.run_loop as run_loop

    X, y = _circles()
    kw = dict(C=2.0, gamma=2.0, bias=True, n_epochs=5, update=update, cache_size=0.002,
              random_state=1, max_kernel_evaluations=5000)
    a, _ = online_kernel(X, y, "l1_svm", backend="numpy", **kw)
    b, _ = online_kernel(X, y, "l1_svm", backend="numba", **kw)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)
    c, _ = online_kernel(X, y, "l1_svm", backend="numba", **kw)
    assert a.t == b.t == c.t < 400
    assert 5000 <= a.cache.counters[3] < 5000 + 80  # stopped once reached: < a column more
    np.testing.assert_allclose(b.alpha, a.alpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(c.alpha, b.alpha)
    order = sample_indices(80, 400, 1, "reshuffle", np.random.default_rng(1))[:, 0][:a.t]
    same, _ = online_kernel(X, y, "l1_svm", order=order, **{**kw, "max_kernel_evaluations": None})
    np.testing.assert_allclose(same.alpha, a.alpha, rtol=1e-10, atol=1e-12)


def test_the_default_length_is_ten_epochs_within_a_budget_of_kernel_evaluations(monkeypatch):
    from sklearn.exceptions import ConvergenceWarning

    import lsl_lib.online_kernel._estimator as module

    X, y = _circles()
    full = OnlineKernelClassifier(gamma=2.0, random_state=0).fit(X, y)
    assert full.n_iter_ == 10 * 80
    monkeypatch.setattr(module, "DEFAULT_KERNEL_EVALUATIONS", 3000)
    with pytest.warns(ConvergenceWarning, match="n_epochs.*BudgetedKernelSGDClassifier"):
        short = OnlineKernelClassifier(gamma=2.0, random_state=0).fit(X, y)
    assert 0 < short.n_iter_ < 800
    explicit = OnlineKernelClassifier(gamma=2.0, n_epochs=10, random_state=0).fit(X, y)
    np.testing.assert_array_equal(explicit.alpha_, full.alpha_)


@pytest.mark.parametrize("update", ["output", "naive"])
def test_coefficients_that_grow_by_orders_of_magnitude_are_divergence(update):
    """The LS-SVM past its stable step (eta = 0.12 > 2/21 with C = 10 and a bias): the
    coefficients grow to 1e40 in 20 epochs, finite; it was returned as a model."""
    X, y = _circles(100)
    with pytest.raises(ValueError, match="diverged by step .*grew by orders of magnitude.*"
                                         "eta=0.12.*smaller eta"):
        OnlineKernelClassifier(model="ls_svm", C=10.0, eta=0.12, bias=True, gamma=2.0,
                               n_epochs=20, update=update, random_state=0).fit(X, y)


def test_verbose_shows_a_progress_bar(monkeypatch, capsys):
    import lsl_lib._core.run_loop as run_loop

    monkeypatch.setattr(run_loop, "PROGRESS_DELAY", 0.0)
    X, y = _circles()
    OnlineKernelClassifier(n_epochs=2, verbose=True, random_state=0).fit(X, y)
    assert "online kernel" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_ctrl_c_stops_a_long_fit_within_a_second(method):
    """SIGINT to a child process in a long fit (20 000 rows: a step costs a kernel column
    of 20 000 values; minutes) stops it within a second: fit leaves the estimator unfitted,
    partial_fit the examples of its last whole chunk of steps."""
    import textwrap

    from conftest import assert_sigint_stops_fit

    setup = textwrap.dedent("""
        import numpy as np
        from lsl_lib.online_kernel import OnlineKernelClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(20_000, 10)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
        OnlineKernelClassifier(n_epochs=1).fit(X[:50], y[:50])  # compiles
    """)
    if method == "fit":
        assert_sigint_stops_fit(
            setup + "model = OnlineKernelClassifier(n_epochs=50, cache_size=0)",
            "model.fit(X, y)", delay=2.0,
            after="assert not hasattr(model, 'alpha_') and not hasattr(model, 'classes_')")
    else:
        assert_sigint_stops_fit(
            setup + "model = OnlineKernelClassifier(backend='numpy')"
                    "; model.partial_fit(X[:10], y[:10], classes=[0, 1])",
            "model.partial_fit(X, y)", delay=3.0,
            after="assert 10 < model.n_iter_ < 10 + len(X) and len(model.alpha_) == model.n_iter_"
                  " and np.all(model.support_ < model.n_iter_)"
                  " and np.isfinite(model.decision_function(X[:5])).all()")


# sampling='worst_violator': the example whose step is the largest, read off the output vector

@pytest.mark.parametrize("model", MODELS)
def test_worst_violator_is_the_largest_step_by_brute_force(model):
    rng = np.random.default_rng(7)
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    for _ in range(5):
        alpha, f, b = rng.normal(scale=0.5, size=40), rng.normal(size=40), rng.normal(scale=0.3)
        eta, C = 0.1, 2.0
        steps = []
        for j in range(40):  # one step at a time, as the rule takes it
            Lam, P = lambda_and_penalty(model, y[j] * (f[j] + b), y[j], alpha[j], eta, C, 0.5)
            steps.append(abs((alpha[j] + Lam) - P - alpha[j]))
        chosen = worst_violator_numpy(model, y, alpha, f + b, eta, C, 0.5)
        assert steps[chosen] == pytest.approx(max(steps), rel=1e-12)
        assert _worst_violator_numba(MODELS.index(model), y, alpha, f, b, eta, C, 0.5) == chosen


def test_worst_violator_ties_go_to_the_smallest_margin_then_index():
    y = np.array([1.0, -1.0, 1.0, 1.0])
    alpha = np.zeros(4)
    # hinge: every violator's step is eta C; the smallest margin is example 2 (z = -0.5)
    assert worst_violator_numpy("l1_svm", y, alpha, np.array([0.2, 0.1, -0.5, 3.0]), 0.1,
                                1.0) == 2
    # all margins 0 (the start): the first index
    assert worst_violator_numpy("l1_svm", y, alpha, np.zeros(4), 0.1, 1.0) == 0


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("bias", [False, True])
def test_worst_violator_numba_and_numpy_give_the_same_iterates(model, bias):
    X, y = _circles()
    kw = dict(C=2.0, eta=0.1, gamma=2.0, bias=bias, n_epochs=2, sampling="worst_violator",
              cache_size=0.003, record_every=29)
    ref, h_ref = online_kernel(X, y, model, backend="numpy", random_state=0, **kw)
    fast, h_fast = online_kernel(X, y, model, backend="numba", random_state=1, **kw)
    np.testing.assert_allclose(fast.alpha, ref.alpha, rtol=1e-10, atol=1e-12)
    assert fast.b == pytest.approx(ref.b, rel=1e-10, abs=1e-12)
    for name in ("n_nonzero", "kernel_evaluations", "cache_hits", "cache_misses"):
        np.testing.assert_array_equal(h_fast[name], h_ref[name], err_msg=name)
    # the output vector is still K alpha: the choice changed the order, not the rule
    K = kernel_matrix(X, X, "gaussian", 2.0)
    np.testing.assert_allclose(ref.f, K @ ref.alpha, rtol=1e-10, atol=1e-10)


def test_worst_violator_reaches_a_fixed_point_of_the_ls_svm():
    # The LS-SVM without bias solves (K + I/C) alpha = y: the worst violator is the
    # Gauss-Southwell rule, and with eta = 1/(C K_ii + 1) each step solves its coordinate.
    X, y = _circles()
    C = 2.0
    kw = dict(C=C, eta=1 / (C + 1), gamma=2.0, bias=False, n_epochs=20, backend="numba")
    state, _ = online_kernel(X, y, "ls_svm", sampling="worst_violator", **kw)
    K = kernel_matrix(X, X, "gaussian", 2.0)
    exact = np.linalg.solve(K + np.eye(len(y)) / C, y)
    np.testing.assert_allclose(state.alpha, exact, atol=1e-6)


def test_worst_violator_needs_the_output_vector(forbid):
    import lsl_lib.online_kernel._learner as module

    forbid(module, "_online_kernel_numba_chunk", "online_kernel_numpy_chunk")
    with pytest.raises(ValueError, match="sampling='worst_violator'.*update='output'"):
        OnlineKernelClassifier(sampling="worst_violator", update="naive").fit(_X, _y)
    with pytest.raises(ValueError, match="'sampling'"):
        OnlineKernelClassifier(sampling="worst").fit(_X, _y)


def test_worst_violator_draws_nothing():
    X, y = _circles()
    a = OnlineKernelClassifier(sampling="worst_violator", n_epochs=2, random_state=0).fit(X, y)
    b = OnlineKernelClassifier(sampling="worst_violator", n_epochs=2, random_state=9).fit(X, y)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
