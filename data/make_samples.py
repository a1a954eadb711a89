"""Make the small samples of data/ from the full sets (run once; the output is committed).

    python data/make_samples.py   # needs ../shared/data (or $LSL_SHARED_DATA)

a9a_sample.svm.gz / a9a_sample.t.svm.gz: 2 000 training and 1 000 test rows of LIBSVM's
a9a, drawn without replacement, stratified by label, with numpy's default_rng(0); what
lsl_lib.datasets.fetch_libsvm("a9a", offline="sample") returns without a network.
"""
import gzip
from pathlib import Path

import numpy as np
from sklearn.datasets import dump_svmlight_file
from sklearn.model_selection import train_test_split

from lsl_lib.datasets import load_shared

HERE = Path(__file__).resolve().parent


def sample(split, size, out):
    X, y = load_shared("a9a", split)
    rows, _ = train_test_split(np.arange(len(y)), train_size=size, stratify=y,
                               random_state=np.random.RandomState(0))
    rows.sort()
    with gzip.GzipFile(HERE / out, "wb", mtime=0) as f:  # mtime 0: the same bytes each run
        dump_svmlight_file(X[rows], y[rows].astype(np.int64), f, zero_based=False)


if __name__ == "__main__":
    sample("train", 2000, "a9a_sample.svm.gz")
    sample("test", 1000, "a9a_sample.t.svm.gz")
