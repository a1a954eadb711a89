"""Extreme learning machines: the closed forms, the nodes, bad input (scikit-learn's contract:
test_common.py)."""
import re

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import Ridge

from lsl_lib.datasets import load_digits
from lsl_lib.elm import (ACTIVATIONS, ExtremeLearningMachineClassifier,
                         ExtremeLearningMachineRegressor, draw_hidden_parameters, hidden_layer,
                         output_weights, output_weights_svd)

ELM = (ExtremeLearningMachineClassifier, ExtremeLearningMachineRegressor)


def _regression_data(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


def _objective(H, T, C, beta):
    """½‖β‖² + C/2 ‖Hβ − T‖², the regularised ELM's objective."""
    return 0.5 * np.sum(beta ** 2) + 0.5 * C * np.sum((H @ beta - T) ** 2)


# ----------------------------------------------------------------------------- closed forms

@pytest.mark.parametrize("n, n_hidden", [(80, 30), (30, 80), (50, 50)])
def test_primal_and_dual_closed_forms_agree(n, n_hidden):
    """(HᵀH + I/C)⁻¹HᵀT = Hᵀ(HHᵀ + I/C)⁻¹T: the push-through identity, on a well-conditioned
    problem (the ridge I/C bounds both systems' condition numbers by 1 + C‖H‖²)."""
    rng = np.random.default_rng(1)
    H = rng.normal(size=(n, n_hidden))
    T = rng.normal(size=(n, 3))
    primal = output_weights(H, T, C=10.0, solver="primal")
    dual = output_weights(H, T, C=10.0, solver="dual")
    assert primal.shape == dual.shape == (n_hidden, 3)
    assert_allclose(primal, dual, rtol=1e-8, atol=1e-12)
    auto = output_weights(H, T, C=10.0)
    assert_allclose(auto, primal, rtol=1e-8, atol=1e-12)


def test_closed_form_is_the_minimiser_and_scikit_learns_ridge():
    """β zeroes the gradient β + C Hᵀ(Hβ − T) of the objective and is Ridge(alpha=1/C)."""
    rng = np.random.default_rng(2)
    H, T, C = rng.normal(size=(70, 20)), rng.normal(size=70), 3.0
    beta = output_weights(H, T, C)
    gradient = beta + C * H.T @ (H @ beta - T)
    assert np.abs(gradient).max() < 1e-10 * C * np.abs(H.T @ T).max()
    ridge = Ridge(alpha=1.0 / C, fit_intercept=False, solver="cholesky").fit(H, T)
    assert_allclose(beta, ridge.coef_, rtol=1e-9)


@pytest.mark.parametrize("Model", ELM)
@pytest.mark.parametrize("n", [40, 120])
def test_estimator_solvers_agree_in_both_shapes(Model, n):
    X, y = _regression_data(n)
    if Model is ExtremeLearningMachineClassifier:
        y = (y > 0).astype(int)
    fits = {solver: Model(n_hidden=80, C=5.0, solver=solver, random_state=0).fit(X, y)
            for solver in ("auto", "primal", "dual")}
    assert fits["auto"].solver_ == ("primal" if n >= 80 else "dual")
    assert fits["primal"].solver_ == "primal" and fits["dual"].solver_ == "dual"
    assert_allclose(fits["primal"].coef_, fits["dual"].coef_, rtol=1e-8, atol=1e-11)
    assert_allclose(fits["auto"].coef_, fits["primal"].coef_, rtol=1e-8, atol=1e-11)


@pytest.mark.parametrize("n, n_hidden", [(80, 30), (30, 80)])
def test_svd_form_is_the_ridge_solution(n, n_hidden):
    """V diag(σ/(σ² + 1/C)) UᵀT is the closed form wherever Cholesky is accurate: the
    smaller system ('auto'), of full rank, has a condition number ≤ 1 + C‖H‖²/σ_min² ≈ 1e5."""
    rng = np.random.default_rng(4)
    H, T = rng.normal(size=(n, n_hidden)), rng.normal(size=(n, 2))
    for C in (0.1, 10.0, 1e4):
        assert_allclose(output_weights_svd(H, T, C), output_weights(H, T, C),
                        rtol=1e-9, atol=1e-12)
        assert_allclose(output_weights_svd(H, T[:, 0], C), output_weights(H, T[:, 0], C),
                        rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("solver", ["auto", "primal", "dual"])
@pytest.mark.parametrize("n_hidden", [400, 600])
def test_huge_C_on_rank_deficient_H_falls_back_to_least_squares(solver, n_hidden):
    """250 distinct rows, each twice, and L = 400 or 600 > 250 nodes: H has rank
    250, and with C = 1e12 the L x L system (primal) is singular and the N x N one (dual,
    repeated rows) ill-conditioned beyond the machine precision; both used to raise
    LinAlgError or return Cholesky's rounding noise. The fallback gives the minimum-norm
    least-squares solution H⁺T (numpy's pinv and lstsq), up to 1/(C σ²) ≤ 1e-9 here."""
    rng = np.random.default_rng(0)
    X = np.repeat(rng.normal(size=(250, 10)), 2, axis=0)
    y = X[:, 0] > 0
    model = ExtremeLearningMachineClassifier(n_hidden=n_hidden, C=1e12, solver=solver,
                                             random_state=0).fit(X, y)
    assert model.solver_ == "svd"
    H, T = model.hidden_activations(X), np.where(y, 1.0, -1.0)
    sigma = np.linalg.svd(H, compute_uv=False)
    assert np.sum(sigma > 1e-8 * sigma[0]) == 250 and sigma[249] ** 2 * 1e12 > 1e9
    minimum_norm = np.linalg.pinv(H) @ T
    assert_allclose(model.coef_, minimum_norm, rtol=0, atol=1e-8 * np.abs(minimum_norm).max())
    assert_allclose(model.coef_, np.linalg.lstsq(H, T, rcond=None)[0], rtol=0,
                    atol=1e-8 * np.abs(minimum_norm).max())
    assert model.score(X, y) == 1.0  # 250 distinct points, 250 independent directions
    regressor = ExtremeLearningMachineRegressor(n_hidden=n_hidden, C=1e12, solver=solver,
                                                random_state=0).fit(X, X[:, 1])
    assert regressor.solver_ == "svd"
    assert_allclose(regressor.coef_, np.linalg.pinv(H) @ X[:, 1], rtol=0,
                    atol=1e-8 * np.abs(regressor.coef_).max())


@pytest.mark.parametrize("Model", ELM)
def test_svd_solver_is_the_ridge_of_the_cholesky_forms(Model):
    """solver='svd' computes the same β as the Cholesky forms on a well-conditioned H, and
    says so in solver_."""
    X, y = _regression_data(90, d=4)
    if Model is ExtremeLearningMachineClassifier:
        y = (y > 0).astype(int)
    for n_hidden in (40, 150):  # N > L (primal) and N < L (dual)
        svd = Model(n_hidden=n_hidden, C=5.0, solver="svd", random_state=0).fit(X, y)
        auto = Model(n_hidden=n_hidden, C=5.0, random_state=0).fit(X, y)
        assert svd.solver_ == "svd" and auto.solver_ in ("primal", "dual")
        assert_allclose(svd.coef_, auto.coef_, rtol=1e-8, atol=1e-10)


def test_infinite_C_is_the_minimum_norm_least_squares_fit():
    """C = inf: no ridge. 'auto' takes the SVD and returns H⁺T, on a full-rank H with N > L
    (the least-squares solution, = lstsq) and with N < L (the minimum-norm interpolant);
    the normal equations ('primal', C = inf) agree where H is well-conditioned."""
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(60, 6))
    y = np.sin(X.sum(axis=1))
    for n_hidden in (20, 200):
        model = ExtremeLearningMachineRegressor(n_hidden=n_hidden, C=np.inf, weight_scale=2.0,
                                                random_state=0).fit(X, y)
        assert model.solver_ == "svd"
        H = model.hidden_activations(X)
        assert_allclose(model.coef_, np.linalg.pinv(H) @ y, rtol=1e-7,
                        atol=1e-9 * np.abs(model.coef_).max())
        assert_allclose(output_weights(H, y, np.inf), model.coef_, rtol=0, atol=0)
    normal = ExtremeLearningMachineRegressor(n_hidden=20, C=np.inf, weight_scale=2.0,
                                             solver="primal", random_state=0).fit(X, y)
    H = normal.hidden_activations(X)
    assert np.linalg.cond(H) < 1e4  # cond(HᵀH) < 1e8: the normal equations are accurate
    assert normal.solver_ == "primal"
    assert_allclose(normal.coef_, np.linalg.lstsq(H, y, rcond=None)[0], rtol=1e-6)


def test_least_squares_by_svd_beats_the_squared_condition_number():
    """On an H of condition number ~1e10 (16 sigmoids of one variable),
    HᵀH has condition ~1e20 > 1/ε. The SVD's least squares fits the smooth target to a
    mean squared error of 1e-7 to 4e-10 (seeds 0-4); a small ridge (C = 1e8) keeps the
    Cholesky system solvable, but its bias leaves 5e-6 to 2e-5: 50 times more, at least."""
    x = np.linspace(-1, 1, 200)[:, None]
    t = np.sin(3 * x[:, 0]) + 0.5 * np.cos(7 * x[:, 0])
    for seed in range(5):
        fits = {C: ExtremeLearningMachineRegressor(n_hidden=16, C=C, weight_scale=5.0,
                                                   random_state=seed).fit(x, t)
                for C in (1e8, np.inf)}
        H = fits[np.inf].hidden_activations(x)
        assert np.linalg.cond(H) ** 2 > 1 / np.finfo(float).eps
        error = {C: np.mean((m.predict(x) - t) ** 2) for C, m in fits.items()}
        assert error[np.inf] < 2e-7 and error[1e8] > 50 * error[np.inf]


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("n_hidden", [50, 100])
def test_huge_C_interpolates_the_training_set_when_L_ge_N(activation, n_hidden):
    """With L >= N, H has full row rank (almost surely) and the residual of the dual form,
    T − Hβ = (I/C)(HHᵀ + I/C)⁻¹T, has norm at most ‖T‖ / (1 + C σ_min(H)²): tiny once
    C σ_min² >> 1. Eight inputs and s = 3 keep the nodes non-linear enough that σ_min is
    not tiny (on 3 inputs with s = 1, sigmoid nodes are nearly affine and σ_min ~ 1e-7)."""
    X, y = _regression_data(50, d=8, seed=3)
    C = 1e10
    model = ExtremeLearningMachineRegressor(n_hidden=n_hidden, activation=activation, C=C,
                                            weight_scale=3.0, random_state=0).fit(X, y)
    H = model.hidden_activations(X)
    sigma_min = np.linalg.svd(H, compute_uv=False)[-1]
    assert sigma_min > 1e-3  # full row rank, by a margin
    residual = np.linalg.norm(model.predict(X) - y)
    bound = np.linalg.norm(y) / (1.0 + C * sigma_min ** 2)
    # the bound plus the rounding of a Cholesky solve of condition ≤ 1 + C‖H‖²
    roundoff = 1e-16 * (1.0 + C * np.linalg.norm(H, 2) ** 2) * np.linalg.norm(y)
    assert residual <= bound * (1 + 1e-6) + roundoff
    assert residual < 1e-3 * np.linalg.norm(y)
    labels = (y > np.median(y)).astype(int)
    classifier = ExtremeLearningMachineClassifier(n_hidden=n_hidden, activation=activation,
                                                  C=C, weight_scale=3.0,
                                                  random_state=0).fit(X, labels)
    assert classifier.score(X, labels) == 1.0


def test_more_hidden_nodes_approximate_better():
    """Universal approximation on f(x) = sin(3x) on [-1, 1]. Exact part: hidden layers that
    are nested (the first L columns of a wider layer) give a non-increasing minimum of the
    objective, since β padded with zeros is feasible for the wider layer. Statistical part:
    averaged over seeds, the test error of a fitted ELM falls by orders of magnitude from
    L = 4 to L = 64 (a smooth target, sigmoid nodes)."""
    x = np.linspace(-1, 1, 300)[:, None]
    x_test = np.linspace(-1, 1, 1001)[:, None]
    f, C = np.sin(3 * x[:, 0]), 1e6
    widths = (2, 4, 8, 16, 32, 64)
    for seed in range(10):
        weights, biases = draw_hidden_parameters(x, widths[-1], "sigmoid", 4.0,
                                                 np.random.default_rng(seed))
        H = hidden_layer(x, weights, biases, "sigmoid")
        objectives = [_objective(H[:, :L], f, C, output_weights(H[:, :L], f, C))
                      for L in widths]
        assert np.all(np.diff(objectives) <= 1e-9 * objectives[0])
    errors = {}
    for L in (4, 16, 64):
        errors[L] = np.mean([np.mean((ExtremeLearningMachineRegressor(
            n_hidden=L, C=C, weight_scale=4.0, random_state=seed).fit(x, f).predict(x_test)
            - np.sin(3 * x_test[:, 0])) ** 2) for seed in range(10)])
    assert errors[64] < errors[16] < errors[4]
    assert errors[64] < 1e-3 * errors[4]


# ----------------------------------------------------------------------------- the nodes

def _formula(name, x, a, b):
    """G(a, b, x) of one node and one input, from the table of Huang et al. 2012."""
    if name == "gaussian":
        return np.exp(-b * np.sum((x - a) ** 2))
    if name == "multiquadric":
        return np.sqrt(np.sum((x - a) ** 2) + b ** 2)
    z = float(a @ x + b)
    return {"sigmoid": 1.0 / (1.0 + np.exp(-z)), "tanh": np.tanh(z),
            "hardlim": float(z >= 0), "cosine": np.cos(z), "relu": max(z, 0.0)}[name]


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_each_activation_matches_its_formula(activation):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(12, 4))
    weights, biases = draw_hidden_parameters(X, 7, activation, 0.8, rng)
    H = hidden_layer(X, weights, biases, activation)
    expected = np.array([[_formula(activation, x, weights[:, j], biases[j]) for j in range(7)]
                         for x in X])
    assert H.shape == (12, 7) and H.dtype == np.float64
    assert_allclose(H, expected, rtol=1e-12, atol=1e-12)
    H_csr = hidden_layer(sp.csr_matrix(X), weights, biases, activation)
    assert_allclose(H_csr, expected, rtol=1e-12, atol=1e-12)


