"""lsl_lib.theory: the random-kitchen-sinks oracle inequality (Rahimi and Recht 2008) -- its
form, its monotonicity and scaling, and its approximation lemma against Monte Carlo on a
function of F_p known in closed form."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from lsl_lib.kitchen_sinks import draw_features, feature_matrix
from lsl_lib.theory import (kitchen_sinks_approximation_error, kitchen_sinks_bound,
                            kitchen_sinks_estimation_error)

ARGS = dict(n_samples=1000, n_components=100, C=2.0, lipschitz=1.0, delta=0.05)


def test_bound_is_the_sum_of_the_two_named_terms():
    est, app = kitchen_sinks_bound(**ARGS, return_terms=True)
    n, K, C, L, d = 1000, 100, 2.0, 1.0, 0.05
    log = np.log(1 / d)
    assert_allclose(est, 2 / np.sqrt(n) * (4 * L * C + 2 * 1.0 + L * C * np.sqrt(log / 2)))
    assert_allclose(app, L * C / np.sqrt(K) * (1 + np.sqrt(2 * log)))
    assert_allclose(kitchen_sinks_bound(**ARGS), est + app)
    assert_allclose(est, 2 * kitchen_sinks_estimation_error(n, C, L, d))
    assert_allclose(app, L * kitchen_sinks_approximation_error(K, C, d))


@pytest.mark.parametrize("name, larger, direction", [
    ("n_samples", 4000, -1), ("n_components", 400, -1), ("C", 4.0, +1),
    ("delta", 0.2, -1), ("lipschitz", 2.0, +1)])
def test_monotone_as_the_formula_says(name, larger, direction):
    assert np.sign(kitchen_sinks_bound(**{**ARGS, name: larger})
                   - kitchen_sinks_bound(**ARGS)) == direction


def test_each_term_scales_as_one_over_root():
    est1, app1 = kitchen_sinks_bound(**ARGS, return_terms=True)
    est4, app4 = kitchen_sinks_bound(**{**ARGS, "n_samples": 4000, "n_components": 400},
                                     return_terms=True)
    assert_allclose(est4, est1 / 2, rtol=1e-12)
    assert_allclose(app4, app1 / 2, rtol=1e-12)
    # the estimation term does not depend on K, the approximation term not on n
    e, a = kitchen_sinks_bound(**{**ARGS, "n_components": 10 ** 6}, return_terms=True)
    assert_allclose(e, est1)
    assert_allclose(a, app1 / 100)
    # both are linear in C when |c(0)| = 0, and sqrt(log(1/delta)) for small delta
    e2, a2 = kitchen_sinks_bound(**{**ARGS, "C": 4.0}, loss_at_zero=0.0, return_terms=True)
    e1, a1 = kitchen_sinks_bound(**ARGS, loss_at_zero=0.0, return_terms=True)
    assert_allclose([e2, a2], [2 * e1, 2 * a1], rtol=1e-12)


def test_broadcasts_over_arrays():
    n = np.array([100, 400, 1600])
    b = kitchen_sinks_bound(n, 50, 1.0, 1.0, 0.1)
    assert b.shape == (3,)
    assert_allclose(b, [kitchen_sinks_bound(int(m), 50, 1.0, 1.0, 0.1) for m in n])


def _f_star_and_approximations(X, K, C, gamma, n_draws, seed):
    r"""A member of F_p in closed form and its K-term random approximations.

    Fourier sinks phi(x; w, b) = cos(w.x + b), w ~ N(0, 2 gamma I), b ~ U[0, 2 pi), and
    beta(w, b) = C cos(b), |beta| <= C:
    f*(x) = E[C cos(b) cos(w.x + b)] = (C/2) E[cos(w.x)] = (C/2) exp(-gamma ||x||^2).
    The approximation is f_K = (1/K) sum_k beta(w_k, b_k) phi(.; w_k, b_k): |alpha_k| <= C/K.
    """
    f_star = C / 2 * np.exp(-gamma * (X ** 2).sum(axis=1))
    rng = np.random.default_rng(seed)
    distances = np.empty(n_draws)
    for i in range(n_draws):
        p = draw_features("fourier", X, K, gamma, rng)
        f_K = feature_matrix("fourier", X, p) @ (C * np.cos(p["offsets"]) / K)
        distances[i] = np.sqrt(np.mean((f_K - f_star) ** 2))  # L2 of the empirical measure
    return distances


@pytest.mark.parametrize("K", [10, 100])
def test_approximation_lemma_holds_with_the_stated_probability(K):
    X = np.random.default_rng(0).normal(size=(200, 3))
    C, n_draws = 3.0, 400
    distances = _f_star_and_approximations(X, K, C, 0.5, n_draws, seed=K)
    # the proof's first step: E ||f_K - f*|| <= C / sqrt(K)
    assert distances.mean() <= C / np.sqrt(K)
    for delta in (0.5, 0.1, 0.01):
        bound = kitchen_sinks_approximation_error(K, C, delta)
        failures = np.mean(distances > bound)
        # at most delta, up to 4 standard errors of a proportion
        assert failures <= delta + 4 * np.sqrt(delta * (1 - delta) / n_draws)


def test_approximation_error_decays_as_one_over_root_K():
    """The distance itself, not only its bound, shrinks as 1/sqrt(K) (a mean of K
    i.i.d. terms): its mean times sqrt(K) is the same at K = 16 and K = 256."""
    X = np.random.default_rng(1).normal(size=(200, 2))
    m16 = _f_star_and_approximations(X, 16, 1.0, 0.5, 300, seed=16).mean() * 4
    m256 = _f_star_and_approximations(X, 256, 1.0, 0.5, 300, seed=256).mean() * 16
    assert_allclose(m256, m16, rtol=0.1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_samples=0), "n_samples"), (dict(n_components=-1), "n_components"),
    (dict(C=0.0), "C"), (dict(delta=1.0), "delta"), (dict(delta=0.0), "delta"),
    (dict(lipschitz=np.nan), "lipschitz"), (dict(loss_at_zero=-1.0), "loss_at_zero")])
def test_bad_input_is_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kitchen_sinks_bound(**{**ARGS, **kwargs})
