"""The numpy references of doubly stochastic gradients: the paper's Algorithms 1 and 2 on
blocks of random features regenerated from a seed, the Newton step of a block, and the
singly stochastic baseline (the package's docstring has the mathematics and the table of
pairs)."""
from numbers import Integral

import numpy as np

from lsl_lib._core.kernel_loops import GAUSSIAN, KERNELS, LAPLACIAN
from lsl_lib._core.random import box_muller_numpy, check_random_state, counter_uniforms_numpy
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.validation import check_batch_size
from lsl_lib.losses import get_loss
from lsl_lib.random_features import RFF_KERNELS

#: How a new block's coefficients are set (the package's docstring).
_STEPS = ("gradient", "newton")
#: The Newton step's jitter, relative to the mean diagonal of the block's feature covariance.
_NEWTON_JITTER = 1e-10


def _check_rff_kernel(kernel):
    """The kernel's code in :data:`lsl_lib._core.kernel_loops.KERNELS`, for a kernel with
    random Fourier features; else a ValueError."""
    if kernel not in RFF_KERNELS:
        raise ValueError(f"kernel must be one of {RFF_KERNELS}, got {kernel!r}.")
    return KERNELS.index(kernel)


def block_frequencies_numpy(seed, block, n_features, block_size, kernel="gaussian", gamma=1.0):
    r"""Frequencies W and phases b of block ``block``, regenerated from (seed, block).

    Element e = c d + k of the block (coordinate k of feature c's frequency
    :math:`\omega_c`, column c of W) is built from the uniforms :math:`u_0, u_1, \dots` of
    the SplitMix64 stream of (seed, block)
    (:func:`lsl_lib._core.random.counter_uniforms_numpy`), and the phase of feature c is
    :math:`b_c = 2\pi u_{2dB + c}`. The laws are those of
    :func:`lsl_lib.random_features.draw_frequencies`; the Gaussian elements come in
    Box-Muller pairs, :math:`(\omega_{2m}, \omega_{2m+1}) = \sqrt{2\gamma}\,r_m
    (\cos\theta_m, \sin\theta_m)` with :math:`r_m = \sqrt{-2\ln u_{2m}}`,
    :math:`\theta_m = 2\pi u_{2m+1}` (:func:`lsl_lib._core.random.box_muller_numpy`):

    - ``'gaussian'``: :math:`\mathcal N(0, 2\gamma)`, by Box-Muller as above;
    - ``'laplacian'``: Cauchy of scale :math:`\gamma`, :math:`\gamma\tan(\pi(u_e - \frac12))`;
    - ``'cauchy'``: Laplace of scale :math:`\sqrt\gamma`,
      :math:`-\sqrt\gamma\,\mathrm{sign}(v)\ln(1 - 2|v|)` with :math:`v = u_e - \frac12`.

    Parameters
    ----------
    seed : int
        The model's seed (``seed_`` of a fitted estimator).
    block : int
        Block index j >= 0.
    n_features : int
        d.
    block_size : int
        B, the features of the block.
    kernel : {'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float > 0, default=1.0

    Returns
    -------
    W : ndarray of shape (n_features, block_size)
    b : ndarray of shape (block_size,)
    """
    code = _check_rff_kernel(kernel)
    d, B = n_features, block_size
    n = d * B
    u = counter_uniforms_numpy(seed, block, 2 * n + B)
    if code == GAUSSIAN:  # the pair m gives the elements 2m (cos) and 2m+1 (sin)
        omega = box_muller_numpy(u, n, np.sqrt(2.0 * gamma))
    elif code == LAPLACIAN:
        omega = gamma * np.tan(np.pi * (u[:n] - 0.5))
    else:  # CAUCHY
        v = u[:n] - 0.5
        omega = -np.sqrt(gamma) * np.sign(v) * np.log(1.0 - 2.0 * np.abs(v))
    return np.ascontiguousarray(omega.reshape(B, d).T), 2.0 * np.pi * u[2 * n:]



def block_features(X, seed, block, block_size, kernel="gaussian", gamma=1.0):
    r"""The random features :math:`\phi_{\omega_j}(x) = \sqrt{2/B}\cos(W_j^\top x + b_j)` of
    block j, for every row of X, regenerated from (seed, j).

    :math:`\mathbb E[\phi_{\omega}(x)^\top\phi_{\omega}(y)] = k(x, y)`: the 'cos' map of
    :class:`lsl_lib.random_features.RandomFourierFeatures` with D = B. This is the one
    function through which training, prediction and any machine holding a range of
    blocks (the block-parallel scheme of the lecture) see the features.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    seed, block, block_size, kernel, gamma
        As in :func:`block_frequencies_numpy`.

    Returns
    -------
    Phi : ndarray of shape (n, block_size)
    """
    W, b = block_frequencies_numpy(seed, block, X.shape[1], block_size, kernel, gamma)
    return np.sqrt(2.0 / block_size) * np.cos(np.asarray(X @ W) + b)


