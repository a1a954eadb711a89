r"""Coordinate descent for the Lasso (Friedman et al. 2010), its path and gap safe
screening (Fercoq et al. 2015); the mathematics and the table of pairs are in
:mod:`lsl_lib.coordinate_descent`."""
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import row_view
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt
from lsl_lib._core.trace import Trace
from lsl_lib._core.validation import check_sample_weight
from lsl_lib.coordinate_descent._common import (
    _CD_CONSTRAINTS,
    _DRAW_SIZE,
    _one_blas_thread,
    _warn_not_converged,
)

_SELECTIONS = ("cyclic", "random")  # the Lasso's coordinates


def lasso_numpy_epochs(Xt, w, R, norm2, n_alpha, active, uniforms, n_epochs, tol):
    r"""Up to ``n_epochs`` epochs of Lasso CD, Friedman et al. (2010), (5): the reference.

    ``Xt`` is :math:`X^\top` (dense; row j is the column :math:`x_j`); ``w`` and the
    residual ``R`` = y - Xw are updated in place; ``norm2`` holds :math:`\|x_j\|^2` and
    ``n_alpha`` is :math:`n\alpha`. ``active`` lists the coordinates not screened out
    (with :math:`x_j \ne 0`), increasing. ``uniforms`` is empty for the cyclic order
    (``active`` in turn); else epoch e visits ``active[floor(m u)]`` for the first
    ``m = len(active)`` uniforms u of row e: m draws with replacement, as scikit-learn.

    Returns
    -------
    epochs : int
    check_gap : bool
        True after an epoch whose largest change :math:`\max_j |\Delta w_j|` is at
        most ``tol`` :math:`\max_j |w_j|`: time to compute the duality gap.
    """
    m = len(active)
    for e in range(n_epochs):
        coordinates = active if len(uniforms) == 0 else \
            active[np.minimum((uniforms[e, :m] * m).astype(np.int64), m - 1)]
        w_max = dw_max = 0.0
        for j in coordinates:
            w_j = w[j]
            rho = Xt[j] @ R + w_j * norm2[j]  # x_j . (r + w_j x_j)
            w[j] = np.sign(rho) * max(abs(rho) - n_alpha, 0.0) / norm2[j]  # S(rho, n alpha)
            if w[j] != w_j:
                R -= (w[j] - w_j) * Xt[j]
            dw_max = max(dw_max, abs(w[j] - w_j))
            w_max = max(w_max, abs(w[j]))
        if w_max == 0.0 or dw_max <= tol * w_max:
            return e + 1, True
    return n_epochs, False


@jit
def _lasso_numba_epochs(Xt, w, R, norm2, n_alpha, active, uniforms, n_epochs, tol, gram):
    r"""The epochs of :func:`lasso_numpy_epochs`, compiled (``np.dot`` is BLAS's), with
    covariance updates as an option.

    With ``gram`` (Friedman et al. 2010, §2.2), ``Xt`` is the Gram matrix
    :math:`G = X^\top X` and ``R`` is :math:`q = X^\top(y - Xw)`: the same step then
    reads :math:`x_j^\top r = q_j` and updates q by :math:`-\Delta w_j G_j`, O(d) instead
    of O(n); the same iterates (the reference keeps the residual).
    """
    m = active.shape[0]
    cyclic = uniforms.shape[0] == 0
    for e in range(n_epochs):
        w_max = 0.0
        dw_max = 0.0
        for f in range(m):
            j = active[f] if cyclic else active[min(int(uniforms[e, f] * m), m - 1)]
            w_j = w[j]
            x_j = Xt[j]
            rho = (R[j] if gram else np.dot(x_j, R)) + w_j * norm2[j]
            if rho > n_alpha:  # the soft-thresholding, written out
                w[j] = (rho - n_alpha) / norm2[j]
            elif rho < -n_alpha:
                w[j] = (rho + n_alpha) / norm2[j]
            else:
                w[j] = 0.0
            if w[j] != w_j:
                delta = w[j] - w_j
                for i in range(R.shape[0]):
                    R[i] -= delta * x_j[i]
            dw_max = max(dw_max, abs(w[j] - w_j))
            w_max = max(w_max, abs(w[j]))
        if w_max == 0.0 or dw_max <= tol * w_max:
            return e + 1, True
    return n_epochs, False


