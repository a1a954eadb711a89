"""Typical wrong answers of homework 1 (placeholder until the master's rework lands)."""
WRONG_ANSWERS = [
    ("q2: twice the bound", "q2", "return float(c * np.sqrt(np.trace(K)) / K.shape[0])",
     "return float(2 * c * np.sqrt(np.trace(K)) / K.shape[0])"),
    ("q2: no square root", "q2", "return float(c * np.sqrt(np.trace(K)) / K.shape[0])",
     "return float(c * np.trace(K) / K.shape[0])"),
    ("q5: alpha . alpha", "q5", "norm_dual = float(alpha @ K_train @ alpha)", "norm_dual = float(alpha @ alpha)"),
    ("q5: sqrt of the norm", "q5", "norm_primal = float(beta @ beta)", "norm_primal = float(np.sqrt(beta @ beta))"),
]
