"""The unified online kernel learner: compiled loop vs numpy reference, and the
output-vector update (the lecture's speed-up) vs recomputing each output.

n = 5000 examples of ijcnn1 (else a synthetic XOR), Gaussian kernel, the default
10 epochs and a cache that holds every column; target: numba at least 10x faster.

The last row bounds that ratio for ``ls_svm``: the numpy reference against the
compiled column updates o <- o + step K(:, x_i) alone (every step of ``ls_svm``
makes one), over a kernel matrix computed beforehand. No compiled path that keeps
float64 columns can beat that floor, since it must still make these updates.
"""
import numpy as np
from numba import njit

from bench_kernel_pegasos import GAMMA, _data
from common import ratio_row, timed
from lsl_lib.kernels import kernel_matrix
from lsl_lib.online_kernel import OnlineKernelClassifier


@njit
def _column_updates(K, order, f):
    """f += 0.5 K[:, i] for i in order (K symmetric: its row i), nothing else."""
    for i in order:
        col = K[i]
        for j in range(f.shape[0]):
            f[j] += 0.5 * col[j]


def run(quick=False):
    n = 1000 if quick else 5000
    name, X, y, _, _ = _data(n)
    repeats = 1 if quick else 3
    cache = 8 * n * n / 2 ** 20 + 1

    def fit(model, backend, update="output"):
        return lambda: OnlineKernelClassifier(model=model, C=10.0, eta=0.1, gamma=GAMMA,
                                              cache_size=cache, update=update, backend=backend,
                                              random_state=0).fit(X, y)

    rows = []
    for model in ("l1_svm", "ls_svm"):
        rows.append(ratio_row(
            f"online kernel ({model}) numba / numpy reference ({name}, n={n}, 10 epochs)",
            timed(fit(model, "numpy"), repeats), timed(fit(model, "numba"), repeats),
            target=10.0))
    rows.append(ratio_row(f"online kernel (l1_svm, numba): naive / output-vector update (n={n})",
                          timed(fit("l1_svm", "numba", "naive"), repeats),
                          timed(fit("l1_svm", "numba"), repeats)))
    K = kernel_matrix(X, kernel="gaussian", gamma=GAMMA)
    rng = np.random.default_rng(0)
    order = np.concatenate([rng.permutation(n) for _ in range(10)])
    f = np.zeros(n)
    rows.append(ratio_row(
        f"online kernel (ls_svm): numpy reference / its {len(order)} column updates alone (n={n})",
        timed(fit("ls_svm", "numpy"), repeats), timed(lambda: _column_updates(K, order, f), repeats),
        note="the ceiling of numba / numpy for ls_svm with float64 columns"))
    return rows
