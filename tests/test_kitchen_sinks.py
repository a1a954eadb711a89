"""Random kitchen sinks: the box |alpha_k| <= C/K after every fit, the unconstrained fits
against least squares and logistic regression on the same features, what a loose and a
tight box do, the feature families' formulas and bounds, a custom (phi, sampler) pair,
seeds, the defaults (a box scaled to the targets, the intercept, the log loss), the
warnings of a box-limited fit and of badly scaled features, Ctrl-C during a fit,
scikit-learn's contract and bad input."""
import os
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
from sklearn.utils.estimator_checks import parametrize_with_checks

from lsl_lib.kitchen_sinks import (AUTO_BOX, FEATURES, NOISE_EXPONENT, BoxLimitedWarning,
                                   RandomKitchenSinksClassifier, RandomKitchenSinksRegressor,
                                   draw_features, feature_matrix, fit_hinge, fit_log,
                                   fit_squared, kernel_exponent)
from lsl_lib.random_binning import bin_indices


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


# ------------------------------------------------------------------ contract and bad input

# The families other than 'fourier' draw p from the training inputs (their box, or anchors
# drawn among the rows): repeating or dropping rows changes the draw, so the weighted fit
# and the fit on repeated rows use different features (the squared and log fits themselves
# are weight-exact: test_sample_weight_is_repetition).
_DATA_DEPENDENT_P = "the features are drawn from the training inputs' box or rows (see comment)"


@parametrize_with_checks([
    RandomKitchenSinksClassifier(),  # the defaults: log loss, intercept, C='auto'
    RandomKitchenSinksRegressor(),
    # the former defaults; a tight box keeps the hinge's minimiser unique on the checks'
    # separable data sets (a loose box leaves many, and sample_weight's checks compare them)
    RandomKitchenSinksClassifier(n_components=20, C=10.0, loss="hinge", fit_intercept=False,
                                 random_state=0),
    RandomKitchenSinksClassifier(n_components=20, feature="binning", random_state=0),
    RandomKitchenSinksClassifier(n_components=20, loss="log", feature="bump",
                                 fit_intercept=True, random_state=0),
    RandomKitchenSinksRegressor(n_components=20, C=100.0, gamma=0.01, fit_intercept=True,
                                random_state=0),
    RandomKitchenSinksRegressor(n_components=20, feature="sigmoid", C=None, random_state=0),
], expected_failed_checks=lambda est: {
    check: _DATA_DEPENDENT_P
    for check in ("check_sample_weight_equivalence_on_dense_data",
                  "check_sample_weight_equivalence_on_sparse_data")
    if est.feature != "fourier"})
def test_scikit_learn_contract(estimator, check):
    check(estimator)


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


# ------------------------------------------------------------------ the lecture's figures

def test_plot_kitchen_sinks_fit_marks_the_box_and_the_weights_on_it():
    from lsl_lib.plotting import plot_kitchen_sinks_fit
    x = np.linspace(-1, 1, 50)
    coef = np.array([-0.5, -0.2, 0.1, 0.5, 0.5])
    fig = plot_kitchen_sinks_fit(x, x, x, x, x, coef, 0.5, feature="fourier",
                                 train_error=0.1, test_error=0.2)
    right = fig.axes[1]
    assert "3 of 5 on the box" in right.get_title()
    on_box = [line for line in right.get_lines() if line.get_label() == "on the box"][0]
    assert_allclose(np.sort(on_box.get_ydata()), [-0.5, 0.5, 0.5])
    assert sorted(line.get_ydata()[0] for line in right.get_lines()
                  if line.get_linestyle() == ":") == [-0.5, 0.5]
    free = plot_kitchen_sinks_fit(x, x, x, x, x, coef, None)
    assert "unconstrained" in free.axes[1].get_title()


def test_plot_oracle_inequality_fits_the_slopes_in_log_log():
    from lsl_lib.plotting import plot_oracle_inequality
    n = np.array([100, 200, 400, 800])
    K = np.array([4, 8, 16])
    fig = plot_oracle_inequality(n, 3.0 / n, 64, K, 2.0 / np.sqrt(K), 1000,
                                 bound_n=10 / np.sqrt(n), bound_K=10 / np.sqrt(K))
    labels = [[line.get_label() for line in ax.get_lines()] for ax in fig.axes[:2]]
    assert "least-squares fit: slope -1.0" in labels[0]
    assert "least-squares fit: slope -0.5" in labels[1]
    assert all(ax.get_xscale() == ax.get_yscale() == "log" for ax in fig.axes[:2])


def test_plot_sink_families_and_box_effect_draw_one_panel_per_family_and_both_curves():
    from lsl_lib.plotting import plot_box_effect, plot_sink_families
    x = np.linspace(-1, 1, 30)
    curves = {f: dict(features=np.cos(np.outer(x, [1, 2])), fit=x, test_error=0.1)
              for f in ("fourier", "bump", "binning")}
    fig = plot_sink_families(x, x, x, x, curves)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert [t.split("\n")[0] for t in titles] == ["fourier", "bump", "binning"]
    fig = plot_box_effect([1, 10, 100], [0.3, 0.1, 0.0], [0.3, 0.2, 0.25], [10, 5, 2], 10,
                          [10, 100], [0.2, 0.1], [0.25, 0.15])
    right = fig.axes[1]
    assert_allclose(right.get_lines()[0].get_ydata(), [0.2, 0.1])
    assert_allclose(right.get_lines()[1].get_ydata(), [0.25, 0.15])
