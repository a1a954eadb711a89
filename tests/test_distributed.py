"""Scaling out on Dask: averaged parallel Pegasos is the explicit average of per-partition
Pegasos runs on any cluster, dask input equals the same split in memory, out-of-core streaming
is partial_fit chunk by chunk within its memory budget, block-parallel DSG is the mean of K
seeded models, an unreachable scheduler fails fast with a clear error, and the estimators keep
scikit-learn's contract."""
import socket
import time

import dask
import dask.array as da
import numpy as np
import pytest
import scipy.sparse as sp
from distributed import Client, LocalCluster
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from lsl_lib._core.backend import _dispatcher, numba_available
from lsl_lib._core.random import check_random_state
from lsl_lib._core.validation import add_intercept_column
from lsl_lib.datasets import lazy_linear_teacher, linear_teacher
from lsl_lib.distributed import (ParallelDoublyStochasticClassifier,
                                 ParallelDoublyStochasticRegressor, ParallelPegasosClassifier,
                                 fit_out_of_core, get_client, n_cores, partition_indices,
                                 round_schedule)
from lsl_lib.doubly_stochastic import DoublyStochasticClassifier, DoublyStochasticRegressor
from lsl_lib.losses import get_loss
from lsl_lib.pegasos import PegasosClassifier, PegasosState, pegasos, weighted_objective

X_ALL, Y_ALL = linear_teacher(3000, 8, label_noise=0.05, random_state=0)
X, Y = X_ALL[:2400], Y_ALL[:2400]
X_TEST, Y_TEST = X_ALL[2400:], Y_ALL[2400:]


@pytest.fixture(scope="module", autouse=True)
def compiled_in_this_thread():
    """Compile the loops the workers run here first, so that they load them from numba's cache.

    numba's lowering calls ``ast.parse``, which CPython 3.11 does not make safe against a
    parse in another thread at the same moment (python/cpython#106905: a rare spurious
    "SystemError: AST constructor recursion depth mismatch", seen once here in the test
    process's reporting while worker threads compiled)."""
    for Xw in (X[:50], sp.csr_matrix(X[:50]), X[:50].astype(np.float32)):
        for loss in ("hinge", "multiclass_hinge"):
            PegasosClassifier(n_iter=5, loss=loss, random_state=0).fit(Xw, Y[:50])
        DoublyStochasticClassifier(n_iter=3, batch_size=4, random_state=0).fit(Xw, Y[:50])
        DoublyStochasticClassifier(n_iter=3, batch_size=4, loss="log", random_state=0).fit(
            Xw, Y[:50]).predict_proba(Xw[:5])
        DoublyStochasticRegressor(n_iter=3, batch_size=4, random_state=0).fit(Xw, X[:50, 0])


@pytest.fixture(scope="module")
def client():
    """A cluster of the test's own: two in-process workers, set as no one's default."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as c:
        yield c


def explicit_average(X, y, *, lam, n_workers, n_epochs, average_every, partition,
                     random_state, averaging="suffix", batch_size=1):
    """The rounds of ParallelPegasosClassifier written out: K sequential Pegasos runs per
    round, each from the average, then the average weighted by partition size."""
    rng = check_random_state(random_state)
    parts = partition_indices(y, n_workers, partition, rng)
    seed = rng.integers(0, 2**63)
    Xi = add_intercept_column(X)
    yi = np.where(y == np.unique(y)[1], 1.0, -1.0)
    sizes = np.array([len(p) for p in parts])
    W = np.zeros((1, Xi.shape[1]))
    t = np.zeros(n_workers, dtype=int)
    iterations, _ = round_schedule(n_epochs, average_every, -(-sizes // batch_size))
    for rounds, n_iter in enumerate(iterations):
        outputs = []
        for k, p in enumerate(parts):
            state = PegasosState(1, Xi.shape[1])
            state.W, state.t = W.copy(), t[k]
            state, _ = pegasos(Xi[p], yi[p], lam, n_iter[k], batch_size=batch_size,
                               averaging=averaging, state=state,
                               random_state=np.random.default_rng([seed, rounds, k]))
            outputs.append(state.coef)
            t[k] += n_iter[k]
        W = sum(n * w for n, w in zip(sizes, outputs)) / sizes.sum()
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
    """Zhang et al.: with each worker holding one class, the one-shot average is far from
    the optimum; averaging ten times an epoch brings it back near one machine's run."""
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
    (dict(lam=0), "lam"), (dict(n_workers=0), "n_workers"), (dict(average_every=0.0), "average_every"),
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


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_fails_fast_and_says_what_to_do():
    address = f"tcp://127.0.0.1:{_closed_port()}"
    start = time.perf_counter()
    with pytest.raises(ConnectionError, match="no Dask scheduler answered .* scheduler=None"):
        ParallelPegasosClassifier(scheduler=address).fit(X, Y)
    assert time.perf_counter() - start < 20  # the timeout is 5 s; a hang would be minutes
    with pytest.raises(TypeError, match="scheduler must be"):
        get_client(8786)


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
    assert report.chunk_bytes <= budget / 8 and report.n_chunks == -(-100_000 // (budget // (8 * 408)))
    assert 0 < report.peak_bytes <= budget
    Xt, yt = dask.compute(Xd[:2000], yd[:2000])
    assert np.mean(est.predict(Xt) != yt) < 0.2  # it learned the teacher (10 % flipped)


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
    for fitted, by_hand in zip(clf.estimators_, members):
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


# --- the compiled loops release the GIL -----------------------------------------------------

@pytest.mark.skipif(not numba_available(), reason="numba is not importable here")
def test_compiled_loops_release_the_gil():
    from lsl_lib.pegasos import pegasos_numba_chunk

    assert _dispatcher(pegasos_numba_chunk.py_func).targetoptions["nogil"] is True


# --- scikit-learn's contract --------------------------------------------------------------

@parametrize_with_checks([
    ParallelPegasosClassifier(lam=1e-2, n_epochs=3, average_every=1, random_state=0),
    ParallelDoublyStochasticClassifier(DoublyStochasticClassifier(n_iter=30, batch_size=4),
                                       random_state=0),
    ParallelDoublyStochasticRegressor(DoublyStochasticRegressor(step="gradient", n_iter=100,
                                                                batch_size=8, block_size=16,
                                                                nu=1e-4), random_state=0),
])
def test_scikit_learn_contract(estimator, check):
    check(estimator)


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
