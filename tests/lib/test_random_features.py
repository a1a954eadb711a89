"""Random Fourier features, ORF and SORF: unbiased estimates of the kernels of
lsl_lib.kernels, the variances of Sutherland and Schneider (sin-cos vs cos) and of
Yu et al. (ORF), the structured SORF map against its dense matrix, dtypes and seeds,
bad input, and kernel_approximation_error (scikit-learn's contract: test_common.py).

Statistical tests use fixed seeds; their tolerances are 4 standard errors estimated
from the same Monte Carlo sample (for a mean: sd / sqrt(S); for a sample variance:
sqrt((m4 - s^4) / S), m4 the fourth central moment)."""
import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
import scipy.stats
from scipy.special import hyp1f1
from sklearn.base import clone

import lsl_lib.random_features as rf
from lsl_lib._core.features import block_sizes, n_frequencies
from lsl_lib._core.hadamard import fwht
from lsl_lib.kernels import PolynomialFeatureMap, kernel_matrix
from lsl_lib.random_features import (OrthogonalRandomFeatures, RandomFourierFeatures,
                                     kernel_approximation_error, orf_variance, rff_variance)
from estimator_support import with_inf, with_nan

N_SE = 4  # tolerance of every Monte Carlo comparison, in standard errors


def _estimates(make, X, n_seeds):
    """``z(x_0) . z(x_j)`` for j >= 1, one row per seed 0 .. n_seeds - 1."""
    out = np.empty((n_seeds, len(X) - 1))
    for seed in range(n_seeds):
        Z = make(seed).fit_transform(X)
        out[seed] = Z[1:] @ Z[0]
    return out


def _mean_and_se(samples):
    return samples.mean(axis=0), samples.std(axis=0, ddof=1) / np.sqrt(len(samples))


def _variance_and_se(samples):
    n = len(samples)
    centred = samples - samples.mean(axis=0)
    var = (centred ** 2).sum(axis=0) / (n - 1)
    m4 = (centred ** 4).mean(axis=0)
    return var, np.sqrt((m4 - var ** 2) / n)


