"""The unified online kernel learner: compiled loop vs numpy reference, and the
output-vector update (the lecture's speed-up) vs recomputing each output.

Data: ijcnn1 (else a synthetic XOR), Gaussian kernel, C = 10, the default 10 epochs and
a cache that holds every column (8 n^2 bytes).

- n = 1000: the cache (8 MB) fits in the L3 cache; target: numba at least 10x faster
  than the numpy reference, for ``l1_svm`` and ``ls_svm``.
- n = 5000: the cache (191 MB) does not. Every step of ``ls_svm`` adds step * K(:, x_i)
  to the n outputs, a 40 kB column read from main memory; the floor row times these
  50 000 column updates alone, compiled, over a kernel matrix computed beforehand. No
  path that keeps float64 columns can run faster than that floor, so numpy reference /
  floor is the ceiling of the numba / numpy ratio. The ratio is reported beside it (no
  target stands above the physics of the algorithm), with the time of the compiled
  path in multiples of the floor.
"""
import numpy as np
from numba import njit

from benchmarks.bench_kernel_pegasos import GAMMA, _data
from benchmarks.common import ratio_row, timed
from lsl_lib.kernels import kernel_matrix
from lsl_lib.online_kernel import OnlineKernelClassifier

C, EPOCHS = 10.0, 10


@njit
def _column_updates(K, order, f):
    """f += 0.5 K[:, i] for i in order (K symmetric: its row i), nothing else."""
    for i in order:
        col = K[i]
        for j in range(f.shape[0]):
            f[j] += 0.5 * col[j]


def _fit(X, y, model, backend, update="output"):
    cache = 8 * X.shape[0] ** 2 / 2 ** 20 + 1
    return lambda: OnlineKernelClassifier(model=model, C=C, eta=0.1, gamma=GAMMA,
                                          n_epochs=EPOCHS, cache_size=cache, update=update,
                                          backend=backend, random_state=0).fit(X, y)


def in_cache(repeats):
    """n = 1000: numba / numpy against the target of 10."""
    name, X, y, _, _ = _data(1000)
    return [ratio_row(f"online kernel ({model}) numba / numpy reference ({name}, n=1000, "
                      f"{EPOCHS} epochs)",
                      timed(_fit(X, y, model, "numpy"), repeats),
                      timed(_fit(X, y, model, "numba"), repeats), target=10.0,
                      note="kernel cache of 8 MB: fits in L3")
            for model in ("l1_svm", "ls_svm")]


def beyond_cache(repeats, n=5000):
    """n = 5000: numba / numpy beside the memory-bandwidth floor of ls_svm."""
    name, X, y, _, _ = _data(n)
    times = {(model, backend): timed(_fit(X, y, model, backend), repeats)
             for model in ("l1_svm", "ls_svm") for backend in ("numpy", "numba")}
    K = kernel_matrix(X, kernel="gaussian", gamma=GAMMA)
    rng = np.random.default_rng(0)
    order = np.concatenate([rng.permutation(n) for _ in range(EPOCHS)])
    f = np.zeros(n)
    floor = timed(lambda: _column_updates(K, order, f), repeats)
    ceiling = ratio_row(f"online kernel (ls_svm): numpy reference / floor, its {len(order)} "
                        f"column updates alone (n={n})", times["ls_svm", "numpy"], floor,
                        note="the ceiling of numba / numpy for ls_svm with float64 columns")
    above_floor = ratio_row(f"online kernel (ls_svm): numba / floor (n={n})",
                            times["ls_svm", "numba"], floor,
                            note="time of the compiled path in multiples of the floor")
    rows = []
    for model in ("l1_svm", "ls_svm"):
        row = ratio_row(f"online kernel ({model}) numba / numpy reference ({name}, n={n}, "
                        f"{EPOCHS} epochs)", times[model, "numpy"], times[model, "numba"])
        if model == "ls_svm":
            row["note"] = (f"beside its ceiling numpy / floor = {ceiling['median']:.2f}: "
                           f"{row['median'] / ceiling['median']:.0%} of it; cache "
                           f"{8 * n * n / 2 ** 20:.0f} MB, beyond L3")
        rows.append(row)
    rows += [ceiling, above_floor]
    rows.append(ratio_row(f"online kernel (l1_svm, numba): naive / output-vector update (n={n})",
                          timed(_fit(X, y, "l1_svm", "numba", "naive"), repeats),
                          times["l1_svm", "numba"]))
    return rows


def run(quick=False):
    repeats = 1 if quick else 3
    return in_cache(repeats) + beyond_cache(repeats, n=2000 if quick else 5000)
