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
single communication round; it reduces the variance of the K runs but keeps their common
bias, which is large when a partition is not a sample of the whole (sorted by label, say)
or when each worker's run is short. Averaging more often pulls the workers back to a common
point before they drift towards their own partitions' optima, at the price of more rounds;
on skewed (non-iid) partitions this is the "client drift" of federated averaging (McMahan
et al. 2017; Li et al. 2020). Zhang, De Sa, Mitliagkas and Ré (2016) study workers that
sample the *same* pool: for convex objectives, the benefit of frequent averaging depends on
the gradient variance envelope (it helps when the variance of the stochastic gradients grows
away from the optimum; otherwise one-shot averaging is as good). On a convex problem, every
average is at least as good as the mean of the workers' objectives (Jensen), not always as
good as one machine's run on all the data.

**Out-of-core training** (:func:`fit_out_of_core`). A dask array larger than the memory one
is willing to spend is streamed through an estimator's ``partial_fit``, chunk by chunk, its
chunks first cut to fit the budget; the peak memory of the run is measured (the growth of
the process's resident memory, which the kernel records) and stays near a few chunks when
the source makes its chunks small.

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

McMahan, Moore, Ramage, Hampson, Agüera y Arcas. Communication-efficient learning of deep
networks from decentralized data. AISTATS 2017.

Li, Sahu, Zaheer, Sanjabi, Talwalkar, Smith. Federated optimization in heterogeneous
networks. MLSys 2020.

Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
gradients. NIPS 2014.

Dask Development Team. Dask: library for dynamic task scheduling, 2016. https://dask.org
"""
import asyncio
import atexit
import copy
import logging
import math
import os
import sys
import threading
import time
import tracemalloc
import warnings
from concurrent.futures import CancelledError
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import (BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin,
                          _fit_context, clone, is_classifier)
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight, compute_sample_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from lsl_lib._core.random import check_random_state
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.validation import (add_intercept_column, check_batch_size, check_n_classes,
                                      check_sample_weight)
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


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError("lsl_lib.distributed runs on Dask: python -m pip install "
                          "'dask[distributed]' (requirements.txt has it).") from None
    return distributed


def _connection_args(address):
    """The connection arguments of ``address`` (TLS credentials from Dask's configuration),
    after checking that it is an address; errors name the ``scheduler`` parameter."""
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import get_backend
    from distributed.security import Security

    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as exc:
        raise ValueError(
            f"scheduler={address!r} is not a scheduler address ({exc}); expected "
            "'tcp://host:port' (the scheduler's port, 8786 by default), a distributed.Client, "
            "or None.") from None
    args = Security().get_connection_args("client")
    if scheme == "tls" and args.get("ssl_context") is None:
        raise ValueError(
            f"scheduler={address!r} is a TLS address and Dask's configuration holds no TLS "
            "credentials (distributed.comm.tls.*): connect yourself, client = Client(address, "
            "security=distributed.security.Security(tls_ca_file=..., tls_client_cert=..., "
            "tls_client_key=...)), and pass scheduler=client.")
    return args


def _identify(address, timeout, connection_args):
    """What answers at ``address``: Dask's ``identity`` of the server there.

    The whole exchange (connection, Dask's handshake, the reply) runs on an event loop of its
    own in a helper thread and is bounded by ``timeout`` seconds: ``distributed.Client``'s own
    ``timeout`` bounds only the connection, and a service that accepts it but does not speak
    Dask's protocol (an HTTP server, the dashboard) would leave the handshake waiting forever,
    or, if it sends a banner, have its first bytes read as an exabyte frame length.
    """
    from distributed.comm import connect

    async def identify():
        # connect's own timeout ends first when nothing accepts the connection: its error
        # says why (refused, unreachable); the outer one ends a handshake left waiting
        comm = await connect(address, timeout=0.9 * timeout, **connection_args)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    outcome = []

    def run():
        try:
            outcome.append(asyncio.run(asyncio.wait_for(identify(), timeout)))
        except BaseException as exc:  # returned to the caller's thread, raised there
            outcome.append(exc)

    thread = threading.Thread(target=run, name="lsl-scheduler-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1)
    if not outcome:
        raise TimeoutError(f"no answer within {timeout} s")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _connect(address, timeout):
    """A Client connected to the Dask scheduler at ``address``, or a ConnectionError within
    ``timeout`` seconds (plus the Client's own start, bounded by the same timeout)."""
    from distributed import Client

    connection_args = _connection_args(address)
    advice = ("Check the address (the scheduler's port, 8786 by default, not the dashboard's, "
              "8787), start a scheduler there (`dask scheduler`, then `dask worker <address>` "
              "on each machine), or pass scheduler=None for a local cluster on this machine.")
    try:
        info = _identify(address, timeout, connection_args)
    except TimeoutError:  # connected, and the handshake waited (an HTTP server, say)
        raise ConnectionError(
            f"scheduler={address!r}: no Dask scheduler answered within {timeout} s (a service "
            f"accepted the connection but sent no reply in Dask's protocol). {advice}") from None
    except OSError as exc:  # nothing accepted the connection: refused, unreachable
        cause = exc
        while cause.__cause__ is not None:  # the system's own error, under Dask's wrappers
            cause = cause.__cause__
        raise ConnectionError(
            f"scheduler={address!r}: no Dask scheduler answered within {timeout} s (nothing "
            f"accepted the connection: {type(cause).__name__}: {cause}). {advice}") from None
    except Exception as exc:  # it answered, in another protocol (a banner, garbage)
        raise ConnectionError(
            f"scheduler={address!r}: the service there answered, but not in Dask's protocol "
            f"({type(exc).__name__}: {exc}): it is no Dask scheduler. {advice}") from None
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        hint = (f" (this {kind}'s scheduler is {info['scheduler']!r})"
                if isinstance(info, dict) and info.get("scheduler") else "")
        raise ConnectionError(f"scheduler={address!r} is a Dask {kind or 'service'}, not a "
                              f"scheduler: pass the scheduler's address{hint}.")
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(f"scheduler={address!r}: the scheduler answered, but the Client "
                              f"could not start within {timeout} s ({type(exc).__name__}: "
                              f"{exc}).") from None


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
        (``'tcp://10.0.0.5:8786'``; TLS addresses take their credentials from Dask's
        configuration), to which one Client per address is connected and reused. A Client:
        used as it is.
    timeout : float, default=CONNECT_TIMEOUT
        Seconds to wait for a scheduler given by its address: the connection, Dask's
        handshake and the scheduler's reply together.

    Raises
    ------
    ValueError
        If ``scheduler`` is a string that is not an address, or a TLS address with no
        credentials configured.
    ConnectionError
        If no Dask scheduler answers at the address within ``timeout`` seconds: nothing
        listens, the host is unreachable, or what answers is not a Dask scheduler (an HTTP
        server, the dashboard's port, a service that sends a banner, a Dask worker).
    """
    distributed = _import_distributed()
    if isinstance(scheduler, distributed.Client):
        return scheduler
    if scheduler is None:
        try:
            return distributed.default_client()
        except ValueError:  # no Client is current: this module's local cluster
            if not _LOCAL_CLIENTS or _LOCAL_CLIENTS[0].status != "running":
                if not _LOCAL_CLIENTS:  # after distributed's own exit handlers: runs first
                    atexit.register(_close_local_clusters)
                cluster = distributed.LocalCluster(n_workers=n_cores(), threads_per_worker=1,
                                                   processes=False, dashboard_address=":0")
                _LOCAL_CLIENTS[:] = [distributed.Client(cluster, set_as_default=False)]
            return _LOCAL_CLIENTS[0]
    if isinstance(scheduler, str):
        client = _ADDRESS_CLIENTS.get(scheduler)
        if client is None or client.status != "running":
            client = _ADDRESS_CLIENTS[scheduler] = _connect(scheduler, timeout)
        return client
    raise TypeError("scheduler must be None, an address string or a distributed.Client, "
                    f"got {type(scheduler).__name__}.")


def _is_client(scheduler):
    """True for a :class:`distributed.Client` (one exists only once distributed is imported)."""
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(scheduler, distributed.Client)


class _SchedulerParameter:
    """The ``scheduler`` parameter of the Dask estimators: a live Client survives clone and
    pickle.

    A :class:`distributed.Client` holds a connection and an event loop, which neither
    :func:`copy.deepcopy` (what :func:`sklearn.base.clone` does to a parameter) nor pickle
    can copy. It is treated as joblib's ``n_jobs`` is: a handle on shared resources, not a
    value. :func:`~sklearn.base.clone` gives the clone the same Client, so ``GridSearchCV``
    and ``cross_val_score`` run every fit on it; pickling (and :func:`copy.deepcopy`) stores
    the Client as its scheduler's address, which the loaded estimator reconnects to when it
    next needs the cluster (:func:`get_client`).
    """

    def __sklearn_clone__(self):
        if not _is_client(self.scheduler):
            return super().__sklearn_clone__()
        unbound = copy.copy(self)
        unbound.scheduler = None
        new = super(_SchedulerParameter, unbound).__sklearn_clone__()
        new.scheduler = self.scheduler
        return new

    def __getstate__(self):
        state = super().__getstate__()
        if _is_client(state.get("scheduler")):
            scheduler = getattr(state["scheduler"], "scheduler", None)
            state = {**state, "scheduler": getattr(scheduler, "address", None)}
        return state


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

    Raises
    ------
    ValueError
        If a round would give some worker no iteration: ``average_every`` shorter than one
        iteration of the smallest partition. Refused before the rounds are listed, when
        there would be more rounds than iterations.
    """
    steps = np.asarray(steps_per_epoch)
    too_short = ValueError(
        f"average_every={average_every} epochs is less than one iteration of the smallest "
        f"partition ({steps.min()} iterations an epoch): every round needs at least one.")
    if average_every is None:
        ends = [float(n_epochs)]
    else:
        n_rounds = math.ceil(n_epochs / average_every - 1e-9)
        if n_rounds > n_epochs * steps.min():  # before a list of n_rounds is built
            raise too_short
        ends = [min((r + 1) * average_every, n_epochs) for r in range(n_rounds)]
    done = [np.rint(steps * e).astype(np.int64) for e in [0.0, *ends]]
    iterations = [b - a for a, b in zip(done, done[1:])]
    if min(n.min() for n in iterations) < 1:
        raise too_short
    return iterations, ends


def _pegasos_round(part, W, t, n_iter, seed, kwargs):
    """One worker's round: ``n_iter`` Pegasos steps from W at step count t; its output
    iterate. A task: it runs where the partition ``part = (X, y, sample_weight)`` lives."""
    X, y, sample_weight = part
    state = PegasosState(*W.shape)
    state.W = W.copy()
    state.t = t
    state, _ = pegasos(X, y, n_iter=n_iter, random_state=np.random.default_rng(seed),
                       state=state, sample_weight=sample_weight, **kwargs)
    return state.coef


def _partition_loss(part, W, loss):
    r""":math:`\sum_{i \in S_k} s_i \ell_i(W)` on a partition and its weight
    :math:`\sum_{i \in S_k} s_i` (:math:`|S_k|` without weights), for the global objective."""
    X, y, sample_weight = part
    mass = X.shape[0] if sample_weight is None else float(sample_weight.sum())
    if mass == 0:  # refused by fit, which needs the masses to say so
        return 0.0, 0.0
    return mass * weighted_objective(W, X, y, 0.0, loss, sample_weight), mass


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
MAX_RESENDS = 3


class _Partitions:
    """The K partitions held by the cluster's workers, and the tasks run where they live.

    Each partition is sent once (``client.scatter`` of data in this process, or
    ``client.compute`` of its dask graph) and stays on its worker. A worker that dies takes
    its partitions with it: Dask cancels their tasks ("already forgotten"), and
    :meth:`gather` sends each lost partition again from its source and reruns its task, up
    to :data:`MAX_RESENDS` times, warning each time. The tasks are seeded by partition and
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
            if resends == MAX_RESENDS:
                k = lost[0]
                raise RuntimeError(
                    f"partition {k} ({self.sizes[k]} rows) was lost with its worker "
                    f"{MAX_RESENDS + 1} times in one round (last held by {self.holders[k]}): "
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


def _never(estimator):
    return False


class ParallelPegasosClassifier(_SchedulerParameter, PegasosClassifier):
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
        K, the number of partitions and of parallel runs (tasks), at most the number of
        samples; when the cluster has fewer workers, the tasks queue on them.
    average_every : float > 0 or None, default=None
        Epochs between two averagings, fractions allowed (0.1: ten averagings per pass);
        ``None``: one-shot averaging at the end. The number of communication rounds is
        :math:`\lceil` ``n_epochs / average_every`` :math:`\rceil` (:func:`round_schedule`);
        a period shorter than one iteration of the smallest partition is refused.
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
    class_weight : dict, 'balanced' or None, default=None
        Weight of each class's examples, as in :class:`~lsl_lib.pegasos.PegasosClassifier`
        (``'balanced'`` is computed from all of y, not per partition).
    scheduler : None, str or distributed.Client, default=None
        Where the tasks run (:func:`get_client`): None is a local cluster in this process,
        one worker per core (or the Client current in the session); an address such as
        ``'tcp://10.0.0.5:8786'`` is a running scheduler, and an address where no Dask
        scheduler answers within :data:`CONNECT_TIMEOUT` seconds raises a
        ``ConnectionError``. A Client is shared by the estimator's clones (``clone``,
        ``GridSearchCV``) and pickled as its scheduler's address.
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

    With sample weights :math:`s_i` the problem is that of
    :class:`~lsl_lib.pegasos.PegasosClassifier`, :math:`\frac\lambda2\|w\|^2 +
    \frac{1}{\sum_i s_i}\sum_i s_i \ell_i(w)`: each worker draws its examples in proportion
    to their weights, and the average weighs worker k by its partition's weight,
    :math:`\bar w = \sum_k \frac{s(S_k)}{s(S)} w_k` with :math:`s(S_k) = \sum_{i\in S_k}
    s_i`.

    A worker that dies during ``fit`` (killed, out of memory) loses the partitions it held.
    Each is sent again, from this process or from its dask graph, and the tasks that needed
    it are rerun with their own seeds, so ``fit`` returns the weights it would have returned
    without the loss, with a ``RuntimeWarning`` that names the partition and the worker.
    Losing a partition more than :data:`MAX_RESENDS` times in one round raises a
    ``RuntimeError`` that names them.

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
           if key not in ("n_iter", "projection", "record_every", "reference_objective")},
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "n_workers": [Interval(Integral, 1, None, closed="left")],
        "average_every": [Interval(Real, 0, None, closed="neither"), None],
        "partition": [StrOptions(set(PARTITIONS)), None],
        "scheduler": [None, str, HasMethods(["submit", "gather", "scatter"])],
    }

    def __init__(self, lam=1e-4, n_epochs=5, batch_size=1, loss="hinge", n_workers=2,
                 average_every=None, partition=None, sampling="iid", averaging="suffix",
                 suffix_fraction=0.5, step_offset=0, fit_intercept=True, class_weight=None,
                 scheduler=None, backend="auto", random_state=None):
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
        self.class_weight = class_weight
        self.scheduler = scheduler
        self.backend = backend
        self.random_state = random_state

    @available_if(_never)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Not offered: see :func:`fit_out_of_core`."""


    def _check_n_workers(self, n_samples):
        if self.n_workers > n_samples:
            raise ValueError(f"n_workers={self.n_workers} is more than the {n_samples} "
                             "samples: some partitions would be empty.")

    def _memory_partitions(self, X, y, sample_weight, rng):
        """Validate X, y (and the weights) in memory and split them: the K parts
        ``(X_k, y_k encoded, s_k or None)`` and their sizes."""
        X, y = self._prepare(X, y, reset=True)
        self.classes_ = np.unique(y)
        self._check_labels(y)
        self._check_n_workers(X.shape[0])
        weights = self._sample_weight(X, sample_weight, y, self.class_weight)
        if weights is not None:  # the weights may leave a single class
            check_n_classes(np.unique(y[weights > 0]), self.loss, ())
        indices = partition_indices(y, self.n_workers, self.partition or "iid", rng)
        encoded = self._encode(y)
        parts = [(X[p], encoded[p], None if weights is None else weights[p]) for p in indices]
        return parts, np.array([len(p) for p in indices])

    def _dask_partitions(self, X, y, sample_weight, labels=None):
        """Check dask X, y (and weights) and plan their split into ``n_workers`` row blocks
        (sizes as ``np.array_split``'s): delayed parts, loaded and validated on the workers,
        where they stay; only y is computed here, for the classes (``labels``: y computed
        already)."""
        import dask

        if self.partition not in (None, "chunks"):
            raise ValueError(
                f"partition={self.partition!r} needs the rows in memory to shuffle or sort; "
                "a dask array is split by its chunks: pass partition='chunks' (or None), or "
                "shuffle the array with dask first.")
        X, y, sample_weight = _dask_arrays(X, y, sample_weight)
        self._check_n_workers(X.shape[0])
        self.n_features_in_ = X.shape[1]
        y_all = y.compute() if labels is None else labels
        self.classes_ = np.unique(y_all)
        self._check_labels(self.classes_)
        class_weight = self.class_weight
        if class_weight == "balanced":  # from all of y, as one machine computes it
            class_weight = dict(zip(self.classes_, compute_class_weight(
                "balanced", classes=self.classes_, y=y_all)))
        q, r = divmod(X.shape[0], self.n_workers)
        rows = (q + 1,) * r + (q,) * (self.n_workers - r)
        X = X.rechunk({0: rows, 1: -1})
        y = y.rechunk((rows,))
        weights = ([None] * self.n_workers if sample_weight is None
                   else sample_weight.rechunk((rows,)).to_delayed().ravel())
        parts = [dask.delayed(_load_partition)(xb, yb, wb, self.fit_intercept, self.classes_,
                                               self.loss, class_weight)
                 for xb, yb, wb in zip(X.to_delayed().ravel(), y.to_delayed().ravel(), weights)]
        return parts, np.array(rows)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit by rounds of parallel Pegasos and averaging.

        Everything is validated before any work is sent to the cluster (for a dask array,
        its chunks are validated on the workers as they load them).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, dask dataframe} of shape (n, d)
        y : array-like or dask array of shape (n,)
            A dask array (or series) when X is one, in memory when X is.
        sample_weight : array-like or dask array of shape (n,), default=None
            Non-negative weights :math:`s_i` (times ``class_weight``), as in
            :meth:`lsl_lib.pegasos.PegasosClassifier.fit`; a dask array with dask X.
        eval_set : tuple (X_test, y_test), optional
            Held-out data (in memory) whose error is recorded in ``history_`` after each round.
        """
        lazy = any(is_dask_collection(a) for a in (X, y, sample_weight))
        if not lazy:
            X, y = self._validate(X, y, reset=True)
        labels = None  # y in memory (a dask y is computed once, here)
        if self._binary_only():  # more than two classes: one model per class, one-vs-rest
            labels = np.asarray(y.compute() if is_dask_collection(y) else y)
            check_classification_targets(labels)
            classes = np.unique(labels)
            if self._needs_one_vs_rest(classes):
                self.classes_ = classes
                return self._fit_one_vs_rest(X, y, sample_weight, eval_set=eval_set)
        self.estimators_ = None
        rng = check_random_state(self.random_state)
        if lazy:
            sources, sizes = self._dask_partitions(X, y, sample_weight, labels)
        else:
            sources, sizes = self._memory_partitions(X, y, sample_weight, rng)
        check_batch_size(self.batch_size, int(sizes.min()))
        iterations, ends = round_schedule(self.n_epochs, self.average_every,
                                          -(-sizes // self.batch_size))
        seed = rng.integers(0, 2**63)
        loss = get_loss(self.loss)
        n_outputs = self._n_outputs()
        W = np.zeros((n_outputs, self.n_features_in_ + self.fit_intercept))
        kwargs = dict(lam=self.lam, n_outputs=n_outputs, loss=loss,
                      batch_size=self.batch_size, sampling=self.sampling,
                      averaging=self.averaging, suffix_fraction=self.suffix_fraction,
                      step_offset=self.step_offset, backend=self.backend)
        history = {"round": [], "epoch": [], "seconds": [], "objective": []}
        if eval_set is not None:
            history["test_error"] = []
            X_eval = self._prepare(eval_set[0], eval_set[1], reset=False)[0]
            y_eval = np.asarray(eval_set[1])

        client = get_client(self.scheduler)
        start = time.perf_counter()
        parts = _Partitions(client, sources, sizes, lazy)

        def record(n_rounds, done):
            """Evaluate the average where the partitions live; their weights s(S_k)."""
            losses = parts.gather(lambda k, part: client.submit(_partition_loss, part, W, loss,
                                                                pure=False))
            objective = (0.5 * self.lam * float(np.vdot(W, W))
                         + sum(s for s, _ in losses) / sum(m for _, m in losses))
            history["round"].append(n_rounds)
            history["epoch"].append(done)
            history["seconds"].append(time.perf_counter() - start)
            history["objective"].append(objective)
            if eval_set is not None:
                history["test_error"].append(self._eval_metric(np.asarray(X_eval @ W.T), y_eval))
            return np.array([m for _, m in losses])

        masses = record(0, 0.0)
        if not masses.min() > 0:
            k = int(np.argmin(masses))
            raise ValueError(f"sample_weight is zero on all the {sizes[k]} rows of partition "
                             f"{k}: its worker would have nothing to learn from; use fewer "
                             "workers, or another partition.")
        t = np.zeros(self.n_workers, dtype=np.int64)
        for n_rounds, (n_iter, end) in enumerate(zip(iterations, ends), start=1):
            outputs = parts.gather(lambda k, part: client.submit(
                _pegasos_round, part, W, int(t[k]), int(n_iter[k]), [seed, n_rounds - 1, k],
                kwargs, pure=False))
            W = np.tensordot(masses / masses.sum(), np.stack(outputs), axes=1)
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
    blocks = list(zip(X.to_delayed().ravel(), y.to_delayed().ravel()))
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


# --- block-parallel doubly stochastic gradients ---------------------------------------------

def _fit_member(estimator, data):
    """A task: fit one worker's model on the data it holds, ``(X, y, sample_weight)``."""
    X, y, sample_weight = data
    if sample_weight is None:
        return estimator.fit(X, y)
    return estimator.fit(X, y, sample_weight=sample_weight)


def _member_output(estimator, X, method):
    """A task: one worker's model evaluated on X."""
    return getattr(estimator, method)(X)


class _ParallelDoublyStochastic(_SchedulerParameter, MetaEstimatorMixin, BaseEstimator):
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

    def _fit(self, X, y, sample_weight=None):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             y_numeric=isinstance(self, RegressorMixin))
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        if self.n_workers > X.shape[0]:
            raise ValueError(
                f"n_workers={self.n_workers} is more than the {X.shape[0]} samples: each of "
                "the K models is fitted on all of them, K fits in all; n_workers is at most "
                "the number of samples.")
        if is_classifier(self):
            check_classification_targets(y)
            check_n_classes(np.unique(y), None, ())
        rng = check_random_state(self.random_state)
        base = self._default() if self.estimator is None else self.estimator
        members = [clone(base).set_params(random_state=int(s))
                   for s in rng.integers(0, 2**31 - 1, size=self.n_workers)]
        if hasattr(members[0], "_validate_params"):  # its parameters, here, not on K workers
            members[0]._validate_params()
        client = get_client(self.scheduler)
        data = client.scatter((X, y, sample_weight), broadcast=True, hash=False)
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
        K, the number of models, each with its own feature seeds (at most the number of
        samples).
    scheduler : None, str or distributed.Client, default=None
        Where the tasks run (:func:`get_client`), for fitting and predicting alike. A Client
        is shared by the estimator's clones and pickled as its scheduler's address.
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
    live. X, y (their classes for the classifier) and the estimator's parameters are
    validated before anything is sent. A worker that dies during ``fit`` costs only time:
    every worker holds the data, so Dask reruns its task on another.

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
    def fit(self, X, y, sample_weight=None):
        """Fit the K models in parallel, each with its own seed, on all of (X, y), with the
        base estimator's ``sample_weight`` (examples drawn in proportion to the weights)."""
        self._fit(X, y, sample_weight)
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
    def fit(self, X, y, sample_weight=None):
        """Fit the K models in parallel, each with its own seed, on all of (X, y), with the
        base estimator's ``sample_weight`` (examples drawn in proportion to the weights)."""
        return self._fit(X, y, sample_weight)

    def predict(self, X):
        """The average of the K models' predictions."""
        return self._average(X, "predict")
