"""One skill's line in the prompt's catalog: what its metadata costs.

Apart from the prompt builder, which writes the catalog with it, so that the skills pane can
list a large catalog with each line's cost before the builder's modules have loaded (the
TUI's start reads the catalog beside its own imports, and its first frame waits for it).
"""

from __future__ import annotations

from enum import IntEnum

ELLIPSIS = "…"
CHARS_PER_TOKEN = 4  # a catalog entry's target size in characters: ≈ 4 per token of disclosure.metadata_tokens


class CatalogLevel(IntEnum):
    """How much of the catalog a turn sends: compression steps down only to make a prompt fit."""

    FULL = 0  # name + one-line description (disclosure.metadata_tokens)
    SHORT = 1  # name + a third of that description
    NAMES = 2  # names only
    ACTIVE = 3  # only the Active skills' names, the rest counted in the "+N more" note

    @property
    def label(self) -> str:
        return _LEVEL_LABELS[self]


_LEVEL_LABELS = {
    CatalogLevel.FULL: "full descriptions",
    CatalogLevel.SHORT: "shorter descriptions",
    CatalogLevel.NAMES: "names only",
    CatalogLevel.ACTIVE: "the Active skills only",
}


def one_line(description: str, max_chars: int) -> str:
    """First line of a description, cut at a word boundary to ``max_chars``."""
    line = " ".join(description.strip().split())
    if len(line) <= max_chars:
        return line
    cut = line[: max_chars - 1].rsplit(" ", 1)[0] or line[: max_chars - 1]
    return cut + ELLIPSIS


def catalog_line(name: str, description: str, entry_chars: int, level: CatalogLevel = CatalogLevel.FULL) -> str:
    """``name``'s line at ``level``, its description cut to ``entry_chars`` (a third of it
    at :attr:`CatalogLevel.SHORT`)."""
    if level >= CatalogLevel.NAMES:
        return f"- {name}\n"
    chars = entry_chars if level is CatalogLevel.FULL else max(24, entry_chars // 3)
    return f"- {name}: {one_line(description, chars)}\n"
