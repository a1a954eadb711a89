"""Random kitchen sinks: the box |alpha_k| <= C/K after every fit, the unconstrained fits
against least squares and logistic regression on the same features, what a loose and a
tight box do, the feature families' formulas and bounds, a custom (phi, sampler) pair,
seeds, the defaults (a box scaled to the targets, the intercept, the log loss), the
warnings of a box-limited fit and of badly scaled features, Ctrl-C during a fit and
bad input (scikit-learn's contract: test_common.py)."""
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from lsl_lib.kitchen_sinks import (FEATURES, BoxLimitedWarning,
                                   RandomKitchenSinksClassifier, RandomKitchenSinksRegressor,
                                   draw_features, feature_matrix, fit_hinge, fit_log,
                                   fit_squared, kernel_exponent)
from lsl_lib.random_binning import bin_indices
from lsl_lib.kitchen_sinks._estimators import _AUTO_BOX, _NOISE_EXPONENT


def _classification(n=300, d=4, n_classes=2, seed=0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=d, n_redundant=0,
                               n_classes=n_classes, flip_y=0.1, random_state=seed)
    return X, y


def _regression(n=300, d=4, seed=0):
    X, y = make_regression(n_samples=n, n_features=d, noise=5.0, random_state=seed)
    return X, y / np.abs(y).max()


# ------------------------------------------------------------------ the box

#: Tests that set a tight box on purpose: the warning that says so is expected there.
_TIGHT_BOX = pytest.mark.filterwarnings("ignore::lsl_lib.kitchen_sinks.BoxLimitedWarning")


@_TIGHT_BOX
@pytest.mark.parametrize("feature", FEATURES)
@pytest.mark.parametrize("make, loss", [
    (RandomKitchenSinksClassifier, "hinge"),
    (RandomKitchenSinksClassifier, "log"),
    (RandomKitchenSinksRegressor, "squared"),
])
def test_box_holds_after_every_fit(make, loss, feature):
    X, y = _regression() if loss == "squared" else _classification(n_classes=3)
    K, C = 40, 2.0
    est = make(n_components=K, C=C, feature=feature, gamma=0.5, loss=loss,
               random_state=0).fit(X, y)
    assert np.abs(est.coef_).max() <= C / K
    assert est.bound_ == C / K
    # C = 2 is tight for these targets: some coefficients sit on the box
    assert est.n_active_constraints_ > 0
    assert est.n_active_constraints_ == np.sum(np.abs(est.coef_) >= C / K * (1 - 1e-6))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_unconstrained_squared_is_least_squares(fit_intercept):
    X, y = _regression()
    est = RandomKitchenSinksRegressor(n_components=50, C=None, fit_intercept=fit_intercept,
                                      random_state=0).fit(X, y)
    Phi = est.transform_features(X)
    A = np.column_stack([Phi, np.ones(len(y))]) if fit_intercept else Phi
    ref = np.linalg.lstsq(A, y, rcond=None)[0]
    assert_allclose(est.coef_, ref[:50], rtol=1e-8, atol=1e-10)
    assert_allclose(est.intercept_, ref[50] if fit_intercept else 0.0, rtol=1e-8, atol=1e-10)
    assert est.n_active_constraints_ == 0 and est.bound_ is None


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_unconstrained_log_is_logistic_regression(fit_intercept):
    X, y = _classification(n=400)
    est = RandomKitchenSinksClassifier(n_components=20, C=None, loss="log", gamma=0.2,
                                       fit_intercept=fit_intercept, tol=1e-10,
                                       random_state=0).fit(X, y)
    Phi = est.transform_features(X)
    ref = LogisticRegression(C=1e12, fit_intercept=fit_intercept, tol=1e-12,
                             max_iter=10_000).fit(Phi, y)
    assert_allclose(est.coef_, ref.coef_, rtol=1e-4, atol=1e-5)
    assert_allclose(est.intercept_, ref.intercept_, rtol=1e-4, atol=1e-5)
    assert_allclose(est.predict_proba(X), ref.predict_proba(Phi), atol=1e-6)


