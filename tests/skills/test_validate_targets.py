"""``skills validate --target``: a skill judged by the harness that reads it, never advised to
switch off what that harness does; ``--strict`` alone stays the reference's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from aiq_tui.cli import main
from aiq_tui.config import SkillsSettings
from aiq_tui.harnesses import profile
from aiq_tui.problems import Severity
from aiq_tui.skills.check import check_file
from aiq_tui.skills.validate import validate
from tests.skills.collections import skill

Capsys = pytest.CaptureFixture[str]
MANUAL = {"name": "deploy", "description": "Deploy", "disable-model-invocation": True}


def test_strict_alone_is_the_references_verdict_on_claude_codes_fields() -> None:
    [problem] = validate(MANUAL, "SKILL.md", "deploy", strict=True)
    assert problem.severity is Severity.ERROR
    assert "remove it" not in problem.hint  # removing it would let the model deploy
    assert "--target claude-code" in problem.hint


def test_strict_for_claude_code_accepts_its_documented_fields() -> None:
    fields = {
        **MANUAL,
        "user-invocable": "no",
        "argument-hint": "[env]",
        "context": "fork",
        "agent": "Explore",
        "model": "sonnet",
        "hooks": {"PreToolUse": []},
        "paths": ["src/**"],
        "when_to_use": "when shipping",
    }
    assert (
        validate(
            fields, "SKILL.md", "deploy", strict=True, target=profile("claude-code")
        )
        == []
    )


def test_strict_for_claude_code_fails_a_field_it_does_not_document() -> None:
    fields = {"name": "x", "description": "d", "requires": {"mcp": ["rube"]}}
    [problem] = validate(
        fields, "SKILL.md", "x", strict=True, target=profile("claude-code")
    )
    assert (
        problem.field == "requires"
        and "Claude Code does not document it" in problem.message
    )
    assert "Claude Code ignores it" in problem.hint


def test_lenient_for_claude_code_says_to_keep_its_field() -> None:
    [problem] = validate(
        MANUAL, "SKILL.md", "deploy", spec_warnings=True, target=profile("claude-code")
    )
    assert problem.severity is Severity.WARNING
    assert problem.hint.startswith("keep it: Claude Code reads it")


def test_a_boolean_claude_code_cannot_read_is_said() -> None:
    fields = {"name": "x", "description": "d", "disable-model-invocation": "maybe"}
    [problem] = validate(fields, "SKILL.md", "x")
    assert problem.severity is Severity.WARNING and "true or false" in problem.message


@pytest.mark.parametrize(
    ("target", "severity"),
    [(None, Severity.ERROR), ("claude-code", Severity.WARNING)],
)
def test_a_missing_name_fails_the_reference_and_is_a_warning_for_claude_code(
    target: str | None, severity: Severity
) -> None:
    harness = profile(target) if target else None
    [problem] = validate(
        {"description": "d"}, "SKILL.md", "x", strict=True, target=harness
    )
    assert problem.field == "name" and problem.severity is severity


def test_a_long_description_loads_in_claude_code_and_fails_codex() -> None:
    fields = {"name": "x", "description": "d" * 1100}
    [claude] = validate(
        fields, "SKILL.md", "x", strict=True, target=profile("claude-code")
    )
    [codex] = validate(fields, "SKILL.md", "x", strict=True, target=profile("codex"))
    assert claude.severity is Severity.WARNING and "1,536" in claude.message
    assert codex.severity is Severity.ERROR


def test_auto_judges_each_skill_by_the_folder_it_lives_in(tmp_path: Path) -> None:
    claude = skill(
        tmp_path / ".claude" / "skills" / "deploy",
        extra="disable-model-invocation: true\n",
    )
    shared = skill(
        tmp_path / ".agents" / "skills" / "deploy",
        extra="disable-model-invocation: true\n",
    )
    settings = SkillsSettings()
    assert check_file(claude, settings, strict=True, target="auto").valid
    verdict = check_file(shared, settings, strict=True, target="auto")
    assert not verdict.valid and verdict.target == "agentskills"


def test_aiq_tuis_own_resource_limit_is_a_note_not_a_warning(tmp_path: Path) -> None:
    path = skill(tmp_path / "fonts")
    (tmp_path / "fonts" / "big.ttf").write_bytes(b"\0" * 60_000)
    report = check_file(path, SkillsSettings(), strict=True)
    [note] = report.problems
    assert note.severity is Severity.INFO and "aiq-tui's own limit" in note.message
    assert report.valid


def test_the_cli_takes_the_target_and_reports_it(
    tmp_path: Path, capsys: Capsys
) -> None:
    skill(
        tmp_path / ".claude" / "skills" / "deploy",
        extra="disable-model-invocation: true\n",
    )
    folder = str(tmp_path / ".claude" / "skills")
    assert main(["skills", "validate", "--strict", folder]) == 1
    capsys.readouterr()
    assert (
        main(["skills", "validate", "--strict", "--target", "auto", "--json", folder])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["target"] == "auto" and data["skills"][0]["target"] == "claude-code"
    with pytest.raises(SystemExit) as usage:
        main(["skills", "validate", "--target", "emacs", folder])
    assert usage.value.code == 2


def test_the_pre_commit_hook_takes_the_target() -> None:
    hooks = yaml.safe_load(
        (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text()
    )
    validate_hook = next(h for h in hooks if h["id"] == "aiq-skills-validate")
    assert "--strict" in validate_hook["entry"]
    assert validate_hook["args"] == ["--target", "auto"]
    assert any(h["id"] == "aiq-skills-validate-spec" for h in hooks)


def test_show_says_what_claude_code_does_with_its_fields_and_what_happens_here(
    tmp_path: Path, capsys: Capsys
) -> None:
    skill(
        tmp_path / "deep-research",
        extra="context: fork\nagent: Explore\nmodel: '[bold]opus'\nhooks: {}\n",
    )
    assert (
        main(
            ["skills", "show", "deep-research", "--skills-dir", str(tmp_path), "--json"]
        )
        == 0
    )
    notes = {n["field"]: n for n in json.loads(capsys.readouterr().out)["claude_code"]}
    assert notes["context"]["claude_code"] == "runs the skill in a forked subagent"
    assert notes["context"]["aiq_tui"] == "runs it inline, in the conversation"
    assert set(notes) == {"context", "agent", "model", "hooks"}
    assert main(["skills", "show", "deep-research", "--skills-dir", str(tmp_path)]) == 0
    assert "'[bold]opus'" in capsys.readouterr().out  # the value as written, not markup
