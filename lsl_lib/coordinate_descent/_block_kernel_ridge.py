r"""Block coordinate descent for kernel ridge regression (Tu et al. 2016); the mathematics
is in :mod:`lsl_lib.coordinate_descent`."""
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.linalg import BLOCK_ELEMENTS
from lsl_lib._core.random import check_random_state
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import ITERATIVE_CONSTRAINTS, LEARNER_KERNEL_CONSTRAINTS
from lsl_lib.coordinate_descent._common import _one_blas_thread, _warn_not_converged
from lsl_lib.kernels import check_kernel_params, fitted_gamma, kernel_matrix

_ORDERS = ("cyclic", "random")  # the kernel ridge blocks


def block_cd_kernel_ridge(X, y, lam, *, kernel="gaussian", gamma=None, degree=3, coef0=1.0,
                          block_size=512, order="random", n_epochs=100, tol=1e-4,
                          record_every=None, random_state=None, verbose=False):
    r"""Solve :math:`(K + \lambda I)\alpha = y` by block coordinate descent.

    Each epoch splits the n coordinates into blocks of ``block_size`` (those of a new
    random permutation, or fixed consecutive ones) and for each block B sets
    :math:`\Delta = (K_{BB} + \lambda I)^{-1} r_B` by Cholesky,
    :math:`\alpha_B \mathrel{+}= \Delta` and :math:`r \mathrel{-}= K_{:B}\Delta + \lambda
    \Delta_B`: the exact minimum of :math:`\frac12\alpha^\top(K + \lambda I)\alpha -
    y^\top\alpha` over the block (Gauss-Seidel by blocks).

    Memory is O(n b): the columns :math:`K_{:B}` are computed block by block with
    :func:`~lsl_lib.kernels.kernel_matrix` (so an epoch computes K once, in pieces:
    O(n² d) time), and the cyclic order keeps the n/b Cholesky factors of its fixed
    blocks. Only when :math:`n^2 \le` ``lsl_lib._core.linalg.BLOCK_ELEMENTS`` (n ≤ 2048, 32 MB)
    is the whole K formed, once.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
    y : ndarray of shape (n,) or (n, k)
    lam : float > 0
        :math:`\lambda`, as in :class:`lsl_lib.kernels.KernelRidge`.
    kernel, gamma, degree, coef0
        As in :func:`lsl_lib.kernels.kernel_matrix`.
    block_size : int >= 1, default=512
    order : {'random', 'cyclic'}, default='random'
        Fixed blocks can converge far more slowly than random ones.
    n_epochs : int, default=100
        Maximum number of epochs.
    tol : float, default=1e-4
        Stop after the epoch where :math:`\|r\|/\|y\| \le` tol. The fitted values
        :math:`K\alpha` are then within tol :math:`\|y\|` of the exact solve's:
        :math:`K(\alpha^* - \alpha) = K(K + \lambda I)^{-1} r` and
        :math:`\|K(K + \lambda I)^{-1}\| < 1` (the rule and default of scikit-learn's
        ``Ridge`` iterative solvers).
    record_every : int or None, default=None
        Record the trace every that many epochs.
    random_state : None, int or numpy.random.Generator, default=None
    verbose : bool, default=False
        A progress bar over the blocks for runs longer than a few seconds.

    Returns
    -------
    alpha : ndarray shaped like y
    n_iter : int
        Epochs run.
    history : dict of ndarray
        ``epoch``, ``seconds``, ``objective`` (:math:`\frac12\alpha^\top(K+\lambda I)\alpha -
        y^\top\alpha = -\frac12\alpha^\top(y + r)`), ``relative_residual``.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, at the end of the running chunk of blocks
        (:func:`~lsl_lib._core.run_loop.run_chunks`: its unit is one block, so that a
        stop waits for one block's kernel columns, not an epoch's). Every step is an exact
        block minimisation (no step size): no divergence check.
    """
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {_ORDERS}, got {order!r}.")
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam}.")
    if not (isinstance(block_size, Integral) and block_size >= 1):
        raise ValueError(f"block_size must be an int >= 1, got {block_size!r}.")
    if not (n_epochs >= 1 and tol >= 0):
        raise ValueError(f"n_epochs must be >= 1 and tol >= 0, got {n_epochs} and {tol}.")
    check_kernel_params(kernel, gamma, degree, coef0, X.shape[1])
    rng = check_random_state(random_state)
    n = X.shape[0]
    kernel_args = dict(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
    K = kernel_matrix(X, **kernel_args) if n * n <= BLOCK_ELEMENTS else None
    factors = {}  # the Cholesky factors of the cyclic order's blocks
    alpha, r = np.zeros_like(y, dtype=np.float64), np.array(y, dtype=np.float64)
    y_norm = np.linalg.norm(y)
    relative_residual = 1.0 if y_norm > 0 else 0.0
    epochs = 0
    trace = Trace()

    def record():
        trace.record(epoch=epochs, seconds=trace.seconds, objective=-0.5 * np.vdot(alpha, y + r),
                     relative_residual=relative_residual)

    n_blocks = -(-n // block_size)
    perm = None  # the random order of the running epoch

    def step(start, stop):  # blocks start .. stop - 1: block b of epoch e is e n_blocks + b
        nonlocal perm, epochs, relative_residual, r
        if relative_residual <= tol:  # y = 0: alpha = 0 solves it
            return True
        for unit in range(start, stop):
            first = unit % n_blocks * block_size
            if order == "random" and first == 0:
                perm = rng.permutation(n)
            B = slice(first, first + block_size) if order == "cyclic" \
                else perm[first:first + block_size]
            K_B = K[:, B] if K is not None else kernel_matrix(X, X[B], **kernel_args)
            factor = factors.get(first) if order == "cyclic" else None
            if factor is None:
                factor = scipy.linalg.cho_factor(K_B[B] + lam * np.eye(K_B.shape[1]),
                                                  lower=True, overwrite_a=True)
                if order == "cyclic":
                    factors[first] = factor
            delta = scipy.linalg.cho_solve(factor, r[B])
            alpha[B] += delta
            r -= K_B @ delta
            r[B] -= lam * delta
            if first + block_size >= n:  # the epoch's last block: test the residual
                epochs += 1
                relative_residual = np.linalg.norm(r) / y_norm
                if relative_residual <= tol:
                    return True
        return False

    with _one_blas_thread():  # numpy's products and scipy's Cholesky: two BLAS pools
        run_chunks(trace, n_epochs * n_blocks, step,
                   record_every=None if record_every is None else record_every * n_blocks,
                   record=record, verbose=verbose, desc="block CD", unit="block")
    if relative_residual > tol:
        _warn_not_converged(f"Block CD (n_epochs={n_epochs}, relative residual "
                            f"{relative_residual:.2e} > tol={tol})")
    return alpha, epochs, trace.history()


class BlockCDKernelRidge(RegressorMixin, BaseEstimator):
    r"""Kernel ridge regression solved by block coordinate descent (Tu et al. 2016).

    The model of :class:`lsl_lib.kernels.KernelRidge`, :math:`\alpha = (K + \lambda I)^{-1}
    (y - b)` and :math:`f(x) = \sum_i \alpha_i k(x_i, x) + b`, with the intercept b the
    mean of the targets (``fit_intercept=True``) or 0 (``KernelRidge``'s model exactly),
    reached by exact block steps instead of one Cholesky of the n × n matrix: O(n b)
    memory instead of O(n²), and :math:`O(n b^2 + n^2 d)` time per epoch (see
    :func:`block_cd_kernel_ridge`).

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation :math:`\lambda > 0`.
    kernel : {'linear', 'polynomial', 'gaussian', 'laplacian', 'cauchy'}, default='gaussian'
    gamma : float, 'scale' or None, default='scale'
        Kernel width; ``'scale'`` is :math:`1/(d\,\operatorname{Var}(X))`, as in
        :class:`~lsl_lib.kernels.KernelRidge` (:func:`~lsl_lib.kernels.fitted_gamma`);
        ``None`` is 1/d.
    degree : int, default=3
    coef0 : float, default=1.0
    fit_intercept : bool, default=True
        Centre the targets: fit :math:`y - \bar y` and add :math:`\bar y` back to the
        predictions (the intercept of kernel ridge; not penalised). False fits y itself,
        as :class:`~lsl_lib.kernels.KernelRidge` and scikit-learn's ``KernelRidge`` do.
    block_size : int, default=512
        b, the coordinates updated together (one exact solve when b >= n).
    order : {'random', 'cyclic'}, default='random'
        The blocks of a new random permutation each epoch, or fixed consecutive blocks.
    n_epochs : int, default=100
        Maximum number of epochs.
    tol : float, default=1e-4
        Stop when :math:`\|y - (K + \lambda I)\alpha\|/\|y\| \le` tol (y centred with
        ``fit_intercept``): the fitted values are then within tol :math:`\|y\|` of the
        exact solve's (see :func:`block_cd_kernel_ridge`).
    record_every : int or None, default=None
        Record ``history_`` every that many epochs.
    random_state : None, int or numpy.random.Generator, default=None
    verbose : bool, default=False
        A progress bar over the blocks for fits longer than a few seconds.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        :math:`\alpha`.
    intercept_ : float or ndarray of shape (n_targets,)
        b: the mean of the training targets, or 0 without ``fit_intercept``.
    gamma_ : float
        The kernel width used.
    X_fit_ : ndarray of shape (n_samples, n_features)
    n_iter_ : int
        Epochs run.
    history_ : dict of ndarray
        See :func:`block_cd_kernel_ridge`.
    n_features_in_ : int

    See Also
    --------
    lsl_lib.kernels.KernelRidge : the exact solve (of ``fit_intercept=False``).

    Notes
    -----
    ``gamma='scale'`` and the intercept are the defaults because features of very
    different spreads (up to :math:`10^6`) make :math:`K \approx I` with
    :math:`\gamma = 1/d`, and the predictions 0 away from the training rows; the
    intercept makes the model follow a shift of the targets, as ``Ridge``'s does (the
    Gaussian kernel alone fits a constant only as well as :math:`\lambda` lets it).
    Measured against ``KernelRidge()`` and ``Ridge()`` in benchmarks/README.md,
    §Coordinate descent.

    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".
    Ctrl-C waits for the running block.

    References
    ----------
    Tu, Roelofs, Venkataraman, Recht. Large scale kernel learning using block
    coordinate descent. arXiv:1602.05310, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.coordinate_descent import BlockCDKernelRidge
    >>> X = np.linspace(0, 6, 200)[:, None]
    >>> model = BlockCDKernelRidge(lam=1e-3, gamma=1.0, block_size=50, random_state=0)
    >>> float(np.round(model.fit(X, np.sin(X[:, 0])).predict([[np.pi / 2]])[0], 3))
    1.0
    """

    _parameter_constraints = {
        "lam": [Interval(Real, 0, None, closed="neither")],
        **LEARNER_KERNEL_CONSTRAINTS,
        "fit_intercept": ["boolean"],
        "block_size": [Interval(Integral, 1, None, closed="left")],
        "order": [StrOptions(set(_ORDERS))],
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "record_every": ITERATIVE_CONSTRAINTS["record_every"],
        "random_state": ITERATIVE_CONSTRAINTS["random_state"],
        "verbose": ["boolean"],
    }

    def __init__(self, lam=1.0, kernel="gaussian", gamma="scale", degree=3, coef0=1.0,
                 fit_intercept=True, block_size=512, order="random", n_epochs=100, tol=1e-4,
                 record_every=None, random_state=None, verbose=False):
        self.lam = lam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.block_size = block_size
        self.order = order
        self.n_epochs = n_epochs
        self.tol = tol
        self.record_every = record_every
        self.random_state = random_state
        self.verbose = verbose

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, multi_output=True, y_numeric=True)
        y = y.astype(np.float64)
        self.gamma_ = fitted_gamma(self.gamma, X)
        self.intercept_ = y.mean(axis=0) if self.fit_intercept else np.zeros(y.shape[1:])
        if self.intercept_.ndim == 0:
            self.intercept_ = float(self.intercept_)
        self.dual_coef_, self.n_iter_, self.history_ = block_cd_kernel_ridge(
            X, y - self.intercept_, self.lam, kernel=self.kernel, gamma=self.gamma_,
            degree=self.degree, coef0=self.coef0, block_size=self.block_size, order=self.order,
            n_epochs=self.n_epochs, tol=self.tol, record_every=self.record_every,
            random_state=self.random_state, verbose=self.verbose)
        self.X_fit_ = X
        return self

    def predict(self, X):
        r""":math:`f(x) = \sum_i \alpha_i k(x_i, x) + b`, by row blocks of X (bounded memory)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        rows = max(1, BLOCK_ELEMENTS // len(self.X_fit_))
        return np.concatenate([
            kernel_matrix(X[s:s + rows], self.X_fit_, self.kernel, self.gamma_, self.degree,
                          self.coef0) @ self.dual_coef_ for s in range(0, len(X), rows)]) \
            + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
