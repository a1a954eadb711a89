"""SGD, SVRG, SARAH, SARAH+: the objectives' gradients are right, the two paths agree,
the iterations are the papers', the variance-reduced methods converge linearly, and the
estimators reject bad input before compiled code runs (scikit-learn's contract: test_common.py)."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge, SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from lsl_lib._core.loss_derivatives import score_derivative_numba
from lsl_lib._core.sampling import sample_indices
from lsl_lib.datasets import linear_teacher, load_shared, shared_data_dir, two_gaussian_blobs
from lsl_lib.pegasos import reference_solution
from lsl_lib.losses import SmoothedHinge
from lsl_lib.stochastic_gradient import (METHODS, FiniteSumObjective,
                                         StochasticGradientClassifier,
                                         StochasticGradientRegressor, get_smooth_loss, sarah,
                                         sarah_plus, sgd, stochastic_gradient, svrg)
from lsl_lib.stochastic_gradient._algorithm import _SMOOTH_LOSSES
from estimator_support import with_inf, with_nan


def _problem(loss, n=120, d=6, seed=0, unit_rows=True):
    """Unit-norm rows and lam = 0.1 below: every step is contractive, so rounding
    differences between the two paths are not amplified."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if unit_rows:
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    else:
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    w = rng.normal(size=d)
    if loss == "squared":
        return X, X @ w + 0.1 * rng.normal(size=n)
    return X, np.sign(X @ w + 0.3 * rng.normal(size=n))


def _variants(X):
    csr = sp.csr_matrix(X)
    csr64 = sp.csr_matrix((csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64)),
                          shape=csr.shape)
    return {"dense": X, "csr": csr, "csr_int64": csr64}


# --- the objectives -------------------------------------------------------------------------

