"""pytest's settings for every run from the repository: one BLAS/OpenMP thread per process.

One BLAS/OpenMP thread in each test process and in the kernels it starts (nbval's, the
browser test's JupyterLab): the tests run one worker per core (pytest-xdist), and a second
BLAS thread on a core that another process keeps busy makes BLAS-heavy notebooks several
times slower (binder/start sets the same, for the same reason). Set before numpy is
imported; a value already in the environment wins.

Here, at the root, rather than in ``tests/conftest.py`` (the tests' fixtures): pytest reads
this file for any path it is given, so ``python -m pytest notebooks/<one>.ipynb`` gets it
too (lecture 11's model selection took 9 s there with two threads, 3 to 6 s with one).
"""
import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
