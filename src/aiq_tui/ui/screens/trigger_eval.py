"""The trigger eval view of one skill: its eval queries, pass/fail, and the scores behind them.

The queries come from the skill's ``evals/trigger_eval.json`` (skill-creator's layout and
format); each is ranked with the engine's own matcher and judged as ``match --eval`` judges
it (:mod:`aiq_tui.ranking.trigger_eval`). The view scores again whenever the engine reports
a :class:`~aiq_tui.events.CatalogReloaded` — the app's watcher reloads a SKILL.md saved in
an editor — so an author edits the description and watches the rows turn. ``t`` / ``n`` add
the last message sent in the conversation as a should / should-not trigger query (the file
and its folder are created on first use); Enter on a row shows why it passed or failed.

``p`` runs the description tuner (``skills tune``'s loop, :func:`aiq_tui.tuning.tune_skill`)
in a worker and shows its proposal before anything is written: the word diff, the train and
test figures before → after, and why it stopped. ``w`` writes that description into SKILL.md
(only the description; refused when the file changed since) and the rows are scored again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from aiq_tui.ranking.signal_words import signals_text
from aiq_tui.ranking.trigger_eval import (
    EVAL_FILE,
    EVAL_FOLDER,
    TriggerReport,
    TriggerVerdict,
)
from aiq_tui.ui.badges import badge_style, redraw_on_theme_change, table_grounds
from aiq_tui.ui.plain import PlainStatic
from aiq_tui.ui.plain_table import PlainDataTable

if TYPE_CHECKING:
    from aiq_tui.ui.engine_protocol import UiEngine

RESULT_BADGE = {True: "success", False: "error"}
"""Pass / FAIL in the colours of :data:`aiq_tui.ui.badges.BADGES`: readable on the table in every theme."""


def eval_file_of(meta: Any) -> Path:
    """Where a skill's trigger evals live: ``<skill folder>/evals/trigger_eval.json``."""
    return meta.folder / EVAL_FOLDER / EVAL_FILE


def last_user_message(engine: UiEngine) -> str | None:
    """The message the user sent last in the conversation (None before the first)."""
    from aiq_tui.conversation import Role

    session = getattr(engine, "session", None)
    for message in reversed(getattr(session, "messages", []) or []):
        if (
            message.role is Role.USER
            and not getattr(message, "summary", False)
            and message.content.strip()
        ):
            return str(message.content)
    return None


def summary_text(
    name: str, report: TriggerReport | None, path: str, error: str | None
) -> str:
    if error:
        return f"{name}: {error}"
    if report is None or not report.verdicts:
        return (
            f"{name}: no trigger queries yet in {path}. Send a message in the conversation, then press "
            "t (should trigger) or n (should not) here to add it."
        )
    f = report.figures_of(name)
    return (
        f"{name} · {f.queries} queries ({f.should} should, {f.should_not} should not) from {path}\n"
        f"recall {f.recall:.2f} (full {f.recall_full:.2f}) · false triggers {f.false_triggers}/{f.should_not} · "
        f"precision {f.precision:.2f} · F1 {f.f1:.2f} — scored again when the skill changes on disk"
    )


def detail_text(verdict: TriggerVerdict, why: str, shown: Mapping[str, str]) -> str:
    """The selected row in full; ``shown`` maps the match's terms (stems) to the words written."""
    case, match = verdict.case, verdict.match
    expected = "should trigger" if case.should_trigger else "should not trigger"
    state = f"loaded ({verdict.phase.label})" if verdict.loaded else "not loaded"
    lines = [
        f"{'PASS' if verdict.passed else 'FAIL'} · {expected} · {state} · {case.query}"
    ]
    if match is not None:
        lines.append(
            f"rank {verdict.rank} · score {match.score:.2f} · confidence {match.confidence:.2f}"
            + (f" · above it: {', '.join(verdict.ahead)}" if verdict.ahead else "")
        )
        lines.append("signals: " + signals_text(match.signals, shown))
    elif verdict.ahead:
        lines.append(f"no match · ranked instead: {', '.join(verdict.ahead)}")
    if why:
        lines.append(f"why: {why}")
    return "\n".join(lines)


def proposal_text(result: Any) -> Text:
    """The tuner's proposal as the view shows it: figures before → after, why it stopped, the diff."""
    from aiq_tui.tuning import diff_ops

    before, after = result.original, result.best
    text = Text()
    if not result.changed:
        text.append(
            f"tuner: no proposal — {result.stopped}. "
            f"train F1 {before.train_f1:.2f} · test F1 {before.test_f1:.2f}"
        )
        return text
    b, a = (
        before.train.overall + before.test.overall,
        after.train.overall + after.test.overall,
    )
    text.append("proposal ", style="bold")
    text.append(
        f"· train F1 {before.train_f1:.2f} → {after.train_f1:.2f} · test F1 {before.test_f1:.2f} → "
        f"{after.test_f1:.2f} · false triggers {b.false_triggers}/{b.should_not} → "
        f"{a.false_triggers}/{a.should_not} · {len(after.description)} chars · w writes it\n"
    )
    text.append(f"stopped: {result.stopped}\n", style="dim")
    for index, (op, words) in enumerate(
        diff_ops(before.description, after.description)
    ):
        if index:
            text.append(" ")
        if op == "=":
            text.append(words)
        else:
            text.append(
                ("[-" + words + "-]") if op == "-" else ("{+" + words + "+}"),
                style="red strike" if op == "-" else "green",
            )
    return text


