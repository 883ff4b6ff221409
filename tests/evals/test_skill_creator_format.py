"""skill-creator's format both ways: ``skills tune --json`` and ``match --eval --json`` carry the
fields skill-creator's scripts write and read, beside ours; ``--description TEXT`` judges a
description without touching SKILL.md; ``--trigger-threshold`` is the share of runs that triggers.

``GENERATE_REPORT_READS`` lists what skill-creator's ``scripts/generate_report.py`` (anthropics/
skills at 9d2f1ae1) reads from ``run_loop.py``'s output — its summary line prints
``best_description`` ("Best: N/A" when it is missing) and one row per ``history`` entry with a
tick per query from ``train_results``/``test_results``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evals.test_tune import skills  # noqa: F401 - the gif-maker collection fixture
from tests.match.test_match_cli import run

GENERATE_REPORT_READS = {
    "top": (
        "history",
        "holdout",
        "original_description",
        "best_description",
        "best_score",
        "best_test_score",
        "best_train_score",
        "iterations_run",
        "train_size",
        "test_size",
    ),
    "history": (
        "iteration",
        "description",
        "train_passed",
        "train_total",
        "test_passed",
        "test_total",
        "train_results",
        "test_results",
    ),
    "result": ("query", "should_trigger", "pass", "triggers", "runs"),
}
# run_loop.py's output beyond what the report reads, and run_eval.py's.
RUN_LOOP_WRITES = ("exit_reason", "final_description")
RUN_EVAL_WRITES = ("results", "summary")


def tune_json(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> dict:
    code, out, err = run(
        capsys,
        "skills",
        "tune",
        "gif-maker",
        "--skills-dir",
        str(root),
        "--json",
        *extra,
    )
    assert code == 0, err
    return json.loads(out)


def test_tune_json_has_every_field_generate_report_reads(
    skills: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = tune_json(capsys, skills)
    for key in GENERATE_REPORT_READS["top"] + RUN_LOOP_WRITES + RUN_EVAL_WRITES:
        assert key in data, key
    assert (
        data["best_description"] == data["after"]["description"]
    )  # ours and theirs agree
    assert data["original_description"] == data["before"]["description"]
    assert data["exit_reason"].startswith(
        ("all_passed", "max_iterations", "no_improvement")
    )
    assert data["history"] and data["iterations_run"] == len(data["history"])
    for number, entry in enumerate(data["history"], start=1):
        for key in GENERATE_REPORT_READS["history"]:
            assert key in entry, key
        assert (
            entry["iteration"] == number and "origin" in entry
        )  # our keys stay beside theirs
        assert (
            entry["train_total"] == data["train_size"]
            and entry["test_total"] == data["test_size"]
        )
        for result in entry["train_results"] + entry["test_results"]:
            for key in GENERATE_REPORT_READS["result"]:
                assert key in result, key
    best = next(
        e for e in data["history"] if e["description"] == data["best_description"]
    )
    assert data["best_test_score"] == f"{best['test_passed']}/{best['test_total']}"
    assert (
        data["summary"]["total"]
        == data["train_size"] + data["test_size"]
        == len(data["results"])
    )


def test_tune_description_starts_from_text_and_leaves_skill_md_alone(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (skills / "gif-maker" / "SKILL.md").read_bytes()
    data = tune_json(
        capsys,
        skills,
        "--description",
        "Make emoji reactions and animated GIFs for team chat.",
    )
    assert (
        data["original_description"]
        == "Make emoji reactions and animated GIFs for team chat."
    )
    assert data["best_description"].startswith(
        "Make emoji reactions and animated GIFs for team chat."
    )
    assert (skills / "gif-maker" / "SKILL.md").read_bytes() == before


def test_match_eval_json_has_run_evals_fields_and_judges_a_description_without_writing(
    skills: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evals = str(skills / "gif-maker" / "evals" / "trigger_eval.json")
    code, out, _ = run(
        capsys, "match", "--eval", evals, "--skills-dir", str(skills), "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["skill_name"] == "gif-maker"
    assert (
        len(data["results"]) == data["overall"]["queries"] == data["summary"]["total"]
    )
    assert data["summary"]["passed"] == data["overall"]["passed"]
    assert {
        "query",
        "should_trigger",
        "trigger_rate",
        "triggers",
        "runs",
        "pass",
    } <= set(data["results"][0])
    before = (skills / "gif-maker" / "SKILL.md").read_bytes()
    code, out, _ = run(
        capsys,
        "match",
        "--eval",
        evals,
        "--skills-dir",
        str(skills),
        "--json",
        "--description",
        "Make emoji reactions for team chat.",
    )
    widened = json.loads(out)
    assert widened["description"] == "Make emoji reactions for team chat."
    assert (
        widened["overall"]["recall"] > data["overall"]["recall"]
    )  # the emoji requests now load it
    assert (skills / "gif-maker" / "SKILL.md").read_bytes() == before


@pytest.mark.parametrize(
    "argv",
    [
        ["match", "--eval", "{evals}", "--trigger-threshold", "0"],
        ["match", "--eval", "{evals}", "--trigger-threshold", "1.5"],
        ["match", "--eval", "{evals}", "--description", "   "],
        ["skills", "tune", "gif-maker", "--trigger-threshold", "0"],
        ["skills", "tune", "gif-maker", "--description", ""],
    ],
)
def test_bad_threshold_or_description_is_a_usage_error(
    argv: list[str],
    skills: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    evals = str(skills / "gif-maker" / "evals" / "trigger_eval.json")
    code, _, err = run(
        capsys,
        *[arg.replace("{evals}", evals) for arg in argv],
        "--skills-dir",
        str(skills),
    )
    assert code == 2 and err
