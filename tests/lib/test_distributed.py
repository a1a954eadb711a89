"""Scaling out on Dask: averaged parallel Pegasos is the explicit average of per-partition
Pegasos runs on any cluster, dask input equals the same split in memory, out-of-core streaming
is partial_fit chunk by chunk within its memory budget, block-parallel DSG is the mean of K
seeded models, and an unreachable scheduler fails fast with a clear error (scikit-learn's
contract: test_common.py)."""
import http.server
import mmap
import os
import pickle
import signal
import socket
import threading
import time
from contextlib import contextmanager

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.svm import LinearSVC
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.estimator_checks import check_class_weight_classifiers

from lsl_lib._core.backend import _dispatcher, numba_available
from lsl_lib._core.random import check_random_state
from lsl_lib._core.validation import add_intercept_column
from lsl_lib.datasets import lazy_linear_teacher, linear_teacher
from lsl_lib.distributed import (ParallelDoublyStochasticClassifier,
                                 ParallelDoublyStochasticRegressor, ParallelPegasosClassifier,
                                 fit_out_of_core, get_client, n_cores, partition_indices,
                                 round_schedule)
from lsl_lib.distributed._cluster import _CONNECT_TIMEOUT
from lsl_lib.distributed._out_of_core import _chunk_rows
from lsl_lib.doubly_stochastic import DoublyStochasticClassifier, DoublyStochasticRegressor
from lsl_lib.losses import get_loss
from lsl_lib.pegasos import PegasosClassifier, PegasosState, pegasos, weighted_objective
from estimator_support import compile_parallel_loops

X_ALL, Y_ALL = linear_teacher(3000, 8, label_noise=0.05, random_state=0)
X, Y = X_ALL[:2400], Y_ALL[:2400]
X_TEST, Y_TEST = X_ALL[2400:], Y_ALL[2400:]


@pytest.fixture(scope="module", autouse=True)
def compiled_in_this_thread():
    """Compile the loops the workers run here first (see compile_parallel_loops)."""
    compile_parallel_loops()