def test_unconstrained_hinge_reaches_the_minimum_of_a_reference_solver():
    """The LP's optimum is the smallest hinge risk: no other solver's point beats it."""
    X, y = _classification(n=200)
    est = RandomKitchenSinksClassifier(n_components=15, C=None, loss="hinge",
                                       fit_intercept=False, random_state=0).fit(X, y)
    Phi = est.transform_features(X)
    s = np.where(y == 1, 1.0, -1.0)
    risk = np.maximum(0, 1 - s * (Phi @ est.coef_[0])).mean()
    from scipy.optimize import minimize
    other = minimize(lambda a: np.maximum(0, 1 - s * (Phi @ a)).mean(),
                     np.linalg.lstsq(Phi, s, rcond=None)[0], method="Powell",
                     options={"maxiter": 20_000, "xtol": 1e-10, "ftol": 1e-12}).fun
    assert risk <= other + 1e-9


@pytest.mark.parametrize("fit, target, options", [
    (fit_squared, "real", {}), (fit_log, "sign", {"tol": 1e-8}), (fit_hinge, "sign", {})])
def test_loose_box_leaves_the_unconstrained_solution(fit, target, options):
    X, y = _classification(n=300)
    rng = np.random.default_rng(0)
    Phi = feature_matrix("fourier", X, draw_features("fourier", X, 10, 0.2, rng))
    t = np.where(y == 1, 1.0, -1.0)
    if target == "real":
        t = t + 0.3 * rng.normal(size=len(t))
    free = fit(Phi, t, None, **options)[0]
    loose = fit(Phi, t, 10 * np.abs(free).max(), **options)[0]
    tight = fit(Phi, t, np.abs(free).max() / 4, **options)[0]
    if fit is fit_hinge:  # the LP's minimiser need not be unique: compare the risks
        def risk(a):
            return np.maximum(0, 1 - t * (Phi @ a)).mean()
        assert_allclose(risk(loose), risk(free), rtol=1e-7)
        assert risk(tight) > risk(free)
    else:
        assert_allclose(loose, free, rtol=1e-5, atol=1e-7)
    assert np.sum(np.abs(tight) >= np.abs(free).max() / 4 * (1 - 1e-6)) > 0


def test_box_constrained_least_squares_is_the_kkt_point():
    """At the exact minimiser of the box problem, the gradient of the residual pushes
    every coefficient on the box outwards and vanishes on the free ones."""
    X, y = _regression()
    rng = np.random.default_rng(1)
    Phi = feature_matrix("bump", X, draw_features("bump", X, 30, 0.3, rng))
    B = np.abs(fit_squared(Phi, y, None)[0]).max() / 3
    alpha = fit_squared(Phi, y, B)[0]
    grad = Phi.T @ (Phi @ alpha - y)
    on_box = np.isclose(np.abs(alpha), B, rtol=1e-9)
    assert on_box.any() and (~on_box).any()
    assert np.all(-grad[on_box] * np.sign(alpha[on_box]) >= -1e-8)
    assert_allclose(grad[~on_box], 0.0, atol=1e-8 * np.abs(grad).max())


def test_intercept_is_free():
    X, y = _regression()
    est = RandomKitchenSinksRegressor(n_components=20, C=0.5, fit_intercept=True,
                                      random_state=0).fit(X, y + 5.0)
    assert np.abs(est.coef_).max() <= 0.5 / 20
    assert est.intercept_ > 4  # outside the box: the constant is not constrained


def test_sample_weight_is_repetition():
    X, y = _regression(n=80)
    w = np.random.default_rng(0).integers(0, 3, size=len(y))
    kw = dict(n_components=10, C=1.0, random_state=0)
    weighted = RandomKitchenSinksRegressor(**kw).fit(X, y, sample_weight=w)
    repeated = RandomKitchenSinksRegressor(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-7, atol=1e-10)


# ------------------------------------------------------------------ the feature families

def test_fourier_and_sigmoid_formulas():
    X, _ = _classification(n=20, d=3)
    rng = np.random.default_rng(0)
    p = draw_features("fourier", X, 7, 0.5, rng)
    assert_allclose(feature_matrix("fourier", X, p),
                    np.cos(X @ p["frequencies"] + p["offsets"]), rtol=1e-12)
    q = draw_features("sigmoid", X, 7, 0.5, rng)
    W, c = q["frequencies"], q["centres"]
    direct = np.array([[1 / (1 + np.exp(-W[:, k] @ (x - c[k]))) for k in range(7)] for x in X])
    assert_allclose(feature_matrix("sigmoid", X, q), direct, rtol=1e-10)