@jit
def _lasso_sparse_numba_epochs(data, rows, indptr, mu, zv, vv, lazy, w, R, norm2, n_alpha,
                              active, uniforms, n_epochs, tol):
    r"""Lasso CD epochs on a sparse design, implicitly centred, compiled.

    The design is :math:`\tilde X = Z - v\mu^\top`: Z in CSC (``data``, ``rows``,
    ``indptr``: column j is :math:`z_j`; the row view of :math:`Z^\top`,
    :func:`~lsl_lib._core.rows.row_view`), v the square roots of the sample weights
    and μ the offsets (weighted column means) that the centring subtracts. Centring Z
    would fill it in; instead the residual is kept as :math:`r = R + c\,v` with
    ``lazy`` = [c, vᵀR], so that with ``zv`` = :math:`Z^\top v` and ``vv`` = vᵀv,

    .. math::

        \tilde x_j^\top r = z_j^\top R + c\,(z_j^\top v) - \mu_j(v^\top R + c\, v^\top v),
        \qquad \Delta w_j:\; R \mathrel{-}= \Delta z_j,\; c \mathrel{+}= \Delta\mu_j,

    O(nnz(z_j)) a step, as scikit-learn's sparse coordinate descent. The rest (order,
    soft-thresholding, return values) is :func:`lasso_numpy_epochs`, which runs on the
    design centred explicitly (dense) on the numpy path: the same iterates.
    """
    m = active.shape[0]
    cyclic = uniforms.shape[0] == 0
    for e in range(n_epochs):
        w_max = 0.0
        dw_max = 0.0
        for f in range(m):
            j = active[f] if cyclic else active[min(int(uniforms[e, f] * m), m - 1)]
            w_j = w[j]
            acc = 0.0
            for p in range(indptr[j], indptr[j + 1]):
                acc += data[p] * R[rows[p]]
            c = lazy[0]
            rho = acc + c * zv[j] - mu[j] * (lazy[1] + c * vv) + w_j * norm2[j]
            if rho > n_alpha:
                w[j] = (rho - n_alpha) / norm2[j]
            elif rho < -n_alpha:
                w[j] = (rho + n_alpha) / norm2[j]
            else:
                w[j] = 0.0
            if w[j] != w_j:
                delta = w[j] - w_j
                for p in range(indptr[j], indptr[j + 1]):
                    R[rows[p]] -= delta * data[p]
                lazy[0] += delta * mu[j]
                lazy[1] -= delta * zv[j]
            dw_max = max(dw_max, abs(w[j] - w_j))
            w_max = max(w_max, abs(w[j]))
        if w_max == 0.0 or dw_max <= tol * w_max:
            return e + 1, True
    return n_epochs, False


def lasso_duality_gap(X, y, w, alpha, R=None):
    r"""Duality gap of the Lasso (scikit-learn's scaling) and the primal objective.

    With :math:`r = y - Xw` and the dual point :math:`\theta = s\,r/n`,
    :math:`s = \min(1, n\alpha/\|X^\top r\|_\infty)` (feasible:
    :math:`\|X^\top\theta\|_\infty \le \alpha`),

    .. math::

        P(w) = \frac{\|r\|^2}{2n} + \alpha\|w\|_1, \qquad
        D(\theta) = \frac{s\, r^\top y}{n} - \frac{s^2\|r\|^2}{2n}, \qquad
        P(w) - P^* \le P(w) - D(\theta).

    With ``alpha = 0`` (least squares: no such dual point) the gap is replaced by the
    squared gradient :math:`\|X^\top r/n\|^2`, as in scikit-learn.

    Returns
    -------
    gap, primal : float
    """
    R = y - X @ w if R is None else R
    return _lasso_gap(X.T @ R, float(R @ R), float(R @ y), len(R), w, alpha)


def _lasso_gap(XtR, rr, ry, n, w, alpha):
    r"""The gap from :math:`X^\top r`, :math:`\|r\|^2` and :math:`r^\top y`."""
    primal = rr / (2 * n) + alpha * np.abs(w).sum()
    if alpha == 0:
        return float(XtR @ XtR) / n ** 2, primal
    s = min(1.0, n * alpha / max(np.abs(XtR).max(), 1e-300))
    return primal - (s * ry / n - s * s * rr / (2 * n)), primal


