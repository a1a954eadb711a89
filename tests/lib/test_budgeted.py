"""Budgeted kernel machines: their oracles.

BSGD: without maintenance it is kernel Pegasos, the budget holds, the golden-section merge
against a grid, each maintenance's weight degradation against a direct computation. AMM: its
two paths agree and it reduces to multiclass Pegasos with one hyperplane per class. LLSVM:
with every point a landmark it is the exact kernel SVM. numpy == numba, and bad input
rejected before any compiled code runs.

At the end: the iterates do not depend on where the run loop's chunks end, Ctrl-C
stops a fit within a second, sample weights are removed or repeated rows where the algorithm
makes that exact, a budget above n is lowered to n, too many iterations and a flat kernel are
named.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import lsl_lib._core.run_loop as run_loop
import lsl_lib.budgeted._amm as amm_module
import lsl_lib.budgeted._bsgd as bsgd_module
import lsl_lib.budgeted._llsvm as llsvm_module
from lsl_lib._core.backend import resolve_backend
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib.budgeted import (AdaptiveMultiHyperplaneClassifier,
                              BudgetedKernelSGDClassifier, BudgetedSGDState,
                              LowRankLinearizedSVC, amm, amm_assignments, amm_numpy_chunk,
                              amm_objective, bsgd, bsgd_objective, count_kernel_evaluations,
                              golden_section_numpy, merge_objective_numpy, merge_position_numpy,
                              merging_numpy, projection_numpy, prune_hyperplanes, removal_numpy,
                              support_and_coefficients)
from lsl_lib.budgeted._maintenance import (_golden_section_numba, _merge_position_numba,
                                           _merging_numba, _projection_numba, _removal_numba)
from lsl_lib.coordinate_descent import svm_objectives
from lsl_lib.datasets import concentric_circles, load_digits
from lsl_lib.kernel_pegasos import KernelPegasosClassifier, kernel_pegasos, optimal_objective
from lsl_lib.kernels import check_kernel_params, kernel_matrix
from lsl_lib.pegasos import PegasosClassifier
from lsl_lib.budgeted._amm import _AMM_MODES
from lsl_lib.budgeted._maintenance import _GOLDEN_ITERATIONS, _MAINTENANCES
from estimator_support import with_nan


# ---- BSGD ----

X_circ, y_circ = concentric_circles(300, noise=0.15, random_state=0)
Y_CIRC = y_circ.astype(float)


def _three_classes(n=240, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    centres = np.array([[0.0, 0.0], [2.0, 0.5], [0.5, 2.0]])
    return centres[labels] + rng.normal(scale=0.8, size=(n, 2)), labels


@pytest.mark.parametrize("maintenance", _MAINTENANCES)
@pytest.mark.parametrize("sampling", ["iid", "reshuffle"])
def test_without_maintenance_bsgd_is_kernel_pegasos(maintenance, sampling):
    """B >= the number of violators: no maintenance runs and, on the same indices, the
    support, coefficients and decision function are kernel Pegasos' (to 1e-10)."""
    common = dict(lam=1e-3, n_iter=1500, gamma=1.0, sampling=sampling, random_state=4)
    pegasos = KernelPegasosClassifier(**common).fit(X_circ, y_circ)
    ours = BudgetedKernelSGDClassifier(budget=300, maintenance=maintenance, **common).fit(
        X_circ, y_circ)
    assert ours.n_maintenance_ == 0 and ours.degradation_ == 0.0
    state, _ = bsgd(X_circ, Y_CIRC, 1e-3, 1500, 300, maintenance, gamma=1.0, sampling=sampling,
                    random_state=4)
    source = state.source[:state.m]
    order = np.argsort(source)
    np.testing.assert_array_equal(source[order], pegasos.support_)
    np.testing.assert_array_equal(ours.support_vectors_[order], pegasos.support_vectors_)
    np.testing.assert_allclose(ours.dual_coef_[order], pegasos.dual_coef_, rtol=1e-10)
    np.testing.assert_allclose(ours.decision_function(X_circ), pegasos.decision_function(X_circ),
                               rtol=1e-10, atol=1e-12)


def test_a_budget_at_the_number_of_violators_is_enough():
    """The smallest budget that never triggers maintenance is kernel Pegasos' support size."""
    state, _ = kernel_pegasos(X_circ, Y_CIRC, 1e-3, 1500, gamma=1.0, random_state=1)
    for budget, maintained in [(state.m, False), (state.m - 1, True)]:
        clf = BudgetedKernelSGDClassifier(lam=1e-3, n_iter=1500, gamma=1.0, budget=budget,
                                          random_state=1).fit(X_circ, y_circ)
        assert (clf.n_maintenance_ > 0) == maintained


@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("budget", [1, 2, 7, 25])
def test_merging_never_exceeds_the_budget(budget, multiclass):
    X, y = _three_classes() if multiclass else (X_circ, y_circ)
    clf = BudgetedKernelSGDClassifier(lam=1e-3, budget=budget, n_iter=1200, gamma=1.0,
                                      record_every=1, random_state=0).fit(X, y)
    assert len(clf.support_vectors_) == len(clf.dual_coef_) <= budget
    assert clf.history_["n_support"].max() == budget and clf.n_maintenance_ > 0
    assert np.all(np.diff(clf.history_["degradation"]) >= 0)


@pytest.mark.parametrize("norm_m,norm_n,cross", [
    (1.0, 1.0, 1.0),  # binary, equal coefficients of one sign
    (4.0, 0.25, 1.0),  # binary, one sign, unequal
    (0.25, 4.0, 1.0),
    (4.0, 1.0, -2.0),  # binary, opposite signs: z beyond the larger one
    (1.0, 4.0, -2.0),
    (2.0, 5.0, 1.0),  # multiclass: A_m = (1, -1, 0), A_n = (2, 0, -1)
    (2.0, 2.0, -1.0),  # multiclass: A_m = (1, -1, 0), A_n = (-1, 0, 1)
])
@pytest.mark.parametrize("k_mn", [0.9, 0.5, 0.05])
def test_golden_section_merge_against_a_grid(norm_m, norm_n, cross, k_mn):
    """The golden-section h reaches the largest ||A_z||^2 of a fine grid over [-5, 6] (which
    contains the searched brackets) and lies within the final bracket width of the grid's h."""
    log_k = np.log(k_mn)
    h = merge_position_numpy(norm_m, norm_n, cross, log_k)
    grid = np.linspace(-5.0, 6.0, 1_100_001)
    values = merge_objective_numpy(grid, norm_m, norm_n, cross, log_k)
    best = values.max()
    assert merge_objective_numpy(h, norm_m, norm_n, cross, log_k) >= best - 1e-9 * best
    width = 5.0 * (2 / (1 + 5 ** 0.5)) ** _GOLDEN_ITERATIONS
    maximisers = grid[values >= best - 1e-9 * best]  # two of them when m and n are alike
    assert np.abs(h - maximisers).min() < width + 1e-5
    resolve_backend("numba")  # without numba: reported as skipped here (see conftest.py)
    for lo in (0.0, 1.0, -5.0):  # the compiled search, on each bracket
        hi = lo + (1.0 if lo == 0.0 else 5.0)
        compiled = _golden_section_numba(np.full(1, lo), np.full(1, hi), norm_m,
                                         np.full(1, norm_n), np.full(1, cross), np.full(1, log_k))
        assert compiled[0] == pytest.approx(
            golden_section_numpy(lo, hi, norm_m, norm_n, cross, log_k), abs=1e-12)


def _state(n_sv, d, n_columns, seed):
    """A support of n_sv random points with random coefficients, as after an insertion."""
    rng = np.random.default_rng(seed)
    state = BudgetedSGDState(n_sv, d, n_columns, n_sv - 1)
    state.sv[:] = rng.normal(size=(n_sv, d))
    state.svT[:] = state.sv.T
    state.A[:] = rng.normal(size=(n_sv, n_columns)) * rng.uniform(0.2, 3.0, size=(n_sv, 1))
    state.source[:] = np.arange(n_sv)
    state.position[:] = np.arange(n_sv)
    state.m = n_sv
    return state


