"""Pegasos: the two paths agree, the iterations are the lecture's, the estimators
reject bad input before any compiled code runs (scikit-learn's contract: test_common.py)."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.class_weight import compute_sample_weight

from lsl_lib.datasets import (linear_teacher, load_digits, load_shared, shared_data_dir,
                              two_gaussian_blobs)
from lsl_lib.losses import LOSSES, get_loss, primal_objective
from lsl_lib._core.sampling import weighted_sample_indices
from lsl_lib.pegasos import (PegasosClassifier, PegasosRegressor, pegasos,
                             projection_radius2, reference_solution, weighted_objective)
from estimator_support import with_inf, with_nan


def _problem(task, n=300, d=8, K=3, seed=0):
    """A well-conditioned problem: unit-norm rows, so that lam = 0.1 keeps every
    step contractive and rounding differences are not amplified (with tiny lam and
    a smooth loss the early steps 1/(lam t) make the iteration chaotic: a 1e-15
    change of X changes the result at 1e-1, on either path alone)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    if task == "binary":
        y = np.sign(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n))
    elif task == "regression":
        y = X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
    else:
        y = rng.integers(0, K, n).astype(float)
    return X, y


def _variants(X):
    csr = sp.csr_matrix(X)
    csr64 = sp.csr_matrix((csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64)),
                          shape=csr.shape)
    return {"dense": X, "csr": csr, "csr_int64": csr64, "float32": X.astype(np.float32)}


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("projection", [False, True])
@pytest.mark.parametrize("averaging", ["none", "uniform", "suffix"])
def test_numba_and_numpy_give_the_same_iterates(loss, projection, averaging):
    task = get_loss(loss).task
    X, y = _problem(task)
    K = 3 if task == "multiclass" else 1
    for name, Xv in _variants(X).items():
        for batch_size, sampling in [(1, "iid"), (7, "reshuffle")]:
            kwargs = dict(n_outputs=K, loss=loss, batch_size=batch_size, sampling=sampling,
                          projection=projection, averaging=averaging, random_state=4,
                          record_every=97)
            ref, h_ref = pegasos(Xv, y, 0.1, 400, backend="numpy", **kwargs)
            fast, h_fast = pegasos(Xv, y, 0.1, 400, backend="numba", **kwargs)
            np.testing.assert_allclose(fast.coef, ref.coef, rtol=1e-10, atol=1e-12,
                                       err_msg=f"{name}, k={batch_size}")
            np.testing.assert_allclose(fast.W, ref.W, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(h_fast["objective"], h_ref["objective"], rtol=1e-10)
            assert fast.n_averaged == ref.n_averaged and fast.t == ref.t == 400


def test_numba_and_numpy_agree_on_real_data_with_the_hinge():
    """The hinge's subgradient is piecewise constant: on raw digits with a small lam
    both paths still agree (no amplification), over many iterations."""
    X, y = load_digits(binary=(3, 8))
    for projection in (False, True):
        kw = dict(lam=1e-4, projection=projection, averaging="uniform", random_state=0)
        a, _ = pegasos(X, y.astype(float), n_iter=5000, backend="numpy", **kw)
        b, _ = pegasos(X, y.astype(float), n_iter=5000, backend="numba", **kw)
        np.testing.assert_allclose(b.coef, a.coef, rtol=1e-10, atol=1e-10)


def _hand_pegasos(X, y, lam, idx):
    """Algorithm 1 of the Pegasos paper, k = 1, written out independently."""
    w = np.zeros(X.shape[1])
    for t, i in enumerate(idx, start=1):
        eta = 1.0 / (lam * t)
        violated = y[i] * (w @ X[i]) < 1
        w = (1 - eta * lam) * w + (eta * y[i] * X[i] if violated else 0.0)
    return w


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_iterates_are_the_papers_algorithm(backend):
    X, y = _problem("binary", n=50)
    state, _ = pegasos(X, y, 0.05, 200, backend=backend, random_state=7)
    from lsl_lib._core.sampling import sample_indices
    idx = sample_indices(50, 200, 1, "iid", np.random.default_rng(7))[:, 0]
    np.testing.assert_allclose(state.coef[0], _hand_pegasos(X, y, 0.05, idx), rtol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_first_step_is_not_lost(backend):
    """At t = 1 the shrink (1 - eta_1 lam) is 0; w_2 = eta_1 y_i x_i = y_i x_i / lam."""
    X, y = _problem("binary", n=20)
    state, _ = pegasos(X, y, 0.5, 1, backend=backend, sampling="permutation", random_state=1)
    i = np.random.default_rng(1).permutation(20)[0]
    np.testing.assert_allclose(state.coef[0], y[i] * X[i] / 0.5, rtol=1e-14)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_projection_keeps_w_in_the_ball(backend):
    X, y = load_digits(binary=(1, 7))
    norms = []
    pegasos(X, y.astype(float), 1e-3, 300, projection=True, record_every=1, backend=backend,
            random_state=0, monitor=lambda W: {"norm": norms.append(np.linalg.norm(W)) or 0})
    assert max(norms) <= 1 / np.sqrt(1e-3) * (1 + 1e-12)
    assert max(norms) > 0.99 / np.sqrt(1e-3)  # the projection was active
    assert projection_radius2(y, 1e-3, get_loss("hinge")) == pytest.approx(1e3)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_averages_are_means_of_the_iterates(backend):
    X, y = _problem("binary")
    iterates = []
    pegasos(X, y, 0.1, 40, record_every=1, backend=backend, random_state=2,
            monitor=lambda W: {"i": iterates.append(W.copy()) or 0})
    iterates = np.array(iterates[1:])  # w_2 ... w_41
    uniform, _ = pegasos(X, y, 0.1, 40, averaging="uniform", backend=backend, random_state=2)
    suffix, _ = pegasos(X, y, 0.1, 40, averaging="suffix", suffix_fraction=0.25,
                        backend=backend, random_state=2)
    np.testing.assert_allclose(uniform.coef, iterates.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(suffix.coef, iterates[-10:].mean(axis=0), rtol=1e-12)


def test_pegasos_converges_to_liblinear_optimum():
    X, y = two_gaussian_blobs(2000, n_features=5, random_state=0)
    X = np.hstack([X, np.ones((len(X), 1))])
    lam = 1e-2
    loss = get_loss("hinge")
    W_star = reference_solution(X, y.astype(float), lam, loss)
    f_star = primal_objective(W_star, X, y, lam, loss)
    clf_obj = primal_objective(
        LinearSVC(C=1 / (lam * len(X)), loss="hinge", fit_intercept=False, dual=True,
                  tol=1e-8, max_iter=100_000).fit(X, y).coef_, X, y, lam, loss)
    assert f_star == pytest.approx(clf_obj, rel=1e-9)
    _, history = pegasos(X, y.astype(float), lam, 40_000, averaging="suffix", record_every=10_000,
                         reference_objective=f_star, random_state=0)
    sub = history["suboptimality"]
    assert np.all(sub >= -1e-9)  # f_star is the minimum
    assert sub[-1] < 5e-3 * f_star  # 20 epochs; the rate is O(log T / (lam T))
    assert sub[-1] < sub[1]


@pytest.mark.parametrize("loss", ["log", "squared", "softmax"])
def test_reference_solution_is_stationary_for_smooth_losses(loss):
    task = get_loss(loss).task
    X, y = _problem(task)
    K = 3 if task == "multiclass" else 1
    lossf = get_loss(loss)
    W = reference_solution(X, y, 0.01, lossf, n_outputs=K)
    s = X @ W.T
    G = lossf.subgradient(y, s) if task == "multiclass" else lossf.subgradient(y, s[:, 0])[:, None]
    grad = 0.01 * W + G.T @ X / len(X)
    assert np.linalg.norm(grad) < 1e-7


def test_estimator_history_columns_and_record_points():
    X, y = two_gaussian_blobs(400, random_state=1)
    clf = PegasosClassifier(lam=1e-2, n_iter=1000, record_every=250, reference_objective="auto",
                            random_state=0).fit(X, y, eval_set=(X[:100], y[:100]))
    h = clf.history_
    assert set(h) == {"iteration", "epoch", "seconds", "objective", "suboptimality", "test_error"}
    np.testing.assert_array_equal(h["iteration"], [0, 250, 500, 750, 1000])
    np.testing.assert_allclose(h["epoch"], h["iteration"] / 400)
    assert np.all(np.diff(h["seconds"]) >= 0)
    assert h["objective"][0] == pytest.approx(1.0)  # hinge at w = 0
    assert h["test_error"][-1] == pytest.approx(1 - clf.score(X[:100], y[:100]))
    reg = PegasosRegressor(n_iter=400, record_every=200, random_state=0).fit(X, y, eval_set=(X, y))
    assert reg.history_["test_mse"][-1] == pytest.approx(np.mean((reg.predict(X) - y) ** 2))
    assert PegasosClassifier(n_iter=10).fit(X, y).history_ == {}


@pytest.mark.parametrize("Est,loss", [(PegasosClassifier, "hinge"), (PegasosClassifier, "softmax"),
                                      (PegasosRegressor, "squared")])
def test_estimators_agree_across_backends(Est, loss):
    X, y = _problem("regression" if Est is PegasosRegressor else "binary")
    common = dict(lam=0.1, loss=loss, n_iter=500, batch_size=4, random_state=3, record_every=100)
    a = Est(backend="numpy", **common).fit(X, y)
    b = Est(backend="numba", **common).fit(X, y)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-10)
    np.testing.assert_allclose(b.history_["objective"], a.history_["objective"], rtol=1e-10)


def test_same_seed_same_model_and_generator_accepted():
    X, y = two_gaussian_blobs(300, random_state=2)
    a = PegasosClassifier(n_iter=500, random_state=11).fit(X, y)
    b = PegasosClassifier(n_iter=500, random_state=11).fit(X, y)
    c = PegasosClassifier(n_iter=500, random_state=12).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
    g = PegasosClassifier(n_iter=500, random_state=np.random.default_rng(11)).fit(X, y)
    np.testing.assert_array_equal(g.coef_, a.coef_)


def test_partial_fit_continues_t():
    X, y = two_gaussian_blobs(300, random_state=3)
    clf = PegasosClassifier(lam=1e-2, batch_size=10, random_state=0, record_every=10)
    clf.partial_fit(X[:150], y[:150], classes=[-1, 1])
    assert clf.t_ == 15
    clf.partial_fit(X[150:], y[150:])
    assert clf.t_ == 30 and clf.n_iter_ == 15
    assert len(clf.history_["iteration"]) == 2 * 3  # two calls, records at 0, 10, 15
    with pytest.raises(ValueError, match="classes"):
        PegasosClassifier().partial_fit(X, y)
    reg = PegasosRegressor(random_state=0).partial_fit(X, y.astype(float))
    reg.partial_fit(X, y.astype(float))
    assert reg.t_ == 600


def test_labels_are_mapped_and_back():
    X, y = two_gaussian_blobs(300, random_state=4)
    names = np.where(y > 0, "spam", "ham")
    clf = PegasosClassifier(lam=1e-2, random_state=0).fit(X, names)
    assert set(clf.predict(X)) <= {"spam", "ham"}
    assert clf.score(X, names) > 0.9
    assert clf.decision_function(X).shape == (300,)
    assert not hasattr(clf, "predict_proba")  # hinge: no probabilities


def test_multiclass_direct_formulations_on_digits():
    Xtr, Xte, ytr, yte = load_digits(test_size=0.3)
    for loss in ("multiclass_hinge", "softmax"):
        clf = PegasosClassifier(lam=1e-3, loss=loss, averaging="suffix", random_state=0)
        clf.fit(Xtr, ytr)
        assert clf.coef_.shape == (10, 64)
        assert clf.decision_function(Xte).shape == (len(Xte), 10)
        assert clf.score(Xte, yte) > 0.9
    np.testing.assert_allclose(clf.predict_proba(Xte).sum(axis=1), 1.0)


def test_sparse_int64_indices_and_float32_accepted():
    X, y = two_gaussian_blobs(300, n_features=4, random_state=5)
    csr = sp.csr_matrix(X)
    csr.indices = csr.indices.astype(np.int64)
    csr.indptr = csr.indptr.astype(np.int64)
    dense = PegasosClassifier(n_iter=800, random_state=0).fit(X, y)
    sparse = PegasosClassifier(n_iter=800, random_state=0).fit(csr, y)
    single = PegasosClassifier(n_iter=800, random_state=0).fit(X.astype(np.float32), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10)
    np.testing.assert_allclose(single.coef_, dense.coef_, rtol=1e-5)
    np.testing.assert_array_equal(sparse.predict(csr), dense.predict(X))


def test_reference_solution_accepts_int64_sparse_indices():
    X, y = two_gaussian_blobs(300, n_features=4, random_state=6)
    csr = sp.csr_matrix(X)
    csr64 = sp.csr_matrix((csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64)),
                          shape=csr.shape)
    np.testing.assert_allclose(reference_solution(csr64, y.astype(float), 1e-2, "hinge"),
                               reference_solution(X, y.astype(float), 1e-2, "hinge"), rtol=1e-6)


def test_divergence_is_an_error_not_nan():
    rng = np.random.default_rng(0)
    X = 100 * rng.normal(size=(200, 5))
    y = X @ rng.normal(size=5)
    with pytest.raises(ValueError, match="diverged"):
        PegasosRegressor(lam=1e-6, projection=False, step_offset=0, random_state=0).fit(X, y)
    # weights still finite (~1e164) but their norm overflows: caught as well
    X = rng.normal(size=(2000, 20))
    with pytest.raises(ValueError, match="diverged"):
        PegasosRegressor(lam=1e-2, n_iter=2000, step_offset=0, projection=False,
                         record_every=400, random_state=0).fit(X, 2 * X @ rng.normal(size=20))


def test_reference_solution_is_reproducible():
    X, y = two_gaussian_blobs(3000, n_features=5, random_state=8)
    np.random.seed(1)
    a = reference_solution(X, y.astype(float), 1e-3, "hinge")
    np.random.seed(2)
    np.testing.assert_array_equal(reference_solution(X, y.astype(float), 1e-3, "hinge"), a)


_X, _y = two_gaussian_blobs(40, random_state=0)
_X3 = np.vstack([_X, _X[:10] + 5])
_y3 = np.concatenate([_y, np.full(10, 2)])


@pytest.mark.parametrize("make,X,y,match", [
    (lambda: PegasosClassifier(), with_nan(_X), _y, "NaN"),
    (lambda: PegasosClassifier(), with_inf(_X), _y, "infinity"),
    (lambda: PegasosClassifier(), _X, _y[:-1], "inconsistent numbers of samples"),
    (lambda: PegasosClassifier(), _X, np.ones(40), "one class"),
    (lambda: PegasosClassifier(lam=0.0), _X, _y, "lam"),
    (lambda: PegasosClassifier(lam=-1.0), _X, _y, "lam"),
    (lambda: PegasosClassifier(batch_size=0), _X, _y, "batch_size"),
    (lambda: PegasosClassifier(n_iter=0), _X, _y, "n_iter"),
    (lambda: PegasosClassifier(n_iter=10**12), _X, _y, "n_iter"),
    (lambda: PegasosClassifier(loss="huber"), _X, _y, "loss"),
    (lambda: PegasosClassifier(sampling="cyclic"), _X, _y, "sampling"),
    (lambda: PegasosClassifier(averaging="tail"), _X, _y, "averaging"),
    (lambda: PegasosClassifier(backend="cuda"), _X, _y, "backend"),
    (lambda: PegasosClassifier(), np.empty((0, 2)), np.empty(0), "0 sample"),
    (lambda: PegasosRegressor(loss="hinge"), _X, _y, "loss"),
    (lambda: PegasosRegressor(epsilon=-1.0), _X, _y, "epsilon"),
])
def test_bad_input_is_named(make, X, y, match, forbid):
    import lsl_lib.pegasos._algorithm as module

    forbid(module, "_pegasos_numba_chunk", "pegasos_numpy_chunk")
    with pytest.raises(ValueError, match=match):
        make().fit(X, y)


@pytest.mark.parametrize("kwargs,match", [(dict(lam=0.0), "lam"), (dict(n_iter=0), "n_iter"),
                                          (dict(averaging="tail"), "averaging"),
                                          (dict(sampling="cyclic"), "sampling"),
                                          (dict(batch_size=100), "batch_size"),
                                          (dict(loss="huber"), "loss")])
def test_functional_api_names_bad_arguments(kwargs, match):
    args = dict(lam=0.1, n_iter=10) | kwargs
    with pytest.raises(ValueError, match=match):
        pegasos(_X, _y.astype(float), args.pop("lam"), args.pop("n_iter"), **args)


def test_random_state_of_the_wrong_type():
    with pytest.raises((TypeError, ValueError), match="random_state"):
        PegasosClassifier(random_state="seed").fit(_X, _y)


# --- sample weights --------------------------------------------------------------

def _weighted_problem(task, n=60, seed=0):
    X, y = _problem(task, n=n, seed=seed)
    sw = np.random.default_rng(seed + 1).integers(0, 4, n)  # zeros included
    return X, y, sw


@pytest.mark.parametrize("Est,loss", [(PegasosClassifier, "hinge"), (PegasosClassifier, "softmax"),
                                      (PegasosRegressor, "squared"),
                                      (PegasosRegressor, "epsilon_insensitive")])
@pytest.mark.parametrize("sampling", ["iid", "permutation", "reshuffle"])
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_integer_sample_weight_is_repeating_rows_iterate_for_iterate(Est, loss, sampling, backend):
    """Drawing positions of the expanded data is the scheme run on np.repeat(X, s):
    the same indices, so the same iterates, the same trace, for every scheme."""
    task = {"softmax": "multiclass", "hinge": "binary"}.get(loss, "regression")
    X, y, sw = _weighted_problem(task)
    common = dict(lam=0.1, loss=loss, n_iter=300, batch_size=3, sampling=sampling,
                  projection=True, record_every=100, backend=backend, random_state=5)
    for Xv in (X, sp.csr_matrix(X)):
        weighted = Est(**common).fit(Xv, y, sample_weight=sw)
        repeated = Est(**common).fit(Xv[np.repeat(np.arange(len(y)), sw)], np.repeat(y, sw))
        np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-12,
                                   atol=1e-14)
        np.testing.assert_allclose(weighted.history_["objective"],
                                   repeated.history_["objective"], rtol=1e-12)


