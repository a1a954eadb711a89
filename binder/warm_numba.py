"""Compile lsl_lib's numba fast paths once, into numba's on-disk cache (Binder's postBuild).

Every ``@jit`` function of lsl_lib has ``cache=True``: the machine code goes to
``lsl_lib/**/__pycache__`` the first time a signature is compiled, and later sessions load it
instead of compiling again. On Binder that first time would be each student's session; run
at build time, it is the image's. This script fits every estimator of lsl_lib that has a
numba path (``backend='numba'``) on small dense and CSR data, for each value of its string
options (losses, kernels, sampling schemes, ...), binary and with three classes, so that the
signatures the lectures use are compiled. Combinations an estimator refuses are skipped.

numba keys its cache by CPU: Binder builds and runs on machines that may differ, so
``binder/postBuild`` and ``binder/start`` both set ``NUMBA_CPU_NAME=generic`` (code for a
generic x86-64 CPU, the same on every node).

    python binder/warm_numba.py        # prints what it compiled and how long it took
"""
import importlib
import inspect
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils._param_validation import StrOptions

import lsl_lib


def estimators_with_numba_paths():
    """(name, class) of every public lsl_lib estimator that takes ``backend``."""
    found = []
    for module_name in lsl_lib._SUBMODULES:
        module = importlib.import_module(f"lsl_lib.{module_name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            defined_here = (cls.__module__ == module.__name__
                            or cls.__module__.startswith(module.__name__ + "."))
            if (issubclass(cls, BaseEstimator) and defined_here  # a package's parts count
                    and not name.startswith("_")
                    and "backend" in inspect.signature(cls).parameters):
                found.append((name, cls))
    return found


# A few iterations compile the same code as many: keep the warm-up about compiling.
SHORT_RUN = {"n_iter": 8, "max_iter": 3}


def variants(cls):
    """Default parameters, then each value of each string option, one at a time."""
    yield {}
    for param, constraints in getattr(cls, "_parameter_constraints", {}).items():
        if param == "backend":
            continue
        for constraint in constraints:
            if isinstance(constraint, StrOptions):
                for option in sorted(constraint.options):
                    yield {param: option}


def data(rng, n=60, d=5):
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    return {"dense": X, "csr": sp.csr_matrix(X)}


def main():
    rng = np.random.default_rng(0)
    Xs = data(rng)
    X = Xs["dense"]
    targets = {"binary": np.where(X[:, 0] + X[:, 1] > 0, 1, -1),
               "multiclass": np.digitize(X[:, 0], [-0.5, 0.5]),
               "regression": X[:, 0] - 2.0 * X[:, 1]}
    start = time.perf_counter()
    fitted = refused = 0
    for name, cls in estimators_with_numba_paths():
        if issubclass(cls, ClassifierMixin):
            kinds = ["binary", "multiclass"]
        elif issubclass(cls, RegressorMixin):
            kinds = ["regression"]
        else:
            kinds = [None]  # a transformer
        seen = time.perf_counter()
        for params in variants(cls):
            estimator = cls(backend="numba", random_state=0)
            short = {key: value for key, value in SHORT_RUN.items()
                     if key in estimator.get_params()}
            estimator.set_params(**short, **params)
            for X in Xs.values():
                for kind in kinds:
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            if kind is None:
                                clone(estimator).fit_transform(X)
                            else:
                                model = clone(estimator).fit(X, targets[kind])
                                model.predict(X)
                        fitted += 1
                    except (ValueError, TypeError):
                        refused += 1  # a combination the estimator does not take
        print(f"{name:40s} {time.perf_counter() - seen:6.1f} s")
    print(f"{fitted} fits ({refused} combinations refused) in "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
