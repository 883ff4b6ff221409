"""Numbers printed beside the numbers they are compared with: the one rounding rule.

A confidence of 0.149 printed as "0.15" beside "brief ≥ 0.15" reads as a contradiction; every
place that prints a figure next to a threshold or a rival figure takes its digits from here.
Every share of the window (the gauge, the captions, the timeline, ``prompt``, ``replay``) is
:func:`percent`: floored, so that a prompt shown at 90 % is really past the 90 % threshold and
two views of one budget never show 88 % beside 89 %.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def decisive(value: float, others: Sequence[float]) -> str:
    """``value`` with the digits that tell it from ``others`` (at least 2 decimals, at most 4),
    so that a comparison printed with it is visibly true: 0.149 beside 0.15 is "0.149"."""
    for digits in (2, 3, 4):
        shown = f"{value:.{digits}f}"
        if all(f"{other:.{digits}f}" != shown for other in others if other != value):
            return shown
    return f"{value:.4f}"


def percent(part: float, whole: float) -> int:
    """``part`` as a whole percent of ``whole``, floored (0 when ``whole`` is 0): 7,283 of
    8,192 is 88 (88.9 %), never 89 — "≥ 90 %" is then true whenever it is printed."""
    if not whole:
        return 0
    if isinstance(part, int) and isinstance(whole, int):
        return part * 100 // whole  # exact
    # A float share such as 0.29 is 28.999… times 100: a hair's tolerance keeps it 29.
    return math.floor(part * 100 / whole + 1e-9)


def share(fraction: float) -> int:
    """A fraction (0.889) as :func:`percent` shows it (88)."""
    return percent(fraction, 1.0)


__all__ = ["decisive", "percent", "share"]