@pytest.mark.parametrize("loss", _SMOOTH_LOSSES)
def test_full_gradient_is_the_mean_of_example_gradients_and_finite_differences(loss):
    X, y = _problem(loss, n=30, d=4)
    X = 2.0 * X  # scores spread over every piece of the smoothed hinge
    rng = np.random.default_rng(1)
    for Xv in (X, sp.csr_matrix(X)):
        obj = FiniteSumObjective(Xv, y, 0.3, loss)
        for _ in range(5):
            w = rng.normal(size=4)
            full = obj.gradient(w)
            per_example = np.array([obj.example_gradient(w, i) for i in range(30)])
            np.testing.assert_allclose(full, per_example.mean(axis=0), rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(obj.batch_gradient(w, np.array([3, 7, 7])),
                                       per_example[[3, 7, 7]].mean(axis=0), rtol=1e-12)
            h = 1e-6
            numeric = [(obj.value(w + h * e) - obj.value(w - h * e)) / (2 * h) for e in np.eye(4)]
            np.testing.assert_allclose(full, numeric, rtol=1e-6, atol=1e-8)
            # f_i itself: its value is loss + lam/2 ||w||^2 and its gradient matches it
            i = 5
            def f_i(u, obj=obj, i=i):
                return obj.loss.value(y[i:i + 1], X[i:i + 1] @ u)[0] + 0.15 * u @ u

            numeric_i = [(f_i(w + h * e) - f_i(w - h * e)) / (2 * h) for e in np.eye(4)]
            np.testing.assert_allclose(obj.example_gradient(w, i), numeric_i, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("loss", _SMOOTH_LOSSES)
def test_L_bounds_the_curvature_of_every_example(loss):
    X, y = _problem(loss, n=50, d=5, unit_rows=False)
    lam = 0.05
    obj = FiniteSumObjective(X, y, lam, loss)
    c = {"log": 0.25, "squared": 1.0, "smoothed_hinge": 1.0}[loss]
    assert obj.L == pytest.approx(c * np.max(np.sum(X ** 2, axis=1)) + lam)
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(200):
        u, v = rng.normal(size=5), rng.normal(size=5) * rng.uniform(0.01, 3)
        i = rng.integers(50)
        ratio = np.linalg.norm(obj.example_gradient(u, i) - obj.example_gradient(v, i)) \
            / np.linalg.norm(u - v)
        assert ratio <= obj.L * (1 + 1e-12)
        worst = max(worst, ratio)
    assert worst > 0.1 * obj.L  # the pairs probe the curvature, not only flat regions
    if loss == "squared":  # tight: along the longest row the ratio is L exactly
        i = np.argmax(np.sum(X ** 2, axis=1))
        u = X[i] / np.linalg.norm(X[i])
        ratio = np.linalg.norm(obj.example_gradient(u, i) - obj.example_gradient(0 * u, i))
        assert ratio == pytest.approx(obj.L, rel=1e-12)


def test_smoothed_hinge_pieces_and_compiled_derivatives():
    loss = SmoothedHinge()
    z = np.array([-2.0, 0.0, 0.25, 0.5, 1.0, 3.0])
    np.testing.assert_allclose(loss.value(1.0, z), [2.5, 0.5, 0.28125, 0.125, 0.0, 0.0])
    np.testing.assert_allclose(loss.value(-1.0, -z), loss.value(1.0, z))
    np.testing.assert_allclose(loss.subgradient(1.0, z), [-1.0, -1.0, -0.75, -0.5, 0.0, 0.0])
    assert get_smooth_loss("smoothed_hinge").curvature == 1.0
    s = np.linspace(-40, 40, 401)
    for name in _SMOOTH_LOSSES:
        lossf = get_smooth_loss(name)
        for y in (-1.0, 1.0, 0.3):
            if name != "squared" and y == 0.3:
                continue
            compiled = [score_derivative_numba(lossf.code, y, si, 0.0) for si in s]
            np.testing.assert_allclose(compiled, lossf.subgradient(y, s), rtol=1e-14, atol=1e-300)


# --- numpy reference == numba fast path ------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("loss", _SMOOTH_LOSSES)
@pytest.mark.parametrize("batch_size", [1, 4])
def test_numba_and_numpy_give_the_same_iterates(method, loss, batch_size):
    X, y = _problem(loss)
    for name, Xv in _variants(X).items():
        kwargs = dict(method=method, loss=loss, batch_size=batch_size, record_every=1,
                      random_state=4)
        ref, h_ref = stochastic_gradient(Xv, y, 0.1, 3, backend="numpy", **kwargs)
        fast, h_fast = stochastic_gradient(Xv, y, 0.1, 3, backend="numba", **kwargs)
        np.testing.assert_allclose(fast.w, ref.w, rtol=1e-10, atol=1e-13, err_msg=name)
        np.testing.assert_allclose(h_fast["objective"], h_ref["objective"], rtol=1e-10)
        np.testing.assert_allclose(h_fast["grad_norm2"], h_ref["grad_norm2"], rtol=1e-8)
        assert fast.inner_loop_lengths == ref.inner_loop_lengths
        assert fast.t == ref.t and fast.n_gradients == ref.n_gradients


@pytest.mark.parametrize("kwargs", [
    dict(method="sarah", output="random", sampling="reshuffle"),
    dict(method="svrg", output="random", inner_loop=7, batch_size=3),
    dict(method="sarah+", sampling="permutation", inner_loop=50, eta=0.3),
    dict(method="sgd", eta=0.2, sampling="reshuffle", batch_size=5),
    dict(method="sarah", inner_loop=1),  # gradient descent
])
def test_numba_and_numpy_agree_on_the_other_options(kwargs):
    X, y = _problem("log")
    ref, _ = stochastic_gradient(X, y, 0.1, 4, backend="numpy", random_state=5, **kwargs)
    fast, _ = stochastic_gradient(X, y, 0.1, 4, backend="numba", random_state=5, **kwargs)
    np.testing.assert_allclose(fast.w, ref.w, rtol=1e-10, atol=1e-13)
    assert fast.inner_loop_lengths == ref.inner_loop_lengths


# --- the iterations are the papers' ---------------------------------------------------------

def _ridge_example_gradient(X, y, lam, w, i):
    return (X[i] @ w - y[i]) * X[i] + lam * w


def _hand_sarah(X, y, lam, eta, m, idx, w0):
    """Algorithm 1 of Nguyen et al. (2017), one outer loop, k = 1, ridge: every iterate."""
    v = (X.T @ (X @ w0 - y)) / len(y) + lam * w0
    iterates = [w0, w0 - eta * v]
    for t in range(1, m):
        w_t, w_prev = iterates[t], iterates[t - 1]
        v = (_ridge_example_gradient(X, y, lam, w_t, idx[t - 1])
             - _ridge_example_gradient(X, y, lam, w_prev, idx[t - 1]) + v)
        iterates.append(w_t - eta * v)
    return iterates


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_sarah_two_inner_steps_by_hand(backend):
    X = np.array([[1.0, 0.0], [0.5, 2.0], [-1.0, 1.0], [0.0, -0.5]])
    y = np.array([1.0, -1.0, 2.0, 0.5])
    lam, eta = 0.1, 0.2
    state, _ = sarah(X, y, lam, 1, loss="squared", eta=eta, inner_loop=3, backend=backend,
                     random_state=3)
    i1, i2 = sample_indices(4, 2, 1, "iid", np.random.default_rng(3))[:, 0]
    # written out: v_0 = grad f(0) = -X^T y / n, w_1 = -eta v_0, ...
    v0 = -X.T @ y / 4
    w1 = -eta * v0
    v1 = (X[i1] @ w1) * X[i1] + lam * w1 + v0  # grad f_i1(w1) - grad f_i1(0) + v0
    w2 = w1 - eta * v1
    v2 = ((X[i2] @ (w2 - w1)) * X[i2] + lam * (w2 - w1)) + v1
    w3 = w2 - eta * v2
    np.testing.assert_allclose(state.w, w3, rtol=1e-13)
    np.testing.assert_allclose(_hand_sarah(X, y, lam, eta, 3, [i1, i2], np.zeros(2))[-1], w3,
                               rtol=1e-13)
    assert state.inner_loop_lengths == [3] and state.n_gradients == 4 + 2 * 2


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_random_output_is_the_drawn_inner_iterate(backend):
    X, y = _problem("squared", n=10, d=3)
    lam, eta, m, seed = 0.1, 0.3, 6, 8
    state, _ = sarah(X, y, lam, 1, loss="squared", eta=eta, inner_loop=m, output="random",
                     backend=backend, random_state=seed)
    rng = np.random.default_rng(seed)
    idx = sample_indices(10, m - 1, 1, "iid", rng)[:, 0]
    t_out = rng.integers(0, m + 1, size=1)[0]
    iterates = _hand_sarah(X, y, lam, eta, m, idx, np.zeros(3))
    np.testing.assert_allclose(state.w, iterates[t_out], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_svrg_is_johnson_and_zhangs_algorithm(backend):
    """m inner steps from w_0 = w~; the first step's correction cancels exactly."""
    X, y = _problem("squared", n=20, d=3)
    lam, eta, m, S = 0.1, 0.3, 5, 3
    state, _ = svrg(X, y, lam, S, loss="squared", eta=eta, inner_loop=m, backend=backend,
                    random_state=6)
    idx = sample_indices(20, S * (m - 1), 1, "iid", np.random.default_rng(6))[:, 0]
    w_tilde, pos = np.zeros(3), 0
    for _ in range(S):
        mu = X.T @ (X @ w_tilde - y) / 20 + lam * w_tilde
        w = w_tilde.copy()
        for t in range(1, m + 1):
            i = 0 if t == 1 else idx[pos]  # any index at t = 1: w_0 = w~
            pos += t > 1
            g = _ridge_example_gradient(X, y, lam, w, i) \
                - _ridge_example_gradient(X, y, lam, w_tilde, i) + mu
            w = w - eta * g
        w_tilde = w
    np.testing.assert_allclose(state.w, w_tilde, rtol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_sarah_plus_stops_on_squared_norms(backend):
    """Identical rows: v_t = (1 - eta h) v_{t-1} exactly, h = ||x||^2 + lam. With
    rho = 1 - eta h = 0.55, ||v_2|| / ||v_0|| = 0.3025 lies between gamma = 1/8 and
    sqrt(gamma) = 0.354: the squared test stops at t = 3 (after v_2), a test on norms
    would go on to t = 5 (||v_4|| / ||v_0|| = 0.0915)."""
    x, lam = np.array([0.6, 0.8]), 0.1
    X, y = np.tile(x, (8, 1)), np.full(8, 2.0)
    h = x @ x + lam
    eta = 0.45 / h
    rho = 1 - eta * h
    assert rho ** 4 <= 1 / 8 < rho ** 2  # squared ratio of v_2 below gamma, plain ratio above
    state, _ = sarah_plus(X, y, lam, 4, loss="squared", eta=eta, inner_loop=20, backend=backend,
                          random_state=0)
    assert state.inner_loop_lengths == [3, 3, 3, 3]
    assert state.n_gradients == 4 * (8 + 2 * 2)
    plain, _ = sarah(X, y, lam, 2, loss="squared", eta=eta, inner_loop=20, backend=backend)
    assert plain.inner_loop_lengths == [20, 20]
    clf = StochasticGradientRegressor(method="sarah+", lam=lam, eta=eta, inner_loop=20,
                                      fit_intercept=False, n_epochs=2, backend=backend).fit(X, y)
    np.testing.assert_array_equal(clf.inner_loop_lengths_, [3, 3])


def test_effective_passes_count_gradient_evaluations():
    X, y = _problem("log", n=100)
    _, h = sarah(X, y, 0.1, 3, batch_size=2, inner_loop=10, record_every=1, random_state=0)
    np.testing.assert_allclose(h["effective_passes"], np.arange(4) * (100 + 2 * 2 * 9) / 100)
    np.testing.assert_array_equal(h["iteration"], np.arange(4) * 10)
    np.testing.assert_array_equal(h["epoch"], np.arange(4))
    _, h = sgd(X, y, 0.1, 2, batch_size=3, record_every=1, random_state=0)
    np.testing.assert_allclose(h["effective_passes"], np.arange(3) * 34 * 3 / 100)
    np.testing.assert_array_equal(h["iteration"], [0, 34, 68])
    state, h = sarah_plus(X, y, 0.1, 3, record_every=1, random_state=0)
    lengths = np.array(state.inner_loop_lengths)
    assert np.all((lengths >= 1) & (lengths <= 100)) and lengths.min() < 100
    assert h["effective_passes"][-1] == pytest.approx(np.sum(100 + 2 * (lengths - 1)) / 100)


# --- convergence ----------------------------------------------------------------------------

def _standardised(n=500, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ np.diag(np.linspace(0.3, 3.0, d))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, rng


@pytest.mark.parametrize("method", ["svrg", "sarah"])
@pytest.mark.parametrize("loss", ["squared", "log"])
def test_variance_reduction_converges_linearly(method, loss):
    X, rng = _standardised()
    n, d, lam = *X.shape, 1e-2
    w = rng.normal(size=d)
    if loss == "squared":
        y = X @ w + 0.5 * rng.normal(size=n)
        w_star = np.linalg.solve(X.T @ X / n + lam * np.eye(d), X.T @ y / n)  # ridge, exactly
    else:
        y = np.sign(X @ w + 0.5 * rng.normal(size=n))
        w_star = reference_solution(X, y, lam, get_smooth_loss(loss), tol=1e-10)[0]
    obj = FiniteSumObjective(X, y, lam, loss)
    assert np.dot(obj.gradient(w_star), obj.gradient(w_star)) < 1e-16  # f* to ~1e-16
    _, h = stochastic_gradient(X, y, lam, 12, method=method, loss=loss, record_every=1,
                               reference_objective=obj.value(w_star), random_state=0)
    sub = h["suboptimality"]
    above = sub[:-1] > 1e-11
    assert np.all(sub[1:][above] <= sub[:-1][above] / 2)  # at least 2x per outer loop
    assert sub[-1] < 1e-11
    assert np.all(h["grad_norm2"][1:] <= 2 * obj.L * (sub[1:] + 1e-15))  # ||g||^2 <= 2L (f - f*)


def test_sgd_with_decreasing_steps_converges():
    X, rng = _standardised(n=1000)
    lam = 1e-2
    y = np.sign(X @ rng.normal(size=10) + 0.5 * rng.normal(size=1000))
    obj = FiniteSumObjective(X, y, lam, "log")
    f_star = obj.value(reference_solution(X, y, lam, obj.loss, tol=1e-10)[0])
    _, h = sgd(X, y, lam, 30, loss="log", record_every=3, reference_objective=f_star,
               random_state=0)
    sub = h["suboptimality"]
    assert np.all(sub > -1e-12)
    assert sub[-1] < 2e-3 * sub[0] and sub[-1] < 1e-3
    assert np.mean(sub[-3:]) < np.mean(sub[1:4])  # the O(1/t) decrease, through the noise
    # a constant step stalls at a noise floor that 1/t steps go below
    _, h_const = sgd(X, y, lam, 30, loss="log", eta=0.5, record_every=3,
                     reference_objective=f_star, random_state=0)
    assert np.mean(h_const["suboptimality"][-3:]) > 3 * np.mean(sub[-3:])


# --- the estimators -------------------------------------------------------------------------

def test_estimator_history_columns_and_eval_set():
    X, y = two_gaussian_blobs(400, random_state=1)
    clf = StochasticGradientClassifier(lam=1e-2, n_epochs=4, record_every=2,
                                       reference_objective="auto", random_state=0)
    clf.fit(X, y, eval_set=(X[:100], y[:100]))
    h = clf.history_
    assert set(h) == {"effective_passes", "iteration", "epoch", "seconds", "objective",
                      "suboptimality", "grad_norm2", "test_error"}
    np.testing.assert_array_equal(h["epoch"], [0, 2, 4])
    np.testing.assert_allclose(h["effective_passes"], [0, 2 * 2.995, 4 * 2.995])
    assert h["objective"][0] == pytest.approx(np.log(2))  # logistic at w = 0
    assert np.all(h["suboptimality"] > -1e-12) and h["suboptimality"][-1] < 1e-4
    assert np.all(np.diff(h["seconds"]) >= 0)
    assert h["test_error"][-1] == pytest.approx(1 - clf.score(X[:100], y[:100]))
    assert clf.n_iter_ == 4 * 400 and clf.effective_passes_ == pytest.approx(4 * 2.995)
    reg = StochasticGradientRegressor(method="sgd", n_epochs=2, record_every=1,
                                      random_state=0).fit(X, y, eval_set=(X, y))
    assert reg.history_["test_mse"][-1] == pytest.approx(np.mean((reg.predict(X) - y) ** 2))
    assert StochasticGradientClassifier(n_epochs=1).fit(X, y).history_ == {}


@pytest.mark.parametrize("Est,loss", [(StochasticGradientClassifier, "log"),
                                      (StochasticGradientClassifier, "smoothed_hinge"),
                                      (StochasticGradientRegressor, "squared")])
@pytest.mark.parametrize("method", METHODS)
def test_estimators_agree_across_backends(Est, loss, method):
    X, y = _problem(loss)
    common = dict(method=method, loss=loss, lam=0.1, n_epochs=3, batch_size=4, random_state=3,
                  record_every=1)
    a = Est(backend="numpy", **common).fit(sp.csr_matrix(X), y)
    b = Est(backend="numba", **common).fit(X, y)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-10)
    assert b.intercept_ == pytest.approx(a.intercept_, rel=1e-10)
    np.testing.assert_allclose(b.history_["objective"], a.history_["objective"], rtol=1e-10)


def test_regressor_reaches_ridge_and_classifier_maps_labels():
    X, rng = _standardised(n=300, d=4)
    y = X @ [1.0, -2.0, 0.5, 0.0] + 0.1 * rng.normal(size=300)
    lam = 1e-3
    reg = StochasticGradientRegressor(lam=lam, n_epochs=20, fit_intercept=False,
                                      random_state=0).fit(X, y)
    ridge = Ridge(alpha=lam * 300, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(reg.coef_, ridge.coef_, rtol=1e-8)
    assert reg.intercept_ == 0.0
    X, y = two_gaussian_blobs(300, random_state=4)
    names = np.where(y > 0, "spam", "ham")
    for loss in ("log", "smoothed_hinge"):
        clf = StochasticGradientClassifier(lam=1e-2, loss=loss, random_state=0).fit(X, names)
        assert set(clf.predict(X)) <= {"spam", "ham"} and clf.score(X, names) > 0.9
        assert clf.decision_function(X).shape == (300,)
        assert hasattr(clf, "predict_proba") == (loss == "log")
    np.testing.assert_allclose(clf.coef_, StochasticGradientClassifier(
        lam=1e-2, loss=loss, random_state=0).fit(X, y).coef_)


def test_same_seed_same_model():
    X, y = two_gaussian_blobs(300, random_state=2)
    a = StochasticGradientClassifier(method="svrg", n_epochs=2, random_state=11).fit(X, y)
    b = StochasticGradientClassifier(method="svrg", n_epochs=2, random_state=11).fit(X, y)
    g = StochasticGradientClassifier(method="svrg", n_epochs=2,
                                     random_state=np.random.default_rng(11)).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.coef_, g.coef_)


def test_divergence_is_an_error_not_nan():
    X, y = _problem("squared", unit_rows=False)
    with pytest.raises(ValueError, match="diverged"):
        StochasticGradientRegressor(eta=10.0, random_state=0).fit(10 * X, y)


_X, _y = two_gaussian_blobs(40, random_state=0)
_X3 = np.vstack([_X, _X[:10] + 5])
_y3 = np.concatenate([_y, np.full(10, 2)])
C, R = StochasticGradientClassifier, StochasticGradientRegressor


@pytest.mark.parametrize("make,X,y,match", [
    (lambda: C(), with_nan(_X), _y, "NaN"),
    (lambda: C(), with_inf(_X), _y, "infinity"),
    (lambda: C(), _X, _y[:-1], "inconsistent numbers of samples"),
    (lambda: C(), _X, np.ones(40), "one class"),
    (lambda: C(lam=0.0), _X, _y, "lam"),
    (lambda: C(lam=-1.0), _X, _y, "lam"),
    (lambda: C(batch_size=0), _X, _y, "batch_size"),
    (lambda: C(n_epochs=0), _X, _y, "n_epochs"),
    (lambda: C(eta=0.0), _X, _y, "eta"),
    (lambda: C(eta=-0.1), _X, _y, "eta"),
    (lambda: C(inner_loop=0), _X, _y, "inner_loop"),
    (lambda: C(method="saga"), _X, _y, "method"),
    (lambda: C(loss="hinge"), _X, _y, "loss"),
    (lambda: C(sampling="cyclic"), _X, _y, "sampling"),
    (lambda: C(output="best"), _X, _y, "output"),
    (lambda: C(method="sarah+", output="random"), _X, _y, "output"),
    (lambda: C(backend="cuda"), _X, _y, "backend"),
    (lambda: C(), np.empty((0, 2)), np.empty(0), "0 sample"),
    (lambda: R(loss="log"), _X, _y, "loss"),
    (lambda: R(), _X, _y[:-1], "inconsistent numbers of samples"),
    (lambda: R(n_epochs=0), _X, _y, "n_epochs"),
])
def test_bad_input_is_named_before_compiled_code_runs(make, X, y, match, forbid):
    import lsl_lib.stochastic_gradient._algorithm as module

    forbid(module, "sgd_numpy_chunk", "_sgd_numba_chunk", "variance_reduced_numpy_chunk",
           "_variance_reduced_numba_chunk")
    with pytest.raises(ValueError, match=match):
        make().fit(X, y)


@pytest.mark.parametrize("kwargs,match", [
    (dict(lam=0.0), "lam"), (dict(n_epochs=0), "n_epochs"), (dict(eta=0), "eta"),
    (dict(eta="fast"), "eta"), (dict(inner_loop=0), "inner_loop"), (dict(method="saga"), "method"),
    (dict(loss="hinge"), "loss"), (dict(sampling="cyclic"), "sampling"),
    (dict(batch_size=100), "batch_size"), (dict(output="random", method="sgd"), "output"),
    (dict(gamma=1.5), "gamma"), (dict(backend="cuda"), "backend"),
])
def test_functional_api_names_bad_arguments(kwargs, match):
    args = dict(lam=0.1, n_epochs=1) | kwargs
    with pytest.raises(ValueError, match=match):
        stochastic_gradient(_X, _y.astype(float), args.pop("lam"), args.pop("n_epochs"), **args)


# --- defaults: what a user who reads nothing gets -------------------------------------------

def test_defaults_match_scikit_learn_on_generated_data():
    """StochasticGradientClassifier() / Regressor(), nothing set, against the exact
    solvers with their own defaults, on held-out data."""
    X, y = linear_teacher(4000, 20, label_noise=0.1, random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0)
    ours = StochasticGradientClassifier().fit(Xtr, ytr).score(Xte, yte)
    assert ours >= LogisticRegression().fit(Xtr, ytr).score(Xte, yte) - 0.01
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 20)) * rng.uniform(0.5, 2.0, 20) + rng.normal(size=20)
    y = X @ rng.normal(size=20) + 3.0 + rng.normal(size=4000)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0)
    ours = StochasticGradientRegressor().fit(Xtr, ytr).score(Xte, yte)
    assert ours >= Ridge().fit(Xtr, ytr).score(Xte, yte) - 0.005


@pytest.mark.shared_data
def test_defaults_match_scikit_learn_on_real_data():
    """a9a (3 000 training rows, the whole test split) and cpu_small, standardised."""
    X, y = load_shared("a9a")
    rows = np.random.default_rng(0).choice(X.shape[0], 3000, replace=False)
    X, y = X[rows], y[rows]
    Xte, yte = load_shared("a9a", split="test")
    ours = StochasticGradientClassifier(random_state=0).fit(X, y).score(Xte, yte)
    assert ours >= LogisticRegression().fit(X, y).score(Xte, yte) - 0.01
    assert ours >= SGDClassifier(loss="log_loss", random_state=0).fit(X, y).score(Xte, yte)
    table = np.loadtxt(shared_data_dir() / "pmlb_227_cpu_small.tsv.gz", skiprows=1)
    Xtr, Xte, ytr, yte = train_test_split(table[:, :-1], table[:, -1], test_size=0.25,
                                          random_state=0)
    scaler = StandardScaler().fit(Xtr)
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    ours = StochasticGradientRegressor(random_state=0).fit(Xtr, ytr).score(Xte, yte)
    assert ours >= Ridge().fit(Xtr, ytr).score(Xte, yte) - 0.005


# --- partial_fit: SGD over a stream of chunks ----------------------------------------------

def _unit_rows_problem(loss, n=120, seed=0):
    """Rows of equal norm: every chunk has the same L, so the 'auto' steps of
    partial_fit are those of fit."""
    X, y = _problem(loss, n=n, d=5, seed=seed)
    return X, y


@pytest.mark.parametrize("Est,loss", [(StochasticGradientClassifier, "log"),
                                      (StochasticGradientClassifier, "smoothed_hinge"),
                                      (StochasticGradientRegressor, "squared")])
@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("batch_size,eta", [(1, "auto"), (4, "auto"), (3, 0.2)])
def test_partial_fit_over_chunks_is_fit_on_the_same_order(Est, loss, backend, batch_size, eta):
    """fit(sampling='permutation', n_epochs=1) visits X[perm] in order; partial_fit on
    consecutive chunks of X[perm] (multiples of k rows) makes the same steps, t continuing."""
    X, y = _unit_rows_problem(loss)
    seed = 3
    common = dict(method="sgd", loss=loss, lam=0.05, eta=eta, batch_size=batch_size,
                  backend=backend)
    full = Est(n_epochs=1, sampling="permutation", random_state=seed, **common).fit(X, y)
    perm = np.random.default_rng(seed).permutation(len(y))  # the permutation fit draws
    online = Est(**common)
    extra = {"classes": [-1.0, 1.0]} if Est is StochasticGradientClassifier else {}
    for chunk in np.split(perm, [24, 60, 96]):
        online.partial_fit(X[chunk], y[chunk], **extra)
    np.testing.assert_allclose(online.coef_, full.coef_, rtol=1e-12, atol=1e-15)
    assert online.intercept_ == pytest.approx(full.intercept_, rel=1e-12, abs=1e-15)
    assert online.t_ == full.t_ == len(y) // batch_size
    assert online.n_iter_ == 24 // batch_size  # the last chunk's steps
    assert online.smoothness_ == pytest.approx(full.smoothness_, rel=1e-12)


def test_partial_fit_continues_fit_and_agrees_across_backends_on_sparse_input():
    X, y = _problem("log", n=90, unit_rows=False)
    csr = sp.csr_matrix(X)
    models = {}
    for backend in ("numpy", "numba"):
        clf = StochasticGradientClassifier(method="sgd", lam=0.1, n_epochs=2, record_every=1,
                                           backend=backend, random_state=0).fit(csr[:60], y[:60])
        assert clf.t_ == 120 and clf.history_["iteration"][-1] == 120
        clf.partial_fit(csr[60:], y[60:])
        assert clf.t_ == 150 and clf.n_iter_ == 30
        np.testing.assert_array_equal(clf.history_["iteration"], [120, 150])  # t continues
        models[backend] = clf
    np.testing.assert_allclose(models["numba"].coef_, models["numpy"].coef_, rtol=1e-10)
    # a longer row in a later chunk raises L, and the steps with it: never longer than 1/L
    assert models["numpy"].smoothness_ == pytest.approx(
        0.25 * (np.max(np.sum(X ** 2, axis=1)) + 1.0) + 0.1)
    # the steps continue from t: the second pass is not a restart
    restarted = StochasticGradientClassifier(method="sgd", lam=0.1, backend="numpy").partial_fit(
        X[60:], y[60:], classes=[-1, 1])
    assert not np.allclose(restarted.coef_, models["numpy"].coef_)


def test_partial_fit_streams_to_the_optimum():
    """Many in-order passes with eta_t = 1/(lam t + L) reach the minimiser (the O(1/t) rate)."""
    X, rng = _standardised(n=400, d=5)
    y = np.sign(X @ rng.normal(size=5) + 0.3 * rng.normal(size=400))
    lam = 0.05
    w_star = reference_solution(X, y, lam, get_smooth_loss("log"), tol=1e-10)[0]
    clf = StochasticGradientClassifier(method="sgd", lam=lam, fit_intercept=False)
    for _ in range(20):
        for chunk in np.array_split(rng.permutation(400), 8):
            clf.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
    assert clf.t_ == 20 * 400
    assert np.linalg.norm(clf.coef_ - w_star) < 0.05 * np.linalg.norm(w_star)


@pytest.mark.parametrize("make,call,match", [
    (lambda: C(method="sgd"), lambda est: est.partial_fit(_X, _y), "classes"),
    (lambda: C(method="sgd"), lambda est: est.partial_fit(_X3, _y3, classes=[-1, 1]),
     "not in classes"),
    (lambda: C(method="sgd"), lambda est: est.partial_fit(_X, _y, classes=[1]), "one class"),
    (lambda: C(method="sgd"),
     lambda est: est.partial_fit(with_nan(_X), _y, classes=[-1, 1]),
     "NaN"),
    (lambda: R(method="sgd", lam=0.0), lambda est: est.partial_fit(_X, _y), "lam"),
    (lambda: R(method="sgd"), lambda est: est.partial_fit(_X, _y[:-1]), "inconsistent"),
])
def test_partial_fit_bad_input_is_named_before_compiled_code_runs(make, call, match, forbid):
    import lsl_lib.stochastic_gradient._algorithm as module

    forbid(module, "sgd_numpy_chunk", "_sgd_numba_chunk")
    with pytest.raises(ValueError, match=match):
        call(make())


@pytest.mark.parametrize("estimator", [C(), C(method="sarah+"), R(method="svrg"), R()])
def test_partial_fit_is_only_for_sgd_and_says_why(estimator):
    assert not hasattr(estimator, "partial_fit")  # what scikit-learn's tools look at
    with pytest.raises(AttributeError, match="partial_fit") as error:
        estimator.partial_fit(_X, _y)
    assert f"method='sgd', got method={estimator.method!r}" in str(error.value.__cause__)
    assert hasattr(clone(estimator).set_params(method="sgd"), "partial_fit")


def test_partial_fit_checks_later_chunks_against_the_first():
    clf = StochasticGradientClassifier(method="sgd").partial_fit(_X, _y, classes=[-1, 1])
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(np.hstack([_X, _X]), _y)
    with pytest.raises(ValueError, match="classes"):
        clf.partial_fit(_X, _y, classes=[0, 1])
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(_X3, _y3)
    reg = StochasticGradientRegressor(method="sgd").partial_fit(_X, _y)
    with pytest.raises(ValueError, match="features"):
        reg.partial_fit(_X[:, :1], _y)


# --- one-vs-rest, clipped mini-batches, the run loop, Ctrl-C ---------------------------------

def _three_classes():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), np.array(["setosa", "versicolor", "virginica"])[y]