@pytest.fixture(scope="module")
def client():
    """A cluster of the test's own: two in-process workers, set as no one's default."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as c:
        yield c


def explicit_average(X, y, *, lam, n_workers, n_epochs, average_every, partition,
                     random_state, averaging="suffix", batch_size=1, sample_weight=None):
    """The rounds of ParallelPegasosClassifier written out: K sequential Pegasos runs per
    round, each from the average, then the average weighted by partition size (by the
    partition's total weight, with sample weights)."""
    rng = check_random_state(random_state)
    parts = partition_indices(y, n_workers, partition, rng)
    seed = rng.integers(0, 2**63)
    Xi = add_intercept_column(X)
    yi = np.where(y == np.unique(y)[1], 1.0, -1.0)
    sizes = np.array([len(p) for p in parts])
    weights = [None if sample_weight is None else sample_weight[p] for p in parts]
    masses = sizes if sample_weight is None else np.array([w.sum() for w in weights])
    W = np.zeros((1, Xi.shape[1]))
    t = np.zeros(n_workers, dtype=int)
    iterations, _ = round_schedule(n_epochs, average_every, -(-sizes // batch_size))
    for rounds, n_iter in enumerate(iterations):
        outputs = []
        for k, p in enumerate(parts):
            state = PegasosState(1, Xi.shape[1])
            state.W, state.t = W.copy(), t[k]
            state, _ = pegasos(Xi[p], yi[p], lam, n_iter[k], batch_size=batch_size,
                               averaging=averaging, state=state, sample_weight=weights[k],
                               random_state=np.random.default_rng([seed, rounds, k]))
            outputs.append(state.coef)
            t[k] += n_iter[k]
        W = sum(m * w for m, w in zip(masses, outputs, strict=True)) / masses.sum()
    rounds = len(iterations)
    return W, rounds


# --- averaged parallel Pegasos ---------------------------------------------------------

@pytest.mark.parametrize("average_every, partition, n_workers",
                         [(None, "iid", 3), (1, "iid", 3), (2, "sorted", 2), (0.3, "chunks", 4)])
def test_the_average_of_per_partition_runs(client, average_every, partition, n_workers):
    clf = ParallelPegasosClassifier(lam=1e-3, n_epochs=3, n_workers=n_workers,
                                    average_every=average_every, partition=partition,
                                    scheduler=client, random_state=7).fit(X, Y)
    W, rounds = explicit_average(X, Y, lam=1e-3, n_workers=n_workers, n_epochs=3,
                                 average_every=average_every, partition=partition,
                                 random_state=7)
    np.testing.assert_allclose(clf.coef_, W[:, :-1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(clf.intercept_, W[:, -1], rtol=1e-12, atol=1e-14)
    assert clf.n_rounds_ == rounds == (1 if average_every is None else np.ceil(3 / average_every))
    assert clf.partition_sizes_.sum() == len(Y)


def test_round_schedule_adds_up_to_the_epochs():
    iterations, ends = round_schedule(3, 0.4, np.array([10, 7]))
    assert len(iterations) == 8 and ends[-1] == 3 and ends[0] == 0.4
    np.testing.assert_array_equal(np.sum(iterations, axis=0), [30, 21])
    assert all(n.min() >= 2 for n in iterations[:-1])  # 0.4 epoch of 7 steps: 2 or 3
    np.testing.assert_array_equal(iterations[-1], [2, 1])  # the last round is 0.2 epoch
    one_shot, ends = round_schedule(5, None, np.array([4, 4]))
    assert ends == [5.0] and [list(n) for n in one_shot] == [[20, 20]]


def test_partitions():
    y = np.repeat([0, 1, 2], [5, 3, 4])[::-1]
    iid = partition_indices(y, 3, "iid", 0)
    assert sorted(np.concatenate(iid)) == list(range(12)) and [len(p) for p in iid] == [4, 4, 4]
    sorted_parts = partition_indices(y, 3, "sorted")
    assert [set(y[p]) for p in sorted_parts] == [{0}, {0, 1}, {2}]
    assert [list(p) for p in partition_indices(y, 2, "chunks")] == [list(range(6)),
                                                                     list(range(6, 12))]
    with pytest.raises(ValueError, match="partition must be one of"):
        partition_indices(y, 2, "random")


def test_the_same_weights_on_any_cluster(client):
    """Seeds per worker and round: the in-process default cluster, a Client passed in, a
    scheduler reached by its tcp address and numba or numpy give the same average."""
    kwargs = dict(lam=1e-3, n_epochs=2, n_workers=2, average_every=1, random_state=3)
    reference = ParallelPegasosClassifier(**kwargs, scheduler=client).fit(X, Y)
    default = ParallelPegasosClassifier(**kwargs).fit(X, Y)
    np.testing.assert_array_equal(default.coef_, reference.coef_)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=":0", protocol="tcp") as cluster:
        remote = ParallelPegasosClassifier(**kwargs, scheduler=cluster.scheduler_address)
        remote.fit(X, Y)
    np.testing.assert_array_equal(remote.coef_, reference.coef_)
    numpy_path = ParallelPegasosClassifier(**kwargs, backend="numpy", scheduler=client).fit(X, Y)
    np.testing.assert_allclose(numpy_path.coef_, reference.coef_, rtol=1e-10, atol=1e-13)


def test_a_current_client_is_used_when_scheduler_is_none(client):
    assert get_client(client) is client
    own = get_client(None)
    assert len(own.scheduler_info()["workers"]) == n_cores() and get_client(None) is own
    with Client(client.cluster.scheduler_address, set_as_default=True) as current:
        assert get_client(None) is current
    assert get_client(None) is not current  # back to this module's own cluster


def test_dask_array_partitions_are_its_chunks(client):
    Xd, yd = da.from_array(X, chunks=(500, 4)), da.from_array(Y, chunks=300)
    kwargs = dict(lam=1e-3, n_epochs=2, n_workers=3, average_every=1, random_state=0,
                  scheduler=client)
    from_dask = ParallelPegasosClassifier(**kwargs).fit(Xd, yd)
    in_memory = ParallelPegasosClassifier(partition="chunks", **kwargs).fit(X, Y)
    np.testing.assert_array_equal(from_dask.coef_, in_memory.coef_)
    np.testing.assert_array_equal(from_dask.partition_sizes_, [800, 800, 800])
    assert from_dask.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(from_dask.predict(X_TEST), in_memory.predict(X_TEST))
    odd = dict(kwargs, n_workers=7)  # 2400 rows: six parts of 343, one of 342
    from_dask = ParallelPegasosClassifier(**odd).fit(Xd, yd)
    np.testing.assert_array_equal(from_dask.partition_sizes_, [343] * 6 + [342])
    np.testing.assert_array_equal(
        from_dask.coef_, ParallelPegasosClassifier(partition="chunks", **odd).fit(X, Y).coef_)


def test_dask_labels_are_computed_once(client, monkeypatch):
    """A dask y is computed once per fit (for its classes), not once to choose between one
    model and one-vs-rest and again to plan the partitions."""
    yd = da.from_array(Y, chunks=300)
    computed = []
    compute = da.Array.compute

    def counting(self, *args, **kwargs):
        computed.append(self.name)
        return compute(self, *args, **kwargs)

    monkeypatch.setattr(da.Array, "compute", counting)
    ParallelPegasosClassifier(lam=1e-3, n_epochs=1, n_workers=2, scheduler=client,
                              random_state=0).fit(da.from_array(X, chunks=(600, 8)), yd)
    assert computed.count(yd.name) == 1


def test_history_counts_rounds_and_epochs(client):
    clf = ParallelPegasosClassifier(lam=1e-3, n_epochs=5, n_workers=2, average_every=2,
                                    scheduler=client, random_state=0)
    clf.fit(X, Y, eval_set=(X_TEST, Y_TEST))
    h = clf.history_
    np.testing.assert_array_equal(h["round"], [0, 1, 2, 3])
    np.testing.assert_array_equal(h["epoch"], [0, 2, 4, 5])
    assert h["objective"][0] == 1.0  # w = 0: the hinge loss is 1 everywhere
    Xi = add_intercept_column(X)
    W = np.hstack([clf.coef_, clf.intercept_[:, None]])
    assert h["objective"][-1] == pytest.approx(
        weighted_objective(W, Xi, np.where(Y == 1, 1.0, -1.0), 1e-3, get_loss("hinge")), rel=1e-12)
    assert h["test_error"][-1] == np.mean(clf.predict(X_TEST) != Y_TEST)
    assert np.all(np.diff(h["seconds"]) >= 0)
    np.testing.assert_array_equal(clf.t_, [1200 * 5, 1200 * 5])


def test_periodic_averaging_undoes_the_bias_of_a_sorted_split(client):
    """Client drift on a skewed split: with each worker holding one class, the one-shot
    average is far from the optimum; averaging ten times an epoch brings it back near one
    machine's run."""
    kwargs = dict(lam=1e-2, n_epochs=6, n_workers=2, partition="sorted", scheduler=client,
                  random_state=0)
    one_shot = ParallelPegasosClassifier(**kwargs).fit(X, Y)
    periodic = ParallelPegasosClassifier(average_every=0.1, **kwargs).fit(X, Y)
    single = ParallelPegasosClassifier(lam=1e-2, n_epochs=6, n_workers=1, scheduler=client,
                                       random_state=0).fit(X, Y)
    f_one_shot, f_periodic, f_single = (e.history_["objective"][-1]
                                        for e in (one_shot, periodic, single))
    assert f_periodic < f_one_shot - 0.1
    assert f_periodic < 1.2 * f_single
    assert np.mean(periodic.predict(X_TEST) != Y_TEST) < np.mean(one_shot.predict(X_TEST) != Y_TEST)


def test_multiclass_and_string_labels(client):
    rng = np.random.default_rng(0)
    centers = np.array([[3, 0], [0, 3], [-3, -3]])
    labels = rng.integers(0, 3, 600)
    Xm = centers[labels] + rng.standard_normal((600, 2))
    names = np.array(["ash", "birch", "cedar"])[labels]
    clf = ParallelPegasosClassifier(lam=1e-2, loss="multiclass_hinge", n_workers=2,
                                    average_every=1, scheduler=client, random_state=0)
    clf.fit(Xm, names)
    assert clf.coef_.shape == (3, 2) and list(clf.classes_) == ["ash", "birch", "cedar"]
    assert np.mean(clf.predict(Xm) == names) > 0.95
    assert not hasattr(clf, "partial_fit")


# --- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("params, match", [
    (dict(lam=0), "lam"), (dict(n_workers=0), "n_workers"),
    (dict(average_every=0.0), "average_every"),
    (dict(partition="random"), "partition"), (dict(n_epochs=0), "n_epochs"),
    (dict(scheduler=8786), "scheduler")])
def test_bad_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        ParallelPegasosClassifier(**params).fit(X, Y)


def test_bad_data(client):
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ParallelPegasosClassifier(scheduler=client).fit(bad, Y)
    with pytest.raises(ValueError, match="n_workers=5 .* 4 samples"):
        ParallelPegasosClassifier(n_workers=5, scheduler=client).fit(X[:4], Y[:4])
    with pytest.raises(ValueError, match="batch_size"):
        ParallelPegasosClassifier(n_workers=4, batch_size=700, scheduler=client).fit(X, Y)
    with pytest.raises(ValueError, match="average_every=0.0005 epochs is less than one"):
        ParallelPegasosClassifier(average_every=0.0005, scheduler=client).fit(X, Y)
    Xd, yd = da.from_array(X, chunks=600), da.from_array(Y, chunks=600)
    with pytest.raises(ValueError, match="partition='iid' .* dask array"):
        ParallelPegasosClassifier(partition="iid", scheduler=client).fit(Xd, yd)
    with pytest.raises(ValueError, match="NaN"):  # found on the worker, before Pegasos runs
        ParallelPegasosClassifier(scheduler=client).fit(da.from_array(bad, chunks=600), yd)
    with pytest.raises(ValueError, match="as many rows"):
        ParallelPegasosClassifier(scheduler=client).fit(Xd, yd[:100])


def test_dask_input_errors_say_what_to_do(client):
    """Unknown chunk sizes, and dask X with y in memory, once got a misleading shape
    message and an AttributeError."""
    Xd = da.random.default_rng(0).random((1000, 4), chunks=(250, 4))
    yd = (Xd[:, 0] > 0.5).astype(int) * 2 - 1
    keep = Xd[:, 1] >= 0
    with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
        ParallelPegasosClassifier(scheduler=client).fit(Xd[keep], yd[keep])
    with pytest.raises(TypeError, match="X is a dask collection, y a ndarray"):
        ParallelPegasosClassifier(scheduler=client).fit(da.from_array(X, chunks=100), Y)
    with pytest.raises(TypeError, match="sample_weight is a dask collection, X a ndarray"):
        ParallelPegasosClassifier(scheduler=client).fit(X, Y, da.ones(len(Y), chunks=100))
    known = Xd[keep].compute_chunk_sizes(), yd[keep].compute_chunk_sizes()
    assert ParallelPegasosClassifier(scheduler=client).fit(*known).n_features_in_ == 4


def test_absurd_sizes_are_refused_before_any_work():
    """average_every=1e-9 once built a list of 5e9 rounds before its own check; n_workers=10**6
    for ParallelDSG was accepted. Both are refused at once, before connecting (the address
    here answers nothing: reaching it would take 5 s and raise a ConnectionError)."""
    nowhere = f"tcp://127.0.0.1:{_closed_port()}"
    start = time.perf_counter()
    with pytest.raises(ValueError, match="average_every=1e-09 epochs is less than one iteration"):
        ParallelPegasosClassifier(average_every=1e-9, scheduler=nowhere).fit(X, Y)
    with pytest.raises(ValueError, match="average_every=1e-09 epochs is less than one iteration"):
        round_schedule(5, 1e-9, np.array([1200, 1200]))
    with pytest.raises(ValueError, match="n_workers=1000000 is more than the 2400 samples"):
        ParallelPegasosClassifier(n_workers=10**6, scheduler=nowhere).fit(X, Y)
    for estimator in (ParallelDoublyStochasticClassifier, ParallelDoublyStochasticRegressor):
        with pytest.raises(ValueError, match="n_workers=1000000 is more than the 2400 samples"):
            estimator(n_workers=10**6, scheduler=nowhere).fit(X, Y)
    assert time.perf_counter() - start < 2


def test_block_parallel_dsg_validates_before_it_sends_anything():
    """One class in y once reached the workers, each logging a 'Compute Failed' traceback
    before the user saw the error. Now the checks run here, before the cluster is reached
    (its address answers nothing)."""
    nowhere = f"tcp://127.0.0.1:{_closed_port()}"
    start = time.perf_counter()
    with pytest.raises(ValueError, match="y has one class"):
        ParallelDoublyStochasticClassifier(scheduler=nowhere).fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="Unknown label type"):
        ParallelDoublyStochasticClassifier(scheduler=nowhere).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="'n_iter' parameter of DoublyStochasticClassifier"):
        ParallelDoublyStochasticClassifier(DoublyStochasticClassifier(n_iter=0),
                                           scheduler=nowhere).fit(X, Y)
    assert time.perf_counter() - start < 2


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_fails_fast_and_says_what_to_do():
    address = f"tcp://127.0.0.1:{_closed_port()}"
    start = time.perf_counter()
    with pytest.raises(ConnectionError, match="no Dask scheduler answered .* scheduler=None"):
        ParallelPegasosClassifier(scheduler=address).fit(X, Y)
    assert time.perf_counter() - start < _CONNECT_TIMEOUT + 2  # the README's 5 s
    with pytest.raises(TypeError, match="scheduler must be"):
        get_client(8786)


