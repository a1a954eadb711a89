"""Out-of-core training: a dask array streamed through ``partial_fit`` in chunks cut to a
memory budget, and the run's peak memory measured."""
import sys
import time
import tracemalloc
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import is_classifier

from lsl_lib.distributed._partitions import _dask_arrays, is_dask_collection


@dataclass
class OutOfCoreReport:
    """What :func:`fit_out_of_core` measured.

    Attributes
    ----------
    data_bytes : int
        The size of X and y, had they been held in memory at once.
    chunk_bytes : int
        The largest chunk of X and y streamed.
    n_chunks : int
        Chunks per pass.
    peak_bytes : int
        Peak memory of the run above its start, as ``peak_source`` measures it.
    memory_budget : int
    seconds : float
        Wall clock of the run.
    peak_source : {'rss', 'tracemalloc'}, default='rss'
        ``'rss'``: the growth of the process's resident memory, from the kernel's high-water
        mark (Linux); ``'tracemalloc'``: where that cannot be read, the peak of the Python
        objects and numpy buffers allocated during the run (:mod:`tracemalloc`, which also
        slows Python code a little).
    """

    data_bytes: int
    chunk_bytes: int
    n_chunks: int
    peak_bytes: int
    memory_budget: int
    seconds: float
    peak_source: str = "rss"


def _proc_status_bytes(field):
    """``field`` (``'VmRSS'``, ``'VmHWM'``) of /proc/self/status in bytes, or None."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _release_free_memory():
    """Give the memory that the C allocator keeps freed back to the system (glibc's
    ``malloc_trim``; nothing elsewhere), so that the resident memory is what is in use."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # another C library (musl has no malloc_trim)
        pass


class _PeakMemory:
    """The peak memory of a block of code above its start (a context manager).

    On Linux the kernel keeps the high-water mark of the process's resident memory
    (``VmHWM``); writing ``5`` to ``/proc/self/clear_refs`` resets it to the current resident
    memory (Linux 4.0 and later), and :meth:`peak` is the mark minus the resident memory at
    the start: all the memory the process took from the system meanwhile, whoever allocated
    it. The memory that the C allocator kept after earlier frees is given back first
    (:func:`_release_free_memory`), or the block would reuse it unseen. Elsewhere (no
    ``/proc``, or a read-only one) :mod:`tracemalloc` traces the block.
    """

    def __enter__(self):
        _release_free_memory()
        try:
            with open("/proc/self/clear_refs", "w") as clear_refs:
                clear_refs.write("5")
            self.start = _proc_status_bytes("VmRSS")
        except OSError:
            self.start = None
        if self.start is not None and _proc_status_bytes("VmHWM") is not None:
            self.source = "rss"
        else:
            self.source = "tracemalloc"
            self._tracing = tracemalloc.is_tracing()
            if not self._tracing:
                tracemalloc.start()
            self.start = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
        return self

    def peak(self):
        if self.source == "rss":
            return max(0, _proc_status_bytes("VmHWM") - self.start)
        return max(0, tracemalloc.get_traced_memory()[1] - self.start)

    def __exit__(self, *exc_info):
        if self.source == "tracemalloc" and not self._tracing:
            tracemalloc.stop()


