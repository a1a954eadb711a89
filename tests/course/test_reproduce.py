"""benchmarks/reproduce.py: the README writer, the quick run, the papers' numbers against the
lecture notes, and the block-wise least squares against scikit-learn's Ridge on the whole
feature matrix."""
import math
import os
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from benchmarks import reproduce
from lsl_lib import papers
from lsl_lib.datasets import shared_data_dir
from lsl_lib.random_features import RandomFourierFeatures

SKIP_REASON = "set LSL_SHARED_DATA to the folder of the course's benchmark sets"


@pytest.fixture(scope="module")
def quick_rows():
    return reproduce.run(quick=True)


# --- the README writer ----------------------------------------------------------------

def _readme(tmp_path, middle="old table\n"):
    path = tmp_path / "README.md"
    head = "# Benchmarks\n\nprose above\n"
    tail = "\nprose below\n"
    path.write_text(f"{head}{reproduce.BEGIN}\n{middle}{reproduce.END}{tail}", encoding="utf-8")
    return path, head, tail


def test_write_readme_replaces_exactly_the_text_between_the_markers(tmp_path):
    path, head, tail = _readme(tmp_path)
    reproduce.write_readme("| new | table |\n", path)
    expected = f"{head}{reproduce.BEGIN}\n| new | table |\n{reproduce.END}{tail}"
    assert path.read_text(encoding="utf-8") == expected
    reproduce.write_readme("| new | table |", path)  # writing twice changes nothing more
    assert path.read_text(encoding="utf-8") == expected


@pytest.mark.parametrize("content", [
    "no markers at all\n",
    f"{reproduce.BEGIN}\nonly the first\n",
    f"only the second\n{reproduce.END}\n",
    f"{reproduce.END}\nreversed\n{reproduce.BEGIN}\n",
    f"{reproduce.BEGIN}\n{reproduce.BEGIN}\ntwice\n{reproduce.END}\n",
])
def test_write_readme_refuses_a_file_without_its_markers(tmp_path, content):
    path = tmp_path / "README.md"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match="reproduce.py writes this table: begin"):
        reproduce.write_readme("table", path)
    assert path.read_text(encoding="utf-8") == content  # untouched


def test_benchmarks_readme_holds_the_markers_once():
    text = reproduce.README.read_text(encoding="utf-8")
    assert text.count(reproduce.BEGIN) == 1 and text.count(reproduce.END) == 1
    assert text.index(reproduce.BEGIN) < text.index(reproduce.END)


@pytest.mark.shared_data(required=False)
def test_quick_run_is_printed_not_written_unless_asked(tmp_path, monkeypatch, quick_rows, capsys):
    path, _, _ = _readme(tmp_path)
    before = path.read_text(encoding="utf-8")
    results = tmp_path / "budgeted_results.csv"
    monkeypatch.setattr(reproduce, "README", path)
    monkeypatch.setattr(reproduce, "RESULTS_FILE", results)
    monkeypatch.setattr(reproduce, "run", lambda quick, only: quick_rows)
    assert reproduce.main(["--quick"]) == 0
    assert path.read_text(encoding="utf-8") == before and not results.exists()
    assert reproduce.main(["--quick", "--write"]) == 0
    written = path.read_text(encoding="utf-8")
    assert reproduce.format_table(quick_rows) in written
    out = capsys.readouterr().out
    assert "| paper | task |" in out and "| data | method (the notes' column) |" in out
    # the BudgetedSVM table: its own markers (a section appended when they were missing)
    budgeted = [r for r in quick_rows if r["group"] == "budgeted"]
    assert written.count(reproduce.BUDGETED_BEGIN) == 1
    assert reproduce.format_budgeted_table(budgeted) in written
    assert reproduce.format_table(quick_rows).count("\n") == 1 + sum(
        r["group"] != "budgeted" for r in quick_rows)
    # and the rows the lecture prints, labelled with the command that produced them
    rows = papers.read_budgeted_results(results)
    assert len(rows) == len(budgeted)
    assert {r["command"] for r in rows} == {"python -m benchmarks.reproduce --quick --write"}
    for row, r in zip(rows, budgeted, strict=True):
        assert row["method"] == r["method"] and row["data"] in r["task"]
        assert row["error_mean"] == pytest.approx(r["error"], abs=0.005)
    # writing again with only the budgeted group leaves the main table alone
    main_table = written[written.index(reproduce.BEGIN):written.index(reproduce.END)]
    monkeypatch.setattr(reproduce, "run", lambda quick, only: budgeted)
    assert reproduce.main(["--quick", "--write", "budgeted"]) == 0
    again = path.read_text(encoding="utf-8")
    assert again[again.index(reproduce.BEGIN):again.index(reproduce.END)] == main_table
    assert "`python -m benchmarks.reproduce --quick budgeted`" in again


