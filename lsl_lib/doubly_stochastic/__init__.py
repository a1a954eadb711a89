r"""Doubly stochastic gradients: kernel machines whose random features live as seeds.

Dai, Xie, He, Liang, Raj, Balcan and Song (2014) minimise the regularised risk of a
function f in the reproducing kernel Hilbert space of a shift-invariant kernel k,

.. math::

    R(f) = \mathbb E_{(x, y)}\big[\ell(f(x), y)\big] + \frac{\nu}{2}\|f\|_{\mathcal H}^2,

by functional stochastic gradient steps that are random *twice*. The functional gradient
of the loss at one example is :math:`\ell'(f(x), y)\, k(x, \cdot)`; by Bochner's theorem
:math:`k(x, \cdot) = \mathbb E_\omega[\phi_\omega(x)\phi_\omega(\cdot)]` (random Fourier
features, :mod:`lsl_lib.random_features`), so replacing the expectation over the data by a
mini-batch :math:`b_i` and the one over the frequencies by a block of B random features
:math:`\phi_{\omega_i}` gives an unbiased estimate of the gradient. Step i = 1, ..., T:

.. math::

    f_{i-1}(x) = \sum_{j<i} \alpha_j^\top \phi_{\omega_j}(x), \qquad
    \alpha_i = -\frac{\gamma_i}{|b_i|}\sum_{(x, y)\in b_i}
        \ell'\big(f_{i-1}(x), y\big)\, \phi_{\omega_i}(x), \qquad
    \alpha_j \leftarrow (1 - \gamma_i\nu)\,\alpha_j \;(j < i),

with the step :math:`\gamma_i = \theta/(1 + \theta' i)` and the block features
:math:`\phi_\omega(x) = \sqrt{2/B}\,\cos(W^\top x + b)` (:func:`block_features`;
:math:`\mathbb E[\phi_\omega(x)^\top\phi_\omega(y)] = k(x, y)`). This is Algorithm 1 of
the paper with mini-batches of examples and blocks of features; prediction (Algorithm 2)
evaluates the sum over every block.

**Newton steps.** The gradient step sets a block once, from one mini-batch, at the scale
:math:`\gamma_i`; on data whose classes differ by small differences of kernel values that
can leave DSG at the majority class for any D that fits on one machine (measured in
benchmarks/README.md, §Doubly stochastic gradients). ``step='newton'`` instead sets the new
block by one Newton step of the mini-batch's regularised loss in that block's coefficients,
from 0:

.. math::

    \alpha_i = -\gamma_i\Big(\frac{1}{|b_i|}\Phi^\top H\Phi + \nu I\Big)^{-1}
        \frac{1}{|b_i|}\Phi^\top g, \qquad
    \Phi = \big[\phi_{\omega_i}(x)^\top\big]_{x\in b_i},\;
    g = \ell'(f_{i-1}(x), y),\; H = \operatorname{diag}\ell''(f_{i-1}(x), y),

one B × B system per output (:func:`newton_block_numpy`). For the squared loss
(:math:`\ell'' = 1`) and :math:`\gamma_i = 1` this is the exact minimiser of the block's
mini-batch problem; for the log loss it is the IRLS step; the hinge loss has no curvature
and takes :math:`H = I`, the feature-covariance preconditioner of the authors' public code
(``doubly_sgd_pcd_lr_8m.m``, which applies it to the softmax loss). With
:math:`\gamma_i \le 1` (the full step is 1), blocks of a few dozen features and mini-batches
of thousands, the new block fits what the earlier ones left: the step is
:math:`O(|b| B^2 + B^3)`, beside the :math:`O(i B d |b|)` of evaluating the earlier blocks.
It is the estimators' default (32 blocks of 64 features, mini-batches of 2 048; measured
against gradient steps and RFF + a linear SVM in benchmarks/README.md, §Doubly stochastic
gradients); ``step='gradient'`` is the paper's Algorithm 1.

**Seeds, not matrices.** Block i's frequencies W and phases b are a deterministic
function of the model's integer seed and of i (:func:`block_frequencies_numpy`), so the model
stores only :math:`\alpha \in \mathbb R^{T B \times K}` and one integer: memory
O(T B K), not the O(n D) of a feature matrix nor the O(d D) of RFF's frequencies. A run
generates each block's frequencies once and keeps them while it lasts
(:class:`FrequencyCache`, at most :data:`_FREQUENCY_CACHE_BYTES`; blocks beyond it are
regenerated where used); a prediction generates them once per call; the model keeps none.

**Time.** Step i scores its mini-batch with the whole model :math:`f_{i-1}`, the i - 1
earlier blocks: :math:`O(i B d |b|)` projections and :math:`i B |b|` cosines, so T steps
cost :math:`O(T^2 B d |b|)`, and a pass of ``partial_fit`` over n rows of a model of t
blocks costs :math:`O(t B d n)`, what predicting those n rows costs. That growth is the
algorithm's (Algorithm 1 evaluates :math:`f_{i-1}` at every step), not the
implementation's; the compiled loops make each evaluation cheap: the projections by BLAS,
the cosines by a polynomial that runs in SIMD lanes (:mod:`lsl_lib._core.trig`), rows in
tiles that stay in the processor's cache. Fewer, larger blocks (the Newton step's regime)
keep T, and with it the quadratic term, small.

The uniforms come from a counter-based generator, SplitMix64 (Steele, Lea and Flood 2014) of
(seed, block, counter) (:mod:`lsl_lib._core.random`), because the same numbers must come out
of the numpy reference (vectorised on uint64 arrays, wrapping arithmetic) and of the numba
loops (scalar code): numba's ``np.random`` inside compiled code is not numpy's ``Generator``
stream, so :func:`lsl_lib.random_features.draw_frequencies`, which takes a Generator, cannot
be called here. Its laws are reproduced exactly (:func:`block_frequencies_numpy`): Gaussian
:math:`\mathcal N(0, 2\gamma)` by Box-Muller, Cauchy of scale :math:`\gamma` by
:math:`\gamma\tan(\pi(u - \frac12))`, Laplace of scale :math:`\sqrt\gamma` by inverting its
distribution function.

**The singly stochastic baseline.** :func:`functional_sgd` takes the same steps with the
exact kernel :math:`k(x, \cdot)` in place of a block, on the same mini-batches: the sequence
whose error and the random features' deviation from it make up DSG's error in Dai et al.'s
analysis (a numpy reference for comparisons, not a learner).

Two paths run the steps on the same mini-batch indices
(:func:`lsl_lib._core.sampling.sample_indices`) and the same seed:
:func:`dsg_numpy_chunk`, the readable reference, and ``_dsg_numba_chunk``, the
compiled loop; they agree to rounding. :func:`doubly_stochastic` runs them in short chunks
(:func:`lsl_lib._core.run_loop.run_chunks`): Ctrl-C stops a fit between two chunks, and a
norm of the coefficients that grows by orders of magnitude is a divergence, an error that
names theta. Where the chunks end does not change the iterates.

Each numpy reference beside its compiled twin (``_compiled.py``; the counter-based uniforms
and Box-Muller pairs are pairs of :mod:`lsl_lib._core.random`). Algorithm 1 of Dai et al.:
line 2 samples the data, 3 the frequencies :math:`\omega_i` with seed i, 4 predicts
:math:`f(x_i)` (Algorithm 2), 5 sets :math:`\alpha_i`, 6 shrinks the earlier
:math:`\alpha_j`. Rows in parentheses are machinery without a line of the paper. "No
reference" marks compiled building blocks that are one numpy expression in the reference:
``X[batch]`` (the rows), ``X_b @ W`` (the projections), ``features(X_b, j) @ alpha[j]``
(one block's scores). ``block_features`` and ``predict_blocks`` keep the names the lecture
teaches them by, without ``_numpy`` (CONTRIBUTING.md §2).

==================================  ===========================  ==================================
Dai et al. (2014)                   numpy reference              compiled twin
==================================  ===========================  ==================================
Alg. 1, l. 3: ω_i with seed i       ``block_frequencies_numpy``  ``_block_frequencies_numba``
(the blocks a run keeps)            ``FrequencyCache.fill``      ``_block_frequencies_numba_range``
φ_ω(x) = √(2/B) cos(Wᵀx + b)        ``block_features``           ``_block_features_numba``
(the rows of a mini-batch)          no reference                 ``gather_dense_rows_numba``
(Wᵀx for one CSR row)               no reference                 ``_row_projections_numba``
Alg. 2: f(x) = Σ_j α_jᵀ φ_ω_j(x)    ``predict_blocks``           ``_predict_blocks_numba``
Alg. 2, l. 4: one term of the sum   no reference                 ``_add_block_scores_numba``
Newton: H = diag ℓ''(f(x), y)       ``curvature_weights_numpy``  ``_curvature_weights_numba``
Newton: (ΦᵀHΦ/k + νI)⁻¹ Φᵀg/k       ``newton_block_numpy``       ``_newton_block_numba``
Alg. 1, l. 2-6: steps t0+1 .. t0+T  ``dsg_numpy_chunk``          ``_dsg_numba_chunk``
the same steps with k(x, ·)         ``functional_sgd``           none: a baseline
==================================  ===========================  ==================================

References
----------
Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
gradients. NIPS 2014.

Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

Steele, Lea, Flood. Fast splittable pseudorandom number generators. OOPSLA 2014.

"""
from lsl_lib.doubly_stochastic._estimators import (
    DoublyStochasticClassifier,
    DoublyStochasticRegressor,
)
from lsl_lib.doubly_stochastic._reference import (
    block_features,
    block_frequencies_numpy,
    curvature_weights_numpy,
    dsg_numpy_chunk,
    functional_sgd,
    newton_block_numpy,
    predict_blocks,
    step_sizes,
)
from lsl_lib.doubly_stochastic._solver import (
    DSGState,
    FrequencyCache,
    doubly_stochastic,
    model_nbytes,
    predict_scores,
)

__all__ = [
    # estimators
    "DoublyStochasticClassifier", "DoublyStochasticRegressor",
    # the functional core, its state and prediction
    "doubly_stochastic", "DSGState", "predict_scores", "model_nbytes", "FrequencyCache",
    # the numpy references
    "block_frequencies_numpy", "block_features", "predict_blocks", "step_sizes",
    "curvature_weights_numpy", "newton_block_numpy", "dsg_numpy_chunk", "functional_sgd",
]


def __dir__():
    return __all__