def _degradation_directly(before, after, kernel, gamma, degree, coef0):
    r""":math:`\|w_{before} - w_{after}\|^2` from the kernel matrix of all points involved."""
    points = np.vstack([before.sv[:before.m], after.sv[:after.m]])
    v = np.vstack([before.A[:before.m], -after.A[:after.m]])
    return np.sum(v * (kernel_matrix(points, None, kernel, gamma, degree, coef0) @ v))


def _copy(state):
    new = BudgetedSGDState(len(state.position), state.sv.shape[1], state.A.shape[1],
                           len(state.source) - 1)
    for name in ("sv", "svT", "A", "source", "position"):
        getattr(new, name)[:] = getattr(state, name)
    new.m = state.m
    return new


@pytest.mark.parametrize("maintenance", _MAINTENANCES)
@pytest.mark.parametrize("n_columns", [1, 3])
def test_each_maintenance_reports_its_exact_weight_degradation(maintenance, n_columns):
    """||Delta||^2 returned = ||w_before - w_after||^2 computed from the full kernel matrix;
    removal's is ||A_p||^2 k(x_p, x_p) (polynomial kernel: k(x, x) != 1); projection never
    degrades more than removal; merging picks the best partner. (Its compiled twin: the
    next test.)"""
    kernel, params = ("gaussian", (0.3, 3, 1.0)) if maintenance == "merging" else (
        "polynomial", (None, 2, 1.0))
    _, gamma, degree, coef0 = check_kernel_params(kernel, *params, n_features=5)
    before = _state(12, 5, n_columns, seed=n_columns)  # degree 2 in R^5: 21 > 11 dimensions
    after = _copy(before)
    if maintenance == "removal":
        loss = removal_numpy(after, kernel, gamma, degree, coef0)
        p = np.argmin((before.A[:12] ** 2).sum(axis=1))
        k_pp = kernel_matrix(before.sv[[p]], None, kernel, gamma, degree, coef0)[0, 0]
        assert k_pp > 1.5
        assert loss == pytest.approx(before.A[p] @ before.A[p] * k_pp, rel=1e-12)
    elif maintenance == "projection":
        loss = projection_numpy(after, kernel, gamma, degree, coef0)
        assert loss <= removal_numpy(_copy(before), kernel, gamma, degree, coef0)
    else:
        loss = merging_numpy(after, gamma)
        alternatives = []
        p = np.argmin((before.A[:12] ** 2).sum(axis=1))
        for n in range(12):  # every partner at its grid-best h
            if n != p:
                d2 = ((before.sv[p] - before.sv[n]) ** 2).sum()
                f = merge_objective_numpy(np.linspace(-5, 6, 110_001), before.A[p] @ before.A[p],
                                    before.A[n] @ before.A[n], before.A[p] @ before.A[n],
                                    -gamma * d2)
                alternatives.append(before.A[p] @ before.A[p] + before.A[n] @ before.A[n]
                                    + 2 * np.exp(-gamma * d2) * before.A[p] @ before.A[n]
                                    - f.max())
        assert loss <= min(alternatives) + 1e-8 * abs(min(alternatives))
    assert after.m == 11
    assert loss == pytest.approx(_degradation_directly(before, after, kernel, gamma, degree,
                                                       coef0), rel=1e-7, abs=1e-10)
    kept = after.source[:after.m][after.source[:after.m] >= 0]
    np.testing.assert_array_equal(after.position[kept], np.flatnonzero(after.source >= 0))
    assert np.sum(after.position >= 0) == len(kept)


def _maintain(maintenance, state, kernel, code, gamma, degree, coef0, path):
    """One maintenance on ``state`` by the reference or by its compiled twin (the twin
    that ``_bsgd_numba_chunk`` calls for this strategy); returns ||Delta||^2."""
    if path == "numpy":
        if maintenance == "removal":
            return removal_numpy(state, kernel, gamma, degree, coef0)
        if maintenance == "projection":
            return projection_numpy(state, kernel, gamma, degree, coef0)
        return merging_numpy(state, gamma)
    arrays = (state.sv, state.svT, state.A, state.source, state.position, state.m)
    if maintenance == "removal":
        state.m, degradation = _removal_numba(*arrays, code, gamma, degree, coef0)
    elif maintenance == "projection":
        state.m, degradation = _projection_numba(*arrays, code, gamma, degree, coef0)
    else:
        state.m, degradation = _merging_numba(*arrays, gamma)
    return degradation


