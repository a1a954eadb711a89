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

===========  ====================================================  ===================================================
``feature``  :math:`\phi(x; w)`                                      how w is drawn (p)
===========  ====================================================  ===================================================
``fourier``  :math:`\cos(\omega^\top x + b)`                         :math:`\omega \sim \mathcal N(0, 2\gamma I)`,
                                                                     :math:`b \sim U[0, 2\pi)`
``bump``     :math:`\exp(-\gamma \|x - c\|^2)`                       c uniform on the box of the training inputs
``sigmoid``  :math:`1/(1 + e^{-\omega^\top (x - c)})`                :math:`\omega \sim \mathcal N(0, 2\gamma I)`, c as
                                                                     for ``bump``
``binning``  :math:`\mathbb 1[x \text{ in the cell of } a]`         a random grid (pitches :math:`\delta_j \sim
                                                                     \Gamma(2, 1/\gamma)`, shifts :math:`u_j \sim
                                                                     U[0, \delta_j)`) and a random training input a
===========  ====================================================  ===================================================

What p may depend on. The theorem draws the :math:`w_k` from a p fixed before the data.
``fourier`` is such a p. ``bump`` and ``sigmoid`` place their centres c uniformly on the
box :math:`\prod_j [\min_i x_{ij}, \max_i x_{ij}]` of the training inputs (a smooth variant
of Shalizi's random bumps, which are indicators of balls, placed over the range of the
data), and ``binning`` anchors each cell at a training input drawn uniformly (a cell of a random grid drawn alone would almost always be empty in more than a
few dimensions). These p never see the labels, but they do see the inputs: the theorem then
holds conditionally on the box, or on the anchors, when they come from inputs that are not
part of the training sample (e.g. an unlabelled sample of the same distribution); on the
training inputs themselves it is the usual, slightly optimistic, reading. A user-supplied
``(phi, sampler)`` pair draws with ``sampler(rng, n_features, K)``, which never sees the data.

Defaults. A user who passes nothing gets the logistic loss (classifier), K = 300 Fourier
sinks of width gamma = 1/d, a free intercept, and ``C='auto'``, a box of 1000 times the
targets' scale that the weights of these fits rarely reach. They were chosen on the shared
data sets (test accuracy, R² for cpu_act; fit seconds on a shared 2-core machine, load 3,
one BLAS thread; the scikit-learn peers at their defaults beside, same conditions):

================  =============  =======================  ===========  ===============
data              defaults       LogisticRegression       LinearSVC    RBFSampler + LR
================  =============  =======================  ===========  ===============
a9a               0.850 (1.2 s)  0.850 (0.2 s)            0.849 (0.3)  0.846 (0.4)
ijcnn1            0.959 (3.4 s)  0.919 (0.1 s)            0.918 (0.1)  0.916 (0.6)
usps, 10 classes  0.924 (1.1 s)  0.918 (1.2 s)            0.907 (1.0)  0.878 (0.3)
covtype, 7        0.740 (28 s)   0.715 (2.7 s, max_iter)  0.710 (2.4)  0.694 (5.5)
cpu_act, scaled   0.862 (0.2 s)  Ridge: 0.721 (0.01 s)    --           + Ridge: 0.768
================  =============  =======================  ===========  ===============

(RBFSampler with gamma = 1/d and its 100 features; "max_iter": LogisticRegression stopped
at its 100 iterations with a ConvergenceWarning.) The price of the 300 sinks is time: one
L-BFGS-B per class over the n x 300 features, 7 of them on covtype's 69 721 rows.

The former defaults, the hinge's LP with C = 10 and no intercept, ran past 150 s on a9a,
usps and covtype and predicted the majority class of ijcnn1; the regressor's box
:math:`|f| \le 10` gave R² -20 on cpu_act, whose targets are near 84. The box is not idle: on
usps and covtype about one weight in ten sits on it. What the defaults cannot mend is the scale
of the inputs: gamma = 1/d is made for standardised features, and on raw cpu_act (columns
of standard deviation 2 to 4·10⁵) the sinks are noise, R² -0.07 (Ridge 0.72, RBFSampler +
Ridge -0.01); the fit then warns (:func:`kernel_exponent`) and names the cure, a
``StandardScaler`` in front. With K = 100 the classifier's fits are 3 times faster and
stay 3 points below LogisticRegression on usps (0.885).

References
----------
Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
randomization in learning. NIPS 2008.

Rahimi, Recht. Random features for large-scale kernel machines. NIPS 2007.

