"""Argument checks of the data functions: an int or a real number in a range, named."""
import numbers

import numpy as np


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def _check_real(name, value, low, high=np.inf, low_open=False, high_open=True):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (
            value < high if high_open else value <= high)
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be a real number in {interval}, got {value!r}")
    return float(value)


def _check_name_and_split(name, table, split):
    if name not in table:
        raise ValueError(f"name must be one of {sorted(table)}, got {name!r}")
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
