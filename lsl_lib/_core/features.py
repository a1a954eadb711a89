"""The width arithmetic of the random feature maps (RFF, ORF, SORF, Fastfood, random
binning): how many frequencies an output width holds, in which blocks, and the
``_parameter_constraints`` the maps share.

Shared machinery of lectures 07-08 (:mod:`lsl_lib.random_features`), 10
(:mod:`lsl_lib.fastfood`) and 12 (:mod:`lsl_lib.random_binning`), so that no feature map
depends on another's module for it.
"""
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, Options, StrOptions

from lsl_lib._core.validation import ITERATIVE_CONSTRAINTS

#: The two real forms of random Fourier features: a cos and a sin of each frequency, or
#: a cos with a random phase (Sutherland and Schneider 2015).
FEATURE_VARIANTS = ("sincos", "cos")

#: ``_parameter_constraints`` entries shared by the random feature maps (RFF, ORF, SORF,
#: Fastfood, random binning): the output width, the variant, the output dtype (None: X's)
#: and the seed.
FEATURE_MAP_CONSTRAINTS = {
    "n_components": [Interval(Integral, 1, None, closed="left")],
    "variant": [StrOptions(set(FEATURE_VARIANTS))],
    "dtype": [Options(type, {np.float32, np.float64}), None],
    "random_state": ITERATIVE_CONSTRAINTS["random_state"],
}

def n_frequencies(n_components, variant, block=1):
    """The number m of frequencies behind an output of width D = ``n_components``.

    D/2 for 'sincos', D for 'cos'. The sin-cos map has the width 2m (a cos and a sin per
    frequency): an odd D has no sin-cos map, and is refused with a pointer to 'cos', which
    takes any width (as scikit-learn's ``RBFSampler``). The orthogonal and structured maps
    draw their frequencies in blocks of ``block`` and truncate the last one, so m is
    otherwise free; ``n_components=None`` means one block, m = ``block``.
    """
    if n_components is None:
        return block
    if variant == "sincos":
        if n_components % 2:
            raise ValueError(
                f"n_components must be even with variant='sincos' (a cos and a sin per "
                f"frequency: the width is 2m), got n_components={n_components}; use "
                f"n_components={n_components + 1} or variant='cos' (any width).")
        return n_components // 2
    return n_components


def block_sizes(n_freq, block):
    """The sizes of the blocks that hold m = ``n_freq`` frequencies: as many whole blocks
    of ``block`` as fit, then one truncated block of the remaining m mod ``block``."""
    whole, rest = divmod(n_freq, block)
    return [block] * whole + ([rest] if rest else [])


def check_block_features(n_features, estimator):
    """Orthogonal and structured blocks need d >= 2 features."""
    if n_features < 2:
        raise ValueError(f"{estimator} needs X with at least 2 features (a block of "
                         f"orthogonal frequencies), got n_features={n_features}.")
