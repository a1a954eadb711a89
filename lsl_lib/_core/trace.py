"""Convergence traces recorded between compiled chunks (CONTRIBUTING.md §2).

A solver runs its T iterations in chunks (:func:`lsl_lib._core.run_loop.run_chunks`), which
end at every ``record_every`` iterations; there it evaluates what is to be plotted, in numpy.
The clock runs only while a chunk runs, so ``seconds`` is solver time, not recording time,
and with ``record_every=None`` nothing is recorded.
"""
import time

import numpy as np


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
