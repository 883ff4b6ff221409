"""``match --eval FILE --llm``: each query, in the request the engine builds before any skill is
disclosed, goes to a scripted model on 127.0.0.1 (OpenAI-compatible and Anthropic wire formats);
the model's use_skill calls become a trigger rate beside the matcher's figures."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.cli import main
from aiq_tui.workspace import Workspace
from tests.llm.fakes import (
    RecordedRequest,
    Reply,
    ThreadedModelServer,
    anthropic_text_stream,
    anthropic_tool_stream,
    json_reply,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)
from tests.match.test_match_cli import write_skill

QUERIES = [
    {"query": "make a gif of a dancing llama for slack", "should_trigger": True},
    {
        "query": "a quick gif, or maybe just a png?",
        "should_trigger": True,
    },  # the model hesitates
    {"query": "what's the weather in Lisbon tomorrow", "should_trigger": False},
    {"query": "export our slack channel to csv", "should_trigger": False},
]


def last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return (
        content
        if isinstance(content, str)
        else " ".join(block.get("text", "") for block in content)
    )


def system_text(body: dict[str, Any]) -> str:
    if "system" in body:  # Anthropic
        system = body["system"]
        return (
            system
            if isinstance(system, str)
            else " ".join(block.get("text", "") for block in system)
        )
    return body["messages"][0]["content"]  # OpenAI: the system message first


def scripted(kind: str) -> Callable[[RecordedRequest], Reply]:
    """A model that loads the gif skill for gif requests (the hesitant one on 1 run of 3) and
    answers everything else in text."""
    hesitant = {"count": 0}
    lock = threading.Lock()

    def call(name: str) -> Reply:
        arguments = json.dumps({"skill_name": name})
        if kind == "openai":
            return sse_reply(openai_tool_stream([("call_1", "use_skill", arguments)]))
        return sse_reply(anthropic_tool_stream([("toolu_1", "use_skill", arguments)]))

    def text(answer: str) -> Reply:
        return sse_reply(
            openai_text_stream([answer])
            if kind == "openai"
            else anthropic_text_stream([answer])
        )

    def respond(request: RecordedRequest) -> Reply:
        query = last_user_text(request.body)
        if "maybe" in query:
            with lock:
                hesitant["count"] += 1
                first = hesitant["count"] == 1
            return call("gif-maker") if first else text("Here is a PNG instead.")
        if "gif" in query:
            return call("gif-maker")
        return text("Sure.")

    return respond


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "gif-maker", "Make animated GIFs for Slack.")
    write_skill(root, "weather-report", "Forecasts for any city.")
    return root


@pytest.fixture
def eval_set(tmp_path: Path) -> Path:
    path = tmp_path / "trigger_eval.json"
    path.write_text(json.dumps(QUERIES), encoding="utf-8")
    return path


def run_llm(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    model: ThreadedModelServer,
    *argv: str,
) -> tuple[int, str, str]:
    env = {
        "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    }
    key, base = env[kind]
    monkeypatch.setenv(key, "sk-test-not-real")
    monkeypatch.setenv(base, model.server.base_url)
    code = main(["match", "--provider", kind, "--llm", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_llm_trigger_rates_beside_the_matchers_figures(
    kind: str,
    skills: Path,
    eval_set: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedModelServer(respond=scripted(kind)) as model:
        code, out, err = run_llm(
            capsys,
            monkeypatch,
            kind,
            model,
            "--eval",
            str(eval_set),
            "--skill",
            "gif-maker",
            "--skills-dir",
            str(skills),
            "--keyword-only",
            "--json",
        )
        requests = list(model.server.requests)
    assert code == 0, err
    data = json.loads(out)
    assert data["overall"]["queries"] == 4  # the matcher's figures are still there
    llm = data["model"]
    assert (
        llm["provider"] == kind and llm["runs"] == 3 and llm["trigger_threshold"] == 0.5
    )
    assert len(requests) == 4 * 3
    rates = {
        q["query"]: (q["triggers"], q["runs"], q["passed"]) for q in llm["queries"]
    }
    assert rates[QUERIES[0]["query"]] == (3, 3, True)
    assert rates[QUERIES[1]["query"]] == (
        1,
        3,
        False,
    )  # 1 of 3 runs is under the 0.5 trigger rate
    assert rates[QUERIES[2]["query"]] == (0, 3, True)
    overall = llm["overall"]
    assert (overall["recall"], overall["false_triggers"], overall["trigger_rate"]) == (
        0.5,
        0,
        round(4 / 6, 4),
    )
    assert "4 queries × 3 run(s)" in err


def test_the_request_is_the_engines_catalog_prompt_with_no_skill_disclosed(
    skills: Path,
    eval_set: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedModelServer(respond=scripted("openai")) as model:
        code, _out, err = run_llm(
            capsys,
            monkeypatch,
            "openai",
            model,
            "--eval",
            str(eval_set),
            "--skill",
            "gif-maker",
            "--skills-dir",
            str(skills),
            "--runs",
            "1",
            "--json",
        )
        requests = list(model.server.requests)
    assert code == 0, err
    sent = {
        last_user_text(r.body): (
            system_text(r.body),
            [t["function"]["name"] for t in r.body["tools"]],
        )
        for r in requests
    }
    engine = Engine.create(Workspace.open(skills_dirs=(str(skills),)), "openai")
    for query in (q["query"] for q in QUERIES):
        prompt = engine.catalog_prompt(query)
        assert (
            sent[query][0] == prompt.system
        )  # one path: the engine's own prompt builder
        assert sent[query][1] == [spec.name for spec in prompt.tools]
        assert (
            "- gif-maker: Make animated GIFs for Slack." in prompt.system
            and prompt.skills_order == ()
        )
        assert "use_skill" in sent[query][1]


def test_text_report_shows_model_columns_and_the_model_failures(
    skills: Path,
    eval_set: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedModelServer(respond=scripted("openai")) as model:
        code, out, _err = run_llm(
            capsys,
            monkeypatch,
            "openai",
            model,
            "--eval",
            str(eval_set),
            "--skill",
            "gif-maker",
            "--skills-dir",
            str(skills),
            "--keyword-only",
        )
    assert code == 0
    assert (
        "model R" in out
        and "use_skill 1/3" in out
        and "a quick gif, or maybe just a png?" in out
    )


def test_min_recall_gates_the_model_too(
    skills: Path,
    eval_set: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedModelServer(respond=scripted("anthropic")) as model:
        code, out, _err = run_llm(
            capsys,
            monkeypatch,
            "anthropic",
            model,
            "--eval",
            str(eval_set),
            "--skill",
            "gif-maker",
            "--skills-dir",
            str(skills),
            "--min-recall",
            "0.9",
            "--json",
        )
    assert code == 1
    assert any(
        line.startswith("model: gif-maker recall 0.500")
        for line in json.loads(out)["gates_failed"]
    )


def test_a_refused_key_stops_at_the_first_request_with_exit_1(
    skills: Path,
    eval_set: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ThreadedModelServer(
        respond=lambda request: json_reply(401, {"error": {"message": "bad key"}})
    ) as model:
        code, out, err = run_llm(
            capsys,
            monkeypatch,
            "openai",
            model,
            "--eval",
            str(eval_set),
            "--skill",
            "gif-maker",
            "--skills-dir",
            str(skills),
            "--json",
        )
        asked = len(model.server.requests)
    assert code == 1 and out == ""
    assert "401" in err or "bad key" in err or "key" in err.lower()
    assert asked < 4 * 3  # it did not go on sending every request


def test_llm_needs_a_trigger_set(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tsv = tmp_path / "q.tsv"
    tsv.write_text("make a gif\tgif-maker\n")
    assert (
        main(["match", "--eval", str(tsv), "--llm", "--skills-dir", str(skills)]) == 2
    )
    assert "--llm does not apply to a TSV" in capsys.readouterr().err


def test_tune_llm_asks_the_model_for_a_description_each_round(
    skills: Path,
    eval_set: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    proposal = "Make animated GIFs and maybe PNG stickers for Slack reactions."

    def respond(request: RecordedRequest) -> Reply:
        assert "<current_description>" in last_user_text(request.body)
        return sse_reply(
            openai_text_stream([f"<new_description>{proposal}</new_description>"])
        )

    emoji = [
        {"query": f"an emoji sticker of a {animal}", "should_trigger": True}
        for animal in ("cat", "dog", "fox", "owl", "cow")
    ]
    other = [
        {"query": f"weather forecast for {city}", "should_trigger": False}
        for city in ("Lisbon", "Paris", "Oslo", "Rome", "Bern")
    ]
    eval_set.write_text(
        json.dumps(emoji + other), encoding="utf-8"
    )  # the gif skill misses every sticker
    with ThreadedModelServer(respond=respond) as model:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        code = main(
            [
                "skills",
                "tune",
                "gif-maker",
                "--eval",
                str(eval_set),
                "--skills-dir",
                str(skills),
                "--llm",
                "--provider",
                "openai",
                "--rounds",
                "1",
                "--json",
            ]
        )
        asked = len(model.server.requests)
    out = capsys.readouterr().out
    assert code == 0 and asked == 1
    data = json.loads(out)
    assert any(
        h["origin"] == "model proposal" and h["description"] == proposal
        for h in data["history"]
    )
    assert data["model_proposals_failed"] == []


def test_tune_llm_with_a_refused_key_asks_once_and_exits_1(
    skills: Path,
    eval_set: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    emoji = [
        {"query": f"an emoji sticker of a {animal}", "should_trigger": True}
        for animal in ("cat", "dog", "fox")
    ]
    other = [
        {"query": f"weather forecast for {city}", "should_trigger": False}
        for city in ("Lisbon", "Oslo", "Rome")
    ]
    eval_set.write_text(json.dumps(emoji + other), encoding="utf-8")
    with ThreadedModelServer(
        respond=lambda request: json_reply(401, {"error": {"message": "bad key"}})
    ) as model:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        code = main(
            [
                "skills",
                "tune",
                "gif-maker",
                "--eval",
                str(eval_set),
                "--skills-dir",
                str(skills),
                "--llm",
                "--provider",
                "openai",
                "--json",
            ]
        )
        asked = len(model.server.requests)
    captured = capsys.readouterr()
    assert code == 1 and asked == 1
    assert (
        json.loads(captured.out)["model_proposals_failed"] and "--llm" in captured.err
    )
