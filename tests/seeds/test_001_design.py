"""Seed 001 (aiq design): one test per decision, through the public surface."""

from __future__ import annotations

from pathlib import Path

from aiq_tui.workspace import Workspace
from tests.seeds.seed_support import config


def test_decision_1_user_config_directory_structure(home: Path) -> None:
    workspace = Workspace.open()
    for sub in ("config", "sessions", "skills", "tools"):
        assert (home / sub).is_dir(), sub
    assert workspace.home.skills_dir == home / "skills"


def test_decision_2_skills_directory_organization(
    skills: Path, add, cli, cli_json
) -> None:
    """One folder per skill; a folder renamed NAME.disabled is skipped with a note, and enabled back."""
    add("reports")
    add("legacy")
    (skills / "legacy").rename(skills / "legacy.disabled")
    _code, data = cli_json("skills", "list")
    assert [s["name"] for s in data["skills"]] == ["reports"]
    assert any(
        "legacy.disabled" in p["message"] and p["severity"] == "warning"
        for p in data["problems"]
    )
    assert cli("skills", "enable", "legacy")[0] == 0
    assert (
        skills / "legacy" / "SKILL.md"
    ).is_file() and "legacy" in Workspace.open().catalog


def test_decision_3_skills_progressive_loading_strategy(add, engine) -> None:
    add("pdf-tools", "Extract text from PDF files", body="FULL-BODY\n")
    add("csv-report", "Summarise CSV files", body="OTHER-BODY\n")
    eng, _ = engine()
    assert eng.skills.loaded() == []  # startup: metadata only
    prompt = eng.preview(
        "extract text from pdf files"
    )  # query time: match, then load lazily
    assert [s.name for s in eng.skills.loaded()] == ["pdf-tools"]
    assert "FULL-BODY" in prompt.system and "OTHER-BODY" not in prompt.system


def test_decision_4_prompt_management_and_compression(engine) -> None:
    eng, _ = engine()
    context = eng.config.context
    assert (context.compress_at, context.evict_at, context.aggressive_at) == (
        0.8,
        0.9,
        0.95,
    )
    assert (context.keep_last, context.keep_last_aggressive) == (10, 5)
    b = eng.breakdown
    assert (
        b.total
        == b.system
        + b.catalog
        + sum(b.skills.values())
        + b.history
        + b.tool_results
        + b.reserve
    )


def test_decision_5_built_in_tools_for_skills(engine) -> None:
    eng, _ = engine()
    assert {"http_request", "execute_command", "file_operations", "execute_sql"} <= set(
        eng.tools.names()
    )
    assert (
        eng.config.tools.command_allowlist
    )  # commands restricted to a configurable allowlist


async def test_decision_6_skills_integration_into_prompt(add, engine) -> None:
    add("pdf-tools", "Extract text from PDF files", body="Use pdftotext.\n")
    eng, _ = engine()
    await eng.activate("pdf-tools")
    prompt = eng.current_prompt()
    assert (
        "## Skill: pdf-tools\nExtract text from PDF files\n\nUse pdftotext."
        in prompt.system
    )
    assert "skill_pdf-tools" in [
        spec.name for spec in prompt.tools
    ]  # tools list: built-in + skill tools


async def test_risk_4_the_user_can_disable_compression_then_an_overfull_prompt_is_refused(
    home: Path, engine
) -> None:
    """Risks 4: "allow user to disable compression" — and then nothing is truncated either."""
    from aiq_tui.events import CompressionApplied, ErrorRaised

    config(home, "context:\n  window: 3000\n  compression: false\n")
    eng, seen = engine()
    answer = await eng.send("please read this " + "enormous " * 3000)
    assert answer == "" and not seen.of(CompressionApplied)
    message = seen.of(ErrorRaised)[0].message
    assert (
        message.startswith("not sent:")
        and "compression is off (context.compression: false)" in message
    )
