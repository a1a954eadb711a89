"""Scaling out on Dask (`lsl_lib.distributed`): what two cores can show.

- Data: ijcnn1 (49 990 training rows, 22 features, 91 701 test rows; $LSL_SHARED_DATA),
  densified; without the shared data, a generated linear teacher of the same shape (the
  accuracy grid then says so).
- Speed-up: averaged parallel Pegasos (one-shot, the same 20 epochs of each worker over its
  partition, so K workers do the work of one machine's 20 epochs in 1/K of the steps each)
  on the in-process LocalCluster (one single-threaded worker per core), against K = 1 on the
  same cluster: time(K = 1) / time(K = 2). Its ceiling is 2 on two cores; each run also pays a
  round trip per round and the objective's evaluation on every partition.
- Test error against K and the averaging period: K = 1, 2, 4; one-shot, every epoch, ten
  times an epoch; partitions iid and sorted by label; the communication rounds and the time
  of each. Printed as a table.
- Out-of-core: 1.5 GB of a lazily generated linear teacher streamed through
  ``PegasosClassifier.partial_fit`` with a 64 MiB budget: the data's size against the measured
  peak (``OutOfCoreReport.peak_bytes``: the process's resident-memory growth where Linux reports
  it, else tracemalloc's peak; ``peak_source`` says which).
- Block-parallel doubly stochastic gradients: K = 2 models with their own feature seeds
  (Newton steps, 8 blocks of 128 features each), averaged, against one model and against
  RFF + LinearSVC with as many features in all (the comparison at equal D), at the
  kernel widths and C that bench_doubly_stochastic.py chose on a validation split.
"""
import time

import dask
import numpy as np

from benchmarks.common import progress, ratio_row, timed
from lsl_lib.datasets import lazy_linear_teacher, linear_teacher, load_shared, shared_data_dir
from lsl_lib.distributed import (ParallelDoublyStochasticClassifier, ParallelPegasosClassifier,
                                 fit_out_of_core, get_client)
from lsl_lib.doubly_stochastic import DoublyStochasticClassifier
from lsl_lib.pegasos import PegasosClassifier
from lsl_lib.random_features import RandomFourierFeatures

LAM = 1e-5
# Block-parallel DSG: the choices of bench_doubly_stochastic.py's validation split on ijcnn1.
DSG_GAMMA, SVC_GAMMA, SVC_C = 0.1, 0.7, 10.0


def _data():
    if shared_data_dir() is not None:
        X, y = load_shared("ijcnn1")
        X_test, y_test = load_shared("ijcnn1", "test")
        return "ijcnn1", X.toarray(), y, X_test.toarray(), y_test
    X, y = linear_teacher(49_990 + 91_701, 22, label_noise=0.05, random_state=0)
    return "generated linear teacher, 22 features", X[:49_990], y[:49_990], X[49_990:], y[49_990:]


def speed_rows(name, X, y, repeats):
    def fit(k):
        return lambda: ParallelPegasosClassifier(lam=LAM, n_epochs=20, n_workers=k,
                                                 random_state=0).fit(X, y)

    get_client(None)  # start the local cluster before timing
    one, two = timed(fit(1), repeats), timed(fit(2), repeats)
    return [ratio_row(f"parallel Pegasos, 2 workers / 1 ({name}, one-shot, 20 epochs)", one,
                      two, note="ceiling 2 on two cores: K workers share the cores, "
                                "the memory bandwidth and the round trips")]


def error_grid(name, X, y, X_test, y_test):
    """Print test error, rounds and seconds against K, the averaging period and the split."""
    print(f"\nparallel Pegasos on {name}: lam={LAM}, 5 epochs of each worker, test error "
          "(rounds, seconds)")
    periods = (None, 1, 0.1)
    print(f"{'K':>3s} {'partition':>9s} " + " ".join(f"{str(p):>22s}" for p in periods))
    results = {}
    for k in progress((1, 2, 4), desc="workers"):
        for partition in ("iid", "sorted"):
            cells = []
            for period in periods:
                clf = ParallelPegasosClassifier(lam=LAM, n_epochs=5, n_workers=k,
                                                average_every=period, partition=partition,
                                                random_state=0)
                start = time.perf_counter()
                clf.fit(X, y)
                seconds = time.perf_counter() - start
                error = np.mean(clf.predict(X_test) != y_test)
                results[k, partition, period] = error
                cells.append(f"{100 * error:6.2f} % ({clf.n_rounds_:3d}, {seconds:5.1f} s)")
            print(f"{k:3d} {partition:>9s} " + " ".join(f"{c:>22s}" for c in cells))
    return results