Shalizi. Random features (lecture notes, Advanced Data Analysis, CMU).
"""
import contextlib
import threading
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.sparsefuncs import mean_variance_axis
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.random import check_random_state
from lsl_lib._core.validation import (ITERATIVE_CONSTRAINTS, add_intercept_column,
                                     check_n_classes, check_sample_weight, signed_binary_labels)
from lsl_lib.random_binning import bin_indices, draw_grids
from lsl_lib.random_features import draw_frequencies

#: The built-in feature families.
FEATURES = ("fourier", "bump", "sigmoid", "binning")

#: The losses, by task.
CLASSIFIER_LOSSES = ("hinge", "log")
REGRESSOR_LOSSES = ("squared",)

#: ``C='auto'``: the box is this many times the targets' scale (1 for the classifier's
#: +-1 labels, the standard deviation of y for the regressor), |alpha_k| <= AUTO_BOX * scale / K.
AUTO_BOX = 1000.0

#: A fit with at least this share of its weights on the box warns (:class:`BoxLimitedWarning`).
BOX_LIMITED_SHARE = 0.9

#: A built-in family whose kernel exponent at a typical pair of training inputs exceeds this
#: (gamma E||x - x'||^2; gamma E||x - x'||_1 for ``binning``) warns: its sinks are noise there.
NOISE_EXPONENT = 1000.0


class BoxLimitedWarning(UserWarning):
    """At least :data:`BOX_LIMITED_SHARE` of the weights sit on the box :math:`|\\alpha_k| = C/K`:
    the box, not the data, shaped the fit (raise ``C``, or ``C=None`` removes the box)."""


# ------------------------------------------------------------------ the feature families

def _input_box(X):
    """Per-feature minimum and maximum of the training inputs (dense or CSR)."""
    if sp.issparse(X):
        return X.min(axis=0).toarray().ravel(), X.max(axis=0).toarray().ravel()
    return X.min(axis=0), X.max(axis=0)


def draw_features(feature, X, n_components, gamma, rng):
    """Draw the parameters :math:`w_1, \\dots, w_K` of a built-in family (see the module's table).

    Parameters
    ----------
    feature : {'fourier', 'bump', 'sigmoid', 'binning'}
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The training inputs: only their box (``bump``, ``sigmoid``) or K of them drawn
        uniformly (``binning``) are used, never the labels.
    n_components : int
        K.
    gamma : float > 0
        The scale: the kernel width of the Gaussian (``fourier``, ``bump``) or Laplacian
        (``binning``) kernel whose features these are; the slope scale of ``sigmoid``.
    rng : numpy.random.Generator

    Returns
    -------
    params : dict of ndarrays
        ``fourier``: ``frequencies`` (d, K), ``offsets`` (K,); ``bump``: ``centres`` (K, d)
        and ``gamma``;
        ``sigmoid``: ``frequencies`` (d, K), ``centres`` (K, d); ``binning``: ``pitches``,
        ``shifts`` (K, d) (:func:`lsl_lib.random_binning.draw_grids`) and ``anchor_ids``
        (K,), the id of the anchor's cell in its grid (:func:`lsl_lib.random_binning.bin_indices`).
    """
    n, d = X.shape
    if feature in ("fourier", "sigmoid"):
        params = {"frequencies": draw_frequencies("gaussian", gamma, d, n_components, rng)}
        if feature == "fourier":
            params["offsets"] = rng.uniform(0.0, 2.0 * np.pi, size=n_components)
            return params
    if feature in ("bump", "sigmoid"):
        low, high = _input_box(X)
        params = params if feature == "sigmoid" else {}
        params["centres"] = rng.uniform(low, high, size=(n_components, d))
        if feature == "bump":
            params["gamma"] = gamma
        return params
    # binning: one random grid per feature, anchored at a random training input
    pitches, shifts = draw_grids(d, n_components, gamma, rng)
    anchors = X[rng.integers(n, size=n_components)]
    anchor_ids = bin_indices(anchors, pitches, shifts)[np.arange(n_components),
                                                        np.arange(n_components)]
    return {"pitches": pitches, "shifts": shifts, "anchor_ids": anchor_ids}


def feature_matrix(feature, X, params):
    r"""The features :math:`\Phi_{ik} = \phi(x_i; w_k)` of a built-in family, shape (n, K).

    Every entry lies in [-1, 1] (``fourier``) or [0, 1] (the others).
    """
    if feature == "fourier":
        Z = np.asarray(X @ params["frequencies"])
        Z += params["offsets"]
        return np.cos(Z, out=Z)
    if feature == "sigmoid":
        W, centres = params["frequencies"], params["centres"]
        Z = np.asarray(X @ W)
        Z -= np.einsum("kj,jk->k", centres, W)
        return expit(Z, out=Z)
    if feature == "bump":
        centres = params["centres"]
        sq_norms = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
                    else np.einsum("ij,ij->i", X, X))
        D2 = sq_norms[:, None] - 2.0 * np.asarray(X @ centres.T) + (centres ** 2).sum(axis=1)
        np.maximum(D2, 0.0, out=D2)  # rounding can make a tiny distance negative
        D2 *= -params["gamma"]
        return np.exp(D2, out=D2)
    # binning: x is in feature k's cell when its cell id in grid k is the anchor's
    ids = bin_indices(X, params["pitches"], params["shifts"])
    return (ids == params["anchor_ids"]).astype(np.float64)


def kernel_exponent(feature, X, gamma):
    r"""The exponent of a family's kernel at a typical pair of training inputs.

    ``fourier`` and ``bump`` are features of the Gaussian kernel
    :math:`e^{-\gamma\|x - x'\|^2}`, and ``sigmoid`` draws its slopes as ``fourier`` its
    frequencies (:math:`\omega^\top(x - x')` has variance :math:`2\gamma\|x - x'\|^2`): for
    x, x' drawn independently from the rows of X,
    :math:`\gamma\,\mathbb E\|x - x'\|^2 = 2\gamma \sum_j \operatorname{Var}(x_j)`.
    ``binning``'s grids are those of the Laplacian kernel :math:`e^{-\gamma\|x - x'\|_1}`:
    :math:`\gamma \sum_j \sqrt{2 \operatorname{Var}(x_j)}`, an upper bound of
    :math:`\gamma\,\mathbb E\|x - x'\|_1` (Jensen). On standardised features with the
    default :math:`\gamma = 1/d` it is 2 (``binning``: 1.4); far above :data:`NOISE_EXPONENT`
    the sinks change sign (or cell) between any two training inputs, and a fit on them is a
    fit on noise. One column of much larger scale than the others is enough (review D19: a
    column times 1e6).

    Parameters
    ----------
    feature : {'fourier', 'bump', 'sigmoid', 'binning'}
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    gamma : float > 0

    Returns
    -------
    exponent : float
        O(nnz(X)) to compute (the column variances).
    """
    if sp.issparse(X):
        variances = mean_variance_axis(X, axis=0)[1]
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # a column of scale 1e308 gives inf
            variances = X.var(axis=0)
    with np.errstate(over="ignore"):
        if feature == "binning":
            return float(gamma * np.sum(np.sqrt(2.0 * variances)))
        return float(2.0 * gamma * np.sum(variances))


# ------------------------------------------------------------------ the box-constrained fits

def _box(n_coef, bound, fit_intercept):
    """Lower and upper bounds of (α, b): ±``bound`` on α (±inf when None), b free."""
    hi = np.full(n_coef + fit_intercept, np.inf if bound is None else bound)
    if fit_intercept:
        hi[-1] = np.inf
    return -hi, hi


def fit_squared(Phi, y, bound, sample_weight=None, fit_intercept=False):
    r"""Box-constrained least squares, the exact minimiser.

    .. math::

        \min_{|\alpha_k| \le B} \sum_i s_i (y_i - \Phi_i \alpha - b)^2.

    ``bound=None``: the unconstrained (minimum-norm) least squares of ``scipy.linalg.lstsq``,
    which is also returned when it lies in the box (it is then the box's minimiser).
    Otherwise, when n > K the problem is first reduced to K rows by a thin QR
    (:math:`\|\Phi\alpha - y\|^2 = \|R\alpha - Q^\top y\|^2 + \text{const}`), then solved by
    ``scipy.optimize.lsq_linear(method='bvls')``, the Stark-Parker active-set method, which
    terminates at the exact minimiser (each iteration an unconstrained least squares on the
    free variables). Cost O(nK²) for the QR plus the BVLS iterations on a K x K problem.

    Returns
    -------
    coef : ndarray of shape (K + fit_intercept,)
        α, then b when ``fit_intercept``.
    n_iter : int
        BVLS iterations (1 when the unconstrained solve is the answer). The three ``fit_*`` return both.
    """
    A = add_intercept_column(Phi) if fit_intercept else Phi
    y = np.asarray(y, dtype=np.float64)
    if sample_weight is not None:
        root = np.sqrt(sample_weight)
        A, y = A * root[:, None], y * root
    free = scipy.linalg.lstsq(A, y, lapack_driver="gelsd")[0]
    if bound is None or np.all(np.abs(free[:Phi.shape[1]]) <= bound):
        return free, 1  # the unconstrained minimiser is in the box: it is the box's minimiser
    if A.shape[0] > A.shape[1]:
        Q, R = scipy.linalg.qr(A, mode="economic")
        A, y = R, Q.T @ y
    lo, hi = _box(Phi.shape[1], bound, fit_intercept)
    result = scipy.optimize.lsq_linear(A, y, bounds=(lo, hi), method="bvls", tol=1e-12)
    return result.x, max(1, result.nit)


def fit_log(Phi, y, bound, sample_weight=None, fit_intercept=False, tol=1e-4, max_iter=1000):
    r"""Box-constrained logistic regression by L-BFGS-B, labels y in {-1, +1}.

    .. math::

        \min_{|\alpha_k| \le B} \frac{1}{\sum_i s_i}\sum_i s_i
        \log\big(1 + e^{-y_i(\Phi_i\alpha + b)}\big).

    The loss is smooth and convex: L-BFGS-B (a projected quasi-Newton method that handles
    bounds natively) converges to the constrained minimiser, and stops when the projected
    gradient is below ``tol`` (1e-4, as scikit-learn's ``LogisticRegression``, whose lbfgs
    solver minimises the same mean loss). ``bound=None`` is the unconstrained fit (it has no
    minimiser on separable data: the iterations then stop at ``max_iter`` with a
    ``ConvergenceWarning``). Cost O(nK) per iteration; scipy drives L-BFGS-B from Python
    and calls the risk once per step, so Ctrl-C stops the fit within one step.

    With ``fit_intercept``, L-BFGS-B works on centred features: with
    :math:`\mu = \sum_i s_i\Phi_i / \sum_i s_i`, :math:`\Phi_i\alpha + b =
    (\Phi_i - \mu)\alpha + b'` where :math:`b' = b + \mu\alpha` is free as b is, so the
    problem and its box are the same, and b is returned. Sinks of random phase have means
    far from 0 that the intercept's column repeats; without them the problem is better
    conditioned: on covtype (one class against the rest, K = 100) and ijcnn1 L-BFGS-B takes
    3 to 4 times fewer steps.
    """
    s = np.ones(len(y)) if sample_weight is None else sample_weight
    s = s / s.sum()
    if fit_intercept:
        means = s @ Phi
        A = np.empty((Phi.shape[0], Phi.shape[1] + 1))
        np.subtract(Phi, means, out=A[:, :-1])
        A[:, -1] = 1.0
    else:
        A = Phi

    def risk_and_gradient(coef):
        margins = y * (A @ coef)
        return -s @ log_expit(margins), A.T @ (-s * y * expit(-margins))

    lo, hi = _box(Phi.shape[1], bound, fit_intercept)
    result = scipy.optimize.minimize(
        risk_and_gradient, np.zeros(A.shape[1]), jac=True, method="L-BFGS-B",
        bounds=scipy.optimize.Bounds(lo, hi),
        options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15, "maxcor": 20})
    if not result.success:
        warnings.warn(f"L-BFGS-B did not converge ({result.message}); raise max_iter or tol.",
                      ConvergenceWarning, stacklevel=3)
    coef = result.x
    if fit_intercept:
        coef[-1] -= means @ coef[:-1]
    return coef, result.nit


def _wait_interruptibly(solve, *args, **kwargs):
    """``solve(*args, **kwargs)`` run in a worker thread, waited for in slices of 0.1 s.

    A compiled solver that holds no GIL and never looks at signals (HiGHS) ignores Ctrl-C
    until it returns: Python raises ``KeyboardInterrupt`` only when the main thread runs
    bytecode again. Waiting on a worker thread instead, the main thread wakes every 0.1 s,
    so Ctrl-C (or Jupyter's "interrupt kernel") raises ``KeyboardInterrupt`` at once. The
    abandoned solve cannot be stopped from outside: it runs on in its daemon thread until it
    ends or reaches its own time limit, and its result is dropped. An exception of the
    solver is raised in the caller's thread.
    """
    outcome = {}

    def work():
        try:
            outcome["result"] = solve(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name="lsl-kitchen-sinks-lp", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.1)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def fit_hinge(Phi, y, bound, sample_weight=None, fit_intercept=False, time_limit=None):
    r"""Box-constrained hinge-loss minimisation as a linear program (HiGHS), labels in {-1, +1}.

    .. math::

        \min_{\alpha, b, \xi} \sum_i s_i \xi_i \quad\text{s.t.}\quad
        \xi_i \ge 1 - y_i(\Phi_i\alpha + b),\; \xi_i \ge 0,\; |\alpha_k| \le B.

    A linear program has an exact optimum at a vertex, which HiGHS' interior-point method
    with crossover returns (on these LPs, with n dense rows of K entries, it was 8 times
    faster than its dual simplex, and as fast as the dual LP with 2K rows). The cost grows
    faster than n: at K = 100 about 0.3 s for n = 2000, 1 s for 4000, 3 s for 8000 on a quiet
    2-core machine, and more than 150 s for a9a's 32 561 rows; the hinge is for
    lecture-sized problems, and ``fit_log`` solves the box problem with the logistic loss
    in seconds at a few 10⁴ x 10². The hinge's minimiser need not be unique (an optimal
    vertex is returned). ``bound=None``: the unconstrained LP (bounded below by 0).

    HiGHS runs in a worker thread (:func:`_wait_interruptibly`), so Ctrl-C interrupts the
    fit at once; HiGHS itself stops at ``time_limit`` seconds (None: no limit), which it
    checks between its iterations, and a solve stopped there raises ``RuntimeError``.
    """
    A = add_intercept_column(Phi) if fit_intercept else Phi
    n, p = A.shape
    s = np.ones(n) if sample_weight is None else sample_weight
    cost = np.concatenate([np.zeros(p), s / s.sum()])
    constraints = sp.hstack([sp.csr_matrix(-y[:, None] * A), -sp.identity(n, format="csr")],
                            format="csr")
    lo, hi = _box(Phi.shape[1], bound, fit_intercept)
    bounds = np.column_stack([np.concatenate([lo, np.zeros(n)]),
                              np.concatenate([hi, np.full(n, np.inf)])])
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    result = _wait_interruptibly(scipy.optimize.linprog, cost, A_ub=constraints,
                                 b_ub=-np.ones(n), bounds=bounds, method="highs-ipm",
                                 options=options)
    if result.status == 1:
        raise RuntimeError(
            f"the hinge LP ({n} rows, {p} weights) did not finish within time_limit="
            f"{time_limit:g} s ({result.message}). loss='log' fits the same box in seconds at "
            f"this size; or raise time_limit (None: no limit).")
    if result.status != 0:  # pragma: no cover - HiGHS solves every bounded LP of this form
        raise RuntimeError(f"HiGHS failed on the hinge LP: {result.message}")
    return result.x[:p], result.nit


# ------------------------------------------------------------------ the estimators

class _BaseKitchenSinks(BaseEstimator):
    """Parameters, the feature draw and the box shared by the classifier and the regressor."""

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "C": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"}), None],
        "feature": [StrOptions(set(FEATURES)), tuple],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ITERATIVE_CONSTRAINTS["random_state"],
    }

    def _check_pair(self):
        pair = self.feature
        if isinstance(pair, tuple) and not (len(pair) == 2 and all(map(callable, pair))):
            raise ValueError(f"feature must be one of {FEATURES} or a pair (phi, sampler) of "
                             f"callables, got a tuple of {len(pair)} items with types "
                             f"{[type(f).__name__ for f in pair]}.")

    def _draw(self, X):
        """Draw the K feature parameters (the only randomness of the fit)."""
        self._check_pair()
        rng = check_random_state(self.random_state)
        K = self.n_components
        if isinstance(self.feature, tuple):
            self.gamma_ = self.gamma
            self.feature_params_ = self.feature[1](rng, X.shape[1], K)
            return
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        self.feature_params_ = draw_features(self.feature, X, K, self.gamma_, rng)

    def transform_features(self, X):
        r"""The random features :math:`\Phi_{ik} = \phi(x_i; w_k)` of X, shape (n, K)."""
        check_is_fitted(self, "feature_params_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                          reset=False)
        return self._features(X)

    def _features(self, X):
        if not isinstance(self.feature, tuple):
            return feature_matrix(self.feature, X, self.feature_params_)
        Phi = np.asarray(self.feature[0](X, self.feature_params_), dtype=np.float64)
        if Phi.shape != (X.shape[0], self.n_components):
            raise ValueError(f"feature: phi(X, params) must return an array of shape "
                             f"(n_samples, n_components) = {(X.shape[0], self.n_components)}, "
                             f"got {Phi.shape}.")
        if not np.all(np.abs(Phi) <= 1.0):  # also refuses NaN
            raise ValueError("feature: phi must be bounded, |phi(x; w)| <= 1 (the box C/K and "
                             "Rahimi and Recht's bound assume it); rescale phi.")
        return Phi

    @contextlib.contextmanager
    def _unfitted_on_error(self):
        """A fit interrupted (Ctrl-C) or failed leaves the estimator unfitted: the fitted
        attributes set so far, and those of an earlier fit, are deleted."""
        try:
            yield
        except BaseException:
            for name in [name for name in vars(self) if name.endswith("_")
                         and not name.startswith("__")]:
                delattr(self, name)
            raise

    def _box_scale(self, targets, sample_weight):
        """The scale of the targets that ``C='auto'`` multiplies: 1 for labels of +-1."""
        return 1.0

    def _fit_outputs(self, X, targets, sample_weight, loss):
        """Draw the features and fit one α per column of ``targets`` under the box."""
        self._draw(X)
        self._warn_if_noise(X)
        Phi = self._features(X)
        self.C_ = (AUTO_BOX * self._box_scale(targets, sample_weight) if self.C == "auto"
                   else self.C)
        bound = None if self.C_ is None else self.C_ / self.n_components
        fit = {"squared": fit_squared, "log": fit_log, "hinge": fit_hinge}[loss]
        extra = ({"tol": self.tol, "max_iter": self.max_iter} if loss == "log" else
                 {"time_limit": self.time_limit} if loss == "hinge" else {})
        fits = [fit(Phi, t, bound, sample_weight, self.fit_intercept, **extra) for t in targets]
        coefs = np.array([coef for coef, _ in fits])
        self.n_iter_ = np.array([n_iter for _, n_iter in fits])
        if self.fit_intercept:
            coefs, intercepts = coefs[:, :-1], coefs[:, -1]
        else:
            intercepts = np.zeros(len(coefs))
        if bound is not None:  # solvers meet the box to rounding: clip what rounding left
            np.clip(coefs, -bound, bound, out=coefs)
        self.bound_ = bound
        self.n_active_constraints_ = (0 if bound is None else
                                      int(np.sum(np.abs(coefs) >= bound * (1 - 1e-6))))
        if bound is not None and self.n_active_constraints_ >= BOX_LIMITED_SHARE * coefs.size:
            warnings.warn(
                f"{self.n_active_constraints_} of {coefs.size} weights sit on the box "
                f"|alpha_k| <= C/K = {bound:.3g}: the box, not the data, shaped this fit, whose "
                f"scores are bounded by |f(x) - b| <= C = {self.C_:.3g}. Raise C (C=None "
                f"removes the box)" + ("" if self.fit_intercept else
                                       ", or set fit_intercept=True (b is outside the box)")
                + ".", BoxLimitedWarning, stacklevel=4)
        return coefs, intercepts

    def _warn_if_noise(self, X):
        """Warn when the built-in family's sinks are noise on X (:func:`kernel_exponent`)."""
        if isinstance(self.feature, tuple):
            return
        exponent = kernel_exponent(self.feature, X, self.gamma_)
        if exponent > NOISE_EXPONENT:
            norm = "||x - x'||_1" if self.feature == "binning" else "||x - x'||^2"
            warnings.warn(
                f"gamma={self.gamma_:.3g} is far too large for the spread of X: gamma E{norm} "
                f"= {exponent:.3g} at a typical pair of training inputs (2 on "
                f"standardised features with the default gamma = 1/n_features), so the "
                f"{self.feature!r} sinks change between any two inputs and the fit is a fit on "
                f"noise. One column of a much larger scale than the others does this. "
                f"Standardise the features (make_pipeline(StandardScaler(), ...)) or lower "
                f"gamma.", UserWarning, stacklevel=5)

    def _scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._features(X) @ self.coef_.T + self.intercept_

    def _sample_weight(self, X, sample_weight):
        return None if sample_weight is None else check_sample_weight(sample_weight, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_DOC_PARAMETERS = r"""
    n_components : int >= 1, default=300
        K, the number of random features (kitchen sinks). With 100 (scikit-learn's
        ``RBFSampler``), the classifier stays 3 points below ``LogisticRegression`` on usps'
        256 pixels; 300 is within a point of it or above on the shared sets (module Notes).
        Memory: the n x K features, twice for ``loss='log'`` with an intercept.
    C : float > 0, 'auto' or None, default='auto'
        The box: :math:`|\alpha_k| \le C/K`, so that :math:`\|f - b\|_\infty \le C` and
        f - b is a K-term estimate of a member of :math:`\mathcal F_p`. ``None``:
        unconstrained. ``'auto'``: :data:`AUTO_BOX` (1000) times the scale of the targets,
        1 for the classifier (its scores are margins of labels of +-1) and the standard
        deviation of y for the regressor (about its weighted mean; about 0 when
        ``fit_intercept=False``), so that fitting ``a * y + c`` gives ``a * f + c``. On the
        shared data sets it leaves most weights free: the default is the least squares or
        logistic fit of the K sinks, and the box only stops weights that would run off
        (see the module's Notes). The value used is ``C_``.
    feature : {'fourier', 'bump', 'sigmoid', 'binning'} or (phi, sampler), default='fourier'
        The family (see :mod:`lsl_lib.kitchen_sinks`), or a pair of callables:
        ``sampler(rng, n_features, K) -> params`` draws the parameters from a
        ``numpy.random.Generator``, ``phi(X, params) -> (n_samples, K)`` evaluates them;
        :math:`|\phi| \le 1` is required (checked on every X).
    gamma : float > 0 or None, default=None
        The scale of the family (see :func:`draw_features`); ``None`` is 1/d, made for
        standardised features. A built-in family whose sinks are noise on X (one column of a
        much larger scale than the others: :func:`kernel_exponent` above
        :data:`NOISE_EXPONENT`) warns. Unused by a pair.
    fit_intercept : bool, default=True
        Add an unconstrained constant b to f. Rahimi and Recht's class has none; without it,
        targets far from 0 (a regression target near 84) or unbalanced classes must be
        built from the sinks inside the box, which bounded sinks of random phase do badly.
    tol : float > 0, default=1e-4
        Projected-gradient tolerance of L-BFGS-B (``loss='log'``), that of scikit-learn's
        ``LogisticRegression``. Near separability the logistic risk is flat in some
        directions: then 1e-12 pins the weights (and which of them sit on the box) to a few
        digits, at several times the iterations.
    max_iter : int >= 1, default=1000
        Iterations of L-BFGS-B (``loss='log'``).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the draw of the features, the only randomness."""

_DOC_ATTRIBUTES = r"""
    feature_params_ : dict or object
        The drawn :math:`w_1, \dots, w_K` (:func:`draw_features`; what ``sampler`` returned
        for a pair).
    gamma_ : float or None
        The scale used.
    C_ : float or None
        The box's C used (``C``, or what ``'auto'`` made of it).
    bound_ : float or None
        C_/K, the box (None when unconstrained).
    n_iter_ : ndarray of shape (n_outputs,)
        The solver's iterations per output (BVLS, L-BFGS-B or HiGHS; 1 for an
        unconstrained least squares).
    n_active_constraints_ : int
        How many :math:`\alpha_k` sit on the box, :math:`|\alpha_k| = C/K` (to a relative
        1e-6), over all outputs.
    n_features_in_ : int"""

_DOC_SOLVERS = r"""
    Solvers (each returns the exact constrained minimiser, to solver tolerance, because the
    problem is convex and small in K): squared loss by box-constrained least squares
    (:func:`fit_squared`: a thin QR, then BVLS, an active-set method that terminates at the
    exact solution); log loss by L-BFGS-B (:func:`fit_log`, bounds handled natively, O(nK)
    per iteration, on centred features when there is an intercept); hinge loss by a linear
    program solved by HiGHS (:func:`fit_hinge`, an exact vertex). Squared and log losses
    scale to n of a few 10⁴ and K of 10³ (seconds); the hinge LP to a few thousand examples
    (its time grows faster than n: more than 150 s on a9a's 32 561 rows, hence
    ``time_limit``). There is no iteration loop of ours to compile: the cost is in BLAS and
    in scipy's solvers, so there is no numba path.

    Ctrl-C, or Jupyter's "interrupt kernel", stops a fit within one step of L-BFGS-B or
    BVLS, and at once during the hinge's LP, which HiGHS solves in a worker thread (the
    abandoned solve runs on to its end or to ``time_limit``, and is dropped). The squared
    loss's QR and least squares are single LAPACK calls of O(nK²), which Ctrl-C waits for
    (0.3 s on cpu_act at the default K). A fit interrupted, or failed, leaves the estimator
    unfitted. The defaults and what they reach
    on real data: the Notes of :mod:`lsl_lib.kitchen_sinks`."""


class RandomKitchenSinksClassifier(ScoreClassifierMixin, _BaseKitchenSinks):
    __doc__ = r"""Weighted sum of random kitchen sinks, a classifier (Rahimi and Recht 2008).

    .. math::

        f(x) = \sum_{k=1}^K \alpha_k \phi(x; w_k) \;(+\, b), \qquad
        w_k \overset{\text{iid}}{\sim} p, \qquad
        \hat\alpha = \operatorname*{arg\,min}_{\|\alpha\|_\infty \le C/K}
        \frac{1}{n}\sum_i c\big(y_i f(x_i)\big),

    with the hinge :math:`c(z) = \max(0, 1 - z)` or the logistic loss
    :math:`c(z) = \log(1 + e^{-z})`, both 1-Lipschitz as Theorem 1 asks. More than two
    classes: one-vs-rest, one α per class on the same features, predicting the class of
    largest score.

    Parameters
    ----------""" + _DOC_PARAMETERS + r"""
    loss : {'log', 'hinge'}, default='log'
        The logistic loss (L-BFGS-B with the box: seconds at a few 10⁴ rows; adds
        :meth:`predict_proba`), or the hinge of the paper's experiments, whose linear program
        is solved exactly but in a time that grows faster than n (a few thousand rows; see
        :func:`fit_hinge`).
    time_limit : float > 0 or None, default=60.0
        Seconds the hinge's LP may run (HiGHS's ``time_limit``; ``loss='hinge'`` only): past
        it, ``fit`` raises ``RuntimeError``. None: no limit. Ctrl-C stops the fit at once
        in any case.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, K) for two classes, else (n_classes, K)
        α, one row per one-vs-rest problem.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        b (zeros when ``fit_intercept=False``).""" + _DOC_ATTRIBUTES + r"""

    See Also
    --------
    RandomKitchenSinksRegressor
    lsl_lib.random_features.RandomFourierFeatures : the ``fourier`` features of a kernel.
    lsl_lib.theory.kitchen_sinks_bound : the excess-risk bound of Theorem 1.

    Notes
    -----""" + _DOC_SOLVERS + r"""

    References
    ----------
    Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
    randomization in learning. NIPS 2008.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from lsl_lib.kitchen_sinks import RandomKitchenSinksClassifier
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> clf = RandomKitchenSinksClassifier(n_components=100, C=50, gamma=2.0,
    ...                                    random_state=0).fit(X, y)
    >>> bool(abs(clf.coef_).max() <= 50 / 100), clf.score(X, y) > 0.95
    (True, True)
    """

    _parameter_constraints = {**_BaseKitchenSinks._parameter_constraints,
                              "loss": [StrOptions(set(CLASSIFIER_LOSSES))],
                              "time_limit": [Interval(Real, 0, None, closed="neither"), None]}

    def __init__(self, n_components=300, C="auto", feature="fourier", gamma=None, loss="log",
                 fit_intercept=True, tol=1e-4, max_iter=1000, time_limit=60.0,
                 random_state=None):
        self.n_components = n_components
        self.C = C
        self.feature = feature
        self.gamma = gamma
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Draw the K features and fit α under the box, one-vs-rest beyond two classes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            CSR is accepted (the built-in families read X through products, or row by row).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i`: the risk :math:`\\sum_i s_i c_i / \\sum_i s_i`.
        """
        with self._unfitted_on_error():
            X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
            check_classification_targets(y)
            self.classes_ = np.unique(y)
            check_n_classes(self.classes_, self.loss, ())
            sample_weight = self._sample_weight(X, sample_weight)
            if len(self.classes_) == 2:
                targets = [signed_binary_labels(y, self.classes_)]
            else:
                targets = [np.where(y == c, 1.0, -1.0) for c in self.classes_]
            self.coef_, self.intercept_ = self._fit_outputs(X, targets, sample_weight, self.loss)
        return self

    def _binary_only(self):
        return False  # one-vs-rest of its own: the K features are drawn once for all classes

    def _decision_scores(self, X):
        """Scores f(x): shape (n,) for two classes (that of ``classes_[1]``), else (n, n_classes).
        With ``loss='log'``, :meth:`predict_proba` is :math:`\\sigma(f(x))` for two classes and
        the one-vs-rest probabilities normalised to sum to 1 otherwise (as scikit-learn's
        one-vs-rest logistic regression)."""
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def _has_proba(self):
        return self.loss == "log"


class RandomKitchenSinksRegressor(RegressorMixin, _BaseKitchenSinks):
    __doc__ = r"""Weighted sum of random kitchen sinks, a regressor (Rahimi and Recht 2008).

    .. math::

        f(x) = \sum_{k=1}^K \alpha_k \phi(x; w_k) \;(+\, b), \qquad
        \hat\alpha = \operatorname*{arg\,min}_{\|\alpha\|_\infty \le C/K}
        \frac1n\sum_i \big(y_i - f(x_i)\big)^2.

    The squared loss is Lipschitz on the bounded range that the theorem works on: with
    :math:`|y| \le Y` and :math:`|f| \le C`, :math:`L = 2(Y + C)`.

    Parameters
    ----------""" + _DOC_PARAMETERS + r"""
    loss : {'squared'}, default='squared'

    Attributes
    ----------
    coef_ : ndarray of shape (K,)
        α.
    intercept_ : float
        b (0 when ``fit_intercept=False``).""" + _DOC_ATTRIBUTES + r"""

    See Also
    --------
    RandomKitchenSinksClassifier
    lsl_lib.theory.kitchen_sinks_bound : the excess-risk bound of Theorem 1.

    Notes
    -----""" + _DOC_SOLVERS + r"""

    References
    ----------
    Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
    randomization in learning. NIPS 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kitchen_sinks import RandomKitchenSinksRegressor
    >>> X = np.linspace(-3, 3, 200)[:, None]
    >>> reg = RandomKitchenSinksRegressor(n_components=50, C=20, feature="bump",
    ...                                   gamma=2.0, random_state=0).fit(X, np.sin(X[:, 0]))
    >>> reg.score(X, np.sin(X[:, 0])) > 0.99, bool(abs(reg.coef_).max() <= 20 / 50)
    (True, True)
    """

    _parameter_constraints = {**_BaseKitchenSinks._parameter_constraints,
                              "loss": [StrOptions(set(REGRESSOR_LOSSES))]}

    def __init__(self, n_components=300, C="auto", feature="fourier", gamma=None, loss="squared",
                 fit_intercept=True, tol=1e-4, max_iter=1000, random_state=None):
        self.n_components = n_components
        self.C = C
        self.feature = feature
        self.gamma = gamma
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Draw the K features and fit α by box-constrained least squares.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            CSR is accepted.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights :math:`s_i` of the squared errors.
        """
        with self._unfitted_on_error():
            X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                                 y_numeric=True)
            sample_weight = self._sample_weight(X, sample_weight)
            coef, intercept = self._fit_outputs(X, [y], sample_weight, self.loss)
            self.coef_, self.intercept_ = coef[0], float(intercept[0])
        return self

    def _box_scale(self, targets, sample_weight):
        """The weighted standard deviation of y about its mean (about 0 without intercept);
        1 for a constant y, which the intercept alone fits."""
        y = targets[0]
        centre = np.average(y, weights=sample_weight) if self.fit_intercept else 0.0
        scale = float(np.sqrt(np.average((y - centre) ** 2, weights=sample_weight)))
        return scale if scale > 0 else 1.0

    def predict(self, X):
        return self._scores(X)
