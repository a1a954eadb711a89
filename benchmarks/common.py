"""Timing helpers shared by the benchmarks: repeats, ratios, the table, progress bars."""
import statistics
import sys
import time
from pathlib import Path

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


def write_between_markers(path, text, begin, end, section=None):
    """Replace exactly the text between the lines ``begin`` and ``end`` of the file ``path``
    by ``text``. When neither line is there and a ``section`` heading is given, append that
    section holding them first. A ``ValueError`` names the markers when they are not there
    once each, in that order (the file is then left untouched)."""
    path = Path(path)
    content = path.read_text(encoding="utf-8")
    if section is not None and begin not in content and end not in content:
        content = f"{content.rstrip()}\n\n{section}\n\n{begin}\n{end}\n"
    if content.count(begin) != 1 or content.count(end) != 1 or \
            content.index(begin) > content.index(end):
        raise ValueError(f"{path} must hold the line {begin!r} once, followed later by the "
                         f"line {end!r} once: the table is written between them")
    head, rest = content.split(begin)
    _, tail = rest.split(end)
    path.write_text(f"{head}{begin}\n{text.strip()}\n{end}{tail}", encoding="utf-8")