def test_hidden_parameters_are_drawn_as_documented():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 6))
    weights, biases = draw_hidden_parameters(X, 2000, "tanh", 0.5, rng)
    assert weights.shape == (6, 2000) and biases.shape == (2000,)
    assert np.abs(weights).max() <= 0.5 and np.abs(biases).max() <= 1.0
    # U[-s, s]: mean 0, variance s²/3, standard error of the variance about 0.001 here
    assert abs(weights.var() - 0.25 / 3) < 0.01 and abs(weights.mean()) < 0.01
    centres, impact = draw_hidden_parameters(X, 20, "gaussian", 2.0, rng)
    assert all(any(np.array_equal(c, x) for x in X) for c in centres.T)  # training rows
    assert len({tuple(c) for c in centres.T}) == 20  # without replacement when L <= N
    assert np.all((impact >= 0) & (impact < 4.0))  # s² U(0, 1)
    _, impact = draw_hidden_parameters(X, 50, "multiquadric", 2.0, rng)  # L > N: replaced
    assert np.all((impact >= 0) & (impact < 0.5))  # U(0, 1) / s
    weights, phases = draw_hidden_parameters(X, 2000, "cosine", 0.5, rng)
    assert np.abs(weights).max() <= 0.5
    assert phases.min() >= 0 and phases.max() < 2 * np.pi and phases.max() > 6.0  # U[0, 2π)


