r"""The compiled kernel engine: kernel values, columns and an LRU cache of rows, in numba.

Kernel Pegasos, the online kernel learner and the budgeted kernel machines evaluate
kernels one pair, one row or one column at a time inside their compiled loops. These
building blocks give them the values of :func:`lsl_lib.kernels.kernel_matrix` (their numpy
reference, to rounding) from dense rows, or from CSR rows for the inner-product kernels
(one row scattered into a dense buffer, then a gather over the non-zeros of each other
row); ``row_kernel_*`` take either, as a row view (:mod:`lsl_lib._core.rows`).

=============================  ================================  ==================================
formula                        reference                         compiled
=============================  ================================  ==================================
k(a, b): raw part, finish      ``kernels.kernel_matrix``         :func:`kernel_raw_numba`,
                                                                 :func:`kernel_finish_numba`
K(:, x) = (k(x_j, x))_j        ``kernels.kernel_matrix``         :func:`kernel_column_numba`
the same from CSR rows         ``kernels.kernel_matrix`` (CSR)   :func:`sparse_kernel_raw_numba`,
                                                                 :func:`sparse_kernel_column_numba`
the same from a row view       ``kernels.kernel_matrix``         :func:`row_kernel_raw_numba`,
                                                                 :func:`row_kernel_column_numba`
exp(z) in place                ``numpy.exp``                     :func:`exp_numba`
the LRU cache's slot           no reference: bookkeeping         :func:`take_lru_slot_numba`
=============================  ================================  ==================================

``kernels`` is :mod:`lsl_lib.kernels`. The names carry no leading underscore (this
package is private) but pair as the topic modules' do: ``<name>_numba``.
"""
import math

import numpy as np
import scipy.sparse as sp

from lsl_lib._core.backend import jit
from lsl_lib._core.rows import row_clear_numba, row_to_dense_numba

KERNELS = ("linear", "polynomial", "gaussian", "laplacian", "cauchy")
# Integer codes of the kernels inside compiled loops.
LINEAR, POLYNOMIAL, GAUSSIAN, LAPLACIAN, CAUCHY = range(5)

#: The kernels that are functions of inner products: computed from the product
#: :math:`XY^\top`, so X (and Y) may be sparse.
INNER_PRODUCT_KERNELS = ("linear", "polynomial", "gaussian")


# exp by Cody-Waite range reduction: x = k ln2 + r, |r| <= ln2 / 2, exp(x) = 2^k exp(r)
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_INV_LN2 = 1.4426950408889634


@jit
def exp_numba(z):
    r"""``z[:] = exp(z)`` in a loop the compiler vectorises (libm's ``exp`` is not).

    Range reduction :math:`x = k\ln 2 + r` with :math:`|r| \le \ln 2/2` (ln 2 split in a
    high and a low part, Cody and Waite 1980), :math:`e^r` by its Taylor polynomial of
    degree 13 (remainder below 2e-16), and :math:`2^k` built from its bits. Within
    1e-15 relative of ``np.exp`` on [-708, 709]; arguments are clamped to that range.
    """
    n = z.shape[0]
    powers = np.empty(n, dtype=np.int64)
    for j in range(n):
        x = min(max(z[j], -708.0), 709.0)
        k = math.floor(x * _INV_LN2 + 0.5)
        r = (x - k * _LN2_HI) - k * _LN2_LO
        z[j] = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
            1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (1 / 3628800 + r * (
                1 / 39916800 + r * (1 / 479001600 + r / 6227020800))))))))))))
        powers[j] = (np.int64(k) + 1023) << 52  # the bits of the float 2^k
    scale = powers.view(np.float64)
    for j in range(n):
        z[j] *= scale[j]


