r"""BSGD's budget maintenance: removal, projection and merging, each a pair of paths.

When the support of BSGD holds :math:`m = B + 1` points, a maintenance changes the
weight vector :math:`w = \sum_j A_j \varphi(s_j)` (unscaled coefficients, see
:class:`~lsl_lib.budgeted.BudgetedSGDState`) by a small :math:`\Delta` to bring the
support back to B (Wang, Crammer and Vucetic 2012, section 4). All three start from the
support vector p of smallest :math:`\|A_p\|` and return the squared weight degradation
:math:`\|\Delta\|^2` of the unscaled coefficients:

- *removal*: drop p, :math:`\|\Delta\|^2 = \|A_p\|^2 k(s_p, s_p)`;
- *projection*: project :math:`A_p \varphi(s_p)` onto the span of the others R,
  :math:`A_R \mathrel{+}= K_{RR}^{-1} k_{Rp} A_p^\top`;
- *merging* (Gaussian kernel): replace p and the partner n that degrades w least by one
  point :math:`z = h s_p + (1-h) s_n`, h found by golden-section search.

Each reference below works on the state object and reads as the paper; its compiled twin
does the same arithmetic on the state's arrays and returns the new support size with
:math:`\|\Delta\|^2`. ``_bsgd_numba_chunk`` calls the twin that its ``strategy`` (one of
``_REMOVAL``, ``_PROJECTION``, ``_MERGING``) names.

========================================  =============================  ==========================
Wang, Crammer, Vucetic (2012), Alg. 1     reference                      compiled
========================================  =============================  ==========================
the smallest: :math:`\arg\min_j \|A_j\|`  :func:`smallest_norm_numpy`    ``_smallest_norm_numba``
its :math:`\|A_j\|^2`                     no reference: ``np.einsum``    ``_squared_norm_numba``
p leaves (the last slot moves into p)     :func:`remove_slot_numpy`      ``_remove_slot_numba``
removal: :math:`w - A_p\varphi(s_p)`      :func:`removal_numpy`          ``_removal_numba``
projection: :math:`A_R + c A_p^\top`      :func:`projection_numpy`       ``_projection_numba``
merging: :math:`\|A_z\|^2` at h           :func:`merge_objective_numpy`  ``_merge_objective_numba``
merging: golden-section search of h       :func:`golden_section_numpy`   ``_golden_section_numba``
merging: h of a partner (two brackets)    :func:`merge_position_numpy`   ``_merge_position_numba``
merging: the best partner n; z for both   :func:`merging_numpy`          ``_merging_numba``
one kernel value :math:`k(a, b)`          no reference: one entry        ``_kernel_value_numba``
projection's solve for :math:`c`          no reference: a solve          ``_cholesky_solve_numba``
========================================  =============================  ==========================

The references search each partner's h on its own (a scalar golden-section search); the
compiled twin searches all partners in lockstep, so that the exponentials of one step
run in one vectorised loop (:func:`lsl_lib._core.kernel_loops.exp_numba`). The
arithmetic of each candidate is the same on both paths, and ``_GOLDEN_TIE`` makes their
comparisons agree although the compiled ``exp`` differs from numpy's in the last bits.

References
----------
Wang, Crammer, Vucetic. Breaking the curse of kernelization: budgeted stochastic
gradient descent for large-scale SVM training. JMLR 13, 2012, 3103-3131.

Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
JMLR 14, 2013, 3813-3817.
"""
import math

import numpy as np
import scipy.linalg

from lsl_lib._core.backend import jit
from lsl_lib._core.kernel_loops import (
    GAUSSIAN,
    exp_numba,
    kernel_finish_numba,
    kernel_raw_numba,
)
from lsl_lib.kernels import kernel_matrix

__all__ = [
    "PROJECTION_JITTER", "count_kernel_evaluations",
    "golden_section_numpy", "merge_objective_numpy", "merge_position_numpy", "merging_numpy",
    "projection_numpy", "removal_numpy", "remove_slot_numpy", "smallest_norm_numpy",
]

