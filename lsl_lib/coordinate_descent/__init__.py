r"""Coordinate descent: dual CD for linear SVMs, the Lasso, block CD for kernel ridge.

Coordinate descent minimises exactly over one coordinate (or one block) at a time,
keeping up to date the one vector that makes each step cheap.

**Dual CD for linear SVMs** (Hsieh et al. 2008; liblinear, ``LinearSVC``). The primal
:math:`P(w) = \frac12\|w\|^2 + C\sum_i \xi_i`, with the hinge
:math:`\xi_i = \max(0, 1 - y_i w^\top x_i)` or its square, has the dual

.. math::

    \min_\alpha \tfrac12 \alpha^\top \bar Q \alpha - e^\top\alpha, \quad 0 \le \alpha_i \le U,
    \qquad \bar Q_{ij} = y_i y_j x_i^\top x_j + D_{ij},

with :math:`U = C, D = 0` (hinge) or :math:`U = \infty, D_{ii} = 1/(2C)` (squared
hinge); sample weights :math:`s_i` make them :math:`U_i = Cs_i` and :math:`D_{ii} = 1/(2Cs_i)`.
Keeping :math:`w = \sum_i \alpha_i y_i x_i`, coordinate i costs O(nnz(x_i)):

.. math::

    G = y_i w^\top x_i - 1 + D_{ii}\alpha_i, \qquad
    \alpha_i \leftarrow \min(\max(\alpha_i - G/\bar Q_{ii}, 0), U), \qquad
    w \leftarrow w + (\alpha_i - \alpha_i^{old}) y_i x_i.

Visiting the coordinates in a random order each epoch is liblinear's choice; drawing
them uniformly with replacement is SDCA (Shalev-Shwartz and Zhang 2013), whose analysis
bounds the expected duality gap after each epoch.

**Lasso** (Friedman et al. 2010; scikit-learn's ``Lasso``), in scikit-learn's scaling
:math:`P(w) = \frac{1}{2n}\|y - Xw\|^2 + \alpha\|w\|_1`. Keeping the residual
:math:`r = y - Xw`, coordinate j is a soft-thresholding, O(n):

.. math::

    \rho_j = x_j^\top (r + w_j x_j), \qquad
    w_j \leftarrow S(\rho_j, n\alpha) / \|x_j\|^2, \qquad
    S(z, t) = \operatorname{sign}(z)\max(|z| - t, 0).

**Block CD for kernel ridge** (Tu et al. 2016) solves :math:`(K + \lambda I)\alpha = y`
(y centred by :class:`BlockCDKernelRidge`'s intercept) block by block, keeping the residual
:math:`r = y - (K + \lambda I)\alpha`:

.. math::

    \Delta = (K_{BB} + \lambda I)^{-1} r_B, \qquad \alpha_B \leftarrow \alpha_B + \Delta,
    \qquad r \leftarrow r - (K_{:B} + \lambda I_{:B})\Delta.

The per-coordinate loops (dual CD, Lasso) have a numpy reference and a numba fast
path consuming the same random numbers, drawn in Python (CONTRIBUTING.md §2); the block
method's work is BLAS and Cholesky, in numpy for both. The dual CD reference is Hsieh et
al.'s Algorithm 1; shrinking (their Algorithm 3) and the draw of each epoch's order live
in the compiled loop, which equals the reference with shrinking off. The Lasso reference is
the paper's step on a dense design and its residual; covariance updates and the implicit
centring of a sparse design are the compiled path's (the same iterates). Gap safe
screening is the driver's, for both paths.

========================================  ===========================  ============================
Paper's line                              Reference                    Compiled
========================================  ===========================  ============================
Hsieh Alg. 1 (a)-(c): G, PG, clipped α_i  dual_cd_numpy_epochs         _dual_cd_numba_epochs
Hsieh Alg. 3: shrinking                   none: an optimisation        _dual_cd_numba_epochs
Hsieh §3.1: a new order each epoch        _fisher_yates (as Python)    _fisher_yates_numba
Friedman (5): w_j ← S(ρ_j, nα)/‖x_j‖²     lasso_numpy_epochs           _lasso_numba_epochs
Friedman §2.2: covariance updates         none: an optimisation        _lasso_numba_epochs (gram)
(5) on sparse X, centred implicitly       none: an optimisation        _lasso_sparse_numba_epochs
Tu et al.: Δ = (K_BB + λI)⁻¹ r_B          block_cd_kernel_ridge        none: BLAS and Cholesky
========================================  ===========================  ============================

References
----------
Hsieh, Chang, Lin, Keerthi, Sundararajan. A dual coordinate descent method for
large-scale linear SVM. ICML 2008.

Friedman, Hastie, Tibshirani. Regularization paths for generalized linear models
via coordinate descent. Journal of Statistical Software 33(1), 2010.

Fercoq, Gramfort, Salmon. Mind the duality gap: safer rules for the Lasso. ICML 2015.

Tu, Roelofs, Venkataraman, Recht. Large scale kernel learning using block
coordinate descent. arXiv:1602.05310, 2016.

Shalev-Shwartz, Zhang. Stochastic dual coordinate ascent methods for regularized loss
minimization. JMLR 14, 2013.
"""
from lsl_lib.coordinate_descent._block_kernel_ridge import (
    BlockCDKernelRidge,
    block_cd_kernel_ridge,
)
from lsl_lib.coordinate_descent._dual_cd import (
    DualCDClassifier,
    dual_cd,
    dual_cd_numpy_epochs,
    svm_objectives,
)
from lsl_lib.coordinate_descent._lasso import (
    LassoCD,
    gap_safe_screen,
    lasso_cd,
    lasso_duality_gap,
    lasso_numpy_epochs,
    lasso_path,
)

__all__ = [
    # estimators
    "DualCDClassifier", "LassoCD", "BlockCDKernelRidge",
    # functional cores and certificates
    "dual_cd", "svm_objectives", "lasso_cd", "lasso_path", "lasso_duality_gap",
    "gap_safe_screen", "block_cd_kernel_ridge",
    # references (their compiled twins are private)
    "dual_cd_numpy_epochs", "lasso_numpy_epochs",
]


def __dir__():
    return __all__
