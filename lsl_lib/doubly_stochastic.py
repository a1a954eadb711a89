r"""Doubly stochastic gradients: kernel machines whose random features live as seeds.

Dai, Xie, He, Liang, Raj, Balcan and Song (2014) minimise the regularised risk of a
function f in the reproducing kernel Hilbert space of a shift-invariant kernel k,

.. math::

    R(f) = \mathbb E_{(x, y)}\big[\ell(f(x), y)\big] + \frac{\nu}{2}\|f\|_{\mathcal H}^2,

by functional stochastic gradient steps that are random *twice*. The functional gradient
of the loss at one example is :math:`\ell'(f(x), y)\, k(x, \cdot)`; by Bochner's theorem
:math:`k(x, \cdot) = \mathbb E_\omega[\phi_\omega(x)\phi_\omega(\cdot)]` (random Fourier
features, :mod:`lsl_lib.random_features`), so replacing the expectation over the data by a
mini-batch :math:`b_i` and the one over the frequencies by a block of B random features
:math:`\phi_{\omega_i}` gives an unbiased estimate of the gradient. Step i = 1, ..., T:

.. math::

    f_{i-1}(x) = \sum_{j<i} \alpha_j^\top \phi_{\omega_j}(x), \qquad
    \alpha_i = -\frac{\gamma_i}{|b_i|}\sum_{(x, y)\in b_i}
        \ell'\big(f_{i-1}(x), y\big)\, \phi_{\omega_i}(x), \qquad
    \alpha_j \leftarrow (1 - \gamma_i\nu)\,\alpha_j \;(j < i),

with the step :math:`\gamma_i = \theta/(1 + \theta' i)` and the block features
:math:`\phi_\omega(x) = \sqrt{2/B}\,\cos(W^\top x + b)` (:func:`block_features`;
:math:`\mathbb E[\phi_\omega(x)^\top\phi_\omega(y)] = k(x, y)`). This is Algorithm 1 of
the paper with mini-batches of examples and blocks of features; prediction (Algorithm 2)
evaluates the sum over every block.

**Newton steps.** The gradient step sets a block once, from one mini-batch, at the scale
:math:`\gamma_i`; on data whose classes differ by small differences of kernel values
(ijcnn1) that leaves DSG at the majority class for any D that fits on one machine (the
benchmarks' README). ``step='newton'`` instead sets the new block by one Newton step of the
mini-batch's regularised loss in that block's coefficients, from 0:

.. math::

    \alpha_i = -\gamma_i\Big(\frac{1}{|b_i|}\Phi^\top H\Phi + \nu I\Big)^{-1}
        \frac{1}{|b_i|}\Phi^\top g, \qquad
    \Phi = \big[\phi_{\omega_i}(x)^\top\big]_{x\in b_i},\;
    g = \ell'(f_{i-1}(x), y),\; H = \operatorname{diag}\ell''(f_{i-1}(x), y),

one B × B system per output (:func:`newton_block`). For the squared loss
(:math:`\ell'' = 1`) and :math:`\gamma_i = 1` this is the exact minimiser of the block's
mini-batch problem; for the log loss it is the IRLS step; the hinge loss has no curvature
and takes :math:`H = I`, the feature-covariance preconditioner of the authors' public code
(``doubly_sgd_pcd_lr_8m.m``, which applies it to the softmax loss). With
:math:`\gamma_i \le 1` (the full step is 1), blocks of a few dozen features and mini-batches
of thousands, the new block fits what the earlier ones left: the step is
:math:`O(|b| B^2 + B^3)`, beside the :math:`O(i B d |b|)` of evaluating the earlier blocks.
On ijcnn1 at D = 1 024 it ends within a point of RFF + a linear SVM on the same number of
features, where gradient steps end eight points below (``bench_doubly_stochastic.py``).
It is the estimators' default (32 blocks of 64 features, mini-batches of 2 048; their
Notes give the measurements); ``step='gradient'`` is the paper's Algorithm 1.

**Seeds, not matrices.** Block i's frequencies W and phases b are a deterministic
function of the model's integer seed and of i (:func:`block_frequencies`), so the model
stores only :math:`\alpha \in \mathbb R^{T B \times K}` and one integer: memory
O(T B K), not the O(n D) of a feature matrix nor the O(d D) of RFF's frequencies. A run
generates each block's frequencies once and keeps them while it lasts
(:class:`FrequencyCache`, at most :data:`FREQUENCY_CACHE_BYTES`; blocks beyond it are
regenerated where used); a prediction generates them once per call; the model keeps none.

**Time.** Step i scores its mini-batch with the whole model :math:`f_{i-1}`, the i - 1
earlier blocks: :math:`O(i B d |b|)` projections and :math:`i B |b|` cosines, so T steps
cost :math:`O(T^2 B d |b|)`, and a pass of ``partial_fit`` over n rows of a model of t
blocks costs :math:`O(t B d n)`, what predicting those n rows costs. That growth is the
algorithm's (Algorithm 1 evaluates :math:`f_{i-1}` at every step), not the
implementation's; the compiled loops make each evaluation cheap: the projections by BLAS,
the cosines by a polynomial that runs in SIMD lanes (:mod:`lsl_lib._core.trig`), rows in
tiles that stay in the processor's cache. Fewer, larger blocks (the Newton step's regime)
keep T, and with it the quadratic term, small.

The uniforms come from a counter-based generator, SplitMix64 (Steele, Lea and Flood
2014) of (seed, block, counter), because the same numbers must come out of the numpy
reference (vectorised on uint64 arrays, wrapping arithmetic) and of the numba loops
(scalar code): numba's ``np.random`` inside compiled code is not numpy's ``Generator``
stream, so :func:`lsl_lib.random_features.draw_frequencies`, which takes a Generator,
cannot be called here. Its laws are reproduced exactly (the module's table): Gaussian
:math:`\mathcal N(0, 2\gamma)` by Box-Muller, Cauchy of scale :math:`\gamma` by
:math:`\gamma\tan(\pi(u - \frac12))`, Laplace of scale :math:`\sqrt\gamma` by inverting
its distribution function.

**The singly stochastic baseline.** :func:`functional_sgd` takes the same steps with the
exact kernel :math:`k(x, \cdot)` in place of a block, on the same mini-batches: the sequence
whose error and the random features' deviation from it make up DSG's error in Dai et al.'s
analysis (a numpy reference for comparisons, not a learner).

Two paths run the steps on the same mini-batch indices
(:func:`lsl_lib._core.sampling.sample_indices`) and the same seed:
:func:`dsg_numpy_chunk`, the readable reference, and :func:`dsg_numba_chunk`, the
compiled loop; they agree to rounding. :func:`doubly_stochastic` runs them in short chunks
(:func:`lsl_lib._core.run_loop.run_chunks`): Ctrl-C stops a fit between two chunks, and a
norm of the coefficients that grows by orders of magnitude is a divergence, an error that
names theta. Where the chunks end does not change the iterates.

References
----------
Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
gradients. NIPS 2014.

Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

Steele, Lea, Flood. Fast splittable pseudorandom number generators. OOPSLA 2014.

"""
import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import compiled_arrays, jit, resolve_backend
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.kernel_loops import GAUSSIAN, KERNELS, LAPLACIAN
from lsl_lib._core.random import SPLITMIX_GOLDEN, check_random_state, splitmix64
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.scores import labels_from_scores
from lsl_lib._core.trace import Trace
from lsl_lib._core.trig import cos_scaled
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    LEARNER_KERNEL_CONSTRAINTS,
    check_batch_size,
    check_n_classes,
    check_sample_weight,
    clipped_batch_size,
)
from lsl_lib.kernels import fitted_gamma
from lsl_lib.losses import LOG, get_loss, score_derivative
from lsl_lib.pegasos import weighted_sample_indices
from lsl_lib.random_features import RFF_KERNELS