def _points_at(kernel_values, gamma, d, seed=0):
    """x_0 = 0 and, for each value k, a point x_j in a random direction with
    exp(-gamma ||x_j||^2) = k (Gaussian kernel)."""
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(len(kernel_values), d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    radii = np.sqrt(-np.log(kernel_values) / gamma)
    return np.vstack([np.zeros(d), radii[:, None] * directions])


# ---------------------------------------------------------------- RFF: the spectral densities

@pytest.mark.parametrize("kernel,law", [
    ("gaussian", lambda g: scipy.stats.norm(scale=np.sqrt(2 * g))),
    ("laplacian", lambda g: scipy.stats.cauchy(scale=g)),
    ("cauchy", lambda g: scipy.stats.laplace(scale=np.sqrt(g))),
])
def test_frequencies_follow_the_spectral_density(kernel, law):
    W = RandomFourierFeatures(4000, kernel=kernel, gamma=0.7, random_state=0).fit(
        np.zeros((2, 3))).frequencies_
    assert W.shape == (3, 2000)
    # Kolmogorov-Smirnov on the 6000 i.i.d. coordinates, at level 1e-3
    assert scipy.stats.kstest(W.ravel(), law(0.7).cdf).pvalue > 1e-3


@pytest.mark.parametrize("variant", ["sincos", "cos"])
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian", "cauchy"])
def test_estimate_is_unbiased(kernel, variant):
    """The mean of z(x).z(y) over seeds is k(x, y) of lsl_lib.kernels, within 4 SE."""
    X = np.random.default_rng(1).normal(size=(5, 3)) * 0.8
    gamma = 0.5
    k = kernel_matrix(X, kernel=kernel, gamma=gamma)[0, 1:]
    assert np.all((k > 0.05) & (k < 0.95))  # informative pairs
    est = _estimates(lambda s: RandomFourierFeatures(32, kernel=kernel, gamma=gamma,
                                                     variant=variant, random_state=s), X, 300)
    mean, se = _mean_and_se(est)
    np.testing.assert_array_less(np.abs(mean - k), N_SE * se)


def test_variance_of_sincos_and_cos_matches_sutherland_schneider():
    r"""Gaussian kernel, output width D, k = k(delta) and k2 = k(2 delta) = k^4.

    sincos, m = D/2 i.i.d. frequencies: z(x).z(y) = (1/m) sum_i cos(w_i.delta), so
        Var = (1/m) Var[cos(w.delta)] = (1/m)(E[cos^2] - k^2) = (1/m)(1/2 + k2/2 - k^2)
            = (1 + k2 - 2 k^2) / D.
    cos, m = D: z(x).z(y) = (1/D) sum_i t_i, t_i = 2 cos(w.x + b) cos(w.y + b)
        = cos(w.delta) + cos(w.(x + y) + 2b); with b uniform the cross term has mean 0
        and E[cos^2(w.(x+y) + 2b)] = 1/2, so E[t^2] = 1/2 + k2/2 + 1/2 and
        Var = (1 + k2/2 - k^2) / D.
    Both are Sutherland and Schneider's (2015) formulas. The cos
    variance exceeds the sincos one by (k^2 - k^4/2)/D > 0.
    """
    gamma, D = 0.5, 8
    k = np.array([0.8, 0.5, 0.2])
    X = _points_at(k, gamma, d=3)
    np.testing.assert_allclose(kernel_matrix(X, gamma=gamma)[0, 1:], k)
    z = np.sqrt(-2 * np.log(k))  # k = exp(-z^2 / 2), sigma = 1
    variances = {}
    for variant, expected in [("sincos", (1 + k ** 4 - 2 * k ** 2) / D),
                              ("cos", (1 + k ** 4 / 2 - k ** 2) / D)]:
        np.testing.assert_allclose(rff_variance(z, D, variant), expected, rtol=1e-12)
        expected = rff_variance(z, D, variant)
        est = _estimates(lambda s, variant=variant: RandomFourierFeatures(
            D, gamma=gamma, variant=variant, random_state=s), X, 2000)
        var, se = _variance_and_se(est)
        np.testing.assert_array_less(np.abs(var - expected), N_SE * se)
        variances[variant] = var, se
    (v_sc, se_sc), (v_cos, se_cos) = variances["sincos"], variances["cos"]
    # the gap (k^2 - k^4/2)/D is 0.054 and 0.027 at k = 0.8, 0.5 (at k = 0.2, 0.005: ~1 SE)
    assert np.all((v_cos - v_sc)[:2] > N_SE * np.hypot(se_sc, se_cos)[:2])


# ---------------------------------------------------------------- ORF and SORF

def test_orf_variance_formula_has_yu_et_al_leading_term():
    """Yu et al. 2016, Theorem 1: Var_ORF = Var_RFF - (d-1)/d e^{-z^2} z^4 / (2d) + O(1/d^2)
    (D = d, Var_RFF = (1 - e^{-z^2})^2 / (2d)): d^2 |Var_ORF - that| stays bounded while
    the O(1/d) correction, times d^2, grows like d (a wrong coefficient would grow too)."""
    z = np.array([0.5, 1.0, 2.0])
    for d in (16, 64, 256, 1024):
        var_rff = (1 - np.exp(-z ** 2)) ** 2 / (2 * d)
        correction = (d - 1) / d * np.exp(-z ** 2) * z ** 4 / (2 * d)
        np.testing.assert_allclose(rff_variance(z, 2 * d), var_rff, rtol=1e-12)
        np.testing.assert_allclose(orf_variance(z, d, leading_order=True), var_rff - correction,
                                   rtol=1e-12)
        assert np.all(d ** 2 * np.abs(orf_variance(z, d) - (var_rff - correction)) < 0.5)
        assert np.all(d ** 2 * correction > d / 100)
        assert np.all(orf_variance(z, d) < var_rff)


@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_orf_variance_matches_the_exact_expression_and_is_below_rff(variant):
    """One block (m = d = 4 frequencies), sigma = 1, ||delta|| = z: Monte Carlo over seeds
    against orf_variance, within 4 SE; also unbiased, and below RFF's variance."""
    d, gamma = 4, 0.5  # sigma = 1/sqrt(2 gamma) = 1
    z = np.array([0.5, 1.0, 2.0])
    X = _points_at(np.exp(-z ** 2 / 2), gamma, d)
    D = 2 * d if variant == "sincos" else d
    est = _estimates(lambda s: OrthogonalRandomFeatures(D, gamma=gamma, variant=variant,
                                                        random_state=s), X, 2000)
    mean, se_mean = _mean_and_se(est)
    np.testing.assert_array_less(np.abs(mean - np.exp(-z ** 2 / 2)), N_SE * se_mean)
    var, se = _variance_and_se(est)
    expected = orf_variance(z, d, variant)
    np.testing.assert_array_less(np.abs(var - expected), N_SE * se)
    k, k2 = np.exp(-z ** 2 / 2), np.exp(-2 * z ** 2)
    var_rff = (1 + k2 - 2 * k ** 2) / D if variant == "sincos" else (1 + k2 / 2 - k ** 2) / D
    np.testing.assert_allclose(rff_variance(z, D, variant), var_rff, rtol=1e-12)
    assert np.all(expected < var_rff)
    if variant == "sincos":  # 40-59 % below RFF; with the phases' own variance only 2-8 %,
        np.testing.assert_array_less(var + N_SE * se, var_rff)  # less than 4 SE for 'cos'


def test_orf_variance_is_the_derived_expression_divided_by_the_blocks():
    r"""orf_variance is (v_1 + (d - 1) C) / d with C = 1F1(d; d/2; -z^2/2) - e^{-z^2} (the
    derivation in its docstring), divided by the number of independent blocks; at z = 0 the
    estimate is exactly 1 ('sincos': zero variance)."""
    z = np.array([0.0, 0.3, 1.0, 2.5])
    d = 6
    k, k2 = np.exp(-z ** 2 / 2), np.exp(-2 * z ** 2)
    C = hyp1f1(d, d / 2, -z ** 2 / 2) - np.exp(-z ** 2)
    for variant, v1 in (("sincos", 0.5 + k2 / 2 - k ** 2), ("cos", 1 + k2 / 2 - k ** 2)):
        exact = (v1 + (d - 1) * C) / d
        np.testing.assert_allclose(orf_variance(z, d, variant), exact, rtol=1e-12, atol=1e-16)
        np.testing.assert_allclose(orf_variance(z, d, variant, n_blocks=3), exact / 3,
                                   rtol=1e-12, atol=1e-16)
        # leading order: C replaced by -e^{-z^2} z^4 / (2d); RFF's variance is v_1 / m
        lead = (v1 - (d - 1) * np.exp(-z ** 2) * z ** 4 / (2 * d)) / d
        np.testing.assert_allclose(orf_variance(z, d, variant, leading_order=True), lead,
                                   rtol=1e-12, atol=1e-16)
        D = 2 * d if variant == "sincos" else d
        np.testing.assert_allclose(rff_variance(z, D, variant), v1 / d, rtol=1e-12)
    assert orf_variance(0.0, d) == 0.0 and rff_variance(0.0, 2 * d) == 0.0
    assert orf_variance(1.0, d).shape == () and rff_variance([[1.0, 2.0]], 4).shape == (1, 2)


def test_orf_variance_with_two_blocks_matches_monte_carlo():
    """m = 2d frequencies in two independent blocks: half the one-block variance, within 4 SE."""
    d, gamma = 4, 0.5
    z = np.array([0.5, 1.0, 2.0])
    X = _points_at(np.exp(-z ** 2 / 2), gamma, d)
    est = _estimates(lambda s: OrthogonalRandomFeatures(4 * d, gamma=gamma, random_state=s),
                     X, 2000)
    var, se = _variance_and_se(est)
    np.testing.assert_array_less(np.abs(var - orf_variance(z, d, n_blocks=2)), N_SE * se)


# ---------------------------------------------------------------- any width: a cut last block

def test_n_frequencies_and_block_sizes():
    """m = D/2 ('sincos', D even) or D ('cos'), any D; None is one block. The blocks are
    whole ones and a cut last one."""
    assert n_frequencies(10, "sincos") == 5 and n_frequencies(7, "cos") == 7
    assert n_frequencies(500, "sincos", 123) == 250 and n_frequencies(None, "cos", 16) == 16
    with pytest.raises(ValueError, match="n_components must be even .*n_components=7; "
                                         "use n_components=8 or variant='cos'"):
        n_frequencies(7, "sincos", 16)
    assert block_sizes(250, 123) == [123, 123, 4]
    assert block_sizes(246, 123) == [123, 123] and block_sizes(3, 8) == [3]
    assert sum(block_sizes(1001, 64)) == 1001


@pytest.mark.parametrize("D,variant,sizes", [(6, "sincos", [3]), (12, "sincos", [4, 2]),
                                             (7, "cos", [4, 3]), (5, "cos", [4, 1])])
def test_cut_block_is_unbiased_with_the_variance_of_its_block_sizes(D, variant, sizes):
    """d = 4, m = D/2 ('sincos') or D ('cos') frequencies in whole blocks and one cut block:
    the blocks that fit() draws, the mean k (unbiased: a cut block's rows are still
    N(0, I/sigma^2)) and orf_variance(n_components=D), (m v_1 + C sum_b r_b(r_b - 1)) / m^2,
    all within 4 SE of Monte Carlo over seeds."""
    d, gamma = 4, 0.5
    z = np.array([0.5, 1.0, 2.0])
    X = _points_at(np.exp(-z ** 2 / 2), gamma, d)
    m = n_frequencies(D, variant)
    assert block_sizes(m, d) == sizes
    est = _estimates(lambda s: OrthogonalRandomFeatures(D, gamma=gamma, variant=variant,
                                                        random_state=s), X, 2000)
    mean, se_mean = _mean_and_se(est)
    np.testing.assert_array_less(np.abs(mean - np.exp(-z ** 2 / 2)), N_SE * se_mean)
    var, se = _variance_and_se(est)
    expected = orf_variance(z, d, variant, n_components=D)
    np.testing.assert_array_less(np.abs(var - expected), N_SE * se)
    # the closed form itself, from the one-block pieces: v_1 = m Var_RFF, C from one block
    v1 = m * rff_variance(z, D, variant)
    C = (d * orf_variance(z, d, variant) - v1) / (d - 1)
    pairs = sum(r * (r - 1) for r in sizes)
    np.testing.assert_allclose(expected, (m * v1 + C * pairs) / m ** 2, rtol=1e-12)


def test_orf_variance_of_whole_blocks_is_the_same_by_width_or_by_blocks():
    z = np.array([0.3, 1.0, 2.5])
    for variant, per in (("sincos", 2), ("cos", 1)):
        for n_blocks in (1, 3):
            np.testing.assert_allclose(
                orf_variance(z, 6, variant, n_components=per * 6 * n_blocks),
                orf_variance(z, 6, variant, n_blocks=n_blocks), rtol=1e-12)
        # one frequency: no pair, the variance of one RFF term
        np.testing.assert_allclose(orf_variance(z, 6, variant, n_components=per),
                                   rff_variance(z, per, variant), rtol=1e-12)


@pytest.mark.parametrize("structured", [False, True])
@pytest.mark.parametrize("D,variant", [(1, "cos"), (2, "sincos"), (7, "cos"), (10, "sincos"),
                                       (500, "sincos"), (123, "cos")])
def test_any_width_works_and_whole_blocks_keep_their_numbers(D, variant, structured):
    """Any n_components gives D columns; the same seed draws the same whole blocks as at
    the whole-block width below it (the cut block comes after them in the seed's stream)."""
    X = np.random.default_rng(4).normal(size=(9, 6))
    block = 8 if structured else 6
    est = OrthogonalRandomFeatures(D, structured=structured, variant=variant, random_state=2)
    Z = est.fit_transform(X)
    m = D // 2 if variant == "sincos" else D
    assert Z.shape == (9, D) and est.n_frequencies_ == m and np.all(np.isfinite(Z))
    n_whole = m // block
    if not n_whole:
        return
    per = 2 if variant == "sincos" else 1
    whole = OrthogonalRandomFeatures(per * n_whole * block, structured=structured,
                                     variant=variant, random_state=2).fit(X)
    if structured:
        np.testing.assert_array_equal(est.signs_[:n_whole], whole.signs_)
    else:
        np.testing.assert_array_equal(est.frequencies_[:, :n_whole * block], whole.frequencies_)
    if variant == "sincos":  # the same features, scaled by sqrt(1/m) instead of sqrt(1/m_whole)
        mw = n_whole * block
        Zw = whole.transform(X) * np.sqrt(mw)
        np.testing.assert_allclose(Z[:, :mw] * np.sqrt(m), Zw[:, :mw], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(Z[:, m:m + mw] * np.sqrt(m), Zw[:, mw:], rtol=1e-12,
                                   atol=1e-14)


def test_rows_of_a_cut_orf_block_are_orthogonal_and_gaussian_in_length():
    """123 features, D = 500 sin-cos: m = 250 = 2 blocks of 123 and 4 rows of a third. The
    cut rows are orthogonal (to machine precision, relative to their squared lengths) and
    not orthogonal to the other blocks' rows; their lengths are sigma^{-1} chi(d) draws."""
    d, gamma = 123, 0.01
    orf = OrthogonalRandomFeatures(500, gamma=gamma, random_state=0).fit(np.zeros((2, d)))
    W = orf.frequencies_
    assert W.shape == (d, 250)
    cut = W[:, 246:]
    gram = cut.T @ cut
    lengths2 = np.diag(gram)
    assert np.abs(gram - np.diag(lengths2)).max() < 1e-12 * lengths2.max()
    assert np.abs(cut.T @ W[:, :123]).max() > 0.05 * lengths2.max()
    # the cut rows are the first rows of the block that the seed draws after the whole ones
    full = OrthogonalRandomFeatures(2 * 369, gamma=gamma, random_state=0).fit(np.zeros((2, d)))
    np.testing.assert_array_equal(full.frequencies_[:, :250], W)


def test_rows_of_a_cut_sorf_block_are_orthogonal():
    """SORF with d = d' = 8 and m = 8 + 3: the 3 rows of the cut block, formed from its
    signs, are orthogonal with the length sqrt(d')/sigma, and the features are the trig map
    of those rows."""
    X = np.random.default_rng(5).normal(size=(6, 8))
    sorf = OrthogonalRandomFeatures(22, structured=True, gamma=0.25, random_state=3).fit(X)
    assert sorf.signs_.shape == (2, 3, 8)
    blocks = _sorf_blocks(sorf)
    cut = blocks[1, :3]
    np.testing.assert_allclose(cut @ cut.T, 2 * 0.25 * 8 * np.eye(3), atol=1e-12)
    P = X @ blocks.reshape(-1, 8)[:11].T
    np.testing.assert_allclose(sorf.transform(X),
                               np.hstack([np.cos(P), np.sin(P)]) / np.sqrt(11),
                               rtol=1e-12, atol=1e-13)


# ---------------------------------------------------------------- feature names

@pytest.mark.parametrize("est,prefix,width", [
    (RandomFourierFeatures(6, random_state=0), "randomfourierfeatures", 6),
    (RandomFourierFeatures(5, variant="cos", random_state=0), "randomfourierfeatures", 5),
    (OrthogonalRandomFeatures(10, random_state=0), "orthogonalrandomfeatures", 10),
    (OrthogonalRandomFeatures(structured=True, variant="cos", random_state=0),
     "orthogonalrandomfeatures", 4),
])
def test_feature_names_out_name_every_column(est, prefix, width):
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    X, y = _X, np.arange(len(_X), dtype=float)
    names = est.fit(X).get_feature_names_out()
    assert list(names) == [f"{prefix}{i}" for i in range(width)]
    assert est.transform(X).shape[1] == width
    pipe = make_pipeline(clone(est), Ridge()).fit(X, y)
    np.testing.assert_array_equal(pipe[:-1].get_feature_names_out(), names)


def test_set_output_pandas_gives_named_columns():
    pd = pytest.importorskip("pandas")
    est = OrthogonalRandomFeatures(8, random_state=0).set_output(transform="pandas")
    frame = est.fit_transform(_X)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(est.get_feature_names_out())
    np.testing.assert_allclose(frame.to_numpy(),
                               OrthogonalRandomFeatures(8, random_state=0).fit_transform(_X),
                               rtol=1e-15)


@pytest.mark.parametrize("call,match", [
    (lambda: rff_variance(1.0, 0), "n_components"),
    (lambda: rff_variance(1.0, 7, "sincos"), "n_components must be even"),
    (lambda: rff_variance(1.0, 8, "sin"), "variant"),
    (lambda: rff_variance(-1.0, 8), "z must"),
    (lambda: orf_variance(1.0, 1), "d must"),
    (lambda: orf_variance(1.0, 4.0), "d must"),
    (lambda: orf_variance(1.0, 4, n_blocks=0), "n_blocks"),
    (lambda: orf_variance(np.nan, 4), "z must"),
    (lambda: orf_variance(1.0, 4, n_components=0), "n_components"),
    (lambda: orf_variance(1.0, 4, n_components=2.0), "n_components"),
    (lambda: orf_variance(1.0, 4, n_components=7), "n_components must be even"),
    (lambda: orf_variance(1.0, 4, n_blocks=2, n_components=8), "not both"),
    (lambda: orf_variance(1.0, 4, "sin"), "variant"),
])
def test_closed_form_variances_refuse_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_orf_blocks_are_orthogonal_with_chi_lengths_and_uniform_directions():
    d, gamma = 6, 0.3
    sigma = 1 / np.sqrt(2 * gamma)
    orf = OrthogonalRandomFeatures(2 * 300 * d, gamma=gamma, random_state=0).fit(np.ones((2, d)))
    W = orf.frequencies_
    assert W.shape == (d, 300 * d)
    blocks = W.T.reshape(300, d, d)  # blocks[b, i] = frequency i of block b
    gram = blocks @ blocks.transpose(0, 2, 1)
    lengths = np.sqrt(np.einsum("bii->bi", gram))
    off_diagonal = gram - lengths[:, :, None] ** 2 * np.eye(d)
    assert np.abs(off_diagonal).max() < 1e-12 * (lengths ** 2).max()
    cross = blocks[0] @ blocks[1].T  # two blocks are independent, not orthogonal
    assert np.abs(cross).max() > 0.1 * (lengths ** 2).max()
    # Kolmogorov-Smirnov at level 1e-3: lengths * sigma ~ chi(d), and a coordinate u_1 of a
    # direction is uniform on the sphere's: u_1^2 ~ Beta(1/2, (d - 1)/2)
    assert scipy.stats.kstest(lengths.ravel() * sigma, scipy.stats.chi(d).cdf).pvalue > 1e-3
    u1 = blocks[:, :, 0] / lengths
    # Haar: each entry is symmetric about 0 (a QR without the sign fix makes Q_11 < 0 always)
    positive = (blocks > 0).mean(axis=0)
    assert np.all(np.abs(positive - 0.5) < N_SE * 0.5 / np.sqrt(len(blocks)))
    assert scipy.stats.kstest(u1.ravel() ** 2, scipy.stats.beta(0.5, (d - 1) / 2).cdf).pvalue > 1e-3


def _sorf_blocks(sorf):
    """SORF's blocks (n_blocks, d', d'), formed from signs_: (sqrt(d')/sigma) H D1 H D2 H D3
    with H = hadamard(d')/sqrt(d'); row i of block b is frequency b*d' + i, padded."""
    d_pad = sorf.n_padded_
    H = scipy.linalg.hadamard(d_pad) / np.sqrt(d_pad)
    sigma = 1 / np.sqrt(2 * sorf.gamma_)
    return np.array([np.sqrt(d_pad) / sigma * H @ np.diag(D1) @ H @ np.diag(D2) @ H @ np.diag(D3)
                     for D1, D2, D3 in sorf.signs_.astype(np.float64)])


def _sorf_dense(sorf, d):
    """SORF's W (d, m): the blocks restricted to the first d coordinates (zero padding)."""
    return _sorf_blocks(sorf).reshape(-1, sorf.n_padded_)[:, :d].T


@pytest.mark.parametrize("d,variant", [(5, "sincos"), (5, "cos"), (8, "sincos"), (13, "cos")])
def test_sorf_equals_its_dense_matrix(d, variant):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(7, d))
    d_pad = 1 << (d - 1).bit_length()
    m = 3 * d_pad  # three blocks
    D = 2 * m if variant == "sincos" else m
    sorf = OrthogonalRandomFeatures(D, structured=True, variant=variant, random_state=1).fit(X)
    assert sorf.n_padded_ == d_pad and sorf.signs_.shape == (3, 3, d_pad)
    assert set(np.unique(sorf.signs_)) == {-1.0, 1.0}
    assert not hasattr(sorf, "frequencies_")  # O(D) memory: no dense W is kept
    W = _sorf_dense(sorf, d)
    P = X @ W
    if variant == "sincos":
        expected = np.hstack([np.cos(P), np.sin(P)]) / np.sqrt(m)
    else:
        expected = np.sqrt(2 / m) * np.cos(P + sorf.offsets_)
    np.testing.assert_allclose(sorf.transform(X), expected, rtol=1e-12, atol=1e-13)
    # within a block, the (padded) frequencies are orthogonal, all of length sqrt(d')/sigma
    blocks = _sorf_blocks(sorf)
    np.testing.assert_allclose(blocks @ blocks.transpose(0, 2, 1),
                               np.broadcast_to(2 * sorf.gamma_ * d_pad * np.eye(d_pad),
                                               blocks.shape), atol=1e-12)


def test_sorf_same_numbers_with_the_numpy_fwht(monkeypatch):
    X = np.random.default_rng(0).normal(size=(20, 10))
    sorf = OrthogonalRandomFeatures(64, structured=True, random_state=0).fit(X)
    compiled = sorf.transform(X)
    monkeypatch.setattr(rf, "fwht", lambda a: fwht(a, backend="numpy"))
    np.testing.assert_allclose(sorf.transform(X), compiled, rtol=1e-12, atol=1e-15)


def test_sorf_bias_vanishes_as_d_grows():
    """SORF's rows have the fixed length sqrt(d')/sigma (no chi lengths), so it is biased
    (Yu et al. 2016, Theorem 3: the bias vanishes as d grows). At d = 128 the mean estimate
    is within 4 SE + 0.005 of k; at d = 8 and z = 2 it is visibly off (~0.08)."""
    for d, z, biased in [(128, np.array([0.5, 1.0]), False), (8, np.array([2.0]), True)]:
        X = _points_at(np.exp(-z ** 2 / 2), 0.5, d)
        est = _estimates(lambda s, d=d: OrthogonalRandomFeatures(
            2 * d, gamma=0.5, structured=True, random_state=s), X, 200)
        mean, se = _mean_and_se(est)
        off = np.abs(mean - np.exp(-z ** 2 / 2)) > N_SE * se + 0.005
        assert np.all(off) if biased else not np.any(off)


# ---------------------------------------------------------------- dtypes and seeds

@pytest.mark.parametrize("make", [
    lambda **kw: RandomFourierFeatures(40, **kw),
    lambda **kw: RandomFourierFeatures(40, kernel="laplacian", variant="cos", **kw),
    lambda **kw: OrthogonalRandomFeatures(40, **kw),
    lambda **kw: OrthogonalRandomFeatures(32, structured=True, variant="cos", **kw),
])
def test_float32_features_equal_float64_ones_to_float32_precision(make):
    X = np.random.default_rng(0).normal(size=(30, 5))
    t64 = make(random_state=3, dtype=np.float64).fit(X)
    t32 = make(random_state=3, dtype=np.float32).fit(X)
    Z64, Z32 = t64.transform(X), t32.transform(X)
    assert Z64.dtype == np.float64 and Z32.dtype == np.float32
    assert t32.transform(X.astype(np.float32)).dtype == np.float32
    assert t64.transform(X.astype(np.float32)).dtype == np.float64  # dtype is honoured
    for name in ("frequencies_", "offsets_", "signs_"):
        if hasattr(t64, name):
            assert getattr(t32, name).dtype == np.float32
            np.testing.assert_array_equal(getattr(t32, name),
                                          getattr(t64, name).astype(np.float32))
    # the projections are sums of d products of size |x_j w_j|, each rounded in float32
    W = t64.frequencies_ if hasattr(t64, "frequencies_") else _sorf_dense(t64, 5)
    bound = (np.abs(X) @ np.abs(W)).max()
    scale = np.abs(Z64).max()
    np.testing.assert_allclose(Z32, Z64, rtol=0,
                               atol=10 * np.finfo(np.float32).eps * (1 + bound) * scale)


@pytest.mark.parametrize("make", [
    lambda **kw: RandomFourierFeatures(40, **kw),
    lambda **kw: RandomFourierFeatures(41, kernel="cauchy", variant="cos", **kw),
    lambda **kw: OrthogonalRandomFeatures(46, **kw),
    lambda **kw: OrthogonalRandomFeatures(38, structured=True, **kw),
    lambda **kw: OrthogonalRandomFeatures(19, structured=True, variant="cos", **kw),
])
@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_trig_gives_numpys_features(make, sparse):
    """The compiled cosines and sines (backend='numba', float64) are numpy's to 2 ulp of
    the scale, on the same projections; float32 output takes numpy's on both backends."""
    X = np.random.default_rng(0).normal(size=(60, 5)) * 3.0
    X = sp.csr_matrix(X) if sparse else X
    numpy_map = make(random_state=2, backend="numpy").fit(X)
    numba_map = make(random_state=2, backend="numba").fit(X)
    Z_numpy, Z_numba = numpy_map.transform(X), numba_map.transform(X)
    assert Z_numba.shape == Z_numpy.shape and Z_numba.dtype == np.float64
    scale = np.abs(Z_numpy).max()
    np.testing.assert_allclose(Z_numba, Z_numpy, rtol=0, atol=2 * np.spacing(scale))
    assert np.abs(Z_numba - Z_numpy).max() > 0  # another path, not numpy's again
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(make(random_state=2, backend="numba").fit(X32).transform(X32),
                                  make(random_state=2, backend="numpy").fit(X32).transform(X32))


@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_trig_features_reference_and_compiled_twin_agree(variant):
    """The pair by name: trig_features_numpy and _trig_features_numba map the same
    projections (the right half of Z for 'sincos') to the same features, to 2 ulp."""
    rng = np.random.default_rng(5)
    Z = rng.normal(scale=4.0, size=(9, 14))
    offsets = rng.uniform(0.0, 2.0 * np.pi, size=14) if variant == "cos" else np.empty(0)
    expected = rf.trig_features_numpy(Z.copy(), offsets, 0.25)
    compiled = Z.copy()
    rf._trig_features_numba(compiled, offsets, 0.25)
    np.testing.assert_allclose(compiled, expected, rtol=0, atol=2 * np.spacing(0.25))
    assert np.abs(expected).max() <= 0.25 and np.abs(expected).max() > 0.2


def _rbf_sampler_dtype(fit_dtype, transform_dtype):
    """The output dtype of scikit-learn's RBFSampler for these input dtypes."""
    from sklearn.kernel_approximation import RBFSampler
    X = np.random.default_rng(0).normal(size=(4, 3))
    sampler = RBFSampler(n_components=4, random_state=0).fit(X.astype(fit_dtype))
    return sampler.transform(X.astype(transform_dtype)).dtype


@pytest.mark.parametrize("make", [
    lambda **kw: RandomFourierFeatures(40, **kw),
    lambda **kw: RandomFourierFeatures(41, kernel="laplacian", variant="cos", **kw),
    lambda **kw: OrthogonalRandomFeatures(40, **kw),
    lambda **kw: OrthogonalRandomFeatures(32, structured=True, variant="cos", **kw),
])
def test_default_dtype_follows_the_input_as_rbf_sampler(make):
    """Float32 in, float32 out by default (dtype=None), as RBFSampler and lsl's
    Nystroem; float64 results are those of dtype=np.float64, bit for bit."""
    X = np.random.default_rng(0).normal(size=(30, 5))
    X32 = X.astype(np.float32)
    default, explicit = make(random_state=3).fit(X), make(random_state=3, dtype=np.float64).fit(X)
    assert default.dtype_ == np.float64
    np.testing.assert_array_equal(default.transform(X), explicit.transform(X))
    single, explicit32 = make(random_state=3).fit(X32), make(random_state=3,
                                                             dtype=np.float32).fit(X32)
    assert single.dtype_ == np.float32
    Z32 = single.transform(X32)
    assert Z32.dtype == np.float32
    np.testing.assert_array_equal(Z32, explicit32.transform(X32))
    for fitted, fit_dtype in ((default, np.float64), (single, np.float32)):
        for Xt in (X, X32):
            assert fitted.transform(Xt).dtype == _rbf_sampler_dtype(fit_dtype, Xt.dtype)
    assert make(random_state=3).fit(X.astype(np.int64)).transform(X).dtype == np.float64
    assert set(default.__sklearn_tags__().transformer_tags.preserves_dtype) == {
        "float64", "float32"}
    if not getattr(default, "structured", False):  # CSR float32 too
        Z_sparse = single.transform(sp.csr_matrix(X32))
        assert Z_sparse.dtype == np.float32
        np.testing.assert_allclose(Z_sparse, Z32, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: RandomFourierFeatures(10**12),
    lambda: RandomFourierFeatures(10**12, variant="cos"),
    lambda: OrthogonalRandomFeatures(10**12),
    lambda: OrthogonalRandomFeatures(10**12, structured=True),
])
def test_absurd_n_components_names_n_components(make):
    """A MemoryError names the parameter that asked for the memory, not only a shape."""
    with pytest.raises(MemoryError, match=r"n_components=1000000000000 asks for more memory "
                                          r"than there is \(Unable to allocate"):
        make().fit(np.zeros((5, 3)))