_MAINTENANCES = ("removal", "projection", "merging")
#: The strategies' names inside compiled loops: ``_MAINTENANCES[_REMOVAL] == 'removal'``.
_REMOVAL, _PROJECTION, _MERGING = range(3)

#: Ridge added to the diagonal of :math:`K_{SS}` in the projection, relative to its mean
#: diagonal: it keeps the Cholesky factorisation defined when support vectors (nearly)
#: coincide, and the degradation recorded is the exact residual of the projection made.
PROJECTION_JITTER = 1e-8

#: Golden-section iterations of the merge: each shrinks the bracket by 0.618, so 24 bring
#: [0, 1] to width 1e-5 (the toolbox stops at 1e-4).
_GOLDEN_ITERATIONS = 24
_GOLDEN_RATIO = (math.sqrt(5.0) - 1.0) / 2.0
#: Relative gap below which two values of the merge objective count as equal (the smaller
#: h is then kept). Two support vectors with equal coefficients give a symmetric objective
#: with two maxima: without it, which one is found would depend on the last bit of ``exp``,
#: and the numpy and numba paths could merge into different points.
_GOLDEN_TIE = 1e-12


def count_kernel_evaluations(strategy, m):
    r"""Kernel values one budget maintenance computes, with m = B + 1 support vectors.

    Removal: :math:`k(s_p, s_p)`, 1. Projection: the distinct entries of the symmetric
    :math:`K_{RR}` of the m - 1 others, :math:`k_{Rp}` and :math:`k_{pp}`:
    :math:`(m-1)m/2 + (m-1) + 1`. Merging: :math:`k(s_p, s_j)` for every j, m. A step adds
    the m values of its example against the support (before it joins). The count is of
    the algorithm, not of a path: the numpy reference forms the whole :math:`K_{RR}` and
    the numba path half of it, and both add this number.
    """
    if strategy == _REMOVAL:
        return 1
    if strategy == _PROJECTION:
        return (m - 1) * m // 2 + m
    return m


# ---- the numpy reference ----

def smallest_norm_numpy(A, m):
    r"""The support vector of smallest :math:`\|A_j\|` (the first on ties)."""
    return int(np.argmin(np.einsum("ij,ij->i", A[:m], A[:m])))


def remove_slot_numpy(state, p):
    """Drop support vector p: the last one takes its slot."""
    last = state.m - 1
    if state.source[p] >= 0:
        state.position[state.source[p]] = -1
    if p != last:
        state.sv[p] = state.sv[last]
        state.A[p] = state.A[last]
        state.source[p] = state.source[last]
        if state.source[p] >= 0:
            state.position[state.source[p]] = p
    state.A[last] = 0.0
    state.source[last] = -1
    state.m = last


def removal_numpy(state, kernel, gamma, degree, coef0):
    r"""Remove the smallest support vector p: :math:`\|\Delta\|^2 = \|A_p\|^2 k(s_p, s_p)`."""
    p = smallest_norm_numpy(state.A, state.m)
    k_pp = kernel_matrix(state.sv[[p]], None, kernel, gamma, degree, coef0)[0, 0]
    degradation = state.A[p] @ state.A[p] * k_pp
    remove_slot_numpy(state, p)
    return degradation


