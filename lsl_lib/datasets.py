"""Data of the lectures: small synthetic generators and loaders of real sets.

Binary generators return ``X`` as float64 and ``y`` as int64 in {-1, +1}, the
lectures' convention. Every random function takes ``random_state`` (None, int or
:class:`numpy.random.Generator`); the same seed gives the same arrays.
"""
import numbers
import os
from pathlib import Path

import numpy as np

from lsl_lib._core.random import check_random_state

__all__ = ["two_gaussian_blobs", "checkerboard", "concentric_circles", "linear_teacher",
           "mean_stream", "load_digits", "load_breast_cancer", "load_svmlight",
           "shared_data_dir", "load_shared", "load_usps", "load_covtype"]

# name -> (train file, test file or None, n_features); see shared/data/README.md
_SHARED = {
    "a9a": ("a9a.bz2", "a9a.t.bz2", 123),
    "w8a": ("w8a.bz2", None, 300),
    "ijcnn1": ("ijcnn1.bz2", "ijcnn1.t.bz2", 22),
    "cod-rna": ("cod-rna.bz2", "cod-rna.t.bz2", 8),
    "reuters": ("reuters_lasvm.bz2", "reuters_lasvm.t.bz2", 8315),
}


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def _check_real(name, value, low, high=np.inf, low_open=False, high_open=True):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (
            value < high if high_open else value <= high)
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be a real number in {interval}, got {value!r}")
    return float(value)


def two_gaussian_blobs(n_samples=200, n_features=2, separation=3.0, noise=1.0,
                       random_state=None):
    """Two isotropic Gaussian classes, one on each side of an offset hyperplane.

    Class -1 is centred at ``c - (separation / 2) e_1`` and class +1 at
    ``c + (separation / 2) e_1``, with ``c = (1, ..., 1)``: the problem does not
    pass through the origin, so an intercept matters.

    Parameters
    ----------
    n_samples : int, default=200
        Number of points (>= 2); ``n_samples // 2`` are labelled -1, the rest +1.
    n_features : int, default=2
    separation : float, default=3.0
        Distance between the two centres (>= 0).
    noise : float, default=1.0
        Standard deviation of each class (>= 0).
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int64 in {-1, +1}, shuffled

    Examples
    --------
    >>> X, y = two_gaussian_blobs(n_samples=5, random_state=0)
    >>> X.shape, sorted(y.tolist())
    ((5, 2), [-1, -1, 1, 1, 1])
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_features = _check_int("n_features", n_features, 1)
    separation = _check_real("separation", separation, 0.0)
    noise = _check_real("noise", noise, 0.0)
    rng = check_random_state(random_state)
    y = np.ones(n_samples, dtype=np.int64)
    y[: n_samples // 2] = -1
    y = y[rng.permutation(n_samples)]
    X = 1.0 + noise * rng.standard_normal((n_samples, n_features))
    X[:, 0] += y * (separation / 2.0)
    return X, y


def checkerboard(n_samples=400, n_tiles=2, noise=0.0, random_state=None):
    """Uniform points on [-1, 1]^2 labelled by the parity of their tile.

    The square is cut into ``n_tiles x n_tiles`` tiles; tile ``(i, j)`` is +1 when
    ``i + j`` is even. With ``n_tiles=2`` this is XOR: ``y = sign(x_1 x_2)``.

    Parameters
    ----------
    n_samples : int, default=400
    n_tiles : int, default=2
        Tiles per side (>= 2).
    noise : float, default=0.0
        Probability, in [0, 0.5), that each label is flipped.
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, 2), float64
    y : ndarray of shape (n_samples,), int64 in {-1, +1}

    Examples
    --------
    >>> X, y = checkerboard(n_samples=100, random_state=0)
    >>> bool(np.all(y == np.sign(X[:, 0] * X[:, 1])))
    True
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_tiles = _check_int("n_tiles", n_tiles, 2)
    noise = _check_real("noise", noise, 0.0, 0.5)
    rng = check_random_state(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, 2))
    tiles = np.minimum(np.floor((X + 1.0) / 2.0 * n_tiles), n_tiles - 1).astype(np.int64)
    y = np.where(tiles.sum(axis=1) % 2 == 0, 1, -1).astype(np.int64)
    y[rng.random(n_samples) < noise] *= -1
    return X, y


