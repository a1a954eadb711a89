r"""The online kernel learner's run: the column cache, the chunk of steps on both paths,
and the functional core :func:`online_kernel` (the mathematics is in
:mod:`lsl_lib.online_kernel`)."""
import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from lsl_lib._core.backend import jit, resolve_backend
from lsl_lib._core.kernel_loops import (
    check_sparse_kernel,
    row_kernel_column_numba,
    take_lru_slot_numba,
)
from lsl_lib._core.linalg import squared_row_norms
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import row_view
from lsl_lib._core.run_loop import run_chunks
from lsl_lib._core.sampling import SCHEMES, sample_indices
from lsl_lib._core.trace import Trace
from lsl_lib.kernels import cache_slots, check_kernel_params, kernel_matrix
from lsl_lib.online_kernel._models import (
    MODELS,
    _lambda_and_penalty_numba,
    _worst_violator_numba,
    lambda_and_penalty,
    margin_loss,
    regularised_risk,
    worst_violator_numpy,
)

_UPDATES = ("output", "naive")
#: The sampling schemes of the online learner: the shared ones and the worst violator.
_ONLINE_SCHEMES = SCHEMES + ("worst_violator",)
#: ``max_evaluations`` that never stops a run.
_NO_LIMIT = np.iinfo(np.int64).max


class ColumnCache:
    """A bounded LRU cache of kernel columns :math:`K(:, x_i)`, held in arrays.

    ``slots[s]`` holds the column of example ``owner[s]``; ``slot_of[i]`` is the
    slot of example i (-1: not cached); ``last_used[s]`` is the clock at the last
    access of slot s (-1: empty). A miss fills the slot with the smallest
    ``last_used`` (the first empty one, else the least recently used). With no slot
    at all (``cache_size`` too small for one column) every access computes the
    column. ``counters`` holds the clock, hits, misses and kernel evaluations.
    :func:`cached_column_numpy` reads a column through it, and its compiled twin
    ``_cached_column_numba`` works on the same arrays.
    """

    def __init__(self, X, kernel, gamma, degree, coef0, cache_size):
        n = X.shape[0]
        n_slots = cache_slots(cache_size, n)
        self.X, self.kernel_args = X, (kernel, gamma, degree, coef0)
        self.slots = np.empty((n_slots, n))
        self.slot_of = np.full(n, -1, dtype=np.int64)
        self.owner = np.full(n_slots, -1, dtype=np.int64)
        self.last_used = np.full(n_slots, -1, dtype=np.int64)
        self.counters = np.zeros(4, dtype=np.int64)  # clock, hits, misses, kernel evaluations
        self.scratch = np.empty(n)

    def stats(self):
        """Kernel evaluations, hits and misses so far (columns of ``history_``)."""
        return dict(kernel_evaluations=int(self.counters[3]), cache_hits=int(self.counters[1]),
                    cache_misses=int(self.counters[2]))


def cached_column_numpy(cache, i):
    """:math:`K(:, x_i)` from the :class:`ColumnCache` ``cache``, or computed (and then
    cached in the least recently used slot)."""
    cache.counters[0] += 1
    s = cache.slot_of[i]
    if s >= 0:
        cache.counters[1] += 1
        cache.last_used[s] = cache.counters[0]
        return cache.slots[s]
    cache.counters[2] += 1
    cache.counters[3] += len(cache.slot_of)
    col = kernel_matrix(cache.X, cache.X[i:i + 1], *cache.kernel_args)[:, 0]
    if len(cache.slots) == 0:
        return col
    s = int(np.argmin(cache.last_used))  # an empty slot (-1) or the least recently used
    if cache.owner[s] >= 0:
        cache.slot_of[cache.owner[s]] = -1  # evict
    cache.owner[s], cache.slot_of[i], cache.last_used[s] = i, s, cache.counters[0]
    cache.slots[s] = col
    return cache.slots[s]


