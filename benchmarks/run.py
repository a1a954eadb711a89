#!/usr/bin/env python
"""Run every benchmark in one process and print a table of ratios.

    python benchmarks/run.py            # the full benchmarks (a few minutes)
    python benchmarks/run.py --quick    # a smoke run on small problems

Ratios are peer time / lsl time (or numpy reference / numba path): above 1 means lsl
is faster. min / median / max are over paired repeats; 'met' compares the median with
the benchmark's target. Absolute seconds depend on the machine, ratios much less.
"""
import argparse
import sys

import bench_budgeted
import bench_coordinate_descent
import bench_distributed
import bench_doubly_stochastic
import bench_elm
import bench_fastfood
import bench_import
import bench_kernel_approximation_error
import bench_kernel_pegasos
import bench_kitchen_sinks
import bench_nystroem
import bench_online_kernel
import bench_pegasos
import bench_random_binning
import bench_random_features
import bench_stochastic_gradient
from common import print_table, progress

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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
