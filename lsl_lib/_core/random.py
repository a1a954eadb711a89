"""Random state: every random draw of the library goes through one Generator.

Where numbers must come out identical from a numpy reference and a compiled loop without
being stored (random binning's cell ids, the seeded blocks of doubly stochastic gradients),
they come from :func:`splitmix64`, a counter-based function of integers, instead.
"""
import numbers

import numpy as np

from lsl_lib._core.backend import jit

#: SplitMix64's increment: the odd integer nearest 2**64 divided by the golden ratio.
SPLITMIX_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_SHIFT_30, _SHIFT_27, _SHIFT_31 = np.uint64(30), np.uint64(27), np.uint64(31)


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


@jit
def splitmix64(z):
    """SplitMix64's finaliser (Steele, Lea and Flood 2014): a bijection of the unsigned
    64-bit integers by xor-shifts and odd multiplications, wrapping modulo 2**64.

    A uint64 scalar in the compiled loops; ``splitmix64.py_func`` takes uint64 arrays in
    the numpy references. ``splitmix64(key + c * SPLITMIX_GOLDEN)`` for c = 1, 2, ... is the
    SplitMix64 stream of ``key``: any element can be computed alone, so two paths that
    never share state produce the same numbers.
    """
    z = (z ^ (z >> _SHIFT_30)) * _MIX_1
    z = (z ^ (z >> _SHIFT_27)) * _MIX_2
    return z ^ (z >> _SHIFT_31)
