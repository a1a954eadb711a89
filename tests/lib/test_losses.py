"""Losses: values, subgradients against finite differences and hand values, stability,
and the compiled per-example subgradient against the vectorised one."""
import numpy as np
import pytest
from scipy.special import logsumexp

from lsl_lib._core.loss_derivatives import score_subgradient_numba
from lsl_lib.losses import LOSSES, get_loss, loss_table, primal_objective

rng = np.random.default_rng(0)


def _data(loss, n=40, K=4):
    if loss.task == "multiclass":
        return rng.integers(0, K, n).astype(float), 3 * rng.normal(size=(n, K))
    if loss.task == "binary":
        return rng.choice([-1.0, 1.0], n), 3 * rng.normal(size=n)
    return rng.normal(size=n), 3 * rng.normal(size=n)


def test_hand_values():
    y = np.array([1.0, 1.0, -1.0])
    s = np.array([2.0, 0.5, 0.5])
    np.testing.assert_allclose(get_loss("hinge").value(y, s), [0.0, 0.5, 1.5])
    np.testing.assert_allclose(get_loss("hinge").subgradient(y, s), [0.0, -1.0, 1.0])
    np.testing.assert_allclose(get_loss("log").value(y, s), np.log1p(np.exp(-y * s)))
    np.testing.assert_allclose(get_loss("squared").value(y, s), 0.5 * (s - y) ** 2)
    eps = get_loss("epsilon_insensitive", epsilon=0.5)
    np.testing.assert_allclose(eps.value(y, s), [0.5, 0.0, 1.0])
    np.testing.assert_allclose(eps.subgradient(y, s), [1.0, 0.0, 1.0])
    S = np.array([[1.0, 3.0, 0.0], [5.0, 0.0, 0.0]])
    mc = get_loss("multiclass_hinge")
    np.testing.assert_allclose(mc.value(np.array([0, 0]), S), [3.0, 0.0])
    np.testing.assert_allclose(mc.subgradient(np.array([0, 0]), S), [[-1, 1, 0], [0, 0, 0]])
    sm = get_loss("softmax")
    np.testing.assert_allclose(sm.value(np.array([1, 0]), S), logsumexp(S, axis=1) - [3.0, 5.0])


def test_hinge_at_the_margin_is_not_a_violation():
    assert get_loss("hinge").subgradient(np.array([1.0]), np.array([1.0]))[0] == 0.0


@pytest.mark.parametrize("name", ["log", "squared", "softmax"])
def test_smooth_losses_gradient_matches_finite_differences(name):
    loss = get_loss(name)
    y, s = _data(loss)
    g = loss.subgradient(y, s)
    h = 1e-6
    if s.ndim == 1:
        fd = (loss.value(y, s + h) - loss.value(y, s - h)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)
    else:
        for r in range(s.shape[1]):
            e = np.zeros(s.shape[1])
            e[r] = h
            fd = (loss.value(y, s + e) - loss.value(y, s - e)) / (2 * h)
            np.testing.assert_allclose(g[:, r], fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", LOSSES)
def test_subgradient_inequality(name):
    """l(y, s') >= l(y, s) + <g, s' - s> for convex l: g is a subgradient."""
    loss = get_loss(name)
    y, s = _data(loss)
    g = loss.subgradient(y, s)
    for _ in range(5):
        s2 = s + rng.normal(size=s.shape)
        lhs = loss.value(y, s2)
        inner = (g * (s2 - s)).reshape(len(y), -1).sum(axis=1)
        assert np.all(lhs >= loss.value(y, s) + inner - 1e-12)


@pytest.mark.parametrize("name", LOSSES)
def test_stable_at_huge_margins(name):
    loss = get_loss(name)
    y, s = _data(loss, n=20)
    for scale in (1e4, -1e4):
        with np.errstate(over="raise", invalid="raise", divide="raise"):  # underflow to 0 is exact
            v = loss.value(y, scale * np.sign(s))
            g = loss.subgradient(y, scale * np.sign(s))
        assert np.all(np.isfinite(v)) and np.all(np.isfinite(g))
    if name == "log":
        np.testing.assert_allclose(loss.value(np.array([1.0, 1.0]), np.array([1e4, -1e4])),
                                   [0.0, 1e4])
    if name == "softmax":
        np.testing.assert_allclose(loss.value(np.array([0]), np.array([[1e4, -1e4]])), [0.0])


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name", LOSSES)
def test_compiled_subgradient_equals_vectorised(name, backend):
    """score_subgradient_numba runs compiled (numba) or as plain Python (numpy path)."""
    loss = get_loss(name, epsilon=0.3)
    y, s = _data(loss)
    G = loss.subgradient(y, s).reshape(len(y), -1)
    S = s.reshape(len(y), -1)
    func = score_subgradient_numba if backend == "numba" else score_subgradient_numba.py_func
    for i in range(len(y)):
        g = np.empty(S.shape[1])
        func(loss.code, float(y[i]), S[i].copy(), 0.3, g)
        np.testing.assert_allclose(g, G[i], rtol=1e-13, atol=0)


def test_primal_objective():
    X = rng.normal(size=(30, 4))
    y = rng.choice([-1.0, 1.0], 30)
    W = rng.normal(size=(1, 4))
    expected = 0.05 * np.sum(W ** 2) + np.mean(np.maximum(0, 1 - y * (X @ W[0])))
    assert primal_objective(W, X, y, 0.1, get_loss("hinge")) == pytest.approx(expected, rel=1e-14)


def test_loss_table_has_every_loss_and_no_stray_pipes():
    table = loss_table()
    rows = table.splitlines()[2:]
    assert len(rows) == len(LOSSES)
    for name, row in zip(LOSSES, rows, strict=True):
        assert f"`{name}`" in row
        assert row.count("|") == 6


def test_unknown_loss_and_bad_epsilon():
    with pytest.raises(ValueError, match="loss"):
        get_loss("huber")
    with pytest.raises(ValueError, match="epsilon"):
        get_loss("epsilon_insensitive", epsilon=-1)