def test_fourier_frequencies_are_those_of_the_gaussian_kernel():
    """E[2 cos(w.x + b) cos(w.y + b)] = exp(-gamma ||x - y||^2): the Fourier sinks are RFF."""
    x, z = np.zeros((1, 2)), np.array([[0.6, -0.3]])
    p = draw_features("fourier", x, 200_000, 0.8, np.random.default_rng(0))
    prod = 2 * feature_matrix("fourier", x, p) * feature_matrix("fourier", z, p)
    se = prod.std() / np.sqrt(prod.size)
    assert abs(prod.mean() - np.exp(-0.8 * 0.45)) < 4 * se


def test_bump_formula_and_centres_in_the_input_box():
    X, _ = _classification(n=30, d=3)
    p = draw_features("bump", X, 500, 0.7, np.random.default_rng(0))
    c = p["centres"]
    assert np.all(c >= X.min(axis=0)) and np.all(c <= X.max(axis=0))
    direct = np.exp(-0.7 * ((X[:, None, :] - c[None]) ** 2).sum(axis=2))
    assert_allclose(feature_matrix("bump", X, p), direct, rtol=1e-9, atol=1e-14)
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    assert_allclose(feature_matrix("bump", Xs, p), feature_matrix("bump", Xs.toarray(), p),
                    rtol=1e-9, atol=1e-14)


def test_binning_is_the_indicator_of_the_anchor_cell():
    X, _ = _classification(n=200, d=2)
    p = draw_features("binning", X, 60, 0.5, np.random.default_rng(0))
    Phi = feature_matrix("binning", X, p)
    # direct: the integer cell coordinates of x equal the anchor's, in grid k
    cells = np.floor((X[:, None, :] - p["shifts"][None]) / p["pitches"][None])
    assert set(np.unique(Phi)) <= {0.0, 1.0}
    for k in range(60):
        members = Phi[:, k] == 1
        assert members.any()  # anchored at a training input: never an empty cell
        same = (cells[:, k] == cells[members][0, k]).all(axis=1)
        assert_array_equal(members, same)
    assert_array_equal(bin_indices(X, p["pitches"], p["shifts"]) == p["anchor_ids"], Phi == 1)


@pytest.mark.parametrize("feature", FEATURES)
def test_every_family_is_bounded_by_one(feature):
    X, _ = _classification(n=100, d=5)
    p = draw_features(feature, X, 50, 2.0, np.random.default_rng(0))
    Phi = feature_matrix(feature, 3 * X, p)  # also far outside the training box
    assert Phi.shape == (100, 50) and np.all(np.abs(Phi) <= 1.0)


@_TIGHT_BOX
@pytest.mark.parametrize("feature", FEATURES)
def test_csr_input_gives_the_dense_fit(feature):
    X, y = _classification(n=120, d=6)
    X[np.abs(X) < 0.7] = 0.0
    kw = dict(n_components=20, C=5.0, feature=feature, gamma=0.3, loss="log", random_state=0)
    dense = RandomKitchenSinksClassifier(**kw).fit(X, y)
    sparse = RandomKitchenSinksClassifier(**kw).fit(sp.csr_matrix(X), y)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-9)


def test_custom_pair():
    def sampler(rng, n_features, K):
        return {"W": rng.normal(size=(n_features, K))}

    def phi(X, params):
        return np.tanh(X @ params["W"])

    X, y = _regression()
    est = RandomKitchenSinksRegressor(n_components=12, C=1.0, feature=(phi, sampler),
                                      random_state=3).fit(X, y)
    W = sampler(np.random.default_rng(3), X.shape[1], 12)["W"]
    assert_allclose(est.feature_params_["W"], W)
    assert_allclose(est.transform_features(X), np.tanh(X @ W))
    ref = fit_squared(np.tanh(X @ W), y, 1.0 / 12, fit_intercept=True)[0]
    assert_allclose(est.coef_, ref[:-1], rtol=1e-10)
    assert_allclose(est.intercept_, ref[-1], rtol=1e-10)


