r"""The step of each model of the online kernel learner: :math:`\psi`, the loss, and
:math:`(\Lambda, P)`, with the worst-violator choice built on them (the mathematics is in
:mod:`lsl_lib.online_kernel`)."""
import math

import numpy as np

from lsl_lib._core.backend import jit

MODELS = ("l1_svm", "l2_svm", "huber", "logistic", "exponential", "ls_svm", "l1_svm_l1",
          "l2_svm_l1")
# Integer codes of the models inside compiled loops, their indices in MODELS ("ls_svm" is the
# compiled step's last case and needs no name).
L1_SVM, L2_SVM, HUBER, LOGISTIC, EXPONENTIAL, L1_SVM_L1, L2_SVM_L1 = (
    MODELS.index(name) for name in ("l1_svm", "l2_svm", "huber", "logistic", "exponential",
                                    "l1_svm_l1", "l2_svm_l1"))
#: The margin loss of each model, and the models regularised by ||alpha||_1.
LOSS_OF = {"l1_svm": "hinge", "l2_svm": "squared_hinge", "huber": "huber",
           "logistic": "logistic", "exponential": "exponential", "ls_svm": "squared",
           "l1_svm_l1": "hinge", "l2_svm_l1": "squared_hinge"}
L1_REGULARISED = ("exponential", "l1_svm_l1", "l2_svm_l1")
#: z below which the exponential loss's psi is clipped.
_EXP_CLIP = -50.0


def psi(model, z, delta=0.5):
    r""":math:`\psi(z) = -\ell'(z)`, the loss part of the step, for an array of margins."""
    z = np.asarray(z, dtype=np.float64)
    loss = LOSS_OF[model]
    if loss == "hinge":
        return (z < 1.0).astype(np.float64)
    if loss == "squared_hinge":
        return np.maximum(0.0, 1.0 - z)
    if loss == "huber":
        return np.minimum(1.0, np.maximum(0.0, 1.0 - z) / delta)
    if loss == "logistic":
        e = np.exp(-np.abs(z))
        return np.where(z >= 0.0, e / (1.0 + e), 1.0 / (1.0 + e))
    if loss == "exponential":
        return np.exp(-np.maximum(z, _EXP_CLIP))
    return 1.0 - z  # squared loss (LS-SVM)


def margin_loss(model, z, delta=0.5):
    r"""The margin loss :math:`\ell(z)` of the model (table of the module docstring)."""
    z = np.asarray(z, dtype=np.float64)
    loss = LOSS_OF[model]
    if loss == "hinge":
        return np.maximum(0.0, 1.0 - z)
    if loss == "squared_hinge":
        return 0.5 * np.maximum(0.0, 1.0 - z) ** 2
    if loss == "huber":
        quadratic = (1.0 - z) ** 2 / (2.0 * delta)
        return np.where(z >= 1.0, 0.0, np.where(z > 1.0 - delta, quadratic, 1.0 - z - delta / 2))
    if loss == "logistic":
        return np.logaddexp(0.0, -z)
    if loss == "exponential":
        with np.errstate(over="ignore"):
            return np.exp(-z)
    return 0.5 * (1.0 - z) ** 2


def lambda_and_penalty(model, z, y, alpha_i, eta, C, delta=0.5):
    r"""The two parts of one step, :math:`(\Lambda, P)`: the numpy reference.

    :math:`\Lambda = \eta C y \psi(z)`; :math:`P = \eta\alpha_i` for
    :math:`\frac12\|\alpha\|^2`, :math:`P = \operatorname{sign}(a)\min(\eta, |a|)`
    with :math:`a = \alpha_i + \Lambda` for :math:`\|\alpha\|_1`. The new coefficient
    is ``(alpha_i + Lam) - P``, evaluated in that order so that the soft threshold
    gives an exact 0 when :math:`|a| \le \eta`.
    """
    Lam = eta * C * y * float(psi(model, z, delta))
    if model in L1_REGULARISED:
        a = alpha_i + Lam
        return Lam, math.copysign(min(eta, abs(a)), a)
    return Lam, eta * alpha_i


@jit
def _lambda_and_penalty_numba(model_code, z, y, alpha_i, eta, C, delta):
    """The same as :func:`lambda_and_penalty`, compiled; ``model_code`` is the model's index
    in :data:`MODELS`."""
    if model_code == L1_SVM or model_code == L1_SVM_L1:
        p = 1.0 if z < 1.0 else 0.0
    elif model_code == L2_SVM or model_code == L2_SVM_L1:
        p = max(0.0, 1.0 - z)
    elif model_code == HUBER:
        p = min(1.0, max(0.0, 1.0 - z) / delta)
    elif model_code == LOGISTIC:
        e = math.exp(-abs(z))
        p = e / (1.0 + e) if z >= 0.0 else 1.0 / (1.0 + e)
    elif model_code == EXPONENTIAL:
        p = math.exp(-max(z, _EXP_CLIP))
    else:  # ls_svm
        p = 1.0 - z
    Lam = eta * C * y * p
    if model_code == EXPONENTIAL or model_code == L1_SVM_L1 or model_code == L2_SVM_L1:
        a = alpha_i + Lam
        return Lam, math.copysign(min(eta, abs(a)), a)
    return Lam, eta * alpha_i


def regularised_risk(model, alpha, outputs, y, C, delta=0.5):
    r"""The diagnostic :math:`\frac12\|\alpha\|_2^2 + C\sum_i \ell(y_i o_i)` (or
    :math:`\|\alpha\|_1 + C\sum_i \ell(y_i o_i)` for the L1 models; ``outputs`` is o).

    Not the objective the "w'w" models minimise, :math:`\frac12\alpha^\top K\alpha
    + C\sum_i\ell` (``history_['rkhs_objective']``): see the module's Notes."""
    omega = np.abs(alpha).sum() if model in L1_REGULARISED else 0.5 * alpha @ alpha
    return float(omega + C * margin_loss(model, y * outputs, delta).sum())


def worst_violator_numpy(model, y, alpha, outputs, eta, C, delta=0.5):
    r"""The example whose step would be the largest: :math:`\arg\max_i |\Lambda_i - P_i|`.

    All n steps at once from the outputs :math:`o = K\alpha + b` (no kernel evaluation).
    Ties go to the smaller margin :math:`z_i = y_i o_i`, then to the smaller index (at the
    start every hinge violator has the same step :math:`\eta C`).
    """
    z = y * outputs
    Lam = eta * C * y * psi(model, z, delta)
    if model in L1_REGULARISED:
        a = alpha + Lam
        P = np.copysign(np.minimum(eta, np.abs(a)), a)
    else:
        P = eta * alpha
    size = np.abs(((alpha + Lam) - P) - alpha)  # the step, evaluated as the update does
    ties = np.flatnonzero(size == size.max())
    return int(ties[np.argmin(z[ties])])


@jit
def _worst_violator_numba(model_code, y, alpha, f, b, eta, C, delta):
    r"""The same choice as :func:`worst_violator_numpy`, compiled (``f`` = :math:`K\alpha`)."""
    best, best_size, best_z = 0, -1.0, 0.0
    for j in range(alpha.shape[0]):
        z = y[j] * (f[j] + b)
        Lam, P = _lambda_and_penalty_numba(model_code, z, y[j], alpha[j], eta, C, delta)
        size = abs(((alpha[j] + Lam) - P) - alpha[j])
        if size > best_size or (size == best_size and z < best_z):
            best, best_size, best_z = j, size, z
    return best
