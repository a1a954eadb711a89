"""Pegasos against its numpy reference and against scikit-learn's SGDClassifier.

- numba vs numpy: the same T iterations (batch_size=1) on dense n=100k, d=100;
  target: the compiled loop at least 20x faster.
- time to relative primal suboptimality <= 1e-2: each solver's smallest budget on a
  grid of epochs that reaches (f(w) - f*) / f* <= 1e-2 (f* from liblinear at
  tolerance 1e-8), then that fit timed; target: lsl <= 0.7x SGDClassifier's time,
  i.e. a ratio sklearn/lsl >= 1/0.7. Dense n=100k, d=100 with lam = 10/n = 1e-4, and
  a9a (sparse, d=123) with lam = 1e-4.
"""
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier

from benchmarks.common import progress, ratio_row, timed
from lsl_lib.datasets import linear_teacher, load_shared, shared_data_dir
from lsl_lib.losses import get_loss, primal_objective
from lsl_lib.pegasos import PegasosClassifier, reference_solution

HINGE = get_loss("hinge")
EPOCHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def numba_vs_numpy(quick):
    n, d = (20_000, 100) if quick else (100_000, 100)
    X, y = linear_teacher(n, d, label_noise=0.1, random_state=0)
    T = n if quick else 100_000

    def fit(backend):
        return lambda: PegasosClassifier(lam=1e-4, n_iter=T, fit_intercept=False, averaging="none",
                                         backend=backend, random_state=0).fit(X, y)

    repeats = 1 if quick else 3
    numpy_times = timed(fit("numpy"), repeats)
    numba_times = timed(fit("numba"), repeats)
    return ratio_row(f"Pegasos numba / numpy reference (n={n}, d={d}, k=1)", numpy_times,
                     numba_times, target=20.0)


def _first_budget(make, X, y, lam, f_star, target=1e-2):
    """The smallest epoch count whose fit reaches the relative suboptimality target."""
    for epochs in progress(EPOCHS, desc="epochs"):
        model = make(epochs).fit(X, y)
        objective = primal_objective(np.atleast_2d(model.coef_), X, y, lam, HINGE)
        if (objective - f_star) / f_star <= target:
            return epochs
    raise RuntimeError("target not reached within the epoch grid")


def versus_sgdclassifier(name, X, y, lam, quick):
    n = X.shape[0]
    # scikit-learn 1.9 rejects CSR with 64-bit indices (as load_svmlight_file returns
    # them); give it 32-bit ones. lsl takes either.
    X_sk = X
    if sp.issparse(X):
        X_sk = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                             shape=X.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # f* is exact to ~1e-8 relative
        W_star = reference_solution(X, y.astype(float), lam, HINGE)
    f_star = primal_objective(W_star, X, y, lam, HINGE)

    def pegasos(averaging):
        return lambda epochs: PegasosClassifier(lam=lam, n_iter=epochs * n, averaging=averaging,
                                                fit_intercept=False, random_state=0)

    def sgd(epochs):
        return SGDClassifier(loss="hinge", alpha=lam, fit_intercept=False, max_iter=epochs,
                             tol=None, random_state=0)

    repeats = 1 if quick else 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter is the budget
        sgd_epochs = _first_budget(sgd, X_sk, y, lam, f_star)
        sgd_times = timed(lambda: sgd(sgd_epochs).fit(X_sk, y), repeats)
    rows = []
    for averaging, label in (("suffix", "suffix average"), ("none", "last iterate")):
        epochs = _first_budget(pegasos(averaging), X, y, lam, f_star)
        times = timed(
            lambda averaging=averaging, epochs=epochs: pegasos(averaging)(epochs).fit(X, y),
            repeats)
        rows.append(ratio_row(
            f"SGDClassifier / Pegasos ({label}), time to 1e-2, {name}", sgd_times, times,
            target=1 / 0.7 if averaging == "suffix" else None,
            note=f"epochs to reach 1e-2: Pegasos {epochs}, SGDClassifier {sgd_epochs}; "
                 f"lam={lam:g}"))
    return rows


def run(quick=False):
    rows = [numba_vs_numpy(quick)]
    n = 20_000 if quick else 100_000
    X, y = linear_teacher(n, 100, label_noise=0.1, random_state=0)
    rows += versus_sgdclassifier(f"dense n={n} d=100", X, y, 10 / n, quick)  # lam n = 10
    if shared_data_dir() is not None:
        X, y = load_shared("a9a")
        rows += versus_sgdclassifier("a9a (sparse, n=32561, d=123)", X, y, 1e-4, quick)
    else:
        print("(a9a skipped: set LSL_SHARED_DATA to the course's data sets)")
    return rows
