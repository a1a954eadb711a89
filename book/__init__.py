"""The course's website: ``python -m book.build`` (from the repository's root) builds it.

A package of the repository (not installed with ``lsl_lib``): :mod:`book.build` stages the
sources and runs Sphinx with ``conf.py``; :mod:`book.static_panels` renders the panels' frames.
"""
