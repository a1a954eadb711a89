"""The feature families of random kitchen sinks: their draw, their features, and when they
are noise (see :mod:`lsl_lib.kitchen_sinks`)."""
import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.utils.sparsefuncs import mean_variance_axis

from lsl_lib.random_binning import bin_indices, draw_grids
from lsl_lib.random_features import draw_frequencies

#: The built-in feature families.
FEATURES = ("fourier", "bump", "sigmoid", "binning")


def _input_box(X):
    """Per-feature minimum and maximum of the training inputs (dense or CSR)."""
    if sp.issparse(X):
        return X.min(axis=0).toarray().ravel(), X.max(axis=0).toarray().ravel()
    return X.min(axis=0), X.max(axis=0)


def draw_features(feature, X, n_components, gamma, rng):
    r"""Draw the parameters :math:`w_1, \dots, w_K` of a built-in family (see the module's table).

    Parameters
    ----------
    feature : {'fourier', 'bump', 'sigmoid', 'binning'}
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The training inputs: only their box (``bump``, ``sigmoid``) or K of them drawn
        uniformly (``binning``) are used, never the labels.
    n_components : int
        K.
    gamma : float > 0
        The scale: the kernel width of the Gaussian (``fourier``, ``bump``) or Laplacian
        (``binning``) kernel whose features these are; the slope scale of ``sigmoid``.
    rng : numpy.random.Generator

    Returns
    -------
    params : dict of ndarrays
        ``fourier``: ``frequencies`` (d, K), ``offsets`` (K,); ``bump``: ``centres`` (K, d)
        and ``gamma``;
        ``sigmoid``: ``frequencies`` (d, K), ``centres`` (K, d); ``binning``: ``pitches``,
        ``shifts`` (K, d) (:func:`lsl_lib.random_binning.draw_grids`) and ``anchor_ids``
        (K,), the id of the anchor's cell in its grid (:func:`lsl_lib.random_binning.bin_indices`).
    """
    n, d = X.shape
    if feature in ("fourier", "sigmoid"):
        params = {"frequencies": draw_frequencies("gaussian", gamma, d, n_components, rng)}
        if feature == "fourier":
            params["offsets"] = rng.uniform(0.0, 2.0 * np.pi, size=n_components)
            return params
    if feature in ("bump", "sigmoid"):
        low, high = _input_box(X)
        params = params if feature == "sigmoid" else {}
        params["centres"] = rng.uniform(low, high, size=(n_components, d))
        if feature == "bump":
            params["gamma"] = gamma
        return params
    # binning: one random grid per feature, anchored at a random training input
    pitches, shifts = draw_grids(d, n_components, gamma, rng)
    anchors = X[rng.integers(n, size=n_components)]
    anchor_ids = bin_indices(anchors, pitches, shifts)[np.arange(n_components),
                                                        np.arange(n_components)]
    return {"pitches": pitches, "shifts": shifts, "anchor_ids": anchor_ids}


def feature_matrix(feature, X, params):
    r"""The features :math:`\Phi_{ik} = \phi(x_i; w_k)` of a built-in family, shape (n, K).

    Every entry lies in [-1, 1] (``fourier``) or [0, 1] (the others).
    """
    if feature == "fourier":
        Z = np.asarray(X @ params["frequencies"])
        Z += params["offsets"]
        return np.cos(Z, out=Z)
    if feature == "sigmoid":
        W, centres = params["frequencies"], params["centres"]
        Z = np.asarray(X @ W)
        Z -= np.einsum("kj,jk->k", centres, W)
        return expit(Z, out=Z)
    if feature == "bump":
        centres = params["centres"]
        sq_norms = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
                    else np.einsum("ij,ij->i", X, X))
        D2 = sq_norms[:, None] - 2.0 * np.asarray(X @ centres.T) + (centres ** 2).sum(axis=1)
        np.maximum(D2, 0.0, out=D2)  # rounding can make a tiny distance negative
        D2 *= -params["gamma"]
        return np.exp(D2, out=D2)
    # binning: x is in feature k's cell when its cell id in grid k is the anchor's
    ids = bin_indices(X, params["pitches"], params["shifts"])
    return (ids == params["anchor_ids"]).astype(np.float64)


def kernel_exponent(feature, X, gamma):
    r"""The exponent of a family's kernel at a typical pair of training inputs.

    ``fourier`` and ``bump`` are features of the Gaussian kernel
    :math:`e^{-\gamma\|x - x'\|^2}`, and ``sigmoid`` draws its slopes as ``fourier`` its
    frequencies (:math:`\omega^\top(x - x')` has variance :math:`2\gamma\|x - x'\|^2`): for
    x, x' drawn independently from the rows of X,
    :math:`\gamma\,\mathbb E\|x - x'\|^2 = 2\gamma \sum_j \operatorname{Var}(x_j)`.
    ``binning``'s grids are those of the Laplacian kernel :math:`e^{-\gamma\|x - x'\|_1}`:
    :math:`\gamma \sum_j \sqrt{2 \operatorname{Var}(x_j)}`, an upper bound of
    :math:`\gamma\,\mathbb E\|x - x'\|_1` (Jensen). On standardised features with the
    default :math:`\gamma = 1/d` it is 2 (``binning``: 1.4); far above :data:`_NOISE_EXPONENT`
    the sinks change sign (or cell) between any two training inputs, and a fit on them is a
    fit on noise. One column of much larger scale than the others is enough (a column
    times 1e6).

    Parameters
    ----------
    feature : {'fourier', 'bump', 'sigmoid', 'binning'}
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    gamma : float > 0

    Returns
    -------
    exponent : float
        O(nnz(X)) to compute (the column variances).
    """
    if sp.issparse(X):
        variances = mean_variance_axis(X, axis=0)[1]
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # a column of scale 1e308 gives inf
            variances = X.var(axis=0)
    with np.errstate(over="ignore"):
        if feature == "binning":
            return float(gamma * np.sum(np.sqrt(2.0 * variances)))
        return float(2.0 * gamma * np.sum(variances))

