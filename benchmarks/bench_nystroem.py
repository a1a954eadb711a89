"""Nyström: lsl's ``Nystroem`` against scikit-learn's, fit + transform at equal m and error.

- Data: the first 20 000 rows of the covtype subsample (d = 54, $LSL_SHARED_DATA), or
  20 000 x 50 standard normal points when the shared data are absent.
- Gaussian kernel, gamma by the median heuristic (:func:`median_heuristic_gamma`).
- m in {100, 500, 1000} landmarks drawn uniformly; the time of ``fit(X).transform(X)`` on
  the 20 000 rows, paired repeats; target: lsl no slower (ratio sklearn / lsl >= 1).
- Equal error: the relative Frobenius error ||ZZ' - K||_F / ||K||_F on the first 2000
  rows (``kernel_approximation_error``), of lsl's map and of scikit-learn's map given the
  same landmarks (the two must agree: same approximation K_nm K_mm^+ K_mn), and of
  scikit-learn's map with its own landmarks (another uniform draw); and, for comparison,
  of lsl's map with landmarks drawn by ridge leverage scores (not timed).
"""
import numpy as np
from scipy.spatial.distance import pdist
from sklearn.kernel_approximation import Nystroem as SklearnNystroem

from benchmarks.common import progress, ratio_row, timed
from lsl_lib.datasets import load_covtype, shared_data_dir
from lsl_lib.nystroem import Nystroem
from lsl_lib.random_features import kernel_approximation_error

N_ERROR = 2000  # rows on which the n x n kernel matrix is compared


def median_heuristic_gamma(X):
    """gamma = 1 / (2 med^2), med the median distance between two of the first 2000 rows:
    :math:`k(x, y) = \\exp(-\\|x - y\\|^2 / (2 \\mathrm{med}^2))`."""
    return 1.0 / (2.0 * np.median(pdist(X[:N_ERROR])) ** 2)


def covtype_or_synthetic(n, d_synthetic=50):
    """The first n rows of the covtype subsample, or n x d_synthetic standard normal points
    (seed 0) when the shared data are absent; returns ``(X, name)``."""
    if shared_data_dir() is not None:
        return load_covtype()[0][:n], "covtype"
    return np.random.default_rng(0).normal(size=(n, d_synthetic)), "synthetic"


def run(quick=False):
    X, name = covtype_or_synthetic(2000 if quick else 20000)
    gamma = median_heuristic_gamma(X)
    rows = []
    for m in progress((100,) if quick else (100, 500, 1000), desc="Nyström m"):
        def ours(m=m):
            return Nystroem(n_components=m, gamma=gamma, random_state=0).fit(X).transform(X)

        def sklearn(m=m):
            return SklearnNystroem(n_components=m, gamma=gamma, random_state=0).fit(X).transform(X)

        repeats = 1 if quick else 5
        sk_times = timed(sklearn, repeats)
        our_times = timed(ours, repeats)

        model = Nystroem(n_components=m, gamma=gamma, random_state=0).fit(X)
        same = SklearnNystroem(n_components=m, gamma=gamma).fit(model.components_)
        own = SklearnNystroem(n_components=m, gamma=gamma, random_state=0).fit(X)
        leverage = Nystroem(n_components=m, gamma=gamma, sampling="leverage", random_state=0).fit(X)
        errors = [kernel_approximation_error(t, X[:N_ERROR], kernel="gaussian", gamma=gamma,
                                             degree=3, coef0=1.0)  # sklearn's degree is None
                  ["relative_frobenius"] for t in (model, same, own, leverage)]
        rows.append(ratio_row(
            f"sklearn Nystroem / Nystroem, fit+transform ({name}, m={m})",
            sk_times, our_times, target=1.0,
            note=f"n={X.shape[0]}, d={X.shape[1]}, gamma={gamma:.3g}; relative Frobenius error on "
                 f"{N_ERROR} rows: lsl {errors[0]:.4g}, sklearn same landmarks {errors[1]:.4g}, "
                 f"sklearn own landmarks {errors[2]:.4g}; lsl leverage sampling {errors[3]:.4g}"))
    return rows
