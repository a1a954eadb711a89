"""Tests of lsl_lib.datasets: generators, bundled loaders, svmlight, shared and fetched sets."""
import bz2
import functools
import gzip
import http.server
import math
import socket
import threading
import urllib.error

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.datasets
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from lsl_lib.datasets import (
    LIBSVM_SETS, MAJORITY_TEST_ERROR, checkerboard, concentric_circles, fetch_covtype,
    fetch_cpu_act, fetch_libsvm, linear_teacher, load_breast_cancer, load_covtype,
    load_covtype_sample, load_digits, load_shared, load_svmlight, load_usps, mean_stream,
    same_shape, shared_data_dir, two_gaussian_blobs,
)
from lsl_lib.datasets import _download

# (generator, kwargs, expected n_features)
BINARY_GENERATORS = [
    (two_gaussian_blobs, dict(n_samples=101, n_features=3), 3),
    (checkerboard, dict(n_samples=101, n_tiles=3, noise=0.1), 2),
    (concentric_circles, dict(n_samples=101), 2),
    (linear_teacher, dict(n_samples=101, n_features=7), 7),
]


# ----------------------------------------------------------------- generators
@pytest.mark.parametrize("gen, kwargs, d", BINARY_GENERATORS)
def test_binary_generators_shapes_dtypes_labels(gen, kwargs, d):
    X, y = gen(**kwargs, random_state=0)
    assert X.shape == (101, d) and X.dtype == np.float64
    assert y.shape == (101,) and y.dtype == np.int64
    assert set(np.unique(y).tolist()) == {-1, 1}
    assert np.all(np.isfinite(X))


@pytest.mark.parametrize("gen, kwargs, d", BINARY_GENERATORS)
def test_binary_generators_reproducible(gen, kwargs, d):
    X1, y1 = gen(**kwargs, random_state=3)
    X2, y2 = gen(**kwargs, random_state=3)
    assert_array_equal(X1, X2)
    assert_array_equal(y1, y2)
    X3, _ = gen(**kwargs, random_state=4)
    assert not np.allclose(X1, X3)
    # a Generator is used as is: default_rng(3) gives the same draws as the seed 3
    X4, y4 = gen(**kwargs, random_state=np.random.default_rng(3))
    assert_array_equal(X1, X4)
    assert_array_equal(y1, y4)


@pytest.mark.parametrize("gen", [two_gaussian_blobs, concentric_circles])
@pytest.mark.parametrize("n", [2, 7, 200])
def test_balanced_classes(gen, n):
    _, y = gen(n_samples=n, random_state=0)
    assert (y == -1).sum() == n // 2
    assert (y == 1).sum() == n - n // 2


def test_blobs_shuffled():
    _, y = two_gaussian_blobs(n_samples=200, random_state=0)
    assert not (np.all(y[:100] == -1) and np.all(y[100:] == 1))


def test_blobs_centres_offset_from_origin():
    X, y = two_gaussian_blobs(n_samples=10, n_features=3, separation=4.0, noise=0.0,
                              random_state=0)
    expected = np.ones((10, 3))
    expected[:, 0] += 2.0 * y
    assert_allclose(X, expected)


def test_blobs_class_means():
    n, noise = 20000, 1.5
    X, y = two_gaussian_blobs(n_samples=n, n_features=2, separation=3.0, noise=noise,
                              random_state=1)
    tol = 5 * noise / math.sqrt(n / 2)
    assert_allclose(X[y == 1].mean(axis=0), [2.5, 1.0], atol=tol)
    assert_allclose(X[y == -1].mean(axis=0), [-0.5, 1.0], atol=tol)
    assert_allclose(X[y == 1].std(axis=0), [noise, noise], rtol=0.05)


def test_checkerboard_xor_and_tiles():
    X, y = checkerboard(n_samples=500, n_tiles=2, random_state=0)
    assert np.all(np.abs(X) <= 1.0)
    assert_array_equal(y, np.sign(X[:, 0] * X[:, 1]).astype(np.int64))
    X, y = checkerboard(n_samples=500, n_tiles=4, random_state=0)
    i, j = np.floor((X + 1.0) * 2.0).astype(int).T
    assert_array_equal(y, np.where((i + j) % 2 == 0, 1, -1))


def test_checkerboard_noise_flips_labels():
    n = 20000
    X0, y0 = checkerboard(n_samples=n, noise=0.0, random_state=5)
    X1, y1 = checkerboard(n_samples=n, noise=0.2, random_state=5)
    assert_array_equal(X0, X1)
    assert abs(np.mean(y0 != y1) - 0.2) < 0.02


