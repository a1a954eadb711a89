"""Figures of the lectures, one module per lecture: import them from :mod:`lsl_lib.plotting`."""
