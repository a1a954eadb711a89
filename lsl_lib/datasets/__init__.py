"""Data of the lectures: small synthetic generators and loaders of real sets.

Binary generators return ``X`` as float64 and ``y`` as int64 in {-1, +1}, the
lectures' convention. Every random function takes ``random_state`` (None, int or
:class:`numpy.random.Generator`); the same seed gives the same arrays.

The course's benchmark sets (a9a, ijcnn1, USPS, the covtype subsample, ...) are not in
the repository: :func:`shared_data_dir` finds them through the environment variable
``LSL_SHARED_DATA``, and the ``fetch_*`` functions download what a user can fetch.

The parts, as scikit-learn's ``sklearn/datasets`` splits them: ``_generators`` (synthetic
sets), ``_loaders`` (bundled sets, the repository's samples, the shared folder),
``_svmlight`` (the LIBSVM format's reader and its diagnosis of a bad line) and
``_download`` (LIBSVM's collection, OpenML, Covertype).
"""
from lsl_lib.datasets._download import (
    LIBSVM_SETS,
    fetch_covtype,
    fetch_cpu_act,
    fetch_libsvm,
)
from lsl_lib.datasets._generators import (
    checkerboard,
    concentric_circles,
    lazy_linear_teacher,
    linear_teacher,
    mean_stream,
    same_shape,
    two_gaussian_blobs,
)
from lsl_lib.datasets._loaders import (
    MAJORITY_TEST_ERROR,
    load_breast_cancer,
    load_covtype,
    load_covtype_sample,
    load_digits,
    load_shared,
    load_usps,
    shared_data_dir,
)
from lsl_lib.datasets._svmlight import load_svmlight

__all__ = ["two_gaussian_blobs", "checkerboard", "concentric_circles", "linear_teacher",
           "lazy_linear_teacher", "mean_stream", "same_shape", "load_digits",
           "load_breast_cancer", "load_svmlight", "shared_data_dir", "load_shared", "load_usps",
           "load_covtype", "load_covtype_sample", "MAJORITY_TEST_ERROR", "LIBSVM_SETS",
           "fetch_libsvm", "fetch_cpu_act", "fetch_covtype"]


def __dir__():
    return __all__