@pytest.mark.parametrize("Est,task", [(PegasosClassifier, "binary"),
                                      (PegasosRegressor, "regression")])
def test_zero_weights_are_dropped_rows(Est, task):
    X, y = _problem(task, n=80)
    keep = np.random.default_rng(3).random(80) < 0.7
    common = dict(lam=0.05, n_iter=500, random_state=2)
    a = Est(**common).fit(X, y, sample_weight=keep.astype(float))
    b = Est(**common).fit(X[keep], y[keep])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)


def test_unit_weights_change_nothing_and_weights_are_not_modified():
    X, y = _problem("binary")
    sw = np.ones(len(y))
    a = PegasosClassifier(n_iter=700, random_state=0).fit(X, y)
    b = PegasosClassifier(n_iter=700, random_state=0).fit(X, y, sample_weight=sw)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert np.all(sw == 1)


@pytest.mark.parametrize("Est,task", [(PegasosClassifier, "binary"),
                                      (PegasosRegressor, "regression")])
def test_partial_fit_takes_weights_on_both_paths(Est, task):
    X, y, sw = _weighted_problem(task, n=90)
    kw = dict(lam=0.1, batch_size=2, random_state=0)
    extra = dict(classes=np.unique(y)) if Est is PegasosClassifier else {}
    fitted = []
    for backend in ("numpy", "numba"):
        est = Est(backend=backend, **kw)
        est.partial_fit(X[:45], y[:45], sample_weight=sw[:45], **extra)
        est.partial_fit(X[45:], y[45:], sample_weight=sw[45:])
        fitted.append(est)
    np.testing.assert_allclose(fitted[1].coef_, fitted[0].coef_, rtol=1e-10)
    assert fitted[0].t_ == 2 * -(-45 // 2)


def test_shuffled_integer_weights_reach_the_minimiser_of_the_repeated_data():
    """In another row order the index sequences differ; both runs converge to the one
    minimiser of the weighted risk, which liblinear (weighted) finds as well.
    Strong convexity gives ||w - w*||^2 <= 2 (f(w) - f*) / lam."""
    X, y, sw = _weighted_problem("binary", n=200)
    lam = 0.05
    order = np.random.default_rng(0).permutation(len(y))
    Xr, yr = np.repeat(X, sw, axis=0), np.repeat(y, sw)
    hinge = get_loss("hinge")
    W_star = reference_solution(X, y, lam, hinge, sample_weight=sw)
    W_rep = reference_solution(Xr, yr, lam, hinge)
    f_star = weighted_objective(W_star, X, y, lam, hinge, sw)
    assert weighted_objective(W_rep, X, y, lam, hinge, sw) == pytest.approx(f_star, rel=1e-7)
    assert primal_objective(W_star, Xr, yr, lam, hinge) == pytest.approx(f_star, rel=1e-12)
    common = dict(lam=lam, n_iter=200_000, fit_intercept=False, random_state=1)
    weighted = PegasosClassifier(**common).fit(X[order], y[order], sample_weight=sw[order])
    repeated = PegasosClassifier(**common).fit(Xr, yr)
    for model in (weighted, repeated):
        gap = weighted_objective(model.coef_, X, y, lam, hinge, sw) - f_star
        assert -1e-9 < gap < 1e-4 * f_star
        assert np.linalg.norm(model.coef_ - W_star) < np.sqrt(2 * 1e-4 * f_star / lam)


def test_real_weights_draw_in_proportion_and_both_paths_agree():
    X, y = _problem("binary", n=50)
    sw = np.random.default_rng(4).uniform(0.0, 3.0, 50)
    idx = weighted_sample_indices(sw, 200_000, 1, "iid", np.random.default_rng(0))
    freq = np.bincount(idx.ravel(), minlength=50) / idx.size
    p = sw / sw.sum()
    np.testing.assert_allclose(freq, p, atol=5 * np.sqrt(p.max() / idx.size))  # 5 sigma
    kw = dict(n_iter=400, sample_weight=sw, record_every=100, projection=True,
              averaging="uniform", random_state=3)
    a, ha = pegasos(X, y, 0.1, backend="numpy", **kw)
    b, hb = pegasos(X, y, 0.1, backend="numba", **kw)
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-10)
    np.testing.assert_allclose(hb["objective"], ha["objective"], rtol=1e-10)
    with pytest.raises(ValueError, match="sampling='permutation' needs integer sample weights"):
        PegasosClassifier(sampling="permutation").fit(X, y, sample_weight=sw)
    with pytest.raises(ValueError, match="sampling='reshuffle' permutes the"):
        PegasosClassifier(sampling="reshuffle").fit(X, y, sample_weight=np.full(50, 1e7))


