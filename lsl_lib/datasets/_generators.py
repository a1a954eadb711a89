"""Synthetic generators: the lectures' toy problems and streams, and sets shaped as the
shared benchmark sets."""
import numpy as np
import scipy.sparse as sp

from lsl_lib._core.random import check_random_state
from lsl_lib.datasets._checks import _check_int, _check_real


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


#: (training rows, test rows, features, share of positives) of the shared sets that
#: :func:`same_shape` imitates.
_SHAPES = {"ijcnn1": (49990, 91701, 22, 0.097), "a9a": (32561, 16281, 123, 0.241)}


def same_shape(name, n_train=None, n_test=None, random_state=0):
    """A generated set shaped as the shared set ``name``: its features and its share of positives.

    What lecture 14 and the benchmarks use where the real set may be absent; its errors say
    nothing about the real set's.

    - ``'ijcnn1'``: 22 dense features, four uniform in [-1, 1] and 18 of small spread
      (standard deviation 0.05, as most of ijcnn1's columns); the positives (about 10 %) are
      the points inside a ball around a corner of the first four, a non-linear class no
      hyperplane separates, with 2 % of the labels flipped.
    - ``'a9a'``: 123 binary features as one-hot codes of 14 categorical variables (a9a's
      encoding of the Adult census), CSR; the positives (about 24 %) follow a logistic
      score with a pairwise interaction of two variables.

    Parameters
    ----------
    name : {'ijcnn1', 'a9a'}
    n_train, n_test : None or int, default=None
        Rows of the training and of the test part (>= 1 each); None: as many as the real
        set has (ijcnn1: 49 990 and 91 701; a9a: 32 561 and 16 281).
    random_state : None, int or numpy.random.Generator, default=0

    Returns
    -------
    X, y, X_test, y_test : ndarray (CSR for ``'a9a'``), labels float64 in {-1, +1}
        Float labels, as :func:`load_shared` returns them for the real set.

    Examples
    --------
    >>> X, y, X_test, y_test = same_shape("ijcnn1", 1000, 200, random_state=0)
    >>> X.shape, X_test.shape, sorted(set(y.tolist()))
    ((1000, 22), (200, 22), [-1.0, 1.0])
    """
    if name not in _SHAPES:
        raise ValueError(f"name must be 'ijcnn1' or 'a9a', got {name!r}")
    full_train, full_test = _SHAPES[name][:2]
    n_train = full_train if n_train is None else _check_int("n_train", n_train, 1)
    n_test = full_test if n_test is None else _check_int("n_test", n_test, 1)
    rng = check_random_state(random_state)
    n = n_train + n_test
    if name == "ijcnn1":
        X = np.column_stack([rng.uniform(-1.0, 1.0, size=(n, 4)),
                             rng.normal(0.0, 0.05, size=(n, 18))])
        distance = np.linalg.norm(X[:, :4] - 0.45, axis=1)
        y = np.where(distance < np.quantile(distance, 0.1), 1.0, -1.0)
        flip = rng.random(n) < 0.02
        y[flip] = -y[flip]
    else:
        sizes = np.array([9] * 13 + [123 - 9 * 13])  # 14 variables, 123 columns
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        codes = np.column_stack([rng.integers(0, s, n) for s in sizes])
        cols = (codes + offsets).ravel()
        rows = np.repeat(np.arange(n), len(sizes))
        X = sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(n, 123))
        effects = rng.normal(0.0, 1.0, size=123)
        score = X @ effects + 1.5 * ((codes[:, 0] < 3) & (codes[:, 1] < 3))
        y = np.where(score > np.quantile(score, 1 - _SHAPES["a9a"][3]), 1.0, -1.0)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]
