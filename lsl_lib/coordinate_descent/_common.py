"""What the three coordinate descents share: the parameter constraints, one BLAS thread,
the convergence warning, the unsigned index arrays the compiled loops read."""
import warnings
from numbers import Integral, Real

import numpy as np
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

def _unsigned_indices(a, largest):
    """``a`` viewed (or, if 64-bit, copied) as unsigned: numba then skips its
    negative-index test, and 32-bit indices, when every index is below 2^32, read less
    memory. The permutation ``index`` of :func:`~lsl_lib.coordinate_descent.dual_cd` is
    unsigned for the same reason."""
    if a.itemsize == 4:
        return a.view(np.uint32)
    return a.astype(np.uint32) if largest < 2 ** 32 else a.view(np.uint64)
