"""The shared machinery: sampling schemes, random state, backend switch, traces."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from lsl_lib._core.backend import numba_available, resolve_backend
from lsl_lib._core.random import check_random_state
from lsl_lib._core.rows import (
    gather_dense_rows_numba,
    row_axpy_numba,
    row_clear_numba,
    row_column_numba,
    row_dot_numba,
    row_span_numba,
    row_to_dense_numba,
    row_view,
)
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.scores import labels_from_scores, one_vs_rest_probabilities
from lsl_lib._core.trace import Trace
from lsl_lib._core.features import check_block_features


@pytest.mark.parametrize("sampling", ["iid", "permutation", "reshuffle"])
def test_sample_indices_shape_range_and_reproducibility(sampling):
    a = sample_indices(50, 30, 4, sampling, np.random.default_rng(3))
    b = sample_indices(50, 30, 4, sampling, np.random.default_rng(3))
    c = sample_indices(50, 30, 4, sampling, np.random.default_rng(4))
    assert a.shape == (30, 4) and a.dtype == np.int64
    assert a.min() >= 0 and a.max() < 50
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_permutation_cycles_one_fixed_order():
    flat = sample_indices(10, 7, 3, "permutation", np.random.default_rng(0)).ravel()
    first, second = flat[:10], flat[10:20]
    assert sorted(first) == list(range(10))
    np.testing.assert_array_equal(first, second)


def test_reshuffle_draws_a_new_permutation_each_epoch():
    flat = sample_indices(10, 10, 3, "reshuffle", np.random.default_rng(0)).ravel()
    epochs = flat[:10], flat[10:20], flat[20:30]
    for epoch in epochs:
        assert sorted(epoch) == list(range(10))
    assert not np.array_equal(epochs[0], epochs[1])


def test_iid_samples_with_replacement():
    flat = sample_indices(10, 100, 1, "iid", np.random.default_rng(0)).ravel()
    assert len(np.unique(flat[:10])) < 10  # repeats within an epoch (prob. 1 - 10!/10^10)
    counts = np.bincount(flat, minlength=10)
    assert counts.min() > 0


def test_unknown_sampling_scheme_is_named():
    with pytest.raises(ValueError, match="sampling"):
        sample_indices(10, 5, 1, "cyclic", np.random.default_rng(0))


def test_check_random_state_accepts_int_none_and_generator():
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    assert check_random_state(5).integers(1000) == np.random.default_rng(5).integers(1000)
    assert isinstance(check_random_state(None), np.random.Generator)
    with pytest.raises(TypeError, match="random_state"):
        check_random_state("seed")
    with pytest.raises(ValueError, match="random_state"):
        check_random_state(-1)


def test_resolve_backend(monkeypatch):
    assert resolve_backend("numpy") == "numpy"
    with pytest.raises(ValueError, match="backend"):
        resolve_backend("cython")
    monkeypatch.setenv("LSL_NUMBA", "0")
    assert not numba_available()
    assert resolve_backend("auto") == "numpy"
    with pytest.raises(ImportError, match="numba"):
        resolve_backend("numba")


def test_trace_columns():
    trace = Trace()
    trace.record(iteration=0, objective=1.0)
    trace.record(iteration=5, objective=0.5)
    history = trace.history()
    np.testing.assert_array_equal(history["iteration"], [0, 5])
    np.testing.assert_array_equal(history["objective"], [1.0, 0.5])


def test_import_compiles_nothing_and_loads_no_numba_or_matplotlib():
    code = (
        "import sys, lsl_lib, lsl_lib.pegasos, lsl_lib.losses, lsl_lib.datasets, lsl_lib.kernels\n"
        "import lsl_lib.kernel_pegasos, lsl_lib.online_kernel, lsl_lib.stochastic_gradient\n"
        "import lsl_lib.coordinate_descent\n"
        "print(sorted(m for m in ('numba', 'matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "LSL_NUMBA": "1"}, check=True)
    assert out.stdout.strip() == "[]"


def test_block_features_need_two_features():
    check_block_features(2, "ORF")
    with pytest.raises(ValueError, match="ORF needs X with at least 2 features.*n_features=1"):
        check_block_features(1, "ORF")


def test_every_topic_module_is_a_lazy_submodule_of_lsl_lib():
    import pathlib

    import lsl_lib
    root = pathlib.Path(lsl_lib.__file__).parent
    topics = sorted([p.stem for p in root.glob("*.py")]  # a module, or a package of several files
                    + [p.parent.name for p in root.glob("*/__init__.py")])
    topics = [name for name in topics if not name.startswith("_")]
    assert sorted(lsl_lib.__all__) == topics
    for name in topics:
        assert getattr(lsl_lib, name).__name__ == f"lsl_lib.{name}"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = lsl_lib.nothing


# ---------------------------------------------------------------- scores

CLASSES = np.array(["no", "yes", "maybe"])


def test_binary_scores_threshold_at_zero_in_either_shape():
    s = np.array([-2.0, 0.0, 0.5])
    expected = np.array(["no", "no", "yes"])  # a zero score is classes[0]
    np.testing.assert_array_equal(labels_from_scores(s, CLASSES[:2]), expected)
    np.testing.assert_array_equal(labels_from_scores(s[:, None], CLASSES[:2]), expected)


def test_multiclass_scores_take_the_largest():
    s = np.array([[0.1, 0.3, -1.0], [2.0, 1.0, 3.0]])
    np.testing.assert_array_equal(labels_from_scores(s, CLASSES), ["yes", "maybe"])


def test_binary_probabilities_are_the_sigmoid_of_the_score():
    s = np.array([-3.0, 0.0, 40.0])
    P = one_vs_rest_probabilities(s)
    np.testing.assert_allclose(P[:, 1], expit(s))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_one_vs_rest_probabilities_are_normalised_sigmoids_ranked_as_the_scores():
    s = np.random.default_rng(0).normal(size=(20, 4)) * 3
    P = one_vs_rest_probabilities(s)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P, expit(s) / expit(s).sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(P.argmax(axis=1), s.argmax(axis=1))


# --- the one run loop (lsl_lib._core.run_loop) -----------------------------------------

import signal  # noqa: E402

import lsl_lib._core.run_loop as run_loop  # noqa: E402
from lsl_lib._core.run_loop import run_chunks, unfitted_on_interrupt  # noqa: E402


def _run(n_units, record_every=None, **kwargs):
    chunks, records = [], []
    trace = Trace()
    done = run_chunks(trace, n_units, lambda a, b: chunks.append((a, b)),
                      record_every=record_every, record=lambda: records.append(len(chunks)),
                      **kwargs)
    return done, chunks, records


@pytest.mark.parametrize("record_every", [None, 1, 7, 100])
def test_run_chunks_covers_every_unit_once_and_records_on_the_boundaries(record_every):
    done, chunks, records = _run(50, record_every)
    assert done == 50
    assert chunks[0] == (0, 1) and chunks[-1][1] == 50
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(chunks, chunks[1:], strict=False))
    if record_every is None:
        assert records == []
    else:  # at 0, at every multiple of record_every, and at the end
        ends = [0] + [b for _, b in chunks if b % record_every == 0 or b == 50]
        assert len(records) == len(ends)
        assert all(b % record_every == 0 for _, b in chunks[:-1]) or record_every > 1


def test_run_chunks_grow_at_most_eightfold_and_shrink_to_the_target(monkeypatch):
    _, chunks, _ = _run(10_000)  # chunks far below CHUNK_SECONDS: eightfold growth
    sizes = [b - a for a, b in chunks]
    assert run_loop.CHUNK_GROWTH == 8 and sizes == [1, 8, 64, 512, 4096, 10_000 - 4681]
    assert all(b <= 8 * a for a, b in zip(sizes, sizes[1:-1], strict=False))
    monkeypatch.setattr(run_loop, "CHUNK_SECONDS", 0.0)  # any chunk is too long: one unit each
    _, chunks, _ = _run(20)
    assert [b - a for a, b in chunks] == [1] * 20


def test_run_chunks_stops_when_the_step_says_converged():
    trace, seen = Trace(), []

    def step(a, b):
        seen.append(b)
        return b >= 6

    # chunks (0, 1), (1, 5), (5, 10): the third says it converged
    assert run_chunks(trace, 100, step, record_every=5, record=lambda: seen.append("r")) == 10
    assert seen == ["r", 1, 5, "r", 10, "r"]


@pytest.mark.parametrize("values", [[1.0, 2.0, np.inf], [1.0, np.nan], [1e-3, 1.0, 2e9]])
def test_run_chunks_names_divergence(values):
    sizes = iter(values)
    with pytest.raises(ValueError, match="lower eta at unit"):
        run_chunks(Trace(), 100, lambda a, b: None, norm=lambda: next(sizes),
                   diverged=lambda unit: f"lower eta at unit {unit}")


def test_run_chunks_allows_growth_below_the_threshold():
    sizes = iter([1.0, 1e11, 9e11, 1e3] * 100)
    assert run_chunks(Trace(), 100, lambda a, b: None, norm=lambda: next(sizes),
                      diverged=str) == 100


@pytest.fixture
def interactive_sigint():
    """SIGINT raising KeyboardInterrupt, as in an interactive Python, for the test (a test
    session run as a background job of a shell script starts with SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_sigint_ends_the_running_chunk_then_interrupts(interactive_sigint):
    chunks = []

    def step(a, b):
        if len(chunks) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # arrives inside the chunk ...
        chunks.append((a, b))  # ... which still ends

    with pytest.raises(KeyboardInterrupt):
        run_chunks(Trace(), 10**6, step)
    assert len(chunks) == 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_sigint_interrupts_at_once(interactive_sigint):
    chunks = []

    def step(a, b):
        chunks.append((a, b))
        if len(chunks) == 2:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
            chunks.append("not reached")

    with pytest.raises(KeyboardInterrupt):
        run_chunks(Trace(), 10**6, step)
    assert chunks[-1] != "not reached"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_progress_bar_shows_after_its_delay(monkeypatch, capsys):
    monkeypatch.setattr(run_loop, "PROGRESS_DELAY", 0.0)
    run_chunks(Trace(), 1000, lambda a, b: None, verbose=True, desc="solver")
    assert "solver" in capsys.readouterr().err
    run_chunks(Trace(), 1000, lambda a, b: None, verbose=False, desc="solver")
    assert "solver" not in capsys.readouterr().err


def test_unfitted_on_interrupt_removes_the_fitted_attributes():
    class Estimator:
        @unfitted_on_interrupt
        def fit(self):
            self.coef_, self._state, self.lam = 1.0, 2.0, 3.0
            raise KeyboardInterrupt

    estimator = Estimator()
    with pytest.raises(KeyboardInterrupt):
        estimator.fit()
    assert vars(estimator) == {"lam": 3.0}


# --- the one classifier face (lsl_lib._core.classifier) --------------------------------

from sklearn.base import BaseEstimator  # noqa: E402

from lsl_lib._core.classifier import ScoreClassifierMixin  # noqa: E402


class _Centroid(ScoreClassifierMixin, BaseEstimator):
    """A binary learner for the mixin's tests: the score is <x, m_1 - m_0> (weighted means)."""

    def __init__(self, class_weight=None):
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None):
        X, y = np.asarray(X, float), np.asarray(y)
        self.classes_ = np.unique(y)
        if self._needs_one_vs_rest(self.classes_):
            return self._fit_one_vs_rest(X, y, sample_weight)
        w = np.ones(len(y)) if sample_weight is None else sample_weight
        means = [np.average(X[y == c], axis=0, weights=w[y == c]) for c in self.classes_]
        self.coef_, self.intercept_ = (means[1] - means[0])[None], np.zeros(1)
        self.history_ = {"iteration": np.arange(3)}
        return self

    def _decision_scores(self, X):
        return (np.asarray(X) @ self.coef_.T + self.intercept_).squeeze(axis=1) \
            if self.coef_.shape[0] == 1 else np.asarray(X) @ self.coef_.T + self.intercept_