def test_circles_radii():
    X, y = concentric_circles(n_samples=50, factor=0.3, noise=0.0, random_state=0)
    r = np.linalg.norm(X, axis=1)
    assert_allclose(r[y == -1], 1.0)
    assert_allclose(r[y == 1], 0.3)
    Xn, _ = concentric_circles(n_samples=50, factor=0.3, noise=0.1, random_state=0)
    assert not np.allclose(np.linalg.norm(Xn, axis=1)[y == 1], 0.3)


@pytest.mark.parametrize("n, label_noise, n_flip", [
    (1000, 0.1, 100), (1000, 0.0, 0), (101, 0.25, 25), (1000, 0.1234, 123), (50, 0.49, 24),
])
def test_linear_teacher_exact_flips(n, label_noise, n_flip):
    X, y, w = linear_teacher(n, 5, label_noise=label_noise, random_state=2,
                             return_coef=True)
    assert w.shape == (5,)
    assert_allclose(np.linalg.norm(w), 1.0)
    assert np.sum(y != np.sign(X @ w)) == n_flip


def test_linear_teacher_return_coef_off():
    out = linear_teacher(30, 4, random_state=0)
    assert len(out) == 2
    X, y, _ = linear_teacher(30, 4, random_state=0, return_coef=True)
    assert_array_equal(out[0], X)
    assert_array_equal(out[1], y)


def test_linear_teacher_stats():
    X, _ = linear_teacher(20000, 3, random_state=0)
    assert_allclose(X.mean(axis=0), 0.0, atol=0.05)
    assert_allclose(X.std(axis=0), 1.0, atol=0.05)


def test_mean_stream():
    n, mean, std = 100_000, 2.0, 3.0
    x = mean_stream(n, mean=mean, std=std, random_state=0)
    assert x.shape == (n,) and x.dtype == np.float64
    assert abs(x.mean() - mean) < 4 * std / math.sqrt(n)
    assert abs(x.std() - std) < 0.05
    assert_array_equal(x, mean_stream(n, mean=mean, std=std, random_state=0))
    assert not np.allclose(x, mean_stream(n, mean=mean, std=std, random_state=1))
    assert_array_equal(x, mean_stream(n, mean=mean, std=std,
                                      random_state=np.random.default_rng(0)))


def test_mean_stream_sgd_is_running_mean():
    x = mean_stream(500, random_state=0)
    w, iterates = 0.0, []
    for t, xt in enumerate(x, start=1):
        w -= (1.0 / t) * (w - xt)  # gradient of (w - x_t)^2 / 2
        iterates.append(w)
    assert_allclose(iterates, np.cumsum(x) / np.arange(1, 501), rtol=1e-12)


@pytest.mark.parametrize("name, d, positives", [("ijcnn1", 22, 0.10), ("a9a", 123, 0.24)])
def test_same_shape_has_the_real_sets_width_and_share_of_positives(name, d, positives):
    X, y, X_test, y_test = same_shape(name, 3000, 500, random_state=0)
    assert X.shape == (3000, d) and X_test.shape == (500, d)
    assert sp.issparse(X) == (name == "a9a") and y.dtype == np.float64
    assert set(np.unique(np.concatenate([y, y_test])).tolist()) == {-1.0, 1.0}
    assert abs(np.mean(np.concatenate([y, y_test]) == 1.0) - positives) < 0.03
    again = same_shape(name, 3000, 500, random_state=0)
    assert_array_equal(again[1], y) and assert_array_equal(again[3], y_test)


def test_same_shape_gives_lecture_14s_numbers():
    """The set lecture 14 fits (its committed outputs were computed on these arrays)."""
    X, y, X_test, y_test = same_shape("ijcnn1", 12000, 2000, random_state=0)
    assert X.shape == (12000, 22) and X_test.shape == (2000, 22)
    assert (y.sum(), y_test.sum()) == (-9236.0, -1542.0)
    assert X.sum() == pytest.approx(58.86781132132153, rel=1e-12)
    assert X_test.sum() == pytest.approx(34.570668566808465, rel=1e-12)