@contextmanager
def _service(reply):
    """A TCP service on 127.0.0.1 that is not a Dask scheduler, in a thread: each connection
    gets ``reply`` (nothing if empty) and is then held open, silent, until the service stops.
    It stops when the block ends, and by itself after 30 s in any case."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()
    connections = []

    def serve():
        deadline = time.monotonic() + 30
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            connections.append(connection)
            if reply:
                connection.sendall(reply)
        for connection in connections:
            connection.close()
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextmanager
def _http_server():
    """``python -m http.server`` on 127.0.0.1, in a thread, stopped when the block ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _QuietHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs=dict(poll_interval=0.1),
                              daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_an_http_server_at_the_address_fails_within_the_timeout():
    """A plain HTTP server (or the dashboard's port) accepts the connection and waits for
    a request, so Dask's handshake used to wait forever."""
    with _http_server() as address:
        start = time.perf_counter()
        with pytest.raises(ConnectionError, match="no Dask scheduler answered within 5 s .* "
                                                  "not the dashboard's, 8787"):
            ParallelPegasosClassifier(scheduler=address).fit(X, Y)
        assert time.perf_counter() - start < _CONNECT_TIMEOUT + 2


def test_a_service_that_sends_a_banner_is_no_scheduler():
    """A banner's first eight bytes were once read as a frame length of 2.8 EiB."""
    with _service(b"SSH-2.0-OpenSSH_9.6\r\n") as address:
        start = time.perf_counter()
        with pytest.raises(ConnectionError, match="answered, but not in Dask's protocol"):
            ParallelPegasosClassifier(scheduler=address).fit(X, Y)
        assert time.perf_counter() - start < _CONNECT_TIMEOUT + 2


