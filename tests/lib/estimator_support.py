"""Scaffolding shared by the estimator tests: bad-input matrices, and the loops of the
distributed estimators compiled before their worker threads run them."""
import numpy as np
import scipy.sparse as sp

from lsl_lib.datasets import linear_teacher
from lsl_lib.doubly_stochastic import DoublyStochasticClassifier, DoublyStochasticRegressor
from lsl_lib.pegasos import PegasosClassifier


def with_nan(X):
    """A copy of ``X`` with NaN on its diagonal (``X[i, i]`` for ``i < min(X.shape)``)."""
    return np.where(np.eye(*X.shape) == 1, np.nan, X)


def with_inf(X):
    """A copy of ``X`` with +infinity on its diagonal."""
    return np.where(np.eye(*X.shape) == 1, np.inf, X)


def compile_parallel_loops():
    """Compile the loops the Dask workers run here first, so that they load them from numba's
    cache.

    The distributed estimators fit on a local cluster of threads in this process; numba's
    lowering calls ``ast.parse``, which CPython 3.11 does not make safe against a parse in
    another thread at the same moment (python/cpython#106905: a rare spurious "SystemError:
    AST constructor recursion depth mismatch", seen once in the test process's reporting
    while worker threads compiled)."""
    X, y = linear_teacher(50, 8, label_noise=0.05, random_state=0)
    for Xw in (X, sp.csr_matrix(X), X.astype(np.float32)):
        for loss in ("hinge", "multiclass_hinge"):
            PegasosClassifier(n_iter=5, loss=loss, random_state=0).fit(Xw, y)
        DoublyStochasticClassifier(n_iter=3, batch_size=4, random_state=0).fit(Xw, y)
        DoublyStochasticClassifier(n_iter=3, batch_size=4, loss="log", random_state=0).fit(
            Xw, y).predict_proba(Xw[:5])
        DoublyStochasticRegressor(n_iter=3, batch_size=4, random_state=0).fit(Xw, X[:, 0])
