"""The compiled twins of doubly stochastic gradients (numba; the package's docstring pairs
each with its numpy reference in :mod:`lsl_lib.doubly_stochastic._reference`).

X arrives as its row view ``(data, cols, indptr)`` (:func:`lsl_lib._core.rows.row_view`),
dense or CSR alike, with d its number of columns."""
import math

import numpy as np

from lsl_lib._core.backend import jit
from lsl_lib._core.kernel_loops import GAUSSIAN, LAPLACIAN
from lsl_lib._core.loss_derivatives import LOG, score_derivative_numba
from lsl_lib._core.random import box_muller_numba, counter_uniforms_numba, stream_key_numba
from lsl_lib._core.rows import gather_dense_rows_numba, row_column_numba, row_span_numba
from lsl_lib._core.trig import cos_scaled_numba
from lsl_lib.doubly_stochastic._reference import _NEWTON_JITTER


@jit
def _block_frequencies_numba(seed, block, kernel_code, gamma, W, b):
    r"""Compiled :func:`~lsl_lib.doubly_stochastic.block_frequencies_numpy`: write block
    ``block``'s frequencies into W, of shape (d, B) (column c is :math:`\omega_c`), and
    its phases into b."""
    d, B = W.shape
    n = d * B
    key = stream_key_numba(seed, block)
    two_pi = 2.0 * math.pi
    u = np.empty(n + n % 2)  # an odd n reads one more uniform for its last Box-Muller pair
    counter_uniforms_numba(key, 0, u)
    if kernel_code == GAUSSIAN:  # the pair m gives the elements 2m (cos) and 2m+1 (sin)
        scale = math.sqrt(2.0 * gamma)
        for m in range((n + 1) // 2):
            first, second = box_muller_numba(u[2 * m], u[2 * m + 1], scale)
            e = 2 * m
            W[e % d, e // d] = first
            if e + 1 < n:
                W[(e + 1) % d, (e + 1) // d] = second
    else:
        scale = math.sqrt(gamma)
        for e in range(n):
            if kernel_code == LAPLACIAN:
                W[e % d, e // d] = gamma * math.tan(math.pi * (u[e] - 0.5))
            else:
                v = u[e] - 0.5
                sign = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
                W[e % d, e // d] = -scale * sign * math.log(1.0 - 2.0 * abs(v))
    counter_uniforms_numba(key, 2 * n, b)
    for c in range(B):
        b[c] = two_pi * b[c]


@jit
def _block_frequencies_numba_range(seed, first_block, kernel_code, gamma, W, b):
    """:func:`_block_frequencies_numba` for the blocks ``first_block + j`` into ``W[j]``
    (d, B) and ``b[j]``, j = 0 .. len(W) - 1 (the compiled fill of
    :class:`~lsl_lib.doubly_stochastic.FrequencyCache`)."""
    for j in range(W.shape[0]):
        _block_frequencies_numba(seed, first_block + j, kernel_code, gamma, W[j], b[j])


@jit
def _row_projections_numba(data, cols, indptr, d, x, W, out):
    r"""Write :math:`W^\top x` of one row x of X (its row view) into ``out``
    (length B), W of shape (d, B): the B projections accumulated side by side
    (independent sums: the loop over c vectorises); a CSR row reads its nonzeros only."""
    B = W.shape[1]
    for c in range(B):
        out[c] = 0.0
    start, stop = row_span_numba(indptr, d, x)
    for p in range(start, stop):
        value = data[p]
        coord = row_column_numba(cols, indptr, p, start)
        for c in range(B):
            out[c] += value * W[coord, c]


@jit
def _block_features_numba(data, cols, indptr, d, rows, Xb, W, b, phi):
    r"""Compiled :func:`~lsl_lib.doubly_stochastic.block_features` of the rows ``rows`` of X,
    the block's frequencies given, into ``phi`` (k, B, C order): the projections of a dense
    X by one product ``Xb @ W`` of its gathered rows
    (:func:`~lsl_lib._core.rows.gather_dense_rows_numba`; BLAS), of a CSR X row by row
    (:func:`_row_projections_numba`); then the phases, and the cosines of all k B entries
    in one loop (:func:`lsl_lib._core.trig.cos_scaled_numba`)."""
    k, B = phi.shape
    if Xb.shape[0] == k:
        np.dot(Xb, W, phi)
    else:
        for r in range(k):
            _row_projections_numba(data, cols, indptr, d, rows[r], W, phi[r])
    for r in range(k):
        for c in range(B):
            phi[r, c] += b[c]
    v = phi.reshape(k * B)
    cos_scaled_numba(v, math.sqrt(2.0 / B), v)


@jit
def _add_block_scores_numba(data, cols, indptr, d, rows, Xb, W, b, alpha_j, phi, scores,
                            out):
    r"""Add one block's :math:`\alpha_j^\top\phi_{\omega_j}(x)` to ``out[r]`` for each
    ``x = X[rows[r]]``: the features by :func:`_block_features_numba` into ``phi``, their
    product with :math:`\alpha_j` by BLAS into ``scores`` (as ``out``: (rows, K))."""
    _block_features_numba(data, cols, indptr, d, rows, Xb, W, b, phi)
    np.dot(phi, alpha_j, scores)
    for r in range(out.shape[0]):
        for q in range(out.shape[1]):
            out[r, q] += scores[r, q]


@jit
def _predict_blocks_numba(data, cols, indptr, d, rows, seed, alpha, first_block, kernel_code,
                          gamma, W_cache, b_cache, tile, out):
    r"""Compiled :func:`~lsl_lib.doubly_stochastic.predict_blocks`: add
    :math:`\sum_j \alpha_j^\top\phi_{\omega_j}(x)` over the blocks of ``alpha`` (block
    index ``first_block + j`` for ``alpha[j]``) to ``out[r]`` for each ``x = X[rows[r]]``.

    The frequencies of the blocks below ``len(W_cache)`` are read from the cache
    (:class:`~lsl_lib.doubly_stochastic.FrequencyCache`), the others regenerated once
    each. The rows are taken
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
            _block_frequencies_numba(seed, first_block + j, kernel_code, gamma, W, b)
        for start in range(0, n, phi.shape[0]):
            end = min(start + phi.shape[0], n)
            tile_rows = rows[start:end]
            Xb = gather_dense_rows_numba(data, indptr, d, tile_rows)
            for m in range(j, stop):  # alpha[m] is block first_block + m
                block = first_block + m
                if block < n_cached:
                    _add_block_scores_numba(data, cols, indptr, d, tile_rows, Xb,
                                            W_cache[block], b_cache[block], alpha[m],
                                            phi[:end - start], scores[:end - start],
                                            out[start:end])
                else:
                    _add_block_scores_numba(data, cols, indptr, d, tile_rows, Xb, W, b,
                                            alpha[m], phi[:end - start], scores[:end - start],
                                            out[start:end])
        j = stop


@jit
def _curvature_weights_numba(loss_code, y, s):
    """Compiled :func:`~lsl_lib.doubly_stochastic.curvature_weights_numpy` of one score (the
    same arithmetic)."""
    if loss_code == LOG:
        e = math.exp(-abs(y * s))
        return e / (1.0 + e) ** 2
    return 1.0


@jit
def _newton_block_numba(phi, f, Y, rows, loss_code, nu, step, out):
    """Compiled :func:`~lsl_lib.doubly_stochastic.newton_block_numpy` (with the curvature weights
    of :func:`_curvature_weights_numba`): write ``step`` times the Newton direction of the
    block with features ``phi`` (k, B), at scores ``f`` (k, K) of the rows ``rows``,
    into ``out`` (B, K)."""
    k, B = phi.shape
    A = np.empty((B, B))
    rhs = np.empty(B)
    epsilon = 0.0
    for r in range(k):
        for a in range(B):
            epsilon += phi[r, a] * phi[r, a]
    epsilon *= _NEWTON_JITTER / (k * B)
    for q in range(out.shape[1]):
        A[:, :] = 0.0
        rhs[:] = 0.0
        for r in range(k):
            y = Y[rows[r], q]
            h = _curvature_weights_numba(loss_code, y, f[r, q]) / k
            g = score_derivative_numba(loss_code, y, f[r, q], 0.0) / k
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
def _dsg_numba_chunk(data, cols, indptr, d, Y, alpha, indices, t0, seed, kernel_code, gamma,
                     theta, theta_prime, nu, loss_code, scores, newton, W_cache, b_cache):
    """The same steps as :func:`~lsl_lib.doubly_stochastic.dsg_numpy_chunk`, compiled (X
    dense or CSR); ``newton`` selects ``step='newton'``; ``W_cache``, ``b_cache`` hold the
    frequencies of the first blocks (:class:`~lsl_lib.doubly_stochastic.FrequencyCache`)."""
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
        _predict_blocks_numba(data, cols, indptr, d, rows, seed, alpha[:i - 1], 0,
                              kernel_code, gamma, W_cache, b_cache, k, f)
        Xb = gather_dense_rows_numba(data, indptr, d, rows)
        if i - 1 < W_cache.shape[0]:  # block i's features on the batch
            _block_features_numba(data, cols, indptr, d, rows, Xb, W_cache[i - 1],
                                  b_cache[i - 1], phi)
        else:
            _block_frequencies_numba(seed, i - 1, kernel_code, gamma, W, b)
            _block_features_numba(data, cols, indptr, d, rows, Xb, W, b, phi)
        shrink = 1.0 - gamma_i * nu
        for j in range(i - 1):
            for c in range(B):
                for q in range(K):
                    alpha[j, c, q] *= shrink
        scores[it] = f
        if newton:
            _newton_block_numba(phi, f, Y, rows, loss_code, nu, -gamma_i, alpha[i - 1])
            continue
        for c in range(B):
            for q in range(K):
                alpha[i - 1, c, q] = 0.0
        for r in range(k):
            for q in range(K):
                g = score_derivative_numba(loss_code, Y[rows[r], q], f[r, q], 0.0)
                if g != 0.0:
                    step = -(gamma_i / k) * g
                    for c in range(B):
                        alpha[i - 1, c, q] += step * phi[r, c]

