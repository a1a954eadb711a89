r"""The row view: X as every compiled loop reads it, dense or CSR alike.

:func:`row_view` turns a dense or sparse X into three arrays ``(data, indices, indptr)``:

- CSR X: its arrays, float64 ``data``, canonical (sorted columns, no duplicate entries,
  so that a row scattered into a buffer is the row);
- dense X: ``data = X.ravel()`` (C order, float64), row i being ``data[i*d:(i+1)*d]``,
  and empty ``indices`` and ``indptr``.

**The one sentinel: an empty** ``indptr`` **means dense.** Only the helpers below test
it; a compiled loop reads rows through them and never branches on the format, as
lightning's ``RowDataset.get_row_ptr`` and scikit-learn's ``sparse_dot``/``sparse_axpy``
let their solvers do. The number of columns d is not in the view: each loop has it
from its own arrays (the length of ``w``, of a buffer).

**Index dtype: uint32** while the number of stored values and of columns are below
:math:`2^{32}` (numba then skips its negative-index test, 15 % of a dual CD epoch, and
reads half the memory of 64-bit indices), **else int64** (not uint64: numba types a
mix of uint64 and int64 as float64, which no loop bound accepts).

The helpers keep the dense path a contiguous loop with no index array, which the
compiler vectorises, and numba inlines them into the loop that calls them
(``jit(inline=True)``: as calls, they made Pegasos' multiclass chunk about 1.3x slower;
benchmarks/README.md, "The row view of X"). A loop that reads one row against many
vectors walks the row itself with :func:`row_span_numba` and :func:`row_column_numba`
rather than slice a view per vector.

===================================  ==============================================
helper                               what it gives of row :math:`x_i`
===================================  ==============================================
:func:`row_dot_numba`                :math:`\langle x_i, v\rangle`
:func:`row_axpy_numba`               :math:`v \leftarrow v + c\,x_i`
:func:`row_span_numba`,              the positions ``p`` of its stored values in
:func:`row_column_numba`             ``data`` and the column of each (fused loops)
:func:`row_to_dense_numba`           :math:`x_i` as a dense vector (CSR: into a buffer)
:func:`row_clear_numba`              that buffer zeroed again, O(nnz(x_i))
:func:`gather_dense_rows_numba`      rows of a dense X side by side, for one BLAS product
===================================  ==============================================
"""
import numpy as np
import scipy.sparse as sp

from lsl_lib._core.backend import jit


def _as_index(a, largest):
    """``a`` (non-negative integers) as the index dtype: a view when the item size allows."""
    dtype = np.dtype(np.uint32 if largest < 2 ** 32 else np.int64)
    return a.view(dtype) if a.dtype.itemsize == dtype.itemsize else a.astype(dtype)


def row_view(X):
    """``(data, indices, indptr)``: a dense or sparse X as the compiled loops read it.

    See the module docstring for the layout, the sentinel (empty ``indptr``: dense) and
    the index dtype. No copy when X is already C-ordered float64 (dense) or canonical
    float64 CSR with 32-bit indices (viewed as unsigned).
    """
    if not sp.issparse(X):
        empty = np.empty(0, dtype=np.uint32)
        return np.ascontiguousarray(X, dtype=np.float64).ravel(), empty, empty
    X = sp.csr_matrix(X, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    largest = max(X.nnz, X.shape[1])
    return X.data, _as_index(X.indices, largest), _as_index(X.indptr, largest)


@jit(inline=True)
def row_span_numba(indptr, d, i):
    """``(start, stop)``: row i's values are ``data[start:stop]`` (d columns if dense)."""
    if indptr.shape[0] == 0:
        return i * d, i * d + d
    return np.int64(indptr[i]), np.int64(indptr[i + 1])


@jit(inline=True)
def row_column_numba(indices, indptr, p, start):
    """The column of ``data[p]``, p in the span of a row that starts at ``start``."""
    if indptr.shape[0] == 0:
        return p - start
    return np.int64(indices[p])


@jit(inline=True)
def row_dot_numba(data, indices, indptr, i, v):
    r""":math:`\langle x_i, v\rangle`, v dense of length d."""
    s = 0.0
    if indptr.shape[0] == 0:  # contiguous row: no index array, so the loop vectorises
        d = v.shape[0]
        start = i * d
        for j in range(d):
            s += data[start + j] * v[j]
    else:
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * v[indices[p]]
    return s


@jit(inline=True)
def row_axpy_numba(data, indices, indptr, i, c, v):
    r""":math:`v \leftarrow v + c\,x_i` in place, v dense of length d."""
    if indptr.shape[0] == 0:
        d = v.shape[0]
        start = i * d
        for j in range(d):
            v[j] += c * data[start + j]
    else:
        for p in range(indptr[i], indptr[i + 1]):
            v[indices[p]] += c * data[p]


@jit(inline=True)
def row_to_dense_numba(data, indices, indptr, i, buffer):
    """Row i as a dense vector of length ``d = buffer.shape[0]``: a view of ``data``
    (dense X), or ``buffer`` with the row scattered into it (CSR X, O(nnz); ``buffer``
    must be zero and is given back zero by :func:`row_clear_numba`)."""
    d = buffer.shape[0]
    if indptr.shape[0] == 0:
        return data[i * d:i * d + d]
    for p in range(indptr[i], indptr[i + 1]):
        buffer[indices[p]] = data[p]
    return buffer


@jit(inline=True)
def row_clear_numba(indices, indptr, i, buffer):
    """Zero again what :func:`row_to_dense_numba` scattered into ``buffer`` (nothing if dense)."""
    if indptr.shape[0] > 0:
        for p in range(indptr[i], indptr[i + 1]):
            buffer[indices[p]] = 0.0


@jit
def gather_dense_rows_numba(data, indptr, d, rows):
    """The rows ``rows`` of a dense X as a C-ordered (k, d) array, for one BLAS product;
    an empty (0, d) array for a CSR X, whose rows a loop reads in place instead."""
    if indptr.shape[0] != 0:
        return np.empty((0, d))
    Xb = np.empty((rows.shape[0], d))
    for r in range(rows.shape[0]):
        for coord in range(d):
            Xb[r, coord] = data[rows[r] * d + coord]
    return Xb
