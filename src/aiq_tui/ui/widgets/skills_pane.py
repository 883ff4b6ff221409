"""The skills pane: Active / Relevant / Inactive with counts, phase badges, cost and confidence.

Each section is a :class:`SkillList`, which draws only visible lines, so the Inactive
section stays smooth with 10,000 skills. A skill that just changed state is drawn
highlighted for a moment and the reason for the change is shown under the lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from aiq_tui.skills.model import SkillState
from aiq_tui.terminal_text import printable
from aiq_tui.ui.plain import PlainStatic, plain
from aiq_tui.ui.text_fit import fit
from aiq_tui.ui.widgets.skill_list import SkillList

if TYPE_CHECKING:
    from aiq_tui.skills.skill_view import SkillView

SECTIONS = (SkillState.ACTIVE, SkillState.RELEVANT, SkillState.INACTIVE)
SMALL_SECTION_ROWS = 5  # Active/Relevant grow up to this many rows, then scroll
INACTIVE_KEEP = 3  # rows the Inactive list keeps when the change lines would take them


def _rank(view: SkillView) -> tuple[bool, float, str]:
    """Most confident first; unmatched skills last, by name."""
    return (view.confidence is None, -(view.confidence or 0.0), view.name)


def _said_once(reason: str, new: str) -> str:
    """The reason without the state the line has just named ("→ relevant (brief) — relevant:
    confidence 0.17" read twice): rows the narrow pane needs for the next change."""
    prefix = f"{new}: "
    return reason[len(prefix) :] if reason.startswith(prefix) else reason


class SkillsPane(Vertical):
    """Groups the three sections and the last-change line."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Skills"
        self._views: dict[str, SkillView] = {}
        self.flashing: set[str] = set()
        self.small_rows = SMALL_SECTION_ROWS

    def compose(self) -> ComposeResult:
        for state in SECTIONS:
            section = SkillList(id=f"skills-{state.value}", classes="skill-section")
            section.border_title = plain(f"{state.value.title()} (0)")
            yield section
        yield PlainStatic("", id="skills-reason", markup=False)

    def set_views(self, views: Iterable[SkillView]) -> None:
        self._views = {view.name: view for view in views}
        self.refresh_sections()

    def section(self, state: SkillState) -> SkillList:
        return self.query_one(f"#skills-{state.value}", SkillList)

    def views_in(self, state: SkillState) -> list[SkillView]:
        """A section's skills, most confident first (unmatched skills last, by name)."""
        return sorted([v for v in self._views.values() if v.state is state], key=_rank)

    def refresh_sections(self) -> None:
        if len(self.query(SkillList)) < len(SECTIONS):
            return  # being torn down (a highlight timer fired while the app quits): nothing to draw
        flashing = frozenset(self.flashing)
        sections: dict[SkillState, list[SkillView]] = {state: [] for state in SECTIONS}
        for view in (
            self._views.values()
        ):  # one pass over (up to) 10,000 skills, not one per section
            bucket = sections.get(view.state)
            if bucket is not None:
                bucket.append(view)
        for state in SECTIONS:
            rows = sorted(sections[state], key=_rank)
            section = self.section(state)
            section.border_title = plain(f"{state.value.title()} ({len(rows)})")
            if state is not SkillState.INACTIVE:
                section.styles.height = 1 + min(
                    len(rows), self.small_rows
                )  # + the title line
            section.set_rows(rows, flashing)
        self.fit_reason()

    def show_changes(self, changes: Any) -> None:
        """Every skill change of the current turn with its reason: what loaded first (Active,
        then Relevant), then evictions, demotions and unloads."""
        order = {"active": 0, "relevant": 1, "evicted": 2, "inactive": 3}
        ranked = sorted(changes, key=lambda c: order.get(c.new, 4))
        lines = [
            f"{c.name}: {c.old} → {c.new} ({c.phase}) — {_said_once(c.reason, c.new)}"
            for c in ranked
        ]
        self.show_reason("\n".join(lines))

    def show_reason(self, text: str) -> None:
        self._reason = printable(text)
        self.fit_reason()

    def on_resize(self) -> None:
        self.fit_reason()

    def fit_reason(self) -> None:
        """The change lines below the lists, in the rows the pane can spare: all of them when
        the lists leave room (200x60 cut them at 3 rows beside 20 blank ones), else as many as
        leave the Inactive list ``INACTIVE_KEEP`` rows, the last cut line ending with "…"."""
        reasons = self.query("#skills-reason")
        if not reasons:
            return
        reason = reasons.first(Static)
        text = getattr(self, "_reason", "")
        width = reason.content_size.width or max(
            1, self.content_size.width - reason.styles.gutter.width
        )
        if not text or width <= 0 or not self.content_size.height:
            reason.styles.height = "auto" if text else 0
            reason.update(text)
            return
        lines = [
            line.plain.rstrip()
            for line in Text(text).wrap(self.app.console, width, overflow="fold")
        ]
        sections = [self.section(state) for state in SECTIONS]
        above = sum(
            int(section.styles.height.value)
            for section in sections[:-1]
            if section.styles.height is not None
        )
        inactive = sections[-1]
        keep = 1 + min(len(inactive.rows), INACTIVE_KEEP)  # its title + some rows
        room = max(1, self.content_size.height - above - keep)
        if len(lines) > room:
            lines = lines[:room]
            lines[-1] = fit(lines[-1] + " …", width)  # "…" ends it, cut or not
        reason.styles.height = len(lines)
        reason.update("\n".join(lines))

    def flash(self, name: str) -> None:
        self.flashing.add(name)

    def unflash(self, name: str) -> None:
        self.flashing.discard(name)
        self.refresh_sections()
