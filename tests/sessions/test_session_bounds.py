"""Session files are bounded input (size, depth), never a crash or a hang: a file with its journal
over ``sessions.max_file_bytes``, JSON nested deeper than ``sessions.max_json_depth``, a FIFO
named like a session — each is reported with the file, the limit and what to do; nothing larger
than the limit is read, and the file is left as it was."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.agent.sessions import (
    Session,
    SessionError,
    SessionStore,
    journal_path,
    read_session_file,
)
from aiq_tui.cli import main
from aiq_tui.config import ConfigError, SessionSettings, validate_config
from aiq_tui.conversation import Message, Role
from aiq_tui.locations import Home

BIG = 100_000_000
"""A sparse file this large (over the 64 MB default) costs no disk; reading it would cost 100 MB."""


def _session_with(store: SessionStore, **arguments: Any) -> str:
    return _saved(store, **arguments).id


def _saved(store: SessionStore, **arguments: Any) -> Session:
    session = store.create(title="bounded")
    session.messages.append(Message(Role.USER, "hello"))
    if arguments:
        from aiq_tui.conversation import ToolCall

        session.messages.append(
            Message(
                Role.ASSISTANT, "", tool_calls=(ToolCall("c1", "file_read", arguments),)
            )
        )
    store.save(session)
    return session


def _nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as handle:
        handle.truncate(size)


def _without_hanging(call: Callable[[], Any], fifo: Path) -> Any:
    """``call()``'s result; if it is still blocked on ``fifo`` after 30 s, a writer that opens
    and closes the FIFO lets it go and the test fails (rather than hanging the suite)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=30)
        pytest.fail(f"reading the sessions folder waited on the FIFO {fifo.name}")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_a_session_file_over_the_limit_is_refused_unread_naming_the_file_the_size_and_the_setting(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    big = tmp_path / "session_20250101000000-bigbig.json"
    _sparse(big, BIG)
    with pytest.raises(SessionError) as raised:
        store.load("20250101000000-bigbig")
    message = str(raised.value)
    assert (
        str(big) in message
        and "100,000,000 bytes" in message
        and "64,000,000-byte limit" in message
    )
    assert "sessions.max_file_bytes" in message and "left untouched" in message
    assert big.stat().st_size == BIG


def test_a_journal_that_takes_the_session_over_the_limit_is_refused(
    tmp_path: Path,
) -> None:
    store = SessionStore(
        tmp_path, journal_from=1
    )  # every save after the first appends to the journal
    session = _saved(
        store
    )  # the saved object: a save appends what it adds (a load would not)
    session_id = session.id
    session.messages.append(Message(Role.USER, "a second turn"))
    store.save(session)
    journal = journal_path(store.path_for(session_id))
    assert journal.exists()
    assert (
        len(store.load(session_id).messages) == 2
    )  # within the limit the journal is applied
    with journal.open("ab") as handle:
        handle.truncate(BIG)
    with pytest.raises(
        SessionError,
        match=r"with its journal it is 100,0\d\d,\d\d\d bytes, over the 64,000,000",
    ):
        store.load(session_id)


def test_the_limit_counts_the_file_and_its_journal_together(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, journal_from=1)
    session = _saved(
        store
    )  # the saved object: a save appends what it adds (a load would not)
    session_id = session.id
    session.messages.append(Message(Role.USER, "x" * 5_000))
    store.save(session)
    path = store.path_for(session_id)
    base, journal = path.stat().st_size, journal_path(path).stat().st_size
    assert journal > 5_000 and base < 5_000
    assert (
        read_session_file(path, SessionSettings(max_file_bytes=base + journal))
        .messages[-1]
        .content
        == "x" * 5_000
    )
    with pytest.raises(SessionError, match="with its journal"):
        read_session_file(path, SessionSettings(max_file_bytes=base + journal - 1))


def test_json_nested_a_hundred_thousand_deep_is_named_as_too_deep(
    tmp_path: Path,
) -> None:
    path = tmp_path / "session_deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SessionError, match="nested deeper than 100 levels") as raised:
        SessionStore(tmp_path).load("deep")
    assert "sessions.max_json_depth" in str(raised.value)


def test_tool_arguments_nested_past_the_depth_limit_are_refused_though_json_could_parse_them(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    shallow = _session_with(store, path=_nested(50))
    deep = _session_with(
        store, path=_nested(200)
    )  # json reads it; re-saving or drawing would recurse as deep
    assert store.load(shallow).messages[-1].tool_calls[0].arguments["path"] == _nested(
        50
    )
    with pytest.raises(SessionError, match="nested deeper than 100 levels"):
        store.load(deep)
    assert (
        len(
            SessionStore(tmp_path, limits=SessionSettings(max_json_depth=300))
            .load(deep)
            .messages
        )
        == 2
    )


def test_a_journal_line_nested_too_deep_ends_the_journal_instead_of_raising(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path, journal_from=1)
    session = _saved(
        store
    )  # the saved object: a save appends what it adds (a load would not)
    session_id = session.id
    session.messages.append(Message(Role.USER, "journalled"))
    store.save(session)
    journal = journal_path(store.path_for(session_id))
    with journal.open("a", encoding="utf-8") as handle:
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")
    assert [m.content for m in store.load(session_id).messages] == [
        "hello",
        "journalled",
    ]


def test_a_fifo_named_like_a_session_is_listed_as_a_problem_and_never_waited_on(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    good = _session_with(store)
    fifo = tmp_path / "session_20250101000000-fifo00.json"
    os.mkfifo(fifo)
    listing = _without_hanging(store.scan, fifo)
    assert [s.id for s in listing.sessions] == [good]
    [problem] = listing.problems
    assert problem.path == fifo and "not a regular file" in problem.message
    with pytest.raises(SessionError, match="not a regular file"):
        _without_hanging(lambda: store.load("20250101000000-fifo00"), fifo)


def test_a_fifo_as_a_journal_is_refused_too(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session_id = _session_with(store)
    fifo = journal_path(store.path_for(session_id))
    os.mkfifo(fifo)
    with pytest.raises(SessionError, match="not a regular file"):
        _without_hanging(lambda: store.load(session_id), fifo)


def test_the_limits_are_settings_checked_like_every_other() -> None:
    config = validate_config(
        {"sessions": {"max_file_bytes": 1_000, "max_json_depth": 20}}
    )
    assert (config.sessions.max_file_bytes, config.sessions.max_json_depth) == (
        1_000,
        20,
    )
    with pytest.raises(ConfigError, match=r"\[sessions.max_json_depth\]"):
        validate_config(
            {"sessions": {"max_json_depth": 1_000}}
        )  # past what json and the stack allow
    with pytest.raises(ConfigError, match=r"\[sessions.max_file_bytes\]"):
        validate_config({"sessions": {"max_file_bytes": 0}})


def test_a_real_long_session_is_far_below_both_limits(tmp_path: Path) -> None:
    """The defaults leave room: the replay fixture's turns repeated to 300 (about 2.5 MB) read."""
    fixture = json.loads(
        (
            Path(__file__).parents[1] / "replay" / "fixtures" / "session_demo.json"
        ).read_text()
    )
    fixture["replay"]["turns"] *= 100
    fixture["messages"] *= 100
    path = tmp_path / f"session_{fixture['id']}.json"
    path.write_text(json.dumps(fixture))
    assert path.stat().st_size < SessionSettings().max_file_bytes // 20
    assert len(read_session_file(path).replay) == 300


# -- the commands: a warning line or exit 1 with the message (usage errors stay 2), never a traceback ----

BIG_ID = "20250101000000-bigbig"


@pytest.fixture
def home_with_a_big_session(isolated_home: Home) -> Home:
    isolated_home.ensure()
    SessionStore(isolated_home.sessions_dir).save(
        Session(id="20250101000000-good00", title="the good one")
    )
    _sparse(isolated_home.sessions_dir / f"session_{BIG_ID}.json", BIG)
    return isolated_home


def test_sessions_list_names_an_oversized_file_in_a_warning_and_in_json(
    home_with_a_big_session: Home, capsys
) -> None:
    assert main(["sessions", "list"]) == 0
    out, err = capsys.readouterr()
    assert "the good one" in out and BIG_ID not in out
    assert (
        f"warning: {home_with_a_big_session.sessions_dir / f'session_{BIG_ID}.json'}"
        in err
    )
    assert "over the 64,000,000-byte limit" in err and "sessions.max_file_bytes" in err
    assert main(["sessions", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [s["title"] for s in listing["sessions"]] == ["the good one"]
    assert listing["problems"][0]["path"].endswith(f"session_{BIG_ID}.json")
    assert "100,000,000 bytes" in listing["problems"][0]["message"]


@pytest.mark.parametrize(
    "argv",
    [
        ["sessions", "show", BIG_ID],
        ["sessions", "export", BIG_ID],
        ["sessions", "rename", BIG_ID, "new title"],
        ["replay", BIG_ID],
        ["ask", "--session", BIG_ID, "hi"],
    ],
)
def test_commands_on_an_oversized_session_exit_1_naming_the_file_and_the_limit(
    home_with_a_big_session: Home, argv: list[str], capsys
) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"session_{BIG_ID}.json" in err and "over the 64,000,000-byte limit" in err
    assert "Traceback" not in err


def test_replay_of_a_huge_file_given_by_path_exits_1_without_reading_it(
    tmp_path: Path, capsys
) -> None:
    huge = tmp_path / "exported.json"
    _sparse(huge, BIG)
    assert main(["replay", str(huge)]) == 1
    err = capsys.readouterr().err
    assert str(huge) in err and "over the 64,000,000-byte limit" in err


def test_replay_of_a_fifo_exits_1_and_does_not_wait_for_a_writer(
    tmp_path: Path, capsys
) -> None:
    fifo = tmp_path / "session.json"
    os.mkfifo(fifo)
    assert _without_hanging(lambda: main(["replay", str(fifo)]), fifo) == 1
    assert "not a regular file" in capsys.readouterr().err


def test_the_commands_read_the_limits_from_config_yaml(
    home_with_a_big_session: Home, capsys
) -> None:
    home_with_a_big_session.config_file.parent.mkdir(parents=True, exist_ok=True)
    assert main(["sessions", "show", "20250101000000-good00"]) == 0
    capsys.readouterr()
    home_with_a_big_session.config_file.write_text("sessions:\n  max_file_bytes: 100\n")
    assert main(["sessions", "list"]) == 0
    out, err = capsys.readouterr()
    assert (
        "the good one" not in out
        and "session_20250101000000-good00.json" in err
        and "100-byte limit" in err
    )
    home_with_a_big_session.config_file.write_text("sessions:\n  max_json_depth: 2\n")
    assert main(["sessions", "show", "20250101000000-good00"]) == 1
    assert "nested deeper than 2 levels" in capsys.readouterr().err
    home_with_a_big_session.config_file.write_text(
        "sessions:\n  max_json_depth: many\n"
    )
    assert main(["sessions", "list"]) == 2
    assert "sessions.max_json_depth" in capsys.readouterr().err


def test_replay_of_a_path_whose_journal_has_an_entry_of_the_wrong_shape_exits_1(
    tmp_path: Path, capsys
) -> None:
    store = SessionStore(tmp_path, journal_from=1)
    session = _saved(store)
    session.messages.append(Message(Role.USER, "journalled"))
    store.save(session)
    path = store.path_for(session.id)
    generation = json.loads(path.read_text())["journal"]
    with journal_path(path).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"journal": generation, "messages": 5}) + "\n")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "journal" in err and "Traceback" not in err