@pytest.mark.parametrize("maintenance,kernel,params", [
    ("removal", "polynomial", (None, 2, 1.0)),
    ("removal", "gaussian", (0.3, 3, 1.0)),
    ("projection", "polynomial", (None, 2, 1.0)),
    ("projection", "gaussian", (0.3, 3, 1.0)),
    ("merging", "gaussian", (0.3, 3, 1.0)),
    ("merging", "gaussian", (2.0, 3, 1.0)),
])
@pytest.mark.parametrize("n_columns", [1, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_maintenance_and_its_compiled_twin_agree(maintenance, kernel, params, n_columns,
                                                      seed):
    """removal_numpy / _removal_numba, projection_numpy / _projection_numba, merging_numpy /
    _merging_numba on copies of one state: the same ||Delta||^2 and the same state after
    (to 1e-10; the support vectors to 1e-12, the slots exactly)."""
    resolve_backend("numba")
    code, gamma, degree, coef0 = check_kernel_params(kernel, *params, n_features=5)
    before = _state(12, 5, n_columns, seed=10 * seed + n_columns)
    reference, compiled = _copy(before), _copy(before)
    degradation = _maintain(maintenance, reference, kernel, code, gamma, degree, coef0, "numpy")
    compiled_degradation = _maintain(maintenance, compiled, kernel, code, gamma, degree, coef0,
                                     "numba")
    assert reference.m == compiled.m == 11
    assert compiled_degradation == pytest.approx(degradation, rel=1e-10)
    np.testing.assert_allclose(compiled.A, reference.A, rtol=1e-10,
                               atol=1e-10 * np.abs(reference.A).max())
    np.testing.assert_allclose(compiled.sv, reference.sv, rtol=1e-12)
    np.testing.assert_array_equal(compiled.svT, compiled.sv.T)
    np.testing.assert_array_equal(compiled.source, reference.source)
    np.testing.assert_array_equal(compiled.position, reference.position)


def test_merge_position_and_its_compiled_twin_agree():
    """merge_position_numpy, one partner at a time (a scalar golden-section search), and
    _merge_position_numba, all partners in lockstep: the same h and ||A_z||^2, also for
    partners of opposite sign (the outer brackets) and for equal coefficients (a tie)."""
    resolve_backend("numba")
    rng = np.random.default_rng(0)
    n = 200
    norm_n = rng.uniform(0.1, 5.0, n)
    cross = rng.uniform(-3.0, 3.0, n)
    log_k = np.log(rng.uniform(0.01, 0.99, n))
    norm_n[:5], cross[:5] = 1.0, 1.0  # A_n = A_m: the objective is symmetric about h = 1/2
    h, best = _merge_position_numba(1.0, norm_n, cross, log_k)
    assert (cross < 0).sum() > 50
    for j in range(n):
        h_j = merge_position_numpy(1.0, norm_n[j], cross[j], log_k[j])
        assert h[j] == pytest.approx(h_j, abs=1e-12)
        assert best[j] == pytest.approx(
            merge_objective_numpy(h_j, 1.0, norm_n[j], cross[j], log_k[j]), rel=1e-12)


def _sparse_problem(n=200, d=30, seed=0):
    A = sp.random(n, d, density=0.2, random_state=seed, format="csr")
    w = np.random.default_rng(seed).normal(size=d)
    return A, np.where(A @ w > np.median(A @ w), 1.0, -1.0)


@pytest.mark.parametrize("maintenance", _MAINTENANCES)
@pytest.mark.parametrize("problem", ["binary", "multiclass", "sparse"])
def test_numba_and_numpy_agree(maintenance, problem):
    """Same indices, same iterates: support, coefficients and the trace to 1e-10 (CSR rows
    on both paths give the dense run's). Coefficients are compared to 1e-10 of the largest:
    a projection leaves some small ones as differences of large terms. The projection
    solves with K_RR, so rounding differences between the paths grow with its condition
    number: gamma = 2 keeps these support vectors' kernel matrix well conditioned (at
    gamma = 0.5 the paths drift apart by up to 2e-9 over 250 projections).
    Removal and merging agree at 1e-10 for gamma = 0.5 too."""
    if problem == "binary":
        X, y, n_classes = X_circ, Y_CIRC, 2
    elif problem == "multiclass":
        (X, y), n_classes = _three_classes(), 3
    else:
        X, y = _sparse_problem()
        n_classes = 2
    common = dict(kernel="gaussian", gamma=2.0, n_classes=n_classes, sampling="reshuffle",
                  random_state=3, record_every=300)
    runs = [bsgd(X, y, 1e-3, 1200, 15, maintenance, backend=backend, **common)
            for backend in ("numpy", "numba")]
    if problem == "sparse":
        runs.append(bsgd(X.toarray(), y, 1e-3, 1200, 15, maintenance, backend="numba", **common))
    (reference, h_ref) = runs[0]
    assert reference.n_maintenance > 100
    for state, history in runs[1:]:
        np.testing.assert_array_equal(state.source, reference.source)
        assert state.m == reference.m and state.n_maintenance == reference.n_maintenance
        np.testing.assert_allclose(state.A, reference.A, rtol=1e-10,
                                   atol=1e-10 * np.abs(reference.A).max())
        np.testing.assert_allclose(state.sv, reference.sv, rtol=1e-10, atol=1e-14)
        for column in history:
            if column != "seconds":
                np.testing.assert_allclose(history[column], h_ref[column], rtol=1e-10,
                                           err_msg=column)


def test_objective_decreases_and_accuracy_is_kernel_pegasos():
    X_test, y_test = concentric_circles(1000, noise=0.15, random_state=1)
    pegasos = KernelPegasosClassifier(lam=1e-3, gamma=1.0, random_state=0).fit(X_circ, y_circ)
    ours = BudgetedKernelSGDClassifier(lam=1e-3, gamma=1.0, budget=20, record_every=300,
                                       random_state=0).fit(X_circ, y_circ)
    objective = ours.history_["objective"]
    assert objective[-1] < 0.5 * objective[0]
    assert ours.score(X_test, y_test) >= pegasos.score(X_test, y_test) - 0.02
    assert len(ours.support_vectors_) == 20 < len(pegasos.support_vectors_)
    final = bsgd_objective(X_circ, Y_CIRC, 1e-3, ours.support_vectors_, ours.dual_coef_,
                           gamma=1.0)
    assert objective[-1] == pytest.approx(final, rel=1e-12)


def test_merging_degrades_least_and_learns_most():
    """The paper's finding on a fixed run: merging < projection < removal in total
    degradation, and removal is the worst classifier."""
    X_test, y_test = concentric_circles(1000, noise=0.15, random_state=1)
    fits = {m: BudgetedKernelSGDClassifier(lam=1e-3, gamma=1.0, budget=10, maintenance=m,
                                           random_state=0).fit(X_circ, y_circ)
            for m in _MAINTENANCES}
    degradation = {m: fit.degradation_ / fit.n_maintenance_ for m, fit in fits.items()}
    assert degradation["merging"] < degradation["projection"] < degradation["removal"]
    scores = {m: fit.score(X_test, y_test) for m, fit in fits.items()}
    assert scores["removal"] < min(scores["merging"], scores["projection"])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("maintenance", _MAINTENANCES)
def test_gradient_error_is_each_maintenance_change_over_its_step_size(backend, maintenance):
    """Wang et al.'s E_t = Delta_t / eta_t, eta_t = 1/(lam t): recorded at every iteration,
    each increment of the cumulative gradient error is lam t ||Delta_t||, where ||Delta_t||^2
    is the increment of the degradation; gradient_error_ is their mean over T."""
    lam, T = 1e-3, 900
    clf = BudgetedKernelSGDClassifier(lam=lam, gamma=1.0, budget=8, maintenance=maintenance,
                                      n_iter=T, record_every=1, backend=backend,
                                      random_state=2).fit(X_circ, y_circ)
    h = clf.history_
    t = h["iteration"][1:]
    steps = np.diff(h["gradient_error"])
    # (differences of cumulative sums: a small increment keeps about 1e-9 of its digits)
    np.testing.assert_allclose(steps, lam * t * np.sqrt(np.diff(h["degradation"])),
                               rtol=1e-6, atol=1e-12)
    assert np.count_nonzero(steps) == clf.n_maintenance_ > 50
    assert clf.gradient_error_ == pytest.approx(h["gradient_error"][-1] / T, rel=1e-15)


def test_removal_deletes_one_violation_so_every_gradient_error_is_one():
    """Removal deletes the smallest coefficient, which is one violation (the newest violator
    holds one): with k(x, x) = 1 every ||E_t|| is 1 and the average is the share of
    iterations that maintain (the paper's 'assumption ||E_t|| <= 1 can be easily held',
    with equality); projection and merging err far less."""
    fits = {m: BudgetedKernelSGDClassifier(lam=1e-3, gamma=1.0, budget=10, maintenance=m,
                                           n_iter=3000, random_state=0).fit(X_circ, y_circ)
            for m in _MAINTENANCES}
    removal = fits["removal"]
    assert removal.gradient_error_ * 3000 == pytest.approx(removal.n_maintenance_, rel=1e-12)
    assert fits["merging"].gradient_error_ < 0.2 * removal.gradient_error_
    assert fits["projection"].gradient_error_ < 0.2 * removal.gradient_error_


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("maintenance", _MAINTENANCES)
def test_kernel_evaluations_are_counted_as_the_algorithm_does_them(backend, maintenance):
    """m values per iteration (m the support before the example joins) plus each
    maintenance's count_kernel_evaluations(B + 1); without maintenance it is kernel
    Pegasos' count without a cache, on the same indices."""
    B, T = 9, 700
    clf = BudgetedKernelSGDClassifier(lam=1e-3, gamma=1.0, budget=B, maintenance=maintenance,
                                      n_iter=T, record_every=1, backend=backend,
                                      random_state=1).fit(X_circ, y_circ)
    per_maintenance = count_kernel_evaluations(_MAINTENANCES.index(maintenance), B + 1)
    assert per_maintenance == {"removal": 1, "projection": 9 * 10 // 2 + 10,
                               "merging": 10}[maintenance]
    steps = clf.history_["n_support"][:-1].sum()  # the support at the start of each iteration
    assert clf.n_kernel_evaluations_ == steps + clf.n_maintenance_ * per_maintenance
    assert clf.history_["kernel_evaluations"][-1] == clf.n_kernel_evaluations_
    common = dict(lam=1e-3, gamma=1.0, n_iter=T, random_state=1)
    pegasos = KernelPegasosClassifier(cache_size=0, record_every=T, **common).fit(X_circ, y_circ)
    unbudgeted = BudgetedKernelSGDClassifier(budget=300, maintenance=maintenance,
                                             backend=backend, **common).fit(X_circ, y_circ)
    assert unbudgeted.n_maintenance_ == 0
    assert unbudgeted.n_kernel_evaluations_ == pegasos.history_["kernel_evaluations"][-1]


def test_multiclass_crammer_singer_on_digits():
    X_train, X_test, y_train, y_test = load_digits(test_size=0.3)
    clf = BudgetedKernelSGDClassifier(lam=1e-4, budget=100, random_state=0).fit(X_train, y_train)
    assert clf.dual_coef_.shape == (100, 10)
    assert clf.score(X_test, y_test) > 0.95
    np.testing.assert_allclose(clf.decision_function(X_test),
                               kernel_matrix(X_test, clf.support_vectors_, gamma=clf.gamma_)
                               @ clf.dual_coef_, rtol=1e-12)


def test_sparse_input_is_the_dense_estimator():
    A, y = _sparse_problem(seed=1)
    sparse_fit = BudgetedKernelSGDClassifier(budget=30, random_state=0).fit(A, y)
    dense_fit = BudgetedKernelSGDClassifier(budget=30, random_state=0).fit(A.toarray(), y)
    assert not sp.issparse(sparse_fit.support_vectors_)
    np.testing.assert_allclose(sparse_fit.dual_coef_, dense_fit.dual_coef_, rtol=1e-10)
    np.testing.assert_allclose(sparse_fit.decision_function(A), dense_fit.decision_function(A),
                               rtol=1e-10, atol=1e-12)
    with pytest.raises(TypeError, match="kernel='laplacian'"):
        BudgetedKernelSGDClassifier(kernel="laplacian", maintenance="removal").fit(A, y)


_X, _y = X_circ[:40], y_circ[:40]


@pytest.mark.parametrize("params,X,y,match", [
    (dict(budget=0), _X, _y, "budget"),
    (dict(maintenance="random"), _X, _y, "maintenance"),
    (dict(kernel="laplacian"), _X, _y, "maintenance='merging' needs kernel='gaussian'"),
    (dict(kernel="polynomial"), _X, _y, "maintenance='merging' needs kernel='gaussian'"),
    (dict(), with_nan(_X), _y, "NaN"),
    (dict(), _X, _y[:-1], "inconsistent numbers of samples"),
    (dict(), _X, np.ones(40), "one class"),
    (dict(lam=0.0), _X, _y, "lam"),
    (dict(n_iter=0), _X, _y, "n_iter"),
    (dict(kernel="sigmoid"), _X, _y, "kernel"),
    (dict(gamma=0.0), _X, _y, "gamma"),
    (dict(sampling="cyclic"), _X, _y, "sampling"),
    (dict(), np.empty((0, 2)), np.empty(0), "0 sample"),
])
def test_bad_input_is_named_before_compiled_code_runs(params, X, y, match, forbid):
    forbid(bsgd_module, "_bsgd_numba_chunk", "bsgd_numpy_chunk")
    with pytest.raises(ValueError, match=match):
        BudgetedKernelSGDClassifier(**params).fit(X, y)


def _xor(n=800, seed=0):
    """XOR in the square: no single hyperplane per class separates it, two do."""
    X = np.random.default_rng(seed).uniform(-1, 1, size=(n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, "same", "opposite")


def _multiclass(n=240, d=6, K=3, seed=0):
    """Unit-norm rows, labels from the sign pattern of two directions (nonlinear in x)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] * X[:, 2] > 0) % K
    return X, y


def _variants(X):
    csr = sp.csr_matrix(X)
    csr64 = sp.csr_matrix((csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64)),
                          shape=csr.shape)
    return {"dense": X, "csr": csr, "csr_int64": csr64}


# ---- AMM ----

@pytest.mark.parametrize("mode", ["online", "batch"])
@pytest.mark.parametrize("budget,prune_every", [(1, None), (3, None), (4, 97), (6, 50)])
def test_amm_numba_and_numpy_give_the_same_model(mode, budget, prune_every):
    X, y = _multiclass()
    ref_W, ref_active, ref_h = amm(X, y, 0.05, 3, budget, mode=mode, n_epochs=3,
                                   prune_every=prune_every, prune_c=5.0, record_every=101,
                                   backend="numpy", random_state=1)
    assert ref_active.sum() > 3 or budget == 1  # hyperplanes were created
    if prune_every is not None:  # ... and pruned
        unpruned = amm(X, y, 0.05, 3, budget, mode=mode, n_epochs=3, prune_every=None,
                       backend="numpy", random_state=1)[1]
        assert unpruned.sum() > ref_active.sum()
    for name, Xv in _variants(X).items():
        W, active, h = amm(Xv, y, 0.05, 3, budget, mode=mode, n_epochs=3,
                           prune_every=prune_every, prune_c=5.0, record_every=101,
                           backend="numba", random_state=1)
        np.testing.assert_array_equal(active, ref_active, err_msg=name)
        np.testing.assert_allclose(W, ref_W, rtol=1e-10, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(h["objective"], ref_h["objective"], rtol=1e-10)
        np.testing.assert_array_equal(h["n_hyperplanes"], ref_h["n_hyperplanes"])


def test_amm_estimator_backends_agree_on_sparse_input_with_pruning():
    X, y = _xor(600)
    kw = dict(lam=1e-3, budget=5, prune_every=300, random_state=0)
    a = AdaptiveMultiHyperplaneClassifier(backend="numpy", **kw).fit(sp.csr_matrix(X), y)
    b = AdaptiveMultiHyperplaneClassifier(backend="numba", **kw).fit(X, y)
    np.testing.assert_array_equal(a.n_hyperplanes_, b.n_hyperplanes_)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["online", "batch"])
@pytest.mark.parametrize("sampling", ["iid", "reshuffle"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_amm_with_one_hyperplane_per_class_is_multiclass_pegasos(mode, sampling, fit_intercept,
                                                                 backend):
    """B = 1: every example is assigned to its class's only hyperplane and none is ever
    created, so AMM's step is Pegasos' with the Crammer-Singer hinge, batch size 1, no
    projection, no averaging, step 1/(lam t), the same sampling and seed (same indices)."""
    X, y = _multiclass(seed=3)
    n_epochs = 3
    model = AdaptiveMultiHyperplaneClassifier(
        lam=0.05, budget=1, mode=mode, n_epochs=n_epochs, sampling=sampling,
        fit_intercept=fit_intercept, backend=backend, random_state=7).fit(X, y)
    pegasos = PegasosClassifier(
        lam=0.05, loss="multiclass_hinge", n_iter=n_epochs * len(X), batch_size=1,
        sampling=sampling, projection=False, averaging="none", step_offset=0,
        fit_intercept=fit_intercept, backend=backend, random_state=7).fit(X, y)
    assert np.all(model.n_hyperplanes_ == 1)
    np.testing.assert_allclose(model.coef_, pegasos.coef_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(model.intercept_, pegasos.intercept_, rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(model.predict(X), pegasos.predict(X))


def test_amm_first_step_creates_a_hyperplane_from_the_example():
    """t = 1, eta = 1/lam: the shrink zeroes W, the hinge is 1 > 0, the true class's zero
    hyperplane scores 0 <= 0, so a new hyperplane x/lam is created in slot 1 and the best
    wrong hyperplane (the first zero one) becomes -x/lam."""
    X = np.array([[1.0, 2.0], [0.5, -1.0]])
    y = np.array([1, 0])
    W = np.zeros((3, 2, 2))
    active = np.zeros((3, 2), dtype=bool)
    active[:, 0] = True
    z = np.full(2, -1)
    amm_numpy_chunk(X, y, W, active, z, np.array([0]), 0, 0.5, True)
    expected = np.zeros((3, 2, 2))
    expected[1, 1] = X[0] / 0.5
    expected[0, 0] = -X[0] / 0.5
    np.testing.assert_array_equal(W, expected)
    np.testing.assert_array_equal(active, [[True, False], [True, True], [True, False]])
    assert z[0] == 1


def test_amm_respects_the_budget_and_records_its_trace():
    X, y = _xor(600)
    for budget in (1, 2, 5):
        model = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=budget, prune_every=None,
                                                  record_every=150, random_state=0).fit(X, y)
        assert np.all(model.n_hyperplanes_ <= budget) and model.n_hyperplanes_.min() >= 1
        h = model.history_
        assert set(h) == {"iteration", "epoch", "seconds", "objective", "n_hyperplanes"}
        np.testing.assert_array_equal(h["iteration"], np.arange(0, 5 * 600 + 1, 150))
        np.testing.assert_allclose(h["epoch"], h["iteration"] / 600)
        assert h["objective"][0] == 1.0  # P(0): every hinge is 1
        assert h["n_hyperplanes"][0] == 2 and np.all(h["n_hyperplanes"] <= 2 * budget)
        assert np.all(np.diff(h["seconds"]) >= 0)
        assert h["n_hyperplanes"][-1] == model.n_hyperplanes_.sum() == len(model.coef_) \
            == len(model.hyperplane_classes_)
        if budget > 1:  # piecewise linear: the objective falls well below any linear model's
            assert h["objective"][-1] < 0.3 and model.n_hyperplanes_.max() >= 2
        else:
            assert h["objective"][-1] > 0.9


def test_amm_solves_xor_only_with_two_hyperplanes_per_class():
    """The decision regions are unions of linear pieces: one hyperplane per class is a
    linear classifier (chance on XOR), two per class solve it, in both modes."""
    X, y = _xor()
    X_test, y_test = _xor(seed=1)
    for mode in ("online", "batch"):
        linear = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=1, mode=mode,
                                                   random_state=0).fit(X, y)
        assert linear.score(X_test, y_test) < 0.7
        for budget in (2, 4):
            model = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=budget, mode=mode,
                                                      random_state=0).fit(X, y)
            assert model.score(X_test, y_test) > 0.9, (mode, budget)
            assert model.n_hyperplanes_.min() >= 2


def test_amm_scores_are_the_max_of_each_class_hyperplanes():
    X, y = _multiclass(300)
    model = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=4, random_state=0).fit(X, y)
    s = X @ model.coef_.T + model.intercept_
    expected = np.column_stack([s[:, model.hyperplane_classes_ == c].max(axis=1)
                                for c in model.classes_])
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[expected.argmax(axis=1)])
    binary = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=3, random_state=0).fit(*_xor())
    assert binary.decision_function(_xor()[0]).shape == (800,)


def test_pruning_removes_exactly_the_smallest_hyperplanes_within_the_threshold():
    lam, t, c = 0.5, 4, 1.0  # threshold (c / (lam t))^2 = 0.25
    norms = np.array([[0.1, 0.3, 0.0], [0.2, 0.45, 0.05], [0.6, 0.0, 0.0]])
    active = np.array([[True, True, False], [True, True, True], [True, False, False]])
    W = np.zeros((3, 3, 2))
    W[..., 0] = norms
    removed = prune_hyperplanes(W, active, t, lam, c)
    # by increasing norm: (1,2) 0.0025, (0,0) 0.01, (1,0) 0.04 -> sum 0.0525; (0,1) 0.09 would
    # leave class 0 empty: skipped; (1,1) 0.2025 brings the sum to 0.255 > 0.25: stop.
    # (2,0) is its class's only hyperplane.
    np.testing.assert_array_equal(removed, [[1, 2], [0, 0], [1, 0]])
    np.testing.assert_array_equal(active, [[False, True, False], [False, True, False],
                                           [True, False, False]])
    assert np.all(W[~active] == 0.0) and W[0, 1, 0] == 0.3 and W[1, 1, 0] == 0.45


def test_pruning_with_a_huge_c_leaves_one_hyperplane_per_class():
    X, y = _xor(400)
    model = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=4, prune_every=400, prune_c=1e9,
                                              random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.n_hyperplanes_, [1, 1])
    unpruned = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=4, prune_every=None,
                                                 random_state=0).fit(X, y)
    assert unpruned.n_hyperplanes_.min() >= 2


def test_amm_batch_mode_keeps_the_assignment_fixed_within_an_epoch():
    """Batch starts with one online epoch: with one epoch the two modes are the same run;
    later epochs use z_n = argmax_j w_{y_n j}^T x_n fixed at the epoch's start."""
    X, y = _multiclass(300)
    kw = dict(lam=1e-2, n_classes=3, budget=4, n_epochs=1, backend="numpy", random_state=0)
    W_on, act_on, _ = amm(X, y, mode="online", **kw)
    W_b, act_b, _ = amm(X, y, mode="batch", **kw)
    np.testing.assert_array_equal(W_on, W_b)
    kw["n_epochs"] = 3
    W_on, _, _ = amm(X, y, mode="online", **kw)
    W_b, act_b, _ = amm(X, y, mode="batch", **kw)
    assert not np.allclose(W_on, W_b)
    z = amm_assignments(X, y, W_b, act_b)
    scores = np.einsum("nbd,nd->nb", W_b[y], X)
    scores[~act_b[y]] = -np.inf
    np.testing.assert_array_equal(z, scores.argmax(axis=1))


def test_amm_objective_is_the_multiclass_hinge_of_the_class_scores():
    X, y = _multiclass(50)
    rng = np.random.default_rng(0)
    W = rng.normal(size=(3, 2, X.shape[1]))
    active = np.array([[True, True], [True, False], [True, True]])
    W[~active] = 0.0
    g = np.stack([(X @ W[k][active[k]].T).max(axis=1) for k in range(3)], axis=1)
    hinge = [max(0.0, 1 + max(g[n, r] for r in range(3) if r != y[n]) - g[n, y[n]])
             for n in range(len(y))]
    expected = 0.5 * 0.1 * np.sum(W ** 2) + np.mean(hinge)
    assert amm_objective(X, y, W, active, 0.1) == pytest.approx(expected, rel=1e-12)


def test_amm_maps_labels_and_back():
    X, y = make_blobs(300, centers=3, random_state=0)
    labels = np.array(["a", "b", "c"])[y]
    model = AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=3, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(model.classes_, ["a", "b", "c"])
    assert set(model.predict(X)) <= set(labels) and model.score(X, labels) > 0.8
    assert set(model.hyperplane_classes_) == {"a", "b", "c"}


@pytest.mark.parametrize("params,match", [
    (dict(budget=0), "budget"), (dict(mode="stochastic"), "mode"), (dict(lam=0.0), "lam"),
    (dict(n_epochs=0), "n_epochs"), (dict(prune_every=0), "prune_every"),
    (dict(prune_c=-1.0), "prune_c"), (dict(sampling="sorted"), "sampling"),
    (dict(backend="cuda"), "backend"), (dict(random_state=-1), "random_state"),
])
def test_amm_rejects_bad_parameters(params, match):
    X, y = _xor(50)
    with pytest.raises(ValueError, match=match):
        AdaptiveMultiHyperplaneClassifier(**params).fit(X, y)


def test_amm_rejects_bad_data():
    X, y = _xor(50)
    model = AdaptiveMultiHyperplaneClassifier()
    with pytest.raises(ValueError, match="one class"):
        model.fit(X, np.zeros(50))
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.fit(X_nan, y)
    with pytest.raises(ValueError, match="inconsistent"):
        model.fit(X, y[:-1])
    with pytest.raises(ValueError, match="Unknown label type"):
        model.fit(X, np.linspace(0, 1, 50))
    with pytest.raises(ValueError, match="features"):
        model.fit(X, y).predict(np.ones((2, 3)))


# ---- LLSVM ----

def test_llsvm_with_every_point_a_landmark_reaches_the_exact_kernel_svm_objective():
    """Z Z^T = K, so the linear SVM on z is the kernel SVM without intercept: with
    lam = 1/(C n), f = lam * P (P in liblinear's scaling) equals f(w*) of the kernel SVM.
    gamma = 5 keeps K well enough conditioned for dual CD to converge in 200 epochs; with
    C = 0.5, 13 points lie on the margin and 36 inside it (no trivial solution)."""
    X, y = concentric_circles(80, noise=0.15, random_state=0)
    C, n = 0.5, len(y)
    model = LowRankLinearizedSVC(budget=n, C=C, gamma=5.0, tol=1e-10, max_iter=100_000,
                                 random_state=0).fit(X, y)
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    w = model.coef_[0]
    primal = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y_pm * model.decision_function(X)).sum()
    lam = 1.0 / (C * n)
    exact = optimal_objective(X, y_pm, lam, kernel="gaussian", gamma=5.0, tol=1e-12)
    assert lam * primal == pytest.approx(exact, rel=1e-6)
    Z = model._features(X)
    np.testing.assert_allclose(Z @ Z.T, kernel_matrix(X, gamma=5.0), atol=1e-8)


def test_llsvm_kmeans_landmarks_are_the_kmeans_centres():
    X, y = concentric_circles(300, random_state=0)
    model = LowRankLinearizedSVC(budget=12, landmarks="kmeans", random_state=0).fit(X, y)
    seed = int(np.random.default_rng(0).integers(np.iinfo(np.int32).max))
    centres = KMeans(n_clusters=12, n_init=1, random_state=seed).fit(X).cluster_centers_
    np.testing.assert_allclose(model.landmarks_, centres, rtol=1e-12)
    K = kernel_matrix(centres, gamma=model.gamma_)
    np.testing.assert_allclose(model.normalization_ @ K @ model.normalization_, np.eye(12),
                               atol=1e-6)


def test_llsvm_random_landmarks_are_training_points():
    X, y = concentric_circles(200, random_state=0)
    model = LowRankLinearizedSVC(budget=15, random_state=0).fit(X, y)
    assert len(model.landmarks_) == 15
    assert all(np.any(np.all(X == landmark, axis=1)) for landmark in model.landmarks_)
    assert model.score(X, y) > 0.9


def test_llsvm_multiclass_is_one_vs_rest_linear_svm_on_the_features():
    X, y = _multiclass(300)
    model = LowRankLinearizedSVC(budget=40, gamma=1.0, tol=1e-10, max_iter=100_000,
                                 random_state=0).fit(X, y)
    Z = model._features(X)
    svc = LinearSVC(loss="hinge", fit_intercept=False, tol=1e-10, max_iter=1_000_000,
                    random_state=0).fit(Z, y)
    ratio = []
    for k in range(3):
        y_k = np.where(y == k, 1.0, -1.0)
        ours = svm_objectives(Z, y_k, np.append(model.coef_[k], 0.0), np.zeros(len(y)), 1.0)[0]
        theirs = svm_objectives(Z, y_k, np.append(svc.coef_[k], 0.0), np.zeros(len(y)), 1.0)[0]
        ratio.append(ours / theirs)
    np.testing.assert_allclose(ratio, 1.0, rtol=1e-6)
    assert model.decision_function(X).shape == (300, 3)
    assert np.mean(model.predict(X) == svc.predict(Z)) > 0.98


def test_llsvm_sparse_input_gives_the_dense_model():
    X, y = concentric_circles(200, random_state=0)
    for landmarks in ("random", "kmeans"):
        kw = dict(budget=10, landmarks=landmarks, random_state=0)
        dense = LowRankLinearizedSVC(**kw).fit(X, y)
        sparse = LowRankLinearizedSVC(**kw).fit(sp.csr_matrix(X), y)
        np.testing.assert_allclose(sparse.landmarks_, dense.landmarks_, rtol=1e-10)
        np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)),
                                   dense.decision_function(X), rtol=1e-8, atol=1e-10)


