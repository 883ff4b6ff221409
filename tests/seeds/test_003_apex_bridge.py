"""Seed 003 (apex-bridge): three-phase progressive disclosure by confidence, caches, the tool ↔
skill mapping and execution by intent (``aiq-tui run``)."""

from __future__ import annotations

import json
from pathlib import Path

from aiq_tui.skills.model import Phase
from tests.seeds.seed_support import call_tool, config

TEMPLATE = (
    "type: template\nparameters:\n  version: {type: string, description: Version}\n"
    'template: "Release {{.version}}"\n'
)


def test_progressive_disclosure_based_on_confidence(add, engine) -> None:
    add(
        "deploy", "Deploy the app", body="## Steps\n\nShip it.\n\n## More\n\nDetails.\n"
    )
    eng, _ = engine()
    texts = eng.skills.texts
    assert texts.phase_for(0.20) is Phase.BRIEF
    assert texts.phase_for(0.75) is Phase.FULL
    assert "Details." in texts.description_by_confidence("deploy", 0.75)
    assert "Details." not in texts.description_by_confidence("deploy", 0.20)


def test_metadata_only_loading_at_startup(add, engine) -> None:
    for index in range(10):
        add(f"s{index}", f"Skill {index}")
    eng, _ = engine()
    assert eng.skills.loaded() == []  # nothing beyond metadata
    assert (
        eng.breakdown.catalog < 100 + 40
    )  # ten catalog lines (+ the section's heading and use_skill hint)


def test_confidence_threshold_configuration(home: Path, add, engine) -> None:
    config(home, "disclosure:\n  brief_threshold: 0.3\n  full_threshold: 0.9\n")
    add("x")
    eng, _ = engine()
    assert eng.skills.texts.phase_for(0.25) is Phase.METADATA
    assert eng.skills.texts.phase_for(0.85) is Phase.BRIEF
    config(home, "")
    default, _ = engine()
    assert (
        default.config.disclosure.brief_threshold,
        default.config.disclosure.full_threshold,
    ) == (0.15, 0.7)


def test_phase_1_description_generation(add, engine) -> None:
    add("deploy", "Deploy the app " + "with care " * 40)
    eng, _ = engine()
    meta = eng.workspace.catalog.get("deploy")
    text = eng.skills.texts.metadata_text(meta)
    assert eng.counter.count(text) <= 60 and text.startswith("deploy")
    assert eng.skills.texts.metadata_text(meta) is text  # cached


def test_phase_2_description_generation(add, engine) -> None:
    add(
        "release",
        "Release notes",
        body="## Use\n\nFill the version.\n\n## Later\n\n" + "more " * 400,
        extra=TEMPLATE,
    )
    eng, _ = engine()
    brief = eng.skills.texts.text_for("release", Phase.BRIEF)
    assert "version" in brief and "Fill the version." in brief
    assert eng.counter.count(brief) <= 220
    assert eng.config.disclosure.brief_ttl_seconds == 1800


def test_phase_3_description_generation(add, engine) -> None:
    body = "## Use\n\nAll details.\n\n## Examples\n\nExample one.\n"
    add("release", "Release notes", body=body)
    eng, _ = engine()
    full = eng.skills.texts.text_for("release", Phase.FULL)
    assert "All details." in full and "Example one." in full
    assert eng.config.disclosure.full_ttl_seconds == 900


def test_confidence_based_description_selection(add, engine) -> None:
    add(
        "deploy",
        "Deploy the app",
        body="## Steps\n\nShip it.\n\n## Examples\n\nExample.\n",
    )
    eng, _ = engine()
    texts = eng.skills.texts
    assert texts.description_by_confidence("deploy", 0.10) == texts.text_for(
        "deploy", Phase.METADATA
    )
    assert texts.description_by_confidence("deploy", 0.50) == texts.text_for(
        "deploy", Phase.BRIEF
    )
    assert texts.description_by_confidence("deploy", 0.80) == texts.text_for(
        "deploy", Phase.FULL
    )


def test_tool_name_to_skill_mapping(add, engine) -> None:
    add("release", "Release notes", extra=TEMPLATE)
    eng, _ = engine()
    assert eng.skill_for_tool("skill_release") == "release"
    assert (
        eng.skill_for_tool("skill_unknown") is None
        and eng.skill_for_tool("execute_sql") is None
    )
    assert eng.skill_for_tool(None) is None  # never a crash


async def test_tool_call_to_execution_request_conversion(add, engine) -> None:
    add("echoer", "Echoes", extra='type: template\ntemplate: "{{.a}}|{{.b}}|{{.c}}"\n')
    eng, _ = engine()
    result = await call_tool(eng, "skill_echoer", {"a": "x", "b": 2, "c": [1, 2]})
    assert result.content["output"] == "x|2|[1, 2]"  # every parameter value preserved


async def test_execution_response_to_tool_result_conversion(add, engine) -> None:
    add("echoer", "Echoes", extra='type: template\ntemplate: "{{.a}}"\n')
    eng, _ = engine()
    ok = await call_tool(eng, "skill_echoer", {"a": "data"})
    assert ok.ok and ok.content == {
        "name": "echoer",
        "type": "template",
        "output": "data",
    }
    failed = await call_tool(eng, "skill_echoer", {})
    assert not failed.ok and "missing template parameter 'a'" in failed.error


def test_confidence_based_tool_description_resolution(add, engine) -> None:
    add(
        "deploy",
        "Deploy the app",
        body="## Steps\n\nShip it.\n\n## Examples\n\nExample.\n",
    )
    eng, _ = engine()
    texts = eng.skills.texts
    skill = eng.skill_for_tool(
        "skill_deploy"
    )  # the tool name resolves through the one mapping
    assert texts.resolve(skill, 0.20) == texts.text_for("deploy", Phase.BRIEF)
    assert texts.resolve(skill, 0.80) == texts.text_for("deploy", Phase.FULL)


def test_default_tool_description_resolution(add, engine) -> None:
    add("deploy", "Deploy the app")
    eng, _ = engine()
    skill = eng.skill_for_tool("skill_deploy")
    assert eng.skills.texts.resolve(skill) == eng.skills.texts.text_for(
        "deploy", Phase.METADATA
    )


def test_tool_execution_via_skillsexecutionmanager(add, cli) -> None:
    add("release-notes", "Write release notes for a version", extra=TEMPLATE)
    code, out, err = cli("run", "write release notes", "-p", "version=2.0")
    assert code == 0, err
    assert out.strip() == "Release 2.0"


def test_execution_with_confidence_threshold(add, cli) -> None:
    add("release-notes", "Write release notes for a version", extra=TEMPLATE)
    code, out, _ = cli(
        "run",
        "notes for the team meeting about a version",
        "--min-confidence",
        "0.99",
        "--json",
    )
    data = json.loads(out)
    assert code == 1 and data["ran"] is None and "release-notes" in data["reason"]
