"""The engine against a fake OpenAI server: use_skill → execute_sql → answer, end to end."""

from __future__ import annotations

import json
from pathlib import Path

from aiq_tui.events import (
    BudgetChanged,
    SessionSaved,
    SkillsMatched,
    SkillStateChanged,
    ToolCallFinished,
    ToolCallRequested,
    TurnFinished,
    TurnStarted,
)
from aiq_tui.skills.model import Phase, SkillState
from tests.agent.helpers import openai_engine
from tests.llm.fakes import (
    FakeModelServer,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)


def request_tokens(counter, prompt) -> int:
    """The test's own count of the request as one piece (system, tools, messages): the figure
    the engine's breakdown must equal, minus the reserve."""
    return (
        counter.count_system(prompt.system)
        + counter.count_tools(prompt.tools)
        + counter.count_messages(prompt.messages)
    )


QUESTION = "Hello! Could you work out the size of our clientele?"
ANSWER = "There are 200 customers in the sample bookshop."


def script() -> list:
    return [
        sse_reply(
            openai_tool_stream(
                [("call_1", "use_skill", '{"skill_name": "sql-explorer"}')]
            )
        ),
        sse_reply(
            openai_tool_stream(
                [
                    (
                        "call_2",
                        "execute_sql",
                        '{"source": "sample", "sql": "SELECT COUNT(*) AS n FROM customers"}',
                    )
                ]
            )
        ),
        sse_reply(
            openai_text_stream(
                ["There are 200 ", "customers in the ", "sample bookshop."],
                usage=(900, 12),
            )
        ),
    ]


async def test_use_skill_then_sql_then_answer_events_session_and_budget(
    tmp_path: Path,
) -> None:
    async with FakeModelServer(script()) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        answer = await engine.send(QUESTION)

    assert answer == ANSWER
    # -- events: one turn, in order -------------------------------------------------------
    types = seen.types()
    assert types[0] == "TurnStarted" and types[1] == "SkillsMatched"
    assert types[-2:] == ["TurnFinished", "SessionSaved"]
    assert seen.of(TurnStarted)[0].text == QUESTION
    requested = [(e.name, dict(e.arguments)) for e in seen.of(ToolCallRequested)]
    assert requested == [
        ("use_skill", {"skill_name": "sql-explorer"}),
        (
            "execute_sql",
            {"source": "sample", "sql": "SELECT COUNT(*) AS n FROM customers"},
        ),
    ]
    finished = seen.of(ToolCallFinished)
    assert [f.ok for f in finished] == [True, True]
    assert finished[1].result["rows"] == [[200]]
    activated = [
        e
        for e in seen.of(SkillStateChanged)
        if e.name == "sql-explorer" and e.new is SkillState.ACTIVE
    ]
    assert (
        activated
        and activated[-1].phase is Phase.FULL
        and "use_skill" in activated[-1].reason
    )
    # the activation happens while use_skill runs, before its result is reported
    assert types.index(
        "SkillStateChanged", types.index("ToolCallRequested")
    ) < types.index("ToolCallFinished")
    done = seen.of(TurnFinished)[0]
    assert (done.text, done.cancelled, done.output_tokens) == (ANSWER, False, 52)

    # -- what the model was sent ----------------------------------------------------------
    assert len(server.requests) == 3
    second, third = server.requests[1].body, server.requests[2].body
    assert (
        "## Skill: sql-explorer"
        not in server.requests[0].body["messages"][0]["content"]
    )
    assert "## Skill: sql-explorer" in second["messages"][0]["content"], (
        "use_skill loads it into the system prompt"
    )
    use_skill_result = next(m for m in second["messages"] if m["role"] == "tool")
    assert "system prompt" in use_skill_result["content"], (
        "instructions are not paid for twice"
    )
    sql_result = [m for m in third["messages"] if m["role"] == "tool"][-1]
    assert json.loads(sql_result["content"])["rows"] == [[200]]
    offered = {tool["function"]["name"] for tool in third["tools"]}
    assert {"use_skill", "execute_sql", "skill_sql-explorer"} <= offered
    assert "skill_http-api" not in offered, (
        "skill_<name> tools are offered only for loaded skills"
    )

    # -- budget: the last figures are exactly what the next request would cost -----------
    last = seen.of(BudgetChanged)[-1].breakdown
    assert last == engine.breakdown
    assert "sql-explorer" in last.skills and last.skills["sql-explorer"] > 0
    assert last.tool_results > 0 and last.history > 0
    prompt = engine.current_prompt()
    assert last.total == request_tokens(engine.counter, prompt) + last.reserve
    assert last.window == 16_000

    # -- the saved session ----------------------------------------------------------------
    saved = seen.of(SessionSaved)[-1]
    data = json.loads(saved.path.read_text(encoding="utf-8"))
    assert data["id"] == engine.session.id
    roles = [
        (m["role"], [c["name"] for c in m.get("tool_calls", [])])
        for m in data["messages"]
    ]
    assert roles == [
        ("user", []),
        ("assistant", ["use_skill"]),
        ("tool", []),
        ("assistant", ["execute_sql"]),
        ("tool", []),
        ("assistant", []),
    ]
    assert data["messages"][-1]["content"] == ANSWER
    assert [c["name"] for c in data["tool_calls"]] == ["use_skill", "execute_sql"]
    assert all(c["ok"] for c in data["tool_calls"])
    assert data["skill_states"]["sql-explorer"]["state"] == "active"
    assert data["skill_states"]["sql-explorer"]["phase"] == "full"
    assert (
        data["tokens"]["last_total"] == last.total
        and data["tokens"]["window"] == 16_000
    )
    assert data["tokens"]["output_tokens"] == 52
    assert data["provider"] == "fake" and data["model"] == "gpt-4o-mini"
    assert "key" not in saved.path.read_text(encoding="utf-8").lower().replace(
        "skill", ""
    )


async def test_matched_skills_are_reported_with_the_ranking(tmp_path: Path) -> None:
    async with FakeModelServer([sse_reply(openai_text_stream(["ok"]))]) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        await engine.send("list the tables in the sample database with sql")
    ranking = seen.of(SkillsMatched)[0].ranking
    assert ranking.matches[0].name == "sql-explorer"
    loaded = {e.name: e for e in seen.of(SkillStateChanged)}
    assert loaded["sql-explorer"].new is SkillState.ACTIVE
    assert loaded["sql-explorer"].reason.startswith("loaded full: confidence")
    assert "## Skill: sql-explorer" in server.requests[0].body["messages"][0]["content"]