def test_same_shape_defaults_to_the_real_sizes_and_checks_its_input():
    X, _, X_test, _ = same_shape("a9a")
    assert X.shape == (32561, 123) and X_test.shape == (16281, 123)
    with pytest.raises(ValueError, match="name"):
        same_shape("w8a", 10, 10)
    with pytest.raises(ValueError, match="n_test"):
        same_shape("ijcnn1", 10, 0)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("func, kwargs, match", [
    (two_gaussian_blobs, dict(n_samples=1), "n_samples"),
    (two_gaussian_blobs, dict(n_samples=10.0), "n_samples"),
    (two_gaussian_blobs, dict(n_features=0), "n_features"),
    (two_gaussian_blobs, dict(separation=-1.0), "separation"),
    (two_gaussian_blobs, dict(noise=-0.1), "noise"),
    (two_gaussian_blobs, dict(noise=np.nan), "noise"),
    (checkerboard, dict(n_samples=0), "n_samples"),
    (checkerboard, dict(n_tiles=1), "n_tiles"),
    (checkerboard, dict(noise=0.5), "noise"),
    (checkerboard, dict(noise=-0.01), "noise"),
    (concentric_circles, dict(n_samples=1), "n_samples"),
    (concentric_circles, dict(factor=0.0), "factor"),
    (concentric_circles, dict(factor=1.0), "factor"),
    (concentric_circles, dict(noise=-1.0), "noise"),
    (linear_teacher, dict(n_samples=1), "n_samples"),
    (linear_teacher, dict(n_features=0), "n_features"),
    (linear_teacher, dict(label_noise=0.5), "label_noise"),
    (linear_teacher, dict(label_noise=-0.1), "label_noise"),
    (mean_stream, dict(n_samples=0), "n_samples"),
    (mean_stream, dict(std=-1.0), "std"),
    (mean_stream, dict(mean=np.inf), "mean"),
    (load_digits, dict(binary=(3, 3)), "binary"),
    (load_digits, dict(binary=(3, 10)), "binary"),
    (load_digits, dict(binary=3), "binary"),
    (load_digits, dict(binary=(1, 2, 3)), "binary"),
    (load_digits, dict(test_size=0.0), "test_size"),
    (load_digits, dict(test_size=1.0), "test_size"),
    (load_breast_cancer, dict(test_size=100), "test_size"),
    (load_breast_cancer, dict(test_size=-0.2), "test_size"),
    (load_shared, dict(name="mnist"), "name"),
    (load_shared, dict(name="a9a", split="valid"), "split"),
    (load_shared, dict(name="w8a", split="test"), "split"),
])
def test_bad_input_names_parameter(func, kwargs, match):
    with pytest.raises(ValueError, match=match):
        func(**kwargs)


def test_bad_random_state():
    with pytest.raises(TypeError, match="random_state"):
        two_gaussian_blobs(random_state="seed")


# ----------------------------------------------------------- bundled loaders
def test_digits_default():
    X, y = load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float64
    assert y.dtype == np.int64 and set(y.tolist()) == set(range(10))
    assert X.min() == 0.0 and X.max() == 1.0
    X_raw, _ = load_digits(scale=False)
    assert X_raw.max() == 16.0
    assert_allclose(X, X_raw / 16.0)


def test_digits_binary_subset():
    X, y = load_digits(binary=(3, 8))
    ref = sklearn.datasets.load_digits()
    keep = np.isin(ref.target, [3, 8])
    assert X.shape == (keep.sum(), 64)
    assert_allclose(X, ref.data[keep] / 16.0)
    assert_array_equal(y, np.where(ref.target[keep] == 8, 1, -1))
    assert y.dtype == np.int64
    # the order of the pair picks which digit is +1
    _, y_rev = load_digits(binary=(8, 3))
    assert_array_equal(y_rev, -y)


def test_digits_split_sizes_and_stratification():
    X_tr, X_te, y_tr, y_te = load_digits(binary=(1, 7), test_size=0.3, random_state=0)
    n = X_tr.shape[0] + X_te.shape[0]
    assert X_te.shape[0] == math.ceil(0.3 * n)
    assert y_tr.shape[0] == X_tr.shape[0] and y_te.shape[0] == X_te.shape[0]
    for label in (-1, 1):
        assert abs(np.mean(y_tr == label) - np.mean(y_te == label)) < 2.0 / len(y_te)


def test_digits_split_reproducible_and_seeded():
    a = load_digits(test_size=0.25, random_state=1)
    b = load_digits(test_size=0.25, random_state=1)
    c = load_digits(test_size=0.25, random_state=2)
    for u, v in zip(a, b, strict=True):
        assert_array_equal(u, v)
    assert not np.array_equal(a[3], c[3])
    g1 = load_digits(test_size=0.25, random_state=np.random.default_rng(9))
    g2 = load_digits(test_size=0.25, random_state=np.random.default_rng(9))
    for u, v in zip(g1, g2, strict=True):
        assert_array_equal(u, v)


