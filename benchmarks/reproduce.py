"""The papers' tables, reproduced: the paper's test error beside lsl's, with lsl's fit time.

    python -m benchmarks.reproduce                 # every row (about 5 minutes on two cores,
                                                   # and some 20 more for the budgeted table);
                                                   # prints the table and writes it into
                                                   # benchmarks/README.md
    python -m benchmarks.reproduce --no-write      # the same, printed only
    python -m benchmarks.reproduce --quick         # a smoke run on small slices (a few min);
                                                   # printed only, never written...
    python -m benchmarks.reproduce --quick --write # ...unless --write says so
    python -m benchmarks.reproduce forest pegasos  # some groups only (printed only unless --write)

Groups of rows (``ROWS``), the settings in the constants below:

- ``adult``, ``cpu``, ``forest``: Rahimi & Recht 2007, Table 1. Random Fourier features of
  the Gaussian kernel (``lsl_lib.random_features``) and least squares: ridge regression on
  the targets (±1 for classification, the sign of the score predicts), with an
  unpenalised intercept, solved from the normal equations accumulated in row blocks
  (:func:`rff_least_squares`; Z is never held whole: 75 000 × 5000 floats would be 3 GB).
  The ridge penalty alpha (and on Adult and CPU the kernel width gamma) is chosen on a
  validation split of the training rows, never on the test rows. Forest also runs random
  binning (``lsl_lib.random_binning``, P = 50) + least squares with the settings of
  ``bench_random_binning`` (``common.GAMMA_BINNING``, ``common.ALPHA_BINNING``), and both maps
  at three training-set sizes, to measure how the error moves with n (the paper trains on
  522 910 rows, the shared subsample has 92 962).
- ``pegasos``: Shalev-Shwartz et al., the linear table, cov1 (Covertype class 1 against the
  rest) with lambda = 1e-6 on the covtype subsample; Pegasos' last iterate (the paper's
  output) and lsl's suffix average, beside the optimum of the same problem by dual
  coordinate descent (C = 1/(lambda n)), with the objectives and a duality-gap bound.
- ``usps``: kernel Pegasos (the notes: 0.457 %) and doubly stochastic gradients on USPS,
  digit 0 against the rest, with libsvm's exact SVM on the same problem as a reference.
- ``budgeted``: the results table the lecture notes show on their BudgetedSVM slide (Wang
  et al. 2011, the AMM paper's Table 3), on a9a and ijcnn1: lsl's AMM batch and online,
  linear Pegasos, Poly2 SVM and RBF SVM, and the lecture's BSGD and LLSVM, every
  hyper-parameter chosen on a validation split of the training rows, five runs of the
  stochastic ones (:func:`notes_comparison`). Its own table, between the markers
  :data:`BUDGETED_BEGIN` and :data:`BUDGETED_END`; writing it also writes the rows into
  ``data/budgeted_results.csv``, the file lecture 14 prints (through
  ``lsl_lib.papers.read_budgeted_results``: the lecture does not need the data sets).

The papers' numbers come from ``lsl_lib.papers`` (the one copy, with their citations).

Data: the shared data sets when ``LSL_SHARED_DATA`` names their folder
(``lsl_lib.datasets.shared_data_dir``), else the ``fetch_*`` downloaders of
``lsl_lib.datasets`` (scikit-learn's data home); every row says where its data came from, and a
row whose data cannot be had is kept with the reason.
Progress bars (``tqdm``) go to stderr; the table goes to stdout. Seeds are fixed.

The README block lies between the two marker lines :data:`BEGIN` and :data:`END` of
``benchmarks/README.md``; :func:`write_readme` replaces exactly the text between them. The
budgeted rows are a table of their own (:func:`format_budgeted_table`), between
:data:`BUDGETED_BEGIN` and :data:`BUDGETED_END`: a run writes each table that it has rows for.
"""
import argparse
import csv
import datetime
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.linalg
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.svm import SVC

from benchmarks.common import (ALPHA_BINNING, BSGD_EPOCHS, GAMMA_BINNING, LLSVM_TOL,
                               N_TRAIN, load_problem, progress, write_between_markers)
from lsl_lib import datasets
from lsl_lib.budgeted import (AdaptiveMultiHyperplaneClassifier, BudgetedKernelSGDClassifier,
                              LowRankLinearizedSVC)
from lsl_lib.coordinate_descent import DualCDClassifier, svm_objectives
from lsl_lib.doubly_stochastic import DoublyStochasticClassifier
from lsl_lib.kernel_pegasos import KernelPegasosClassifier
from lsl_lib.kernels import PolynomialFeatureMap, fitted_gamma
from lsl_lib.papers import (BUDGETED, BUDGETED_RESULTS_FIELDS, BUDGETED_RESULTS_FILE,
                            PAPER_ERRORS, PAPER_RESULTS, PEGASOS_KERNEL, PEGASOS_LINEAR,
                            RAHIMI_RECHT)
from lsl_lib.pegasos import PegasosClassifier
from lsl_lib.random_binning import RandomBinningFeatures
from lsl_lib.random_features import RandomFourierFeatures

README = Path(__file__).resolve().parent / "README.md"
BEGIN = "<!-- reproduce.py writes this table: begin -->"
END = "<!-- reproduce.py writes this table: end -->"

BUDGETED_BEGIN = "<!-- reproduce.py writes the BudgetedSVM table: begin -->"
BUDGETED_END = "<!-- reproduce.py writes the BudgetedSVM table: end -->"

