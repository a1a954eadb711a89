"""SGD, SVRG, SARAH, SARAH+: compiled loop vs numpy reference, and the effective passes
(gradient evaluations / n) each method needs to reach a suboptimality of 1e-8.

- numba vs numpy: one epoch (outer loop) of SARAH, n = 20 000, d = 50, batch size 1;
  target: the compiled loop at least 10x faster.
- passes to 1e-8: L2-regularised logistic regression (lambda = 1e-4) on a9a when
  LSL_SHARED_DATA names them, else on a synthetic linear teacher; f* by L-BFGS (tol 1e-10);
  reported (a row's min = median = max is the number of passes, not a ratio).
"""
import numpy as np

from benchmarks.common import progress, ratio_row, timed
from lsl_lib.datasets import linear_teacher, load_shared, shared_data_dir
from lsl_lib.stochastic_gradient import METHODS, StochasticGradientClassifier


def numba_vs_numpy(quick):
    n = 4000 if quick else 20_000
    X, y = linear_teacher(n, 50, label_noise=0.1, random_state=0)

    def fit(backend):
        return lambda: StochasticGradientClassifier(method="sarah", lam=1e-4, n_epochs=1,
                                                    fit_intercept=False, backend=backend,
                                                    random_state=0).fit(X, y)

    repeats = 1 if quick else 3
    return ratio_row(f"SARAH numba / numpy reference (n={n}, d=50, one outer loop)",
                     timed(fit("numpy"), repeats), timed(fit("numba"), repeats), target=10.0)


def passes_to_target(quick, target=1e-8):
    if shared_data_dir() is not None and not quick:
        name, (X, y) = "a9a", load_shared("a9a")
    else:
        name, (X, y) = "linear teacher", linear_teacher(5000, 50, label_noise=0.1, random_state=0)
    rows = []
    for method in progress(METHODS, desc="methods"):
        clf = StochasticGradientClassifier(method=method, lam=1e-4, n_epochs=30 if quick else 60,
                                           fit_intercept=False, record_every=1,
                                           reference_objective="auto", random_state=0).fit(X, y)
        h = clf.history_
        reached = np.flatnonzero(h["suboptimality"] <= target)
        passes = h["effective_passes"][reached[0]] if reached.size else np.inf
        note = (f"not reached: {h['suboptimality'][-1]:.1e} after {h['effective_passes'][-1]:.0f} "
                "passes" if not reached.size else "effective passes (not a ratio)")
        rows.append(dict(name=f"{method}: effective passes to {target:g} ({name}, logistic, "
                              "lam=1e-4)", min=passes, median=passes, max=passes, target=None,
                         met=None, note=note))
    return rows


def run(quick=False):
    return [numba_vs_numpy(quick), *passes_to_target(quick)]
