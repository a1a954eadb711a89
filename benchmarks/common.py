"""Timing helpers shared by the benchmarks: repeats, ratios, the table, progress bars."""
import statistics
import sys
import time

from tqdm.auto import tqdm


def progress(iterable=None, desc=None, total=None, leave=False):
    """A progress bar (``tqdm.auto``) over ``iterable``, on stderr so that the printed
    table on stdout stays clean; it disappears when done unless ``leave``."""
    return tqdm(iterable, desc=desc, total=total, leave=leave, file=sys.stderr,
                dynamic_ncols=True)


def timed(fit, repeats):
    """Wall-clock seconds of ``fit()`` over ``repeats`` runs (after one warm-up run)."""
    fit()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return times


def ratio_row(name, slower, faster, target=None, note=""):
    """A row of the table: the ratios slower_i / faster_i over paired repeats.

    ``target`` is the minimum median ratio the issue asks for (None: report only).
    """
    ratios = sorted(s / f for s, f in zip(slower, faster))
    median = statistics.median(ratios)
    return dict(name=name, min=ratios[0], median=median, max=ratios[-1],
                target=target, met=None if target is None else median >= target, note=note)


def print_table(rows):
    header = f"{'benchmark':58s} {'min':>8s} {'median':>8s} {'max':>8s} {'target':>8s}  met"
    print(header)
    print("-" * len(header))
    for r in rows:
        target = "" if r["target"] is None else f"≥{r['target']:.3g}"
        met = "" if r["met"] is None else ("yes" if r["met"] else "NO")
        print(f"{r['name']:58s} {r['min']:8.2f} {r['median']:8.2f} {r['max']:8.2f} {target:>8s}  {met}")
        if r["note"]:
            print(f"    {r['note']}")