# --- the papers' numbers ----------------------------------------------------------------

def _without_data(rows):
    """The groups of the quick run that could not have their data (no shared sets, no
    network for the fetchers): their rows say why, with no errors and no papers' numbers."""
    return sorted({r["group"] for r in rows if r["error"] is None})


@pytest.mark.shared_data(required=False)
def test_the_table_prints_the_papers_numbers(quick_rows):
    if _without_data(quick_rows):
        pytest.skip(f"{SKIP_REASON}: no data for {', '.join(_without_data(quick_rows))}")
    table = reproduce.format_table(quick_rows)
    for key, value in papers.PAPER_ERRORS.items():
        text = f"{value:.3f}" if key == "usps_kernel_pegasos" else f"{value:.1f}"
        assert f"| {text} % |" in table, key
    paper_rows = {(r["group"], r["paper_error"]) for r in quick_rows if r["paper_error"]}
    assert {("adult", 14.9), ("cpu", 3.6), ("forest", 11.6), ("forest", 2.2),
            ("pegasos", 23.2), ("usps", 0.457)} <= paper_rows


def _notes():
    """The lecture notes' text (notes 000, ``000_*.txt``) from the folder ``LSL_LECTURE_NOTES``
    names, by default ``lecture-notes`` beside the shared data sets' folder (``LSL_SHARED_DATA``).
    Skips without them; fails when ``LSL_LECTURE_NOTES`` names a folder without them."""
    folder = os.environ.get("LSL_LECTURE_NOTES")
    if folder:
        files = sorted(Path(folder).glob("000_*.txt"))
        if not files:
            pytest.fail(f"LSL_LECTURE_NOTES={folder}: no lecture notes 000_*.txt there")
    else:
        data = shared_data_dir()
        default = None if data is None else data.parent / "lecture-notes"
        files = sorted(default.glob("000_*.txt")) if default is not None else []
        if not files:
            pytest.skip("set LSL_LECTURE_NOTES to the folder of the lecture notes (000_*.txt); "
                        "by default, lecture-notes beside the folder LSL_SHARED_DATA names"
                        + ("" if default is None else f" ({default})"))
    return files[0].read_text(encoding="utf-8")


def _notes_row(notes, label):
    """The cells of the notes' table row whose first cell starts with ``label``."""
    rows = [line.split("\t") for line in notes.splitlines() if line.startswith(label)]
    assert len(rows) == 1, label
    return rows[0]


@pytest.mark.shared_data(required=False)
def test_paper_errors_are_the_notes():
    """Each error of lsl_lib.papers.PAPER_ERRORS is the cell the notes print: Rahimi & Recht's
    Table 1 (Fourier + LS, Binning + LS columns) and the Pegasos paper's tables (Pegasos'
    column; the notes' text spells cov1 "covl")."""
    notes = _notes()
    cells = {"adult_rff": ("Adult classification", 1), "cpu_rff": ("CPU regression", 1),
             "forest_rff": ("Forest Cover classification", 1),
             "forest_binning": ("Forest Cover classification", 2),
             "cov1_pegasos": ("covl\t", 1), "usps_kernel_pegasos": ("USPS\t", 1)}
    assert set(cells) == set(papers.PAPER_ERRORS)
    for key, (label, column) in cells.items():
        cell = _notes_row(notes, label)[column]
        assert f"{papers.PAPER_ERRORS[key]:g}%" in cell, (key, cell)