def gap_safe_screen(XtR, norm2, gap, alpha, n):
    r"""Gap safe rule (Fercoq et al. 2015): the features that may be non-zero at the optimum.

    With :math:`\hat\theta = r/\max(n\alpha, \|X^\top r\|_\infty)`, the dual optimum lies
    within :math:`\sqrt{2n\,\text{gap}}/(n\alpha)` of :math:`\hat\theta`, so
    :math:`w^*_j = 0` whenever
    :math:`|x_j^\top\hat\theta| + \|x_j\|\sqrt{2n\,\text{gap}}/(n\alpha) < 1`.
    ``XtR`` is :math:`X^\top r`; returns a boolean mask over the features.
    """
    abs_corr = np.abs(XtR)
    theta_corr = abs_corr / max(n * alpha, abs_corr.max())
    return (norm2 > 0) & (theta_corr + np.sqrt(norm2) * np.sqrt(2.0 * n * gap) / (n * alpha) >= 1)


class _ResidualState:
    """Dense X and the residual :math:`r = y - Xw`, updated in place: the paper's step, O(n)
    a coordinate (:func:`lasso_numpy_epochs`, or ``_lasso_numba_epochs`` compiled)."""

    def __init__(self, X, y, w, numba):
        self.y, self.numba = y, numba
        self.Xt = np.ascontiguousarray(X.T, dtype=np.float64)
        self.R, self.norm2 = y - X @ w, np.einsum("ij,ij->i", self.Xt, self.Xt)

    def residual_products(self, w):
        r""":math:`X^\top r`, :math:`r^\top r` and :math:`r^\top y`."""
        return self.Xt @ self.R, float(self.R @ self.R), float(self.R @ self.y)

    def screen(self, w, out):
        """Take the features ``out`` out of the residual: r += X_out w_out."""
        self.R[:] += w[out] @ self.Xt[out]

    def epochs(self, w, *args):
        """The epochs; ``args`` are those of :func:`lasso_numpy_epochs` after R and norm2."""
        if self.numba:
            return _lasso_numba_epochs(self.Xt, w, self.R, self.norm2, *args, False)
        return lasso_numpy_epochs(self.Xt, w, self.R, self.norm2, *args)


class _SparseCentredState:
    r"""Sparse Z (CSC) in the design :math:`Z - v\mu^\top`, centred implicitly: ``R`` =
    y - Zw and ``lazy`` = [c, vᵀR], the residual being r = R + c v with c = μᵀw; O(nnz(z_j))
    a coordinate (``_lasso_sparse_numba_epochs``)."""

    def __init__(self, X, y, w, mu, v, zv, vv):
        self.Z, self.y, self.mu, self.v, self.zv, self.vv = X, y, mu, v, zv, vv
        self.R, self.lazy = y - X @ w, np.array([float(mu @ w), 0.0])
        self.lazy[1] = float(v @ self.R)
        self.norm2 = np.asarray(X.multiply(X).sum(axis=0)).ravel() - 2 * mu * zv + vv * mu * mu
        self.columns = row_view(X.T)  # X's columns, the rows of X'

    def residual_products(self, w):
        r""":math:`\tilde X^\top r`, :math:`r^\top r` and :math:`r^\top y`, after folding c
        into R: the true residual, no drift carried on."""
        R, lazy = self.R, self.lazy
        R[:] += lazy[0] * self.v
        lazy[:] = 0.0, float(self.v @ R)
        return self.Z.T @ R - self.mu * lazy[1], float(R @ R), float(R @ self.y)

    def screen(self, w, out):
        """Take the features ``out`` out of the residual: r += X̃_out w_out."""
        self.R[:] += self.Z[:, out] @ w[out] - float(self.mu[out] @ w[out]) * self.v
        self.lazy[1] = float(self.v @ self.R)

    def epochs(self, w, *args):
        """The epochs; ``args`` are those of :func:`lasso_numpy_epochs` after R and norm2."""
        return _lasso_sparse_numba_epochs(*self.columns, self.mu, self.zv, self.vv, self.lazy,
                                          w, self.R, self.norm2, *args)


