"""``aiq-tui sessions list|show|rm|rename|export`` against a temporary config home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.agent.sessions import Session, SessionStore
from aiq_tui.cli import main
from aiq_tui.config import AppConfig, LLMSettings
from aiq_tui.conversation import Message, Role
from aiq_tui.llm.factory import create_provider
from aiq_tui.locations import Home


def _seed(home: Home) -> SessionStore:
    home.ensure()
    store = SessionStore(home.sessions_dir)
    session = Session(id="abc123", title="Books", provider="demo", model="aiq-demo")
    session.messages += [
        Message(Role.USER, "Which books sell best?"),
        Message(Role.ASSISTANT, "[demo model] Dune."),
    ]
    store.save(session)
    return store


def test_list_json_shows_sessions_and_reports_corrupt_files(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed(isolated_home)
    (isolated_home.sessions_dir / "session_bad.json").write_text("{not json")
    assert main(["sessions", "list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["id"] for s in data["sessions"]] == ["abc123"]
    assert data["problems"][0]["path"].endswith("session_bad.json")
    assert (isolated_home.sessions_dir / "session_bad.json").read_text() == "{not json"


def test_list_as_table_and_warning_on_stderr(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed(isolated_home)
    (isolated_home.sessions_dir / "session_bad.json").write_text("[")
    assert main(["sessions", "list"]) == 0
    out, err = capsys.readouterr()
    assert "abc123" in out and "Books" in out
    assert "session_bad.json" in err and "session file skipped" in err


def test_show_by_prefix_as_markdown_and_json(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed(isolated_home)
    assert main(["sessions", "show", "abc"]) == 0
    assert "Which books sell best?" in capsys.readouterr().out
    assert main(["sessions", "show", "abc123", "--json"]) == 0
    assert (
        json.loads(capsys.readouterr().out)["messages"][1]["content"]
        == "[demo model] Dune."
    )


def test_rename_then_export_to_file(
    isolated_home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed(isolated_home)
    assert main(["sessions", "rename", "abc123", "Best sellers"]) == 0
    target = tmp_path / "out.md"
    assert main(["sessions", "export", "abc123", "-o", str(target)]) == 0
    assert target.read_text().startswith("# Best sellers\n")


def test_rm_deletes_and_unknown_id_exits_2(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed(isolated_home)
    assert main(["sessions", "rm", "abc123"]) == 0
    assert not (isolated_home.sessions_dir / "session_abc123.json").exists()
    assert main(["sessions", "rm", "abc123"]) == 2
    assert "no session 'abc123'" in capsys.readouterr().err
    assert main(["sessions", "show", "zzz"]) == 2
    assert main(["sessions", "export", "zzz"]) == 2


def test_home_flag_is_honoured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = Home(tmp_path / "other-home")
    _seed(other)
    assert main(["sessions", "list", "--json", "--home", str(other.root)]) == 0
    assert [s["id"] for s in json.loads(capsys.readouterr().out)["sessions"]] == [
        "abc123"
    ]


def test_api_keys_never_reach_session_files(isolated_home: Home) -> None:
    secret = "sk-live-NEVER-STORE-ME-123456"
    config = AppConfig(llm=LLMSettings(provider="openai"))
    provider = create_provider(config, env={"OPENAI_API_KEY": secret})
    isolated_home.ensure()
    store = SessionStore(isolated_home.sessions_dir)
    session = store.create(title="k", provider=provider.name, model=provider.model)
    session.messages.append(Message(Role.USER, "hello"))
    store.save(session)
    for path in isolated_home.root.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    assert session.provider == "openai" and session.model == "gpt-4o-mini"


def test_the_list_keeps_each_id_on_one_line_at_80_columns(
    isolated_home: Home,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    store = _seed(isolated_home)
    session = Session(
        id="20261128093113-819250",
        provider="demo",
        model="aiq-demo",  # a real id's length
        title="show the tables in the sample database, then the orders by month",
    )
    session.messages.append(Message(Role.USER, session.title))
    store.save(session)
    assert main(["sessions", "list"]) == 0
    out = capsys.readouterr().out
    assert "20261128093113-819250" in out, out