@pytest.mark.shared_data(required=False)
def test_budgeted_tables_are_the_notes_verbatim():
    """Every cell of the complexity table (LaTeX) and of the results table (a row of the
    notes is the data set, the five errors, the five times, tab-separated)."""
    notes = _notes()
    for method, cells in papers.NOTES_COMPLEXITY.items():
        assert "\t".join((method, *cells)) in notes, method
    for name, (errors, times) in papers.NOTES_RESULTS.items():
        assert "\t".join((name, *errors, *times)) in notes, name


def test_budgeted_paper_results_parse_the_notes_cells():
    assert papers.latex_to_text(papers.NOTES_COMPLEXITY["BSGD"][0]) == "O(N·(C + S)·B)"
    paper = papers.PAPER_RESULTS
    assert (paper[("a9a", "AMM online")]["error"], paper[("a9a", "AMM online")]["sd"]) == \
        (16.44, 0.23)
    assert paper[("ijcnn1", "RBF SVM")]["error"] == 1.31
    assert paper[("ijcnn1", "Poly2 SVM")]["seconds"] == 11.0
    assert paper[("ijcnn1", "AMM batch")]["error"] == 2.40


def test_budgeted_settings_are_chosen_on_held_out_training_rows_only():
    """The validation split holds out 20 % of the training rows (disjoint, all covered, the
    same split every time), and the candidate of least mean validation error over the seeds
    wins: the test rows are never an argument."""
    budgeted = reproduce
    fit_rows, val_rows = budgeted._validation_split(1000)
    assert len(val_rows) == 200 and len(np.intersect1d(fit_rows, val_rows)) == 0
    assert sorted(np.concatenate([fit_rows, val_rows])) == list(range(1000))
    np.testing.assert_array_equal(budgeted._validation_split(1000)[1], val_rows)

    class Constant:  # predicts +1 where x > threshold; seeds shift nothing but are used
        def __init__(self, threshold, seed):
            self.threshold, self.seed = threshold, seed
            self.seen = None

        def fit(self, X, y):
            self.seen = len(y)
            return self

        def predict(self, X):
            return np.where(X[:, 0] > self.threshold, 1.0, -1.0)

    X = np.linspace(-1, 1, 1000)[:, None]
    y = np.where(X[:, 0] > 0.3, 1.0, -1.0)
    made = []

    def make(threshold, seed):
        made.append(Constant(threshold, seed))
        return made[-1]

    best, validation = budgeted._choose((-0.5, 0.3, 0.8), make, X, y, fit_rows, val_rows, (0, 1))
    assert best == 0.3 and validation[0.3] == 0.0 and validation[-0.5] > validation[0.8] > 0
    assert len(made) == 6 and all(m.seen == 800 for m in made)


def test_budgeted_results_file_round_trip(tmp_path):
    rows = [dict(data="a9a", method="AMM batch", lsl_model="AMM(...)", settings="λ = 1e-3, ...",
                 error_mean=15.123, error_sd=0.0456, runs=5, fit_seconds=1.23456,
                 model_size=21.4, n_train=32561, n_test=16281, validation={}, errors=[])]
    path = reproduce.write_results_file(rows, "python x.py", tmp_path / "r.csv")
    (row,) = papers.read_budgeted_results(path)
    assert row["error_mean"] == 15.12 and row["error_sd"] == 0.05 and row["runs"] == 5
    assert row["fit_seconds"] == 1.23 and row["model_size"] == 21.4
    assert row["command"] == "python x.py" and len(row["date"]) == 10
    assert row["settings"] == "λ = 1e-3, ..."


# --- the quick run ----------------------------------------------------------------------

