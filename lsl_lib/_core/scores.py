"""From a classifier's scores to its labels and probabilities.

Every classifier of the library scores with a decision function: shape (n,) for two classes
(the score of ``classes_[1]``, positive meaning that class) or (n, K), one column per class.
"""
import numpy as np
from scipy.special import expit


def labels_from_scores(scores, classes):
    """The predicted labels: ``classes[1]`` where a (n,) or (n, 1) score is positive, else
    ``classes[0]``; the class of the largest score for (n, K) scores, K >= 2."""
    scores = np.asarray(scores)
    if scores.ndim == 2 and scores.shape[1] == 1:
        scores = scores[:, 0]
    if scores.ndim == 1:
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


def one_vs_rest_probabilities(scores):
    r"""Class probabilities from logistic scores: :math:`(1 - \sigma(s), \sigma(s))` for (n,)
    scores; for (n, K) one-vs-rest scores the K sigmoids normalised to sum to 1 (as
    scikit-learn's one-vs-rest ``LogisticRegression`` and ``SGDClassifier`` do)."""
    p = expit(np.asarray(scores, dtype=np.float64))
    if p.ndim == 1:
        return np.column_stack([1.0 - p, p])
    return p / p.sum(axis=1, keepdims=True)