class _GramState:
    r"""Covariance updates (Friedman et al. 2010, §2.2): the Gram matrix :math:`G = X^\top X`
    (``precompute``, or computed; of :math:`Z - v\mu^\top` with ``centring``) and
    :math:`q = X^\top r = X^\top y - Gw` instead of r; O(d) a coordinate
    (``_lasso_numba_epochs`` with ``gram``)."""

    def __init__(self, X, y, w, precompute, centring):
        d = X.shape[1]
        if precompute is True or isinstance(precompute, str):
            G = X.T @ X
            if centring is not None:  # (Z - v mu')'(Z - v mu')
                mu, _, zv, vv = centring
                G = G.toarray() - np.outer(zv, mu) - np.outer(mu, zv) + vv * np.outer(mu, mu)
        else:
            G = np.ascontiguousarray(precompute, dtype=np.float64)
        if G.shape != (d, d):
            raise ValueError(f"precompute must be X'X of shape {(d, d)}, got {G.shape}.")
        Xty = X.T @ y
        if centring is not None:  # (Z - v mu')'y
            mu, v = centring[:2]
            Xty = Xty - mu * float(v @ y)
        self.G, self.Xty, self.yy = G, Xty, float(y @ y)
        self.q, self.norm2 = Xty - G @ w, G.diagonal().copy()

    def residual_products(self, w):
        r""":math:`X^\top r = q`, :math:`r^\top r = r^\top y - w^\top q` and
        :math:`r^\top y = y^\top y - w^\top X^\top y`."""
        ry = self.yy - float(w @ self.Xty)
        return self.q, ry - float(w @ self.q), ry

    def screen(self, w, out):
        """Take the features ``out`` out of q: q += G_out' w_out."""
        self.q[:] += w[out] @ self.G[out]

    def epochs(self, w, *args):
        """The epochs; ``args`` are those of :func:`lasso_numpy_epochs` after R and norm2."""
        return _lasso_numba_epochs(self.G, w, self.q, self.norm2, *args, True)


def _sparse_design(X, X_offset, sqrt_sw):
    r"""X as CSC and the ``centring`` (μ, v, :math:`Z^\top v`, :math:`v^\top v`) of the
    design :math:`Z - v\mu^\top` (see ``_lasso_sparse_numba_epochs``)."""
    n, d = X.shape
    X = sp.csc_matrix(X, dtype=np.float64)
    X.sum_duplicates()
    mu = np.zeros(d) if X_offset is None else np.asarray(X_offset, dtype=np.float64)
    v = np.ones(n) if sqrt_sw is None else np.asarray(sqrt_sw, dtype=np.float64)
    if mu.shape != (d,) or v.shape != (n,):
        raise ValueError(f"X_offset must have shape {(d,)} and sqrt_sw {(n,)}, got "
                         f"{mu.shape} and {v.shape}.")
    return X, (mu, v, X.T @ v, float(v @ v))


def _products_from_scratch(X, y, w, centring):
    r""":math:`X^\top r`, :math:`r^\top r` and :math:`r^\top y` for r = y - Xw computed
    afresh, as :func:`lasso_duality_gap` (X is :math:`Z - v\mu^\top` with ``centring``)."""
    sparse = centring is not None
    mu, v = centring[:2] if sparse else (None, None)
    r = y - X @ w + (float(mu @ w) * v if sparse else 0.0)
    XtR = X.T @ r - (mu * float(v @ r) if sparse else 0.0)
    return XtR, float(r @ r), float(r @ y)


