"""Budgeted kernel machines: test error and time against the budget B on ijcnn1, beside an
exact RBF SVM and linear Pegasos, and BSGD's compiled path against its numpy reference.

- Data: ijcnn1 (49 990 training rows, 22 features, 91 701 test rows) and a9a (32 561
  training rows, 123 binary features, 16 281 test rows) from the shared data sets
  (``lsl_lib.datasets.load_shared``; set ``LSL_SHARED_DATA``). Without them,
  ``common.load_problem`` generates sets of the same shape (``lsl_lib.datasets.same_shape``)
  and the rows say so; their errors are not comparable with the paper's.
- Budgeted machines on ijcnn1, B in {50, 100, 200, 500}: BSGD (removal, projection up to
  B = 100, merging), AMM (batch, online; B hyperplanes per class at most) and LLSVM (random
  and k-means landmarks), settings in :func:`budgeted_models` (chosen on ijcnn1); test error,
  fit and predict times, model size. Target: within 1 point of the notes' AMM batch row on
  ijcnn1 (2.40 %) with B <= 500, for the best budgeted machine and for AMM.
- Exact RBF SVM: scikit-learn's ``SVC`` (libsvm's SMO, the exact kernel machine) on all the
  training rows, ijcnn1 with C = 10, gamma = 1 and a9a with C = 1, gamma = 0.05; linear
  Pegasos: ``lsl_lib.pegasos.PegasosClassifier``, hinge loss, five epochs, the lambda in
  :data:`PEGASOS_LAM`. a9a has these two rows only.
- Speed: BSGD's numba path against its numpy reference, one epoch of the first 5 000 rows of
  ijcnn1 (same indices, identical models), per maintenance strategy; target 10x.
- The notes' BudgetedSVM tables live in ``lsl_lib.papers``; ``benchmarks/reproduce.py
  budgeted`` measures lsl's rows beside them.
- Times are wall-clock seconds of one run in one process (the speed rows: paired repeats);
  on a shared machine they are noisy, and the README section says when that was so.
"""
import time

import numpy as np
from sklearn.svm import SVC

from benchmarks.common import BSGD_EPOCHS, LLSVM_TOL, load_problem, progress, ratio_row, timed
from lsl_lib.budgeted import (PROJECTION_JITTER, AdaptiveMultiHyperplaneClassifier,
                              BudgetedKernelSGDClassifier, LowRankLinearizedSVC)
from lsl_lib.kernels import kernel_matrix
from lsl_lib.papers import PAPER_RESULTS
from lsl_lib.pegasos import PegasosClassifier

#: A budgeted machine within 1 point of the notes' AMM batch row on ijcnn1 (2.40 %), with
#: B <= 500.
TARGET_ERROR = PAPER_RESULTS[("ijcnn1", "AMM batch")]["error"] + 1.0

#: Exact RBF SVM settings (C, gamma) and linear Pegasos' lambda per data set.
SVC_PARAMS = {"ijcnn1": dict(C=10.0, gamma=1.0), "a9a": dict(C=1.0, gamma=0.05)}
PEGASOS_LAM = {"ijcnn1": 1e-5, "a9a": 1e-5}


def evaluate(model, X, y, X_test, y_test):
    """Fit once and predict the test set once: dict(error=%, fit_seconds, predict_seconds)."""
    start = time.perf_counter()
    model.fit(X, y)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(X_test)
    predict_seconds = time.perf_counter() - start
    return dict(error=100.0 * float(np.mean(predicted != y_test)), fit_seconds=fit_seconds,
                predict_seconds=predict_seconds)


def baselines(name, n_train):
    """The models that need no budget: label -> estimator (unfitted)."""
    lam = PEGASOS_LAM[name]
    return {"RBF SVC (exact)": SVC(**SVC_PARAMS[name]),
            "linear Pegasos": PegasosClassifier(lam=lam, n_iter=5 * n_train, random_state=0)}


def _row(name, value, note, target=None, met=None):
    return dict(name=name, min=value, median=value, max=value, target=target, met=met, note=note)


