r"""Published results the lectures quote, with their citations.

The numbers and orders of the papers' tables that the lecture notes print, copied here once:
lecture 14 prints them, and ``benchmarks/reproduce.py`` sets lsl's measured rows beside them.
Every entry names its paper and table; the lecture notes (notes 000, F. Minhas, *Large Scale
Learning*) print each of these tables, and a test checks the entries against the notes' text
where the notes are at hand.

- Rahimi & Recht (2007), Table 1: random Fourier features and random binning, each followed
  by least squares, on CPU, Adult and Forest Cover (:data:`PAPER_ERRORS`).
- Shalev-Shwartz, Singer, Srebro & Cotter (2011), the linear table (Pegasos on cov1) and the
  kernel table (kernel Pegasos on USPS) (:data:`PAPER_ERRORS`).
- Djuric, Lan, Vucetic & Wang (2013), Table 1: the BudgetedSVM complexity table
  (:data:`NOTES_COMPLEXITY`); Wang, Djuric, Crammer & Vucetic (2011), Table 3: the AMM
  results table (:data:`NOTES_RESULTS`, :data:`PAPER_RESULTS`), with its footnotes
  (:data:`RESULTS_FOOTNOTES`) and the protocol of its runs (:data:`PAPER_PROTOCOL`).

What the notes do not establish is left out rather than guessed: the Pegasos paper's USPS
row gives a test error only, not which binary task or which split of the digits it was
measured on.

Beside the papers' cells: :data:`COMPLEXITY`, the orders of the algorithms as lsl runs them
(ours, written from the algorithms), and :func:`read_budgeted_results`, the rows that
``benchmarks/reproduce.py budgeted`` measured on the full data sets and committed in the
repository's ``data/budgeted_results.csv`` (lecture 14 prints them without the data sets).

References
----------
A. Rahimi, B. Recht. Random features for large-scale kernel machines. NIPS 2007.

S. Shalev-Shwartz, Y. Singer, N. Srebro, A. Cotter. Pegasos: primal estimated sub-gradient
solver for SVM. Mathematical Programming 127(1), 2011.

N. Djuric, L. Lan, S. Vucetic, Z. Wang. BudgetedSVM: a toolbox for scalable SVM
approximations. JMLR 14, 2013, 3813-3817.

Z. Wang, N. Djuric, K. Crammer, S. Vucetic. Trading representability for scalability:
adaptive multi-hyperplane machine for nonlinear classification. KDD 2011.

Examples
--------
>>> PAPER_ERRORS["forest_binning"], PAPER_SOURCES["forest_binning"]
(2.2, 'Rahimi & Recht 2007, Table 1')
>>> PAPER_RESULTS[("ijcnn1", "AMM batch")]["text"]
'2.40±0.11'
"""
import csv
from pathlib import Path

__all__ = ["RAHIMI_RECHT", "PEGASOS_LINEAR", "PEGASOS_KERNEL", "BUDGETED", "PAPER_ERRORS",
           "PAPER_SOURCES", "NOTES_COMPLEXITY", "COMPLEXITY", "COMPLEXITY_SYMBOLS", "latex_to_text",
           "NOTES_RESULTS_COLUMNS", "NOTES_RESULTS", "RESULTS_SOURCE", "RESULTS_FOOTNOTES",
           "PAPER_PROTOCOL", "PAPER_RESULTS", "BUDGETED_RESULTS_FILE", "BUDGETED_RESULTS_FIELDS",
           "read_budgeted_results"]


def __dir__():
    return __all__


# --- Rahimi & Recht 2007 and the Pegasos paper: the test errors reproduce.py sets beside lsl's

RAHIMI_RECHT = "Rahimi & Recht 2007, Table 1"
PEGASOS_LINEAR = "Shalev-Shwartz et al. 2011, linear table"
PEGASOS_KERNEL = "Shalev-Shwartz et al. 2011, kernel table"
BUDGETED = "Wang et al. 2011 (AMM), Table 3, as notes 000 quote it"

