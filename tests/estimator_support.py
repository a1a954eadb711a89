"""Scaffolding shared by the estimator tests: bad-input matrices, and the scikit-learn checks
that set ``n_components=1``, which some estimators refuse (see ``n_components_one_failures``)."""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils import estimator_checks


def with_nan(X):
    """A copy of ``X`` with NaN on its diagonal (``X[i, i]`` for ``i < min(X.shape)``)."""
    return np.where(np.eye(*X.shape) == 1, np.nan, X)


def with_inf(X):
    """A copy of ``X`` with +infinity on its diagonal."""
    return np.where(np.eye(*X.shape) == 1, np.inf, X)


#: scikit-learn's checks that set n_components = 1 (check_fit2d_1feature last: an estimator
#: that refuses one feature first passes it).
N_COMPONENTS_ONE = ("check_dont_overwrite_parameters", "check_methods_sample_order_invariance",
                    "check_methods_subset_invariance", "check_fit2d_1sample",
                    "check_fit2d_predict1d", "check_fit2d_1feature")


def n_components_one_failures(refused, reason):
    """``expected_failed_checks`` for ``parametrize_with_checks``: each check in
    ``refused(estimator)`` (a subset of :data:`N_COMPONENTS_ONE`) fails, for ``reason``."""
    return lambda estimator: {name: reason for name in refused(estimator)}


def assert_n_components_one_refused(estimator, refused, match):
    """Each check in ``refused(estimator)`` fails on a clone of ``estimator`` with an error
    (the estimator's ValueError, or the check's AssertionError around it) matching ``match``."""
    for name in refused(estimator):
        with pytest.raises((ValueError, AssertionError), match=match):
            getattr(estimator_checks, name)(type(estimator).__name__, clone(estimator))
