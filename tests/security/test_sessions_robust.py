"""Sessions (findings 8, 9 and 12): odd text saves, concurrent writers never lose a turn
silently, temp files of killed saves are gone at start-up."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aiq_tui.agent.sessions import SessionBusy, SessionStore
from aiq_tui.conversation import Message, Role


def test_lone_surrogates_are_saved_and_restored(tmp_path: Path) -> None:
    """Finding 8: a lone surrogate in tool arguments crashed the save."""
    store = SessionStore(tmp_path)
    session = store.create()
    session.messages.append(
        Message(Role.USER, "half an emoji: \ud83d and \udc00 alone")
    )
    path = store.save(session)
    json.loads(path.read_text(encoding="utf-8"))  # valid UTF-8, valid JSON
    assert (
        SessionStore(tmp_path).load(session.id).messages[-1].content
        == "half an emoji: \ud83d and \udc00 alone"
    )


def test_a_second_writer_gets_a_clear_error_and_its_turn_is_kept(
    tmp_path: Path,
) -> None:
    """Finding 9: two `ask --session ID` at once both said saved; one turn was lost."""
    first, second = SessionStore(tmp_path), SessionStore(tmp_path)
    original = first.create()
    a = first.load(original.id)
    b = second.load(original.id)
    a.messages.append(Message(Role.USER, "turn A"))
    b.messages.append(Message(Role.USER, "turn B"))
    first.save(a)
    with pytest.raises(SessionBusy, match="changed by another aiq-tui") as raised:
        second.save(b)
    assert [m.content for m in SessionStore(tmp_path).load(original.id).messages] == [
        "turn A"
    ]
    forked = b.id
    assert forked != original.id and forked in str(raised.value)
    assert [m.content for m in SessionStore(tmp_path).load(forked).messages] == [
        "turn B"
    ]


def test_the_same_writer_saves_again_and_again(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session = store.create()
    for index in range(3):
        session.messages.append(Message(Role.USER, str(index)))
        store.save(session)
    assert len(store.load(session.id).messages) == 3


def test_a_held_lock_refuses_a_concurrent_save(tmp_path: Path) -> None:
    import fcntl

    store = SessionStore(tmp_path)
    session = store.create()
    fd = os.open(tmp_path / f".session_{session.id}.lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        # flock is per open file description: another one in this process contends like a process would
        with pytest.raises(SessionBusy, match="being saved by another"):
            store.save(session)
    finally:
        os.close(fd)


def test_stale_temp_files_are_removed_at_start_up(tmp_path: Path) -> None:
    """Finding 12: killed saves left 37 temp files of ~10 MB until the next scan."""
    dead_pid = 2**22 + 12345  # above pid_max on common systems: certainly not running
    stale = [
        tmp_path / f".session_20260101000000-abcdef.json.{dead_pid}.{i:06x}.tmp"
        for i in range(3)
    ]
    for path in stale:
        path.write_bytes(b"x" * 1000)
    live = tmp_path / f".session_20260101000000-abcdef.json.{os.getpid()}.000000.tmp"
    live.write_bytes(b"in progress")
    SessionStore(tmp_path)
    assert not any(path.exists() for path in stale) and live.exists()