def predict_blocks(X, seed, alpha, kernel="gaussian", gamma=1.0, first_block=0):
    r"""Algorithm 2 of the paper: :math:`f(x) = \sum_j \alpha_j^\top \phi_{\omega_j}(x)` over
    the blocks ``first_block``, ``first_block + 1``, ... of ``alpha``, each regenerated.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    seed : int
    alpha : ndarray of shape (n_blocks, B, K)
        The coefficients of the blocks.
    kernel, gamma
        As in :func:`block_frequencies_numpy`.
    first_block : int, default=0
        Block index of ``alpha[0]`` (a machine holding blocks 100-199 passes 100).

    Returns
    -------
    scores : ndarray of shape (n, K)
    """
    n_blocks, B, K = alpha.shape
    scores = np.zeros((X.shape[0], K))
    for j in range(n_blocks):
        scores += block_features(X, seed, first_block + j, B, kernel, gamma) @ alpha[j]
    return scores


def step_sizes(theta, theta_prime, steps):
    r""":math:`\gamma_i = \theta/(1 + \theta' i)` for the steps i given (1-based)."""
    return theta / (1.0 + theta_prime * np.asarray(steps, dtype=np.float64))



def curvature_weights_numpy(loss, Y, F):
    r""":math:`\ell''(f, y)` elementwise, the weights H of the Newton step: the log loss's
    :math:`e/(1 + e)^2` with :math:`e = \exp(-|y f|)`, and 1 for the squared loss and for
    the hinge (which has no curvature: the covariance preconditioner)."""
    if loss.name == "log":
        e = np.exp(-np.abs(Y * F))
        return e / (1.0 + e) ** 2
    return np.ones_like(F)


def newton_block_numpy(phi, G, H, nu):
    r"""The Newton direction of a new block:
    :math:`(\Phi^\top H_q\Phi/k + (\nu + \epsilon) I)^{-1}\Phi^\top g_q/k` per output q.

    Parameters
    ----------
    phi : ndarray of shape (k, B)
        The block's features on the mini-batch.
    G, H : ndarray of shape (k, K)
        :math:`\ell'` and :math:`\ell''` at :math:`f_{i-1}` on the mini-batch.
    nu : float

    Returns
    -------
    direction : ndarray of shape (B, K)
        The step is :math:`-\gamma_i` times it. :math:`\epsilon` is ``_NEWTON_JITTER``
        times the mean diagonal of :math:`\Phi^\top\Phi/k`, so that the system is
        definite when :math:`\nu = 0`, when |b| < B and when the curvature vanishes
        (the log loss of scores far from zero).
    """
    k, B = phi.shape
    direction = np.empty((B, G.shape[1]))
    epsilon = _NEWTON_JITTER * np.sum(phi * phi) / (k * B)
    for q in range(G.shape[1]):
        A = (phi.T * H[:, q]) @ phi / k
        A[np.diag_indices(B)] += nu + epsilon
        direction[:, q] = np.linalg.solve(A, phi.T @ G[:, q] / k)
    return direction


def dsg_numpy_chunk(X, Y, alpha, indices, t0, seed, kernel, gamma, theta, theta_prime, nu,
                    loss, scores, step="gradient", cache=None):
    r"""Steps i = t0+1, ..., t0+T of doubly stochastic gradient descent: the numpy reference.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    Y : ndarray of shape (n, K)
        Labels -1/+1 (one column per class, one-vs-rest) or real targets.
    alpha : ndarray of shape (n_blocks, B, K), n_blocks >= t0 + T
        Coefficients; rows ``0..t0-1`` hold the blocks of the steps done, updated in place.
    indices : ndarray of shape (T, k)
        The mini-batches.
    t0 : int
        Steps already done.
    seed : int
    kernel, gamma
        As in :func:`block_frequencies_numpy`.
    theta, theta_prime, nu : float
        :math:`\theta, \theta', \nu`.
    loss : lsl_lib.losses.Loss
    scores : ndarray of shape (T, k, K)
        Receives :math:`f_{i-1}(x)` on each mini-batch (before its step).
    step : {'gradient', 'newton'}, default='gradient'
        The new block's coefficients: the gradient step, or the Newton step of
        :func:`newton_block_numpy`.
    cache : tuple (W, b) or None, default=None
        The frequencies of the first blocks
        (:class:`~lsl_lib.doubly_stochastic.FrequencyCache`), at least those the chunk
        creates where they fit; the others are regenerated. None: all are.
    """
    B = alpha.shape[1]
    d = X.shape[1]
    W_cache, b_cache = cache if cache is not None else (np.empty((0, d, B)), np.empty((0, B)))

    def features(X_b, j):  # block j's features: block_features, its frequencies cached
        if j < len(W_cache):
            return np.sqrt(2.0 / B) * np.cos(np.asarray(X_b @ W_cache[j]) + b_cache[j])
        return block_features(X_b, seed, j, B, kernel, gamma)

    k = indices.shape[1]
    for it, batch in enumerate(indices):
        i = t0 + it + 1
        gamma_i = theta / (1.0 + theta_prime * i)
        X_b = X[batch]
        f = np.zeros((k, alpha.shape[2]))
        for j in range(i - 1):  # f_{i-1} on the batch (Algorithm 2)
            f += features(X_b, j) @ alpha[j]
        scores[it] = f
        G = loss.subgradient(Y[batch], f)  # l'(f(x), y), shape (k, K)
        phi = features(X_b, i - 1)  # block i's features
        alpha[:i - 1] *= 1.0 - gamma_i * nu  # shrink the earlier blocks
        if step == "newton":  # the new block's coefficients
            H = curvature_weights_numpy(loss, Y[batch], f)
            alpha[i - 1] = -gamma_i * newton_block_numpy(phi, G, H, nu)
        else:
            alpha[i - 1] = -(gamma_i / k) * (phi.T @ G)