def projection_numpy(state, kernel, gamma, degree, coef0):
    r"""Project the smallest support vector p onto the span of the others R.

    :math:`c = (K_{RR} + \epsilon I)^{-1} k_{Rp}` (Cholesky), :math:`A_R \mathrel{+}= c A_p^\top`,
    and :math:`\|\Delta\|^2 = \|A_p\|^2 (k_{pp} - 2 k_{Rp}^\top c + c^\top K_{RR} c)
    = \|A_p\|^2 (k_{pp} - k_{Rp}^\top c - \epsilon\|c\|^2)`.
    """
    m = state.m
    p = smallest_norm_numpy(state.A, m)
    rest = np.array([j for j in range(m) if j != p])
    K = kernel_matrix(state.sv[rest], None, kernel, gamma, degree, coef0)
    k = kernel_matrix(state.sv[rest], state.sv[[p]], kernel, gamma, degree, coef0)[:, 0]
    k_pp = kernel_matrix(state.sv[[p]], None, kernel, gamma, degree, coef0)[0, 0]
    eps = PROJECTION_JITTER * np.trace(K) / len(rest)
    c = scipy.linalg.solve(K + eps * np.eye(len(rest)), k, assume_a="pos")
    a_p = state.A[p].copy()
    state.A[rest] += np.outer(c, a_p)
    degradation = a_p @ a_p * (k_pp - k @ c - eps * (c @ c))
    remove_slot_numpy(state, p)
    return degradation


def merge_objective_numpy(h, norm_m, norm_n, cross, log_k):
    r""":math:`\|A_z\|^2` for :math:`z = h s_m + (1-h) s_n`, Gaussian kernel:

    :math:`A_z = A_m k_{mn}^{(1-h)^2} + A_n k_{mn}^{h^2}`, so
    :math:`\|A_z\|^2 = \|A_m\|^2 a^2 + 2 A_m^\top A_n\, a b + \|A_n\|^2 b^2`
    (``log_k`` is :math:`\log k_{mn}`; arrays are taken elementwise)."""
    a = np.exp(log_k * (1.0 - h) * (1.0 - h))
    b = np.exp(log_k * h * h)
    return norm_m * a * a + 2.0 * cross * a * b + norm_n * b * b


def golden_section_numpy(lo, hi, norm_m, norm_n, cross, log_k):
    r"""The h in [lo, hi] maximising :func:`merge_objective_numpy` for one partner.

    Golden-section search: keep two inner points p < q; if :math:`f(p) \ge f(q)` (to a
    relative ``_GOLDEN_TIE``) the maximum is in [lo, q], else in [p, hi]; one new
    evaluation per iteration, ``_GOLDEN_ITERATIONS`` of them. Returns the middle of the
    final bracket.
    """
    p = hi - _GOLDEN_RATIO * (hi - lo)
    q = lo + _GOLDEN_RATIO * (hi - lo)
    fp = merge_objective_numpy(p, norm_m, norm_n, cross, log_k)
    fq = merge_objective_numpy(q, norm_m, norm_n, cross, log_k)
    for _ in range(_GOLDEN_ITERATIONS):
        if fp >= (1.0 - _GOLDEN_TIE) * fq:  # the maximum is in [lo, q]: p becomes q
            hi, q, fq = q, p, fp
            p = hi - _GOLDEN_RATIO * (hi - lo)
            fp = merge_objective_numpy(p, norm_m, norm_n, cross, log_k)
        else:  # in [p, hi]: q becomes p
            lo, p, fp = p, q, fq
            q = lo + _GOLDEN_RATIO * (hi - lo)
            fq = merge_objective_numpy(q, norm_m, norm_n, cross, log_k)
    return 0.5 * (lo + hi)


def merge_position_numpy(norm_m, norm_n, cross, log_k):
    r"""The merge position h of one partner: the best :math:`\|A_z\|^2`.

    With :math:`A_m^\top A_n \ge 0` every term of :func:`merge_objective_numpy` decreases away from
    [0, 1], so h is searched there (the paper's case of two coefficients of one sign).
    Otherwise the best z may also lie beyond the support vector of larger coefficient,
    h in [1, 6] or [-5, 0] (as the BudgetedSVM toolbox searches; in the multiclass case
    the middle can still win): both brackets are searched and the better h kept.
    """
    h = golden_section_numpy(0.0, 1.0, norm_m, norm_n, cross, log_k)
    if cross < 0:
        lo = 1.0 if norm_m >= norm_n else -5.0
        h_out = golden_section_numpy(lo, lo + 5.0, norm_m, norm_n, cross, log_k)
        if (merge_objective_numpy(h_out, norm_m, norm_n, cross, log_k)
                > (1.0 + _GOLDEN_TIE) * merge_objective_numpy(h, norm_m, norm_n, cross, log_k)):
            return h_out
    return h


