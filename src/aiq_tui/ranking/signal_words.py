"""A match's signals as people read them: the words they typed, not the index's stems.

The index scores stems ("verifi", "databas"); ``match``, ``match --eval`` and the TUI's eval
view all print the same line for the same match, through :func:`signals_text`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aiq_tui.ranking.match import EXCLUSION_FIELD
from aiq_tui.ranking.semantic import COMPANION_FIELD, SEMANTIC_FIELD
from aiq_tui.skills.model import Signal


def signal_label(signal: Signal, shown: Mapping[str, str]) -> str:
    """One signal: ``shown`` maps each term (a stem) to the word it came from. A related word
    reads ``query~related@field`` (as ``match --explain`` says "met through related words")."""
    if signal.field == SEMANTIC_FIELD:
        return f"semantic similarity {signal.weight:.2f}"
    if signal.field == COMPANION_FIELD:
        return f"companion similarity {signal.weight:.2f}"
    if signal.field == EXCLUSION_FIELD:
        return f'excluded by: "{signal.term}" {signal.weight:.2f}'
    word = shown.get(signal.term, signal.term)
    if signal.via:  # a related word, at part of the weight: say which word of the query it stands for
        word = f"{shown.get(signal.via, signal.via)}~{word}"
    return f"{word}@{signal.field} {signal.weight:.2f}"


def signals_text(
    signals: Sequence[Signal], shown: Mapping[str, str], limit: int | None = None
) -> str:
    """The signals joined, the first ``limit`` of them with a count of the rest; "–" for none."""
    listed = signals if limit is None else signals[:limit]
    text = ", ".join(signal_label(signal, shown) for signal in listed)
    if len(signals) > len(listed):
        text += f" (+{len(signals) - len(listed)} more)"
    return text or "–"