@jit
def kernel_raw_numba(kernel_code, a, b, gamma):
    """The part of k(a, b) that needs both vectors: the inner product (linear,
    polynomial), the squared or L1 distance (Gaussian, Laplacian), or
    ``prod(1 + gamma diff^2)`` (Cauchy). :func:`kernel_finish_numba` turns it into k."""
    s = 1.0 if kernel_code == CAUCHY else 0.0
    for j in range(a.shape[0]):
        if kernel_code == LINEAR or kernel_code == POLYNOMIAL:
            s += a[j] * b[j]
        elif kernel_code == GAUSSIAN:
            s += (a[j] - b[j]) * (a[j] - b[j])
        elif kernel_code == LAPLACIAN:
            s += abs(a[j] - b[j])
        else:
            s *= 1.0 + gamma * (a[j] - b[j]) * (a[j] - b[j])
    return s


@jit
def kernel_finish_numba(kernel_code, out, gamma, degree, coef0):
    """Turn raw values (see :func:`kernel_raw_numba`) into kernel values, in place and in
    loops the compiler vectorises (the exponential by :func:`exp_numba`)."""
    if kernel_code == POLYNOMIAL:
        for j in range(out.shape[0]):
            out[j] = (out[j] + coef0) ** degree
    elif kernel_code == GAUSSIAN or kernel_code == LAPLACIAN:
        for j in range(out.shape[0]):
            out[j] *= -gamma
        exp_numba(out)
    elif kernel_code == CAUCHY:
        for j in range(out.shape[0]):
            out[j] = 1.0 / out[j]


@jit
def kernel_column_numba(kernel_code, Xt, x, gamma, degree, coef0, out):
    """``out[j] = k(X[j], x)`` for every row of X, given as ``Xt = X.T`` (C-ordered).

    The loops run along the n examples, so the compiler vectorises them; raw values
    as in :func:`kernel_raw_numba`, then :func:`kernel_finish_numba`. Same values as
    :func:`lsl_lib.kernels.kernel_matrix` to rounding. The choice of kernel stands outside the loops
    (one loop nest per kernel): with the test inside the inner loop, the compiled
    column took two to three times as long.
    """
    d, n = Xt.shape
    out[:] = 1.0 if kernel_code == CAUCHY else 0.0
    if kernel_code == LINEAR or kernel_code == POLYNOMIAL:
        for k in range(d):
            xk = x[k]
            for j in range(n):
                out[j] += Xt[k, j] * xk
    elif kernel_code == GAUSSIAN:
        for k in range(d):
            xk = x[k]
            for j in range(n):
                out[j] += (Xt[k, j] - xk) * (Xt[k, j] - xk)
    elif kernel_code == LAPLACIAN:
        for k in range(d):
            xk = x[k]
            for j in range(n):
                out[j] += abs(Xt[k, j] - xk)
    else:
        for k in range(d):
            xk = x[k]
            for j in range(n):
                out[j] *= 1.0 + gamma * (Xt[k, j] - xk) * (Xt[k, j] - xk)
    kernel_finish_numba(kernel_code, out, gamma, degree, coef0)


def check_sparse_kernel(X, kernel):
    """Raise a TypeError if X is sparse and ``kernel`` is not computed from inner products
    (as :func:`lsl_lib.kernels.kernel_matrix` does)."""
    if sp.issparse(X) and kernel not in INNER_PRODUCT_KERNELS:
        raise TypeError(f"sparse X is supported with kernel in {INNER_PRODUCT_KERNELS} "
                        f"(computed from inner products); kernel={kernel!r} needs it dense.")


@jit
def sparse_kernel_raw_numba(kernel_code, x_data, x_indices, x_indptr, x_sq_norms, j, buffer,
                            sq_norm):
    r"""The raw value (as :func:`kernel_raw_numba`) between the row held in ``buffer``
    (scattered by :func:`~lsl_lib._core.rows.row_to_dense_numba`; squared norm
    ``sq_norm``) and CSR row j.

    The inner product is a gather over row j's non-zeros, with no branch; the
    Gaussian's squared distance is :math:`\|a\|^2 + \|b\|^2 - 2\langle a, b\rangle`,
    rounded at >= 0, as in :func:`lsl_lib.kernels.kernel_matrix`. One row is scattered once and then
    met with many (a kernel row or column): O(nnz(a)) for the scatter, then
    O(nnz(b)) per pair; merging the two sorted index lists would cost
    O(nnz(a) + nnz(b)) per pair, with a data-dependent branch at every step.
    """
    s = 0.0
    for p in range(x_indptr[j], x_indptr[j + 1]):
        s += buffer[x_indices[p]] * x_data[p]
    if kernel_code == GAUSSIAN:
        return max(sq_norm + x_sq_norms[j] - 2.0 * s, 0.0)
    return s