def test_breast_cancer_labels_and_scaling():
    X, y = load_breast_cancer()
    ref = sklearn.datasets.load_breast_cancer()
    assert X.shape == (569, 30) and X.dtype == np.float64 and y.dtype == np.int64
    assert_array_equal(y, np.where(ref.target == 0, 1, -1))  # malignant = +1
    assert (y == 1).sum() == 212
    assert_allclose(X.mean(axis=0), 0.0, atol=1e-10)
    assert_allclose(X.std(axis=0), 1.0)
    X_raw, _ = load_breast_cancer(scale=False)
    assert_array_equal(X_raw, ref.data)


def test_breast_cancer_split_scaled_with_train_statistics():
    X_tr, X_te, y_tr, y_te = load_breast_cancer(test_size=0.25, random_state=0)
    assert X_tr.shape == (426, 30) and X_te.shape == (143, 30)
    assert_allclose(X_tr.mean(axis=0), 0.0, atol=1e-10)
    assert_allclose(X_tr.std(axis=0), 1.0)
    assert not np.allclose(X_te.mean(axis=0), 0.0, atol=1e-3)
    ref = sklearn.datasets.load_breast_cancer()
    y_ref = np.where(ref.target == 0, 1, -1)
    R_tr, R_te, ry_tr, ry_te = train_test_split(
        ref.data, y_ref, test_size=0.25, stratify=y_ref, random_state=0)
    scaler = StandardScaler().fit(R_tr)
    assert_allclose(X_tr, scaler.transform(R_tr))
    assert_allclose(X_te, scaler.transform(R_te))
    assert_array_equal(y_tr, ry_tr)
    assert_array_equal(y_te, ry_te)
    assert abs(np.mean(y_tr == 1) - np.mean(y_te == 1)) < 2.0 / len(y_te)


# ------------------------------------------------------------------ svmlight
SVMLIGHT_TEXT = "1 1:0.5 3:2\n-1 2:1.5\n1 1:-1 4:3\n"
SVMLIGHT_DENSE = np.array([[0.5, 0, 2, 0], [0, 1.5, 0, 0], [-1, 0, 0, 3]])


def _write(path, text):
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "wt") as f:
        f.write(text)
    return path


@pytest.mark.parametrize("name", ["small.txt", "small.gz", "small.bz2"])
def test_load_svmlight_plain_gz_bz2(tmp_path, name):
    path = _write(tmp_path / name, SVMLIGHT_TEXT)
    X, y = load_svmlight(path)
    assert sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert_array_equal(X.toarray(), SVMLIGHT_DENSE)
    assert y.dtype == np.float64
    assert_array_equal(y, [1.0, -1.0, 1.0])
    X6, _ = load_svmlight(str(path), n_features=6, dtype=np.float32)
    assert X6.shape == (3, 6) and X6.dtype == np.float32
    assert X6.indices.dtype == np.int32 and X6.indptr.dtype == np.int32
    assert_array_equal(X6.toarray()[:, :4], SVMLIGHT_DENSE)


def test_load_svmlight_feeds_liblinear(tmp_path):
    # liblinear (LinearSVC) refuses int64 indices, which load_svmlight_file returns
    rng = np.random.default_rng(0)
    X_dense = np.where(rng.random((40, 6)) < 0.5, rng.standard_normal((40, 6)), 0.0)
    y = np.where(X_dense[:, 0] + X_dense[:, 1] > 0, 1, -1)
    path = tmp_path / "liblinear.svm"
    sklearn.datasets.dump_svmlight_file(X_dense, y, str(path), zero_based=False)  # LIBSVM's
    X, y_read = load_svmlight(path, n_features=6)
    # scikit-learn writes zero-based files by default: said, and read when declared
    sklearn.datasets.dump_svmlight_file(X_dense, y, str(tmp_path / "zero.svm"))
    with pytest.raises(ValueError, match="pass zero_based=True"):
        load_svmlight(tmp_path / "zero.svm", n_features=6)
    X_zero, _ = load_svmlight(tmp_path / "zero.svm", n_features=6, zero_based=True)
    assert (X_zero != X).nnz == 0
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert_allclose(X.toarray(), X_dense, rtol=1e-15)
    clf = LinearSVC(random_state=0).fit(X, y_read)
    dense = LinearSVC(random_state=0).fit(X_dense, y)
    assert_allclose(clf.coef_, dense.coef_, rtol=1e-6)


def test_load_svmlight_missing_and_bad(tmp_path):
    missing = tmp_path / "nothing_here.bz2"
    with pytest.raises(FileNotFoundError, match="nothing_here.bz2"):
        load_svmlight(missing)
    path = _write(tmp_path / "small.txt", SVMLIGHT_TEXT)
    with pytest.raises(ValueError, match="n_features"):
        load_svmlight(path, n_features=0)