@pytest.mark.parametrize("reply", [b"", b"HTTP/1.1 400 Bad Request\r\n\r\n",
                                   bytes(8) + b"\xff" * 8])
def test_other_services_fail_within_the_timeout(reply):
    """A silent service, an unexpected reply, a frame of garbage: each a ConnectionError,
    never a hang (timeout=1 here keeps the test short; the estimators use 5 s)."""
    with _service(reply) as address:
        start = time.perf_counter()
        with pytest.raises(ConnectionError, match=f"scheduler='{address}'"):
            get_client(address, timeout=1)
        assert time.perf_counter() - start < 1 + 2


def test_a_worker_address_is_not_the_scheduler():
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=":0") as cluster:
        worker = next(iter(cluster.workers.values())).address
        scheduler = cluster.scheduler_address
        with pytest.raises(ConnectionError, match="is a Dask Worker, not a scheduler: pass the "
                                                  f"scheduler's address .*'{scheduler}'"):
            get_client(worker)


@pytest.mark.parametrize("address, match", [
    ("not an address", "scheduler='not an address' is not a scheduler address .*missing port"),
    ("http://127.0.0.1:8787", "is not a scheduler address .*unknown address scheme 'http'"),
    ("tcp://127.0.0.1", "is not a scheduler address"),
    ("tls://127.0.0.1:8786", "scheduler='tls://127.0.0.1:8786' is a TLS address .*Security"),
])
def test_scheduler_strings_that_cannot_be_used_are_named(address, match):
    """Dask's own 'missing port number' and 'TLS expects a ssl_context' name no parameter."""
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        ParallelPegasosClassifier(scheduler=address).fit(X, Y)
    assert time.perf_counter() - start < 2  # refused, not tried


# --- a Client as the scheduler: clone, search, cross-validation, pickle ------------------

