"""The data of the distributed estimators: dask collections checked, rows split into
partitions, and the partitions held by the workers (sent again when a worker dies)."""
import math
import warnings
from concurrent.futures import CancelledError

import numpy as np
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_array

from lsl_lib._core.random import check_random_state
from lsl_lib._core.validation import add_intercept_column
from lsl_lib.pegasos import encode_labels

_PARTITIONS = ("iid", "sorted", "chunks")


def is_dask_collection(X):
    """True for a dask array or dataframe (anything dask computes lazily)."""
    return hasattr(X, "__dask_graph__")


def _as_dask_array(X):
    """A dask dataframe or series as a dask array with known chunk sizes."""
    if hasattr(X, "to_dask_array"):
        return X.to_dask_array(lengths=True)
    return X


def _dask_arrays(X, y, sample_weight=None):
    """X, y (and ``sample_weight`` when given) as dask arrays of known, matching rows.

    Errors say what to do: for a dask collection given with data in memory, and for chunk
    sizes that dask does not know yet (NaN, as after boolean indexing ``X[mask]``).
    """
    named = {"X": X, "y": y}
    if sample_weight is not None:
        named["sample_weight"] = sample_weight
    lazy = [name for name, value in named.items() if is_dask_collection(value)]
    eager = [name for name in named if name not in lazy]
    if lazy and eager:
        verb = "is a dask collection" if len(lazy) == 1 else "are dask collections"
        raise TypeError(
            f"{' and '.join(lazy)} {verb}, "
            f"{' and '.join(f'{name} a {type(named[name]).__name__}' for name in eager)}: "
            f"give them all as dask collections (dask.array.from_array({eager[0]}, "
            "chunks=X.chunks[0])) or all in memory (X.compute()).")
    arrays = {name: _as_dask_array(value) for name, value in named.items()}
    for name, array in arrays.items():
        if any(math.isnan(rows) for rows in array.chunks[0]):
            raise ValueError(
                f"{name} has unknown chunk sizes (the rows of its chunks are NaN, as after "
                f"boolean indexing such as X[mask]): call {name}.compute_chunk_sizes() first, "
                f"and on {', '.join(other for other in arrays if other != name)} too.")
    X, y = arrays["X"], arrays["y"]
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D and y 1-D with as many rows, got shapes {X.shape} "
                         f"and {y.shape}.")
    sample_weight = arrays.get("sample_weight")
    if sample_weight is not None and sample_weight.shape != y.shape:
        raise ValueError(f"sample_weight must have the shape of y, {y.shape}, got "
                         f"{sample_weight.shape}.")
    return X, y, sample_weight


def partition_indices(y, n_parts, partition="iid", random_state=None):
    """Split the rows into ``n_parts`` parts of (nearly) equal size.

    Parameters
    ----------
    y : ndarray of shape (n,)
        The labels (used by ``'sorted'``).
    n_parts : int
        K, the number of parts.
    partition : {'iid', 'sorted', 'chunks'}, default='iid'
        ``'iid'``: a random permutation cut into K parts, so each part is a sample of the
        whole; ``'sorted'``: the rows sorted by label (stably) and cut, so each part holds one
        or two classes (the skewed split); ``'chunks'``: the rows in their order, cut.
    random_state : None, int or numpy.random.Generator, default=None
        Draws the permutation of ``'iid'``.

    Returns
    -------
    list of K ndarray of int64
    """
    if partition not in _PARTITIONS:
        raise ValueError(f"partition must be one of {_PARTITIONS}, got {partition!r}.")
    n = len(y)
    if partition == "iid":
        order = check_random_state(random_state).permutation(n)
    elif partition == "sorted":
        order = np.argsort(y, kind="stable")
    else:
        order = np.arange(n)
    return np.array_split(order.astype(np.int64), n_parts)


def _load_partition(X, y, sample_weight, fit_intercept, classes, loss, class_weight):
    """A dask partition computed on its worker, validated, encoded as the loss reads it,
    with its weights :math:`s_i` times ``class_weight``'s (None when all are 1)."""
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32], order="C",
                    input_name="X")
    y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X and y have different numbers of rows in a partition: "
                         f"{X.shape[0]} and {y.shape[0]}.")
    if sample_weight is not None:
        sample_weight = check_array(sample_weight, ensure_2d=False, dtype=np.float64,
                                    input_name="sample_weight")
        if np.any(sample_weight < 0):
            raise ValueError("Negative values in data passed to `sample_weight`.")  # as sklearn
    if class_weight is not None:
        by_class = compute_sample_weight(class_weight, y)
        sample_weight = by_class if sample_weight is None else sample_weight * by_class
    return ((add_intercept_column(X) if fit_intercept else X), encode_labels(y, classes, loss),
            sample_weight)


#: How many times a partition lost with its worker is sent again within one round.
_MAX_RESENDS = 3


class _Partitions:
    """The K partitions held by the cluster's workers, and the tasks run where they live.

    Each partition is sent once (``client.scatter`` of data in this process, or
    ``client.compute`` of its dask graph) and stays on its worker. A worker that dies takes
    its partitions with it: Dask cancels their tasks ("already forgotten"), and
    :meth:`gather` sends each lost partition again from its source and reruns its task, up
    to :data:`_MAX_RESENDS` times, warning each time. The tasks are seeded by partition and
    round, so the result is the same as if no worker had died.
    """

    def __init__(self, client, sources, sizes, lazy):
        self.client, self.sources, self.sizes, self.lazy = client, sources, sizes, lazy
        self.futures = self._send(range(len(sources)))
        self.holders = ["unknown"] * len(sources)
        self._located = False

    def _send(self, ks):
        items = [self.sources[k] for k in ks]
        return (self.client.compute(items) if self.lazy
                else self.client.scatter(items, hash=False))

    def gather(self, submit):
        """The results of ``submit(k, partition_k)``, a future for each k, in order."""
        tasks = [submit(k, part) for k, part in enumerate(self.futures)]
        resends = 0
        while True:
            try:
                results = self.client.gather(tasks)
            except CancelledError:
                lost = [k for k, task in enumerate(tasks) if task.status == "cancelled"]
                if not lost:
                    raise
            else:
                if not self._located:  # which worker holds each partition, to name it if lost
                    where = self.client.who_has(self.futures)
                    self.holders = [", ".join(where.get(f.key, ())) or "unknown"
                                    for f in self.futures]
                    self._located = True
                return results
            if resends == _MAX_RESENDS:
                k = lost[0]
                raise RuntimeError(
                    f"partition {k} ({self.sizes[k]} rows) was lost with its worker "
                    f"{_MAX_RESENDS + 1} times in one round (last held by {self.holders[k]}): "
                    "the workers die while they hold it (out of memory?). Check the "
                    "workers' logs, or use more workers (smaller partitions).")
            resends += 1
            for k in lost:
                warnings.warn(
                    f"partition {k} ({self.sizes[k]} rows) was lost with worker "
                    f"{self.holders[k]}: it is sent again "
                    f"({'recomputed from its dask graph' if self.lazy else 'from this process'})"
                    " and its task rerun, with the same seed.", RuntimeWarning, stacklevel=2)
                self.futures[k] = self._send([k])[0]
                tasks[k] = submit(k, self.futures[k])
            self._located = False