@pytest.mark.parametrize("make", [
    lambda s: RandomFourierFeatures(20, kernel="cauchy", random_state=s),
    lambda s: RandomFourierFeatures(21, variant="cos", random_state=s),
    lambda s: OrthogonalRandomFeatures(20, random_state=s),
    lambda s: OrthogonalRandomFeatures(16, structured=True, random_state=s),
])
def test_same_seed_same_numbers_different_seed_different_numbers(make):
    X = np.random.default_rng(0).normal(size=(10, 5))
    np.testing.assert_array_equal(make(7).fit_transform(X), make(7).fit_transform(X))
    assert not np.allclose(make(7).fit_transform(X), make(8).fit_transform(X))
    from_generator = make(np.random.default_rng(7)).fit_transform(X)
    np.testing.assert_array_equal(from_generator, make(7).fit_transform(X))


def test_gamma_none_is_one_over_d():
    X = np.ones((3, 4))
    assert RandomFourierFeatures().fit(X).gamma_ == 0.25
    assert OrthogonalRandomFeatures(8).fit(X).gamma_ == 0.25
    assert OrthogonalRandomFeatures(8, gamma=2.0).fit(X).gamma_ == 2.0
    assert OrthogonalRandomFeatures.kernel == "gaussian"
    assert "kernel" not in OrthogonalRandomFeatures().get_params()