def test_a_client_survives_clone_grid_search_cross_validation_and_pickle(client):
    """The README's ``scheduler=client`` once made every clone and pickle fail with
    "cannot pickle '_asyncio.Task' object"."""
    est = ParallelPegasosClassifier(lam=1e-3, n_epochs=2, average_every=1, scheduler=client,
                                    random_state=0)
    twin = clone(est)
    assert twin.scheduler is client and twin.get_params() == est.get_params()
    search = GridSearchCV(est, {"lam": [1e-3, 1e-2]}, cv=2).fit(X, Y)
    assert search.best_estimator_.scheduler is client and search.best_score_ > 0.85
    scores = cross_val_score(est, X, Y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.85
    est.fit(X, Y)
    loaded = pickle.loads(pickle.dumps(est))  # the Client is stored as its scheduler's address
    assert loaded.scheduler == client.scheduler.address and est.scheduler is client
    np.testing.assert_array_equal(loaded.predict(X_TEST), est.predict(X_TEST))
    np.testing.assert_array_equal(loaded.fit(X, Y).coef_, est.coef_)  # reconnected by address
    dsg = ParallelDoublyStochasticClassifier(
        DoublyStochasticClassifier(n_iter=20, batch_size=8, block_size=8), scheduler=client,
        random_state=0)
    assert clone(dsg).scheduler is client
    dsg.fit(X, Y)
    loaded = pickle.loads(pickle.dumps(dsg))
    np.testing.assert_array_equal(loaded.decision_function(X_TEST), dsg.decision_function(X_TEST))


def test_a_worker_killed_mid_fit_loses_nothing():
    """Killing a worker once lost the partition scattered to it (no replica) and fit died with
    "FutureCancelledError: ... already forgotten". Now the lost partition is sent again and
    its task rerun with its own seed: the same weights, with a warning naming the partition.

    Two worker processes, each holding one of the two partitions; a thread kills the first
    worker seen running a round, while the fit is in its first round. Bounded: the thread
    gives up after 60 s, the fit takes a second or two, and the nanny restarts the worker.
    Starting and stopping the worker processes takes most of the test's time."""
    kwargs = dict(lam=1e-3, n_workers=2, n_epochs=4, average_every=2, backend="numpy",
                  random_state=0)  # two rounds of 2 400 steps a worker: tens of ms each
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as processes:
        pids = processes.run(os.getpid)
        killed = []

        def kill_a_worker_in_a_round():
            deadline = time.monotonic() + 60
            while not killed and time.monotonic() < deadline:
                for worker, keys in processes.processing().items():
                    if any("_pegasos_round" in str(key) for key in keys):
                        os.kill(pids[worker], signal.SIGKILL)
                        killed.append(worker)
                        return
                time.sleep(0.002)

        killer = threading.Thread(target=kill_a_worker_in_a_round, daemon=True)
        killer.start()
        with pytest.warns(RuntimeWarning, match=r"partition [01] \(1200 rows\) was lost with "
                                                r"worker tcp://.*: it is sent again"):
            survived = ParallelPegasosClassifier(scheduler=processes, **kwargs).fit(X, Y)
        killer.join(5)
    assert killed  # the fit ran while a worker died under it
    undisturbed = ParallelPegasosClassifier(**kwargs).fit(X, Y)
    np.testing.assert_array_equal(survived.coef_, undisturbed.coef_)
    np.testing.assert_array_equal(survived.intercept_, undisturbed.intercept_)


# --- out-of-core --------------------------------------------------------------------------

def test_out_of_core_is_partial_fit_chunk_by_chunk():
    Xd, yd = lazy_linear_teacher(3000, 6, chunk_size=500, label_noise=0.1, random_state=0)
    streamed, report = fit_out_of_core(PegasosClassifier(lam=1e-3, random_state=0), Xd, yd,
                                       n_epochs=2)
    by_hand = PegasosClassifier(lam=1e-3, random_state=0)
    Xn, yn = dask.compute(Xd, yd)
    for _ in range(2):
        for start in range(0, 3000, 500):
            by_hand.partial_fit(Xn[start:start + 500], yn[start:start + 500], classes=[-1, 1])
    np.testing.assert_array_equal(streamed.coef_, by_hand.coef_)
    assert report.n_chunks == 6 and report.data_bytes == Xn.nbytes + yn.nbytes


def test_out_of_core_stays_within_its_memory_budget():
    """40 MB of data through a 4 MiB budget: chunks are cut to fit, the peak stays under it."""
    Xd, yd = lazy_linear_teacher(100_000, 50, chunk_size=5_000, random_state=1)
    budget = 4 * 2**20
    with pytest.warns(UserWarning, match="larger than an eighth of memory_budget"):
        est, report = fit_out_of_core(PegasosClassifier(lam=1e-4, random_state=0), Xd, yd,
                                      memory_budget=budget)
    assert report.data_bytes > 9 * budget
    # each 5 000-row source chunk cut into 4 pieces of 1 250 rows (at most 1 285 = budget / 8)
    assert report.chunk_bytes <= budget / 8 and report.n_chunks == 20 * 4
    assert 0 < report.peak_bytes <= budget
    Xt, yt = dask.compute(Xd[:2000], yd[:2000])
    assert np.mean(est.predict(Xt) != yt) < 0.2  # it learned the teacher (10 % flipped)


def test_chunks_are_cut_within_source_chunks_and_short_ones_joined():
    assert _chunk_rows((250,), 100, 1) == (84, 83, 83)  # near-equal pieces of <= 100 rows
    assert _chunk_rows((100, 250), 100, 1) == (100, 84, 83, 83)  # never across source chunks
    assert _chunk_rows((100,) * 10 + (10,), 10**6, 32) == (100,) * 9 + (110,)  # 10 rows joined
    assert _chunk_rows((100, 10, 5, 100), 10**6, 32) == (100, 115)  # joined to the next
    assert _chunk_rows((20,), 10**6, 32) == (20,)  # fewer rows than k: partial_fit's call


@pytest.mark.parametrize("make_estimator", [
    # DSG with mini-batches of 32, seeded to compare
    lambda: DoublyStochasticClassifier(batch_size=32, random_state=0),
    lambda: PegasosClassifier(batch_size=64, random_state=0)])
def test_a_last_chunk_shorter_than_the_mini_batch_is_joined_to_the_one_before(make_estimator):
    """1 010 rows in chunks of 100 once left a last chunk of 10 rows, which partial_fit refused
    (batch_size=32 is larger than n_samples=10) after the whole pass had run."""
    Xd = da.random.default_rng(0).random((1010, 5), chunks=(100, 5))
    yd = (Xd[:, 0] > 0.5).astype(int)
    streamed, report = fit_out_of_core(make_estimator(), Xd, yd)
    assert report.n_chunks == 10 and report.chunk_bytes == 110 * (5 * 8 + 8)
    by_hand = make_estimator()
    Xn, yn = dask.compute(Xd, yd)
    for start, stop in zip(range(0, 1000, 100), [*range(100, 900, 100), 900, 1010],
                           strict=True):
        by_hand.partial_fit(Xn[start:stop], yn[start:stop], classes=[0, 1])
    np.testing.assert_array_equal(streamed.decision_function(Xn), by_hand.decision_function(Xn))


def test_a_budget_smaller_than_a_mini_batch_is_refused():
    Xd, yd = lazy_linear_teacher(1000, 4, chunk_size=100, random_state=0)
    with pytest.raises(ValueError, match="chunks of 7 rows .* fewer than the estimator's "
                                         "batch_size=64: raise memory_budget to at least"):
        fit_out_of_core(PegasosClassifier(batch_size=64), Xd, yd, memory_budget=8 * 7 * 40 + 8)


class _AllocatesOffTheBooks(BaseEstimator):
    """partial_fit touches an anonymous memory map of ``nbytes``: resident memory that
    tracemalloc does not see (as numba's and the C libraries' allocations)."""

    def __init__(self, nbytes=16 * 2**20):
        self.nbytes = nbytes

    def partial_fit(self, X, y):
        page = b"\x01" * mmap.PAGESIZE
        with mmap.mmap(-1, self.nbytes) as buffer:
            for _ in range(self.nbytes // mmap.PAGESIZE):
                buffer.write(page)
        self.n_seen_ = getattr(self, "n_seen_", 0) + len(X)
        return self


_RESET_PEAK = os.access("/proc/self/clear_refs", os.W_OK)
_JITTER = 2**18  # resident memory freed by the process between the start and the peak


@pytest.mark.skipif(not _RESET_PEAK, reason="the kernel's high-water mark of resident memory "
                    "cannot be reset here (/proc/self/clear_refs: Linux only, writable)")
def test_the_reported_peak_is_the_process_resident_memory():
    """The peak was once tracemalloc's (199 MiB reported, 382 MiB of resident memory), and a
    budget exceeded left no trace after the run."""
    Xd, yd = lazy_linear_teacher(2000, 4, chunk_size=500, random_state=0)
    with pytest.warns(UserWarning, match=r"peak memory \(1[5-9]\.\d MiB, rss\) exceeded "
                                         r"memory_budget \(4\.0 MiB\)"):
        est, report = fit_out_of_core(_AllocatesOffTheBooks(), Xd, yd, memory_budget=4 * 2**20)
    assert est.n_seen_ == 2000 and report.peak_source == "rss"
    # the 16 MiB map, give or take what the process frees and takes besides meanwhile
    assert 16 * 2**20 - _JITTER <= report.peak_bytes < 16 * 2**20 + 4 * 2**20
    _, quiet = fit_out_of_core(_AllocatesOffTheBooks(nbytes=2**20), Xd, yd,
                               memory_budget=4 * 2**20)  # within the budget: no warning
    assert 2**20 - _JITTER <= quiet.peak_bytes < 4 * 2**20


_WHOLE_CHUNK_CHILD = """
import json, warnings
import dask.array as da
from lsl_lib.distributed import fit_out_of_core
from lsl_lib.pegasos import PegasosClassifier
Xd = da.random.default_rng(0).random((20_000, 50), chunks=(10_000, 50))
yd = (Xd[:, 0] > 0.5).astype(int) * 2 - 1
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    _, report = fit_out_of_core(PegasosClassifier(random_state=0), Xd, yd, memory_budget=2**20)
print(json.dumps(dict(messages=[str(w.message) for w in caught], peak=report.peak_bytes,
                      chunk=report.chunk_bytes, source=report.peak_source)))
"""


def test_a_source_chunk_made_whole_counts_and_is_reported_after_the_run():
    """Scaled down: source chunks of 4 MB through a 1 MiB budget are cut, but each piece
    makes its whole source chunk: warned before the run, and after it with the measured peak.

    In a fresh process: resident memory grows with what a run allocates only where the
    process has no freed memory at hand to reuse (glibc keeps freed blocks resident and
    raises its mmap threshold after large frees), which a long test session does not
    guarantee (this test failed once, late in a full run, with a peak under 1 MiB)."""
    import json
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", _WHOLE_CHUNK_CHILD], capture_output=True,
                           text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    result = json.loads(child.stdout.strip().splitlines()[-1])
    messages = result["messages"]
    assert any("cut into pieces of at most 321 rows" in m for m in messages)
    assert any("exceeded memory_budget (1.0 MiB)" in m for m in messages)
    assert result["peak"] >= 10_000 * 50 * 8
    assert result["chunk"] <= 2**20 / 8


def test_out_of_core_bad_input():
    Xd, yd = lazy_linear_teacher(1000, 4, chunk_size=100, random_state=0)
    with pytest.raises(TypeError, match="dask arrays"):
        fit_out_of_core(PegasosClassifier(), X, Y)
    with pytest.raises(ValueError, match="memory_budget"):
        fit_out_of_core(PegasosClassifier(), Xd, yd, memory_budget=100)
    with pytest.raises(ValueError, match="n_epochs"):
        fit_out_of_core(PegasosClassifier(), Xd, yd, n_epochs=0)
    with pytest.raises(ValueError, match="as many rows"):
        fit_out_of_core(PegasosClassifier(), Xd, yd[:10])
    # an estimator without partial_fit; dask X with y in memory
    with pytest.raises(TypeError, match="LinearSVC has no partial_fit, through which"):
        fit_out_of_core(LinearSVC(), Xd, yd)
    with pytest.raises(TypeError, match="X is a dask collection, y a ndarray: give them all as "
                                        "dask collections"):
        fit_out_of_core(PegasosClassifier(), Xd, yd.compute())
    # unknown chunk sizes, after boolean indexing
    keep = Xd[:, 1] >= 0
    with pytest.raises(ValueError, match=r"X has unknown chunk sizes .* call "
                                         r"X.compute_chunk_sizes\(\) first, and on y too"):
        fit_out_of_core(PegasosClassifier(), Xd[keep], yd[keep])


def test_lazy_teacher_chunks_are_reproducible_and_share_one_teacher():
    Xd, yd = lazy_linear_teacher(2000, 5, chunk_size=700, label_noise=0.1, random_state=4)
    assert Xd.chunks[0] == (700, 700, 600)
    last_first = dask.compute(Xd.blocks[2], Xd.blocks[0])
    X_all, y_all = dask.compute(Xd, yd)
    np.testing.assert_array_equal(last_first[0], X_all[1400:])
    np.testing.assert_array_equal(last_first[1], X_all[:700])
    np.testing.assert_array_equal(lazy_linear_teacher(2000, 5, chunk_size=700, label_noise=0.1,
                                                      random_state=4)[0].compute(), X_all)
    assert set(np.unique(y_all)) == {-1, 1}
    # a classifier fitted on the first chunk predicts the last within the label noise
    clf = LogisticRegression().fit(X_all[:700], y_all[:700])
    assert np.mean(clf.predict(X_all[1400:]) != y_all[1400:]) < 0.16
    with pytest.raises(ValueError, match="chunk_size"):
        lazy_linear_teacher(10, 2, chunk_size=0)


# --- block-parallel doubly stochastic gradients -------------------------------------------

def test_block_parallel_dsg_is_the_mean_of_seeded_models(client):
    base = DoublyStochasticClassifier(n_iter=40, batch_size=8, block_size=8, random_state=0)
    clf = ParallelDoublyStochasticClassifier(base, n_workers=3, scheduler=client,
                                             random_state=5).fit(X, Y)
    seeds = check_random_state(5).integers(0, 2**31 - 1, size=3)
    members = [DoublyStochasticClassifier(n_iter=40, batch_size=8, block_size=8,
                                          random_state=int(s)).fit(X, Y) for s in seeds]
    assert len({m.seed_ for m in clf.estimators_}) == 3  # each worker its own features
    for fitted, by_hand in zip(clf.estimators_, members, strict=True):
        np.testing.assert_array_equal(fitted.alpha_, by_hand.alpha_)
    mean = np.mean([m.decision_function(X_TEST) for m in members], axis=0)
    np.testing.assert_allclose(clf.decision_function(X_TEST), mean, rtol=1e-12)
    np.testing.assert_array_equal(clf.predict(X_TEST), np.where(mean > 0, 1, -1))
    assert not hasattr(clf, "predict_proba")
    log = ParallelDoublyStochasticClassifier(
        DoublyStochasticClassifier(loss="log", n_iter=20), scheduler=client, random_state=0)
    proba = log.fit(X, Y).predict_proba(X_TEST)
    np.testing.assert_allclose(proba, np.mean([m.predict_proba(X_TEST)
                                               for m in log.estimators_], axis=0))


def test_block_parallel_dsg_passes_the_sample_weights_to_each_model(client):
    """Each of the K models fits with the weights (its examples drawn in
    proportion to them); zero weights drop rows."""
    weights = np.random.default_rng(3).integers(0, 3, len(Y)).astype(float)
    base = DoublyStochasticClassifier(step="gradient", n_iter=30, batch_size=8, block_size=8)
    clf = ParallelDoublyStochasticClassifier(base, n_workers=2, scheduler=client,
                                             random_state=5).fit(X, Y, sample_weight=weights)
    seeds = check_random_state(5).integers(0, 2**31 - 1, size=2)
    for fitted, seed in zip(clf.estimators_, seeds, strict=True):
        by_hand = clone(base).set_params(random_state=int(seed)).fit(X, Y, sample_weight=weights)
        np.testing.assert_array_equal(fitted.alpha_, by_hand.alpha_)
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        ParallelDoublyStochasticRegressor(scheduler=client).fit(X, Y * 1.0, -np.ones(len(Y)))


def test_block_parallel_dsg_regressor(client):
    rng = np.random.default_rng(0)
    Xr = rng.uniform(-2, 2, (500, 1))
    yr = np.sin(2 * Xr[:, 0])
    reg = ParallelDoublyStochasticRegressor(
        DoublyStochasticRegressor(n_iter=200, batch_size=16, gamma=1.0, random_state=0),
        n_workers=2, scheduler=client, random_state=1).fit(Xr, yr)
    np.testing.assert_allclose(reg.predict(Xr),
                               np.mean([m.predict(Xr) for m in reg.estimators_], axis=0))
    assert reg.score(Xr, yr) > 0.8


# --- sample weights -------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["integer", "real"])
def test_sample_weight_is_the_weighted_average_of_weighted_runs(client, kind):
    """Each worker draws its examples in proportion to their weights, and the average
    weighs each worker by its partition's total weight."""
    rng = np.random.default_rng(1)
    weights = rng.integers(0, 4, len(Y)) if kind == "integer" else rng.exponential(size=len(Y))
    kwargs = dict(lam=1e-3, n_workers=3, n_epochs=2, average_every=0.5, partition="iid",
                  random_state=4)
    clf = ParallelPegasosClassifier(scheduler=client, **kwargs).fit(X, Y, sample_weight=weights)
    W, _ = explicit_average(X, Y, sample_weight=weights.astype(float), **kwargs)
    np.testing.assert_allclose(clf.coef_, W[:, :-1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(clf.intercept_, W[:, -1], rtol=1e-12, atol=1e-14)
    Xi = add_intercept_column(X)
    assert clf.history_["objective"][-1] == pytest.approx(weighted_objective(
        W, Xi, np.where(Y == 1, 1.0, -1.0), 1e-3, get_loss("hinge"), weights), rel=1e-12)
    unweighted = ParallelPegasosClassifier(scheduler=client, **kwargs).fit(X, Y)
    assert not np.allclose(clf.coef_, unweighted.coef_)


def test_class_weight_is_sample_weight_by_class_in_memory_and_from_dask(client):
    kwargs = dict(lam=1e-3, n_workers=2, n_epochs=2, average_every=1, random_state=0,
                  scheduler=client)
    by_class = {Y.min(): 3.0, Y.max(): 0.5}
    weighted = ParallelPegasosClassifier(class_weight=by_class, **kwargs).fit(X, Y)
    explicit = ParallelPegasosClassifier(**kwargs).fit(
        X, Y, sample_weight=compute_sample_weight(by_class, Y))
    np.testing.assert_array_equal(weighted.coef_, explicit.coef_)
    # from dask arrays: the same split as partition='chunks' in memory, weights included
    Xd, yd = da.from_array(X, chunks=500), da.from_array(Y, chunks=500)
    weights = np.random.default_rng(2).exponential(size=len(Y))
    for extra in (dict(class_weight="balanced"), dict(class_weight=by_class)):
        in_memory = ParallelPegasosClassifier(partition="chunks", **extra, **kwargs).fit(
            X, Y, sample_weight=weights)
        from_dask = ParallelPegasosClassifier(**extra, **kwargs).fit(
            Xd, yd, sample_weight=da.from_array(weights, chunks=700))
        np.testing.assert_array_equal(from_dask.coef_, in_memory.coef_)
        np.testing.assert_array_equal(from_dask.history_["objective"],
                                      in_memory.history_["objective"])


def test_sample_weight_errors(client):
    zero_first_half = np.r_[np.zeros(1200), np.ones(1200)]
    with pytest.raises(ValueError, match="sample_weight is zero on all the 1200 rows of "
                                         "partition 0"):
        ParallelPegasosClassifier(partition="chunks", scheduler=client).fit(
            X, Y, sample_weight=zero_first_half)
    negative = "Negative values in data passed to `sample_weight`"
    with pytest.raises(ValueError, match=negative):
        ParallelPegasosClassifier(scheduler=client).fit(X, Y, sample_weight=-np.ones(len(Y)))
    with pytest.raises(ValueError, match=negative):  # found on the workers, as NaN in X is
        ParallelPegasosClassifier(scheduler=client).fit(
            da.from_array(X, chunks=600), da.from_array(Y, chunks=600),
            sample_weight=da.from_array(-np.ones(len(Y)), chunks=600))
    with pytest.raises(ValueError, match="y has one class"):  # weights leave one class
        ParallelPegasosClassifier(scheduler=client).fit(X, Y, sample_weight=(Y == Y.max()) * 1.0)


def test_class_weight_check_passes_with_enough_epochs():
    """scikit-learn's check_class_weight_classifiers weighs one class 10^7 times the other on
    50 noisy points; the contract runs it at n_epochs=3 (test_common.py, _FEW_EPOCHS). With 100
    epochs averaged every 2 the average nears the weighted problem's solution, and passes
    (96 % to 100 % of the test points in class 0 over random states 0-4; the check needs 87 %)."""
    check_class_weight_classifiers(
        "ParallelPegasosClassifier",
        ParallelPegasosClassifier(n_epochs=100, average_every=2, random_state=0))


# --- the compiled loops release the GIL -----------------------------------------------------

@pytest.mark.skipif(not numba_available(), reason="numba is not importable here")
def test_compiled_loops_release_the_gil():
    from lsl_lib.pegasos._algorithm import _pegasos_numba_chunk

    assert _dispatcher(_pegasos_numba_chunk.py_func).targetoptions["nogil"] is True


def test_a_dask_dataframe_is_read_as_its_array(client):
    """Dask dataframes need pandas and pyarrow (``dask[dataframe]``), which lsl does not
    require: the test runs where they are installed."""
    dd = pytest.importorskip("dask.dataframe", reason="dask[dataframe] (pyarrow) not installed")
    import pandas as pd

    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]),
                           npartitions=3)
    labels = dd.from_pandas(pd.Series(Y), npartitions=3)
    kwargs = dict(lam=1e-3, n_epochs=2, n_workers=3, average_every=1, random_state=0,
                  scheduler=client)
    from_frame = ParallelPegasosClassifier(**kwargs).fit(frame, labels)
    in_memory = ParallelPegasosClassifier(partition="chunks", **kwargs).fit(X, Y)
    np.testing.assert_array_equal(from_frame.coef_, in_memory.coef_)
    streamed, report = fit_out_of_core(PegasosClassifier(lam=1e-3, random_state=0), frame,
                                       labels)
    assert report.n_chunks == 3 and streamed.coef_.shape == (1, X.shape[1])


def test_parallel_pegasos_learns_three_classes_one_vs_rest(client):
    """A binary loss on three classes fits one ParallelPegasos model per class
    (as LinearSVC), each equal to the binary fit on y == class with the same seed; dask
    labels too."""
    rng = np.random.default_rng(0)
    X3 = np.vstack([rng.normal(loc=c, size=(200, 3)) for c in ((0, 0, 0), (3, 0, 0), (0, 3, 0))])
    y3 = np.repeat(["a", "b", "c"], 200)
    order = rng.permutation(600)  # the dask path splits by chunks: not sorted by label
    X3, y3 = X3[order], y3[order]
    params = dict(n_workers=2, lam=1e-2, n_epochs=2, scheduler=client, random_state=0)
    model = ParallelPegasosClassifier(**params).fit(X3, y3)
    assert model.coef_.shape == (3, 3) and model.decision_function(X3).shape == (600, 3)
    for k, label in enumerate(model.classes_):
        binary = ParallelPegasosClassifier(**params).fit(X3, y3 == label)
        np.testing.assert_array_equal(model.coef_[k], binary.coef_[0])
    from sklearn.svm import LinearSVC

    peer = LinearSVC().fit(X3, y3).score(X3, y3)
    assert model.score(X3, y3) >= peer - 0.02
    lazy = ParallelPegasosClassifier(**params).fit(da.from_array(X3, chunks=150),
                                                   da.from_array(y3, chunks=150))
    assert list(lazy.classes_) == ["a", "b", "c"] and lazy.score(X3, y3) >= peer - 0.02