def test_llsvm_caps_the_budget_at_n_samples():
    X, y = concentric_circles(30, random_state=0)
    with pytest.warns(UserWarning, match="budget=100 is larger than n_samples=30"):
        model = LowRankLinearizedSVC(random_state=0).fit(X, y)
    assert model.landmarks_.shape == (30, 2)


@pytest.mark.parametrize("params,error,match", [
    (dict(budget=0), ValueError, "budget"), (dict(landmarks="kmedoids"), ValueError, "landmarks"),
    (dict(kernel="sigmoid"), ValueError, "kernel"), (dict(C=0.0), ValueError, "C"),
    (dict(gamma=-1.0), ValueError, "gamma"), (dict(tol=-1.0), ValueError, "tol"),
    (dict(max_iter=0), ValueError, "max_iter"), (dict(backend="cuda"), ValueError, "backend"),
])
def test_llsvm_rejects_bad_parameters(params, error, match):
    X, y = concentric_circles(50, random_state=0)
    with pytest.raises(error, match=match):
        LowRankLinearizedSVC(**params).fit(X, y)


def test_llsvm_rejects_bad_data():
    X, y = concentric_circles(50, random_state=0)
    model = LowRankLinearizedSVC(budget=5)
    with pytest.raises(TypeError, match="laplacian"):
        LowRankLinearizedSVC(kernel="laplacian").fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="one class"):
        model.fit(X, np.ones(50))
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.fit(X_inf, y)
    with pytest.raises(ValueError, match="inconsistent"):
        model.fit(X, y[:-1])