def _chunk_rows(source_rows, max_rows, min_rows):
    """The rows of the chunks to stream: each source chunk cut into near-equal pieces of at
    most ``max_rows`` rows (a piece never spans two source chunks), then every piece shorter
    than ``min_rows`` joined to the pieces after it (the last to the one before)."""
    pieces = []
    for rows in source_rows:
        n_pieces = -(-rows // max_rows)
        if n_pieces:
            q, r = divmod(rows, n_pieces)
            pieces += [q + 1] * r + [q] * (n_pieces - r)
    chunks, pending = [], 0
    for rows in pieces:
        pending += rows
        if pending >= min_rows:
            chunks.append(pending)
            pending = 0
    if pending:
        if chunks:
            chunks[-1] += pending
        else:
            chunks.append(pending)
    return tuple(chunks)


def fit_out_of_core(estimator, X, y, *, memory_budget=64 * 2**20, n_epochs=1, classes=None,
                    progress=False, **fit_params):
    """Train ``estimator.partial_fit`` on dask arrays streamed chunk by chunk.

    X and y are computed one row chunk at a time (on the synchronous scheduler, in this
    process), the chunk handed to ``partial_fit`` and dropped: only a few chunks are ever in
    memory, however large X is. Chunks larger than an eighth of ``memory_budget`` are cut
    first: a chunk being made, its validated copy (with the intercept column) and the
    estimator's work on it take about four chunks, which leaves the budget a margin of two.
    The run's peak memory is measured (see Notes) and a warning says so when it exceeded the
    budget.

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        Fitted further if it was fitted already (``partial_fit`` continues).
    X : dask array or dask dataframe of shape (n, d)
    y : dask array or dask series of shape (n,)
    memory_budget : int, default=64 MiB
        Bytes the run may take: the target of the cut, checked against the measured peak
        after the run.
    n_epochs : int, default=1
        Passes over the chunks.
    classes : array-like or None, default=None
        All the labels, for a classifier's first ``partial_fit`` (``None``: computed from y,
        one pass over y).
    progress : bool, default=False
        Show a progress bar (``tqdm.auto``) over the chunks.
    **fit_params
        Passed to every ``partial_fit``.

    Returns
    -------
    estimator : the estimator, trained
    report : OutOfCoreReport
        Sizes, chunks, the measured peak memory and how it was measured, the time.

    Raises
    ------
    TypeError
        If the estimator has no ``partial_fit``, or X or y is not a dask collection.
    ValueError
        If ``memory_budget`` cannot hold eight rows, or a chunk of ``batch_size`` rows within
        its eighth; if X and y do not match, or their chunk sizes are unknown.

    Warns
    -----
    UserWarning
        Before the run, when the source's chunks are larger than the pieces they are cut
        into; after it, when the measured peak exceeded ``memory_budget``.

    Notes
    -----
    **What is measured.** ``report.peak_bytes`` is the growth of the process's resident
    memory during the run, read from the kernel: the high-water mark ``VmHWM`` of
    ``/proc/self/status``, reset to the current resident memory at the start by writing to
    ``/proc/self/clear_refs``, minus that start. It counts whatever the process takes from
    the system meanwhile: numpy's buffers, what numba and the C libraries allocate, dask's
    graph, other threads' work. Memory that the C allocator kept after earlier frees is given
    back to the system first (glibc's ``malloc_trim``), so that the run does not reuse it
    unseen; what Python's own allocator keeps for small objects still can be. (The reset also
    lowers the maximum that ``getrusage`` and ``time -v`` report for the process
    afterwards.) Where this cannot be read (not Linux, a read-only ``/proc``),
    the peak is that of :mod:`tracemalloc`: the Python objects and numpy buffers allocated
    during the run, not what C libraries allocate; ``report.peak_source`` says which.

    **The budget** sets the size of the chunks; it is not a limit the system enforces.
    First-time costs count: a numba fast path compiled by the first ``partial_fit`` adds
    tens of MiB, so fit once on a small slice first to measure the data's share alone. A
    chunk that the source makes whole (a chunk of :func:`lsl_lib.datasets.lazy_linear_teacher`,
    of ``dask.array.random``, of a compressed file) is in memory whole while it is made,
    however it is cut afterwards, and is made again for each piece: a warning says so before
    the run, and another after it if the peak exceeded the budget. Chunk such a source to
    the budget instead.

    **Mini-batches.** An estimator whose ``batch_size`` parameter is an integer k gets chunks
    of at least k rows: a piece shorter than k (the remainder of a source chunk, the last
    rows of the array) is joined to the next piece, so every row is still seen once per
    pass and every ``partial_fit`` call takes full mini-batches.
    """
    import dask

    if not hasattr(estimator, "partial_fit"):
        raise TypeError(
            f"estimator {type(estimator).__name__} has no partial_fit, through which "
            "fit_out_of_core streams the chunks: use an estimator that learns incrementally "
            "(PegasosClassifier, DoublyStochasticClassifier, scikit-learn's SGDClassifier).")
    if not (is_dask_collection(X) or is_dask_collection(y)):
        raise TypeError("X and y must be dask arrays or dataframes (for data in memory, call "
                        "partial_fit or fit directly).")
    if not isinstance(n_epochs, Integral) or n_epochs < 1:
        raise ValueError(f"n_epochs must be an int >= 1, got {n_epochs!r}.")
    X, y, _ = _dask_arrays(X, y)
    row_bytes = X.shape[1] * X.dtype.itemsize + y.dtype.itemsize
    if not isinstance(memory_budget, Real) or memory_budget < 8 * row_bytes:
        raise ValueError(f"memory_budget must be at least 8 rows of X and y ({8 * row_bytes} "
                         f"bytes), got {memory_budget!r}.")
    max_rows = int(memory_budget // (8 * row_bytes))
    batch_size = estimator.get_params().get("batch_size") if hasattr(estimator,
                                                                     "get_params") else None
    min_rows = batch_size if isinstance(batch_size, Integral) and batch_size > 1 else 1
    if min_rows > max_rows:
        raise ValueError(
            f"memory_budget={memory_budget} bytes cuts X into chunks of {max_rows} rows (an "
            f"eighth of it), fewer than the estimator's batch_size={batch_size}: raise "
            f"memory_budget to at least {8 * min_rows * row_bytes} bytes, or lower batch_size.")
    if max(X.chunks[0]) > max_rows:
        warnings.warn(
            f"X's chunks (up to {max(X.chunks[0]) * row_bytes / 2**20:.1f} MiB) are larger than "
            f"an eighth of memory_budget: they are cut into pieces of at most {max_rows} rows, "
            "but a source that makes a chunk whole (a generator, a compressed file) still "
            "makes each whole, once per piece; give the source smaller chunks.",
            UserWarning, stacklevel=2)
    rows = _chunk_rows(X.chunks[0], max_rows, min_rows)
    X, y = X.rechunk({0: rows, 1: -1}), y.rechunk((rows,))
    if is_classifier(estimator):
        if classes is None and not hasattr(estimator, "classes_"):
            classes = np.unique(y.compute())
        fit_params["classes"] = classes
    blocks = list(zip(X.to_delayed().ravel(), y.to_delayed().ravel(), strict=True))
    from tqdm.auto import tqdm

    bar = tqdm(total=len(blocks) * n_epochs, unit="chunk", disable=not progress)
    try:
        with _PeakMemory() as memory:
            start = time.perf_counter()
            for _ in range(n_epochs):
                for x_block, y_block in blocks:
                    Xb, yb = dask.compute(x_block, y_block, scheduler="synchronous")
                    estimator.partial_fit(Xb, yb, **fit_params)
                    del Xb, yb
                    bar.update()
            seconds = time.perf_counter() - start
            peak = memory.peak()
    finally:
        bar.close()
    report = OutOfCoreReport(
        data_bytes=int(X.nbytes + y.nbytes), chunk_bytes=int(max(rows) * row_bytes),
        n_chunks=len(blocks), peak_bytes=int(peak), memory_budget=int(memory_budget),
        seconds=seconds, peak_source=memory.source)
    if peak > memory_budget:
        warnings.warn(
            f"the run's peak memory ({peak / 2**20:.1f} MiB, {memory.source}) exceeded "
            f"memory_budget ({memory_budget / 2**20:.1f} MiB). The chunks were "
            f"{report.chunk_bytes / 2**20:.2f} MiB; what else counts: source chunks made "
            "whole before they are cut (give the source smaller chunks), numba compiling "
            "the first partial_fit (fit once on a few rows first), the estimator's own "
            "state.", UserWarning, stacklevel=2)
    return estimator, report
