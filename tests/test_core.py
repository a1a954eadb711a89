"""The shared machinery: sampling schemes, random state, backend switch, traces."""
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.special import expit

from lsl_lib._core.backend import numba_available, resolve_backend
from lsl_lib._core.random import check_random_state
from lsl_lib._core.sampling import sample_indices
from lsl_lib._core.scores import labels_from_scores, one_vs_rest_probabilities
from lsl_lib._core.trace import Trace, chunk_bounds
from lsl_lib._core.validation import check_block_features


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


def test_chunk_bounds_cover_all_iterations():
    assert chunk_bounds(10, None) == [(0, 10)]
    assert chunk_bounds(10, 4) == [(0, 4), (4, 8), (8, 10)]


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
    topics = sorted(p.stem for p in pathlib.Path(lsl_lib.__file__).parent.glob("*.py")
                    if not p.stem.startswith("_"))
    assert sorted(lsl_lib.__all__) == topics
    for name in topics:
        assert getattr(lsl_lib, name).__name__ == f"lsl_lib.{name}"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        lsl_lib.nothing


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
