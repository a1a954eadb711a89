"""Averaged parallel Pegasos: K workers, each on its own partition, their weights averaged
once or every few epochs."""
import math
import time
from itertools import pairwise
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets

from lsl_lib._core.random import check_random_state
from lsl_lib._core.validation import check_batch_size, check_n_classes
from lsl_lib.distributed._cluster import _SchedulerParameter, get_client
from lsl_lib.distributed._partitions import (
    _PARTITIONS,
    _dask_arrays,
    _load_partition,
    _Partitions,
    is_dask_collection,
    partition_indices,
)
from lsl_lib.losses import get_loss
from lsl_lib.pegasos import PegasosClassifier, PegasosState, pegasos, weighted_objective


def round_schedule(n_epochs, average_every, steps_per_epoch):
    r"""The rounds of averaged parallel SGD: each worker's iterations in each, and when each ends.

    Parameters
    ----------
    n_epochs : int
    average_every : float > 0 or None
        Epochs per round (``None``: one round).
    steps_per_epoch : ndarray of int, shape (K,)
        Iterations of one pass of each worker over its partition.

    Returns
    -------
    iterations : list of ndarray of shape (K,), one per round
        Round r runs the iterations from :math:`\mathrm{rint}(e_{r-1} s_k)` to
        :math:`\mathrm{rint}(e_r s_k)`, so the rounds add up to ``n_epochs`` passes exactly.
    ends : list of float
        :math:`e_r`, the epoch at the end of round r.

    Raises
    ------
    ValueError
        If a round would give some worker no iteration: ``average_every`` shorter than one
        iteration of the smallest partition. Refused before the rounds are listed, when
        there would be more rounds than iterations.
    """
    steps = np.asarray(steps_per_epoch)
    too_short = ValueError(
        f"average_every={average_every} epochs is less than one iteration of the smallest "
        f"partition ({steps.min()} iterations an epoch): every round needs at least one.")
    if average_every is None:
        ends = [float(n_epochs)]
    else:
        n_rounds = math.ceil(n_epochs / average_every - 1e-9)
        if n_rounds > n_epochs * steps.min():  # before a list of n_rounds is built
            raise too_short
        ends = [min((r + 1) * average_every, n_epochs) for r in range(n_rounds)]
    done = [np.rint(steps * e).astype(np.int64) for e in [0.0, *ends]]
    iterations = [b - a for a, b in pairwise(done)]
    if min(n.min() for n in iterations) < 1:
        raise too_short
    return iterations, ends


def _pegasos_round(part, W, t, n_iter, seed, kwargs):
    """One worker's round: ``n_iter`` Pegasos steps from W at step count t; its output
    iterate. A task: it runs where the partition ``part = (X, y, sample_weight)`` lives."""
    X, y, sample_weight = part
    state = PegasosState(*W.shape)
    state.W = W.copy()
    state.t = t
    state, _ = pegasos(X, y, n_iter=n_iter, random_state=np.random.default_rng(seed),
                       state=state, sample_weight=sample_weight, **kwargs)
    return state.coef


def _partition_loss(part, W, loss):
    r""":math:`\sum_{i \in S_k} s_i \ell_i(W)` on a partition and its weight
    :math:`\sum_{i \in S_k} s_i` (:math:`|S_k|` without weights), for the global objective."""
    X, y, sample_weight = part
    mass = X.shape[0] if sample_weight is None else float(sample_weight.sum())
    if mass == 0:  # refused by fit, which needs the masses to say so
        return 0.0, 0.0
    return mass * weighted_objective(W, X, y, 0.0, loss, sample_weight), mass


def _never(estimator):
    return False