@pytest.mark.shared_data(required=False)
def test_quick_run_gives_every_row_finite_numbers(quick_rows):
    groups = {r["group"] for r in quick_rows}
    assert groups == set(reproduce.ROWS)
    for r in quick_rows:
        if r["error"] is None:  # a group whose data could not be had, with its reason
            assert shared_data_dir() is None, r
            assert r["note"].startswith("data unavailable: "), r
            continue
        assert math.isfinite(r["error"]) and 0.0 <= r["error"] <= 100.0, r
        assert math.isfinite(r["seconds"]) and r["seconds"] >= 0.0, r
        assert r["data"] and r["method"] and r["task"], r
    if "usps" not in _without_data(quick_rows):
        methods = [r["method"] for r in quick_rows if r["group"] == "usps"]
        assert any(m.startswith("kernel Pegasos") for m in methods)
        assert any(m.startswith("doubly stochastic") for m in methods)


@pytest.mark.shared_data(required=False)
def test_quick_run_says_where_its_data_came_from(quick_rows):
    for r in quick_rows:
        if r["error"] is not None and r["group"] != "budgeted":
            assert ("shared data" in r["data"]) == (shared_data_dir() is not None), r


# --- the block-wise least squares --------------------------------------------------------

@pytest.mark.parametrize("task", ["classification", "regression"])
def test_rff_least_squares_in_blocks_equals_ridge_on_the_whole_matrix(monkeypatch, task):
    """Normal equations accumulated in blocks of 37 rows (sizes and the validation split
    falling inside blocks) give scikit-learn's Ridge (unpenalised intercept) on Z."""
    rng = np.random.default_rng(0)
    X, X_test = rng.normal(size=(300, 5)), rng.normal(size=(120, 5))
    signal = lambda Z: np.sin(Z[:, 0]) + Z[:, 1] ** 2  # noqa: E731
    if task == "classification":
        t, t_test = np.sign(signal(X) - 1.0), np.sign(signal(X_test) - 1.0)
    else:
        t, t_test = 5.0 + signal(X), 5.0 + signal(X_test)
    monkeypatch.setattr(reproduce, "_block_rows", lambda n_components: 37)
    alphas = (1e-3, 1.0)
    result = reproduce.rff_least_squares(X, t, X_test, t_test, n_components=40, gamma=0.5,
                                         alphas=alphas, sizes=(100, 300), n_val=60, task=task)
    features = RandomFourierFeatures(n_components=40, gamma=0.5, random_state=0).fit(X)
    Z, Z_test = features.transform(X), features.transform(X_test)
    # the validation errors: fit on the first 240 rows, scored on the last 60
    for alpha in alphas:
        ridge = Ridge(alpha=alpha).fit(Z[:240], t[:240])
        expected = reproduce._error(ridge.predict(Z[240:]), t[240:], task)
        assert result["validation"][alpha] == pytest.approx(expected, rel=1e-9)
    assert result["alpha"] == min(alphas, key=result["validation"].get)
    for n in (100, 300):
        ridge = Ridge(alpha=result["alpha"]).fit(Z[:n], t[:n])
        expected = reproduce._error(ridge.predict(Z_test), t_test, task)
        assert result["sizes"][n]["error"] == pytest.approx(expected, rel=1e-9)
        assert result["sizes"][n]["seconds"] >= 0.0


def test_error_measures():
    t = np.array([3.0, 4.0])
    # regression: RMS error normalised by the norm of the truth, in %
    assert reproduce._error(np.array([3.0, 4.0]), t, "regression") == 0.0
    assert reproduce._error(np.array([0.0, 4.0]), t, "regression") == pytest.approx(60.0)
    # classification: the sign of the score against labels ±1, in %
    assert reproduce._error(np.array([0.5, -2.0, 0.0, -0.1]), np.array([1.0, 1.0, 1.0, -1.0]),
                            "classification") == pytest.approx(25.0)


def test_table_escapes_a_pipe_within_a_cell():
    row = reproduce._row("cpu", "a paper", "a task", "a method", 3.6, 3.4, 0.5, "data",
                         "median |ŷ − y| 1.6")
    line = reproduce.format_table([row]).splitlines()[-1]
    assert line.replace("\\|", "").count("|") == 9  # the borders of eight cells
    assert "median \\|ŷ − y\\| 1.6" in line
