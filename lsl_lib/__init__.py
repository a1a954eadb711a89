"""lsl_lib: the algorithms of the large-scale learning course.

Each topic is a submodule, imported lazily on first use so that ``import lsl_lib``
stays fast (numba and matplotlib are only loaded by the modules that need them)::

    from lsl_lib.pegasos import PegasosClassifier
    import lsl_lib; lsl_lib.pegasos.PegasosClassifier
"""
import importlib

__version__ = "0.1.0"

_SUBMODULES = ("budgeted", "coordinate_descent", "datasets", "distributed", "doubly_stochastic",
               "elm", "fastfood", "kernel_pegasos", "kernels", "kitchen_sinks", "losses",
               "nystroem", "online_kernel", "papers", "pegasos", "plotting", "random_binning",
               "random_features", "stochastic_gradient", "subgradients", "theory", "widgets")

__all__ = list(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"lsl_lib.{name}")
    raise AttributeError(f"module 'lsl_lib' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
