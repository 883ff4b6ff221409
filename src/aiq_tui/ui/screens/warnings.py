"""The warnings panel: skills (and files) that failed to load, with what to do."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from aiq_tui.problems import Problem


def shown_path(path: Path | None, bases: Sequence[Path]) -> str:
    """Paths relative to the config home or the working directory when possible."""
    if path is None:
        return "<input>"
    for base in bases:
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return str(path)


class WarningsScreen(Screen[None]):
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]

    def __init__(self, problems: Sequence[Problem], bases: Sequence[Path]) -> None:
        super().__init__()
        self.problems = tuple(problems)
        self.bases = tuple(bases)

    def compose(self) -> ComposeResult:
        yield Header()
        count = len(self.problems)
        yield Static(
            f"{count} problem{'s' if count != 1 else ''} while loading skills. "
            "Broken skills are skipped; a skill that breaks while the app runs keeps its last good version.",
            id="warnings-summary",
        )
        yield DataTable(id="warnings", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("severity", "file", "field", "problem", "fix")
        for problem in self.problems:
            where = shown_path(problem.path, self.bases) + (f":{problem.line}" if problem.line else "")
            table.add_row(problem.severity.value, where, problem.field or "", problem.message, problem.hint or "")
        if not self.problems:
            table.add_row("", "", "", "all skills loaded cleanly", "")