def functional_sgd(X, Y, n_iter, *, loss="hinge", batch_size=32, kernel="gaussian", gamma=1.0,
                   nu=1e-4, theta=1.0, theta_prime=0.01, sampling="iid", random_state=None):
    r"""The *singly* stochastic baseline: DSG's steps with the exact kernel instead of a block.

    Functional stochastic gradient descent in the RKHS, random only in the mini-batch:

    .. math::

        f_i = (1 - \gamma_i\nu)\, f_{i-1}
              - \frac{\gamma_i}{|b_i|}\sum_{(x, y)\in b_i}
                \ell'\big(f_{i-1}(x), y\big)\, k(x, \cdot),

    so :math:`f_T = \sum_{s} c_s\, k(x_s, \cdot)` over the :math:`T|b|` examples drawn. It is
    :func:`doubly_stochastic`'s gradient step with :math:`\phi_\omega(x)^\top\phi_\omega(\cdot)`
    replaced by its expectation :math:`k(x, \cdot)`: the same step sizes, the same shrink and,
    for the same ``random_state``, the same mini-batches (the seed is drawn first and
    discarded, as DSG draws its seed). Dai et al.'s analysis splits DSG's error into this
    sequence's error and the random features' deviation from it; comparing the two runs
    measures each part. A numpy reference only (a teaching baseline, not a learner): step i
    evaluates :math:`(i - 1)|b|` kernel values per example, :math:`O(T^2|b|^2 d)` in all.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Y : ndarray of shape (n, K)
        -1/+1 per column (one-vs-rest) for 'hinge' and 'log', targets for 'squared'.
    n_iter : int
        T, the number of steps.
    loss, batch_size, kernel, gamma, nu, theta, theta_prime, sampling, random_state
        As in :func:`doubly_stochastic` (``kernel`` any of :data:`RFF_KERNELS`).

    Returns
    -------
    support : ndarray of shape (T |b|,)
        The rows of X drawn, step after step (a row drawn twice appears twice).
    coef : ndarray of shape (T |b|, K)
        Their coefficients :math:`c_s`: :math:`f_T(x) = \sum_s c_s k(x_{\mathrm{support}_s}, x)`
        (``kernel_matrix(X_new, X[support], kernel, gamma) @ coef``).

    Raises
    ------
    ValueError
        For a kernel without random features, a batch size outside [1, n], or a number of
        steps below 1.
    """
    from lsl_lib.kernels import kernel_matrix

    loss = get_loss(loss)
    _check_rff_kernel(kernel)
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[0] != X.shape[0]:
        raise ValueError(f"Y must have shape (n, K) with n = {X.shape[0]} rows, got {Y.shape}.")
    if not isinstance(n_iter, Integral) or n_iter < 1:
        raise ValueError(f"n_iter must be an integer >= 1, got {n_iter!r}.")
    check_batch_size(batch_size, X.shape[0])
    rng = check_random_state(random_state)
    rng.integers(0, 2**63)  # DSG's seed: drawn so that the mini-batches are DSG's
    indices = sample_indices(X.shape[0], n_iter, batch_size, sampling, rng)
    support = indices.reshape(-1)
    coef = np.zeros((support.size, Y.shape[1]))
    for it, batch in enumerate(indices):
        i = it + 1
        gamma_i = theta / (1.0 + theta_prime * i)
        done = it * batch_size  # the coefficients of the earlier steps
        f = kernel_matrix(X[batch], X[support[:done]], kernel, gamma) @ coef[:done]
        G = loss.subgradient(Y[batch], f)
        coef[:done] *= 1.0 - gamma_i * nu
        coef[done:done + batch_size] = -(gamma_i / batch_size) * G
    return support, coef