def baseline_rows(name, n_train=None, n_test=None):
    X, y, X_test, y_test, source = load_problem(name, n_train, n_test)
    rows = []
    for label, model in baselines(name, X.shape[0]).items():
        result = evaluate(model, X, y, X_test, y_test)
        extra = f", {len(model.support_):,} support vectors" if hasattr(model, "support_") else ""
        rows.append(_row(
            f"{label}: test error, % ({name})", result["error"],
            f"{source}: n={X.shape[0]:,}, d={X.shape[1]}, {X_test.shape[0]:,} test rows; fit "
            f"{result['fit_seconds']:.2f} s, predict {result['predict_seconds']:.2f} s{extra}"))
    return rows


#: Budgeted machines: the exact SVM's kernel width, C = 10 (lam = 1 / (C n)) for BSGD and
#: LLSVM; ``common.BSGD_EPOCHS`` epochs of BSGD, ``common.LLSVM_TOL`` for LLSVM.
BUDGETED_C = 10.0
#: AMM: chosen on ijcnn1's training rows alone (40 000 to train, 9 990 to validate, a permutation
#: with seed 1, B = 50) over lam in {1e-4, 1e-5, 1e-6}, prune_c in {1, 10, 100}, 5 or 20 epochs:
#: validation error 2.28 % (online) and 2.62 % (batch) here, against 3.60 % and 3.74 % with
#: BudgetedSVM's defaults (lam = 1e-4, c = 10, 5 epochs); pruning every 10 000 steps and a bias
#: feature as the toolbox.
#: Per data set: AMM's settings do not carry over (on a9a these give 24.8 %, worse than the
#: majority class; ``reproduce.py budgeted`` chooses a9a's on its own validation split).
AMM_PARAMS = {"ijcnn1": dict(lam=1e-5, prune_c=1.0, n_epochs=20)}
PROJECTION_MAX_BUDGET = 100  # projection costs O(B³) per maintenance


def budgeted_models(name, n_train, budget):
    """Label -> unfitted budgeted model with budget B (per class for AMM)."""
    gamma = SVC_PARAMS[name]["gamma"]
    lam = 1.0 / (BUDGETED_C * n_train)
    models = {}
    for maintenance in ("removal", "projection", "merging"):
        if maintenance == "projection" and budget > PROJECTION_MAX_BUDGET:
            continue
        models[f"BSGD ({maintenance})"] = BudgetedKernelSGDClassifier(
            lam=lam, budget=budget, maintenance=maintenance, n_iter=BSGD_EPOCHS * n_train,
            gamma=gamma, random_state=0)
    for mode in ("batch", "online") if name in AMM_PARAMS else ():
        models[f"AMM ({mode})"] = AdaptiveMultiHyperplaneClassifier(
            budget=budget, mode=mode, **AMM_PARAMS[name], random_state=0)
    for landmarks in ("random", "kmeans"):
        models[f"LLSVM ({landmarks})"] = LowRankLinearizedSVC(
            budget=budget, landmarks=landmarks, gamma=gamma, C=BUDGETED_C, tol=LLSVM_TOL,
            random_state=0)
    return models


def budget_results(name, budgets, n_train=None, n_test=None, methods=None):
    """Test error and times of every budgeted model at every B, and of the baselines:
    a list of dicts (method, budget, error, fit_seconds, predict_seconds, size), and the
    source of the data. ``methods``: the labels to run (all when None)."""
    X, y, X_test, y_test, source = load_problem(name, n_train, n_test)
    results = []
    for label, model in baselines(name, X.shape[0]).items():
        if methods is not None and label not in methods:
            continue
        result = evaluate(model, X, y, X_test, y_test)
        size = len(model.support_) if hasattr(model, "support_") else 1  # support or 1 hyperplane
        results.append(dict(method=label, budget=None, size=size, **result))
    for budget in budgets:
        for label, model in budgeted_models(name, X.shape[0], budget).items():
            if methods is not None and label not in methods:
                continue
            result = evaluate(model, X, y, X_test, y_test)
            if hasattr(model, "n_hyperplanes_"):
                size = int(model.n_hyperplanes_.sum())
            elif hasattr(model, "support_vectors_"):
                size = len(model.support_vectors_)
            else:
                size = len(model.landmarks_)
            results.append(dict(method=label, budget=budget, size=size, **result))
    return results, dict(source=source, n_train=X.shape[0], n_test=X_test.shape[0],
                         n_features=X.shape[1])


