"""A long session is saved by appending each turn to a journal, not by rewriting the whole file.

From ``journal_from`` bytes on, a save appends what the turn added (messages, tool calls, replay
turns, the small header fields) to ``session_<id>.jsonl``; the base file stays as it was until
the journal is as large as the base (a compressed history is appended whole). Loading applies the
journal; a torn last line (a save killed mid-append) and a journal left from an older base are
ignored. Sessions written before the journal existed load as before.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from aiq_tui.agent.sessions import (
    JOURNALED_VERSION,
    Session,
    SessionBusy,
    SessionStore,
    TokenFigures,
    ToolCallRecord,
    journal_path,
    read_session_file,
)
from aiq_tui.conversation import Message, Role

FILLER = "x" * 2000


def _turn(session: Session, number: int) -> None:
    """What one engine turn adds: two messages, a tool call, a replay turn, new figures."""
    session.messages += [
        Message(Role.USER, f"question {number}", id=f"u{number}"),
        Message(Role.ASSISTANT, f"answer {number} {FILLER}", id=f"a{number}"),
    ]
    session.tool_calls.append(
        ToolCallRecord(
            f"c{number}", "execute_sql", {"query": "SELECT 1"}, "1 row", True, 0.01
        )
    )
    session.replay.append(
        {
            "events": [
                {
                    "type": "turn_started",
                    "text": f"question {number}",
                    "message_id": f"u{number}",
                }
            ]
        }
    )
    session.tokens = TokenFigures(
        window=8192, last_total=number, input_tokens=10 * number
    )


def _long_session(store: SessionStore, turns: int) -> Session:
    session = Session(id="long", title="A long day")
    for number in range(turns):
        _turn(session, number)
    store.save(session)
    return session


def test_saves_of_a_long_session_append_to_the_journal_and_leave_the_file_alone(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path, journal_from=16 * 1024)
    session = _long_session(store, 20)
    path = store.path_for(session.id)
    base = path.read_bytes()
    assert json.loads(base)["version"] == JOURNALED_VERSION
    sizes = []
    for number in range(20, 25):
        _turn(session, number)
        store.save(session)
        assert path.read_bytes() == base, (
            "the session file is not rewritten by a turn's save"
        )
        sizes.append(journal_path(path).stat().st_size)
    assert all(b - a < 4 * len(FILLER) for a, b in itertools.pairwise(sizes)), (
        "a save costs its turn, not the session"
    )
    loaded = SessionStore(tmp_path).load(session.id)
    assert loaded.messages == session.messages
    assert loaded.tool_calls == session.tool_calls
    assert loaded.replay == session.replay
    assert (loaded.title, loaded.updated_at, loaded.tokens) == (
        session.title,
        session.updated_at,
        session.tokens,
    )
    assert (
        read_session_file(path) == loaded
    )  # `aiq-tui replay path/to/session_<id>.json` sees the journal too
    listed = SessionStore(tmp_path).list()
    assert [(s.id, s.messages) for s in listed] == [("long", 50)]


def test_the_journal_is_folded_into_the_file_once_it_is_as_large_as_the_file(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path, journal_from=16 * 1024)
    session = _long_session(store, 10)
    path = store.path_for(session.id)
    for number in range(10, 40):
        _turn(session, number)
        store.save(session)
        journal = (
            journal_path(path).stat().st_size if journal_path(path).exists() else 0
        )
        assert journal <= path.stat().st_size + 4 * len(FILLER), (
            "the journal never outgrows the file by more than a turn"
        )
    assert len(json.loads(path.read_text())["messages"]) > 20, (
        "the file was rewritten with the journal's turns"
    )
    assert store.load(session.id).messages == session.messages


def test_compression_appends_the_new_history_and_leaves_the_file_alone(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path, journal_from=16 * 1024)
    session = _long_session(store, 20)
    path = store.path_for(session.id)
    base = path.read_bytes()
    _turn(session, 20)
    store.save(session)
    session.messages = [
        Message(Role.SYSTEM, "[summary]", summary=True, id="s1"),
        *session.messages[-4:],
    ]
    before = journal_path(path).stat().st_size
    store.save(session)
    assert path.read_bytes() == base, (
        "a compressed history is not a reason to write the session again"
    )
    assert journal_path(path).stat().st_size - before < 6 * len(FILLER), (
        "the line holds the new history, not the session"
    )
    assert store.load(session.id).messages == session.messages
    _turn(session, 21)  # later turns append after the new history
    store.save(session)
    assert path.read_bytes() == base
    loaded = SessionStore(tmp_path).load(session.id)
    assert loaded.messages == session.messages and loaded.replay == session.replay
    assert [m.id for m in loaded.messages][:2] == ["s1", "u19"]


def test_a_version_2_journal_still_loads(tmp_path: Path) -> None:
    """Files written before a journal line could replace the history: their lines append."""
    path = tmp_path / "session_v2.json"
    path.write_text(
        json.dumps(
            {
                "version": 2,
                "id": "v2",
                "journal": "g1",
                "messages": [{"role": "user", "content": "one", "id": "m1"}],
                "replay": {"version": 1, "turns": []},
            }
        )
        + "\n"
    )
    journal_path(path).write_text(
        json.dumps(
            {
                "journal": "g1",
                "messages": [{"role": "assistant", "content": "two", "id": "m2"}],
                "turns": [{"events": []}],
            }
        )
        + "\n"
    )
    loaded = read_session_file(path)
    assert [m.content for m in loaded.messages] == ["one", "two"] and len(
        loaded.replay
    ) == 1


def test_a_torn_last_line_and_a_journal_of_an_older_file_are_ignored(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path, journal_from=16 * 1024)
    session = _long_session(store, 20)
    path = store.path_for(session.id)
    _turn(session, 20)
    store.save(session)
    saved = list(session.messages)
    with open(journal_path(path), "ab") as journal:  # a save killed mid-append
        journal.write(
            b'{"journal": "'
            + json.loads(path.read_text())["journal"].encode()
            + b'", "messages": [{"ro'
        )
    assert SessionStore(tmp_path).load(session.id).messages == saved
    stale = json.dumps(
        {"journal": "an-older-file", "messages": [{"role": "user", "content": "stale"}]}
    )
    journal_path(path).write_text(stale + "\n")
    assert SessionStore(tmp_path).load(session.id).messages == session.messages[:40]


def test_a_session_in_the_old_single_file_format_still_loads_and_is_saved_on(
    tmp_path: Path,
) -> None:
    old = {
        "version": 1,
        "id": "old",
        "title": "From before",
        "messages": [{"role": "user", "content": "hello", "id": "m1"}],
        "replay": {"version": 1, "turns": []},
    }
    (tmp_path / "session_old.json").write_text(json.dumps(old, indent=2))
    store = SessionStore(tmp_path, journal_from=16 * 1024)
    session = store.load("old")
    assert [m.content for m in session.messages] == ["hello"]
    for number in range(20):
        _turn(session, number)
        store.save(session)
    assert SessionStore(tmp_path).load("old").messages == session.messages


def test_another_writer_appending_to_the_journal_is_noticed(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, journal_from=16 * 1024)
    session = _long_session(store, 20)
    path = store.path_for(session.id)
    _turn(session, 20)
    store.save(session)
    with open(
        journal_path(path), "a", encoding="utf-8"
    ) as journal:  # another aiq-tui's turn
        journal.write(
            json.dumps(
                {"journal": json.loads(path.read_text())["journal"], "messages": []}
            )
            + "\n"
        )
    _turn(session, 21)
    with pytest.raises(SessionBusy, match="was changed by another aiq-tui"):
        store.save(session)


def test_deleting_a_session_removes_its_journal(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, journal_from=16 * 1024)
    session = _long_session(store, 20)
    _turn(session, 20)
    store.save(session)
    path = store.delete(session.id)
    assert not path.exists() and not journal_path(path).exists()