#: The papers' test errors in %, as the notes print them: key -> error.
PAPER_ERRORS = {
    "adult_rff": 14.9,        # Adult, Fourier + LS, D = 500
    "cpu_rff": 3.6,           # CPU, Fourier + LS, D = 300 (RMS error / norm of the truth)
    "forest_rff": 11.6,       # Forest Cover, Fourier + LS, D = 5000
    "forest_binning": 2.2,    # Forest Cover, Binning + LS, P = 50
    "cov1_pegasos": 23.2,     # cov1, Pegasos (linear), lambda = 1e-6
    "usps_kernel_pegasos": 0.457,  # USPS, kernel Pegasos, Gaussian kernel
}
#: key of :data:`PAPER_ERRORS` -> the paper and table it comes from.
PAPER_SOURCES = {"adult_rff": RAHIMI_RECHT, "cpu_rff": RAHIMI_RECHT, "forest_rff": RAHIMI_RECHT,
                 "forest_binning": RAHIMI_RECHT, "cov1_pegasos": PEGASOS_LINEAR,
                 "usps_kernel_pegasos": PEGASOS_KERNEL}


# --- BudgetedSVM: the notes' complexity and results tables ------------------------------------

#: Where the two tables below come from: the lecture notes, quoted exactly.
_NOTES = ("notes 000 (F. Minhas, Large Scale Learning), the slide 'Further Developments: "
         "Nonlinear SVM Approximations' (BudgetedSVM, Djuric et al. 2013)")

#: The notes' complexity table, each cell the notes' LaTeX verbatim: method -> (training
#: time, prediction time, model size). It is the BudgetedSVM paper's Table 1 (the same
#: entries), where B is the model size (AMM: all hyperplanes, B = sum of the b_i),
#: S the non-zero features of an example, D the dimension, C the classes, and I "a number
#: of training iterations, empirically shown to be super-linear in N".
NOTES_COMPLEXITY = {
    "Pegasos": (r"$O(N \cdot C \cdot S)$", r"$O(C \cdot S)$", r"$O(C \cdot D)$"),
    "AMM": (r"$O(N \cdot S \cdot B)$", r"$O(S \cdot B)$", r"$O(D \cdot B)$"),
    "LLSVM": (r"$O(N \cdot S \cdot B^2 + N \cdot S \cdot B)$", r"$O(S \cdot B^2 + S \cdot B)$",
              r"$O(D \cdot B + B^2)$"),
    "BSGD": (r"$O(N \cdot (C + S) \cdot B)$", r"$O((C + S) \cdot B)$", r"$O((C + D) \cdot B)$"),
    "RBF-SVM": (r"$O(I \cdot N \cdot C \cdot S)$", r"$O(N \cdot C \cdot S)$",
                r"$O(N \cdot C \cdot S)$"),
}
_COMPLEXITY_SOURCE = ("the notes' complexity table (" + _NOTES + "); it is Table 1 of N. Djuric, "
                     "L. Lan, S. Vucetic, Z. Wang, BudgetedSVM: a toolbox for scalable SVM "
                     "approximations, JMLR 14, 2013, 3813-3817 (the same entries)")

