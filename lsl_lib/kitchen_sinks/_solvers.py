"""The box-constrained fits of random kitchen sinks, one per loss: exact minimisers by
scipy's solvers (see :mod:`lsl_lib.kitchen_sinks`)."""
import threading
import warnings

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

from lsl_lib._core.validation import add_intercept_column


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
    which is also returned when it lies in the box (it is then the box's minimiser). Singular
    values below :math:`\max(n, K)\,\varepsilon\,\sigma_1` count as zero (numpy's ``lstsq``
    and ``pinv`` rule, as in :func:`lsl_lib.elm.output_weights_svd`): repeated rows make
    :math:`\Phi` rank-deficient, and LAPACK's default cut, :math:`\varepsilon\sigma_1`, keeps
    or drops their rounding-level singular values depending on the CPU's BLAS kernels, which
    moved the fit by 1e-2 on scikit-learn's sample-weight check under other kernels.
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
        BVLS iterations (1 when the unconstrained solve is the answer). The three ``fit_*``
        return both.
    """
    A = add_intercept_column(Phi) if fit_intercept else Phi
    y = np.asarray(y, dtype=np.float64)
    if sample_weight is not None:
        root = np.sqrt(sample_weight)
        A, y = A * root[:, None], y * root
    free = scipy.linalg.lstsq(A, y, cond=max(A.shape) * np.finfo(np.float64).eps,
                              lapack_driver="gelsd")[0]
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
    conditioned, and L-BFGS-B takes fewer steps (benchmarks/README.md, §Random kitchen
    sinks).
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
    with crossover returns (the fastest of HiGHS' methods on these LPs of n dense rows of K
    entries). Its cost grows faster than n (timings in benchmarks/README.md, §Random kitchen
    sinks): the hinge is for lecture-sized problems of a few thousand rows, and ``fit_log``
    solves the box problem with the logistic loss at a few 10⁴ x 10². The hinge's minimiser
    need not be unique (an optimal vertex is returned). ``bound=None``: the unconstrained LP
    (bounded below by 0).

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

