"""Typical wrong answers to homework 1 (hw1_rademacher), for testing its grader.

``WRONG_ANSWERS`` lists ``(description, question, old, new)``: ``old`` is an exact substring of
one code solution cell of the solutions notebook (``homework/autograder/hw1_rademacher/
hw1_rademacher.ipynb``, generated from the master), ``new`` its replacement. A submission made
of the solutions with that one replacement must score below full marks on ``question`` and full
marks on every other autograded question (q2, q3, q4, q6, q7; q1 and q5 are derivations).

The rows are typical mistakes, one per row. A wrong answer that RAISES in q2 or q3 is not
listed: q4's complexity_curve calls those functions, so it also costs q4 (a wrong value does
not: q4's tests accept the values of the student's own functions of q2 and q3).

Run time: every entry grades in about 10-20 s with otter on a loaded 2-core machine, except
"q4 uses all of X" when the course's shared USPS data is present: the notebook's optional USPS
cell then builds 7291 x 7291 Gram matrices (about 4 min). Without the shared data the cell is
skipped.
"""

_BOUND = "return float(c * np.sqrt(np.trace(K)) / K.shape[0])"
_SIGNS = "signs = rng.choice(np.array([-1.0, 1.0]), size=(n_draws, n))"
_MEAN = "return float(np.mean(c / n * np.sqrt(np.maximum(quadratic, 0.0))))"
_GRAM = "K = kernel_matrix(X[:n], **kernel_params)"
_NORMS = ("norm_primal = float(beta @ beta)\n"
          "norm_dual = float(alpha @ K_train @ alpha)")
_SUP = "return float(c / len(sigma) * norm), c * sigma / norm"

WRONG_ANSWERS = [
    # q2: the bound c sqrt(tr K) / n
    ("q2 twice the bound", "q2", _BOUND,
     "return float(2 * c * np.sqrt(np.trace(K)) / K.shape[0])"),
    ("q2 without the square root", "q2", _BOUND,
     "return float(c * np.trace(K) / K.shape[0])"),
    ("q2 divides by sqrt(n) instead of n", "q2", _BOUND,
     "return float(c * np.sqrt(np.trace(K)) / np.sqrt(K.shape[0]))"),
    ("q2 the sum of all entries of K instead of its trace", "q2", _BOUND,
     "return float(c * np.sqrt(np.sum(K)) / K.shape[0])"),
    ("q2 returns a 1-element array", "q2", _BOUND,
     "return np.array([c * np.sqrt(np.trace(K)) / K.shape[0]])"),
    # q3: the Monte Carlo estimate E (c / n) sqrt(sigma^T K sigma)
    ("q3 the square root of the mean (the bound, not the complexity: Jensen swapped)", "q3", _MEAN,
     "return float(c / n * np.sqrt(np.mean(np.maximum(quadratic, 0.0))))"),
    ("q3 signs in {0, 1}", "q3", _SIGNS,
     "signs = rng.choice(np.array([0.0, 1.0]), size=(n_draws, n))"),
    ("q3 Gaussian instead of Rademacher signs", "q3", _SIGNS,
     "signs = rng.standard_normal((n_draws, n))"),
    ("q3 uniform [-1, 1] instead of Rademacher signs", "q3", _SIGNS,
     "signs = rng.uniform(-1.0, 1.0, size=(n_draws, n))"),
    ("q3 twice the estimate", "q3", _MEAN,
     "return float(2 * np.mean(c / n * np.sqrt(np.maximum(quadratic, 0.0))))"),
    # q4: the curve against n
    ("q4 ignores **kernel_params", "q4", _GRAM, "K = kernel_matrix(X[:n])"),
    ("q4 uses all of X instead of its first n rows", "q4", _GRAM,
     "K = kernel_matrix(X, **kernel_params)"),
    ("q4 uses the global X_all instead of its argument X", "q4", _GRAM,
     "K = kernel_matrix(X_all[:n], **kernel_params)"),
    ("q4 returns (estimates, bounds)", "q4", "return np.array(bounds), np.array(estimates)",
     "return np.array(estimates), np.array(bounds)"),
    # q6: beta and the two norms
    ("q6 norm_dual = alpha . alpha", "q6", "norm_dual = float(alpha @ K_train @ alpha)",
     "norm_dual = float(alpha @ alpha)"),
    ("q6 both norms square-rooted", "q6", _NORMS,
     ("norm_primal = float(np.sqrt(beta @ beta))\n"
      "norm_dual = float(np.sqrt(alpha @ K_train @ alpha))")),
    ("q6 both norms divided by n", "q6", _NORMS,
     ("norm_primal = float(beta @ beta) / len(alpha)\n"
      "norm_dual = float(alpha @ K_train @ alpha) / len(alpha)")),
    ("q6 beta from the labels instead of alpha", "q6", "beta = Phi.T @ alpha",
     "beta = Phi.T @ y_train"),
    # q7: the supremum and its maximiser
    ("q7 value without the 1/n", "q7", _SUP, "return float(c * norm), c * sigma / norm"),
    ("q7 value without the square root", "q7", _SUP,
     "return float(c / len(sigma) * norm ** 2), c * sigma / norm"),
    ("q7 maximiser c sigma, not normalised", "q7", _SUP,
     "return float(c / len(sigma) * norm), c * sigma"),
    ("q7 maximiser normalised by the Euclidean norm of sigma", "q7", _SUP,
     "return float(c / len(sigma) * norm), c * sigma / np.sqrt(len(sigma))"),
]