@jit
def _cached_column_numba(data, cols, indptr, sq_norms, Xt, buffer, i, kernel_code, gamma, degree,
                         coef0, slots, slot_of, owner, last_used, counters, scratch):
    """:func:`cached_column_numpy` compiled, on the arrays of a :class:`ColumnCache`; the
    column is a view into ``slots`` (or ``scratch``).

    X comes as its row view ``(data, cols, indptr)`` (:func:`lsl_lib._core.rows.row_view`)
    with its squared row norms ``sq_norms``, ``Xt = X.T`` in C order (dense X; an empty
    (d, 0) placeholder for CSR X) and ``buffer``, d zeros: the column is
    :func:`lsl_lib._core.kernel_loops.row_kernel_column_numba`.
    """
    counters[0] += 1
    s = slot_of[i]
    if s >= 0:
        counters[1] += 1
        last_used[s] = counters[0]
        return slots[s]
    n = slot_of.shape[0]
    counters[2] += 1
    counters[3] += n
    if slots.shape[0] == 0:
        col = scratch
    else:
        s = take_lru_slot_numba(i, slot_of, owner, last_used)
        last_used[s] = counters[0]
        col = slots[s]
    row_kernel_column_numba(kernel_code, data, cols, indptr, sq_norms, Xt, i, gamma, degree,
                            coef0, buffer, col)
    return col


