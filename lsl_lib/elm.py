r"""Extreme learning machines: a random hidden layer and a ridge regression on top.

A single-hidden-layer network :math:`f(x) = \sum_{j=1}^L \beta_j\, G(a_j, b_j, x)` whose
hidden parameters :math:`(a_j, b_j)` are **drawn at random and never trained** (Huang, Zhu
and Siew 2006). The hidden layer maps the N training rows to

.. math::

    H = \begin{bmatrix} G(a_1, b_1, x_1) & \cdots & G(a_L, b_L, x_1) \\
    \vdots & & \vdots \\ G(a_1, b_1, x_N) & \cdots & G(a_L, b_L, x_N) \end{bmatrix}
    \in \mathbb R^{N \times L},

a random feature map as the random Fourier features' :math:`z(x)` are (their map is the
``'cosine'`` row below, whose bias is drawn uniform on :math:`[0, 2\pi)`, with Gaussian a
instead of this module's uniform a: see :func:`draw_hidden_parameters`). Only the output
weights :math:`\beta \in \mathbb R^{L \times m}` are learnt, by the regularised least
squares of Huang, Zhou, Ding and Zhang (2012),
:math:`\min_\beta \tfrac12\|\beta\|^2 + \tfrac C2 \|H\beta - T\|^2`:

.. math::

    \beta = \Big(H^\top H + \frac IC\Big)^{-1} H^\top T \quad (N \ge L, \text{ an } L\times L
    \text{ system}), \qquad
    \beta = H^\top \Big(H H^\top + \frac IC\Big)^{-1} T \quad (N < L, N \times N),

the same vector (push-through identity), each solved by Cholesky
(``scipy.linalg.solve(assume_a='pos')``), never by an explicit inverse. Both form a Gram
matrix, and :math:`\operatorname{cond}(H^\top H) = \operatorname{cond}(H)^2`: the ridge
I/C is what keeps that system solvable when H is ill-conditioned, at the price of its bias.
The third form, ``solver='svd'`` (:func:`output_weights_svd`), works on H itself,
:math:`\beta = V\operatorname{diag}(\sigma_i/(\sigma_i^2 + 1/C))U^\top T`, and takes
``C=np.inf``: the minimum-norm least-squares solution :math:`H^+T`, with no ridge at all.
When C is so large that the regularised Gram system is singular to machine precision (1/C
below the rounding of :math:`H^\top H`, on an H of deficient rank), the Cholesky forms give
way to it, as scikit-learn's ``Ridge`` falls back from Cholesky to its SVD.

The hidden nodes (the table of Huang et al. 2012), with :math:`G(a, b, x) = g(a^\top x + b)`
for additive nodes and a distance to a centre a for RBF nodes:

================  =============================================  ==========
``activation``    :math:`G(a, b, x)`                             node
================  =============================================  ==========
``sigmoid``       :math:`1/(1 + e^{-(a^\top x + b)})`            additive
``tanh``          :math:`\tanh(a^\top x + b)`                    additive
``gaussian``      :math:`\exp(-b\|x - a\|^2)`                    RBF
``multiquadric``  :math:`\sqrt{\|x - a\|^2 + b^2}`               RBF
``hardlim``       :math:`\mathbb 1[a^\top x + b \ge 0]`          additive
``cosine``        :math:`\cos(a^\top x + b)`, b ~ U[0, 2π)       additive
``relu``          :math:`\max(0, a^\top x + b)`                  additive
callable g        :math:`g(a^\top x + b)`, elementwise           additive
================  =============================================  ==========

**One path.** There is no numba path: an ELM has no iterative loop. Its cost is two BLAS-3
products, :math:`XA` in O(NdL) and :math:`H^\top H` in :math:`O(NL^2)` (or :math:`HH^\top`,
:math:`O(N^2L)`), one Cholesky factorisation in :math:`O(\min(N, L)^3)`, and an activation
applied in place by a numpy ufunc, all of which already run in compiled, multithreaded code.

=======================================  ==============================  ===================
the paper's line                         reference                       compiled
=======================================  ==============================  ===================
Huang et al. 2006: random (a_j, b_j)     :func:`draw_hidden_parameters`  none (numpy)
the hidden layer H = [G(a_j, b_j, x_i)]  :func:`hidden_layer`            none (BLAS, ufuncs)
Huang et al. 2012:                       :func:`output_weights`          none (LAPACK)
β = (HᵀH + I/C)⁻¹HᵀT, or its dual
β by the SVD of H (C = inf: H⁺T)         :func:`output_weights_svd`      none (LAPACK)
=======================================  ==============================  ===================

References
----------
Huang, Zhu, Siew. Extreme learning machine: theory and applications. Neurocomputing 70,
2006.

Huang, Chen, Siew. Universal approximation using incremental constructive feedforward
networks with random hidden nodes. IEEE Transactions on Neural Networks 17(4), 2006.

Huang, Zhou, Ding, Zhang. Extreme learning machine for regression and multiclass
classification. IEEE Transactions on Systems, Man, and Cybernetics B 42(2), 2012.
"""
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.classifier import ScoreClassifierMixin
from lsl_lib._core.linalg import squared_row_norms
from lsl_lib._core.random import check_random_state
from lsl_lib._core.validation import (
    ITERATIVE_CONSTRAINTS,
    check_n_classes,
    check_sample_weight,
    memory_named,
)