def test_same_seed_same_model_and_clone():
    X, y = _classification(n_classes=3)
    a = RandomKitchenSinksClassifier(n_components=20, loss="log", random_state=5).fit(X, y)
    b = clone(a).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
    c = RandomKitchenSinksClassifier(n_components=20, loss="log", random_state=6).fit(X, y)
    assert not np.array_equal(a.coef_, c.coef_)


def test_multiclass_is_one_vs_rest():
    X, y = _classification(n_classes=3)
    est = RandomKitchenSinksClassifier(n_components=15, C=3.0, loss="log", gamma=0.3,
                                       random_state=0).fit(X, y)
    Phi = est.transform_features(X)
    for j, c in enumerate(est.classes_):
        ref = fit_log(Phi, np.where(y == c, 1.0, -1.0), 3.0 / 15, fit_intercept=True)[0]
        assert_allclose(est.coef_[j], ref[:-1], rtol=1e-10)
        assert_allclose(est.intercept_[j], ref[-1], rtol=1e-10)
    assert_array_equal(est.predict(X),
                       est.classes_[np.argmax(Phi @ est.coef_.T + est.intercept_, axis=1)])


@_TIGHT_BOX
def test_box_trades_training_fit_for_a_smaller_function():
    """A smaller C: a larger training risk, a sup-norm ||f - b|| <= C."""
    X, y = _regression()
    risks = []
    for C in (0.1, 1.0, 10.0):
        est = RandomKitchenSinksRegressor(n_components=30, C=C, random_state=0).fit(X, y)
        assert np.abs(est.predict(X) - est.intercept_).max() <= C
        risks.append(np.mean((est.predict(X) - y) ** 2))
    assert risks[0] > risks[1] > risks[2]


# ------------------------------------------------------------------ the defaults and their warnings

def _far_from_zero(seed=0):
    """A linear target near 80: far from 0, where a box without intercept fails."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(500, 5))
    return X, 80 + X @ rng.normal(size=5)


def test_default_regressor_fits_a_target_far_from_zero():
    """The defaults (an intercept, C='auto') fit it; C=10 without intercept would not."""
    X, y = _far_from_zero()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither the box nor the scale warns
        est = RandomKitchenSinksRegressor(random_state=0).fit(X, y)
    assert est.score(X, y) > 0.9
    assert est.n_active_constraints_ < est.n_components / 10
    assert est.C_ == pytest.approx(_AUTO_BOX * y.std(), rel=1e-12)


def test_former_defaults_warn_that_the_box_shaped_the_fit():
    X, y = _far_from_zero()
    with pytest.warns(BoxLimitedWarning, match=r"100 of 100 weights sit on the box.*Raise C.*"
                                               r"fit_intercept=True"):
        est = RandomKitchenSinksRegressor(n_components=100, C=10.0, fit_intercept=False,
                                          random_state=0).fit(X, y)
    assert est.score(X, y) < 0 and est.n_active_constraints_ == 100
    with pytest.warns(BoxLimitedWarning, match="Raise C") as caught:  # with intercept: C alone
        RandomKitchenSinksRegressor(C=0.01, random_state=0).fit(X, y)
    assert "fit_intercept" not in str(caught[0].message)


def test_auto_box_follows_the_targets_scale():
    """C='auto' is _AUTO_BOX std(y): fitting a y + c gives a f + c, also where the box binds."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 2)), rng.normal(size=60)
    kw = dict(n_components=50, gamma=0.05, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoxLimitedWarning)
        est = RandomKitchenSinksRegressor(**kw).fit(X, y)
        scaled = RandomKitchenSinksRegressor(**kw).fit(X, 1000 * y - 7)
    assert 0 < est.n_active_constraints_ == scaled.n_active_constraints_
    assert scaled.C_ == pytest.approx(1000 * est.C_, rel=1e-12)
    assert_allclose(scaled.predict(X), 1000 * est.predict(X) - 7, rtol=1e-8, atol=1e-8)
    without = RandomKitchenSinksRegressor(fit_intercept=False, **kw).fit(X, y + 5)
    assert without.C_ == pytest.approx(_AUTO_BOX * np.sqrt(np.mean((y + 5) ** 2)), rel=1e-12)


