r"""Pegasos: primal estimated sub-gradient solver for SVM, and its other losses.

Pegasos minimises the regularised empirical risk of :mod:`lsl_lib.losses`,

.. math::

    f(w) = \frac{\lambda}{2}\|w\|^2 + \frac{1}{n}\sum_{i=1}^n \ell(y_i, \langle w, x_i\rangle),

by stochastic subgradient steps with step size :math:`\eta_t = 1/(\lambda t)`. At
iteration :math:`t` it draws a mini-batch :math:`A_t` of :math:`k` examples and sets

.. math::

    w_{t+\frac12} = (1 - \eta_t\lambda)\, w_t
        - \frac{\eta_t}{k}\sum_{i\in A_t} \partial_s\ell(y_i, \langle w_t, x_i\rangle)\, x_i,
    \qquad
    w_{t+1} = \min\Bigl(1, \frac{1/\sqrt{\lambda}}{\|w_{t+\frac12}\|}\Bigr) w_{t+\frac12}.

For the hinge loss the sum runs over the margin violators
:math:`A_t^+ = \{i \in A_t : y_i\langle w_t, x_i\rangle < 1\}` and adds
:math:`\frac{\eta_t}{k} y_i x_i`. The subgradient is evaluated at :math:`w_t`; the
shrink :math:`1 - \eta_t\lambda` is applied first. At :math:`t = 1` it is exactly
0, so :math:`w_2` is the first mini-batch's step alone: shrinking after the step
would throw that step away. The projection onto the ball of radius
:math:`1/\sqrt{\lambda}` (which contains the optimum of the hinge problem) is
optional. Multiclass losses use a weight matrix :math:`W \in \mathbb{R}^{K\times d}`
and the Frobenius norm; it is one problem, not K one-vs-rest problems.

With sample weights :math:`s_i \ge 0` the risk is the weighted mean
:math:`\frac{1}{\sum_i s_i}\sum_i s_i\,\ell(y_i, \langle w, x_i\rangle)`, the risk of the
data in which row i is repeated :math:`s_i` times;
:func:`lsl_lib._core.sampling.weighted_sample_indices` draws the examples in proportion
to :math:`s_i` (integer weights: exactly as the scheme draws the repeated data), so the
subgradient of a step stays an unbiased estimate and the iterations do not change.

Two paths run the iterations on the same index array (:mod:`lsl_lib._core.sampling`):
:func:`pegasos_numpy_chunk`, the readable reference, and ``_pegasos_numba_chunk``,
the compiled loop, which stores :math:`w = a\,v` so that the shrink costs O(1) and a
step costs O(nnz(x_i)), as in Shalev-Shwartz et al. (2011, Section 4) and
scikit-learn's ``SGDClassifier``.

============================================  ===================  =======================
Shalev-Shwartz et al. (2011)                  Reference            Compiled
============================================  ===================  =======================
Alg. 1: w ← (1 − η_t λ) w − η_t/k Σ ∂ℓ_i x_i  pegasos_numpy_chunk  _pegasos_numba_chunk
Alg. 1, optional: w ← min(1, 1/(√λ‖w‖)) w     pegasos_numpy_chunk  _pegasos_numba_chunk
§5: ∂_s ℓ(y, s) of one example, any loss      Loss.subgradient     score_subgradient_numba
============================================  ===================  =======================

``score_subgradient_numba`` is the compiled derivative of
:mod:`lsl_lib._core.loss_derivatives`. The package's files:
``_algorithm.py`` (the two paths and the functional core :func:`pegasos`) and
``_estimators.py`` (:class:`PegasosClassifier`, :class:`PegasosRegressor`).

References
----------
Shalev-Shwartz, Singer, Srebro, Cotter. Pegasos: primal estimated sub-gradient
solver for SVM. Mathematical Programming 127(1), 3-30, 2011.

Rakhlin, Shamir, Sridharan. Making gradient descent optimal for strongly convex
stochastic optimization. ICML 2012 (suffix averaging).
"""
from lsl_lib.pegasos._algorithm import (
    PegasosState,
    auto_step_offset,
    pegasos,
    pegasos_numpy_chunk,
    projection_radius2,
    reference_solution,
    weighted_objective,
)
from lsl_lib.pegasos._estimators import PegasosClassifier, PegasosRegressor, encode_labels

__all__ = ["PegasosClassifier", "PegasosRegressor", "pegasos", "pegasos_numpy_chunk",
           "PegasosState", "projection_radius2", "auto_step_offset", "weighted_objective",
           "reference_solution", "encode_labels"]


def __dir__():
    return __all__