__all__ = ["ExtremeLearningMachineRegressor", "ExtremeLearningMachineClassifier",
           "draw_hidden_parameters", "hidden_layer", "output_weights", "output_weights_svd",
           "is_rbf", "ACTIVATIONS"]


def __dir__():
    return __all__


def _sigmoid(Z):
    """:math:`1/(1 + e^{-z})` in place (faster than ``scipy.special.expit``: benchmarks/
    README.md, §Extreme learning machines); for z < -709, :math:`e^{-z}` overflows to inf and
    the result is its limit, 0."""
    with np.errstate(over="ignore"):
        np.negative(Z, out=Z)
        np.exp(Z, out=Z)
    Z += 1.0
    return np.reciprocal(Z, out=Z)


#: The additive activations g, applied in place to the pre-activations :math:`XA + b`.
_ADDITIVE_ACTIVATIONS = {
    "sigmoid": _sigmoid,
    "tanh": lambda Z: np.tanh(Z, out=Z),
    "hardlim": lambda Z: np.greater_equal(Z, 0.0).astype(np.float64),
    "cosine": lambda Z: np.cos(Z, out=Z),
    "relu": lambda Z: np.maximum(Z, 0.0, out=Z),
}

#: The RBF activations, of the squared distances :math:`\|x - a\|^2` and the impact factors b.
_RBF_ACTIVATIONS = {
    "gaussian": lambda D2, b: np.exp(np.multiply(D2, -b, out=D2), out=D2),
    "multiquadric": lambda D2, b: np.sqrt(np.add(D2, b * b, out=D2), out=D2),
}

ACTIVATIONS = tuple(_ADDITIVE_ACTIVATIONS) + tuple(_RBF_ACTIVATIONS)

_SOLVERS = ("auto", "primal", "dual", "svd")


def is_rbf(activation):
    """True for the activations whose nodes are RBF nodes (a centre, an impact factor)."""
    return isinstance(activation, str) and activation in _RBF_ACTIVATIONS