def concentric_circles(n_samples=400, factor=0.5, noise=0.1, random_state=None):
    """Two noisy concentric circles: a radial problem no line can separate.

    Parameters
    ----------
    n_samples : int, default=400
        Number of points (>= 2); ``n_samples // 2`` on the outer circle (radius 1,
        label -1), the rest on the inner circle (radius ``factor``, label +1).
    factor : float, default=0.5
        Inner radius, in (0, 1).
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to each coordinate (>= 0).
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, 2), float64
    y : ndarray of shape (n_samples,), int64 in {-1, +1}, shuffled

    Examples
    --------
    >>> X, y = concentric_circles(n_samples=6, noise=0.0, random_state=0)
    >>> np.round(np.linalg.norm(X, axis=1), 6)[y == 1]
    array([0.5, 0.5, 0.5])
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    factor = _check_real("factor", factor, 0.0, 1.0, low_open=True)
    noise = _check_real("noise", noise, 0.0)
    rng = check_random_state(random_state)
    y = np.ones(n_samples, dtype=np.int64)
    y[: n_samples // 2] = -1
    y = y[rng.permutation(n_samples)]
    radius = np.where(y == 1, factor, 1.0)
    angle = rng.uniform(0.0, 2.0 * np.pi, size=n_samples)
    X = radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    X += noise * rng.standard_normal((n_samples, 2))
    return X, y


def linear_teacher(n_samples=1000, n_features=20, label_noise=0.1, random_state=None,
                   return_coef=False):
    """Labels given by a random linear teacher, a fixed fraction of them flipped.

    ``X`` is standard normal, ``w_true`` a uniform random unit vector and
    ``y = sign(X w_true)``; then exactly ``round(label_noise * n_samples)`` labels,
    chosen at random, are flipped.

    Parameters
    ----------
    n_samples : int, default=1000
    n_features : int, default=20
    label_noise : float, default=0.1
        Fraction of flipped labels, in [0, 0.5).
    random_state : None, int or numpy.random.Generator, default=None
    return_coef : bool, default=False
        Also return ``w_true``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int64 in {-1, +1}
    w_true : ndarray of shape (n_features,), unit norm; only if ``return_coef``

    Examples
    --------
    >>> X, y, w = linear_teacher(100, 5, label_noise=0.1, random_state=0,
    ...                          return_coef=True)
    >>> int(np.sum(y != np.sign(X @ w)))
    10
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_features = _check_int("n_features", n_features, 1)
    label_noise = _check_real("label_noise", label_noise, 0.0, 0.5)
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, n_features))
    w_true = rng.standard_normal(n_features)
    w_true /= np.linalg.norm(w_true)
    y = np.where(X @ w_true >= 0, 1, -1).astype(np.int64)
    n_flip = int(round(label_noise * n_samples))
    y[rng.choice(n_samples, size=n_flip, replace=False)] *= -1
    return (X, y, w_true) if return_coef else (X, y)