def test_cosine_nodes_estimate_the_sinc_kernel():
    """With b ~ U[0, 2π) and a ~ U[-s, s]^d, (2/L) h(x)ᵀh(y) is an unbiased estimate of
    E_a cos(aᵀ(x − y)) = Π_j sin(s δ_j)/(s δ_j): each term 2 cos(u) cos(v) lies in [-2, 2],
    so the mean of L = 200 000 has a standard deviation below 0.0045; the tolerance is 0.03.
    With b ~ U[-1, 1] the term (sin 2 / 2) E cos(aᵀ(x + y)) would remain."""
    rng = np.random.default_rng(8)
    X = rng.uniform(-1, 1, size=(6, 2))
    s, L = 2.0, 200_000
    weights, phases = draw_hidden_parameters(X, L, "cosine", s, rng)
    H = hidden_layer(X, weights, phases, "cosine")
    delta = s * (X[:, None, :] - X[None, :, :])
    sinc = np.prod(np.sinc(delta / np.pi), axis=2)  # np.sinc(t) = sin(πt)/(πt)
    assert_allclose(2.0 / L * H @ H.T, sinc, atol=0.03)


def test_weight_scale_is_a_scaling_of_the_inputs():
    """Additive and Gaussian nodes with scale s on X compute the nodes of scale 1 on s X."""
    X, y = _regression_data(40)
    for activation in ("sigmoid", "gaussian"):
        scaled = ExtremeLearningMachineRegressor(activation=activation, weight_scale=3.0,
                                                 random_state=0).fit(X, y)
        plain = ExtremeLearningMachineRegressor(activation=activation,
                                                random_state=0).fit(3.0 * X, y)
        assert_allclose(scaled.predict(X), plain.predict(3.0 * X), rtol=1e-8, atol=1e-10)


