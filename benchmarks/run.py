"""Run every benchmark in one process and print a table of ratios.

    python -m benchmarks.run            # the full benchmarks (a few minutes)
    python -m benchmarks.run --quick    # a smoke run on small problems

from the repository's root (``benchmarks`` is a package of the repository, not installed).

Ratios are peer time / lsl time (or numpy reference / numba path): above 1 means lsl
is faster. min / median / max are over paired repeats; 'met' compares the median with
the benchmark's target. Absolute seconds depend on the machine, ratios much less.
"""
import argparse
import sys

from benchmarks import (bench_budgeted, bench_coordinate_descent, bench_distributed,
                        bench_doubly_stochastic, bench_elm, bench_fastfood, bench_import,
                        bench_kernel_approximation_error, bench_kernel_pegasos,
                        bench_kitchen_sinks, bench_nystroem, bench_online_kernel,
                        bench_pegasos, bench_random_binning, bench_random_features,
                        bench_stochastic_gradient)
from benchmarks.common import print_table, progress

BENCHMARKS = {"import": bench_import, "pegasos": bench_pegasos,
              "kernel_pegasos": bench_kernel_pegasos, "online_kernel": bench_online_kernel,
              "stochastic_gradient": bench_stochastic_gradient,
              "coordinate_descent": bench_coordinate_descent,
              "random_features": bench_random_features, "fastfood": bench_fastfood,
              "nystroem": bench_nystroem,
              "kernel_approximation_error": bench_kernel_approximation_error,
              "random_binning": bench_random_binning, "elm": bench_elm,
              "kitchen_sinks": bench_kitchen_sinks, "doubly_stochastic": bench_doubly_stochastic,
              "budgeted": bench_budgeted, "distributed": bench_distributed}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small problems, one repeat")
    parser.add_argument("only", nargs="*", choices=[*BENCHMARKS, []], help="benchmarks to run")
    args = parser.parse_args(argv)
    rows = []
    for name in progress(args.only or list(BENCHMARKS), desc="benchmarks", leave=True):
        rows += BENCHMARKS[name].run(quick=args.quick)
    print_table(rows)
    return 0 if all(r["met"] is not False for r in rows) or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
