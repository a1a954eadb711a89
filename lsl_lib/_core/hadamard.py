r"""The fast Walsh-Hadamard transform, shared by SORF (lecture 08) and Fastfood (lecture 10).

The Hadamard matrices of Sylvester's construction, :math:`H_1 = (1)`,
:math:`H_{2n} = \begin{pmatrix} H_n & H_n \\ H_n & -H_n \end{pmatrix}`, have entries
:math:`\pm 1` and orthogonal rows; the block form gives :math:`\log_2 d` stages of
:math:`d/2` butterflies :math:`(a, b) \mapsto (a + b, a - b)`. :mod:`lsl_lib.fastfood`
teaches it and re-exports :func:`fwht`.

=====================================  ==================  =======================
the paper's line                       reference           compiled
=====================================  ==================  =======================
Fino and Algazi: log2 d stages of d/2  :func:`fwht_numpy`  :func:`fwht_rows_numba`
butterflies (a, b) -> (a + b, a - b),
all rows at once
the same on one row                    (the same)          :func:`fwht_row_numba`
=====================================  ==================  =======================
"""
import numpy as np

from lsl_lib._core.backend import jit, resolve_backend

DTYPES = (np.float64, np.float32)


def check_fwht_input(a):
    """Raise unless ``a`` is a C-contiguous float array whose last axis is a power of two."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"a must be a numpy.ndarray (fwht works in place), got {type(a).__name__}.")
    if a.dtype not in DTYPES:
        raise ValueError(f"a must have dtype float32 or float64, got {a.dtype}.")
    if a.ndim == 0:
        raise ValueError("a must have at least one axis, got a 0-d array.")
    if not a.flags.writeable:
        raise ValueError("a must be writeable (fwht works in place), got a read-only array.")
    if not a.flags.c_contiguous:
        raise ValueError("a must be C-contiguous (fwht works in place); "
                         "pass np.ascontiguousarray(a).")
    d = a.shape[-1]
    if d < 1 or d & (d - 1):
        raise ValueError(f"the last axis of a must have a power-of-two length, got {d}.")


def fwht_numpy(a):
    """:func:`fwht` in numpy: one vectorised stage per butterfly width h = 1, 2, 4, ...

    At width h, the rows are cut into pieces of 2h entries; the first half of each
    piece is ``top``, the second ``bottom``, and ``(top, bottom) <- (top + bottom,
    top - bottom)``, all pieces of all rows at once (views of ``a``).
    """
    d = a.shape[-1]
    h = 1
    while h < d:
        pieces = a.reshape(-1, d // (2 * h), 2, h)
        top, bottom = pieces[:, :, 0, :], pieces[:, :, 1, :]
        old_top = top.copy()
        top += bottom
        np.subtract(old_top, bottom, out=bottom)
        h *= 2
    return a


@jit
def fwht_row_numba(x):
    """:func:`fwht` of one contiguous 1-D array, in place (a compiled loop).

    The butterflies of widths 1 and 2 are done together, four entries at a time
    (a radix-4 step), because their inner loops would be too short to vectorise;
    each wider stage runs an inner loop over two slices of h contiguous entries,
    which the compiler vectorises (slices, unlike ``x[j + h]``, tell it that the
    two halves do not overlap).
    """
    d = x.shape[0]
    h = 1
    if d >= 4:
        for i in range(0, d, 4):
            a0 = x[i] + x[i + 1]
            a1 = x[i] - x[i + 1]
            a2 = x[i + 2] + x[i + 3]
            a3 = x[i + 2] - x[i + 3]
            x[i] = a0 + a2
            x[i + 1] = a1 + a3
            x[i + 2] = a0 - a2
            x[i + 3] = a1 - a3
        h = 4
    while h < d:
        for i in range(0, d, 2 * h):
            top = x[i:i + h]
            bottom = x[i + h:i + 2 * h]
            for j in range(h):
                u = top[j]
                v = bottom[j]
                top[j] = u + v
                bottom[j] = u - v
        h *= 2


@jit
def fwht_rows_numba(a):
    """:func:`fwht_row_numba` of every row of a C-contiguous 2-D array (a compiled loop)."""
    for r in range(a.shape[0]):
        fwht_row_numba(a[r])


def fwht(a, backend="auto"):
    r"""The fast Walsh-Hadamard transform of every row, in place: :math:`x \leftarrow H_d x`.

    .. math::

        (H_d x)_i = \sum_{j=0}^{d-1} (-1)^{\langle i, j\rangle} x_j,

    where :math:`\langle i, j\rangle` counts the bits that i and j share: the
    unnormalised transform in Sylvester's (natural) ordering, the same as
    ``scipy.linalg.hadamard(d) @ x``, in :math:`O(d \log d)` operations and no
    extra memory.

    Parameters
    ----------
    a : ndarray of shape (..., d), float32 or float64, C-contiguous
        Transformed along its last axis (every row of a 2-D array), in place;
        d must be a power of two.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numba'`` runs the compiled :func:`fwht_rows_numba`; ``'numpy'`` the vectorised
        reference :func:`fwht_numpy`.

    Returns
    -------
    a : ndarray
        The same array, transformed.

    Raises
    ------
    ValueError
        If the last axis is not a power of two long, or ``a`` is not a writeable,
        C-contiguous float32/float64 array (checked before any compiled code runs).
    TypeError
        If ``a`` is not a numpy array.

    Notes
    -----
    Applying it twice multiplies by d (:math:`H_d H_d = d I`); ``H / sqrt(d)``
    is orthogonal. Fastfood and SORF use it as the fast stand-in for a dense
    Gaussian matrix.

    References
    ----------
    Fino, Algazi. Unified matrix treatment of the fast Walsh-Hadamard transform.
    IEEE Transactions on Computers C-25(11), 1976.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.fastfood import fwht
    >>> fwht(np.array([1.0, 0.0, 1.0, 0.0]))
    array([2., 2., 0., 0.])
    """
    check_fwht_input(a)
    if resolve_backend(backend) == "numpy":
        return fwht_numpy(a)
    fwht_rows_numba(a.reshape(-1, a.shape[-1]))
    return a


def next_power_of_two(d):
    """The smallest power of two >= d (d >= 1)."""
    return 1 << (int(d) - 1).bit_length()