def merging_numpy(state, gamma):
    r"""Merge the smallest support vector p with the partner n that degrades w least.

    For each partner, h by :func:`merge_position_numpy`, then
    :math:`\|\Delta\|^2 = \|A_p\|^2 + \|A_n\|^2 + 2 k_{pn} A_p^\top A_n - \|A_z\|^2`
    (Gaussian kernel: :math:`k(s, s) = 1`, and :math:`A_z` is the projection of
    :math:`A_p\varphi(s_p) + A_n\varphi(s_n)` onto :math:`\varphi(z)`). The merged point
    takes slot p, and n is removed.
    """
    m = state.m
    p = smallest_norm_numpy(state.A, m)
    sv, A = state.sv[:m], state.A[:m]
    log_k = -gamma * ((sv - sv[p]) ** 2).sum(axis=1)
    norm_p, norms, cross = A[p] @ A[p], np.einsum("ij,ij->i", A, A), A @ A[p]
    h = np.array([merge_position_numpy(norm_p, norms[j], cross[j], log_k[j])
                  for j in range(m)])
    best = merge_objective_numpy(h, norm_p, norms, cross, log_k)
    degradations = norm_p + norms + 2.0 * np.exp(log_k) * cross - best
    degradations[p] = np.inf
    n = int(np.argmin(degradations))
    a, b = math.exp(log_k[n] * (1.0 - h[n]) ** 2), math.exp(log_k[n] * h[n] ** 2)
    z = h[n] * sv[p] + (1.0 - h[n]) * sv[n]
    A_z = A[p] * a + A[n] * b
    if state.source[p] >= 0:
        state.position[state.source[p]] = -1
    state.sv[p], state.A[p], state.source[p] = z, A_z, -1
    remove_slot_numpy(state, n)
    return degradations[n]


# ---- the numba fast path: the same arithmetic, compiled ----

@jit
def _squared_norm_numba(A, j):
    r""":math:`\|A_j\|^2`, the squared norm of row j (a sum in column order)."""
    s = 0.0
    for c in range(A.shape[1]):
        s += A[j, c] * A[j, c]
    return s


@jit
def _smallest_norm_numba(A, m):
    best, p = np.inf, 0
    for j in range(m):
        s = _squared_norm_numba(A, j)
        if s < best:
            best, p = s, j
    return p


@jit
def _remove_slot_numba(sv, svT, A, source, position, m, p):
    last = m - 1
    if source[p] >= 0:
        position[source[p]] = -1
    if p != last:
        sv[p, :] = sv[last, :]
        svT[:, p] = svT[:, last]
        A[p, :] = A[last, :]
        source[p] = source[last]
        if source[p] >= 0:
            position[source[p]] = p
    A[last, :] = 0.0
    source[last] = -1
    return last


@jit
def _kernel_value_numba(kernel_code, a, b, gamma, degree, coef0, out):
    out[0] = kernel_raw_numba(kernel_code, a, b, gamma)
    kernel_finish_numba(kernel_code, out[:1], gamma, degree, coef0)
    return out[0]


