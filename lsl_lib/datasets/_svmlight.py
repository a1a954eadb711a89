"""The LIBSVM / svmlight reader, and the diagnosis that names a malformed file's first bad
line."""
import bz2
import gzip
import re
from pathlib import Path

import numpy as np

from lsl_lib.datasets._checks import _check_int


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