def test_one_vs_rest_fits_one_binary_model_per_class():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), np.repeat(["a", "b", "c"], 20)
    model = _Centroid().fit(X, y)
    assert model.decision_function(X).shape == (60, 3)
    for k, label in enumerate(model.classes_):
        binary = _Centroid().fit(X, y == label)
        np.testing.assert_array_equal(model.coef_[k], binary.coef_[0])
    np.testing.assert_array_equal(model.predict(X),
                                  model.classes_[np.argmax(model.decision_function(X), axis=1)])
    assert model.history_["iteration"].shape == (3, 3)
    assert model.__sklearn_tags__().classifier_tags.multi_class


def test_one_vs_rest_weights_the_positive_class_as_liblinear():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 2)), np.repeat([0, 1, 2], 10)
    model = _Centroid(class_weight={1: 5.0}).fit(X, y, sample_weight=np.arange(1.0, 31.0))
    weight = np.arange(1.0, 31.0) * np.where(y == 1, 5.0, 1.0)
    np.testing.assert_allclose(model.coef_[1], _Centroid().fit(X, y == 1, weight).coef_[0])
    np.testing.assert_allclose(model.coef_[0],  # class 0's problem: class 1 is a negative, weight 1
                               _Centroid().fit(X, y == 0, np.arange(1.0, 31.0)).coef_[0])


