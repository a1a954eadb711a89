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
compiler vectorises; numba compiles them into the loop that calls them (plain
``njit``: LLVM inlines them, measured in benchmarks/README.md, §Row view).

=============================  ====================================================
helper                         what it computes on row :math:`x_i`
=============================  ====================================================
:func:`row_dot`                :math:`\langle x_i, v\rangle`
:func:`row_axpy`               :math:`v \leftarrow v + c\,x_i`
:func:`row_span`,              the positions ``p`` of its stored values in ``data``
:func:`row_column`             and the column of each, for loops that fuse updates
:func:`row_to_dense`           :math:`x_i` as a dense vector (CSR: into a buffer)
:func:`row_clear`              the buffer zeroed again, O(nnz(x_i))
=============================  ====================================================
"""
import numpy as np
import scipy.sparse as sp

from lsl_lib._core.backend import jit


def _index_dtype(largest):
    return np.uint32 if largest < 2 ** 32 else np.int64


def row_view(X):
    """``(data, indices, indptr)``: a dense or sparse X as the compiled loops read it.

    See the module docstring for the layout, the sentinel (empty ``indptr``: dense) and
    the index dtype. No copy when X is already C-ordered float64 (dense) or canonical
    float64 CSR with indices of the chosen dtype.
    """
    if not sp.issparse(X):
        empty = np.empty(0, dtype=np.uint32)
        return np.ascontiguousarray(X, dtype=np.float64).ravel(), empty, empty
    X = sp.csr_matrix(X, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    index_dtype = _index_dtype(max(X.nnz, X.shape[1]))
    return X.data, X.indices.astype(index_dtype, copy=False), X.indptr.astype(index_dtype,
                                                                              copy=False)


@jit
def row_span(indptr, d, i):
    """``(start, stop)``: row i's values are ``data[start:stop]`` (d columns if dense)."""
    if indptr.shape[0] == 0:
        return i * d, i * d + d
    return np.int64(indptr[i]), np.int64(indptr[i + 1])


@jit
def row_column(indices, indptr, p, start):
    """The column of ``data[p]``, p in the span of a row that starts at ``start``."""
    if indptr.shape[0] == 0:
        return p - start
    return np.int64(indices[p])


@jit
def row_dot(data, indices, indptr, i, v):
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


@jit
def row_axpy(data, indices, indptr, i, c, v):
    r""":math:`v \leftarrow v + c\,x_i` in place, v dense of length d."""
    if indptr.shape[0] == 0:
        d = v.shape[0]
        start = i * d
        for j in range(d):
            v[j] += c * data[start + j]
    else:
        for p in range(indptr[i], indptr[i + 1]):
            v[indices[p]] += c * data[p]


@jit
def row_to_dense(data, indices, indptr, i, buffer):
    """Row i as a dense vector of length ``d = buffer.shape[0]``: a view of ``data``
    (dense X), or ``buffer`` with the row scattered into it (CSR X, O(nnz); ``buffer``
    must be zero and is given back zero by :func:`row_clear`)."""
    d = buffer.shape[0]
    if indptr.shape[0] == 0:
        return data[i * d:i * d + d]
    for p in range(indptr[i], indptr[i + 1]):
        buffer[indices[p]] = data[p]
    return buffer


@jit
def row_clear(indices, indptr, i, buffer):
    """Zero again what :func:`row_to_dense` scattered into ``buffer`` (nothing if dense)."""
    if indptr.shape[0] > 0:
        for p in range(indptr[i], indptr[i + 1]):
            buffer[indices[p]] = 0.0