#: The orders written here from the algorithms as lsl runs them (binary problems, B per class
#: for AMM; one epoch of the SGD methods, N_SV the exact SVM's support vectors), to set beside
#: the notes' table: method -> dict(training, prediction, model).
COMPLEXITY = {
    "Pegasos": dict(training="O(N C S)", prediction="O(C S)", model="O(C D)"),
    "AMM": dict(training="O(N C B S)", prediction="O(C B S)", model="O(C B D)"),
    "LLSVM": dict(training="O(N B S + N B² + B³)", prediction="O(B S + B²)",
                  model="O(B D + B²)"),
    "BSGD": dict(training="O(N B S)", prediction="O(B S)", model="O(B D)"),
    "RBF-SVM": dict(training="O(N² S) to O(N³ S)", prediction="O(N_SV S)",
                    model="O(N_SV D)"),
}
#: Symbols of :data:`COMPLEXITY`.
COMPLEXITY_SYMBOLS = {
    "N": "training examples", "D": "features", "S": "non-zero features of an example (S = D "
    "for dense data)", "C": "classes", "B": "budget: hyperplanes per class (AMM), support "
    "vectors (BSGD), landmarks (LLSVM)", "N_SV": "support vectors of the exact SVM, which grows "
    "linearly with N on noisy data (Steinwart 2003)",
}


def latex_to_text(latex):
    r"""A cell of :data:`NOTES_COMPLEXITY` as plain text: the notes' LaTeX with ``$`` dropped,
    ``\cdot`` as ·, ``^2`` as ², nothing else changed.

    Examples
    --------
    >>> latex_to_text(NOTES_COMPLEXITY["BSGD"][0])
    'O(N·(C + S)·B)'
    """
    return latex.replace("$", "").replace(r" \cdot ", "·").replace("^2", "²")


#: The notes' results table (the same slide), verbatim: data set -> (test error in % of
#: the five columns, training time in seconds of the five columns); "NA" where the notes
#: have no number, the marks ², ³ the notes' (their footnotes are not in the notes:
#: :data:`RESULTS_FOOTNOTES`).
NOTES_RESULTS_COLUMNS = ("AMM batch", "AMM online", "Linear (Pegasos)", "Poly2 SVM", "RBF SVM")
NOTES_RESULTS = {
    "a9a": (("15.03±0.11", "16.44±0.23", "15.04±0.07", "14.94", "14.97"),
            ("2", "0.2", "1", "2", "99")),
    "ijcnn": (("2.40±0.11", "3.02±0.14", "7.76±0.19", "2.16", "1.31"),
              ("2", "0.1", "1", "11", "27")),
    "webspam": (("4.50±0.24", "6.14±1.08", "7.28±0.09", "1.56", "0.80"),
                ("80", "4", "12", "3,228", "15,571")),
    "mnist_bin": (("0.53±0.05", "0.54±0.03", "2.03±0.04", "NA", "0.43 ²"),
                  ("3084", "300", "277", "NA", "2 days ²")),
    "mnist_mc": (("3.20±0.16", "3.36±0.20", "8.41±0.11", "NA", "0.67 ³"),
                 ("13864", "1200", "1180", "NA", "8 days ³")),
    "rcv1_bin": (("2.20±0.01", "2.21±0.02", "2.29±0.01", "NA", "NA"),
                 ("1100", "80", "25", "NA", "NA")),
    "url": (("1.34±0.21", "2.87±1.49", "1.50±0.39", "NA", "NA"),
            ("400", "24", "100", "NA", "NA")),
}
#: Where the notes' results table comes from. The notes print it on their BudgetedSVM slide,
#: under the title of the AMM paper, without naming its source; it is Table 3 of that paper
#: (the same entries as the copy the toolbox distributes,
#: github.com/djurikom/BudgetedSVM, doc/pdfs_of_algorithm_papers/AMM_paper.pdf). The toolbox
#: paper's own results table (its Table 2) is another one: webspam, rcv1 and mnist8m-bin, with
#: LLSVM and BSGD at budgets of 500 to 3 000.
RESULTS_SOURCE = ("Z. Wang, N. Djuric, K. Crammer, S. Vucetic. Trading representability for "
                  "scalability: adaptive multi-hyperplane machine for nonlinear classification. "
                  "KDD 2011, Table 3")
