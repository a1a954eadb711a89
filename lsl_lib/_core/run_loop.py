"""The one run loop of every iterative learner (CONTRIBUTING.md §2-3).

A solver hands :func:`run_chunks` a function ``step(start, stop)`` that runs its units
(iterations, epochs) ``start .. stop - 1`` in one compiled (or numpy) call and leaves the
solver's state consistent. The loop decides the chunks and does what is to be done between
them, in Python:

* **short chunks.** A chunk's length adapts so that it takes about :data:`CHUNK_SECONDS` of
  wall time (the first chunk is one unit long and the length grows at most
  :data:`CHUNK_GROWTH`-fold from one chunk to the next, so that a first call that compiles,
  or first units cheaper than the later ones, do not make the next chunk long; a short fit
  runs in a handful of chunks, whose Python between them costs nothing measurable). The
  chunks also end at every ``record_every`` boundary, where ``record()`` writes a row of the
  trace. A solver's iterates do not depend on where its chunks end: each solver's tests check
  that one-unit chunks give the same numbers.
* **Ctrl-C.** While the loop runs in the main thread, SIGINT (Ctrl-C, Jupyter's "interrupt
  kernel") is held until the running chunk ends, then raised as ``KeyboardInterrupt``: a fit
  stops within about a chunk's length, and the solver's state is that of the last whole chunk.
  A second SIGINT before that raises at once (to leave a first call that compiles, for
  example); the estimator is then unfitted. The estimators say what they keep
  (:func:`unfitted_on_interrupt`).
* **divergence.** ``norm()``, a size of the iterate (a weight norm), is checked after each
  chunk: NaN, inf, or growth by more than :data:`DIVERGENCE_GROWTH` over its size after the
  first chunk raise ``ValueError(diverged(unit))``, a message that names the step-size
  parameter to lower.
* **progress.** ``verbose=True`` shows one ``tqdm.auto`` progress bar over the units, from
  :data:`PROGRESS_DELAY` seconds on (a fit that ends sooner shows none).
"""
import functools
import signal
import threading
import time

import numpy as np

#: Target wall time of one chunk, in seconds: Ctrl-C waits at most about this long.
CHUNK_SECONDS = 0.05
#: Largest growth of a chunk's length over the last one's. Doubling made a 5 ms fit of
#: 5 000 units run in 13 chunks, whose checks between them cost 10 % of it
#: (benchmarks/README.md, "The one run loop"); eightfold makes it 5.
CHUNK_GROWTH = 8
#: Growth of ``norm()`` over its value after the first chunk that counts as divergence.
DIVERGENCE_GROWTH = 1e12
#: A progress bar appears after this many seconds of a fit.
PROGRESS_DELAY = 2.0


class _HeldInterrupt:
    """Holds SIGINT while a chunk runs; re-raises it between chunks (main thread only)."""

    def __init__(self):
        self.pending = False
        self.previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if previous is signal.default_int_handler:  # someone else's handler: leave it be
                self.previous = previous
                signal.signal(signal.SIGINT, self._hold)
        return self

    def _hold(self, signum, frame):
        if self.pending:  # the second Ctrl-C does not wait
            raise KeyboardInterrupt
        self.pending = True

    def raise_pending(self):
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        self.raise_pending()
        return False


def _progress_bar(total, desc, unit):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, delay=PROGRESS_DELAY, leave=False)


def run_chunks(trace, n_units, step, *, record_every=None, record=None, norm=None,
               diverged=None, verbose=False, desc=None, unit="it"):
    """Run ``step`` over ``range(n_units)`` in short chunks; record, check and interrupt
    between them.

    Parameters
    ----------
    trace : Trace
        Its clock runs while ``step`` runs (``trace.seconds`` is solver time).
    n_units : int
        The iterations (or epochs) to run.
    step : callable
        ``step(start, stop)`` runs units ``start .. stop - 1`` and leaves the state consistent.
        It may return ``True`` to stop early (a solver that converged).
    record_every : int or None, default=None
        Call ``record()`` at unit 0, every that many units, and at the end; None: never.
    record : callable or None, default=None
    norm : callable or None, default=None
        ``norm() -> float``, a size of the iterate, checked after each chunk.
    diverged : callable or None, default=None
        ``diverged(unit) -> str``, the message of the ``ValueError`` raised on divergence;
        it should name the step-size parameter. Required with ``norm``.
    verbose : bool, default=False
        Show a progress bar after :data:`PROGRESS_DELAY` seconds.
    desc, unit : str
        The progress bar's label and unit.

    Returns
    -------
    n_done : int
        The units run (fewer than ``n_units`` when ``step`` stopped early).

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, at the end of the running chunk.
    ValueError
        On divergence.
    """
    if record_every is not None:
        record()
    bar = _progress_bar(n_units, desc, unit) if verbose else None
    reference = None
    done, size = 0, 1
    try:
        with _HeldInterrupt() as interrupt:
            while done < n_units:
                start, stop = done, min(done + size, n_units)
                if record_every is not None:
                    stop = min(stop, (done // record_every + 1) * record_every)
                tic = time.perf_counter()
                trace.start()
                finished = step(done, stop)
                trace.stop()
                elapsed = time.perf_counter() - tic
                if bar is not None:
                    bar.update(stop - start)
                done = stop
                if norm is not None:
                    value = float(norm())
                    if reference is None and np.isfinite(value) and value > 0:
                        reference = value
                    if not np.isfinite(value) or (
                            reference is not None and value > DIVERGENCE_GROWTH * reference):
                        raise ValueError(diverged(done))
                if record_every is not None and (done % record_every == 0 or done == n_units
                                                 or finished):
                    record()
                if finished:
                    break
                interrupt.raise_pending()
                size = _next_size(size, stop - start, elapsed)
    finally:
        if bar is not None:
            bar.close()
    return done


def _next_size(size, ran, elapsed):
    """The next chunk's length: at most :data:`CHUNK_GROWTH` times the last planned
    ``size``, and as many units as take :data:`CHUNK_SECONDS` at the speed of the last
    chunk (``ran`` units in ``elapsed`` seconds)."""
    if elapsed <= 0:
        return CHUNK_GROWTH * size
    return max(1, min(CHUNK_GROWTH * size, int(ran * CHUNK_SECONDS / elapsed)))


def _unfitted_on(exception):
    """A decorator of ``fit``: ``exception`` leaves the estimator unfitted."""

    def decorate(fit):
        @functools.wraps(fit)
        def wrapper(self, *args, **kwargs):
            try:
                return fit(self, *args, **kwargs)
            except exception:
                for name in [n for n in vars(self) if (n.endswith("_") and not n.startswith("__"))
                             or n == "_state"]:
                    delattr(self, name)
                raise

        return wrapper

    return decorate


#: Decorate ``fit``: a ``KeyboardInterrupt`` leaves the estimator unfitted. Every fitted
#: attribute (a name ending in ``_``, and the private ``_state``) is removed before the
#: interrupt propagates, so that ``check_is_fitted`` fails instead of a model of some earlier
#: or unfinished fit answering ``predict``. Placed above scikit-learn's ``_fit_context``, so
#: that an interrupt during its parameter validation unfits too.
unfitted_on_interrupt = _unfitted_on(KeyboardInterrupt)
#: As :func:`unfitted_on_interrupt`, for any exception: a fit interrupted or failed (a bad
#: parameter or input of a refit included) leaves the estimator unfitted.
unfitted_on_error = _unfitted_on(BaseException)