# ---- the one run loop, the one classifier face, sample weights, budgets ----

@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("maintenance", _MAINTENANCES)
@pytest.mark.parametrize("multiclass", [False, True])
def test_bsgd_iterates_do_not_depend_on_where_the_chunks_end(backend, maintenance, multiclass,
                                                             monkeypatch):
    """One iteration a chunk, with a trace every 7, against the default chunks: the same
    bits (every BSGD iteration reads and writes the state alone)."""
    X, y = _three_classes() if multiclass else (X_circ, y_circ)
    kw = dict(lam=1e-3, budget=12, maintenance=maintenance, n_iter=600, gamma=1.0,
              backend=backend, random_state=0)
    default = BudgetedKernelSGDClassifier(**kw).fit(X, y)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)
    single = BudgetedKernelSGDClassifier(record_every=7, **kw).fit(X, y)
    assert default.n_maintenance_ > 50
    np.testing.assert_array_equal(single.support_vectors_, default.support_vectors_)
    np.testing.assert_array_equal(single.dual_coef_, default.dual_coef_)
    assert single.degradation_ == default.degradation_
    assert single.n_maintenance_ == default.n_maintenance_
    assert len(single.history_["iteration"]) == 600 // 7 + 2


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("mode", _AMM_MODES)
def test_amm_iterates_do_not_depend_on_where_the_chunks_end(backend, mode, monkeypatch):
    """One iteration a chunk, with a trace every 13, against the default chunks: the same
    bits. The compiled path carries W = a V across chunks; pruning (every 97 iterations)
    and the batch epochs (240) fall inside the default chunks."""
    X, y = _multiclass()
    kw = dict(lam=0.05, budget=4, mode=mode, n_epochs=3, prune_every=97, prune_c=5.0,
              backend=backend, random_state=1)
    default = AdaptiveMultiHyperplaneClassifier(**kw).fit(X, y)
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)
    single = AdaptiveMultiHyperplaneClassifier(record_every=13, **kw).fit(X, y)
    assert default.n_hyperplanes_.sum() > 3
    np.testing.assert_array_equal(single.n_hyperplanes_, default.n_hyperplanes_)
    np.testing.assert_array_equal(single.coef_, default.coef_)
    np.testing.assert_array_equal(single.intercept_, default.intercept_)


