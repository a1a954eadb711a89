"""Shared machinery of every topic module: validation, random state, sampling
schemes, the numba switch and convergence traces (DESIGN.md §1-2)."""