# ---------------------------------------------------------------- bad input

_X = np.random.default_rng(0).normal(size=(10, 3))
_NAN = with_nan(_X)
_INF = with_inf(_X)


@pytest.fixture
def nothing_may_run(forbid):
    forbid(rf, "draw_frequencies", "draw_orthogonal_frequencies", "fwht", "sorf_projections")
    forbid(rf._FourierFeatures, "_project")


@pytest.mark.parametrize("make,X,match", [
    (lambda: RandomFourierFeatures(n_components=0), _X, "'n_components'"),
    (lambda: RandomFourierFeatures(n_components=2.5), _X, "'n_components'"),
    (lambda: RandomFourierFeatures(gamma=0.0), _X, "'gamma'"),
    (lambda: RandomFourierFeatures(gamma=-1.0), _X, "'gamma'"),
    (lambda: RandomFourierFeatures(kernel="rbf"), _X, "'kernel'"),
    (lambda: RandomFourierFeatures(kernel="polynomial"), _X, "'kernel'"),
    (lambda: RandomFourierFeatures(variant="sin"), _X, "'variant'"),
    (lambda: RandomFourierFeatures(dtype=np.int64), _X, "'dtype'"),
    (lambda: RandomFourierFeatures(random_state=-1), _X, "'random_state'"),
    (lambda: RandomFourierFeatures(n_components=7), _X, "n_components must be even"),
    (RandomFourierFeatures, _NAN, "NaN"),
    (RandomFourierFeatures, _INF, "infinity"),
    (RandomFourierFeatures, np.empty((0, 3)), "0 sample"),
    (lambda: OrthogonalRandomFeatures(n_components=0), _X, "'n_components'"),
    (lambda: OrthogonalRandomFeatures(gamma=0.0), _X, "'gamma'"),
    (lambda: OrthogonalRandomFeatures(variant="sin"), _X, "'variant'"),
    (lambda: OrthogonalRandomFeatures(structured="yes"), _X, "'structured'"),
    (lambda: OrthogonalRandomFeatures(n_components=7, variant="sincos"), _X,
     "n_components must be even .*n_components=7; use n_components=8 or variant='cos'"),
    (lambda: OrthogonalRandomFeatures(n_components=7, structured=True), _X,
     "n_components must be even"),
    (lambda: OrthogonalRandomFeatures(6), _X[:, :1], "n_features=1"),
    (lambda: OrthogonalRandomFeatures(6, structured=True), _X[:, :1], "n_features=1"),
    (lambda: OrthogonalRandomFeatures(n_components=-3, variant="cos"), _X, "'n_components'"),
    (lambda: OrthogonalRandomFeatures(n_components=2.0), _X, "'n_components'"),
    (OrthogonalRandomFeatures, _NAN, "NaN"),
])
def test_bad_input_is_named_before_anything_is_drawn(make, X, match, nothing_may_run):
    with pytest.raises(ValueError, match=match):
        make().fit(X)