@pytest.mark.parametrize("estimator", [
    "BudgetedKernelSGDClassifier(n_iter=10**6)",
    "AdaptiveMultiHyperplaneClassifier(n_epochs=5000, sampling='iid')",
])
def test_ctrl_c_stops_a_long_fit_within_a_second(estimator):
    """SIGINT to a child process in a fit far longer than the test (BSGD: 10^6 iterations
    with merging; AMM: 10^7 iterations) stops it within a second and leaves the estimator
    unfitted. The signal comes 2 s in, after the indices are drawn (iid for AMM: drawing
    5000 reshuffled epochs is slower, and a signal then would stop the draw, not the
    loop)."""
    import textwrap

    from conftest import assert_sigint_stops_fit

    setup = textwrap.dedent("""
        import numpy as np
        from lsl_lib.budgeted import AdaptiveMultiHyperplaneClassifier, BudgetedKernelSGDClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(2000, 200)); y = (X[:, 0] > 0).astype(int)
        BudgetedKernelSGDClassifier(n_iter=50).fit(X, y)  # compiles
        AdaptiveMultiHyperplaneClassifier(n_epochs=1).fit(X, y)
    """)
    assert_sigint_stops_fit(setup + f"model = {estimator}", "model.fit(X, y)", delay=2.0,
                            after="assert not hasattr(model, 'classes_') "
                                  "and not hasattr(model, 'n_features_in_')")


@pytest.mark.parametrize("make,desc", [
    (lambda: BudgetedKernelSGDClassifier(n_iter=100, verbose=True), "BSGD"),
    (lambda: AdaptiveMultiHyperplaneClassifier(n_epochs=1, verbose=True), "AMM"),
])
def test_verbose_shows_a_progress_bar(make, desc, monkeypatch, capsys):
    monkeypatch.setattr(run_loop, "PROGRESS_DELAY", 0.0)
    model = make().fit(X_circ, y_circ)
    assert desc in capsys.readouterr().err
    model.set_params(verbose=False).fit(X_circ, y_circ)
    assert desc not in capsys.readouterr().err


