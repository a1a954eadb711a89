"""Typical wrong answers of homework 2 (hw2_kitchen_sinks_oracle), for testing its grading.

Each entry is ``(description, question, old, new)``: ``old`` is an exact substring of a code
solution cell of the master (and of the generated solutions notebook
``homework/autograder/hw2_kitchen_sinks_oracle/hw2_kitchen_sinks_oracle.ipynb``), ``new`` its
replacement. With one replacement made, ``question`` must score below full marks and every other
question full marks. The rows are typical mistakes, one per row.

Not listed: Question 3 with ``math.sqrt`` (no broadcasting). Question 3's tests catch it, but the
student's own Question 4 cell then raises when it computes ``bound_n`` for an array of n with those
functions, so one hidden case of Question 4 (the bound's shape) fails too.
"""

WRONG_ANSWERS = [
    # Question 3: the two terms of the bound
    ("q3: sqrt(2 log(1/delta)) instead of sqrt(log(1/delta) / 2) in the estimation term", "q3",
     "L * C * np.sqrt(0.5 * np.log(1.0 / delta))", "L * C * np.sqrt(2.0 * np.log(1.0 / delta))"),
    ("q3: the estimation term without its factor 2", "q3",
     "return 2.0 / np.sqrt(n) * (4.0", "return 1.0 / np.sqrt(n) * (4.0"),
    ("q3: the approximation term without L", "q3",
     "return lipschitz * C / np.sqrt(K)", "return C / np.sqrt(K)"),
    ("q3: log10 instead of the natural logarithm", "q3",
     "np.sqrt(2.0 * np.log(1.0 / delta))", "np.sqrt(2.0 * np.log10(1.0 / delta))"),
    ("q3: |c(0)| left out", "q3",
     "+ 2.0 * abs(loss_at_zero)", "+ 0.0 * abs(loss_at_zero)"),
    ("q3: c(0) squared", "q3",
     "+ 2.0 * abs(loss_at_zero)", "+ 2.0 * loss_at_zero ** 2"),
    ("q3: 1/n instead of 1/sqrt(n)", "q3",
     "return 2.0 / np.sqrt(n) * (4.0", "return 2.0 / n * (4.0"),
    # Question 4: the fitted model, the excess risk, the slopes, the constants
    ("q4: the default C (another box than C_STAR / K)", "q4",
     "n_components=K, C=C_STAR, feature=", "n_components=K, feature="),
    ("q4: the default gamma (another p, f* no longer in F_p)", "q4",
     'feature="fourier", gamma=GAMMA_STAR,\n', 'feature="fourier",\n'),
    ("q4: an intercept (the class F_p has none)", "q4",
     "fit_intercept=False, random_state=rng).fit(X, y)", "random_state=rng).fit(X, y)"),
    ("q4: the excess risk as a root mean square (a distance, not its square)", "q4",
     "return float(np.mean((np.asarray(f_hat_eval, dtype=np.float64) - f_eval) ** 2))",
     "return float(np.sqrt(np.mean((np.asarray(f_hat_eval, dtype=np.float64) - f_eval) ** 2)))"),
    ("q4: the slope with x and y swapped", "q4",
     "np.polyfit(np.log(x), np.log(y), 1)", "np.polyfit(np.log(y), np.log(x), 1)"),
    ("q4: L = 2C (the range of y forgotten)", "q4",
     "L = 2 * (Y + C_STAR)", "L = 2 * C_STAR"),
    ("q4: L = 2(Y + C/2) (the range of f*, not of the box)", "q4",
     "L = 2 * (Y + C_STAR)", "L = 2 * (Y + C_STAR / 2)"),
    ("q4: c0 = Y instead of Y^2", "q4",
     "c0 = Y ** 2", "c0 = Y"),
    ("q4: c0 = 0", "q4",
     "c0 = Y ** 2", "c0 = 0.0"),
    ("q4: the bound without its approximation term", "q4",
     "bound_K = estimation_term(N_FIXED, C_STAR, L, delta, c0) + "
     "approximation_term(K_VALUES, C_STAR, L, delta)",
     "bound_K = estimation_term(N_FIXED, C_STAR, L, delta, c0) + 0 * K_VALUES"),
    # Question 6: the Monte Carlo approximation of f*
    ("q6: beta without the offsets b", "q6",
     'np.cos(params["offsets"] + CENTRES @ params["frequencies"])',
     'np.cos(CENTRES @ params["frequencies"])'),
    ("q6: beta with sin instead of cos", "q6",
     'np.cos(params["offsets"] + CENTRES @ params["frequencies"])',
     'np.sin(params["offsets"] + CENTRES @ params["frequencies"])'),
    ("q6: beta without C", "q6",
     "beta = C_STAR * WEIGHTS @", "beta = WEIGHTS @"),
    ("q6: omega ~ N(0, gamma I) instead of N(0, 2 gamma I)", "q6",
     'draw_features("fourier", X_eval, K, GAMMA_STAR, rng)',
     'draw_features("fourier", X_eval, K, GAMMA_STAR / 2, rng)'),
    ("q6: sqrt(2) cos features (the kernel's scaling, not the sinks')", "q6",
     'return feature_matrix("fourier", X_eval, params) @ (beta / K)',
     'return np.sqrt(2) * feature_matrix("fourier", X_eval, params) @ (beta / K)'),
    ("q6: the mean square instead of its root (the distance)", "q6",
     "np.sqrt(np.mean((sinks_approximation(K, rng) - f_eval) ** 2))",
     "np.mean((sinks_approximation(K, rng) - f_eval) ** 2)"),
]