@jit
def sparse_kernel_column_numba(kernel_code, x_data, x_indices, x_indptr, x_sq_norms, i, gamma,
                               degree, coef0, buffer, out):
    """``out[j] = k(X[j], X[i])`` for every row of a CSR X (inner-product kernels):
    row i scattered once, then one pass over the non-zeros of X (a CSR
    matrix-vector product), then :func:`kernel_finish_numba`."""
    row_to_dense_numba(x_data, x_indices, x_indptr, i, buffer)
    for j in range(out.shape[0]):
        out[j] = sparse_kernel_raw_numba(kernel_code, x_data, x_indices, x_indptr, x_sq_norms, j,
                                         buffer, x_sq_norms[i])
    row_clear_numba(x_indices, x_indptr, i, buffer)
    kernel_finish_numba(kernel_code, out, gamma, degree, coef0)


@jit
def row_kernel_raw_numba(kernel_code, data, indices, indptr, sq_norms, x, i, rows, gamma, out):
    """``out[k]``: the raw value (as :func:`kernel_raw_numba`) between row i of a row view
    (:func:`lsl_lib._core.rows.row_view`), given dense as ``x``
    (:func:`lsl_lib._core.rows.row_to_dense_numba`), and row ``rows[k]``: from two dense
    rows, or, for CSR X (inner-product kernels), by :func:`sparse_kernel_raw_numba` with
    the squared row norms ``sq_norms``. The format is tested once, outside the loop over
    the rows: with the test inside, the dense loop took 1.5 times as long."""
    if indptr.shape[0] == 0:
        d = x.shape[0]
        for k in range(rows.shape[0]):
            j = rows[k]
            out[k] = kernel_raw_numba(kernel_code, x, data[j * d:j * d + d], gamma)
    else:
        for k in range(rows.shape[0]):
            out[k] = sparse_kernel_raw_numba(kernel_code, data, indices, indptr, sq_norms,
                                             rows[k], x, sq_norms[i])


@jit
def row_kernel_column_numba(kernel_code, data, indices, indptr, sq_norms, Xt, i, gamma, degree,
                            coef0, buffer, out):
    """``out[j] = k(X[j], X[i])`` for every row of a row view
    (:func:`lsl_lib._core.rows.row_view`): dense X by :func:`kernel_column_numba` on
    ``Xt = X.T`` (C-ordered, so that its loops run along the n examples), CSR X
    (inner-product kernels) by :func:`sparse_kernel_column_numba` with the squared row
    norms ``sq_norms`` and ``buffer``, d zeros."""
    if indptr.shape[0] == 0:
        d = Xt.shape[0]
        kernel_column_numba(kernel_code, Xt, data[i * d:i * d + d], gamma, degree, coef0, out)
    else:
        sparse_kernel_column_numba(kernel_code, data, indices, indptr, sq_norms, i, gamma, degree,
                                   coef0, buffer, out)


@jit
def take_lru_slot_numba(i, slot_of, owner, last_used):
    """Give example ``i`` the least recently used cache slot and return it.

    The compiled caches of kernel Pegasos and the online kernel learner keep
    ``owner[s]`` (the example in slot s, -1 if empty), ``slot_of[i]`` (the slot of
    example i, -1 if not cached) and ``last_used[s]`` (the clock at the last use,
    lower than any clock value while the slot is empty). The slot with the smallest
    ``last_used`` (the first one on ties, so the first empty slot while there is one)
    is taken, its previous owner evicted; the caller fills it and stamps ``last_used``.
    """
    s = 0
    for k in range(1, last_used.shape[0]):
        if last_used[k] < last_used[s]:
            s = k
    if owner[s] >= 0:
        slot_of[owner[s]] = -1
    owner[s] = i
    slot_of[i] = s
    return s
