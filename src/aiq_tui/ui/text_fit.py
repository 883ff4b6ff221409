"""Fitting text into a cell: cut at the end with an ellipsis, never in the middle."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def fit(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells; a cut shows as a trailing "…"."""
    text = " ".join(text.split())  # one line: newlines in a cell would hide the rest
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1).rstrip() + "…"


def share(total: int, weights: tuple[int, ...], minimum: int = 6) -> tuple[int, ...]:
    """Split ``total`` cells between columns by weight, each at least ``minimum``."""
    whole = sum(weights) or 1
    widths = [max(minimum, total * w // whole) for w in weights]
    widths[-1] = max(minimum, total - sum(widths[:-1]))
    return tuple(widths)


def counted(number: int, noun: str) -> str:
    """``1 step``, ``3 steps``: a count with its noun in the right number."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
