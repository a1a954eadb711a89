"""Kernel Pegasos: the recurrence reproduces linear Pegasos, both paths agree (iterates
and cache counts), the LRU cache behaves as designed (scikit-learn's contract:
test_common.py)."""
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import svc_and_estimator_on_shared
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

import lsl_lib.kernel_pegasos as module
from lsl_lib._core.kernel_loops import GAUSSIAN
from lsl_lib._core.linalg import squared_row_norms
from lsl_lib._core.rows import row_view
from lsl_lib.datasets import concentric_circles, load_digits, two_gaussian_blobs
from lsl_lib.kernel_pegasos import (
    KernelPegasosClassifier,
    KernelPegasosState,
    _kernel_pegasos_numba_chunk,
    kernel_pegasos,
    kernel_pegasos_numpy_chunk,
    optimal_objective,
)
from lsl_lib.kernels import INNER_PRODUCT_KERNELS, KERNELS, kernel_matrix
from lsl_lib.losses import get_loss, primal_objective
from lsl_lib.pegasos import PegasosClassifier, reference_solution
from estimator_support import with_nan

X_circ, y_circ = concentric_circles(300, noise=0.15, random_state=0)
Y_CIRC = y_circ.astype(float)


@pytest.mark.parametrize("sampling", ["iid", "permutation", "reshuffle"])
def test_linear_kernel_reproduces_linear_pegasos(sampling):
    """The oracle of CONTRIBUTING.md §7: same index sequence, same iterates (to 1e-10)."""
    X, y = two_gaussian_blobs(400, n_features=5, random_state=1)
    lam, T = 1e-2, 3000
    kernel = KernelPegasosClassifier(lam=lam, n_iter=T, kernel="linear", sampling=sampling,
                                     random_state=5).fit(X, y)
    linear = PegasosClassifier(lam=lam, n_iter=T, projection=False, fit_intercept=False,
                               averaging="none", sampling=sampling, random_state=5).fit(X, y)
    w = kernel.dual_coef_ @ kernel.support_vectors_
    np.testing.assert_allclose(w, linear.coef_[0], rtol=1e-10)
    np.testing.assert_array_equal(kernel.predict(X), linear.predict(X))


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("cache_size", [0, 0.005, 100])
def test_numba_and_numpy_agree_on_iterates_and_cache_counts(kernel, cache_size):
    common = dict(gamma=1.0, degree=2, coef0=1.0, kernel=kernel, cache_size=cache_size,
                  sampling="reshuffle", random_state=3, record_every=250)
    a, ha = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 1000, backend="numpy", **common)
    b, hb = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 1000, backend="numba", **common)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    np.testing.assert_array_equal(a.support[:a.m], b.support[:b.m])
    np.testing.assert_array_equal(a.counters, b.counters)
    for column in ha:
        if column != "seconds":
            np.testing.assert_allclose(hb[column], ha[column], rtol=1e-10, err_msg=column)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_lru_cache_hand_traced(backend):
    """Two slots, accesses 0 1 0 2 1 0: miss miss hit miss(evict 1) miss(evict 0) miss(evict 2)."""
    X, y = X_circ[:3], np.array([1.0, -1.0, 1.0])
    indices = np.array([0, 1, 0, 2, 1, 0])
    state = KernelPegasosState(3, 2, compiled=backend == "numba")
    if backend == "numpy":
        kernel_pegasos_numpy_chunk(X, y, state, indices, 1.0, "gaussian", 1.0, 3, 1.0)
    else:
        state.m, done = _kernel_pegasos_numba_chunk(
            *row_view(X), squared_row_norms(X), np.zeros(X.shape[1]), y, state.alpha,
            state.support, 0, 0,
            indices, 1.0, GAUSSIAN, 1.0, 3, 1.0, state.slots, state.slot_of, state.owner,
            state.filled, state.last_used, state.counters, state.coef, state.position,
            state.scratch, 10**6)
        assert done == 6
    assert list(state.counters[:2]) == [1, 5]


def test_cache_counts_without_and_with_a_full_cache():
    T = 900
    none, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, T, gamma=1.0, cache_size=0, random_state=0)
    full, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, T, gamma=1.0, cache_size=100, random_state=0)
    assert none.counters[0] == 0 and none.counters[1] == T
    visited = len(np.unique(np.random.default_rng(0).integers(0, 300, T)))
    assert full.counters[1] == visited and full.counters[0] == T - visited
    assert full.counters[2] < none.counters[2]  # kernel values reused
    np.testing.assert_array_equal(full.alpha, none.alpha)  # the cache never changes iterates


