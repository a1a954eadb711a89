"""Budgeted kernel machines: test error and time against the budget B on ijcnn1, beside an
exact RBF SVM and linear Pegasos, BSGD's compiled path against its numpy reference, and the
BudgetedSVM paper's tables.

- Data: ijcnn1 (49 990 training rows, 22 features, 91 701 test rows) and a9a (32 561
  training rows, 123 binary features, 16 281 test rows) from ../shared/data
  (``lsl_lib.datasets.load_shared``). Without them, :func:`load_problem` generates sets of
  the same shape (:func:`same_shape`) and the rows say so; their errors are not comparable
  with the paper's.
- Budgeted machines on ijcnn1, B in {50, 100, 200, 500}: BSGD (removal, projection up to
  B = 100, merging), AMM (batch, online; B hyperplanes per class at most) and LLSVM (random
  and k-means landmarks), settings in :func:`budgeted_models`; test error, fit and predict
  times, model size. Target of the issue: within 1 point of the notes' AMM row on ijcnn1
  (2.40 %) with B <= 500, for the best budgeted machine and for AMM itself.
- Exact RBF SVM: scikit-learn's ``SVC`` (libsvm's SMO, the exact kernel machine) on all the
  training rows, ijcnn1 with C = 10, gamma = 1 and a9a with C = 1, gamma = 0.05 (1.01 % and
  14.91 % test error measured here); linear Pegasos: ``lsl_lib.pegasos.PegasosClassifier``,
  hinge loss, five epochs, the lambda in :data:`PEGASOS_LAM`. a9a has these two rows only.
- Speed: BSGD's numba path against its numpy reference, one epoch of the first 5 000 rows of
  ijcnn1 (same indices, identical models), per maintenance strategy; target 10x.
- Times are wall-clock seconds of one run in one process (the speed rows: paired repeats);
  on a shared machine they are noisy, and the README section says when that was so.

The paper's tables live here, in one place, and the lecture (notebooks/14) imports them:
:data:`COMPLEXITY` (training time, prediction time and model size) and
:data:`PAPER_RESULTS` (test error and training time). Every entry carries its status:
what was checked against the paper and what was not.
"""
import time

import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC

from common import progress, ratio_row, timed
from lsl_lib.budgeted import (PROJECTION_JITTER, AdaptiveMultiHyperplaneClassifier,
                              BudgetedKernelSGDClassifier, LowRankLinearizedSVC)
from lsl_lib.datasets import load_shared, shared_data_dir
from lsl_lib.kernels import kernel_matrix
from lsl_lib.pegasos import PegasosClassifier

PAPER = ("N. Djuric, L. Lan, S. Vucetic, Z. Wang. BudgetedSVM: a toolbox for scalable SVM "
         "approximations. Journal of Machine Learning Research 14, 2013, 3813-3817")

#: Symbols of :data:`COMPLEXITY`.
COMPLEXITY_SYMBOLS = {
    "N": "training examples", "D": "features", "S": "non-zero features of an example (S = D "
    "for dense data)", "C": "classes", "B": "budget: hyperplanes per class (AMM), support "
    "vectors (BSGD), landmarks (LLSVM)", "N_SV": "support vectors of the exact SVM, which grows "
    "linearly with N on noisy data (Steinwart 2003)",
}

#: Orders of training time (one epoch of the SGD methods), prediction time (one example) and
#: model size. Status: written here from the algorithms as the paper's Section 2 describes
#: them; they are meant to be the rows of the paper's complexity table (Table 1), which could
#: not be read from here: check them against the printed table before quoting them as the
#: paper's.
COMPLEXITY = {
    "Pegasos": dict(training="O(N C S)", prediction="O(C S)", model="O(C D)"),
    "AMM": dict(training="O(N C B S)", prediction="O(C B S)", model="O(C B D)"),
    "LLSVM": dict(training="O(N B S + N B² + B³)", prediction="O(B S + B²)",
                  model="O(B D + B²)"),
    "BSGD": dict(training="O(N B S)", prediction="O(B S)", model="O(B D)"),
    "RBF-SVM": dict(training="O(N² S) to O(N³ S)", prediction="O(N_SV S)",
                    model="O(N_SV D)"),
}
COMPLEXITY_STATUS = ("written from the algorithms (BudgetedSVM, Section 2); not checked against "
                     "the paper's Table 1")

#: (data set, method) -> dict(error=% or None, seconds=training s or None, status=...).
#: Only the values whose source could be read are filled; None means "not verified".
PAPER_RESULTS = {
    ("ijcnn1", "AMM"): dict(
        error=2.40, seconds=None,
        status="as the lecture notes quote the BudgetedSVM results table; not checked "
               "against the paper"),
    **{(data, method): dict(error=None, seconds=None,
                            status="not verified: the paper's results table could not be "
                                   "read from here")
       for data in ("a9a", "ijcnn1") for method in ("AMM batch", "AMM online", "Pegasos",
                                                    "Poly2 SVM", "RBF SVM")},
}

#: The target of the issue: within 1 point of the notes' AMM row on ijcnn1, with B <= 500.
TARGET_ERROR = PAPER_RESULTS[("ijcnn1", "AMM")]["error"] + 1.0

