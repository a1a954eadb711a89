"""Import cost: `import lsl_lib` (and its Pegasos module) beyond `import sklearn`.

Each measurement is a fresh interpreter, the statements interleaved so that machine
load hits them alike; target: lsl_lib adds at most 0.3 s. Reported in seconds, not
as a ratio: the quantity the issue bounds is a difference.
"""
import statistics
import subprocess
import sys

STATEMENTS = ("import sklearn", "import sklearn, lsl_lib", "import sklearn, lsl_lib.pegasos")


def _seconds(statement):
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout)


def run(quick=False):
    for statement in STATEMENTS:  # warm the file cache and write the .pyc files first
        _seconds(statement)
    times = {s: [] for s in STATEMENTS}
    for _ in range(3 if quick else 9):
        for statement in STATEMENTS:
            times[statement].append(_seconds(statement))
    base = statistics.median(times[STATEMENTS[0]])
    rows = []
    for statement in STATEMENTS[1:]:
        extra = [t - base for t in times[statement]]
        rows.append(dict(name=f"{statement}: s over import sklearn", min=min(extra),
                         median=statistics.median(extra), max=max(extra), target=None,
                         met=statistics.median(extra) <= 0.3,
                         note="seconds, not a ratio; target: at most 0.3 s more"))
    return rows