def test_class_weight_is_the_corresponding_sample_weight():
    X, y = linear_teacher(600, 5, label_noise=0.1, random_state=0)
    keep = (y < 0) | (np.arange(600) % 4 == 0)  # about 1 positive for 4 negatives
    X, y = X[keep], y[keep]
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    common = dict(lam=1e-2, n_iter=2000, random_state=0)
    for class_weight in ("balanced", {-1: 0.5, 1: 3.0}):
        a = PegasosClassifier(class_weight=class_weight, **common).fit(X, y, sample_weight=sw)
        b = PegasosClassifier(**common).fit(
            X, y, sample_weight=sw * compute_sample_weight(class_weight, y))
        np.testing.assert_array_equal(a.coef_, b.coef_)
    balanced = PegasosClassifier(class_weight="balanced", **common).fit(X, y)
    plain = PegasosClassifier(**common).fit(X, y)
    # the minority class gets more of the positive predictions when it weighs as much
    assert np.mean(balanced.predict(X) == 1) > np.mean(plain.predict(X) == 1)
    stream = PegasosClassifier(class_weight={-1: 1.0, 1: 4.0}, random_state=0)
    stream.partial_fit(X[:150], y[:150], classes=[-1, 1]).partial_fit(X[150:], y[150:])
    with pytest.raises(ValueError, match="class_weight='balanced'.*partial_fit"):
        PegasosClassifier(class_weight="balanced").partial_fit(X, y, classes=[-1, 1])