@pytest.mark.parametrize("make", [
    lambda: BudgetedKernelSGDClassifier(budget=20, random_state=0),
    lambda: AdaptiveMultiHyperplaneClassifier(lam=1e-3, budget=3, random_state=0),
    lambda: LowRankLinearizedSVC(budget=20, random_state=0),
])
def test_the_classifier_face_keeps_each_own_multiclass_form(make):
    """ScoreClassifierMixin: one model over the three classes (no one-vs-rest copies), no
    probabilities (hinge losses), predict = the class of the largest score."""
    X, y = _three_classes()
    labels = np.array(["a", "b", "c"])[y]
    model = make().fit(X, labels)
    assert isinstance(model, ScoreClassifierMixin)
    assert getattr(model, "estimators_", None) is None
    assert not hasattr(model, "predict_proba") and not hasattr(model, "predict_log_proba")
    scores = model.decision_function(X)
    assert scores.shape == (len(y), 3)
    np.testing.assert_array_equal(model.predict(X), model.classes_[scores.argmax(axis=1)])
    assert model.score(X, labels) > 0.7
    binary = make().fit(X_circ, y_circ)
    assert binary.decision_function(X_circ).shape == (len(y_circ),)


def test_a_budget_above_n_is_lowered_to_n_with_a_warning():
    """budget=10**9 would allocate (budget + 1) x d support slots; the support never
    exceeds n, so budget=n gives the same bits."""
    kw = dict(lam=1e-3, gamma=1.0, n_iter=3000, random_state=0)
    n = len(y_circ)
    with pytest.warns(UserWarning, match=f"budget=1000000000 is larger than n_samples={n}"):
        huge = BudgetedKernelSGDClassifier(budget=10**9, **kw).fit(X_circ, y_circ)
    exact = BudgetedKernelSGDClassifier(budget=n, **kw).fit(X_circ, y_circ)
    assert exact.n_maintenance_ == 0
    np.testing.assert_array_equal(huge.support_vectors_, exact.support_vectors_)
    np.testing.assert_array_equal(huge.dual_coef_, exact.dual_coef_)
    keep = np.arange(n) < 100  # with weights: the rows of positive weight
    with pytest.warns(UserWarning, match="budget=150 is larger than n_samples=100 of positive"):
        BudgetedKernelSGDClassifier(budget=150, **kw).fit(X_circ, y_circ, sample_weight=keep)


# --- sample weights ---

@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("maintenance", _MAINTENANCES)
def test_bsgd_zero_weights_are_removed_rows(backend, maintenance):
    """The draws map positions of the kept rows back to their rows, and the default lam,
    n_iter and gamma='scale' count the kept rows: with maintenance too, the same bits."""
    keep = np.random.default_rng(3).random(len(y_circ)) < 0.7
    kw = dict(budget=12, maintenance=maintenance, backend=backend, random_state=2)
    weighted = BudgetedKernelSGDClassifier(**kw).fit(X_circ, y_circ, sample_weight=keep * 1.0)
    removed = BudgetedKernelSGDClassifier(**kw).fit(X_circ[keep], y_circ[keep])
    assert weighted.n_maintenance_ > 50
    assert (weighted.lam_, weighted.gamma_, weighted.n_iter_) == \
        (removed.lam_, removed.gamma_, removed.n_iter_)
    np.testing.assert_array_equal(weighted.support_vectors_, removed.support_vectors_)
    np.testing.assert_array_equal(weighted.dual_coef_, removed.dual_coef_)


@pytest.mark.parametrize("sampling", ["iid", "permutation", "reshuffle"])
@pytest.mark.parametrize("multiclass", [False, True])
def test_bsgd_integer_weights_are_repeated_rows_until_maintenance(sampling, multiclass):
    """The same examples are drawn; a row drawn again adds to its one support slot where the
    repeated data give each copy a slot, so without maintenance the decision function is
    the same (to rounding) and the recorded weighted objective is the repeated data's."""
    X, y = _three_classes(120) if multiclass else (X_circ[:120], y_circ[:120])
    sw = np.random.default_rng(1).integers(0, 4, len(y))
    X_rep, y_rep = np.repeat(X, sw, axis=0), np.repeat(y, sw)
    kw = dict(lam=1e-3, gamma=1.0, n_iter=1500, budget=len(y_rep), sampling=sampling,
              record_every=500, random_state=5)
    with pytest.warns(UserWarning, match="budget="):  # lowered to the rows of positive weight
        weighted = BudgetedKernelSGDClassifier(**kw).fit(X, y, sample_weight=sw)
    repeated = BudgetedKernelSGDClassifier(**kw).fit(X_rep, y_rep)
    assert weighted.n_maintenance_ == repeated.n_maintenance_ == 0
    assert len(weighted.support_vectors_) < len(repeated.support_vectors_)
    np.testing.assert_allclose(weighted.decision_function(X_circ),
                               repeated.decision_function(X_circ), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weighted.history_["objective"], repeated.history_["objective"],
                               rtol=1e-10)
    targets = np.where(y > 0, 1.0, -1.0) if not multiclass else y * 1.0
    sv, coef = support_and_coefficients(*bsgd(X, targets, 1e-3, 1500, len(y_rep),
                                               n_classes=3 if multiclass else 2, gamma=1.0,
                                               sampling=sampling, sample_weight=sw,
                                               random_state=5)[:1], 1e-3)
    assert weighted.history_["objective"][-1] == pytest.approx(
        bsgd_objective(X, targets, 1e-3, sv, coef, gamma=1.0, sample_weight=sw), rel=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("mode", _AMM_MODES)
def test_amm_zero_weights_are_removed_rows(backend, mode):
    """An epoch is the rows of positive weight, the draws are the kept data's, and pruning
    and the batch assignments fall on the same iterations: the same bits."""
    X, y = _multiclass()
    keep = np.random.default_rng(3).random(len(y)) < 0.7
    kw = dict(lam=0.05, budget=4, mode=mode, n_epochs=3, prune_every=97, prune_c=5.0,
              backend=backend, random_state=1)
    weighted = AdaptiveMultiHyperplaneClassifier(**kw).fit(X, y, sample_weight=keep * 1.0)
    removed = AdaptiveMultiHyperplaneClassifier(**kw).fit(X[keep], y[keep])
    assert weighted.n_hyperplanes_.sum() > 3
    np.testing.assert_array_equal(weighted.n_hyperplanes_, removed.n_hyperplanes_)
    np.testing.assert_array_equal(weighted.coef_, removed.coef_)
    np.testing.assert_array_equal(weighted.intercept_, removed.intercept_)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("sampling", ["iid", "permutation", "reshuffle"])
def test_amm_integer_weights_are_repeated_rows_online(backend, sampling):
    """Online AMM keeps no state per example: for the same number of iterations, integer
    weights give the bits of the repeated rows. The weights 0, 1, 3, 2, 2 (tiled) sum to
    twice the rows of positive weight, so two weighted epochs are one repeated epoch."""
    X, y = _multiclass(250)
    sw = np.tile([0, 1, 3, 2, 2], 50)
    X_rep, y_rep = np.repeat(X, sw, axis=0), np.repeat(y, sw)
    kw = dict(lam=0.05, budget=4, prune_every=97, prune_c=5.0, sampling=sampling,
              backend=backend, record_every=100, random_state=1)
    weighted = AdaptiveMultiHyperplaneClassifier(n_epochs=2, **kw).fit(X, y, sample_weight=sw)
    repeated = AdaptiveMultiHyperplaneClassifier(n_epochs=1, **kw).fit(X_rep, y_rep)
    assert weighted.n_hyperplanes_.sum() > 3
    np.testing.assert_array_equal(weighted.coef_, repeated.coef_)
    np.testing.assert_array_equal(weighted.intercept_, repeated.intercept_)
    np.testing.assert_array_equal(weighted.history_["iteration"], repeated.history_["iteration"])
    np.testing.assert_allclose(weighted.history_["objective"], repeated.history_["objective"],
                               rtol=1e-12)


@pytest.mark.parametrize("landmarks", ["random", "kmeans"])
@pytest.mark.parametrize("multiclass", [False, True])
def test_llsvm_zero_weights_are_removed_rows(landmarks, multiclass):
    X, y = _multiclass(300) if multiclass else concentric_circles(300, random_state=0)
    keep = np.random.default_rng(3).random(len(y)) < 0.7
    kw = dict(budget=15, landmarks=landmarks, random_state=0)
    weighted = LowRankLinearizedSVC(**kw).fit(X, y, sample_weight=keep * 1.0)
    removed = LowRankLinearizedSVC(**kw).fit(X[keep], y[keep])
    np.testing.assert_array_equal(weighted.landmarks_, removed.landmarks_)
    np.testing.assert_array_equal(weighted.coef_, removed.coef_)
    np.testing.assert_array_equal(weighted.decision_function(X), removed.decision_function(X))


def test_llsvm_integer_weights_reach_the_optimum_of_the_repeated_rows():
    """Per-example C s_i: the box of alpha_i is [0, C s_i], the repeated copies' boxes add up
    to it. With every row a landmark both feature maps give the exact kernel on the
    training rows (and the same Nystrom kernel elsewhere), so both solve the same kernel
    SVM, whose decision function is unique."""
    X, y = concentric_circles(60, noise=0.15, random_state=0)
    sw = np.random.default_rng(2).integers(0, 4, len(y))
    X_rep, y_rep = np.repeat(X, sw, axis=0), np.repeat(y, sw)
    X_new = concentric_circles(100, noise=0.15, random_state=1)[0]
    kw = dict(budget=len(y_rep), C=0.5, gamma=5.0, tol=1e-10, max_iter=100_000, random_state=0)
    with pytest.warns(UserWarning, match="budget="):
        weighted = LowRankLinearizedSVC(**kw).fit(X, y, sample_weight=sw)
    repeated = LowRankLinearizedSVC(**kw).fit(X_rep, y_rep)
    assert len(weighted.landmarks_) == np.count_nonzero(sw) < len(repeated.landmarks_)
    for points in (X, X_new):
        np.testing.assert_allclose(weighted.decision_function(points),
                                   repeated.decision_function(points), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: BudgetedKernelSGDClassifier(budget=20, random_state=0),
    # lam = 1e-2: at 1e-3 AMM's last iterate swings by tens of points from step to step
    lambda: AdaptiveMultiHyperplaneClassifier(lam=1e-2, budget=3, random_state=0),
    lambda: LowRankLinearizedSVC(budget=20, random_state=0),
])
def test_unit_weights_change_nothing_and_heavier_classes_win(make):
    X, y = make_blobs(400, centers=[[0, 0], [1.5, 0]], cluster_std=1.0, random_state=0)
    plain = make().fit(X, y)
    ones = np.ones(len(y))
    unit = make().fit(X, y, sample_weight=ones)
    np.testing.assert_array_equal(unit.decision_function(X), plain.decision_function(X))
    assert np.all(ones == 1)  # not modified
    heavy = make().fit(X, y, sample_weight=np.where(y == 1, 5.0, 1.0))
    assert np.mean(heavy.predict(X) == 1) > np.mean(plain.predict(X) == 1) + 0.1