_S11 = np.uint64(11)  # a uniform keeps the top 53 bits of a SplitMix64 output
_TWO_POW_M53 = 2.0 ** -53


# --- the counter-based generator and the features of a block --------------------------

def block_uniforms(seed, block, n):
    r"""The first n uniforms of block ``block``: SplitMix64 keyed by (seed, block).

    The key of the block is :math:`\kappa = \mathrm{mix}(s + (j + 1)\,g)` and its c-th
    uniform :math:`u_c = (\lfloor \mathrm{mix}(\kappa + (c + 1)\,g) / 2^{11}\rfloor
    + \frac12)\, 2^{-53}`, strictly inside (0, 1), with g the golden-ratio constant and
    all arithmetic modulo :math:`2^{64}` (Steele et al. 2014). Any uniform can be computed
    alone, which is what lets the compiled loop and this vectorised reference produce the
    same numbers.

    Parameters
    ----------
    seed : int
        The model's seed, :math:`0 \le s < 2^{63}` (an int64 for the compiled path).
    block : int
        Block index j >= 0 (step i = j + 1 uses block j).
    n : int
        How many uniforms.

    Returns
    -------
    u : ndarray of shape (n,), float64
    """
    key = splitmix64.py_func(np.array([seed], dtype=np.uint64)
                             + np.array([block + 1], dtype=np.uint64) * SPLITMIX_GOLDEN)
    counters = np.arange(1, n + 1, dtype=np.uint64)
    z = splitmix64.py_func(key + counters * SPLITMIX_GOLDEN)
    return ((z >> _S11).astype(np.float64) + 0.5) * _TWO_POW_M53


def _check_rff_kernel(kernel):
    if kernel not in RFF_KERNELS:
        raise ValueError(f"kernel must be one of {RFF_KERNELS}, got {kernel!r}.")
    return KERNELS.index(kernel)


def block_frequencies(seed, block, n_features, block_size, kernel="gaussian", gamma=1.0):
    r"""Frequencies W and phases b of block ``block``, regenerated from (seed, block).

    Element e = c d + k of the block (coordinate k of feature c's frequency
    :math:`\omega_c`, column c of W) is built from the uniforms of :func:`block_uniforms`,
    and the phase of feature c is :math:`b_c = 2\pi u_{2dB + c}`. The laws are those of
    :func:`lsl_lib.random_features.draw_frequencies`; the Gaussian elements come in
    Box-Muller pairs, :math:`(\omega_{2m}, \omega_{2m+1}) = \sqrt{2\gamma}\,r_m
    (\cos\theta_m, \sin\theta_m)` with :math:`r_m = \sqrt{-2\ln u_{2m}}`,
    :math:`\theta_m = 2\pi u_{2m+1}` (two independent normals per pair of uniforms):

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
    u = block_uniforms(seed, block, 2 * n + B)
    if code == GAUSSIAN:  # Box-Muller: the pair m gives the elements 2m (cos) and 2m+1 (sin)
        radius = np.sqrt(-2.0 * np.log(u[0:n:2]))
        angle = 2.0 * np.pi * u[1:n + 1:2]
        omega = np.empty(n)
        omega[0::2] = radius * np.cos(angle)
        omega[1::2] = (radius * np.sin(angle))[:n // 2]
        omega *= np.sqrt(2.0 * gamma)
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
        As in :func:`block_frequencies`.

    Returns
    -------
    Phi : ndarray of shape (n, block_size)
    """
    W, b = block_frequencies(seed, block, X.shape[1], block_size, kernel, gamma)
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
        As in :func:`block_frequencies`.
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


STEPS = ("gradient", "newton")
NEWTON_JITTER = 1e-10  # relative to the mean diagonal of the block's feature covariance


def curvature_weights(loss, Y, F):
    r""":math:`\ell''(f, y)` elementwise, the weights H of the Newton step: the log loss's
    :math:`e/(1 + e)^2` with :math:`e = \exp(-|y f|)`, and 1 for the squared loss and for
    the hinge (which has no curvature: the covariance preconditioner)."""
    if loss.name == "log":
        e = np.exp(-np.abs(Y * F))
        return e / (1.0 + e) ** 2
    return np.ones_like(F)


