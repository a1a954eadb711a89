r"""Cosine and sine in compiled loops that the compiler vectorises.

Random-feature maps spend most of their time in :math:`\cos` and :math:`\sin` of the
projections. numpy and the C library evaluate them one call per element; the loops here
run a branch-free polynomial in SIMD lanes, to the same values within 2 ulp (measured
against numpy's in benchmarks/README.md, §Kernel approximation). Every compiled
random-feature path uses them:
:mod:`lsl_lib.random_features` (RFF, ORF, SORF), :mod:`lsl_lib.fastfood` and
:mod:`lsl_lib.doubly_stochastic`. Their numpy references call ``np.cos`` and ``np.sin``.

With :math:`x = k\frac\pi2 + r`, :math:`|r| \le \frac\pi4` (Cody and Waite's reduction,
:math:`\frac\pi2` in parts of 33 bits so that :math:`k p_1` and :math:`k p_2` are exact for
:math:`|k| < 2^{20}`), :math:`\cos r` and :math:`\sin r` are fdlibm's minimax polynomials
(``k_cos.c``, ``k_sin.c``), and the quadrant :math:`k \bmod 4` swaps and negates them:

.. math::

    \cos x = (\cos r, -\sin r, -\cos r, \sin r)_{k \bmod 4}, \qquad
    \sin x = (\sin r, \cos r, -\sin r, -\cos r)_{k \bmod 4}.

Beyond :data:`REDUCTION_LIMIT` (:math:`2^{19}\frac\pi2`, where the reduction stops being
exact) the loops call the C library for the few such entries.

The references are numpy's ``np.cos`` and ``np.sin``; the compiled functions, named
``<name>_numba`` (private package: no leading underscore), pair with them:

====================================  ========================  ============================
what                                  reference                 compiled
====================================  ========================  ============================
:math:`(\cos x, \sin x)` of a scalar  ``np.cos``, ``np.sin``    :func:`cos_sin_numba`
:math:`s \cos t_j` of a 1-D array     ``s * np.cos(t)``         :func:`cos_scaled_numba`
:math:`s \cos t_j, s \sin t_j`        the same, and ``np.sin``  :func:`cos_sin_scaled_numba`
the tile loop of the two above        (none)                    :func:`trig_scaled_numba`
some :math:`|t_j|` beyond the limit   no reference: a check     :func:`beyond_limit_numba`
====================================  ========================  ============================

References
----------
Cody, Waite. Software manual for the elementary functions. Prentice-Hall, 1980.

Sun Microsystems. fdlibm 5.3: ``e_rem_pio2.c``, ``k_cos.c``, ``k_sin.c``, 1993.
"""
import math

import numpy as np

from lsl_lib._core.backend import jit

#: :math:`\frac\pi2` = ``_PIO2_1 + _PIO2_2 + _PIO2_2T``: two parts of 33 bits and the
#: rounded rest (fdlibm's ``pio2_1``, ``pio2_2``, ``pio2_2t``).
_PIO2_1 = 1.57079632673412561417e+00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_2T = 2.02226624879595063154e-21
_INV_PIO2 = 6.36619772367581382433e-01
#: Beyond this :math:`|x|` the loops take the C library's cos and sin.
REDUCTION_LIMIT = 2.0 ** 19 * (math.pi / 2)
#: fdlibm's coefficients of :math:`\cos r - (1 - r^2/2)` and :math:`\sin r - r` on
#: :math:`[-\frac\pi4, \frac\pi4]`, in powers of :math:`r^2`.
_C1, _C2, _C3, _C4, _C5, _C6 = (4.16666666666666019037e-02, -1.38888888888741095749e-03,
                                2.48015872894767294178e-05, -2.75573143513906633035e-07,
                                2.08757232129817482790e-09, -1.13596475577881948265e-11)
_S1, _S2, _S3, _S4, _S5, _S6 = (-1.66666666666666324348e-01, 8.33333333332248946124e-03,
                                -1.98412698298579493134e-04, 2.75573137070700676789e-06,
                                -2.50507602534068634195e-08, 1.58969099521155010221e-10)


@jit
def cos_sin_numba(x):
    r"""``(cos(x), sin(x))`` for :math:`|x| \le` :data:`REDUCTION_LIMIT`, within 2 ulp of
    the C library's (1e-30 absolute next to their zeros), branch-free."""
    k = math.floor(x * _INV_PIO2 + 0.5)
    r = ((x - k * _PIO2_1) - k * _PIO2_2) - k * _PIO2_2T
    z = r * r
    cos_r = 1.0 - 0.5 * z + z * z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (
        _C5 + z * _C6)))))
    sin_r = r + r * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
    quadrant = np.int64(k) & 3
    c, s = (sin_r, cos_r) if quadrant & 1 else (cos_r, sin_r)
    c = -c if (quadrant + 1) & 2 else c  # cos < 0 in quadrants 1 and 2
    s = -s if quadrant & 2 else s  # sin < 0 in quadrants 2 and 3
    return c, s


@jit
def beyond_limit_numba(t):
    """True when some :math:`|t_j|` exceeds :data:`REDUCTION_LIMIT` (the slow path)."""
    for j in range(t.shape[0]):
        if abs(t[j]) > REDUCTION_LIMIT:
            return True
    return False


#: Entries per tile: the loops copy t a tile at a time into a buffer of their own, so that
#: an output that is ``t`` itself does not stop the compiler from vectorising.
TILE = 256


@jit
def trig_scaled_numba(t, scale, cos_out, sin_out, with_sin):
    """``cos_out[j] = scale * cos(t[j])`` and, if ``with_sin``, ``sin_out[j] = scale *
    sin(t[j])`` for the 1-D ``t``; either output may be ``t`` (the loop of the two below)."""
    n = t.shape[0]
    if beyond_limit_numba(t):  # rare (heavy-tailed frequencies on unscaled data)
        for j in range(n):
            x = np.float64(t[j])
            if abs(x) > REDUCTION_LIMIT:
                c, s = math.cos(x), math.sin(x)
            else:
                c, s = cos_sin_numba(x)
            cos_out[j] = scale * c
            if with_sin:
                sin_out[j] = scale * s
        return
    buffer = np.empty(TILE)
    for start in range(0, n, TILE):
        width = min(TILE, n - start)
        for j in range(width):
            buffer[j] = t[start + j]
        for j in range(width):
            c, s = cos_sin_numba(buffer[j])
            cos_out[start + j] = scale * c
            if with_sin:
                sin_out[start + j] = scale * s


@jit
def cos_scaled_numba(t, scale, out):
    """``out[j] = scale * cos(t[j])`` for the 1-D ``t``; ``out`` may be ``t``."""
    trig_scaled_numba(t, scale, out, out, False)


@jit
def cos_sin_scaled_numba(t, scale, cos_out, sin_out):
    """``cos_out[j] = scale * cos(t[j])``, ``sin_out[j] = scale * sin(t[j])`` for the 1-D
    ``t``; either output may be ``t``."""
    trig_scaled_numba(t, scale, cos_out, sin_out, True)
