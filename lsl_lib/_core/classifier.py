"""The one classifier face of the library (CONTRIBUTING.md §3), as scikit-learn's
``LinearClassifierMixin``: labels, scores, predictions, probabilities, and one-vs-rest
multiclass for every learner that is binary.

A classifier subclasses :class:`ScoreClassifierMixin` and implements

* ``_decision_scores(X)``: validate X (``reset=False``) and return its scores, shape (n,)
  for two classes (the score of ``classes_[1]``, positive meaning that class) or (n, K);
* ``_binary_only()``: True when the learner, as configured, learns two classes only
  (default: True). Then :meth:`_fit_one_vs_rest` fits one binary copy per class;
* ``_has_proba()`` (default: False) and ``_proba_from_scores(scores)`` where the loss
  gives probabilities (default: the logistic link, one-vs-rest normalised).

Scores to labels and to probabilities are :mod:`lsl_lib._core.scores`.
"""
import numpy as np
from sklearn.base import ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from lsl_lib._core.scores import labels_from_scores, one_vs_rest_probabilities
from lsl_lib._core.validation import check_n_classes


def _one_vs_rest_weight(sample_weight, y, positive, class_weight):
    """The weights of the binary problem ``y == positive``: the positive class weighted by
    its ``class_weight``, the rest by 1, times ``sample_weight`` (as ``LinearSVC`` and
    ``SGDClassifier`` weight their one-vs-rest problems)."""
    if class_weight is None:
        return sample_weight
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    return weight * np.where(y == positive, class_weight.get(positive, 1.0), 1.0)


def _stack(columns):
    """One row per class when the columns have one length, else the list of columns."""
    if len({np.shape(c) for c in columns}) == 1:
        return np.vstack(columns)
    return columns


class ScoreClassifierMixin(ClassifierMixin):
    """``decision_function``, ``predict``, ``predict_proba`` and one-vs-rest multiclass from
    a classifier's scores (see the module's docstring for what a subclass implements)."""

    def _binary_only(self):
        return True

    def _has_proba(self):
        return False

    def _proba_from_scores(self, scores):
        r""":math:`(1 - \sigma(s), \sigma(s))` for (n,) scores, the K sigmoids normalised for
        (n, K) (:func:`~lsl_lib._core.scores.one_vs_rest_probabilities`)."""
        return one_vs_rest_probabilities(scores)

    def _is_one_vs_rest(self):
        return getattr(self, "estimators_", None) is not None

    def decision_function(self, X):
        """Scores of X: shape (n,) for two classes (the score of ``classes_[1]``), else
        (n, K), one column per class of ``classes_`` (one-vs-rest for a binary learner)."""
        check_is_fitted(self)
        if self._is_one_vs_rest() and not hasattr(self, "coef_"):
            return np.column_stack([e.decision_function(X) for e in self.estimators_])
        return self._decision_scores(X)

    def predict(self, X):
        """The class of the largest score (for two classes: ``classes_[1]`` where the score
        is positive)."""
        return labels_from_scores(self.decision_function(X), self.classes_)

    @available_if(lambda self: self._has_proba())
    def predict_proba(self, X):
        """Class probabilities, shape (n, K), in the order of ``classes_``."""
        return self._proba_from_scores(self.decision_function(X))

    @available_if(lambda self: self._has_proba())
    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def _check_labels(self, y):
        """Raise ``ValueError`` unless y holds class labels, ``classes_`` two classes or more,
        and y no label outside ``classes_`` (``partial_fit``'s later chunks)."""
        check_classification_targets(y)
        check_n_classes(self.classes_, None, ())
        unknown = np.setdiff1d(y, self.classes_)
        if unknown.size:
            raise ValueError(f"y contains labels {unknown!r} not in classes {self.classes_!r}.")

    def _needs_one_vs_rest(self, classes):
        return len(classes) > 2 and self._binary_only()

    def _fit_one_vs_rest(self, X, y, sample_weight=None, partial=False, **fit_params):
        """Fit (or ``partial_fit``) one binary copy of this estimator per class of
        ``classes_``, on the labels ``y == class``, and keep them in ``estimators_``.

        Each copy is :func:`sklearn.base.clone` of this estimator (same ``random_state``),
        with ``class_weight`` folded into its sample weights as :func:`_one_vs_rest_weight`
        does. Linear copies' ``coef_`` and ``intercept_`` are stacked into (K, d) and (K,);
        each ``history_`` column is stacked into one row per class (a list of
        the classes' columns where their lengths differ). ``eval_set=(X, y)``
        passes ``(X, y == class)`` to each copy.
        """
        class_weight = getattr(self, "class_weight", None)
        if isinstance(class_weight, str):  # 'balanced': of the whole (weighted) data, as LinearSVC
            from sklearn.utils.class_weight import compute_class_weight

            class_weight = dict(zip(self.classes_, compute_class_weight(
                class_weight, classes=self.classes_, y=y, sample_weight=sample_weight),
                strict=True))
        if not partial or not self._is_one_vs_rest():
            params = {"class_weight": None} if "class_weight" in self.get_params() else {}
            self.estimators_ = [clone(self).set_params(**params) for _ in self.classes_]
        if isinstance(y, (list, tuple)):
            y = np.asarray(y)
        eval_set = fit_params.pop("eval_set", None)
        for positive, estimator in zip(self.classes_, self.estimators_, strict=True):
            params = dict(fit_params)
            weight = _one_vs_rest_weight(sample_weight, y, positive, class_weight)
            if weight is not None:
                params["sample_weight"] = weight
            if eval_set is not None:
                params["eval_set"] = (eval_set[0], np.asarray(eval_set[1]) == positive)
            if partial:
                estimator.partial_fit(X, y == positive, classes=[False, True], **params)
            else:
                estimator.fit(X, y == positive, **params)
        first = self.estimators_[0]
        for name in ("n_features_in_", "feature_names_in_"):
            if not hasattr(self, name) and hasattr(first, name):
                setattr(self, name, getattr(first, name))
        if hasattr(first, "coef_"):
            self.coef_ = np.vstack([e.coef_ for e in self.estimators_])
            self.intercept_ = np.concatenate([np.ravel(e.intercept_) for e in self.estimators_])
        if getattr(first, "history_", None) is not None:
            self.history_ = {name: _stack([e.history_[name] for e in self.estimators_])
                             for name in first.history_}
        for name in ("n_iter_", "t_"):
            if hasattr(first, name):
                setattr(self, name, getattr(first, name))
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags
