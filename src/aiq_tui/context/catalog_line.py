"""One skill's line in the prompt's catalog, and how long its description may be.

A model decides from the catalog which skill to load, so each line carries the skill's whole
description (up to ``disclosure.description_max_chars``, 1,536 characters as in Claude Code) while the catalog stays
within ``disclosure.descriptions_share`` of the window. Past that share the longest
descriptions are shortened first — one cap for all, found so that the catalog fits
(:func:`fit_catalog`) — never below ``disclosure.metadata_min_tokens`` (the seeds' "~50 tokens
per skill": what a small window gets); past ``context.catalog_share`` the prompt builder then
leaves the lowest-ranked lines out. ``disclosure.metadata_tokens`` caps every line whatever
the window. A shortened description keeps its exclusion clauses ("not for …", "Do not use
…", :mod:`aiq_tui.ranking.exclusions`): they are what stops a model loading a skill for the
very task it says it is not for.

Apart from the prompt builder, which writes the catalog with it, so that the skills pane can
list a large catalog with each line's cost before the builder's modules have loaded (the
TUI's start reads the catalog beside its own imports, and its first frame waits for it). The
prompt command, the match inspector and the doctor show the cut with :func:`line_cuts` on the
builder's own :class:`CatalogFit`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiq_tui.config import DisclosureSettings

ELLIPSIS = "…"
CHARS_PER_TOKEN = (
    4  # characters per token when a size in tokens is turned into a cut in characters
)
GENEROUS_CHARS_PER_TOKEN = (
    6  # more characters a token than prose has: "surely over" below
)
COUNTED_WHOLE_CHARS = 200_000  # a catalog this long is counted whole for the "why"; a longer one estimated
MIN_HEAD_CHARS = 24  # the least of a description's own words a shortened line keeps (SHORT, long clauses)

CATALOG_HEADER = "# Available skills\nSkills are folders of instructions for specific tasks. Each line is `name: description`.\n"
NAMES_HEADER = "# Available skills\nSkills are folders of instructions for specific tasks; use_skill loads one by name.\n"


class CatalogLevel(IntEnum):
    """How much of the catalog a turn sends: compression steps down only to make a prompt fit."""

    FULL = 0  # name + description, as long as :class:`CatalogFit` allows
    SHORT = 1  # name + a third of that
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


# -- one line -------------------------------------------------------------------------------


def one_line(description: str, max_chars: int) -> str:
    """First line of a description, cut at a word boundary to ``max_chars``."""
    line = " ".join(description.strip().split())
    if len(line) <= max_chars:
        return line
    cut = line[: max_chars - 1].rsplit(" ", 1)[0] or line[: max_chars - 1]
    return cut + ELLIPSIS


def shorten(description: str, max_chars: int) -> str:
    """``description`` on one line in about ``max_chars``: whole when it fits; else cut at a
    word boundary and marked "…", its exclusion clauses kept whole after the cut, in brackets
    ("… (not for simple single-file HTML/JSX artifacts)"). The clauses are kept even when that
    passes ``max_chars``: the words before them are cut to make room, down to half of
    ``max_chars`` (so that a long clause does not leave a skill without saying what it does)."""
    line = " ".join(description.split())
    if len(line) <= max_chars:
        return line
    positive, tail = _split(line)
    if not tail:
        return one_line(line, max_chars)
    return one_line(positive, _head_room(max_chars, len(tail))) + tail


@lru_cache(maxsize=65_536)
def _split(line: str) -> tuple[str, str]:
    """``line``'s own words and its exclusion clauses as a shortened line keeps them ("" without
    any) — cached: a catalog's descriptions are fitted and written again on every turn."""
    from aiq_tui.ranking.exclusions import (
        parse_exclusions,
    )  # its patterns cost the TUI's start ~7 ms: when a line is cut

    parsed = parse_exclusions(line)
    if not parsed.exclusions:
        return line, ""
    return parsed.positive, " (" + "; ".join(
        clause.text for clause in parsed.exclusions
    ) + ")"


def _head_room(max_chars: int, tail: int) -> int:
    """Characters of a shortened description's own words beside ``tail`` characters of clauses."""
    return max(MIN_HEAD_CHARS, max_chars // 2, max_chars - tail)


def catalog_line(
    name: str,
    description: str,
    entry_chars: int,
    level: CatalogLevel = CatalogLevel.FULL,
) -> str:
    """``name``'s line at ``level``, its description shortened to ``entry_chars`` (to a third of
    what it would carry at :attr:`CatalogLevel.SHORT`)."""
    if level >= CatalogLevel.NAMES:
        return f"- {name}\n"
    if level is CatalogLevel.SHORT:
        entry_chars = max(
            MIN_HEAD_CHARS, min(entry_chars, len(" ".join(description.split()))) // 3
        )
    return f"- {name}: {shorten(description, entry_chars)}\n"


# -- how long a line may be -------------------------------------------------------------------


class FitReason:
    """Why a catalog's descriptions are as long as they are (:attr:`CatalogFit.reason`)."""

    WHOLE = (
        "whole"  # every description whole (disclosure.description_max_chars at most)
    )
    SHARE = "share"  # the longest shortened so that the catalog stays within its share
    FLOOR = "floor"  # at disclosure.metadata_min_tokens and still over the share
    FIXED = "metadata_tokens"  # disclosure.metadata_tokens caps every line


@dataclass(frozen=True)
class CatalogFit:
    """How long each catalog line's description may be, for one catalog and one window."""

    cap_chars: int  # a longer description is shortened to this (:func:`shorten`)
    reason: str  # a :class:`FitReason`
    window: int
    share: float  # the share of the window the catalog's descriptions keep to
    budget: int  # that share in tokens
    whole_tokens: int  # what the catalog would cost with every description whole (≈ when not counted)
    setting_tokens: int = 0  # metadata_tokens (FIXED) or metadata_min_tokens (FLOOR)

    def why(self) -> str:
        """Why descriptions longer than :attr:`cap_chars` are shortened, naming the setting."""
        if self.reason == FitReason.FIXED:
            return (
                f"disclosure.metadata_tokens caps every description at {self.setting_tokens:,} tokens "
                f"(about {self.cap_chars:,} characters), whatever the window"
            )
        if self.reason == FitReason.WHOLE:
            return (
                f"longer than {self.cap_chars:,} characters (disclosure.description_max_chars; "
                "the Agent Skills specification allows 1,024)"
            )
        over = (
            f"whole, the descriptions would take about {self.whole_tokens:,} tokens, more than "
            f"{self.share * 100:g} % of the {self.window:,}-token window ({self.budget:,} tokens, "
            "disclosure.descriptions_share)"
        )
        if self.reason == FitReason.SHARE:
            return (
                over
                + f"; the longest are shortened to {self.cap_chars:,} characters so that the catalog fits"
            )
        return (
            over
            + f"; each keeps at least {self.setting_tokens:,} tokens (about {self.cap_chars:,} "
            "characters, disclosure.metadata_min_tokens) and context.catalog_share bounds the rest"
        )


@dataclass(frozen=True)
class LineCut:
    """One catalog line whose description is shortened: from what to what."""

    name: str
    whole_chars: int  # the description on one line
    chars: int  # what the catalog line carries of it
    whole_tokens: int  # the line with the whole description
    tokens: int  # the line as sent

    def figures(self) -> str:
        return (
            f"{self.whole_chars:,} → {self.chars:,} characters "
            f"({self.whole_tokens:,} → {self.tokens:,} tokens)"
        )

    def text(self) -> str:
        return f"{self.name}: {self.figures()}"

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "chars": self.whole_chars,
            "chars_sent": self.chars,
            "tokens": self.whole_tokens,
            "tokens_sent": self.tokens,
        }


def fit_catalog(
    entries: Sequence[tuple[str, str]],
    window: int,
    disclosure: DisclosureSettings,
    catalog_share: float,
    count: Callable[[str], int],
) -> CatalogFit:
    """How long ``entries``' descriptions may be in a ``window``-token prompt (see the module's
    docstring): every description whole when the whole catalog costs at most
    ``descriptions_share`` of the window (``catalog_share`` when that is smaller); else the
    longest cap that keeps it there, never below ``metadata_min_tokens``. Counted with ``count``
    (the prompt builder's counter) where the catalog could fit; sizes are estimated from
    characters first, so a catalog of thousands of skills is not counted line by line."""
    most = disclosure.description_max_chars
    share = min(disclosure.descriptions_share, catalog_share)
    budget = int(window * share)
    if disclosure.metadata_tokens:
        cap = min(most, CHARS_PER_TOKEN * disclosure.metadata_tokens)
        return CatalogFit(
            cap, FitReason.FIXED, window, share, budget, 0, disclosure.metadata_tokens
        )
    floor = min(most, CHARS_PER_TOKEN * disclosure.metadata_min_tokens)
    if not entries:
        return CatalogFit(most, FitReason.WHOLE, window, share, budget, 0)
    header = count(CATALOG_HEADER)
    lengths = [
        len(name) + 5 + len(" ".join(description.split()))
        for name, description in entries
    ]
    # Even cut to the floor, the catalog passes its share however few tokens its characters make:
    # the floor it is, without reading a clause of thousands of descriptions (the TUI's first frame).
    least = sum(
        min(length, len(name) + 5 + floor)
        for length, (name, _) in zip(lengths, entries)
    )
    if least > (budget - header) * GENEROUS_CHARS_PER_TOKEN:
        whole = header + round(sum(lengths) / CHARS_PER_TOKEN)
        if (
            sum(lengths) <= COUNTED_WHOLE_CHARS
        ):  # the figure `why()` quotes: counted where that is cheap
            whole = header + count(
                "".join(
                    f"- {name}: {' '.join(text.split())}\n" for name, text in entries
                )
            )
        return CatalogFit(
            floor,
            FitReason.FLOOR,
            window,
            share,
            budget,
            whole,
            disclosure.metadata_min_tokens,
        )
    lines = [_Sizes.of(name, description) for name, description in entries]
    top = min(most, max(size.chars for size in lines))

    def chars_at(cap: int) -> int:
        return sum(size.line_chars(cap) for size in lines)

    def tokens_at(cap: int) -> int:
        return header + count(
            "".join(
                catalog_line(name, description, cap) for name, description in entries
            )
        )

    whole_chars = chars_at(top)
    ratio = float(CHARS_PER_TOKEN)
    whole_tokens = header + round(whole_chars / ratio)
    # Count the whole catalog only when it could fit: its text is then a few times the budget at most.
    if whole_chars <= 3 * CHARS_PER_TOKEN * budget:
        whole_tokens = tokens_at(top)
        if whole_tokens <= budget:
            return CatalogFit(
                most, FitReason.WHOLE, window, share, budget, whole_tokens
            )
        ratio = whole_chars / max(1, whole_tokens - header)
    at_floor = CatalogFit(
        floor,
        FitReason.FLOOR,
        window,
        share,
        budget,
        whole_tokens,
        disclosure.metadata_min_tokens,
    )
    target = (budget - header) * ratio
    for _ in range(
        4
    ):  # the estimate in characters, then measured: a few rounds at most
        if floor >= top or chars_at(floor) > target:
            return at_floor
        low, high = floor, top
        while low < high:  # the longest cap whose catalog is within the target
            middle = (low + high + 1) // 2
            if chars_at(middle) <= target:
                low = middle
            else:
                high = middle - 1
        tokens = tokens_at(low)
        if tokens <= budget:
            return CatalogFit(low, FitReason.SHARE, window, share, budget, whole_tokens)
        target *= 0.98 * (budget - header) / max(1, tokens - header)
    return at_floor


@dataclass(frozen=True)
class _Sizes:
    """One entry's sizes in characters, to estimate its line at any cap without shortening it."""

    prefix: int  # "- name: " and the line break
    chars: int  # the description on one line
    tail: (
        int  # its exclusion clauses as a shortened line keeps them (0 without clauses)
    )

    @staticmethod
    def of(name: str, description: str) -> _Sizes:
        chars, tail = _description_sizes(description)
        return _Sizes(len(name) + 5, chars, tail)

    def line_chars(self, cap: int) -> int:
        if self.chars <= cap:
            return self.prefix + self.chars
        if not self.tail:
            return self.prefix + cap
        return self.prefix + _head_room(cap, self.tail) + self.tail


def _description_sizes(description: str) -> tuple[int, int]:
    """(length on one line, length of the clauses a shortened line keeps)."""
    line = " ".join(description.split())
    return len(line), (len(_split(line)[1]) if len(line) > MIN_HEAD_CHARS else 0)


def line_cuts(
    entries: Sequence[tuple[str, str]],
    fit: CatalogFit,
    count: Callable[[str], int],
    level: CatalogLevel = CatalogLevel.FULL,
) -> tuple[LineCut, ...]:
    """The lines of ``entries`` whose description ``fit`` shortens (at ``level``), with their
    sizes before and after — what ``prompt``, the inspector and the doctor show."""
    cuts = []
    for name, description in entries:
        sent = catalog_line(name, description, fit.cap_chars, level)
        whole = " ".join(description.split())
        if sent == f"- {name}: {whole}\n":
            continue
        cuts.append(
            LineCut(
                name,
                len(whole),
                max(0, len(sent) - len(name) - 5),
                count(f"- {name}: {whole}\n"),
                count(sent),
            )
        )
    return tuple(cuts)