@pytest.mark.parametrize("make", [
    lambda: RandomFourierFeatures(6, random_state=0),
    lambda: OrthogonalRandomFeatures(6, random_state=0),
    lambda: OrthogonalRandomFeatures(8, structured=True, random_state=0),
])
def test_bad_input_at_transform(make, forbid):
    fitted = make().fit(_X)
    forbid(rf, "fwht", "sorf_projections")
    forbid(rf._FourierFeatures, "_project")
    forbid(OrthogonalRandomFeatures, "_project")
    with pytest.raises(ValueError, match="X has 4 features, but .* is expecting 3"):
        fitted.transform(np.ones((2, 4)))
    with pytest.raises(ValueError, match="NaN"):
        fitted.transform(_NAN)


# ---------------------------------------------------------------- kernel_approximation_error

def test_error_of_an_exact_map_is_zero():
    """The explicit polynomial map reproduces its kernel: no error. Its degree and coef0
    are read from the transformer (the defaults 3 and 1.0 would give a large error)."""
    X = np.random.default_rng(0).normal(size=(30, 3))
    err = kernel_approximation_error(PolynomialFeatureMap(degree=2, coef0=0.5), X,
                                     kernel="polynomial")
    assert err["relative_frobenius"] < 1e-13 and err["max_absolute"] < 1e-11
    assert err["mean_squared"] < 1e-24
    wrong = kernel_approximation_error(PolynomialFeatureMap(degree=2, coef0=0.5).fit(X), X,
                                       kernel="polynomial", degree=3, coef0=1.0)
    assert wrong["relative_frobenius"] > 0.5


