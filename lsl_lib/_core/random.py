r"""Random state: every random draw of the library goes through one Generator.

Where numbers must come out identical from a numpy reference and a compiled loop without
being stored (random binning's cell ids, the seeded blocks of doubly stochastic gradients),
they come from SplitMix64 (Steele, Lea and Flood 2014), a counter-based function of
integers, instead: ``splitmix64(key + c * SPLITMIX_GOLDEN)`` for c = 1, 2, ... is the
stream of ``key``, and any element can be computed alone, so two paths that never share
state produce the same numbers.

=================================  ==============================  ==============================
SplitMix64, Box-Muller             numpy (uint64 arrays)           compiled (scalars)
=================================  ==============================  ==============================
finaliser :math:`\mathrm{mix}(z)`  :func:`splitmix64_numpy`        :func:`splitmix64_numba`
key of stream j, :math:`\kappa`    :func:`stream_key_numpy`        :func:`stream_key_numba`
uniform c of a stream              :func:`counter_uniforms_numpy`  :func:`counter_uniforms_numba`
two normals, two uniforms          :func:`box_muller_numpy`        :func:`box_muller_numba`
=================================  ==============================  ==============================

References
----------
Steele, Lea, Flood. Fast splittable pseudorandom number generators. OOPSLA 2014.

Box, Muller. A note on the generation of random normal deviates. Ann. Math. Statist. 1958.
"""
import math
import numbers

import numpy as np

from lsl_lib._core.backend import jit

#: SplitMix64's increment: the odd integer nearest 2**64 divided by the golden ratio.
SPLITMIX_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_SHIFT_30, _SHIFT_27, _SHIFT_31 = np.uint64(30), np.uint64(27), np.uint64(31)
_SHIFT_11 = np.uint64(11)  # a uniform keeps the top 53 bits of a SplitMix64 output
_TWO_POW_M53 = 2.0 ** -53


def check_random_state(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None`` gives fresh entropy, an int seeds a new Generator, a Generator
        is used as is (and so advanced by the caller's draws).
    """
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state}.")
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        # scikit-learn's own checks pass RandomState instances; derive a Generator from it.
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    raise TypeError(
        "random_state must be None, an int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}."
    )


def splitmix64_numpy(z):
    """SplitMix64's finaliser (Steele, Lea and Flood 2014) on an array of uint64: a
    bijection of the unsigned 64-bit integers by xor-shifts and odd multiplications,
    wrapping modulo 2**64 (numpy's unsigned arithmetic wraps without a warning on arrays)."""
    z = (z ^ (z >> _SHIFT_30)) * _MIX_1
    z = (z ^ (z >> _SHIFT_27)) * _MIX_2
    return z ^ (z >> _SHIFT_31)


@jit
def splitmix64_numba(z):
    """Compiled :func:`splitmix64_numpy`, on one uint64 scalar."""
    z = (z ^ (z >> _SHIFT_30)) * _MIX_1
    z = (z ^ (z >> _SHIFT_27)) * _MIX_2
    return z ^ (z >> _SHIFT_31)


def stream_key_numpy(seed, stream):
    r"""The key of stream j of ``seed``, :math:`\kappa = \mathrm{mix}(s + (j + 1)\,g)`, as a
    uint64 array of one element (g = :data:`SPLITMIX_GOLDEN`, arithmetic modulo
    :math:`2^{64}`).

    Parameters
    ----------
    seed : int
        :math:`0 \le s < 2^{63}` (an int64 for the compiled twin).
    stream : int
        j >= 0.
    """
    return splitmix64_numpy(np.array([seed], dtype=np.uint64)
                            + np.array([stream + 1], dtype=np.uint64) * SPLITMIX_GOLDEN)


@jit
def stream_key_numba(seed, stream):
    """Compiled :func:`stream_key_numpy`: the key as a uint64 scalar."""
    return splitmix64_numba(np.uint64(seed) + np.uint64(stream + 1) * SPLITMIX_GOLDEN)


def counter_uniforms_numpy(seed, stream, n):
    r"""The first n uniforms of stream j of ``seed``:
    :math:`u_c = (\lfloor \mathrm{mix}(\kappa + (c + 1)\,g) / 2^{11}\rfloor + \frac12)\,
    2^{-53}` for c = 0, ..., n - 1, strictly inside (0, 1), with :math:`\kappa` the key of
    :func:`stream_key_numpy`.

    Returns
    -------
    u : ndarray of shape (n,), float64
    """
    counters = np.arange(1, n + 1, dtype=np.uint64)
    z = splitmix64_numpy(stream_key_numpy(seed, stream) + counters * SPLITMIX_GOLDEN)
    return ((z >> _SHIFT_11).astype(np.float64) + 0.5) * _TWO_POW_M53


@jit
def counter_uniforms_numba(key, first, out):
    r"""Compiled :func:`counter_uniforms_numpy`: the uniforms
    :math:`u_{\mathrm{first}}, u_{\mathrm{first} + 1}, \dots` of the stream of ``key``
    (:func:`stream_key_numba`) into ``out``, one scalar at a time."""
    for c in range(out.shape[0]):
        z = splitmix64_numba(key + np.uint64(first + c + 1) * SPLITMIX_GOLDEN)
        out[c] = (float(z >> _SHIFT_11) + 0.5) * _TWO_POW_M53


def box_muller_numpy(u, n, scale=1.0):
    r"""n independent normals :math:`\mathcal N(0, \sigma^2)` from the uniforms u, in
    Box-Muller pairs: :math:`(z_{2m}, z_{2m+1}) = \sigma\, r_m(\cos\theta_m,
    \sin\theta_m)` with :math:`r_m = \sqrt{-2\ln u_{2m}}`, :math:`\theta_m = 2\pi u_{2m+1}`.

    Parameters
    ----------
    u : ndarray of shape (>= n + n % 2,)
        Uniforms strictly inside (0, 1); an odd n reads one more and drops the last sine.
    n : int
    scale : float, default=1.0
        :math:`\sigma`.

    Returns
    -------
    z : ndarray of shape (n,)
    """
    radius = np.sqrt(-2.0 * np.log(u[0:n:2]))
    angle = 2.0 * np.pi * u[1:n + 1:2]
    z = np.empty(n)
    z[0::2] = radius * np.cos(angle)
    z[1::2] = (radius * np.sin(angle))[:n // 2]
    z *= scale
    return z


@jit
def box_muller_numba(u1, u2, scale):
    r"""Compiled :func:`box_muller_numpy`: the pair of normals of two uniforms, as a tuple
    (:math:`\sigma` multiplies the radius before the cosine and the sine, where the numpy
    twin multiplies after: the last bit may differ, as the libraries' log and cos may)."""
    radius = scale * math.sqrt(-2.0 * math.log(u1))
    angle = 2.0 * math.pi * u2
    return radius * math.cos(angle), radius * math.sin(angle)
