r"""lsl_lib: the algorithms of the large-scale learning course.

Each topic is a submodule, imported lazily on first use so that ``import lsl_lib``
stays fast (numba and matplotlib are only loaded by the modules that need them)::

    from lsl_lib.pegasos import PegasosClassifier
    import lsl_lib; lsl_lib.pegasos.PegasosClassifier

Using the estimators
--------------------
What every iterative learner does alike; its own docstring says only where it differs.

- **Backends.** ``backend='numpy'`` runs the numpy reference, written in the paper's
  symbols; ``'numba'`` its compiled twin; ``'auto'`` the twin when numba is importable and
  ``LSL_NUMBA`` is not ``0`` (``'numba'`` without numba raises ``ImportError``). Both paths
  draw their indices and random numbers once, in Python, from ``random_state``: one seed
  gives the same iterates on both, to rounding. The first compiled fit compiles, or loads
  numba's cache; nothing compiles at import.
- **Traces.** ``record_every=k`` records the objective (and the columns the estimator
  lists) at the start, every k iterations, steps or epochs, and at the end, in
  ``history_``: a dict of equal-length arrays (``pandas.DataFrame(model.history_)``).
  ``None``, the default, records nothing and costs nothing.
- **Progress.** ``verbose=True`` shows a ``tqdm`` progress bar once a fit has run for
  two seconds.
- **Interrupting.** Ctrl-C (Jupyter's "interrupt kernel") stops a fit at the end of the
  running chunk of iterations, a fraction of a second
  (:func:`lsl_lib._core.run_loop.run_chunks`); a second Ctrl-C stops it at once. ``fit``
  then leaves the estimator unfitted, ``partial_fit`` the model of its last whole chunk;
  a functional core (``pegasos``, ``dual_cd``, ...) raises ``KeyboardInterrupt``.
- **Divergence.** An iterate whose norm becomes NaN or infinite, or grows by orders of
  magnitude, stops the fit with a ``ValueError`` that names the step-size parameter to
  lower.
- **Sample weights** of a stochastic learner (``fit(X, y, sample_weight)``: non-negative,
  not all zero) draw the examples in proportion to :math:`s_i`
  (:func:`lsl_lib._core.sampling.weighted_sample_indices`), so that the steps descend the
  weighted risk :math:`\sum_i s_i\ell_i / \sum_i s_i`. Integer weights draw exactly the
  indices of the rows repeated :math:`s_i` times, zero the row removed; non-integer
  weights need ``sampling='iid'``.
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
