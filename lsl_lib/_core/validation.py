"""Checks of user input that scikit-learn's own validation does not cover.

Array checks (NaN, inf, shapes, sparse formats, dtypes) go through
``sklearn.utils.validation.validate_data`` in each estimator; parameter types and
ranges through ``_parameter_constraints``. What is left is what depends on the
data: a batch size against n, labels against a loss.
"""
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight

from lsl_lib._core.backend import BACKENDS
from lsl_lib._core.kernel_loops import KERNELS
from lsl_lib._core.sampling import SCHEMES

#: ``_parameter_constraints`` entries shared by every iterative estimator: the
#: sampling scheme, the trace, the backend and the seed.
ITERATIVE_CONSTRAINTS = {
    "sampling": [StrOptions(set(SCHEMES))],
    "record_every": [Interval(Integral, 1, None, closed="left"), None],
    "backend": [StrOptions(set(BACKENDS))],
    "random_state": [None, Interval(Integral, 0, None, closed="left"), np.random.Generator,
                     np.random.RandomState],
}


def check_sample_weight(sample_weight, X):
    """``sample_weight`` as a float array of len(X): finite, non-negative, not all zero.

    scikit-learn's ``_check_sample_weight`` with ``ensure_non_negative=True``, plus the
    all-zero refusal that only its newer releases make (a weighted mean needs Σ s > 0).
    """
    sample_weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
    if not np.any(sample_weight > 0):
        raise ValueError("Sample weights must contain at least one non-zero number "
                         "(sample_weight is all zeros).")
    return sample_weight


def check_batch_size(batch_size, n_samples):
    """Raise ``ValueError`` unless ``1 <= batch_size <= n_samples``."""
    if batch_size > n_samples:
        raise ValueError(
            f"batch_size={batch_size} is larger than n_samples={n_samples}; "
            "a mini-batch takes k <= n distinct examples."
        )


def clipped_batch_size(batch_size, n_samples):
    """The mini-batch size an estimator uses on n rows: ``batch_size``, or n when the data
    (or a ``partial_fit`` chunk) have fewer rows: a mini-batch of k <= n distinct examples
    cannot be larger, and a short last chunk is no error."""
    return min(batch_size, n_samples)


def signed_binary_labels(y, classes):
    """Map binary labels ``classes[0]``, ``classes[1]`` to -1.0, +1.0."""
    return np.where(y == classes[1], 1.0, -1.0)


def check_n_classes(classes, loss, binary_losses):
    """Raise ``ValueError`` unless the labels suit the loss."""
    if len(classes) < 2:
        raise ValueError(
            f"y has one class ({classes[0]!r}); a classifier needs at least two."
        )
    if loss in binary_losses and len(classes) != 2:
        raise ValueError(
            f"Only binary classification is supported with loss={loss!r}, but y has "
            f"{len(classes)} classes; use loss='multiclass_hinge' or loss='softmax'."
        )


def add_intercept_column(X):
    """Append the constant feature 1 whose weight is the intercept (regularised too)."""
    if sp.issparse(X):
        ones = sp.csr_matrix(np.ones((X.shape[0], 1), dtype=X.dtype))
        return sp.hstack([X, ones], format="csr", dtype=X.dtype)
    return np.hstack([X, np.ones((X.shape[0], 1), dtype=X.dtype)])


#: ``_parameter_constraints`` entries of the kernel parameters.
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(set(KERNELS))],
    "gamma": [Interval(Real, 0, None, closed="neither"), None],
    "degree": [Interval(Integral, 1, None, closed="left")],
    "coef0": [Interval(Real, 0, None, closed="left")],
}


#: The kernel parameters of the exact kernel learners (:class:`lsl_lib.kernels.KernelRidge`,
#: kernel Pegasos, the online kernel learner), whose ``gamma`` may also be ``'scale'``
#: (:func:`lsl_lib.kernels.fitted_gamma`).
LEARNER_KERNEL_CONSTRAINTS = {**KERNEL_CONSTRAINTS,
                              "gamma": [*KERNEL_CONSTRAINTS["gamma"], StrOptions({"scale"})]}


@contextmanager
def memory_named(parameter, value):
    """Inside the block, numpy's ``MemoryError`` is raised again naming the size parameter
    that asked for the memory (numpy's message names only an array's shape)."""
    try:
        yield
    except MemoryError as error:
        detail = f" ({error})" if str(error) else ""
        raise MemoryError(f"{parameter}={value!r} asks for more memory than there is"
                          f"{detail}; lower {parameter}.") from error


def feature_map_dtype(dtype, X_dtype):
    """The dtype a feature map computes and returns: ``dtype`` when given, else float32
    for float32 X and float64 for anything else (as scikit-learn's ``RBFSampler``)."""
    if dtype is not None:
        return np.dtype(dtype)
    return np.dtype(np.float32 if X_dtype == np.float32 else np.float64)