def test_no_predict_proba_without_a_probability_model():
    assert not hasattr(_Centroid(), "predict_proba")


def test_balanced_one_vs_rest_weights_count_the_sample_weights():
    from sklearn.utils.class_weight import compute_class_weight

    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(40, 2)), np.repeat([0, 1, 2, 2], 10)
    w = rng.uniform(0.5, 2.0, 40)
    model = _Centroid(class_weight="balanced").fit(X, y, sample_weight=w)
    balanced = compute_class_weight("balanced", classes=np.arange(3), y=y, sample_weight=w)
    expected = _Centroid().fit(X, y == 2, w * np.where(y == 2, balanced[2], 1.0))
    np.testing.assert_allclose(model.coef_[2], expected.coef_[0])


# ---------------------------------------------------------------- cos and sin of the compiled paths

from lsl_lib._core.trig import REDUCTION_LIMIT, TILE, cos_scaled_numba, cos_sin_scaled_numba  # noqa: E402


def _arguments():
    rng = np.random.default_rng(5)
    return np.concatenate([rng.normal(scale=s, size=20_000) for s in (1e-3, 1.0, 30.0, 1e4)]
                          + [rng.uniform(-1, 1, 20_000) * REDUCTION_LIMIT,
                             np.arange(-400, 400) * (np.pi / 4),  # quadrants' ends, zeros
                             [0.0, -0.0, 1e-300, 1e-8]])


