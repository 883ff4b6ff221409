"""``aiq-tui match``: the ranking table, JSON, and --explain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main


def write_skill(root: Path, name: str, description: str, body: str = "Body.\n") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body}"
    )


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "slack-gif-creator", "Create animated GIFs optimised for Slack.")
    write_skill(root, "sql-query", "Run read-only SQL queries against a database.")
    write_skill(root, "weather-report", "Forecasts for any city.")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_signal_met_through_a_related_word_is_marked_with_the_query_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "showtimes", "Showtimes for films near you.")
    code, out, _ = run(capsys, "match", "movie", "--skills-dir", str(root))
    assert code == 0
    assert "movie~films@description" in "".join(out.split()), out
    assert "related to the query's" in out
    code, out, _ = run(capsys, "match", "movie", "--skills-dir", str(root), "--json")
    signals = [
        s
        for m in json.loads(out)["matches"]
        if m["name"] == "showtimes"
        for s in m["signals"]
    ]
    assert signals and all(s["via"] for s in signals)


def test_match_prints_ranking_with_phase_and_signals(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "match", "make a gif for slack", "--skills-dir", str(skills)
    )
    assert code == 0
    assert "slack-gif-creator" in out and "full" in out and "gif@name" in out
    assert "weather-report" not in out


def test_match_json_lists_matches_with_breakdown(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "match",
        "run sql-query on my database",
        "--skills-dir",
        str(skills),
        "--json",
        "--top",
        "1",
    )
    data = json.loads(out)
    assert code == 0 and data["top_k"] == 1
    assert [m["name"] for m in data["matches"]] == ["sql-query"]
    assert data["matches"][0]["phase"] in {"brief", "full"}
    assert {s["field"] for s in data["matches"][0]["signals"]} >= {"name"}


def test_match_explain_names_what_is_missing(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "match",
        "make a gif for slack",
        "--skills-dir",
        str(skills),
        "--explain",
        "weather-report",
    )
    assert code == 0
    assert "no query term appears in name, description, tags or triggers" in out


def test_match_explain_without_name_explains_top_k(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "match", "gif", "--skills-dir", str(skills), "--explain", "--json"
    )
    data = json.loads(out)
    assert code == 0
    assert data["explanations"][0]["name"] == "slack-gif-creator"


def test_match_explain_unknown_skill_is_usage_error(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "match", "gif", "--skills-dir", str(skills), "--explain", "slack-gif"
    )
    assert code == 2 and "no skill named 'slack-gif'" in err


def test_match_top_must_be_positive(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "match", "gif", "--skills-dir", str(skills), "--top", "0"
    )
    assert code == 2 and "--top" in err
