"""What the three coordinate descents share: the parameter constraints, one BLAS thread,
and the convergence warning."""
import warnings
from numbers import Integral, Real

from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval
from threadpoolctl import ThreadpoolController

from lsl_lib._core.validation import ITERATIVE_CONSTRAINTS

#: Uniforms drawn at a time (beyond an epoch's need).
_DRAW_SIZE = 2 ** 16

_CD_CONSTRAINTS = {
    "tol": [Interval(Real, 0, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "fit_intercept": ["boolean"],
    **{k: v for k, v in ITERATIVE_CONSTRAINTS.items() if k != "sampling"},
}
_blas_controller = None


def _one_blas_thread():
    """Run BLAS on one thread, as scikit-learn's KMeans does: a CD loop makes many
    short level-1 calls in sequence, and numba's ``np.dot`` (scipy's OpenBLAS) and the
    driver's numpy (numpy's OpenBLAS) would otherwise wake two thread pools that spin
    against each other. Block CD alternates numpy's products with scipy's Cholesky in
    the same way (measured in benchmarks/README.md, §Coordinate descent)."""
    global _blas_controller
    if _blas_controller is None:  # created once: it inspects the loaded libraries
        _blas_controller = ThreadpoolController()
    return _blas_controller.limit(limits=1, user_api="blas")


def _warn_not_converged(what):
    warnings.warn(f"{what} did not converge; increase the number of epochs or tol.",
                  ConvergenceWarning, stacklevel=3)
