"""Typical wrong answers to homework 3.

``WRONG_ANSWERS`` lists ``(description, question, old, new)``: ``old`` is an exact substring of a
code solution cell of ``homework/masters/hw3_random_features_in_practice.ipynb`` (so of the
generated solutions notebook ``homework/autograder/hw3_random_features_in_practice/
hw3_random_features_in_practice.ipynb``), ``new`` its replacement. Meaning: graded, the patched
solutions score below full marks on ``question`` and full marks on every other question.
"""

WRONG_ANSWERS = [
    # ---- question 2: choose_n_components
    ("q2: the closed form rounded down (floor for ceil), no check of the bound", "q2",
     ("    q = max(1, int(np.ceil((float(approximation_at_1) / slack) ** 2)))\n"
      "    while bound(q) > target:  # the closed form rounded down\n"
      "        q += 1\n"
      "    while q > 1 and bound(q - 1) <= target:  # the closed form rounded up\n"
      "        q -= 1\n"),
     "    q = max(1, int(np.floor((float(approximation_at_1) / slack) ** 2)))\n"),
    ("q2: no ValueError for an unreachable target (a number returned instead)", "q2",
     ("    if slack <= 0:\n"
      "        raise ValueError("),
     ("    if slack <= 0:\n"
      "        return 10**6\n"
      "        raise ValueError(")),
    ("q2: the uniform deviation E(n)/2 taken for the estimation term of the bound", "q2",
     ("    def bound(q):\n"
      "        return float(sum(bound_terms(n_samples, q, C, lipschitz, delta,"
      " loss_at_zero)))\n"
      "\n"
      "    estimation, approximation_at_1 = bound_terms(n_samples, 1, C,"
      " lipschitz, delta, loss_at_zero)\n"),
     ("    def bound(q):\n"
      "        estimation, approximation = bound_terms(n_samples, q, C,"
      " lipschitz, delta, loss_at_zero)\n"
      "        return float(estimation / 2 + approximation)\n"
      "\n"
      "    estimation, approximation_at_1 = bound_terms(n_samples, 1, C,"
      " lipschitz, delta, loss_at_zero)\n"
      "    estimation = estimation / 2\n")),
    # ---- question 3: the two learners
    ("q3: the accuracy in place of the 0-1 error", "q3",
     "test_error = {name: 1.0 - m.score(X_test, y_test)",
     "test_error = {name: m.score(X_test, y_test)"),
    ("q3: the hinge loss of the predicted labels, not of the decision function", "q3",
     "test_hinge = {name: hinge_loss(y_test, m.decision_function(X_test))",
     "test_hinge = {name: hinge_loss(y_test, m.predict(X_test))"),
    ("q3: LinearSVC with its default intercept", "q3",
     "LinearSVC(C=1.0, fit_intercept=False, random_state=0)",
     "LinearSVC(C=1.0, random_state=0)"),
    # ---- question 4: the sweep over C
    ("q4: training and test sets swapped", "q4",
     ("    train_risk[i] = hinge_loss(y_train, model.decision_function(X_train))\n"
      "    test_losses = np.maximum(0.0, 1.0 - y_test *"
      " model.decision_function(X_test))\n"),
     ("    train_risk[i] = hinge_loss(y_test, model.decision_function(X_test))\n"
      "    test_losses = np.maximum(0.0, 1.0 - y_train *"
      " model.decision_function(X_train))\n")),
    ("q4: the 0-1 error in place of the hinge risk", "q4",
     ("    train_risk[i] = hinge_loss(y_train, model.decision_function(X_train))\n"
      "    test_losses = np.maximum(0.0, 1.0 - y_test *"
      " model.decision_function(X_test))\n"),
     ("    train_risk[i] = np.mean(model.predict(X_train) != y_train)\n"
      "    test_losses = (model.predict(X_test) != y_test).astype(float)\n")),
    ("q4: the kitchen sinks fitted with an intercept", "q4",
     ("    model = RandomKitchenSinksClassifier(n_components=Q_SWEEP, C=C,"
      " feature=\"fourier\", gamma=GAMMA,\n"
      "                                         loss=\"hinge\", fit_intercept=False,\n"),
     ("    model = RandomKitchenSinksClassifier(n_components=Q_SWEEP, C=C,"
      " feature=\"fourier\", gamma=GAMMA,\n"
      "                                         loss=\"hinge\",\n")),
    ("q4: the standard deviation in place of the standard error", "q4",
     "test_se[i] = test_losses.std(ddof=1) / np.sqrt(len(test_losses))",
     "test_se[i] = test_losses.std(ddof=1)"),
    ("q4: estimation_term = E(n), not the uniform deviation E(n)/2", "q4",
     "estimation_term = estimation / 2",
     "estimation_term = estimation"),
    ("q4: no union bound over the grid (DELTA for every C)", "q4",
     ("delta_grid = DELTA / len(C_GRID)  # the union bound over the grid\n"
      "estimation, approximation"),
     ("delta_grid = DELTA\n"
      "estimation, approximation")),
    ("q4: the reference is the smallest training risk", "q4",
     "reference_risk = test_risk.min()",
     "reference_risk = train_risk.min()"),
    # ---- question 5: the bound at the SVM's box
    ("q5: n_needed one too large", "q5",
     ("while bound_terms(n_needed - 1, 1, C_effective, LIPSCHITZ, DELTA,"
      " LOSS_AT_ZERO)[0] <= TARGET:\n"
      "    n_needed -= 1\n"),
     ("while bound_terms(n_needed - 1, 1, C_effective, LIPSCHITZ, DELTA,"
      " LOSS_AT_ZERO)[0] <= TARGET:\n"
      "    n_needed -= 1\n"
      "n_needed += 1\n")),
    ("q5: n_needed from the closed form rounded down", "q5",
     ("n_needed = int(np.ceil((per_root_n / TARGET) ** 2))\n"
      "while bound_terms(n_needed, 1, C_effective, LIPSCHITZ, DELTA,"
      " LOSS_AT_ZERO)[0] > TARGET:\n"
      "    n_needed += 1\n"
      "while bound_terms(n_needed - 1, 1, C_effective, LIPSCHITZ, DELTA,"
      " LOSS_AT_ZERO)[0] <= TARGET:\n"
      "    n_needed -= 1\n"),
     "n_needed = int(np.floor((per_root_n / TARGET) ** 2))\n"),
    ("q5: C_effective without the feature scale sqrt(2/q)", "q5",
     "alpha = np.sqrt(2.0 / q_chosen) * rff_svm[-1].coef_.ravel()",
     "alpha = rff_svm[-1].coef_.ravel()"),
    ("q5: the bound at C_BOX in place of C_effective", "q5",
     ("bound_at_C_effective = float(sum(bound_terms(n_train, q_chosen,"
      " C_effective, LIPSCHITZ, DELTA,"),
     ("bound_at_C_effective = float(sum(bound_terms(n_train, q_chosen, C_BOX,"
      " LIPSCHITZ, DELTA,")),
]
