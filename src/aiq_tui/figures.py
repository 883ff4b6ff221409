"""Numbers printed beside the numbers they are compared with.

A confidence of 0.149 printed as "0.15" beside "brief ≥ 0.15" reads as a contradiction; every
place that prints a figure next to a threshold or a rival figure takes its digits from here.
"""

from __future__ import annotations

from collections.abc import Sequence


def decisive(value: float, others: Sequence[float]) -> str:
    """``value`` with the digits that tell it from ``others`` (at least 2 decimals, at most 4),
    so that a comparison printed with it is visibly true: 0.149 beside 0.15 is "0.149"."""
    for digits in (2, 3, 4):
        shown = f"{value:.{digits}f}"
        if all(f"{other:.{digits}f}" != shown for other in others if other != value):
            return shown
    return f"{value:.4f}"


__all__ = ["decisive"]