# ------------------------------------------------------------- shared data
def test_shared_data_dir_env(tmp_path, monkeypatch):
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path))
    assert shared_data_dir() == tmp_path
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path / "absent"))
    assert shared_data_dir() is None
    with pytest.raises(FileNotFoundError, match="LSL_SHARED_DATA"):
        load_shared("a9a")


@pytest.mark.parametrize("value", [None, ""])
def test_shared_data_dir_is_the_variable_only(monkeypatch, value):
    """No fallback to a folder beside the repository: unset or empty means absent."""
    if value is None:
        monkeypatch.delenv("LSL_SHARED_DATA", raising=False)
    else:
        monkeypatch.setenv("LSL_SHARED_DATA", value)
    assert shared_data_dir() is None
    with pytest.raises(FileNotFoundError, match="set LSL_SHARED_DATA"):
        load_usps()


def test_load_shared_from_fake_folder(tmp_path, monkeypatch):
    # 0/1 labels become -1/+1; a9a always has 123 columns
    _write(tmp_path / "a9a.t.bz2", "0 3:1 7:1\n1 1:1\n0 122:1\n")
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path))
    X, y = load_shared("a9a", split="test")
    assert X.shape == (3, 123) and X.format == "csr"
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert_array_equal(y, [-1.0, 1.0, -1.0])
    with pytest.raises(FileNotFoundError, match="a9a.bz2"):
        load_shared("a9a")




@pytest.mark.shared_data
def test_load_shared_a9a():
    X, y = load_shared("a9a")
    Xt, yt = load_shared("a9a", split="test")
    assert X.shape == (32561, 123) and Xt.shape == (16281, 123)
    assert X.format == "csr" and y.dtype == np.float64
    assert set(np.unique(y).tolist()) == {-1.0, 1.0}
    assert set(np.unique(yt).tolist()) == {-1.0, 1.0}
    assert (y == 1).sum() == 7841 and (yt == 1).sum() == 3846
    for M in (X, Xt):
        assert M.indices.dtype == np.int32 and M.indptr.dtype == np.int32


@pytest.mark.shared_data
def test_load_shared_a9a_fits_linear_svc():
    # liblinear takes only int32 indices: int64 ones made this fit fail
    clf = LinearSVC().fit(*load_shared("a9a"))
    assert clf.score(*load_shared("a9a", split="test")) > 0.84


@pytest.mark.shared_data
@pytest.mark.parametrize("name", sorted(MAJORITY_TEST_ERROR))
def test_majority_class_errors_are_the_test_sets(name):
    _, y = load_shared(name)
    _, y_test = load_shared(name, "test")
    majority = 1.0 if np.mean(y == 1.0) > 0.5 else -1.0
    assert 100 * np.mean(y_test != majority) == pytest.approx(MAJORITY_TEST_ERROR[name],
                                                              abs=0.005)


@pytest.mark.shared_data
@pytest.mark.parametrize("name, shape, n_pos", [
    ("w8a", (49749, 300), 1479),
    ("ijcnn1", (49990, 22), 4853),
    ("cod-rna", (59535, 8), 19845),
    ("reuters", (7770, 8315), 538),
])
def test_load_shared_train_sets(name, shape, n_pos):
    X, y = load_shared(name)
    assert X.shape == shape and X.format == "csr"
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert set(np.unique(y).tolist()) == {-1.0, 1.0}
    assert (y == 1).sum() == n_pos


def test_usps_and_covtype_say_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="usps.npz"):
        load_usps()
    with pytest.raises(FileNotFoundError, match="covtype"):
        load_covtype()
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError, match="LSL_SHARED_DATA"):
        load_usps()
    with pytest.raises(ValueError, match="split"):
        load_usps(split="valid")


@pytest.mark.shared_data
def test_load_usps():
    X, y = load_usps()
    Xt, yt = load_usps("test")
    assert X.shape == (7291, 256) and Xt.shape == (2007, 256)
    assert X.dtype == np.float64 and 0.0 <= X.min() and X.max() <= 1.0
    assert_array_equal(np.unique(y), np.arange(10))
    assert np.bincount(yt).sum() == 2007


@pytest.mark.shared_data
def test_load_covtype():
    X, y = load_covtype()
    assert X.shape == (92962, 54) and X.dtype == np.float64
    assert 0.0 <= X.min() and X.max() <= 1.0
    assert_array_equal(np.unique(y), np.arange(1, 8))
    assert_array_equal(X[:, 10:14].sum(axis=1), 1.0)  # one wilderness area per row
    assert (y == 2).sum() == 45328