def test_callable_activation():
    X, y = _regression_data(50)
    named = ExtremeLearningMachineRegressor(activation="tanh", random_state=0).fit(X, y)
    given = ExtremeLearningMachineRegressor(activation=np.tanh, random_state=0).fit(X, y)
    assert_allclose(given.predict(X), named.predict(X), rtol=1e-12)
    # a callable g draws b ~ U[-1, 1] (the named 'cosine' node alone draws its phase on [0, 2π))
    cosine = ExtremeLearningMachineRegressor(activation=np.cos, random_state=0).fit(X, y)
    assert np.abs(cosine.biases_).max() <= 1.0
    softplus = ExtremeLearningMachineRegressor(activation=lambda z: np.logaddexp(0.0, z),
                                               random_state=0).fit(X, y)
    W, b = softplus.input_weights_, softplus.biases_
    assert_allclose(softplus.hidden_activations(X), np.logaddexp(0.0, X @ W + b), rtol=1e-12)
    with pytest.raises(ValueError, match="shape of its input"):
        ExtremeLearningMachineRegressor(activation=lambda z: z[:, 0]).fit(X, y)


def test_callable_activation_returning_nan_or_inf_is_refused():
    """An activation that gives NaN (np.log of negative pre-activations) is refused."""
    X, y = _regression_data(200, d=4)
    labels = X[:, 0] > 0
    for activation in (np.log, lambda z: np.where(z > 0.5, np.inf, z)):
        for Model, target in ((ExtremeLearningMachineClassifier, labels),
                              (ExtremeLearningMachineRegressor, y)):
            with pytest.raises(ValueError, match="activation callable returned NaN or inf"):
                Model(activation=activation, random_state=0).fit(X, target)
    # finite on the training inputs, NaN on far-away ones: refused at predict time too
    model = ExtremeLearningMachineRegressor(activation=lambda z: np.sqrt(z + 10.0),
                                            random_state=0).fit(X, y)
    assert np.all(np.isfinite(model.predict(X)))
    with pytest.raises(ValueError, match="activation callable returned NaN or inf"):
        model.predict(100.0 * X)


