r"""Scaling out on Dask: averaged parallel SGD, out-of-core training, block-parallel DSG.

The lecture notes end each part with the step beyond one machine. Three of them are here,
on Dask's distributed scheduler (``dask.distributed``) rather than on a scheduler of our own:
a :class:`distributed.LocalCluster` on this machine by default, and any scheduler's address
(``scheduler="tcp://host:8786"``) or :class:`distributed.Client` to scale out.

**Averaged parallel SGD** (:class:`ParallelPegasosClassifier`). The n examples are split
into K partitions :math:`S_1, \dots, S_K`, one per worker. Each worker runs Pegasos on its own
partition, from the same starting point, and the driver averages the K weight vectors,

.. math::

    \bar w = \sum_{k=1}^K \frac{|S_k|}{n}\, w_k ,

either once at the end (*one-shot averaging*) or every ``average_every`` epochs, each round
starting every worker from :math:`\bar w` (*periodic averaging*). One-shot averaging costs a
single communication round; it divides the variance of the K independent runs by K but
keeps their bias, which is large when a partition is not a sample of the whole (sorted by
label, say) or when each worker's run is short. Averaging more often removes that bias at
the price of more rounds (Zhang, De Sa, Mitliagkas and Ré 2016). On a convex problem, every
average is at least as good as the mean of the workers' objectives (Jensen), not always as
good as one machine's run on all the data.

**Out-of-core training** (:func:`fit_out_of_core`). A dask array larger than the memory one
is willing to spend is streamed through an estimator's ``partial_fit``, chunk by chunk, its
chunks first cut to fit the budget; the peak memory of the run is measured (Python's
:mod:`tracemalloc`, which numpy reports its buffers to) and stays near a few chunks.

**Block-parallel doubly stochastic gradients** (:class:`ParallelDoublyStochasticClassifier`,
:class:`ParallelDoublyStochasticRegressor`). Each worker trains a doubly stochastic model
with its own seed, so its own blocks of random features, and the prediction is the average of
the K models, :math:`f(x) = \frac1K\sum_k f_k(x)`: a model of K T B random features whose
coefficients live on K machines, each regenerating only its own blocks when it predicts.

References
----------
Zhang, De Sa, Mitliagkas, Ré. Parallel SGD: when does averaging help? ICML workshop on
optimization in machine learning, 2016. arXiv:1606.07365.

Zinkevich, Weimer, Smola, Li. Parallelized stochastic gradient descent. NIPS 2010.

Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
gradients. NIPS 2014.

Dask Development Team. Dask: library for dynamic task scheduling, 2016. https://dask.org
"""
import atexit
import logging
import math
import os
import time
import tracemalloc
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import (BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin,
                          _fit_context, clone, is_classifier)
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from lsl_lib._core.random import check_random_state
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.validation import add_intercept_column, check_batch_size, check_n_classes
from lsl_lib.doubly_stochastic import DoublyStochasticClassifier, DoublyStochasticRegressor
from lsl_lib.losses import get_loss
from lsl_lib.pegasos import (PegasosClassifier, PegasosState, encode_labels, pegasos,
                             weighted_objective)

#: Seconds to wait for a scheduler given by its address before giving up.
CONNECT_TIMEOUT = 5

PARTITIONS = ("iid", "sorted", "chunks")

_LOCAL_CLIENTS = []  # the Client of this module's own LocalCluster, once started
_ADDRESS_CLIENTS = {}  # a scheduler's address -> the Client connected to it