def test_error_equals_the_direct_computation_and_fits_when_needed():
    X = np.random.default_rng(1).normal(size=(12, 4))
    fresh = RandomFourierFeatures(50, kernel="laplacian", gamma=0.3, random_state=2)
    err = kernel_approximation_error(fresh, X)  # fits it, kernel and gamma from it
    assert fresh.frequencies_.shape == (4, 25)
    Z = RandomFourierFeatures(50, kernel="laplacian", gamma=0.3, random_state=2).fit_transform(X)
    K = np.exp(-0.3 * np.abs(X[:, None, :] - X[None, :, :]).sum(axis=2))
    E = Z @ Z.T - K
    assert err == pytest.approx({"relative_frobenius": np.sqrt((E ** 2).sum() / (K ** 2).sum()),
                                 "max_absolute": np.abs(E).max(),
                                 "mean_squared": (E ** 2).sum() / 144}, rel=1e-12)
    assert all(type(v) is float for v in err.values())
    # an explicit kernel and gamma override the transformer's
    other = kernel_approximation_error(fresh, X, kernel="gaussian", gamma=0.3)
    Kg = kernel_matrix(X, gamma=0.3)
    assert other["max_absolute"] == pytest.approx(np.abs(Z @ Z.T - Kg).max(), rel=1e-12)