def grid_rows(results):
    single = results[1, "iid", None]
    rows = []
    for partition in ("iid", "sorted"):
        for period in (None, 0.1):
            gap = 100 * (results[2, partition, period] - single)
            rows.append(dict(name=f"parallel Pegasos K = 2 ({partition}, average_every={period})"
                                  " - one machine, test error points",
                             min=gap, median=gap, max=gap, target=None, met=None, note=""))
    return rows


def out_of_core_row(n_samples):
    X, y = lazy_linear_teacher(n_samples, 100, chunk_size=10_000, label_noise=0.05,
                               random_state=0)
    est, report = fit_out_of_core(PegasosClassifier(lam=LAM, random_state=0), X, y,
                                  memory_budget=64 * 2**20, progress=True)
    X_test, y_test = dask.compute(X[:10_000], y[:10_000])
    ratio = report.data_bytes / max(report.peak_bytes, 1)  # RSS growth can read 0
    return [dict(name="out-of-core: data size / peak memory (Pegasos partial_fit, 64 MiB budget)",
                 min=ratio, median=ratio, max=ratio, target=None, met=None,
                 note=f"{report.data_bytes / 2**20:.0f} MiB in {report.n_chunks} chunks of "
                      f"{report.chunk_bytes / 2**20:.1f} MiB, peak {report.peak_bytes / 2**20:.1f}"
                      f" MiB, {report.seconds:.1f} s, error on the first 10 000 rows "
                      f"{100 * np.mean(est.predict(X_test) != y_test):.2f} % (5 % flipped)")]


def block_parallel_rows(name, X, y, X_test, y_test, T, B, batch):
    """Two DSG models (Newton steps, the choices validated in bench_doubly_stochastic.py)
    on two workers, averaged, against RFF + LinearSVC with as many features in all."""
    from sklearn.svm import LinearSVC

    base = DoublyStochasticClassifier(loss="log", step="newton", n_iter=T, block_size=B,
                                      batch_size=min(batch, X.shape[0]), gamma=DSG_GAMMA,
                                      nu=0.0, theta_prime=0.01, random_state=0)
    one = base.fit(X, y).score(X_test, y_test)
    start = time.perf_counter()
    two = ParallelDoublyStochasticClassifier(base, n_workers=2, random_state=0).fit(X, y)
    seconds = time.perf_counter() - start
    two_acc = two.score(X_test, y_test)
    rff = RandomFourierFeatures(n_components=2 * T * B, variant="cos", gamma=SVC_GAMMA,
                                random_state=0)
    svc = LinearSVC(C=SVC_C).fit(rff.fit_transform(X), y).score(rff.transform(X_test), y_test)
    gap = 100 * (two_acc - svc)
    return [dict(name=f"block-parallel DSG (Newton, 2 x {T} x {B}) - (RFF + LinearSVC, "
                      f"D = {2 * T * B}), accuracy points", min=gap, median=gap, max=gap,
                 target=-1.0, met=gap >= -1.0,
                 note=f"{name}: 2 models averaged {100 * two_acc:.2f} % ({seconds:.1f} s), one "
                      f"model {100 * one:.2f} %, RFF + LinearSVC (gamma={SVC_GAMMA}, C={SVC_C}) "
                      f"{100 * svc:.2f} %")]


def run(quick=False):
    name, X, y, X_test, y_test = _data()
    if quick:
        X, y = X[:5000], y[:5000]
    rows = speed_rows(name, X, y, repeats=1 if quick else 5)
    rows += grid_rows(error_grid(name, X, y, X_test, y_test))
    rows += out_of_core_row(200_000 if quick else 2_000_000)
    rows += block_parallel_rows(name, X, y, X_test, y_test, T=8, B=32 if quick else 128,
                                batch=32768)
    return rows
