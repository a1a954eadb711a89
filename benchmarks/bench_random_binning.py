"""Random binning + a linear solver against random Fourier features + the same solver,
at equal memory, on the covtype subsample (Rahimi and Recht 2007, Table 1, Forest Cover).

- Data: the shared covtype subsample (92 962 rows, d = 54; set LSL_SHARED_DATA), class 2
  (lodgepole pine) against the rest, as in Rahimi and Recht's table; one permutation
  (seed 0): the first 75 000 rows train, the other 17 962 test (quick: 10 000 train rows).
  Skipped with a message when the shared data are absent.
- Kernel: the Laplacian :math:`\\exp(-\\gamma\\|x - y\\|_1)` for both maps, each with its own
  width: binning gamma = 3 (of 1, 3, 10), RFF (Cauchy frequencies, sin-cos) gamma = 0.03
  (of 0.01, 0.03, 0.1, 0.3, 1, 3, 10), the best least-squares error of each on a
  validation split of the training rows (60 000 / 15 000, at P = 50, D = 76); the
  regularisation likewise (alpha of 0.1, 0.3, 1, 10 for binning; of 0.001,
  0.1 for RFF; C = 1 of 0.1, 1 for LinearSVC). No test row was used to choose.
- Equal memory: a CSR row of random binning holds P values (float64, 8 bytes) and P column
  indices (int32, 4 bytes), 12 P bytes; a dense RFF row of width D holds 8 D bytes. So
  D = 1.5 P, rounded to the even width of the sin-cos map: P = 50 against D = 76, P = 100
  against D = 150 (full run only). The model differs: binning's weight vector has one entry
  per occupied cell (``n_components_``, printed), RFF's has D.
- Solvers: least squares on the labels +-1 and the sign of the prediction, as in the
  paper's table (scikit-learn's ``Ridge``: ``lsqr`` on the sparse binning features, whose
  normal equations would be a cells x cells matrix; ``cholesky`` on the D x D normal
  equations of RFF), alpha = 0.3 (binning) and 0.1 (RFF); and the linear SVM
  ``LinearSVC`` (liblinear's dual coordinate descent, squared hinge), C = 1, on both.
- Time: the map's ``fit_transform`` of the training rows plus the solver's ``fit``, paired
  repeats; the ratio is RFF / binning (above 1: binning faster). The error rows are
  RFF error / binning error (above 1: binning more accurate), one run each.
- ``bin_indices``: numpy reference / numba path on 20 000 covtype rows, P = 50, dense and
  CSR (covtype is 78 % zeros); on 20 000 x 54 synthetic rows of the same sparsity when the
  shared data are absent.

Rahimi and Recht's table (full Forest Cover, 522 910 training rows; ``lsl_lib.papers``):
Fourier + LS 11.6 %, Binning + LS 2.2 % (P = 50). Printed beside ours in the notes.
"""
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.svm import LinearSVC

from benchmarks.common import ALPHA_BINNING, GAMMA_BINNING, N_TRAIN, progress, ratio_row, timed
from lsl_lib.datasets import load_covtype, shared_data_dir
from lsl_lib.papers import PAPER_ERRORS
from lsl_lib.random_binning import RandomBinningFeatures, bin_indices, draw_grids
from lsl_lib.random_features import RandomFourierFeatures

GAMMA_RFF, ALPHA_RFF = 0.03, 0.1
#: Rahimi and Recht's Forest Cover errors, as fractions.
PAPER = {"Fourier + LS": PAPER_ERRORS["forest_rff"] / 100,
         "Binning + LS": PAPER_ERRORS["forest_binning"] / 100}


def equal_memory_width(n_grids):
    """D with 8 D bytes per dense row closest to the 12 P bytes of a CSR row, even."""
    return 2 * round(12 * n_grids / 16)


def _split(quick):
    X, y = load_covtype()
    t = np.where(y == 2, 1.0, -1.0)
    order = np.random.default_rng(0).permutation(len(X))
    train, test = order[:N_TRAIN], order[N_TRAIN:]
    if quick:
        train = train[:10_000]
    return X[train], t[train], X[test], t[test]