@pytest.mark.parametrize("loss", ["log", "smoothed_hinge"])
@pytest.mark.parametrize("method", ["sarah", "sgd"])
def test_three_classes_are_learnt_one_vs_rest(loss, method):
    """More than two classes (usps, covtype) are learnt one-vs-rest. Each row of coef_ is the
    binary model of its class, fitted on y == class with the same seed, and the scores are its
    columns."""
    from sklearn.svm import LinearSVC

    X, y = _three_classes()
    params = dict(method=method, loss=loss, lam=1e-3, n_epochs=5, random_state=0)
    model = StochasticGradientClassifier(**params).fit(X, y)
    assert model.coef_.shape == (3, 4) and model.intercept_.shape == (3,)
    scores = model.decision_function(X)
    assert scores.shape == (150, 3)
    for k, label in enumerate(model.classes_):
        binary = StochasticGradientClassifier(**params).fit(X, y == label)
        np.testing.assert_array_equal(model.coef_[k], binary.coef_)
        assert model.intercept_[k] == binary.intercept_
        np.testing.assert_allclose(scores[:, k], binary.decision_function(X), rtol=1e-13)
        np.testing.assert_array_equal(model.estimators_[k].coef_, binary.coef_)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(scores, axis=1)])
    assert model.score(X, y) >= LinearSVC().fit(X, y).score(X, y) - 0.03
    assert hasattr(model, "predict_proba") == (loss == "log")
    if loss == "log":
        np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    two = StochasticGradientClassifier(**params).fit(X[y != "setosa"], y[y != "setosa"])
    assert two.estimators_ is None and two.coef_.shape == (4,)  # two classes: one model


