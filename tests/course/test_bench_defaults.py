"""benchmarks/bench_defaults.py: its estimator list, its table writer, and the child process
that fits one row under a time limit (Ctrl-C, then a kill). No shared data: a tiny
synthetic set and estimators that sleep."""
import pickle
import sys
import textwrap
import time

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from benchmarks import bench_defaults

SLEEPY = textwrap.dedent('''
    """Estimators for the time-limit test: a fit that sleeps, and one that ignores Ctrl-C."""
    import signal
    import time

    from sklearn.base import BaseEstimator, ClassifierMixin


    class Sleeper(ClassifierMixin, BaseEstimator):
        def __init__(self, seconds=60.0, ignore_sigint=False):
            self.seconds = seconds
            self.ignore_sigint = ignore_sigint

        def fit(self, X, y):
            if self.ignore_sigint:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            time.sleep(self.seconds)
            return self
''')


@pytest.fixture
def data_path(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(int)
    path = tmp_path / "tiny.pkl"
    with open(path, "wb") as f:
        pickle.dump((X[:80], X[80:], y[:80], y[80:]), f)
    return path


@pytest.fixture
def sleepy(tmp_path, monkeypatch):
    """The Sleeper class, from a module the child can import (it gets the parent's path)."""
    (tmp_path / "sleepy_estimators.py").write_text(SLEEPY)
    monkeypatch.syspath_prepend(str(tmp_path))
    import sleepy_estimators
    return sleepy_estimators.Sleeper


def test_every_lsl_estimator_has_a_peer_and_a_kind():
    names = {cls.__name__ for cls in bench_defaults.lsl_estimators()}
    assert names == set(bench_defaults.PEER_OF)  # none forgotten, none stale
    assert set(bench_defaults.PEER_OF.values()) <= set(bench_defaults.PEERS)
    assert {"PegasosClassifier", "Fastfood", "LassoCD", "ParallelPegasosClassifier"} <= names
    kinds = {cls.__name__: bench_defaults.kind(cls) for cls in bench_defaults.lsl_estimators()}
    assert kinds["PegasosRegressor"] == "regressor" and kinds["Nystroem"] == "transformer"
    assert kinds["BudgetedKernelSGDClassifier"] == "classifier"


def test_models_are_the_defaults_seeded_and_scaled_on_request():
    from lsl_lib.fastfood import Fastfood
    from lsl_lib.pegasos import PegasosRegressor
    model = bench_defaults.lsl_model(Fastfood)
    assert [type(step).__name__ for step in model] == ["Fastfood", "LinearSVC"]
    assert model[0].get_params() == Fastfood(random_state=0).get_params()
    assert model[1].random_state == 0
    scaled = bench_defaults.lsl_model(PegasosRegressor, scaled=True)
    assert [type(step).__name__ for step in scaled] == ["StandardScaler", "PegasosRegressor"]
    peer = bench_defaults.peer_model("RBFSampler + LinearSVC")
    assert peer[0].random_state == 0 and peer[0].gamma == 1.0  # RBFSampler's default


def test_jobs_run_regressors_raw_and_scaled():
    from lsl_lib.elm import ExtremeLearningMachineClassifier, ExtremeLearningMachineRegressor
    todo = bench_defaults.jobs([ExtremeLearningMachineClassifier,
                                ExtremeLearningMachineRegressor], ("a9a", "usps", "cpu_act"))
    assert [(cls.__name__[-10:], name, scaled) for cls, name, scaled in todo] == [
        ("Classifier", "a9a", False), ("Classifier", "usps", False),
        ("eRegressor", "cpu_act", False), ("eRegressor", "cpu_act", True)]
    quick = bench_defaults.jobs([ExtremeLearningMachineRegressor], ("cpu_act",), quick=True)
    assert [scaled for _, _, scaled in quick] == [True]


def test_a_fit_in_its_child_scores_the_test_rows(data_path, tmp_path):
    result = bench_defaults.run_job(LogisticRegression(), data_path, tmp_path, limit=60)
    with open(data_path, "rb") as f:
        X_train, X_test, y_train, y_test = pickle.load(f)
    expected = LogisticRegression().fit(X_train, y_train).score(X_test, y_test)
    assert result["status"] == "ok" and result["score"] == pytest.approx(expected, abs=1e-12)
    assert 0 < result["fit_seconds"] < result["seconds"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.pkl"]  # nothing left behind


def test_an_error_is_a_row(data_path, tmp_path):
    result = bench_defaults.run_job(LogisticRegression(C=-1.0), data_path, tmp_path, limit=60)
    assert result["status"] == "error" and result["score"] is None
    assert result["message"].startswith("InvalidParameterError: The 'C' parameter")


def test_a_sleeping_fit_is_stopped_by_ctrl_c_at_the_limit(sleepy, data_path, tmp_path):
    start = time.perf_counter()
    result = bench_defaults.run_job(sleepy(seconds=60), data_path, tmp_path, limit=3,
                                    grace=20)
    elapsed = time.perf_counter() - start
    assert result["status"] == "timeout"
    assert result["message"] == "TIMEOUT > 3 s (stopped by Ctrl-C)"
    assert 3 <= elapsed < 15  # SIGINT at 3 s ends the child at once, not after 60 s


def test_a_child_that_ignores_ctrl_c_is_killed(tmp_path):
    """A bare Python child (it starts in a fraction of a second, so SIGINT finds its
    handler set even on a busy machine) that ignores SIGINT: killed after the grace."""
    ready = tmp_path / "ready"
    code = ("import signal, time, pathlib; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            f"pathlib.Path({str(ready)!r}).touch(); time.sleep(60)")
    how, seconds, _ = bench_defaults.run_limited([sys.executable, "-c", code], limit=3,
                                                 grace=2)
    assert ready.is_file()  # SIGINT came after the handler was set
    assert how == "killed" and 5 <= seconds < 15


def test_a_killed_fit_is_a_timeout_row(sleepy, data_path, tmp_path, monkeypatch):
    monkeypatch.setattr(bench_defaults, "run_limited", lambda *args: ("killed", 5.2, ""))
    result = bench_defaults.run_job(sleepy(seconds=60, ignore_sigint=True), data_path,
                                    tmp_path, limit=3, grace=2)
    assert result["status"] == "timeout" and result["seconds"] == 5.2
    assert result["message"] == "TIMEOUT > 3 s (Ctrl-C ignored for 2 s, killed)"


def test_run_limited_reports_a_finished_child():
    how, seconds, stderr = bench_defaults.run_limited(
        [sys.executable, "-c", "import sys; sys.stderr.write('said')"], limit=30)
    assert how == "finished" and seconds < 30 and stderr == "said"


def _result(score, status="ok", message=""):
    return dict(status=status, score=score, fit_seconds=1.234 if score is not None else None,
                seconds=2.0, message=message)


def test_target_column():
    target = bench_defaults.target
    assert target("E", "a9a", False, _result(0.845), _result(0.85)) == "yes"  # 0.5 point
    assert target("E", "a9a", False, _result(0.83), _result(0.85)) == (
        "no: 2.0 points below the peer (reason not yet recorded)")
    assert target("E", "cpu", True, _result(0.70), _result(0.71)) == "yes"
    assert target("E", "cpu", True, _result(0.60), _result(0.71)).startswith(
        "no: R² 0.110 below the peer")
    timeout = _result(None, "timeout", "TIMEOUT > 150 s (stopped by Ctrl-C)")
    assert target("E", "a9a", False, timeout, _result(0.85)) == (
        "no: TIMEOUT > 150 s (stopped by Ctrl-C)")
    assert target("E", "a9a", False, _result(0.8), timeout).startswith("— (the peer: TIMEOUT")


def test_target_column_gives_a_recorded_reason(monkeypatch):
    monkeypatch.setitem(bench_defaults.REASONS, ("E", "usps"), "binary only")
    error = _result(None, "error", "ValueError: two classes")
    assert bench_defaults.target("E", "usps", False, error, _result(0.9)) == "no: binary only"


def test_table_rows_and_cells():
    rows = [dict(estimator="E", data="a9a", peer="LinearSVC", lsl=_result(0.8441),
                 peer_result=_result(0.85), regression=False, target="yes"),
            dict(estimator="F", data="cpu_act (scaled)", peer="Ridge",
                 lsl=_result(None, "timeout", "TIMEOUT > 150 s (stopped by Ctrl-C)"),
                 peer_result=_result(0.721), regression=True, target="no: a | b")]
    lines = bench_defaults.format_table(rows).splitlines()
    assert len(lines) == 4 and lines[1] == "|---|---|---|---|---|---|---|---|"
    assert lines[2] == "| E | a9a | 0.844 | 1.2 s | LinearSVC | 0.850 | 1.2 s | yes |"
    assert lines[3] == ("| F | cpu_act (scaled) | TIMEOUT > 150 s (stopped by Ctrl-C) | — | "
                        "Ridge | 0.721 | 1.2 s | no: a / b |")


def test_write_readme_replaces_between_the_markers_or_appends_them(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n\nsome text\n")
    bench_defaults.write_readme("first table", readme)
    first = readme.read_text()
    assert first == (f"# Benchmarks\n\nsome text\n\n{bench_defaults.SECTION}\n\n"
                     f"{bench_defaults.BEGIN}\nfirst table\n{bench_defaults.END}\n")
    readme.write_text(first + "\n## Later section\n")
    bench_defaults.write_readme("second\ntable\n", readme)
    assert readme.read_text() == first.replace("first table", "second\ntable") + (
        "\n## Later section\n")
    readme.write_text(f"text\n{bench_defaults.END}\n{bench_defaults.BEGIN}\n")
    with pytest.raises(ValueError, match="must hold the line"):
        bench_defaults.write_readme("t", readme)
    readme.write_text(f"text\n{bench_defaults.BEGIN}\n")
    with pytest.raises(ValueError, match="must hold the line"):
        bench_defaults.write_readme("t", readme)
