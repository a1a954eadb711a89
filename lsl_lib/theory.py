r"""Bounds of learning theory used by the lectures and the homework, with their constants.

- The oracle inequality of random kitchen sinks (Rahimi and Recht 2008, Theorem 1), drawn by
  ``notebooks/12_random_kitchen_sinks.ipynb``: :func:`kitchen_sinks_bound` and its two steps.
- The Rademacher complexity of the kernel ball :math:`\{f : \|f\|_{\mathcal H} \le c\}` on a
  sample: its closed-form bound :func:`kernel_rademacher_bound` (Bartlett and Mendelson 2002)
  and its Monte Carlo estimate :func:`empirical_rademacher_complexity`; the RKHS norm of a
  kernel expansion, :func:`rkhs_norm_squared`.
- Concentration: :func:`hoeffding_tail` / :func:`hoeffding_deviation` (Hoeffding 1963) and
  :func:`mcdiarmid_tail` / :func:`mcdiarmid_deviation` (McDiarmid 1989).
- A measured rate against a theorem's: :func:`loglog_slope`, the slope of a convergence curve
  on log-log axes over its tail, with its standard error over seeds.

Conventions: the empirical Rademacher complexity of a class F on a sample
:math:`x_1, \dots, x_n` is
:math:`\hat{\mathfrak R}_S(F) = \mathbb E_\sigma \sup_{f \in F} \frac1n\sum_i \sigma_i f(x_i)`,
without absolute value or factor 2, as in Shalev-Shwartz and Ben-David (2014), ch. 26
(Bartlett and Mendelson's :math:`\hat R_n` is :math:`2\,\mathbb E\sup|\cdot|`, which for a
class symmetric under :math:`f \mapsto -f`, such as a ball, is exactly twice this one).
Tail bounds are probabilities: they are clipped at 1 where the inequality is vacuous.
Every function is a closed form or a small Monte Carlo estimate in numpy: the module has no
compiled twins, hence no table of pairs.

References
----------
Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
randomization in learning. NIPS 2008.

Bartlett, Mendelson. Rademacher and Gaussian complexities: risk bounds and structural
results. JMLR 3, 463-482, 2002.

Hoeffding. Probability inequalities for sums of bounded random variables. JASA 58, 13-30, 1963.

McDiarmid. On the method of bounded differences. Surveys in Combinatorics, LMS Lecture
Notes 141, 148-188, 1989.

Shalev-Shwartz, Ben-David. Understanding Machine Learning: From Theory to Algorithms.
Cambridge University Press, 2014, ch. 26 (Rademacher complexities).
"""
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.utils import check_array

from lsl_lib._core.random import check_random_state

__all__ = ["kitchen_sinks_approximation_error", "kitchen_sinks_estimation_error",
           "kitchen_sinks_bound", "kernel_rademacher_bound", "empirical_rademacher_complexity",
           "rkhs_norm_squared", "hoeffding_tail", "hoeffding_deviation", "mcdiarmid_tail",
           "mcdiarmid_deviation", "loglog_slope"]


def __dir__():
    return __all__

#: Relative tolerance of the Gram-matrix checks: asymmetry and negative eigenvalues
#: smaller than this times the largest diagonal entry are rounding, not a user's mistake.
_GRAM_RTOL = 1e-8


def _as_float_array(name, value):
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}.") from None


def _check_positive(name, value, upper=None):
    array = _as_float_array(name, value)
    if not np.all(np.isfinite(array)) or np.any(array <= 0) or (
            upper is not None and np.any(array >= upper)):
        interval = f"in (0, {upper})" if upper is not None else "> 0"
        raise ValueError(f"{name} must be finite and {interval}, got {name}={value!r}.")
    return array


