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

The eight models, with :math:`(u)_+ = \max(0, u)` and
:math:`\Lambda = \eta C y_i \psi(z_i)` in every row:

===============  ==========================  =================================  =============================  =====================
``model``        :math:`\ell(z)`             :math:`\psi(z) = -\ell'(z)`        :math:`\Omega(\alpha)`         :math:`P`
===============  ==========================  =================================  =============================  =====================
``l1_svm``       :math:`(1 - z)_+`           :math:`[z < 1]`                    :math:`\alpha^\top K\alpha/2`  :math:`\eta\alpha_i`
``l2_svm``       :math:`\frac12(1 - z)_+^2`  :math:`(1 - z)_+`                  :math:`\alpha^\top K\alpha/2`  :math:`\eta\alpha_i`
``huber``        Huberized hinge (below)     :math:`\min(1, (1 - z)_+/\delta)`  :math:`\alpha^\top K\alpha/2`  :math:`\eta\alpha_i`
``logistic``     :math:`\log(1 + e^{-z})`    :math:`1/(1 + e^{z})`              :math:`\alpha^\top K\alpha/2`  :math:`\eta\alpha_i`
``exponential``  :math:`e^{-z}` (boosting)   :math:`e^{-\max(z, -50)}`          :math:`\|\alpha\|_1`           :math:`a - S_\eta(a)`
``ls_svm``       :math:`\frac12(1 - z)^2`    :math:`1 - z`                      :math:`\alpha^\top K\alpha/2`  :math:`\eta\alpha_i`
``l1_svm_l1``    :math:`(1 - z)_+`           :math:`[z < 1]`                    :math:`\|\alpha\|_1`           :math:`a - S_\eta(a)`
``l2_svm_l1``    :math:`\frac12(1 - z)_+^2`  :math:`(1 - z)_+`                  :math:`\|\alpha\|_1`           :math:`a - S_\eta(a)`
===============  ==========================  =================================  =============================  =====================

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
:math:`\frac12\alpha^\top K\alpha` models :math:`|\Lambda_i - P_i| = \eta\,|C y_i\psi(z_i) - \alpha_i|`, the distance of
:math:`\alpha_i` from its fixed point: the worst violator of the optimality conditions, the
choice of Kecman's ISDA and of OLLAWV (Melki et al. 2018), and the Gauss-Southwell rule of
coordinate descent. It needs the output vector (``update='output'``).

Two paths run the steps on the same index array (:mod:`lsl_lib._core.sampling`):
:func:`online_kernel_numpy_chunk`, the readable reference, and the compiled
:func:`online_kernel_numba_chunk`; same iterates, same cache hits and misses, on
dense rows or CSR rows (inner-product kernels, :func:`lsl_lib._core.kernel_loops.compiled_rows`).
:meth:`OnlineKernelClassifier.partial_fit` runs the same steps over a stream (see
its Notes: the output vector of the current chunk starts from the kernel expansion).

Notes
-----
A fixed point of the "w'w" rule has :math:`\alpha_i = C y_i \psi(z_i)` for every i
(and :math:`\sum_i y_i\psi(z_i) = 0` with a bias): the stationarity conditions of
:math:`J_K = \frac12\alpha^\top K\alpha + C\sum_i \ell(z_i)`, the kernel machine
with the RKHS norm :math:`\|w\|^2 = \alpha^\top K\alpha` (the step direction is
:math:`K^{-1}\nabla J_K`). For the LS-SVM without bias it is the linear system
:math:`(K + I/C)\alpha = y`, solved by a relaxed Gauss-Seidel sweep. So
``history_['rkhs_objective']`` (:math:`J_K`, free from the output vector:
:math:`\alpha^\top K\alpha = \alpha^\top f`) decreases steadily for a small
:math:`\eta`, while ``history_['objective']`` is a diagnostic, not the objective minimised: it
puts :math:`\frac12\|\alpha\|_2^2` (or :math:`\|\alpha\|_1`) in place of
:math:`\Omega`, drops in the first epochs and then may creep up. With the :math:`\|\alpha\|_1` models a
coefficient leaves 0 only where :math:`C\psi(z_i) > 1`: take C > 1 (with C = 1 the
hinge models stay at :math:`\alpha = 0`). Stability: the models with a bounded
:math:`\psi` (hinge, Huber, logistic) cannot overflow, but the LS-SVM's step is a
relaxation that converges only for :math:`\eta < 2/(C(K_{ii} + \beta) + 1)` (about
0.095 for C = 10 with a bias and a Gaussian kernel), and the exponential loss grows
without bound; a run whose coefficients grow by orders of magnitude (twelve over their
size after the first steps) or whose coefficients or losses overflow raises ``ValueError``.
The bias is updated by every example, so with a constant :math:`\eta` it ends in a
small cycle rather than a fixed point (use ``eta_decay``).

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
import math
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.kernel_loops import (
    INNER_PRODUCT_KERNELS,
    compiled_rows,
    kernel_column_numba,
    sparse_kernel_column_numba,
    take_lru_slot_numba,
)
from lsl_lib._core.random import check_random_state
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.sampling import SCHEMES, sample_indices
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    LEARNER_KERNEL_CONSTRAINTS,
    check_n_classes,
    signed_binary_labels,
)
from lsl_lib.kernels import (
    DEFAULT_KERNEL_EVALUATIONS,
    cache_slots,
    check_kernel_params,
    fitted_gamma,
    kernel_matrix,
    kernel_scores,
)

MODELS = ("l1_svm", "l2_svm", "huber", "logistic", "exponential", "ls_svm", "l1_svm_l1",
          "l2_svm_l1")
# Integer codes of the models inside compiled loops.
L1_SVM, L2_SVM, HUBER, LOGISTIC, EXPONENTIAL, LS_SVM, L1_SVM_L1, L2_SVM_L1 = range(8)
#: The margin loss of each model, and the models regularised by ||alpha||_1.
LOSS_OF = {"l1_svm": "hinge", "l2_svm": "squared_hinge", "huber": "huber",
           "logistic": "logistic", "exponential": "exponential", "ls_svm": "squared",
           "l1_svm_l1": "hinge", "l2_svm_l1": "squared_hinge"}