def test_compiled_cos_sin_are_the_c_librarys_to_2_ulp():
    """fdlibm's polynomials after a three-part reduction by pi/2, against numpy's cos and
    sin: 2 ulp of the result, or 1e-30 next to their zeros (the reduction's error)."""
    t = _arguments()
    c, s, c_only = np.empty_like(t), np.empty_like(t), np.empty_like(t)
    cos_sin_scaled_numba(t, 1.0, c, s)
    cos_scaled_numba(t, 1.0, c_only)
    for ours, theirs in ((c, np.cos(t)), (s, np.sin(t)), (c_only, np.cos(t))):
        assert np.all(np.abs(ours - theirs) <= np.maximum(2 * np.spacing(np.abs(theirs)), 1e-30))
    np.testing.assert_array_equal(c_only, c)
    c3, s3 = np.empty_like(t), np.empty_like(t)
    cos_sin_scaled_numba(t, 3.0, c3, s3)
    np.testing.assert_array_equal(c3, 3.0 * c)  # the scale is one product
    np.testing.assert_array_equal(s3, 3.0 * s)


def test_compiled_cos_sin_in_place_and_beyond_the_reduction():
    """An output may be the input (the loops copy a tile of it first), any length, and an
    argument beyond the reduction's limit sends the whole call through the C library's
    cos and sin there (exactly numpy's) and the polynomial elsewhere."""
    t = _arguments()[: 3 * TILE + 7]
    expected_c, expected_s = np.empty_like(t), np.empty_like(t)
    cos_sin_scaled_numba(t, 2.0, expected_c, expected_s)
    v = t.copy()
    cos_scaled_numba(v, 2.0, v)
    np.testing.assert_array_equal(v, expected_c)
    c, v = np.empty_like(t), t.copy()
    cos_sin_scaled_numba(v, 2.0, c, v)
    np.testing.assert_array_equal(c, expected_c)
    np.testing.assert_array_equal(v, expected_s)
    big = np.array([1.5 * REDUCTION_LIMIT, -1e12, 3e300, 0.5, -30.0])
    c, s, c_only = np.empty_like(big), np.empty_like(big), big.copy()
    cos_sin_scaled_numba(big, 2.0, c, s)
    cos_scaled_numba(c_only, 2.0, c_only)
    np.testing.assert_array_equal(c[:3], 2.0 * np.cos(big[:3]))
    np.testing.assert_array_equal(s[:3], 2.0 * np.sin(big[:3]))
    np.testing.assert_array_equal(c_only, c)
    np.testing.assert_allclose(c[3:], 2.0 * np.cos(big[3:]), rtol=4e-16, atol=0)
    np.testing.assert_allclose(s[3:], 2.0 * np.sin(big[3:]), rtol=4e-16, atol=0)


