"""Sets a user can fetch: the LIBSVM collection (shared folder, cache or web, with a
progress bar), OpenML's cpu_act and scikit-learn's Covertype."""
import os
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np

from lsl_lib.datasets._checks import _check_name_and_split
from lsl_lib.datasets._loaders import _SHARED, _repository_data, load_shared, shared_data_dir
from lsl_lib.datasets._svmlight import load_svmlight

_LIBSVM_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"

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
    C.-C. Chang and C.-J. Lin, LIBSVM data, :data:`_LIBSVM_URL` (as :func:`load_shared`).

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
        url = _LIBSVM_URL + folder + "/" + file
        try:
            _download(url, path, timeout)
        except (urllib.error.URLError, OSError) as error:
            sample = _SAMPLES.get((name, split))
            if offline == "sample" and sample is not None:
                sample_path = _repository_data(sample)
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
    random Fourier features on it. With the shared sets present (:func:`shared_data_dir`),
    the shared copy (PMLB's) is read instead and nothing is downloaded.

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