def test_load_covtype_sample_ships_with_the_repository():
    """The 12 000 rows of data/ (lecture 12 reads them on Binder, without the shared data sets)."""
    X, y = load_covtype_sample()
    assert X.shape == (12000, 54) and X.dtype == np.float64 and y.dtype == np.int64
    assert 0.0 <= X.min() and X.max() <= 1.0
    assert_array_equal(np.unique(y), np.arange(1, 8))
    assert_array_equal(X[:, 10:14].sum(axis=1), 1.0)  # one wilderness area per row


@pytest.mark.shared_data
def test_covtype_sample_is_the_documented_draw_of_the_shared_rows():
    """data/make_samples.py: rows default_rng(0).choice(92 962, 12 000, replace=False)."""
    X, y = load_covtype_sample()
    X_all, y_all = load_covtype()
    rows = np.random.default_rng(0).choice(len(y_all), size=12000, replace=False)
    assert_array_equal(X, X_all[rows])
    assert_array_equal(y, y_all[rows])


@pytest.mark.parametrize("text, line, what", [
    ("1 1:0.5 3:1\n-1 2:x\n", 2, "'2:x' is not 'index:value'"),
    ("1 1:0.5 3:1\n\n-1 2\n", 3, "'2' is not 'index:value'"),
    ("1 1:0.5\nabc 2:1\n", 2, "the label 'abc' is not a number"),
    ("1 1:0.5 # a comment\n1 3:0.5 1:1\n", 2, "index 1 after 3"),
])
@pytest.mark.parametrize("suffix", [".txt", ".bz2"])
def test_load_svmlight_names_the_malformed_line(tmp_path, text, line, what, suffix):
    path = _write(tmp_path / ("bad" + suffix), text)
    with pytest.raises(ValueError, match=rf"bad{suffix}: line {line}: .*") as info:
        load_svmlight(path)
    assert what in str(info.value)


def test_load_svmlight_index_beyond_n_features_names_the_line(tmp_path):
    path = _write(tmp_path / "wide.txt", "1 1:1\n-1 7:1\n")
    with pytest.raises(ValueError, match=r"line 2: index 7 > n_features=4"):
        load_svmlight(path, n_features=4)


def test_load_svmlight_index_zero_names_its_line(tmp_path):
    # review D10: one stray index 0 in a one-based file used to shift every column
    path = _write(tmp_path / "z.svm", "+1 1:0.5 3:1\n-1 0:1 4:0.25\n")
    with pytest.raises(ValueError, match=r"z.svm: line 2: index 0 in a one-based file"):
        load_svmlight(path)
    with pytest.raises(ValueError, match=r"line 2: index 0 in a one-based file"):
        load_svmlight(path, n_features=4)
    # a file declared zero-based: index j is column j
    X, _ = load_svmlight(path, zero_based=True)
    assert_array_equal(X.toarray(), [[0, 0.5, 0, 1, 0], [1, 0, 0, 0, 0.25]])
    # scikit-learn's rule, on request: the 0 makes the whole file zero-based
    X_auto, _ = load_svmlight(path, zero_based="auto")
    assert_array_equal(X_auto.toarray(), X.toarray())


def test_load_svmlight_zero_based_widths(tmp_path):
    path = _write(tmp_path / "w.svm", "1 0:1 3:2\n-1 4:1\n")
    with pytest.raises(ValueError, match=r"line 2: index 4 >= n_features=4 \(a zero-based"):
        load_svmlight(path, n_features=4, zero_based=True)
    # 'auto' knows the base only at the end of the file: zero-based here, so 4 is too wide
    with pytest.raises(ValueError, match=r"line 2: index 4 >= n_features=4"):
        load_svmlight(path, n_features=4, zero_based="auto")
    assert load_svmlight(path, n_features=5, zero_based=True)[0].shape == (2, 5)
    one_based = _write(tmp_path / "o.svm", "1 1:1 3:2\n-1 4:1\n")
    X, _ = load_svmlight(one_based, n_features=4, zero_based="auto")  # one-based: fits
    assert_array_equal(X.toarray(), [[1, 0, 2, 0], [0, 0, 0, 1]])


@pytest.mark.parametrize("zero_based", [1, 0, "yes", None])
def test_load_svmlight_bad_zero_based(tmp_path, zero_based):
    path = _write(tmp_path / "small.txt", SVMLIGHT_TEXT)
    with pytest.raises(ValueError, match="zero_based must be True, False or 'auto'"):
        load_svmlight(path, zero_based=zero_based)


