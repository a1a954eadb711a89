r"""The unified online kernel learner: one update rule, eight models.

The model is a kernel expansion over the n training examples with signed
coefficients :math:`\alpha_j` and a bias b,

.. math::

    o(x) = \sum_{j=1}^n \alpha_j K(x, x_j) + b, \qquad o_i = o(x_i),
    \qquad z_i = y_i o_i \ (\text{the margin}).

Each step takes one example i (drawn by the sampling scheme; an epoch is n steps)
and moves its coefficient and the bias only:

.. math::

    \Lambda = \eta\, C\, y_i\, \psi(z_i), \qquad
    \alpha_i \leftarrow \alpha_i + \Lambda - P, \qquad b \leftarrow b + \beta\Lambda,

with :math:`\psi = -\ell'` for the model's margin loss :math:`\ell(z)`,
:math:`\beta = 1` if ``bias`` else 0, and the penalty P of the regulariser
:math:`\Omega`:

- the "w'w" models, :math:`\Omega = \frac12\alpha^\top K\alpha = \frac12\|w\|_H^2`:
  :math:`P = \eta\,\alpha_i`, with the :math:`\alpha_i` before the step. This is
  coordinate i of the :math:`K^{-1}`-preconditioned gradient step
  :math:`\alpha \leftarrow \alpha - \eta K^{-1}\nabla J_K` (Notes), since
  :math:`K^{-1}K\alpha = \alpha`;
- :math:`\Omega = \|\alpha\|_1` (the "|w|₁" models): the proximal step
  :math:`\alpha_i \leftarrow S_\eta(a)`, :math:`a = \alpha_i + \Lambda`, with the soft
  threshold :math:`S_\eta(a) = \operatorname{sign}(a)\max(|a| - \eta, 0)`; that is
  :math:`P = a - S_\eta(a) = \operatorname{sign}(a)\min(\eta, |a|)`, and
  coefficients become exactly zero.

The eight models, with :math:`(u)_+ = \max(0, u)`, :math:`a = \alpha_i + \Lambda` and
:math:`\Lambda = \eta C y_i \psi(z_i)` in every row:

===============  ===================  ====================  ===========  ============
``model``        loss ℓ(z)            ψ(z) = −ℓ′(z)         Ω(α)         P
===============  ===================  ====================  ===========  ============
``l1_svm``       (1 − z)₊             [z < 1]               ½ αᵀKα       η α_i
``l2_svm``       ½ (1 − z)₊²          (1 − z)₊              ½ αᵀKα       η α_i
``huber``        Huberized hinge      min(1, (1 − z)₊/δ)    ½ αᵀKα       η α_i
``logistic``     log(1 + e^(−z))      1/(1 + e^z)           ½ αᵀKα       η α_i
``exponential``  e^(−z) (boosting)    e^(−max(z, −50))      ‖α‖₁         a − S_η(a)
``ls_svm``       ½ (1 − z)²           1 − z                 ½ αᵀKα       η α_i
``l1_svm_l1``    (1 − z)₊             [z < 1]               ‖α‖₁         a − S_η(a)
``l2_svm_l1``    ½ (1 − z)₊²          (1 − z)₊              ‖α‖₁         a − S_η(a)
===============  ===================  ====================  ===========  ============

The Huberized hinge with width :math:`\delta` is 0 for :math:`z \ge 1`,
:math:`(1 - z)^2/(2\delta)` for :math:`1 - \delta < z < 1` and
:math:`1 - z - \delta/2` for :math:`z \le 1 - \delta`. The exponential loss's
:math:`\psi` is clipped at :math:`z = -50` (:math:`e^{50} \approx 5\cdot 10^{21}`)
so that one badly misclassified example cannot overflow a step; the logistic
:math:`\psi` is evaluated as :math:`e^{-|z|}/(1 + e^{-|z|})` or
:math:`1/(1 + e^{-|z|})`, which never overflows. The step size is constant within
an epoch: :math:`\eta_e = \eta/(1 + \text{eta\_decay}\cdot e)` in epoch e = 0, 1, ...

This is a stochastic *coordinate-wise* update in :math:`\alpha`: a step changes
:math:`\alpha_i` and b and nothing else. Hence the sparsity of the models differs
(the lecture's "curiosity"): with the hinge or squared hinge, an example that never
violates the margin (:math:`z_i \ge 1` whenever it is drawn) has
:math:`\Lambda = 0` and keeps :math:`\alpha_i = 0`, so the L1 and L2 SVMs are
sparse; the LS-SVM's :math:`\psi(z) = 1 - z` vanishes only at exactly
:math:`z = 1`, every example gets :math:`\Lambda \neq 0`, and the LS-SVM is dense.
(The decay :math:`P = \eta\alpha_i` shrinks a coefficient that once moved by
:math:`1 - \eta` per visit but never makes it exactly 0.) The
:math:`\|\alpha\|_1` models are sparse by soft-thresholding, whatever the loss: a
coefficient with :math:`|\alpha_i + \Lambda| \le \eta` is set to 0.

Two speed-ups make a step cost O(n) instead of a kernel sum per step:

1. the outputs of all n training examples are kept in a vector and updated by a
   scalar-vector product, :math:`o \leftarrow o + (\Lambda - P) K(:, x_i) + \beta\Lambda`
   (we keep :math:`f = K\alpha` and add b when an output is read, so the bias
   costs O(1));
2. :math:`\Lambda` is computed from the known :math:`z_i = y_i o_i`, with no kernel
   sum; when the step leaves :math:`\alpha_i` unchanged (a hinge non-violator with
   :math:`\alpha_i = 0`, a coefficient kept at 0 by the threshold) the kernel column
   is not even needed.

``update='naive'`` recomputes :math:`o_i = \sum_j \alpha_j K(x_i, x_j) + b` from
scratch at every step instead: the same iterates, one kernel row per step always.
Kernel columns come from a bounded LRU cache (``cache_size`` megabytes of whole
columns, :class:`ColumnCache`), as in LIBSVM.

``sampling='worst_violator'`` draws nothing: each step takes the example whose step would be
the largest, :math:`\arg\max_i |\Lambda_i - P_i|` (ties to the smaller margin, then the smaller
index), read off the output vector in O(n) with no kernel evaluation. For the
:math:`\frac12\alpha^\top K\alpha` models
:math:`|\Lambda_i - P_i| = \eta\,|C y_i\psi(z_i) - \alpha_i|`, the distance of
:math:`\alpha_i` from its fixed point: the worst violator of the optimality conditions, the
choice of Kecman's ISDA and of OLLAWV (Melki et al. 2018), and the Gauss-Southwell rule of
coordinate descent. It needs the output vector (``update='output'``).

Two paths run the steps on the same index array (:mod:`lsl_lib._core.sampling`), with
the same iterates and the same cache hits and misses, on dense rows or CSR rows
(inner-product kernels, read through :func:`lsl_lib._core.rows.row_view`):

====================================  =============================  ==============================
the step                              reference                      compiled
====================================  =============================  ==============================
Λ = ηCyψ(z) and P (table above)       ``lambda_and_penalty``         ``_lambda_and_penalty_numba``
i = argmax_j abs(Λ_j − P_j)           ``worst_violator_numpy``       ``_worst_violator_numba``
K(:, x_i), LRU cache                  ``cached_column_numpy``        ``_cached_column_numba``
α_i ← α_i + Λ − P, b ← b + βΛ         ``online_kernel_numpy_chunk``  ``_online_kernel_numba_chunk``
====================================  =============================  ==============================

``lambda_and_penalty`` keeps the name the lecture teaches it by, without ``_numpy``
(CONTRIBUTING.md §2).

The last row is a chunk of steps, each with the two speed-ups (or, with
``update='naive'``, a kernel sum for :math:`o_i`).
:meth:`OnlineKernelClassifier.partial_fit` runs the same steps over a stream (see its
Notes: the output vector of the current chunk starts from the kernel expansion).

The package holds the step of each model in ``_models.py`` (the first two rows), the
column cache, the chunks and the functional core :func:`online_kernel` in ``_learner.py``,
and :class:`OnlineKernelClassifier` in ``_estimator.py``; the names above are imported
from here.

Notes
-----
A fixed point of the "w'w" rule has :math:`\alpha_i = C y_i \psi(z_i)` for every i (and
:math:`\sum_i y_i\psi(z_i) = 0` with a bias): the stationarity conditions of
:math:`J_K = \frac12\alpha^\top K\alpha + C\sum_i \ell(z_i)`, the kernel machine with the
RKHS norm :math:`\|w\|^2 = \alpha^\top K\alpha` (the step direction is
:math:`K^{-1}\nabla J_K`). For the LS-SVM without bias it is the linear system
:math:`(K + I/C)\alpha = y`, solved by a relaxed Gauss-Seidel sweep. So
``history_['rkhs_objective']`` (:math:`J_K`, free from the output vector:
:math:`\alpha^\top K\alpha = \alpha^\top f`) decreases steadily for a small :math:`\eta`,
while ``history_['objective']`` is a diagnostic, not the objective minimised: it puts
:math:`\frac12\|\alpha\|_2^2` (or :math:`\|\alpha\|_1`) in place of :math:`\Omega`, drops in
the first epochs and then may creep up. With the :math:`\|\alpha\|_1` models a coefficient
leaves 0 only where :math:`C\psi(z_i) > 1`: take C > 1 (with C = 1 the hinge models stay at
:math:`\alpha = 0`). Stability: the models with a bounded :math:`\psi` (hinge, Huber,
logistic) cannot overflow, but the LS-SVM's step is a relaxation that converges only for
:math:`\eta < 2/(C(K_{ii} + \beta) + 1)` (about 0.095 for C = 10 with a bias and a Gaussian
kernel), and the exponential loss grows without bound; a run whose coefficients grow by
orders of magnitude (twelve over their size after the first steps) or whose coefficients or
losses overflow raises ``ValueError``. The bias is updated by every example, so with a
constant :math:`\eta` it ends in a small cycle rather than a fixed point (use
``eta_decay``).

References
----------
Kecman, Huang, Vogt. Iterative single data algorithm for training kernel machines
from huge data sets: theory and performance. In Support Vector Machines: Theory and
Applications, Springer, 2005.

Melki, Kecman, Ventura, Cano. OLLAWV: OnLine Learning Algorithm using Worst-Violators.
Applied Soft Computing 66, 2018.

Kivinen, Smola, Williamson. Online learning with kernels. IEEE Transactions on Signal
Processing 52(8), 2004 (NORMA: the decay applied to every coefficient at each step).

Suykens, Vandewalle. Least squares support vector machine classifiers. Neural
Processing Letters 9(3), 1999.

Duchi, Singer. Efficient online and batch learning using forward backward splitting.
JMLR 10, 2009 (the soft-threshold step).
"""
from lsl_lib.online_kernel._estimator import OnlineKernelClassifier
from lsl_lib.online_kernel._learner import (
    ColumnCache,
    OnlineKernelState,
    cached_column_numpy,
    online_kernel,
    online_kernel_numpy_chunk,
)
from lsl_lib.online_kernel._models import (
    L1_REGULARISED,
    LOSS_OF,
    MODELS,
    lambda_and_penalty,
    margin_loss,
    psi,
    regularised_risk,
    worst_violator_numpy,
)

__all__ = [
    "MODELS", "LOSS_OF", "L1_REGULARISED",
    "psi", "margin_loss", "lambda_and_penalty", "regularised_risk", "worst_violator_numpy",
    "ColumnCache", "cached_column_numpy", "online_kernel_numpy_chunk", "OnlineKernelState",
    "online_kernel", "OnlineKernelClassifier",
]


def __dir__():
    return __all__
