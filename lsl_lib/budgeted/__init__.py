r"""Budgeted kernel machines: a kernel model whose size does not grow with the data.

Why budgets. Kernel Pegasos (lecture 03) adds every margin violator to its support:
after T iterations the model holds O(T) support vectors, and each iteration and each
prediction costs O(T) kernel values. The BudgetedSVM toolbox (Djuric et al. 2013)
answers with three machines that keep a fixed budget B, one file each:

- **BSGD** (Wang, Crammer, Vucetic 2012), :class:`BudgetedKernelSGDClassifier`
  (``_bsgd.py``, its budget maintenance in ``_maintenance.py``): kernel Pegasos with real
  coefficients. Each step shrinks the coefficients by :math:`(1 - 1/t)` and a violator
  joins the support with :math:`\eta_t y_t`, :math:`\eta_t = 1/(\lambda t)`; when the
  support exceeds B, *budget maintenance* changes :math:`w` by a small :math:`\Delta_t`
  to bring it back to B: remove the smallest support vector, project it onto the others,
  or merge it with another into one new point. Wang et al. treat
  :math:`E_t = \Delta_t/\eta_t` as an error of the gradient step (their Theorem 1): the
  average objective along the run comes within :math:`2U\bar E` of the optimum's,
  :math:`\bar E = \frac1T\sum_t\|E_t\|` the average gradient error (recorded as
  ``gradient_error_``).
- **AMM** (Wang, Djuric, Crammer, Vucetic 2011), :class:`AdaptiveMultiHyperplaneClassifier`
  (``_amm.py``): up to B linear hyperplanes per class, the score of a class the largest
  of its hyperplanes' scores; SGD on that piecewise-linear model, with pruning of small
  hyperplanes.
- **LLSVM** (Zhang, Lan, Wang, Moerchen 2012), :class:`LowRankLinearizedSVC`
  (``_llsvm.py``): B landmarks, the Nyström map :math:`K_{BB}^{-1/2} k_B(x)`, then a
  linear SVM on those B features.

Training, prediction and model size are O(B) kernel values per example for BSGD and
LLSVM, O(B d) for AMM, against O(T) for kernel Pegasos.

Each reference and its compiled twin (the table of each file's docstring):

===================================  =============================  ==========================
paper                                reference                      compiled
===================================  =============================  ==========================
BSGD, Alg. 1: the steps of a chunk   :func:`bsgd_numpy_chunk`       ``_bsgd_numba_chunk``
BSGD maintenance: removal            :func:`removal_numpy`          ``_removal_numba``
BSGD maintenance: projection         :func:`projection_numpy`       ``_projection_numba``
BSGD maintenance: merging            :func:`merging_numpy`          ``_merging_numba``
merging: :math:`\|A_z\|^2` at h      :func:`merge_objective_numpy`  ``_merge_objective_numba``
merging: golden-section search of h  :func:`golden_section_numpy`   ``_golden_section_numba``
merging: h of a partner              :func:`merge_position_numpy`   ``_merge_position_numba``
AMM: the steps of a chunk            :func:`amm_numpy_chunk`        ``_amm_numba_chunk``
===================================  =============================  ==========================

References
----------
Wang, Crammer, Vucetic. Breaking the curse of kernelization: budgeted stochastic
gradient descent for large-scale SVM training. JMLR 13, 2012, 3103-3131.

Wang, Djuric, Crammer, Vucetic. Trading representability for scalability: adaptive
multi-hyperplane machine for nonlinear classification. KDD 2011.

Zhang, Lan, Wang, Moerchen. Scaling up kernel SVM on limited resources: a low-rank
linearization approach. AISTATS 2012.

Djuric, Lan, Vucetic, Wang. BudgetedSVM: a toolbox for scalable SVM approximations.
JMLR 14, 2013, 3813-3817.
"""
from lsl_lib.budgeted._amm import (
    AdaptiveMultiHyperplaneClassifier,
    amm,
    amm_assignments,
    amm_class_scores,
    amm_numpy_chunk,
    amm_objective,
    prune_hyperplanes,
)
from lsl_lib.budgeted._bsgd import (
    BudgetedKernelSGDClassifier,
    BudgetedSGDState,
    bsgd,
    bsgd_numpy_chunk,
    bsgd_objective,
    support_and_coefficients,
)
from lsl_lib.budgeted._checks import warn_if_kernel_is_flat
from lsl_lib.budgeted._llsvm import LowRankLinearizedSVC
from lsl_lib.budgeted._maintenance import (
    PROJECTION_JITTER,
    count_kernel_evaluations,
    golden_section_numpy,
    merge_objective_numpy,
    merge_position_numpy,
    merging_numpy,
    projection_numpy,
    removal_numpy,
    remove_slot_numpy,
    smallest_norm_numpy,
)

__all__ = [
    # the estimators
    "AdaptiveMultiHyperplaneClassifier", "BudgetedKernelSGDClassifier", "LowRankLinearizedSVC",
    # the functional cores and what they return
    "BudgetedSGDState", "amm", "bsgd", "amm_assignments", "amm_class_scores", "amm_objective",
    "bsgd_objective", "prune_hyperplanes", "support_and_coefficients", "warn_if_kernel_is_flat",
    "count_kernel_evaluations",
    # the numpy references
    "amm_numpy_chunk", "bsgd_numpy_chunk", "golden_section_numpy", "merge_objective_numpy",
    "merge_position_numpy", "merging_numpy", "projection_numpy", "removal_numpy",
    "remove_slot_numpy", "smallest_norm_numpy",
    # the constants
    "PROJECTION_JITTER",
]


def __dir__():
    return __all__