@pytest.mark.parametrize("suffix", [".txt", ".bz2"])
def test_load_svmlight_huge_index_names_its_line(tmp_path, suffix):
    # review D25: an OverflowError without a line number
    path = _write(tmp_path / ("huge" + suffix), "+1 1:0.5 3:1\n-1 4000000000:1\n")
    with pytest.raises(ValueError, match=r"line 2: index 4000000000 is larger than "
                                         r"2147483647"):
        load_svmlight(path)
    # the largest index the reader takes still loads (a wide CSR matrix, no dense memory)
    path = _write(tmp_path / ("wide" + suffix), "+1 2147483647:1\n")
    assert load_svmlight(path)[0].shape == (1, 2147483647)


@pytest.mark.parametrize("name, text", [("empty.txt", ""), ("comments.txt", "# a\n\n# b\n"),
                                        ("empty.gz", ""), ("comments.bz2", "#\n")])
@pytest.mark.parametrize("n_features", [None, 4])
def test_load_svmlight_no_data_line(tmp_path, name, text, n_features):
    # review D25: an empty or comments-only file loaded silently as a (0, 1) matrix
    path = _write(tmp_path / name, text)
    with pytest.raises(ValueError, match=rf"{name}: no data line \(the file is empty"):
        load_svmlight(path, n_features=n_features)
    (tmp_path / "zero_bytes.gz").write_bytes(b"")  # a download that wrote nothing
    with pytest.raises(ValueError, match=r"zero_bytes.gz: no data line"):
        load_svmlight(tmp_path / "zero_bytes.gz", n_features=n_features)


def test_load_svmlight_corrupt_archive(tmp_path):
    path = tmp_path / "cut.bz2"
    path.write_bytes(bz2.compress(SVMLIGHT_TEXT.encode())[:-10])
    with pytest.raises(ValueError, match="cut.bz2: cannot be read"):
        load_svmlight(path)


# ------------------------------------------------------------- fetched sets
@pytest.fixture
def libsvm_site(tmp_path, monkeypatch):
    """A local HTTP server standing in for the LIBSVM site; records the paths served."""
    root = tmp_path / "site"
    (root / "binary").mkdir(parents=True)
    served = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            served.append(self.path)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(_download, "_LIBSVM_URL", f"http://127.0.0.1:{server.server_port}/")
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path / "no_shared_data"))
    yield root, served
    server.shutdown()
    server.server_close()


def _closed_port_url():
    with socket.socket() as s:  # a port nobody listens on: connections are refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def test_fetch_libsvm_downloads_once_then_reads_the_cache(libsvm_site, tmp_path):
    root, served = libsvm_site
    # a9a is plain text on the site; 0/1 labels are mapped to -1/+1
    (root / "binary" / "a9a.t").write_text("0 1:1 5:1\n1 2:1 123:1\n1 3:1\n")
    X, y = fetch_libsvm("a9a", "test", data_home=tmp_path / "home")
    assert X.shape == (3, 123) and X.indices.dtype == np.int32
    assert_array_equal(y, [-1.0, 1.0, 1.0])
    assert (tmp_path / "home" / "lsl" / "a9a.t").is_file()
    assert not list((tmp_path / "home" / "lsl").glob("*.part"))
    assert served == ["/binary/a9a.t"]
    X2, y2 = fetch_libsvm("a9a", "test", data_home=tmp_path / "home")
    assert served == ["/binary/a9a.t"]  # the second call did not go to the server
    assert (X2 != X).nnz == 0
    assert_array_equal(y2, y)


def test_fetch_libsvm_reads_bz2(libsvm_site, tmp_path):
    root, _ = libsvm_site
    (root / "binary" / "ijcnn1.t.bz2").write_bytes(bz2.compress(b"-1 1:0.5 22:1\n1 3:-1\n"))
    X, y = fetch_libsvm("ijcnn1", "test", data_home=tmp_path)
    assert X.shape == (2, 22)
    assert_allclose(X.toarray()[0, [0, 21]], [0.5, 1.0])
    assert_array_equal(y, [-1.0, 1.0])


def test_fetch_libsvm_malformed_download_names_the_line(libsvm_site, tmp_path):
    root, _ = libsvm_site
    (root / "binary" / "w8a.t").write_text("1 1:1\n1 2:1 oops\n")
    with pytest.raises(ValueError, match=r"w8a.t: line 2: 'oops'"):
        fetch_libsvm("w8a", "test", data_home=tmp_path)