#: Random Fourier features + least squares. Widths D of the paper; the kernel widths tried
#: on the validation split (Adult, CPU) or fixed (Forest: chosen of 0.3, 1, 3, 10 at D = 4000
#: on a validation split of the training rows, benchmarks/README.md, §reproduce.py); the ridge
#: penalties tried on the validation split.
RFF_SETTINGS = {
    "adult": dict(n_components=500, gammas=(0.01, 0.03, 0.1), alphas=(1e-3, 1e-1, 10.0)),
    "cpu": dict(n_components=300, alphas=(1e-6, 1e-4, 1e-2, 1.0)),
    "forest": dict(n_components=5000, gammas=(3.0,), alphas=(1e-4, 1e-2, 1.0)),
}
#: Training rows of the CPU split: the paper's 6 500 (the rest of the 8 192 test).
CPU_TRAIN = 6500
#: CPU's preprocessings, each with the kernel widths tried on the validation split: the
#: features scaled to [-1, 1] by the training rows' range (LIBSVM's ``svm-scale``, the one
#: beside the paper's number), standardised, and log(1 + x - min) then standardised (cpu_act's
#: counts are heavy-tailed: standardised, test values reach 45 deviations).
CPU_PREPROCESSING = {
    "scaled to [-1, 1]": (0.1, 0.3, 1.0, 3.0),
    "standardised": (0.001, 0.003, 0.01, 0.03),
    "log, then standardised": (0.003, 0.01, 0.03, 0.1),
}
#: Share of the training rows held out to choose the hyper-parameters (alpha and gamma of the
#: random-feature rows; every setting of the budgeted rows).
VALIDATION_SHARE = 0.2
#: Forest Cover: training-set sizes of the trend, doubling up to all training rows; the
#: paper's training set, to which the trend is extrapolated (an extrapolation, not a run).
FOREST_SIZES = (9_375, 18_750, 37_500, N_TRAIN)
FOREST_PAPER_TRAIN = 522_910
#: Pegasos on cov1: the paper's lambda; T = 10^7 steps (133 epochs of 75 000 rows,
#: ten times 1/lambda); dual CD for up to 10 000 epochs (liblinear's projected-gradient test
#: at 1e-4 is not met at C = 13.3 in that many; the duality gap, printed, bounds the rest).
COV1_LAM = 1e-6
COV1_N_ITER = 10_000_000
DUAL_CD_MAX_ITER = 10_000
#: USPS, digit 0 against the rest: lambda = 1/n (C = 1), the Gaussian kernel with
#: gamma = 'scale' (1/(d Var X), SVC's default), twenty epochs of kernel Pegasos (fewer stop
#: short of the exact SVM's error); doubly stochastic gradients with the classifier's defaults
#: (blocks of 16 features, batches of 32, theta = 4) for 500 steps, 8 000 features (more
#: steps gain little and cost much: each step regenerates every earlier block). The errors
#: at other lengths are in benchmarks/README.md, §reproduce.py.
USPS_DIGIT = 0
USPS_EPOCHS = 20
DSG_STEPS = 500
#: The BudgetedSVM rows: the data sets of :func:`notes_comparison`.
BUDGETED_SETS = ("a9a", "ijcnn1")

#: The small slices of ``--quick`` (a smoke run: the numbers mean nothing).
QUICK = dict(adult=(3000, 2000), cpu=(1500, 500), forest_sizes=(1500, 3000),
             forest_test=2000, forest_components=200, rff_components=100, cov1=(5000, 2000),
             cov1_n_iter=100_000, dual_cd_max_iter=200, usps=(1000, 500), dsg_steps=20,
             )


class DataUnavailable(RuntimeError):
    """A data set that is neither in the shared folder nor downloadable."""


# --- data ------------------------------------------------------------------------------

def _shared(file):
    """The shared file's path, or None."""
    folder = datasets.shared_data_dir()
    return None if folder is None or not (folder / file).is_file() else folder / file


def _source(file, fallback):
    path = _shared(file)
    return f"shared data ({path.parent.name}/{path.name})" if path else fallback


def _fetch(what, load):
    try:
        return load()
    except (ConnectionError, OSError) as error:
        raise DataUnavailable(f"{what}: {error}") from error


def load_adult():
    """a9a (UCI Adult, 123 binary features): train, test and where they came from."""
    X, y = _fetch("a9a", lambda: datasets.fetch_libsvm("a9a"))
    X_test, y_test = _fetch("a9a", lambda: datasets.fetch_libsvm("a9a", "test"))
    return X, y, X_test, y_test, _source("a9a.bz2", "LIBSVM site, cached in the data home")


def load_cpu():
    """cpu_act (Delve comp-activ, 21 features, 8 192 rows) and its source."""
    X, y = _fetch("cpu_act", datasets.fetch_cpu_act)
    return X, y, _source("pmlb_197_cpu_act.tsv.gz", "OpenML 197, cached in the data home")


def load_forest():
    """The covtype subsample (92 962 rows in [0, 1], types 1-7) and its source.

    Without the shared subsample, the full set is fetched by scikit-learn and a uniform
    subsample of the same size (seed 0), min-max scaled, stands in for it."""
    if _shared("covtype_subsample_92962_scale01.csv.gz"):
        X, cover = datasets.load_covtype()
        return X, cover, _source("covtype_subsample_92962_scale01.csv.gz", "")
    X, cover = _fetch("covtype", lambda: datasets.fetch_covtype(binary=False))
    keep = np.random.default_rng(0).permutation(len(X))[:92_962]
    low, high = X.min(axis=0), X.max(axis=0)
    X = (X[keep] - low) / np.where(high > low, high - low, 1.0)
    return X, cover[keep], ("scikit-learn's fetch_covtype (full set), a uniform 92 962-row "
                            "subsample, min-max scaled")


def forest_split(quick):
    """The split of ``bench_random_binning``: a permutation (seed 0), the first
    ``common.N_TRAIN`` (75 000) rows train, the other 17 962 test. Returns X, cover, X_test,
    cover_test, source."""
    X, cover, source = load_forest()
    order = np.random.default_rng(0).permutation(len(X))
    train, test = order[:N_TRAIN], order[N_TRAIN:]
    if quick:
        train, test = train[:QUICK["forest_sizes"][-1]], test[:QUICK["forest_test"]]
    return X[train], cover[train], X[test], cover[test], source


def load_digits_usps():
    """USPS (7 291 training and 2 007 test digits in [0, 1]) and its source; without the
    shared copy, LIBSVM's (labels 1-10, pixels in [-1, 1]) mapped to the same form."""
    if _shared("usps.npz"):
        X, y = datasets.load_usps()
        X_test, y_test = datasets.load_usps("test")
        return X, y, X_test, y_test, _source("usps.npz", "")
    X, y = _fetch("usps", lambda: datasets.fetch_libsvm("usps"))
    X_test, y_test = _fetch("usps", lambda: datasets.fetch_libsvm("usps", "test"))
    to_unit = lambda Z: (Z.toarray() + 1.0) / 2.0  # noqa: E731
    return (to_unit(X), y.astype(np.int64) - 1, to_unit(X_test), y_test.astype(np.int64) - 1,
            "LIBSVM site (usps), cached in the data home")