@pytest.mark.parametrize("sample_weight,match", [
    (np.zeros(40), "non-zero"),
    (-np.ones(40), "Negative"),
    (np.ones(39), "shape"),
    (np.r_[np.ones(20), np.zeros(20)] * (_y > 0), "one class"),
])
def test_bad_sample_weight_is_named(sample_weight, match):
    with pytest.raises(ValueError, match=match):
        PegasosClassifier().fit(_X, _y, sample_weight=sample_weight)


# --- defaults: good results for a user who sets nothing --------------------------

def test_defaults_match_linear_svc_on_generated_data():
    X, y = linear_teacher(6000, 30, label_noise=0.1, random_state=0)
    Xtr, Xte, ytr, yte = X[:3000], X[3000:], y[:3000], y[3000:]
    svc = LinearSVC().fit(Xtr, ytr).score(Xte, yte)
    for seed in range(3):
        assert PegasosClassifier(random_state=seed).fit(Xtr, ytr).score(Xte, yte) > svc - 0.01
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(4000, 10)) * rng.uniform(0.5, 2.0, 10)
    yr = Xr @ rng.normal(size=10) + 3.0 + rng.normal(size=4000)
    ols = LinearRegression().fit(Xr[:2000], yr[:2000]).score(Xr[2000:], yr[2000:])
    reg = PegasosRegressor(random_state=0).fit(Xr[:2000], yr[:2000])
    assert reg.score(Xr[2000:], yr[2000:]) > ols - 0.01