class _LassoRun:
    """The epochs of :func:`lasso_cd` on one of the three states, and its gap checks.

    ``step(start, stop)`` is the run loop's (:func:`~lsl_lib._core.run_loop.run_chunks`).
    ``epochs`` counts the epochs run, ``gap`` is the last duality gap (None before the first
    check) and ``converged`` says whether it is at most ``gap_tol``; ``keep`` marks the
    features not screened out; ``uniforms[row:]`` are the draws of ``selection='random'``
    not used yet.
    """

    def __init__(self, state, w, keep, n, alpha, tol, gap_tol, screening, selection, gap_every,
                 max_iter, rng):
        self.state, self.w, self.keep, self.n, self.alpha, self.tol = state, w, keep, n, alpha, tol
        self.gap_tol, self.screening, self.selection = gap_tol, screening, selection
        self.gap_every, self.max_iter, self.rng = gap_every, max_iter, rng
        self.gap, self.converged, self.epochs = None, False, 0
        self.uniforms, self.row = np.empty((0, len(w))), 0

    def check_gap(self):
        """The duality gap; while it is too large, screen features out (w_j = 0)."""
        w, keep, alpha, n = self.w, self.keep, self.alpha, self.n
        XtR, rr, ry = self.state.residual_products(w)
        gap = _lasso_gap(XtR, rr, ry, n, w, alpha)[0]
        if gap > self.gap_tol and self.screening and alpha > 0:
            out = np.flatnonzero(keep & ~gap_safe_screen(XtR, self.state.norm2, gap, alpha, n))
            if out.size:
                self.state.screen(w, out)
                w[out] = 0.0
                keep[out] = False
        self.gap, self.converged = gap, gap <= self.gap_tol

    def step(self, start, stop):
        """Epochs up to ``stop - 1``; True once the gap is small enough."""
        if self.gap is None:  # checked before any epoch: a warm start may be optimal already
            self.check_gap()
        d, gap_every = len(self.w), self.gap_every
        while self.epochs < stop and not self.converged:
            if self.selection == "random" and self.row == len(self.uniforms):
                self.uniforms, self.row = self.rng.random((max(1, _DRAW_SIZE // d), d)), 0
            todo = stop - self.epochs if self.selection == "cyclic" else \
                min(stop - self.epochs, len(self.uniforms) - self.row)
            if gap_every is not None:  # stop at the next multiple of gap_every
                todo = min(todo, gap_every - self.epochs % gap_every)
            done, gap_asked = self.state.epochs(
                self.w, float(self.n * self.alpha), np.flatnonzero(self.keep),
                self.uniforms[self.row:self.row + todo], todo, float(self.tol))
            self.epochs, self.row = self.epochs + done, self.row + done
            if gap_asked or self.epochs == self.max_iter or (
                    gap_every and self.epochs % gap_every == 0):
                self.check_gap()
        return self.converged


def lasso_cd(X, y, alpha, *, coef_init=None, tol=1e-4, max_iter=1000, selection="cyclic",
             screening=True, gap_every=None, precompute="auto", X_offset=None, sqrt_sw=None,
             record_every=None, backend="auto", random_state=None, verbose=False):
    r"""Coordinate descent for the Lasso on prepared (already centred) arrays.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d), float64
        Dense: the design, Fortran order saving a copy (the loops read :math:`X^\top`
        C-ordered). Sparse (read as CSC): Z in the design :math:`\tilde X = Z - v\mu^\top`,
        centred implicitly, never densified, on the compiled path
        (``_lasso_sparse_numba_epochs``); the numpy path centres it explicitly.
    y : ndarray of shape (n,)
    alpha : float >= 0
    coef_init : ndarray of shape (d,), default=None
        Warm start; zeros when None.
    tol : float, default=1e-4
        Stop when the duality gap is at most :math:`\text{tol}\,\|y\|^2/n`, checked as
        in scikit-learn: after an epoch whose largest coefficient change is at most
        tol times the largest coefficient, and after the last epoch.
    max_iter : int, default=1000
        Maximum number of epochs.
    selection : {'cyclic', 'random'}, default='cyclic'
        The active coordinates in increasing order, or as many uniform draws.
    screening : bool, default=True
        At each gap check, drop for good the features :func:`gap_safe_screen` proves
        zero (as scikit-learn does).
    gap_every : int or None, default=None
        Also check the gap (and screen) every that many epochs, as Fercoq et al. (2015)
        do: screening then acts while the solver is still far from the optimum. None
        checks only where scikit-learn does, which keeps its iterates exactly.
    precompute : {'auto'} or bool or ndarray of shape (d, d), default='auto'
        Covariance updates (Friedman et al. 2010, §2.2): keep :math:`q = X^\top r`
        instead of r, from the Gram matrix :math:`G = X^\top X` (or the one given), so
        that a step costs O(d) instead of O(n) after an O(nd²) product; the same
        iterates. ``'auto'``: when n > d. The compiled path's optimisation: the numpy
        path keeps the residual.
    X_offset : ndarray of shape (d,) or None, default=None
        Sparse X only: μ, the offsets subtracted from its columns (zeros if None).
    sqrt_sw : ndarray of shape (n,) or None, default=None
        Sparse X only: v, the square roots of the sample weights (ones if None), by
        which the rows of Z and y are already multiplied.
    record_every : int or None, default=None
        Record the trace every that many epochs.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numpy'`` runs :func:`lasso_numpy_epochs` (the paper's step on a dense design
        and its residual), ``'numba'`` its compiled twins (with covariance updates and
        implicit centring); the same iterates.
    random_state : None, int or numpy.random.Generator, default=None
    verbose : bool, default=False
        A progress bar over the epochs for runs longer than a few seconds.

    Returns
    -------
    w : ndarray of shape (d,)
    gap : float
        The last duality gap computed.
    n_iter : int
        Epochs run.
    history : dict of ndarray
        ``epoch``, ``seconds``, ``objective``, ``duality_gap``, ``n_active`` (features
        not screened out).

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, at the end of the running chunk of epochs
        (:func:`~lsl_lib._core.run_loop.run_chunks`). The gap is checked where the epochs
        ask for it, never where a chunk ends, so the iterates do not depend on the chunks;
        every step is exact (no step size): no divergence check.
    """
    if selection not in _SELECTIONS:
        raise ValueError(f"selection must be one of {_SELECTIONS}, got {selection!r}.")
    if isinstance(precompute, str) and precompute != "auto":
        raise ValueError(f"precompute must be 'auto', a bool or X'X, got {precompute!r}.")
    if not (gap_every is None or (isinstance(gap_every, Integral) and gap_every >= 1)):
        raise ValueError(f"gap_every must be None or an int >= 1, got {gap_every!r}.")
    if not alpha >= 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}.")
    if not (tol >= 0 and max_iter >= 1):
        raise ValueError(f"tol must be >= 0 and max_iter >= 1, got {tol} and {max_iter}.")
    numba = resolve_backend(backend) == "numba"
    rng = check_random_state(random_state)
    n, d = X.shape
    y = np.ascontiguousarray(y, dtype=np.float64)
    w = np.zeros(d) if coef_init is None else np.array(coef_init, dtype=np.float64)
    was_sparse, centring = sp.issparse(X), None
    if was_sparse:  # the design Z - v mu' (see _lasso_sparse_numba_epochs)
        X, centring = _sparse_design(X, X_offset, sqrt_sw)
    elif X_offset is not None or sqrt_sw is not None:
        raise ValueError("X_offset and sqrt_sw describe a sparse X; centre a dense X first.")
    if not isinstance(precompute, (str, bool, np.bool_)) and np.shape(precompute) != (d, d):
        raise ValueError(f"precompute must be X'X of shape {(d, d)}, got "
                         f"{np.shape(precompute)}.")
    gram = n > d if isinstance(precompute, str) and precompute == "auto" else \
        precompute is not False
    if not numba:  # the reference: the paper's step, on the residual of a dense design
        gram = False
        if was_sparse:  # centred explicitly: O(nd) memory
            mu, v = centring[:2]
            X, centring = np.asfortranarray(X.toarray() - np.outer(v, mu)), None
    if gram:  # the solver's state, chosen once
        state = _GramState(X, y, w, precompute, centring)
    elif centring is not None:
        state = _SparseCentredState(X, y, w, *centring)
    else:
        state = _ResidualState(X, y, w, numba)
    keep = state.norm2 > 1e-12 * state.norm2.max(initial=0.0) if was_sparse else state.norm2 > 0
    w[~keep] = 0.0
    gap_tol = tol * float(y @ y) / n
    run = _LassoRun(state, w, keep, n, alpha, tol, gap_tol, screening, selection, gap_every,
                    max_iter, rng)
    trace = Trace()

    def record():  # from scratch, as lasso_duality_gap
        XtR, rr, ry = _products_from_scratch(X, y, w, centring)
        gap, primal = _lasso_gap(XtR, rr, ry, n, w, alpha)
        trace.record(epoch=run.epochs, seconds=trace.seconds, objective=primal, duality_gap=gap,
                     n_active=int(keep.sum()))

    with _one_blas_thread():
        run_chunks(trace, max_iter, run.step, record_every=record_every, record=record,
                   verbose=verbose, desc="Lasso CD", unit="epoch")
    if not run.converged:
        _warn_not_converged(f"Lasso CD (max_iter={max_iter}, gap {run.gap:.2e} > "
                            f"{gap_tol:.2e})")
    return w, run.gap, run.epochs, trace.history()


def lasso_path(X, y, alphas=None, n_alphas=100, eps=1e-3, *, tol=1e-4, max_iter=1000,
               selection="cyclic", screening=True, precompute="auto", backend="auto",
               random_state=None):
    r"""The Lasso's regularisation path by coordinate descent with warm starts.

    Solves for each α of a decreasing grid starting from the previous solution. The
    default grid is log-spaced from :math:`\alpha_{max} = \|X^\top y\|_\infty/n`, the
    smallest α with solution w = 0, down to ``eps`` :math:`\alpha_{max}`. X and y are
    used as given (centre them for a model with an intercept).

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    alphas : array-like or None, default=None
        The grid (solved in decreasing order); ``None`` builds the default one.
    n_alphas : int, default=100
    eps : float, default=1e-3
        :math:`\alpha_{min}/\alpha_{max}`.
    tol, max_iter, selection, screening, precompute, backend, random_state
        As in :func:`lasso_cd`; a Gram matrix is computed once for the whole path.

    Returns
    -------
    alphas : ndarray of shape (n_alphas,)
    coefs : ndarray of shape (d, n_alphas)
    dual_gaps : ndarray of shape (n_alphas,)

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.coordinate_descent import lasso_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 5)); y = X @ [2.0, 0, 0, -1.0, 0]
    >>> alphas, coefs, gaps = lasso_path(X, y, n_alphas=5)
    >>> np.count_nonzero(coefs, axis=0)
    array([0, 2, 2, 2, 2])
    """
    X = check_array(X, dtype=np.float64, order="F", input_name="X")
    y = check_array(y, dtype=np.float64, ensure_2d=False, input_name="y")
    if y.ndim != 1 or len(y) != len(X):
        raise ValueError(f"y must be 1-D with as many entries as X has rows, got shape {y.shape}.")
    if alphas is None:
        if not (isinstance(n_alphas, Integral) and n_alphas >= 1 and eps > 0):
            raise ValueError(f"n_alphas must be an int >= 1 and eps > 0, got {n_alphas}, {eps}.")
        alpha_max = np.abs(X.T @ y).max() / len(X)
        if alpha_max <= np.finfo(float).resolution:  # y orthogonal to every column
            alphas = np.full(n_alphas, np.finfo(float).resolution)
        else:
            alphas = np.geomspace(alpha_max, alpha_max * eps, n_alphas)
    alphas = np.sort(np.asarray(alphas, dtype=np.float64))[::-1]
    rng = check_random_state(random_state)
    coefs, gaps = np.zeros((X.shape[1], len(alphas))), np.zeros(len(alphas))
    if precompute is True or (isinstance(precompute, str) and precompute == "auto"
                              and X.shape[0] > X.shape[1]):
        precompute = X.T @ X
    w = None
    for k, alpha in enumerate(alphas):
        w, gaps[k], _, _ = lasso_cd(X, y, alpha, coef_init=w, tol=tol, max_iter=max_iter,
                                    selection=selection, screening=screening,
                                    precompute=precompute, backend=backend, random_state=rng)
        coefs[:, k] = w
    return alphas, coefs, gaps


class LassoCD(RegressorMixin, BaseEstimator):
    r"""Lasso by coordinate descent: :math:`\min_w \frac{1}{2n}\|y - Xw\|^2 + \alpha\|w\|_1`.

    Each step soft-thresholds one coefficient against the residual, which is kept up
    to date (O(n) a step), or, with ``precompute``, against :math:`X^\top r` kept up to
    date from the Gram matrix (O(d) a step); the test is the duality gap, as in
    scikit-learn's ``Lasso``. Sparse X (CSR or CSC) is read by columns and centred
    implicitly, never densified (O(nnz) a step). ``fit`` takes ``sample_weight``
    :math:`s_i`, for the loss :math:`\frac{1}{2\sum_i s_i}\sum_i s_i(y_i - x_i^\top w - b)^2`
    (scikit-learn's): integer weights are repeated rows.

    Parameters
    ----------
    alpha : float, default=1.0
        Weight of the :math:`\ell_1` penalty (scikit-learn's scaling).
    fit_intercept : bool, default=True
        Centre X and y first; the intercept :math:`\bar y - \bar x^\top w` is not penalised.
    max_iter : int, default=1000
        Maximum number of epochs.
    tol : float, default=1e-4
        Stop when the duality gap is at most :math:`\text{tol}\,\|y\|^2/n`.
    selection : {'cyclic', 'random'}, default='cyclic'
        Coordinates in increasing order, or drawn uniformly with replacement.
    screening : bool, default=True
        Drop the features that gap safe rules prove zero (:func:`gap_safe_screen`).
    gap_every : int or None, default=None
        Also check the duality gap, and screen, every that many epochs (see
        :func:`lasso_cd`); None: only where scikit-learn does.
    precompute : {'auto'} or bool, default='auto'
        Covariance updates from :math:`X^\top X` (see :func:`lasso_cd`); ``'auto'``
        uses them when there are more samples than features.
    record_every : int or None, default=None
        Record ``history_`` every that many epochs.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
        ``'numpy'``: the reference, the paper's step on the residual (a sparse X centred
        on a dense copy); the same iterates as the compiled path (see :func:`lasso_cd`).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds ``selection='random'``.
    verbose : bool, default=False
        A progress bar over the epochs for fits longer than a few seconds.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_iter_ : int
        Epochs run.
    dual_gap_ : float
        The final duality gap.
    history_ : dict of ndarray
        See :func:`lasso_cd`.
    n_features_in_ : int

    Notes
    -----
    Backends, traces, Ctrl-C, sample weights: :mod:`lsl_lib`, "Using the estimators".
    Ctrl-C waits for the running epoch.

    See Also
    --------
    sklearn.linear_model.Lasso : the same problem, solver, stopping rule and screening.
    lasso_path : the regularisation path with warm starts.

    References
    ----------
    Friedman, Hastie, Tibshirani. Regularization paths for generalized linear models
    via coordinate descent. Journal of Statistical Software 33(1), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from lsl_lib.coordinate_descent import LassoCD
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5)); y = X @ [2.0, 0, 0, -1.0, 0] + 3.0
    >>> model = LassoCD(alpha=0.1).fit(X, y)
    >>> np.round(model.coef_, 1), round(model.intercept_, 1)
    (array([ 1.9,  0. ,  0. , -0.9,  0. ]), 3.0)
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "selection": [StrOptions(set(_SELECTIONS))],
        "screening": ["boolean"],
        "gap_every": [Interval(Integral, 1, None, closed="left"), None],
        "precompute": [StrOptions({"auto"}), "boolean"],
        "verbose": ["boolean"],
        **_CD_CONSTRAINTS,
    }

    def __init__(self, alpha=1.0, fit_intercept=True, max_iter=1000, tol=1e-4,
                 selection="cyclic", screening=True, gap_every=None, precompute="auto",
                 record_every=None, backend="auto", random_state=None, verbose=False):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.selection = selection
        self.screening = screening
        self.gap_every = gap_every
        self.precompute = precompute
        self.record_every = record_every
        self.backend = backend
        self.random_state = random_state
        self.verbose = verbose

    @unfitted_on_interrupt
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        r"""Fit the Lasso; with ``sample_weight``, the loss is
        :math:`\frac{1}{2\sum_i s_i}\sum_i s_i (y_i - x_i^\top w - b)^2`, as scikit-learn's."""
        X, y = validate_data(self, X, y, accept_sparse="csc", dtype=np.float64, y_numeric=True)
        n = len(y)
        if sample_weight is None:
            sw = None
        else:  # rescaled to sum to n, as scikit-learn: the 1/(2n) of the loss is kept
            sw = check_sample_weight(sample_weight, X)
            sw = sw * (n / sw.sum())  # sum > 0: check_sample_weight refuses all zeros
        if self.fit_intercept:
            X_offset = np.asarray(X.mean(axis=0)).ravel() if sw is None else \
                np.asarray(X.T @ sw).ravel() / n
            y_offset = float(np.average(y, weights=sw))
        else:
            X_offset, y_offset = np.zeros(X.shape[1]), 0.0
        v = None if sw is None else np.sqrt(sw)
        y = y - y_offset if v is None else (y - y_offset) * v
        if sp.issparse(X):  # centred implicitly, inside lasso_cd
            if v is not None:
                X = sp.csc_matrix(sp.diags(v) @ X)
            centring = dict(X_offset=X_offset if self.fit_intercept else None, sqrt_sw=v)
        else:
            X = np.subtract(X, X_offset, order="F")
            if v is not None:
                X *= v[:, None]
            centring = {}
        self.coef_, self.dual_gap_, self.n_iter_, self.history_ = lasso_cd(
            X, y, self.alpha, tol=self.tol, max_iter=self.max_iter, selection=self.selection,
            screening=self.screening, gap_every=self.gap_every, precompute=self.precompute,
            record_every=self.record_every, backend=self.backend, random_state=self.random_state,
            verbose=self.verbose, **centring)
        self.intercept_ = float(y_offset - X_offset @ self.coef_)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