def test_overflowing_weight_scale_names_weight_scale():
    """weight_scale=1e200 with Gaussian nodes: a ValueError naming it, not an OverflowError."""
    X, y = _regression_data(50)
    for activation, scale in (("gaussian", 1e200), ("multiquadric", 1e-320)):
        with pytest.raises(ValueError, match=re.escape(
                f"weight_scale={scale!r} is out of range for activation='{activation}'")):
            ExtremeLearningMachineRegressor(activation=activation, weight_scale=scale).fit(X, y)
    for activation in ("relu", "cosine"):  # the pre-activations overflow
        with pytest.raises(ValueError, match=r"overflow float64; lower weight_scale"):
            ExtremeLearningMachineRegressor(activation=activation, weight_scale=1e300,
                                            random_state=0).fit(1e10 * X, y)
    # a large but representable scale saturates the nodes without failing
    model = ExtremeLearningMachineRegressor(activation="gaussian", weight_scale=1e100).fit(X, y)
    assert np.all(np.isfinite(model.predict(X)))


def test_absurd_n_hidden_names_n_hidden():
    """A MemoryError names the parameter that asked for the memory."""
    X, y = _regression_data(20)
    for activation in ("sigmoid", "gaussian"):
        with pytest.raises(MemoryError, match=r"n_hidden=1000000000000 asks for more memory "
                                              r"than there is \(Unable to allocate"):
            ExtremeLearningMachineRegressor(n_hidden=10**12, activation=activation).fit(X, y)


