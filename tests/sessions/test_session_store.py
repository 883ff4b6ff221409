"""Sessions on disk: round trip, atomic save, corrupt files, list/rename/delete/export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.agent.sessions import (
    SESSION_VERSION,
    Session,
    SessionError,
    SessionNotFound,
    SessionStore,
    SkillStatus,
    TokenFigures,
    ToolCallRecord,
)
from aiq_tui.conversation import Message, Role, ToolCall
from aiq_tui.skills.model import Phase, SkillState


def _full_session(store: SessionStore) -> Session:
    session = store.create(
        title="Bookshop questions", provider="openai", model="gpt-4o-mini"
    )
    call = ToolCall(
        id="call_1",
        name="execute_sql",
        arguments={"query": "SELECT 1", "source": "sample"},
    )
    session.messages += [
        Message(Role.USER, "Which books sell best?", id="m1"),
        Message(Role.ASSISTANT, "", tool_calls=(call,), id="m2"),
        Message(
            Role.TOOL,
            '{"columns": ["1"], "rows": [[1]]}',
            tool_call_id="call_1",
            name="execute_sql",
            id="m3",
        ),
        Message(Role.ASSISTANT, "Dune sells best.", id="m4"),
        Message(
            Role.SYSTEM,
            "[Earlier conversation: 2 messages summarised]",
            summary=True,
            id="m5",
        ),
    ]
    session.tool_calls.append(
        ToolCallRecord(
            "call_1", "execute_sql", {"query": "SELECT 1"}, "1 row", True, 0.012
        )
    )
    session.skill_states["sql-analyst"] = SkillStatus(
        SkillState.ACTIVE, Phase.FULL, "use_skill"
    )
    session.summaries.append("The user asked about books.")
    session.tokens = TokenFigures(
        window=8192,
        last_total=1234,
        parts={"system": 100},
        input_tokens=900,
        output_tokens=40,
    )
    return session


def test_session_round_trips_through_json_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = _full_session(store)
    path = store.save(session)
    assert path.name == f"session_{session.id}.json"
    loaded = store.load(session.id)
    assert loaded == session
    data = json.loads(path.read_text())
    assert data["version"] == SESSION_VERSION
    assert data["skill_states"]["sql-analyst"] == {
        "state": "active",
        "phase": "full",
        "reason": "use_skill",
    }
    assert data["tool_calls"][0]["summary"] == "1 row"


def test_load_accepts_a_unique_id_prefix_and_rejects_ambiguous_ones(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    for session_id in ("abc111", "abc222", "xyz333"):
        store.save(Session(id=session_id))
    assert store.load("xyz").id == "xyz333"
    with pytest.raises(SessionError, match="ambiguous"):
        store.load("abc")
    with pytest.raises(SessionNotFound, match="no session 'nope'"):
        store.load("nope")


def test_session_ids_cannot_escape_the_sessions_directory(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s")
    with pytest.raises(SessionError, match="invalid session id"):
        store.save(Session(id="../evil"))
    with pytest.raises(SessionNotFound):
        store.load("../evil")


def test_save_replaces_atomically_and_leaves_no_temp_files(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session = store.create(title="t")
    for i in range(5):
        session.messages.append(Message(Role.USER, f"message {i}"))
        store.save(session)
    assert sorted(
        p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")
    ) == [f"session_{session.id}.json"]
    assert len(store.load(session.id).messages) == 5


def test_failed_write_keeps_the_previous_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore(tmp_path)
    session = store.create(title="before")
    session.title = "after"

    def broken_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("aiq_tui.agent.sessions.os.fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        store.save(session)
    monkeypatch.undo()
    assert store.load(session.id).title == "before"
    assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == [
        f"session_{session.id}.json"
    ]


def test_corrupt_session_file_is_reported_and_skipped_never_touched(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    good = store.create(title="good")
    corrupt = tmp_path / "session_broken.json"
    corrupt.write_text('{"id": "broken", "messages": [')
    listing = store.scan()
    assert [s.id for s in listing.sessions] == [good.id]
    assert len(listing.problems) == 1
    problem = listing.problems[0]
    assert problem.path == corrupt and "session file skipped" in problem.message
    assert corrupt.read_text() == '{"id": "broken", "messages": ['
    with pytest.raises(SessionError, match="left untouched"):
        store.load("broken")
    assert corrupt.exists()


def test_list_is_newest_first_and_rename_and_delete_work(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    first = store.create(title="first")
    second = store.create(title="second")
    assert [s.title for s in store.list()] == ["second", "first"]
    store.rename(first.id, "renamed")
    assert [s.title for s in store.list()] == ["renamed", "second"]
    store.delete(second.id)
    assert [s.id for s in store.list()] == [first.id]
    with pytest.raises(SessionNotFound):
        store.delete(second.id)


def test_untitled_session_is_listed_by_its_first_question(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session = store.create()
    session.messages.append(Message(Role.USER, "How many customers are there?"))
    store.save(session)
    assert store.list()[0].title == "How many customers are there?"
    assert store.list()[0].messages == 1


def test_export_markdown_shows_messages_tool_calls_and_figures(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session = _full_session(store)
    store.save(session)
    text = store.export_markdown(session.id)
    assert text.startswith("# Bookshop questions\n")
    assert "## User\n\nWhich books sell best?" in text
    assert "**Tool call** `execute_sql`" in text
    assert "### Tool result: execute_sql" in text
    assert "## Summary of earlier conversation" in text
    assert "| execute_sql | 1 row | yes | 0.01 |" in text
    assert "- sql-analyst: active, full" in text
    assert "gpt-4o-mini (openai)" in text


def test_stale_temp_files_of_dead_writers_are_cleaned_but_not_sessions(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    session = store.create(title="x")
    stale = tmp_path / f".session_{session.id}.json.999999999.abcdef.tmp"
    stale.write_text("{half")
    store.list()
    assert not stale.exists()
    assert store.load(session.id).title == "x"


def test_newer_session_format_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "session_future.json").write_text(
        json.dumps({"version": 99, "id": "future"})
    )
    store = SessionStore(tmp_path)
    with pytest.raises(SessionError, match="upgrade aiq-tui"):
        store.load("future")