def test_first_example_is_a_violator_and_alpha_counts():
    state, _ = kernel_pegasos(X_circ, Y_CIRC, 1.0, 1, gamma=1.0, random_state=2)
    i = np.random.default_rng(2).integers(0, 300)
    assert state.alpha.sum() == 1 and state.alpha[i] == 1 and state.m == 1
    state, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 2000, gamma=1.0, random_state=2)
    assert state.alpha.sum() <= 2000 and np.all(state.alpha >= 0)
    assert set(np.flatnonzero(state.alpha)) == set(state.support[:state.m])


def test_decision_function_uses_the_support_only():
    clf = KernelPegasosClassifier(lam=1e-3, n_iter=2000, gamma=1.0, random_state=0)
    clf.fit(X_circ, y_circ)
    full = np.zeros(300)
    full[clf.support_] = clf.alpha_
    expected = kernel_matrix(X_circ, X_circ, gamma=1.0) @ (full * Y_CIRC) / (1e-3 * 2000)
    np.testing.assert_allclose(clf.decision_function(X_circ), expected, rtol=1e-10, atol=1e-12)
    assert len(clf.support_) < 300


def test_optimal_objective_matches_liblinear_for_the_linear_kernel():
    X, y = two_gaussian_blobs(300, n_features=3, random_state=4)
    W = reference_solution(X, y.astype(float), 1e-2, "hinge")
    liblinear = primal_objective(W, X, y, 1e-2, get_loss("hinge"))
    assert optimal_objective(X, y, 1e-2, kernel="linear") == pytest.approx(liblinear, rel=1e-6)


def test_converges_and_matches_svc_accuracy():
    X_test, y_test = concentric_circles(1000, noise=0.15, random_state=1)
    lam = 1e-3
    clf = KernelPegasosClassifier(lam=lam, n_iter=15_000, gamma=1.0, record_every=5000,
                                  reference_objective="auto", random_state=0).fit(X_circ, y_circ)
    sub = clf.history_["suboptimality"]
    assert np.all(sub > -1e-9)  # f* is the minimum (its dual bound is tight to 1e-8)
    assert sub[-1] < 0.01 * sub[0] and sub[-1] < sub[1]
    svc = SVC(C=1 / (lam * 300), gamma=1.0).fit(X_circ, y_circ)
    assert clf.score(X_test, y_test) >= svc.score(X_test, y_test) - 0.02


def test_multiclass_one_vs_rest_is_the_binary_model_of_each_class():
    """Three classes: estimators_[k] is the binary model fitted on y == classes_[k] with the
    same seed; the scores are their columns; on digits (10 classes), the scores of
    scikit-learn's OneVsRestClassifier."""
    X3 = np.vstack([X_circ, X_circ[:60] + 3.0])
    y3 = np.concatenate([y_circ, np.full(60, 2)])
    params = dict(lam=1e-3, n_iter=2000, gamma=1.0, random_state=0)
    model = KernelPegasosClassifier(**params).fit(X3, y3)
    assert len(model.estimators_) == 3 and model.decision_function(X3).shape == (360, 3)
    for k, label in enumerate(model.classes_):
        binary = KernelPegasosClassifier(**params).fit(X3, y3 == label)
        np.testing.assert_array_equal(model.estimators_[k].support_, binary.support_)
        np.testing.assert_array_equal(model.estimators_[k].dual_coef_, binary.dual_coef_)
        np.testing.assert_array_equal(model.decision_function(X3)[:, k],
                                      binary.decision_function(X3))
    np.testing.assert_array_equal(model.predict(X3),
                                  model.classes_[model.decision_function(X3).argmax(axis=1)])
    X_train, X_test, y_train, y_test = load_digits(test_size=0.3)
    digits = KernelPegasosClassifier(lam=1e-4, gamma=0.05, random_state=0).fit(X_train, y_train)
    wrapped = OneVsRestClassifier(KernelPegasosClassifier(lam=1e-4, gamma=0.05, random_state=0))
    np.testing.assert_array_equal(digits.decision_function(X_test),
                                  wrapped.fit(X_train, y_train).decision_function(X_test))
    assert digits.score(X_test, y_test) > 0.95
    assert digits.history_ == {} and digits.n_iter_ == 5 * len(y_train)


_X, _y = X_circ[:40], y_circ[:40]


@pytest.mark.parametrize("params,X,y,match", [
    (dict(), with_nan(_X), _y, "NaN"),
    (dict(), _X, _y[:-1], "inconsistent numbers of samples"),
    (dict(), _X, np.ones(40), "one class"),
    (dict(lam=0.0), _X, _y, "lam"),
    (dict(n_iter=0), _X, _y, "n_iter"),
    (dict(kernel="sigmoid"), _X, _y, "kernel"),
    (dict(gamma=0.0), _X, _y, "gamma"),
    (dict(cache_size=-1.0), _X, _y, "cache_size"),
    (dict(sampling="cyclic"), _X, _y, "sampling"),
    (dict(), np.empty((0, 2)), np.empty(0), "0 sample"),
])
def test_bad_input_is_named_before_compiled_code_runs(params, X, y, match, forbid):
    forbid(module, "_kernel_pegasos_numba_chunk", "kernel_pegasos_numpy_chunk")
    with pytest.raises(ValueError, match=match):
        KernelPegasosClassifier(**params).fit(X, y)