class Rescore(Message):
    """The catalog was reloaded (or the eval file changed): score the queries again."""


@dataclass(frozen=True)
class _Loaded:
    cases: tuple[Any, ...]
    error: str | None = None


class TriggerEvalScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("t", "add(True)", "Add last message: should trigger"),
        Binding("n", "add(False)", "… should not"),
        Binding("r", "rescore", "Score again"),
        Binding("p", "propose", "Propose"),
        Binding("w", "write_proposal", "Write proposal"),
    ]

    def __init__(self, engine: UiEngine, name: str, shown_path: str = "") -> None:
        super().__init__()
        self.engine = engine
        self.skill = name
        meta = engine.workspace.catalog.get(name)
        self.path = eval_file_of(meta)
        self.shown_path = shown_path or str(self.path)
        self.report: TriggerReport | None = None
        self.error: str | None = None
        self.scored = 0  # how many times the queries were scored (tests wait on it)
        self.proposal: Any = None  # the tuner's last result (a TuneResult), shown until written or dismissed
        self.proposing = False
        self.written = 0  # proposals written (tests wait on it)
        self._on_disk = ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="trigger-eval"):
            yield PlainStatic(
                "Reading the trigger evals…", id="eval-summary", markup=False
            )
            yield PlainDataTable(id="eval-table", cursor_type="row", zebra_stripes=True)
            yield PlainStatic("", id="eval-detail", markup=False)
            yield PlainStatic("", id="eval-proposal", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#trigger-eval").styles.padding = (0, 1)
        table = self.query_one(DataTable)
        table.add_columns(
            "result", "expected", "loaded", "rank", "conf", "score", "query"
        )
        table.styles.height = "1fr"
        detail = self.query_one("#eval-detail", Static)
        detail.styles.height = "auto"
        detail.styles.max_height = 8
        detail.styles.padding = (0, 1)
        proposal = self.query_one("#eval-proposal", Static)
        proposal.styles.height = "auto"
        proposal.styles.max_height = 12
        proposal.styles.padding = (0, 1)
        proposal.display = False
        self.sub_title = f"trigger evals · {self.skill}"
        self.engine.subscribe(self._engine_event)
        table.focus()
        self.load()
        redraw_on_theme_change(self, self._fill_table)  # the verdicts' colours

    def on_unmount(self) -> None:
        unsubscribe = getattr(self.engine, "unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe(self._engine_event)

    def _engine_event(self, event: Any) -> None:
        # Called on whatever thread the engine emits from: post_message is thread-safe.
        from aiq_tui.events import CatalogReloaded

        if isinstance(event, CatalogReloaded):
            self.post_message(Rescore())

    def on_rescore(self, _message: Rescore) -> None:
        self.load()

    def action_rescore(self) -> None:
        self.load()

    # -- reading (a worker: widgets do no I/O) and scoring (the engine's matcher) ----------
    @work(thread=True, exclusive=True, group="trigger-eval", exit_on_error=False)
    def load(self) -> None:
        from aiq_tui.ranking.evaluate import EvalFileError
        from aiq_tui.ranking.trigger_eval import read_trigger_cases

        if not self.path.exists():
            loaded = _Loaded(())
        else:
            try:
                cases = read_trigger_cases(self.path, self.skill)
                loaded = _Loaded(
                    tuple(case for case in cases if case.skill == self.skill)
                )
            except EvalFileError as exc:
                loaded = _Loaded((), str(exc))
        self.app.call_from_thread(self.show, loaded)

    def show(self, loaded: _Loaded) -> None:
        from aiq_tui.ranking.trigger_eval import evaluate_triggers

        config = self.engine.config
        if self.engine.workspace.catalog.get(self.skill) is None:
            self.report, self.error = (
                None,
                "the skill is no longer in the catalog (removed or failed to load)",
            )
        elif loaded.error:
            self.report, self.error = None, loaded.error
        else:
            self.error = None
            self.report = evaluate_triggers(
                self.engine.rank,
                loaded.cases,
                top_k=config.matching.top_k,
                thresholds=config.disclosure,
            )
        self.scored += 1
        self.query_one("#eval-summary", Static).update(
            summary_text(self.skill, self.report, self.shown_path, self.error)
        )
        self._fill_table()

    def _fill_table(self) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        grounds = table_grounds(table)  # readable on the plain and the striped rows
        for number, verdict in enumerate(self.report.verdicts if self.report else ()):
            match = verdict.match
            table.add_row(
                Text(
                    "pass" if verdict.passed else "FAIL",
                    style=badge_style(self.app, RESULT_BADGE[verdict.passed], *grounds),
                ),
                "should" if verdict.case.should_trigger else "should not",
                verdict.phase.label if verdict.loaded else "–",
                str(verdict.rank) if verdict.rank else "–",
                f"{match.confidence:.2f}" if match else "–",
                f"{match.score:.2f}" if match else "–",
                verdict.case.query,
                key=str(number),
            )
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        self._show_detail()

    def selected(self) -> TriggerVerdict | None:
        table = self.query_one(DataTable)
        if self.report is None or table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.report.verdicts[int(key)] if key is not None else None

    def _show_detail(self) -> None:
        verdict = self.selected()
        text = ""
        if verdict is not None:
            query = verdict.case.query
            text = detail_text(
                verdict,
                self.engine.explain(query, self.skill),
                self.engine.signal_words(query, self.skill),
            )
        self.query_one("#eval-detail", Static).update(text)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    # -- adding the last message ---------------------------------------------------------
    def action_add(self, should_trigger: bool) -> None:
        message = last_user_message(self.engine)
        if message is None:
            self.notify(
                "Send a message in the conversation first; it becomes the query.",
                severity="warning",
            )
            return
        self.add(message, should_trigger)

    @work(thread=True, group="trigger-eval-write", exit_on_error=False)
    def add(self, query: str, should_trigger: bool) -> None:
        from aiq_tui.ranking.evaluate import EvalFileError
        from aiq_tui.ranking.trigger_eval import add_trigger_query

        label = "should trigger" if should_trigger else "should not trigger"
        try:
            outcome = add_trigger_query(self.path, query, should_trigger)
        except (EvalFileError, OSError) as exc:
            self.app.call_from_thread(
                self.notify, f"not added: {exc}", severity="error"
            )
            return
        said = {
            "added": f"added as {label}",
            "relabelled": f"now marked {label}",
            "kept": f"already there as {label}",
        }[outcome]
        self.app.call_from_thread(self.notify, f"{said}: {query[:60]}")
        self.app.call_from_thread(self.post_message, Rescore())

    # -- the tuner's proposal (p), written only on w --------------------------------------
    def action_propose(self) -> None:
        if self.proposing:
            return
        if self.report is None or not any(
            v.case.should_trigger for v in self.report.verdicts
        ):
            self.notify(
                "The tuner needs should-trigger queries: add some with t first.",
                severity="warning",
            )
            return
        self.proposing = True
        self._show_proposal(
            Text(
                "tuning the description on the train split … (judged by the keyword matcher)"
            )
        )
        self.propose(tuple(verdict.case for verdict in self.report.verdicts))

    @work(thread=True, exclusive=True, group="trigger-eval-tune", exit_on_error=False)
    def propose(self, cases: tuple[Any, ...]) -> None:
        from aiq_tui.tuning import tune_skill

        workspace = self.engine.workspace
        settings = self.engine.config.evals
        meta = workspace.catalog.get(self.skill)
        try:
            if meta is None:
                raise LookupError("the skill is no longer in the catalog")
            result, _size = tune_skill(
                workspace,
                meta,
                list(cases),
                settings.iterations,
                settings.holdout,
                settings.seed,
            )
        except Exception as exc:
            self.app.call_from_thread(self._proposal_failed, str(exc))
            return
        self.app.call_from_thread(self._proposed, result, meta.description)

    def _proposed(self, result: Any, on_disk: str) -> None:
        self.proposing = False
        self.proposal = result if result.changed else None
        self._on_disk = on_disk  # what SKILL.md held when the tuner read it: w refuses if it changed
        self._show_proposal(proposal_text(result))

    def _proposal_failed(self, error: str) -> None:
        self.proposing = False
        self.proposal = None
        self._show_proposal(Text(f"tuner failed: {error}"))

    def _show_proposal(self, text: Text) -> None:
        widget = self.query_one("#eval-proposal", Static)
        widget.update(text)
        widget.display = bool(text.plain)

    def action_write_proposal(self) -> None:
        if self.proposal is None:
            self.notify(
                "No proposal to write: press p to run the tuner first.",
                severity="warning",
            )
            return
        proposal, self.proposal = self.proposal, None
        self.write_description(proposal.best.description, self._on_disk)

    @work(thread=True, group="trigger-eval-write", exit_on_error=False)
    def write_description(self, description: str, expected: str) -> None:
        from aiq_tui.skills.store import StoreError

        try:
            self.engine.workspace.catalog.set_description(
                self.skill, description, expected=expected
            )
        except (StoreError, OSError) as exc:
            self.app.call_from_thread(
                self.notify, f"not written: {exc}", severity="error"
            )
            return
        self.app.call_from_thread(self._written)

    def _written(self) -> None:
        self.written += 1
        self._show_proposal(Text(""))
        self.notify(f"wrote the description of {self.skill} to SKILL.md")
        self.engine.reload()  # what the watcher does on a save: the rows are scored again
