r"""Stochastic gradient methods for smooth finite sums: SGD, SVRG, SARAH and SARAH+.

The problem is a smooth, :math:`\lambda`-strongly convex finite sum

.. math::

    f(w) = \frac1n\sum_{i=1}^n f_i(w), \qquad
    f_i(w) = \ell(y_i, \langle w, x_i\rangle) + \frac{\lambda}{2}\|w\|^2,

with the logistic loss (``'log'``), the squared loss :math:`\frac12(s - y)^2`
(``'squared'``, ridge regression) or the smoothed hinge (``'smoothed_hinge'``,
:class:`lsl_lib.losses.SmoothedHinge`). Each :math:`f_i` is :math:`L`-smooth with
:math:`L = c\max_i\|x_i\|^2 + \lambda`, where :math:`c` bounds :math:`\ell''`:
1/4 (logistic), 1 (squared), 1 (smoothed hinge). Let :math:`g_A(w)` be the mean of
:math:`\nabla f_i(w) = \ell'(y_i, \langle w, x_i\rangle)\,x_i + \lambda w` over a
mini-batch :math:`A` of :math:`k` examples.

- **SGD**: :math:`w_{t+1} = w_t - \eta_t\, g_{A_t}(w_t)`, with
  :math:`\eta_t = 1/(\lambda t + L)` by default (Pegasos' step with offset
  :math:`L/\lambda`: :math:`\eta_1 < 1/L`) or a constant :math:`\eta`.
- **SVRG** (Johnson and Zhang 2013), outer loop :math:`s`: snapshot
  :math:`\tilde w`, :math:`\mu = \nabla f(\tilde w)`, then
  :math:`w_{t+1} = w_t - \eta v_t` with
  :math:`v_t = g_{A_t}(w_t) - g_{A_t}(\tilde w) + \mu`.
- **SARAH** (Nguyen et al. 2017, Algorithm 1), outer loop :math:`s`:
  :math:`w_0 = \tilde w`, :math:`v_0 = \nabla f(w_0)`, :math:`w_1 = w_0 - \eta v_0`,
  and for :math:`t = 1, \dots, m-1`

  .. math::

      v_t = g_{A_t}(w_t) - g_{A_t}(w_{t-1}) + v_{t-1}, \qquad w_{t+1} = w_t - \eta v_t,

  the *same* mini-batch :math:`A_t` in both gradients. The recursive :math:`v_t` is a
  biased estimate of :math:`\nabla f(w_t)`, but its error vanishes as the inner
  loop converges, unlike SVRG's.
- **SARAH+** (Algorithm 2): SARAH whose inner loop stops as soon as
  :math:`\|v_{t-1}\|^2 \le \gamma\|v_0\|^2` (squared norms, :math:`\gamma = 1/8`),
  or at :math:`t = m`.

Both SVRG and SARAH start the inner loop with :math:`w_1 = w_0 - \eta\nabla f(w_0)`
(for SVRG, :math:`w_0 = \tilde w` makes the correction vanish: the iterates are
those of Johnson and Zhang's Algorithm 1 with :math:`m` inner steps), so an outer
loop makes :math:`m` updates and costs :math:`n + 2k(m-1)` gradient evaluations of
single examples. Traces count them in **effective passes** (evaluations / n): SGD
costs :math:`k/n` per step. The new outer point :math:`\tilde w` is the last
iterate :math:`w_m` (``output='last'``, what is used in practice) or, as in the
papers' analysis, :math:`w_t` with :math:`t` uniform on :math:`\{0, \dots, m\}`
(``output='random'``).

Two paths run the iterations on the same index array
(:mod:`lsl_lib._core.sampling`): the readable numpy reference
(:func:`sgd_numpy_chunk`, :func:`variance_reduced_numpy_chunk`, written with
:class:`FiniteSumObjective`) and the compiled loops (``_sgd_numba_chunk``,
``_variance_reduced_numba_chunk``). Each step costs :math:`O(d + k\,\mathrm{nnz}(x))`:
the dense vectors :math:`w, v` are updated in full (no lazy updates, for clarity).

===============================  =================================  =============================
Paper (the lines above)          Reference                          Compiled
===============================  =================================  =============================
SGD: w ← w − η_t g_{A_t}(w)      sgd_numpy_chunk                    _sgd_numba_chunk
SVRG: v_t = g(w_t) − g(w_0) + μ  variance_reduced_numpy_chunk       _variance_reduced_numba_chunk
SARAH (Alg. 1), SARAH+ (Alg. 2)  variance_reduced_numpy_chunk       _variance_reduced_numba_chunk
g_A(w) = 1/k Σ_{i∈A} ∇f_i(w)     FiniteSumObjective.batch_gradient  _mean_gradient_numba
ℓ'(y, s) of one example          Loss.subgradient                   score_derivative_numba
===============================  =================================  =============================

``score_derivative_numba`` is the compiled derivative of :mod:`lsl_lib._core.loss_derivatives`.
The package's files: ``_algorithm.py`` (the objective, the two paths and the functional
core :func:`stochastic_gradient`) and ``_estimators.py``
(:class:`StochasticGradientClassifier`, :class:`StochasticGradientRegressor`).

References
----------
Johnson, Zhang. Accelerating stochastic gradient descent using predictive variance
reduction. NIPS 2013.

Nguyen, Liu, Scheinberg, Takáč. SARAH: a novel method for machine learning problems
using stochastic recursive gradient. ICML 2017.

Shalev-Shwartz, Zhang. Stochastic dual coordinate ascent methods for regularized
loss minimization. JMLR 14, 2013 (the smoothed hinge, Section 5.3).

Bottou, Curtis, Nocedal. Optimization methods for large-scale machine learning.
SIAM Review 60(2), 2018 (Sections 4 and 5.3).
"""
from lsl_lib.stochastic_gradient._algorithm import (
    METHODS,
    FiniteSumObjective,
    StochasticGradientState,
    get_smooth_loss,
    sarah,
    sarah_plus,
    sgd,
    sgd_numpy_chunk,
    stochastic_gradient,
    svrg,
    variance_reduced_numpy_chunk,
)
from lsl_lib.stochastic_gradient._estimators import (
    StochasticGradientClassifier,
    StochasticGradientRegressor,
)

__all__ = ["StochasticGradientClassifier", "StochasticGradientRegressor", "stochastic_gradient",
           "sgd", "svrg", "sarah", "sarah_plus", "sgd_numpy_chunk",
           "variance_reduced_numpy_chunk", "FiniteSumObjective", "StochasticGradientState",
           "get_smooth_loss", "METHODS"]


def __dir__():
    return __all__
