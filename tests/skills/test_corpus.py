"""The 12 real Anthropic skills: all load; strict validation agrees with the spec by hand.

Checked by hand against the spec: every corpus skill has a name equal to its folder, in
lowercase-hyphen form, only the fields name/description/license, and a description within
1024 characters — except claude-api, whose description is 1068 characters (> 1024).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.config import SkillsSettings
from aiq_tui.skills.discover import SkillDir, discover

pytestmark = pytest.mark.corpus

CORPUS = [
    "algorithmic-art",
    "brand-guidelines",
    "canvas-design",
    "claude-api",
    "frontend-design",
    "internal-comms",
    "mcp-builder",
    "skill-creator",
    "slack-gif-creator",
    "theme-factory",
    "web-artifacts-builder",
    "webapp-testing",
]
STRICT_INVALID = {"claude-api": "description"}


def test_all_corpus_skills_load(corpus_dir: Path) -> None:
    catalog = discover([SkillDir(corpus_dir, "flag")], SkillsSettings())
    assert catalog.names() == CORPUS
    assert [p for p in catalog.problems if p.severity.value == "error"] == []
    for name in CORPUS:
        skill = catalog.load(name)
        assert skill.body.strip() and skill.meta.description
    assert catalog.get("skill-creator").extras == {}
    assert catalog.get("algorithmic-art").extras == {
        "license": "Complete terms in LICENSE.txt"
    }


def test_strict_validation_of_corpus_agrees_with_spec(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["skills", "validate", str(corpus_dir), "--strict", "--json"])
    report = json.loads(capsys.readouterr().out)
    verdicts = {Path(s["path"]).parent.name: s for s in report["skills"]}
    assert sorted(verdicts) == CORPUS
    for name, entry in verdicts.items():
        errors = [p for p in entry["problems"] if p["severity"] == "error"]
        if name in STRICT_INVALID:
            assert not entry["valid"] and [p["field"] for p in errors] == [
                STRICT_INVALID[name]
            ]
        else:
            assert entry["valid"], (name, errors)
    assert code == 1  # one invalid skill


def test_corpus_is_valid_in_lenient_mode(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["skills", "validate", str(corpus_dir)]) == 0
