"""Sampling schemes: which examples iteration t looks at.

The indices of all T iterations are drawn once, in Python, as a (T, k) array; the
numpy reference and the numba fast path both consume that same array, so the two
paths see the same examples in the same order (CONTRIBUTING.md §2).

- ``'iid'``: each index uniform on {0, ..., n-1}, with replacement (the setting of
  the Pegasos analysis);
- ``'permutation'``: one random permutation drawn once and cycled through, epoch
  after epoch, in the same order;
- ``'reshuffle'``: a new random permutation at the start of every epoch.

Mini-batches take k consecutive indices of that stream.

With sample weights :math:`s_i` (:func:`weighted_sample_indices`), row i stands for
:math:`s_i` copies of itself: the scheme runs on the expanded data, so integer weights
give exactly the indices of the repeated rows.
"""
import numpy as np

SCHEMES = ("iid", "permutation", "reshuffle")

#: The most indices drawn up front: 2**30 int64 are 8 GiB.
MAX_INDICES = 2**30

#: Largest expanded data (sum of integer weights) that 'permutation' and 'reshuffle'
#: permute: 2**27 positions are 1 GiB of int64.
MAX_EXPANDED_PERMUTATION = 2**27


def sample_indices(n_samples, n_iter, batch_size, sampling, rng):
    """Draw the (n_iter, batch_size) array of example indices.

    Parameters
    ----------
    n_samples : int
        Number of training examples n.
    n_iter : int
        Number of iterations T.
    batch_size : int
        Mini-batch size k, ``1 <= k <= n``.
    sampling : {'iid', 'permutation', 'reshuffle'}
        The scheme (see the module docstring).
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    indices : ndarray of shape (n_iter, batch_size), dtype int64

    Raises
    ------
    ValueError
        If more than :data:`MAX_INDICES` indices would be drawn.
    """
    if sampling not in SCHEMES:
        raise ValueError(f"sampling must be one of {SCHEMES}, got {sampling!r}.")
    total = n_iter * batch_size
    if total > MAX_INDICES:
        raise ValueError(
            f"n_iter * batch_size = {n_iter} * {batch_size} = {total:.3g} example indices would "
            f"be drawn up front ({8 * total / 2**30:.3g} GiB), more than {MAX_INDICES:.3g}: "
            "lower n_iter (or batch_size), or fit in several partial_fit calls.")
    if sampling == "iid":
        flat = rng.integers(0, n_samples, size=total, dtype=np.int64)
    elif sampling == "permutation":
        perm = rng.permutation(n_samples).astype(np.int64)
        flat = perm[np.arange(total, dtype=np.int64) % n_samples]
    else:
        n_epochs = -(-total // n_samples)
        flat = np.concatenate([rng.permutation(n_samples) for _ in range(n_epochs)])
        flat = flat[:total].astype(np.int64)
    return flat.reshape(n_iter, batch_size)


def weighted_sample_indices(sample_weight, n_iter, batch_size, sampling, rng):
    r"""Mini-batches drawn in proportion to the sample weights.

    Row i stands for :math:`s_i` copies of itself. With integer weights the scheme
    (:func:`sample_indices`) runs on the expanded data of
    :math:`N = \sum_i s_i` rows, row i holding positions
    :math:`[S_{i-1}, S_i)` of it (:math:`S` the cumulative sums), and each drawn
    position is mapped back to its row. The result is exactly the index sequence of
    the same scheme, with the same generator, on ``np.repeat(X, s, axis=0)``: integer
    weights are repeated rows and zero weights are dropped rows, iterate for iterate.
    Non-integer weights have no expanded data; their draws are i.i.d. with
    :math:`P(i) = s_i/\sum_j s_j` (a uniform position in :math:`[0, S_n)`), so only
    ``sampling='iid'`` is defined for them.

    Parameters
    ----------
    sample_weight : ndarray of shape (n,)
        Non-negative weights, not all zero.
    n_iter, batch_size, sampling, rng
        As :func:`sample_indices` takes them.

    Returns
    -------
    indices : ndarray of shape (n_iter, batch_size), dtype int64
    """
    cumulative = np.cumsum(sample_weight)
    if np.array_equal(sample_weight, np.round(sample_weight)):
        if sampling != "iid" and cumulative[-1] > MAX_EXPANDED_PERMUTATION:
            raise ValueError(
                f"sampling={sampling!r} permutes the {cumulative[-1]:.0f} rows of the expanded "
                f"data (the sum of the integer sample weights), more than "
                f"{MAX_EXPANDED_PERMUTATION}; scale the weights down or use sampling='iid'.")
        positions = sample_indices(int(cumulative[-1]), n_iter, batch_size, sampling, rng)
    elif sampling == "iid":
        positions = cumulative[-1] * rng.random((n_iter, batch_size))
    else:
        raise ValueError(
            f"sampling={sampling!r} needs integer sample weights (a permutation of the rows "
            "repeated s_i times); use sampling='iid' with non-integer sample_weight or "
            "class_weight.")
    return np.searchsorted(cumulative, positions, side="right").astype(np.int64)
