"""Lecture 01's demonstrations: step sizes, SGD for a mean, full-batch subgradient descent."""
import numpy as np
import pytest

from lsl_lib.datasets import mean_stream, two_gaussian_blobs
from lsl_lib.losses import EpsilonInsensitive, get_loss, primal_objective
from lsl_lib.subgradients import (STEP_SCHEDULES, primal_objectives, sgd_mean, step_sizes,
                                  subgradient_descent)


def test_step_sizes_values():
    t = np.arange(1, 6)
    np.testing.assert_allclose(step_sizes("constant", 5, c=0.3), np.full(5, 0.3))
    np.testing.assert_allclose(step_sizes("1/sqrt(t)", 5, c=2.0), 2.0 / np.sqrt(t))
    np.testing.assert_allclose(step_sizes("1/t", 5), 1.0 / t)
    np.testing.assert_allclose(step_sizes("1/t^2", 5), 1.0 / t ** 2)
    assert step_sizes("1/t^2", 100_000).sum() < np.pi ** 2 / 6  # finite total


def test_sgd_mean_with_one_over_t_is_the_running_mean():
    x = mean_stream(500, mean=2.0, random_state=0)
    for w0 in (0.0, -7.0):  # eta_1 = 1 forgets the start
        w = sgd_mean(x, "1/t", w0=w0)
        assert w.shape == (501,) and w[0] == w0
        np.testing.assert_allclose(w[1:], np.cumsum(x) / np.arange(1, 501), rtol=1e-12)


def test_sgd_mean_runs_streams_row_by_row():
    X = mean_stream(3 * 50, random_state=1).reshape(3, 50)
    W = sgd_mean(X, "constant", c=0.2, w0=1.0)
    assert W.shape == (3, 51)
    for x, w in zip(X, W, strict=True):
        np.testing.assert_allclose(w, sgd_mean(x, "constant", c=0.2, w0=1.0), rtol=1e-15)


def test_constant_step_keeps_a_variance_floor():
    """Var w_t -> c sigma^2 / (2 - c): no convergence, unlike 1/t (variance sigma^2 / T)."""
    streams = mean_stream(400 * 2000, mean=2.0, random_state=2).reshape(400, 2000)
    w_const = sgd_mean(streams, "constant", c=0.1)[:, -1]
    w_harm = sgd_mean(streams, "1/t")[:, -1]
    floor = np.sqrt(0.1 / 1.9)
    assert abs(w_const.std() - floor) < 0.15 * floor
    assert abs(w_const.mean() - 2.0) < 0.05  # unbiased, just noisy
    assert w_harm.std() < 0.2 * floor
    assert abs(w_harm.std() - 1 / np.sqrt(2000)) < 0.2 / np.sqrt(2000)


def test_one_over_t_squared_stops_short():
    """Sum of steps finite: the iterate freezes before reaching the mean."""
    x = mean_stream(20_000, mean=2.0, std=0.0)  # no noise at all
    w = sgd_mean(x, "1/t^2", c=0.5, w0=0.0)
    left = np.prod(1 - 0.5 / np.arange(1, 20_001) ** 2)  # -> sin(pi sqrt(c)) / (pi sqrt(c))
    assert w[-1] == pytest.approx(2.0 * (1 - left), rel=1e-10)
    assert 2.0 - w[-1] > 0.7  # more than a third of the way is never covered
    assert abs(w[-1] - w[10_000]) < 1e-4  # frozen
    # with c = 1 the first sample keeps the weight prod_{t>=2} (1 - 1/t^2) = (T + 1) / (2T)
    T = 1000
    e1 = np.zeros(T)
    e1[0] = 1.0
    assert sgd_mean(e1, "1/t^2")[-1] == pytest.approx((T + 1) / (2 * T), rel=1e-12)


@pytest.mark.parametrize("kwargs, name", [
    (dict(schedule="1/t^3"), "schedule"),
    (dict(c=0.0), "c"),
    (dict(c=np.nan), "c"),
    (dict(w0=np.inf), "w0"),
])
def test_sgd_mean_bad_parameters_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        sgd_mean(np.ones(5), **kwargs)