def _sparse_problem(n=200, d=30, seed=0):
    A = sp.random(n, d, density=0.2, random_state=seed, format="csr")
    w = np.random.default_rng(seed).normal(size=d)
    return A, np.where(A @ w > np.median(A @ w), 1.0, -1.0)


@pytest.mark.parametrize("kernel", INNER_PRODUCT_KERNELS)
@pytest.mark.parametrize("cache_size", [0, 0.01, 100])
def test_sparse_input_numpy_numba_and_dense_agree(kernel, cache_size):
    """CSR rows: same counts, support and cache use on both paths and as dense rows;
    objectives to 1e-10 (the int64 indices of load_svmlight_file are accepted)."""
    A, y = _sparse_problem()
    wide = A.copy()
    wide.indices, wide.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    common = dict(kernel=kernel, gamma=0.5, degree=2, coef0=1.0, cache_size=cache_size,
                  random_state=4, record_every=300)
    runs = [kernel_pegasos(X, y, 1e-3, 1200, backend=backend, **common)
            for X, backend in [(A.toarray(), "numba"), (A, "numpy"), (wide, "numba")]]
    (dense, h_dense) = runs[0]
    for state, history in runs[1:]:
        np.testing.assert_array_equal(state.alpha, dense.alpha)
        np.testing.assert_array_equal(state.support[:state.m], dense.support[:dense.m])
        np.testing.assert_array_equal(state.counters, dense.counters)
        for column in ("objective", "n_support", "kernel_evaluations"):
            np.testing.assert_allclose(history[column], h_dense[column], rtol=1e-10,
                                       err_msg=column)
    assert 0 < dense.m < 200


def test_estimator_on_sparse_input_is_the_dense_estimator():
    A, y = _sparse_problem(seed=1)
    sparse_fit = KernelPegasosClassifier(random_state=0).fit(A, y)
    dense_fit = KernelPegasosClassifier(random_state=0).fit(A.toarray(), y)
    assert sparse_fit.gamma_ == pytest.approx(dense_fit.gamma_, rel=1e-12)
    np.testing.assert_array_equal(sparse_fit.support_, dense_fit.support_)
    np.testing.assert_allclose(sparse_fit.dual_coef_, dense_fit.dual_coef_, rtol=1e-10)
    assert sp.issparse(sparse_fit.support_vectors_)
    np.testing.assert_allclose(sparse_fit.decision_function(A), dense_fit.decision_function(A),
                               rtol=1e-10, atol=1e-12)
    with pytest.raises(TypeError, match="kernel='cauchy'"):
        KernelPegasosClassifier(kernel="cauchy").fit(A, y)


def test_defaults_adapt_to_the_feature_scale():
    """Generated data in small units (coordinates of about 0.02): with gamma = 1/d the
    kernel is almost constant over the data (gamma ||x - x'||^2 < 1e-3) and the model
    is no better than chance; the defaults land beside SVC()'s."""
    X, y = concentric_circles(600, noise=0.1, random_state=2)
    X = 0.02 * X
    X_train, y_train, X_test, y_test = X[:400], y[:400], X[400:], y[400:]
    peer = SVC().fit(X_train, y_train).score(X_test, y_test)
    ours = KernelPegasosClassifier(random_state=0).fit(X_train, y_train)
    assert ours.lam_ == pytest.approx(1 / 400) and ours.gamma_ == pytest.approx(
        1 / (2 * X_train.var()))
    assert ours.score(X_test, y_test) >= peer - 0.02 and peer > 0.9
    narrow = KernelPegasosClassifier(gamma=None, random_state=0).fit(X_train, y_train)
    assert narrow.score(X_test, y_test) < 0.6


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["a9a", "ijcnn1"])
def test_defaults_land_within_a_point_of_svc_on_real_data(name):
    peer, ours = svc_and_estimator_on_shared(name, KernelPegasosClassifier(random_state=0))
    assert ours >= peer - 0.01


# --- the run loop (chunks, Ctrl-C), the evaluation budget of n_iter=None -------------