def budget_rows(name, budgets, n_train=None, n_test=None):
    results, data = budget_results(name, budgets, n_train, n_test)
    rows = []
    for r in results:
        at = "" if r["budget"] is None else f", B={r['budget']}"
        rows.append(_row(f"{r['method']}{at}: test error, % ({name})", r["error"],
                         f"fit {r['fit_seconds']:.2f} s, predict {r['predict_seconds']:.2f} s, "
                         f"model size {r['size']}"))
    budgeted = [r for r in results if r["budget"] is not None]
    best = min(budgeted, key=lambda r: r["error"])
    amm = min((r for r in budgeted if r["method"].startswith("AMM")), key=lambda r: r["error"])
    conditions = (f"{data['source']}: n={data['n_train']:,}, d={data['n_features']}, "
                  f"{data['n_test']:,} test rows")
    for label, r in (("best budgeted machine", best), ("best AMM", amm)):
        margin = TARGET_ERROR - r["error"]
        rows.append(_row(f"{label} with B <= {max(budgets)}: {TARGET_ERROR:.2f} - error, points "
                         f"({name})", margin,
                         f"{r['method']}, B={r['budget']}: {r['error']:.2f} % against the notes' "
                         f"AMM batch {TARGET_ERROR - 1:.2f} % (+1 point); {conditions}",
                         target=0.0, met=margin >= 0.0))
    return rows


def speed_rows(n_rows, budget, repeats):
    """BSGD's numba path against its numpy reference on the first ``n_rows`` rows of ijcnn1
    (same indices, identical models): one row per maintenance strategy."""
    X, y = load_problem("ijcnn1", n_rows)[:2]
    rows = []
    for maintenance in progress(("removal", "projection", "merging"), desc="BSGD speed"):
        def fit(backend, maintenance=maintenance):
            return lambda: BudgetedKernelSGDClassifier(
                lam=1.0 / (BUDGETED_C * len(y)), budget=budget, maintenance=maintenance,
                n_iter=len(y), gamma=SVC_PARAMS["ijcnn1"]["gamma"], backend=backend,
                random_state=0).fit(X, y)

        models = [fit(backend)() for backend in ("numpy", "numba")]
        np.testing.assert_allclose(models[0].dual_coef_, models[1].dual_coef_, rtol=1e-10,
                                   atol=1e-12)
        numpy_times = timed(fit("numpy"), repeats)
        numba_times = timed(fit("numba"), repeats)
        rows.append(ratio_row(
            f"BSGD numba / numpy reference ({maintenance}, B={budget}, n={len(y)})",
            numpy_times, numba_times, target=10.0,
            note=f"one epoch, {models[1].n_maintenance_} maintenances; identical models "
                 f"(rtol 1e-10)"))
        if maintenance == "projection":
            floor_times = timed(_projection_floor(models[1], budget), repeats)
            rows.append(ratio_row(
                "  projection: numpy reference / floor (the ceiling of the ratio)", numpy_times,
                floor_times, note="floor: the maintenances' own work at BLAS/LAPACK speed, "
                                  "which both paths must do (K_RR and its Cholesky factor)"))
            rows.append(ratio_row("  projection: numba / floor", numba_times, floor_times))
    return rows


def _projection_floor(model, budget):
    """What every projection does whichever path runs it, at BLAS/LAPACK speed: the
    (B - 1) x (B - 1) kernel matrix of the remaining support vectors and its Cholesky
    factor, once per maintenance of ``model``'s run."""
    S = model.support_vectors_[:budget - 1]
    gamma, count = model.gamma_, model.n_maintenance_

    def floor():
        for _ in range(count):
            K = kernel_matrix(S, None, "gaussian", gamma)
            K[np.diag_indices_from(K)] += PROJECTION_JITTER
            np.linalg.cholesky(K)
    return floor


def run(quick=False):
    rows = speed_rows(n_rows=1000 if quick else 5000, budget=50 if quick else 100,
                      repeats=1 if quick else 3)
    if quick:
        return rows + budget_rows("ijcnn1", (50,), n_train=2000, n_test=5000)
    rows += budget_rows("ijcnn1", (50, 100, 200, 500))
    return rows + baseline_rows("a9a")