def test_one_vs_rest_partial_fit_continues_each_binary_model():
    """partial_fit (method='sgd', the README's "SGD") on three classes."""
    X, y = _three_classes()
    model = StochasticGradientClassifier(method="sgd", lam=1e-3)
    for chunk in np.array_split(np.random.default_rng(0).permutation(150), 3):
        model.partial_fit(X[chunk], y[chunk], classes=np.unique(y))
    assert model.coef_.shape == (3, 4) and model.t_ == 150
    binary = StochasticGradientClassifier(method="sgd", lam=1e-3)
    for chunk in np.array_split(np.random.default_rng(0).permutation(150), 3):
        binary.partial_fit(X[chunk], y[chunk] == "virginica", classes=[False, True])
    np.testing.assert_array_equal(model.coef_[2], binary.coef_)
    assert model.score(X, y) > 0.85


def test_a_mini_batch_larger_than_the_data_is_clipped():
    for Est, y in ((C, _y), (R, _y.astype(float))):
        a = Est(batch_size=41, n_epochs=3, random_state=0).fit(_X, y)
        b = Est(batch_size=40, n_epochs=3, random_state=0).fit(_X, y)
        np.testing.assert_array_equal(a.coef_, b.coef_)
    model = C(method="sgd", batch_size=16).partial_fit(_X, _y, classes=[-1, 1])
    model.partial_fit(_X[:7], _y[:7])  # a last chunk shorter than the mini-batch
    assert model.t_ == 3 + 1 and model.n_iter_ == 1
    with pytest.raises(ValueError, match="batch_size"):  # the functional core still refuses
        stochastic_gradient(_X, _y.astype(float), 0.1, 1, batch_size=41)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("method", METHODS)
