"""Linear-algebra helpers shared by the kernel approximations: row norms, bounded
blocks of rows, and the rank rule for PSD eigenvalues."""
import numpy as np
import scipy.sparse as sp

#: Elements of the largest temporary array a block of a kernel matrix may build.
BLOCK_ELEMENTS = 2 ** 22


def squared_row_norms(X):
    r""":math:`\|x_i\|^2` of every row of a dense or CSR X, float64."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    X = np.asarray(X, dtype=np.float64)
    return np.einsum("ij,ij->i", X, X)


def row_blocks(n, m):
    """Slices of at most ``BLOCK_ELEMENTS / m`` rows covering ``range(n)``: an (rows, m)
    kernel block stays bounded however large n is."""
    rows = max(1, BLOCK_ELEMENTS // max(m, 1))
    return [slice(start, start + rows) for start in range(0, n, rows)]


def dense_rows(X, indices):
    """Rows of a dense or CSR X as a dense float64 array (only those rows are densified)."""
    rows = X[indices]
    return np.asarray(rows.toarray() if sp.issparse(rows) else rows, dtype=np.float64)


def zero_eigenvalue_threshold(eigenvalues):
    r"""Eigenvalues of an m x m PSD matrix at or below :math:`\sigma_{max} m \epsilon`
    are rounding noise, zero in exact arithmetic (NumPy's ``matrix_rank`` rule)."""
    return max(eigenvalues.max(), 0.0) * eigenvalues.size * np.finfo(np.float64).eps
