"""Extreme learning machines: the closed-form fit against scikit-learn's Ridge and hpelm.

- Timing: CPU seconds with one BLAS thread (``threadpoolctl``), the two sides run
  alternately, 7 times each after a warm-up; the ratios are of those pairs (min / median /
  max). CPU time because the machine these tables were made on was shared: there the
  wall-clock time of a run is mostly waiting for a core.
- Data: the covtype subsample ($LSL_SHARED_DATA; d = 54 in [0, 1], 7 classes; training rows
  from the start, the 20 000 last rows as the test set), or, when it is absent, a generated
  7-class problem of the same width (``make_classification``, seed 0); and a generated
  binary problem (``make_classification``, d = 20, seed 1) in every case.
- ELM: sigmoid nodes, C = 10, seed 0; L in {256, 1024}, in both shapes: N = 8 L rows (N >= L,
  the primal form, an L x L system) and N = L / 2 rows (N < L, the dual form, N x N).
- Row "solve": the same H (N x L, computed once) and the same ±1 codes T. Timed on the lsl
  side: ``output_weights(H, T, C)`` (the estimator's solve: HᵀH or HHᵀ, its diagonal
  shifted by 1/C, ``scipy.linalg.solve(assume_a='pos')``). Timed on the scikit-learn side:
  ``Ridge(alpha=1/C, fit_intercept=False).fit(H, T)`` (its 'auto' solver: Cholesky of the
  same system, the kernel form when N < L). Target: Ridge / ELM >= 1.
- Row "fit": ``ExtremeLearningMachineClassifier.fit(X, y)`` (validation, the ±1 codes, the
  random draw, H, the solve) against H computed by ``hidden_layer`` from the same weights
  followed by ``Ridge.fit(H, T)`` (the codes made beforehand, not timed). Report only.
- Test accuracy of the ELM and of the Ridge on the same H (the same model: they must
  agree), in the notes.
- hpelm (if installed; not a dependency): ``hpelm.ELM(d, m, norm=1/C, precision='double')``
  given the ELM's own weights and biases (``add_neurons(L, 'sigm', -W, -b)``: hpelm's
  'sigm' is :math:`1/(1 + e^{+(a^\top x + b)})`), timed from
  construction through ``train(X, T)``, against the ELM's full fit; the same model, so the
  test accuracies must agree. hpelm accumulates HᵀH batch by batch and always solves the
  L x L system, also when N < L. Also, not timed, hpelm with its own random neurons.
"""
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import Ridge
from sklearn.preprocessing import LabelBinarizer
from threadpoolctl import threadpool_limits

from benchmarks.common import progress, ratio_row
from lsl_lib.datasets import load_covtype, shared_data_dir
from lsl_lib.elm import ExtremeLearningMachineClassifier, hidden_layer, output_weights

C = 10.0
N_TEST = 20000

try:  # an optional peer, for this benchmark only
    import hpelm
except ImportError:  # pragma: no cover - depends on the machine
    hpelm = None


def datasets(quick):
    """``[(name, X, y, X_test, y_test)]``: covtype (or its generated stand-in), generated."""
    sets = []
    if shared_data_dir() is not None:
        X, y = load_covtype()
        sets.append(("covtype", X[:-N_TEST], y[:-N_TEST], X[-N_TEST:], y[-N_TEST:]))
    else:
        print("bench_elm: LSL_SHARED_DATA not set, covtype replaced by a generated 7-class set")
        X, y = make_classification(n_samples=40000, n_features=54, n_informative=20,
                                   n_classes=7, random_state=0)
        sets.append(("generated 7-class", X[:-N_TEST], y[:-N_TEST], X[-N_TEST:], y[-N_TEST:]))
    X, y = make_classification(n_samples=30000, n_features=20, n_informative=10,
                               random_state=1)
    sets.append(("generated binary", X[:-10000], y[:-10000], X[-10000:], y[-10000:]))
    if quick:
        sets = [(name, X[:2000], y[:2000], Xt[:2000], yt[:2000]) for name, X, y, Xt, yt in sets]
    return sets


