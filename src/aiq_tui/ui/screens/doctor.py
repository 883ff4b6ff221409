"""The Doctor screen: every finding of ``skills doctor`` for the running engine's collection.

The check runs in a worker thread with the engine's own index, prompt builder and window
(:func:`aiq_tui.doctor.run.inputs_for_engine`). Findings are listed errors first; Enter opens
the finding's skill in the viewer, ``i`` opens the match inspector on the query that shows
the problem (a colliding description), ``r`` checks again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from aiq_tui.doctor.model import DoctorReport, Finding
from aiq_tui.terminal_text import printable
from aiq_tui.ui.badges import badge_style, redraw_on_theme_change, table_grounds
from aiq_tui.ui.plain import PlainStatic, plain
from aiq_tui.ui.plain_table import PlainDataTable

if TYPE_CHECKING:
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.engine_protocol import UiEngine

LEVEL_BADGE = {"error": "error", "warning": "warning", "info": "primary"}
"""Each severity's colour (:data:`aiq_tui.ui.badges.BADGES`): readable on the table in every theme;
fixed ``yellow`` on the light theme was barely visible."""


def summary_text(report: DoctorReport) -> str:
    counts = report.counts()
    text = (
        f"{report.skills} skill(s) checked in {report.seconds:.2f} s: {counts['error']} error(s), "
        f"{counts['warning']} warning(s), {counts['info']} note(s)."
    )
    if report.catalog is not None:
        c = report.catalog
        text += (
            f"  Catalog {c.catalog_tokens:,}/{c.catalog_limit:,} tokens of a {c.window:,} window"
            f" ({c.counts()})."
        )
    return (
        text
        + "  Enter: open skill · i: inspector on the query · r: check again · Esc: back"
    )


def detail_text(finding: Finding) -> str:
    lines = [
        f"{finding.level.value.upper()} · {finding.kind.value} · {', '.join(finding.skills[:8]) or 'collection'}",
        f"Why: {finding.why}",
        f"Fix: {finding.fix}",
    ]
    if finding.location is not None:  # the safety scan's findings: rule, file and line
        lines.insert(1, f"Where: {finding.location} · rule {finding.rule}")
    if finding.query:
        lines.append(
            f"Query (i opens the inspector): {' '.join(finding.query.split())[:200]}"
        )
    return "\n".join(lines)


class DoctorScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("i", "inspect", "Inspector"),
        Binding("r", "recheck", "Check again"),
    ]

    def __init__(self, engine: UiEngine, bases: Sequence[Path] = ()) -> None:
        super().__init__()
        self.engine = engine
        self.bases = tuple(bases)
        self.report: DoctorReport | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="doctor"):
            yield PlainStatic(
                "Checking every skill with the matcher and the budget…",
                id="doctor-summary",
                markup=False,
            )
            yield PlainDataTable(id="findings", cursor_type="row", zebra_stripes=True)
            yield PlainStatic("", id="doctor-detail", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("severity", "kind", "skills", "finding")
        detail = self.query_one("#doctor-detail", Static)
        detail.styles.height = "auto"
        detail.styles.max_height = 8
        detail.styles.padding = (0, 1)
        table.styles.height = "1fr"
        self.query_one("#doctor").styles.padding = (0, 1)
        table.focus()
        self.check()
        redraw_on_theme_change(self, self._fill_table)  # the severities' colours

    @work(thread=True, exclusive=True, group="doctor", exit_on_error=False)
    def check(self) -> None:
        from aiq_tui.doctor.run import inputs_for_engine, run_doctor

        report = run_doctor(inputs_for_engine(self.engine))
        self.app.call_from_thread(self.show_report, report)

    def show_report(self, report: DoctorReport) -> None:
        self.report = report
        self.query_one("#doctor-summary", Static).update(summary_text(report))
        self._fill_table()
        self._show_detail()

    def _fill_table(self) -> None:
        if self.report is None:
            return
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        grounds = table_grounds(table)  # readable on the plain and the striped rows
        for number, finding in enumerate(self.report.findings):
            skills = ", ".join(finding.skills[:3]) + (
                f" +{len(finding.skills) - 3}" if len(finding.skills) > 3 else ""
            )
            level = finding.level.value
            table.add_row(
                Text(level, style=badge_style(self.app, LEVEL_BADGE[level], *grounds)),
                finding.kind.value,
                plain(skills or "–"),
                plain(finding.title),
                key=str(number),
            )
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))

    def selected(self) -> Finding | None:
        table = self.query_one(DataTable)
        if self.report is None or table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.report.findings[int(key)] if key is not None else None

    def _show_detail(self) -> None:
        finding = self.selected()
        self.query_one("#doctor-detail", Static).update(
            printable(detail_text(finding)) if finding else "No findings."
        )

    @on(DataTable.RowHighlighted)
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    @on(DataTable.RowSelected)
    def _open(self, _event: DataTable.RowSelected) -> None:
        finding = self.selected()
        if finding is None or not finding.skills:
            return
        name = next(
            (n for n in finding.skills if n in self.engine.workspace.catalog), None
        )
        if name is None:
            self.notify(
                f"{finding.skills[0]} is not loaded (it failed validation); see F6.",
                severity="warning",
            )
            return
        self._app().action_open_skill(name)

    def _app(self) -> AiqApp:
        """The workbench this screen opens over (its skill viewer and inspector)."""
        return cast("AiqApp", self.app)

    def action_inspect(self) -> None:
        finding = self.selected()
        if finding is None or not finding.query:
            self.notify("This finding has no query to inspect.", severity="warning")
            return
        self._app().action_inspector(" ".join(finding.query.split()))

    def action_recheck(self) -> None:
        self.query_one("#doctor-summary", Static).update("Checking again…")
        self.check()