def test_the_iterates_do_not_depend_on_where_the_chunks_end(method, backend, monkeypatch):
    """One step (SGD) or one outer loop a chunk, the run loop's own chunks, and the whole run
    in one compiled call (what record_every=None ran before the run loop): the same bits."""
    import lsl_lib._core.run_loop as run_loop
    import lsl_lib.stochastic_gradient._algorithm as module

    X, y = _problem("log", n=60, unit_rows=False)
    kwargs = dict(method=method, batch_size=2, inner_loop=20, sampling="reshuffle",
                  output="random" if method in ("svrg", "sarah") else "last", record_every=2,
                  backend=backend)
    default, h_default = stochastic_gradient(X, y, 0.1, 5, random_state=0, **kwargs)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # one unit a chunk
    single, h_single = stochastic_gradient(X, y, 0.1, 5, random_state=0, **kwargs)
    np.testing.assert_array_equal(single.w, default.w)
    np.testing.assert_array_equal(h_single["objective"], h_default["objective"])
    assert single.inner_loop_lengths == default.inner_loop_lengths
    assert (single.t, single.epoch, single.n_gradients) == \
        (default.t, default.epoch, default.n_gradients)
    # the old single chunk: every index drawn at once, handed to one call
    rng = np.random.default_rng(0)
    L = FiniteSumObjective(X, y, 0.1, "log").L
    rows = 5 * (30 if method == "sgd" else 19)
    indices = sample_indices(60, rows, 2, "reshuffle", rng)
    w = np.zeros(X.shape[1])
    objective = FiniteSumObjective(X, y, 0.1, "log")
    data, cols, indptr = module.row_view(X)
    if method == "sgd":
        steps = 1.0 / (0.1 * np.arange(1, rows + 1) + L)
        if backend == "numba":
            module._sgd_numba_chunk(data, cols, indptr, y, w, indices, steps, 0.1,
                                    objective.loss.code)
        else:
            module.sgd_numpy_chunk(objective, w, indices, steps)
    else:
        t_out = rng.integers(0, 21, size=5) if kwargs["output"] == "random" else np.full(5, 20)
        lengths = np.zeros(5, dtype=np.int64)
        if backend == "numba":
            module._variance_reduced_numba_chunk(data, cols, indptr, y, w, indices,
                                                 METHODS.index(method), 0.1,
                                                 objective.loss.code, 1 / (2 * L), 20, 0.125,
                                                 t_out, lengths)
        else:
            module.variance_reduced_numpy_chunk(objective, w, indices, method, 1 / (2 * L), 20,
                                                0.125, t_out, lengths)
    np.testing.assert_array_equal(default.w, w)