def test_orf_error_is_below_rff_error_on_average():
    """Yu et al.'s point, on data: over 10 seeds the mean relative error of ORF at
    D = 2d is below RFF's (by ~15 %, over 4 SE of the difference of the means)."""
    X = np.random.default_rng(0).normal(size=(60, 16))
    rff = [kernel_approximation_error(RandomFourierFeatures(32, random_state=s), X)
           ["relative_frobenius"] for s in range(10)]
    orf = [kernel_approximation_error(OrthogonalRandomFeatures(32, random_state=s), X)
           ["relative_frobenius"] for s in range(10)]
    se = np.hypot(np.std(orf, ddof=1), np.std(rff, ddof=1)) / np.sqrt(10)
    assert np.mean(rff) - np.mean(orf) > N_SE * se


@pytest.mark.parametrize("structured", [False, True])
@pytest.mark.parametrize("variant", ["sincos", "cos"])
def test_orthogonal_features_default_to_one_block(structured, variant):
    X = np.random.default_rng(3).normal(size=(20, 12))
    block = 16 if structured else 12  # d' = 16 is the power of two at or above d = 12
    est = OrthogonalRandomFeatures(structured=structured, variant=variant, random_state=0)
    Z = est.fit_transform(X)
    assert est.n_components is None and est.n_frequencies_ == block
    assert Z.shape == (20, 2 * block if variant == "sincos" else block)