class ParallelPegasosClassifier(_SchedulerParameter, PegasosClassifier):
    r"""Pegasos on K workers, their weights averaged once or every few epochs.

    The data are split into ``n_workers`` partitions (:func:`partition_indices`, or a dask
    array's chunks); in each round every worker runs Pegasos for ``average_every`` epochs
    of its partition, from the current average and with its own step count t, and the
    driver replaces the average by :math:`\bar w = \sum_k \frac{|S_k|}{n} w_k`. With
    ``average_every=None`` there is one round of ``n_epochs`` epochs: one-shot averaging.
    The tasks run on a Dask cluster (:func:`get_client`); the partitions are sent to the
    workers once and stay there, so a round moves only K weight vectors each way.

    Parameters
    ----------
    lam : float, default=1e-4
        Regularisation :math:`\lambda > 0` of :math:`\frac\lambda2\|w\|^2 + \frac1n\sum_i
        \ell_i(w)`, the problem of :class:`lsl_lib.pegasos.PegasosClassifier`.
    n_epochs : int, default=5
        Passes of each worker over its own partition, in all rounds together.
    batch_size : int, default=1
        Mini-batch size k of each worker (at most the smallest partition).
    loss : {'hinge', 'log', 'multiclass_hinge', 'softmax'}, default='hinge'
    n_workers : int, default=2
        K, the number of partitions and of parallel runs (tasks), at most the number of
        samples; when the cluster has fewer workers, the tasks queue on them.
    average_every : float > 0 or None, default=None
        Epochs between two averagings, fractions allowed (0.1: ten averagings per pass);
        ``None``: one-shot averaging at the end. The number of communication rounds is
        :math:`\lceil` ``n_epochs / average_every`` :math:`\rceil` (:func:`round_schedule`);
        a period shorter than one iteration of the smallest partition is refused.
    partition : {'iid', 'sorted', 'chunks'} or None, default=None
        How the rows are split (:func:`partition_indices`). ``None``: ``'iid'`` for data in
        memory, ``'chunks'`` (its own chunks, rechunked into ``n_workers``) for a dask array
        or dataframe, which is the only choice for one.
    sampling : {'iid', 'permutation', 'reshuffle'}, default='iid'
        How each worker draws its mini-batches from its partition.
    averaging : {'none', 'uniform', 'suffix'}, default='suffix'
        Which iterate each worker returns at the end of a round: its last, the average of the
        round's iterates, or of their last ``suffix_fraction``.
    suffix_fraction : float in (0, 1], default=0.5
    step_offset : float or 'auto', default=0
        :math:`t_0` in each worker's step :math:`\eta_t = 1/(\lambda(t + t_0))`.
    fit_intercept : bool, default=True
        Learn a (regularised) intercept as the weight of a constant feature.
    class_weight : dict, 'balanced' or None, default=None
        Weight of each class's examples, as in :class:`~lsl_lib.pegasos.PegasosClassifier`
        (``'balanced'`` is computed from all of y, not per partition).
    scheduler : None, str or distributed.Client, default=None
        Where the tasks run (:func:`get_client`): None is a local cluster in this process,
        one worker per core (or the Client current in the session); an address such as
        ``'tcp://10.0.0.5:8786'`` is a running scheduler, and an address where no Dask
        scheduler answers within :data:`_CONNECT_TIMEOUT` seconds raises a
        ``ConnectionError``. A Client is shared by the estimator's clones (``clone``,
        ``GridSearchCV``) and pickled as its scheduler's address.
    backend : {'auto', 'numba', 'numpy'}, default='auto'
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the partition and each worker's sampling, round by round: the same seed gives
        the same weights on any cluster and either backend.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The average of the last round.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_rounds_ : int
        Communication rounds: averagings of the K weight vectors.
    partition_sizes_ : ndarray of shape (n_workers,)
        :math:`|S_k|`.
    t_ : ndarray of shape (n_workers,)
        Iterations done by each worker.
    history_ : dict of ndarray
        One row per round and one at the start: ``round``, ``epoch`` (of each worker over
        its partition), ``seconds`` (wall clock since the start of ``fit``, communication
        included), ``objective`` (f of the average on all the training data, computed where
        the partitions live) and ``test_error`` when an ``eval_set`` is given.
    n_features_in_ : int

    See Also
    --------
    lsl_lib.pegasos.PegasosClassifier : the same problem on one machine.
    fit_out_of_core : one machine, data streamed from disk or from a generator.

    Notes
    -----
    The result depends on K and the partition, not on the cluster: the tasks are seeded per
    worker and per round, so a local cluster, a remote one, and K sequential calls of
    :func:`lsl_lib.pegasos.pegasos` give the same :math:`\bar w`. One machine's ``partial_fit``
    is :class:`~lsl_lib.pegasos.PegasosClassifier`'s; this estimator has none.

    With sample weights :math:`s_i` the problem is that of
    :class:`~lsl_lib.pegasos.PegasosClassifier`, :math:`\frac\lambda2\|w\|^2 +
    \frac{1}{\sum_i s_i}\sum_i s_i \ell_i(w)`: each worker draws its examples in proportion
    to their weights, and the average weighs worker k by its partition's weight,
    :math:`\bar w = \sum_k \frac{s(S_k)}{s(S)} w_k` with :math:`s(S_k) = \sum_{i\in S_k}
    s_i`.

    A worker that dies during ``fit`` (killed, out of memory) loses the partitions it held.
    Each is sent again, from this process or from its dask graph, and the tasks that needed
    it are rerun with their own seeds, so ``fit`` returns the weights it would have returned
    without the loss, with a ``RuntimeWarning`` that names the partition and the worker.
    Losing a partition more than :data:`_MAX_RESENDS` times in one round raises a
    ``RuntimeError`` that names them.

    References
    ----------
    Zhang, De Sa, Mitliagkas, Ré. Parallel SGD: when does averaging help? 2016.

    Zinkevich, Weimer, Smola, Li. Parallelized stochastic gradient descent. NIPS 2010.

    Examples
    --------
    >>> from lsl_lib.datasets import linear_teacher
    >>> X, y = linear_teacher(2000, 10, label_noise=0.05, random_state=0)
    >>> clf = ParallelPegasosClassifier(lam=1e-3, n_workers=2, average_every=1,
    ...                                 random_state=0).fit(X, y)  # doctest: +SKIP
    >>> clf.n_rounds_  # doctest: +SKIP
    5
    """

    _parameter_constraints = {
        **{key: value for key, value in PegasosClassifier._parameter_constraints.items()
           if key not in ("n_iter", "projection", "record_every", "reference_objective")},
        "n_epochs": [Interval(Integral, 1, None, closed="left")],
        "n_workers": [Interval(Integral, 1, None, closed="left")],
        "average_every": [Interval(Real, 0, None, closed="neither"), None],
        "partition": [StrOptions(set(_PARTITIONS)), None],
        "scheduler": [None, str, HasMethods(["submit", "gather", "scatter"])],
    }

    def __init__(self, lam=1e-4, n_epochs=5, batch_size=1, loss="hinge", n_workers=2,
                 average_every=None, partition=None, sampling="iid", averaging="suffix",
                 suffix_fraction=0.5, step_offset=0, fit_intercept=True, class_weight=None,
                 scheduler=None, backend="auto", random_state=None):
        self.lam = lam
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.loss = loss
        self.n_workers = n_workers
        self.average_every = average_every
        self.partition = partition
        self.sampling = sampling
        self.averaging = averaging
        self.suffix_fraction = suffix_fraction
        self.step_offset = step_offset
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.scheduler = scheduler
        self.backend = backend
        self.random_state = random_state

    @available_if(_never)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Not offered: see :func:`fit_out_of_core`."""


    def _check_n_workers(self, n_samples):
        if self.n_workers > n_samples:
            raise ValueError(f"n_workers={self.n_workers} is more than the {n_samples} "
                             "samples: some partitions would be empty.")

    def _memory_partitions(self, X, y, sample_weight, rng):
        """Validate X, y (and the weights) in memory and split them: the K parts
        ``(X_k, y_k encoded, s_k or None)`` and their sizes."""
        X, y = self._prepare(X, y, reset=True)
        self.classes_ = np.unique(y)
        self._check_labels(y)
        self._check_n_workers(X.shape[0])
        weights = self._sample_weight(X, sample_weight, y, self.class_weight)
        if weights is not None:  # the weights may leave a single class
            check_n_classes(np.unique(y[weights > 0]), self.loss, ())
        indices = partition_indices(y, self.n_workers, self.partition or "iid", rng)
        encoded = self._encode(y)
        parts = [(X[p], encoded[p], None if weights is None else weights[p]) for p in indices]
        return parts, np.array([len(p) for p in indices])

    def _dask_partitions(self, X, y, sample_weight, labels=None):
        """Check dask X, y (and weights) and plan their split into ``n_workers`` row blocks
        (sizes as ``np.array_split``'s): delayed parts, loaded and validated on the workers,
        where they stay; only y is computed here, for the classes (``labels``: y computed
        already)."""
        import dask

        if self.partition not in (None, "chunks"):
            raise ValueError(
                f"partition={self.partition!r} needs the rows in memory to shuffle or sort; "
                "a dask array is split by its chunks: pass partition='chunks' (or None), or "
                "shuffle the array with dask first.")
        X, y, sample_weight = _dask_arrays(X, y, sample_weight)
        self._check_n_workers(X.shape[0])
        self.n_features_in_ = X.shape[1]
        y_all = y.compute() if labels is None else labels
        self.classes_ = np.unique(y_all)
        self._check_labels(self.classes_)
        class_weight = self.class_weight
        if class_weight == "balanced":  # from all of y, as one machine computes it
            class_weight = dict(zip(self.classes_, compute_class_weight(
                "balanced", classes=self.classes_, y=y_all), strict=True))
        q, r = divmod(X.shape[0], self.n_workers)
        rows = (q + 1,) * r + (q,) * (self.n_workers - r)
        X = X.rechunk({0: rows, 1: -1})
        y = y.rechunk((rows,))
        weights = ([None] * self.n_workers if sample_weight is None
                   else sample_weight.rechunk((rows,)).to_delayed().ravel())
        parts = [dask.delayed(_load_partition)(xb, yb, wb, self.fit_intercept, self.classes_,
                                               self.loss, class_weight)
                 for xb, yb, wb in zip(X.to_delayed().ravel(), y.to_delayed().ravel(), weights,
                                          strict=True)]
        return parts, np.array(rows)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit by rounds of parallel Pegasos and averaging.

        Everything is validated before any work is sent to the cluster (for a dask array,
        its chunks are validated on the workers as they load them).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, dask dataframe} of shape (n, d)
        y : array-like or dask array of shape (n,)
            A dask array (or series) when X is one, in memory when X is.
        sample_weight : array-like or dask array of shape (n,), default=None
            Non-negative weights :math:`s_i` (times ``class_weight``), as in
            :meth:`lsl_lib.pegasos.PegasosClassifier.fit`; a dask array with dask X.
        eval_set : tuple (X_test, y_test), optional
            Held-out data (in memory) whose error is recorded in ``history_`` after each round.
        """
        lazy = any(is_dask_collection(a) for a in (X, y, sample_weight))
        if not lazy:
            X, y = self._validate(X, y, reset=True)
        labels = None  # y in memory (a dask y is computed once, here)
        if self._binary_only():  # more than two classes: one model per class, one-vs-rest
            labels = np.asarray(y.compute() if is_dask_collection(y) else y)
            check_classification_targets(labels)
            classes = np.unique(labels)
            if self._needs_one_vs_rest(classes):
                self.classes_ = classes
                return self._fit_one_vs_rest(X, y, sample_weight, eval_set=eval_set)
        self.estimators_ = None
        rng = check_random_state(self.random_state)
        if lazy:
            sources, sizes = self._dask_partitions(X, y, sample_weight, labels)
        else:
            sources, sizes = self._memory_partitions(X, y, sample_weight, rng)
        check_batch_size(self.batch_size, int(sizes.min()))
        iterations, ends = round_schedule(self.n_epochs, self.average_every,
                                          -(-sizes // self.batch_size))
        seed = rng.integers(0, 2**63)
        loss = get_loss(self.loss)
        n_outputs = self._n_outputs()
        W = np.zeros((n_outputs, self.n_features_in_ + self.fit_intercept))
        kwargs = dict(lam=self.lam, n_outputs=n_outputs, loss=loss,
                      batch_size=self.batch_size, sampling=self.sampling,
                      averaging=self.averaging, suffix_fraction=self.suffix_fraction,
                      step_offset=self.step_offset, backend=self.backend)
        history = {"round": [], "epoch": [], "seconds": [], "objective": []}
        if eval_set is not None:
            history["test_error"] = []
            X_eval = self._prepare(eval_set[0], eval_set[1], reset=False)[0]
            y_eval = np.asarray(eval_set[1])

        client = get_client(self.scheduler)
        start = time.perf_counter()
        parts = _Partitions(client, sources, sizes, lazy)

        def record(n_rounds, done):
            """Evaluate the average where the partitions live; their weights s(S_k)."""
            losses = parts.gather(lambda k, part: client.submit(_partition_loss, part, W, loss,
                                                                pure=False))
            objective = (0.5 * self.lam * float(np.vdot(W, W))
                         + sum(s for s, _ in losses) / sum(m for _, m in losses))
            history["round"].append(n_rounds)
            history["epoch"].append(done)
            history["seconds"].append(time.perf_counter() - start)
            history["objective"].append(objective)
            if eval_set is not None:
                history["test_error"].append(self._eval_metric(np.asarray(X_eval @ W.T), y_eval))
            return np.array([m for _, m in losses])

        masses = record(0, 0.0)
        if not masses.min() > 0:
            k = int(np.argmin(masses))
            raise ValueError(f"sample_weight is zero on all the {sizes[k]} rows of partition "
                             f"{k}: its worker would have nothing to learn from; use fewer "
                             "workers, or another partition.")
        t = np.zeros(self.n_workers, dtype=np.int64)
        for n_rounds, (n_iter, end) in enumerate(zip(iterations, ends, strict=True), start=1):
            def submit(k, part, W=W, t=t, n_iter=n_iter, r=n_rounds - 1):
                """Worker k's task of this round (the round's values bound)."""
                return client.submit(_pegasos_round, part, W, int(t[k]), int(n_iter[k]),
                                     [seed, r, k], kwargs, pure=False)

            outputs = parts.gather(submit)
            W = np.tensordot(masses / masses.sum(), np.stack(outputs), axes=1)
            t += n_iter
            record(n_rounds, end)
        self._set_coef(W)
        self.n_rounds_ = len(ends)
        self.partition_sizes_ = sizes
        self.t_ = t
        self.history_ = {key: np.asarray(value) for key, value in history.items()}
        return self