def draw_hidden_parameters(X, n_hidden, activation, weight_scale, rng):
    r"""The random hidden parameters :math:`(a_j, b_j)` of L nodes, in float64.

    Additive nodes (Huang et al. 2006): :math:`a_j \sim U[-s, s]^d`, :math:`b_j \sim U[-1, 1]`,
    with s = ``weight_scale``; the ``'cosine'`` node draws its phase :math:`b_j \sim U[0,
    2\pi)` instead, the phase of random Fourier features (Rahimi and Recht 2007), which
    makes its hidden layer an unbiased estimate of a shift-invariant kernel:

    .. math::

        \frac 2L\, h(x)^\top h(y) \;\xrightarrow[L \to \infty]{}\;
        \mathbb E_a\big[\cos(a^\top(x - y))\big]
        = \prod_{j=1}^d \frac{\sin(s\,(x_j - y_j))}{s\,(x_j - y_j)},

    the sinc kernel, whose spectral density is the uniform law of a on the cube (with
    :math:`b \sim U[-1, 1]` the limit would keep a term
    :math:`\tfrac{\sin 2}{2}\mathbb E_a\cos(a^\top(x + y))`: not a function of x - y).
    RBF nodes: the centres :math:`a_j` are L training rows drawn at
    random (without replacement when L <= N), so that they sit where the data are, and the
    impact factors are :math:`b_j = s^2 u_j` (Gaussian) or :math:`b_j = u_j / s`
    (multiquadric) with :math:`u_j \sim U(0, 1)`: in both cases the node computed on the
    inputs scaled by s, :math:`s\,x`, up to a factor s common to all multiquadric columns.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (N, d)
        The training inputs (RBF centres are drawn from its rows; additive nodes use only d).
    n_hidden : int
        L.
    activation : str or callable
    weight_scale : float
        s.
    rng : numpy.random.Generator

    Returns
    -------
    weights : ndarray of shape (d, L)
        :math:`a_j` in column j (the centres for RBF nodes).
    biases : ndarray of shape (L,)
        :math:`b_j`.
    """
    n, d = X.shape
    if is_rbf(activation):
        rows = rng.choice(n, size=n_hidden, replace=n_hidden > n)
        centres = X[rows]
        weights = np.ascontiguousarray(
            (centres.toarray() if sp.issparse(centres) else centres).T, dtype=np.float64)
        u = rng.uniform(0.0, 1.0, size=n_hidden)
        scale = np.float64(weight_scale)
        with np.errstate(over="ignore", divide="ignore"):
            factor = scale * scale if activation == "gaussian" else 1.0 / scale
        if not np.isfinite(factor):
            raise ValueError(
                f"weight_scale={weight_scale!r} is out of range for activation="
                f"{activation!r}: its impact factors b = "
                f"{'s^2 u' if activation == 'gaussian' else 'u / s'} overflow float64; scale "
                f"the inputs instead (weight_scale s computes the nodes on s x).")
        return weights, factor * u
    weights = weight_scale * rng.uniform(-1.0, 1.0, size=(d, n_hidden))
    if isinstance(activation, str) and activation == "cosine":
        biases = rng.uniform(0.0, 2.0 * np.pi, size=n_hidden)
    else:
        biases = rng.uniform(-1.0, 1.0, size=n_hidden)
    return weights, biases