@pytest.mark.shared_data
def test_defaults_within_a_point_of_linear_svc_on_a9a():
    """3 000 rows of a9a, tested on a9a's test split (benchmarks/README.md, §Pegasos)."""
    X, y = load_shared("a9a")
    Xte, yte = load_shared("a9a", "test")
    for subset in range(2):
        rows = np.random.default_rng(subset).choice(X.shape[0], 3000, replace=False)
        Xs, ys = X[rows], y[rows]
        svc = LinearSVC().fit(Xs, ys).score(Xte, yte)
        clf = PegasosClassifier(random_state=subset).fit(Xs, ys)
        assert clf.score(Xte, yte) > svc - 0.01
        # and it minimises its problem: lam T >= 30 puts it within 10 % of f*
        Xi = np.asarray(np.hstack([Xs.toarray(), np.ones((3000, 1))]))
        hinge = get_loss("hinge")
        f_star = primal_objective(reference_solution(Xi, ys, 1e-4, hinge), Xi, ys, 1e-4, hinge)
        W = np.hstack([clf.coef_, clf.intercept_[:, None]])
        assert primal_objective(W, Xi, ys, 1e-4, hinge) < 1.1 * f_star


@pytest.mark.shared_data
def test_regressor_defaults_on_cpu_act():
    data = np.loadtxt(shared_data_dir() / "pmlb_197_cpu_act.tsv.gz", skiprows=1)
    X, y = data[:, :-1], data[:, -1]
    rows = np.random.default_rng(0).permutation(len(y))
    train, test = rows[:6000], rows[6000:]
    ols = make_pipeline(StandardScaler(), LinearRegression()).fit(X[train], y[train])
    reg = make_pipeline(StandardScaler(), PegasosRegressor(random_state=0)).fit(X[train], y[train])
    assert reg.score(X[test], y[test]) > ols.score(X[test], y[test]) - 0.01