def kitchen_sinks_approximation_error(n_components, C, delta):
    r"""The approximation lemma: how far K random kitchen sinks are from a member of
    :math:`\mathcal F_p`, in :math:`L_2(\mu)`.

    The approximation step of the proof of Rahimi and Recht's (2008) Theorem 1, which rests
    on McDiarmid's inequality for the norm of a mean of bounded vectors in a Hilbert space. Let
    :math:`f^\star(x) = \int \alpha(w)\phi(x; w)\,dw` with :math:`|\alpha(w)| \le C p(w)`
    and :math:`|\phi| \le 1`, let :math:`w_1, \dots, w_K` be i.i.d. from p and
    :math:`\hat f(x) = \frac1K\sum_k \beta(w_k)\phi(x; w_k)`, :math:`\beta = \alpha/p`
    (so :math:`|\beta(w_k)/K| \le C/K`: :math:`\hat f` is in the box). Then for any
    probability measure :math:`\mu` on the inputs, with probability at least
    :math:`1 - \delta` over the :math:`w_k`,

    .. math::

        \|\hat f - f^\star\|_{L_2(\mu)} \le \frac{C}{\sqrt K}
        \Big(1 + \sqrt{2\log\tfrac1\delta}\Big).

    (The terms :math:`\beta(w_k)\phi(\cdot; w_k)` are i.i.d. in the ball of radius C of
    :math:`L_2(\mu)` with mean :math:`f^\star`: the expected distance is at most
    :math:`C/\sqrt K`, and changing one term moves it by at most :math:`2C/K`.)

    Parameters
    ----------
    n_components : int or array-like, > 0
        K.
    C : float > 0
    delta : float in (0, 1)

    Returns
    -------
    ndarray (0-d for scalar input)
    """
    K = _check_positive("n_components", n_components)
    C = _check_positive("C", C)
    delta = _check_positive("delta", delta, upper=1.0)
    return C / np.sqrt(K) * (1.0 + np.sqrt(2.0 * np.log(1.0 / delta)))


def kitchen_sinks_estimation_error(n_samples, C, lipschitz, delta, loss_at_zero=1.0):
    r"""The estimation lemma: the largest gap between risk and empirical risk over the box.

    The estimation step of the proof of Rahimi and Recht's (2008) Theorem 1: for fixed
    :math:`w_1, \dots, w_K` and the class
    :math:`\hat{\mathcal F}_w = \{\sum_k \alpha_k\phi(\cdot; w_k) : |\alpha_k| \le C/K\}`,
    an L-Lipschitz loss :math:`c(y f(x))` and n i.i.d. examples, with probability at least
    :math:`1 - \delta`, for every :math:`f \in \hat{\mathcal F}_w`,

    .. math::

        |R[f] - R_\text{emp}[f]| \le \frac{1}{\sqrt n}\Big(4LC + 2|c(0)|
        + LC\sqrt{\tfrac12\log\tfrac1\delta}\Big).

    The constants are the lemma's as stated by the authors (its proof: the Rademacher
    complexity of the box, the contraction lemma and McDiarmid's inequality; Rahimi and
    Recht 2008, Bartlett and Mendelson 2002). The careful constant of the last term is
    twice as large; the rate is the same.

    Parameters
    ----------
    n_samples : int or array-like, > 0
        n.
    C : float > 0
    lipschitz : float > 0
        L, the Lipschitz constant of the loss in its argument (1 for the hinge and the
        logistic loss).
    delta : float in (0, 1)
    loss_at_zero : float >= 0, default=1.0
        :math:`|c(0)|` (1 for the hinge, :math:`\log 2` for the logistic loss).
    """
    n = _check_positive("n_samples", n_samples)
    C = _check_positive("C", C)
    L = _check_positive("lipschitz", lipschitz)
    delta = _check_positive("delta", delta, upper=1.0)
    if not isinstance(loss_at_zero, Real) or not np.isfinite(loss_at_zero) or loss_at_zero < 0:
        raise ValueError(f"loss_at_zero must be a finite float >= 0, got {loss_at_zero!r}.")
    return (4.0 * L * C + 2.0 * abs(loss_at_zero)
            + L * C * np.sqrt(0.5 * np.log(1.0 / delta))) / np.sqrt(n)


