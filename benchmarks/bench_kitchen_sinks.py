"""Random kitchen sinks: the box-constrained fits against scikit-learn's unconstrained
solvers on the same random features, with the test error of each.

- Data: covtype subsample ($LSL_SHARED_DATA), class 2 (lodgepole pine) against the rest, the
  first 20 000 rows for training and the next 10 000 for testing; without the shared data,
  a synthetic problem of the same shape (54 uniform features, the sign of a random
  Gaussian-kernel expansion).
- Features: K Fourier sinks cos(w.x + b), w ~ N(0, 2 gamma I), gamma = 5 (the features of
  ``RandomKitchenSinksClassifier(feature='fourier')``), computed once; every solver gets the
  same matrix, so the rows time the solvers alone.
- Rows (ratio = peer time / lsl time; report only, no target: the solvers solve different
  problems, and the point is what the exact box costs):
  log loss, ``fit_log`` (L-BFGS-B with the box C/K, C = 100) against
  ``LogisticRegression(C=1e4, fit_intercept=False, solver='lbfgs')``;
  squared loss, ``fit_squared`` (thin QR + BVLS, box C/K) against ``Ridge(alpha=1)``;
  hinge loss, ``fit_hinge`` (HiGHS LP, box C/K) on the first 5 000 rows against
  ``LinearSVC(C=1, fit_intercept=False)``. The note gives each model's test error and how
  many weights sit on the box.
"""
import numpy as np
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.svm import LinearSVC

from benchmarks.common import progress, ratio_row, timed
from lsl_lib.datasets import load_covtype, shared_data_dir
from lsl_lib.kitchen_sinks import draw_features, feature_matrix, fit_hinge, fit_log, fit_squared

C_BOX = 100.0
GAMMA = 5.0


def covtype_binary_or_synthetic(n_train, n_test):
    """(X_train, y_train, X_test, y_test, name), labels in {-1, +1}."""
    n = n_train + n_test
    if shared_data_dir() is not None:
        X, y = load_covtype()
        X, y, name = X[:n], np.where(y[:n] == 2, 1.0, -1.0), "covtype"
    else:
        rng = np.random.default_rng(0)
        X = rng.uniform(size=(n, 54))
        centres, signs = rng.uniform(size=(50, 54)), rng.choice([-1.0, 1.0], size=50)
        y = np.sign(np.exp(-((X[:, None, :] - centres[None]) ** 2).sum(axis=2)) @ signs + 1e-12)
        name = "synthetic"
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:], name


def _error(coef, Phi, y):
    return float(np.mean(np.where(Phi @ coef > 0, 1.0, -1.0) != y))


def run(quick=False):
    n_train, n_test = (2000, 1000) if quick else (20000, 10000)
    X, y, X_test, y_test, name = covtype_binary_or_synthetic(n_train, n_test)
    repeats = 1 if quick else 3
    rows = []
    for K in progress((100,) if quick else (200, 1000), desc="sinks K"):
        params = draw_features("fourier", X, K, GAMMA, np.random.default_rng(0))
        Phi, Phi_test = (feature_matrix("fourier", X, params),
                         feature_matrix("fourier", X_test, params))
        bound = C_BOX / K
        size = f"{name} {n_train} x {K}"

        def active(coef, bound=bound):
            return int(np.sum(np.abs(coef) >= bound * (1 - 1e-6)))

        ours, peer = fit_log(Phi, y, bound)[0], LogisticRegression(
            C=1e4, fit_intercept=False, max_iter=2000).fit(Phi, y).coef_[0]
        rows.append(ratio_row(
            f"LogisticRegression / box log loss ({size})",
            timed(lambda Phi=Phi: LogisticRegression(C=1e4, fit_intercept=False,
                                                     max_iter=2000).fit(Phi, y),
                  repeats),
            timed(lambda Phi=Phi, bound=bound: fit_log(Phi, y, bound), repeats),
            note=f"test error: box (C={C_BOX:g}) {_error(ours, Phi_test, y_test):.4f}, "
                 f"{active(ours)} of {K} on the box; LogisticRegression "
                 f"{_error(peer, Phi_test, y_test):.4f}"))

        ours, peer = fit_squared(Phi, y, bound)[0], Ridge(alpha=1.0, fit_intercept=False).fit(
            Phi, y).coef_
        rows.append(ratio_row(
            f"Ridge / box least squares, QR + BVLS ({size})",
            timed(lambda Phi=Phi: Ridge(alpha=1.0, fit_intercept=False).fit(Phi, y), repeats),
            timed(lambda Phi=Phi, bound=bound: fit_squared(Phi, y, bound), repeats),
            note=f"test error: box {_error(ours, Phi_test, y_test):.4f}, {active(ours)} of {K} "
                 f"on the box; Ridge {_error(peer, Phi_test, y_test):.4f}"))

    K, n_lp = (50, 500) if quick else (200, 5000)
    params = draw_features("fourier", X, K, GAMMA, np.random.default_rng(0))
    Phi, Phi_test = feature_matrix("fourier", X[:n_lp], params), feature_matrix("fourier", X_test,
                                                                                params)
    bound = C_BOX / K
    ours = fit_hinge(Phi, y[:n_lp], bound)[0]
    peer = LinearSVC(C=1.0, fit_intercept=False, max_iter=10000).fit(Phi, y[:n_lp]).coef_[0]
    rows.append(ratio_row(
        f"LinearSVC / box hinge LP, HiGHS ({name} {n_lp} x {K})",
        timed(lambda: LinearSVC(C=1.0, fit_intercept=False, max_iter=10000).fit(Phi, y[:n_lp]),
              repeats),
        timed(lambda: fit_hinge(Phi, y[:n_lp], bound), repeats),
        note=f"test error: box {_error(ours, Phi_test, y_test):.4f}, "
             f"{int(np.sum(np.abs(ours) >= bound * (1 - 1e-6)))} of {K} on the box; "
             f"LinearSVC {_error(peer, Phi_test, y_test):.4f}"))
    return rows