@pytest.mark.parametrize("loss", ["hinge", "log", "multiclass_hinge", "softmax"])
def test_scikit_learn_class_weight_balanced_check(loss):
    """Run on demand: scikit-learn applies it to its own linear classifiers only."""
    from sklearn.utils.estimator_checks import check_class_weight_balanced_linear_classifier
    check_class_weight_balanced_linear_classifier(
        "PegasosClassifier", PegasosClassifier(loss=loss, random_state=0))


def test_class_weight_check_passes_with_enough_iterations():
    """scikit-learn's check_class_weight_classifiers, with n_iter = T = 1000
    (see _FEW_ITERATIONS in test_common.py)."""
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split
    X, y = make_blobs(centers=2, random_state=0, cluster_std=20)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    for loss in ("hinge", "log", "softmax"):
        clf = PegasosClassifier(loss=loss, class_weight={0: 1000, 1: 0.0001}, n_iter=1000,
                                random_state=0).fit(X_train, y_train)
        assert np.mean(clf.predict(X_test) == 0) > 0.87


# --- one-vs-rest, clipped mini-batches, bounded default length, the run loop ---------------

def test_binary_losses_learn_three_classes_one_vs_rest():
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    model = PegasosClassifier(lam=1e-3, random_state=0).fit(X, y)
    assert model.coef_.shape == (3, 4) and model.decision_function(X).shape == (150, 3)
    for k in range(3):  # each row is the binary model of its class, on the same seed
        binary = PegasosClassifier(lam=1e-3, random_state=0).fit(X, y == k)
        np.testing.assert_array_equal(model.coef_[k], binary.coef_[0])
        np.testing.assert_array_equal(model.intercept_[k], binary.intercept_[0])
    assert model.score(X, y) >= LinearSVC().fit(X, y).score(X, y) - 0.03
    log = PegasosClassifier(loss="log", lam=1e-3, random_state=0).fit(X, y)
    np.testing.assert_allclose(log.predict_proba(X).sum(axis=1), 1.0)


