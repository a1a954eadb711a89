"""The benchmarks: each algorithm of ``lsl_lib`` timed beside its peers, and the papers' tables.

A package of the repository (not installed with ``lsl_lib``), run from the repository's root:
``python -m benchmarks.run``, ``python -m benchmarks.reproduce``,
``python -m benchmarks.bench_defaults``; ``benchmarks/README.md`` keeps the results.
"""
