"""A virtual list of skills: one line per skill, only visible lines are ever rendered.

``OptionList`` measures every option whenever the list changes, which costs ~0.3 s for
10,000 skills; this list keeps rows in a plain Python list and draws each visible line on
demand (Textual's line API), so updates and scrolling stay cheap at any size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from aiq_tui.figures import decisive
from aiq_tui.terminal_text import printable
from aiq_tui.ui.badges import badge_style
from aiq_tui.ui.messages import ListEdge, SkillChosen
from aiq_tui.ui.widgets.own_virtual_size import OwnVirtualSize

if TYPE_CHECKING:
    from aiq_tui.skills.skill_view import SkillView

FLASH_STYLE = "bold black on yellow"
TAIL = 18  # phase (5) + tokens (7) + confidence (6)


def skill_line(
    view: SkillView,
    width: int,
    *,
    flash: bool = False,
    badge: Callable[[str], Style | str] = lambda name: "",
    thresholds: Sequence[float] = (),
) -> Text:
    """``name…  full   640t  0.82`` padded to ``width`` cells. The figure is the match
    confidence (0–1, the scale of the brief/full thresholds); the raw score is in the inspector.
    ``badge`` styles a badge by name (:data:`aiq_tui.ui.badges.BADGES`); unstyled by default."""
    name_width = max(
        4, width - TAIL - 1
    )  # and a space: a name that fills its column met "brief"
    shown = printable(view.name, one_line=True)  # a name from a project's file
    name = shown if len(shown) <= name_width else shown[: name_width - 1] + "…"
    # The inspector's digits (aiq_tui.figures): 0.149 is not "0.15" beside "brief ≥ 0.15".
    score = (
        decisive(view.confidence, thresholds) if view.confidence is not None else "–"
    )
    line = Text(no_wrap=True)
    line.append(name.ljust(name_width), style=FLASH_STYLE if flash else "")
    line.append(" ")
    if (
        view.evicted
    ):  # out of the prompt by a budget stage: not the same as never matched
        line.append(f"{'evict':>5}", style=badge("evict"))
        line.append(f"{view.tokens:>6}t", style=badge("muted"))
    elif (
        view.status != "active"
    ):  # disabled / draft: never loaded, so no phase or prompt cost to show
        label = "disabled" if view.status == "inactive" else view.status
        line.append(f"{label[:12]:>12}", style=badge("disabled"))
    else:
        line.append(f"{view.phase.label:>5}", style=badge(view.phase.label))
        line.append(f"{view.tokens:>6}t", style=badge("muted"))
    line.append(f"{score:>6}", style=badge("muted") if view.confidence is None else "")
    return line


class SkillList(OwnVirtualSize, ScrollView, can_focus=True):
    """Rows of :class:`SkillView`; Enter or a click opens the skill (posts ``SkillChosen``)."""

    COMPONENT_CLASSES = {"skill-list--cursor"}
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "jump(0)", show=False),
        Binding("end", "jump(-1)", show=False),
        Binding("enter", "choose", "Open skill", show=False),
    ]
    DEFAULT_CSS = """
    SkillList > .skill-list--cursor { background: $accent 20%; }
    SkillList:focus > .skill-list--cursor { background: $accent 40%; text-style: bold; }
    """

    cursor: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[SkillView] = []
        self.flashing: frozenset[str] = frozenset()

    def set_rows(
        self, rows: Sequence[SkillView], flashing: frozenset[str] = frozenset()
    ) -> None:
        current = (
            self.rows[self.cursor].name if 0 <= self.cursor < len(self.rows) else None
        )
        self.rows = list(rows)
        self.flashing = flashing
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))
        found = (
            next(
                (index for index, row in enumerate(self.rows) if row.name == current),
                None,
            )
            if current
            else None
        )
        self.cursor = (
            found if found is not None else min(self.cursor, max(0, len(self.rows) - 1))
        )
        self.refresh()

    def _thresholds(self) -> tuple[float, ...]:
        """The disclosure thresholds a confidence is read against (the app's config)."""
        config = getattr(self.app, "config", None)
        disclosure = getattr(config, "disclosure", None)
        if disclosure is None:
            return ()
        return (disclosure.brief_threshold, disclosure.full_threshold)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = self.scroll_offset.y + y
        if index >= len(self.rows) or width <= 0:
            return Strip.blank(width, self.rich_style)
        view = self.rows[index]
        base = self.rich_style
        if index == self.cursor:
            base = base + self.get_component_rich_style("skill-list--cursor")
        text = skill_line(
            view,
            width,
            flash=view.name in self.flashing,
            badge=lambda name: badge_style(self.app, name, base.bgcolor),
            thresholds=self._thresholds(),
        )
        segments = [
            Segment(seg.text, base + seg.style if seg.style else base)
            for seg in text.render(self.app.console)
        ]
        return Strip(segments).adjust_cell_length(width, base)

    def watch_cursor(self, old: int, new: int) -> None:
        # Only a list the user is moving in follows its cursor: an unfocused one keeps its
        # scroll (from the top), so a remembered cursor on a skill that moved down the list
        # never scrolls the first rows away — which it did whenever the cursor moved while a
        # resize had the list a row or two high.
        if self.has_focus:
            self.scroll_to_region_for(new)
        self.refresh()

    def on_focus(self) -> None:
        self.scroll_to_region_for(self.cursor)

    def scroll_to_region_for(self, index: int) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        top = self.scroll_offset.y
        if index < top:
            self.scroll_to(y=index, animate=False)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False)

    def action_move(self, step: int) -> None:
        if abs(step) == 1 and (
            not self.rows or self.cursor + step in (-1, len(self.rows))
        ):
            self.post_message(ListEdge(step))  # past the edge: the next section, if any
            return
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + step))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, index: int) -> None:
        if self.rows:
            self.cursor = index % len(self.rows)

    def action_choose(self) -> None:
        if 0 <= self.cursor < len(self.rows):
            self.post_message(SkillChosen(self.rows[self.cursor].name))

    def on_click(self, event: events.Click) -> None:
        index = self.scroll_offset.y + event.y
        if 0 <= index < len(self.rows):
            if index == self.cursor and event.chain >= 2:
                self.action_choose()
            self.cursor = index

    def on_resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))