def test_fetch_libsvm_offline_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(_download, "_LIBSVM_URL", _closed_port_url())
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path / "no_shared_data"))
    home = tmp_path / "home"
    with pytest.raises(ConnectionError, match="could not download 'ijcnn1'") as info:
        fetch_libsvm("ijcnn1", data_home=home, timeout=5)
    message = str(info.value)
    assert str(home / "lsl" / "ijcnn1.bz2") in message and "LSL_SHARED_DATA" in message
    assert not list((home / "lsl").glob("*"))  # no partial file left behind
    # offline='sample' only helps where a sample is shipped, and says so (review D25)
    with pytest.raises(ConnectionError, match=r"could not download 'ijcnn1'.*no sample of "
                                              r"'ijcnn1' \(train\).*'a9a' \(test\), "
                                              r"'a9a' \(train\) only"):
        fetch_libsvm("ijcnn1", data_home=home, offline="sample", timeout=5)
    with pytest.raises(ConnectionError, match=r"no sample of 'usps' \(test\)"):
        fetch_libsvm("usps", "test", data_home=home, offline="sample", timeout=5)
    with pytest.raises(ConnectionError) as info:  # without 'sample', no word about samples
        fetch_libsvm("usps", data_home=home, timeout=5)
    assert "sample" not in str(info.value)
    with pytest.raises(FileNotFoundError, match="download_if_missing=False"):
        fetch_libsvm("ijcnn1", data_home=home, download_if_missing=False)


def test_fetch_libsvm_offline_sample_of_a9a(tmp_path, monkeypatch):
    monkeypatch.setattr(_download, "_LIBSVM_URL", _closed_port_url())
    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path / "no_shared_data"))
    for split, n in [("train", 2000), ("test", 1000)]:
        with pytest.warns(UserWarning, match="sample of 'a9a'"):
            X, y = fetch_libsvm("a9a", split, data_home=tmp_path, offline="sample", timeout=5)
        assert X.shape == (n, 123) and set(np.unique(y)) == {-1.0, 1.0}
        assert_array_equal(np.unique(X.data), [1.0])  # a9a's features are binary
        assert 0.2 < np.mean(y == 1) < 0.3  # a9a: 24 % positives, kept by stratification


def test_fetch_libsvm_prefers_the_shared_folder(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    with bz2.open(shared / "cod-rna.bz2", "wt") as f:
        f.write("1 1:0.5\n-1 8:2\n")
    monkeypatch.setenv("LSL_SHARED_DATA", str(shared))
    monkeypatch.setattr(_download, "_LIBSVM_URL", _closed_port_url())
    X, y = fetch_libsvm("cod-rna", data_home=tmp_path / "home")
    assert X.shape == (2, 8)
    assert_array_equal(y, [1.0, -1.0])
    assert not (tmp_path / "home" / "lsl").exists()


@pytest.mark.parametrize("kwargs, match", [
    (dict(name="nope"), "name must be one of"),
    (dict(name="a9a", split="valid"), "split must be"),
    (dict(name="cpusmall", split="test"), "no test file"),
    (dict(name="a9a", offline="guess"), "offline must be"),
])
def test_fetch_libsvm_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fetch_libsvm(**kwargs)


def test_libsvm_sets_table():
    for folder, train, test, n_features in LIBSVM_SETS.values():
        assert folder in ("binary", "multiclass", "regression")
        assert isinstance(train, str) and (test is None or isinstance(test, str))
        assert n_features >= 1


def test_openml_and_sklearn_fetchers_say_what_to_do_offline(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setenv("LSL_SHARED_DATA", str(tmp_path / "no_shared_data"))
    monkeypatch.setattr(sklearn.datasets, "fetch_openml", no_network)
    monkeypatch.setattr(sklearn.datasets, "fetch_covtype", no_network)
    with pytest.raises(ConnectionError, match="cpu_act from OpenML.*no route to host"):
        fetch_cpu_act(data_home=tmp_path)
    with pytest.raises(ConnectionError, match="covtype.*no route to host"):
        fetch_covtype(data_home=tmp_path)


@pytest.mark.shared_data
@pytest.mark.skipif(
    shared_data_dir() is not None
    and not (shared_data_dir() / "pmlb_197_cpu_act.tsv.gz").is_file(),
    reason="the folder that LSL_SHARED_DATA names has no pmlb_197_cpu_act.tsv.gz")
def test_fetch_cpu_act_reads_the_shared_copy():
    X, y = fetch_cpu_act()
    assert X.shape == (8192, 21) and y.shape == (8192,)
    assert 0 <= y.min() and y.max() <= 100  # the share of time in user mode, in %
