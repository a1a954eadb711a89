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
"""
import numpy as np

SCHEMES = ("iid", "permutation", "reshuffle")

#: The most indices drawn up front: 2**30 int64 are 8 GiB.
MAX_INDICES = 2**30


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