@jit
def _cholesky_solve_numba(M, b):
    """Solve M x = b for symmetric positive definite M: Cholesky, then two triangular solves."""
    L = np.linalg.cholesky(M)
    n = b.shape[0]
    x = b.copy()
    for i in range(n):
        s = x[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    return x


@jit
def _removal_numba(sv, svT, A, source, position, m, kernel_code, gamma, degree, coef0):
    r""":func:`removal_numpy` on the state's arrays; returns the new m and
    :math:`\|\Delta\|^2`."""
    p = _smallest_norm_numba(A, m)
    k_pp = _kernel_value_numba(kernel_code, sv[p], sv[p], gamma, degree, coef0, np.empty(1))
    degradation = _squared_norm_numba(A, p) * k_pp
    return _remove_slot_numba(sv, svT, A, source, position, m, p), degradation


@jit
def _projection_numba(sv, svT, A, source, position, m, kernel_code, gamma, degree, coef0):
    r""":func:`projection_numpy` on the state's arrays (the lower half of the symmetric
    :math:`K_{RR}` computed, then mirrored); returns the new m and :math:`\|\Delta\|^2`."""
    p = _smallest_norm_numba(A, m)
    norm_p = _squared_norm_numba(A, p)
    rest = np.empty(m - 1, dtype=np.int64)
    r = 0
    for j in range(m):
        if j != p:
            rest[r] = j
            r += 1
    K = np.empty((m - 1, m - 1))
    k = np.empty(m - 1)
    trace = 0.0
    for a in range(m - 1):
        for b in range(a + 1):
            K[a, b] = kernel_raw_numba(kernel_code, sv[rest[a]], sv[rest[b]], gamma)
        kernel_finish_numba(kernel_code, K[a, :a + 1], gamma, degree, coef0)
        for b in range(a):
            K[b, a] = K[a, b]
        trace += K[a, a]
        k[a] = kernel_raw_numba(kernel_code, sv[rest[a]], sv[p], gamma)
    kernel_finish_numba(kernel_code, k, gamma, degree, coef0)
    k_pp = _kernel_value_numba(kernel_code, sv[p], sv[p], gamma, degree, coef0, np.empty(1))
    eps = PROJECTION_JITTER * trace / (m - 1)
    for a in range(m - 1):
        K[a, a] += eps
    coef = _cholesky_solve_numba(K, k)
    kc, cc = 0.0, 0.0
    for a in range(m - 1):
        kc += k[a] * coef[a]
        cc += coef[a] * coef[a]
        for c in range(A.shape[1]):
            A[rest[a], c] += coef[a] * A[p, c]
    degradation = norm_p * (k_pp - kc - eps * cc)
    return _remove_slot_numba(sv, svT, A, source, position, m, p), degradation


@jit
def _merge_objective_numba(h, norm_m, norm_n, cross, log_k, out, a, b):
    """:func:`merge_objective_numpy` for arrays of partners, the exponentials vectorised
    (:func:`lsl_lib._core.kernel_loops.exp_numba`); ``a`` and ``b`` are scratch."""
    n = h.shape[0]
    for j in range(n):
        a[j] = log_k[j] * (1.0 - h[j]) * (1.0 - h[j])
        b[j] = log_k[j] * h[j] * h[j]
    exp_numba(a)
    exp_numba(b)
    for j in range(n):
        out[j] = norm_m * a[j] * a[j] + 2.0 * cross[j] * a[j] * b[j] + norm_n[j] * b[j] * b[j]


@jit
def _golden_section_numba(lo, hi, norm_m, norm_n, cross, log_k):
    """:func:`golden_section_numpy` for all partners in lockstep (``lo`` and ``hi`` are
    overwritten): one vectorised evaluation of every partner's new point per iteration."""
    n = lo.shape[0]
    p = hi - _GOLDEN_RATIO * (hi - lo)
    q = lo + _GOLDEN_RATIO * (hi - lo)
    fp, fq, new, f_new = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    left = np.empty(n, dtype=np.bool_)
    a, b = np.empty(n), np.empty(n)
    _merge_objective_numba(p, norm_m, norm_n, cross, log_k, fp, a, b)
    _merge_objective_numba(q, norm_m, norm_n, cross, log_k, fq, a, b)
    for _ in range(_GOLDEN_ITERATIONS):
        for j in range(n):
            left[j] = fp[j] >= (1.0 - _GOLDEN_TIE) * fq[j]
            if left[j]:
                hi[j] = q[j]
                new[j] = hi[j] - _GOLDEN_RATIO * (hi[j] - lo[j])
            else:
                lo[j] = p[j]
                new[j] = lo[j] + _GOLDEN_RATIO * (hi[j] - lo[j])
        _merge_objective_numba(new, norm_m, norm_n, cross, log_k, f_new, a, b)
        for j in range(n):
            if left[j]:
                q[j], fq[j] = p[j], fp[j]
                p[j], fp[j] = new[j], f_new[j]
            else:
                p[j], fp[j] = q[j], fq[j]
                q[j], fq[j] = new[j], f_new[j]
    return 0.5 * (lo + hi)


@jit
def _merge_position_numba(norm_m, norm_n, cross, log_k):
    r""":func:`merge_position_numpy` for all partners: the h of each and its
    :math:`\|A_z\|^2`. The outer bracket is searched for the partners with
    :math:`A_m^\top A_n < 0` only, in lockstep."""
    m = norm_n.shape[0]
    h = _golden_section_numba(np.zeros(m), np.ones(m), norm_m, norm_n, cross, log_k)
    best = np.empty(m)
    _merge_objective_numba(h, norm_m, norm_n, cross, log_k, best, np.empty(m), np.empty(m))
    opposed = np.flatnonzero(cross < 0)
    n_opposed = opposed.shape[0]
    if n_opposed > 0:
        lo = np.empty(n_opposed)
        for o in range(n_opposed):
            lo[o] = 1.0 if norm_m >= norm_n[opposed[o]] else -5.0
        h_out = _golden_section_numba(lo, lo + 5.0, norm_m, norm_n[opposed], cross[opposed],
                                      log_k[opposed])
        f_out = np.empty(n_opposed)
        _merge_objective_numba(h_out, norm_m, norm_n[opposed], cross[opposed], log_k[opposed],
                               f_out, np.empty(n_opposed), np.empty(n_opposed))
        for o in range(n_opposed):
            if f_out[o] > (1.0 + _GOLDEN_TIE) * best[opposed[o]]:
                h[opposed[o]], best[opposed[o]] = h_out[o], f_out[o]
    return h, best


@jit
def _merging_numba(sv, svT, A, source, position, m, gamma):
    r""":func:`merging_numpy` on the state's arrays (Gaussian kernel); returns the new m
    and :math:`\|\Delta\|^2`."""
    p = _smallest_norm_numba(A, m)
    norm_p = _squared_norm_numba(A, p)
    log_k, norms, cross = np.empty(m), np.empty(m), np.empty(m)
    for j in range(m):
        log_k[j] = -gamma * kernel_raw_numba(GAUSSIAN, sv[j], sv[p], gamma)
        norms[j], cross[j] = 0.0, 0.0
        for c in range(A.shape[1]):
            norms[j] += A[j, c] * A[j, c]
            cross[j] += A[j, c] * A[p, c]
    h, best = _merge_position_numba(norm_p, norms, cross, log_k)
    k = log_k.copy()
    exp_numba(k)
    best_degradation, n = np.inf, -1
    for j in range(m):
        degradation = norm_p + norms[j] + 2.0 * k[j] * cross[j] - best[j]
        if j != p and degradation < best_degradation:
            best_degradation, n = degradation, j
    ab = np.array([log_k[n] * (1.0 - h[n]) ** 2, log_k[n] * h[n] ** 2])
    exp_numba(ab)
    for f in range(sv.shape[1]):
        sv[p, f] = h[n] * sv[p, f] + (1.0 - h[n]) * sv[n, f]
        svT[f, p] = sv[p, f]
    for c in range(A.shape[1]):
        A[p, c] = A[p, c] * ab[0] + A[n, c] * ab[1]
    if source[p] >= 0:
        position[source[p]] = -1
    source[p] = -1
    return _remove_slot_numba(sv, svT, A, source, position, m, n), best_degradation
