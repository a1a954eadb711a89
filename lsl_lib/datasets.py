"""Data of the lectures: small synthetic generators and loaders of real sets.

Binary generators return ``X`` as float64 and ``y`` as int64 in {-1, +1}, the
lectures' convention. Every random function takes ``random_state`` (None, int or
:class:`numpy.random.Generator`); the same seed gives the same arrays.
"""
import bz2
import gzip
import numbers
import os
import re
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np

from lsl_lib._core.random import check_random_state

__all__ = ["two_gaussian_blobs", "checkerboard", "concentric_circles", "linear_teacher",
           "mean_stream", "load_digits", "load_breast_cancer", "load_svmlight",
           "shared_data_dir", "load_shared", "load_usps", "load_covtype",
           "load_covtype_sample", "LIBSVM_SETS",
           "fetch_libsvm", "fetch_cpu_act", "fetch_covtype"]

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


def _teacher_block(seed, block, rows, w_true, label_noise):
    """Rows of block ``block`` of :func:`lazy_linear_teacher`, from their own seed."""
    rng = np.random.default_rng([seed, block])
    X = rng.standard_normal((rows, len(w_true)))
    y = np.where(X @ w_true >= 0, 1, -1).astype(np.int64)
    y[rng.choice(rows, size=int(round(label_noise * rows)), replace=False)] *= -1
    return X, y


def lazy_linear_teacher(n_samples=1_000_000, n_features=100, chunk_size=10_000,
                        label_noise=0.1, random_state=None):
    """:func:`linear_teacher` as dask arrays, each chunk made only when it is computed.

    Any number of rows at the memory cost of one chunk: chunk b is drawn from the seed
    sequence (seed, b), so it comes out the same each time it is computed, in any order
    and on any worker; all chunks share one teacher ``w_true``. For out-of-core training
    (:func:`lsl_lib.distributed.fit_out_of_core`).

    Parameters
    ----------
    n_samples : int, default=1_000_000
    n_features : int, default=100
    chunk_size : int, default=10_000
        Rows per chunk (the last one may be shorter).
    label_noise : float, default=0.1
        Fraction of labels flipped in each chunk, in [0, 0.5).
    random_state : None, int or numpy.random.Generator, default=None
        Draws the teacher and the seed of the chunks.

    Returns
    -------
    X : dask array of shape (n_samples, n_features), float64
    y : dask array of shape (n_samples,), int64 in {-1, +1}

    Examples
    --------
    >>> X, y = lazy_linear_teacher(10**7, 100, random_state=0)  # doctest: +SKIP
    >>> X.nbytes / 2**30  # doctest: +SKIP
    7.450580596923828
    """
    import dask
    import dask.array as da

    n_samples = _check_int("n_samples", n_samples, 2)
    n_features = _check_int("n_features", n_features, 1)
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    label_noise = _check_real("label_noise", label_noise, 0.0, 0.5)
    rng = check_random_state(random_state)
    w_true = rng.standard_normal(n_features)
    w_true /= np.linalg.norm(w_true)
    seed = int(rng.integers(0, 2**63))
    X_blocks, y_blocks = [], []
    for block, start in enumerate(range(0, n_samples, chunk_size)):
        rows = min(chunk_size, n_samples - start)
        pair = dask.delayed(_teacher_block, nout=2, pure=True)(seed, block, rows, w_true,
                                                               label_noise)
        X_blocks.append(da.from_delayed(pair[0], (rows, n_features), dtype=np.float64))
        y_blocks.append(da.from_delayed(pair[1], (rows,), dtype=np.int64))
    return da.concatenate(X_blocks), da.concatenate(y_blocks)


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


