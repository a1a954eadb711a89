"""The numba switch.

numba is optional at run time and never imported or compiled when ``lsl_lib`` is
imported. A topic module marks its compiled loops with :func:`jit`; the first call
of one imports numba and rebinds every marked function visible in its module (its
own and those it imported from other modules) to its ``numba.njit(cache=True)``
dispatcher, so marked functions may call each other. Compiled loops release the GIL
(``nogil=True``): they touch no Python object, and threads (Dask's in-process workers,
:mod:`lsl_lib.distributed`) then run them in parallel.
Without numba (or with ``LSL_NUMBA=0``) the same functions stay plain Python: the
estimators then run their numpy reference instead (see :func:`resolve_backend`).

This is more machinery than a ``try: from numba import njit`` shim, for one reason:
``import lsl_lib`` must not pay numba's import (``benchmarks/bench_import.py`` holds it
to 0.3 s over ``import sklearn``). Its visible cost: after the first fit, a module's
marked names are the dispatchers, not the functions that were defined (the plain
function stays reachable as ``.py_func``).
"""
import functools
import importlib.util
import os
import sys
import threading

BACKENDS = ("auto", "numba", "numpy")


def numba_available():
    """True when numba is importable and not disabled by ``LSL_NUMBA=0``."""
    if os.environ.get("LSL_NUMBA", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    return importlib.util.find_spec("numba") is not None


def resolve_backend(backend):
    """Turn ``backend='auto'|'numba'|'numpy'`` into the path that will run.

    Raises
    ------
    ValueError
        If ``backend`` is not one of the three names.
    ImportError
        If ``backend='numba'`` is asked for but numba cannot be used.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}.")
    if backend == "numpy":
        return "numpy"
    if numba_available():
        return "numba"
    if backend == "numba":
        raise ImportError(
            "backend='numba' was requested but numba is not importable or is disabled "
            "by LSL_NUMBA=0; install numba or use backend='numpy'."
        )
    return "numpy"


_dispatchers = {}  # python function -> its numba dispatcher (written under _lock)
_bound = {}  # the same, once the globals of its module are bound (read without the lock)
_lock = threading.RLock()
_inlined = set()  # python functions that numba inlines into their callers (jit(inline=True))


def _dispatcher(func):
    """The ``numba.njit(cache=True)`` dispatcher of ``func``, created once.

    Threads (a Dask worker's) may call the same loop first together: the others wait until
    the module's globals are bound, or numba would compile ``func`` against lazy wrappers.
    """
    dispatcher = _bound.get(func)
    if dispatcher is None:
        with _lock:
            dispatcher = _dispatchers.get(func)  # this thread, binding its module, or done
            if dispatcher is None:
                import numba

                inline = "always" if func in _inlined else "never"
                dispatcher = _dispatchers[func] = numba.njit(cache=True, nogil=True,
                                                             inline=inline)(func)
                _bind_module(sys.modules[func.__module__])
                _bound[func] = dispatcher
    return dispatcher


def _bind_module(module):
    """Rebind every lazy compiled loop visible in ``module`` to its dispatcher.

    numba resolves the functions a compiled loop calls through the globals of its
    module, so they must be dispatchers, not the lazy wrappers, by then.
    """
    for name, value in list(vars(module).items()):
        py_func = getattr(value, "py_func", None)
        if getattr(value, "_lsl_lazy", False):
            setattr(module, name, _dispatcher(py_func))


def jit(func=None, *, inline=False):
    """Mark ``func`` as a compiled loop, compiled by numba on its first call.

    Until then (and always, on the numpy path) ``func.py_func`` is the plain
    Python function. ``@jit(inline=True)`` marks a small helper that numba inlines into
    each compiled caller (``inline="always"``): a call per row, or per stored value,
    would otherwise cost more than the row's arithmetic.
    """
    if func is None:
        return functools.partial(jit, inline=inline)
    if inline:
        _inlined.add(func)

    @functools.wraps(func)
    def lazy(*args):
        return _dispatcher(func)(*args)

    lazy.py_func = func
    lazy._lsl_lazy = True
    return lazy

