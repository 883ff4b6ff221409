"""The token-budget gauge: a bar stacked by prompt part, threshold marks, used / window.

It draws what the engine computed (a ``Breakdown``) and never counts tokens itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from aiq_tui.figures import percent
from aiq_tui.ui.badges import badge_style
from aiq_tui.ui.plain import plain

if TYPE_CHECKING:
    from aiq_tui.context.model import Breakdown


PART_STYLE = {
    "system": ("sys", "magenta"),
    "catalog": ("catalog", "blue"),
    "skills": ("skills", "green"),
    "history": ("history", "cyan"),
    "tool_results": ("tools", "yellow"),
    "reserve": ("reserve", "grey50"),
}
MARK_STYLE = ("yellow", "dark_orange", "red")  # the sparkline's bars
MARK_BADGES = (
    "accent",
    "warning",
    "error",
)  # the 80 / 90 / 95 % marks (aiq_tui.ui.badges)
SPARK = "▁▂▃▄▅▆▇█"


def compact(tokens: int) -> str:
    """``980``, ``1.2k``, ``120k`` — legend figures that fit a narrow pane."""
    if tokens >= 10_000:
        return f"{tokens / 1000:.0f}k"
    if tokens >= 1000:
        return f"{tokens / 1000:.1f}k"
    return str(tokens)


def stacked_cells(parts: dict[str, int], window: int, width: int) -> list[str | None]:
    """Which part owns each of ``width`` cells (None = free). Rounds cumulatively so the
    bar never drifts: the last cell of the total lands where the fraction says."""
    cells: list[str | None] = [None] * width
    running = 0
    start = 0
    for name, tokens in parts.items():
        running += tokens
        end = min(width, round(width * running / window)) if window else 0
        for index in range(start, end):
            cells[index] = name
        start = max(start, end)
    return cells


class Runs:
    """Appends cells to a :class:`Text` one span per run of a style, not one per cell: the
    gauge is redrawn whenever the budget moves (every step of the time cursor through a turn),
    and a bar of single-cell spans took most of its drawing time."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.chars: list[str] = []
        self.style: Any = None

    def add(self, char: str, style: Any) -> None:
        if self.chars and style != self.style:
            self.close()
        self.chars.append(char)
        self.style = style

    def close(self) -> None:
        if self.chars:
            self.text.append("".join(self.chars), style=self.style or None)
            self.chars = []


class BudgetGauge(Widget):
    """Stacked bar + marks at the compression thresholds + figures + legend."""

    # layout=True: the legend and the stage line change the gauge's height (after a resize
    # from 80×24 to 200×60 the legend stayed hidden because the height was not recomputed).
    breakdown: reactive[Breakdown | None] = reactive(None)
    stage_note: reactive[str] = reactive("", layout=True)
    requests: reactive[tuple[int, ...]] = reactive(())
    """The prompt's total at each model request (the sparkline: compression's saw-tooth)."""
    compact: reactive[bool] = reactive(False, layout=True)
    """Short terminals: the bar, the figures and one line of the stage note (no marks row,
    sparkline or legend)."""

    def __init__(
        self, thresholds: tuple[float, float, float], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.thresholds = thresholds
        self.border_title = "Token budget"
        self._lines = 0  # the rows the last drawing took (see ``_fit``)

    def watch_breakdown(self, breakdown: Breakdown | None) -> None:
        # Where the window comes from (the provider's model, config, a default) under the gauge:
        # "window: claude-sonnet-4-5 · known model".
        source = breakdown.window_source if breakdown is not None else ""
        inside = (
            source[source.find("(") + 1 : source.rfind(")")]
            if "(" in source
            else source
        )
        self.border_subtitle = plain(f"window: {inside}" if inside else "")

    def sparkline(self, window: int, width: int) -> Text:
        """One bar per model request, its height the prompt's share of the window, coloured
        by the threshold it crossed (80 / 90 / 95 %)."""
        label = "per request "
        shown = self.requests[-max(1, width - len(label)) :]
        line = Text(label, style="dim")
        runs = Runs(line)
        for total in shown:
            share = total / window
            level = SPARK[min(len(SPARK) - 1, int(share * len(SPARK)))]
            crossed = sum(share >= t for t in self.thresholds)
            runs.add(level, MARK_STYLE[crossed - 1] if crossed else "cyan")
        runs.close()
        return line

    def render(self) -> Text:
        return self._fit(self._drawn())

    def _fit(self, text: Text) -> Text:
        """Asks for a new layout when the drawing has more or fewer rows than the last: the
        height is ``auto`` and a budget (or the first sparkline) arriving is not a layout change
        by itself — started with a problems banner, the gauge kept the one row of "waiting for
        the first budget…" and hid its figures, legend and sparkline for good."""
        lines = text.plain.count("\n") + 1
        if lines != self._lines:
            self._lines = lines
            self.call_later(self.refresh, layout=True)
        return text

    def _drawn(self) -> Text:
        width = max(10, self.content_size.width)
        breakdown = self.breakdown
        if breakdown is None:
            return Text("waiting for the first budget…", style="dim")
        parts = breakdown.parts()
        cells = stacked_cells(parts, breakdown.window, width)
        # The marks in the theme's hues, readable on the pane (named colours were 1.7:1 on the light theme).
        background = self.rich_style.bgcolor
        marks = {
            min(width - 1, int(width * t)): badge_style(
                self.app, MARK_BADGES[i], background
            )
            for i, t in enumerate(self.thresholds)
        }
        text = Text()
        runs = Runs(text)
        for index, owner in enumerate(cells):
            if owner is None:
                runs.add("│" if index in marks else "░", marks.get(index, "grey35"))
            else:
                runs.add("█", PART_STYLE[owner][1])
        runs.add("\n", "")
        if (
            not self.compact
        ):  # compact: the bar's own │ marks; its rows go to the skill sections
            for index in range(width):
                runs.add("▲" if index in marks else " ", marks.get(index, ""))
            runs.add("\n", "")
        runs.close()
        shown = percent(breakdown.total, breakdown.window)  # the captions' rule
        # The figure is text: readable on the pane in every theme (the bar's marks keep their hues).
        level = (
            "error"
            if breakdown.fraction >= self.thresholds[2]
            else ("warning" if breakdown.fraction >= self.thresholds[0] else None)
        )
        style = (
            badge_style(self.app, level, self.rich_style.bgcolor) if level else "bold"
        )
        text.append(f"{breakdown.total:,} / {breakdown.window:,}", style=style)
        text.append(f"  {shown}%", style=style)
        if not breakdown.exact:
            text.append("  estimated", style="italic dim")
        if self.compact:  # the bar, the figures and one line of the stage note
            if self.stage_note:
                note = (
                    self.stage_note
                    if len(self.stage_note) <= width
                    else self.stage_note[: width - 1] + "…"
                )
                text.append("\n")
                text.append(note, style="italic")
            return text
        if self.requests and breakdown.window:
            text.append("\n")
            text.append_text(self.sparkline(breakdown.window, width))
        text.append("\n")
        # Entries are packed per line by the pane's width, so an entry never breaks between
        # its swatch and its figure and none is cut off at the right edge.
        used = 0
        for name, tokens in parts.items():
            label, colour = PART_STYLE[name]
            entry = f"{label} {compact(tokens)}"
            if used and used + 2 + len(entry) > width:
                text.append("\n")
                used = 0
            text.append("■ ", style=colour)
            text.append(entry + "  ")
            used += len(entry) + 4
        if self.stage_note:
            text.append("\n")
            text.append(self.stage_note, style="italic")
        return text
