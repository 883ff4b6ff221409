"""The doctor judges a collection by the harness that reads it: its window, its skill listing's
character budget, the fields it documents — not by the workbench's own demo window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.doctor.model import Kind, Level
from aiq_tui.doctor.run import inputs_for_workspace, run_doctor
from aiq_tui.locations import Home
from aiq_tui.workspace import Workspace
from tests.skills import collections
from tests.skills.collections import skill


def _report(root: Path, target: str = "auto"):
    return run_doctor(
        inputs_for_workspace(Workspace.open(skills_dirs=(str(root),)), target)
    )


def test_a_claude_code_plugin_is_judged_in_claude_codes_window(
    tmp_path: Path, isolated_home: Home
) -> None:
    collections.anthropic_like(tmp_path)
    skill(
        tmp_path / "skills" / "claude-api",
        description="Build apps with the Claude API.",
    )
    (tmp_path / "skills" / "claude-api" / "SKILL.md").write_text(
        "---\nname: claude-api\ndescription: Build apps with the Claude API.\n---\n"
        + "Reference of every endpoint and parameter. " * 1500
    )
    report = _report(tmp_path)
    assert report.target is not None and report.target.name == "claude-code"
    assert report.target.window == 200_000 and "skills live in" in report.target.why
    assert not [f for f in report.findings if "cannot be loaded" in f.title]
    judged_here = _report(tmp_path, "aiq")  # the demo model's 8,192 tokens
    assert judged_here.target.window == 8_192
    assert [f for f in judged_here.findings if "claude-api cannot be loaded" in f.title]


def test_a_listing_over_claude_codes_budget_is_a_warning(
    tmp_path: Path, isolated_home: Home
) -> None:
    collections.composio_like(tmp_path, apps=80)
    report = _report(tmp_path)
    listing = report.listing
    assert listing is not None and listing.budget == 8_000 and listing.over
    [over] = [f for f in report.findings if "skill listing is" in f.title]
    assert over.kind is Kind.BUDGET and over.level is Level.WARNING
    assert f"{listing.chars:,} characters" in over.title
    assert (
        "disable-model-invocation" in over.fix
        and "SLASH_COMMAND_TOOL_CHAR_BUDGET" in over.fix
    )


def test_skills_only_the_user_runs_leave_the_listing(
    tmp_path: Path, isolated_home: Home
) -> None:
    everything, manual = collections.mattpocock_like(tmp_path)
    report = _report(tmp_path)
    assert report.listing.manual_only == len(manual)
    assert report.listing.listed == report.skills - len(manual)
    assert report.skills >= len(everything)  # (the bundled skills too)
    assert not [
        f for f in report.findings if f.kind is Kind.SPEC and f.level is Level.ERROR
    ]


def test_codexs_budget_and_the_cli_shows_the_target(
    tmp_path: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    collections.openai_like(tmp_path)
    assert main(["skills", "doctor", "--skills-dir", str(tmp_path), "--json"]) in (0, 1)
    data = json.loads(capsys.readouterr().out)
    assert data["target"]["name"] == "codex" and data["target"]["window"] == 400_000
    assert data["listing"]["budget"] == 32_000
    assert main(
        ["skills", "doctor", "--skills-dir", str(tmp_path), "--target", "gemini"]
    ) in (0, 1)
    out = " ".join(capsys.readouterr().out.split())
    assert "judged for Gemini CLI (--target): 1,048,576-token window" in out
    assert "Gemini CLI documents no listing budget" in out


def test_a_plain_folder_is_judged_by_aiq_tui_with_its_configured_window(
    tmp_path: Path, isolated_home: Home
) -> None:
    skill(tmp_path / "plain")
    report = _report(tmp_path)
    assert (
        report.target.name == "aiq"
        and "no skill lives in a harness" in report.target.why
    )
