"""Fastfood against dense random Fourier features and against scikit-learn-extra's Fastfood.

All rows time ``transform`` of fitted transformers (the factors and W are drawn once,
outside the timing), float64, Gaussian kernel with gamma = 1/d, d = 1024,
D = 8192 output features, n = 2000 (quick: 200) examples.

- Dense RFF (``lsl_lib.random_features.RandomFourierFeatures``, the same variant) /
  Fastfood: an O(Dd) matrix product against two O(d' log d') Walsh-Hadamard transforms per
  block; target >= 2 on the default 'sincos' variant ('cos' reported).
- scikit-learn-extra's ``Fastfood`` / ours, the same d and D ('sincos' is its
  ``tradeoff_mem_accuracy='accuracy'`` with ``n_components = D/2``, 'cos' is ``'mem'``
  with ``n_components = D``; ``sigma = 1/sqrt(2 gamma)``); target > 1 on 'sincos'.
- Fastfood's numpy reference / its compiled path (reported).

scikit-learn-extra is not a dependency of the project. Its 0.3.0 wheels on PyPI are built
against numpy 1 and fail to import under numpy 2 ("numpy.dtype size changed"), so build it
from the sdist against the installed numpy (Cython and wheel are needed only to build;
``--no-deps`` keeps pip from touching numpy and scikit-learn)::

    pip install --target /tmp/build-tools cython wheel
    PYTHONPATH=/tmp/build-tools pip install --no-deps --no-build-isolation \\
        --no-binary scikit-learn-extra scikit-learn-extra==0.3.0

Without it, its rows are skipped with a printed reason.
"""
import numpy as np

from benchmarks.common import ratio_row, timed
from lsl_lib.fastfood import Fastfood
from lsl_lib.random_features import RandomFourierFeatures

N_FEATURES, D = 1024, 8192


def _sklearn_extra_fastfood():
    """scikit-learn-extra's Fastfood class, or None (with the reason printed)."""
    try:
        from sklearn_extra.kernel_approximation import Fastfood as ExtraFastfood
    except Exception as error:  # not installed, or a wheel built against numpy 1
        print(f"(scikit-learn-extra rows skipped: cannot import it: {error!r}; "
              "see bench_fastfood.py's docstring to build it)")
        return None
    return ExtraFastfood


def run(quick=False):
    n = 200 if quick else 2000
    repeats = 3 if quick else 5
    X = np.random.default_rng(0).normal(size=(n, N_FEATURES))
    gamma = 1.0 / N_FEATURES
    size = f"n={n}, d={N_FEATURES}, D={D}"  # the rows' names fit the table's column

    def transform(model):
        model.fit(X)
        return lambda: model.transform(X)

    ours = {variant: timed(transform(Fastfood(D, gamma=gamma, variant=variant, random_state=0)),
                           repeats) for variant in ("sincos", "cos")}
    rows = []
    for variant in ("sincos", "cos"):
        dense = timed(transform(RandomFourierFeatures(D, gamma=gamma, variant=variant,
                                                      random_state=0)), repeats)
        rows.append(ratio_row(f"dense RFF / Fastfood {variant} ({size})", dense,
                              ours[variant], target=2.0 if variant == "sincos" else None,
                              note="transform, float64; RFF: X @ W, Fastfood: fwht per block"))
    ExtraFastfood = _sklearn_extra_fastfood()
    if ExtraFastfood is not None:
        sigma = 1.0 / np.sqrt(2.0 * gamma)
        for variant, tradeoff, width in (("sincos", "accuracy", D // 2), ("cos", "mem", D)):
            theirs = timed(transform(ExtraFastfood(sigma=sigma, n_components=width,
                                                   tradeoff_mem_accuracy=tradeoff,
                                                   random_state=0)), repeats)
            rows.append(ratio_row(f"sklearn-extra / Fastfood {variant} ({size})",
                                  theirs, ours[variant],
                                  target=1.0 if variant == "sincos" else None,
                                  note=f"transform, float64; theirs: "
                                       f"tradeoff_mem_accuracy={tradeoff!r}"))
    reference = timed(transform(Fastfood(D, gamma=gamma, backend="numpy", random_state=0)),
                      repeats)
    rows.append(ratio_row(f"Fastfood numpy / numba ({size})", reference,
                          ours["sincos"], note="transform, sincos, float64"))
    return rows
