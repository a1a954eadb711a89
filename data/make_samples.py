"""Make the small samples of data/ from the full sets (run once; the output is committed).

    python data/make_samples.py   # needs $LSL_SHARED_DATA (the course's data sets)

a9a_sample.svm.gz / a9a_sample.t.svm.gz: 2 000 training and 1 000 test rows of LIBSVM's
a9a, drawn without replacement, stratified by label, with numpy's default_rng(0); what
lsl_lib.datasets.fetch_libsvm("a9a", offline="sample") returns without a network.

covtype_sample.csv.gz: 12 000 rows of the shared covtype subsample
(covtype_subsample_92962_scale01.csv.gz: 54 features min-max scaled to [0, 1], then
Cover_Type 1-7), drawn without replacement with numpy's default_rng(0), kept in the order of
the draw and copied line for line (the same text, header included); what
lsl_lib.datasets.load_covtype_sample() reads (lecture 12's random binning section).
"""
import gzip
from pathlib import Path

import numpy as np
from sklearn.datasets import dump_svmlight_file
from sklearn.model_selection import train_test_split

from lsl_lib.datasets import load_shared, shared_data_dir

HERE = Path(__file__).resolve().parent


def sample(split, size, out):
    X, y = load_shared("a9a", split)
    rows, _ = train_test_split(np.arange(len(y)), train_size=size, stratify=y,
                               random_state=np.random.RandomState(0))
    rows.sort()
    with gzip.GzipFile(HERE / out, "wb", mtime=0) as f:  # mtime 0: the same bytes each run
        dump_svmlight_file(X[rows], y[rows].astype(np.int64), f, zero_based=False)


def covtype_sample(size=12_000, out="covtype_sample.csv.gz"):
    with gzip.open(shared_data_dir() / "covtype_subsample_92962_scale01.csv.gz", "rt") as f:
        header, *lines = f.read().splitlines()
    rows = np.random.default_rng(0).choice(len(lines), size=size, replace=False)
    with gzip.GzipFile(HERE / out, "wb", mtime=0) as f:
        f.write(("\n".join([header] + [lines[r] for r in rows]) + "\n").encode())


if __name__ == "__main__":
    sample("train", 2000, "a9a_sample.svm.gz")
    sample("test", 1000, "a9a_sample.t.svm.gz")
    covtype_sample()