def test_sgd_mean_and_step_sizes_bad_input():
    for x in ([], [1.0, np.nan], np.ones((2, 2, 2))):
        with pytest.raises(ValueError, match="x must"):
            sgd_mean(x)
    with pytest.raises(ValueError, match="n_iter"):
        step_sizes("1/t", 0)
    assert set(STEP_SCHEDULES) == {"constant", "1/sqrt(t)", "1/t", "1/t^2"}


def test_subgradient_descent_by_hand():
    # f(w) = w^2 / 2 + max(0, 1 - w); w0 = 0, eta = 0.5: g = w - 1 while w < 1
    W, f = subgradient_descent([[1.0]], [1.0], "hinge", lam=1.0, n_iter=2, schedule="constant",
                               c=0.5)
    np.testing.assert_allclose(W.ravel(), [0.0, 0.5, 0.75])
    np.testing.assert_allclose(f, [1.0, 0.625, 0.53125])
    # f(w) = |w - 3| (epsilon = 0) from w0 = 0 with steps 1/t: 1, then 1 + 1/2, ...
    W, f = subgradient_descent([[1.0]], [3.0], EpsilonInsensitive(0.0), lam=0.0, n_iter=3,
                               schedule="1/t")
    np.testing.assert_allclose(W.ravel(), [0.0, 1.0, 1.5, 1.5 + 1 / 3])
    np.testing.assert_allclose(f, 3.0 - W.ravel())


def test_subgradient_descent_values_are_the_objective_of_the_iterates():
    X, y = two_gaussian_blobs(30, random_state=0)
    W, f = subgradient_descent(X, y, "hinge", lam=0.1, n_iter=20, schedule="1/sqrt(t)")
    assert W.shape == (21, 2) and f.shape == (21,)
    for w, value in zip(W, f, strict=True):
        assert value == pytest.approx(primal_objective(w[None], X, y, 0.1, get_loss("hinge")),
                                      rel=1e-13)
    np.testing.assert_allclose(primal_objectives(W, X, y, 0.1, "hinge"), f, rtol=1e-15)


def test_gradient_descent_decreases_subgradient_descent_does_not():
    from lsl_lib.pegasos import reference_solution

    X, y = two_gaussian_blobs(40, separation=2.0, random_state=0)
    lam = 0.1
    L = 0.25 * np.linalg.eigvalsh(X.T @ X / len(X)).max() + lam  # smoothness of the log objective
    _, f_log = subgradient_descent(X, y, "log", lam, 200, "constant", c=1.0 / L)
    assert np.all(np.diff(f_log) <= 1e-14)  # a descent method
    f_star = primal_objectives(reference_solution(X, y, lam, "hinge"), X, y, lam, "hinge")[0]
    _, f_const = subgradient_descent(X, y, "hinge", lam, 500, "constant", c=0.5)
    _, f_dec = subgradient_descent(X, y, "hinge", lam, 500, "1/t", c=2.0)
    for f in (f_const, f_dec):
        assert np.sum(np.diff(f) > 0) > 50  # not a descent method
        assert f[-100:].mean() < f[:100].mean()  # but decreasing on average
        assert f.min() - f_star < 1e-3
    # constant steps stall, decreasing steps keep going
    assert f_dec[-100:].mean() - f_star < 0.1 * (f_const[-100:].mean() - f_star)


def test_subgradient_descent_bad_input_is_named():
    X, y = np.ones((4, 2)), np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(ValueError, match="loss"):
        subgradient_descent(X, y, loss="multiclass_hinge")
    with pytest.raises(ValueError, match="lam"):
        subgradient_descent(X, y, lam=-1.0)
    with pytest.raises(ValueError, match="n_iter"):
        subgradient_descent(X, y, n_iter=0)
    with pytest.raises(ValueError, match="w0"):
        subgradient_descent(X, y, w0=np.zeros(3))
    with pytest.raises(ValueError, match="y must"):
        subgradient_descent(X, y[:3])
    with pytest.raises(ValueError, match="X must"):
        subgradient_descent(np.full((4, 2), np.nan), y)
    with pytest.raises(ValueError, match="W must"):
        primal_objectives(np.ones((3, 5)), X, y, 0.1, "hinge")
