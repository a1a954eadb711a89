"""Figures of the lectures: results in, :class:`matplotlib.figure.Figure` out.

Pure functions: they never fit a model (CONTRIBUTING.md §1). They build figures with
``matplotlib.figure.Figure`` rather than ``pyplot``, so no global state piles up
when a widget redraws a figure a hundred times; a notebook cell that ends with a
figure displays it once.

The figures live in one module per lecture (``lsl_lib._plotting.pegasos`` holds those of
``notebooks/02_pegasos.ipynb``, and so on) on the common ground of
:mod:`lsl_lib._plotting._base`; every figure is importable from here. Each of those modules
lists its figures in its ``__all__``, and this module's ``__all__`` is their union, in the
lectures' order.
"""
import importlib

# the lectures' order (kernel_approximation: the figures shared by lectures 07 to 10)
_MODULES = [importlib.import_module(f"lsl_lib._plotting.{name}") for name in (
    "_base", "subgradients", "pegasos", "kernel_pegasos", "online_kernel", "stochastic_gradient",
    "coordinate_descent", "kernel_approximation", "random_features", "nystroem", "elm",
    "random_binning", "kitchen_sinks", "doubly_stochastic", "budgeted", "distributed")]

__all__ = [name for module in _MODULES for name in module.__all__]
globals().update({name: getattr(module, name) for module in _MODULES for name in module.__all__})


def __dir__():
    return __all__
