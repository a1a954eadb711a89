r"""Scaling out on Dask: averaged parallel SGD, out-of-core training, block-parallel DSG.

The lecture notes end each part with the step beyond one machine. Three of them are here,
on Dask's distributed scheduler (``dask.distributed``) rather than on a scheduler of our own:
a :class:`distributed.LocalCluster` on this machine by default, and any scheduler's address
(``scheduler="tcp://host:8786"``) or :class:`distributed.Client` to scale out.

**Averaged parallel SGD** (:class:`ParallelPegasosClassifier`). The n examples are split
into K partitions :math:`S_1, \dots, S_K`, one per worker. Each worker runs Pegasos on its own
partition, from the same starting point, and the driver averages the K weight vectors,

.. math::

    \bar w = \sum_{k=1}^K \frac{|S_k|}{n}\, w_k ,

either once at the end (*one-shot averaging*) or every ``average_every`` epochs, each round
starting every worker from :math:`\bar w` (*periodic averaging*). One-shot averaging costs a
single communication round; it reduces the variance of the K runs but keeps their common
bias, which is large when a partition is not a sample of the whole (sorted by label, say)
or when each worker's run is short. Averaging more often pulls the workers back to a common
point before they drift towards their own partitions' optima, at the price of more rounds;
on skewed (non-iid) partitions this is the "client drift" of federated averaging (McMahan
et al. 2017; Li et al. 2020). Zhang, De Sa, Mitliagkas and Ré (2016) study workers that
sample the *same* pool: for convex objectives, the benefit of frequent averaging depends on
the gradient variance envelope (it helps when the variance of the stochastic gradients grows
away from the optimum; otherwise one-shot averaging is as good). On a convex problem, every
average is at least as good as the mean of the workers' objectives (Jensen), not always as
good as one machine's run on all the data.

**Out-of-core training** (:func:`fit_out_of_core`). A dask array larger than the memory one
is willing to spend is streamed through an estimator's ``partial_fit``, chunk by chunk, its
chunks first cut to fit the budget; the peak memory of the run is measured (the growth of
the process's resident memory, which the kernel records) and stays near a few chunks when
the source makes its chunks small.

**Block-parallel doubly stochastic gradients** (:class:`ParallelDoublyStochasticClassifier`,
:class:`ParallelDoublyStochasticRegressor`). Each worker trains a doubly stochastic model
with its own seed, so its own blocks of random features, and the prediction is the average of
the K models, :math:`f(x) = \frac1K\sum_k f_k(x)`: a model of K T B random features whose
coefficients live on K machines, each regenerating only its own blocks when it predicts.

The module has no compiled loop of its own, hence no pair of paths: each worker runs the
numpy reference or the compiled twin of :mod:`lsl_lib.pegasos` or
:mod:`lsl_lib.doubly_stochastic`, as ``backend`` says. Where each step of the papers lives
(Zinkevich et al.'s Algorithm 3, SimuParallelSGD; rows in parentheses have no line there):

=====================================  =============================  ===========================
the paper's step                       where                          run by the workers
=====================================  =============================  ===========================
Zinkevich, Alg. 3, l. 2: partition     ``partition_indices``          (the driver)
l. 3-9: SGD on each machine's part     ``_pegasos_round``             ``lsl_lib.pegasos.pegasos``
l. 11: average, weights n_k / n        ``ParallelPegasosClassifier``  (the driver)
(rounds of averaging: Zhang et al.)    ``round_schedule``             a round each
(out of core: chunks to partial_fit)   ``fit_out_of_core``            (this process)
Dai et al., §5: a machine, its blocks  ``ParallelDoublyStochastic*``  ``DoublyStochastic*.fit``
=====================================  =============================  ===========================

References
----------
Zhang, De Sa, Mitliagkas, Ré. Parallel SGD: when does averaging help? ICML workshop on
optimization in machine learning, 2016. arXiv:1606.07365.

Zinkevich, Weimer, Smola, Li. Parallelized stochastic gradient descent. NIPS 2010.

McMahan, Moore, Ramage, Hampson, Agüera y Arcas. Communication-efficient learning of deep
networks from decentralized data. AISTATS 2017.

Li, Sahu, Zaheer, Sanjabi, Talwalkar, Smith. Federated optimization in heterogeneous
networks. MLSys 2020.

Dai, Xie, He, Liang, Raj, Balcan, Song. Scalable kernel methods via doubly stochastic
gradients. NIPS 2014.

Dask Development Team. Dask: library for dynamic task scheduling, 2016. https://dask.org
"""
from lsl_lib.distributed._cluster import get_client, n_cores
from lsl_lib.distributed._dsg import (
    ParallelDoublyStochasticClassifier,
    ParallelDoublyStochasticRegressor,
)
from lsl_lib.distributed._out_of_core import OutOfCoreReport, fit_out_of_core
from lsl_lib.distributed._partitions import (
    is_dask_collection,
    partition_indices,
)
from lsl_lib.distributed._pegasos import ParallelPegasosClassifier, round_schedule

__all__ = [
    # estimators
    "ParallelPegasosClassifier", "ParallelDoublyStochasticClassifier",
    "ParallelDoublyStochasticRegressor",
    # out-of-core training
    "fit_out_of_core", "OutOfCoreReport",
    # the cluster and the partitions
    "get_client", "n_cores", "partition_indices", "round_schedule", "is_dask_collection",
]


def __dir__():
    return __all__
