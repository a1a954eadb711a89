r"""Bounds of learning theory used by the lectures and the homework, with their constants.

So far: the oracle inequality of random kitchen sinks (Rahimi and Recht 2008, Theorem 1),
drawn by ``notebooks/12_random_kitchen_sinks.ipynb``.

References
----------
Rahimi, Recht. Weighted sums of random kitchen sinks: replacing minimization with
randomization in learning. NIPS 2008.
"""
from numbers import Real

import numpy as np


def _check_positive(name, value, upper=None):
    value = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(value)) or np.any(value <= 0) or (
            upper is not None and np.any(value >= upper)):
        interval = f"(0, {upper})" if upper is not None else "> 0"
        raise ValueError(f"{name} must be finite and {interval}, got {name}={value!r}.")
    return value


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

    The estimation step of the proof of Rahimi and Recht's (2008) Theorem 1: for fixed :math:`w_1, \dots, w_K` and the class
    :math:`\hat{\mathcal F}_w = \{\sum_k \alpha_k\phi(\cdot; w_k) : |\alpha_k| \le C/K\}`,
    an L-Lipschitz loss :math:`c(y f(x))` and n i.i.d. examples, with probability at least
    :math:`1 - \delta`, for every :math:`f \in \hat{\mathcal F}_w`,

    .. math::

        |R[f] - R_\text{emp}[f]| \le \frac{1}{\sqrt n}\Big(4LC + 2|c(0)|
        + LC\sqrt{\tfrac12\log\tfrac1\delta}\Big).

    The Rademacher complexity of :math:`\hat{\mathcal F}_w` is at most :math:`2C/\sqrt n`
    (the box is an :math:`\ell_\infty` ball of radius C/K and :math:`|\phi| \le 1`); the
    contraction lemma multiplies it by 2L, the centring of the loss adds the
    :math:`|c(0)|` term, McDiarmid's inequality the last one.

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

    *Proof.* Let :math:`f^\star` attain the minimum over :math:`\mathcal F_p` and
    :math:`\tilde f \in \hat{\mathcal F}_w` be its approximation of
    :func:`kitchen_sinks_approximation_error` (with :math:`\mu` the input distribution).
    Then :math:`R[\hat f] - R[f^\star] = (R[\hat f] - R[\tilde f]) + (R[\tilde f] -
    R[f^\star])`. The first bracket is at most :math:`2\sup_{\hat{\mathcal F}_w}|R -
    R_\text{emp}|` because :math:`R_\text{emp}[\hat f] \le R_\text{emp}[\tilde f]`: twice
    :func:`kitchen_sinks_estimation_error`. The second is at most
    :math:`L\,\mathbb E|\tilde f - f^\star| \le L\|\tilde f - f^\star\|_{L_2(\mu)}`.
    A union bound over the two events gives :math:`1 - 2\delta`.

    Parameters
    ----------
    n_samples : int or array-like, > 0
        n, the number of training examples.
    n_components : int or array-like, > 0
        K, the number of random features (broadcast against ``n_samples``).
    C : float > 0
        The radius of :math:`\mathcal F_p` (the box is C/K).
    lipschitz : float > 0
        L. For the squared loss on :math:`|y| \le Y`, :math:`|f| \le C`: :math:`2(Y + C)`.
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
