"""Kernel-approximation error of RFF, ORF, SORF, Fastfood and Nyström at equal output width.

- Data: the first 2000 training points of USPS (d = 256) and of the covtype subsample
  (d = 54) from $LSL_SHARED_DATA, or 2000 standard normal points of the same widths (seed
  100) when the shared data are absent.
- Gaussian kernel, gamma by the median heuristic, 1 / (2 med^2) with med the median
  distance between two of the 2000 points.
- Error: the relative Frobenius error ||ZZ' - K||_F / ||K||_F on the 2000 points
  (``kernel_approximation_error``; Nyström's landmarks are drawn from those points),
  mean over the seeds 0, 1, 2.
- Output width D for the targets d, 4d, 16d: the random-feature maps use the sin-cos
  features, m = D/2 frequencies, and SORF and Fastfood need m to be a multiple of d', the
  power of two >= d; so D is the target rounded up to a multiple of 2d' (USPS: 512, 1024,
  4096; covtype, d' = 64: 128, 256, 896), the same D for RFF, SORF, Fastfood and Nyström
  (m = D landmarks, at most the 2000 points: then Nyström is exact). ORF needs m to be a
  multiple of d: its D is the multiple of 2d nearest to that D (the same on USPS; on
  covtype 108, 216, 864), shown in its column.

The errors are not ratios: ``run`` prints its own table and returns no row for the
ratio table of ``run.py``.
"""
import numpy as np

from benchmarks.bench_nystroem import median_heuristic_gamma
from benchmarks.common import progress
from lsl_lib.datasets import load_covtype, load_usps, shared_data_dir
from lsl_lib.fastfood import Fastfood, next_power_of_two
from lsl_lib.nystroem import Nystroem
from lsl_lib.random_features import (OrthogonalRandomFeatures, RandomFourierFeatures,
                                     kernel_approximation_error)

METHODS = ("RFF", "ORF", "SORF", "Fastfood", "Nystroem")


def datasets(n):
    """``[(name, X)]``: the first n points of USPS and covtype, or synthetic stand-ins."""
    if shared_data_dir() is not None:
        return [("usps", load_usps()[0][:n]), ("covtype", load_covtype()[0][:n])]
    # Seed 100, not one of the transformers' seeds: ORF's first block is the QR of the first
    # d x d normals of its stream, and data drawn from the same stream would align with it.
    rng = np.random.default_rng(100)
    return [(f"synthetic d={d}", rng.normal(size=(n, d))) for d in (256, 54)]


def widths(d, target):
    """``{method: D}`` for a target width (see the module docstring)."""
    D = -(-target // (2 * next_power_of_two(d))) * 2 * next_power_of_two(d)
    D_orf = max(1, round(D / (2 * d))) * 2 * d
    return {method: D_orf if method == "ORF" else D for method in METHODS}


def transformer(method, D, n, gamma, seed):
    if method == "RFF":
        return RandomFourierFeatures(D, gamma=gamma, random_state=seed)
    if method in ("ORF", "SORF"):
        return OrthogonalRandomFeatures(D, gamma=gamma, structured=method == "SORF",
                                        random_state=seed)
    if method == "Fastfood":
        return Fastfood(D, gamma=gamma, random_state=seed)
    return Nystroem(min(D, n), gamma=gamma, random_state=seed)


def run(quick=False):
    n, seeds, factors = (500, (0,), (4,)) if quick else (2000, (0, 1, 2), (1, 4, 16))
    header = f"{'data':18s} {'target':>7s} {'D':>5s}" + "".join(f"{m:>16s}" for m in METHODS)
    print("relative Frobenius error ||ZZ' - K||_F / ||K||_F, Gaussian kernel, mean over "
          f"seeds {seeds}")
    print(header)
    print("-" * len(header))
    for name, X in datasets(n):
        d = X.shape[1]
        gamma = median_heuristic_gamma(X)
        for factor in progress(factors, desc=f"{name}: widths"):
            D = widths(d, factor * d)
            cells = []
            for method in METHODS:
                error = np.mean([kernel_approximation_error(
                    transformer(method, D[method], n, gamma, seed), X, kernel="gaussian",
                    gamma=gamma)["relative_frobenius"] for seed in seeds])
                width = "" if D[method] == D["RFF"] else f"(D={D[method]}) "
                width += "(m=n) " if method == "Nystroem" and D[method] >= n else ""
                cells.append(f"{width}{error:.4f}")
            print(f"{name:18s} {f'{factor}d':>7s} {D['RFF']:5d}"
                  + "".join(f"{c:>16s}" for c in cells))
        print(f"{'':18s} (n={n}, d={d}, gamma={gamma:.4g})")
    return []
