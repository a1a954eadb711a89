"""Convergence traces recorded between compiled chunks (DESIGN.md §2).

A solver runs its T iterations in chunks of ``record_every`` iterations; between
two chunks it evaluates what is to be plotted in numpy. The clock runs only while
a chunk runs, so ``seconds`` is solver time, not recording time, and with
``record_every=None`` there is one chunk and no recording at all.
"""
import time

import numpy as np


def chunk_bounds(n_iter, record_every):
    """The (start, stop) iteration ranges of the chunks, covering ``range(n_iter)``."""
    step = n_iter if record_every is None else record_every
    starts = range(0, n_iter, step)
    return [(s, min(s + step, n_iter)) for s in starts]


class Trace:
    """Columns of a convergence trace, recorded one row at a time.

    ``history()`` returns a dict mapping each column name (``'iteration'``,
    ``'epoch'``, ``'seconds'``, ``'objective'``, ...) to a 1-D ndarray.
    """

    def __init__(self):
        self._columns = {}
        self.seconds = 0.0
        self._start = None

    def start(self):
        self._start = time.perf_counter()

    def stop(self):
        self.seconds += time.perf_counter() - self._start

    def record(self, **values):
        for name, value in values.items():
            self._columns.setdefault(name, []).append(value)

    def history(self):
        return {name: np.asarray(values) for name, values in self._columns.items()}
