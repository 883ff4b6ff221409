"""``aiq-tui ask``: one headless turn, text or JSON lines, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json

import pytest

from aiq_tui.cli import main


def test_ask_streams_the_demo_answer_and_reports_tools_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ask", "how many customers are there?"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("[demo model]") and "| 200 |" in out
    assert "tool execute_sql" in err and "skill sql-explorer" in err
    assert "continue with --session" in err


def test_ask_json_prints_every_event_as_one_json_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ask", "--json", "how many customers are there?"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "turn_started" and types[-1] == "session_saved"
    for expected in (
        "skills_matched",
        "skill_state_changed",
        "budget_changed",
        "tool_call_requested",
        "tool_call_finished",
        "token_streamed",
        "turn_finished",
    ):
        assert expected in types
    finished = next(line for line in lines if line["type"] == "turn_finished")
    assert "200" in finished["text"]
    budget = [line for line in lines if line["type"] == "budget_changed"][-1][
        "breakdown"
    ]
    assert budget["total"] == sum(
        budget[k] for k in ("system", "catalog", "history", "tool_results", "reserve")
    ) + sum(budget["skills"].values())


def test_ask_continues_a_session(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--json", "how many customers are there?"]) == 0
    saved = [json.loads(x) for x in capsys.readouterr().out.splitlines()][-1]
    assert (
        main(["ask", "--json", "--session", saved["session_id"], "and how many books?"])
        == 0
    )
    again = [json.loads(x) for x in capsys.readouterr().out.splitlines()][-1]
    assert again["session_id"] == saved["session_id"]
    data = json.loads(open(again["path"], encoding="utf-8").read())
    assert [m["content"] for m in data["messages"] if m["role"] == "user"] == [
        "how many customers are there?",
        "and how many books?",
    ]


def test_ask_model_failure_exits_1_and_names_the_missing_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ask", "--provider", "openai", "hello"]) == 1
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", "--provider", "nope", "hi"],
        ["ask", "--session", "missing", "hi"],
        ["ask", "   "],
        ["ask", "--yes", "--deny-all", "hi"],
    ],
)
def test_ask_usage_errors_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(argv))
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip()


def _saved_session_ids(capsys: pytest.CaptureFixture[str], count: int) -> list[str]:
    ids = []
    for _ in range(count):
        assert main(["ask", "--json", "hello"]) == 0
        ids.append(
            [json.loads(x) for x in capsys.readouterr().out.splitlines()][-1][
                "session_id"
            ]
        )
    return ids


def test_ask_on_an_unreadable_session_exits_1_with_the_message_sessions_show_gives(
    capsys: pytest.CaptureFixture[str],
) -> None:
    [session_id] = _saved_session_ids(capsys, 1)
    assert main(["ask", "--json", "--session", session_id, "hi"]) == 0
    path = [json.loads(x) for x in capsys.readouterr().out.splitlines()][-1]["path"]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(
            "[" * 100_000
        )  # a file, not a usage error: it exists and cannot be read
    assert main(["sessions", "show", session_id]) == 1
    shown = capsys.readouterr().err
    assert main(["ask", "--session", session_id, "hi"]) == 1
    asked = capsys.readouterr().err
    assert "nested deeper than 100 levels" in asked and path in asked
    # the same words (the console may wrap the line sessions show prints)
    assert "".join(shown.removeprefix("error: ").split()) == "".join(
        asked.removeprefix("aiq-tui ask: ").split()
    )


def test_ask_on_an_ambiguous_session_prefix_is_a_usage_error_as_in_sessions_show(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = _saved_session_ids(capsys, 2)
    common = next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)
    assert common > 0, "the two ids share no prefix"
    prefix = first[:common]
    assert main(["sessions", "show", prefix]) == 2
    assert main(["ask", "--session", prefix, "hi"]) == 2
    assert "ambiguous" in capsys.readouterr().err