def test_default_classifier_is_the_log_loss_with_an_intercept():
    """On 90/10 classes the defaults do not predict the majority class only."""
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=5, weights=[0.9],
                               flip_y=0.02, random_state=0)
    train, test = slice(0, 1500), slice(1500, None)
    est = RandomKitchenSinksClassifier(random_state=0).fit(X[train], y[train])
    majority = max(y[test].mean(), 1 - y[test].mean())
    assert est.score(X[test], y[test]) > majority + 0.03
    assert est.loss == "log" and est.C_ == _AUTO_BOX and est.intercept_[0] != 0
    assert_allclose(est.predict_proba(X[test]).sum(axis=1), 1.0)
    assert est.n_active_constraints_ < est.n_components / 2


def test_kernel_exponent_is_gamma_times_the_mean_pairwise_distance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) * [1.0, 10.0, 0.1] + 5
    diff = X[:, None, :] - X[None, :, :]  # all ordered pairs, as E over independent rows
    assert kernel_exponent("fourier", X, 0.3) == pytest.approx(
        0.3 * np.mean(np.sum(diff ** 2, axis=2)), rel=1e-12)
    assert kernel_exponent("bump", X, 0.3) == kernel_exponent("fourier", X, 0.3)
    assert kernel_exponent("binning", X, 0.3) >= 0.3 * np.mean(np.abs(diff).sum(axis=2))
    Xs = np.where(np.abs(X - 5) > 1, X, 0.0)
    for feature in FEATURES:
        assert kernel_exponent(feature, sp.csr_matrix(Xs), 0.3) == pytest.approx(
            kernel_exponent(feature, Xs, 0.3), rel=1e-10)