L1_REGULARISED = ("exponential", "l1_svm_l1", "l2_svm_l1")
UPDATES = ("output", "naive")
#: The sampling schemes of the online learner: the shared ones and the worst violator.
ONLINE_SCHEMES = SCHEMES + ("worst_violator",)
#: z below which the exponential loss's psi is clipped.
EXP_CLIP = -50.0


def psi(model, z, delta=0.5):
    r""":math:`\psi(z) = -\ell'(z)`, the loss part of the step, for an array of margins."""
    z = np.asarray(z, dtype=np.float64)
    loss = LOSS_OF[model]
    if loss == "hinge":
        return (z < 1.0).astype(np.float64)
    if loss == "squared_hinge":
        return np.maximum(0.0, 1.0 - z)
    if loss == "huber":
        return np.minimum(1.0, np.maximum(0.0, 1.0 - z) / delta)
    if loss == "logistic":
        e = np.exp(-np.abs(z))
        return np.where(z >= 0.0, e / (1.0 + e), 1.0 / (1.0 + e))
    if loss == "exponential":
        return np.exp(-np.maximum(z, EXP_CLIP))
    return 1.0 - z  # squared loss (LS-SVM)


def margin_loss(model, z, delta=0.5):
    r"""The margin loss :math:`\ell(z)` of the model (table of the module docstring)."""
    z = np.asarray(z, dtype=np.float64)
    loss = LOSS_OF[model]
    if loss == "hinge":
        return np.maximum(0.0, 1.0 - z)
    if loss == "squared_hinge":
        return 0.5 * np.maximum(0.0, 1.0 - z) ** 2
    if loss == "huber":
        quadratic = (1.0 - z) ** 2 / (2.0 * delta)
        return np.where(z >= 1.0, 0.0, np.where(z > 1.0 - delta, quadratic, 1.0 - z - delta / 2))
    if loss == "logistic":
        return np.logaddexp(0.0, -z)
    if loss == "exponential":
        with np.errstate(over="ignore"):
            return np.exp(-z)
    return 0.5 * (1.0 - z) ** 2


def lambda_and_penalty(model, z, y, alpha_i, eta, C, delta=0.5):
    r"""The two parts of one step, :math:`(\Lambda, P)`: the numpy reference.

    :math:`\Lambda = \eta C y \psi(z)`; :math:`P = \eta\alpha_i` for
    :math:`\frac12\|\alpha\|^2`, :math:`P = \operatorname{sign}(a)\min(\eta, |a|)`
    with :math:`a = \alpha_i + \Lambda` for :math:`\|\alpha\|_1`. The new coefficient
    is ``(alpha_i + Lam) - P``, evaluated in that order so that the soft threshold
    gives an exact 0 when :math:`|a| \le \eta`.
    """
    Lam = eta * C * y * float(psi(model, z, delta))
    if model in L1_REGULARISED:
        a = alpha_i + Lam
        return Lam, math.copysign(min(eta, abs(a)), a)
    return Lam, eta * alpha_i


@jit
def lambda_and_penalty_numba(code, z, y, alpha_i, eta, C, delta):
    """The same as :func:`lambda_and_penalty`, compiled, with the model as its code."""
    if code == L1_SVM or code == L1_SVM_L1:
        p = 1.0 if z < 1.0 else 0.0
    elif code == L2_SVM or code == L2_SVM_L1:
        p = max(0.0, 1.0 - z)
    elif code == HUBER:
        p = min(1.0, max(0.0, 1.0 - z) / delta)
    elif code == LOGISTIC:
        e = math.exp(-abs(z))
        p = e / (1.0 + e) if z >= 0.0 else 1.0 / (1.0 + e)
    elif code == EXPONENTIAL:
        p = math.exp(-max(z, EXP_CLIP))
    else:
        p = 1.0 - z
    Lam = eta * C * y * p
    if code == EXPONENTIAL or code == L1_SVM_L1 or code == L2_SVM_L1:
        a = alpha_i + Lam
        return Lam, math.copysign(min(eta, abs(a)), a)
    return Lam, eta * alpha_i


def regularised_risk(model, alpha, outputs, y, C, delta=0.5):
    r"""The diagnostic :math:`\frac12\|\alpha\|_2^2 + C\sum_i \ell(y_i o_i)` (or
    :math:`\|\alpha\|_1 + C\sum_i \ell(y_i o_i)` for the L1 models; ``outputs`` is o).

    Not the objective the "w'w" models minimise, :math:`\frac12\alpha^\top K\alpha
    + C\sum_i\ell` (``history_['rkhs_objective']``): see the module's Notes."""
    omega = np.abs(alpha).sum() if model in L1_REGULARISED else 0.5 * alpha @ alpha
    return float(omega + C * margin_loss(model, y * outputs, delta).sum())


class ColumnCache:
    """A bounded LRU cache of kernel columns :math:`K(:, x_i)`, held in arrays.

    ``slots[s]`` holds the column of example ``owner[s]``; ``slot_of[i]`` is the
    slot of example i (-1: not cached); ``last_used[s]`` is the clock at the last
    access of slot s (-1: empty). A miss fills the slot with the smallest
    ``last_used`` (the first empty one, else the least recently used). With no slot
    at all (``cache_size`` too small for one column) every access computes the
    column. ``counters`` holds the clock, hits, misses and kernel evaluations.
    The compiled loop works on the same arrays (:func:`cached_column_numba`).
    """

    def __init__(self, X, kernel, gamma, degree, coef0, cache_size):
        n = X.shape[0]
        n_slots = cache_slots(cache_size, n)
        self.X, self.kernel_args = X, (kernel, gamma, degree, coef0)
        self.slots = np.empty((n_slots, n))
        self.slot_of = np.full(n, -1, dtype=np.int64)
        self.owner = np.full(n_slots, -1, dtype=np.int64)
        self.last_used = np.full(n_slots, -1, dtype=np.int64)
        self.counters = np.zeros(4, dtype=np.int64)  # clock, hits, misses, kernel evaluations
        self.scratch = np.empty(n)

    def stats(self):
        """Kernel evaluations, hits and misses so far (columns of ``history_``)."""
        return dict(kernel_evaluations=int(self.counters[3]), cache_hits=int(self.counters[1]),
                    cache_misses=int(self.counters[2]))

    def column(self, i):
        """:math:`K(:, x_i)`, from the cache or computed (and then cached)."""
        self.counters[0] += 1
        s = self.slot_of[i]
        if s >= 0:
            self.counters[1] += 1
            self.last_used[s] = self.counters[0]
            return self.slots[s]
        self.counters[2] += 1
        self.counters[3] += len(self.slot_of)
        col = kernel_matrix(self.X, self.X[i:i + 1], *self.kernel_args)[:, 0]
        if len(self.slots) == 0:
            return col
        s = int(np.argmin(self.last_used))  # an empty slot (-1) or the least recently used
        if self.owner[s] >= 0:
            self.slot_of[self.owner[s]] = -1  # evict
        self.owner[s], self.slot_of[i], self.last_used[s] = i, s, self.counters[0]
        self.slots[s] = col
        return self.slots[s]


