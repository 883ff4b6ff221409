"""Realistic requests against the real anthropic-skills corpus find the intended skill."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.ranking.match import SkillIndex
from aiq_tui.workspace import Workspace

REQUESTS = [
    ("make a GIF for slack", "slack-gif-creator"),
    ("build an MCP server that wraps the GitHub API", "mcp-builder"),
    ("test my local web app in a browser with playwright", "webapp-testing"),
    ("write this week's company newsletter", "internal-comms"),
    ("draft a status report for leadership", "internal-comms"),
    ("generative art with p5.js and flow fields", "algorithmic-art"),
    ("apply Anthropic brand colors and typography to my slides", "brand-guidelines"),
    ("I want to create a new skill and run evals on it", "skill-creator"),
    ("design a poster as a png", "canvas-design"),
    ("call the Claude API from python with the anthropic SDK", "claude-api"),
    ("style these slides with a preset theme", "theme-factory"),
    ("build a React artifact with Tailwind and shadcn/ui", "web-artifacts-builder"),
    (
        "give my landing page a distinctive visual design, not a template look",
        "frontend-design",
    ),
]


@pytest.mark.corpus
@pytest.mark.parametrize(("request_text", "expected"), REQUESTS)
def test_realistic_request_finds_intended_skill_in_top_3(
    corpus_dir: Path, tmp_path: Path, request_text: str, expected: str
) -> None:
    workspace = Workspace.open(
        home_flag=tmp_path / "home", skills_dirs=[corpus_dir], cwd=tmp_path
    )
    index = SkillIndex(workspace.catalog)
    top = [match.name for match in index.rank(request_text, top_k=3).matches]
    assert expected in top, f"{request_text!r} → {top}"
