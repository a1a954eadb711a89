"""The unified online kernel learner: compiled loop vs numpy reference, and the
output-vector update (the lecture's speed-up) vs recomputing each output.

n = 5000 examples of ijcnn1 (else a synthetic XOR), Gaussian kernel, the default
10 epochs and a cache that holds every column; target: numba at least 10x faster.
"""
from bench_kernel_pegasos import GAMMA, _data
from common import ratio_row, timed
from lsl_lib.online_kernel import OnlineKernelClassifier


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
    return rows
