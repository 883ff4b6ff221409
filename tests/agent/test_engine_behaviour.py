"""Engine behaviour: compression stages, cancel, faults, refusal, approval, resume, reload."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.agent.sessions import SessionNotFound
from aiq_tui.context.model import Stage
from aiq_tui.conversation import Role
from aiq_tui.events import (
    BudgetChanged,
    CatalogReloaded,
    CompressionApplied,
    ErrorRaised,
    RetryScheduled,
    SkillStateChanged,
    TokenStreamed,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
    TurnFinished,
)
from aiq_tui.llm.demo import DemoScript
from aiq_tui.skills.model import Phase, SkillState
from aiq_tui.tools.base import Decision
from aiq_tui.tools.registry import approve_all
from aiq_tui.workspace import Workspace
from tests.agent.helpers import (
    Recorder,
    demo_engine,
    openai_engine,
    write_config,
    write_skill,
)
from tests.llm.fakes import (
    FakeModelServer,
    Reply,
    json_reply,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)

# -- compression stages, driven by the demo's scripted long conversation ---------------------


async def test_demo_long_script_fires_80_90_and_95_percent_stages_in_order(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home")
    assert engine.window == 8192, "the demo provider's own window"
    script = DemoScript.for_engine(engine)
    fractions: list[float] = []
    while (text := script.next_turn(engine.breakdown.fraction)) is not None:
        await engine.send(text)
        fractions.append(engine.breakdown.fraction)
        assert engine.breakdown.total <= engine.window
    stages = [int(e.plan.stage) for e in seen.of(CompressionApplied)]
    first = {stage: stages.index(stage) for stage in (80, 90, 95) if stage in stages}
    assert list(first) == [80, 90, 95] and first[80] < first[90] < first[95], stages
    for event in seen.of(CompressionApplied):
        assert event.after < event.before, event.step
    assert not seen.of(ErrorRaised)
    # The gauge is seen past the last threshold before compression brings it down (after a
    # turn it is lower: older tool results are cleared first).
    assert max(e.breakdown.fraction for e in seen.of(BudgetChanged)) >= 0.95
    assert max(fractions) >= 0.80
    # After the 95 % stage only the last 5 messages survive beside the summary.
    aggressive = next(
        e for e in seen.of(CompressionApplied) if e.plan.stage is Stage.AGGRESSIVE
    )
    assert aggressive.plan.keep_last <= engine.config.context.keep_last_aggressive + 1
    summaries = [m for m in engine.session.messages if m.summary]
    assert len(summaries) == 1 and engine.session.summaries


async def test_eviction_at_90_percent_drops_relevant_skills_and_keeps_the_active_one(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    write_config(home, "context:\n  window: 4800\n  reserve_output: 256\n")
    engine, seen = demo_engine(home)
    await engine.activate("sql-explorer")
    await engine.send("make a markdown report from the query results")
    relevant = [v.name for v in engine.skill_views() if v.state is SkillState.RELEVANT]
    assert relevant, "the question loads at least one Relevant skill"
    # Fill the history to just under the window so the next check lands past 90 %.
    filler = "word " * int(engine.window * 0.9 - engine.breakdown.total)
    seen.clear()
    await engine.send("Summarise: " + filler)
    evicted = [e for e in seen.of(SkillStateChanged) if e.new is None]
    assert evicted and all(e.name != "sql-explorer" for e in evicted)
    assert all("evicted at 9" in e.reason for e in evicted)
    assert engine.skills.state_of("sql-explorer") is SkillState.ACTIVE
    assert "## Skill: sql-explorer" in engine.current_prompt().system


async def test_compact_summarises_older_messages_now_and_is_a_noop_when_short(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home")
    plan = await engine.compact()
    assert plan.is_noop
    for index in range(8):
        await engine.send(
            f"Explain how skills are chosen, part {index}. (demo: answer with about 150 tokens)"
        )
    before = len(engine.session.messages)
    seen.clear()
    plan = await engine.compact()
    assert not plan.is_noop and plan.summarise_ids
    assert len(engine.session.messages) == before - len(plan.summarise_ids) + 1
    assert engine.session.messages[0].summary
    assert seen.of(CompressionApplied) and seen.of(BudgetChanged)


async def test_a_prompt_that_cannot_fit_is_refused_not_truncated(
    tmp_path: Path,
) -> None:
    async with FakeModelServer([sse_reply(openai_text_stream(["never"]))]) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        engine.config.context.window = 3000
        answer = await engine.send("please read this " + "enormous " * 4000)
        assert server.requests == [], "nothing is sent"
    assert answer == ""
    error = seen.of(ErrorRaised)[0]
    assert (
        error.message.startswith("not sent:") and "3000-token window" in error.message
    )
    assert engine.session.messages[-1].role is Role.USER, "the user's turn is kept"


# -- streaming, cancel and faults -------------------------------------------------------------


async def test_cancel_mid_stream_keeps_the_partial_answer_and_saves(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home", delay=0.02)
    streamed: list[str] = []
    some = (
        asyncio.Event()
    )  # a few pieces are in: the cancel lands mid-stream, not before it

    def on_event(event: object) -> None:
        if isinstance(event, TokenStreamed):
            streamed.append(event.text)
            if len(streamed) >= 5:
                some.set()

    engine.subscribe(on_event)
    task = asyncio.create_task(
        engine.send(
            "Explain how skills are chosen for a question. "
            "(demo: answer with about 400 tokens)"
        )
    )
    await asyncio.wait_for(some.wait(), 30)
    engine.cancel()
    answer = await asyncio.wait_for(task, 5)
    done = seen.of(TurnFinished)[-1]
    assert done.cancelled and answer == done.text and 0 < len(answer) < 1500
    assert answer == "".join(streamed), (
        "the partial answer is what was streamed before the cancel"
    )
    saved = json.loads(
        engine.sessions.path_for(engine.session.id).read_text(encoding="utf-8")
    )
    assert [m["role"] for m in saved["messages"]] == ["user", "assistant"]
    assert saved["messages"][1]["content"] == answer
    assert not engine.busy


async def test_provider_error_keeps_the_turn_and_retry_answers_it(
    tmp_path: Path,
) -> None:
    replies = [
        json_reply(
            400, {"error": {"message": "bad request", "type": "invalid_request_error"}}
        ),
        sse_reply(openai_text_stream(["Second ", "time lucky."])),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        assert await engine.send("hello") == ""
        error = seen.of(ErrorRaised)[0]
        assert "fake" in error.message and "400" in error.message
        assert error.message.count("fake") == 1, (
            "the provider is named once (issue 24, item 11)"
        )
        stored = json.loads(
            engine.sessions.path_for(engine.session.id).read_text(encoding="utf-8")
        )
        assert [m["content"] for m in stored["messages"]] == ["hello"]
        assert await engine.retry() == "Second time lucky."
    assert [m.role for m in engine.session.messages] == [Role.USER, Role.ASSISTANT]


async def test_retries_are_reported_as_events(tmp_path: Path) -> None:
    replies = [
        json_reply(503, {"error": {"message": "busy"}}),
        sse_reply(openai_text_stream(["ok"])),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        assert await engine.send("hello") == "ok"
    retry = seen.of(RetryScheduled)[0]
    assert retry.attempt == 1 and "503" in retry.reason


async def test_malformed_tool_arguments_are_answered_with_an_error_the_model_can_fix(
    tmp_path: Path,
) -> None:
    replies = [
        sse_reply(
            openai_tool_stream([("call_bad", "execute_sql", '{"sql": "SELECT 1"')])
        ),
        sse_reply(openai_text_stream(["fixed"])),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        assert await engine.send("run a query") == "fixed"
        second = server.requests[1].body["messages"]
    finished = seen.of(ToolCallFinished)[0]
    assert not finished.ok and "not valid JSON" in finished.result
    assistant = next(m for m in second if m.get("tool_calls"))
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {}
    tool = next(m for m in second if m["role"] == "tool")
    assert "not valid JSON" in tool["content"]


async def test_tool_arguments_nested_too_deep_fail_as_a_tool_error_and_the_turn_goes_on(
    tmp_path: Path,
) -> None:
    deep = '{"sql": ' + "[" * 5_000 + "]" * 5_000 + "}"
    replies = [
        sse_reply(openai_tool_stream([("call_deep", "execute_sql", deep)])),
        sse_reply(openai_text_stream(["flatter now"])),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        assert await engine.send("run a query") == "flatter now"
        second = server.requests[1].body["messages"]
    finished = seen.of(ToolCallFinished)[0]
    assert not finished.ok and "nested deeper than 64 levels" in finished.result
    tool = next(m for m in second if m["role"] == "tool")
    assert "nested deeper than 64 levels" in tool["content"]
    assert not seen.of(ErrorRaised)


async def test_tool_loops_are_bounded(tmp_path: Path) -> None:
    call = ("call_{}", "file_operations", '{"operation": "exists", "path": "."}')
    replies = [
        sse_reply(openai_tool_stream([(call[0].format(i), call[1], call[2])]))
        for i in range(3)
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        engine.max_rounds = 3
        await engine.send("loop forever")
        assert len(server.requests) == 3
    assert "stopped after 3 model calls" in seen.of(ErrorRaised)[0].message


# -- approval and allowed-tools ----------------------------------------------------------------


def _command_call() -> list[Reply]:
    return [
        sse_reply(
            openai_tool_stream(
                [("call_cmd", "execute_command", '{"command": ["echo", "hi"]}')]
            )
        ),
        sse_reply(openai_text_stream(["done"])),
    ]


async def test_ask_permission_goes_through_the_approver(tmp_path: Path) -> None:
    asked: list[str] = []

    async def approver(request):
        asked.append(request.detail)
        return Decision.DENY

    async with FakeModelServer(_command_call()) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        engine.approver = approver
        await engine.send("say hi with echo")
    assert asked and "echo hi" in asked[0]
    assert seen.of(ToolCallRequested)[0].permission == "ask"
    assert "declined" in seen.of(ToolCallDenied)[0].reason


async def test_without_an_approver_ask_calls_are_refused_with_a_hint(
    tmp_path: Path,
) -> None:
    async with FakeModelServer(_command_call()) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        await engine.send("say hi with echo")
    assert "--yes" in seen.of(ToolCallDenied)[0].reason


async def test_an_active_skills_allowed_tools_no_longer_block_another_tool(
    tmp_path: Path,
) -> None:
    """allowed-tools pre-approve (agent.skill_allowed_tools: preapprove); they never block."""
    replies = [
        sse_reply(
            openai_tool_stream(
                [("call_h", "http_request", '{"url": "http://127.0.0.1:9/x"}')]
            )
        ),
        sse_reply(openai_text_stream(["ok"])),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        engine.approver = approve_all
        assert await engine.activate("sql-explorer")  # allowed-tools: execute_sql
        await engine.send("fetch that page")
    assert not [d for d in seen.of(ToolCallDenied) if "execute_sql" in d.reason]


# -- explicit activation, resume, reload --------------------------------------------------------


async def test_slash_skill_activates_regardless_of_score_and_unknown_is_false(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home")
    assert await engine.activate("http-api")
    change = seen.of(SkillStateChanged)[-1]
    assert (change.name, change.new, change.phase) == (
        "http-api",
        SkillState.ACTIVE,
        Phase.FULL,
    )
    assert "http-api" in seen.of(BudgetChanged)[-1].breakdown.skills
    assert not await engine.activate("no-such-skill")
    await engine.send("what is the weather like")  # matches nothing: stays Active
    assert engine.skills.state_of("http-api") is SkillState.ACTIVE


async def test_resume_restores_history_skills_and_budget(tmp_path: Path) -> None:
    home = tmp_path / "home"
    engine, _ = demo_engine(home)
    await engine.activate("file-notes")
    await engine.send("show the tables in the sample database")
    saved_id, saved_total = engine.session.id, engine.breakdown.total
    states = {
        v.name: (v.state, v.phase)
        for v in engine.skill_views()
        if v.state is not SkillState.INACTIVE
    }

    fresh = Engine.create(Workspace.open(home_flag=home))
    seen = Recorder()
    fresh.subscribe(seen)
    await fresh.resume(saved_id[:10])
    assert fresh.session.id == saved_id
    assert {
        v.name: (v.state, v.phase)
        for v in fresh.skill_views()
        if v.state is not SkillState.INACTIVE
    } == states
    assert fresh.breakdown.total == saved_total
    assert "file-notes" in fresh.skills.explicit
    with pytest.raises(SessionNotFound):
        await fresh.resume("nope")


async def test_clear_starts_a_new_session_and_unloads_skills(tmp_path: Path) -> None:
    engine, _seen = demo_engine(tmp_path / "home")
    await engine.send("show the tables in the sample database")
    first = engine.session.id
    engine.clear()
    assert engine.session.id != first and not engine.session.messages
    assert all(v.state is SkillState.INACTIVE for v in engine.skill_views())
    assert engine.sessions.path_for(first).exists()
    assert not engine.sessions.path_for(engine.session.id).exists(), (
        "written on its first turn"
    )


async def test_reload_adds_changes_and_removes_skills(tmp_path: Path) -> None:
    home = tmp_path / "home"
    engine, seen = demo_engine(home)
    write_skill(
        home / "skills", "weather-report", "Report the weather forecast for a city."
    )
    event = engine.reload()
    assert event.added == ("weather-report",) and seen.of(CatalogReloaded)[-1] == event
    assert engine.rank("weather forecast").matches[0].name == "weather-report"
    assert await engine.activate("weather-report")
    assert "skill_weather-report" in {
        spec.name for spec in engine.current_prompt().tools
    }

    write_skill(
        home / "skills",
        "weather-report",
        "Report the weather forecast and the tides.",
        body="New body.\n",
    )
    event = engine.reload()
    assert event.changed == ("weather-report",)
    assert "New body." in engine.current_prompt().system

    (home / "skills" / "weather-report" / "SKILL.md").write_text(
        "---\nname: weather-report\n---\nbroken\n"
    )
    event = engine.reload()
    assert event.problems and "weather-report" in engine.workspace.catalog, (
        "last good version kept"
    )
    assert engine.problems

    (home / "skills" / "weather-report" / "SKILL.md").unlink()
    (home / "skills" / "weather-report").rmdir()
    event = engine.reload()
    assert event.removed == ("weather-report",)
    gone = [
        e
        for e in seen.of(SkillStateChanged)
        if e.name == "weather-report" and e.new is None
    ]
    assert gone and "removed" in gone[-1].reason
    assert "weather-report" not in [
        m.name for m in engine.rank("weather forecast").matches
    ]
    assert "skill_weather-report" not in engine.tools


# -- settings applied while running --------------------------------------------------------------


async def test_a_switch_to_a_model_of_another_encoding_recounts_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiq_tui.config import load_config
    from aiq_tui.locations import Home

    engine, _ = demo_engine(tmp_path)
    engine.warm_up()
    assert engine.counter.info.wanted == "cl100k_base"
    monkeypatch.setenv(
        "OPENAI_API_KEY", "sk-test"
    )  # the provider is created, never called
    write_config(
        tmp_path,
        "llm:\n  provider: openai\n  providers:\n    openai:\n      kind: openai\n"
        "      model: gpt-4o\n",
    )
    await engine.apply_settings(load_config(Home(tmp_path)))
    assert engine.counter.info.wanted == "o200k_base" and not engine.counter.pending
    await engine.aclose()


async def test_a_switch_to_the_estimator_recounts_the_budget_and_the_loaded_skills(
    tmp_path: Path,
) -> None:
    from aiq_tui.config import load_config
    from aiq_tui.locations import Home

    write_skill(
        tmp_path / "skills",
        "sql-report",
        "Summarise sales figures from the database.",
        body="Run a query.\n" * 40,
    )
    engine, _ = demo_engine(tmp_path)
    engine.warm_up()
    assert await engine.activate("sql-report")
    exact_costs = {cost.name: cost.tokens for cost in engine.skills.costs()}
    assert exact_costs and engine.breakdown.exact
    write_config(tmp_path, "context:\n  encoding: estimate\n")
    await engine.apply_settings(load_config(Home(tmp_path)))
    assert not engine.breakdown.exact and engine.counter.encoding == "estimate"
    assert {cost.name: cost.tokens for cost in engine.skills.costs()} != exact_costs
    await engine.aclose()


def test_relevant_skills_are_in_the_prompt_by_confidence_not_by_name(
    tmp_path: Path,
) -> None:
    from aiq_tui.skills.model import Match, Ranking

    home = tmp_path / "home"
    write_config(home, "skills:\n  bundled: false\n  include_user_agent_dirs: false\n")
    for name in ("alpha", "mike", "zulu"):
        write_skill(home / "skills", name, f"The {name} skill")
    engine, _ = demo_engine(home)
    ranking = Ranking(
        "q",
        ("q",),
        (Match("zulu", 9.0, 0.6), Match("mike", 5.0, 0.4), Match("alpha", 3.0, 0.2)),
        3,
    )
    engine.skills.apply_ranking(ranking)
    prompt = engine.current_prompt()
    assert prompt.skills_order == ("zulu", "mike", "alpha")
    system = prompt.system
    assert (
        system.index("## Skill: zulu")
        < system.index("## Skill: mike")
        < system.index("## Skill: alpha")
    )


async def test_a_skill_shown_as_a_brief_is_upgraded_to_full_before_its_tool_runs(
    tmp_path: Path,
) -> None:
    """Seed 003, phase 3: "when … the tool is about to be executed, the full description SHALL
    be loaded"; an event says so, before the call is requested."""
    home = tmp_path / "home"
    write_config(
        home,
        "skills:\n  bundled: false\n  include_user_agent_dirs: false\n"
        "disclosure:\n  brief_threshold: 0.1\n",
    )
    write_skill(
        home / "skills",
        "greeting",
        "Write a greeting card for someone",
        body="# Greeting\n\nUse for cards.\n\n## Details\n\nThe full details.\n",
        extra="type: template\ntemplate: Hello {{.who}}\nparameters:\n  who:\n    type: string\n",
    )
    write_skill(home / "skills", "card-designer", "Design a card layout")
    replies = [
        sse_reply(openai_tool_stream([("call_1", "skill_greeting", '{"who": "Ann"}')])),
        sse_reply(openai_text_stream(["done"])),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(home, server.base_url)
        assert await engine.send("design a card") == "done"
        first, second = (
            request.body["messages"][0]["content"] for request in server.requests
        )
    changes = [
        e for e in seen.events if isinstance(e, (SkillStateChanged, ToolCallRequested))
    ]
    greeting = [e for e in changes if getattr(e, "name", None) == "greeting"]
    assert [(e.new, e.phase) for e in greeting] == [
        (SkillState.RELEVANT, Phase.BRIEF),
        (SkillState.RELEVANT, Phase.FULL),
    ]
    assert "before its tool skill_greeting runs" in greeting[1].reason
    requested = next(e for e in changes if isinstance(e, ToolCallRequested))
    assert changes.index(greeting[1]) < changes.index(requested)
    assert "The full details." not in first and "The full details." in second
    assert seen.of(ToolCallFinished)[0].ok


async def test_a_call_cancelled_while_it_runs_says_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C while a long command runs: the call ends as cancelled in the stream (so the Tools
    tab, replay and captions say so), not left running; no result is invented for it."""
    from aiq_tui.events import ToolCallCancelled

    engine, seen = demo_engine(tmp_path / "home")
    engine.approver = approve_all
    running = asyncio.Event()

    async def long_command(arguments: dict, *more: object) -> object:
        running.set()
        await asyncio.Event().wait()  # as `du -a /usr` on a big disk

    tool = engine.tools.get("execute_command")
    for way in ("run", "run_with_approval", "run_observed"):
        if hasattr(tool, way):
            monkeypatch.setattr(tool, way, long_command)
    task = asyncio.create_task(engine.send("run ls and tell me what is in this folder"))
    await asyncio.wait_for(running.wait(), 30)
    engine.cancel()
    await asyncio.wait_for(task, 10)
    (requested,) = [
        e for e in seen.of(ToolCallRequested) if e.name == "execute_command"
    ]
    cancelled = seen.of(ToolCallCancelled)
    assert [(e.call_id, e.reason) for e in cancelled] == [
        (requested.call_id, "cancelled by you")
    ]
    assert not [e for e in seen.of(ToolCallFinished) if e.call_id == requested.call_id]
    assert seen.of(TurnFinished)[-1].cancelled
