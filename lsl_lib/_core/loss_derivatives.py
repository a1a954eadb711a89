r"""The losses' integer codes and their per-example derivatives, compiled.

Every compiled loop that takes a step on a loss (Pegasos, SGD/SVRG/SARAH, doubly
stochastic gradients) needs :math:`\partial_s \ell(y, s)` of one example at a time.
The vectorised references are the ``subgradient`` methods of the loss classes of
:mod:`lsl_lib.losses`, which also carry these codes (``Loss.code``); the two are held
to each other by ``tests/lib/test_losses.py``.
"""
import math

from lsl_lib._core.backend import jit

# Integer codes of the losses inside compiled loops.
HINGE, LOG, SQUARED, EPSILON_INSENSITIVE, MULTICLASS_HINGE, SOFTMAX, SMOOTHED_HINGE = range(7)


@jit
def score_derivative_numba(loss_code, y, s, epsilon):
    r""":math:`\partial_s \ell(y, s)` of one example, for the losses with a scalar score.

    Same arithmetic as the vectorised ``Loss.subgradient`` of each loss class of
    :mod:`lsl_lib.losses`.
    """
    if loss_code == HINGE:
        return -y if y * s < 1.0 else 0.0
    if loss_code == LOG:
        z = -y * s  # -y * sigma(z), evaluated without overflow
        if z >= 0.0:
            return -y / (1.0 + math.exp(-z))
        e = math.exp(z)
        return -y * e / (1.0 + e)
    if loss_code == SQUARED:
        return s - y
    if loss_code == EPSILON_INSENSITIVE:
        r = s - y
        return 1.0 if r > epsilon else (-1.0 if r < -epsilon else 0.0)
    if loss_code == SMOOTHED_HINGE:
        return -y * min(max(1.0 - y * s, 0.0), 1.0)
    raise ValueError("score_derivative_numba: not a loss with a scalar score")


@jit
def score_subgradient_numba(loss_code, y, s, epsilon, g):
    """Write a subgradient of one example's loss into ``g`` (compiled loops).

    ``s`` and ``g`` have length K (1 unless the loss is multiclass); ``y`` is the
    label, the target, or the class index as a float.
    """
    if loss_code == MULTICLASS_HINGE:
        label = int(y)
        best = -1
        for r in range(s.shape[0]):
            g[r] = 0.0
            if r != label and (best < 0 or s[r] > s[best]):
                best = r
        if 1.0 + s[best] - s[label] > 0.0:
            g[best] = 1.0
            g[label] = -1.0
    elif loss_code == SOFTMAX:
        label = int(y)
        top = s[0]
        for r in range(1, s.shape[0]):
            top = max(top, s[r])
        total = 0.0
        for r in range(s.shape[0]):
            g[r] = math.exp(s[r] - top)
            total += g[r]
        for r in range(s.shape[0]):
            g[r] /= total
        g[label] -= 1.0
    else:
        g[0] = score_derivative_numba(loss_code, y, s[0], epsilon)