def online_kernel_numpy_chunk(X, y, alpha, f, b, indices, t0, model, C, eta, eta_decay, delta,
                              beta, naive, cache, max_evaluations=_NO_LIMIT):
    r"""Run steps t0, ..., t0+T-1 on the examples ``indices``: the readable reference.

    ``alpha`` (signed coefficients) and ``f`` (:math:`K\alpha`, the outputs without
    the bias) are updated in place and the new bias b is returned. With ``naive``,
    ``f`` is not updated: it holds the outputs of a previous model (zeros from
    scratch, see :func:`online_kernel`'s ``f_init``) to which the kernel sum is
    added. ``y`` holds -1/+1, ``beta`` is 1.0 to learn the bias, ``cache`` is the
    :class:`ColumnCache`; the other arguments are those of :func:`online_kernel`. The
    steps stop before one once the kernel evaluations ``cache.counters[3]`` have reached
    ``max_evaluations``. An index -1 asks for the worst violator
    (:func:`worst_violator_numpy`).
    Returns b and the number of steps run.
    """
    n = X.shape[0]
    for t, i in enumerate(indices, start=t0):
        if cache.counters[3] >= max_evaluations:
            return b, t - t0
        eta_t = eta / (1.0 + eta_decay * (t // n))
        if i < 0:  # sampling='worst_violator': the outputs f + b are at hand
            i = worst_violator_numpy(model, y, alpha, f + b, eta_t, C, delta)
        if naive:
            o_i = f[i] + alpha @ cached_column_numpy(cache, i) + b  # a kernel sum: O(n), always
        else:
            o_i = f[i] + b  # speed-up #2: the output is known
        Lam, P = lambda_and_penalty(model, y[i] * o_i, y[i], alpha[i], eta_t, C, delta)
        new = (alpha[i] + Lam) - P  # in this order: exactly 0 when the threshold zeroes a
        step = new - alpha[i]
        alpha[i] = new
        b += beta * Lam
        if not naive and step != 0.0:
            f += step * cached_column_numpy(cache, i)  # speed-up #1: o += (Lambda - P) K(:, x_i)
    return b, len(indices)


@jit
def _online_kernel_numba_chunk(data, cols, indptr, sq_norms, Xt, buffer, y, alpha, f, b, indices,
                               t0, model_code, C, eta, eta_decay, delta, beta, naive, kernel_code,
                               gamma, degree, coef0, slots, slot_of, owner, last_used, counters,
                               scratch, max_evaluations):
    """The same steps as :func:`online_kernel_numpy_chunk`, compiled; returns the new b and
    the number of steps run.

    X comes as in :func:`_cached_column_numba`.
    """
    n = alpha.shape[0]
    for s in range(indices.shape[0]):
        if counters[3] >= max_evaluations:
            return b, s
        i = indices[s]
        eta_t = eta / (1.0 + eta_decay * ((t0 + s) // n))
        if i < 0:  # sampling='worst_violator'
            i = _worst_violator_numba(model_code, y, alpha, f, b, eta_t, C, delta)
        if naive:
            col = _cached_column_numba(data, cols, indptr, sq_norms, Xt, buffer, i,
                                       kernel_code, gamma, degree, coef0, slots, slot_of, owner,
                                       last_used, counters, scratch)
            o_i = f[i] + np.dot(alpha, col) + b
        else:
            o_i = f[i] + b
        Lam, P = _lambda_and_penalty_numba(model_code, y[i] * o_i, y[i], alpha[i], eta_t, C, delta)
        new = (alpha[i] + Lam) - P
        step = new - alpha[i]
        alpha[i] = new
        b += beta * Lam
        if not naive and step != 0.0:
            col = _cached_column_numba(data, cols, indptr, sq_norms, Xt, buffer, i,
                                       kernel_code, gamma, degree, coef0, slots, slot_of, owner,
                                       last_used, counters, scratch)
            for j in range(n):
                f[j] += step * col[j]
    return b, indices.shape[0]


class OnlineKernelState:
    r"""Where a run stands: coefficients, :math:`f = K\alpha`, bias, steps done, cache."""

    def __init__(self, n_samples, cache=None):
        self.alpha = np.zeros(n_samples)
        self.f = np.zeros(n_samples)
        self.b = 0.0
        self.t = 0
        self.cache = cache

    @property
    def outputs(self):
        r"""The training outputs :math:`o = K\alpha + b`."""
        return self.f + self.b


def _check_args(model, C, eta, eta_decay, delta, n_epochs, update, sampling, cache_size,
                record_every, max_kernel_evaluations):
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}.")
    for name, value, low in [("C", C, 0), ("eta", eta, 0), ("delta", delta, 0),
                             ("eta_decay", eta_decay, None), ("cache_size", cache_size, None)]:
        if not (isinstance(value, Real) and (value > 0 if low == 0 else value >= 0)):
            raise ValueError(f"{name} must be a number {'>' if low == 0 else '>='} 0, "
                             f"got {value!r}.")
    if not (isinstance(n_epochs, Integral) and n_epochs >= 1):
        raise ValueError(f"n_epochs must be an int >= 1, got {n_epochs!r}.")
    for name, value in [("record_every", record_every),
                        ("max_kernel_evaluations", max_kernel_evaluations)]:
        if value is not None and not (isinstance(value, Integral) and value >= 1):
            raise ValueError(f"{name} must be None or an int >= 1, got {value!r}.")
    for name, value, options in [("update", update, _UPDATES),
                                 ("sampling", sampling, _ONLINE_SCHEMES)]:
        if value not in options:
            raise ValueError(f"{name} must be one of {options}, got {value!r}.")
    if sampling == "worst_violator" and update == "naive":
        raise ValueError("sampling='worst_violator' reads the margins off the output vector: it "
                         "needs update='output', got update='naive'.")


def _step_indices(n, n_epochs, sampling, random_state, order):
    """The example of each step: ``order``, or ``n_epochs * n`` drawn by ``sampling``
    (-1 for the worst violator, chosen at the step)."""
    if order is None and sampling == "worst_violator":
        return np.full(n_epochs * n, -1, dtype=np.int64)
    if order is None:
        indices = sample_indices(n, n_epochs * n, 1, sampling, check_random_state(random_state))
        return indices[:, 0]
    indices = np.asarray(order, dtype=np.int64)
    if indices.ndim != 1 or not np.all((indices >= 0) & (indices < n)):
        raise ValueError(f"order must hold indices of X's {n} rows.")
    return indices


def _online_kernel_step(X, y, state, indices, path, model, C, eta, eta_decay, delta, bias,
                        naive, kernel_args, budget):
    """The ``step(start, stop)`` of :func:`online_kernel` for
    :func:`~lsl_lib._core.run_loop.run_chunks`: steps start .. stop - 1 on the examples
    ``indices``, in place on ``state`` (α, f, b and the cache carry over); True once the
    kernel evaluations have reached ``budget``. ``kernel_args`` = (kernel_code, gamma, degree,
    coef0); the rest are :func:`online_kernel`'s."""
    cache = state.cache
    if path == "numba":
        # dense: columns of K are computed along the examples of X.T; CSR: a row of X is
        # scattered into d zeros (row_kernel_column_numba)
        rows = (*row_view(X), squared_row_norms(X))
        Xt = np.empty((X.shape[1], 0)) if sp.issparse(X) else np.ascontiguousarray(X.T)
        buffer = np.zeros(X.shape[1])

    def step(start, stop):
        if path == "numba":
            state.b, done = _online_kernel_numba_chunk(
                *rows, Xt, buffer, y, state.alpha, state.f, state.b,
                indices[start:stop], start, MODELS.index(model), float(C), float(eta),
                float(eta_decay), float(delta), float(bias), naive, *kernel_args, cache.slots,
                cache.slot_of, cache.owner, cache.last_used, cache.counters, cache.scratch,
                int(budget))
        else:
            state.b, done = online_kernel_numpy_chunk(
                X, y, state.alpha, state.f, state.b, indices[start:stop], start, model, C, eta,
                eta_decay, delta, float(bias), naive, cache, budget)
        state.t = start + done
        return done < stop - start  # the evaluation budget is spent

    return step


def online_kernel(X, y, model="l1_svm", *, C=1.0, eta=0.1, eta_decay=0.0, delta=0.5, bias=False,
                  kernel="gaussian", gamma=None, degree=3, coef0=1.0, n_epochs=10,
                  sampling="reshuffle", update="output", cache_size=200.0,
                  max_kernel_evaluations=None, record_every=None, monitor=None, backend="auto",
                  random_state=None, order=None, f_init=None, b_init=0.0, out=None,
                  verbose=False):
    r"""Run ``n_epochs`` epochs of the unified online kernel learner on prepared arrays.

    The functional core of :class:`OnlineKernelClassifier` (whose docstring describes
    the parameters): X a finite float array or CSR matrix (inner-product kernels),
    y already -1/+1. ``monitor(alpha, b)``, if given, returns a dict of extra columns
    for each record. ``max_kernel_evaluations`` (None: no limit) stops the run before
    its ``n_epochs * n`` steps once that many kernel values have been computed (the
    ``kernel_evaluations`` counter: the same step on both paths); ``state.t`` is then
    the number of steps run.

    The last three arguments continue a model (:meth:`OnlineKernelClassifier.partial_fit`):

    order : ndarray of int or None, default=None
        The examples of the steps, in order, instead of ``n_epochs * n`` drawn by
        ``sampling`` (which, with ``n_epochs`` and ``random_state``, is then unused).
        The step size of step t is that of epoch ``t // n``.
    f_init : ndarray of shape (n,) or None, default=None
        The outputs, without bias, of a model learnt before on other examples:
        :math:`f = f_{\text{init}} + K\alpha`, where α, the coefficients of X's
        examples, start at 0.
    b_init : float, default=0.0
        The bias to start from.

    And, for :meth:`OnlineKernelClassifier.partial_fit` and the estimator's ``verbose``:

    out : OnlineKernelState or None, default=None
        A new ``OnlineKernelState(n)`` to run in, instead of one made here: after a
        ``KeyboardInterrupt`` it holds the steps of the last whole chunk (``out.t`` of
        them), which :meth:`OnlineKernelClassifier.partial_fit` keeps.
    verbose : bool, default=False
        A progress bar for a run longer than a few seconds.

    Returns
    -------
    state : OnlineKernelState
        ``state.alpha``, ``state.b``, ``state.outputs``, ``state.cache``.
    history : dict of ndarray
        Columns ``iteration``, ``epoch``, ``seconds``, ``objective``,
        ``rkhs_objective``, ``train_error``, ``n_nonzero``, ``kernel_evaluations``,
        ``cache_hits``, ``cache_misses`` and the monitor's; empty when
        ``record_every`` is None (it must be None with ``f_init``: the objectives are
        those of the model learnt from X alone).

    Raises
    ------
    ValueError
        When the run diverges: the coefficients or the bias grow by orders of magnitude
        (:data:`~lsl_lib._core.run_loop.DIVERGENCE_GROWTH` over their size after the
        first chunk) or overflow, or (``update='output'``) a loss overflows.
    KeyboardInterrupt
        On Ctrl-C, within a chunk's length (:func:`~lsl_lib._core.run_loop.run_chunks`).
        The steps run in chunks of about 0.1 s; α, f, b and the cache with its counters
        carry from one chunk to the next, so the iterates do not depend on where the
        chunks end.
    """
    _check_args(model, C, eta, eta_decay, delta, n_epochs, update, sampling, cache_size,
                record_every, max_kernel_evaluations)
    y = np.ascontiguousarray(y, dtype=np.float64)
    X = X if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be 2-D with at least one row and y of length n, got shapes "
                         f"{X.shape} and {y.shape}.")
    check_sparse_kernel(X, kernel)
    if not sp.issparse(X):
        X = np.ascontiguousarray(X)
    if not (np.isfinite(X.data if sp.issparse(X) else X).all() and np.all(np.abs(y) == 1.0)):
        raise ValueError("X must be finite and y must hold labels -1 and +1.")
    kernel_code, gamma, degree, coef0 = check_kernel_params(kernel, gamma, degree, coef0,
                                                            X.shape[1])
    path = resolve_backend(backend)
    n = X.shape[0]
    indices = _step_indices(n, n_epochs, sampling, random_state, order)
    f0 = np.zeros(n) if f_init is None else np.array(f_init, dtype=np.float64)
    if f0.shape != (n,) or not np.all(np.isfinite(f0)) or not np.isfinite(b_init):
        raise ValueError(f"f_init must hold {n} finite outputs and b_init be finite.")
    if f_init is not None and record_every is not None:
        raise ValueError("record_every must be None when a model is continued (f_init).")
    if out is not None and (out.alpha.shape != (n,) or out.t != 0 or np.any(out.alpha)):
        raise ValueError(f"out must be a new OnlineKernelState({n}).")
    cache = ColumnCache(X, kernel, gamma, degree, coef0, cache_size)
    state = OnlineKernelState(n) if out is None else out
    state.cache, state.f, state.b = cache, f0.copy(), float(b_init)
    naive = update == "naive"
    budget = _NO_LIMIT if max_kernel_evaluations is None else max_kernel_evaluations
    step = _online_kernel_step(X, y, state, indices, path, model, C, eta, eta_decay, delta, bias,
                               naive, (kernel_code, gamma, degree, coef0), budget)
    trace = Trace()

    def exact_f():  # f_init + K alpha from scratch, over the support
        support = np.flatnonzero(state.alpha)
        K_S = kernel_matrix(X, X[support], kernel, gamma, degree, coef0)
        return f0 + K_S @ state.alpha[support]

    def record():
        f = exact_f() if naive else state.f
        o = f + state.b
        loss = C * margin_loss(model, y * o, delta).sum()
        trace.record(iteration=state.t, epoch=state.t / n, seconds=trace.seconds,
                     objective=regularised_risk(model, state.alpha, o, y, C, delta),
                     rkhs_objective=float(0.5 * state.alpha @ f + loss),
                     train_error=float(np.mean(np.where(o > 0, 1.0, -1.0) != y)),
                     n_nonzero=int(np.count_nonzero(state.alpha)), **cache.stats(),
                     **(monitor(state.alpha, state.b) if monitor is not None else {}))

    def norm():
        """The size of (α, b); inf once a loss overflows (the output vector is at hand
        with ``update='output'``: O(n), as one step)."""
        size = math.sqrt(float(state.alpha @ state.alpha) + state.b ** 2)
        if not naive:
            with np.errstate(over="ignore", invalid="ignore"):  # what is being detected
                if not np.isfinite(margin_loss(model, y * (state.f + state.b), delta)).all():
                    return math.inf
        return size

    def diverged(done):
        return (f"The online kernel learner diverged by step {done}: the coefficients or the "
                f"losses overflowed or grew by orders of magnitude with model={model!r}, "
                f"eta={eta}, C={C}. Use a smaller eta or C: 'ls_svm' is stable only for "
                "eta < 2 / (C (K_ii + beta) + 1), and the exponential loss grows without bound.")

    run_chunks(trace, len(indices), step, record_every=record_every, record=record, norm=norm,
               diverged=diverged, verbose=verbose, desc="online kernel", unit="step")
    if naive:
        state.f = exact_f()
    return state, trace.history()
