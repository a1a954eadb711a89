"""Shared machinery of every topic module: validation, random state, sampling
schemes, the numba switch and convergence traces (CONTRIBUTING.md §1-2)."""