def _close_local_clusters():
    """Close this module's clusters quietly (at exit: their shutdown logs are noise)."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    for client in _LOCAL_CLIENTS:
        client.cluster.close()
        client.close()
    _LOCAL_CLIENTS.clear()


def n_cores():
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def get_client(scheduler=None, timeout=CONNECT_TIMEOUT):
    """The :class:`distributed.Client` that ``scheduler`` names.

    Parameters
    ----------
    scheduler : None, str or distributed.Client, default=None
        ``None``: the Client made current by the user (``Client(...)`` in the session), else
        a :class:`distributed.LocalCluster` in this process with one single-threaded worker
        per core (:func:`n_cores`), started once and reused by every estimator (the compiled
        loops release the GIL, so its threads run in parallel; more partitions than cores
        queue on them). A string: the address of a running scheduler
        (``'tcp://10.0.0.5:8786'``). A Client: used as it is.
    timeout : float, default=CONNECT_TIMEOUT
        Seconds to wait for a scheduler given by its address.

    Raises
    ------
    ConnectionError
        If no scheduler answers at the address within ``timeout`` seconds.
    """
    try:
        from distributed import Client, LocalCluster, default_client
    except ImportError:
        raise ImportError("lsl_lib.distributed runs on Dask: python -m pip install "
                          "'dask[distributed]' (requirements.txt has it).") from None

    if isinstance(scheduler, Client):
        return scheduler
    if scheduler is None:
        try:
            return default_client()
        except ValueError:  # no Client is current: this module's local cluster
            if not _LOCAL_CLIENTS or _LOCAL_CLIENTS[0].status != "running":
                if not _LOCAL_CLIENTS:  # after distributed's own exit handlers: runs first
                    atexit.register(_close_local_clusters)
                cluster = LocalCluster(n_workers=n_cores(), threads_per_worker=1,
                                       processes=False, dashboard_address=":0")
                _LOCAL_CLIENTS[:] = [Client(cluster, set_as_default=False)]
            return _LOCAL_CLIENTS[0]
    if isinstance(scheduler, str):
        client = _ADDRESS_CLIENTS.get(scheduler)
        if client is not None and client.status == "running":
            return client
        try:
            client = _ADDRESS_CLIENTS[scheduler] = Client(scheduler, timeout=timeout,
                                                          set_as_default=False)
            return client
        except (OSError, TimeoutError) as exc:
            raise ConnectionError(
                f"scheduler={scheduler!r}: no Dask scheduler answered within {timeout} s "
                f"({type(exc).__name__}: {exc}). Check the address, start a scheduler there "
                "(`dask scheduler`, then `dask worker <address>` on each machine), or pass "
                "scheduler=None for a local cluster on this machine.") from None
    raise TypeError("scheduler must be None, an address string or a distributed.Client, "
                    f"got {type(scheduler).__name__}.")


def is_dask_collection(X):
    """True for a dask array or dataframe (anything dask computes lazily)."""
    return hasattr(X, "__dask_graph__")


def _as_dask_array(X):
    """A dask dataframe or series as a dask array with known chunk sizes."""
    if hasattr(X, "to_dask_array"):
        return X.to_dask_array(lengths=True)
    return X


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
    if partition not in PARTITIONS:
        raise ValueError(f"partition must be one of {PARTITIONS}, got {partition!r}.")
    n = len(y)
    if partition == "iid":
        order = check_random_state(random_state).permutation(n)
    elif partition == "sorted":
        order = np.argsort(y, kind="stable")
    else:
        order = np.arange(n)
    return np.array_split(order.astype(np.int64), n_parts)


# --- averaged parallel Pegasos -----------------------------------------------------------

def round_schedule(n_epochs, average_every, steps_per_epoch):
    r"""The rounds of averaged parallel SGD: each worker's iterations in each, and when each ends.

    Parameters
    ----------
    n_epochs : int
    average_every : float > 0 or None
        Epochs per round (``None``: one round).
    steps_per_epoch : ndarray of int, shape (K,)
        Iterations of one pass of each worker over its partition.

    Returns
    -------
    iterations : list of ndarray of shape (K,), one per round
        Round r runs the iterations from :math:`\mathrm{rint}(e_{r-1} s_k)` to
        :math:`\mathrm{rint}(e_r s_k)`, so the rounds add up to ``n_epochs`` passes exactly.
    ends : list of float
        :math:`e_r`, the epoch at the end of round r.
    """
    if average_every is None:
        ends = [float(n_epochs)]
    else:
        n_rounds = math.ceil(n_epochs / average_every - 1e-9)
        ends = [min((r + 1) * average_every, n_epochs) for r in range(n_rounds)]
    done = [np.rint(np.asarray(steps_per_epoch) * e).astype(np.int64) for e in [0.0, *ends]]
    return [b - a for a, b in zip(done, done[1:])], ends


def _pegasos_round(part, W, t, n_iter, seed, kwargs):
    """One worker's round: ``n_iter`` Pegasos steps from W at step count t; its output
    iterate. A task: it runs where the partition ``part = (X, y)`` lives."""
    X, y = part
    state = PegasosState(*W.shape)
    state.W = W.copy()
    state.t = t
    state, _ = pegasos(X, y, n_iter=n_iter, random_state=np.random.default_rng(seed),
                       state=state, **kwargs)
    return state.coef


def _partition_loss(part, W, loss):
    """Sum of the losses of W on a partition and its size (for the global objective)."""
    X, y = part
    return X.shape[0] * weighted_objective(W, X, y, 0.0, loss), X.shape[0]


def _load_partition(X, y, fit_intercept, classes, loss):
    """A dask partition computed on its worker, validated, encoded as the loss reads it."""
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32], order="C",
                    input_name="X")
    y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X and y have different numbers of rows in a partition: "
                         f"{X.shape[0]} and {y.shape[0]}.")
    return (add_intercept_column(X) if fit_intercept else X), encode_labels(y, classes, loss)


def _never(estimator):
    return False


class ParallelPegasosClassifier(PegasosClassifier):
    r"""Pegasos on K workers, their weights averaged once or every few epochs.

    The data are split into ``n_workers`` partitions (:func:`partition_indices`, or a dask
    array's chunks); in each round every worker runs Pegasos for ``average_every`` epochs
    of its partition, from the current average and with its own step count t, and the
    driver replaces the average by :math:`\bar w = \sum_k \frac{|S_k|}{n} w_k`. With
    ``average_every=None`` there is one round of ``n_epochs`` epochs: one-shot averaging.
    The tasks run on a Dask cluster (:func:`get_client`); the partitions are sent to the
    workers once and stay there, so a round moves only K weight vectors each way.

    Parameters
    ----------
    lam : float, default=1e-4
        Regularisation :math:`\lambda > 0` of :math:`\frac\lambda2\|w\|^2 + \frac1n\sum_i
        \ell_i(w)`, the problem of :class:`lsl_lib.pegasos.PegasosClassifier`.
    n_epochs : int, default=5
        Passes of each worker over its own partition, in all rounds together.
    batch_size : int, default=1
        Mini-batch size k of each worker (at most the smallest partition).
    loss : {'hinge', 'log', 'multiclass_hinge', 'softmax'}, default='hinge'
    n_workers : int, default=2
        K, the number of partitions and of parallel runs (tasks); when the cluster has fewer
        workers, they queue on them.
    average_every : float > 0 or None, default=None
        Epochs between two averagings, fractions allowed (0.1: ten averagings per pass);
        ``None``: one-shot averaging at the end. The number of communication rounds is
        :math:`\lceil` ``n_epochs / average_every`` :math:`\rceil` (:func:`round_schedule`).
    partition : {'iid', 'sorted', 'chunks'} or None, default=None
        How the rows are split (:func:`partition_indices`). ``None``: ``'iid'`` for data in
        memory, ``'chunks'`` (its own chunks, rechunked into ``n_workers``) for a dask array
        or dataframe, which is the only choice for one.
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
        How each worker draws its mini-batches from its partition.
    averaging : {'none', 'uniform', 'suffix'}, default='suffix'
        Which iterate each worker returns at the end of a round: its last, the average of the
        round's iterates, or of their last ``suffix_fraction``.
    suffix_fraction : float in (0, 1], default=0.5
    step_offset : float or 'auto', default=0
        :math:`t_0` in each worker's step :math:`\eta_t = 1/(\lambda(t + t_0))`.
    fit_intercept : bool, default=True
        Learn a (regularised) intercept as the weight of a constant feature.
    scheduler : None, str or distributed.Client, default=None
        Where the tasks run (:func:`get_client`): None is a local cluster in this process,
        one worker per core (or the Client current in the session); an address such as
        ``'tcp://10.0.0.5:8786'`` is a running scheduler, and one that does not answer within
        :data:`CONNECT_TIMEOUT` seconds raises a ``ConnectionError``.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the partition and each worker's sampling, round by round: the same seed gives
        the same weights on any cluster and either backend.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The average of the last round.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_rounds_ : int
        Communication rounds: averagings of the K weight vectors.
    partition_sizes_ : ndarray of shape (n_workers,)
        :math:`|S_k|`.
    t_ : ndarray of shape (n_workers,)
        Iterations done by each worker.
    history_ : dict of ndarray
        One row per round and one at the start: ``round``, ``epoch`` (of each worker over
        its partition), ``seconds`` (wall clock since the start of ``fit``, communication
        included), ``objective`` (f of the average on all the training data, computed where
        the partitions live) and ``test_error`` when an ``eval_set`` is given.
    n_features_in_ : int

    See Also
    --------
    lsl_lib.pegasos.PegasosClassifier : the same problem on one machine.
    fit_out_of_core : one machine, data streamed from disk or from a generator.

    Notes
    -----
    The result depends on K and the partition, not on the cluster: the tasks are seeded per
    worker and per round, so a local cluster, a remote one, and K sequential calls of
    :func:`lsl_lib.pegasos.pegasos` give the same :math:`\bar w`. One machine's ``partial_fit``
    is :class:`~lsl_lib.pegasos.PegasosClassifier`'s; this estimator has none.

    References
    ----------
    Zhang, De Sa, Mitliagkas, Ré. Parallel SGD: when does averaging help? 2016.

    Zinkevich, Weimer, Smola, Li. Parallelized stochastic gradient descent. NIPS 2010.

    Examples
    --------
    >>> from lsl_lib.datasets import linear_teacher
    >>> X, y = linear_teacher(2000, 10, label_noise=0.05, random_state=0)
    >>> clf = ParallelPegasosClassifier(lam=1e-3, n_workers=2, average_every=1,
    ...                                 random_state=0).fit(X, y)  # doctest: +SKIP
    >>> clf.n_rounds_  # doctest: +SKIP
    5
    """

    _parameter_constraints = {
        **{key: value for key, value in PegasosClassifier._parameter_constraints.items()
           if key not in ("n_iter", "projection", "class_weight", "record_every",
                          "reference_objective")},
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "n_workers": [Interval(Integral, 1, None, closed="left")],
        "average_every": [Interval(Real, 0, None, closed="neither"), None],
        "partition": [StrOptions(set(PARTITIONS)), None],
        "scheduler": [None, str, HasMethods(["submit", "gather", "scatter"])],
    }

    def __init__(self, lam=1e-4, n_epochs=5, batch_size=1, loss="hinge", n_workers=2,
                 average_every=None, partition=None, sampling="iid", averaging="suffix",
                 suffix_fraction=0.5, step_offset=0, fit_intercept=True, scheduler=None,
                 backend="auto", random_state=None):
        self.lam = lam
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.loss = loss
        self.n_workers = n_workers
        self.average_every = average_every
        self.partition = partition
        self.sampling = sampling
        self.averaging = averaging
        self.suffix_fraction = suffix_fraction
        self.step_offset = step_offset
        self.fit_intercept = fit_intercept
        self.scheduler = scheduler
        self.backend = backend
        self.random_state = random_state

    @available_if(_never)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Not offered: see :func:`fit_out_of_core`."""

    def _check_labels(self, y):
        super()._check_labels(y)
        check_n_classes(self.classes_, self.loss, ("hinge", "log"))  # no one-vs-rest yet

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary_only()
        return tags

    def _scatter_memory(self, client, X, y, rng):
        """Validate X, y in memory, split them, and send each part to the cluster."""
        X, y = self._prepare(X, y, reset=True)
        self.classes_ = np.unique(y)
        self._check_labels(y)
        parts = partition_indices(y, self.n_workers, self.partition or "iid", rng)
        if min(len(p) for p in parts) == 0:
            raise ValueError(f"n_workers={self.n_workers} is more than the {X.shape[0]} "
                             "samples: some partitions would be empty.")
        encoded = self._encode(y)
        data = [(X[p], encoded[p]) for p in parts]
        futures = client.scatter(data, hash=False)
        return futures, np.array([len(p) for p in parts])

    def _scatter_dask(self, client, X, y):
        """Rechunk dask X, y into ``n_workers`` row blocks (sizes as ``np.array_split``'s),
        loaded and validated on the workers, where they stay."""
        import dask

        if self.partition not in (None, "chunks"):
            raise ValueError(
                f"partition={self.partition!r} needs the rows in memory to shuffle or sort; "
                "a dask array is split by its chunks: pass partition='chunks' (or None), or "
                "shuffle the array with dask first.")
        X, y = _as_dask_array(X), _as_dask_array(y)
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise ValueError(f"X must be 2-D and y 1-D with as many rows, got shapes "
                             f"{X.shape} and {y.shape}.")
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.unique(y.compute())
        self._check_labels(self.classes_)
        rows = tuple(len(part) for part in np.array_split(np.arange(X.shape[0]), self.n_workers))
        if min(rows) == 0:
            raise ValueError(f"n_workers={self.n_workers} is more than the {X.shape[0]} "
                             "samples: some partitions would be empty.")
        X = X.rechunk({0: rows, 1: -1})
        y = y.rechunk((rows,))
        blocks = [dask.delayed(_load_partition)(xb, yb, self.fit_intercept, self.classes_,
                                                self.loss)
                  for xb, yb in zip(X.to_delayed().ravel(), y.to_delayed().ravel())]
        futures = client.compute(blocks)
        return futures, np.array(X.chunks[0])

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, eval_set=None):
        """Fit by rounds of parallel Pegasos and averaging.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, dask dataframe} of shape (n, d)
        y : array-like or dask array of shape (n,)
        eval_set : tuple (X_test, y_test), optional
            Held-out data (in memory) whose error is recorded in ``history_`` after each round.
        """
        client = get_client(self.scheduler)
        rng = check_random_state(self.random_state)
        start = time.perf_counter()
        if is_dask_collection(X):
            parts, sizes = self._scatter_dask(client, X, y)
        else:
            parts, sizes = self._scatter_memory(client, X, y, rng)
        check_batch_size(self.batch_size, int(sizes.min()))
        seed = rng.integers(0, 2**63)
        loss = get_loss(self.loss)
        n_outputs = self._n_outputs()
        n_columns = self.n_features_in_ + self.fit_intercept
        W = np.zeros((n_outputs, n_columns))
        kwargs = dict(lam=self.lam, n_outputs=n_outputs, loss=loss,
                      batch_size=self.batch_size, sampling=self.sampling,
                      averaging=self.averaging, suffix_fraction=self.suffix_fraction,
                      step_offset=self.step_offset, backend=self.backend)
        iterations, ends = round_schedule(self.n_epochs, self.average_every,
                                          -(-sizes // self.batch_size))
        if min(n.min() for n in iterations) < 1:
            raise ValueError(
                f"average_every={self.average_every} epochs is less than one iteration of "
                f"the smallest partition ({sizes.min()} rows, batch_size={self.batch_size}).")
        t = np.zeros(self.n_workers, dtype=np.int64)
        history = {"round": [], "epoch": [], "seconds": [], "objective": []}
        if eval_set is not None:
            history["test_error"] = []
            X_eval = self._prepare(eval_set[0], eval_set[1], reset=False)[0]
            y_eval = np.asarray(eval_set[1])

        def record(n_rounds, done):
            losses = client.gather([client.submit(_partition_loss, part, W, loss, pure=False)
                                    for part in parts])
            objective = (0.5 * self.lam * float(np.vdot(W, W))
                         + sum(s for s, _ in losses) / sum(m for _, m in losses))
            history["round"].append(n_rounds)
            history["epoch"].append(done)
            history["seconds"].append(time.perf_counter() - start)
            history["objective"].append(objective)
            if eval_set is not None:
                history["test_error"].append(self._eval_metric(np.asarray(X_eval @ W.T), y_eval))

        record(0, 0.0)
        for n_rounds, (n_iter, end) in enumerate(zip(iterations, ends), start=1):
            futures = [client.submit(_pegasos_round, part, W, int(t[k]), int(n_iter[k]),
                                     [seed, n_rounds - 1, k], kwargs, pure=False)
                       for k, part in enumerate(parts)]
            W = np.tensordot(sizes / sizes.sum(), np.stack(client.gather(futures)), axes=1)
            t += n_iter
            record(n_rounds, end)
        self._set_coef(W)
        self.n_rounds_ = len(ends)
        self.partition_sizes_ = sizes
        self.t_ = t
        self.history_ = {key: np.asarray(value) for key, value in history.items()}
        return self


# --- out-of-core training ------------------------------------------------------------------

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
        Peak of the memory allocated during the run (Python objects and numpy buffers,
        :mod:`tracemalloc`), above what was allocated when it started.
    memory_budget : int
    seconds : float
        Wall clock of the run (tracing included: it slows Python code a little).
    """

    data_bytes: int
    chunk_bytes: int
    n_chunks: int
    peak_bytes: int
    memory_budget: int
    seconds: float


def fit_out_of_core(estimator, X, y, *, memory_budget=64 * 2**20, n_epochs=1, classes=None,
                    progress=False, **fit_params):
    """Train ``estimator.partial_fit`` on dask arrays streamed chunk by chunk.

    X and y are computed one row chunk at a time (on the synchronous scheduler, in this
    process), the chunk handed to ``partial_fit`` and dropped: only a few chunks are ever in
    memory, however large X is. Chunks larger than an eighth of ``memory_budget`` are cut
    first: a chunk being made, its validated copy (with the intercept column) and the
    estimator's work on it take about four chunks, which leaves the budget a margin of two.

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        Fitted further if it was fitted already (``partial_fit`` continues).
    X : dask array or dask dataframe of shape (n, d)
    y : dask array or dask series of shape (n,)
    memory_budget : int, default=64 MiB
        Bytes the run may allocate.
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
        Sizes, chunks, the measured peak memory, the time.

    Raises
    ------
    ValueError
        If ``memory_budget`` cannot hold eight rows, or X and y do not match.

    Notes
    -----
    The peak counts whatever the run allocates, the first-time costs included: a numba fast
    path compiled by the first ``partial_fit`` adds tens of MiB to it. Fit once on a small
    slice first to measure the data's share alone. A chunk that the source makes whole (a
    chunk of :func:`lsl_lib.datasets.lazy_linear_teacher`, of a compressed file) is in memory
    whole while it is made, however it is cut afterwards: a warning says so.
    """
    import dask

    if not (is_dask_collection(X) and is_dask_collection(y)):
        raise TypeError("X and y must be dask arrays or dataframes (for data in memory, call "
                        "partial_fit or fit directly).")
    if not isinstance(n_epochs, Integral) or n_epochs < 1:
        raise ValueError(f"n_epochs must be an int >= 1, got {n_epochs!r}.")
    X, y = _as_dask_array(X), _as_dask_array(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D and y 1-D with as many rows, got shapes {X.shape} "
                         f"and {y.shape}.")
    row_bytes = X.shape[1] * X.dtype.itemsize + y.dtype.itemsize
    if not isinstance(memory_budget, Real) or memory_budget < 8 * row_bytes:
        raise ValueError(f"memory_budget must be at least 8 rows of X and y ({8 * row_bytes} "
                         f"bytes), got {memory_budget!r}.")
    rows = int(memory_budget // (8 * row_bytes))
    if max(X.chunks[0]) > rows:
        warnings.warn(
            f"X's chunks (up to {max(X.chunks[0]) * row_bytes / 2**20:.1f} MiB) are larger than "
            f"an eighth of memory_budget: they are cut to {rows} rows, but a source that makes a "
            "chunk whole (a generator, a compressed file) still makes each whole, once per "
            "piece; give the source smaller chunks.", UserWarning, stacklevel=2)
        X, y = X.rechunk({0: rows, 1: -1}), y.rechunk(rows)
    else:
        X, y = X.rechunk({1: -1}), y.rechunk((X.chunks[0],))
    if is_classifier(estimator):
        if classes is None and not hasattr(estimator, "classes_"):
            classes = np.unique(y.compute())
        fit_params["classes"] = classes
    blocks = list(zip(X.to_delayed().ravel(), y.to_delayed().ravel()))
    from tqdm.auto import tqdm

    bar = tqdm(total=len(blocks) * n_epochs, unit="chunk", disable=not progress)
    traced = tracemalloc.is_tracing()
    if not traced:
        tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    start = time.perf_counter()
    try:
        for _ in range(n_epochs):
            for x_block, y_block in blocks:
                Xb, yb = dask.compute(x_block, y_block, scheduler="synchronous")
                estimator.partial_fit(Xb, yb, **fit_params)
                del Xb, yb
                bar.update()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if not traced:
            tracemalloc.stop()
        bar.close()
    report = OutOfCoreReport(
        data_bytes=int(X.nbytes + y.nbytes), chunk_bytes=int(max(X.chunks[0]) * row_bytes),
        n_chunks=len(blocks), peak_bytes=int(peak), memory_budget=int(memory_budget),
        seconds=time.perf_counter() - start)
    return estimator, report


# --- block-parallel doubly stochastic gradients ---------------------------------------------

def _fit_member(estimator, data):
    """A task: fit one worker's model on the data it holds."""
    return estimator.fit(*data)


def _member_output(estimator, X, method):
    """A task: one worker's model evaluated on X."""
    return getattr(estimator, method)(X)


class _ParallelDoublyStochastic(MetaEstimatorMixin, BaseEstimator):
    """Fitting and combining shared by the classifier and the regressor."""

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_workers": [Interval(Integral, 1, None, closed="left")],
        "scheduler": [None, str, HasMethods(["submit", "gather", "scatter"])],
        "random_state": [None, Interval(Integral, 0, None, closed="left"), np.random.Generator,
                         np.random.RandomState],
    }

    def __init__(self, estimator=None, n_workers=2, scheduler=None, random_state=None):
        self.estimator = estimator
        self.n_workers = n_workers
        self.scheduler = scheduler
        self.random_state = random_state

    def _fit(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             y_numeric=isinstance(self, RegressorMixin))
        rng = check_random_state(self.random_state)
        base = self._default() if self.estimator is None else self.estimator
        members = [clone(base).set_params(random_state=int(s))
                   for s in rng.integers(0, 2**31 - 1, size=self.n_workers)]
        client = get_client(self.scheduler)
        data = client.scatter((X, y), broadcast=True, hash=False)
        futures = [client.submit(_fit_member, member, data, pure=False) for member in members]
        self.estimators_ = client.gather(futures)
        return self

    def _average(self, X, method):
        """:math:`\\frac1K \\sum_k` of the workers' ``method`` on X, each computed by a task."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        client = get_client(self.scheduler)
        X_future = client.scatter(X, broadcast=True, hash=False)
        futures = [client.submit(_member_output, member, X_future, method, pure=False)
                   for member in self.estimators_]
        return np.mean(client.gather(futures), axis=0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_PARALLEL_DSG_DOC = """
    Parameters
    ----------
    estimator : {DoublyStochasticClassifier, DoublyStochasticRegressor} or None, default=None
        The model each worker trains (its ``random_state`` is replaced by the worker's own
        seed); ``None``: the default one.
    n_workers : int, default=2
        K, the number of models, each with its own feature seeds.
    scheduler : None, str or distributed.Client, default=None
        Where the tasks run (:func:`get_client`), for fitting and predicting alike.
    random_state : None, int or numpy.random.Generator, default=None
        Draws the K seeds: the same seed gives the same models on any cluster.

    Attributes
    ----------
    estimators_ : list of K fitted models
        Model k holds :math:`T B` coefficients and its seed ``seed_``, nothing else.
    n_features_in_ : int

    Notes
    -----
    Every worker sees all the examples (the data are sent to each once) and differs by its
    seed: its mini-batches and, above all, its blocks of random features. The average of the
    K functions is a kernel machine with K times the features of one, trained in the time
    of one on K workers; predicting regenerates each worker's blocks where its coefficients
    live.

    References
    ----------
    Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
    gradients. NIPS 2014 (section 5: each machine its own block of features).