def test_one_vs_rest_partial_fit_continues_each_binary_model():
    X, y = _X3, _y3
    model = PegasosClassifier(random_state=0)
    model.partial_fit(X, y, classes=[-1, 1, 2]).partial_fit(X, y)
    binary = PegasosClassifier(random_state=0)
    binary.partial_fit(X, y == 2, classes=[False, True]).partial_fit(X, y == 2)
    np.testing.assert_array_equal(model.coef_[2], binary.coef_[0])
    assert model.t_ == binary.t_ == 2 * 50


def test_a_mini_batch_larger_than_the_data_is_clipped():
    a = PegasosClassifier(batch_size=41, n_iter=30, random_state=0).fit(_X, _y)
    b = PegasosClassifier(batch_size=40, n_iter=30, random_state=0).fit(_X, _y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    model = PegasosClassifier(batch_size=64, random_state=0)
    model.partial_fit(_X, _y, classes=[-1, 1]).partial_fit(_X[:7], _y[:7])  # a short last chunk
    assert model.t_ == 2


def test_the_default_length_is_bounded_for_tiny_lam():
    # max(5n, 30/lam) examples, 30/lam capped at 10^7: lam=1e-12 drew 3e13 indices (218 TiB)
    assert PegasosClassifier(lam=1e-12)._n_iter(100) == 10**7
    assert PegasosClassifier(lam=1e-12, batch_size=10)._n_iter(100) == 10**6
    assert PegasosClassifier(lam=1e-4)._n_iter(100) == 300_000
    assert PegasosClassifier(lam=1e-4)._n_iter(10**6) == 5 * 10**6


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_the_iterates_do_not_depend_on_where_the_chunks_end(backend, monkeypatch):
    import lsl_lib._core.run_loop as run_loop

    X, y = two_gaussian_blobs(300, n_features=4, random_state=3)
    params = dict(lam=1e-3, n_iter=700, batch_size=3, averaging="suffix", projection=True,
                  random_state=0, backend=backend)
    default = PegasosClassifier(**params).fit(X, y)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # one iteration a chunk
    single = PegasosClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(single.coef_, default.coef_)
    np.testing.assert_array_equal(single.intercept_, default.intercept_)


def test_growth_by_orders_of_magnitude_is_divergence():
    X, y = two_gaussian_blobs(200, n_features=3, random_state=0)
    with pytest.raises(ValueError, match="diverged.*lam"):
        PegasosRegressor(lam=1e-6, projection=False, step_offset=0, n_iter=2000,
                         random_state=0).fit(1e3 * X, y.astype(float))


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_ctrl_c_stops_a_long_fit_within_a_second(method):
    """SIGINT to a child process in a long fit (about a minute: 3 000 000 iterations on 20 000
    dense features, or a partial_fit pass of the numpy path), sent once the indices are drawn
    (a single numpy call, which Ctrl-C waits for): it stops within a second;
    fit leaves the estimator unfitted, partial_fit the model of its last whole chunk."""
    import textwrap

    from conftest import assert_sigint_stops_fit

    setup = textwrap.dedent("""
        import numpy as np
        from lsl_lib.pegasos import PegasosClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(200, 20_000)); y = (X[:, 0] > 0).astype(int)
        PegasosClassifier(n_iter=10).fit(X, y)  # compiles
    """)
    if method == "fit":
        assert_sigint_stops_fit(
            setup + "model = PegasosClassifier(n_iter=3 * 10**6, lam=1e-6)",
            "model.fit(X, y)", delay=1.0,
            after="assert not hasattr(model, 'coef_') and not hasattr(model, '_state')")
    else:
        assert_sigint_stops_fit(
            setup + "model = PegasosClassifier(backend='numpy'); X = np.tile(X[:, :20], (5000, 1))"
                    "; y = np.tile(y, 5000)",
            "model.partial_fit(X, y, classes=[0, 1])", delay=3.0,
            after="assert 0 < model.t_ < len(X) and np.isfinite(model.coef_).all()")