def kitchen_sinks_bound(n_samples, n_components, C, lipschitz, delta, loss_at_zero=1.0,
                        return_terms=False):
    r"""The oracle inequality of random kitchen sinks, Rahimi and Recht (2008), Theorem 1.

    **Theorem.** Let p be a distribution on the parameters, :math:`|\phi(x; w)| \le 1`,
    c(yf) an L-Lipschitz loss, :math:`w_1, \dots, w_K` i.i.d. from p and n i.i.d. training
    examples, and let :math:`\hat f` minimise the empirical risk over
    :math:`\hat{\mathcal F}_w = \{\sum_k \alpha_k\phi(\cdot; w_k) : |\alpha_k| \le C/K\}`.
    Then with probability at least :math:`1 - 2\delta` over the :math:`w_k` and the
    training set,

    .. math::

        R[\hat f] - \min_{f \in \mathcal F_p} R[f] \;\le\;
        \underbrace{\frac{2}{\sqrt n}\Big(4LC + 2|c(0)| + LC\sqrt{\tfrac12\log\tfrac1\delta}
        \Big)}_{\text{estimation (Rademacher)}}
        \;+\;
        \underbrace{\frac{LC}{\sqrt K}\Big(1 + \sqrt{2\log\tfrac1\delta}\Big)}_{
        \text{approximation (McDiarmid in } L_2)}
        \;=\; O\Big(\Big(\frac{1}{\sqrt n} + \frac{1}{\sqrt K}\Big) LC
        \sqrt{\log\tfrac1\delta}\Big),

    where :math:`\mathcal F_p = \{\int\alpha(w)\phi(\cdot; w)\,dw : |\alpha(w)| \le Cp(w)\}`.

    The constants are the theorem's as stated by the authors; the careful constant of the
    last term of the estimation part, :math:`LC\sqrt{\tfrac12\log\tfrac1\delta}`, is twice as
    large (the rate is the same). The proof combines the estimation lemma
    (:func:`kitchen_sinks_estimation_error`) and the approximation lemma
    (:func:`kitchen_sinks_approximation_error`); see Rahimi and Recht (2008).

    Parameters
    ----------
    n_samples : int or array-like, > 0
        n, the number of training examples.
    n_components : int or array-like, > 0
        K, the number of random features (broadcast against ``n_samples``).
    C : float > 0
        The radius of :math:`\mathcal F_p` (the box is C/K).
    lipschitz : float > 0
        L, the Lipschitz constant of the loss in the prediction.
    delta : float in (0, 1)
        The bound holds with probability :math:`1 - 2\delta`.
    loss_at_zero : float >= 0, default=1.0
        :math:`|c(0)|`.
    return_terms : bool, default=False
        Return ``(estimation, approximation)``, the two terms, instead of their sum.

    Returns
    -------
    bound : ndarray, or tuple of two ndarrays
        0-d arrays for scalar input.

    References
    ----------
    Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
    randomization in learning. NIPS 2008 (Theorem 1 and the lemmas of its proof).

    Examples
    --------
    >>> from lsl_lib.theory import kitchen_sinks_bound
    >>> est, app = kitchen_sinks_bound(10_000, 1_000, C=1.0, lipschitz=1.0, delta=0.05,
    ...                                return_terms=True)
    >>> round(float(est), 3), round(float(app), 3)
    (0.144, 0.109)
    """
    estimation = 2.0 * kitchen_sinks_estimation_error(n_samples, C, lipschitz, delta,
                                                      loss_at_zero)
    approximation = lipschitz * kitchen_sinks_approximation_error(n_components, C, delta)
    if return_terms:
        return np.asarray(estimation), np.asarray(approximation)
    return estimation + approximation


# --- validation shared by the Rademacher and concentration bounds -----------------------------

def _check_nonnegative(name, value):
    array = _as_float_array(name, value)
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name} must be finite and >= 0, got {name}={value!r}.")
    return array