def hidden_layer(X, weights, biases, activation="sigmoid"):
    r"""The hidden-layer output H, :math:`H_{ij} = G(a_j, b_j, x_i)` (see the module's table).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (N, d)
    weights : ndarray of shape (d, L)
        :math:`a_j` in column j: input weights of additive nodes, centres of RBF nodes.
    biases : ndarray of shape (L,)
        :math:`b_j`: biases of additive nodes, impact factors of RBF nodes.
    activation : str or callable, default='sigmoid'
        A name of :data:`ACTIVATIONS`, or a function g applied elementwise to the
        pre-activations :math:`XA + b` (an array of shape (N, L)) that returns an array of
        the same shape.

    Returns
    -------
    H : ndarray of shape (N, L), float64

    Raises
    ------
    ValueError
        If H has a NaN or an infinite entry: a callable ``activation`` that returns one
        (``np.log`` of a negative pre-activation, say) is refused by name; for the named
        activations the pre-activations overflowed (a ``weight_scale`` or inputs far too
        large). Either would make every output weight NaN.

    Notes
    -----
    X enters only through the product :math:`XA` and, for RBF nodes, its row norms
    (:math:`\|x - a\|^2 = \|x\|^2 - 2x^\top a + \|a\|^2`), so a CSR matrix works.
    """
    weights = np.asarray(weights, dtype=np.float64)
    biases = np.asarray(biases, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked below
        Z = np.asarray(X @ weights, dtype=np.float64)  # a new array: changed in place below
        if is_rbf(activation):
            # ||x - a||^2 = ||x||^2 - 2 x.a + ||a||^2, clipped at 0 against cancellation
            Z *= -2.0
            Z += squared_row_norms(X)[:, None]
            Z += np.einsum("ij,ij->j", weights, weights)
            np.maximum(Z, 0.0, out=Z)
            H = _RBF_ACTIVATIONS[activation](Z, biases)
        else:
            Z += biases
            if callable(activation):
                H = np.asarray(activation(Z), dtype=np.float64)
                if H.shape != Z.shape:
                    raise ValueError(f"The activation callable must return an array of the "
                                     f"shape of its input, {Z.shape}, got {H.shape}.")
            else:
                H = _ADDITIVE_ACTIVATIONS[activation](Z)
    if not np.all(np.isfinite(H)):
        bad = int(H.size - np.count_nonzero(np.isfinite(H)))
        if callable(activation):
            raise ValueError(
                f"The activation callable returned NaN or inf in {bad} of {H.size} entries "
                f"of the hidden layer: activation must map every pre-activation a.x + b to "
                f"a finite number.")
        raise ValueError(
            f"The hidden layer has NaN or inf in {bad} of {H.size} entries: the "
            f"pre-activations of activation={activation!r} overflow float64; lower "
            f"weight_scale, or scale the inputs (to [-1, 1], or with a StandardScaler).")
    return H


def output_weights(H, T, C, solver="auto"):
    r"""The output weights :math:`\beta` of the regularised ELM, by a closed form.

    .. math::

        \text{'primal'}: \; \beta = \Big(H^\top H + \frac IC\Big)^{-1} H^\top T, \qquad
        \text{'dual'}: \; \beta = H^\top \Big(HH^\top + \frac IC\Big)^{-1} T, \qquad
        \text{'svd'}: \; \beta = V\operatorname{diag}\Big(\frac{\sigma_i}{\sigma_i^2 + 1/C}
        \Big)U^\top T.

    All three minimise :math:`\tfrac12\|\beta\|^2 + \tfrac C2\|H\beta - T\|^2`. The system
    is :math:`L \times L` in the primal form and :math:`N \times N` in the dual one, each
    positive definite and solved by Cholesky (``scipy.linalg.solve(assume_a='pos')``); its
    condition number is about :math:`\operatorname{cond}(H)^2` when 1/C is small, so those
    forms lose twice the digits that H itself would. The SVD form (:func:`output_weights_svd`)
    works on H. When the Cholesky system is singular to machine precision (Cholesky fails, or
    scipy finds its reciprocal condition number below the machine epsilon: a C so large that
    1/C is lost in the rounding of :math:`H^\top H`, on an H of deficient rank), :math:`\beta`
    comes from the SVD of H instead.

    Parameters
    ----------
    H : ndarray of shape (N, L)
    T : ndarray of shape (N,) or (N, m)
    C : float > 0, or numpy.inf
        ``np.inf``: no ridge, the minimum-norm least-squares solution :math:`H^+T` (by the SVD
        with 'auto'; by the unregularised normal equations, falling back to the SVD when they
        are singular to machine precision, with 'primal' or 'dual').
    solver : {'auto', 'primal', 'dual', 'svd'}, default='auto'
        'auto' takes the smaller system, 'primal' when N >= L, else 'dual'; and 'svd' when C
        is infinite.

    Returns
    -------
    beta : ndarray of shape (L,) or (L, m)
    """
    return _output_weights(H, T, C, solver)[0]


def _auto_solver(shape, C):
    """The form ``solver='auto'`` takes for an H of this shape and this C."""
    if np.isinf(C):
        return "svd"
    return "primal" if shape[0] >= shape[1] else "dual"


def _output_weights(H, T, C, solver):
    """:func:`output_weights` and the form that computed it: 'primal', 'dual' or 'svd'."""
    n, n_hidden = H.shape
    if solver == "auto":
        solver = _auto_solver(H.shape, C)
    if solver == "svd":
        return output_weights_svd(H, T, C), solver
    try:
        with warnings.catch_warnings():
            # scipy warns when rcond < eps: the Cholesky answer is then not to be trusted
            warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
            if solver == "primal":
                A = H.T @ H
                A.flat[::n_hidden + 1] += 1.0 / C
                return scipy.linalg.solve(A, H.T @ T, assume_a="pos", overwrite_a=True,
                                          overwrite_b=True, check_finite=False), solver
            A = H @ H.T
            A.flat[::n + 1] += 1.0 / C
            return H.T @ scipy.linalg.solve(A, T, assume_a="pos", overwrite_a=True,
                                            check_finite=False), solver
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
        return output_weights_svd(H, T, C), "svd"


def output_weights_svd(H, T, C):
    r"""The output weights :math:`\beta` from the SVD :math:`H = U \Sigma V^\top`.

    .. math::

        \beta = V \operatorname{diag}\Big(\frac{\sigma_i}{\sigma_i^2 + 1/C}\Big) U^\top T
        \;\xrightarrow[C \to \infty]{}\; H^+ T,

    over the singular values above the numerical rank's cut, :math:`\sigma_i >
    \max(N, L)\,\varepsilon\,\sigma_1` (``numpy.linalg.pinv``'s; with ``C=np.inf`` the
    factor is :math:`1/\sigma_i` and :math:`\beta = H^+T`): those below are rounding
    noise of zero singular values, whose exact ridge factor is 0. It is the same
    :math:`\beta` as :func:`output_weights` wherever the Cholesky forms are accurate, and
    stays accurate where they are not: C large on an H of deficient rank (repeated rows,
    more nodes than distinct inputs), where it gives the minimum-norm least-squares
    solution :math:`H^+T` up to a relative :math:`1/(C\sigma_i^2)` per direction.
    Costs :math:`O(NL\min(N, L))`, a few times the Cholesky forms.

    Parameters
    ----------
    H : ndarray of shape (N, L)
    T : ndarray of shape (N,) or (N, m)
    C : float > 0, or numpy.inf (no ridge)

    Returns
    -------
    beta : ndarray of shape (L,) or (L, m)
    """
    U, sigma, Vt = scipy.linalg.svd(H, full_matrices=False, check_finite=False)
    factor = np.zeros_like(sigma)
    if sigma.size:
        kept = sigma > max(H.shape) * np.finfo(np.float64).eps * sigma[0]
        factor[kept] = sigma[kept] / (sigma[kept] ** 2 + 1.0 / C)
    coordinates = U.T @ T
    coordinates *= factor if coordinates.ndim == 1 else factor[:, None]
    return Vt.T @ coordinates


class _BaseELM(BaseEstimator):
    """What the classifier and the regressor share: the hidden layer and the solve."""

    _parameter_constraints = {
        "n_hidden": [Interval(Integral, 1, None, closed="left")],
        "activation": [StrOptions(set(ACTIVATIONS)), callable],
        "C": [Interval(Real, 0, None, closed="right")],  # (0, inf]: inf is no ridge
        "weight_scale": [Interval(Real, 0, None, closed="neither")],
        "solver": [StrOptions(set(_SOLVERS))],
        "random_state": ITERATIVE_CONSTRAINTS["random_state"],
    }

    def __init__(self, n_hidden=100, activation="sigmoid", C=1.0, weight_scale=1.0,
                 solver="auto", random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.C = C
        self.weight_scale = weight_scale
        self.solver = solver
        self.random_state = random_state

    def _fit_targets(self, X, T, sample_weight):
        """Draw the hidden layer, compute H on X, solve for β with targets T."""
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        rng = check_random_state(self.random_state)
        with memory_named("n_hidden", self.n_hidden):  # H is N x L, the system min(N, L)^2
            self.input_weights_, self.biases_ = draw_hidden_parameters(
                X, self.n_hidden, self.activation, self.weight_scale, rng)
            H = hidden_layer(X, self.input_weights_, self.biases_, self.activation)
            if sample_weight is not None:
                # weighted least squares: rows of H and T scaled by sqrt(s_i)
                root = np.sqrt(sample_weight)[:, None]
                H *= root
                T = T * (root if T.ndim == 2 else root[:, 0])
            solver = self.solver
            if solver == "auto":
                solver = _auto_solver(H.shape, self.C)
            self.coef_, self.solver_ = _output_weights(H, T, self.C, solver)
        return self

    def hidden_activations(self, X):
        """H of X, shape (n_samples, n_hidden): the random features the model is linear in."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return hidden_layer(X, self.input_weights_, self.biases_, self.activation)

    def _decision(self, X):
        return self.hidden_activations(X) @ self.coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class ExtremeLearningMachineRegressor(RegressorMixin, _BaseELM):
    r"""Extreme learning machine regression (Huang, Zhu, Siew 2006; Huang et al. 2012).

    Draws L random hidden nodes, computes the hidden-layer output H of the training set,
    and solves the ridge regression of the targets T on H in closed form:

    .. math::

        f(x) = h(x)^\top \beta, \qquad
        \beta = \arg\min_\beta \tfrac12\|\beta\|^2 + \tfrac C2 \sum_i s_i \|h(x_i)^\top\beta
        - t_i\|^2,

    :math:`(H^\top H + I/C)^{-1}H^\top T` when N >= L, :math:`H^\top(HH^\top + I/C)^{-1}T`
    when N < L (:func:`output_weights`).

    Parameters
    ----------
    n_hidden : int, default=100
        L, the number of hidden nodes (>= 1).
    activation : {'sigmoid', 'tanh', 'gaussian', 'multiquadric', 'hardlim', 'cosine', \
'relu'} or callable, default='sigmoid'
        The hidden node (see :mod:`lsl_lib.elm`); a callable g makes the additive node
        :math:`g(a^\top x + b)` and must map an (N, L) array to one of the same shape.
    C : float > 0 or numpy.inf, default=1.0
        The weight of the training error against :math:`\frac12\|\beta\|^2` (the ridge is
        I/C; scikit-learn's ``Ridge(alpha=1/C, fit_intercept=False)`` on H). ``np.inf``: no
        ridge, the minimum-norm least-squares fit :math:`H^+T` (from the SVD of H).
    weight_scale : float > 0, default=1.0
        s: additive nodes draw :math:`a \sim U[-s, s]^d` (:func:`draw_hidden_parameters`),
        RBF nodes compute their distances as if on s x. The nodes assume inputs of order 1:
        scale the features first, to [-1, 1] as Huang et al. do or with a
        ``StandardScaler``; features of very different scales saturate sigmoids (every
        node then sees only the largest feature), and on many standardised features
        :math:`a^\top x` grows as :math:`\sqrt{d/3}`, so s about :math:`1/\sqrt d` keeps the
        nodes out of saturation.
    solver : {'auto', 'primal', 'dual', 'svd'}, default='auto'
        Which closed form computes β (:func:`output_weights`): 'auto' solves the smaller
        system, 'primal' when N >= L, 'dual' when N < L, and takes 'svd' when C is
        infinite. All give the same β up to rounding; the Cholesky forms square the condition
        number of H, and give way to the SVD of H when their system is singular to machine
        precision.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the hidden parameters.

    Attributes
    ----------
    coef_ : ndarray of shape (n_hidden,) or (n_hidden, n_targets)
        β, the output weights.
    input_weights_ : ndarray of shape (n_features, n_hidden)
        :math:`a_j` in column j (input weights, or RBF centres).
    biases_ : ndarray of shape (n_hidden,)
        :math:`b_j` (biases, or RBF impact factors).
    solver_ : {'primal', 'dual', 'svd'}
        The closed form that was used; 'svd' when asked for (or C is infinite), or when the
        regularised system was singular to machine precision (a huge C on an H of deficient
        rank: :func:`output_weights_svd`, the minimum-norm least-squares solution in the
        limit).
    n_features_in_ : int

    See Also
    --------
    ExtremeLearningMachineClassifier : the same on ±1 codes of the classes.
    hidden_layer : H of any input.
    lsl_lib.random_features.RandomFourierFeatures : another random feature map, the
        'cosine' node with Gaussian weights.

    Notes
    -----
    No output bias, as in the papers: the hidden biases give the model its offsets (a
    ``'relu'`` or ``'sigmoid'`` node with a near-constant output plays the intercept).
    Costs :math:`O(NdL + NL^2 + L^3)` (primal) or :math:`O(NdL + N^2L + N^3)` (dual) time
    and :math:`O(NL + \min(N, L)^2)` memory. With ``C`` large, L >= N distinct inputs and a
    non-polynomial activation, H has full row rank almost surely and the model interpolates
    the training set (Huang et al. 2006, Theorem 2.1, which needs the activation to be
    non-polynomial: with g(z) = z, rank H <= d + 1). In floating point that rank can be
    numerical only (smooth nodes of one variable: singular values at the rounding level);
    ``C=np.inf`` with the SVD then gives the least-squares fit. ``sample_weight`` s makes a
    weighted least squares (rows of H and T scaled by :math:`\sqrt{s_i}`).

    References
    ----------
    Huang, Zhu, Siew. Extreme learning machine: theory and applications. Neurocomputing
    70, 2006.

    Huang, Zhou, Ding, Zhang. Extreme learning machine for regression and multiclass
    classification. IEEE Trans. Systems, Man, and Cybernetics B 42(2), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.elm import ExtremeLearningMachineRegressor
    >>> X = np.linspace(-3, 3, 200)[:, None]
    >>> model = ExtremeLearningMachineRegressor(n_hidden=50, C=1e6, random_state=0)
    >>> model = model.fit(X, np.sin(X[:, 0]))
    >>> bool(np.abs(model.predict(X) - np.sin(X[:, 0])).max() < 0.01)
    True
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Draw the hidden layer and solve for the output weights."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             multi_output=True, y_numeric=True)
        return self._fit_targets(X, np.asarray(y, dtype=np.float64), sample_weight)

    def predict(self, X):
        r""":math:`h(x)^\top\beta`, shape (n_samples,) or (n_samples, n_targets)."""
        return self._decision(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class ExtremeLearningMachineClassifier(ScoreClassifierMixin, _BaseELM):
    r"""Extreme learning machine classification (Huang et al. 2006, 2012).

    The classes are coded one-vs-rest as ±1 targets, as in the ELM papers: T has one
    column per class, :math:`T_{ik} = +1` if :math:`y_i` is class k and -1 otherwise (one
    column, class ``classes_[1]`` positive, for two classes), and the regressor of
    :class:`ExtremeLearningMachineRegressor` is fitted to T. The predicted class is the
    column of the largest output (the sign of the single output for two classes):

    .. math::

        \hat y(x) = \arg\max_k\, h(x)^\top \beta_k, \qquad
        \beta = \Big(H^\top H + \frac IC\Big)^{-1} H^\top T
        \;\text{ or }\; H^\top\Big(HH^\top + \frac IC\Big)^{-1} T.

    Parameters
    ----------
    n_hidden : int, default=100
        L, the number of hidden nodes (>= 1).
    activation : {'sigmoid', 'tanh', 'gaussian', 'multiquadric', 'hardlim', 'cosine', \
'relu'} or callable, default='sigmoid'
        The hidden node (see :mod:`lsl_lib.elm`); a callable g makes the additive node
        :math:`g(a^\top x + b)` and must map an (N, L) array to one of the same shape.
    C : float > 0 or numpy.inf, default=1.0
        The weight of the training error against :math:`\frac12\|\beta\|^2` (the ridge is
        I/C; scikit-learn's ``Ridge(alpha=1/C, fit_intercept=False)`` on H). ``np.inf``: no
        ridge, the minimum-norm least-squares fit :math:`H^+T` (from the SVD of H).
    weight_scale : float > 0, default=1.0
        s: additive nodes draw :math:`a \sim U[-s, s]^d` (:func:`draw_hidden_parameters`),
        RBF nodes compute their distances as if on s x. The nodes assume inputs of order 1:
        scale the features first, to [-1, 1] as Huang et al. do or with a
        ``StandardScaler``; features of very different scales saturate sigmoids (every
        node then sees only the largest feature), and on many standardised features
        :math:`a^\top x` grows as :math:`\sqrt{d/3}`, so s about :math:`1/\sqrt d` keeps the
        nodes out of saturation.
    solver : {'auto', 'primal', 'dual', 'svd'}, default='auto'
        Which closed form computes β (:func:`output_weights`): 'auto' solves the smaller
        system, 'primal' when N >= L, 'dual' when N < L, and takes 'svd' when C is
        infinite. All give the same β up to rounding; the Cholesky forms square the condition
        number of H, and give way to the SVD of H when their system is singular to machine
        precision.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the hidden parameters.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_hidden,) or (n_hidden, n_classes)
        β: one column per class, a single one for two classes.
    input_weights_ : ndarray of shape (n_features, n_hidden)
        :math:`a_j` in column j (input weights, or RBF centres).
    biases_ : ndarray of shape (n_hidden,)
        :math:`b_j` (biases, or RBF impact factors).
    solver_ : {'primal', 'dual', 'svd'}
        The closed form that was used; 'svd' when asked for (or C is infinite), or when the
        regularised system was singular to machine precision (a huge C on an H of deficient
        rank: :func:`output_weights_svd`, the minimum-norm least-squares solution in the
        limit).
    n_features_in_ : int

    See Also
    --------
    ExtremeLearningMachineRegressor : the regressor fitted to the codes.
    sklearn.calibration.CalibratedClassifierCV : probabilities from ``decision_function``.

    Notes
    -----
    No ``predict_proba``, by design. The outputs :math:`h(x)^\top\beta_k` are least-squares
    fits of the ±1 codes: they leave [-1, 1], and nothing ties their scale to a likelihood
    (C, L and the activation all move it). A softmax or a clipping of them would be a number
    in [0, 1], not a probability model; scikit-learn's ``RidgeClassifier``, the same least
    squares on ±1 codes, makes the same choice. For probabilities, calibrate the scores on
    held-out data: ``CalibratedClassifierCV(ExtremeLearningMachineClassifier(...))`` fits
    Platt's sigmoid (or an isotonic map) to ``decision_function`` by cross-validation.

    References
    ----------
    Huang, Zhu, Siew. Extreme learning machine: theory and applications. Neurocomputing
    70, 2006.

    Huang, Zhou, Ding, Zhang. Extreme learning machine for regression and multiclass
    classification. IEEE Trans. Systems, Man, and Cybernetics B 42(2), 2012.

    Examples
    --------
    >>> from lsl_lib.datasets import load_digits
    >>> from lsl_lib.elm import ExtremeLearningMachineClassifier
    >>> X_train, X_test, y_train, y_test = load_digits(test_size=0.3)  # pixels in [0, 1]
    >>> model = ExtremeLearningMachineClassifier(n_hidden=1000, C=10.0, random_state=0)
    >>> bool(model.fit(X_train, y_train).score(X_test, y_test) > 0.95)
    True
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Code the classes as ±1 targets, draw the hidden layer, solve for β."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        binarizer = LabelBinarizer(neg_label=-1, pos_label=1).fit(y)
        self.classes_ = binarizer.classes_
        check_n_classes(self.classes_, None, ())
        T = binarizer.transform(y).astype(np.float64)
        if T.shape[1] == 1:
            T = T[:, 0]
        return self._fit_targets(X, T, sample_weight)

    def _binary_only(self):
        return False  # one output per class, solved together

    def _decision_scores(self, X):
        r""":math:`h(x)^\top\beta`: shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes)."""
        return self._decision(X)