@pytest.mark.parametrize("method", ["sgd", "sarah"])
def test_growth_by_orders_of_magnitude_is_divergence_naming_eta(method):
    X, y = _problem("squared", unit_rows=False)
    with pytest.raises(ValueError, match="diverged.*eta"):
        StochasticGradientRegressor(method=method, eta=3.0, n_epochs=50,
                                    random_state=0).fit(3 * X, y)


def test_verbose_shows_a_progress_bar(monkeypatch, capsys):
    import lsl_lib._core.run_loop as run_loop

    monkeypatch.setattr(run_loop, "PROGRESS_DELAY", 0.0)
    StochasticGradientClassifier(n_epochs=2, verbose=True, random_state=0).fit(_X, _y)
    assert "SARAH" in capsys.readouterr().err
    StochasticGradientClassifier(n_epochs=2, random_state=0).fit(_X, _y)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_ctrl_c_stops_a_long_fit_within_a_second(method):
    """SIGINT to a child process in a long fit (SARAH: 10^4 outer loops on 20 000 dense
    features, a minute or more; SGD's partial_fit: a pass of the numpy path over 10^6 rows):
    it stops within a second; fit leaves the estimator unfitted, partial_fit the model of
    its last whole chunk."""
    import textwrap

    from conftest import assert_sigint_stops_fit

    setup = textwrap.dedent("""
        import numpy as np
        from lsl_lib.stochastic_gradient import StochasticGradientClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(200, 20_000)); y = (X[:, 0] > 0).astype(int)
        StochasticGradientClassifier(n_epochs=1).fit(X, y)  # compiles
        StochasticGradientClassifier(method="sgd", n_epochs=1).fit(X, y)
    """)
    if method == "fit":
        assert_sigint_stops_fit(
            setup + "model = StochasticGradientClassifier(n_epochs=10**4)",
            "model.fit(X, y)",
            after="assert not hasattr(model, 'coef_') and not hasattr(model, 't_')")
    else:
        assert_sigint_stops_fit(
            setup + "model = StochasticGradientClassifier(method='sgd', backend='numpy')"
                    "; X = np.tile(X[:, :20], (5000, 1)); y = np.tile(y, 5000)",
            "model.partial_fit(X, y, classes=[0, 1])", delay=3.0,
            after="assert 0 < model.t_ < len(X) and np.isfinite(model.coef_).all()")
