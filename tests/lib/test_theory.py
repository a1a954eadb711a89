"""lsl_lib.theory: the random-kitchen-sinks oracle inequality (Rahimi and Recht 2008) -- its
form, its monotonicity and scaling, and its approximation lemma against Monte Carlo on a
function of F_p known in closed form; the Rademacher complexity of the kernel ball against the
exact average over all sign vectors, Jensen's upper and Khintchine-Kahane's lower bound and the
supremum over the ball; the RKHS norm against least-squares fits on explicit feature maps
and a fitted kernel ridge model; Hoeffding's and McDiarmid's tails against exact binomial
tails and simulated frequencies of bounded variables and of functions of bounded
differences."""
import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import binom

from lsl_lib.kernels import KernelRidge, PolynomialFeatureMap, kernel_matrix
from lsl_lib.kitchen_sinks import draw_features, feature_matrix
from lsl_lib.theory import (empirical_rademacher_complexity, hoeffding_deviation,
                            hoeffding_tail, kernel_rademacher_bound,
                            kitchen_sinks_approximation_error, kitchen_sinks_bound,
                            kitchen_sinks_estimation_error, loglog_slope, mcdiarmid_deviation,
                            mcdiarmid_tail, rkhs_norm_squared)

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
    beta(w, b) = C sign(cos b), |beta| <= C. As E_b[sign(cos b) cos(s + b)] = (2/pi) cos s,
    f*(x) = E[beta(w, b) cos(w.x + b)] = (2C/pi) E[cos(w.x)] = (2C/pi) exp(-gamma ||x||^2).
    The approximation is f_K = (1/K) sum_k beta(w_k, b_k) phi(.; w_k, b_k): |alpha_k| <= C/K.
    """
    f_star = 2 * C / np.pi * np.exp(-gamma * (X ** 2).sum(axis=1))
    rng = np.random.default_rng(seed)
    distances = np.empty(n_draws)
    for i in range(n_draws):
        p = draw_features("fourier", X, K, gamma, rng)
        f_K = feature_matrix("fourier", X, p) @ (C * np.sign(np.cos(p["offsets"])) / K)
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


# --- the Rademacher complexity of the kernel ball --------------------------------------------

def _sample(n, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def _gram(X, kernel):
    return kernel_matrix(X, kernel=kernel, gamma=0.3, degree=2, coef0=1.0)


def _exact_rademacher(K, c):
    """The average of (c/n) sqrt(sigma^T K sigma) over all 2^n sign vectors."""
    n = K.shape[0]
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))
    return c / n * np.mean(np.sqrt(np.maximum(np.einsum("ti,ij,tj->t", signs, K, signs), 0)))


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian", "polynomial", "linear"])
def test_rademacher_bound_is_c_root_trace_over_n(kernel):
    K = _gram(_sample(50), kernel)
    assert_allclose(kernel_rademacher_bound(K, 2.0), 2.0 * np.sqrt(np.trace(K)) / 50, rtol=1e-14)
    c = np.array([0.5, 1.0, 4.0])
    bounds = kernel_rademacher_bound(K, c)
    assert bounds.shape == (3,)
    assert_allclose(bounds, c * kernel_rademacher_bound(K, 1.0), rtol=1e-14)


def test_rademacher_bound_of_a_normalised_kernel_is_c_over_root_n():
    """k(x, x) = 1 (Gaussian, Laplacian): tr K = n and the bound is c / sqrt(n)."""
    for n in (16, 64, 256):
        K = _gram(_sample(n), "gaussian")
        assert_allclose(kernel_rademacher_bound(K, 3.0), 3.0 / np.sqrt(n), rtol=1e-14)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian", "polynomial", "linear"])
def test_monte_carlo_equals_the_exact_average_over_all_sign_vectors(kernel):
    K = _gram(_sample(10, seed=1), kernel)
    exact = _exact_rademacher(K, c=2.0)
    estimate, se = empirical_rademacher_complexity(K, 2.0, n_draws=20_000, random_state=0,
                                                   return_std=True)
    assert abs(estimate - exact) <= 4 * se
    # and the exact value sits between Khintchine-Kahane's lower and Jensen's upper bound
    bound = kernel_rademacher_bound(K, 2.0)
    assert bound / np.sqrt(2) <= exact <= bound


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian", "polynomial", "linear"])
def test_monte_carlo_lies_between_bound_over_root_two_and_bound(kernel):
    K = _gram(_sample(300, seed=2), kernel)
    bound = kernel_rademacher_bound(K, 1.0)
    estimate, se = empirical_rademacher_complexity(K, 1.0, n_draws=500, random_state=1,
                                                   return_std=True)
    assert bound / np.sqrt(2) - 4 * se <= estimate <= bound + 4 * se


def test_bounds_are_attained_where_the_inequalities_are_equalities():
    # Jensen: sigma^T K sigma = tr K for every sigma when K is diagonal -- no Monte Carlo error
    K = np.diag(np.random.default_rng(3).uniform(0.5, 2.0, size=30))
    estimate, se = empirical_rademacher_complexity(K, 1.5, n_draws=50, random_state=0,
                                                   return_std=True)
    assert_allclose(estimate, kernel_rademacher_bound(K, 1.5), rtol=1e-12)
    assert se < 1e-12
    # Khintchine-Kahane's 1/sqrt(2) is attained by two points with the same feature:
    # sigma_1 + sigma_2 is 0 or +-2 with probability 1/2 each, E|.| = 1, sqrt(E|.|^2) = sqrt 2
    K = np.ones((2, 2))
    assert_allclose(_exact_rademacher(K, 1.0), kernel_rademacher_bound(K, 1.0) / np.sqrt(2))
    estimate, se = empirical_rademacher_complexity(K, 1.0, n_draws=4000, random_state=0,
                                                   return_std=True)
    assert abs(estimate - kernel_rademacher_bound(K, 1.0) / np.sqrt(2)) <= 4 * se


def test_monte_carlo_of_a_constant_feature_matches_the_random_walk():
    """k = 1: sup = (c/n) |sigma_1 + ... + sigma_n|, whose mean is a binomial sum; it tends
    to sqrt(2/pi) times the bound."""
    n, c = 400, 2.0
    k = np.arange(n + 1)
    exact = c / n * np.sum(binom.pmf(k, n, 0.5) * np.abs(2 * k - n))
    estimate, se = empirical_rademacher_complexity(np.ones((n, n)), c, n_draws=4000,
                                                   random_state=5, return_std=True)
    assert abs(estimate - exact) <= 4 * se
    assert_allclose(exact / kernel_rademacher_bound(np.ones((n, n)), c), np.sqrt(2 / np.pi),
                    rtol=2e-3)


def test_standard_error_is_the_spread_of_independent_estimates():
    K = _gram(_sample(10, seed=4), "gaussian")
    runs = [empirical_rademacher_complexity(K, 1.0, n_draws=50, random_state=s,
                                            return_std=True) for s in range(200)]
    estimates, ses = np.array(runs).T
    # the sample std of 200 estimates has a relative error of about 1/sqrt(2 * 199) = 5 %
    assert_allclose(estimates.std(ddof=1), ses.mean(), rtol=0.2)
    assert abs(estimates.mean() - _exact_rademacher(K, 1.0)) <= 4 * ses.mean() / np.sqrt(200)


def test_monte_carlo_is_reproducible_and_linear_in_c():
    K = _gram(_sample(40), "laplacian")
    a = empirical_rademacher_complexity(K, 1.0, n_draws=100, random_state=7)
    assert a == empirical_rademacher_complexity(K, 1.0, n_draws=100, random_state=7)
    assert a != empirical_rademacher_complexity(K, 1.0, n_draws=100, random_state=8)
    both = empirical_rademacher_complexity(K, [1.0, 3.0], n_draws=100, random_state=7)
    assert_allclose(both, [a, 3 * a], rtol=1e-14)
    rng = np.random.default_rng(7)
    assert empirical_rademacher_complexity(K, 1.0, n_draws=100, random_state=rng) == a


def test_linear_kernel_agrees_with_the_explicit_supremum_over_weights():
    """For k(x, y) = <x, y>, sup over ||w|| <= c of (1/n) sum sigma_i <w, x_i> is
    (c/n) ||X^T sigma||: an independent Monte Carlo computed in the input space."""
    X, c = _sample(60, d=4, seed=6), 1.3
    estimate, se = empirical_rademacher_complexity(X @ X.T, c, n_draws=3000, random_state=0,
                                                   return_std=True)
    signs = np.random.default_rng(99).choice([-1.0, 1.0], size=(3000, 60))
    explicit = c / 60 * np.linalg.norm(signs @ X, axis=1)
    se_explicit = explicit.std(ddof=1) / np.sqrt(3000)
    assert abs(estimate - explicit.mean()) <= 4 * np.hypot(se, se_explicit)


def test_supremum_bounds_the_ball_and_ridge_fits_of_the_signs_approach_it():
    """No member of the ball does better than (c/n) sqrt(sigma^T K sigma), and kernel ridge
    fits of the signs, scaled into the ball, approach it as lam grows. Each f is evaluated
    through a fitted KernelRidge's representation (its dual_coef_ and predict)."""
    rng = np.random.default_rng(8)
    n, c, gamma = 80, 1.5, 0.3
    X = rng.normal(size=(n, 3))
    sigma = rng.choice([-1.0, 1.0], size=n)
    K = kernel_matrix(X, kernel="gaussian", gamma=gamma)
    sup = c / n * np.sqrt(sigma @ K @ sigma)
    model = KernelRidge(lam=1.0, kernel="gaussian", gamma=gamma).fit(X, sigma)

    def scaled_value(alpha):
        """(1/n) sum_i sigma_i f(x_i) for f = sum alpha_i k(x_i, .) scaled to norm c."""
        model.dual_coef_ = alpha
        return sigma @ model.predict(X) / n * c / np.sqrt(rkhs_norm_squared(alpha, K))

    assert all(scaled_value(alpha) <= sup * (1 + 1e-12) for alpha in rng.normal(size=(300, n)))
    # kernel ridge fits of the signs, alpha = (K + lam I)^{-1} sigma, for growing lam
    ridge = [scaled_value(KernelRidge(lam=lam, kernel="gaussian", gamma=gamma)
                          .fit(X, sigma).dual_coef_) for lam in (1e-2, 1.0, 1e6)]
    assert all(v <= sup * (1 + 1e-12) for v in ridge)
    assert ridge[0] < 0.99 * sup
    assert_allclose(ridge[-1], sup, rtol=1e-6)


