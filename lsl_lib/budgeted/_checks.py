"""Checks shared by the budgeted machines: the number of iterations drawn up front, and a
kernel that is nearly constant on X."""
import warnings

import numpy as np

from lsl_lib._core.sampling import MAX_INDICES
from lsl_lib.kernels import kernel_matrix

__all__ = ["warn_if_kernel_is_flat"]


def _check_iterations(n_iter, parameter, largest):
    """Refuse more iterations than :func:`~lsl_lib._core.sampling.sample_indices` draws up
    front (their example indices are drawn before the run), naming the parameter to lower."""
    if n_iter > MAX_INDICES:
        raise ValueError(
            f"{parameter} gives {n_iter:.3g} iterations, whose examples are drawn up front: "
            f"more than {MAX_INDICES:.3g} ({8 * MAX_INDICES / 2**30:.0f} GiB of indices); lower "
            f"{parameter.split('=')[0]} to at most {largest}.")


#: ``fit`` looks at the kernel on this many rows of X, evenly spaced (a block small enough to
#: cost nothing beside a fit; timed in benchmarks/README.md, §Budgeted kernel machines) ...
_FLAT_KERNEL_ROWS = 100
#: ... and warns when its values there differ by less than this fraction of their size.
_FLAT_KERNEL_SPREAD = 1e-3


def warn_if_kernel_is_flat(X, kernel="gaussian", gamma=None, degree=3, coef0=1.0):
    r"""Warn (``UserWarning``) when the kernel is nearly constant on X.

    The kernel matrix K of ``_FLAT_KERNEL_ROWS`` evenly spaced rows of X (no random draw:
    the fit's random stream is untouched) is flat when
    :math:`\max K - \min K \le` ``_FLAT_KERNEL_SPREAD`` :math:`\cdot \max |K|`. A kernel
    machine then sees every example alike and predicts the majority class: so it goes
    with ``gamma='scale'`` when constant columns of large value inflate the variance of X,
    or with an inner-product kernel whose constant part dominates :math:`x^\top x'`.
    The warning names the cure (standardised features, or ``gamma``) and changes nothing:
    the library does not rescale data behind the user's back.
    """
    n = X.shape[0]
    if n < 2:
        return
    rows = np.unique(np.linspace(0, n - 1, min(n, _FLAT_KERNEL_ROWS)).astype(np.int64))
    K = kernel_matrix(X[rows], None, kernel, gamma, degree, coef0)
    size = float(np.abs(K).max())
    spread = float(K.max() - K.min())
    if spread > _FLAT_KERNEL_SPREAD * size:
        return
    where = (f"gamma={gamma:.3g} makes gamma * ||x - x'||^2 tiny" if kernel not in
             ("linear", "polynomial") else "a constant part dominates the products x . x'")
    warnings.warn(
        f"The {kernel} kernel is nearly constant on X: on {len(rows)} of its rows its values "
        f"differ by at most {spread / size if size > 0 else 0.0:.1e} of their size ({where}), "
        "so the model can hardly tell the examples apart and may predict the majority class. "
        "Columns that are constant or far larger than the others do this (gamma='scale' is "
        "1 / (n_features * X.var()), over all entries of X); standardise the features "
        "(sklearn.preprocessing.StandardScaler) or set gamma.", UserWarning,
        stacklevel=5)  # the caller of the estimator's fit, which calls this