def test_row_view_of_dense_and_csr_x():
    X = np.arange(12.0).reshape(3, 4)
    data, indices, indptr = row_view(X.astype(np.float32))
    assert data.dtype == np.float64 and data.shape == (12,) and indptr.shape == (0,)
    np.testing.assert_array_equal(data[4:8], X[1])
    A = sp.random(20, 7, density=0.4, random_state=2, format="csr")
    wide = A.copy()  # 64-bit indices, as load_svmlight_file gives them
    wide.indices, wide.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    data, indices, indptr = row_view(wide)
    assert indices.dtype == np.uint32 and indptr.dtype == np.uint32
    np.testing.assert_array_equal(sp.csr_matrix((data, indices, indptr), A.shape).toarray(),
                                  A.toarray())
    duplicated = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]),
                                np.array([0, 3, 3])), shape=(2, 4))  # column 2 twice in row 0
    data, indices, indptr = row_view(duplicated)
    np.testing.assert_array_equal(indices, [0, 2])  # canonical: sorted, summed
    np.testing.assert_array_equal(data, [2.0, 4.0])


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("sparse", [False, True])
def test_row_helpers_read_row_i(backend, sparse):
    if backend == "numba" and not numba_available():
        pytest.skip("numba is not available")
    keep = np.ones(9)
    keep[4] = 0.0  # an empty row
    X = (sp.diags(keep) @ sp.random(9, 6, density=0.5, random_state=1, format="csr")).toarray()
    view = row_view(sp.csr_matrix(X) if sparse else X)
    helpers = (row_dot_numba, row_axpy_numba, row_span_numba, row_column_numba,
               row_to_dense_numba, row_clear_numba, gather_dense_rows_numba)
    dot, axpy, span, column, to_dense, clear, gather = (
        f if backend == "numba" else f.py_func for f in helpers)
    v = np.random.default_rng(0).normal(size=6)
    buffer = np.zeros(6)
    for i in (0, 4, 8):
        np.testing.assert_allclose(dot(*view, i, v), X[i] @ v, rtol=1e-14)
        u = v.copy()
        axpy(*view, i, 2.5, u)
        np.testing.assert_allclose(u, v + 2.5 * X[i], rtol=1e-14)
        start, stop = span(view[2], 6, i)
        row = np.zeros(6)
        for p in range(start, stop):
            row[column(view[1], view[2], p, start)] += view[0][p]
        np.testing.assert_array_equal(row, X[i])
        np.testing.assert_array_equal(to_dense(*view, i, buffer), X[i])
        clear(view[1], view[2], i, buffer)
        assert not buffer.any()
    gathered = gather(view[0], view[2], 6, np.array([8, 0]))
    np.testing.assert_array_equal(gathered, np.empty((0, 6)) if sparse else X[[8, 0]])