def newton_block(phi, G, H, nu):
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
        The step is :math:`-\gamma_i` times it. :math:`\epsilon` is ``NEWTON_JITTER``
        times the mean diagonal of :math:`\Phi^\top\Phi/k`, so that the system is
        definite when :math:`\nu = 0`, when |b| < B and when the curvature vanishes
        (the log loss of scores far from zero).
    """
    k, B = phi.shape
    direction = np.empty((B, G.shape[1]))
    epsilon = NEWTON_JITTER * np.sum(phi * phi) / (k * B)
    for q in range(G.shape[1]):
        A = (phi.T * H[:, q]) @ phi / k
        A[np.diag_indices(B)] += nu + epsilon
        direction[:, q] = np.linalg.solve(A, phi.T @ G[:, q] / k)
    return direction


#: Bytes of block frequencies kept during one run (:class:`FrequencyCache`): 64 MiB.
FREQUENCY_CACHE_BYTES = 2**26


class FrequencyCache:
    r"""The frequencies and phases of blocks 0, 1, ..., as many as
    :data:`FREQUENCY_CACHE_BYTES` hold, each generated once, when first needed.

    A run keeps them while it lasts, so that step i does not regenerate the i - 1 earlier
    blocks: regenerating costs :math:`d B` uniforms and transcendental functions per block
    and step, as much as evaluating the block on a mini-batch of about 2d rows. Blocks
    beyond the cache are regenerated where they are used. Nothing of it is kept in the
    model, which stays :math:`\alpha` and the seed.

    Parameters
    ----------
    seed, n_features, block_size, kernel, gamma
        As in :func:`block_frequencies`.
    n_blocks : int
        The blocks the run will use (the cache holds at most that many).
    backend : {'numpy', 'numba'}, default='numpy'
        Generated by :func:`block_frequencies` or by the compiled :func:`fill_block`:
        each path reads the numbers it generates itself.

    Attributes
    ----------
    W : ndarray of shape (n_filled, n_features, block_size)
    b : ndarray of shape (n_filled, block_size)
        The blocks generated so far (:meth:`fill`), block j in ``W[j]``, ``b[j]``.
    """

    def __init__(self, seed, n_blocks, n_features, block_size, kernel="gaussian", gamma=1.0,
                 backend="numpy"):
        capacity = min(n_blocks, FREQUENCY_CACHE_BYTES // (8 * (n_features + 1) * block_size))
        self._W = np.empty((capacity, n_features, block_size))
        self._b = np.empty((capacity, block_size))
        self._filled = 0
        self._args = (int(seed), kernel, float(gamma), backend)

    @property
    def W(self):
        return self._W[:self._filled]

    @property
    def b(self):
        return self._b[:self._filled]

    def fill(self, n_blocks):
        """Generate the blocks below ``n_blocks`` that the cache holds and lacks."""
        seed, kernel, gamma, backend = self._args
        start, stop = self._filled, min(n_blocks, len(self._W))
        if stop <= start:
            return self
        if backend == "numba":
            fill_blocks(seed, start, KERNELS.index(kernel), gamma, self._W[start:stop],
                        self._b[start:stop])
        else:
            d, B = self._W.shape[1:]
            for j in range(start, stop):
                self._W[j], self._b[j] = block_frequencies(seed, j, d, B, kernel, gamma)
        self._filled = stop
        return self


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
        As in :func:`block_frequencies`.
    theta, theta_prime, nu : float
        :math:`\theta, \theta', \nu`.
    loss : lsl_lib.losses.Loss
    scores : ndarray of shape (T, k, K)
        Receives :math:`f_{i-1}(x)` on each mini-batch (before its step).
    step : {'gradient', 'newton'}, default='gradient'
        The new block's coefficients: the gradient step, or the Newton step of
        :func:`newton_block`.
    cache : tuple (W, b) or None, default=None
        The frequencies of the first blocks (:class:`FrequencyCache`), at least those
        the chunk creates where they fit; the others are regenerated. None: all are.
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
            H = curvature_weights(loss, Y[batch], f)
            alpha[i - 1] = -gamma_i * newton_block(phi, G, H, nu)
        else:
            alpha[i - 1] = -(gamma_i / k) * (phi.T @ G)


# --- the compiled path -----------------------------------------------------------------

#: Rows evaluated together by the compiled prediction (:func:`accumulate_scores`).
ROW_TILE = 256


@jit
def fill_block(seed, block, kernel_code, gamma, W, b):
    """Compiled :func:`block_frequencies`: write block ``block``'s frequencies into W, of
    shape (d, B) (column c is :math:`\\omega_c`), and its phases into b."""
    d, B = W.shape
    n = d * B
    key = splitmix64(np.uint64(seed) + np.uint64(block + 1) * SPLITMIX_GOLDEN)
    two_pi = 2.0 * math.pi
    if kernel_code == GAUSSIAN:
        scale = math.sqrt(2.0 * gamma)
        for m in range((n + 1) // 2):
            z1 = splitmix64(key + np.uint64(2 * m + 1) * SPLITMIX_GOLDEN)
            z2 = splitmix64(key + np.uint64(2 * m + 2) * SPLITMIX_GOLDEN)
            radius = scale * math.sqrt(-2.0 * math.log((float(z1 >> _S11) + 0.5) * _TWO_POW_M53))
            angle = two_pi * ((float(z2 >> _S11) + 0.5) * _TWO_POW_M53)
            e = 2 * m
            W[e % d, e // d] = radius * math.cos(angle)
            if e + 1 < n:
                W[(e + 1) % d, (e + 1) // d] = radius * math.sin(angle)
    else:
        scale = math.sqrt(gamma)
        for e in range(n):
            z = splitmix64(key + np.uint64(e + 1) * SPLITMIX_GOLDEN)
            u = (float(z >> _S11) + 0.5) * _TWO_POW_M53
            if kernel_code == LAPLACIAN:
                W[e % d, e // d] = gamma * math.tan(math.pi * (u - 0.5))
            else:
                v = u - 0.5
                sign = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
                W[e % d, e // d] = -scale * sign * math.log(1.0 - 2.0 * abs(v))
    for c in range(B):
        z = splitmix64(key + np.uint64(2 * n + c + 1) * SPLITMIX_GOLDEN)
        b[c] = two_pi * ((float(z >> _S11) + 0.5) * _TWO_POW_M53)


@jit
def row_projections(data, cols, indptr, d, x, W, out):
    r"""Write :math:`W^\top x` of one row x of X (``compiled_arrays`` form) into ``out``
    (length B), W of shape (d, B): the B projections accumulated side by side
    (independent sums: the loop over c vectorises); a CSR row reads its nonzeros only."""
    B = W.shape[1]
    for c in range(B):
        out[c] = 0.0
    if indptr.shape[0] == 0:  # dense: row x is data[x*d:(x+1)*d]
        for kk in range(d):
            value = data[x * d + kk]
            for c in range(B):
                out[c] += value * W[kk, c]
    else:
        for p in range(indptr[x], indptr[x + 1]):
            value = data[p]
            kk = cols[p]
            for c in range(B):
                out[c] += value * W[kk, c]


@jit
def gather_rows(data, indptr, d, rows):
    """The rows ``rows`` of a dense X (``compiled_arrays`` form) as a C-ordered (k, d)
    array; an empty (0, d) array for a CSR X, whose rows are read in place."""
    if indptr.shape[0] != 0:
        return np.empty((0, d))
    Xb = np.empty((rows.shape[0], d))
    for r in range(rows.shape[0]):
        for kk in range(d):
            Xb[r, kk] = data[rows[r] * d + kk]
    return Xb


@jit
def batch_features(data, cols, indptr, d, rows, Xb, W, b, phi):
    r"""Compiled :func:`block_features` of the rows ``rows`` of X into ``phi`` (k, B, C
    order): the projections of a dense X by one product ``Xb @ W`` of its gathered rows
    (BLAS), of a CSR X row by row (:func:`row_projections`); then the phases, and the
    cosines of all k B entries in one loop (:func:`lsl_lib._core.trig.cos_scaled`)."""
    k, B = phi.shape
    if Xb.shape[0] == k:
        np.dot(Xb, W, phi)
    else:
        for r in range(k):
            row_projections(data, cols, indptr, d, rows[r], W, phi[r])
    for r in range(k):
        for c in range(B):
            phi[r, c] += b[c]
    v = phi.reshape(k * B)
    cos_scaled(v, math.sqrt(2.0 / B), v)


@jit
def fill_blocks(seed, first_block, kernel_code, gamma, W, b):
    """Compiled :meth:`FrequencyCache.fill`: :func:`fill_block` for the blocks
    ``first_block + j`` into ``W[j]`` (d, B) and ``b[j]``, j = 0 .. len(W) - 1."""
    for j in range(W.shape[0]):
        fill_block(seed, first_block + j, kernel_code, gamma, W[j], b[j])


@jit
def add_block_scores(data, cols, indptr, d, rows, Xb, W, b, alpha_j, phi, scores, out):
    r"""Add one block's :math:`\alpha_j^\top\phi_{\omega_j}(x)` to ``out[r]`` for each
    ``x = X[rows[r]]``: the features by :func:`batch_features` into ``phi``, their product
    with :math:`\alpha_j` by BLAS into ``scores`` (as ``out``: (rows, K))."""
    batch_features(data, cols, indptr, d, rows, Xb, W, b, phi)
    np.dot(phi, alpha_j, scores)
    for r in range(out.shape[0]):
        for q in range(out.shape[1]):
            out[r, q] += scores[r, q]


@jit
def accumulate_scores(data, cols, indptr, d, rows, seed, alpha, first_block, kernel_code,
                      gamma, W_cache, b_cache, tile, out):
    r"""Compiled :func:`predict_blocks`: add :math:`\sum_j \alpha_j^\top\phi_{\omega_j}(x)`
    over the blocks of ``alpha`` (block index ``first_block + j`` for ``alpha[j]``) to
    ``out[r]`` for each ``x = X[rows[r]]``; X as
    :func:`lsl_lib._core.backend.compiled_arrays` gives it.

    The frequencies of the blocks below ``len(W_cache)`` are read from the cache
    (:class:`FrequencyCache`), the others regenerated once each. The rows are taken
    ``tile`` at a time and each tile runs through every cached block, so that its rows,
    its features and its scores stay in the processor's cache; the tiles are independent
    (each writes its own rows of ``out``). Every score adds its blocks in the order
    j = 0, 1, ..., whatever the tile.
    """
    n_blocks, B, K = alpha.shape
    n = rows.shape[0]
    n_cached = W_cache.shape[0]
    W = np.empty((d, B))
    b = np.empty(B)
    phi = np.empty((min(max(tile, 1), max(n, 1)), B))
    scores = np.empty((phi.shape[0], K))
    j = 0
    while j < n_blocks:
        if first_block + j < n_cached:  # the cached blocks together
            stop = min(n_blocks, n_cached - first_block)
        else:  # one block beyond the cache, regenerated once for all the rows
            stop = j + 1
            fill_block(seed, first_block + j, kernel_code, gamma, W, b)
        for start in range(0, n, phi.shape[0]):
            end = min(start + phi.shape[0], n)
            tile_rows = rows[start:end]
            Xb = gather_rows(data, indptr, d, tile_rows)
            for jj in range(j, stop):
                block = first_block + jj
                if block < n_cached:
                    add_block_scores(data, cols, indptr, d, tile_rows, Xb, W_cache[block],
                                     b_cache[block], alpha[jj], phi[:end - start],
                                     scores[:end - start], out[start:end])
                else:
                    add_block_scores(data, cols, indptr, d, tile_rows, Xb, W, b, alpha[jj],
                                     phi[:end - start], scores[:end - start], out[start:end])
        j = stop


@jit
def score_curvature(loss_code, y, s):
    """Compiled :func:`curvature_weights` of one score (the same arithmetic)."""
    if loss_code == LOG:
        e = math.exp(-abs(y * s))
        return e / (1.0 + e) ** 2
    return 1.0


@jit
def newton_block_into(phi, f, Y, rows, loss_code, nu, step, out):
    """Compiled :func:`newton_block`: write ``step`` times the Newton direction of the
    block with features ``phi`` (k, B), at scores ``f`` (k, K) of the rows ``rows``,
    into ``out`` (B, K)."""
    k, B = phi.shape
    A = np.empty((B, B))
    rhs = np.empty(B)
    epsilon = 0.0
    for r in range(k):
        for a in range(B):
            epsilon += phi[r, a] * phi[r, a]
    epsilon *= NEWTON_JITTER / (k * B)
    for q in range(out.shape[1]):
        A[:, :] = 0.0
        rhs[:] = 0.0
        for r in range(k):
            y = Y[rows[r], q]
            h = score_curvature(loss_code, y, f[r, q]) / k
            g = score_derivative(loss_code, y, f[r, q], 0.0) / k
            for a in range(B):
                rhs[a] += g * phi[r, a]
                ha = h * phi[r, a]
                for c in range(B):
                    A[a, c] += ha * phi[r, c]
        for a in range(B):
            A[a, a] += nu + epsilon
        direction = np.linalg.solve(A, rhs)
        for a in range(B):
            out[a, q] = step * direction[a]


@jit
def dsg_numba_chunk(data, cols, indptr, d, Y, alpha, indices, t0, seed, kernel_code, gamma,
                    theta, theta_prime, nu, loss_code, scores, newton, W_cache, b_cache):
    """The same steps as :func:`dsg_numpy_chunk`, compiled (X as
    :func:`lsl_lib._core.backend.compiled_arrays` gives it, dense or CSR); ``newton``
    selects ``step='newton'``; ``W_cache``, ``b_cache`` hold the frequencies of the first
    blocks (:class:`FrequencyCache`)."""
    T, k = indices.shape
    B = alpha.shape[1]
    K = alpha.shape[2]
    W = np.empty((d, B))
    b = np.empty(B)
    phi = np.empty((k, B))
    f = np.zeros((k, K))
    for it in range(T):
        i = t0 + it + 1
        gamma_i = theta / (1.0 + theta_prime * i)
        rows = indices[it]
        f[:, :] = 0.0
        accumulate_scores(data, cols, indptr, d, rows, seed, alpha[:i - 1], 0, kernel_code,
                          gamma, W_cache, b_cache, k, f)
        Xb = gather_rows(data, indptr, d, rows)
        if i - 1 < W_cache.shape[0]:  # block i's features on the batch
            batch_features(data, cols, indptr, d, rows, Xb, W_cache[i - 1], b_cache[i - 1], phi)
        else:
            fill_block(seed, i - 1, kernel_code, gamma, W, b)
            batch_features(data, cols, indptr, d, rows, Xb, W, b, phi)
        shrink = 1.0 - gamma_i * nu
        for j in range(i - 1):
            for c in range(B):
                for q in range(K):
                    alpha[j, c, q] *= shrink
        scores[it] = f
        if newton:
            newton_block_into(phi, f, Y, rows, loss_code, nu, -gamma_i, alpha[i - 1])
            continue
        for c in range(B):
            for q in range(K):
                alpha[i - 1, c, q] = 0.0
        for r in range(k):
            for q in range(K):
                g = score_derivative(loss_code, Y[rows[r], q], f[r, q], 0.0)
                if g != 0.0:
                    step = -(gamma_i / k) * g
                    for c in range(B):
                        alpha[i - 1, c, q] += step * phi[r, c]


# --- the functional core ---------------------------------------------------------------

class DSGState:
    """Where a run stands: the seed, the coefficients of the blocks done, the step count.

    Attributes
    ----------
    seed : int
        The seed of every block, :math:`0 \\le s < 2^{63}`.
    alpha : ndarray of shape (t, B, K)
        :math:`\\alpha_1, \\dots, \\alpha_t`, one block per step.
    t : int
        Steps done; the next one is t + 1 and uses block t.
    """

    def __init__(self, seed, block_size, n_outputs):
        self.seed = int(seed)
        self.alpha = np.zeros((0, block_size, n_outputs))
        self.t = 0


def doubly_stochastic(X, Y, n_iter, *, loss="hinge", batch_size=32, block_size=16,
                      kernel="gaussian", gamma=1.0, nu=1e-4, theta=1.0, theta_prime=0.01,
                      step="gradient", sampling="iid", sample_weight=None, record_every=None,
                      monitor=None, backend="auto", random_state=None, state=None,
                      verbose=False):
    r"""Run ``n_iter`` steps of doubly stochastic gradient descent on prepared arrays.

    The functional core of :class:`DoublyStochasticClassifier` and
    :class:`DoublyStochasticRegressor`: no label mapping, no input checks beyond the
    algorithm's own.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d), float64
    Y : ndarray of shape (n, K)
        -1/+1 per column (one-vs-rest) for 'hinge' and 'log', targets for 'squared'.
    n_iter : int
        T, the number of steps.
    loss : {'hinge', 'log', 'squared'}, default='hinge'
    batch_size, block_size : int
        |b| examples (at most n) and B features per step.
    kernel : {'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float > 0, default=1.0
    nu, theta, theta_prime : float
        :math:`\nu`, :math:`\theta`, :math:`\theta'`.
    step : {'gradient', 'newton'}, default='gradient'
        How a new block's coefficients are set (the module's docstring).
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
    sample_weight : ndarray of shape (n,) or None, default=None
        Non-negative weights, not all zero: the examples of the mini-batches are drawn in
        proportion to them (:func:`lsl_lib.pegasos.weighted_sample_indices`), so the
        steps estimate the gradient of the weighted risk. None: every weight 1.
    record_every : int or None, default=None
        Record the trace every that many steps (and at the end).
    monitor : callable or None, default=None
        ``monitor(state) -> dict`` of extra columns at each record point.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
        A new run draws its seed from it first, then the mini-batches.
    state : DSGState or None, default=None
        Continue from this state: steps, seeds and blocks go on.
    verbose : bool, default=False
        A progress bar for runs longer than a few seconds.

    Returns
    -------
    state : DSGState
    history : dict of ndarray
        ``iteration`` (steps of this call), ``examples`` (seen), ``seconds`` (solver time),
        ``minibatch_loss`` (mean loss of :math:`f_{i-1}` on the mini-batches of the steps
        since the previous record, each scored *before* its step: a progressive
        validation loss that costs nothing) and the monitor's columns; empty when
        ``record_every`` is None.

    Raises
    ------
    ValueError
        When the coefficients' norm overflows or grows by
        :data:`~lsl_lib._core.run_loop.DIVERGENCE_GROWTH` over its first value: the
        message names theta.
    KeyboardInterrupt
        On Ctrl-C, within a chunk's length (:func:`~lsl_lib._core.run_loop.run_chunks`);
        ``state`` is then that of the last whole chunk of steps.
    """
    loss = get_loss(loss)
    kernel_code = _check_rff_kernel(kernel)
    if step not in STEPS:
        raise ValueError(f"step must be one of {STEPS}, got {step!r}")
    path = resolve_backend(backend)
    n_samples, n_features = X.shape
    check_batch_size(batch_size, n_samples)
    rng = check_random_state(random_state)
    n_outputs = Y.shape[1]
    if state is None:
        state = DSGState(rng.integers(0, 2**63), block_size, n_outputs)
    if sample_weight is None:
        indices = sample_indices(n_samples, n_iter, batch_size, sampling, rng)
    else:
        indices = weighted_sample_indices(sample_weight, n_iter, batch_size, sampling, rng)
    t_start = state.t
    alpha = np.zeros((t_start + n_iter, block_size, n_outputs))
    alpha[:t_start] = state.alpha
    cache = FrequencyCache(state.seed, t_start + n_iter, n_features, block_size, kernel, gamma,
                           path)  # filled chunk by chunk: each fill is interruptible work
    if path == "numba":
        data, cols, indptr = compiled_arrays(X)
        Y = np.ascontiguousarray(Y, dtype=np.float64)

    trace = Trace()
    losses = []  # the mini-batches' losses since the last record

    def step_chunk(start, stop):
        batches = indices[start:stop]
        scores = np.empty((stop - start, batch_size, n_outputs))
        cache.fill(t_start + stop)  # the blocks this chunk reads or creates
        if path == "numba":
            dsg_numba_chunk(data, cols, indptr, n_features, Y, alpha, batches, state.t,
                            state.seed, kernel_code, float(gamma), float(theta),
                            float(theta_prime), float(nu), loss.code, scores,
                            step == "newton", cache.W, cache.b)
        else:
            dsg_numpy_chunk(X, Y, alpha, batches, state.t, state.seed, kernel, gamma, theta,
                            theta_prime, nu, loss, scores, step, (cache.W, cache.b))
        state.t += stop - start
        state.alpha = alpha[:state.t]
        if record_every is not None:
            losses.append(loss.value(Y[batches], scores))

    def record():
        if not losses:  # no step since the last record (the start of the run)
            return
        row = dict(iteration=state.t - t_start, examples=(state.t - t_start) * batch_size,
                   seconds=trace.seconds,
                   minibatch_loss=float(np.mean(np.concatenate(losses))))
        losses.clear()
        if monitor is not None:
            row.update(monitor(state))
        trace.record(**row)

    def diverged(done):
        advice = ("theta <= 1 (1 is the full Newton step) or a larger nu" if step == "newton"
                  else "a smaller theta, or step='newton'")
        return (f"doubly stochastic gradients diverged: the coefficients' norm overflowed or "
                f"grew by orders of magnitude by step {t_start + done}; the steps "
                f"theta/(1 + theta_prime i) with theta={theta:g} are too long for "
                f"loss={loss.name!r} on these data: use {advice}, or standardise the targets.")

    run_chunks(trace, n_iter, step_chunk, record_every=record_every, record=record,
               norm=lambda: math.sqrt(np.einsum("ijk,ijk->", state.alpha, state.alpha)),
               diverged=diverged,
               verbose=verbose, desc="DSG", unit="step")
    return state, trace.history()


def predict_scores(X, state, kernel, gamma, backend="auto"):
    """:math:`f(x)` for every row of X, shape (n, K): :func:`predict_blocks` on the numpy
    path, :func:`accumulate_scores` on the compiled one (rows in tiles of
    :data:`ROW_TILE`, frequencies generated once per call, up to the cache's size)."""
    if resolve_backend(backend) == "numpy":
        return predict_blocks(X, state.seed, state.alpha, kernel, gamma)
    n_blocks, B, K = state.alpha.shape
    cache = FrequencyCache(state.seed, n_blocks, X.shape[1], B, kernel, gamma, "numba")
    cache.fill(n_blocks)
    data, cols, indptr = compiled_arrays(X)
    out = np.zeros((X.shape[0], K))
    accumulate_scores(data, cols, indptr, X.shape[1], np.arange(X.shape[0], dtype=np.int64),
                      state.seed, state.alpha, 0, KERNELS.index(kernel), float(gamma),
                      cache.W, cache.b, ROW_TILE, out)
    return out


def functional_sgd(X, Y, n_iter, *, loss="hinge", batch_size=32, kernel="gaussian", gamma=1.0,
                   nu=1e-4, theta=1.0, theta_prime=0.01, sampling="iid", random_state=None):
    r"""The *singly* stochastic baseline: DSG's steps with the exact kernel instead of a block.

    Functional stochastic gradient descent in the RKHS, random only in the mini-batch:

    .. math::

        f_i = (1 - \gamma_i\nu)\, f_{i-1}
              - \frac{\gamma_i}{|b_i|}\sum_{(x, y)\in b_i}\ell'\big(f_{i-1}(x), y\big)\, k(x, \cdot),

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


def model_nbytes(estimator):
    """Bytes of a fitted estimator's model: its coefficients :math:`\\alpha` and one int64
    seed. The frequencies are regenerated, never stored."""
    check_is_fitted(estimator)
    return estimator._state.alpha.nbytes + np.dtype(np.int64).itemsize


# --- the estimators --------------------------------------------------------------------

class _BaseDoublyStochastic(BaseEstimator):
    """Parameters, validation, the fitting loop and prediction shared by both estimators."""

    _parameter_constraints = {
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "block_size": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions(set(RFF_KERNELS))],
        "gamma": LEARNER_KERNEL_CONSTRAINTS["gamma"],
        "nu": [Interval(Real, 0, None, closed="left")],
        "theta": [Interval(Real, 0, None, closed="neither"), None],
        "theta_prime": [Interval(Real, 0, None, closed="left")],
        "step": [StrOptions(set(STEPS))],
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
    }

    def _prepare(self, X, y, reset):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             y_numeric=isinstance(self, RegressorMixin), reset=reset)
        return X, y

    def _sample_weight(self, X, sample_weight):
        """Validated weights, or None when none are given."""
        return None if sample_weight is None else check_sample_weight(sample_weight, X)

    def _batch_size(self, n_samples):
        """|b| = ``batch_size``, clipped to the n rows at hand."""
        return clipped_batch_size(self.batch_size, n_samples)

    def _resolved_theta(self):
        """theta, or its default: the full Newton step 1, or the class's gradient step."""
        if self.theta is not None:
            return float(self.theta)
        return 1.0 if self.step == "newton" else self._gradient_theta

    def _check_steps(self):
        first = self._resolved_theta() * self.nu / (1.0 + self.theta_prime)
        if first > 1.0:
            raise ValueError(
                f"theta * nu / (1 + theta_prime) = {first:.3g} > 1: the first shrink "
                f"1 - gamma_1 nu would be negative and flip the sign of f; lower theta or nu.")

    def _run(self, X, Y, n_iter, eval_set, continuing, sample_weight=None):
        """Run the solver on prepared arrays and store the fitted attributes.

        A ``KeyboardInterrupt`` of a continued run (``partial_fit``) leaves the model of the
        last whole chunk of steps; ``fit`` is left unfitted (:func:`unfitted_on_interrupt`).
        """
        if not continuing:
            self._rng = check_random_state(self.random_state)
            self._state = DSGState(self._rng.integers(0, 2**63), self.block_size, Y.shape[1])
            self.gamma_ = fitted_gamma(self.gamma, X, sample_weight)
        self.theta_ = self._resolved_theta()
        monitor = None
        if eval_set is not None:  # validated once, then scored at each record point
            X_eval = validate_data(self, eval_set[0], accept_sparse="csr", dtype=np.float64,
                                   reset=False)
            y_eval = np.asarray(eval_set[1])

            def monitor(state):
                scores = predict_scores(X_eval, state, self.kernel, self.gamma_, self.backend)
                return {self._eval_name: self._eval_metric(scores, y_eval)}

        try:
            _, history = doubly_stochastic(
                X, Y, n_iter, loss=self.loss, batch_size=self._batch_size(X.shape[0]),
                block_size=self.block_size, kernel=self.kernel, gamma=self.gamma_, nu=self.nu,
                theta=self.theta_, theta_prime=self.theta_prime, step=self.step,
                sampling=self.sampling, sample_weight=sample_weight,
                record_every=self.record_every, monitor=monitor, backend=self.backend,
                random_state=self._rng, state=self._state, verbose=self.verbose)
        except KeyboardInterrupt:
            self._set_model()
            raise
        self._set_model()
        self.n_iter_ = n_iter
        if continuing and history and self.history_:
            history = {k: np.concatenate([self.history_[k], v]) for k, v in history.items()}
        self.history_ = history
        return self

    def _set_model(self):
        """The fitted attributes from ``_state``."""
        self.seed_ = self._state.seed
        self.alpha_ = self._state.alpha.reshape(-1, self._state.alpha.shape[2])
        self.t_ = self._state.t

    def _scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return predict_scores(X, self._state, self.kernel, self.gamma_, self.backend)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_PARAMETERS_DOC = r"""
    n_iter : int, default=32
        T, the number of steps; the model has T blocks.
    batch_size : int, default=2048
        |b|, examples per step, clipped to the rows at hand: on fewer rows (a small
        training set, a short last ``partial_fit`` chunk) each step takes them all.
    block_size : int, default=64
        B, random features per step; the model has D = T B features in all.
    kernel : {'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
        The shift-invariant kernel, as in :class:`lsl_lib.random_features.RandomFourierFeatures`.
    gamma : float > 0, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d \operatorname{Var}(X))`
        (:func:`lsl_lib.kernels.fitted_gamma`; the rows weighted by ``sample_weight``),
        ``None`` is 1/d.
    nu : float >= 0, default=NU_DEFAULT
        :math:`\nu`, the weight of :math:`\frac{\nu}{2}\|f\|^2`; each step shrinks the earlier
        coefficients by :math:`1 - \gamma_i\nu`. NU_WHY
    theta : float > 0 or None, default=None
        :math:`\theta` in the step :math:`\gamma_i = \theta/(1 + \theta' i)`. ``None``:
        1 (the full Newton step) with ``step='newton'``, where :math:`\theta > 1`
        overshoots; THETA_DEFAULT with ``step='gradient'``. THETA_WHY
    theta_prime : float >= 0, default=0.01
        :math:`\theta'`: the steps stay near :math:`\theta` for the first :math:`1/\theta'`
        steps, then decay like :math:`1/i` (0: a constant step).
    step : {'newton', 'gradient'}, default='newton'
        How the new block's coefficients are set: one Newton step of the mini-batch's
        regularised loss in the block (:func:`lsl_lib.doubly_stochastic.newton_block`; the
        module's docstring), or Dai et al.'s gradient step (the paper's Algorithm 1,
        lecture 13). The Newton step wants mini-batches of thousands, many times B: the
        block is fitted to its mini-batch, and on a small one it fits that batch's noise
        (200 rows, batches of 10, squared loss: R² below 0 where gradient steps reach
        0.75); keep it for ``batch_size`` of a few hundred or more, and take
        ``step='gradient'`` with small mini-batches. In its regime it is the better choice:
        on ijcnn1 at D = 1 024, 97 % test accuracy against the gradient step's 90 %, the
        majority class, and within a point of RFF + a linear SVM on the same number of
        features (benchmarks/README.md). With the log loss keep ``nu > 0`` unless the
        mini-batches are large: where a block separates its mini-batch, the curvature
        vanishes and the step is unbounded (IRLS on separable data; coefficients of 1e10 on
        the checkerboard of lecture 13 with ``nu=0``).
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
        How mini-batches are drawn (:mod:`lsl_lib._core.sampling`).
    record_every : int or None, default=None
        Record ``history_`` every that many steps; ``None`` records nothing.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numba'``: the compiled loops; ``'numpy'``: the reference; the same seed gives the
        same model on both (to rounding).
    random_state : None, int or numpy.random.Generator, default=None
        Draws the model's seed (``seed_``), then the mini-batches.
    verbose : bool, default=False
        A progress bar over the steps for fits longer than a few seconds."""


def _parameters_doc(nu_default, nu_why, theta_default, theta_why):
    return (_PARAMETERS_DOC.replace("NU_DEFAULT", nu_default).replace("NU_WHY", nu_why)
            .replace("THETA_DEFAULT", theta_default).replace("THETA_WHY", theta_why))


_ATTRIBUTES_DOC = r"""
    seed_ : int
        The seed from which every block's frequencies are regenerated
        (:func:`block_frequencies`).
    gamma_ : float
        The kernel width used.
    theta_ : float
        The :math:`\theta` used (``theta`` or its default).
    t_ : int
        Steps done in total (``partial_fit`` continues from it: step, step size and block).
    n_iter_ : int
        Steps of the last call.
    history_ : dict of ndarray
        ``iteration``, ``examples``, ``seconds`` (solver time), ``minibatch_loss`` (mean
        loss of the model on each mini-batch just before its step, over the steps since
        the previous record: a progressive validation loss), and with ``eval_set`` the
        held-out ``{eval_name}``.
    n_features_in_ : int"""

_NOTES_DOC = r"""
    *Memory.* The model is :math:`\alpha` and one integer, 8 (T B K + 1) bytes
    (:func:`model_nbytes`); RFF with the same D = T B features stores also its d D
    frequencies, and a feature matrix of the training set n D. A run keeps the frequencies of
    its blocks while it lasts (up to :data:`FREQUENCY_CACHE_BYTES`), the model none.

    *Time.* Step i evaluates the i - 1 earlier blocks on its mini-batch,
    :math:`O(i B d |b|)`, so T steps cost :math:`O(T^2 B d |b|)` and a prediction
    :math:`O(T B d)` per example; a ``partial_fit`` pass over n rows of a model of t blocks
    costs :math:`O(t B d n)`, as predicting those rows does: each call is slower than the
    last, by the algorithm's own count (Algorithm 1 scores every mini-batch with the whole
    model). The shrink multiplies every earlier :math:`\alpha_j` (O(i B K) per step,
    negligible beside the scoring), so no running scale factor is kept.

    *Interrupting.* Ctrl-C (or Jupyter's interrupt) stops a fit between two chunks of
    steps, within about 0.1 s plus one step (:func:`~lsl_lib._core.run_loop.run_chunks`):
    ``fit`` leaves the estimator unfitted, ``partial_fit`` leaves the model of its last
    whole chunk of steps (``t_`` says how many). A step is the smallest chunk, and step i
    evaluates i - 1 blocks: with the defaults on ijcnn1 about 2 ms per block, so past some
    500 steps (minutes of fitting) the wait exceeds a second.

    *Sample weights* are drawn in proportion: each mini-batch takes example i with
    probability :math:`s_i/\sum_j s_j` (integer weights: exactly the mini-batches of the
    rows repeated :math:`s_i` times), so the steps estimate the gradient of the weighted
    risk, the algorithm unchanged.

    X enters only by rows (mini-batches, predictions), so CSR input is accepted."""

_EXAMPLE_ROWS = r"""
    =========  ============  ================  ===============  ========================
    data set   DSG default   RBFSampler()      RFF(D = 1 024)   DSG fit, predict
                             + LinearSVC()     + LinearSVC()    (RFF + LinearSVC fit)
    =========  ============  ================  ===============  ========================
    ijcnn1     0.9444        0.9091            0.9345           0.9 s, 1.3 s (15 s)
    a9a        0.8433        0.7638            0.8519           0.6 s, 0.2 s (23 s)
    usps       0.9263        0.2147            0.9278           1.5 s, 0.1 s (13 s)
    covtype    0.7202        0.6817            0.7199           0.9 s, 0.5 s (> 10 min)
    =========  ============  ================  ===============  ========================
"""


CLASSIFIER_DOC = r"""Kernel classifier trained by doubly stochastic gradients (Dai et al. 2014).

    Step i = 1, ..., T draws a mini-batch :math:`b_i` of examples and regenerates block i
    of B random Fourier features from the seed; with :math:`\gamma_i = \theta/(1 + \theta' i)`
    and the earlier blocks shrunk, :math:`\alpha_j \leftarrow (1 - \gamma_i\nu)\,\alpha_j`
    (j < i), the new block's coefficients are set by a Newton step of the mini-batch's loss
    in them (``step='newton'``, the default) or by the paper's gradient step
    (``step='gradient'``),

    .. math::

        \alpha_i = -\frac{\gamma_i}{|b_i|}\sum_{(x, y) \in b_i} \ell'(f_{i-1}(x), y)\,
        \phi_{\omega_i}(x),

    and :math:`f(x) = \sum_j \alpha_j^\top\phi_{\omega_j}(x)` is evaluated by regenerating
    every block (:mod:`lsl_lib.doubly_stochastic`). Labels of any type; several classes
    are learnt one-vs-rest on the *same* features: :math:`\alpha_j` is a B × K matrix,
    one column per class, so K classes cost one feature evaluation, not K.

    Parameters
    ----------
    loss : {'hinge', 'log'}, default='hinge'
        The SVM's hinge or logistic regression's log loss (one-vs-rest per class); 'log'
        gives ``predict_proba``."""\
        + _parameters_doc("1e-4", "With the other defaults, 1e-3 moves the test\n"
                          "        accuracies of the Notes by at most 0.7 point.", "4.0", (
            "For the gradient step: the\n        losses are Lipschitz, the log loss 1/4-smooth: long first steps are "
            "safe and learn\n        faster (on digits, 150 steps: 0.93 test accuracy at "
            "theta=1, 0.97 at 4).")) + r"""

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (t_ * block_size, n_outputs)
        The coefficients of the blocks, block j in rows ``j*B .. (j+1)*B - 1``; one column
        for two classes (that of ``classes_[1]``), one per class otherwise."""\
        + _ATTRIBUTES_DOC.format(eval_name="test_error") + r"""

    See Also
    --------
    lsl_lib.random_features.RandomFourierFeatures : the same features, stored.
    lsl_lib.kernel_pegasos.KernelPegasosClassifier : exact kernel, support vectors stored.

    Notes
    -----
    *Defaults*, chosen on real data so that a user who sets nothing lands near random
    Fourier features + a linear SVM: the Newton step, 32 blocks of 64 features (D = 2 048),
    mini-batches of 2 048 (65 536 examples seen). Test accuracy with the defaults
    (``random_state=0``; ijcnn1 and a9a on their test files, usps 7 291 / 2 007 rows, the
    covtype subsample 75 / 25 % stratified, 7 classes; times on a shared two-core machine):
""" + _EXAMPLE_ROWS + r"""
    The previous defaults (the gradient step, 300 blocks of 16 features, mini-batches of 32)
    ended below the majority class on ijcnn1 (0.898 against 0.905); ``loss='log'`` with
    the other defaults gives 0.956, 0.806, 0.930 and 0.729. There is no intercept (the paper
    has none): the kernel's feature space carries it.
""" + _NOTES_DOC + r"""

    References
    ----------
    Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
    gradients. NIPS 2014.

    Examples
    --------
    >>> from lsl_lib.datasets import concentric_circles
    >>> from lsl_lib.doubly_stochastic import DoublyStochasticClassifier, model_nbytes
    >>> X, y = concentric_circles(1000, random_state=0)
    >>> clf = DoublyStochasticClassifier(random_state=0).fit(X, y)
    >>> round(clf.score(X, y), 2), clf.alpha_.shape, model_nbytes(clf)
    (1.0, (2048, 1), 16392)
    """


REGRESSOR_DOC = r"""Kernel ridge regression by doubly stochastic gradients (Dai et al. 2014).

    The steps of :class:`DoublyStochasticClassifier` with the squared loss
    :math:`\ell(f, y) = \frac12 (f - y)^2`, :math:`\ell' = f - y`, on the centred targets
    :math:`y - b`: a stochastic approximation of kernel ridge regression with
    :math:`\lambda = \nu` and an unpenalised intercept b, the mean target. With the Newton
    step (the default) each block is the least-squares fit, ridge :math:`\nu`, of what the
    earlier ones left on its mini-batch.

    Parameters
    ----------
    loss : {'squared'}, default='squared'"""\
        + _parameters_doc("3e-3", (
            "Chosen on the regression sets of the\n        Notes: with the other defaults "
            "1e-4 gives R² 0.63 on cpu_act standardised,\n        1e-3 0.78."), "1.0", (
            "For the gradient step: the\n        squared loss is 1-smooth in f and k(x, x) = 1: steps beyond 2 "
            "overshoot.")) + r"""
    fit_intercept : bool, default=True
        Fit :math:`b + f` with b the (weighted) mean of the targets of ``fit``, or of the
        first ``partial_fit`` call, and the blocks fit :math:`y - b`; ``False``: b = 0, the
        paper's model (the kernel's feature space must then carry the targets' mean: on
        cpu_act standardised, R² 0.09 instead of 0.70 with the previous defaults'
        gradient steps).

    Attributes
    ----------
    alpha_ : ndarray of shape (t_ * block_size,)
        The coefficients of the blocks, block j in entries ``j*B .. (j+1)*B - 1``.
    intercept_ : float
        b."""\
        + _ATTRIBUTES_DOC.format(eval_name="test_mse") + r"""

    See Also
    --------
    lsl_lib.kernels.KernelRidge : the exact solution of the same problem.

    Notes
    -----
    *Defaults*, chosen on real data: the Newton step, 32 blocks of 64 features, mini-batches
    of 2 048, :math:`\nu = 3 \cdot 10^{-3}`, the targets centred. Test R² with the
    defaults (``random_state=0``, 75 / 25 % splits; "scaled": ``StandardScaler`` on X), against
    scikit-learn's ``Ridge()`` and the exact kernel ridge regression
    :class:`lsl_lib.kernels.KernelRidge` with its defaults (on 8 000 training rows where
    there are more); each DSG fit takes 0.4-0.8 s:

    ===================  ===========  =======  ===========
    data set             DSG default  Ridge    KernelRidge
    ===================  ===========  =======  ===========
    cpu_act              0.872        0.721    0.872
    cpu_act, scaled      0.837        0.721    0.838
    cpu_small, scaled    0.894        0.710    0.904
    houses, scaled       0.728        0.627    0.733
    house_16H, scaled    0.430        0.278    0.520
    ===================  ===========  =======  ===========

    The previous defaults (the gradient step, 300 blocks of 16 features, mini-batches of 32,
    no intercept) gave 0.756 on cpu_act and 0.121 behind ``StandardScaler``.
""" + _NOTES_DOC + r"""

    References
    ----------
    Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
    gradients. NIPS 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.doubly_stochastic import DoublyStochasticRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(2000, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=2000)
    >>> reg = DoublyStochasticRegressor(random_state=0).fit(X, y)
    >>> round(reg.score(X, y), 2)
    0.98
    """


class DoublyStochasticClassifier(ScoreClassifierMixin, _BaseDoublyStochastic):
    __doc__ = CLASSIFIER_DOC

    _parameter_constraints = {**_BaseDoublyStochastic._parameter_constraints,
                              "loss": [StrOptions({"hinge", "log"})]}
    _eval_name = "test_error"
    _gradient_theta = 4.0

    def __init__(self, loss="hinge", n_iter=32, batch_size=2048, block_size=64,
                 kernel="gaussian", gamma="scale", nu=1e-4, theta=None, theta_prime=0.01,
                 step="newton", sampling="iid", record_every=None, backend="auto",
                 random_state=None, verbose=False):
        self.loss = loss
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.block_size = block_size
        self.kernel = kernel
        self.gamma = gamma
        self.nu = nu
        self.theta = theta
        self.theta_prime = theta_prime
        self.step = step
        self.sampling = sampling
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _binary_only(self):
        return False  # its own multiclass form: K outputs on shared blocks

    def _has_proba(self):
        return self.loss == "log"

    def _encode(self, y):
        """-1/+1 per class, shape (n, 1) for two classes (that of ``classes_[1]``)."""
        return self._binarizer.transform(y).astype(np.float64)

    def _set_classes(self, classes):
        self.classes_ = np.asarray(classes)
        check_n_classes(self.classes_, self.loss, ())
        self._binarizer = LabelBinarizer(neg_label=-1, pos_label=1).fit(self.classes_)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit by ``n_iter`` steps from f = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i`: the risk becomes
            :math:`\\sum_i s_i\\ell_i / \\sum_i s_i` and the mini-batches draw the examples in
            proportion to :math:`s_i` (:func:`lsl_lib.pegasos.weighted_sample_indices`).
            Integer weights give exactly the steps of the rows repeated :math:`s_i` times
            (zero: dropped) for the same ``n_iter``; ``gamma='scale'`` weighs the rows too.
            Non-integer weights need ``sampling='iid'``.
        eval_set : tuple (X_test, y_test), optional
            Held-out data whose error is recorded in ``history_['test_error']``.
        """
        X, y = self._prepare(X, y, reset=True)
        check_classification_targets(y)
        self._set_classes(np.unique(y))
        sample_weight = self._sample_weight(X, sample_weight)
        if sample_weight is not None:  # the weights may leave a single class
            check_n_classes(np.unique(y[sample_weight > 0]), self.loss, ())
        self._check_steps()
        return self._run(X, self._encode(y), self.n_iter, eval_set, continuing=False,
                         sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over (X, y): :math:`\\lceil n/|b| \\rceil` steps, continuing the step
        counter, the step sizes and the blocks (seeds) of the previous calls; a chunk
        shorter than ``batch_size`` makes one step of all its rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, required on the first call
            All the labels that will ever appear.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit` (``gamma='scale'`` is set by the first call's rows).
        """
        first = _check_partial_fit_first_call(self, classes)
        X, y = self._prepare(X, y, reset=first)
        if first:
            check_classification_targets(y)
            self._set_classes(self.classes_)
        self._check_labels(y)
        self._check_steps()
        return self._run(X, self._encode(y), -(-X.shape[0] // self._batch_size(X.shape[0])),
                         None, continuing=not first,
                         sample_weight=self._sample_weight(X, sample_weight))

    def _decision_scores(self, X):
        """:math:`f(x)`, shape (n,) for two classes (score of ``classes_[1]``), else (n, K)."""
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def _eval_metric(self, scores, y):
        return float(np.mean(labels_from_scores(scores, self.classes_) != y))


class DoublyStochasticRegressor(RegressorMixin, _BaseDoublyStochastic):
    __doc__ = REGRESSOR_DOC

    _parameter_constraints = {**_BaseDoublyStochastic._parameter_constraints,
                              "loss": [StrOptions({"squared"})],
                              "fit_intercept": ["boolean"]}
    _eval_name = "test_mse"
    _gradient_theta = 1.0

    def __init__(self, loss="squared", n_iter=32, batch_size=2048, block_size=64,
                 kernel="gaussian", gamma="scale", nu=3e-3, theta=None, theta_prime=0.01,
                 step="newton", fit_intercept=True, sampling="iid", record_every=None,
                 backend="auto", random_state=None, verbose=False):
        self.loss = loss
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.block_size = block_size
        self.kernel = kernel
        self.gamma = gamma
        self.nu = nu
        self.theta = theta
        self.theta_prime = theta_prime
        self.step = step
        self.fit_intercept = fit_intercept
        self.sampling = sampling
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _targets(self, y, sample_weight, first):
        """The targets the blocks fit, :math:`y - b` as a column; the first call sets the
        intercept b (the weighted mean of its targets, or 0 without ``fit_intercept``)."""
        if first:
            self.intercept_ = (float(np.average(y, weights=sample_weight))
                               if self.fit_intercept else 0.0)
        return (y.astype(np.float64) - self.intercept_)[:, None]

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit by ``n_iter`` steps from f = 0 (``sample_weight`` and ``eval_set`` as in
        :meth:`DoublyStochasticClassifier.fit`, recorded as ``history_['test_mse']``)."""
        X, y = self._prepare(X, y, reset=True)
        sample_weight = self._sample_weight(X, sample_weight)
        self._check_steps()
        return self._run(X, self._targets(y, sample_weight, True), self.n_iter, eval_set,
                         continuing=False, sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        """One pass over (X, y): :math:`\\lceil n/|b| \\rceil` steps, continuing the step
        counter, the step sizes and the blocks; the intercept is the first call's
        (``sample_weight`` as in :meth:`fit`)."""
        first = not hasattr(self, "t_")
        X, y = self._prepare(X, y, reset=first)
        sample_weight = self._sample_weight(X, sample_weight)
        self._check_steps()
        return self._run(X, self._targets(y, sample_weight, first),
                         -(-X.shape[0] // self._batch_size(X.shape[0])), None,
                         continuing=not first, sample_weight=sample_weight)

    def _set_model(self):
        super()._set_model()
        self.alpha_ = self.alpha_[:, 0]

    def predict(self, X):
        """:math:`b + f(x)`."""
        scores = self._scores(X)
        return self.intercept_ + scores[:, 0]

    def _eval_metric(self, scores, y):
        return float(np.mean((self.intercept_ + scores[:, 0] - y) ** 2))
