"""Coordinate descent: dual CD against liblinear, Lasso CD against scikit-learn's Lasso,
and the compiled per-coordinate loops against their numpy references.

- Dual CD vs ``LinearSVC(dual=True)``: time to a relative primal objective within 1e-6
  of P* (P* from liblinear at tol 1e-10), each solver at the loosest tolerance of a grid
  that gets there; a9a and w8a ($LSL_SHARED_DATA), C = 1, no intercept, both losses;
  target: lsl no slower (ratio liblinear / lsl >= 1).
- Lasso CD vs ``sklearn.linear_model.Lasso``, same tolerance (1e-6), alpha = 0.002 alpha_max,
  on two synthetic problems with correlated features (tall 20000 x 100, wide 1000 x 1000,
  10 informative features), each with its defaults (LassoCD: covariance updates when
  n > d; Lasso: the residual), and on the tall one also both with the Gram matrix
  (``precompute=True``) and both with the residual;
  target: lsl at most 1.5x slower (ratio sklearn / lsl >= 1/1.5).
- numba vs numpy: dual CD (a9a, 10 epochs, no shrinking: the reference, Hsieh et al.'s
  Algorithm 1, has none) and Lasso CD (n = 1000, d = 200); target >= 10x.
- Pegasos vs SDCA (Shalev-Shwartz and Zhang 2013, Pegasos vs SDCA): primal suboptimality
  f(w) − f* of the SVM f(w) = λ/2 ‖w‖² + mean hinge (no intercept, as in both papers)
  after each epoch on a9a, λ = 1e-4 and 1e-5, for Pegasos (the paper's settings: k = 1,
  i.i.d. examples, η_t = 1/(λt), projection, last iterate) and dual CD with i.i.d.
  coordinates (SDCA) or a new permutation each epoch (liblinear's order); f* from dual CD at
  tol 1e-10. The rows report epochs of Pegasos / epochs of SDCA to f − f* <= 1e-3 (a
  lower bound when Pegasos does not get there); lecture 06 shows the same comparison on
  the digits bundled with scikit-learn (a9a does not ship with the repository).
- Defaults against scikit-learn's (printed, not timed): test scores of
  DualCDClassifier(), LassoCD(), BlockCDKernelRidge() and LinearSVC(), Lasso(),
  KernelRidge(kernel='rbf') on a9a, ijcnn1 and three PMLB regression sets.
"""
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso
from sklearn.svm import LinearSVC

from benchmarks.common import progress, ratio_row, timed
from lsl_lib.coordinate_descent import DualCDClassifier, LassoCD, svm_objectives
from lsl_lib.datasets import load_shared, shared_data_dir
from lsl_lib.pegasos import PegasosClassifier

TOLS = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 1e-6)


def _primal(X, y, w, C, loss):
    xi = np.maximum(0.0, 1.0 - y * np.asarray(X @ w).ravel())
    return 0.5 * w @ w + C * (xi.sum() if loss == "hinge" else xi @ xi)


def _loosest(make, X, y, C, loss, p_star):
    for tol in TOLS:
        model = make(tol).fit(X, y)
        if _primal(X, y, np.ravel(model.coef_), C, loss) - p_star <= 1e-6 * p_star:
            return tol
    raise RuntimeError("no tolerance of the grid reached 1e-6")


def dual_cd_vs_liblinear(name, quick):
    X, y = load_shared(name)
    X32 = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                        shape=X.shape)  # scikit-learn 1.9 takes 32-bit indices only
    rows = []
    for loss in ("hinge", "squared_hinge"):
        def liblinear(tol, loss=loss):
            return LinearSVC(C=1.0, loss=loss, dual=True, fit_intercept=False, tol=tol,
                             max_iter=100_000, random_state=0)

        def ours(tol, loss=loss):
            return DualCDClassifier(C=1.0, loss=loss, fit_intercept=False, tol=tol,
                                    max_iter=100_000, random_state=0)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            p_star = _primal(X, y, liblinear(1e-10).fit(X32, y).coef_.ravel(), 1.0, loss)
            tol_sk = _loosest(liblinear, X32, y, 1.0, loss, p_star)
            tol_ours = _loosest(ours, X, y, 1.0, loss, p_star)
            repeats = 1 if quick else 5
            sk_times = timed(lambda tol=tol_sk: liblinear(tol).fit(X32, y), repeats)
            our_times = timed(lambda tol=tol_ours: ours(tol).fit(X, y), repeats)
        rows.append(ratio_row(f"LinearSVC / DualCD, time to 1e-6 ({name}, {loss}, C=1)",
                              sk_times, our_times, target=1.0,
                              note=f"tolerances reaching 1e-6: liblinear {tol_sk:g}, "
                                   f"lsl {tol_ours:g}"))
    return rows