# --- least squares on random features, in row blocks ------------------------------------

def _block_rows(n_components):
    """Rows per block: about 64 MB of float64 features."""
    return max(256, 8_000_000 // n_components)


def _solve(gram, alpha):
    """Ridge weights (intercept last, unpenalised) from the accumulated normal equations."""
    G, s, b, t_sum, n = gram
    D = len(b)
    A = np.empty((D + 1, D + 1))
    A[:D, :D] = G
    A[:D, D] = A[D, :D] = s
    A[D, D] = n
    A[np.arange(D), np.arange(D)] += alpha
    return scipy.linalg.solve(A, np.append(b, t_sum), assume_a="pos")


def _error(scores, t, task):
    """Test error in %: misclassification rate of sign(score), or for regression the RMS
    error normalised by the norm of the truth, ||score - t|| / ||t|| (the paper's measure)."""
    if task == "classification":
        return 100.0 * float(np.mean(np.where(scores >= 0, 1.0, -1.0) != t))
    return 100.0 * float(np.linalg.norm(scores - t) / np.linalg.norm(t))


def rff_least_squares(X, t, X_test, t_test, *, n_components, gamma, alphas, sizes, n_val,
                      task, random_state=0, desc="RFF + least squares"):
    r"""Ridge regression on random Fourier features, by normal equations in row blocks.

    One pass over the training rows in their order accumulates :math:`Z^\top Z`,
    :math:`Z^\top 1`, :math:`Z^\top t` (never Z itself): at ``n - n_val`` rows the weights
    for every alpha are solved and scored on the next ``n_val`` rows (validation), which the
    pass then accumulates too; the alpha of least validation error is kept and solved at
    each size of ``sizes``, whose test errors are measured in one pass over the test rows.

    Returns
    -------
    dict(alpha, validation={alpha: error %}, sizes={n: dict(error, seconds)}), where
    seconds is the map, the accumulation up to n rows and the solve (not the validation).
    """
    n = X.shape[0]
    fit_end = n - n_val
    snapshots = sorted(set(sizes) | {fit_end, n})
    features = RandomFourierFeatures(n_components=n_components, gamma=gamma,
                                     random_state=random_state).fit(X[:1])
    D, block = n_components, _block_rows(n_components)
    G, s, b = np.zeros((D, D)), np.zeros(D), np.zeros(D)
    t_sum, saved, elapsed, val_scores = 0.0, {}, 0.0, {}
    weights_val = None
    bounds = sorted(set(range(0, n, block)) | set(snapshots) | {0})
    for start, stop in progress(list(zip(bounds[:-1], bounds[1:], strict=True)), desc=desc):
        tic = time.perf_counter()
        Z = features.transform(X[start:stop])
        if start >= fit_end:  # validation rows: scored before they are accumulated
            pause = time.perf_counter()
            for alpha, w in weights_val.items():
                val_scores.setdefault(alpha, []).append(Z @ w[:-1] + w[-1])
            tic += time.perf_counter() - pause
        G += Z.T @ Z
        s += Z.sum(axis=0)
        b += Z.T @ t[start:stop]
        t_sum += float(t[start:stop].sum())
        elapsed += time.perf_counter() - tic
        if stop in snapshots:
            saved[stop] = ((G.copy(), s.copy(), b.copy(), t_sum, stop), elapsed)
        if stop == fit_end:
            weights_val = {alpha: _solve(saved[stop][0], alpha) for alpha in alphas}
    validation = {alpha: _error(np.concatenate(val_scores[alpha]), t[fit_end:], task)
                  for alpha in alphas}
    alpha = min(alphas, key=validation.get)
    weights, seconds = {}, {}
    for size in sizes:
        gram, pass_seconds = saved[size]
        tic = time.perf_counter()
        weights[size] = _solve(gram, alpha)
        seconds[size] = pass_seconds + time.perf_counter() - tic
    W = np.column_stack([weights[size] for size in sizes])
    scores = np.vstack([features.transform(X_test[i:i + block]) @ W[:-1] + W[-1]
                        for i in range(0, X_test.shape[0], block)])
    residuals = np.abs(scores - t_test[:, None])
    return dict(alpha=alpha, validation=validation,
                sizes={size: dict(error=_error(scores[:, j], t_test, task),
                                  seconds=seconds[size], median_abs=np.median(residuals[:, j]),
                                  max_abs=residuals[:, j].max())
                       for j, size in enumerate(sizes)})


def rff_search(X, t, X_test, t_test, *, n_components, gammas, alphas, task, desc):
    """:func:`rff_least_squares` on all training rows for every gamma; the (gamma, alpha) of
    least validation error is kept. Returns its result with ``gamma`` and ``searched``."""
    n_val = int(round(VALIDATION_SHARE * X.shape[0]))
    results = {gamma: rff_least_squares(X, t, X_test, t_test, n_components=n_components,
                                        gamma=gamma, alphas=alphas, sizes=(X.shape[0],),
                                        n_val=n_val, task=task, desc=f"{desc}, γ={gamma:g}")
               for gamma in gammas}
    gamma = min(gammas, key=lambda g: results[g]["validation"][results[g]["alpha"]])
    best = results[gamma]
    return dict(best, gamma=gamma, n_val=n_val, result=best["sizes"][X.shape[0]],
                median_abs=best["sizes"][X.shape[0]]["median_abs"],
                max_abs=best["sizes"][X.shape[0]]["max_abs"],
                searched=f"γ of {', '.join(f'{g:g}' for g in gammas)}; α of "
                         f"{', '.join(f'{a:g}' for a in alphas)}")


# --- the rows ---------------------------------------------------------------------------

def _row(group, paper, task, method, paper_error, error, seconds, data, note, decimals=2):
    return dict(group=group, paper=paper, task=task, method=method, paper_error=paper_error,
                error=error, seconds=seconds, data=data, note=note, decimals=decimals)


def adult_rows(quick=False):
    X, y, X_test, y_test, source = load_adult()
    if quick:
        X, y, X_test, y_test = X[:QUICK["adult"][0]], y[:QUICK["adult"][0]], \
            X_test[:QUICK["adult"][1]], y_test[:QUICK["adult"][1]]
    settings = dict(RFF_SETTINGS["adult"])
    if quick:
        settings["n_components"] = QUICK["rff_components"]
    # one permutation of the training rows (seed 0): the last 20 % validate
    order = np.random.default_rng(0).permutation(X.shape[0])
    fit = rff_search(X[order], y[order], X_test, y_test, task="classification",
                     desc="Adult", **settings)
    D = settings["n_components"]
    return [_row("adult", RAHIMI_RECHT, "Adult (a9a): income > 50 k$, binary",
                 f"Fourier (Gaussian, D = {D}) + least squares", PAPER_ERRORS["adult_rff"],
                 fit["result"]["error"], fit["result"]["seconds"],
                 f"{source}; {X.shape[0]:,} train / {X_test.shape[0]:,} test",
                 f"γ = {fit['gamma']:g}, α = {fit['alpha']:g} chosen on {fit['n_val']:,} "
                 f"held-out training rows ({fit['searched']}); LIBSVM's 123 binary features "
                 f"as they are")]


def _cpu_preprocessing(name, train):
    """The map of CPU_PREPROCESSING's ``name``, fitted on the training rows ``train``."""
    if name == "scaled to [-1, 1]":
        low, high = train.min(axis=0), train.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        return lambda Z: 2.0 * (Z - low) / span - 1.0
    if name == "log, then standardised":
        low = train.min(axis=0)
        log = lambda Z: np.log1p(np.maximum(Z - low, 0.0))  # noqa: E731
        standardise = _cpu_preprocessing("standardised", log(train))
        return lambda Z: standardise(log(Z))
    mean, std = train.mean(axis=0), train.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    return lambda Z: (Z - mean) / std


def cpu_rows(quick=False):
    X, y, source = load_cpu()
    order = np.random.default_rng(0).permutation(len(y))
    n_train, n_test = QUICK["cpu"] if quick else (CPU_TRAIN, len(y) - CPU_TRAIN)
    train, test = order[:n_train], order[n_train:n_train + n_test]
    settings = dict(RFF_SETTINGS["cpu"])
    if quick:
        settings["n_components"] = QUICK["rff_components"]
    D = settings["n_components"]
    rows = []
    for i, (name, gammas) in enumerate(CPU_PREPROCESSING.items()):
        scale = _cpu_preprocessing(name, X[train])
        fit = rff_search(scale(X[train]), y[train], scale(X[test]), y[test], gammas=gammas,
                         task="regression", desc=f"CPU, {name}", **settings)
        rows.append(_row(
            "cpu", RAHIMI_RECHT, "CPU (cpu_act): % time in user mode, regression",
            f"Fourier (Gaussian, D = {D}) + least squares; features {name}",
            PAPER_ERRORS["cpu_rff"] if i == 0 else None, fit["result"]["error"],
            fit["result"]["seconds"],
            f"{source}; {len(train):,} train / {len(test):,} test (random split, seed 0)",
            ("error = ‖ŷ − y‖ / ‖y‖ on the test rows; " if i == 0 else "")
            + f"γ = {fit['gamma']:g}, α = {fit['alpha']:g} chosen on {fit['n_val']:,} held-out "
              f"training rows ({fit['searched']}); absolute errors: median "
              f"{fit['median_abs']:.2f}, largest {fit['max_abs']:.0f}"))
    return rows


def _extrapolated(sizes, errors, n):
    """The error at n rows of the power law through the last two (size, error) points."""
    slope = math.log(errors[-1] / errors[-2]) / math.log(sizes[-1] / sizes[-2])
    return errors[-1] * (n / sizes[-1]) ** slope, slope


def _trend_note(sizes, errors):
    at, slope = _extrapolated(sizes, errors, FOREST_PAPER_TRAIN)
    return (f"error × {errors[-1] / errors[-2]:.2f} for the last doubling of n (n^{slope:.2f});"
            f" that power law would give {at:.1f} % at the paper's {FOREST_PAPER_TRAIN:,} rows "
            f"(an extrapolation)")


def forest_rows(quick=False):
    X, cover, X_test, cover_test, source = forest_split(quick)
    t, t_test = np.where(cover == 2, 1.0, -1.0), np.where(cover_test == 2, 1.0, -1.0)
    sizes = QUICK["forest_sizes"] if quick else FOREST_SIZES
    settings = RFF_SETTINGS["forest"]
    D = QUICK["forest_components"] if quick else settings["n_components"]
    gamma = settings["gammas"][0]
    n_val = int(round(VALIDATION_SHARE * X.shape[0]))
    fit = rff_least_squares(X, t, X_test, t_test, n_components=D, gamma=gamma,
                            alphas=settings["alphas"], sizes=sizes, n_val=n_val,
                            task="classification", desc="Forest, RFF")
    task = "Forest Cover: lodgepole pine (type 2) vs rest"
    data = f"{source}; {{n:,}} train / {X_test.shape[0]:,} test"
    results = {"rff": [fit["sizes"][n] for n in sizes], "binning": []}
    P = 50
    _warm_up(RandomBinningFeatures(n_grids=P, gamma=GAMMA_BINNING), X)
    for n in progress(sizes, desc="Forest, binning"):
        features = RandomBinningFeatures(n_grids=P, gamma=GAMMA_BINNING, random_state=0)
        solver = Ridge(alpha=ALPHA_BINNING, solver="lsqr")
        tic = time.perf_counter()
        solver.fit(features.fit_transform(X[:n]), t[:n])
        seconds = time.perf_counter() - tic
        results["binning"].append(dict(
            error=_error(solver.predict(features.transform(X_test)), t_test, "classification"),
            seconds=seconds, cells=features.n_components_))
    rows = []
    for kind, method, paper, settings_note in (
            ("rff", f"Fourier (Gaussian, D = {D}) + least squares", PAPER_ERRORS["forest_rff"],
             f"γ = {gamma:g} (fixed, see the README), α = {fit['alpha']:g} chosen on rows "
             f"{X.shape[0] - n_val:,}-{X.shape[0]:,} of the training set, fit on the ones "
             f"before; normal equations in row blocks"),
            ("binning", f"Binning (Laplacian, P = {P}) + least squares",
             PAPER_ERRORS["forest_binning"],
             f"γ = {GAMMA_BINNING:g}, α = {ALPHA_BINNING:g} (bench_random_binning's,"
             f" chosen on a validation split); lsqr on the sparse features")):
        errors = [r["error"] for r in results[kind]]
        for n, r in zip(sizes, results[kind], strict=True):
            last = n == sizes[-1]
            cells = f"{r['cells']:,} occupied cells" if kind == "binning" else ""
            note = (f"{settings_note}; {cells + '; ' if cells else ''}{_trend_note(sizes, errors)}"
                    if last else (cells or "the same settings") + ", the first n training rows")
            rows.append(_row("forest", RAHIMI_RECHT, task, method, paper if last else None,
                             r["error"], r["seconds"], data.format(n=n), note))
    return rows


def _warm_up(model, X, y=None, **small):
    """Fit a copy of ``model`` with ``small`` parameters on 200 rows, so that the timed fit
    does not include numba's compilation (or the loading of its cache)."""
    clone(model).set_params(**small).fit(X[:200], None if y is None else y[:200])


def pegasos_rows(quick=False):
    X, cover, X_test, cover_test, source = forest_split(quick)
    if quick:
        X, cover = X[:QUICK["cov1"][0]], cover[:QUICK["cov1"][0]]
        X_test, cover_test = X_test[:QUICK["cov1"][1]], cover_test[:QUICK["cov1"][1]]
    y, y_test = np.where(cover == 1, 1.0, -1.0), np.where(cover_test == 1, 1.0, -1.0)
    n, lam = X.shape[0], COV1_LAM
    C = 1.0 / (lam * n)
    n_iter = QUICK["cov1_n_iter"] if quick else COV1_N_ITER
    max_iter = QUICK["dual_cd_max_iter"] if quick else DUAL_CD_MAX_ITER
    task = "cov1: spruce/fir (type 1) vs rest, λ = 1e-6, no intercept"
    data = f"{source}; {n:,} train / {X_test.shape[0]:,} test"

    def objective(w):  # Pegasos' f(w) = λ/2 ||w||² + mean hinge = λ P_C(w)
        return lam * svm_objectives(X, y, np.append(w, 0.0), np.zeros(n), C)[0]

    _warm_up(PegasosClassifier(lam=lam, fit_intercept=False), X, y, n_iter=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        _warm_up(DualCDClassifier(C=C, fit_intercept=False), X, y, max_iter=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        tic = time.perf_counter()
        dual = DualCDClassifier(C=C, fit_intercept=False, max_iter=max_iter,
                                random_state=0).fit(X, y)
        dual_seconds = time.perf_counter() - tic
    w_star = dual.coef_.ravel()
    f_star = objective(w_star)
    f_lower = f_star - lam * dual.duality_gap_  # λ D(α) <= λ P* = f*
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    rows = []
    for averaging, label in progress((("none", "the paper's output: the last iterate"),
                                      ("suffix", "lsl's default: the average of the last "
                                                 "half of the iterates")), desc="cov1"):
        tic = time.perf_counter()
        model = PegasosClassifier(lam=lam, n_iter=n_iter, averaging=averaging,
                                  fit_intercept=False, random_state=0).fit(X, y)
        seconds = time.perf_counter() - tic
        f = objective(model.coef_.ravel())
        rows.append(_row("pegasos", PEGASOS_LINEAR, task, f"Pegasos, T = {n_iter:,} "
                         f"({n_iter / n:.0f} epochs), {label}", PAPER_ERRORS["cov1_pegasos"],
                         _error(model.decision_function(X_test), y_test, "classification"),
                         seconds, data,
                         f"f(w) = {f:.4f}, above the optimum by at most {f - f_lower:.4f}"))
    rows.append(_row("pegasos", PEGASOS_LINEAR, task,
                     f"dual coordinate descent, the optimum of the same problem "
                     f"(C = 1/(λn) = {C:.3g})", None,
                     _error(dual.decision_function(X_test), y_test, "classification"),
                     dual_seconds, data,
                     f"f(w*) = {f_star:.4f}, duality gap {lam * dual.duality_gap_:.1e} "
                     f"(Pegasos' scale) after {dual.n_iter_:,} epochs"
                     + ("" if converged else "; not converged: the gap is above 1e-4 f")))
    return rows


def usps_rows(quick=False):
    X, digit, X_test, digit_test, source = load_digits_usps()
    if quick:
        X, digit = X[:QUICK["usps"][0]], digit[:QUICK["usps"][0]]
        X_test, digit_test = X_test[:QUICK["usps"][1]], digit_test[:QUICK["usps"][1]]
    y = np.where(digit == USPS_DIGIT, 1.0, -1.0)
    y_test = np.where(digit_test == USPS_DIGIT, 1.0, -1.0)
    n = X.shape[0]
    gamma = fitted_gamma("scale", X)
    task = f"USPS: digit {USPS_DIGIT} vs rest, Gaussian kernel"
    data = f"{source}; {n:,} train / {X_test.shape[0]:,} test"
    steps = QUICK["dsg_steps"] if quick else DSG_STEPS
    models = {
        f"kernel Pegasos, λ = 1/n, {USPS_EPOCHS} epochs": KernelPegasosClassifier(
            lam=1.0 / n, n_iter=USPS_EPOCHS * n, gamma=gamma, random_state=0),
        f"doubly stochastic gradients, {steps} steps × 16 features": (
            DoublyStochasticClassifier(step="gradient", n_iter=steps, batch_size=32,
                                       block_size=16, gamma=gamma, random_state=0)),
        "exact SVM (scikit-learn's SVC, libsvm), C = 1": SVC(C=1.0, gamma=gamma),
    }
    rows = []
    small = {KernelPegasosClassifier: dict(n_iter=100), DoublyStochasticClassifier:
             dict(n_iter=2), SVC: {}}
    for method, model in progress(models.items(), desc="USPS"):
        _warm_up(model, X, y, **small[type(model)])
        tic = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - tic
        paper = PAPER_ERRORS["usps_kernel_pegasos"] if method.startswith("kernel Pegasos") else None
        rows.append(_row("usps", PEGASOS_KERNEL, task, method, paper,
                         _error(model.decision_function(X_test), y_test, "classification"),
                         seconds, data, f"γ = {gamma:.4f} ('scale'); "
                         f"{int(np.sum(y_test > 0))} positives in the test set", decimals=3))
    return rows


# --- the notes' results table, measured: lsl's rows beside it on a9a and ijcnn1 -----------

#: Hyper-parameters are chosen on a validation split of the training rows (never on the test
#: rows): a permutation with this seed, the last VALIDATION_SHARE of it held out. The
#: stochastic learners are scored on it with VALIDATION_SEEDS seeds (the mean is compared),
#: then refitted on all training rows with RUN_SEEDS seeds: the test error's mean and
#: standard deviation over those runs, as the paper's five reshuffled runs.
VALIDATION_SEED = 1
VALIDATION_SEEDS = (0, 1, 2)
RUN_SEEDS = (0, 1, 2, 3, 4)
#: The paper's grid of lambda for AMM and Pegasos.
LAM_GRID = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)
#: AMM as the paper ran it: B = 50 per class (the toolbox's default), pruning every 10 000
#: steps with c = 10; batch: five passes, the first online (lsl's batch mode); online: one.
AMM_COMPARISON = {"AMM batch": dict(mode="batch", n_epochs=5),
                  "AMM online": dict(mode="online", n_epochs=1)}
AMM_BUDGET = 50
#: The Poly2 SVM: the degree-2 map of (gamma x.x' + 1)^2 (lsl_lib.kernels.PolynomialFeatureMap
#: on sqrt(gamma) x) and a linear SVM by dual coordinate descent (lsl's DualCDClassifier,
#: liblinear's solver, hinge loss), as Chang et al. 2010 train it with LIBLINEAR: gamma and C
#: on the validation split.
POLY2_GRID = dict(gamma=(0.1, 1.0), C=(0.01, 0.1, 1.0))
#: The exact RBF SVM (scikit-learn's SVC, libsvm's SMO): C and gamma on the validation split.
SVC_GRID = {"a9a": dict(C=(1.0, 10.0), gamma=(0.01, 0.05)),
            "ijcnn1": dict(C=(1.0, 10.0), gamma=(0.5, 1.0, 2.0))}
#: The lecture's budgeted kernel machines beside the paper's columns, with the RBF SVM's
#: chosen gamma and C (BSGD: lam = 1/(C n), five epochs, merging; LLSVM: random landmarks).
EXTRA_BUDGETS = {"BSGD (merging)": 100, "LLSVM (random landmarks)": 500}
#: The small slices and grids of ``quick`` (a smoke run: the numbers mean nothing).
QUICK_COMPARISON = dict(n_train=2000, n_test=3000, lam_grid=(1e-3, 1e-5), seeds=(0, 1),
                        poly2=dict(gamma=(1.0,), C=(0.1,)),
                        svc=dict(C=(1.0,), gamma=(0.05,)), budgets=20)
#: The committed file of the measured rows, which lecture 14 prints without the data sets
#: (``lsl_lib.papers.read_budgeted_results``); :func:`write_results_file` writes it.
RESULTS_FILE = BUDGETED_RESULTS_FILE


def _validation_split(n):
    order = np.random.default_rng(VALIDATION_SEED).permutation(n)
    n_val = round(VALIDATION_SHARE * n)
    return order[:n - n_val], order[n - n_val:]


def _model_error(model, X, y):
    return 100.0 * float(np.mean(model.predict(X) != y))


def _choose(candidates, make, X, y, fit_rows, val_rows, seeds):
    """The candidate of least mean validation error: dict(best, validation={candidate:
    error %}). ``make(candidate, seed)`` returns an unfitted model."""
    validation = {}
    for candidate in candidates:
        validation[candidate] = float(np.mean([
            _model_error(make(candidate, seed).fit(X[fit_rows], y[fit_rows]), X[val_rows],
                         y[val_rows])
            for seed in seeds]))
    return min(candidates, key=validation.get), validation


def _runs(make, X, y, X_test, y_test, seeds, size):
    """Fit on all training rows with each seed: test errors, fit seconds, model sizes."""
    errors, seconds, sizes = [], [], []
    for seed in seeds:
        model = make(seed)
        start = time.perf_counter()
        model.fit(X, y)
        seconds.append(time.perf_counter() - start)
        errors.append(_model_error(model, X_test, y_test))
        sizes.append(size(model))
    return errors, seconds, sizes


class Poly2SVM:
    """The Poly2 SVM: :class:`~lsl_lib.kernels.PolynomialFeatureMap` (degree 2, coef0 1) on
    sqrt(gamma) x, then :class:`~lsl_lib.coordinate_descent.DualCDClassifier` (hinge). The
    map is part of the fit (its time counts, as in Chang et al.'s training times)."""

    def __init__(self, gamma, C, random_state=0):
        self.gamma, self.C, self.random_state = gamma, C, random_state

    def _map(self, X):
        return self.features_.transform(X * np.sqrt(self.gamma))

    def fit(self, X, y):
        self.features_ = PolynomialFeatureMap(degree=2).fit(X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.svm_ = DualCDClassifier(C=self.C, random_state=self.random_state).fit(
                self._map(X), y)
        return self

    def predict(self, X):
        return self.svm_.predict(self._map(X))


def _describe(grid_name, chosen, validation):
    tried = ", ".join(f"{_fmt(c)}: {v:.2f} %" for c, v in validation.items())
    return f"{grid_name} = {_fmt(chosen)} chosen on the validation split ({tried})"


def _fmt(candidate):
    if isinstance(candidate, tuple):
        return "(" + ", ".join(f"{v:g}" for v in candidate) + ")"
    return f"{candidate:g}"


def notes_comparison(name, quick=False, progress_bar=True):
    """lsl's counterparts of the notes' results table on ``name`` ('a9a' or 'ijcnn1'): the
    five columns (AMM batch and online, linear Pegasos, Poly2 SVM, RBF SVM) and the lecture's
    BSGD and LLSVM, every hyper-parameter chosen on a validation split of the training rows.

    Returns
    -------
    rows : list of dict
        One per method, with the fields of ``BUDGETED_RESULTS_FIELDS`` but ``command`` and
        ``date``, plus ``validation`` (candidate -> validation error %) and ``errors`` (the
        test error of each run).
    data : dict
        ``source``, ``n_train``, ``n_test``, ``n_features``.
    """
    q = QUICK_COMPARISON if quick else None
    X, y, X_test, y_test, source = load_problem(
        name, q["n_train"] if q else None, q["n_test"] if q else None)
    fit_rows, val_rows = _validation_split(X.shape[0])
    lam_grid = q["lam_grid"] if q else LAM_GRID
    val_seeds = q["seeds"] if q else VALIDATION_SEEDS
    run_seeds = q["seeds"] if q else RUN_SEEDS
    rows = []
    steps = progress(total=7, desc=f"{name}: the notes' table") if progress_bar else None

    def add(method, model, settings, errors, seconds, sizes, validation):
        rows.append(dict(
            data=name, method=method, lsl_model=model, settings=settings,
            error_mean=float(np.mean(errors)),
            error_sd=float(np.std(errors, ddof=1)) if len(errors) > 1 else 0.0,
            runs=len(errors), fit_seconds=float(np.mean(seconds)),
            model_size=float(np.mean(sizes)), n_train=X.shape[0], n_test=X_test.shape[0],
            validation=validation, errors=errors))
        if steps is not None:
            steps.update()

    def hyperplanes(model):
        return int(model.n_hyperplanes_.sum())

    for method, params in AMM_COMPARISON.items():
        def make_amm(lam, seed, params=params):
            return AdaptiveMultiHyperplaneClassifier(lam=lam, budget=AMM_BUDGET, **params,
                                                     random_state=seed)
        lam, validation = _choose(lam_grid, make_amm, X, y, fit_rows, val_rows, val_seeds)
        add(method, f"AdaptiveMultiHyperplaneClassifier(mode='{params['mode']}', "
                    f"n_epochs={params['n_epochs']}, budget={AMM_BUDGET})",
            _describe("λ", lam, validation),
            *_runs(lambda seed, lam=lam: make_amm(lam, seed), X, y, X_test, y_test, run_seeds,
                   hyperplanes), validation)

    def make_pegasos(lam, seed):
        return PegasosClassifier(lam=lam, random_state=seed)
    lam, validation = _choose(lam_grid, make_pegasos, X, y, fit_rows, val_rows, val_seeds)
    add("Linear (Pegasos)", "PegasosClassifier (lsl's defaults: hinge, suffix average)",
        _describe("λ", lam, validation),
        *_runs(lambda seed: make_pegasos(lam, seed), X, y, X_test, y_test, run_seeds,
               lambda m: 1), validation)

    grid = q["poly2"] if q else POLY2_GRID
    candidates = [(g, C) for g in grid["gamma"] for C in grid["C"]]
    best, validation = _choose(candidates, lambda c, seed: Poly2SVM(*c, random_state=seed),
                               X, y, fit_rows, val_rows, (0,))
    add("Poly2 SVM", "PolynomialFeatureMap(degree=2) on √γ·x + DualCDClassifier(C), hinge",
        _describe("(γ, C)", best, validation),
        *_runs(lambda seed: Poly2SVM(*best, random_state=seed), X, y, X_test, y_test, (0,),
               lambda m: m.features_.n_output_features_), validation)

    grid = q["svc"] if q else SVC_GRID[name]
    candidates = [(C, g) for C in grid["C"] for g in grid["gamma"]]
    svc, validation = _choose(candidates, lambda c, seed: SVC(C=c[0], gamma=c[1]), X, y,
                              fit_rows, val_rows, (0,))
    add("RBF SVM", "scikit-learn's SVC (libsvm)", _describe("(C, γ)", svc, validation),
        *_runs(lambda seed: SVC(C=svc[0], gamma=svc[1]), X, y, X_test, y_test, (0,),
               lambda m: len(m.support_)), validation)

    C, gamma = svc
    budgets = {k: (q["budgets"] if q else B) for k, B in EXTRA_BUDGETS.items()}
    B = budgets["BSGD (merging)"]
    add(f"BSGD (merging), B = {B}", "BudgetedKernelSGDClassifier(maintenance='merging')",
        f"the RBF SVM's γ = {gamma:g} and C = {C:g} (λ = 1/(C n)), {BSGD_EPOCHS} epochs",
        *_runs(lambda seed: BudgetedKernelSGDClassifier(
            lam=1.0 / (C * X.shape[0]), budget=B, maintenance="merging",
            n_iter=BSGD_EPOCHS * X.shape[0], gamma=gamma, random_state=seed),
            X, y, X_test, y_test, run_seeds, lambda m: len(m.support_vectors_)), {})
    B = budgets["LLSVM (random landmarks)"]
    add(f"LLSVM (random landmarks), B = {B}", "LowRankLinearizedSVC(landmarks='random')",
        f"the RBF SVM's γ = {gamma:g} and C = {C:g}; dual CD at tol {LLSVM_TOL:g}",
        *_runs(lambda seed: LowRankLinearizedSVC(budget=B, gamma=gamma, C=C, tol=LLSVM_TOL,
                                                 random_state=seed),
               X, y, X_test, y_test, run_seeds, lambda m: len(m.landmarks_)), {})
    if steps is not None:
        steps.close()
    return rows, dict(source=source, n_train=X.shape[0], n_test=X_test.shape[0],
                      n_features=X.shape[1])


def write_results_file(rows, command, path=None):
    """Write the measured rows (of :func:`notes_comparison`) as CSV, each labelled with the
    command and the date that produced it (``path``: :data:`RESULTS_FILE` when None)."""
    path = RESULTS_FILE if path is None else Path(path)
    today = datetime.date.today().isoformat()
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, BUDGETED_RESULTS_FIELDS, lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({**{k: r[k] for k in BUDGETED_RESULTS_FIELDS[:-2]},
                             "error_mean": f"{r['error_mean']:.2f}",
                             "error_sd": f"{r['error_sd']:.2f}",
                             "fit_seconds": f"{r['fit_seconds']:.3g}",
                             "model_size": f"{r['model_size']:g}",
                             "command": command, "date": today})
    return path


def budgeted_rows(quick=False):
    """The notes' results table beside lsl's rows, per data set (``quick``: the small
    slices and grids of :data:`QUICK_COMPARISON`)."""
    rows = []
    for name in progress(BUDGETED_SETS, desc="BudgetedSVM"):
        measured, data = notes_comparison(name, quick=quick)
        where = f"{data['source']}; {data['n_train']:,} train / {data['n_test']:,} test"
        generated = data["source"] != "shared data"
        for r in measured:
            paper = PAPER_RESULTS.get((name, r["method"]))
            if generated:  # not the paper's data: no comparison
                paper = None
            row = _row("budgeted", BUDGETED, f"{name}: binary", r["method"],
                       None if paper is None else paper["error"], r["error_mean"],
                       r["fit_seconds"], where,
                       r["settings"] + ("; generated data, not comparable with the paper"
                                        if generated else ""))
            row.update(measured=r, paper_text=None if paper is None else paper["text"],
                       paper_time=None if paper is None else paper["time_text"])
            rows.append(row)
    return rows


def format_budgeted_table(rows):
    """The budgeted rows as a markdown table: the notes' error ± sd and training time beside
    lsl's (mean ± sd over the runs, mean fit time on this machine)."""
    lines = ["| data | method (the notes' column) | notes: error % | notes: time (s) | lsl model "
             "| lsl: test error % (mean ± sd, runs) | lsl: fit (s) | model size | settings |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "measured" not in r:  # a group that could not run: its reason
            lines.append(f"| {r['task']} | {r['method']} | — | — | — | — | — | — | {r['note']} |")
            continue
        m = r["measured"]
        cells = (m["data"], m["method"], r["paper_text"] or "—", r["paper_time"] or "—",
                 m["lsl_model"], f"{m['error_mean']:.2f} ± {m['error_sd']:.2f} ({m['runs']})",
                 _seconds(m["fit_seconds"]), f"{m['model_size']:,.0f}", m["settings"])
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


#: Group name -> the paper of its rows.
GROUP_PAPERS = {"adult": RAHIMI_RECHT, "cpu": RAHIMI_RECHT, "forest": RAHIMI_RECHT,
                "pegasos": PEGASOS_LINEAR, "usps": PEGASOS_KERNEL, "budgeted": BUDGETED}
#: Group name -> function returning its rows.
ROWS = {"adult": adult_rows, "cpu": cpu_rows, "forest": forest_rows, "pegasos": pegasos_rows,
        "usps": usps_rows, "budgeted": budgeted_rows}


def run(quick=False, only=None):
    """Every row of the groups in ``only`` (all when None): a list of row dicts. A group
    whose data cannot be had gives one row with ``error=None`` and the reason."""
    rows = []
    groups = list(only or ROWS)
    for group in progress(groups, desc="reproduce", leave=True):
        try:
            rows += ROWS[group](quick)
        except DataUnavailable as reason:
            rows.append(_row(group, GROUP_PAPERS[group], group, "skipped", None, None, None,
                             "unavailable", f"data unavailable: {reason}"))
    return rows


# --- the table --------------------------------------------------------------------------

def _seconds(value):
    if value is None:
        return "—"
    return f"{value:.2f} s" if value < 10 else (f"{value:.0f} s" if value < 120
                                                else f"{value / 60:.1f} min")


def _percent(value, decimals):
    return "—" if value is None else f"{value:.{decimals}f} %"


def format_table(rows):
    """The rows as a markdown table (what is printed and written); a ``|`` within a cell
    is escaped. The budgeted rows are left out: :func:`format_budgeted_table`."""
    rows = [r for r in rows if r["group"] != "budgeted"]
    lines = ["| paper | task | lsl method | paper error | lsl error | lsl fit time | data | "
             "note |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        paper_decimals = 3 if r["paper_error"] is not None and r["decimals"] == 3 else 1
        cells = (r["paper"], r["task"], r["method"], _percent(r["paper_error"], paper_decimals),
                 _percent(r["error"], r["decimals"]), _seconds(r["seconds"]), r["data"],
                 r["note"])
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def command(quick=False, only=None):
    """The command line of a run (what a table and the data file say produced them)."""
    return ("python -m benchmarks.reproduce" + (" --quick" if quick else "")
            + "".join(f" {group}" for group in (only or ())))


def conditions(total_seconds, quick, only=None):
    """The line above the table: command, date, machine, run time, data folder."""
    folder = datasets.shared_data_dir()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"`{command(quick, only)}`, "
            f"{datetime.date.today().isoformat()}, {os.cpu_count()} cores ({platform.machine()}"
            f", Python {platform.python_version()}, numpy {np.__version__}), load average "
            f"{load:.1f} at the end; total run time {_seconds(total_seconds)}; shared data: "
            f"{'`' + str(folder) + '`' if folder else 'absent (the fetchers were used)'}.")


#: The heading a README without the BudgetedSVM markers gets, with them, at its end.
BUDGETED_SECTION = "### The notes' BudgetedSVM results table, measured (`reproduce.py budgeted`)"


def write_readme(text, path=None, begin=BEGIN, end=END):
    """Replace exactly the text between the lines ``begin`` and ``end`` (the main table's
    :data:`BEGIN` and :data:`END` by default) of ``path`` (:data:`README` when None) by
    ``text``; a ``ValueError`` names the markers when they are not there once each, in that
    order."""
    write_between_markers(README if path is None else path, text, begin, end,
                          section=BUDGETED_SECTION if begin == BUDGETED_BEGIN else None)


def tables(rows, total_seconds, quick, only=None):
    """(text, begin, end) of each README table that ``rows`` fill: the main table and the
    BudgetedSVM table, each under the line of the run's conditions."""
    line = conditions(total_seconds, quick, only)
    out = []
    main_rows = [r for r in rows if r["group"] != "budgeted"]
    budgeted = [r for r in rows if r["group"] == "budgeted"]
    if main_rows:
        out.append((line + "\n\n" + format_table(main_rows), BEGIN, END))
    if budgeted:
        out.append((line + "\n\n" + format_budgeted_table(budgeted), BUDGETED_BEGIN,
                    BUDGETED_END))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reproduce",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small slices: a smoke run of every row (not written)")
    write = parser.add_mutually_exclusive_group()
    write.add_argument("--write", action="store_true",
                       help="write the table into benchmarks/README.md even with --quick "
                            "or a subset of groups")
    write.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("only", nargs="*", choices=[*ROWS, []], help="groups to run")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = run(quick=args.quick, only=args.only)
    written = tables(rows, time.perf_counter() - start, args.quick, args.only)
    print("\n\n".join(text for text, _, _ in written))
    if args.write or not (args.quick or args.only or args.no_write):
        for text, begin, end in written:
            write_readme(text, begin=begin, end=end)
        print(f"\nwritten into {README}", file=sys.stderr)
        measured = [r["measured"] for r in rows if "measured" in r]
        if measured:
            path = write_results_file(
                measured, command(args.quick, args.only) + (" --write" if args.write else ""))
            print(f"written into {path}", file=sys.stderr)
    return 0 if all(r["error"] is None or math.isfinite(r["error"]) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
