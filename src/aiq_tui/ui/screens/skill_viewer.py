"""The skill viewer: frontmatter table, rendered SKILL.md body, resources, problems.

The app reads the skill (through the catalog) before pushing this screen, so the screen
only renders what it is given.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from aiq_tui.problems import Problem
from aiq_tui.skills.model import Resource, SkillMeta
from aiq_tui.terminal_text import printable
from aiq_tui.ui.plain import PlainDataTable, PlainMarkdown, PlainStatic, plain


@dataclass(frozen=True)
class SkillDocument:
    meta: SkillMeta
    body: str
    resources: tuple[Resource, ...]
    problems: tuple[Problem, ...]
    location: str  # the SKILL.md path as shown (relative when possible)
    pending_tools: tuple[str, ...] = ()
    """An imported skill's allowed-tools the user has not confirmed (they pre-approve nothing yet)."""
    installed: str = ""
    """Where ``skills install`` / ``import`` got it: source, commit, edited here (empty: the user's own)."""


def harness_notes(extras: Any) -> str:
    """One line per Claude Code field the skill sets: what Claude Code does, what aiq-tui does."""
    from aiq_tui.skills.invocation import claude_code_notes

    return "\n".join(
        f"{field} — Claude Code: {claude}; aiq-tui: {here}"
        for field, claude, here in claude_code_notes(extras)
    )


def field_text(value: Any) -> str:
    """A frontmatter value on one line as its author would read it: text as is, a list of
    words joined by commas, anything structured (a composite's steps, parameters) as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(item, (str, int, float)) for item in value
    ):
        return ", ".join(map(str, value))
    return json.dumps(value, ensure_ascii=False, default=str)


class SkillViewerScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("a", "activate", "Activate"),
        Binding("e", "toggle_status", "Enable/Disable"),
        Binding("t", "trigger_eval", "Trigger evals"),
        Binding("c", "confirm_tools", "Confirm allowed-tools"),
    ]

    def __init__(self, document: SkillDocument) -> None:
        super().__init__()
        self.document = document

    def compose(self) -> ComposeResult:
        doc = self.document
        yield Header()
        with Horizontal(id="viewer"):
            with VerticalScroll(id="viewer-body"):
                yield PlainMarkdown(
                    printable(doc.body) or "*(empty body)*", id="skill-body"
                )
            with Vertical(id="viewer-side"):
                label = "disabled" if doc.meta.status == "inactive" else doc.meta.status
                status = (
                    ""
                    if doc.meta.status == "active"
                    else f"  [{label}: not loaded — e enables]"
                )
                yield PlainStatic(
                    printable(f"{doc.meta.name}{status}\n{doc.location}"),
                    id="viewer-title",
                    markup=False,
                )
                if doc.installed:
                    yield PlainStatic(
                        printable(doc.installed), id="viewer-installed", markup=False
                    )
                if doc.pending_tools:
                    yield PlainStatic(
                        printable(
                            f"imported: its allowed-tools ({' '.join(doc.pending_tools)}) pre-approve nothing until you "
                            "confirm them — c confirms"
                        ),
                        id="viewer-pending",
                        markup=False,
                    )
                notes = harness_notes(doc.meta.extras)
                if notes:  # Claude Code's fields: what it would do, what happens here
                    yield PlainStatic(
                        printable(notes), id="viewer-harness", markup=False
                    )
                yield PlainDataTable(id="frontmatter", cursor_type="row")
                yield PlainDataTable(id="resources", cursor_type="row")
                yield PlainStatic(
                    printable(self._problem_text(doc.problems)),
                    id="viewer-problems",
                    markup=False,
                )
        yield Footer()

    @staticmethod
    def _problem_text(problems: Sequence[Problem]) -> str:
        if not problems:
            return "✓ no validation problems"
        return "\n".join(
            f"{p.severity.value}: {p.field + ': ' if p.field else ''}{p.message}"
            + (f" — {p.hint}" if p.hint else "")
            for p in problems
        )

    def on_mount(self) -> None:
        doc = self.document
        front = self.query_one("#frontmatter", DataTable)
        front.border_title = "Frontmatter"
        front.add_columns("field", "value")
        front.add_row("name", plain(doc.meta.name), key="name")
        front.add_row(
            "description",
            plain(doc.meta.description, one_line=False),
            key="description",
        )
        for key, value in doc.meta.extras.items():
            front.add_row(plain(str(key)), plain(field_text(value)), key=str(key))
        resources = self.query_one("#resources", DataTable)
        resources.border_title = plain(f"Resources ({len(doc.resources)})")
        resources.add_columns("file", "kind", "bytes", "note")
        for resource in doc.resources:
            resources.add_row(
                plain(resource.relpath),
                resource.kind.value,
                f"{resource.size:,}",
                plain(resource.rejected or ""),
            )
        problems = self.query_one("#viewer-problems", Static)
        problems.border_title = "Validation"
        problems.set_class(bool(doc.problems), "-has-problems")

    @on(DataTable.RowSelected, "#frontmatter")
    def _show_field(self, event: DataTable.RowSelected) -> None:
        """Enter on a field: its whole value (a long description, a composite's steps as JSON)."""
        from aiq_tui.ui.screens.text_modal import TextModal

        key = str(event.row_key.value)
        meta = self.document.meta
        value = {"name": meta.name, "description": meta.description}.get(
            key, meta.extras.get(key)
        )
        text = (
            value
            if isinstance(value, str)
            else json.dumps(value, indent=2, ensure_ascii=False, default=str)
        )
        fence = "text" if isinstance(value, str) else "json"
        self.app.push_screen(
            TextModal(f"{meta.name}: {key}", f"```{fence}\n{text}\n```\n")
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "confirm_tools":
            return bool(
                self.document.pending_tools
            )  # offered only for an imported skill waiting for it
        return True

    async def action_confirm_tools(self) -> None:
        await self.app.run_action(f"confirm_skill_tools({self.document.meta.name!r})")

    async def action_activate(self) -> None:
        # run_action is a coroutine: un-awaited, the key did nothing.
        await self.app.run_action(f"activate_skill({self.document.meta.name!r})")

    async def action_toggle_status(self) -> None:
        status = "inactive" if self.document.meta.status == "active" else "active"
        await self.app.run_action(
            f"set_skill_status({self.document.meta.name!r}, {status!r})"
        )

    async def action_trigger_eval(self) -> None:
        await self.app.run_action(f"trigger_eval({self.document.meta.name!r})")