def _lasso_problem(n, d, seed=0):
    """Correlated features (a shared factor, correlation 0.5), 10 informative, noise 1,
    alpha = 0.002 alpha_max: a fit takes many epochs, long enough to time."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + rng.normal(size=(n, 1))
    w = np.zeros(d)
    w[:10] = rng.normal(size=10) * 3
    y = X @ w + rng.normal(size=n)
    alpha = 0.002 * np.max(np.abs(X.T @ (y - y.mean()))) / n
    return X, y, alpha


def lasso_vs_sklearn(quick):
    rows = []
    shapes = [(4000, 100), (500, 500)] if quick else [(20_000, 100), (1000, 1000)]
    for n, d in progress(shapes, desc="Lasso shapes"):
        X, y, alpha = _lasso_problem(n, d)
        repeats = 1 if quick else 5
        variants = [("defaults", {}, {})]
        if n > d:
            variants += [("both Gram", {"precompute": True}, {"precompute": True}),
                         ("both residual", {}, {"precompute": False})]
        for label, sk_kw, our_kw in variants:
            sk = timed(lambda kw=sk_kw, X=X, y=y, alpha=alpha: Lasso(
                alpha=alpha, tol=1e-6, max_iter=100_000, **kw).fit(X, y), repeats)
            ours = timed(lambda kw=our_kw, X=X, y=y, alpha=alpha: LassoCD(
                alpha=alpha, tol=1e-6, max_iter=100_000, **kw).fit(X, y), repeats)
            rows.append(ratio_row(f"sklearn Lasso / LassoCD, tol 1e-6 ({n} x {d}, {label})",
                                  sk, ours, target=1 / 1.5 if label == "defaults" else None))
    return rows


def numba_vs_numpy(quick):
    repeats = 1 if quick else 3
    X, y = load_shared("a9a")
    if quick:
        X, y = X[:5000], y[:5000]

    def svm(backend):  # no shrinking: the reference has none, the same work on both paths
        return lambda: DualCDClassifier(C=1.0, max_iter=10, tol=0.0, shrinking=False,
                                        fit_intercept=False, backend=backend,
                                        random_state=0).fit(X, y)

    Xl, yl, alpha = _lasso_problem(1000, 200)

    def lasso(backend):
        return lambda: LassoCD(alpha=alpha, max_iter=50, tol=0.0, precompute=False,
                               backend=backend).fit(Xl, yl)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # fixed epochs on purpose
        return [ratio_row("DualCD numba / numpy reference (a9a, 10 epochs, no shrinking)",
                          timed(svm("numpy"), repeats), timed(svm("numba"), repeats), target=10.0),
                ratio_row("LassoCD numba / numpy reference (1000 x 200, 50 epochs)",
                          timed(lasso("numpy"), repeats), timed(lasso("numba"), repeats),
                          target=10.0)]


def _epochs_to(values, level):
    """The first epoch (1-based index of the trace) where ``values <= level``, or None."""
    hits = np.flatnonzero(np.asarray(values) <= level)
    return int(hits[0]) if hits.size else None


def sdca_vs_pegasos(quick, epochs=(1, 2, 5, 10, 20, 50)):
    """Pegasos vs SDCA on a9a: prints f(w) − f* after some epochs, returns ratio rows."""
    X, y = load_shared("a9a")
    if quick:
        X, y = X[:5000], y[:5000]
    n, n_epochs = len(y), max(epochs)
    rows = []
    for lam in progress((1e-4, 1e-5), desc="SDCA vs Pegasos"):
        C = 1 / (lam * n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ref = DualCDClassifier(C=C, loss="hinge", tol=1e-10, max_iter=100_000,
                                   shrinking=True, fit_intercept=False, sampling="reshuffle",
                                   random_state=0).fit(X, y)
            f_star = lam * (svm_objectives(X, y, np.append(ref.coef_[0], 0.0), ref.alpha_, C)[0]
                            - ref.duality_gap_)  # the dual value: a lower bound on P*
            pegasos = PegasosClassifier(
                lam=lam, n_iter=n_epochs * n, batch_size=1, loss="hinge", sampling="iid",
                projection=True, averaging="none", step_offset=0, fit_intercept=False,
                record_every=n, reference_objective=f_star, random_state=0).fit(X, y)
            curves = {"Pegasos": pegasos.history_["suboptimality"]}
            for label, sampling in (("SDCA (dual CD, iid)", "iid"),
                                    ("dual CD, reshuffle", "reshuffle")):
                cd = DualCDClassifier(C=C, loss="hinge", tol=0.0, max_iter=n_epochs,
                                      shrinking=False, fit_intercept=False, sampling=sampling,
                                      record_every=1, random_state=0).fit(X, y)
                curves[label] = lam * cd.history_["objective"] - f_star
        print(f"a9a{' (5000 rows)' if quick else ''}, lambda = {lam:g}: f(w) - f* after "
              + ", ".join(str(e) for e in epochs) + " epochs")
        for label, values in curves.items():
            print(f"    {label:22s}" + "".join(f" {values[e]:9.1e}" for e in epochs))
        sdca = _epochs_to(curves["SDCA (dual CD, iid)"], 1e-3)
        peg = _epochs_to(curves["Pegasos"], 1e-3)
        if sdca is not None:
            reached = f"{peg}" if peg is not None else \
                f"not within {n_epochs} (the ratio is a lower bound)"
            rows.append(ratio_row(
                f"Pegasos / SDCA, epochs to f - f* <= 1e-3 (a9a, lambda={lam:g})",
                [peg if peg is not None else n_epochs], [sdca], target=None,
                note=f"SDCA {sdca} epochs, Pegasos {reached}"))
    return rows


def defaults_vs_peers(quick):
    """Test scores of DualCDClassifier(), LassoCD() and BlockCDKernelRidge() with their
    defaults against LinearSVC(), Lasso() and KernelRidge(kernel='rbf').

    Printed, not timed: what a user who sets nothing gets. Classification on the LIBSVM
    sets (a9a and ijcnn1 with their test splits); regression on three PMLB sets (3000
    training rows, 2000 test rows, standardised features; for kernel ridge the target
    standardised too).
    """
    from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from lsl_lib.coordinate_descent import BlockCDKernelRidge

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # liblinear's hinge at 1000 its
        for name in ("a9a", "ijcnn1"):
            X, y = load_shared(name)
            X_test, y_test = load_shared(name, "test")
            if quick:
                X, y = X[:5000], y[:5000]
            X, X_test = (sp.csr_matrix((A.data, A.indices.astype(np.int32),
                                        A.indptr.astype(np.int32)), shape=A.shape)
                         for A in (X, X_test))
            print(f"{name}: test accuracy, defaults   LinearSVC() "
                  f"{LinearSVC(random_state=0).fit(X, y).score(X_test, y_test):.4f}   "
                  f"DualCDClassifier() "
                  f"{DualCDClassifier(random_state=0).fit(X, y).score(X_test, y_test):.4f}")
    for name in ("pmlb_227_cpu_small", "pmlb_537_houses", "pmlb_574_house_16H"):
        data = np.loadtxt(shared_data_dir() / f"{name}.tsv.gz", skiprows=1)
        X, X_test, y, y_test = train_test_split(data[:, :-1], data[:, -1], train_size=3000,
                                                test_size=2000, random_state=0)
        scaler = StandardScaler().fit(X)
        X, X_test = scaler.transform(X), scaler.transform(X_test)
        z, z_test = (y - y.mean()) / y.std(), (y_test - y.mean()) / y.std()
        scores = [Lasso().fit(X, y).score(X_test, y_test),
                  LassoCD().fit(X, y).score(X_test, y_test),
                  SklearnKernelRidge(kernel="rbf").fit(X, z).score(X_test, z_test),
                  BlockCDKernelRidge(random_state=0).fit(X, z).score(X_test, z_test)]
        print(f"{name}: test R^2, defaults   Lasso() {scores[0]:.4f}  LassoCD() {scores[1]:.4f}"
              f"   KernelRidge(kernel='rbf') {scores[2]:.4f}  BlockCDKernelRidge() "
              f"{scores[3]:.4f}")
    return []


def run(quick=False):
    rows = []
    if shared_data_dir() is not None:
        for name in progress(("a9a", "w8a"), desc="dual CD"):
            rows += dual_cd_vs_liblinear(name, quick)
        rows += numba_vs_numpy(quick)
        rows += sdca_vs_pegasos(quick)
        rows += defaults_vs_peers(quick)
    else:
        print("(dual CD rows skipped: set LSL_SHARED_DATA to the course's data sets)")
    return rows + lasso_vs_sklearn(quick)
