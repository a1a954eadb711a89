r"""Weighted sums of random kitchen sinks (Rahimi and Recht 2008).

*Replacing minimisation with randomisation.* Boosting and neural networks fit a model
:math:`f(x) = \sum_{k=1}^K \alpha_k \phi(x; w_k)` by optimising both the outer weights
:math:`\alpha` and the hidden parameters :math:`w_k`, a non-convex problem. Random kitchen
sinks draw the :math:`w_k` i.i.d. from a fixed distribution p, independent of the data's
labels, and fit only :math:`\alpha`, a convex problem:

.. math::

    \hat\alpha = \operatorname*{arg\,min}_{\|\alpha\|_\infty \le C/K}
    \frac1n \sum_{i=1}^n c\Big(\sum_{k=1}^K \alpha_k \phi(x_i; w_k),\ y_i\Big).

The box :math:`|\alpha_k| \le C/K` makes the fitted f a K-term Monte Carlo estimate of a
member of

.. math::

    \mathcal F_p = \Big\{ f(x) = \int \alpha(w)\,\phi(x; w)\,dw \;:\;
    |\alpha(w)| \le C\,p(w) \Big\},

and Rahimi and Recht's Theorem 1 bounds the excess risk over the best f in
:math:`\mathcal F_p` by :math:`O\big((1/\sqrt n + 1/\sqrt K)\, L C \sqrt{\log(1/\delta)}\big)`
when :math:`|\phi| \le 1` and the loss is L-Lipschitz (:func:`lsl_lib.theory.kitchen_sinks_bound`
gives the constants).

The feature families (each bounded, :math:`|\phi| \le 1`):

===========  =======================================  =============================================
``feature``  :math:`\phi(x; w)`                       how w is drawn (p)
===========  =======================================  =============================================
``fourier``  :math:`\cos(\omega^\top x + b)`          :math:`\omega \sim \mathcal N(0, 2\gamma I)`,
                                                      :math:`b \sim U[0, 2\pi)`
``bump``     :math:`\exp(-\gamma \|x - c\|^2)`        c uniform on the box of the training
                                                      inputs
``sigmoid``  :math:`1/(1+e^{-\omega^\top(x - c)})`    :math:`\omega \sim \mathcal N(0, 2\gamma I)`,
                                                      c as for ``bump``
``binning``  :math:`\mathbb 1[x\in\mathrm{cell}(a)]`  a random grid (pitches
                                                      :math:`\delta_j \sim \Gamma(2, 1/\gamma)`,
                                                      shifts :math:`u_j \sim U[0, \delta_j)`)
                                                      and a random training input a
===========  =======================================  =============================================

What p may depend on. The theorem draws the :math:`w_k` from a p fixed before the data.
``fourier`` is such a p. ``bump`` and ``sigmoid`` place their centres c uniformly on the
box :math:`\prod_j [\min_i x_{ij}, \max_i x_{ij}]` of the training inputs (a smooth variant
of Shalizi's random bumps, which are indicators of balls, placed over the range of the
data), and ``binning`` anchors each cell at a training input drawn uniformly (a cell of a
random grid drawn alone would almost always be empty in more than a few dimensions). These
p never see the labels, but they do see the inputs: the theorem then holds conditionally
on the box, or on the anchors, when they come from inputs that are not
part of the training sample (e.g. an unlabelled sample of the same distribution); on the
training inputs themselves it is the usual, slightly optimistic, reading. A user-supplied
``(phi, sampler)`` pair draws with ``sampler(rng, n_features, K)``, which never sees the data.

Defaults. A user who passes nothing gets the logistic loss (classifier), K = 300 Fourier
sinks of width gamma = 1/d, a free intercept, and ``C='auto'``, a box of 1000 times the
targets' scale, wide enough to stop only weights that would run off. They were chosen on
the shared data sets beside scikit-learn's peers: benchmarks/README.md, §Random kitchen
sinks. What the defaults cannot mend is the scale of the inputs: gamma = 1/d is made for
standardised features, and on columns of very different scales the sinks are noise; the
fit then warns (:func:`kernel_exponent`) and names the cure, a ``StandardScaler`` in front.

**One path.** There is no numba path: drawing the sinks is numpy, the fits are scipy's
solvers over BLAS, and no iteration loop of ours is left to compile.

===============================================  ======================  ===================
the paper's line                                 reference               compiled
===============================================  ======================  ===================
Rahimi and Recht 2008, Alg. 1:                   :func:`draw_features`   none (numpy)
draw w_1, ..., w_K i.i.d. from p
the features :math:`\Phi_{ik} = \phi(x_i; w_k)`  :func:`feature_matrix`  none (BLAS)
minimise the empirical risk over                 :func:`fit_squared`,    none (scipy's BVLS,
the box :math:`|\alpha_k| \le C/K`               :func:`fit_log`,        L-BFGS-B, HiGHS)
                                                 :func:`fit_hinge`
===============================================  ======================  ===================

References
----------
Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
randomization in learning. NIPS 2008.

Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

Shalizi. Random features (lecture notes, Advanced Data Analysis, CMU).
"""
from lsl_lib.kitchen_sinks._estimators import (
    BoxLimitedWarning,
    RandomKitchenSinksClassifier,
    RandomKitchenSinksRegressor,
)
from lsl_lib.kitchen_sinks._features import (
    FEATURES,
    draw_features,
    feature_matrix,
    kernel_exponent,
)
from lsl_lib.kitchen_sinks._solvers import fit_hinge, fit_log, fit_squared

__all__ = ["RandomKitchenSinksClassifier", "RandomKitchenSinksRegressor", "BoxLimitedWarning",
           "draw_features", "feature_matrix", "kernel_exponent", "fit_squared", "fit_log",
           "fit_hinge", "FEATURES"]


def __dir__():
    return __all__