@pytest.mark.parametrize("feature", FEATURES)
def test_a_column_of_a_much_larger_scale_warns(feature):
    """One column times 1e6 sends the sinks to noise; say so, name the cure."""
    X, y = _classification(n=200, d=5)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    kw = dict(n_components=20, feature=feature, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # standardised: no warning
        RandomKitchenSinksClassifier(**kw).fit(X, y)
    X[:, 0] *= 1e6
    assert kernel_exponent(feature, X, 1 / 5) > _NOISE_EXPONENT
    with pytest.warns(UserWarning, match="gamma=0.2 is far too large.*Standardise the features"):
        RandomKitchenSinksClassifier(**kw).fit(X, y)


def test_hinge_lp_stops_at_its_time_limit_naming_it():
    X, y = _classification(n=3000, d=5)
    est = RandomKitchenSinksClassifier(loss="hinge", time_limit=1e-3, random_state=0)
    with pytest.raises(RuntimeError, match=r"did not finish within time_limit=0.001 s.*"
                                           r"loss='log'"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")


def test_an_interrupted_fit_leaves_the_estimator_unfitted():
    def sampler(rng, n_features, K):
        return rng.normal(size=(n_features, K))

    def phi(X, W):
        if len(X) == 99:  # the interruption, where a solver would be
            raise KeyboardInterrupt
        return np.cos(X @ W)

    X, y = _regression(n=100)
    est = RandomKitchenSinksRegressor(n_components=5, feature=(phi, sampler), random_state=0)
    est.fit(X, y)
    with pytest.raises(KeyboardInterrupt):
        est.fit(X[:99], y[:99])
    assert not [name for name in vars(est) if name.endswith("_")]
    with pytest.raises(NotFittedError):
        est.predict(X)


@pytest.mark.parametrize("where", ["parameter validation", "input validation"])
def test_a_refit_stopped_before_its_solver_leaves_the_estimator_unfitted(where, monkeypatch):
    """Interrupted (or failed) in scikit-learn's validation, before the features are drawn, a
    refit does not leave the previous fit answering ``predict``."""
    import sklearn.base

    X, y = _regression(n=100)
    est = RandomKitchenSinksRegressor(n_components=5, random_state=0).fit(X, y)
    if where == "parameter validation":
        def interrupted(self, *args, **kwargs):
            raise KeyboardInterrupt

        monkeypatch.setattr(sklearn.base.BaseEstimator, "_validate_params", interrupted)
        with pytest.raises(KeyboardInterrupt):
            est.fit(X, y)
    else:
        with pytest.raises(ValueError, match="NaN"):
            est.fit(np.full_like(X, np.nan), y)
    assert not [name for name in vars(est) if name.endswith("_")]
    with pytest.raises(NotFittedError):
        est.predict(X)


_CHILD = textwrap.dedent("""
    import signal
    import sys
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job ignores it
    import numpy as np
    import scipy.optimize._linprog_highs as linprog_highs
    from lsl_lib.kitchen_sinks import RandomKitchenSinksClassifier

    highs = linprog_highs._highs_wrapper

    def announced(*args, **kwargs):  # says when HiGHS' compiled solve starts
        print("in HiGHS", flush=True)
        return highs(*args, **kwargs)

    linprog_highs._highs_wrapper = announced
    loss, n = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 10))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n) > 1).astype(int)
    est = RandomKitchenSinksClassifier(n_components=200, loss=loss, time_limit=None,
                                       random_state=0)
    print("fitting", flush=True)
    try:
        while True:  # log: 50 L-BFGS-B steps a fit; hinge: one LP of several seconds
            # refits of one estimator: wherever the signal lands in a refit (its parameter
            # checks included), the previous fit must not be left in place
            est.fit(X, y)
    except KeyboardInterrupt:
        print("interrupted, fitted:", hasattr(est, "coef_"), flush=True)
        raise
""")


def _wait_for_line(child, expected, timeout=120):
    """Read the child's stdout until ``expected`` (at most ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if select.select([child.stdout], [], [], 1.0)[0]:
            line = child.stdout.readline()
            assert line, f"the child ended before printing {expected!r}"
            if line.strip() == expected:
                return
    raise AssertionError(f"the child did not print {expected!r} within {timeout} s")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("loss, n, started", [("log", 20_000, "fitting"),
                                              ("hinge", 10_000, "in HiGHS")])
def test_ctrl_c_stops_a_fit_within_seconds(loss, n, started):
    """SIGINT (Ctrl-C, Jupyter's interrupt) stops the L-BFGS-B fit, and the HiGHS LP (which
    alone ignores signals until it returns), within a second or two; the exit is timed. The
    hinge's signal is sent once HiGHS runs (its LP of 10 000 rows takes tens of seconds)."""
    import scipy.optimize._linprog_highs as linprog_highs

    import lsl_lib
    if loss == "hinge" and not hasattr(linprog_highs, "_highs_wrapper"):
        pytest.skip("this scipy calls HiGHS by another private name: cannot tell when it runs")
    root = os.path.dirname(os.path.dirname(lsl_lib.__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, loss, str(n)], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for_line(child, started)
        time.sleep(1.0)
        assert child.poll() is None
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        elapsed = time.monotonic() - sent
    finally:
        child.kill()
        child.wait()
    assert "interrupted, fitted: False" in out, err
    assert "KeyboardInterrupt" in err
    assert elapsed < 3.0


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("params, match", [
    (dict(feature="wavelet"), "feature"),
    (dict(loss="squared"), "loss"),
    (dict(C=0.0), "C"),
    (dict(C=-1.0), "C"),
    (dict(n_components=0), "n_components"),
    (dict(gamma=0.0), "gamma"),
    (dict(feature=(np.cos,)), "feature must be one of"),
    (dict(feature=(np.cos, 3)), "feature must be one of"),
])
def test_bad_parameters_are_named(params, match):
    X, y = _classification(n=40)
    with pytest.raises(ValueError, match=match):
        RandomKitchenSinksClassifier(**params).fit(X, y)


def test_regressor_refuses_classification_losses():
    X, y = _regression(n=40)
    with pytest.raises(ValueError, match="loss"):
        RandomKitchenSinksRegressor(loss="hinge").fit(X, y)


@pytest.mark.parametrize("phi, match", [
    (lambda X, p: np.ones((X.shape[0], 3)), "shape"),
    (lambda X, p: 2 * np.cos(X @ p), "bounded"),
    (lambda X, p: np.full((X.shape[0], 5), np.nan), "bounded"),
])
def test_malformed_pair_output(phi, match):
    X, y = _regression(n=40)
    pair = (phi, lambda rng, d, K: rng.normal(size=(d, K)))
    with pytest.raises(ValueError, match=match):
        RandomKitchenSinksRegressor(n_components=5, feature=pair).fit(X, y)


def test_one_class_is_refused():
    X, _ = _classification(n=40)
    with pytest.raises(ValueError, match="one class"):
        RandomKitchenSinksClassifier().fit(X, np.zeros(40))
