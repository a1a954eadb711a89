"""Random Fourier features against scikit-learn's RBFSampler, and float32 against float64.

- ``RandomFourierFeatures.fit_transform`` vs ``RBFSampler.fit_transform`` at equal output
  width D = 2000, float64, n = 100 000, d = 100 (quick: n = 10 000), Gaussian kernel.
  Both variants are reported; the target (lsl no slower: ratio RBFSampler / lsl >= 1)
  is on the default, 'sincos' (D/2 frequencies: half the matrix product, the same
  number of trig evaluations). 'cos' is RBFSampler's own map.
- float64 vs float32 output of ours (default variant, same sizes): target >= 2.
"""
import numpy as np
from sklearn.kernel_approximation import RBFSampler

from benchmarks.common import ratio_row, timed
from lsl_lib.random_features import RandomFourierFeatures

D, N_FEATURES = 2000, 100


def run(quick=False):
    n = 10_000 if quick else 100_000
    repeats = 3 if quick else 5
    X = np.random.default_rng(0).normal(size=(n, N_FEATURES))
    gamma = 1.0 / N_FEATURES

    def ours(variant="sincos", dtype=np.float64):
        return lambda: RandomFourierFeatures(D, gamma=gamma, variant=variant, dtype=dtype,
                                             random_state=0).fit_transform(X)

    sklearn_times = timed(lambda: RBFSampler(gamma=gamma, n_components=D,
                                             random_state=0).fit_transform(X), repeats)
    sincos64 = timed(ours("sincos"), repeats)
    rows = [ratio_row(f"RBFSampler / RFF sincos, fit_transform (n={n}, d=100, D=2000)",
                      sklearn_times, sincos64, target=1.0, note="float64, the default variant"),
            ratio_row(f"RBFSampler / RFF cos, fit_transform (n={n}, d=100, D=2000)",
                      sklearn_times, timed(ours("cos"), repeats),
                      note="float64, the same map as RBFSampler")]
    rows.append(ratio_row(f"RFF float64 / float32, fit_transform (n={n}, d=100, D=2000)",
                          sincos64, timed(ours("sincos", np.float32), repeats), target=2.0,
                          note="sincos; X @ W and the trig functions in float32"))
    return rows
