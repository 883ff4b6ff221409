"""The warnings panel: skills (and files) that failed to load, with what to do.

The table shows one row per problem, cut at the end to the screen's width; the panel
under it shows the highlighted problem in full (wrapped), so nothing is ever lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from aiq_tui.problems import Problem
from aiq_tui.terminal_text import printable
from aiq_tui.ui.plain import PlainDataTable, PlainStatic, plain
from aiq_tui.ui.text_fit import fit, share

COLUMNS = ("severity", "file", "field", "problem", "fix")


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
        self._width = 0

    def compose(self) -> ComposeResult:
        yield Header()
        count = len(self.problems)
        mcp = any(problem.message.startswith("MCP server") for problem in self.problems)
        yield PlainStatic(
            f"{count} problem{'s' if count != 1 else ''} while loading skills"
            f"{' and starting MCP servers' if mcp else ''}. "
            "Broken skills are skipped; a skill that breaks while the app runs keeps its last good version.",
            id="warnings-summary",
        )
        yield PlainDataTable(id="warnings", cursor_type="row", zebra_stripes=True)
        yield PlainStatic("", id="warning-detail", markup=False)
        yield Footer()

    def where(self, problem: Problem) -> str:
        return shown_path(problem.path, self.bases) + (
            f":{problem.line}" if problem.line else ""
        )

    def cells(self, problem: Problem) -> tuple[str, ...]:
        return (
            problem.severity.value,
            self.where(problem),
            problem.field or "",
            problem.message,
            problem.hint or "",
        )

    def detail(self, problem: Problem) -> str:
        head = " · ".join(
            part
            for part in (problem.severity.value, self.where(problem), problem.field)
            if part
        )
        return f"{head}\n{problem.message}" + (
            f"\nfix: {problem.hint}" if problem.hint else ""
        )

    def on_mount(self) -> None:
        self.query_one(
            "#warning-detail", Static
        ).border_title = "Selected problem (full text)"
        self.fill()

    def on_resize(self) -> None:
        self.fill()

    def fill(self) -> None:
        table = self.query_one(DataTable)
        width = table.size.width or self.app.size.width
        if width == self._width:
            return
        self._width = width
        row = table.cursor_row
        table.clear(columns=True)
        # Columns share the width; each gap between cells costs 2 cells of padding.
        widths = (8, *share(max(30, width - 8 - 2 * len(COLUMNS) - 1), (4, 2, 6, 6)))
        for label, cell_width in zip(COLUMNS, widths):
            table.add_column(label, width=cell_width)
        for problem in self.problems:
            table.add_row(
                *(
                    plain(fit(printable(text, one_line=True), w))
                    for text, w in zip(self.cells(problem), widths)
                )
            )
        if not self.problems:
            table.add_row("", "", "", "all skills loaded cleanly", "")
        if self.problems:
            table.move_cursor(row=min(row, len(self.problems) - 1))
        self._show(table.cursor_row)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    def _show(self, index: int) -> None:
        detail = self.query_one("#warning-detail", Static)
        detail.display = bool(self.problems)
        if 0 <= index < len(self.problems):
            detail.update(printable(self.detail(self.problems[index])))