@jit
def cached_column_numba(X, Xt, x_data, x_indices, x_indptr, x_sq_norms, buffer, i, kcode, gamma,
                        degree, coef0, slots, slot_of, owner, last_used, counters, scratch):
    """:meth:`ColumnCache.column` compiled; the column is a view into ``slots`` (or ``scratch``).

    Dense X comes as ``Xt = X.T`` in C order, which :func:`lsl_lib.kernels.kernel_column_numba`
    reads so that its loops run along the n examples and vectorise. CSR X comes as the
    arrays of :func:`lsl_lib._core.kernel_loops.compiled_rows` (``x_indptr`` not empty; ``X`` and ``Xt``
    are then empty placeholders) and ``buffer``, d zeros: the column is one pass over the
    non-zeros of X (:func:`lsl_lib.kernels.sparse_kernel_column_numba`).
    """
    counters[0] += 1
    s = slot_of[i]
    if s >= 0:
        counters[1] += 1
        last_used[s] = counters[0]
        return slots[s]
    n = slot_of.shape[0]
    counters[2] += 1
    counters[3] += n
    if slots.shape[0] == 0:
        col = scratch
    else:
        s = take_lru_slot_numba(i, slot_of, owner, last_used)
        last_used[s] = counters[0]
        col = slots[s]
    if x_indptr.shape[0] > 0:
        sparse_kernel_column_numba(kcode, x_data, x_indices, x_indptr, x_sq_norms, i, gamma, degree,
                             coef0, buffer, col)
    else:
        kernel_column_numba(kcode, Xt, X[i], gamma, degree, coef0, col)
    return col