# --- the RKHS norm ----------------------------------------------------------------------------

FEATURE_MAPS = {
    "linear": lambda X: X,
    "polynomial": lambda X: PolynomialFeatureMap(degree=2, coef0=1.0).fit_transform(X),
}


@pytest.mark.parametrize("kernel", list(FEATURE_MAPS))
def test_rkhs_norm_is_the_norm_of_the_linear_model_on_explicit_features(kernel):
    """With fewer features than points (Phi of full column rank), f = sum_i alpha_i k(x_i, .)
    is the linear function x -> <w, Phi(x)> whose w solves Phi w = K alpha (the values of f on
    the sample), found here by least squares; its RKHS norm is ||w||."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 3))
    Phi, K = FEATURE_MAPS[kernel](X), _gram(X, kernel)
    assert_allclose(Phi @ Phi.T, K, rtol=1e-10, atol=1e-12)  # the map is the kernel's
    alpha = rng.normal(size=40)
    w = np.linalg.lstsq(Phi, K @ alpha, rcond=None)[0]
    assert_allclose(Phi @ w, K @ alpha, rtol=1e-9, atol=1e-10)
    assert_allclose(rkhs_norm_squared(alpha, K), w @ w, rtol=1e-8)
    A = rng.normal(size=(40, 3))
    norms = rkhs_norm_squared(A, K)
    assert norms.shape == (3,)
    W = np.linalg.lstsq(Phi, K @ A, rcond=None)[0]
    assert_allclose(norms, (W ** 2).sum(axis=0), rtol=1e-8)


def test_rkhs_norm_of_a_fitted_kernel_ridge_model():
    """A polynomial-kernel ridge model is a linear model on the explicit features: the least-
    squares fit w of its own predictions on the training points predicts as it does on new
    points, and ||w||^2 is its RKHS norm; the norm shrinks as lam grows (the penalty
    lam ||f||^2)."""
    rng = np.random.default_rng(10)
    X, X_test = rng.normal(size=(60, 3)), rng.normal(size=(20, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    feature_map = PolynomialFeatureMap(degree=2, coef0=1.0).fit(X)
    K = _gram(X, "polynomial")
    norms = []
    for lam in (0.1, 1.0, 10.0):
        model = KernelRidge(lam=lam, kernel="polynomial", degree=2, coef0=1.0).fit(X, y)
        w = np.linalg.lstsq(feature_map.transform(X), model.predict(X), rcond=None)[0]
        assert_allclose(feature_map.transform(X_test) @ w, model.predict(X_test),
                        rtol=1e-8, atol=1e-10)
        norms.append(rkhs_norm_squared(model.dual_coef_, K))
        assert_allclose(norms[-1], w @ w, rtol=1e-8)
    assert norms[0] > norms[1] > norms[2] > 0
    # multi-output models give one norm per output
    Y = np.column_stack([y, 2 * y])
    model = KernelRidge(lam=1.0, kernel="polynomial", degree=2, coef0=1.0).fit(X, Y)
    assert_allclose(rkhs_norm_squared(model.dual_coef_, K), [norms[1], 4 * norms[1]],
                    rtol=1e-9)


def test_rkhs_norm_of_a_gaussian_expansion_is_nonnegative_and_quadratic():
    K = _gram(_sample(50), "gaussian")
    alpha = np.random.default_rng(11).normal(size=50)
    assert rkhs_norm_squared(alpha, K) > 0
    assert_allclose(rkhs_norm_squared(3 * alpha, K), 9 * rkhs_norm_squared(alpha, K))
    assert rkhs_norm_squared(np.zeros(50), K) == 0


# --- Hoeffding and McDiarmid -------------------------------------------------------------------

def _within_simulation_error(frequency, bound, n_reps):
    """The frequency of an event whose probability is at most ``bound``, up to four
    standard errors of a proportion."""
    return frequency <= bound + 4 * np.sqrt(bound * (1 - bound) / n_reps)


@pytest.mark.parametrize("n, p", [(10, 0.5), (50, 0.1), (200, 0.5), (200, 0.02)])
def test_hoeffding_dominates_the_exact_binomial_tail(n, p):
    k = np.arange(n + 1)
    for epsilon in np.linspace(0.01, 0.5, 25):
        far = np.abs(k / n - p) >= epsilon - 1e-12  # the boundary counted: larger probability
        assert binom.pmf(k[far], n, p).sum() <= hoeffding_tail(n, epsilon, 1.0) + 1e-15


@pytest.mark.parametrize("draw, mean, low, high", [
    (lambda rng, size: rng.binomial(1, 0.3, size=size), 0.3, 0.0, 1.0),
    (lambda rng, size: rng.uniform(-1.0, 2.0, size=size), 0.5, -1.0, 2.0),
])
def test_hoeffding_bounds_simulated_tail_frequencies(draw, mean, low, high):
    n, n_reps = 40, 20_000
    means = draw(np.random.default_rng(12), (n_reps, n)).mean(axis=1)
    for delta in (0.5, 0.2, 0.05, 0.01):
        epsilon = hoeffding_deviation(n, delta, high - low)
        assert_allclose(hoeffding_tail(n, epsilon, high - low), delta)
        assert _within_simulation_error(np.mean(np.abs(means - mean) >= epsilon), delta,
                                        n_reps)


def test_the_formulas():
    assert_allclose(hoeffding_tail(1000, 0.05, 1.0), 2 * np.exp(-5))
    assert_allclose(hoeffding_tail(10, 1.0, 4.0), 2 * np.exp(-2 * 10 / 16))
    assert_allclose(hoeffding_deviation(50, 0.1, 3.0), 3 * np.sqrt(np.log(20) / 100))
    assert_allclose(mcdiarmid_tail(2.0, [1.0, 2.0]), 2 * np.exp(-8 / 5))
    assert_allclose(mcdiarmid_deviation(0.1, [1.0, 2.0]), np.sqrt(5 / 2 * np.log(20)))


def test_hoeffding_tail_and_deviation_are_inverses_and_broadcast():
    n = np.array([[10], [100], [1000]])
    delta = np.array([0.5, 0.1, 1e-3, 1e-8])
    epsilon = hoeffding_deviation(n, delta, 2.0)
    assert epsilon.shape == (3, 4)
    assert_allclose(hoeffding_tail(n, epsilon, 2.0), np.broadcast_to(delta, (3, 4)))
    eps = np.array([0.2, 0.5, 1.0])
    tails = hoeffding_tail(100, eps, 2.0)
    assert np.all(tails < 1)
    assert_allclose(hoeffding_deviation(100, tails, 2.0), eps)
    assert_allclose(hoeffding_deviation(n, 0.05, 2.0)[:, 0],
                    2.0 * np.sqrt(np.log(40) / (2 * n[:, 0])))


def test_hoeffding_monotonicity_and_clipping():
    eps = np.linspace(0, 1, 101)
    tail = hoeffding_tail(50, eps, 1.0)
    assert np.all(np.diff(tail) <= 0) and np.all(tail <= 1) and tail[0] == 1
    vacuous = eps <= np.sqrt(np.log(2) / 100)
    assert np.all(tail[vacuous] == 1) and np.all(np.diff(tail[~vacuous]) < 0)
    assert hoeffding_tail(100, 0.2, 1.0) < hoeffding_tail(50, 0.2, 1.0)
    assert hoeffding_tail(50, 0.2, 2.0) > hoeffding_tail(50, 0.2, 1.0)
    deviation = hoeffding_deviation(50, np.array([0.5, 0.1, 0.01]), 1.0)
    assert np.all(np.diff(deviation) > 0)
    assert_allclose(hoeffding_deviation(200, 0.1, 1.0), hoeffding_deviation(50, 0.1, 1.0) / 2)
    assert_allclose(hoeffding_deviation(50, 0.1, 3.0), 3 * hoeffding_deviation(50, 0.1, 1.0))


def test_mcdiarmid_of_a_mean_is_hoeffding():
    for n, r in [(1, 1.0), (30, 2.0), (1000, 0.5)]:
        c = np.full(n, r / n)
        eps = np.array([0.0, 0.01, 0.1, 0.3])
        assert_allclose(mcdiarmid_tail(eps, c), hoeffding_tail(n, eps, r), rtol=1e-12)
        assert_allclose(mcdiarmid_deviation(0.05, c), hoeffding_deviation(n, 0.05, r),
                        rtol=1e-12)


def test_mcdiarmid_bounds_the_occupancy_of_bins():
    """g = the number of occupied bins when n balls fall uniformly into m bins: moving one
    ball changes g by at most 1 (c_i = 1), and E g = m (1 - (1 - 1/m)^n)."""
    n, m, n_reps = 40, 30, 20_000
    balls = np.random.default_rng(13).integers(0, m, size=(n_reps, n))
    occupied = np.array([np.unique(row).size for row in balls])
    expected = m * (1 - (1 - 1 / m) ** n)
    for delta in (0.9, 0.5, 0.1):
        epsilon = mcdiarmid_deviation(delta, np.ones(n))
        assert_allclose(mcdiarmid_tail(epsilon, np.ones(n)), delta)
        assert _within_simulation_error(np.mean(np.abs(occupied - expected) >= epsilon),
                                        delta, n_reps)


def test_mcdiarmid_bounds_a_weighted_sum_with_unequal_differences():
    """g = sum_i w_i U_i with U_i uniform on [0, 1]: c_i = w_i, E g = sum_i w_i / 2."""
    w = np.linspace(0.1, 2.0, 20)  # sum of squares 28.7: the bound is below 1 from epsilon 3.2
    n_reps = 20_000
    g = np.random.default_rng(14).uniform(size=(n_reps, 20)) @ w
    for epsilon in (3.5, 4.0, 5.0, 6.0):
        bound = mcdiarmid_tail(epsilon, w)
        assert bound < 1
        assert _within_simulation_error(np.mean(np.abs(g - w.sum() / 2) >= epsilon), bound,
                                        n_reps)


def test_mcdiarmid_inverse_monotonicity_and_constant_functions():
    c = np.array([0.5, 1.0, 0.2])
    delta = np.array([0.9, 0.3, 0.01])
    eps = mcdiarmid_deviation(delta, c)
    assert eps.shape == (3,) and np.all(np.diff(eps) > 0)
    assert_allclose(mcdiarmid_tail(eps, c), delta)
    assert mcdiarmid_tail(1.0, 2 * c) > mcdiarmid_tail(1.0, c)
    assert mcdiarmid_deviation(0.1, 2 * c) == pytest.approx(2 * mcdiarmid_deviation(0.1, c))
    # all differences 0: g is constant, it never deviates
    assert_allclose(mcdiarmid_tail([0.0, 0.1, 1.0], np.zeros(4)), [1.0, 0.0, 0.0])
    assert mcdiarmid_deviation(0.05, np.zeros(4)) == 0


# --- bad input ----------------------------------------------------------------------------------

_K = np.eye(3)


@pytest.mark.parametrize("call, error, match", [
    (lambda: kernel_rademacher_bound(np.ones(3), 1.0), ValueError, "K must be a square"),
    (lambda: kernel_rademacher_bound(np.ones((3, 2)), 1.0), ValueError, "square"),
    (lambda: kernel_rademacher_bound([[1.0, 0.5], [0.0, 1.0]], 1.0), ValueError, "symmetric"),
    (lambda: kernel_rademacher_bound([[1.0, 2.0], [2.0, 1.0]], 1.0), ValueError,
     "positive semi-definite"),
    (lambda: kernel_rademacher_bound(-np.eye(2), 1.0), ValueError, "positive semi-definite"),
    (lambda: kernel_rademacher_bound([[0.0, 1.0], [1.0, 0.0]], 1.0), ValueError,
     "positive semi-definite"),
    (lambda: kernel_rademacher_bound([[np.nan]], 1.0), ValueError, "K"),
    (lambda: kernel_rademacher_bound(_K, 0.0), ValueError, "c must"),
    (lambda: kernel_rademacher_bound(_K, [1.0, -1.0]), ValueError, "c must"),
    (lambda: kernel_rademacher_bound(_K, "one"), TypeError, "c must"),
    (lambda: empirical_rademacher_complexity(_K, 1.0, n_draws=0), ValueError, "n_draws"),
    (lambda: empirical_rademacher_complexity(_K, 1.0, n_draws=2.5), ValueError, "n_draws"),
    (lambda: empirical_rademacher_complexity(_K, 1.0, n_draws=1, return_std=True),
     ValueError, "n_draws"),
    (lambda: empirical_rademacher_complexity(_K, 1.0, random_state=-1), ValueError,
     "random_state"),
    (lambda: empirical_rademacher_complexity(_K, 1.0, random_state="x"), TypeError,
     "random_state"),
    (lambda: empirical_rademacher_complexity([[1.0, 2.0], [2.0, 1.0]], 1.0), ValueError,
     "positive semi-definite"),
    (lambda: rkhs_norm_squared(np.ones(2), _K), ValueError, "dual_coef"),
    (lambda: rkhs_norm_squared(np.ones((3, 2, 2)), _K), ValueError, "dual_coef"),
    (lambda: rkhs_norm_squared([1.0, np.inf, 0.0], _K), ValueError, "dual_coef"),
    (lambda: rkhs_norm_squared(np.ones(3), [[1.0, 2.0], [2.0, 1.0]]), ValueError, "K"),
    (lambda: hoeffding_tail(0, 0.1, 1.0), ValueError, "n_samples"),
    (lambda: hoeffding_tail(10.5, 0.1, 1.0), ValueError, "n_samples"),
    (lambda: hoeffding_tail(True, 0.1, 1.0), TypeError, "n_samples"),
    (lambda: hoeffding_tail(10, -0.1, 1.0), ValueError, "epsilon"),
    (lambda: hoeffding_tail(10, 0.1, 0.0), ValueError, "loss_range"),
    (lambda: hoeffding_tail(10, 0.1, np.inf), ValueError, "loss_range"),
    (lambda: hoeffding_deviation(10, 0.0, 1.0), ValueError, "delta"),
    (lambda: hoeffding_deviation(10, 1.0, 1.0), ValueError, "delta"),
    (lambda: hoeffding_deviation([10, 0], 0.1, 1.0), ValueError, "n_samples"),
    (lambda: hoeffding_deviation(10, 0.1, -2.0), ValueError, "loss_range"),
    (lambda: mcdiarmid_tail(-1.0, [1.0]), ValueError, "epsilon"),
    (lambda: mcdiarmid_tail(0.1, [1.0, -0.5]), ValueError, "differences"),
    (lambda: mcdiarmid_tail(0.1, 1.0), ValueError, "differences"),
    (lambda: mcdiarmid_tail(0.1, []), ValueError, "differences"),
    (lambda: mcdiarmid_tail(0.1, np.ones((2, 2))), ValueError, "differences"),
    (lambda: mcdiarmid_deviation(1.5, [1.0]), ValueError, "delta"),
    (lambda: mcdiarmid_deviation(0.1, [np.nan]), ValueError, "differences"),
])
def test_bad_input_of_the_new_bounds_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_rounding_is_not_an_error():
    """A Gram matrix computed in floating point may be asymmetric or indefinite by rounding:
    that passes; a float32 matrix gets a tolerance of its own precision."""
    X = _sample(200, d=2)
    K = kernel_matrix(X, kernel="gaussian", gamma=0.01)  # nearly rank-deficient
    noisy = K + 1e-13 * np.random.default_rng(15).normal(size=K.shape)
    assert kernel_rademacher_bound(noisy, 1.0) > 0
    assert kernel_rademacher_bound(K.astype(np.float32), 1.0) > 0
    assert rkhs_norm_squared(np.ones(200), K.astype(np.float32)) > 0


# --------------------------------------------------------------------------- loglog_slope

def test_loglog_slope_reads_the_rate_of_the_tail():
    """An exact power law gives its exponent; a transient at the start is left out by the
    tail; seeds give their mean slope and its standard error s / sqrt(k)."""
    t = np.geomspace(1, 1e4, 40)
    slope, se, slopes = loglog_slope(t, 7.0 * t**-1.0)
    assert slope == pytest.approx(-1.0, abs=1e-12) and se == pytest.approx(0.0, abs=1e-12)
    curve = 1.0 / t + 10.0 / t**2  # 1/t^2 first, 1/t after t = 10
    assert loglog_slope(t, curve, tail=0.3)[0] == pytest.approx(-1.0, abs=0.01)
    assert loglog_slope(t, curve, tail=1.0)[0] < -1.1  # the whole curve mixes both
    rng = np.random.default_rng(0)
    runs = np.exp(np.log(t ** -0.5) + 0.05 * rng.normal(size=(6, t.size)))
    slope, se, slopes = loglog_slope(t, runs)
    assert slopes.shape == (6,)
    assert slope == pytest.approx(slopes.mean())
    assert se == pytest.approx(slopes.std(ddof=1) / np.sqrt(6))
    assert abs(slope + 0.5) < 3 * se + 0.02


def test_loglog_slope_of_one_noisy_curve_has_the_regression_standard_error():
    t = np.geomspace(1, 1e3, 200)
    noisy = t**-2.0 * np.exp(0.1 * np.random.default_rng(1).normal(size=t.size))
    slope, se, _ = loglog_slope(t, noisy, tail=1.0)
    fit = np.polyfit(np.log(t), np.log(noisy), 1, cov=True)
    assert slope == pytest.approx(fit[0][0], rel=1e-10)
    assert se == pytest.approx(np.sqrt(fit[1][0, 0]), rel=1e-10)


@pytest.mark.parametrize("x,values,tail,match", [
    ([1, 2, 3], [1, 2], 0.5, "shape"),
    ([1, 2, 3, 4], [1, 0, 2, 3], 0.5, "finite and > 0"),
    ([1, 2, 3, 4], [1, np.nan, 2, 3], 0.5, "finite and > 0"),
    ([0, 2, 3, 4], [1, 1, 2, 3], 0.5, "finite and > 0"),
    ([1, 2, 3, 4], [1, 1, 2, 3], 0.0, "tail"),
    ([1, 2, 3, 100], [1, 1, 2, 3], 0.5, "at least 3"),
])
def test_loglog_slope_refuses_bad_input(x, values, tail, match):
    with pytest.raises(ValueError, match=match):
        loglog_slope(x, values, tail=tail)