def interleaved(peer, ours, repeats):
    """CPU seconds of ``peer()`` and of ``ours()`` with one BLAS thread, run alternately
    ``repeats`` times each after one warm-up run of both.

    CPU time of one thread, not wall-clock: both sides run the same BLAS and LAPACK
    routines, and on a machine shared with other jobs the wall-clock time of a run is
    mostly the time it waits for a core (ratios from 0.2 to 11 for the same pair of calls);
    its CPU time is the work it does.
    """
    with threadpool_limits(1):
        peer()
        ours()
        times = ([], [])
        for _ in range(repeats):
            for fit, out in zip((peer, ours), times, strict=True):
                start = time.process_time()
                fit()
                out.append(time.process_time() - start)
    return times


def _codes(y):
    """The ±1 one-vs-rest codes the classifier regresses (one column for two classes)."""
    return LabelBinarizer(neg_label=-1, pos_label=1).fit(y).transform(y).astype(np.float64)


def _accuracy(scores, classes, y):
    predicted = classes[(scores[:, 0] > 0).astype(int)] if scores.shape[1] == 1 \
        else classes[np.argmax(scores, axis=1)]
    return float(np.mean(predicted == y))


def run(quick=False):
    rows = []
    repeats = 1 if quick else 7
    for name, X_all, y_all, X_test, y_test in progress(datasets(quick), desc="ELM data"):
        for n_hidden in (64, 128) if quick else (256, 1024):
            for n in (8 * n_hidden, n_hidden // 2):
                X, y = X_all[:n], y_all[:n]
                T = _codes(y)
                model = ExtremeLearningMachineClassifier(n_hidden=n_hidden, C=C, random_state=0)

                def elm_fit(model=model, X=X, y=y):
                    return model.fit(X, y)

                elm_fit()
                W, b = model.input_weights_, model.biases_
                H = hidden_layer(X, W, b, "sigmoid")
                ridge = Ridge(alpha=1.0 / C, fit_intercept=False)
                shape = f"{name}, L={n_hidden}, N={n} ({model.solver_})"

                ridge_solve, elm_solve = interleaved(lambda ridge=ridge, H=H, T=T: ridge.fit(H, T),
                                                     lambda H=H, T=T: output_weights(H, T, C),
                                                     repeats)
                H_test = hidden_layer(X_test, W, b, "sigmoid")
                classes = model.classes_
                acc_ridge = _accuracy(ridge.fit(H, T).predict(H_test).reshape(len(X_test), -1),
                                      classes, y_test)
                acc_elm = model.score(X_test, y_test)
                rows.append(ratio_row(
                    f"Ridge / ELM, solve on the same H: {shape}", ridge_solve, elm_solve,
                    target=1.0,
                    note=f"d={X.shape[1]}, C={C:g}; median ELM solve "
                         f"{np.median(elm_solve) * 1e3:.1f} ms CPU; test accuracy ELM "
                         f"{acc_elm:.4f}, Ridge on H {acc_ridge:.4f}"))

                ridge_fit, elm_fits = interleaved(
                    lambda ridge=ridge, X=X, W=W, b=b, T=T: ridge.fit(
                        hidden_layer(X, W, b, "sigmoid"), T),
                    elm_fit, repeats)
                rows.append(ratio_row(f"hidden_layer + Ridge / ELM.fit: {shape}",
                                      ridge_fit, elm_fits,
                                      note=f"median ELM fit {np.median(elm_fits) * 1e3:.1f} "
                                           "ms CPU"))
                if hpelm is None:
                    continue

                def hpelm_fit(weights=-W, biases=-b, *, X=X, T=T, n_hidden=n_hidden):
                    peer = hpelm.ELM(X.shape[1], T.shape[1], norm=1.0 / C, precision="double")
                    # hpelm's 'sigm' is 1/(1 + exp(+(XW + b))): our node with W, b negated
                    peer.add_neurons(n_hidden, "sigm", weights, biases)
                    peer.train(X, T)
                    return peer

                hpelm_times, elm_fits = interleaved(hpelm_fit, elm_fit, repeats)
                acc_hpelm = _accuracy(hpelm_fit().predict(X_test), classes, y_test)
                acc_own = _accuracy(hpelm_fit(None, None).predict(X_test), classes, y_test)
                rows.append(ratio_row(
                    f"hpelm / ELM, fit with the same weights: {shape}", hpelm_times, elm_fits,
                    note=f"test accuracy ELM {acc_elm:.4f}, hpelm same weights "
                         f"{acc_hpelm:.4f}, hpelm own random neurons {acc_own:.4f}"))
    if hpelm is None:
        print("bench_elm: hpelm is not installed, its rows are skipped "
              "(python -m pip install hpelm)")
    return rows