def online_kernel_numpy_chunk(X, y, alpha, f, b, indices, t0, model, C, eta, eta_decay, delta,
                              beta, naive, cache, max_evaluations=np.iinfo(np.int64).max):
    r"""Run steps t0, ..., t0+T-1 on the examples ``indices``: the readable reference.

    ``alpha`` (signed coefficients) and ``f`` (:math:`K\alpha`, the outputs without
    the bias) are updated in place and the new bias b is returned. With ``naive``,
    ``f`` is not updated: it holds the outputs of a previous model (zeros from
    scratch, see :func:`online_kernel`'s ``f_init``) to which the kernel sum is
    added. ``y`` holds -1/+1, ``beta`` is 1.0 to learn the bias, ``cache`` is the
    :class:`ColumnCache`; the other arguments are those of :func:`online_kernel`. The
    steps stop before one once the kernel evaluations ``cache.counters[3]`` have reached
    ``max_evaluations``. An index -1 asks for the worst violator (:func:`worst_violator`).
    Returns b and the number of steps run.
    """
    n = X.shape[0]
    for t, i in enumerate(indices, start=t0):
        if cache.counters[3] >= max_evaluations:
            return b, t - t0
        eta_t = eta / (1.0 + eta_decay * (t // n))
        if i < 0:  # sampling='worst_violator': the outputs f + b are at hand
            i = worst_violator(model, y, alpha, f + b, eta_t, C, delta)
        if naive:
            o_i = f[i] + alpha @ cache.column(i) + b  # a kernel sum: O(n) per step, always
        else:
            o_i = f[i] + b  # speed-up #2: the output is known
        Lam, P = lambda_and_penalty(model, y[i] * o_i, y[i], alpha[i], eta_t, C, delta)
        new = (alpha[i] + Lam) - P  # in this order: exactly 0 when the threshold zeroes a
        step = new - alpha[i]
        alpha[i] = new
        b += beta * Lam
        if not naive and step != 0.0:
            f += step * cache.column(i)  # speed-up #1: o <- o + (Lambda - P) K(:, x_i)
    return b, len(indices)


def worst_violator(model, y, alpha, outputs, eta, C, delta=0.5):
    r"""The example whose step would be the largest: :math:`\arg\max_i |\Lambda_i - P_i|`.

    All n steps at once from the outputs :math:`o = K\alpha + b` (no kernel evaluation).
    Ties go to the smaller margin :math:`z_i = y_i o_i`, then to the smaller index (at the
    start every hinge violator has the same step :math:`\eta C`).
    """
    z = y * outputs
    Lam = eta * C * y * psi(model, z, delta)
    if model in L1_REGULARISED:
        a = alpha + Lam
        P = np.copysign(np.minimum(eta, np.abs(a)), a)
    else:
        P = eta * alpha
    size = np.abs(((alpha + Lam) - P) - alpha)  # the step, evaluated as the update does
    ties = np.flatnonzero(size == size.max())
    return int(ties[np.argmin(z[ties])])


@jit
def worst_violator_numba(code, y, alpha, f, b, eta, C, delta):
    """The same choice as :func:`worst_violator`, compiled (``f`` = :math:`K\alpha`)."""
    best, best_size, best_z = 0, -1.0, 0.0
    for j in range(alpha.shape[0]):
        z = y[j] * (f[j] + b)
        Lam, P = lambda_and_penalty_numba(code, z, y[j], alpha[j], eta, C, delta)
        size = abs(((alpha[j] + Lam) - P) - alpha[j])
        if size > best_size or (size == best_size and z < best_z):
            best, best_size, best_z = j, size, z
    return best


@jit
def online_kernel_numba_chunk(X, Xt, x_data, x_indices, x_indptr, x_sq_norms, buffer, y, alpha, f,
                              b, indices, t0, code, C, eta, eta_decay, delta, beta, naive, kcode,
                              gamma, degree, coef0, slots, slot_of, owner, last_used, counters,
                              scratch, max_evaluations):
    """The same steps as :func:`online_kernel_numpy_chunk`, compiled; returns the new b and
    the number of steps run.

    The rows of X come as in :func:`cached_column_numba` (dense ``X`` and ``Xt``, or the
    CSR arrays and ``buffer``).
    """
    n = alpha.shape[0]
    for s in range(indices.shape[0]):
        if counters[3] >= max_evaluations:
            return b, s
        i = indices[s]
        eta_t = eta / (1.0 + eta_decay * ((t0 + s) // n))
        if i < 0:  # sampling='worst_violator'
            i = worst_violator_numba(code, y, alpha, f, b, eta_t, C, delta)
        if naive:
            col = cached_column_numba(X, Xt, x_data, x_indices, x_indptr, x_sq_norms, buffer, i,
                                      kcode, gamma, degree, coef0, slots, slot_of, owner,
                                      last_used, counters, scratch)
            o_i = f[i] + np.dot(alpha, col) + b
        else:
            o_i = f[i] + b
        Lam, P = lambda_and_penalty_numba(code, y[i] * o_i, y[i], alpha[i], eta_t, C, delta)
        new = (alpha[i] + Lam) - P
        step = new - alpha[i]
        alpha[i] = new
        b += beta * Lam
        if not naive and step != 0.0:
            col = cached_column_numba(X, Xt, x_data, x_indices, x_indptr, x_sq_norms, buffer, i,
                                      kcode, gamma, degree, coef0, slots, slot_of, owner,
                                      last_used, counters, scratch)
            for j in range(n):
                f[j] += step * col[j]
    return b, indices.shape[0]


class OnlineKernelState:
    r"""Where a run stands: coefficients, :math:`f = K\alpha`, bias, steps done, cache."""

    def __init__(self, n_samples, cache=None):
        self.alpha = np.zeros(n_samples)
        self.f = np.zeros(n_samples)
        self.b = 0.0
        self.t = 0
        self.cache = cache

    @property
    def outputs(self):
        r"""The training outputs :math:`o = K\alpha + b`."""
        return self.f + self.b


def _check_args(model, C, eta, eta_decay, delta, n_epochs, update, sampling, cache_size,
                record_every, max_kernel_evaluations):
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}.")
    for name, value, low in [("C", C, 0), ("eta", eta, 0), ("delta", delta, 0),
                             ("eta_decay", eta_decay, None), ("cache_size", cache_size, None)]:
        if not (isinstance(value, Real) and (value > 0 if low == 0 else value >= 0)):
            raise ValueError(f"{name} must be a number {'>' if low == 0 else '>='} 0, "
                             f"got {value!r}.")
    if not (isinstance(n_epochs, Integral) and n_epochs >= 1):
        raise ValueError(f"n_epochs must be an int >= 1, got {n_epochs!r}.")
    for name, value in [("record_every", record_every),
                        ("max_kernel_evaluations", max_kernel_evaluations)]:
        if value is not None and not (isinstance(value, Integral) and value >= 1):
            raise ValueError(f"{name} must be None or an int >= 1, got {value!r}.")
    for name, value, options in [("update", update, UPDATES),
                                 ("sampling", sampling, ONLINE_SCHEMES)]:
        if value not in options:
            raise ValueError(f"{name} must be one of {options}, got {value!r}.")
    if sampling == "worst_violator" and update == "naive":
        raise ValueError("sampling='worst_violator' reads the margins off the output vector: it "
                         "needs update='output', got update='naive'.")


def online_kernel(X, y, model="l1_svm", *, C=1.0, eta=0.1, eta_decay=0.0, delta=0.5, bias=False,
                  kernel="gaussian", gamma=None, degree=3, coef0=1.0, n_epochs=10,
                  sampling="reshuffle", update="output", cache_size=200.0,
                  max_kernel_evaluations=None, record_every=None, monitor=None, backend="auto",
                  random_state=None, order=None, f_init=None, b_init=0.0, out=None,
                  verbose=False):
    r"""Run ``n_epochs`` epochs of the unified online kernel learner on prepared arrays.

    The functional core of :class:`OnlineKernelClassifier` (whose docstring describes
    the parameters): X a finite float array or CSR matrix (inner-product kernels),
    y already -1/+1. ``monitor(alpha, b)``, if given, returns a dict of extra columns
    for each record. ``max_kernel_evaluations`` (None: no limit) stops the run before
    its ``n_epochs * n`` steps once that many kernel values have been computed (the
    ``kernel_evaluations`` counter: the same step on both paths); ``state.t`` is then
    the number of steps run.

    The last three arguments continue a model (:meth:`OnlineKernelClassifier.partial_fit`):

    order : ndarray of int or None, default=None
        The examples of the steps, in order, instead of ``n_epochs * n`` drawn by
        ``sampling`` (which, with ``n_epochs`` and ``random_state``, is then unused).
        The step size of step t is that of epoch ``t // n``.
    f_init : ndarray of shape (n,) or None, default=None
        The outputs, without bias, of a model learnt before on other examples:
        :math:`f = f_{\text{init}} + K\alpha`, where α, the coefficients of X's
        examples, start at 0.
    b_init : float, default=0.0
        The bias to start from.

    And, for :meth:`OnlineKernelClassifier.partial_fit` and the estimator's ``verbose``:

    out : OnlineKernelState or None, default=None
        A new ``OnlineKernelState(n)`` to run in, instead of one made here: after a
        ``KeyboardInterrupt`` it holds the steps of the last whole chunk (``out.t`` of
        them), which :meth:`OnlineKernelClassifier.partial_fit` keeps.
    verbose : bool, default=False
        A progress bar for a run longer than a few seconds.

    Returns
    -------
    state : OnlineKernelState
        ``state.alpha``, ``state.b``, ``state.outputs``, ``state.cache``.
    history : dict of ndarray
        Columns ``iteration``, ``epoch``, ``seconds``, ``objective``,
        ``rkhs_objective``, ``train_error``, ``n_nonzero``, ``kernel_evaluations``,
        ``cache_hits``, ``cache_misses`` and the monitor's; empty when
        ``record_every`` is None (it must be None with ``f_init``: the objectives are
        those of the model learnt from X alone).

    Raises
    ------
    ValueError
        When the run diverges: the coefficients or the bias grow by orders of magnitude
        (:data:`~lsl_lib._core.run_loop.DIVERGENCE_GROWTH` over their size after the
        first chunk) or overflow, or (``update='output'``) a loss overflows.
    KeyboardInterrupt
        On Ctrl-C, within a chunk's length (:func:`~lsl_lib._core.run_loop.run_chunks`).
        The steps run in chunks of about 0.1 s; α, f, b and the cache with its counters
        carry from one chunk to the next, so the iterates do not depend on where the
        chunks end.
    """
    _check_args(model, C, eta, eta_decay, delta, n_epochs, update, sampling, cache_size,
                record_every, max_kernel_evaluations)
    y = np.ascontiguousarray(y, dtype=np.float64)
    X = X if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be 2-D with at least one row and y of length n, got shapes "
                         f"{X.shape} and {y.shape}.")
    rows = compiled_rows(X, kernel)
    if not sp.issparse(X):
        X = rows[0]
    if not (np.isfinite(X.data if sp.issparse(X) else X).all() and np.all(np.abs(y) == 1.0)):
        raise ValueError("X must be finite and y must hold labels -1 and +1.")
    kcode, gamma, degree, coef0 = check_kernel_params(kernel, gamma, degree, coef0, X.shape[1])
    path = resolve_backend(backend)
    n = X.shape[0]
    if order is None and sampling == "worst_violator":
        indices = np.full(n_epochs * n, -1, dtype=np.int64)  # -1: chosen at each step
    elif order is None:
        indices = sample_indices(n, n_epochs * n, 1, sampling, check_random_state(random_state))
        indices = indices[:, 0]
    else:
        indices = np.asarray(order, dtype=np.int64)
        if indices.ndim != 1 or not np.all((indices >= 0) & (indices < n)):
            raise ValueError(f"order must hold indices of X's {n} rows.")
    f0 = np.zeros(n) if f_init is None else np.array(f_init, dtype=np.float64)
    if f0.shape != (n,) or not np.all(np.isfinite(f0)) or not np.isfinite(b_init):
        raise ValueError(f"f_init must hold {n} finite outputs and b_init be finite.")
    if f_init is not None and record_every is not None:
        raise ValueError("record_every must be None when a model is continued (f_init).")
    if out is not None and (out.alpha.shape != (n,) or out.t != 0 or np.any(out.alpha)):
        raise ValueError(f"out must be a new OnlineKernelState({n}).")
    cache = ColumnCache(X, kernel, gamma, degree, coef0, cache_size)
    state = OnlineKernelState(n) if out is None else out
    state.cache, state.f, state.b = cache, f0.copy(), float(b_init)
    naive = update == "naive"
    if path == "numba":
        # dense: columns of K are computed along the examples of X.T; CSR: a row of X is
        # scattered into d zeros (sparse_kernel_column_numba)
        Xt = np.ascontiguousarray(rows[0].T)
        buffer = np.zeros(X.shape[1] if sp.issparse(X) else 0)
    trace = Trace()

    def exact_f():  # f_init + K alpha from scratch, over the support
        support = np.flatnonzero(state.alpha)
        K_S = kernel_matrix(X, X[support], kernel, gamma, degree, coef0)
        return f0 + K_S @ state.alpha[support]

    def record():
        f = exact_f() if naive else state.f
        o = f + state.b
        loss = C * margin_loss(model, y * o, delta).sum()
        trace.record(iteration=state.t, epoch=state.t / n, seconds=trace.seconds,
                     objective=regularised_risk(model, state.alpha, o, y, C, delta),
                     rkhs_objective=float(0.5 * state.alpha @ f + loss),
                     train_error=float(np.mean(np.where(o > 0, 1.0, -1.0) != y)),
                     n_nonzero=int(np.count_nonzero(state.alpha)), **cache.stats(),
                     **(monitor(state.alpha, state.b) if monitor is not None else {}))

    budget = np.iinfo(np.int64).max if max_kernel_evaluations is None else max_kernel_evaluations

    def step(start, stop):
        if path == "numba":
            state.b, done = online_kernel_numba_chunk(
                rows[0], Xt, *rows[1:], buffer, y, state.alpha, state.f, state.b,
                indices[start:stop], start, MODELS.index(model), float(C), float(eta),
                float(eta_decay), float(delta), float(bias), naive, kcode, gamma, degree, coef0,
                cache.slots, cache.slot_of, cache.owner, cache.last_used, cache.counters,
                cache.scratch, int(budget))
        else:
            state.b, done = online_kernel_numpy_chunk(
                X, y, state.alpha, state.f, state.b, indices[start:stop], start, model, C, eta,
                eta_decay, delta, float(bias), naive, cache, budget)
        state.t = start + done
        return done < stop - start  # the evaluation budget is spent

    def norm():
        """The size of (α, b); inf once a loss overflows (the output vector is at hand
        with ``update='output'``: O(n), as one step)."""
        size = math.sqrt(float(state.alpha @ state.alpha) + state.b ** 2)
        if not naive:
            with np.errstate(over="ignore", invalid="ignore"):  # what is being detected
                if not np.isfinite(margin_loss(model, y * (state.f + state.b), delta)).all():
                    return math.inf
        return size

    def diverged(done):
        return (f"The online kernel learner diverged by step {done}: the coefficients or the "
                f"losses overflowed or grew by orders of magnitude with model={model!r}, "
                f"eta={eta}, C={C}. Use a smaller eta or C: 'ls_svm' is stable only for "
                "eta < 2 / (C (K_ii + beta) + 1), and the exponential loss grows without bound.")

    run_chunks(trace, len(indices), step, record_every=record_every, record=record, norm=norm,
               diverged=diverged, verbose=verbose, desc="online kernel", unit="step")
    if naive:
        state.f = exact_f()
    return state, trace.history()


class OnlineKernelClassifier(ScoreClassifierMixin, BaseEstimator):
    r"""Kernel classifier trained by the unified online kernel learner.

    Learns :math:`o(x) = \sum_j \alpha_j K(x, x_j) + b` by the coordinate-wise
    steps of :mod:`lsl_lib.online_kernel`, with one of its eight models. Labels of
    any type are mapped to -1/+1 (``classes_[1]`` is +1); more than two classes are
    learnt one-vs-rest, one binary model per class (``estimators_``), as ``LinearSVC``
    does. :meth:`fit` makes ``n_epochs`` passes over a training set; :meth:`partial_fit`
    learns from a stream, one pass over each chunk.

    Parameters
    ----------
    model : {'l1_svm', 'l2_svm', 'huber', 'logistic', 'exponential', 'ls_svm', \
'l1_svm_l1', 'l2_svm_l1'}, default='l1_svm'
        The loss and regulariser (table of the module docstring).
    C : float, default=1.0
        Weight :math:`C > 0` of the loss. The :math:`\|\alpha\|_1` models need C > 1.
    eta : float, default=0.1
        Step size :math:`\eta > 0`; keep :math:`\eta C` at about 1 or less.
    eta_decay : float, default=0.0
        Epoch e uses :math:`\eta/(1 + \text{eta\_decay}\cdot e)`; 0 keeps it constant.
        :meth:`partial_fit` is always in epoch 0.
    delta : float, default=0.5
        Width :math:`\delta > 0` of the Huberized hinge.
    bias : bool, default=False
        Learn the bias b (:math:`\beta = 1`); otherwise b = 0.
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
        As in :func:`lsl_lib.kernels.kernel_matrix`.
    gamma : float, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d\,\operatorname{Var}(X))`, scikit-learn's
        ``SVC`` default (:func:`lsl_lib.kernels.fitted_gamma`; with :meth:`partial_fit`,
        from the first chunk); ``None`` is 1/d.
    degree, coef0 : default=3, 1.0
        The polynomial kernel's.
    n_epochs : int or None, default=None
        Epochs of n steps each (:meth:`fit` only); ``None`` runs ten, or fewer: it stops
        once :data:`~lsl_lib.kernels.DEFAULT_KERNEL_EVALUATIONS` (:math:`5\cdot 10^8`)
        kernel values have been computed, with a ``ConvergenceWarning`` (see Notes).
    sampling : {'iid', 'permutation', 'reshuffle', 'worst_violator'}, default='reshuffle'
        How :meth:`fit` draws the examples (:mod:`lsl_lib._core.sampling`), or
        ``'worst_violator'``: at each step the example whose step would be the largest (the
        module docstring; needs ``update='output'``, O(n) per step, no random draw).
        :meth:`partial_fit` takes them in the order given.
    update : {'output', 'naive'}, default='output'
        ``'output'`` keeps the vector of training outputs (the lecture's two
        speed-ups); ``'naive'`` recomputes each :math:`o_i` by a kernel sum (the same
        iterates, slower: for timing the speed-ups).
    cache_size : float, default=200
        Megabytes of cached kernel columns (LRU); too small for one column, every
        column is computed when needed.
    record_every : int or None, default=None
        Record ``history_`` every that many steps of :meth:`fit`; ``None`` records nothing.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the sampling; the same seed gives the same iterates on both backends.
    verbose : bool, default=False
        Show a progress bar when a fit takes more than a few seconds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (n_seen,)
        The signed coefficients of every example learnt from: the training set of
        :meth:`fit`, then the examples of each :meth:`partial_fit` chunk, in order.
    intercept_ : float
        b.
    support_ : ndarray of shape (n_SV,)
        Indices (into ``alpha_``) of the examples with :math:`\alpha_i \neq 0`.
    support_vectors_ : ndarray or CSR matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_SV,)
        ``alpha_[support_]``.
    n_support_ : ndarray of shape (2,)
        Number of support vectors of each class.
    n_iter_ : int
        Steps done: ``n_epochs * n_samples`` by :meth:`fit` (fewer if the default stopped
        early), plus one per example given to :meth:`partial_fit`.
    gamma_ : float
        The kernel width used.
    history_ : dict of ndarray
        ``iteration``, ``epoch``, ``seconds``, ``objective`` (the diagnostic
        :math:`\frac12\|\alpha\|_2^2 + C\sum_i\ell(y_i o_i)`, or :math:`\|\alpha\|_1 + \dots`),
        ``rkhs_objective`` (:math:`\frac12\alpha^\top K\alpha + C\sum_i\ell(y_i o_i)`, minimised by
        the "w'w" models), ``train_error``,
        ``n_nonzero``, ``kernel_evaluations``, ``cache_hits``, ``cache_misses``, and
        ``test_error`` with ``fit(..., eval_set=(X_test, y_test))``; recorded by
        :meth:`fit` (empty after :meth:`partial_fit` alone); with more than two classes,
        one row per class.
    estimators_ : list of OnlineKernelClassifier or None
        With more than two classes, the binary model of each class of ``classes_`` (its
        labels ``y == classes_[k]``), which hold the attributes above; None for two.
    n_features_in_ : int

    See Also
    --------
    sklearn.svm.SVC : the batch L1 SVM (SMO), with the RKHS regulariser.
    lsl_lib.pegasos.PegasosClassifier : the linear stochastic subgradient solver.
    lsl_lib.budgeted.BudgetedKernelSGDClassifier : a kernel SVM on a support of fixed size,
        for large n.

    Notes
    -----
    X may be a CSR matrix with the inner-product kernels (linear, polynomial,
    Gaussian): kernel columns on CSR rows, in both paths (:func:`online_kernel`).

    **Learning from a stream.** Within :meth:`fit`, the output vector
    :math:`o = K\alpha + b` over the training set is a cache of the outputs of examples
    that will be drawn again. A stream visits each example once, so
    :meth:`partial_fit` keeps no outputs of past examples: a chunk's outputs start
    from the kernel expansion of the support learnt so far,
    :math:`o_i = \sum_{j \in SV} \alpha_j K(x_i, x_j) + b` (one
    :math:`m \times n_{SV}` kernel block), then the chunk's examples are stepped
    through once, in the order given, with the output updates of speed-up #1 inside
    the chunk; those whose :math:`\alpha_i` ends non-zero join the support. So one
    epoch of :meth:`fit` whose sampling visits each example once (``'permutation'``
    or ``'reshuffle'`` with ``n_epochs=1``) and :meth:`partial_fit` over chunks of the
    examples in the same order give the same model: at its single visit an example's
    output is the expansion over the examples visited before it either way. (With
    ``'iid'`` an example drawn twice would be two examples of the stream.) The step
    size of a stream is :math:`\eta` (``eta_decay`` counts epochs of :meth:`fit`).
    With more than two classes each call of :meth:`partial_fit` continues the binary
    model of every class on the same chunk.

    **Interrupting.** Ctrl-C (or Jupyter's interrupt) stops a fit within about 0.1 s
    (:func:`~lsl_lib._core.run_loop.run_chunks`). :meth:`fit` leaves the estimator
    unfitted; :meth:`partial_fit` keeps the model of its last whole chunk of steps: the
    examples of the call stepped through so far are learnt, the rest are not (with more
    than two classes: the classes' models before the interrupted one have learnt the
    whole call, those after it nothing of it).

    **Defaults.** ``gamma='scale'`` adapts the width to the data, as ``SVC`` does;
    γ = 1/d assumes unit-variance features and is 10 and 15 times smaller than
    ``'scale'`` on a9a and ijcnn1. Measured on 3 000 training and 5 000 test rows,
    ``OnlineKernelClassifier()`` reaches 83.9 % on a9a and 92.6 % on ijcnn1, against
    83.9 % and 92.8 % for ``SVC()`` (83.1 % and 90.7 % with γ = 1/d). The L1 SVM
    (bounded :math:`\psi`) with C = 1, as ``SVC``, and :math:`\eta C = 0.1` cannot
    diverge, and ten epochs reach that accuracy.

    **Cost, and large n.** A step that moves a coefficient costs a kernel column of n
    values and an update of the n outputs, O(n) whatever the support; every margin
    violator moves, and so does every :math:`\alpha_i \neq 0` at each visit (the decay
    :math:`\eta\alpha_i`). An epoch costs about :math:`n \cdot n_{SV}` kernel
    evaluations: 4.6·10^8 for the first epoch of ijcnn1 (49 990 rows, 9 129
    coefficients moved), and the 200 MB column cache holds 524 of its columns. Ten
    epochs cannot be had in a notebook's time at this size, so ``n_epochs=None`` stops
    at :data:`~lsl_lib.kernels.DEFAULT_KERNEL_EVALUATIONS` = 5·10^8 evaluations, with
    a ``ConvergenceWarning``: 1.3 epochs of a9a and 1.1 of ijcnn1, 21-22 s of CPU (about
    30 s on a shared machine). On the full training and test files this reaches 85.1 %
    on a9a and 94.2 % on ijcnn1, against 85.1 % and 98.1 % for ``SVC()``: on ijcnn1 one
    epoch is far from the SVM, and more epochs come slowly (on 10 000 of its rows, five
    epochs reach 93.5 % where ``SVC()`` reaches 94.6 %; :math:`\eta = 1` gains on ijcnn1
    what it loses on a9a, and a bias changes neither). Ten epochs always fit the budget
    up to n = 7 000 (:math:`10 n \cdot n \le 5\cdot 10^8`). The learner is the lecture's;
    for 50 000 rows, :class:`~lsl_lib.budgeted.BudgetedKernelSGDClassifier` keeps a
    support of fixed size, and :class:`~lsl_lib.nystroem.Nystroem` or random Fourier
    features followed by a linear SVM cost O(D) per example.

    References
    ----------
    See :mod:`lsl_lib.online_kernel`.

    Examples
    --------
    >>> from lsl_lib.datasets import concentric_circles
    >>> from lsl_lib.online_kernel import OnlineKernelClassifier
    >>> X, y = concentric_circles(400, random_state=0)
    >>> clf = OnlineKernelClassifier(model='l2_svm', gamma=2.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.99
    True
    """

    _parameter_constraints = {
        "model": [StrOptions(set(MODELS))],
        "C": [Interval(Real, 0, None, closed="neither")],
        "eta": [Interval(Real, 0, None, closed="neither")],
        "eta_decay": [Interval(Real, 0, None, closed="left")],
        "delta": [Interval(Real, 0, None, closed="neither")],
        "bias": ["boolean"],
        **LEARNER_KERNEL_CONSTRAINTS,
        "n_epochs": [Interval(Integral, 1, None, closed="left"), None],
        "update": [StrOptions(set(UPDATES))],
        "cache_size": [Interval(Real, 0, None, closed="left")],
        "verbose": ["boolean"],
        **ITERATIVE_CONSTRAINTS,
        "sampling": [StrOptions(set(ONLINE_SCHEMES))],
    }

    def __init__(self, model="l1_svm", C=1.0, eta=0.1, eta_decay=0.0, delta=0.5, bias=False,
                 kernel="gaussian", gamma="scale", degree=3, coef0=1.0, n_epochs=None,
                 sampling="reshuffle", update="output", cache_size=200.0, record_every=None,
                 backend="auto", random_state=None, verbose=False):
        self.model = model
        self.C = C
        self.eta = eta
        self.eta_decay = eta_decay
        self.delta = delta
        self.bias = bias
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_epochs = n_epochs
        self.sampling = sampling
        self.update = update
        self.cache_size = cache_size
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    def _step_params(self):
        """The arguments of :func:`online_kernel` that both fit and partial_fit pass."""
        return dict(C=self.C, eta=self.eta, eta_decay=self.eta_decay, delta=self.delta,
                    bias=self.bias, kernel=self.kernel, gamma=self.gamma_, degree=self.degree,
                    coef0=self.coef0, update=self.update, backend=self.backend,
                    verbose=self.verbose)

    def _expansion(self, X):
        r""":math:`\sum_{j \in SV} \alpha_j K(x, x_j)` for the rows of X (validated), in row
        blocks (:func:`lsl_lib.kernels.kernel_scores`)."""
        return kernel_scores(X, self.support_vectors_, self.dual_coef_, self.kernel, self.gamma_,
                             self.degree, self.coef0)

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, eval_set=None):
        """Fit by ``n_epochs`` epochs of steps from :math:`\\alpha = 0, b = 0` (per class,
        one-vs-rest, for more than two classes).

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        eval_set : tuple (X_test, y_test), optional
            Held-out data whose error is recorded in ``history_['test_error']``.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        check_n_classes(self.classes_, self.model, ())
        self.estimators_ = None
        self.gamma_ = fitted_gamma(self.gamma, X)
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, eval_set=eval_set)
        monitor = None
        if eval_set is not None:  # validated once here, then scored directly at each record
            X_eval = validate_data(self, eval_set[0], accept_sparse="csr", dtype=np.float64,
                                   reset=False)
            y_eval = np.asarray(eval_set[1])

            def monitor(alpha, b):
                support = np.flatnonzero(alpha)
                s = kernel_scores(X_eval, X[support], alpha[support], self.kernel, self.gamma_,
                                  self.degree, self.coef0) + b
                return {"test_error": float(np.mean(self.classes_[(s > 0).astype(int)] != y_eval))}

        n, n_epochs = X.shape[0], self.n_epochs if self.n_epochs is not None else 10
        state, self.history_ = online_kernel(
            X, signed_binary_labels(y, self.classes_), self.model, n_epochs=n_epochs,
            sampling=self.sampling, cache_size=self.cache_size,
            max_kernel_evaluations=DEFAULT_KERNEL_EVALUATIONS if self.n_epochs is None else None,
            record_every=self.record_every, monitor=monitor, random_state=self.random_state,
            **self._step_params())
        if state.t < n_epochs * n:
            warnings.warn(
                f"OnlineKernelClassifier stopped after {state.t:,} steps ({state.t / n:.2g} of "
                f"the 10 epochs of n_epochs=None), at the default budget of "
                f"{DEFAULT_KERNEL_EVALUATIONS:.0e} kernel evaluations: a step that moves a "
                f"coefficient costs a kernel column of n = {n:,} values, and "
                f"{np.count_nonzero(state.alpha):,} coefficients move at every visit now. Pass "
                "n_epochs to run longer; for n this large, BudgetedKernelSGDClassifier "
                "(lsl_lib.budgeted) or Nystroem + a linear SVM cost O(budget) per example "
                "instead.", ConvergenceWarning)
        self.alpha_ = state.alpha
        self.intercept_ = float(state.b)
        self.support_ = np.flatnonzero(self.alpha_)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = self.alpha_[self.support_]
        self.n_support_ = np.array([np.sum(y[self.support_] == c) for c in self.classes_])
        self.n_iter_ = state.t
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None):
        """One pass over a chunk of a stream, in the order given, continuing the model.

        The chunk's outputs start from the current kernel expansion and bias; each
        example is stepped through once (the Notes say why this is one epoch of
        :meth:`fit` on the same order), and those with a non-zero coefficient join
        the support. ``n_epochs``, ``sampling``, ``random_state`` and
        ``record_every`` are not used. On Ctrl-C the examples stepped through so far
        are kept (Notes).

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            The classes of the whole stream: required on the first call, as in
            scikit-learn, and ignored (if equal) afterwards.
        """
        first_call = _check_partial_fit_first_call(self, classes)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             reset=first_call)
        check_classification_targets(y)
        if first_call:
            check_n_classes(self.classes_, self.model, ())
            self.estimators_ = None
            self.gamma_ = fitted_gamma(self.gamma, X)
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if len(unseen):
            raise ValueError(f"y holds labels {unseen!r} that are not in classes_ "
                             f"{self.classes_!r} (given to the first call of partial_fit).")
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, partial=True)
        if first_call:
            self.alpha_, self.intercept_ = np.zeros(0), 0.0
            self.support_, self.support_vectors_ = np.zeros(0, dtype=np.intp), X[:0]
            self.dual_coef_, self.n_support_ = np.zeros(0), np.zeros(2, dtype=np.intp)
            self.n_iter_, self.history_ = 0, {}
        state = OnlineKernelState(X.shape[0])
        try:
            online_kernel(X, signed_binary_labels(y, self.classes_), self.model,
                          order=np.arange(X.shape[0]), f_init=self._expansion(X),
                          b_init=self.intercept_, cache_size=0, out=state,
                          **self._step_params())  # each column is needed once at most: no cache
        except KeyboardInterrupt:  # keep the examples of the last whole chunk of steps
            self._learn_chunk(X[:state.t], y[:state.t], state.alpha[:state.t], state.b)
            raise
        self._learn_chunk(X, y, state.alpha, state.b)
        return self

    def _learn_chunk(self, X, y, alpha, b):
        """Append the coefficients ``alpha`` of the examples X (labels y), stepped through
        by :meth:`partial_fit`, and the new bias b to the model."""
        new = np.flatnonzero(alpha)
        stack = sp.vstack if sp.issparse(X) or sp.issparse(self.support_vectors_) else np.vstack
        self.support_vectors_ = stack([self.support_vectors_, X[new]])
        if stack is sp.vstack:
            self.support_vectors_ = sp.csr_matrix(self.support_vectors_)
        self.support_ = np.concatenate([self.support_, len(self.alpha_) + new])
        self.alpha_ = np.concatenate([self.alpha_, alpha])
        self.dual_coef_ = self.alpha_[self.support_]
        self.n_support_ = self.n_support_ + [np.sum(y[new] == c) for c in self.classes_]
        self.intercept_ = float(b)
        self.n_iter_ += len(alpha)

    def _decision_scores(self, X):
        r""":math:`o(x) = \sum_{j \in SV} \alpha_j K(x, x_j) + b`; > 0 means ``classes_[1]``."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._expansion(X) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel in INNER_PRODUCT_KERNELS
        return tags
