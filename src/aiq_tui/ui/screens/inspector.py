"""The match inspector (for skill authors): live ranking with per-term breakdown.

Type a query: every keystroke re-ranks (``engine.rank`` is pure) and shows, per skill, the
score, confidence, the phase it would be disclosed at, and which term hit which field.
Pick a row, or name any skill below, to read why it did (not) match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import DataTable, Footer, Header, Input, Static

from aiq_tui.conversation import Role
from aiq_tui.figures import decisive
from aiq_tui.skills.model import Match, Ranking
from aiq_tui.terminal_text import printable
from aiq_tui.ui.badges import badge_style, redraw_on_theme_change, table_grounds
from aiq_tui.ui.plain import PlainStatic, plain
from aiq_tui.ui.plain_table import PlainDataTable
from aiq_tui.ui.text_fit import fit

if TYPE_CHECKING:
    from aiq_tui.ui.engine_protocol import UiEngine


def would_get(match: Match, index: int, top_k: int, brief: float, full: float) -> str:
    """The disclosure phase the engine would choose for this rank position."""
    if index >= top_k:
        return "meta"
    if match.explicit or match.confidence >= full:
        return "full"
    return "brief" if match.confidence >= brief else "meta"


def as_typed(query: str) -> dict[str, str]:
    """Each match term (a stem, e.g. ``databas``) → the word the user typed (``databases``)."""
    from aiq_tui.ranking.tokenize import surface_words

    return surface_words(query)


def signal_text(match: Match, typed: dict[str, str] | None = None) -> str:
    shown = typed or {}
    return (
        ", ".join(
            f"{shown.get(s.via, s.via) + '~' if s.via else ''}{shown.get(s.term, s.term)}→{s.field} "
            f"{s.weight:+.2f}"
            for s in match.signals
        )
        or "–"
    )


def signals_note(engine: UiEngine) -> str:
    """ " · keyword + semantic" once the embedding signal is in use (issue 16); "" otherwise,
    so the screen reads as before for users without the semantic extra."""
    matcher = getattr(engine, "matcher", None)  # built by the rank() just before
    used = getattr(matcher, "signals_used", ("keyword",))
    return " · keyword + semantic (similarity→embedding)" if "semantic" in used else ""


def context_note(earlier: int) -> str:
    """Says that the conversation's earlier questions count in the ranking (as the engine
    counts them), so a query ranked alone (``aiq-tui match``) may read differently."""
    if not earlier:
        return ""
    return f" · with {earlier} earlier question{'s' if earlier > 1 else ''} as context"


def later_note(engine: Any, query: str, phases: dict[str, str]) -> str:
    """When the inspector ranks the conversation's last question and the skills pane shows a
    later state than that ranking gave (the model loaded a skill with use_skill, a compression
    evicted one), says which: the pane's row is then not a second ranking."""
    messages = getattr(getattr(engine, "session", None), "messages", ())
    last = next(
        (
            m.content
            for m in reversed(messages)
            if m.role is Role.USER and not getattr(m, "summary", False)
        ),
        None,
    )
    if last != query:
        return ""
    later = [
        f"{view.name} {'evicted' if view.evicted else view.phase.label}"
        for view in engine.skill_views()
        if view.name in phases
        and (view.evicted or view.phase.label != phases[view.name])
    ]
    if not later:
        return ""
    return fit(
        " · the pane shows the state after this turn's tool calls and compressions: "
        + ", ".join(later),
        200,
    )


def catalog_note(engine: UiEngine, name: str) -> str:
    """What of ``name``'s description the model reads in the catalog: a shortened line says
    from what to what and why (the prompt builder's figures); "" when it reads it whole."""
    cut_of = getattr(engine, "catalog_cut", None)
    if cut_of is None:
        return ""
    cut, fit = cut_of(name)
    if cut is None or fit is None:
        return ""
    return f"In the catalog the model reads {name}'s description shortened, {cut.figures()}: {fit.why()}."


class InspectorScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding(
            "ctrl+n", "focus_why", "Why not…"
        ),  # not ctrl+w: Input deletes a word with it
    ]

    def __init__(self, engine: UiEngine, query: str = "") -> None:
        super().__init__()
        self.engine = engine
        self.initial = query
        self.ranking: Ranking | None = None
        self.context: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="inspector"):
            yield Input(
                # The last query may come from a session file: its control characters show
                # escaped (an Input draws what it holds as it is).
                value=printable(self.initial, one_line=True),
                placeholder="Type a query to rank skills",
                id="inspect-query",
            )
            yield PlainStatic("", id="inspect-summary")
            yield PlainDataTable(id="ranking", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="why-row"):
                yield Input(
                    placeholder="Why not… (skill name)",
                    id="why-name",
                    suggester=SuggestFromList(
                        sorted(self.engine.workspace.catalog.names())
                    ),
                )
            yield PlainStatic("", id="why", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#ranking", DataTable)
        # "raw score" is the matcher's sum of weights; confidence (0–1) is what the thresholds compare.
        table.add_columns(
            "#",
            "skill",
            "raw score",
            "confidence",
            "phase",
            "signals (word→field weight)",
        )
        self.rerank(self.initial)
        self.query_one("#inspect-query", Input).focus()
        redraw_on_theme_change(self, self._retheme)  # the phase badges

    def _retheme(self) -> None:
        self.rerank(self.query_one("#inspect-query", Input).value)

    @on(Input.Changed, "#inspect-query")
    def _query_changed(self, event: Input.Changed) -> None:
        self.rerank(event.value)

    def rerank(self, query: str) -> None:
        config = self.engine.config
        table = self.query_one("#ranking", DataTable)
        table.clear()
        summary = self.query_one("#inspect-summary", Static)
        if not query.strip():
            self.ranking = None
            summary.update("Ranking appears as you type.")
            return
        # Ranked as the engine ranks it (with the conversation's earlier questions): the numbers
        # are the skills pane's, not a second ranking of the words alone.
        self.context = self.engine.conversation_context(query)
        ranking = self.ranking = self.engine.rank(query, self.context)
        typed = as_typed(query)
        top_k = config.matching.top_k
        brief, full = (
            config.disclosure.brief_threshold,
            config.disclosure.full_threshold,
        )
        phases = {
            match.name: would_get(match, index, top_k, brief, full)
            for index, match in enumerate(ranking.matches[:200])
        }
        summary.update(
            f"terms: {' '.join(typed.get(t, t) for t in ranking.terms) or '–'} · "
            f"{len(ranking.matches)} of {ranking.considered} skills "
            f"scored · top {top_k} load · brief ≥ {brief:.2f} · full ≥ {full:.2f}"
            + signals_note(self.engine)
            + context_note(len(self.context))
            + later_note(self.engine, query, phases)
        )
        grounds = table_grounds(table)  # readable on the plain and the striped rows
        for index, match in enumerate(ranking.matches[:200]):
            phase = would_get(match, index, top_k, brief, full)
            # The digits that decide: 0.149 beside "brief ≥ 0.15" must not read as 0.15.
            table.add_row(
                str(index + 1),
                plain(match.name),
                f"{match.score:.2f}",
                decisive(match.confidence, (brief, full)),
                Text(phase, style=badge_style(self.app, phase, *grounds)),
                plain(signal_text(match, typed)),
                key=match.name,
            )

    @on(DataTable.RowHighlighted, "#ranking")
    def _row(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value:
            self.explain(event.row_key.value)

    @on(Input.Submitted, "#why-name")
    def _why(self, event: Input.Submitted) -> None:
        self.explain(event.value.strip())

    def explain(self, name: str) -> None:
        query = self.query_one("#inspect-query", Input).value
        why = self.query_one("#why", Static)
        if not name:
            return
        if name not in self.engine.workspace.catalog:
            catalog = self.engine.workspace.catalog
            close = catalog.close_names(name) if hasattr(catalog, "close_names") else []
            why.update(
                f"{name}: no such skill."
                + (f" Did you mean {', '.join(close)}?" if close else "")
            )
            return
        match = self.ranking.get(name) if self.ranking else None
        lines = [self.engine.explain(query, name, self.context)]
        if match is not None:
            typed = as_typed(query)
            lines += [
                f"  {typed.get(s.term, s.term)!r} in {s.field}: {s.weight:+.2f}"
                for s in match.signals
            ]
        lines.append(catalog_note(self.engine, name))
        why.update("\n".join(line for line in lines if line))

    def action_focus_why(self) -> None:
        # A fresh name each time: the last one asked about stays explained below, and typing
        # does not append to it.
        field = self.query_one("#why-name", Input)
        field.value = ""
        field.focus()