#: The paper's footnotes and caption, which the notes leave out (their marks ¹ ² ³ are kept).
RESULTS_FOOTNOTES = (
    "¹ (on 'Training time (seconds)') excludes data loading time",
    "² achieved by parallel training P-packSVMs on 512 processors (Zhu et al. 2009)",
    "³ achieved by LaSVM (Loosli, Canu, Bottou 2007)",
    ("caption: RBF SVM is solved by LibSVM unless specified otherwise; Poly2 and LibSVM "
     "results are from Chang et al. 2010 (degree-2 polynomial mapping + LIBLINEAR)"),
)
#: How the paper ran its own columns (Section 4 of the AMM paper): lambda of AMM and
#: Pegasos by cross-validation over 1e-2, ..., 1e-7; five runs on reshuffled training data,
#: mean ± standard deviation; attributes scaled into [-1, 1]; batch AMM initialised by one
#: pass of online AMM, one epoch per assignment, five passes in all; online AMM one pass;
#: pruning every k = 10 000 steps with c = 10.
PAPER_PROTOCOL = ("λ (AMM, Pegasos) by cross-validation over 1e-2 ... 1e-7; 5 runs on "
                  "reshuffled training data, mean ± sd; batch AMM: 5 passes, the first online; "
                  "online AMM: 1 pass; pruning k = 10 000, c = 10")

#: The notes' name of each data set lsl measures (the shared a9a and ijcnn1).
_NOTES_NAMES = {"a9a": "a9a", "ijcnn1": "ijcnn"}


def _number(text):
    """'15.03±0.11' -> (15.03, 0.11); '14.94' -> (14.94, None); 'NA' -> (None, None)."""
    value = text.split(" ")[0].replace(",", "")
    if value == "NA":
        return None, None
    mean, _, sd = value.partition("±")
    return float(mean), (float(sd) if sd else None)


#: (data set, column of the notes' table) -> dict(error, sd, seconds, text, time_text,
#: source), for the two sets lsl measures (``benchmarks/reproduce.py budgeted``).
PAPER_RESULTS = {
    (name, column): dict(
        error=_number(errors[k])[0], sd=_number(errors[k])[1],
        seconds=_number(times[k])[0], text=errors[k], time_text=times[k],
        source=f"{_NOTES} = {RESULTS_SOURCE}")
    for name, notes_name in _NOTES_NAMES.items()
    for errors, times in [NOTES_RESULTS[notes_name]]
    for k, column in enumerate(NOTES_RESULTS_COLUMNS)
}


# --- lsl's measured rows beside the AMM table (data/budgeted_results.csv) ---------------------

#: The committed file of lsl's rows beside :data:`NOTES_RESULTS` on a9a and ijcnn1, written by
#: ``python -m benchmarks.reproduce budgeted --write`` (it needs the shared data sets; the file
#: lets lecture 14 print the rows without them).
BUDGETED_RESULTS_FILE = Path(__file__).resolve().parents[1] / "data" / "budgeted_results.csv"
#: Its columns: one row per (data set, method).
BUDGETED_RESULTS_FIELDS = ("data", "method", "lsl_model", "settings", "error_mean", "error_sd",
                           "runs", "fit_seconds", "model_size", "n_train", "n_test", "command",
                           "date")


def read_budgeted_results(path=None):
    """The rows of :data:`BUDGETED_RESULTS_FILE` (or of ``path``), numbers as numbers.

    Returns
    -------
    rows : list of dict
        Keyed by :data:`BUDGETED_RESULTS_FIELDS`: ``error_mean``, ``error_sd`` (test error in %,
        mean and standard deviation over ``runs`` runs), ``fit_seconds`` and ``model_size`` as
        floats; ``runs``, ``n_train``, ``n_test`` as ints; the rest as text.
    """
    path = BUDGETED_RESULTS_FILE if path is None else Path(path)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for key in ("error_mean", "error_sd", "fit_seconds", "model_size"):
            r[key] = float(r[key])
        for key in ("runs", "n_train", "n_test"):
            r[key] = int(r[key])
    return rows