def test_no_predict_proba_and_calibration_gives_one():
    """No predict_proba: the outputs are least-squares fits of ±1 codes, not a
    probability model (as scikit-learn's RidgeClassifier). Calibration on held-out folds
    (CalibratedClassifierCV on decision_function) gives probabilities that beat the
    class frequencies in log loss."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.metrics import log_loss

    X_train, X_test, y_train, y_test = load_digits(test_size=0.3)
    model = ExtremeLearningMachineClassifier(n_hidden=300, C=10.0, random_state=0)
    assert not hasattr(model.fit(X_train, y_train), "predict_proba")
    calibrated = CalibratedClassifierCV(model, cv=3).fit(X_train, y_train)
    proba = calibrated.predict_proba(X_test)
    assert proba.shape == (len(y_test), 10)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    prior = np.tile(np.bincount(y_train) / len(y_train), (len(y_test), 1))
    assert log_loss(y_test, proba) < 0.5 * log_loss(y_test, prior)
    assert np.mean(calibrated.predict(X_test) == model.predict(X_test)) > 0.95


# ----------------------------------------------------------------------------- the estimators

def test_multi_output_equals_one_fit_per_target():
    X, y = _regression_data(70)
    Y = np.column_stack([y, np.cos(X[:, 0]), X[:, 1]])
    both = ExtremeLearningMachineRegressor(n_hidden=40, C=100.0, random_state=0).fit(X, Y)
    assert both.coef_.shape == (40, 3) and both.predict(X).shape == (70, 3)
    for k in range(3):
        single = ExtremeLearningMachineRegressor(n_hidden=40, C=100.0, random_state=0)
        assert_allclose(both.predict(X)[:, k], single.fit(X, Y[:, k]).predict(X), rtol=1e-10)


def test_classifier_is_the_regressor_on_one_vs_rest_codes():
    X, y = load_digits(scale=True)
    X, y = X[:300], y[:300]
    model = ExtremeLearningMachineClassifier(n_hidden=200, C=10.0, random_state=0).fit(X, y)
    T = np.where(y[:, None] == np.arange(10), 1.0, -1.0)
    regressor = ExtremeLearningMachineRegressor(n_hidden=200, C=10.0, random_state=0).fit(X, T)
    assert_allclose(model.decision_function(X), regressor.predict(X), rtol=1e-10)
    assert_array_equal(model.predict(X), np.argmax(regressor.predict(X), axis=1))


def test_binary_labels_are_one_column_and_mapped_back():
    X, y = _regression_data(60)
    labels = np.where(y > 0, "yes", "no")
    model = ExtremeLearningMachineClassifier(n_hidden=30, random_state=0).fit(X, labels)
    assert_array_equal(model.classes_, ["no", "yes"])
    assert model.coef_.shape == (30,) and model.decision_function(X).shape == (60,)
    regressor = ExtremeLearningMachineRegressor(n_hidden=30, random_state=0)
    scores = regressor.fit(X, np.where(labels == "yes", 1.0, -1.0)).predict(X)
    assert_allclose(model.decision_function(X), scores, rtol=1e-10)
    assert_array_equal(model.predict(X), np.where(scores > 0, "yes", "no"))


def test_sample_weight_is_repetition_and_removal():
    X, y = _regression_data(40)
    weights = np.arange(40) % 3  # 0: removed, 2: repeated
    weighted = ExtremeLearningMachineRegressor(C=10.0, random_state=0).fit(X, y, weights)
    repeated = ExtremeLearningMachineRegressor(C=10.0, random_state=0).fit(
        np.repeat(X, weights, axis=0), np.repeat(y, weights))
    assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-8)


@pytest.mark.parametrize("activation", ["relu", "gaussian"])
def test_csr_input_gives_the_dense_fit(activation):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 10)) * (rng.random((60, 10)) < 0.3)
    y = X @ rng.normal(size=10)
    dense = ExtremeLearningMachineRegressor(activation=activation, random_state=0).fit(X, y)
    sparse = ExtremeLearningMachineRegressor(activation=activation,
                                             random_state=0).fit(sp.csr_matrix(X), y)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9)
    assert_allclose(sparse.predict(sp.csr_matrix(X)), dense.predict(X), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("Model", ELM)
@pytest.mark.parametrize("params, match", [
    ({"n_hidden": 0}, "n_hidden"),
    ({"n_hidden": 2.5}, "n_hidden"),
    ({"activation": "softsign"}, "activation"),
    ({"C": 0.0}, "'C' parameter"),
    ({"C": -1.0}, "'C' parameter"),
    ({"C": np.nan}, "'C' parameter"),
    ({"weight_scale": 0.0}, "weight_scale"),
    ({"solver": "lsqr"}, "solver"),
    ({"random_state": -1}, "random_state"),
])
def test_bad_parameters_are_refused(Model, params, match):
    X, y = _regression_data(20)
    y = (y > 0).astype(int)
    with pytest.raises(ValueError, match=match):
        Model(**params).fit(X, y)


@pytest.mark.parametrize("Model", ELM)
def test_bad_data_is_refused(Model):
    X, y = _regression_data(20)
    y = (y > 0).astype(int)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Model().fit(X_nan, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Model().fit(X, y[:-1])
    with pytest.raises(ValueError, match="2D array"):
        Model().fit(X[:, 0], y)
    model = Model(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="[Ss]ample weights"):
        Model().fit(X, y, sample_weight=np.zeros(20))
    with pytest.raises(ValueError, match="[Nn]egative"):
        Model().fit(X, y, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="sample_weight.shape"):
        Model().fit(X, y, sample_weight=np.ones(19))


def test_one_class_is_refused():
    X, _ = _regression_data(20)
    with pytest.raises(ValueError, match="one class"):
        ExtremeLearningMachineClassifier().fit(X, np.ones(20))