def _solvers(kind):
    """The two linear solvers, with the regularisation chosen for each map."""
    ridge = (Ridge(alpha=ALPHA_BINNING, solver="lsqr") if kind == "binning"
             else Ridge(alpha=ALPHA_RFF, solver="cholesky"))
    return {"least squares": ridge, "LinearSVC": LinearSVC(C=1.0, dual=True, max_iter=2000)}


def _compare(n_grids, data, repeats):
    X, t, X_test, t_test = data
    D = equal_memory_width(n_grids)
    rows = []
    for name in ("least squares", "LinearSVC"):
        errors, times = {}, {}
        maps = {"binning": RandomBinningFeatures(n_grids=n_grids, gamma=GAMMA_BINNING,
                                                 random_state=0),
                "rff": RandomFourierFeatures(D, kernel="laplacian", gamma=GAMMA_RFF,
                                             random_state=0)}
        for kind, feature_map in maps.items():
            solver = _solvers(kind)[name]

            def fit(feature_map=feature_map, solver=solver):
                Z = feature_map.fit_transform(X)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    solver.fit(Z, t)

            times[kind] = timed(fit, repeats)
            scores = solver.predict(feature_map.transform(X_test))  # the last fit's
            errors[kind] = float(np.mean(np.where(scores >= 0, 1.0, -1.0) != t_test))
        note = (f"n_train={len(X)}, n_test={len(X_test)}; test error binning "
                f"{errors['binning']:.2%} (P={n_grids}, {maps['binning'].n_components_} "
                f"cells), RFF {errors['rff']:.2%} (D={D}); bytes per row {12 * n_grids} "
                f"vs {8 * D}")
        if name == "least squares":
            note += (f"; paper (full data, 522 910 rows): Fourier + LS "
                     f"{PAPER['Fourier + LS']:.1%}, Binning + LS {PAPER['Binning + LS']:.1%}")
        rows.append(ratio_row(f"RFF / binning, {name}: test error (P={n_grids}, D={D})",
                              [errors["rff"]], [errors["binning"]], note=note))
        rows.append(ratio_row(f"RFF / binning, {name}: map + fit time (P={n_grids}, D={D})",
                              times["rff"], times["binning"],
                              note="fit_transform of the training rows + the solver's fit"))
    return rows


def _numba_rows(X, repeats):
    pitches, shifts = draw_grids(X.shape[1], 50, GAMMA_BINNING, np.random.default_rng(0))
    rows = []
    for name, data in (("dense", X), ("CSR", sp.csr_matrix(X))):
        numpy_times = timed(lambda data=data: bin_indices(data, pitches, shifts, backend="numpy"),
                            repeats)
        numba_times = timed(lambda data=data: bin_indices(data, pitches, shifts, backend="numba"),
                            repeats)
        rows.append(ratio_row(f"bin_indices numpy / numba, {name} ({X.shape[0]} x "
                              f"{X.shape[1]}, P=50)", numpy_times, numba_times,
                              note=f"{(X != 0).mean():.0%} non-zeros"))
    return rows


def run(quick=False):
    repeats = 1 if quick else 3
    n_numba = 2000 if quick else 20_000
    if shared_data_dir() is None:
        print("random_binning: the covtype subsample is absent (set LSL_SHARED_DATA to the folder "
              "of the course's benchmark sets): the binning-vs-RFF comparison is skipped; "
              "bin_indices is timed on synthetic rows.")
        rng = np.random.default_rng(0)
        X = rng.random((n_numba, 54)) * (rng.random((n_numba, 54)) < 0.22)
        return _numba_rows(X, repeats)
    data = _split(quick)
    rows = []
    for n_grids in progress((50,) if quick else (50, 100), desc="grids P"):
        rows += _compare(n_grids, data, repeats)
    return rows + _numba_rows(data[0][:n_numba], repeats)