@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("cache_size", [0, 0.01, 100])
def test_the_iterates_do_not_depend_on_where_the_chunks_end(backend, cache_size, monkeypatch):
    """One iteration per chunk gives the counts, the support, the cache's state and its
    counters of the default chunks (the cache of 0.01 MB holds 4 of the 300 rows:
    evictions across chunk ends)."""
    import lsl_lib._core.run_loop as run_loop

    common = dict(gamma=1.0, cache_size=cache_size, record_every=400, random_state=3,
                  backend=backend)
    default, h_default = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 1500, **common)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # one iteration a chunk
    single, h_single = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 1500, **common)
    np.testing.assert_array_equal(single.alpha, default.alpha)
    np.testing.assert_array_equal(single.support, default.support)
    np.testing.assert_array_equal(single.counters, default.counters)
    for column in ("objective", "n_support", "cache_hits", "kernel_evaluations"):
        np.testing.assert_array_equal(h_single[column], h_default[column])
    if backend == "numba":
        for name in ("slot_of", "owner", "filled", "last_used", "coef"):
            np.testing.assert_array_equal(getattr(single, name), getattr(default, name))
        for slot, filled in enumerate(default.filled):  # the values computed in each slot
            np.testing.assert_array_equal(single.slots[slot, :filled],
                                          default.slots[slot, :filled])
    else:
        assert list(single.rows) == list(default.rows)


@pytest.mark.parametrize("cache_size", [0, 100])
def test_the_evaluation_budget_stops_both_paths_at_the_same_iteration(cache_size, monkeypatch):
    import lsl_lib._core.run_loop as run_loop

    common = dict(gamma=1.0, cache_size=cache_size, random_state=1,
                  max_kernel_evaluations=20_000)
    a, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 5000, backend="numpy", **common)
    b, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 5000, backend="numba", **common)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)
    c, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 5000, backend="numba", **common)
    assert a.t == b.t == c.t < 5000
    np.testing.assert_array_equal(a.alpha, b.alpha)
    np.testing.assert_array_equal(a.alpha, c.alpha)
    assert 20_000 <= a.counters[2] < 20_000 + 300  # stopped once reached: < one row more
    before, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, a.t - 1, gamma=1.0, cache_size=cache_size,
                               random_state=1)
    assert before.counters[2] < 20_000
    np.testing.assert_array_equal(
        kernel_pegasos(X_circ, Y_CIRC, 1e-3, a.t, gamma=1.0, cache_size=cache_size,
                       random_state=1)[0].alpha, a.alpha)


def test_the_default_length_is_five_epochs_within_a_budget_of_kernel_evaluations(monkeypatch):
    from sklearn.exceptions import ConvergenceWarning

    full = KernelPegasosClassifier(gamma=1.0, random_state=0).fit(X_circ, y_circ)
    assert full.n_iter_ == 5 * 300
    monkeypatch.setattr(module, "DEFAULT_KERNEL_EVALUATIONS", 30_000)
    with pytest.warns(ConvergenceWarning, match="n_iter.*BudgetedKernelSGDClassifier"):
        short = KernelPegasosClassifier(gamma=1.0, random_state=0).fit(X_circ, y_circ)
    assert 0 < short.n_iter_ < 5 * 300
    same = KernelPegasosClassifier(gamma=1.0, n_iter=short.n_iter_, random_state=0)
    np.testing.assert_array_equal(same.fit(X_circ, y_circ).dual_coef_, short.dual_coef_)
    explicit = KernelPegasosClassifier(gamma=1.0, n_iter=1500, random_state=0)
    np.testing.assert_array_equal(explicit.fit(X_circ, y_circ).dual_coef_, full.dual_coef_)


def test_verbose_shows_a_progress_bar(monkeypatch, capsys):
    import lsl_lib._core.run_loop as run_loop

    monkeypatch.setattr(run_loop, "PROGRESS_DELAY", 0.0)
    KernelPegasosClassifier(n_iter=300, verbose=True, random_state=0).fit(X_circ, y_circ)
    assert "kernel Pegasos" in capsys.readouterr().err


def test_ctrl_c_stops_a_long_fit_within_a_second():
    """SIGINT to a child process in a fit of minutes (5 000 rows, 10^6 iterations: the
    support grows to thousands of rows); the fit stops within a second, unfitted."""
    import textwrap

    from conftest import assert_sigint_stops_fit

    setup = textwrap.dedent("""
        import numpy as np
        from lsl_lib.kernel_pegasos import KernelPegasosClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(5000, 10)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
        KernelPegasosClassifier(n_iter=10).fit(X[:50], y[:50])  # compiles
    """)
    assert_sigint_stops_fit(
        setup + "model = KernelPegasosClassifier(n_iter=10**6, lam=1e-6, cache_size=0)",
        "model.fit(X, y)", delay=2.0,
        after="assert not hasattr(model, 'support_') and not hasattr(model, 'classes_')")