@pytest.mark.parametrize("make", [BudgetedKernelSGDClassifier, AdaptiveMultiHyperplaneClassifier,
                                  LowRankLinearizedSVC])
@pytest.mark.parametrize("sample_weight,match", [
    (np.zeros(40), "non-zero"),
    (-np.ones(40), "Negative"),
    (np.ones(39), "shape"),
    (np.r_[np.ones(20), np.zeros(20)] * (_y == _y[0]), "one class"),
    (np.full(40, np.nan), "NaN"),
])
def test_bad_sample_weight_is_named_before_any_work(make, sample_weight, match, forbid):
    forbid(bsgd_module, "_bsgd_numba_chunk", "bsgd_numpy_chunk")
    forbid(amm_module, "_amm_numba_chunk", "amm_numpy_chunk")
    forbid(llsvm_module, "dual_cd")
    with pytest.raises(ValueError, match=match):
        make().fit(_X, _y, sample_weight=sample_weight)


@pytest.mark.parametrize("make", [BudgetedKernelSGDClassifier, AdaptiveMultiHyperplaneClassifier])
def test_non_integer_weights_need_iid_draws(make):
    sw = np.random.default_rng(0).uniform(0.5, 2.0, len(y_circ))
    with pytest.raises(ValueError, match="sampling='reshuffle' needs integer sample weights"):
        make(sampling="reshuffle").fit(X_circ, y_circ, sample_weight=sw)
    model = make(sampling="iid", random_state=0).fit(X_circ, y_circ, sample_weight=sw)
    assert model.score(X_circ, y_circ) > 0.6


def test_bsgd_default_lam_is_svc_c_one_with_the_weights():
    sw = np.random.default_rng(0).integers(1, 4, len(y_circ)).astype(float)
    model = BudgetedKernelSGDClassifier(n_iter=10, random_state=0).fit(X_circ, y_circ,
                                                                       sample_weight=sw)
    assert model.lam_ == 1.0 / sw.sum()  # SVC(C=1): lam = 1 / (C sum_i s_i)


# --- absurd sizes and badly scaled features ---

def test_more_iterations_than_can_be_drawn_are_refused_before_any_work(forbid):
    """AMM with n_epochs=10**9 would run for ever (interruptible). The examples of all T
    iterations are drawn up front, so T is bounded, and the error names the estimator's
    own parameter (n_epochs for AMM, n_iter for BSGD) and its largest value."""
    forbid(amm_module, "_amm_numba_chunk", "amm_numpy_chunk")
    forbid(bsgd_module, "_bsgd_numba_chunk", "bsgd_numpy_chunk")
    X, y = _xor(50)
    with pytest.raises(ValueError, match=r"n_epochs=1000000000 over 50 examples .*lower "
                                         r"n_epochs to at most 21474836\b"):
        AdaptiveMultiHyperplaneClassifier(n_epochs=10**9).fit(X, y)
    with pytest.raises(ValueError, match=r"n_iter=2147483649 .*lower n_iter to at most "
                                         r"1073741824\b"):
        BudgetedKernelSGDClassifier(n_iter=2**31 + 1).fit(X, y)


@pytest.mark.parametrize("make", [lambda: BudgetedKernelSGDClassifier(budget=30, random_state=0),
                                  lambda: LowRankLinearizedSVC(budget=30, random_state=0)])
def test_a_flat_kernel_is_named_and_standardising_cures_it(make):
    """Ten constant columns of 1e3 inflate gamma='scale' (the variance of all entries of
    X) until the kernel is constant and the model predicts the majority class. The fit says
    so and names the cure; standardised features fit without a warning."""
    import warnings

    X_test, y_test = concentric_circles(600, noise=0.15, random_state=1)
    pad = np.full((len(X_circ), 10), 1e3)
    with pytest.warns(UserWarning, match="nearly constant.*StandardScaler"):
        flat = make().fit(np.hstack([X_circ, pad]), y_circ)
    assert flat.gamma_ < 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cured = make_pipeline(StandardScaler(), make()).fit(np.hstack([X_circ, pad]), y_circ)
        plain = make().fit(X_circ, y_circ)
    X_test_pad = np.hstack([X_test, np.full((len(X_test), 10), 1e3)])
    assert cured.score(X_test_pad, y_test) > 0.9 and plain.score(X_test, y_test) > 0.9
    with pytest.warns(UserWarning, match="a constant part dominates"):
        BudgetedKernelSGDClassifier(kernel="linear", maintenance="removal", budget=10,
                                    random_state=0).fit(np.hstack([X_circ, pad]), y_circ)


def test_llsvm_is_left_unfitted_by_ctrl_c(monkeypatch):
    """Ctrl-C in its dual coordinate descent (or k-means, or the map) leaves LLSVM unfitted,
    not holding the model of an earlier fit."""
    model = LowRankLinearizedSVC(budget=10, random_state=0).fit(X_circ, y_circ)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(llsvm_module, "dual_cd", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X_circ, y_circ)
    assert not hasattr(model, "coef_") and not hasattr(model, "landmarks_")
    assert not hasattr(model, "classes_")
