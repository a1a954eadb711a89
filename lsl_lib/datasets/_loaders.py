"""Loaders: scikit-learn's bundled sets, the repository's samples and the shared folder
named by ``LSL_SHARED_DATA``."""
import numbers
import os
from pathlib import Path

import numpy as np

from lsl_lib.datasets._checks import _check_name_and_split, _check_real
from lsl_lib.datasets._svmlight import load_svmlight

# name -> (train file, test file or None, n_features), in the folder of shared_data_dir()
# (its README.md describes them)
_SHARED = {
    "a9a": ("a9a.bz2", "a9a.t.bz2", 123),
    "w8a": ("w8a.bz2", None, 300),
    "ijcnn1": ("ijcnn1.bz2", "ijcnn1.t.bz2", 22),
    "cod-rna": ("cod-rna.bz2", "cod-rna.t.bz2", 8),
    "reuters": ("reuters_lasvm.bz2", "reuters_lasvm.t.bz2", 8315),
}

#: The test error, in %, of always answering the majority class of the training rows
#: (-1 on both): the floor a classifier of the shared a9a and ijcnn1 must beat.
MAJORITY_TEST_ERROR = {"a9a": 23.62, "ijcnn1": 9.50}


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



def shared_data_dir():
    """The folder of the course's benchmark sets, named by ``$LSL_SHARED_DATA``, or None.

    The sets (a9a, w8a, ijcnn1, cod-rna, Reuters, USPS, the covtype subsample, cpu_act)
    are not in the repository; set the environment variable ``LSL_SHARED_DATA`` to the
    folder that holds them. Nothing else is searched.

    Returns
    -------
    path : pathlib.Path or None
        None when the variable is unset, empty, or not a directory.
    """
    env = os.environ.get("LSL_SHARED_DATA")
    if not env:
        return None
    path = Path(env).expanduser()
    return path if path.is_dir() else None


def _shared_file(name):
    folder = shared_data_dir()
    if folder is None:
        raise FileNotFoundError(
            "shared datasets not found: set LSL_SHARED_DATA to the folder of the course's "
            "benchmark sets (the one holding a9a.bz2, usps.npz, ...)")
    path = folder / name
    if not path.is_file():
        raise FileNotFoundError(f"{name} not found in {str(folder)!r}")
    return path


def _repository_data(name):
    """The path of ``name`` in the repository's ``data/`` folder (beside ``lsl_lib/``)."""
    return Path(__file__).resolve().parents[2] / "data" / name


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


def _read_covtype_csv(path):
    """X and the cover types of a covtype CSV (a header line, the type in the last column)."""
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1].astype(np.int64)


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
    return _read_covtype_csv(_shared_file("covtype_subsample_92962_scale01.csv.gz"))


def load_covtype_sample():
    """12 000 rows of :func:`load_covtype`'s subsample, shipped in the repository's ``data/``.

    What a notebook can use without the shared sets (on Binder, say): the same 54 features
    in [0, 1] and cover types 1-7, rows drawn without replacement with ``default_rng(0)``
    from the shared file by ``data/make_samples.py`` (see ``data/README.md``).

    Returns
    -------
    X : ndarray of shape (12000, 54), float64
    y : ndarray of shape (12000,), int64
        Cover type 1-7.

    References
    ----------
    Blackard and Dean (1999), as :func:`load_covtype`.

    Examples
    --------
    >>> from lsl_lib.datasets import load_covtype_sample
    >>> X, y = load_covtype_sample()
    >>> X.shape, bool(X.min() >= 0 and X.max() <= 1), sorted(set(y.tolist()))
    ((12000, 54), True, [1, 2, 3, 4, 5, 6, 7])
    """
    path = _repository_data("covtype_sample.csv.gz")
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: it ships with the repository (data/), "
                                "not with an installed package.")
    return _read_covtype_csv(path)


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
    _check_name_and_split(name, _SHARED, split)
    train_file, test_file, n_features = _SHARED[name]
    if split == "test" and test_file is None:
        raise ValueError(f"split='test' is not available for {name!r}: no test file")
    X, y = load_svmlight(_shared_file(train_file if split == "train" else test_file),
                         n_features=n_features)
    if set(np.unique(y)) <= {0.0, 1.0}:  # some copies write 0/1 labels
        y = 2.0 * y - 1.0
    return X, y