def load_svmlight(path, n_features=None, dtype=np.float64, zero_based=False):
    """Read a LIBSVM / svmlight file (plain, ``.gz`` or ``.bz2``).

    A line is ``label [qid:q] index:value ...`` (a ``#`` starts a comment), the indices
    strictly increasing. LIBSVM numbers the features from 1: index j is column j - 1.

    Parameters
    ----------
    path : str or path-like
    n_features : None or int, default=None
        Number of columns; ``None`` infers it from the largest index in the file.
    dtype : numpy dtype, default=np.float64
    zero_based : bool or 'auto', default=False
        ``False``: the file is one-based, as LIBSVM's format and every file of its
        collection are; an index 0 is an error that names its line. ``True``: the indices
        are the columns themselves. ``'auto'``: scikit-learn's rule
        (:func:`sklearn.datasets.load_svmlight_file`'s default): the file is read as
        zero-based when any index is 0, as one-based otherwise. That rule lets one stray
        index 0 move every feature of every row one column to the right, silently, hence
        the one-based default here.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        With int32 ``indices`` and ``indptr``, as liblinear and libsvm (scikit-learn's
        ``LinearSVC``, ``SVC``) require; :func:`sklearn.datasets.load_svmlight_file`
        itself returns int64 ones. A matrix too large for int32 (more than
        ``2**31 - 1`` stored values or columns) keeps int64.
    y : ndarray of shape (n_samples,), float64

    Raises
    ------
    ValueError
        For a malformed file, naming the first bad line: its number, what is wrong
        and its start (scikit-learn's reader names neither). Malformed are: a label or
        value that is not a number, a token that is not ``index:value``, indices that do
        not increase, an index 0 in a one-based file, an index above ``2**31 - 1`` (the
        largest the reader takes) or beyond ``n_features``. A file with no data line
        (empty, or comments only: a download that failed, say) is an error too, with or
        without ``n_features``, rather than a matrix of no rows.

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
    if isinstance(zero_based, (bool, np.bool_)):
        zero_based = bool(zero_based)
    elif not (isinstance(zero_based, str) and zero_based == "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    try:
        X, y = load_svmlight_file(str(path), n_features=n_features, dtype=dtype,
                                  zero_based=zero_based)
    except (ValueError, OSError, EOFError, OverflowError) as error:
        problem = _svmlight_problem(path, n_features, zero_based)
        if problem is None:
            raise
        raise ValueError(f"{path}: {problem}") from error
    if X.shape[0] == 0:
        raise ValueError(f"{path}: no data line (the file is empty or holds only comments)")
    X = X.tocsr()
    int32_max = np.iinfo(np.int32).max
    if X.nnz <= int32_max and X.shape[1] <= int32_max:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X, np.asarray(y, dtype=np.float64)


_PAIR = re.compile(r"^(\d+):(\S+)$")

#: The largest feature index scikit-learn's reader parses (a C ``int``).
_MAX_INDEX = np.iinfo(np.int32).max


def _open_text(path):
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rt", encoding="latin-1")
    if suffix == ".bz2":
        return bz2.open(path, "rt", encoding="latin-1")
    return open(path, encoding="latin-1")


def _svmlight_problem(path, n_features, zero_based=False):
    """The first malformed line of an svmlight file, described, or None if none is found.

    A line is ``label [qid:q] index:value ...`` (a ``#`` starts a comment), indices
    strictly increasing, at most ``2**31 - 1``, not 0 in a one-based file
    (``zero_based=False``) and, with ``n_features``, below the width: index j is column
    j - 1 of a one-based file and column j of a zero-based one. With ``zero_based='auto'``
    the base is known only at the end of the file (zero-based if any index is 0), so an
    index beyond ``n_features`` is reported after every line has been read.
    """
    def float_ok(text):
        try:
            float(text)
            return True
        except ValueError:
            return False

    def beyond(index, base_zero, number, shown):
        if n_features is None or index < n_features + (0 if base_zero else 1):
            return None
        if base_zero:
            return (f"line {number}: index {index} >= n_features={n_features} (a zero-based "
                    f"file: columns 0 to {n_features - 1}): {shown!r}")
        return f"line {number}: index {index} > n_features={n_features}: {shown!r}"

    beyond_if_one_based = beyond_if_zero_based = None
    seen_zero = False
    try:
        with _open_text(path) as lines:
            for number, line in enumerate(lines, start=1):
                tokens = line.split("#", 1)[0].split()
                if not tokens:
                    continue
                shown = line.strip()[:60]
                if not all(float_ok(label) for label in tokens[0].split(",")):
                    return f"line {number}: the label {tokens[0]!r} is not a number: {shown!r}"
                previous = -1
                for token in tokens[1:]:
                    if token.startswith("qid:"):
                        continue
                    pair = _PAIR.match(token)
                    if pair is None or not float_ok(pair.group(2)):
                        return (f"line {number}: {token!r} is not 'index:value' "
                                f"(expected 'label index:value ...'): {shown!r}")
                    index = int(pair.group(1))
                    if index > _MAX_INDEX:
                        return (f"line {number}: index {index} is larger than {_MAX_INDEX}, "
                                f"the largest index the reader takes: {shown!r}")
                    if index == 0 and zero_based is False:
                        return (f"line {number}: index 0 in a one-based file (LIBSVM's format "
                                f"numbers the features from 1); pass zero_based=True if the "
                                f"whole file is zero-based: {shown!r}")
                    if index <= previous:
                        return (f"line {number}: index {index} after {previous}: indices "
                                f"must be strictly increasing: {shown!r}")
                    seen_zero |= index == 0
                    if zero_based == "auto":
                        beyond_if_one_based = beyond_if_one_based or beyond(
                            index, False, number, shown)
                        beyond_if_zero_based = beyond_if_zero_based or beyond(
                            index, True, number, shown)
                    else:
                        problem = beyond(index, zero_based, number, shown)
                        if problem is not None:
                            return problem
                    previous = index
    except (OSError, EOFError, ValueError) as error:  # a truncated or corrupt archive
        return f"cannot be read ({error})"
    return beyond_if_zero_based if seen_zero else beyond_if_one_based


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


def load_covtype_sample():
    """12 000 rows of :func:`load_covtype`'s subsample, shipped in the repository's ``data/``.

    What a notebook can use without ``../shared/data`` (on Binder, say): the same 54 features
    in [0, 1] and cover types 1-7, rows drawn without replacement with ``default_rng(0)``
    from the shared file by ``data/make_samples.py`` (see ``data/README.md``).

    Returns
    -------
    X : ndarray of shape (12000, 54), float64
    y : ndarray of shape (12000,), int64
        Cover type 1-7.

    References
    ----------
    J. A. Blackard, D. J. Dean. Comparative accuracies of artificial neural networks
    and discriminant analysis in predicting forest cover types from cartographic
    variables. Computers and Electronics in Agriculture 24(3), 1999.

    Examples
    --------
    >>> from lsl_lib.datasets import load_covtype_sample
    >>> X, y = load_covtype_sample()
    >>> X.shape, bool(X.min() >= 0 and X.max() <= 1), sorted(set(y.tolist()))
    ((12000, 54), True, [1, 2, 3, 4, 5, 6, 7])
    """
    path = Path(__file__).resolve().parent.parent / "data" / "covtype_sample.csv.gz"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: it ships with the repository (data/), "
                                "not with an installed package.")
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1].astype(np.int64)


def _check_name_and_split(name, table, split):
    if name not in table:
        raise ValueError(f"name must be one of {sorted(table)}, got {name!r}")
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")


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


# --- sets a user can fetch --------------------------------------------------------------

LIBSVM_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"

#: name -> (folder on the LIBSVM site, training file, test file or None, n_features)
LIBSVM_SETS = {
    "a9a": ("binary", "a9a", "a9a.t", 123),
    "w8a": ("binary", "w8a", "w8a.t", 300),
    "ijcnn1": ("binary", "ijcnn1.bz2", "ijcnn1.t.bz2", 22),
    "cod-rna": ("binary", "cod-rna", "cod-rna.t", 8),
    "covtype.binary": ("binary", "covtype.libsvm.binary.scale.bz2", None, 54),
    "usps": ("multiclass", "usps.bz2", "usps.t.bz2", 256),
    "mnist": ("multiclass", "mnist.bz2", "mnist.t.bz2", 784),
    "cpusmall": ("regression", "cpusmall_scale", None, 12),
    "cadata": ("regression", "cadata", None, 8),
}

# Small samples shipped in the repository's data/ (see data/README.md): what
# fetch_libsvm(..., offline="sample") returns when there is neither network nor cache.
_SAMPLES = {("a9a", "train"): "a9a_sample.svm.gz", ("a9a", "test"): "a9a_sample.t.svm.gz"}


def _data_home(data_home):
    from sklearn.datasets import get_data_home
    return Path(get_data_home(data_home)) / "lsl"


def _download(url, path, timeout):
    """Stream ``url`` to ``path`` (through a temporary file, so no half file is left)."""
    from tqdm.auto import tqdm
    partial = path.with_name(path.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            size = int(response.headers.get("Content-Length") or 0) or None
            with open(partial, "wb") as out, tqdm(total=size, unit="B", unit_scale=True,
                                                  desc=path.name, leave=False) as bar:
                while chunk := response.read(1 << 16):
                    out.write(chunk)
                    bar.update(len(chunk))
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, path)


def _offline_error(what, url, error, where):
    return ConnectionError(
        f"could not download {what} from {url} ({error}). Without a network: put the file "
        f"at {where}, or set LSL_SHARED_DATA to a folder holding the shared sets; the "
        f"lectures themselves need no download.")


def _binary_labels(y):
    """Two label values mapped to -1/+1 (the larger one to +1), as the lectures use."""
    values = np.unique(y)
    if len(values) == 2 and not np.array_equal(values, [-1.0, 1.0]):
        y = np.where(y == values[1], 1.0, -1.0)
    return y


def fetch_libsvm(name, split="train", *, data_home=None, download_if_missing=True,
                 offline="raise", timeout=60):
    """A set of the LIBSVM collection: from the shared folder, the cache, or the web.

    Looks in :func:`shared_data_dir` first (a9a, w8a, ijcnn1, cod-rna), then in the
    cache ``<data_home>/lsl`` (scikit-learn's data home, ``~/scikit_learn_data`` unless
    ``$SCIKIT_LEARN_DATA`` says otherwise), and downloads into the cache otherwise, with
    a progress bar. The file is read by :func:`load_svmlight`.

    Parameters
    ----------
    name : str
        A key of :data:`LIBSVM_SETS`: ``'a9a'`` (UCI Adult, 123 binary features),
        ``'w8a'``, ``'ijcnn1'``, ``'cod-rna'`` (unscaled), ``'covtype.binary'``
        (581 012 rows, scaled to [0, 1]; class 2 against the rest), ``'usps'``,
        ``'mnist'`` (10 classes), ``'cpusmall'``, ``'cadata'`` (regression).
    split : {'train', 'test'}, default='train'
    data_home : str or path-like, optional
        scikit-learn's data home (:func:`sklearn.datasets.get_data_home`).
    download_if_missing : bool, default=True
        ``False`` raises ``FileNotFoundError`` rather than downloading.
    offline : {'raise', 'sample'}, default='raise'
        When the download fails: raise a ``ConnectionError`` that says what to do, or
        (``'sample'``) return the small sample shipped in the repository's ``data/``
        where there is one (a9a only: 2 000 training and 1 000 test rows), with a
        warning; for any other set the ``ConnectionError`` says that it has no sample.
    timeout : float, default=60
        Seconds to wait for the server.

    Returns
    -------
    X : scipy.sparse.csr_matrix, float64, int32 indices
    y : ndarray, float64
        Binary sets in {-1, +1}; class indices or targets otherwise.

    References
    ----------
    C.-C. Chang and C.-J. Lin, LIBSVM data,
    https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/

    Examples
    --------
    >>> X, y = fetch_libsvm("a9a")  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (32561, 123)
    """
    _check_name_and_split(name, LIBSVM_SETS, split)
    if offline not in ("raise", "sample"):
        raise ValueError(f"offline must be 'raise' or 'sample', got {offline!r}")
    folder, train_file, test_file, n_features = LIBSVM_SETS[name]
    file = train_file if split == "train" else test_file
    if file is None:
        raise ValueError(f"split='test' is not available for {name!r}: LIBSVM has no test file")
    if name in _SHARED and shared_data_dir() is not None:
        try:
            return load_shared(name, split)
        except FileNotFoundError:
            pass  # a partial shared folder: fall through to the cache
    cache = _data_home(data_home)
    path = cache / file
    if not path.is_file():
        if not download_if_missing:
            raise FileNotFoundError(f"{name!r} ({split}) is not in the cache {str(cache)!r} "
                                    f"and download_if_missing=False")
        cache.mkdir(parents=True, exist_ok=True)
        url = LIBSVM_URL + folder + "/" + file
        try:
            _download(url, path, timeout)
        except (urllib.error.URLError, OSError) as error:
            sample = _SAMPLES.get((name, split))
            if offline == "sample" and sample is not None:
                sample_path = Path(__file__).resolve().parent.parent / "data" / sample
                if sample_path.is_file():
                    warnings.warn(f"no network ({error}): returning the sample of {name!r} "
                                  f"shipped in data/{sample}, not the full set",
                                  UserWarning, stacklevel=2)
                    X, y = load_svmlight(sample_path, n_features=n_features)
                    return X, _binary_labels(y)
            failure = _offline_error(f"{name!r} ({split})", url, error, path)
            if offline == "sample" and sample is None:
                shipped = ", ".join(f"{n!r} ({s})" for n, s in sorted(_SAMPLES))
                failure = ConnectionError(
                    f"{failure} offline='sample' cannot help: no sample of {name!r} "
                    f"({split}) is shipped in data/; there are samples of {shipped} only.")
            raise failure from error
    X, y = load_svmlight(path, n_features=n_features)
    return X, (_binary_labels(y) if folder == "binary" else y)


def _openml_error(what, error, data_home):
    return ConnectionError(
        f"could not download {what} ({error}). Without a network: run this once where "
        f"there is one (scikit-learn caches it in {str(_data_home(data_home).parent)!r}), "
        f"or set LSL_SHARED_DATA to a folder holding the shared sets.")


def fetch_cpu_act(data_home=None):
    """Delve's comp-activ "cpuAct" regression set, from OpenML (id 197), cached.

    8 192 rows, 21 system-activity measurements; the target ``usr`` is the share of time
    the CPUs ran in user mode (0-99). Rahimi & Recht (2007) report 3.6 % error with
    random Fourier features on it. With ``../shared/data`` present, the shared copy
    (PMLB's) is read instead and nothing is downloaded.

    Parameters
    ----------
    data_home : str or path-like, optional
        scikit-learn's data home.

    Returns
    -------
    X : ndarray of shape (8192, 21), float64
    y : ndarray of shape (8192,), float64

    References
    ----------
    Delve, comp-activ, http://www.cs.toronto.edu/~delve/data/comp-activ/desc.html;
    OpenML data id 197.
    """
    folder = shared_data_dir()
    if folder is not None and (folder / "pmlb_197_cpu_act.tsv.gz").is_file():
        table = np.loadtxt(folder / "pmlb_197_cpu_act.tsv.gz", delimiter="\t", skiprows=1)
        return table[:, :-1], table[:, -1]
    from sklearn.datasets import fetch_openml
    try:
        bunch = fetch_openml(data_id=197, as_frame=False, data_home=data_home, parser="auto")
    except (urllib.error.URLError, OSError) as error:
        raise _openml_error("cpu_act from OpenML", error, data_home) from error
    return np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.float64)


def fetch_covtype(binary=True, data_home=None):
    """UCI Covertype, all 581 012 rows, by scikit-learn's downloader (cached).

    Parameters
    ----------
    binary : bool, default=True
        Labels +1 for cover type 2 (lodgepole pine) and -1 for the rest, the usual binary
        task (Rahimi & Recht 2007, Table 1; LIBSVM's covtype.binary); ``False`` keeps
        the types 1-7.
    data_home : str or path-like, optional
        scikit-learn's data home.

    Returns
    -------
    X : ndarray of shape (581012, 54), float64
        Unscaled (:func:`load_covtype`'s shared subsample is min-max scaled).
    y : ndarray of shape (581012,)

    References
    ----------
    J. A. Blackard, D. J. Dean. Comparative accuracies of artificial neural networks
    and discriminant analysis in predicting forest cover types from cartographic
    variables. Computers and Electronics in Agriculture 24(3), 1999.
    """
    from sklearn.datasets import fetch_covtype as sklearn_fetch_covtype
    try:
        X, y = sklearn_fetch_covtype(data_home=data_home, return_X_y=True)
    except (urllib.error.URLError, OSError) as error:
        raise _openml_error("covtype", error, data_home) from error
    y = y.astype(np.int64)
    return X, (np.where(y == 2, 1.0, -1.0) if binary else y)
