"""``aiq-tui prompt`` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main


def write_skill(root: Path, name: str, description: str, body: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body}\n",
        encoding="utf-8",
    )


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(
        root,
        "pdf-tools",
        "Extract text and tables from PDF files.",
        "# PDF\nUse pdftotext -layout first.",
    )
    write_skill(
        root,
        "csv-report",
        "Summarise CSV files into a short report.",
        "# CSV\nRead the header row first.",
    )
    return root


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def test_prompt_json_shows_system_prompt_messages_and_a_breakdown_that_adds_up(
    capsys: pytest.CaptureFixture[str], skills_dir: Path
) -> None:
    code, data = run_json(
        capsys,
        "prompt",
        "extract tables from pdf-tools files",
        "--skills-dir",
        str(skills_dir),
        "--window",
        "16000",
        "--json",
    )
    assert code == 0
    assert (
        "## Skill: pdf-tools\nExtract text and tables from PDF files.\n\n# PDF"
        in data["system"]
    )
    assert "- csv-report: Summarise CSV files" in data["system"]
    assert data["messages"] == [
        {"role": "user", "content": "extract tables from pdf-tools files", "id": "m1"}
    ]
    b = data["breakdown"]
    assert (
        b["system"]
        + b["catalog"]
        + sum(b["skills"].values())
        + b["history"]
        + b["tool_results"]
        + b["reserve"]
        == b["total"]
    )
    assert b["exact"] and b["window"] == 16000 and data["fits"]


def test_prompt_table_output_names_every_part(
    capsys: pytest.CaptureFixture[str], skills_dir: Path
) -> None:
    code = main(
        ["prompt", "pdf tables", "--skills-dir", str(skills_dir), "--window", "16000"]
    )
    out = capsys.readouterr().out
    assert code == 0
    for label in (
        "system prompt",
        "token breakdown",
        "skills catalog",
        "history",
        "reserved output",
        "total",
    ):
        assert label in out


def test_prompt_over_the_window_is_refused_with_exit_1(
    capsys: pytest.CaptureFixture[str], skills_dir: Path
) -> None:
    code, data = run_json(
        capsys,
        "prompt",
        "pdf",
        "--skills-dir",
        str(skills_dir),
        "--window",
        "500",
        "--json",
    )
    assert code == 1 and not data["fits"]


def test_prompt_without_query_or_simulate_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["prompt"]) == 2
    assert "QUERY" in capsys.readouterr().err


def test_simulate_prints_each_stage_as_it_fires(
    capsys: pytest.CaptureFixture[str], skills_dir: Path
) -> None:
    code = main(
        [
            "prompt",
            "--simulate",
            "12",
            "--window",
            "6000",
            "--skills-dir",
            str(skills_dir),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "stage 80 %" in out or "stage 95 %" in out
    assert "summarised" in out and "→" in out


@pytest.mark.parametrize(("window", "turns"), [(None, 20), (6000, 20), (16000, 30)])
def test_simulate_reaches_every_stage_80_then_90_then_95(
    capsys: pytest.CaptureFixture[str], skills_dir: Path, window: int | None, turns: int
) -> None:
    size = ["--window", str(window)] if window else []
    code, data = run_json(
        capsys,
        "prompt",
        "--simulate",
        str(turns),
        *size,
        "--skills-dir",
        str(skills_dir),
        "--json",
    )
    assert code == 0 and not data["refused"]
    stages = [record["stage"] for record in data["stages"] if record["steps"]]
    first = {stage: stages.index(stage) for stage in (80, 90, 95) if stage in stages}
    assert list(first) == [80, 90, 95], stages
    for record in data[
        "stages"
    ]:  # a stage fires only past its own threshold (after clearing older results)
        if record["stage"] == 95:
            assert record["tokens_before"] >= 0.95 * data["window"]


def test_simulate_json_records_stages_with_before_and_after(
    capsys: pytest.CaptureFixture[str], skills_dir: Path
) -> None:
    code, data = run_json(
        capsys,
        "prompt",
        "--simulate",
        "15",
        "--window",
        "6000",
        "--skills-dir",
        str(skills_dir),
        "--json",
    )
    assert code == 0 and not data["refused"] and data["stages"]
    for record in data["stages"]:
        assert record["stage"] in (80, 90, 95)
        assert record["tokens_after"] < record["tokens_before"]
        assert record["tokens_after"] <= data["window"]
    assert data["final"]["total"] <= 6000