@pytest.mark.parametrize("make", [
    lambda: RandomFourierFeatures(40, kernel="laplacian", gamma=0.3, random_state=0),
    lambda: RandomFourierFeatures(40, variant="cos", dtype=np.float32, random_state=0),
    lambda: OrthogonalRandomFeatures(24, gamma=0.3, random_state=0),
])
def test_sparse_input_gives_the_dense_features(make):
    X = sp.random(30, 6, density=0.4, random_state=0, format="csr")
    Z_sparse, Z_dense = make().fit_transform(X), make().fit_transform(X.toarray())
    assert isinstance(Z_sparse, np.ndarray) and Z_sparse.dtype == Z_dense.dtype
    tol = 1e-6 if Z_dense.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(Z_sparse, Z_dense, rtol=tol, atol=tol)


def test_sorf_takes_sparse_input():
    """SORF densifies a CSR X (its padded copy is no larger than the projections)."""
    X = sp.random(30, 6, density=0.4, random_state=0, format="csr")
    for variant in ("sincos", "cos"):
        make = lambda: OrthogonalRandomFeatures(20, structured=True, variant=variant,  # noqa
                                                random_state=0)
        fitted = make().fit(X)
        np.testing.assert_array_equal(fitted.transform(X), make().fit(X.toarray()).transform(
            X.toarray()))
        assert fitted.__sklearn_tags__().input_tags.sparse