def mean_stream(n_samples=1000, mean=2.0, std=1.0, random_state=None):
    """I.i.d. draws of N(mean, std^2): the stream of the "mean by SGD" example.

    SGD on ``F(w) = E[(w - x)^2] / 2`` with step ``1/t`` gives
    ``w_t = (x_1 + ... + x_t) / t``, the running mean of this stream.

    Parameters
    ----------
    n_samples : int, default=1000
    mean : float, default=2.0
    std : float, default=1.0
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    x : ndarray of shape (n_samples,), float64

    Examples
    --------
    >>> x = mean_stream(10_000, mean=2.0, random_state=0)
    >>> bool(abs(x.mean() - 2.0) < 0.05)
    True
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    mean = _check_real("mean", mean, -np.inf)
    std = _check_real("std", std, 0.0)
    return mean + std * check_random_state(random_state).standard_normal(n_samples)


def _split(X, y, test_size, random_state, scale):
    """Split (stratified) if asked, then standardise on the train part only."""
    from sklearn.preprocessing import StandardScaler
    if test_size is None:
        return (StandardScaler().fit_transform(X), y) if scale else (X, y)
    from sklearn.model_selection import train_test_split
    _check_real("test_size", test_size, 0.0, 1.0, low_open=True)
    if isinstance(random_state, np.random.Generator):  # sklearn takes ints, not Generators
        random_state = int(random_state.integers(np.iinfo(np.int32).max))
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=random_state)
    if scale:
        scaler = StandardScaler().fit(X_tr)
        X_tr, X_te = scaler.transform(X_tr), scaler.transform(X_te)
    return X_tr, X_te, y_tr, y_te


def _is_digit(d):
    return isinstance(d, numbers.Integral) and not isinstance(d, bool) and 0 <= d <= 9


def load_digits(binary=None, scale=True, test_size=None, random_state=0):
    """The 8x8 handwritten digits bundled with scikit-learn (1797 images, 64 pixels).

    Parameters
    ----------
    binary : None or tuple (a, b) of two distinct digits, default=None
        ``None`` keeps the 10 classes (labels 0-9); ``(a, b)`` keeps only digits
        ``a`` (label -1) and ``b`` (label +1).
    scale : bool, default=True
        Divide pixels (0-16) by 16, so that features lie in [0, 1].
    test_size : None or float in (0, 1), default=None
        If given, return a stratified train/test split of that test fraction.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the split (an int gives sklearn's ``train_test_split`` split).

    Returns
    -------
    X, y : ndarray (float64), ndarray (int64), if ``test_size`` is None
    X_train, X_test, y_train, y_test : otherwise

    References
    ----------
    UCI "Optical Recognition of Handwritten Digits"; :func:`sklearn.datasets.load_digits`.

    Examples
    --------
    >>> X, y = load_digits(binary=(3, 8))
    >>> X.shape, sorted(set(y.tolist()))
    ((357, 64), [-1, 1])
    """
    from sklearn.datasets import load_digits as _sk_load_digits
    data = _sk_load_digits()
    X, y = data.data.astype(np.float64), data.target.astype(np.int64)
    if binary is not None:
        if (not isinstance(binary, (tuple, list)) or len(binary) != 2
                or binary[0] == binary[1] or not all(_is_digit(d) for d in binary)):
            raise ValueError(f"binary must be None or two distinct digits (a, b), got {binary!r}")
        keep = (y == binary[0]) | (y == binary[1])
        X, y = X[keep], np.where(y[keep] == binary[1], 1, -1).astype(np.int64)
    if scale:
        X /= 16.0
    return _split(X, y, test_size, random_state, scale=False)


def load_breast_cancer(scale=True, test_size=None, random_state=0):
    """Wisconsin diagnostic breast cancer (569 x 30), labels malignant +1, benign -1.

    The detected condition (malignant) is the positive class; scikit-learn codes
    it 0 and benign 1.

    Parameters
    ----------
    scale : bool, default=True
        Standardise each feature (zero mean, unit variance); with a split the
        statistics come from the train part only.
    test_size : None or float in (0, 1), default=None
        If given, return a stratified train/test split of that test fraction.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the split (an int gives sklearn's ``train_test_split`` split).

    Returns
    -------
    X, y : ndarray (float64), ndarray (int64), if ``test_size`` is None
    X_train, X_test, y_train, y_test : otherwise

    References
    ----------
    W. N. Street, W. H. Wolberg, O. L. Mangasarian, "Nuclear feature extraction
    for breast tumor diagnosis", 1993; :func:`sklearn.datasets.load_breast_cancer`.

    Examples
    --------
    >>> X, y = load_breast_cancer()
    >>> X.shape, int((y == 1).sum())
    ((569, 30), 212)
    """
    from sklearn.datasets import load_breast_cancer as _sk_load_breast_cancer
    data = _sk_load_breast_cancer()
    y = np.where(data.target == 0, 1, -1).astype(np.int64)
    return _split(data.data.astype(np.float64), y, test_size, random_state, scale)


def load_svmlight(path, n_features=None, dtype=np.float64):
    """Read a LIBSVM / svmlight file (plain, ``.gz`` or ``.bz2``).

    Parameters
    ----------
    path : str or path-like
    n_features : None or int, default=None
        Number of columns; ``None`` infers it from the largest index in the file.
    dtype : numpy dtype, default=np.float64

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        With int32 ``indices`` and ``indptr``, as liblinear and libsvm (scikit-learn's
        ``LinearSVC``, ``SVC``) require; :func:`sklearn.datasets.load_svmlight_file`
        itself returns int64 ones. A matrix too large for int32 (more than
        ``2**31 - 1`` stored values or columns) keeps int64.
    y : ndarray of shape (n_samples,), float64

    Examples
    --------
    >>> X, y = load_svmlight("a9a.bz2", n_features=123)  # doctest: +SKIP
    """
    from sklearn.datasets import load_svmlight_file
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"svmlight file not found: {str(path)!r}")
    if n_features is not None:
        n_features = _check_int("n_features", n_features, 1)
    X, y = load_svmlight_file(str(path), n_features=n_features, dtype=dtype)
    X = X.tocsr()
    int32_max = np.iinfo(np.int32).max
    if X.nnz <= int32_max and X.shape[1] <= int32_max:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X, np.asarray(y, dtype=np.float64)


def shared_data_dir():
    """The benchmark folder ``shared/data`` beside the repository, or None.

    ``$LSL_SHARED_DATA`` wins when set (None if it is not a directory); otherwise
    ``<repository>/../shared/data``.

    Returns
    -------
    path : pathlib.Path or None
    """
    env = os.environ.get("LSL_SHARED_DATA")
    if env:
        path = Path(env).expanduser()
    else:
        path = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
    return path if path.is_dir() else None


def _shared_file(name):
    folder = shared_data_dir()
    if folder is None:
        raise FileNotFoundError(
            "shared datasets not found; set LSL_SHARED_DATA to the folder holding "
            "a9a.bz2 etc. (default: <repository>/../shared/data)")
    path = folder / name
    if not path.is_file():
        raise FileNotFoundError(f"{name} not found in {str(folder)!r}")
    return path


def load_usps(split="train"):
    """The USPS handwritten digits (16 x 16 grey levels in [0, 1]) from the shared data.

    Parameters
    ----------
    split : {'train', 'test'}, default='train'
        7 291 training or 2 007 test images.

    Returns
    -------
    X : ndarray of shape (n, 256), float64
    y : ndarray of shape (n,), int64 digits 0-9

    References
    ----------
    J. J. Hull. A database for handwritten text recognition research. IEEE PAMI 16(5),
    1994 (the version of Hastie, Tibshirani and Friedman's *Elements of Statistical
    Learning*, rescaled to [0, 1]).

    Examples
    --------
    >>> X, y = load_usps()  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (7291, 256)
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    with np.load(_shared_file("usps.npz")) as data:
        return data[f"X_{split}"].astype(np.float64), data[f"y_{split}"].astype(np.int64)


def load_covtype():
    """The shared 16 % subsample of UCI Covertype: 92 962 rows, 54 features in [0, 1].

    Returns
    -------
    X : ndarray of shape (92962, 54), float64
        Ten min-max scaled cartographic variables, then 44 binary indicators.
    y : ndarray of shape (92962,), int64
        Cover type 1-7 (2, lodgepole pine, is the usual "one vs rest" positive class).

    References
    ----------
    J. A. Blackard, D. J. Dean. Comparative accuracies of artificial neural networks
    and discriminant analysis in predicting forest cover types from cartographic
    variables. Computers and Electronics in Agriculture 24(3), 1999.

    Examples
    --------
    >>> X, y = load_covtype()  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (92962, 54)
    """
    table = np.loadtxt(_shared_file("covtype_subsample_92962_scale01.csv.gz"), delimiter=",",
                       skiprows=1)
    return table[:, :-1], table[:, -1].astype(np.int64)


def load_shared(name, split="train"):
    """Load a LIBSVM benchmark set from :func:`shared_data_dir`.

    Parameters
    ----------
    name : {'a9a', 'w8a', 'ijcnn1', 'cod-rna', 'reuters'}
        a9a (UCI Adult, 123 features), w8a (300; no test split), ijcnn1 (22),
        cod-rna (8, unscaled) and Reuters-21578 money-fx from LASVM (8315).
    split : {'train', 'test'}, default='train'

    Returns
    -------
    X : scipy.sparse.csr_matrix, float64
        With int32 ``indices`` and ``indptr`` (see :func:`load_svmlight`), so that
        ``LinearSVC().fit(*load_shared("a9a"))`` works.
    y : ndarray, float64 in {-1, +1}

    References
    ----------
    C.-C. Chang and C.-J. Lin, LIBSVM data,
    https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/

    Examples
    --------
    >>> X, y = load_shared("a9a")  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (32561, 123)
    """
    if name not in _SHARED:
        raise ValueError(f"name must be one of {sorted(_SHARED)}, got {name!r}")
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    train_file, test_file, n_features = _SHARED[name]
    if split == "test" and test_file is None:
        raise ValueError(f"split='test' is not available for {name!r}: no test file")
    X, y = load_svmlight(_shared_file(train_file if split == "train" else test_file),
                         n_features=n_features)
    if set(np.unique(y)) <= {0.0, 1.0}:  # some copies write 0/1 labels
        y = 2.0 * y - 1.0
    return X, y