def _check_count(name, value):
    """An int (or array of ints) >= 1; float values that are whole numbers are accepted."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer >= 1, got {value!r}.")
    array = _as_float_array(name, value)
    if (not np.all(np.isfinite(array)) or np.any(array < 1)
            or np.any(array != np.round(array))):
        raise ValueError(f"{name} must be an integer >= 1, got {name}={value!r}.")
    return array


def _check_gram(K, name="K"):
    r"""A Gram matrix: square, finite, symmetric and positive semi-definite up to rounding.

    Asymmetry is tolerated up to ``rtol * max_i |K_ii|`` and negative eigenvalues down to
    ``-rtol * tr K`` (the size of the rounding of an n x n matrix of entries at most
    :math:`\max_i K_{ii}`), with ``rtol`` = :data:`_GRAM_RTOL` for float64 input and
    :math:`10^3` machine epsilons for lower precision. Positive semi-definiteness is
    checked by a Cholesky factorisation of :math:`K + \text{tol}\, I`, a third of the cost
    of the eigenvalues.
    """
    if np.ndim(K) != 2:
        raise ValueError(f"{name} must be a square 2-D Gram matrix, got an array of "
                         f"{np.ndim(K)} dimension(s).")
    dtype = getattr(K, "dtype", np.dtype(np.float64))
    rtol = _GRAM_RTOL
    if np.issubdtype(dtype, np.floating):
        rtol = max(rtol, 1e3 * np.finfo(dtype).eps)
    K = check_array(K, dtype=np.float64, input_name=name)
    n = K.shape[0]
    if K.shape[1] != n:
        raise ValueError(f"{name} must be a square Gram matrix, got shape {K.shape}.")
    diag = np.diag(K)
    scale = np.max(np.abs(diag))
    asymmetry = np.max(np.abs(K - K.T))
    if asymmetry > rtol * scale:
        raise ValueError(f"{name} must be symmetric: max |K - K^T| = {asymmetry:.3g} > "
                         f"{rtol:.0e} * max |K_ii|.")
    if np.any(diag < -rtol * scale):
        raise ValueError(f"{name} must be positive semi-definite (a Gram matrix "
                         "k(x_i, x_j)): it has a negative diagonal entry.")
    trace = np.sum(diag)
    if trace <= 0 and np.any(K):
        raise ValueError(f"{name} must be positive semi-definite (a Gram matrix "
                         "k(x_i, x_j)): its diagonal is zero but not its other entries.")
    if trace > 0:
        try:
            scipy.linalg.cholesky(K + rtol * trace * np.eye(n), lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"{name} must be positive semi-definite (a Gram matrix k(x_i, x_j)): it has "
                f"an eigenvalue below -{rtol:.0e} * tr {name}.") from None
    return K


# --- the Rademacher complexity of the kernel ball --------------------------------------------

def kernel_rademacher_bound(K, c):
    r"""The closed-form bound on the Rademacher complexity of the kernel ball on a sample.

    For a kernel k with RKHS :math:`\mathcal H`, the ball
    :math:`F_c = \{f \in \mathcal H : \|f\|_{\mathcal H} \le c\}` and a sample
    :math:`x_1, \dots, x_n` with Gram matrix :math:`K_{ij} = k(x_i, x_j)`,

    .. math::

        \hat{\mathfrak R}_S(F_c)
        = \mathbb E_\sigma \sup_{\|f\|_{\mathcal H} \le c} \frac1n \sum_{i=1}^n \sigma_i f(x_i)
        = \frac cn\,\mathbb E_\sigma \sqrt{\sigma^\top K \sigma}
        \;\le\; \frac cn \sqrt{\operatorname{tr} K}
        = \frac cn \sqrt{\textstyle\sum_i k(x_i, x_i)}.

    The equality and the upper bound are Bartlett and Mendelson (2002), Lemma 22 (stated there
    for their :math:`\hat R_n`, twice this quantity). The bound is tight within a factor
    :math:`\sqrt 2`:
    :math:`\hat{\mathfrak R}_S(F_c) \ge \frac{c}{n\sqrt2}\sqrt{\operatorname{tr} K}`
    by the Khintchine-Kahane inequality with its optimal constant (Latała and Oleszkiewicz
    1994). For a bounded kernel, :math:`k(x, x) \le B^2`, the bound is at most
    :math:`cB/\sqrt n`.

    Assumptions: k is a positive semi-definite kernel (K is a Gram matrix), the sample is
    fixed (this is the *empirical* complexity; its expectation over i.i.d. samples is the
    Rademacher complexity :math:`\mathfrak R_n(F_c)` of the generalisation bounds, at most
    :math:`\frac cn\sqrt{n\,\mathbb E\,k(x, x)}` by Jensen again), and :math:`\sigma_i`
    are independent uniform signs.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        The Gram matrix of the sample, e.g. from :func:`lsl_lib.kernels.kernel_matrix`.
        Checked to be square, finite, symmetric and positive semi-definite up to rounding.
    c : float or array-like, > 0
        The radius of the ball (broadcast: an array of radii gives an array of bounds).

    Returns
    -------
    bound : ndarray
        :math:`c\sqrt{\operatorname{tr}K}/n`, of the shape of ``c`` (0-d for a scalar).

    See Also
    --------
    empirical_rademacher_complexity : the Monte Carlo estimate of the left-hand side.

    References
    ----------
    Bartlett, Mendelson. Rademacher and Gaussian complexities: risk bounds and structural
    results. JMLR 2002, Lemma 22 (their :math:`\hat R_n` is twice this quantity).

    Shalev-Shwartz, Ben-David. Understanding Machine Learning, 2014, Lemma 26.10 (the
    linear kernel).

    Latała, Oleszkiewicz. On the best constant in the Khinchin-Kahane inequality. Studia
    Math. 109, 1994.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kernels import kernel_matrix
    >>> from lsl_lib.theory import kernel_rademacher_bound
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> K = kernel_matrix(X, kernel="gaussian", gamma=0.5)   # k(x, x) = 1: tr K = n
    >>> float(kernel_rademacher_bound(K, c=2.0))             # 2 sqrt(100) / 100
    0.2
    """
    K = _check_gram(K)
    c = _check_positive("c", c)
    return c * np.sqrt(max(np.trace(K), 0.0)) / K.shape[0]


def empirical_rademacher_complexity(K, c, n_draws=1000, random_state=None, return_std=False):
    r"""Monte Carlo estimate of the empirical Rademacher complexity of the kernel ball.

    Draws ``n_draws`` independent vectors of uniform signs
    :math:`\sigma^{(t)} \in \{-1, +1\}^n` and averages the supremum over the ball
    :math:`\{\|f\|_{\mathcal H} \le c\}`, which is known in closed form:

    .. math::

        \hat{\mathfrak R}_S(F_c) \approx \frac1T \sum_{t=1}^T \sup_{\|f\|_{\mathcal H} \le c}
        \frac1n \sum_{i=1}^n \sigma^{(t)}_i f(x_i)
        = \frac1T \sum_{t=1}^T \frac cn \sqrt{\sigma^{(t)\top} K \sigma^{(t)}}

    (Bartlett and Mendelson 2002, Lemma 22). The estimate is unbiased and lies, up to its
    Monte Carlo error, between :math:`\frac{c}{n\sqrt2}\sqrt{\operatorname{tr} K}` and
    :math:`\frac cn\sqrt{\operatorname{tr} K}` (see :func:`kernel_rademacher_bound`).

    Assumptions: K is the Gram matrix of a positive semi-definite kernel on the sample;
    the signs are independent and uniform. Cost: :math:`O(T n^2)` time, in blocks of at
    most about :math:`2^{20}` matrix entries of memory beyond K and the signs.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        The Gram matrix of the sample (checked as in :func:`kernel_rademacher_bound`).
    c : float or array-like, > 0
        The radius of the ball (broadcast: the same signs serve every radius).
    n_draws : int >= 1, default=1000
        T, the number of sign vectors.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the signs.
    return_std : bool, default=False
        Also return the Monte Carlo standard error of the estimate: the sample standard
        deviation (ddof = 1) of the T suprema divided by :math:`\sqrt T`. Needs
        ``n_draws >= 2``.

    Returns
    -------
    estimate : ndarray
        Of the shape of ``c`` (0-d for a scalar).
    std : ndarray
        The standard error, of the same shape; only with ``return_std=True``.

    See Also
    --------
    kernel_rademacher_bound : the closed-form upper bound.

    References
    ----------
    Bartlett, Mendelson. Rademacher and Gaussian complexities: risk bounds and structural
    results. JMLR 2002, Lemma 22.

    Shalev-Shwartz, Ben-David. Understanding Machine Learning, 2014, ch. 26.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kernels import kernel_matrix
    >>> from lsl_lib.theory import empirical_rademacher_complexity, kernel_rademacher_bound
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> K = kernel_matrix(X, kernel="gaussian", gamma=0.5)
    >>> est, se = empirical_rademacher_complexity(K, c=2.0, n_draws=2000, random_state=0,
    ...                                           return_std=True)
    >>> bound = kernel_rademacher_bound(K, c=2.0)
    >>> bool(bound / np.sqrt(2) <= est <= bound), bool(se < 0.01 * est)
    (True, True)
    """
    K = _check_gram(K)
    c = _check_positive("c", c)
    if not isinstance(n_draws, Integral) or isinstance(n_draws, bool) or n_draws < 1:
        raise ValueError(f"n_draws must be an integer >= 1, got n_draws={n_draws!r}.")
    if return_std and n_draws < 2:
        raise ValueError(f"return_std=True needs n_draws >= 2 to estimate a standard "
                         f"error, got n_draws={n_draws}.")
    rng = check_random_state(random_state)
    n = K.shape[0]
    signs = 2 * rng.integers(0, 2, size=(n_draws, n), dtype=np.int8) - 1
    quadratic = np.empty(n_draws)
    block = max(1, 2 ** 20 // n)
    for start in range(0, n_draws, block):
        sigma = signs[start:start + block].astype(np.float64)
        quadratic[start:start + block] = np.einsum("ti,ti->t", sigma @ K, sigma)
    suprema = np.sqrt(np.maximum(quadratic, 0.0)) / n  # per unit radius
    estimate = c * suprema.mean()
    if return_std:
        return estimate, c * suprema.std(ddof=1) / np.sqrt(n_draws)
    return estimate


def rkhs_norm_squared(dual_coef, K):
    r"""The squared RKHS norm of a kernel expansion, :math:`\alpha^\top K\alpha`.

    For :math:`f = \sum_{i=1}^n \alpha_i k(x_i, \cdot)`,

    .. math::

        \|f\|_{\mathcal H}^2 = \alpha^\top K \alpha, \qquad K_{ij} = k(x_i, x_j)

    (Shalev-Shwartz and Ben-David 2014, section 16.2). This is the quantity that
    :func:`kernel_rademacher_bound` needs as :math:`c^2` for a fitted model, e.g. the
    ``dual_coef_`` of :class:`lsl_lib.kernels.KernelRidge` with the Gram matrix of its
    ``X_fit_``.

    Parameters
    ----------
    dual_coef : array-like of shape (n_samples,) or (n_samples, n_outputs)
        :math:`\alpha`; one column per output.
    K : array-like of shape (n_samples, n_samples)
        The Gram matrix of the expansion's centres :math:`x_i` (checked as in
        :func:`kernel_rademacher_bound`).

    Returns
    -------
    norm_squared : ndarray of shape () or (n_outputs,)
        :math:`\alpha^\top K\alpha` per output, clipped at 0 (a negative value can only be
        rounding, K being positive semi-definite).

    References
    ----------
    Schölkopf, Herbrich, Smola. A generalized representer theorem. COLT 2001.

    Shalev-Shwartz, Ben-David. Understanding Machine Learning, 2014, section 16.2.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.kernels import kernel_matrix
    >>> from lsl_lib.theory import rkhs_norm_squared
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> K = kernel_matrix(X, kernel="linear")     # [[1, 0], [0, 4]]
    >>> float(rkhs_norm_squared(np.array([1.0, -1.0]), K))
    5.0
    """
    K = _check_gram(K)
    if np.ndim(dual_coef) not in (1, 2):
        raise ValueError(f"dual_coef must have shape (n_samples,) or (n_samples, n_outputs), "
                         f"got an array of {np.ndim(dual_coef)} dimension(s).")
    alpha = check_array(dual_coef, dtype=np.float64, ensure_2d=False, input_name="dual_coef")
    if alpha.shape[0] != K.shape[0]:
        raise ValueError(f"dual_coef has {alpha.shape[0]} rows but K is "
                         f"{K.shape[0]} x {K.shape[0]}: one coefficient per sample is needed.")
    return np.maximum(np.einsum("i...,i...->...", alpha, K @ alpha), 0.0)


# --- concentration inequalities --------------------------------------------------------------

def hoeffding_tail(n_samples, epsilon, loss_range):
    r"""Hoeffding's bound on the probability that a mean of bounded variables deviates by ε.

    If :math:`Z_1, \dots, Z_n` are independent with :math:`a \le Z_i \le b` (for instance
    the losses :math:`\ell(f(x_i), y_i)` of a fixed f on an i.i.d. sample) and
    :math:`\bar Z = \frac1n\sum_i Z_i`, then for every :math:`\varepsilon \ge 0`

    .. math::

        P\big(|\bar Z - \mathbb E\bar Z| \ge \varepsilon\big)
        \le 2\exp\Big(-\frac{2n\varepsilon^2}{(b - a)^2}\Big),

    each one-sided tail being at most half of it. Returned clipped at 1: the bound says
    nothing for :math:`\varepsilon \le (b - a)\sqrt{\log 2/(2n)}`.

    Parameters
    ----------
    n_samples : int or array-like of int, >= 1
        n.
    epsilon : float or array-like, >= 0
        The deviation ε.
    loss_range : float or array-like, > 0
        :math:`b - a`, the length of the interval that holds each variable (1 for the 0-1
        loss). The three arguments broadcast together.

    Returns
    -------
    probability : ndarray
        The bound, in (0, 1] (0-d for scalar input).

    See Also
    --------
    hoeffding_deviation : its inverse in ε.
    mcdiarmid_tail : the same bound for any function of bounded differences (Hoeffding's is
        the mean, :math:`c_i = (b - a)/n`).

    References
    ----------
    Hoeffding. Probability inequalities for sums of bounded random variables. JASA 58,
    13-30, 1963 (Theorem 2).

    Shalev-Shwartz, Ben-David. Understanding Machine Learning, 2014, Lemma 4.5 and B.6.

    Examples
    --------
    >>> from lsl_lib.theory import hoeffding_tail
    >>> round(float(hoeffding_tail(1000, 0.05, loss_range=1.0)), 5)   # 2 exp(-5)
    0.01348
    """
    n = _check_count("n_samples", n_samples)
    epsilon = _check_nonnegative("epsilon", epsilon)
    loss_range = _check_positive("loss_range", loss_range)
    return np.minimum(1.0, 2.0 * np.exp(-2.0 * n * epsilon ** 2 / loss_range ** 2))


def hoeffding_deviation(n_samples, delta, loss_range):
    r"""The deviation that Hoeffding's inequality guarantees with probability 1 − δ.

    The inverse of :func:`hoeffding_tail` in ε: with probability at least :math:`1 - \delta`,
    a mean of n independent variables in an interval of length :math:`b - a` is within

    .. math::

        \varepsilon(n, \delta) = (b - a)\sqrt{\frac{\log(2/\delta)}{2n}}

    of its expectation. For a fixed predictor, this is the gap between empirical and true
    risk of a loss bounded in [a, b]; it shrinks as :math:`1/\sqrt n`.

    Parameters
    ----------
    n_samples : int or array-like of int, >= 1
        n.
    delta : float or array-like, in (0, 1)
    loss_range : float or array-like, > 0
        :math:`b - a`. The three arguments broadcast together.

    Returns
    -------
    epsilon : ndarray
        0-d for scalar input.

    See Also
    --------
    hoeffding_tail : the probability for a given ε.

    References
    ----------
    Hoeffding. Probability inequalities for sums of bounded random variables. JASA 58,
    13-30, 1963.

    Examples
    --------
    >>> from lsl_lib.theory import hoeffding_deviation, hoeffding_tail
    >>> eps = hoeffding_deviation(1000, delta=0.05, loss_range=1.0)
    >>> round(float(eps), 4), round(float(hoeffding_tail(1000, eps, 1.0)), 10)
    (0.0429, 0.05)
    """
    n = _check_count("n_samples", n_samples)
    delta = _check_positive("delta", delta, upper=1.0)
    loss_range = _check_positive("loss_range", loss_range)
    return loss_range * np.sqrt(np.log(2.0 / delta) / (2.0 * n))


def _check_differences(differences):
    if np.ndim(differences) != 1 or np.size(differences) == 0:
        raise ValueError("differences must be a non-empty 1-D array of the bounded differences "
                         f"c_1, ..., c_n, got an array of shape {np.shape(differences)}.")
    return np.sum(_check_nonnegative("differences", differences) ** 2)


def mcdiarmid_tail(epsilon, differences):
    r"""McDiarmid's bounded-differences bound on the deviation of a function of independent
    variables.

    If :math:`Z_1, \dots, Z_n` are independent and :math:`g` changes by at most
    :math:`c_i` when its i-th argument alone changes,
    :math:`\sup |g(\dots, z_i, \dots) - g(\dots, z_i', \dots)| \le c_i`, then for every
    :math:`\varepsilon \ge 0`

    .. math::

        P\big(|g(Z) - \mathbb E\,g(Z)| \ge \varepsilon\big)
        \le 2\exp\Big(-\frac{2\varepsilon^2}{\sum_{i=1}^n c_i^2}\Big).

    Examples of g: a mean of variables in [a, b] (:math:`c_i = (b - a)/n`: Hoeffding), the
    supremum over a class of the gap between risk and empirical risk of a loss in [a, b]
    (:math:`c_i = (b - a)/n`, the step that turns a Rademacher bound in expectation into one
    with probability :math:`1 - \delta`), the empirical Rademacher complexity itself. If every
    :math:`c_i` is 0, g is constant and the probability is 0 for :math:`\varepsilon > 0`.
    Returned clipped at 1.

    Parameters
    ----------
    epsilon : float or array-like, >= 0
        The deviation ε (broadcast: an array gives an array).
    differences : array-like of shape (n,), >= 0
        The bounded differences :math:`c_1, \dots, c_n`.

    Returns
    -------
    probability : ndarray
        Of the shape of ``epsilon`` (0-d for a scalar).

    See Also
    --------
    mcdiarmid_deviation : its inverse in ε.
    hoeffding_tail : the special case of a mean.

    References
    ----------
    McDiarmid. On the method of bounded differences. Surveys in Combinatorics, London Math.
    Soc. Lecture Notes 141, 148-188, 1989 (Lemma 1.2).

    Shalev-Shwartz, Ben-David. Understanding Machine Learning, 2014, Lemma 26.4.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.theory import hoeffding_tail, mcdiarmid_tail
    >>> n = 1000   # a mean of n variables in [0, 1] has c_i = 1/n
    >>> bool(np.isclose(mcdiarmid_tail(0.05, np.full(n, 1 / n)), hoeffding_tail(n, 0.05, 1.0)))
    True
    """
    epsilon = _check_nonnegative("epsilon", epsilon)
    total = _check_differences(differences)
    if total == 0:
        return np.where(epsilon > 0, 0.0, 1.0)
    return np.minimum(1.0, 2.0 * np.exp(-2.0 * epsilon ** 2 / total))


def mcdiarmid_deviation(delta, differences):
    r"""The deviation that McDiarmid's inequality guarantees with probability 1 − δ.

    The inverse of :func:`mcdiarmid_tail` in ε: with probability at least
    :math:`1 - \delta`, a function g of n independent variables with bounded differences
    :math:`c_i` is within

    .. math::

        \varepsilon(\delta) = \sqrt{\frac{\sum_i c_i^2}{2}\,\log\frac2\delta}

    of its expectation (0 if every :math:`c_i` is 0).

    Parameters
    ----------
    delta : float or array-like, in (0, 1)
        (Broadcast: an array gives an array.)
    differences : array-like of shape (n,), >= 0
        :math:`c_1, \dots, c_n`.

    Returns
    -------
    epsilon : ndarray
        Of the shape of ``delta`` (0-d for a scalar).

    See Also
    --------
    mcdiarmid_tail : the probability for a given ε.

    References
    ----------
    McDiarmid. On the method of bounded differences. Surveys in Combinatorics, 1989.

    Examples
    --------
    >>> from lsl_lib.theory import mcdiarmid_deviation
    >>> round(float(mcdiarmid_deviation(0.05, [0.5] * 8)), 4)   # sqrt(2 / 2 * log 40)
    1.9206
    """
    delta = _check_positive("delta", delta, upper=1.0)
    total = _check_differences(differences)
    return np.sqrt(total / 2.0 * np.log(2.0 / delta))


def loglog_slope(x, values, tail=0.5):
    r"""The slope of :math:`\log y` against :math:`\log x` over the tail of a curve, per seed,
    with its mean and standard error: the measured rate to set beside a theorem's.

    A rate :math:`y \approx c\,x^{p}` is a line of slope p on log-log axes. The slope is the
    least-squares fit over the points whose :math:`\log x` lies in the last ``tail`` of the
    range of :math:`\log x` (where the asymptotic rate, not the transient, is read). With
    several seeds the slope is fitted on each, and their mean is reported with the standard
    error :math:`s/\sqrt k`: a difference to the theorem's exponent smaller than two
    standard errors is not evidence against it. With one curve the standard error is that of
    the regression slope (its residuals are not independent along one run: read it as a
    lower bound).

    Parameters
    ----------
    x : array-like of shape (n_points,), > 0
        Iterations, examples, features...
    values : array-like of shape (n_points,) or (n_seeds, n_points), > 0
        The curve, or one curve per seed (e.g. suboptimality :math:`f(w_t) - f^*`).
    tail : float in (0, 1], default=0.5
        Fraction of the log range of x used, counted from its end.

    Returns
    -------
    slope : float
        The mean slope over the seeds.
    standard_error : float
        Of that mean (0 when every seed gives the same slope).
    slopes : ndarray of shape (n_seeds,)
        Each seed's slope.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.theory import loglog_slope
    >>> t = np.arange(1, 1001)
    >>> slope, se, _ = loglog_slope(t, [3.0 / t, 5.0 / t])
    >>> round(slope, 6), se < 1e-12
    (-1.0, True)
    """
    x = _as_float_array("x", x)
    values = np.atleast_2d(_as_float_array("values", values))
    if x.ndim != 1 or values.ndim != 2 or values.shape[1] != x.shape[0]:
        raise ValueError(f"values must have shape (n_points,) or (n_seeds, n_points) with "
                         f"n_points = len(x) = {x.shape[0]}, got {values.shape}.")
    if not (isinstance(tail, Real) and 0 < tail <= 1):
        raise ValueError(f"tail must be in (0, 1], got {tail!r}.")
    if not (np.all(x > 0) and np.all(values > 0) and np.all(np.isfinite(x))
            and np.all(np.isfinite(values))):
        raise ValueError("x and values must be finite and > 0 (their logarithms are fitted).")
    log_x = np.log(x)
    kept = log_x >= log_x.max() - tail * (log_x.max() - log_x.min())
    if kept.sum() < 3:
        raise ValueError(f"the last tail={tail} of the log range of x holds {kept.sum()} points; "
                         "at least 3 are needed.")
    u = log_x[kept] - log_x[kept].mean()
    logs = np.log(values[:, kept])
    slopes = (logs - logs.mean(axis=1, keepdims=True)) @ u / (u @ u)
    if len(slopes) > 1:
        standard_error = float(slopes.std(ddof=1) / np.sqrt(len(slopes)))
    else:
        residuals = logs[0] - logs[0].mean() - slopes[0] * u
        standard_error = float(np.sqrt(residuals @ residuals / (len(u) - 2) / (u @ u)))
    return float(slopes.mean()), standard_error, slopes