"""


class ParallelDoublyStochasticClassifier(ClassifierMixin, _ParallelDoublyStochastic):
    __doc__ = r"""Doubly stochastic gradients on K workers, their scores averaged.

    Worker k fits a :class:`~lsl_lib.doubly_stochastic.DoublyStochasticClassifier` with its
    own seed and the classifier's scores are :math:`f(x) = \frac1K\sum_k f_k(x)`.
    """ + _PARALLEL_DSG_DOC

    def _default(self):
        return DoublyStochasticClassifier()

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the K models in parallel, each with its own seed, on all of (X, y)."""
        self._fit(X, y)
        self.classes_ = self.estimators_[0].classes_
        return self

    def decision_function(self, X):
        """The average of the K models' scores."""
        return self._average(X, "decision_function")

    def predict(self, X):
        return labels_from_scores(self.decision_function(X), self.classes_)

    def _has_proba(self):
        return hasattr(self.estimators_[0] if hasattr(self, "estimators_") else
                       (self.estimator or self._default()), "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """The average of the K models' probabilities (loss 'log')."""
        return self._average(X, "predict_proba")


class ParallelDoublyStochasticRegressor(RegressorMixin, _ParallelDoublyStochastic):
    __doc__ = r"""Doubly stochastic gradients on K workers, their predictions averaged.

    Worker k fits a :class:`~lsl_lib.doubly_stochastic.DoublyStochasticRegressor` with its
    own seed and the prediction is :math:`f(x) = \frac1K\sum_k f_k(x)`.
    """ + _PARALLEL_DSG_DOC

    def _default(self):
        return DoublyStochasticRegressor()

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the K models in parallel, each with its own seed, on all of (X, y)."""
        return self._fit(X, y)

    def predict(self, X):
        """The average of the K models' predictions."""
        return self._average(X, "predict")