#: Exact RBF SVM settings (C, gamma) and linear Pegasos' lambda per data set.
SVC_PARAMS = {"ijcnn1": dict(C=10.0, gamma=1.0), "a9a": dict(C=1.0, gamma=0.05)}
PEGASOS_LAM = {"ijcnn1": 1e-5, "a9a": 1e-5}

#: (training rows, test rows, features, fraction of positives) of the real sets.
SHAPES = {"ijcnn1": (49990, 91701, 22, 0.097), "a9a": (32561, 16281, 123, 0.241)}


def same_shape(name, n_train, n_test, random_state=0):
    """A generated set shaped as ``name``: its features and its share of positives.

    - 'ijcnn1': 22 dense features, four uniform in [-1, 1] and 18 of small spread (standard
      deviation 0.05, as most of ijcnn1's columns); the positives (about 10 %) are the
      points inside a ball around a corner of the first four, a non-linear class no
      hyperplane separates, with 2 % of the labels flipped.
    - 'a9a': 123 binary features as one-hot codes of 14 categorical variables (a9a's
      encoding of the Adult census), CSR; the positives (about 24 %) follow a logistic
      score with a pairwise interaction of two variables.

    Returns
    -------
    X, y, X_test, y_test : arrays (CSR for 'a9a'), labels in {-1, +1}
    """
    rng = np.random.default_rng(random_state)
    n = n_train + n_test
    if name == "ijcnn1":
        X = np.column_stack([rng.uniform(-1.0, 1.0, size=(n, 4)),
                             rng.normal(0.0, 0.05, size=(n, 18))])
        distance = np.linalg.norm(X[:, :4] - 0.45, axis=1)
        y = np.where(distance < np.quantile(distance, 0.1), 1.0, -1.0)
        flip = rng.random(n) < 0.02
        y[flip] = -y[flip]
    elif name == "a9a":
        sizes = np.array([9] * 13 + [123 - 9 * 13])  # 14 variables, 123 columns
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        codes = np.column_stack([rng.integers(0, s, n) for s in sizes])
        cols = (codes + offsets).ravel()
        rows = np.repeat(np.arange(n), len(sizes))
        X = sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(n, 123))
        effects = rng.normal(0.0, 1.0, size=123)
        score = X @ effects + 1.5 * ((codes[:, 0] < 3) & (codes[:, 1] < 3))
        y = np.where(score > np.quantile(score, 1 - SHAPES["a9a"][3]), 1.0, -1.0)
    else:
        raise ValueError(f"name must be 'ijcnn1' or 'a9a', got {name!r}")
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def load_problem(name, n_train=None, n_test=None, random_state=0):
    """ijcnn1 or a9a from the shared data, or :func:`same_shape` when they are absent.

    ``n_train`` / ``n_test`` keep the first rows of a uniform random permutation (all rows
    when None; the generated sets then have the real sets' sizes).

    Returns
    -------
    X, y, X_test, y_test, source : arrays and 'shared data' or 'generated, same shape'
    """
    if shared_data_dir() is not None:
        X, y = load_shared(name)
        X_test, y_test = load_shared(name, "test")
        source = "shared data"
    else:
        full_train, full_test = SHAPES[name][:2]
        X, y, X_test, y_test = same_shape(name, n_train or full_train, n_test or full_test,
                                          random_state)
        source = "generated, same shape"
    rng = np.random.default_rng(random_state)
    if n_train is not None and n_train < X.shape[0]:
        keep = rng.permutation(X.shape[0])[:n_train]
        X, y = X[keep], y[keep]
    if n_test is not None and n_test < X_test.shape[0]:
        keep = rng.permutation(X_test.shape[0])[:n_test]
        X_test, y_test = X_test[keep], y_test[keep]
    if name == "ijcnn1" and sp.issparse(X):  # 22 dense features: dense rows are faster
        X, X_test = X.toarray(), X_test.toarray()
    return X, y, X_test, y_test, source


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
#: LLSVM; five epochs of BSGD (BudgetedSVM's default ``-e 5``: two leave it a few points short on
#: 3 000-row subsamples).
BUDGETED_C = 10.0
BSGD_EPOCHS = 5
#: AMM: chosen on ijcnn1's training rows alone (40 000 to train, 9 990 to validate, a permutation
#: with seed 1, B = 50) over lam in {1e-4, 1e-5, 1e-6}, prune_c in {1, 10, 100}, 5 or 20 epochs:
#: validation error 2.28 % (online) and 2.62 % (batch) here, against 3.60 % and 3.74 % with
#: BudgetedSVM's defaults (lam = 1e-4, c = 10, 5 epochs); pruning every 10 000 steps and a bias
#: feature as the toolbox.
AMM_PARAMS = dict(lam=1e-5, prune_c=1.0, n_epochs=20)
PROJECTION_MAX_BUDGET = 100  # projection costs O(B³) per maintenance
#: LLSVM's dual coordinate descent stops at this tolerance: at 1e-4 (the default) and C = 10 it
#: stops at max_iter on ijcnn1 subsamples with a duality gap within a factor 2 of the tolerance.
LLSVM_TOL = 1e-3


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
    for mode in ("batch", "online"):
        models[f"AMM ({mode})"] = AdaptiveMultiHyperplaneClassifier(
            budget=budget, mode=mode, **AMM_PARAMS, random_state=0)
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
                         f"AMM {TARGET_ERROR - 1:.2f} % (+1 point); {conditions}",
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
