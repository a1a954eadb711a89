"""What the benchmarks share: timing helpers (repeats, ratios, the table, progress bars), the
README writer, and the data and settings that more than one benchmark uses.

Nothing outside ``benchmarks/`` imports it.
"""
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from lsl_lib.datasets import load_shared, same_shape, shared_data_dir

#: Epochs of BSGD in the budgeted rows (BudgetedSVM's default ``-e 5``: two leave it a few
#: points short on 3 000-row subsamples); bench_budgeted and reproduce.py's budgeted group.
BSGD_EPOCHS = 5
#: LLSVM's dual coordinate descent stops at this tolerance: at 1e-4 (the default) and C = 10 it
#: stops at max_iter on ijcnn1 subsamples with a duality gap within a factor 2 of the tolerance.
LLSVM_TOL = 1e-3

#: Random binning on the covtype subsample (bench_random_binning and reproduce.py's forest
#: rows): the first N_TRAIN rows of a permutation (seed 0) train, the rest test; the Laplacian
#: kernel's width and the ridge penalty of least squares on the binning features, each chosen
#: on a validation split of the training rows (60 000 / 15 000, P = 50): gamma of 1, 3, 10;
#: alpha of 0.1, 0.3, 1, 10.
N_TRAIN = 75_000
GAMMA_BINNING = 3.0
ALPHA_BINNING = 0.3


def progress(iterable=None, desc=None, total=None, leave=False):
    """A progress bar (``tqdm.auto``) over ``iterable``, on stderr so that the printed
    table on stdout stays clean; it disappears when done unless ``leave``."""
    return tqdm(iterable, desc=desc, total=total, leave=leave, file=sys.stderr,
                dynamic_ncols=True)


def timed(fit, repeats):
    """Wall-clock seconds of ``fit()`` over ``repeats`` runs (after one warm-up run)."""
    fit()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return times


def ratio_row(name, slower, faster, target=None, note=""):
    """A row of the table: the ratios slower_i / faster_i over paired repeats.

    ``target`` is the minimum median ratio the benchmark asks for (None: report only).
    """
    ratios = sorted(s / f for s, f in zip(slower, faster, strict=True))
    median = statistics.median(ratios)
    return dict(name=name, min=ratios[0], median=median, max=ratios[-1],
                target=target, met=None if target is None else median >= target, note=note)


def print_table(rows):
    header = f"{'benchmark':58s} {'min':>8s} {'median':>8s} {'max':>8s} {'target':>8s}  met"
    print(header)
    print("-" * len(header))
    for r in rows:
        target = "" if r["target"] is None else f"≥{r['target']:.3g}"
        met = "" if r["met"] is None else ("yes" if r["met"] else "NO")
        print(f"{r['name']:58s} {r['min']:8.2f} {r['median']:8.2f} {r['max']:8.2f} "
              f"{target:>8s}  {met}")
        if r["note"]:
            print(f"    {r['note']}")


def write_between_markers(path, text, begin, end, section=None):
    """Replace exactly the text between the lines ``begin`` and ``end`` of the file ``path``
    by ``text``. When neither line is there and a ``section`` heading is given, append that
    section holding them first. A ``ValueError`` names the markers when they are not there
    once each, in that order (the file is then left untouched)."""
    path = Path(path)
    content = path.read_text(encoding="utf-8")
    if section is not None and begin not in content and end not in content:
        content = f"{content.rstrip()}\n\n{section}\n\n{begin}\n{end}\n"
    if content.count(begin) != 1 or content.count(end) != 1 or \
            content.index(begin) > content.index(end):
        raise ValueError(f"{path} must hold the line {begin!r} once, followed later by the "
                         f"line {end!r} once: the table is written between them")
    head, rest = content.split(begin)
    _, tail = rest.split(end)
    path.write_text(f"{head}{begin}\n{text.strip()}\n{end}{tail}", encoding="utf-8")


def load_problem(name, n_train=None, n_test=None, random_state=0):
    """ijcnn1 or a9a from the shared data, or ``lsl_lib.datasets.same_shape`` when absent.

    ``n_train`` / ``n_test`` keep the first rows of a uniform random permutation (all rows
    when None; the generated sets then have the real sets' sizes).

    Returns
    -------
    X, y, X_test, y_test, source : arrays and 'shared data' or 'generated, same shape'
    """
    if shared_data_dir() is not None:
        X, y = load_shared(name)
        X_test, y_test = load_shared(name, "test")
        source = "shared data"
    else:
        X, y, X_test, y_test = same_shape(name, n_train, n_test, random_state)
        source = "generated, same shape"
    rng = np.random.default_rng(random_state)
    if n_train is not None and n_train < X.shape[0]:
        keep = rng.permutation(X.shape[0])[:n_train]
        X, y = X[keep], y[keep]
    if n_test is not None and n_test < X_test.shape[0]:
        keep = rng.permutation(X_test.shape[0])[:n_test]
        X_test, y_test = X_test[keep], y_test[keep]
    if name == "ijcnn1" and sp.issparse(X):  # 22 dense features: dense rows are faster
        X, X_test = X.toarray(), X_test.toarray()
    return X, y, X_test, y_test, source
