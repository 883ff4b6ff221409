"""Sessions in the TUI: a new one (``/clear``), a saved one resumed (F4), one deleted while in use,
and Replay mode over the current or a saved one (F4 → r, ``/replay [ID]``).

:class:`SessionControl` (``app.session_control``) starts each new story on screen: a fresh time
cursor, the demo ended, the conversation drawn from its top. While Replay is open, live events are
held (``app._held_events``) and drawn when it closes: Replay draws with the same widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiq_tui.ui.messages import EngineEvent
from aiq_tui.ui.widgets.conversation import Conversation

if TYPE_CHECKING:
    from aiq_tui.ui.app import AiqApp


class SessionControl:
    """New, resumed, deleted and replayed sessions."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app

    async def clear(self) -> None:
        """``/clear``: a new session; the previous one stays saved."""
        app = self.app
        if app.bridge.refused_while_turn_runs():  # a turn, or the /demo between two
            return
        await self.clear_session()
        await app.note("new session — the previous one stays saved", "info")

    async def clear_session(self) -> None:
        """The engine starts a new session and the screen a new story: a new cursor (turn 1 is
        the new session's first question), no demo, the conversation at its end and no skill
        marked by the old session's compressions. The engine's unloads end the old story
        (stepped back to, the new one showed the old session's budget and history, and its
        "active → inactive — new conversation" lines stayed into the next /demo); the new story
        starts from the budget the new session has."""
        app = self.app
        app._collected = []
        try:
            app.live_engine.clear()
        finally:
            ended, app._collected = app._collected, None
        for event in ended:  # its unloads and the new budget, folded in the old story
            await app.apply_event(event)
        await self.new_story({"type": "reset", "session": "new"})  # keeps that budget
        app.chrome.update_subtitle()

    async def new_story(self, reset: dict[str, Any]) -> None:
        """What the screen shows from now on belongs to another session: the time cursor starts
        afresh from ``reset`` (folded over the last state: a resumed session keeps the skills its
        engine restored), the step-through demo ends and the conversation is drawn from its top."""
        app = self.app
        app.demo_control.end()
        reset.setdefault("clock", app.clock().strftime("%H:%M:%S"))
        app.cursor = app.cursor.fresh(reset)
        app._set_busy(app.cursor.head.running)
        for conversation in app.screen_stack[0].query(Conversation):
            await conversation.reset()
        await app.draw()
        app.refresh_bindings()

    def resume(self, session_id: str) -> None:
        """A saved session, chosen in F4, continues here."""
        self.app.run_worker(
            self._resume(session_id),
            name="_resume",
            group="engine",
            exit_on_error=False,
        )

    async def _resume(self, session_id: str) -> None:
        """The resumed session's recorded turns are folded as they were shown live (tool calls
        as ``⚙`` lines, compressions, skill changes); then the engine restores its skills."""
        from aiq_tui.agent.sessions import SessionError
        from aiq_tui.terminal_text import printable

        app = self.app
        if app.busy:
            app.live_engine.cancel()
        try:
            await app.live_engine.resume(session_id)
        except SessionError as exc:  # a session file is input: one that cannot be read is said, the app goes on
            app.notify(
                printable(str(exc)),
                title="Cannot resume",
                severity="error",
                markup=False,
                timeout=15,
            )
            return
        await app.drained()  # the skills it restored are folded before its history
        await self.new_story({"type": "reset"})
        for record in history_records(app.live_engine.session):
            await app.take(record)
        await (
            app.bridge.engine_budget()
        )  # the budget now, not the one its last turn ended on
        app.chrome.update_subtitle()
        app.refresh_skills()

    async def deleted(self, session_id: str) -> None:
        """Deleting the session in use starts a new one; otherwise its next turn would write
        the deleted file back with all its old messages."""
        if session_id != self.app.live_engine.session.id:
            return
        await self.clear_session()
        await self.app.note(
            f"deleted session {session_id} — this is a new session", "info"
        )

    def sessions(self) -> None:
        """F4: the saved sessions; the one chosen is resumed."""
        from aiq_tui.ui.screens.sessions import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.resume(session_id)

        self.app.push_screen(SessionsScreen(self.app.live_engine), chosen)

    def replay(self, session_id: str = "") -> None:
        """Replay mode (F4 → r, ``/replay [ID]``): the session's turns, read-only; Esc returns.
        A saved session is read and folded by the screen's worker (a loading bar meanwhile);
        the current one is in memory."""
        from aiq_tui.agent.sessions import SessionError, SessionNotFound
        from aiq_tui.replay.state import turns_from_messages
        from aiq_tui.ui.screens.replay import Recorded, ReplayScreen, ReplayUnavailable

        app = self.app
        if app.bridge.refused_while_turn_runs():
            return

        def recorded(session: Any) -> Recorded:
            turns, note = session.replay, ""
            if not turns:
                turns = turns_from_messages(session.messages)
                note = "recorded before replay: conversation only" if turns else ""
            if not turns:
                raise ReplayUnavailable(
                    "Nothing to replay yet: this session has no turns.", "warning"
                )
            return Recorded(turns, session.display_title, note)

        store = app.live_engine.sessions

        def load() -> Recorded:  # in the screen's worker thread
            try:
                return recorded(store.load(session_id))
            except (
                SessionNotFound
            ):  # in the app the list is F4, not the CLI the store's message names
                raise ReplayUnavailable(
                    f"No session {session_id!r}. F4 lists the saved sessions; "
                    "r there replays one."
                ) from None
            except SessionError as exc:
                raise ReplayUnavailable(str(exc)) from None

        turns: Any = None
        title, note = session_id, ""
        if not session_id:
            try:
                current = recorded(app.live_engine.session)
            except ReplayUnavailable as problem:
                app.notify(str(problem), severity="warning", markup=False)
                return
            turns, title, note = current.turns, current.title, current.note
        metas = list(
            app.live_engine.workspace.catalog
        )  # as it is now: the worker counts their tokens
        context = app.live_engine.config.context
        skills = getattr(app.engine, "skills", None)

        def rows() -> list[tuple[str, str, int]]:
            return [
                (
                    m.name,
                    m.description,
                    skills.catalog_tokens(m.name, m.description) if skills else 0,
                )
                for m in metas
            ]

        screen = ReplayScreen(
            turns,
            title,
            note=note,
            thresholds=(context.compress_at, context.evict_at, context.aggressive_at),
            catalog=rows,
            load=None if turns is not None else load,
        )
        app._held_events = []
        app.push_screen(screen, callback=lambda _: self._back_to_live())

    def _back_to_live(self) -> None:
        app = self.app
        held, app._held_events = app._held_events or [], None
        for event in held:
            app.post_message(EngineEvent(event))


def history_records(session: Any) -> list[dict[str, Any]]:
    """What a resumed session showed, as records to fold: its recorded turns (tool results from
    its messages, for the tool log), or for a session saved before replay, its messages."""
    from aiq_tui.conversation import Role
    from aiq_tui.replay.state import turns_from_messages

    turns = getattr(session, "replay", None) or turns_from_messages(session.messages)
    results = {
        m.tool_call_id: m.content
        for m in session.messages
        if m.role is Role.TOOL and m.tool_call_id
    }
    records = []
    for turn in turns:
        for data in turn.get("events", ()):
            record = dict(data)
            if (
                record.get("type") == "tool_call_finished"
                and record.get("call_id") in results
            ):
                record["result"] = results[record["call_id"]]
            records.append(record)
    return records
